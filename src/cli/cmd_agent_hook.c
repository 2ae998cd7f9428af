/*
 * cmd_agent_hook.c - `git session hook <agent> <event>`: an agent's own
 * hook runs it, and the event becomes operations on the session. The
 * event's JSON comes on stdin and its dialect (agent.h) reads it once:
 * the prompt is a note, a file the agent wrote a file record, a sub-agent
 * an agent, the end of a turn a checkpoint with the tokens and the part
 * of the transcript it added (hook_transcript.c reads it). A hook never
 * stands in the agent's way: what fails is said on stderr and the exit
 * is 0, save the budget's refusal (the dialect's block_exit, which the
 * agent reads as "do not run this tool"). Nothing is printed on stdout,
 * which the agents read as instructions.
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/redact.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"
#include "hook-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAYLOAD_MAX (64u << 20)

static int read_stdin(char **out, size_t *len)
{
	struct sbuf sb = SBUF_INIT;
	char buf[8192];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || sb.len + (size_t)n > PAYLOAD_MAX) {
			sbuf_release(&sb);
			return gs_error("cannot read the hook's payload on stdin");
		}
		sbuf_add(&sb, buf, (size_t)n);
	}
	*out = sbuf_detach(&sb, len);
	return 0;
}

/* "claude-1a2b3c4d": the dialect's stem and the start of the agent's session id. */
static char *agent_id(const char *stem, const char *sid)
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

static int write_op(struct hook_run *r, struct state_op *op)
{
	int error = engine_commit(NULL, &r->c->eng, r->session, op, NULL, ENGINE_IN_PROGRESS);

	op_free(op);
	return error == GS_ESKIPPED ? 0 : error;
}

/*
 * The session the agent records into: the one its own session was
 * attached to (a resumed agent session finds it again; paused, it is
 * resumed), else this worktree's active one when in progress.
 */
static int find_session(struct hook_run *r)
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

/* The first line of the prompt, redacted and short: a new session's topic. */
static char *topic_of(const char *prompt)
{
	size_t n = strcspn(prompt, "\n"), len;
	char *line, *clean = NULL;

	while (n && (prompt[n - 1] == ' ' || prompt[n - 1] == '\r'))
		n--;
	line = xstrndup(prompt, n > 72 ? 72 : n);
	if (redact_text(&clean, &len, line, strlen(line)) > 0) {
		free(line);
		line = clean;
	}
	return line;
}

/* A new session for the agent, when session.agentAutoStart allows (the default). */
static int start_session(struct hook_run *r, const char *prompt)
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

static int attach(struct hook_run *r, const char *agent, const char *type, const char *task)
{
	struct state_op *op = op_new(OP_AGENT_ATTACH, NULL);
	int error;

	json_set_str(op_args(op), "agent", agent);
	json_set_str(op_args(op), "type", type);
	json_set_str(op_args(op), "task", task);
	if (agent == r->agent)
		json_set_str(op_args(op), "session", r->ev.session);
	if ((error = write_op(r, op)) < 0 || agent != r->agent)
		return error;
	r->linked = 1;
	return store_agent_link(r->c->st, r->ev.session, r->session);
}

/* Whether the agent runs in the session (an agent session that ended and resumes does not). */
static int running(struct hook_run *r, const char *agent)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *ref = engine_refname(r->session);
	const cJSON *a;
	int yes = 0;

	if (engine_load_some(&state, &tip, r->c->st, ref, NEED(AGENTS)) == 0 && (a = state_agent(state, agent)))
		yes = !strcmp(json_str(a, "status"), ST_IN_PROGRESS);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(ref);
	return yes;
}

static int on_start(struct hook_run *r)
{
	if (!r->session || (r->linked && running(r, r->agent)))
		return 0;
	return attach(r, r->agent, r->d->name, NULL);
}

static int on_prompt(struct hook_run *r)
{
	const char *prompt = r->ev.prompt;
	struct state_op *op;
	int error;

	if (!prompt || !*prompt)
		return 0;
	if (!r->session && ((error = start_session(r, prompt)) < 0 || !r->session))
		return error;
	if (!r->linked && (error = attach(r, r->agent, r->d->name, NULL)) < 0)
		return error;
	op = op_new(OP_NOTE, NULL);
	json_set_str(op_args(op), "text", prompt);
	json_set_str(op_args(op), "agent", r->agent);
	return write_op(r, op);
}

