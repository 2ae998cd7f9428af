/*
 * state_agent.c - the agents a session tracks and the tokens they use.
 * An agent runs from its start (or its own hooks attaching) to done or
 * failed; its turns and token counts are held against the budget. Pure:
 * no I/O, no git.
 */
#include "state-internal.h"

#include <stdlib.h>
#include <string.h>

cJSON *state_agent(const cJSON *state, const char *id)
{
	cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents"))
		if (json_str(a, "id") && !strcmp(json_str(a, "id"), id))
			return a;
	return NULL;
}

static void add_tokens(cJSON *t, double in, double out, double cached);
static int tokens_fit(struct apply_ctx *c, const char *name, double in, double out, double cached, int isolated);
static void set_text(cJSON *a, const char *key, const char *s);
static int turn_apply(struct apply_ctx *c, cJSON *a, int paren);
static void count_tokens(struct apply_ctx *c, const char *name, double in, double out, double cached,
			 int isolated);

static cJSON *token_triple(void)
{
	cJSON *t = cJSON_CreateObject();

	json_set_num(t, "input", 0);
	json_set_num(t, "output", 0);
	json_set_num(t, "cached", 0);
	return t;
}

/* A running agent: in the session's agents and in its phase's (once). */
static cJSON *new_agent(struct apply_ctx *c, const char *id, const char *type, const char *task, cJSON *phase)
{
	cJSON *a = cJSON_CreateObject(), *n;

	json_set_str(a, "id", id);
	json_set_str(a, "type", type);
	json_set_str(a, "task", task);
	if (phase)
		json_set_num(a, "phase", json_num(phase, "id", 0));
	else
		json_set_str(a, "phase", NULL);
	json_set_str(a, "status", ST_IN_PROGRESS);
	json_set_num(a, "progress", 0);
	json_set_str(a, "started", c->at);
	json_set_str(a, "completed", NULL);
	json_set_str(a, "result_summary", NULL);
	json_set(a, "tokens", token_triple());
	cJSON_AddItemToArray(json_arr(c->state, "agents"), a);
	if (!phase)
		return a;
	cJSON_ArrayForEach(n, json_arr(phase, "agents"))
		if (cJSON_IsString(n) && !strcmp(n->valuestring, id))
			return a;
	cJSON_AddItemToArray(json_arr(phase, "agents"), cJSON_CreateString(id));
	return a;
}

static int names_agent(const cJSON *phase, const char *id)
{
	const cJSON *n;

	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(phase, "agents"))
		if (cJSON_IsString(n) && !strcmp(n->valuestring, id))
			return 1;
	return 0;
}

/*
 * The phase whose own list names an agent the session has no entry for
 * (Maestro's "agents": ["coder"]): the current phase if it does, else the
 * first that does.
 */
static cJSON *phase_naming(const cJSON *state, const char *id)
{
	cJSON *p = state_phase(state, (int)json_num(state, "current_phase", -1));

	if (p && names_agent(p, id))
		return p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases"))
		if (names_agent(p, id))
			return p;
	return NULL;
}

int state_arg_agent(cJSON **out, struct apply_ctx *c, int required)
{
	const char *id;
	cJSON *phase;

	*out = NULL;
	if (state_arg_text(&id, c, "agent", required) < 0)
		return GS_ERROR;
	if (id && !(*out = state_agent(c->state, id))) {
		if (!(phase = phase_naming(c->state, id)))
			return state_fail(c, "unknown agent '%s'", id);
		*out = new_agent(c, id, id, json_str(phase, "name") ? json_str(phase, "name") : "", phase);
	}
	return 0;
}

/* The id of an agent to start: required, and a valid id. */
static int arg_agent_id(const char **id, struct apply_ctx *c)
{
	char *err = NULL;

	if (state_arg_text(id, c, "agent", 1) < 0)
		return GS_ERROR;
	if (state_valid_id(*id, &err) < 0) {
		state_fail(c, "invalid agent id '%s': %s", *id, err);
		free(err);
		return GS_ERROR;
	}
	return 0;
}

