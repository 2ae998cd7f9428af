/*
 * hook_session.c - which session and which agent a hook records as: the
 * session the agent's own session was linked to, else this worktree's
 * active one, else (at a prompt) a new one named after the prompt; the
 * agent, or a sub-agent, attached with who runs it. And what every event
 * writes through: one operation a checkpoint, texts redacted and cut.
 */
#include "git-session/json.h"
#include "git-session/redact.h"
#include "git-session/util.h"
#include "hook-internal.h"

#include <stdlib.h>
#include <string.h>

int hook_write_op(struct hook_run *r, struct state_op *op)
{
	int error = engine_commit(NULL, &r->c->eng, r->session, op, NULL, ENGINE_IN_PROGRESS);

	op_free(op);
	return error == GS_ESKIPPED ? 0 : error;
}

/* "claude-1a2b3c4d": the dialect's stem and the start of the agent's session id. */
char *hook_agent_id(const char *stem, const char *sid)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_adds(&sb, stem);
	sbuf_addch(&sb, '-');
	for (size_t i = 0, n = 0; sid && sid[i] && n < 8; i++)
		if (('a' <= sid[i] && sid[i] <= 'z') || ('0' <= sid[i] && sid[i] <= '9') ||
		    ('A' <= sid[i] && sid[i] <= 'Z')) {
			sbuf_addch(&sb, sid[i]);
			n++;
		}
	if (!sid || !*sid)
		sbuf_adds(&sb, "main");
	return sbuf_detach(&sb, NULL);
}

/* A session's status, or NULL when it does not exist; the caller frees it. */
static char *session_status(struct cmd_ctx *c, const char *id)
{
	static const char *const keys[] = { "status" };
	struct store_tip tip = { 0 };
	char *ref = engine_refname(id), *status = NULL;

	if (engine_peek(&status, &tip, c->st, ref, NULL, keys, 1) < 0)
		status = NULL;
	store_tip_clear(&tip);
	free(ref);
	return status;
}

/*
 * The session the agent records into: the one its own session was
 * attached to (a resumed agent session finds it again; paused, it is
 * resumed), else this worktree's active one when in progress.
 */
int hook_find_session(struct hook_run *r)
{
	char *linked = NULL, *status;
	int error;

	if ((error = store_agent_linked(&linked, r->c->st, r->ev.session)) < 0)
		return error;
	if (linked && (status = session_status(r->c, linked))) {
		if (!strcmp(status, ST_PAUSED) && (r->kind == AE_START || r->kind == AE_PROMPT)) {
			struct state_op *op = op_new(OP_SESSION_RESUME, NULL);

			r->session = linked;
			r->linked = 1;
			error = engine_commit(NULL, &r->c->eng, r->session, op, NULL, 0);
			op_free(op);
			free(status);
			return error;
		}
		if (!strcmp(status, ST_IN_PROGRESS)) {
			r->session = linked;
			r->linked = 1;
			free(status);
			return 0;
		}
		free(status);
	}
	free(linked);
	if ((error = store_active(&r->session, r->c->st)) < 0 || !r->session)
		return error;
	status = session_status(r->c, r->session);
	if (!status || strcmp(status, ST_IN_PROGRESS)) {
		free(r->session);
		r->session = NULL;
	}
	free(status);
	return 0;
}

#define TOPIC_MAX 200	/* bytes of a topic taken from a prompt */
#define CLIP_READ 8192	/* bytes of a text redacted before it is cut: a secret across the cut is seen whole */

/* s redacted and cut to max bytes at a character: what is kept of a prompt, a reply, a command. */
char *hook_clip(const char *s, size_t max)
{
	size_t n = gs_utf8_cut(s, CLIP_READ), len;
	char *head = xstrndup(s, n), *clean = NULL;

	if (redact_text(&clean, &len, head, n) > 0) {
		free(head);
		head = clean;
	}
	head[gs_utf8_cut(head, max)] = '\0';
	return head;
}

