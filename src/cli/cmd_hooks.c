/*
 * cmd_hooks.c - `git session hooks (install | uninstall | status)`, and
 * `git session hook <name>`, which the installed hooks run: checkpoints
 * on commit, the Session-Id trailer, commits and branch switches
 * recorded, rewritten commits mapped. A hook never blocks git because of
 * git-session itself, unless session.strictHooks is set. An agent's own
 * hooks are cmd_agent_setup.c's to install, cmd_agent_hook.c's to run.
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/hook_install.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/trailer.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"
#include "remote-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The line to add to a hook manager's configuration, per manager. */
static void manager_advice(const char *manager, const char *dir)
{
	printf("The hooks in '%s' are managed by %s: git session leaves them alone.\n", dir, manager);
	printf("Add git session to its configuration instead:\n\n");
	if (!strcmp(manager, "husky"))
		printf("  for h in prepare-commit-msg commit-msg post-commit post-checkout post-rewrite pre-push; do\n"
		       "    echo 'git session hook '$h' \"$@\"' >>.husky/$h\n  done\n");
	else if (!strcmp(manager, "lefthook"))
		printf("  # lefthook.yml; the same for prepare-commit-msg, commit-msg,\n"
		       "  # post-checkout and post-rewrite:\n"
		       "  post-commit:\n    commands:\n      git-session:\n        run: git session hook post-commit {0}\n"
		       "  # and pre-push, which reads the refs pushed on its input:\n"
		       "  pre-push:\n    commands:\n      git-session:\n        run: git session hook pre-push {0}\n"
		       "        use_stdin: true\n");
	else
		printf("  # .pre-commit-config.yaml (pre-commit install -t commit-msg -t post-commit)\n"
		       "  - repo: local\n    hooks:\n"
		       "      - id: git-session-trailer\n        name: git-session trailer\n"
		       "        entry: git session hook commit-msg\n        language: system\n"
		       "        stages: [commit-msg]\n"
		       "      - id: git-session\n        name: git-session\n"
		       "        entry: git session hook post-commit\n        language: system\n"
		       "        pass_filenames: false\n        always_run: true\n        stages: [post-commit]\n"
		       "\n  # pre-push: pre-commit hands its hooks one ref, and git's whole list\n"
		       "  # only to pre-push.legacy, which it runs first:\n"
		       "  printf '#!/bin/sh\\nexec git session hook pre-push \"$@\"\\n' >.git/hooks/pre-push.legacy\n"
		       "  chmod +x .git/hooks/pre-push.legacy && pre-commit install -t pre-push\n");
	printf("\n(see README.md, \"Hooks and hook managers\"; 'git session hooks install --force' installs beside it anyway)\n");
}

static const char *managed_by(const char *dir, int from_config)
{
	const char *manager = NULL;

	if (from_config && strstr(dir, ".husky"))
		return "husky";
	for (const struct hook_script *h = hooks_scripts; h->name; h++)
		if (hooks_state(dir, h->name, &manager) == HOOK_MANAGED)
			return manager;
	return NULL;
}

/*
 * post-commit records each commit and the files it changed in one
 * checkpoint. A pre-commit hook would checkpoint the staged files even
 * for a commit that is then aborted, at the price of one more run per
 * commit and git re-reading the whole index after it: opt-in. So is
 * prepare-commit-msg, which only shows the trailer in the editor:
 * commit-msg adds it anyway, and each hook is a process on every commit.
 */
static int optional_hook(const char *name)
{
	return !strcmp(name, "pre-commit") || !strcmp(name, "prepare-commit-msg");
}

static const char *optional_flag(const char *name)
{
	return !strcmp(name, "pre-commit") ? "--pre-commit" : "--prepare-commit-msg";
}

static int hooks_install(const char *dir, int from_config, int force, int pre_commit, int prepare)
{
	const char *manager = managed_by(dir, from_config);
	int error = 0;

	if (manager && !force) {
		manager_advice(manager, dir);
		return 0;
	}
	if ((error = hooks_make_dir(dir)) < 0)
		return error;
	for (const struct hook_script *h = hooks_scripts; h->name && !error; h++)
		if (!optional_hook(h->name) || (pre_commit && !strcmp(h->name, "pre-commit")) ||
		    (prepare && !strcmp(h->name, "prepare-commit-msg")))
			error = hooks_install_one(dir, h);
	if (!error)
		printf("Installed the git-session hooks in '%s'\n", dir);
	return error;
}

