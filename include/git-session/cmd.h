/*
 * cmd.h - the commands. Each parses its arguments, calls the engine, the
 * store and the model, and prints. Returns the exit code: EXIT_OK,
 * EXIT_FAILED for a failed operation, EXIT_USAGE for a usage error.
 */
#ifndef GIT_SESSION_CMD_H
#define GIT_SESSION_CMD_H

#include <cjson/cJSON.h>

#include "git-session/engine.h"
#include "git-session/opts.h"
#include "git-session/state.h"
#include "git-session/store.h"

#include <stdio.h>
#include <sys/types.h>

/*
 * What a command wrote, for a front end that runs commands in its own
 * process (the MCP server): the session and checkpoint of the first
 * write it said, as "[<id> <abbrev>]" or "Started session <id>" (commit
 * then "": the session's latest). Empty id: it said none.
 */
struct cmd_result {
	char id[STATE_ID_MAX + 1];
	char commit[HEX_SZ];
};

struct cmd_ctx {
	gs_store *st;
	struct engine eng;
	pid_t pager;		/* the pager stdout feeds, or 0 */
	unsigned flags;		/* the command's row's (RUN_SETUP_GENTLY, ...) */
	struct cmd_result *result;	/* NULL: nobody asks */
};

typedef int (*cmd_fn)(int argc, const char **argv, struct cmd_ctx *c);

/* The exit codes, as git's. */
#define EXIT_OK 0
#define EXIT_FAILED 1
#define EXIT_USAGE 129

/* Exit code for a negative error code (GS_EUSAGE: EXIT_USAGE, other: EXIT_FAILED). */
int cmd_exit(int error);

/*
 * The library records errors (util.h); the commands print them. What is
 * pending is printed when a command returns (command_run), and by
 * cmd_print_errors where a command carries on after a failure and says
 * more, so that what the user sees comes in the order it happened.
 * Warnings go the same way (cmd_warn, the warning routine main sets).
 */