/*
 * The file a tool wrote, with its blob, by the agent. A file git
 * ignores is not recorded at all: it is where secrets live (.env), and
 * what is recorded is pushed.
 */
static int on_tool_after(struct hook_run *r)
{
	const char *path = r->ev.path, *wd = store_workdir(r->c->st);
	char *rel = NULL, *full = NULL;
	struct state_op *op = NULL;
	cJSON *files;
	int ignored, gone, error;
	size_t n;
	struct stat sb;

	if (!r->session || !wd || !path)
		return 0;
	n = strlen(wd);
	if (path[0] == '/' && (strncmp(path, wd, n) || (n && wd[n - 1] != '/' && path[n] != '/')))
		return 0;	/* outside the work tree: not the project's */
	if ((error = store_worktree_relpath(&rel, r->c->st, path)) < 0 ||
	    (error = store_ignored(&ignored, r->c->st, rel)) < 0 || ignored)
		goto cleanup;
	if (!r->linked && (error = attach(r, r->agent, r->d->name, NULL)) < 0)
		goto cleanup;
	full = xstrfmt("%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/", rel);
	gone = lstat(full, &sb) < 0;
	op = op_new(gone ? OP_FILE_DELETED : r->ev.created ? OP_FILE_CREATED : OP_FILE_MODIFIED, NULL);
	files = json_obj(op_args(op), "files");
	json_set_str(op_args(op), "agent", r->agent);
	/* a file there is recorded as the CLI would, refused for the same reasons (a submodule's, beyond a link) */
	if ((error = engine_record_file(files, r->c->st, rel, NULL, gone)) < 0)
		goto cleanup;
	error = write_op(r, op);
	op = NULL;
cleanup:
	op_free(op);
	free(rel);
	free(full);
	return error;
}

/* The agent's turn, as hook_read_turn reads it from the transcript at path. */
static int record_turn(struct hook_run *r, const char *agent, const char *path)
{
	struct state_op *op;
	int error = hook_read_turn(&op, r, agent, path);

	return error < 0 || !op ? error : write_op(r, op);
}