static int hooks_status(struct cmd_ctx *c, const char *dir, int from_config)
{
	static const char *const words[] = {
		"not installed", "installed", "installed, and runs the hook that was there before",
		"someone else's hook", "managed by ",
	};
	const char *manager;

	printf("hooks directory: %s%s\n", dir, from_config ? " (core.hooksPath)" : "");
	for (const struct hook_script *h = hooks_scripts; h->name; h++) {
		enum hook_state st = hooks_state(dir, h->name, &manager);
		printf("  %-20s %s%s", h->name, words[st], st == HOOK_MANAGED ? manager : "");
		if (st == HOOK_ABSENT && optional_hook(h->name))
			printf(" (optional: install %s)", optional_flag(h->name));
		printf("\n");
	}
	if (store_workdir(c->st)) {
		printf("agent hooks:\n");
		cmd_agent_setup_status(c);
	}
	return 0;
}

/* `hooks`, with its usage and its --agent help naming the agents of the table. */
static int hooks_command(int argc, const char **argv, struct cmd_ctx *c, const char *const *hooks_usage,
			 const char *agent_help, const char *agents)
{
	int force = 0, pre_commit = 0, prepare = 0, local = 0, user = 0, trust = 0, from_config, error;
	const char *sub, *agent = NULL;
	const struct agent_dialect *d = NULL;
	enum agent_scope scope;
	char *dir = NULL;
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<agent>", agent_help },
		{ OPT_BOOL, 0, "local", &local, NULL, "with --agent: in the project's settings of yours, which git leaves out" },
		{ OPT_BOOL, 0, "user", &user, NULL, "with --agent: in your own settings, for every project" },
		{ OPT_BOOL, 0, "trust", &trust, NULL, "with install --agent: record that you trust the hooks, where the agent asks it (codex)" },
		{ OPT_BOOL, 0, "force", &force, NULL, "install even where a hook manager owns the hooks" },
		{ OPT_BOOL, 0, "pre-commit", &pre_commit, NULL, "also checkpoint the staged files before each commit" },
		{ OPT_BOOL, 0, "prepare-commit-msg", &prepare, NULL, "also show the Session-Id trailer in the editor" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, hooks_usage, 0)) < 0)
		return cmd_exit(error);
	if (!argc)
		return cmd_exit(cmd_usage_error(hooks_usage, opts, "which subcommand?"));
	if (argc != 1 || (strcmp(argv[0], "install") && strcmp(argv[0], "uninstall") && strcmp(argv[0], "status")))
		return cmd_exit(cmd_usage_error(hooks_usage, opts, "unknown subcommand '%s'", argv[0]));
	sub = argv[0];
	if (agent && !(d = agent_dialect(agent)))
		return cmd_exit(cmd_usage_error(hooks_usage, opts, "unknown agent '%s' (%s)", agent, agents));
	if ((local || user) && (!d || !strcmp(sub, "status")))
		return cmd_exit(cmd_usage_error(hooks_usage, opts, "--%s goes with install or uninstall --agent",
						local ? "local" : "user"));
	if (local && user)
		return cmd_exit(cmd_usage_error(hooks_usage, opts, "--local and --user cannot be used together"));
	if (trust && (!d || strcmp(sub, "install")))
		return cmd_exit(cmd_usage_error(hooks_usage, opts, "--trust goes with install --agent"));
	if (trust && !d->trust)
		return cmd_exit(cmd_usage_error(hooks_usage, opts, "%s runs its hooks with no trust to record", d->name));
	if (d && cmd_need_work_tree(c) < 0)	/* the agents' hooks only: git's live in the git directory */
		return EXIT_FAILED;
	if (d && !strcmp(sub, "status"))
		d = NULL;
	scope = local ? AGENT_SCOPE_LOCAL : user ? AGENT_SCOPE_USER : AGENT_SCOPE_PROJECT;
	if (d)
		return cmd_exit(!strcmp(sub, "install") ? cmd_agent_setup_install(c, d, scope, trust) :
				cmd_agent_setup_uninstall(c, d, scope));
	if ((error = store_hooks_dir(&dir, &from_config, c->st)) < 0)
		return EXIT_FAILED;
	if (!strcmp(sub, "install")) {
		error = hooks_install(dir, from_config, force, pre_commit, prepare);
	} else if (!strcmp(sub, "uninstall")) {
		for (const struct hook_script *h = hooks_scripts; h->name && !error; h++)
			error = hooks_uninstall_one(dir, h->name);
		if (!error)
			printf("Removed the git-session hooks from '%s'\n", dir);
	} else {
		error = hooks_status(c, dir, from_config);
	}
	free(dir);
	return cmd_exit(error);
}

