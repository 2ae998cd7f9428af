/*
 * cmd_work.c - recording the work: phase, agent, file, error, tokens add,
 * decide, task, milestone, artifact. Each subcommand becomes one
 * operation on the active session.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/util.h"
#include "git-session/worktree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A strict whole number from the command line. */
static int parse_num(double *out, const char *s, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return gs_error("%s must be a whole number, not '%s'", what, s);
	*out = (double)v;
	return 0;
}

/* Publishes op on the active session; takes ownership of op. */
static int run_op(struct cmd_ctx *c, cJSON *op, int quiet)
{
	char *id = NULL;
	int error = cmd_target(&id, c, NULL);

	if (!error)
		error = cmd_write(NULL, c, id, op, NULL, quiet);
	free(id);
	cJSON_Delete(op);
	return error;
}

/* A new operation "<family>.<sub>"; the caller frees it. */
static cJSON *family_op(const char *family, const char *sub)
{
	char *name = xstrfmt("%s.%s", family, sub);
	cJSON *op = op_new(name, NULL);

	free(name);
	return op;
}

static int usage_error(const char *const *usage, const char *msg)
{
	gs_error("%s", msg);
	usage_with_options(usage, NULL, 0);
	return GS_EUSAGE;
}

/* The subcommand: argv[1], which must be one of names. */
static int subcommand(const char **out, int argc, const char **argv, const char *const *names,
		      const char *const *usage)
{
	*out = NULL;
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help-usage"))) {
		usage_with_options(usage, NULL, 1);
		return GS_EUSAGE;
	}
	if (argc < 2)
		return usage_error(usage, "which subcommand?");
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(argv[1], names[i])) {
			*out = names[i];
			return 0;
		}
	gs_error("unknown subcommand '%s'", argv[1]);
	usage_with_options(usage, NULL, 0);
	return GS_EUSAGE;
}

static const char *const phase_usage[] = {
	"git session phase add <name>... [--parallel] [--blocked-by <n>]...",
	"git session phase start <n>",
	"git session phase complete <n> [--context <text>]",
	"git session phase fail <n> --error <msg> [--type <type>]",
	"git session phase skip <n>",
	"git session phase retry <n>",
	"git session phase step <n> <sub-step>",
	NULL,
};

CMD(phase)
{
	static const char *const subs[] = { "add", "start", "complete", "fail", "skip", "retry", "step", NULL };
	const char *sub, *error_msg = NULL, *type = NULL, *context = NULL;
	struct strlist blocked = { 0 };
	int parallel = 0, quiet = 0, error;
	cJSON *op = NULL, *args;
	double n;
	const struct option opts[] = {
		{ OPT_BOOL, 0, "parallel", &parallel, NULL, "add: the phases may run side by side" },
		{ OPT_LIST, 0, "blocked-by", &blocked, "<n>", "add: may not start before phase <n> ends" },
		{ OPT_STRING, 0, "error", &error_msg, "<msg>", "fail: what went wrong" },
		{ OPT_STRING, 0, "type", &type, "<type>", "fail: validation, timeout, file_conflict, runtime or dependency" },
		{ OPT_STRING, 0, "context", &context, "<text>", "complete: what later phases need to know" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = subcommand(&sub, argc, argv, subs, phase_usage)) < 0)
		return cmd_exit(error);
	argc--, argv++;
	if ((error = parse_options(&argc, argv, opts, phase_usage, 0)) < 0)
		goto cleanup;
	op = family_op("phase", sub);
	args = op_args(op);
	if (!strcmp(sub, "add")) {
		if (!argc) {
			error = usage_error(phase_usage, "no phase names given");
			goto cleanup;
		}
		for (int i = 0; i < argc; i++)
			cJSON_AddItemToArray(json_arr(args, "names"), cJSON_CreateString(argv[i]));
		json_set_bool(args, "parallel", parallel);
		for (size_t i = 0; i < blocked.n; i++) {
			if ((error = parse_num(&n, blocked.v[i], "--blocked-by")) < 0)
				goto cleanup;
			cJSON_AddItemToArray(json_arr(args, "blocked_by"), cJSON_CreateNumber(n));
		}
	} else {
		if (argc != (strcmp(sub, "step") ? 1 : 2)) {
			error = usage_error(phase_usage, argc ? "wrong number of arguments" : "which phase? (its number)");
			goto cleanup;
		}
		if ((error = parse_num(&n, argv[0], "the phase")) < 0)
			goto cleanup;
		json_set_num(args, "phase", n);
		if (!strcmp(sub, "fail")) {
			if (!error_msg) {
				error = usage_error(phase_usage, "phase fail needs --error <msg>");
				goto cleanup;
			}
			json_set_str(args, "error", error_msg);
			if (type)
				json_set_str(args, "type", type);
		}
		if (context)
			json_set_str(args, "context", context);
		if (!strcmp(sub, "step"))
			json_set_str(args, "sub_step", argv[1]);
	}
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	cJSON_Delete(op);
	strlist_clear(&blocked);
	return cmd_exit(error);
}

