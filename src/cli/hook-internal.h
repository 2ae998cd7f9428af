/*
 * hook-internal.h - what the hook runner (cmd_agent_hook.c), its brief
 * and the summary it keeps (hook_brief.c), its session
 * and agent (hook_session.c), its reading of the agent's transcript
 * (hook_transcript.c) and of the files shell commands changed
 * (hook_files.c) share. Not for other folders.
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
	const char *event;		/* the agent's name for it */
	struct agent_event ev;		/* what the payload says */
	char *session;			/* the git session it records into */
	char *agent;			/* the agent's id in it */
	int linked;			/* the agent is attached to session already */
	cJSON *state;			/* the session's agents, when an event read them (hook_agents) */
	int late;			/* run by hook_turn_later, the agent's transcript whole */
};

/* op written to the run's session as a checkpoint, then freed; a skipped one is no error (hook_session.c). */
int hook_write_op(struct hook_run *r, struct state_op *op);
/* s redacted and cut to max bytes at a character: what is kept of a prompt, a reply, a command. */
char *hook_clip(const char *s, size_t max);
/* "claude-1a2b3c4d": the dialect's stem and the start of the agent's session id. */
char *hook_agent_id(const char *stem, const char *sid);
/* "Explore-a1b2c3d4": a sub-agent's type and the start of its id. */
char *hook_subagent_id(const struct agent_event *ev);
/*
 * The session the agent records into, in r->session: the one its own
 * session was linked to (paused, it is resumed at a start or a prompt),
 * else this worktree's active one when in progress; NULL for none.
 */
int hook_find_session(struct hook_run *r);
/* A new session for the agent, named after its prompt, when session.agentAutoStart allows. */
int hook_start_session(struct hook_run *r, const char *prompt);
/* The agent, or a sub-agent of parent, attached to the run's session with who runs it and its CLI. */
int hook_attach(struct hook_run *r, const char *agent, const char *type, const char *parent);

/*
 * The brief of session id (report_brief, within REPORT_BRIEF_TOKENS) in
 * *out, with the files changed in the work tree since its checkpoint:
 * what an agent gets at its start, and the MCP server's session-brief.
 */
int hook_brief(char **out, gs_store *st, const char *id, int max_retries);
/* At the agent's start: the brief printed, or left for its next prompt (AGENT_BRIEF_AT_PROMPT) (hook_brief.c). */
int hook_brief_at_start(struct hook_run *r);
/* At its prompt: the brief a start left for it, printed once. */
int hook_brief_at_prompt(struct hook_run *r);
/*
 * The summary the agent made when it compacted, in bytes [from, to) of
 * its transcript at path (to -1: its end), kept as the session's context
 * summary when it is not that already.
 */
int hook_keep_summary(struct hook_run *r, const char *path, double from, double to);

/* The session's state with its agents, read once per run; NULL when it cannot be read (said). */
const cJSON *hook_agents(struct hook_run *r);

/*
 * The transcript at path, opened to read: *fd -1 when there is none yet,
 * or it is not in the agent's folder nor the work tree (said in a warning).
 */
void hook_open_transcript(int *fd, struct hook_run *r, const char *path);

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
 * A shell call's outcome, when its payload says none, from the end of
 * the agent's transcript, where its CLI wrote it (agent_dialect.scan_exit):
 * r->ev's exit, ms and failed; left unknown when it is not there.
 */
void hook_transcript_exit(struct hook_run *r);

/*
 * The turn of agent a as its payload says it when it carries the turn's
 * tokens (ev.has_usage), with no transcript: an OP_AGENT_TURN at its
 * transcript's offset; *out NULL when it carries none.
 */
int hook_payload_turn(struct state_op **out, int *messages, struct hook_run *r, const cJSON *a);

/*
 * The files agent a's shell commands changed since its last turn, as a
 * checkpoint by it to write (*out NULL when none, or when it ran no
 * command since): the work tree against the index and HEAD as git status
 * sees it, of which the files changed since then and not recorded at
 * their content now (hook_files.c). *runs is the count of its commands
 * now, for the turn to keep.
 */
int hook_shell_files(struct state_op **out, double *runs, struct hook_run *r, const cJSON *a);

/*
 * The turn of an agent whose transcript (r->ev.transcript) is not whole
 * yet: a process of its own waits for it, then records it by turn with
 * r->late set, the session found again (hook_late.c). Returns at once.
 */
int hook_turn_later(struct hook_run *r, int (*turn)(struct hook_run *r));

#endif