int cmd_hooks(int argc, const char **argv, struct cmd_ctx *c)
{
	char *names = agent_names(" | ", " | "), *agents = agent_names(", ", " or ");
	char *agent_usage = xstrfmt("git session hooks (install | uninstall) [--local | --user] --agent <%s>", names);
	char *agent_help = xstrfmt("the agent's own hooks: %s", agents);
	const char *const usage[] = {
		"git session hooks install [--force] [--pre-commit] [--prepare-commit-msg]",
		"git session hooks uninstall",
		"git session hooks status",
		agent_usage,
		NULL,
	};
	int code = hooks_command(argc, argv, c, usage, agent_help, agents);

	free(names);
	free(agents);
	free(agent_usage);
	free(agent_help);
	return code;
}

/*
 * The active session when it is in progress, else quietly nothing; of a
 * large state, only the collections in wanted.
 */
static int hook_session(char **id, cJSON **state, struct cmd_ctx *c, unsigned wanted)
{
	struct store_tip tip = { 0 };
	char *ref;
	int error;

	*state = NULL;
	if ((error = store_active(id, c->st)) < 0 || !*id)
		return error;
	ref = engine_refname(*id);
	error = engine_load_some(state, &tip, c->st, ref, wanted);
	free(ref);
	store_tip_clear(&tip);
	if (error == GS_ENOTFOUND)
		error = gs_error("SESSION_HEAD names '%s', which does not exist", *id);
	if (!error && strcmp(json_str(*state, "status"), ST_IN_PROGRESS)) {
		free(*id);	/* paused or closed: the hooks leave it alone */
		*id = NULL;
	}
	return error;
}

/*
 * The active session when it is in progress, read from the top of its
 * session.json only: the trailer hooks run on every commit and need no
 * more, whatever the size of the state. A top that does not scan is
 * loaded in full, to say what is wrong.
 */
static int hook_session_status(char **id, struct cmd_ctx *c)
{
	static const char *const keys[] = { "status" };
	struct store_tip tip = { 0 };
	char *ref, *status = NULL;
	int error;

	if ((error = store_active(id, c->st)) < 0 || !*id)
		return error;
	ref = engine_refname(*id);
	error = engine_peek(&status, &tip, c->st, ref, NULL, keys, 1);
	free(ref);
	if (error == GS_ENOTFOUND)
		error = gs_error("SESSION_HEAD names '%s', which does not exist", *id);
	if (!error && strcmp(status, ST_IN_PROGRESS)) {
		free(*id);	/* paused or closed: the hooks leave it alone */
		*id = NULL;
	}
	free(status);
	store_tip_clear(&tip);
	return error;
}

/*
 * Records op on the active session if it is in progress. A commit made
 * while it is paused or closed is said once (by post-commit), not
 * silently lost; the engine checks, on the state it writes on.
 */
static int hook_write(struct cmd_ctx *c, const char *id, struct state_op *op)
{
	int error = engine_commit(NULL, &c->eng, id, op, NULL, ENGINE_IN_PROGRESS);

	if (error == GS_ESKIPPED) {
		if (op->info->id == OP_COMMIT_RECORD)
			gs_warning("session '%s' is not in progress: this commit is not recorded in it "
				   "(git session resume %s records the next ones; reopen %s if it is finished)",
				   id, id, id);
		error = 0;
	}
	op_free(op);
	return error;
}