int state_apply_agent_start(struct apply_ctx *c)
{
	const char *id, *type, *task;
	cJSON *phase, *old;

	if (arg_agent_id(&id, c) < 0 || state_arg_text(&type, c, "type", 1) < 0 ||
	    state_arg_text(&task, c, "task", 1) < 0 || state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	if (!phase && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c->state, "current_phase")))
		phase = state_phase(c->state, (int)json_num(c->state, "current_phase", 0));
	if (state_size(c, SPLIT_AGENTS) >= STATE_AGENTS_MAX)
		return state_fail(c, "a session has at most %d agents", STATE_AGENTS_MAX);
	if ((old = state_agent(c->state, id)) && !strcmp(json_str(old, "status"), ST_IN_PROGRESS))
		return state_fail(c, "agent '%s' is already running", id);
	if (old)
		return state_fail(c, "agent '%s' already ran (%s); give the new run its own id", id,
				  json_str(old, "status"));
	new_agent(c, id, type, task, phase);
	sbuf_addf(&c->subject, "agent %s started (%s", id, type);
	if (phase)
		sbuf_addf(&c->subject, ", phase %d", (int)json_num(phase, "id", 0));
	sbuf_adds(&c->subject, "): ");
	state_subject_quote(&c->subject, task, 50);
	return 0;
}

static int running_agent(cJSON **a, struct apply_ctx *c, const char *verb)
{
	if (state_arg_agent(a, c, 1) < 0)
		return GS_ERROR;
	if (strcmp(json_str(*a, "status"), ST_IN_PROGRESS))
		return state_fail(c, "cannot %s agent '%s': it is %s", verb, json_str(*a, "id"),
				  json_str(*a, "status"));
	return 0;
}

int state_apply_agent_progress(struct apply_ctx *c)
{
	double pct = json_num(c->args, "progress", -1);
	cJSON *a;

	if (running_agent(&a, c, "update") < 0)
		return GS_ERROR;
	if (!json_is_int(pct) || pct < 0 || pct > 100)
		return state_fail(c, "progress is a whole percentage from 0 to 100");
	json_set_num(a, "progress", pct);
	sbuf_addf(&c->subject, "agent %s at %d%%", json_str(a, "id"), (int)pct);
	return 0;
}

/* An agent done; with a turn's arguments (its hooks at its session's end), the last of its transcript too. */
int state_apply_agent_done(struct apply_ctx *c)
{
	const char *summary;
	cJSON *a;
	int turn = cJSON_GetObjectItemCaseSensitive(c->args, "to") != NULL;
	const char *reply;

	if (running_agent(&a, c, "finish") < 0 || state_arg_text(&summary, c, "summary", 0) < 0 ||
	    state_arg_text(&reply, c, "reply", 0) < 0)
		return GS_ERROR;
	if (reply && *reply)	/* a turn's reply the CLI wrote after its last turn */
		set_text(a, "last_reply", reply);
	json_set_str(a, "status", ST_COMPLETED);
	json_set_num(a, "progress", 100);
	json_set_str(a, "completed", c->at);
	json_set_str(a, "result_summary", summary);
	sbuf_addf(&c->subject, "agent %s done", json_str(a, "id"));
	if (summary) {
		sbuf_adds(&c->subject, ": ");
		state_subject_quote(&c->subject, summary, 50);
	}
	return turn ? turn_apply(c, a, 1) : 0;
}

int state_apply_agent_fail(struct apply_ctx *c)
{
	const char *message, *type;
	cJSON *a;

	if (running_agent(&a, c, "fail") < 0 || state_arg_text(&message, c, "error", 1) < 0 ||
	    state_arg_error_type(&type, c, ERR_RUNTIME) < 0)
		return GS_ERROR;
	json_set_str(a, "status", ST_FAILED);
	json_set_str(a, "completed", c->at);
	state_new_error(c, type, message, json_str(a, "id"),
		  cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "phase")) ?
		  state_phase(c->state, (int)json_num(a, "phase", 0)) : NULL);
	sbuf_addf(&c->subject, "agent %s failed: ", json_str(a, "id"));
	state_subject_quote(&c->subject, message, 50);
	return 0;
}