/* "Explore-a1b2c3d4": a sub-agent's type and the start of its id */
static char *subagent_id(const struct agent_event *ev)
{
	const char *type = ev->subagent_type;
	struct sbuf sb = SBUF_INIT;
	char *tail;

	for (const char *p = type && *type ? type : "subagent"; *p && sb.len < 40; p++)
		sbuf_addch(&sb, (('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
				 *p == '-' || *p == '_') ? *p : '-');
	tail = agent_id(sb.buf, ev->subagent_id);
	sbuf_release(&sb);
	return tail;
}

static int on_subagent_start(struct hook_run *r)
{
	const char *type = r->ev.subagent_type;
	char *id;
	int error;

	if (!r->session)
		return 0;
	id = subagent_id(&r->ev);
	error = attach(r, id, type && *type ? type : "subagent", NULL);
	free(id);
	return error;
}

static int on_subagent_stop(struct hook_run *r)
{
	const char *path = r->ev.subagent_transcript, *said = r->ev.subagent_said;
	char *id;
	struct state_op *op;
	int error = 0;

	if (!r->session)
		return 0;
	id = subagent_id(&r->ev);
	if (path && (error = record_turn(r, id, path)) < 0)
		goto cleanup;
	op = op_new(OP_AGENT_DONE, NULL);
	json_set_str(op_args(op), "agent", id);
	if (said && *said) {
		char *summary = xstrndup(said, 200);
		json_set_str(op_args(op), "summary", summary);
		free(summary);
	}
	/* an agent whose start was not seen (hooks installed meanwhile) is left alone */
	error = write_op(r, op);
	if (error < 0 && !r->linked)
		error = 0;
cleanup:
	free(id);
	return error;
}

static int on_turn_end(struct hook_run *r)
{
	return r->session && r->linked && r->ev.transcript ? record_turn(r, r->agent, r->ev.transcript) : 0;
}

static int on_compact(struct hook_run *r)
{
	const char *trigger = r->ev.trigger;
	struct state_op *op;

	if (!r->session || !r->linked ||
	    ((r->d->flags & AGENT_COMPACT_MANUAL_ONLY) && (!trigger || strcmp(trigger, "manual"))))
		return 0;
	op = op_new(OP_AGENT_COMPACT, NULL);
	json_set_str(op_args(op), "agent", r->agent);
	json_set_str(op_args(op), "trigger", trigger);
	return write_op(r, op);
}

static int on_end(struct hook_run *r)
{
	const char *reason = r->ev.reason;
	char *summary;
	struct state_op *op;
	int error = 0;

	if (!r->session || !r->linked || (error = on_turn_end(r)) < 0)
		return r->session && r->linked ? error : 0;
	op = op_new(OP_AGENT_DONE, NULL);
	summary = xstrfmt("session ended (%s)", reason && *reason ? reason : "exit");
	json_set_str(op_args(op), "agent", r->agent);
	json_set_str(op_args(op), "summary", summary);
	free(summary);
	return write_op(r, op);
}

/*
 * With session.enforceBudget, a tool call once the session's tokens
 * reached its budget is refused: the dialect's block_exit, the reason on
 * stderr, which the agent hands to the model. Reads session.json's top
 * only.
 */
static int over_budget(struct hook_run *r)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	const cJSON *tokens;
	char *ref;
	int on, over = 0;
	double used, max;

	if (store_config_bool(&on, r->c->st, "session.enforceBudget", 0) < 0 || !on || !r->session)
		return 0;
	ref = engine_refname(r->session);
	if (engine_load_some(&state, &tip, r->c->st, ref, NEED_NONE) == 0) {
		tokens = cJSON_GetObjectItemCaseSensitive(state, "tokens");
		used = state_tokens_used(tokens);
		max = json_num(tokens, "max", 0);
		if (max > 0 && used >= max) {
			fprintf(stderr, "git-session: session '%s' has used %.0f of its budget of %.0f tokens, "
				"and session.enforceBudget is set: no more tool calls. Raise the budget with "
				"'git session tokens budget <tokens>', or turn enforcement off with "
				"'git config session.enforceBudget false'.\n", r->session, used, max);
			over = 1;
		}
	}
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(ref);
	return over;
}

static int run_event(struct hook_run *r)
{
	switch (r->kind) {
	case AE_START: return on_start(r);
	case AE_PROMPT: return on_prompt(r);
	case AE_TOOL_AFTER: return on_tool_after(r);
	case AE_SUBAGENT_START: return on_subagent_start(r);
	case AE_SUBAGENT_STOP: return on_subagent_stop(r);
	case AE_TURN_END: return on_turn_end(r);
	case AE_COMPACT: return on_compact(r);
	case AE_END: return on_end(r);
	default: return 0;
	}
}

int cmd_agent_hook(const struct agent_dialect *d, const char *event, struct cmd_ctx *c)
{
	struct hook_run r = { c, d, agent_event_kind(d, event) };
	char *text = NULL, *err = NULL, *why;
	cJSON *payload = NULL;
	size_t len = 0, mark;
	int error, code = EXIT_OK;

	store_set_sign_limit(c->st, 5);	/* well within the 10 s the agents give a hook */
	mark = gs_error_mark();	/* its errors become one line, below */
	if ((error = read_stdin(&text, &len)) < 0 || r.kind == AE_NONE)
		goto cleanup;
	if ((error = json_parse(&payload, text, len, PAYLOAD_MAX, &err)) < 0) {
		error = gs_error("its payload is not JSON: %s", err);
		goto cleanup;
	}
	agent_read_event(&r.ev, d, payload);
	r.agent = agent_id(d->stem, r.ev.session);
	if ((error = find_session(&r)) < 0)
		goto cleanup;
	if (r.kind == AE_TOOL_BEFORE)
		code = over_budget(&r) ? d->block_exit : EXIT_OK;
	else
		error = run_event(&r);
cleanup:
	why = gs_error_first(mark) ? xstrdup(gs_error_first(mark)) : NULL;
	gs_error_rewind(mark);
	if (error < 0)
		gs_warning("git-session could not record the %s %s hook: %s; the agent goes on", d->name, event,
			   why && *why ? why : "unknown error");
	free(why);
	cJSON_Delete(payload);
	free(text);
	free(err);
	free(r.session);
	free(r.agent);
	return code;
}