/* The first line of the prompt, redacted: a new session's topic, cut at a word past TOPIC_MAX bytes. */
static char *topic_of(const char *prompt)
{
	size_t n;
	char *line, *topic;

	prompt += strspn(prompt, " \t\r\n");	/* its first line with words */
	n = strcspn(prompt, "\n");
	line = xstrndup(prompt, n > CLIP_READ ? CLIP_READ : n);
	topic = hook_clip(line, (size_t)-1);
	free(line);
	n = strlen(topic);
	if (n > TOPIC_MAX) {
		size_t cut = gs_utf8_cut(topic, TOPIC_MAX);

		for (size_t i = cut; i > TOPIC_MAX / 2; i--)
			if (topic[i] == ' ') {
				cut = i;
				break;
			}
		n = cut;
	}
	while (n && (topic[n - 1] == ' ' || topic[n - 1] == '\r' || topic[n - 1] == '\t'))
		n--;
	topic[n] = '\0';
	return topic;
}

/* A new session for the agent, when session.agentAutoStart allows (the default). */
int hook_start_session(struct hook_run *r, const char *prompt)
{
	char *topic = topic_of(prompt), *id = NULL;
	int on, error;

	if ((error = store_config_bool(&on, r->c->st, "session.agentAutoStart", 1)) < 0 || !on)
		goto cleanup;
	if ((error = cmd_session_new_id(&id, r->c, topic)) < 0)
		goto cleanup;
	{
		const char *argv[] = { "start", topic, "--id", id, "--quiet", NULL };
		if (cmd_start(5, argv, r->c) != EXIT_OK)
			error = GS_ERROR;
	}
	if (!error) {
		r->session = id;
		id = NULL;
	}
cleanup:
	free(topic);
	free(id);
	return error;
}

/*
 * An agent attached to the session: the agent whose hooks run (its own
 * session linked to ours), or a sub-agent of it (parent). Who runs it
 * (the git identity a commit would have) and its CLI go with it.
 */
int hook_attach(struct hook_run *r, const char *agent, const char *type, const char *parent)
{
	struct state_op *op = op_new(OP_AGENT_ATTACH, NULL);
	char *by = NULL;
	int error;

	if ((error = store_ident(&by, r->c->st)) < 0) {
		op_free(op);
		return error;
	}
	if (!parent && r->ev.agent)	/* the generic dialect's agent is the one its payload names */
		type = r->ev.agent;
	json_set_str(op_args(op), "agent", agent);
	json_set_str(op_args(op), "type", type);
	json_set_str(op_args(op), "session", parent ? r->ev.subagent_id : r->ev.session);
	json_set_str(op_args(op), "cli", r->ev.agent ? r->ev.agent : r->d->name);
	json_set_str(op_args(op), "by", by);
	json_set_str(op_args(op), "parent", parent);
	free(by);
	if ((error = hook_write_op(r, op)) < 0 || parent)
		return error;
	r->linked = 1;
	return store_agent_link(r->c->st, r->ev.session, r->session);
}

const cJSON *hook_agents(struct hook_run *r)
{
	struct store_tip tip = { 0 };
	char *ref;

	if (r->state || !r->session)
		return r->state;
	ref = engine_refname(r->session);
	if (engine_load_some(&r->state, &tip, r->c->st, ref, NEED(AGENTS)) < 0)
		r->state = NULL;
	store_tip_clear(&tip);
	free(ref);
	return r->state;
}

/* "Explore-a1b2c3d4": a sub-agent's type and the start of its id */
char *hook_subagent_id(const struct agent_event *ev)
{
	const char *type = ev->subagent_type;
	struct sbuf sb = SBUF_INIT;
	char *tail;

	for (const char *p = type && *type ? type : "subagent"; *p && sb.len < 40; p++)
		sbuf_addch(&sb, (('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
				 *p == '-' || *p == '_') ? *p : '-');
	tail = hook_agent_id(sb.buf, ev->subagent_id);
	sbuf_release(&sb);
	return tail;
}

