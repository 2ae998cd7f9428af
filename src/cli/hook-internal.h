/*
 * hook-internal.h - what the hook runner (cmd_agent_hook.c) and its
 * reading of the agent's transcript (hook_transcript.c) share. Not for
 * other folders.
 */
#ifndef GIT_SESSION_HOOK_INTERNAL_H
#define GIT_SESSION_HOOK_INTERNAL_H

#include "git-session/agent.h"
#include "git-session/cmd.h"

struct hook_run {
	struct cmd_ctx *c;
	const struct agent_dialect *d;
	enum agent_event_kind kind;
	struct agent_event ev;		/* what the payload says */
	char *session;			/* the git session it records into */
	char *agent;			/* the agent's id in it */
	int linked;			/* the agent is attached to session already */
};

int write_op(struct hook_run *r, struct state_op *op);

int record_turn(struct hook_run *r, const char *agent, const char *path);

#endif