/*
 * An agent's own session (Claude Code's, Gemini CLI's), seen by its
 * hooks: started, or started again when the agent resumes it.
 */
int state_apply_agent_attach(struct apply_ctx *c)
{
	static const char *const about[] = { "by", "cli", "parent" };
	const char *id, *type, *task, *session, *v[ARRAY_SIZE(about)];
	cJSON *a, *phase;

	if (arg_agent_id(&id, c) < 0 || state_arg_text(&type, c, "type", 1) < 0 ||
	    state_arg_text(&task, c, "task", 0) < 0 || state_arg_text(&session, c, "session", 0) < 0 ||
	    state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	for (size_t i = 0; i < ARRAY_SIZE(about); i++)
		if (state_arg_text(&v[i], c, about[i], 0) < 0)
			return GS_ERROR;
	if (!phase && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c->state, "current_phase")))
		phase = state_phase(c->state, (int)json_num(c->state, "current_phase", 0));
	if ((a = state_agent(c->state, id))) {
		int was_running = !strcmp(json_str(a, "status"), ST_IN_PROGRESS);

		json_set_str(a, "status", ST_IN_PROGRESS);
		json_set_str(a, "completed", NULL);
		sbuf_addf(&c->subject, "agent %s %s (%s)", id, was_running ? "attached again" : "resumed", type);
	} else {
		if (state_size(c, SPLIT_AGENTS) >= STATE_AGENTS_MAX)
			return state_fail(c, "a session has at most %d agents", STATE_AGENTS_MAX);
		a = new_agent(c, id, type, task ? task : type, phase);
		sbuf_addf(&c->subject, "agent %s started (%s)", id, type);
	}
	if (session)
		json_set_str(a, "session", session);
	/* who runs it, with which CLI, for which agent: known to its hooks, kept when a later attach does not say */
	for (size_t i = 0; i < ARRAY_SIZE(about); i++)
		if (v[i] && *v[i])
			json_set_str(a, about[i], v[i]);
	return 0;
}

/* s cut to STATE_AGENT_TEXT_MAX bytes, at a character, as a's key. */
static void set_text(cJSON *a, const char *key, const char *s)
{
	char *cut = xstrndup(s, gs_utf8_cut(s, STATE_AGENT_TEXT_MAX));

	json_set_str(a, key, cut);
	free(cut);
}

/* s on one line, its blanks run together, quoted and cut at n characters. */
static void subject_line(struct sbuf *sb, const char *s, size_t n)
{
	struct sbuf line = SBUF_INIT;

	for (const char *p = s; *p; p++) {
		int blank = (unsigned char)*p <= ' ';

		if (!blank)
			sbuf_addch(&line, *p);
		else if (line.len && line.buf[line.len - 1] != ' ' && p[1])
			sbuf_addch(&line, ' ');
	}
	while (line.len && line.buf[line.len - 1] == ' ')
		line.buf[--line.len] = '\0';
	state_subject_quote(sb, line.len ? line.buf : "", n);
	sbuf_release(&line);
}

/* A prompt the user gave an agent (a note its hooks wrote): counted, and the last kept. */
void state_agent_prompt(cJSON *agent, const char *text, double at_ms)
{
	/* an agent whose session ended works again when its session resumes with a prompt */
	if (!json_str(agent, "status") || strcmp(json_str(agent, "status"), ST_IN_PROGRESS)) {
		json_set_str(agent, "status", ST_IN_PROGRESS);
		json_set_str(agent, "completed", NULL);
	}
	json_set_num(agent, "prompts", json_num(agent, "prompts", 0) + 1);
	set_text(agent, "last_prompt", text);
	if (at_ms > 0)
		json_set_num(agent, "prompted_ms", at_ms);
}

/* args's key: absent or null (*known 0), or a whole number from min to max. */
static int arg_count(double *out, int *known, struct apply_ctx *c, const char *key, double min, double max)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, key);

	*out = 0;
	*known = v && !cJSON_IsNull(v);
	if (!*known)
		return 0;
	if (!cJSON_IsNumber(v) || !json_is_int(v->valuedouble) || v->valuedouble < min || v->valuedouble > max)
		return state_fail(c, "a command's %s is a whole number from %.0f to %.0f, or null", key, min, max);
	*out = v->valuedouble;
	return 0;
}

