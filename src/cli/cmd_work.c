/*
 * cmd_work.c - recording the work: phase, agent, file, error, tokens add,
 * decide, task, milestone, artifact. Each subcommand becomes one
 * operation on the active session.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A strict whole number from the command line. */
static int parse_num(double *out, const char *s, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	/* digits only: strtoll also takes " 5", "+5" and "-0" */
	if (errno || end == s || *end || v < 0 || !isdigit((unsigned char)*s))
		return gs_error("%s must be a whole number, not '%s'", what, s);
	*out = (double)v;
	return 0;
}

/* Publishes op on the active session; takes ownership of op. */
static int run_op(struct cmd_ctx *c, struct state_op *op, int quiet)
{
	char *id = NULL;
	int error = cmd_target(&id, c, NULL);

	if (!error)
		error = cmd_write(NULL, c, id, op, NULL, quiet);
	free(id);
	op_free(op);
	return error;
}

/*
 * A subcommand's options and arguments: opts parsed out of argv (argv[0]
 * is the subcommand), then between min and max arguments left, else a
 * usage error that says missing or "too many arguments".
 */
static int sub_args(int *argc, const char **argv, const struct option *opts, const char *const *usage,
		    int min, int max, const char *missing)
{
	int error = parse_options(argc, argv, opts, usage, 0);

	if (error < 0)
		return error;
	if (*argc < min)
		return cmd_usage_error(usage, opts, "%s", missing);
	if (*argc > max)
		return cmd_usage_error(usage, opts, "too many arguments");
	return 0;
}

/* A whole number argument into args[key]. */
static int num_arg(cJSON *args, const char *key, const char *s, const char *what)
{
	double n;
	int error = parse_num(&n, s, what);

	if (!error)
		json_set_num(args, key, n);
	return error;
}

/* fail's --error (required) and --type into args; a usage error without --error. */
static int failure_args(cJSON *args, const char *family, const char *msg, const char *type,
			const char *const *usage, const struct option *opts)
{
	if (!msg)
		return cmd_usage_error(usage, opts, "%s fail needs --error <msg>", family);
	json_set_str(args, "error", msg);
	if (type)
		json_set_str(args, "type", type);
	return 0;
}

/* phase <sub> <n>, for the moves that take nothing else. */
static int phase_move(int argc, const char **argv, struct cmd_ctx *c, enum op_id id)
{
	const char *usage[] = { NULL, NULL };
	int quiet = 0, error;
	struct state_op *op = op_new(id, NULL);
	const struct option opts[] = { OPT_QUIET(&quiet), OPT_END_MARK };
	char *line = xstrfmt("git session phase %s <n>", argv[0]);

	usage[0] = line;
	if ((error = sub_args(&argc, argv, opts, usage, 1, 1, "which phase? (its number)")) == 0 &&
	    (error = num_arg(op_args(op), "phase", argv[0], "the phase")) == 0) {
		error = run_op(c, op, quiet);
		op = NULL;
	}
	op_free(op);
	free(line);
	return cmd_exit(error);
}

static int phase_add(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session phase add <name>... [--parallel] [--blocked-by <n>]...", NULL,
	};
	struct strlist blocked = { 0 };
	int parallel = 0, quiet = 0, error;
	struct state_op *op = op_new(OP_PHASE_ADD, NULL);
	cJSON *args = op_args(op);
	const struct option opts[] = {
		{ OPT_BOOL, 0, "parallel", &parallel, NULL, "the phases may run side by side" },
		{ OPT_LIST, 0, "blocked-by", &blocked, "<n>", "may not start before phase <n> ends" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = sub_args(&argc, argv, opts, usage, 1, INT_MAX, "no phase names given")) < 0)
		goto cleanup;
	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(json_arr(args, "names"), cJSON_CreateString(argv[i]));
	json_set_bool(args, "parallel", parallel);
	for (size_t i = 0; i < blocked.n; i++) {
		double n;

		if ((error = parse_num(&n, blocked.v[i], "--blocked-by")) < 0)
			goto cleanup;
		cJSON_AddItemToArray(json_arr(args, "blocked_by"), cJSON_CreateNumber(n));
	}
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	strlist_clear(&blocked);
	return cmd_exit(error);
}

static int phase_start(int argc, const char **argv, struct cmd_ctx *c)
{
	return phase_move(argc, argv, c, OP_PHASE_START);
}

static int phase_skip(int argc, const char **argv, struct cmd_ctx *c)
{
	return phase_move(argc, argv, c, OP_PHASE_SKIP);
}