void cmd_print_errors(void);
void cmd_warn(const char *line);
/* Says what the command writes on stderr itself (an error's list of paths), after what is pending. */
void cmd_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where the commands' messages go: stderr, or (MCP) a stream of the caller's, NULL to undo. */
FILE *cmd_stderr(void);
void cmd_set_stderr(FILE *f);
/* Notes the first write a command says, for c->result. */
void cmd_said_write(struct cmd_ctx *c, const char *id, const char *commit);
/* Says "error: <fmt>" and the usage (with opts, may be NULL) on stderr; returns GS_EUSAGE. */
int cmd_usage_error(const char *const *usage, const struct option *opts, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A command made of subcommands, each parsing its own options, as git's
 * OPT_SUBCOMMAND: argv[1] names one of subs (ending with a NULL name),
 * which runs with argv[0] its name. -h, none or an unknown one: usage.
 */
struct subcommand {
	const char *name;
	cmd_fn fn;
};
int cmd_subcommand(int argc, const char **argv, struct cmd_ctx *c, const struct subcommand *subs,
		   const char *const *usage);
/* GS_ERROR, said, unless there is a working tree: for NEED_WORK_TREE and what needs one only at times. */
int cmd_need_work_tree(struct cmd_ctx *c);
/* The id given, or the active session's; resolves it to a live session. */
int cmd_target(char **id, struct cmd_ctx *c, const char *given);
/* Loads the target session (given id, or the active one) for a report and fills ctx. */
struct report_ctx;
int cmd_load_target(cJSON **state, struct store_tip *tip, struct report_ctx *ctx, char **id,
		    struct cmd_ctx *c, const char *given);
/* Publishes op on session id, printing "[<id> <abbrev>] <subject>" (and noting it) unless quiet. */
int cmd_write(struct engine_result *res, struct cmd_ctx *c, const char *id, struct state_op *op,
	      const char *body, int quiet);
/*
 * A revision as git understands it, with session ids and SESSION_HEAD
 * spelled out ("<id>~2" -> "refs/sessions/<id>~2"); caller frees.
 */
int cmd_resolve_rev(char **out, struct cmd_ctx *c, const char *rev);
/*
 * Whether stdout gets colour, as git decides: --color[=<when>] or
 * --no-color (when: always, never, auto; "" is always), then NO_COLOR,
 * then color.session, then color.ui, then whether stdout is a terminal.
 */
int cmd_color(int *on, struct cmd_ctx *c, const char *when, int no_color);
/* Refuses extra arguments: "too many arguments" and usage. */
int cmd_no_more_args(int argc, int max, const char *const *usage);

/*
 * GS_ERROR, with the error and a hint for -f, when the repository ignores
 * path (.env): a file git add would refuse is recorded only when forced.
 */
int cmd_refuse_ignored(struct cmd_ctx *c, const char *path);

/* The commands, one per row of dispatch.c's table. */
int cmd_start(int argc, const char **argv, struct cmd_ctx *c);
int cmd_status(int argc, const char **argv, struct cmd_ctx *c);
int cmd_show(int argc, const char **argv, struct cmd_ctx *c);
int cmd_list(int argc, const char **argv, struct cmd_ctx *c);
int cmd_log(int argc, const char **argv, struct cmd_ctx *c);
int cmd_switch(int argc, const char **argv, struct cmd_ctx *c);
int cmd_pause(int argc, const char **argv, struct cmd_ctx *c);
int cmd_resume(int argc, const char **argv, struct cmd_ctx *c);
int cmd_close(int argc, const char **argv, struct cmd_ctx *c);
int cmd_reopen(int argc, const char **argv, struct cmd_ctx *c);
int cmd_archive(int argc, const char **argv, struct cmd_ctx *c);
int cmd_unarchive(int argc, const char **argv, struct cmd_ctx *c);
int cmd_checkpoint(int argc, const char **argv, struct cmd_ctx *c);
int cmd_note(int argc, const char **argv, struct cmd_ctx *c);
int cmd_summary(int argc, const char **argv, struct cmd_ctx *c);
int cmd_set(int argc, const char **argv, struct cmd_ctx *c);
int cmd_get(int argc, const char **argv, struct cmd_ctx *c);
int cmd_phase(int argc, const char **argv, struct cmd_ctx *c);
int cmd_agent(int argc, const char **argv, struct cmd_ctx *c);
int cmd_file(int argc, const char **argv, struct cmd_ctx *c);
int cmd_error(int argc, const char **argv, struct cmd_ctx *c);
int cmd_tokens(int argc, const char **argv, struct cmd_ctx *c);
int cmd_decide(int argc, const char **argv, struct cmd_ctx *c);
int cmd_task(int argc, const char **argv, struct cmd_ctx *c);
int cmd_milestone(int argc, const char **argv, struct cmd_ctx *c);
int cmd_artifact(int argc, const char **argv, struct cmd_ctx *c);
int cmd_diff(int argc, const char **argv, struct cmd_ctx *c);
int cmd_html(int argc, const char **argv, struct cmd_ctx *c);
int cmd_hooks(int argc, const char **argv, struct cmd_ctx *c);
int cmd_hook(int argc, const char **argv, struct cmd_ctx *c);
int cmd_fsck(int argc, const char **argv, struct cmd_ctx *c);
int cmd_rollback(int argc, const char **argv, struct cmd_ctx *c);
int cmd_timeline(int argc, const char **argv, struct cmd_ctx *c);
int cmd_complete(int argc, const char **argv, struct cmd_ctx *c);
int cmd_push(int argc, const char **argv, struct cmd_ctx *c);
int cmd_pull(int argc, const char **argv, struct cmd_ctx *c);
int cmd_import(int argc, const char **argv, struct cmd_ctx *c);
int cmd_export(int argc, const char **argv, struct cmd_ctx *c);
int cmd_mcp(int argc, const char **argv, struct cmd_ctx *c);
/* An id for a new session on topic, as `start` gives one, that no session has yet. */
int cmd_session_new_id(char **out, struct cmd_ctx *c, const char *topic);
/* `hook <agent> <event>`, which `hook` hands an agent's events to (cmd_agent_hook.c). */
struct agent_dialect;
int cmd_agent_hook(const struct agent_dialect *d, const char *event, struct cmd_ctx *c);
/*
 * `hooks --agent`: our hooks in an agent's own settings, and their state
 * (cmd_agent_setup.c). Which settings: the project's, shared; its file of
 * one person's, which git leaves out (--local); the user's own, for every
 * project (--user).
 */
enum agent_scope { AGENT_SCOPE_PROJECT, AGENT_SCOPE_LOCAL, AGENT_SCOPE_USER };
/* trust: record in the user's config the trust the agent's gate asks (agent_dialect.trust) */
int cmd_agent_setup_install(struct cmd_ctx *c, const struct agent_dialect *d, enum agent_scope scope, int trust);
/*
 * The agent's own folder of the user's: $folder_env, else its folder in
 * $home_env or the home (absolute paths only); NULL with no home.
 */
char *cmd_agent_folder(const struct agent_dialect *d);
int cmd_agent_setup_uninstall(struct cmd_ctx *c, const struct agent_dialect *d, enum agent_scope scope);
void cmd_agent_setup_status(struct cmd_ctx *c);
/* Whether d's own hooks are in any of its settings files (the project's, one person's, the user's). */
int cmd_agent_setup_installed(struct cmd_ctx *c, const struct agent_dialect *d);
int cmd_transcript(int argc, const char **argv, struct cmd_ctx *c);
int cmd_grep(int argc, const char **argv, struct cmd_ctx *c);
int cmd_gc(int argc, const char **argv, struct cmd_ctx *c);
int cmd_restore(int argc, const char **argv, struct cmd_ctx *c);
int cmd_blame(int argc, const char **argv, struct cmd_ctx *c);
/* `tokens add`, which `tokens` hands over to. */
int cmd_tokens_add(int argc, const char **argv, struct cmd_ctx *c);
int cmd_tokens_budget(int argc, const char **argv, struct cmd_ctx *c);

/*
 * The table of commands (dispatch.c). Every command opens the
 * repository; a row's flags say what more it needs, as git's do.
 */
#define RUN_SETUP_GENTLY (1u << 0)	/* no repository is a warning, not an error (git's hooks run it) */
#define NEED_WORK_TREE (1u << 1)	/* refused in a bare repository, before it runs */
#define USE_PAGER (1u << 2)		/* pages on a terminal, once it knows it has something to show */
struct command {
	const char *name;
	cmd_fn fn;
	unsigned flags;
	const char *summary;	/* NULL: not listed */
};
const struct command *command_find(const char *name);
/*
 * Opens the repository, runs the command, prints what errors it left and
 * flushes: its exit code. res (may be NULL) gets what it wrote.
 */
int command_run(const struct command *cmd, int argc, const char **argv, struct cmd_result *res);
/* The usage and command list of `git session`, and git's "most similar commands". */
void command_list(FILE *f);
void command_suggest(const char *typed);

#endif