/*
 * A shell command an agent ran (its hooks saw it end): counted, a failure
 * too (a status not 0, or the agent said it failed), and kept among the
 * agent's last STATE_AGENT_COMMANDS_KEPT.
 */
int state_apply_agent_run(struct apply_ctx *c)
{
	const char *command;
	double exit, ms;
	int has_exit, has_ms, failed;
	cJSON *a, *cmds, *last, *e;

	if (state_arg_agent(&a, c, 1) < 0 || state_arg_text(&command, c, "command", 1) < 0 ||
	    arg_count(&exit, &has_exit, c, "exit", -2147483648.0, 4294967295.0) < 0 ||
	    arg_count(&ms, &has_ms, c, "ms", 0, 1e12) < 0)
		return GS_ERROR;
	failed = (has_exit && exit != 0) || json_bool(c->args, "failed", 0);
	cmds = json_obj(a, "commands");
	json_set_num(cmds, "run", json_num(cmds, "run", 0) + 1);
	json_set_num(cmds, "failed", json_num(cmds, "failed", 0) + failed);
	last = json_arr(cmds, "last");
	e = cJSON_CreateObject();
	set_text(e, "command", command);
	json_set(e, "exit", has_exit ? cJSON_CreateNumber(exit) : cJSON_CreateNull());
	json_set(e, "ms", has_ms ? cJSON_CreateNumber(ms) : cJSON_CreateNull());
	json_set_bool(e, "failed", failed);
	json_set_str(e, "at", c->at);
	cJSON_AddItemToArray(last, e);
	while (cJSON_GetArraySize(last) > STATE_AGENT_COMMANDS_KEPT)
		cJSON_DeleteItemFromArray(last, 0);
	sbuf_addf(&c->subject, "run by %s: ", json_str(a, "id"));
	subject_line(&c->subject, command, 50);
	if (has_exit)
		sbuf_addf(&c->subject, " (exit %.0f%s", exit, has_ms ? "" : ")");
	else
		sbuf_addf(&c->subject, " (%s%s", failed ? "failed" : "exit unknown", has_ms ? "" : ")");
	if (has_ms)
		sbuf_addf(&c->subject, ", %.0f ms)", ms);
	return 0;
}

/*
 * A turn's arguments applied to agent a: its transcript read to "to",
 * the tokens, the part kept. The tokens and the part number go into
 * the subject, in parentheses when paren.
 */