static int phase_retry(int argc, const char **argv, struct cmd_ctx *c)
{
	return phase_move(argc, argv, c, OP_PHASE_RETRY);
}

static int phase_complete(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session phase complete <n> [--context <text>]", NULL };
	const char *context = NULL;
	int quiet = 0, error;
	struct state_op *op = op_new(OP_PHASE_COMPLETE, NULL);
	const struct option opts[] = {
		{ OPT_STRING, 0, "context", &context, "<text>", "what later phases need to know" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = sub_args(&argc, argv, opts, usage, 1, 1, "which phase? (its number)")) == 0 &&
	    (error = num_arg(op_args(op), "phase", argv[0], "the phase")) == 0) {
		if (context)
			json_set_str(op_args(op), "context", context);
		error = run_op(c, op, quiet);
		op = NULL;
	}
	op_free(op);
	return cmd_exit(error);
}

static int phase_fail(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session phase fail <n> --error <msg> [--type <type>]", NULL };
	const char *msg = NULL, *type = NULL;
	int quiet = 0, error;
	struct state_op *op = op_new(OP_PHASE_FAIL, NULL);
	const struct option opts[] = {
		{ OPT_STRING, 0, "error", &msg, "<msg>", "what went wrong" },
		{ OPT_STRING, 0, "type", &type, "<type>", GS_WORDS_COMMA(GS_ERROR_TYPES) },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = sub_args(&argc, argv, opts, usage, 1, 1, "which phase? (its number)")) < 0 ||
	    (error = failure_args(op_args(op), "phase", msg, type, usage, opts)) < 0 ||
	    (error = num_arg(op_args(op), "phase", argv[0], "the phase")) < 0)
		goto cleanup;
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	return cmd_exit(error);
}

static int phase_step(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session phase step <n> <sub-step>", NULL };
	int quiet = 0, error;
	struct state_op *op = op_new(OP_PHASE_STEP, NULL);
	const struct option opts[] = { OPT_QUIET(&quiet), OPT_END_MARK };

	if ((error = sub_args(&argc, argv, opts, usage, 2, 2, "phase step needs <n> and <sub-step>")) == 0 &&
	    (error = num_arg(op_args(op), "phase", argv[0], "the phase")) == 0) {
		json_set_str(op_args(op), "sub_step", argv[1]);
		error = run_op(c, op, quiet);
		op = NULL;
	}
	op_free(op);
	return cmd_exit(error);
}

int cmd_phase(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session phase add <name>... [--parallel] [--blocked-by <n>]...",
		"git session phase start <n>",
		"git session phase complete <n> [--context <text>]",
		"git session phase fail <n> --error <msg> [--type <type>]",
		"git session phase skip <n>",
		"git session phase retry <n>",
		"git session phase step <n> <sub-step>",
		NULL,
	};
	static const struct subcommand subs[] = {
		{ "add", phase_add }, { "start", phase_start }, { "complete", phase_complete },
		{ "fail", phase_fail }, { "skip", phase_skip }, { "retry", phase_retry },
		{ "step", phase_step }, { NULL, NULL },
	};
	return cmd_subcommand(argc, argv, c, subs, usage);
}

/* agent <sub> <agent-id> ...: the op with its agent, or a usage error. */
static int agent_args(struct state_op **op, int *argc, const char **argv, enum op_id id, const struct option *opts,
		      const char *const *usage, int nargs)
{
	int error = sub_args(argc, argv, opts, usage, 1, nargs, "which agent?");

	if (!error && *argc < nargs)
		error = cmd_usage_error(usage, opts, "wrong number of arguments");
	if (error < 0)
		return error;
	*op = op_new(id, NULL);
	json_set_str(op_args(*op), "agent", argv[0]);
	return 0;
}

static int agent_start(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session agent start <agent-id> --type <type> --task <text> [--phase <n>]", NULL,
	};
	const char *type = NULL, *task = NULL, *phase = NULL;
	int quiet = 0, error;
	struct state_op *op = NULL;
	const struct option opts[] = {
		{ OPT_STRING, 0, "type", &type, "<type>", "the kind of agent" },
		{ OPT_STRING, 0, "task", &task, "<text>", "what the agent is to do" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "the phase it works in (default: the current one)" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = agent_args(&op, &argc, argv, OP_AGENT_START, opts, usage, 1)) < 0)
		goto cleanup;
	if (!type || !task) {
		error = cmd_usage_error(usage, opts, "agent start needs --type and --task");
		goto cleanup;
	}
	json_set_str(op_args(op), "type", type);
	json_set_str(op_args(op), "task", task);
	if (phase && (error = num_arg(op_args(op), "phase", phase, "--phase")) < 0)
		goto cleanup;
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	return cmd_exit(error);
}

