/*
 * cmd.h - the commands. Each parses its arguments, calls the engine, the
 * store and the model, and prints. Returns the exit code: 0, 1 for a
 * failed operation, 129 for a usage error.
 */
#ifndef GIT_SESSION_CMD_H
#define GIT_SESSION_CMD_H

#include <cjson/cJSON.h>

#include "git-session/engine.h"
#include "git-session/store.h"

#include <stdio.h>
#include <sys/types.h>

struct cmd_ctx {
	gs_store *st;
	struct engine eng;
	pid_t pager;		/* the pager stdout feeds, or 0 */
};

typedef int (*cmd_fn)(int argc, const char **argv, struct cmd_ctx *c);

/* Exit code for a negative error code (GS_EUSAGE: 129, other: 1). */
int cmd_exit(int error);
/* The id given, or the active session's; resolves it to a live session. */
int cmd_target(char **id, struct cmd_ctx *c, const char *given);
/* Publishes op on session id, printing "[<id> <abbrev>] <subject>" unless quiet. */
int cmd_write(struct engine_result *res, struct cmd_ctx *c, const char *id, cJSON *op,
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
/* {name, path, branch, head} of the repository, for a new session. */
cJSON *cmd_project(gs_store *st);
/* Refuses extra arguments: "too many arguments" and usage. */
int cmd_no_more_args(int argc, int max, const char *const *usage);

#define CMD(name) int cmd_##name(int argc, const char **argv, struct cmd_ctx *c)
CMD(start); CMD(status); CMD(show); CMD(list); CMD(log); CMD(switch); CMD(pause);
CMD(resume); CMD(close); CMD(archive); CMD(unarchive); CMD(checkpoint); CMD(note);
CMD(summary); CMD(set); CMD(get); CMD(phase); CMD(agent); CMD(file); CMD(error);
CMD(tokens); CMD(decide); CMD(task); CMD(milestone); CMD(artifact); CMD(diff);
CMD(hooks); CMD(hook); CMD(fsck); CMD(rollback); CMD(timeline); CMD(complete); CMD(push); CMD(pull);
CMD(import); CMD(export); CMD(mcp);
/* `tokens add`, which `tokens` hands over to. */
int cmd_tokens_add(int argc, const char **argv, struct cmd_ctx *c);

/* The table of commands (dispatch.c). */
struct command {
	const char *name;
	cmd_fn fn;
	int needs_repo;
	const char *summary;	/* NULL: not listed */
	int needs_network;	/* loads the CA certificates for HTTPS remotes */
};
const struct command *command_find(const char *name);
/* Opens the repository if the command needs one, runs it, flushes: its exit code. */
int command_run(const struct command *cmd, int argc, const char **argv);
/* The usage and command list of `git session`, and git's "most similar commands". */
void command_list(FILE *f);
void command_suggest(const char *typed);

#endif