static const char *const agent_usage[] = {
	"git session agent start <agent-id> --type <type> --task <text> [--phase <n>]",
	"git session agent progress <agent-id> <percent>",
	"git session agent done <agent-id> [--summary <text>]",
	"git session agent fail <agent-id> --error <msg> [--type <type>]",
	NULL,
};

CMD(agent)
{
	static const char *const subs[] = { "start", "progress", "done", "fail", NULL };
	const char *sub, *type = NULL, *task = NULL, *phase = NULL, *summary = NULL, *error_msg = NULL;
	int quiet = 0, error;
	cJSON *op = NULL, *args;
	double n;
	const struct option opts[] = {
		{ OPT_STRING, 0, "type", &type, "<type>", "start: the kind of agent; fail: the error type" },
		{ OPT_STRING, 0, "task", &task, "<text>", "start: what the agent is to do" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "start: the phase it works in (default: the current one)" },
		{ OPT_STRING, 0, "summary", &summary, "<text>", "done: what came of it" },
		{ OPT_STRING, 0, "error", &error_msg, "<msg>", "fail: what went wrong" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = subcommand(&sub, argc, argv, subs, agent_usage)) < 0)
		return cmd_exit(error);
	argc--, argv++;
	if ((error = parse_options(&argc, argv, opts, agent_usage, 0)) < 0)
		goto cleanup;
	if (argc != (strcmp(sub, "progress") ? 1 : 2)) {
		error = usage_error(agent_usage, argc ? "wrong number of arguments" : "which agent?");
		goto cleanup;
	}
	op = family_op("agent", sub);
	args = op_args(op);
	json_set_str(args, "agent", argv[0]);
	if (!strcmp(sub, "start")) {
		if (!type || !task) {
			error = usage_error(agent_usage, "agent start needs --type and --task");
			goto cleanup;
		}
		json_set_str(args, "type", type);
		json_set_str(args, "task", task);
		if (phase) {
			if ((error = parse_num(&n, phase, "--phase")) < 0)
				goto cleanup;
			json_set_num(args, "phase", n);
		}
	} else if (!strcmp(sub, "progress")) {
		char *pct = xstrdup(argv[1]);	/* "60" or "60%" */
		size_t len = strlen(pct);

		if (len && pct[len - 1] == '%')
			pct[len - 1] = '\0';
		error = parse_num(&n, pct, "the percentage");
		free(pct);
		if (error < 0)
			goto cleanup;
		json_set_num(args, "progress", n);
	} else if (!strcmp(sub, "done")) {
		json_set_str(args, "summary", summary);
	} else {
		if (!error_msg) {
			error = usage_error(agent_usage, "agent fail needs --error <msg>");
			goto cleanup;
		}
		json_set_str(args, "error", error_msg);
		if (type)
			json_set_str(args, "type", type);
	}
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	cJSON_Delete(op);
	return cmd_exit(error);
}

static const char *const file_usage[] = {
	"git session file (created | modified | deleted) <path>... [--agent <id>] [--phase <n>]",
	NULL,
};