static int agent_progress(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session agent progress <agent-id> <percent>", NULL };
	int quiet = 0, error;
	struct state_op *op = NULL;
	char *pct = NULL;
	const struct option opts[] = { OPT_QUIET(&quiet), OPT_END_MARK };

	if ((error = agent_args(&op, &argc, argv, OP_AGENT_PROGRESS, opts, usage, 2)) < 0)
		goto cleanup;
	pct = xstrdup(argv[1]);	/* "60" or "60%" */
	if (*pct && pct[strlen(pct) - 1] == '%')
		pct[strlen(pct) - 1] = '\0';
	if ((error = num_arg(op_args(op), "progress", pct, "the percentage")) < 0)
		goto cleanup;
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	free(pct);
	return cmd_exit(error);
}

static int agent_done(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session agent done <agent-id> [--summary <text>]", NULL };
	const char *summary = NULL;
	int quiet = 0, error;
	struct state_op *op = NULL;
	const struct option opts[] = {
		{ OPT_STRING, 0, "summary", &summary, "<text>", "what came of it" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = agent_args(&op, &argc, argv, OP_AGENT_DONE, opts, usage, 1)) == 0) {
		json_set_str(op_args(op), "summary", summary);
		error = run_op(c, op, quiet);
	}
	return cmd_exit(error);
}

static int agent_fail(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session agent fail <agent-id> --error <msg> [--type <type>]", NULL };
	const char *msg = NULL, *type = NULL;
	int quiet = 0, error;
	struct state_op *op = NULL;
	const struct option opts[] = {
		{ OPT_STRING, 0, "error", &msg, "<msg>", "what went wrong" },
		{ OPT_STRING, 0, "type", &type, "<type>", GS_WORDS_COMMA(GS_ERROR_TYPES) },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = agent_args(&op, &argc, argv, OP_AGENT_FAIL, opts, usage, 1)) < 0 ||
	    (error = failure_args(op_args(op), "agent", msg, type, usage, opts)) < 0)
		goto cleanup;
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	return cmd_exit(error);
}

int cmd_agent(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session agent start <agent-id> --type <type> --task <text> [--phase <n>]",
		"git session agent progress <agent-id> <percent>",
		"git session agent done <agent-id> [--summary <text>]",
		"git session agent fail <agent-id> --error <msg> [--type <type>]",
		NULL,
	};
	static const struct subcommand subs[] = {
		{ "start", agent_start }, { "progress", agent_progress }, { "done", agent_done },
		{ "fail", agent_fail }, { NULL, NULL },
	};
	return cmd_subcommand(argc, argv, c, subs, usage);
}

/* file created|modified|deleted <path>...: one operation, each path with its blob. */
static int file_record(int argc, const char **argv, struct cmd_ctx *c, enum op_id id)
{
	const char *agent = NULL, *phase = NULL, *usage[] = { NULL, NULL };
	int quiet = 0, force = 0, error;
	struct state_op *op = op_new(id, NULL);
	cJSON *args = op_args(op), *files = json_obj(args, "files");
	char *line = xstrfmt("git session file %s <path>... [--agent <id>] [--phase <n>] [-f]", argv[0]);
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent that touched the files" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "the phase (default: the agent's, or none)" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "record files the repository ignores" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	usage[0] = line;
	if ((error = sub_args(&argc, argv, opts, usage, 1, INT_MAX, "no paths given")) < 0)
		goto cleanup;
	json_set_str(args, "agent", agent);
	if (phase && (error = num_arg(args, "phase", phase, "--phase")) < 0)
		goto cleanup;
	for (int i = 0; i < argc && !error; i++) {
		char *path = NULL;

		if ((error = store_worktree_relpath(&path, c->st, argv[i])) == 0) {
			if (id == OP_FILE_DELETED)
				json_set_str(json_set(files, path, cJSON_CreateObject()), "status", ST_DELETED);
			else if (force || !(error = cmd_refuse_ignored(c, path)))
				error = engine_record_file(files, c->st, path,
							id == OP_FILE_CREATED ? ST_CREATED : ST_MODIFIED, 0);
		}
		free(path);
	}
	if (!error) {
		error = run_op(c, op, quiet);
		op = NULL;
	}
cleanup:
	op_free(op);
	free(line);
	return cmd_exit(error);
}

static int file_created(int argc, const char **argv, struct cmd_ctx *c)
{
	return file_record(argc, argv, c, OP_FILE_CREATED);
}

static int file_modified(int argc, const char **argv, struct cmd_ctx *c)
{
	return file_record(argc, argv, c, OP_FILE_MODIFIED);
}

static int file_deleted(int argc, const char **argv, struct cmd_ctx *c)
{
	return file_record(argc, argv, c, OP_FILE_DELETED);
}

int cmd_file(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session file (created | modified | deleted) <path>... [--agent <id>] [--phase <n>] [-f]", NULL,
	};
	static const struct subcommand subs[] = {
		{ "created", file_created }, { "modified", file_modified }, { "deleted", file_deleted },
		{ NULL, NULL },
	};
	return cmd_subcommand(argc, argv, c, subs, usage);
}