static int hook_pre_commit(struct cmd_ctx *c, const char *id, const cJSON *state, int argc, const char **argv)
{
	struct state_op *op;
	cJSON *files = NULL;
	int error;

	if ((error = engine_staged_files(&files, c->st)) < 0 || !files->child) {
		cJSON_Delete(files);
		return error;
	}
	op = op_new(OP_HOOK_PRE_COMMIT, NULL);
	json_set(op_args(op), "files", files);
	return hook_write(c, id, op);
}

/* prepare-commit-msg and commit-msg: the Session-Id trailer, once. */
static int hook_trailer(struct cmd_ctx *c, const char *id, int argc, const char **argv, int prepare)
{
	int on, on_merge, error;
	char *msg = NULL, *out = NULL, *cc;
	char comment = '#';
	size_t len;
	FILE *f;

	if (argc < 1)
		return gs_error("the hook was given no message file");
	if ((error = store_config_bool(&on, c->st, "session.commitTrailer", 1)) < 0 ||
	    (error = store_config_bool(&on_merge, c->st, "session.mergeTrailer", 0)) < 0 || !on)
		return error;
	if (!on_merge && ((prepare && argc > 1 && !strcmp(argv[1], "merge")) || store_merging(c->st)))
		return 0;
	if ((cc = store_config_str(c->st, "core.commentChar")) && strlen(cc) == 1)
		comment = cc[0];
	free(cc);
	if ((error = gs_read_file(&msg, &len, argv[0], 128u * 1024 * 1024)) < 0)	/* git sets none: memory only */
		return error;
	if (trailer_add(&out, msg, "Session-Id", id, comment) == TRAILER_ADDED) {
		if (!(f = fopen(argv[0], "w")) || fputs(out, f) < 0 || fclose(f) != 0)
			error = gs_error("cannot write '%s'", argv[0]);
	}
	free(msg);
	free(out);
	return error;
}

/* The commit, and the files it changed: one checkpoint per commit. */
static int hook_post_commit(struct cmd_ctx *c, const char *id, const cJSON *state, int argc, const char **argv)
{
	char head[HEX_SZ], *branch = NULL, *subject = NULL;
	struct state_op *op;
	cJSON *files = NULL;
	int error;

	if ((error = store_head(&branch, head, c->st)) < 0 ||
	    (error = engine_commit_files(&subject, &files, c->st, head)) < 0)
		goto cleanup;
	op = op_new(OP_COMMIT_RECORD, NULL);
	json_set_str(op_args(op), "id", head);
	json_set_str(op_args(op), "subject", subject);
	json_set_str(op_args(op), "branch", branch);
	json_set(op_args(op), "files", files);
	error = hook_write(c, id, op);
cleanup:
	free(branch);
	free(subject);
	return error;
}

static int hook_post_checkout(struct cmd_ctx *c, const char *id, const cJSON *state, int argc,
			      const char **argv)
{
	const cJSON *project = cJSON_GetObjectItemCaseSensitive(state, "project");
	const char *from = json_str(project, "branch"), *start = json_str(project, "start_branch");
	char head[HEX_SZ], *branch = NULL;
	struct state_op *op;
	int error;

	if (argc < 3 || strcmp(argv[2], "1") || (error = store_head(&branch, head, c->st)) < 0)
		return 0;	/* a file checkout, not a branch switch */
	if (start && strcmp(start, branch))
		gs_warning("session '%s' was started on branch '%s'; you are now on '%s'", id, start, branch);
	if (from && !strcmp(from, branch)) {
		free(branch);
		return 0;
	}
	op = op_new(OP_CHECKOUT, NULL);
	json_set_str(op_args(op), "from", from);
	json_set_str(op_args(op), "to", branch);
	json_set_str(op_args(op), "head", head);
	free(branch);
	return hook_write(c, id, op);
}

