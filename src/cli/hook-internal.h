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
};

/*
 * The agent's turn in *out, an OP_AGENT_TURN to write: what the
 * transcript at path has past the agent's offset (whole lines only),
 * its tokens, and the part itself unless session.transcripts is false
 * or the agent's kept transcript would pass session.transcriptLimit.
 * *out is NULL when there is no new whole line, or the transcript is
 * not one to read (said in a warning).
 */
int hook_read_turn(struct state_op **out, struct hook_run *r, const char *agent, const char *path);

#endif