static int error_add(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session error add --type <type> --message <msg> [--agent <id>] [--phase <n>]", NULL,
	};
	const char *type = NULL, *message = NULL, *agent = NULL, *phase = NULL;
	int quiet = 0, error;
	struct state_op *op = op_new(OP_ERROR_ADD, NULL);
	cJSON *args = op_args(op);
	const struct option opts[] = {
		{ OPT_STRING, 0, "type", &type, "<type>", GS_WORDS_COMMA(GS_ERROR_TYPES) },
		{ OPT_STRING, 0, "message", &message, "<msg>", "what went wrong" },
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent it happened to" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "the phase it happened in" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = sub_args(&argc, argv, opts, usage, 0, 0, "")) < 0)
		goto cleanup;
	if (!type || !message) {
		error = cmd_usage_error(usage, opts, "error add needs --type and --message");
		goto cleanup;
	}
	json_set_str(args, "type", type);
	json_set_str(args, "message", message);
	json_set_str(args, "agent", agent);
	if (phase && (error = num_arg(args, "phase", phase, "--phase")) < 0)
		goto cleanup;
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	return cmd_exit(error);
}

static int error_resolve(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session error resolve <n> --resolution <text>", NULL };
	const char *resolution = NULL;
	int quiet = 0, error;
	struct state_op *op = op_new(OP_ERROR_RESOLVE, NULL);
	const struct option opts[] = {
		{ OPT_STRING, 0, "resolution", &resolution, "<text>", "what was done about it" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = sub_args(&argc, argv, opts, usage, 1, 1, "which error? (its number)")) < 0)
		goto cleanup;
	if (!resolution) {
		error = cmd_usage_error(usage, opts, "error resolve needs --resolution");
		goto cleanup;
	}
	if ((error = num_arg(op_args(op), "error", argv[0], "the error number")) < 0)
		goto cleanup;
	json_set_str(op_args(op), "resolution", resolution);
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	return cmd_exit(error);
}

int cmd_error(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session error add --type <type> --message <msg> [--agent <id>] [--phase <n>]",
		"git session error resolve <n> --resolution <text>",
		NULL,
	};
	static const struct subcommand subs[] = {
		{ "add", error_add }, { "resolve", error_resolve }, { NULL, NULL },
	};
	return cmd_subcommand(argc, argv, c, subs, usage);
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
	struct state_op *op = op_new(OP_TOKENS_ADD, NULL);
	cJSON *args = op_args(op);
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<id>", "who used the tokens" },
		{ OPT_STRING, 0, "input", &in, "<n>", "input tokens" },
		{ OPT_STRING, 0, "output", &out, "<n>", "output tokens" },
		{ OPT_STRING, 0, "cached", &cached, "<n>", "input tokens served from a cache" },
		{ OPT_BOOL, 0, "isolated", &isolated, NULL, "used in the agent's own context, not the session's" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = sub_args(&argc, argv, opts, usage, 0, 0, "")) < 0)
		goto cleanup;
	if (!agent || !in || !out) {
		error = cmd_usage_error(usage, opts, "tokens add needs --agent, --input and --output");
		goto cleanup;
	}
	json_set_str(args, "agent", agent);
	if ((error = num_arg(args, "input", in, "--input")) < 0 ||
	    (error = num_arg(args, "output", out, "--output")) < 0 ||
	    (cached && (error = num_arg(args, "cached", cached, "--cached")) < 0))
		goto cleanup;
	json_set_bool(args, "isolated", isolated);
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	return cmd_exit(error);
}