/* stdin: "<old> <new>[ <extra>]" per rewritten commit; only recorded ones matter. */
static int hook_post_rewrite(struct cmd_ctx *c, const char *id, const cJSON *state, int argc,
			     const char **argv)
{
	struct state_op *op = op_new(OP_COMMIT_REWRITE, NULL);
	cJSON *map = json_arr(op_args(op), "map");
	const cJSON *m;
	char line[256], old[HEX_SZ], new_[HEX_SZ];

	json_set_str(op_args(op), "kind", argc ? argv[0] : "rewrite");
	while (fgets(line, sizeof(line), stdin))
		if (sscanf(line, "%40s %40s", old, new_) == 2)
			cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(state, "commits"))
				if (json_str(m, "id") && !strcmp(json_str(m, "id"), old)) {
					cJSON *pair = cJSON_CreateArray();
					cJSON_AddItemToArray(pair, cJSON_CreateString(old));
					cJSON_AddItemToArray(pair, cJSON_CreateString(new_));
					cJSON_AddItemToArray(map, pair);
				}
	if (!map->child) {
		op_free(op);
		return 0;
	}
	return hook_write(c, id, op);
}

static int hook_prepare_commit_msg(struct cmd_ctx *c, const char *id, const cJSON *state, int argc,
				   const char **argv)
{
	return hook_trailer(c, id, argc, argv, 1);
}

static int hook_commit_msg(struct cmd_ctx *c, const char *id, const cJSON *state, int argc, const char **argv)
{
	return hook_trailer(c, id, argc, argv, 0);
}

/* A ref that holds sessions: live, archived, or a remote's copies (refs/remotes/<remote>/sessions/). */
static int holds_sessions(const char *ref)
{
	const char *rest;

	if (!strncmp(ref, SESSIONS_PREFIX, strlen(SESSIONS_PREFIX)) ||
	    !strncmp(ref, ARCHIVE_PREFIX, strlen(ARCHIVE_PREFIX)))
		return 1;
	return !strncmp(ref, "refs/remotes/", 13) && (rest = strchr(ref + 13, '/')) && !strncmp(rest, "/sessions/", 10);
}

/*
 * Whether what git says a ref is pushed from starts from sessions: git
 * gives a ref's full name, or what was typed when that is no ref's name
 * (SESSION_HEAD~1, sessions/<id>^).
 */
static int from_sessions(const char *local)
{
	if (!strncmp(local, "refs/", 5))
		return holds_sessions(local);
	return strstr(local, "SESSION_HEAD") || strstr(local, "sessions/");
}

/*
 * Of pre-push's stdin ("<local ref> <local oid> <remote ref> <remote oid>"
 * a ref), the refs that would carry sessions, pushed from or to a
 * sessions ref: the first few named in names, all counted in *n. A
 * deletion carries nothing (and takes back what went out by mistake).
 */
static void pushed_sessions(struct sbuf *names, size_t *n)
{
	char *line = NULL, *f[4], *save;
	size_t cap = 0, k;

	*n = 0;
	while (getline(&line, &cap, stdin) > 0) {
		line[strcspn(line, "\n")] = '\0';
		for (k = 0; k < 4 && (f[k] = strtok_r(k ? NULL : line, " ", &save)); k++)
			;
		if (k < 4 || !f[1][strspn(f[1], "0")] || (!from_sessions(f[0]) && !holds_sessions(f[2])))
			continue;
		if (++*n <= 3)
			sbuf_addf(names, "%s%s", *n > 1 ? ", " : "", from_sessions(f[0]) ? f[0] : f[2]);
	}
	if (*n > 3)
		sbuf_addf(names, " and %zu more", *n - 3);
	free(line);
}

/*
 * pre-push, with $1 the remote (a name, or the URL pushed to) and $2 its
 * URL: once session.remote is set, no ref carrying sessions goes
 * anywhere else. git session push names where it pushes, already checked,
 * in GIT_SESSION_PUSH_TO. A session.remote that is wrong refuses too: it
 * says sessions are private, and where to is unknown.
 */
static int hook_pre_push(struct cmd_ctx *c, const char *id, const cJSON *state, int argc, const char **argv)
{
	const char *remote = argc ? argv[0] : "", *url = argc > 1 ? argv[1] : remote;
	const char *to = getenv("GIT_SESSION_PUSH_TO");
	struct sbuf names = SBUF_INIT;
	char *sessions = NULL;
	size_t n;
	int error = 0, same = 0;

	pushed_sessions(&names, &n);
	if (!n || (to && !strcmp(to, remote)) || (error = remote_sessions(&sessions, c->st)) < 0 ||
	    !sessions || !strcmp(sessions, remote) ||
	    (error = remote_is_sessions_url(&same, c->st, sessions, url)) < 0 || same)
		goto cleanup;
	if (strcmp(remote, url))
		error = gs_error("not pushing %s to '%s' (%s): session.remote is '%s', and sessions go there only",
				 names.buf, remote, url, sessions);
	else
		error = gs_error("not pushing %s to %s: session.remote is '%s', and sessions go there only",
				 names.buf, url, sessions);
	gs_hint("to push sessions there on purpose: git session push --allow-other-remote %s",
		strcmp(remote, url) ? remote : "<remote>");
	gs_hint("or push these refs with 'git push --no-verify', knowingly, or unset session.remote");
cleanup:
	sbuf_release(&names);
	free(sessions);
	return error;
}

