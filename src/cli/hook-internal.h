/*
 * hook-internal.h - what the hook runner (cmd_agent_hook.c) and its
 * reading of the agent's transcript (hook_transcript.c) share. Not for
 * other folders.
 */
#ifndef GIT_SESSION_HOOK_INTERNAL_H
#define GIT_SESSION_HOOK_INTERNAL_H

#include "git-session/agent.h"
#include "git-session/cmd.h"

/* One run of a hook: the event, and the session and agent it is recorded as. */
struct hook_run {
	struct cmd_ctx *c;
	const struct agent_dialect *d;
	enum agent_event_kind kind;
	struct agent_event ev;		/* what the payload says */
	char *session;			/* the git session it records into */
	char *agent;			/* the agent's id in it */
	int linked;			/* the agent is attached to session already */
	cJSON *state;			/* the session's agents, when an event read them (hook_agents) */
};

/* The session's state with its agents, read once per run; NULL when it cannot be read (said). */
const cJSON *hook_agents(struct hook_run *r);

/*
 * The turn of agent a (its entry in the session's state) in *out, an
 * OP_AGENT_TURN to write: what the transcript at path has past the
 * agent's offset (whole lines only), its tokens, and the part itself
 * unless session.transcripts is false or the agent's kept transcript
 * would pass session.transcriptLimit, the last text its messages said
 * ("reply", not yet redacted); *messages the new messages it counts. *out is NULL when there is no new whole line, or the
 * transcript is not one to read (said in a warning).
 */
int hook_read_turn(struct state_op **out, int *messages, struct hook_run *r, const cJSON *a, const char *path);

/*
 * The files agent a's shell commands changed since its last turn, as a
 * checkpoint by it to write (*out NULL when none, or when it ran no
 * command since): the work tree against the index and HEAD as git status
 * sees it, of which the files changed since then and not recorded at
 * their content now (hook_files.c). *runs is the count of its commands
 * now, for the turn to keep.
 */
int hook_shell_files(struct state_op **out, double *runs, struct hook_run *r, const cJSON *a);

#endif