int cmd_tokens_budget(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session tokens budget <tokens>", NULL };
	int quiet = 0, error;
	struct state_op *op = op_new(OP_TOKENS_BUDGET, NULL);
	const struct option opts[] = { OPT_QUIET(&quiet), OPT_END_MARK };

	if ((error = sub_args(&argc, argv, opts, usage, 1, 1, "how many tokens?")) < 0 ||
	    (error = num_arg(op_args(op), "max", argv[0], "<tokens>")) < 0)
		goto cleanup;
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	return cmd_exit(error);
}

int cmd_decide(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session decide <decision> [--rationale <text>] [--agent <id>]", NULL };
	const char *rationale = NULL, *agent = NULL;
	int quiet = 0, error;
	struct state_op *op;
	const struct option opts[] = {
		{ OPT_STRING, 0, "rationale", &rationale, "<text>", "why" },
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent that decided" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		return cmd_exit(error);
	if (argc != 1)
		return cmd_exit(cmd_usage_error(usage, opts, "%s",
						argc ? "too many arguments (quote the decision)" : "what was decided?"));
	op = op_new(OP_DECIDE, NULL);
	json_set_str(op_args(op), "decision", argv[0]);
	json_set_str(op_args(op), "rationale", rationale);
	json_set_str(op_args(op), "agent", agent);
	return cmd_exit(run_op(c, op, quiet));
}

/* task and milestone add|done: one text (or, for task done, a number) argument. */
static int list_item(int argc, const char **argv, struct cmd_ctx *c, enum op_id id, const char *key,
		     const char *usage_line)
{
	const char *const usage[] = { usage_line, NULL };
	int quiet = 0, error;
	struct state_op *op = op_new(id, NULL);
	const struct option opts[] = { OPT_QUIET(&quiet), OPT_END_MARK };

	if ((error = sub_args(&argc, argv, opts, usage, 1, 1, "missing argument")) == 0) {
		if (id == OP_TASK_DONE)
			error = num_arg(op_args(op), key, argv[0], "the task number");
		else
			json_set_str(op_args(op), key, argv[0]);
	}
	if (!error) {
		error = run_op(c, op, quiet);
		op = NULL;
	}
	op_free(op);
	return cmd_exit(error);
}

static int task_add(int argc, const char **argv, struct cmd_ctx *c)
{
	return list_item(argc, argv, c, OP_TASK_ADD, "title", "git session task add <title>");
}

static int task_done(int argc, const char **argv, struct cmd_ctx *c)
{
	return list_item(argc, argv, c, OP_TASK_DONE, "task", "git session task done <n>");
}

static int milestone_add(int argc, const char **argv, struct cmd_ctx *c)
{
	return list_item(argc, argv, c, OP_MILESTONE_ADD, "name", "git session milestone add <name>");
}

static int milestone_done(int argc, const char **argv, struct cmd_ctx *c)
{
	return list_item(argc, argv, c, OP_MILESTONE_DONE, "name", "git session milestone done <name>");
}

int cmd_task(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session task add <title>", "git session task done <n>", NULL };
	static const struct subcommand subs[] = { { "add", task_add }, { "done", task_done }, { NULL, NULL } };
	return cmd_subcommand(argc, argv, c, subs, usage);
}

int cmd_milestone(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session milestone add <name>", "git session milestone done <name>", NULL,
	};
	static const struct subcommand subs[] = {
		{ "add", milestone_add }, { "done", milestone_done }, { NULL, NULL },
	};
	return cmd_subcommand(argc, argv, c, subs, usage);
}

int cmd_artifact(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session artifact <path> [--agent <id>] [--phase <n>]", NULL };
	const char *agent = NULL, *phase = NULL;
	int quiet = 0, error;
	char *path = NULL;
	struct state_op *op = op_new(OP_ARTIFACT, NULL);
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<id>", "the agent that produced it" },
		{ OPT_STRING, 0, "phase", &phase, "<n>", "the phase it belongs to" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		goto cleanup;
	if (argc != 1) {
		error = cmd_usage_error(usage, opts, "%s", argc ? "too many arguments" : "which path?");
		goto cleanup;
	}
	if ((error = store_worktree_relpath(&path, c->st, argv[0])) < 0 ||
	    (phase && (error = num_arg(op_args(op), "phase", phase, "--phase")) < 0))
		goto cleanup;
	json_set_str(op_args(op), "path", path);
	json_set_str(op_args(op), "agent", agent);
	error = run_op(c, op, quiet);
	op = NULL;
cleanup:
	op_free(op);
	free(path);
	return cmd_exit(error);
}