/*
 * The hooks and what each reads of the active session before it runs:
 * the commit hooks write without reading first (hook_write checks the
 * status), the trailer hooks read the status only, post-checkout the
 * project, post-rewrite the commits. pre-push guards: it reads no
 * session, and what it refuses stops git, session.strictHooks or not.
 */
enum hook_reads { READS_NOTHING, READS_STATUS, READS_STATE, GUARDS };
static const struct {
	const char *name;
	enum hook_reads reads;
	unsigned wanted;
	int (*fn)(struct cmd_ctx *c, const char *id, const cJSON *state, int argc, const char **argv);
} git_hooks[] = {
	{ "pre-commit", READS_NOTHING, 0, hook_pre_commit },
	{ "prepare-commit-msg", READS_STATUS, 0, hook_prepare_commit_msg },
	{ "commit-msg", READS_STATUS, 0, hook_commit_msg },
	{ "post-commit", READS_NOTHING, 0, hook_post_commit },
	{ "post-checkout", READS_STATE, NEED_NONE, hook_post_checkout },
	{ "post-rewrite", READS_STATE, NEED(COMMITS), hook_post_rewrite },
	{ "pre-push", GUARDS, 0, hook_pre_push },
};

int cmd_hook(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session hook <hook-name> [<hook-args>...]",
		"git session hook <agent> <event>   (JSON on stdin)",
		NULL,
	};
	cJSON *state = NULL;
	char *id = NULL;
	int error = 0, strict = 0;
	const char *name = argc > 1 ? argv[1] : "";
	const struct agent_dialect *agent = agent_dialect(name);
	size_t i;

	if (agent && argc == 3)
		return cmd_agent_hook(agent, argv[2], c);
	if (agent)
		return cmd_exit(cmd_usage_error(usage, NULL, "which event of %s?", name));

	for (i = 0; i < ARRAY_SIZE(git_hooks) && strcmp(git_hooks[i].name, name); i++)
		;
	if (i == ARRAY_SIZE(git_hooks))
		return cmd_exit(argc > 1 ? cmd_usage_error(usage, NULL, "unknown hook '%s'", name) :
					   cmd_usage_error(usage, NULL, "which hook?"));
	if (git_hooks[i].reads == GUARDS)	/* no session read; a refusal stops git, as a failure does */
		return cmd_exit(git_hooks[i].fn(c, NULL, NULL, argc - 2, argv + 2));
	if (git_hooks[i].reads == READS_NOTHING)
		error = store_active(&id, c->st);
	else if (git_hooks[i].reads == READS_STATUS)
		error = hook_session_status(&id, c);
	else
		error = hook_session(&id, &state, c, git_hooks[i].wanted);
	if (error == 0 && id)
		error = git_hooks[i].fn(c, id, state, argc - 2, argv + 2);
	cJSON_Delete(state);
	free(id);
	if (error < 0) {
		store_config_bool(&strict, c->st, "session.strictHooks", 0);
		if (strict)
			return EXIT_FAILED;
		if (error == GS_ETIMEDOUT) {
			gs_warning("the %s hook's checkpoint was not written: signing it timed out; git goes on", name);
			if (!strcmp(name, "post-commit"))
				gs_hint("to record this commit, run 'git session hook post-commit' while it is HEAD");
			else
				gs_hint("'git session checkpoint' records the working tree's files");
		} else {
			gs_warning("git-session could not record the %s hook; git goes on "
				   "(session.strictHooks=true would stop it)", name);
		}
	}
	return EXIT_OK;
}