static int turn_apply(struct apply_ctx *c, cJSON *a, int paren)
{
	double from = json_num(c->args, "from", 0), to = json_num(c->args, "to", 0);
	double in = json_num(c->args, "input", 0), out = json_num(c->args, "output", 0);
	double cached = json_num(c->args, "cached", 0), bytes = json_num(c->args, "bytes", 0);
	const cJSON *last = cJSON_GetObjectItemCaseSensitive(c->args, "last");
	const cJSON *running = cJSON_GetObjectItemCaseSensitive(c->args, "running");
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(c->args, "files");
	int part = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c->args, "tree")), n = 0;
	cJSON *t;

	if (!json_is_int(from) || !json_is_int(to) || from < 0 || to < from || !json_is_int(bytes) || bytes < 0 ||
	    !json_is_int(in) || !json_is_int(out) || !json_is_int(cached) || in < 0 || in > 1e12 || out < 0 ||
	    cached < 0 || out > 1e12 || cached > 1e12)
		return state_fail(c, "a turn's offsets and token counts are whole numbers");
	if (tokens_fit(c, json_str(a, "id"), in, out, cached, 0) < 0)
		return GS_ERROR;
	/* the files its shell commands changed during the turn */
	if (cJSON_IsObject(files) && files->child &&
	    (n = state_record_files(c, files, NULL, json_str(a, "id"), NULL)) < 0)
		return n;
	t = json_obj(a, "transcript");
	if (!json_bool(c->args, "restart", 0) && json_num(t, "offset", 0) != from)
		return state_fail(c, "agent '%s' has its transcript recorded to byte %.0f, not %.0f",
				  json_str(a, "id"), json_num(t, "offset", 0), from);
	json_set_num(t, "offset", to);
	json_set_str(t, "at", c->at);
	/* the marks of the file's first line and of the line read last (transcript.h) */
	if (json_str(c->args, "head") || json_bool(c->args, "restart", 0))
		json_set(t, "head", json_dup_or_null(c->args, "head"));
	if (json_str(c->args, "tail") || json_bool(c->args, "restart", 0))
		json_set(t, "tail", json_dup_or_null(c->args, "tail"));
	/* the agent's shell commands whose files its hooks have looked for */
	if (json_is_int(json_num(c->args, "runs", -1)) && json_num(c->args, "runs", -1) >= 0)
		json_set_num(t, "runs", json_num(c->args, "runs", 0));
	if (part) {
		json_set_num(t, "parts", json_num(t, "parts", 0) + 1);
		json_set_num(t, "bytes", json_num(t, "bytes", 0) + bytes);
	}
	/* a part its hooks did not keep: the kept transcript is not the whole conversation */
	if (json_bool(c->args, "dropped", 0))
		json_set_bool(t, "incomplete", 1);
	if (cJSON_IsObject(last))
		json_set(t, "last", cJSON_Duplicate(last, 1));
	/* the agent CLI's running total of usage, for a compaction's tokens (agent.h) */
	if (cJSON_IsObject(running))
		json_set(t, "running", cJSON_Duplicate(running, 1));
	count_tokens(c, json_str(a, "id"), in, out, cached, 0);
	sbuf_addf(&c->subject, "%s+%.0f in, +%.0f out", paren ? " (" : "", in, out);
	if (part)
		sbuf_addf(&c->subject, "; transcript part %.0f", json_num(t, "parts", 0));
	if (n)
		sbuf_addf(&c->subject, "; %d file%s", n, n == 1 ? "" : "s");
	if (paren)
		sbuf_addch(&c->subject, ')');
	return 0;
}

/*
 * The end of an agent's turn: the tokens its transcript says it used,
 * and the part of the transcript it wrote (args.tree holds the part's
 * blob, which the engine puts in the checkpoint's tree), with its reply.
 */
int state_apply_agent_turn(struct apply_ctx *c)
{
	const char *reply;
	cJSON *a;

	if (state_arg_agent(&a, c, 1) < 0 || state_arg_text(&reply, c, "reply", 0) < 0)
		return GS_ERROR;
	sbuf_addf(&c->subject, "turn of %s: ", json_str(a, "id"));
	if (reply && *reply) {
		set_text(a, "last_reply", reply);
		subject_line(&c->subject, reply, 60);
	}
	return turn_apply(c, a, reply && *reply);
}

int state_apply_agent_compact(struct apply_ctx *c)
{
	const char *trigger;
	cJSON *a;

	if (state_arg_agent(&a, c, 1) < 0 || state_arg_text(&trigger, c, "trigger", 0) < 0)
		return GS_ERROR;
	json_set_num(a, "compactions", json_num(a, "compactions", 0) + 1);
	json_set_str(a, "compacted", c->at);
	sbuf_addf(&c->subject, "agent %s compacts its context", json_str(a, "id"));
	if (trigger)
		sbuf_addf(&c->subject, " (%s)", trigger);
	return 0;
}

static void add_tokens(cJSON *t, double in, double out, double cached)
{
	json_set_num(t, "input", json_num(t, "input", 0) + in);
	json_set_num(t, "output", json_num(t, "output", 0) + out);
	json_set_num(t, "cached", json_num(t, "cached", 0) + cached);
}

double state_tokens_used(const cJSON *tokens)
{
	return json_num(tokens, "input", 0) + json_num(tokens, "output", 0) - json_num(tokens, "saved", 0);
}