CMD(file)
{
	static const char *const subs[] = { "created", "modified", "deleted", NULL };
	const char *sub, *agent = NULL, *phase = NULL;
	int quiet = 0, error;
	cJSON *op = NULL, *args, *files;
	double n;
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent that touched the files" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "the phase (default: the agent's, or none)" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = subcommand(&sub, argc, argv, subs, file_usage)) < 0)
		return cmd_exit(error);
	argc--, argv++;
	if ((error = parse_options(&argc, argv, opts, file_usage, 0)) < 0)
		goto cleanup;
	if (!argc) {
		error = usage_error(file_usage, "no paths given");
		goto cleanup;
	}
	op = family_op("file", sub);
	args = op_args(op);
	files = json_obj(args, "files");
	json_set_str(args, "agent", agent);
	if (phase) {
		if ((error = parse_num(&n, phase, "--phase")) < 0)
			goto cleanup;
		json_set_num(args, "phase", n);
	}
	for (int i = 0; i < argc; i++) {
		char *path = NULL;

		if ((error = worktree_relpath(&path, c->st, argv[i])) == 0) {
			if (!strcmp(sub, "deleted"))
				json_set_str(json_set(files, path, cJSON_CreateObject()), "status", "deleted");
			else
				error = worktree_record(files, c->st, path, sub, 0);
		}
		free(path);
		if (error < 0)
			goto cleanup;
	}
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	cJSON_Delete(op);
	return cmd_exit(error);
}

static const char *const error_usage[] = {
	"git session error add --type <type> --message <msg> [--agent <id>] [--phase <n>]",
	"git session error resolve <n> --resolution <text>",
	NULL,
};

CMD(error)
{
	static const char *const subs[] = { "add", "resolve", NULL };
	const char *sub, *type = NULL, *message = NULL, *agent = NULL, *phase = NULL, *resolution = NULL;
	int quiet = 0, error;
	cJSON *op = NULL, *args;
	double n;
	const struct option opts[] = {
		{ OPT_STRING, 0, "type", &type, "<type>", "validation, timeout, file_conflict, runtime or dependency" },
		{ OPT_STRING, 0, "message", &message, "<msg>", "what went wrong" },
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent it happened to" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "the phase it happened in" },
		{ OPT_STRING, 0, "resolution", &resolution, "<text>", "resolve: what was done about it" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = subcommand(&sub, argc, argv, subs, error_usage)) < 0)
		return cmd_exit(error);
	argc--, argv++;
	if ((error = parse_options(&argc, argv, opts, error_usage, 0)) < 0)
		goto cleanup;
	op = family_op("error", sub);
	args = op_args(op);
	if (!strcmp(sub, "add")) {
		if (argc || !type || !message) {
			error = usage_error(error_usage, "error add needs --type and --message, and nothing else");
			goto cleanup;
		}
		json_set_str(args, "type", type);
		json_set_str(args, "message", message);
		json_set_str(args, "agent", agent);
		if (phase) {
			if ((error = parse_num(&n, phase, "--phase")) < 0)
				goto cleanup;
			json_set_num(args, "phase", n);
		}
	} else {
		if (argc != 1 || !resolution) {
			error = usage_error(error_usage, "error resolve needs <n> and --resolution");
			goto cleanup;
		}
		if ((error = parse_num(&n, argv[0], "the error number")) < 0)
			goto cleanup;
		json_set_num(args, "error", n);
		json_set_str(args, "resolution", resolution);
	}
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	cJSON_Delete(op);
	return cmd_exit(error);
}

/* `tokens add ...`; the report (`tokens` alone) is in cmd_status.c. */
int cmd_tokens_add(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session tokens add --agent <id> --input <n> --output <n> [--cached <n>] [--isolated]",
		NULL,
	};
	const char *agent = NULL, *in = NULL, *out = NULL, *cached = NULL;
	int quiet = 0, isolated = 0, error;
	cJSON *op = NULL;
	double n;
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<id>", "who used the tokens" },
		{ OPT_STRING, 0, "input", &in, "<n>", "input tokens" },
		{ OPT_STRING, 0, "output", &out, "<n>", "output tokens" },
		{ OPT_STRING, 0, "cached", &cached, "<n>", "input tokens served from a cache" },
		{ OPT_BOOL, 0, "isolated", &isolated, NULL, "used in the agent's own context, not the session's" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		return cmd_exit(error);
	if (argc || !agent || !in || !out)
		return cmd_exit(usage_error(usage, "tokens add needs --agent, --input and --output"));
	op = op_new("tokens.add", NULL);
	json_set_str(op_args(op), "agent", agent);
	if ((error = parse_num(&n, in, "--input")) < 0)
		goto cleanup;
	json_set_num(op_args(op), "input", n);
	if ((error = parse_num(&n, out, "--output")) < 0)
		goto cleanup;
	json_set_num(op_args(op), "output", n);
	if (cached) {
		if ((error = parse_num(&n, cached, "--cached")) < 0)
			goto cleanup;
		json_set_num(op_args(op), "cached", n);
	}
	json_set_bool(op_args(op), "isolated", isolated);
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	cJSON_Delete(op);
	return cmd_exit(error);
}

CMD(decide)
{
	static const char *const usage[] = { "git session decide <decision> [--rationale <text>] [--agent <id>]", NULL };
	const char *rationale = NULL, *agent = NULL;
	int quiet = 0, error;
	cJSON *op;
	const struct option opts[] = {
		{ OPT_STRING, 0, "rationale", &rationale, "<text>", "why" },
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent that decided" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		return cmd_exit(error);
	if (argc != 1)
		return cmd_exit(usage_error(usage, argc ? "too many arguments (quote the decision)" : "what was decided?"));
	op = op_new("decide", NULL);
	json_set_str(op_args(op), "decision", argv[0]);
	json_set_str(op_args(op), "rationale", rationale);
	json_set_str(op_args(op), "agent", agent);
	return cmd_exit(run_op(c, op, quiet));
}

/* task and milestone: "add <text>" and "done <n | name>". */
static int list_command(int argc, const char **argv, struct cmd_ctx *c, const char *family,
			const char *const *usage)
{
	static const char *const subs[] = { "add", "done", NULL };
	int quiet = 0, error, is_task = !strcmp(family, "task");
	const char *sub;
	cJSON *op;
	double n;
	const struct option opts[] = {
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = subcommand(&sub, argc, argv, subs, usage)) < 0)
		return cmd_exit(error);
	argc--, argv++;
	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		return cmd_exit(error);
	if (argc != 1)
		return cmd_exit(usage_error(usage, argc ? "too many arguments (quote the text)" : "missing argument"));
	op = family_op(family, sub);
	if (is_task && !strcmp(sub, "done")) {
		if (parse_num(&n, argv[0], "the task number") < 0) {
			cJSON_Delete(op);
			return 1;
		}
		json_set_num(op_args(op), "task", n);
	} else {
		json_set_str(op_args(op), is_task ? "title" : "name", argv[0]);
	}
	return cmd_exit(run_op(c, op, quiet));
}

CMD(task)
{
	static const char *const usage[] = { "git session task add <title>", "git session task done <n>", NULL };
	return list_command(argc, argv, c, "task", usage);
}

CMD(milestone)
{
	static const char *const usage[] = { "git session milestone add <name>", "git session milestone done <name>", NULL };
	return list_command(argc, argv, c, "milestone", usage);
}

CMD(artifact)
{
	static const char *const usage[] = { "git session artifact <path> [--agent <id>] [--phase <n>]", NULL };
	const char *agent = NULL, *phase = NULL;
	int quiet = 0, error;
	char *path = NULL;
	cJSON *op = NULL;
	double n;
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent that produced it" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "the phase it belongs to" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		return cmd_exit(error);
	if (argc != 1)
		return cmd_exit(usage_error(usage, argc ? "too many arguments" : "which path?"));
	if ((error = worktree_relpath(&path, c->st, argv[0])) < 0)
		return 1;
	op = op_new("artifact", NULL);
	json_set_str(op_args(op), "path", path);
	json_set_str(op_args(op), "agent", agent);
	free(path);
	if (phase) {
		if ((error = parse_num(&n, phase, "--phase")) < 0) {
			cJSON_Delete(op);
			return 1;
		}
		json_set_num(op_args(op), "phase", n);
	}
	return cmd_exit(run_op(c, op, quiet));
}