/* Whether t's count key, plus add, stays a whole number a reader takes; else the failure. */
static int count_fits(struct apply_ctx *c, const cJSON *t, const char *key, double add, const char *whose)
{
	if (json_is_int(json_num(t, key, 0) + add))
		return 0;
	return state_fail(c, "that would take %s %s tokens past %.0f, the most a session counts exactly: "
			  "nothing recorded", whose, key, 9007199254740991.0);
}

/*
 * Checks, before anything changes, that count_tokens would leave every
 * count whole and below 2^53: a reader refuses a session past that.
 */
static int tokens_fit(struct apply_ctx *c, const char *name, double in, double out, double cached, int isolated)
{
	cJSON *tokens = cJSON_GetObjectItemCaseSensitive(c->state, "tokens"), *agent = state_agent(c->state, name);
	const cJSON *by = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tokens, "by_agent"), name);
	const cJSON *const counts[] = { tokens, by, agent ? cJSON_GetObjectItemCaseSensitive(agent, "tokens") : NULL };
	double saved = json_num(tokens, "saved", 0) + (isolated ? in + out : 0);

	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		const char *whose = i ? "the agent's" : "the session's";

		if (count_fits(c, counts[i], "input", in, whose) < 0 || count_fits(c, counts[i], "output", out, whose) < 0 ||
		    count_fits(c, counts[i], "cached", cached, whose) < 0)
			return GS_ERROR;
	}
	if (count_fits(c, tokens, "saved", saved - json_num(tokens, "saved", 0), "the session's") < 0)
		return GS_ERROR;
	if (!json_is_int(json_num(tokens, "input", 0) + in + json_num(tokens, "output", 0) + out - saved))
		return state_fail(c, "that would take the session's tokens used past %.0f, the most a session "
				  "counts exactly: nothing recorded", 9007199254740991.0);
	return 0;
}

/* Token use: in the totals, the agent's line of by_agent and the agent's own, and the peak. */
static void count_tokens(struct apply_ctx *c, const char *name, double in, double out, double cached,
			 int isolated)
{
	cJSON *tokens = json_obj(c->state, "tokens"), *agent;

	add_tokens(tokens, in, out, cached);
	if (isolated)
		json_set_num(tokens, "saved", json_num(tokens, "saved", 0) + in + out);
	add_tokens(json_obj(json_obj(tokens, "by_agent"), name), in, out, cached);
	if ((agent = state_agent(c->state, name)))
		add_tokens(json_obj(agent, "tokens"), in, out, cached);
	if (state_tokens_used(tokens) > json_num(tokens, "peak", 0))
		json_set_num(tokens, "peak", state_tokens_used(tokens));
}

int state_apply_tokens_add(struct apply_ctx *c)
{
	double in = json_num(c->args, "input", 0), out = json_num(c->args, "output", 0);
	double cached = json_num(c->args, "cached", 0);
	int isolated = json_bool(c->args, "isolated", 0);
	const char *name;

	if (state_arg_text(&name, c, "agent", 1) < 0)
		return GS_ERROR;
	if (!json_is_int(in) || !json_is_int(out) || !json_is_int(cached) || in < 0 || out < 0 ||
	    cached < 0 || in > 1e12 || out > 1e12 || cached > 1e12)
		return state_fail(c, "token counts are whole numbers from 0 to 10^12");
	if (tokens_fit(c, name, in, out, cached, isolated) < 0)
		return GS_ERROR;
	count_tokens(c, name, in, out, cached, isolated);
	sbuf_addf(&c->subject, "tokens %s: +%.0f in, +%.0f out", name, in, out);
	if (cached)
		sbuf_addf(&c->subject, ", +%.0f cached", cached);
	if (isolated)
		sbuf_adds(&c->subject, " (isolated)");
	return 0;
}

int state_apply_tokens_budget(struct apply_ctx *c)
{
	double max = json_num(c->args, "max", 0);

	if (!json_is_int(max) || max <= 0 || max > 1e12)
		return state_fail(c, "a budget is a whole number of tokens from 1 to 10^12");
	sbuf_addf(&c->subject, "token budget: %.0f -> %.0f", json_num(json_obj(c->state, "tokens"), "max", 0), max);
	json_set_num(json_obj(c->state, "tokens"), "max", max);
	return 0;
}
