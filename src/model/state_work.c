/*
 * state_work.c - the work a session tracks: phases and their
 * transitions, agents, files, errors, tokens, decisions, tasks,
 * milestones and artifacts. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const error_types[] = GS_WORD_ARRAY(GS_ERROR_TYPES);

#define GS_FIELD_NAME(f) #f,
const char *const state_phase_fields[] = { GS_PHASE_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_agent_fields[] = { GS_AGENT_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_error_fields[] = { GS_ERROR_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_decision_fields[] = { GS_DECISION_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_task_fields[] = { GS_TASK_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_artifact_fields[] = { GS_ARTIFACT_FIELDS(GS_FIELD_NAME) NULL };
#undef GS_FIELD_NAME

cJSON *state_new_phase(int id, const char *name)
{
	cJSON *p = cJSON_CreateObject();

	for (const char *const *k = state_phase_fields; *k; k++)
		json_set(p, *k, cJSON_CreateNull());
	json_set_num(p, "id", id);
	json_set_str(p, "name", name);
	json_set_str(p, "status", ST_PENDING);
	json_set(p, "agents", cJSON_CreateArray());
	json_set_bool(p, "parallel", 0);
	json_set(p, "blocked_by", cJSON_CreateArray());
	json_set_num(p, "retry_count", 0);
	return p;
}

const char *state_phase_moves(const char *from)
{
	if (!strcmp(from, ST_PENDING))
		return "start, skip";
	if (!strcmp(from, ST_IN_PROGRESS))
		return "complete, fail";
	if (!strcmp(from, ST_FAILED))
		return "retry";
	return "none";
}

cJSON *state_phase(const cJSON *state, int id)
{
	cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases"))
		if ((int)json_num(p, "id", -1) == id)
			return p;
	return NULL;
}

cJSON *state_agent(const cJSON *state, const char *id)
{
	cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents"))
		if (json_str(a, "id") && !strcmp(json_str(a, "id"), id))
			return a;
	return NULL;
}

/* The phase an operation names ("phase" argument), which must exist. */
int state_arg_phase(cJSON **out, struct apply_ctx *c, const char *key, int required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v)) {
		if (required)
			return state_fail(c, "missing phase number");
		return 0;
	}
	if (!cJSON_IsNumber(v) || !json_is_int(v->valuedouble))
		return state_fail(c, "a phase is named by its number");
	if (!(*out = state_phase(c->state, (int)v->valuedouble)))
		return state_fail(c, "no phase %d (the session has %d)", (int)v->valuedouble,
				  cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c->state, "phases")));
	return 0;
}

static void add_tokens(cJSON *t, double in, double out, double cached);
static int tokens_fit(struct apply_ctx *c, const char *name, double in, double out, double cached, int isolated);
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

static void phase_subject(struct sbuf *sb, const cJSON *p)
{
	sbuf_addf(sb, "phase %d ", (int)json_num(p, "id", 0));
	state_subject_quote(sb, json_str(p, "name") ? json_str(p, "name") : "", 40);
}

/* The phase being worked on: the first in progress, else failed, else pending. */
static void update_current_phase(cJSON *state)
{
	static const char *const order[] = { ST_IN_PROGRESS, ST_FAILED, ST_PENDING };
	const cJSON *phases = cJSON_GetObjectItemCaseSensitive(state, "phases"), *p;

	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		cJSON_ArrayForEach(p, phases)
			if (!strcmp(json_str(p, "status"), order[i])) {
				json_set_num(state, "current_phase", json_num(p, "id", 0));
				return;
			}
	if (cJSON_GetArraySize(phases))
		json_set_num(state, "current_phase", json_num(phases->child->prev, "id", 0));
	else
		json_set_str(state, "current_phase", NULL);
}

cJSON *state_new_error(struct apply_ctx *c, const char *type, const char *message,
		       const char *agent, const cJSON *phase)
{
	cJSON *e = cJSON_CreateObject();

	json_set_str(e, "agent", agent);
	if (phase)
		json_set_num(e, "phase", json_num(phase, "id", 0));
	else
		json_set_str(e, "phase", NULL);
	json_set_str(e, "timestamp", c->at);
	json_set_str(e, "type", type);
	json_set_str(e, "message", message);
	json_set_str(e, "resolution", ST_PENDING);
	json_set_bool(e, "resolved", 0);
	cJSON_AddItemToArray(json_arr(c->state, "errors"), e);
	return e;
}

int state_arg_error_type(const char **out, struct apply_ctx *c, const char *def)
{
	if (state_arg_text(out, c, "type", 0) < 0)
		return GS_ERROR;
	if (!*out && !(*out = def))
		return state_fail(c, "missing type (one of %s)", GS_WORDS_COMMA(GS_ERROR_TYPES));
	for (size_t i = 0; error_types[i]; i++)
		if (!strcmp(*out, error_types[i]))
			return 0;
	return state_fail(c, "unknown error type '%s' (one of %s)", *out, GS_WORDS_COMMA(GS_ERROR_TYPES));
}

int state_apply_phase_add(struct apply_ctx *c)
{
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(c->args, "names"), *n, *b;
	const cJSON *blocked = cJSON_GetObjectItemCaseSensitive(c->args, "blocked_by");
	cJSON *phases = json_arr(c->state, "phases");
	int next = 0, parallel = json_bool(c->args, "parallel", 0), count = 0;

	cJSON_ArrayForEach(n, phases)
		if ((int)json_num(n, "id", 0) > next)
			next = (int)json_num(n, "id", 0);
	if (!cJSON_IsArray(names) || !cJSON_GetArraySize(names))
		return state_fail(c, "no phase names given");
	cJSON_ArrayForEach(n, names)
		if (!cJSON_IsString(n) || !*n->valuestring || strlen(n->valuestring) > 200)
			return state_fail(c, "phase names must be non-empty strings of at most 200 bytes");
	if (cJSON_GetArraySize(phases) + cJSON_GetArraySize(names) > STATE_PHASES_MAX)
		return state_fail(c, "a session has at most %d phases", STATE_PHASES_MAX);
	cJSON_ArrayForEach(b, blocked)
		if (!cJSON_IsNumber(b) || !state_phase(c->state, (int)b->valuedouble))
			return state_fail(c, "blocked by an unknown phase");
	cJSON_ArrayForEach(n, names) {
		cJSON *p = state_new_phase(next + 1 + count++, n->valuestring);
		json_set_bool(p, "parallel", parallel);
		if (cJSON_IsArray(blocked))
			json_set(p, "blocked_by", cJSON_Duplicate(blocked, 1));
		cJSON_AddItemToArray(phases, p);
	}
	if (count == 1) {
		sbuf_adds(&c->subject, "add ");
		phase_subject(&c->subject, phases->child->prev);
	} else {
		sbuf_addf(&c->subject, "add phases %d-%d", next + 1, next + count);
	}
	update_current_phase(c->state);
	return 0;
}

/* Checks the move and names the allowed ones when it is not. */
static int phase_move(struct apply_ctx *c, cJSON *p, const char *from, const char *verb)
{
	const char *st = json_str(p, "status");

	if (strcmp(st, from))
		return state_fail(c, "cannot %s phase %d \"%s\": it is %s (allowed: %s)", verb,
				  (int)json_num(p, "id", 0), json_str(p, "name"), st, state_phase_moves(st));
	return 0;
}

static void set_phase_status(struct apply_ctx *c, cJSON *p, const char *to)
{
	char from[16];

	snprintf(from, sizeof(from), "%s", json_str(p, "status"));
	json_set_str(p, "status", to);
	phase_subject(&c->subject, p);
	sbuf_addf(&c->subject, ": %s -> %s", from, to);
	update_current_phase(c->state);
}

int state_apply_phase_start(struct apply_ctx *c)
{
	cJSON *p, *b;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || phase_move(c, p, ST_PENDING, "start") < 0)
		return GS_ERROR;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(p, "blocked_by")) {
		const cJSON *dep = state_phase(c->state, (int)b->valuedouble);
		const char *st = dep ? json_str(dep, "status") : ST_COMPLETED;
		if (strcmp(st, ST_COMPLETED) && strcmp(st, ST_SKIPPED))
			return state_fail(c, "cannot start phase %d \"%s\": blocked by phase %d \"%s\" (%s)",
					  (int)json_num(p, "id", 0), json_str(p, "name"),
					  (int)b->valuedouble, json_str(dep, "name"), st);
	}
	json_set_str(p, "started", c->at);
	set_phase_status(c, p, ST_IN_PROGRESS);
	json_set_num(c->state, "current_phase", json_num(p, "id", 0));
	return 0;
}

/*
 * A phase's downstream context: text, or (as Maestro keeps it) an object of
 * lists, where "<list>: text" goes into that list and other text into
 * "notes", so that the structure the file had stays.
 */
static void set_context(cJSON *p, const char *text)
{
	cJSON *ctx = cJSON_GetObjectItemCaseSensitive(p, "downstream_context"), *list = NULL;
	const char *colon = strchr(text, ':');

	if (!cJSON_IsObject(ctx)) {
		json_set_str(p, "downstream_context", text);
		return;
	}
	if (colon) {
		char *name = xstrndup(text, (size_t)(colon - text));

		list = cJSON_GetObjectItemCaseSensitive(ctx, name);
		free(name);
		if (cJSON_IsArray(list))
			text = colon + 1 + strspn(colon + 1, " ");
	}
	if (!cJSON_IsArray(list))
		list = json_arr(ctx, "notes");
	cJSON_AddItemToArray(list, cJSON_CreateString(text));
}

int state_apply_phase_complete(struct apply_ctx *c)
{
	const char *context;
	cJSON *p, *e;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || phase_move(c, p, ST_IN_PROGRESS, "complete") < 0 ||
	    state_arg_text(&context, c, "context", 0) < 0)
		return GS_ERROR;
	json_set_str(p, "completed", c->at);
	json_set_str(p, "sub_step", NULL);
	if (context)
		set_context(p, context);
	/* a phase that completes has dealt with what failed it */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c->state, "errors"))
		if (!json_bool(e, "resolved", 0) && (int)json_num(e, "phase", -1) == (int)json_num(p, "id", 0)) {
			json_set_bool(e, "resolved", 1);
			json_set_str(e, "resolution", "phase completed");
		}
	set_phase_status(c, p, ST_COMPLETED);
	return 0;
}

int state_apply_phase_fail(struct apply_ctx *c)
{
	const char *message, *type;
	cJSON *p;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || phase_move(c, p, ST_IN_PROGRESS, "fail") < 0 ||
	    state_arg_text(&message, c, "error", 1) < 0 || state_arg_error_type(&type, c, ERR_RUNTIME) < 0)
		return GS_ERROR;
	state_new_error(c, type, message, NULL, p);
	set_phase_status(c, p, ST_FAILED);
	sbuf_addf(&c->subject, " (%s)", type);
	return 0;
}

int state_apply_phase_skip(struct apply_ctx *c)
{
	cJSON *p;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || phase_move(c, p, ST_PENDING, "skip") < 0)
		return GS_ERROR;
	set_phase_status(c, p, ST_SKIPPED);
	return 0;
}

int state_apply_phase_retry(struct apply_ctx *c)
{
	int retries, max = c->lim->max_retries;
	cJSON *p, *e;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || phase_move(c, p, ST_FAILED, "retry") < 0)
		return GS_ERROR;
	retries = (int)json_num(p, "retry_count", 0);
	if (retries >= max)
		return state_fail(c, "phase %d \"%s\" has been retried %d time%s, the limit (session.maxRetries); "
				  "escalate: fix the cause with a person, then raise session.maxRetries or skip the phase",
				  (int)json_num(p, "id", 0), json_str(p, "name"), retries, retries == 1 ? "" : "s");
	json_set_num(p, "retry_count", retries + 1);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c->state, "errors"))
		if (!json_bool(e, "resolved", 0) && (int)json_num(e, "phase", -1) == (int)json_num(p, "id", 0)) {
			char *r = xstrfmt("retried (attempt %d)", retries + 1);
			json_set_str(e, "resolution", r);
			json_set_bool(e, "resolved", 1);	/* a new failure records a new error */
			free(r);
		}
	set_phase_status(c, p, ST_IN_PROGRESS);
	sbuf_addf(&c->subject, " (retry %d of %d)", retries + 1, max);
	json_set_num(c->state, "current_phase", json_num(p, "id", 0));
	return 0;
}

int state_apply_phase_step(struct apply_ctx *c)
{
	const char *step;
	cJSON *p;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || state_arg_text(&step, c, "sub_step", 1) < 0)
		return GS_ERROR;
	if (strcmp(json_str(p, "status"), ST_IN_PROGRESS))
		return state_fail(c, "phase %d \"%s\" is %s, not in progress", (int)json_num(p, "id", 0),
				  json_str(p, "name"), json_str(p, "status"));
	json_set_str(p, "sub_step", step);
	phase_subject(&c->subject, p);
	sbuf_adds(&c->subject, " at ");
	state_subject_quote(&c->subject, step, 40);
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

int state_apply_agent_done(struct apply_ctx *c)
{
	const char *summary;
	cJSON *a;

	if (running_agent(&a, c, "finish") < 0 || state_arg_text(&summary, c, "summary", 0) < 0)
		return GS_ERROR;
	json_set_str(a, "status", ST_COMPLETED);
	json_set_num(a, "progress", 100);
	json_set_str(a, "completed", c->at);
	json_set_str(a, "result_summary", summary);
	sbuf_addf(&c->subject, "agent %s done", json_str(a, "id"));
	if (summary) {
		sbuf_adds(&c->subject, ": ");
		state_subject_quote(&c->subject, summary, 50);
	}
	return 0;
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
	const char *id, *type, *task, *session;
	cJSON *a, *phase;

	if (arg_agent_id(&id, c) < 0 || state_arg_text(&type, c, "type", 1) < 0 ||
	    state_arg_text(&task, c, "task", 0) < 0 || state_arg_text(&session, c, "session", 0) < 0 ||
	    state_arg_phase(&phase, c, "phase", 0) < 0)
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
	return 0;
}

/*
 * The end of an agent's turn: the tokens its transcript says it used,
 * and the part of the transcript it wrote (args.tree holds the part's
 * blob, which the engine puts in the checkpoint's tree).
 */
int state_apply_agent_turn(struct apply_ctx *c)
{
	double from = json_num(c->args, "from", 0), to = json_num(c->args, "to", 0);
	double in = json_num(c->args, "input", 0), out = json_num(c->args, "output", 0);
	double cached = json_num(c->args, "cached", 0), bytes = json_num(c->args, "bytes", 0);
	const cJSON *last = cJSON_GetObjectItemCaseSensitive(c->args, "last");
	cJSON *a, *t;
	int part = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c->args, "tree"));

	if (state_arg_agent(&a, c, 1) < 0)
		return GS_ERROR;
	if (!json_is_int(from) || !json_is_int(to) || from < 0 || to < from || !json_is_int(bytes) || bytes < 0 ||
	    !json_is_int(in) || !json_is_int(out) || !json_is_int(cached) || in < 0 || in > 1e12 || out < 0 ||
	    cached < 0 || out > 1e12 || cached > 1e12)
		return state_fail(c, "a turn's offsets and token counts are whole numbers");
	if (tokens_fit(c, json_str(a, "id"), in, out, cached, 0) < 0)
		return GS_ERROR;
	t = json_obj(a, "transcript");
	if (!json_bool(c->args, "restart", 0) && json_num(t, "offset", 0) != from)
		return state_fail(c, "agent '%s' has its transcript recorded to byte %.0f, not %.0f",
				  json_str(a, "id"), json_num(t, "offset", 0), from);
	json_set_num(t, "offset", to);
	if (part) {
		json_set_num(t, "parts", json_num(t, "parts", 0) + 1);
		json_set_num(t, "bytes", json_num(t, "bytes", 0) + bytes);
	}
	if (cJSON_IsObject(last))
		json_set(t, "last", cJSON_Duplicate(last, 1));
	count_tokens(c, json_str(a, "id"), in, out, cached, 0);
	sbuf_addf(&c->subject, "turn of %s: +%.0f in, +%.0f out", json_str(a, "id"), in, out);
	if (part)
		sbuf_addf(&c->subject, "; transcript part %.0f", json_num(t, "parts", 0));
	return 0;
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

static int apply_file_op(struct apply_ctx *c, const char *status)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(c->args, "files");
	cJSON *agent, *phase;
	int n;

	if (state_arg_agent(&agent, c, 0) < 0 || state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	if (!phase && agent && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(agent, "phase")))
		phase = state_phase(c->state, (int)json_num(agent, "phase", 0));
	{
		cJSON *id = phase ? cJSON_CreateNumber(json_num(phase, "id", 0)) : NULL;
		n = state_record_files(c, files, status, agent ? json_str(agent, "id") : NULL, id);
		cJSON_Delete(id);
	}
	if (n < 0)
		return n;
	if (n == 1)
		sbuf_addf(&c->subject, "file %s: %s", status, cJSON_IsObject(files) ? files->child->string : "");
	else
		sbuf_addf(&c->subject, "%d files %s", n, status);
	if (agent)
		sbuf_addf(&c->subject, " by %s", json_str(agent, "id"));
	return 0;
}

int state_apply_file_created(struct apply_ctx *c)
{
	return apply_file_op(c, ST_CREATED);
}

int state_apply_file_modified(struct apply_ctx *c)
{
	return apply_file_op(c, ST_MODIFIED);
}

int state_apply_file_deleted(struct apply_ctx *c)
{
	return apply_file_op(c, ST_DELETED);
}

int state_apply_error_add(struct apply_ctx *c)
{
	const char *message, *type;
	cJSON *agent, *phase;

	if (state_arg_text(&message, c, "message", 1) < 0 || state_arg_error_type(&type, c, NULL) < 0 ||
	    state_arg_agent(&agent, c, 0) < 0 || state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	state_new_error(c, type, message, agent ? json_str(agent, "id") : NULL, phase);
	sbuf_addf(&c->subject, "error #%d (%s): ", state_size(c, SPLIT_ERRORS), type);
	state_subject_quote(&c->subject, message, 50);
	return 0;
}

int state_apply_error_resolve(struct apply_ctx *c)
{
	double n = json_num(c->args, "error", 0);
	const char *resolution;
	cJSON *e;

	if (state_arg_text(&resolution, c, "resolution", 1) < 0)
		return GS_ERROR;
	if (!json_is_int(n) || !(e = cJSON_GetArrayItem(json_arr(c->state, "errors"), (int)n - 1)) || n < 1)
		return state_fail(c, "no error #%g (the session has %d)", n,
				  cJSON_GetArraySize(json_arr(c->state, "errors")));
	if (json_bool(e, "resolved", 0))
		return state_fail(c, "error #%d is already resolved", (int)n);
	json_set_str(e, "resolution", resolution);
	json_set_bool(e, "resolved", 1);
	sbuf_addf(&c->subject, "error #%d resolved: ", (int)n);
	state_subject_quote(&c->subject, resolution, 50);
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

int state_apply_decide(struct apply_ctx *c)
{
	const char *decision, *rationale;
	cJSON *d, *agent;

	if (state_arg_text(&decision, c, "decision", 1) < 0 || state_arg_text(&rationale, c, "rationale", 0) < 0 ||
	    state_arg_agent(&agent, c, 0) < 0)
		return GS_ERROR;
	d = cJSON_CreateObject();
	json_set_str(d, "decision", decision);
	json_set_str(d, "rationale", rationale);
	json_set_str(d, "timestamp", c->at);
	json_set_str(d, "agent", agent ? json_str(agent, "id") : NULL);
	cJSON_AddItemToArray(json_arr(c->state, "decisions"), d);
	sbuf_adds(&c->subject, "decide: ");
	state_subject_quote(&c->subject, decision, 60);
	return 0;
}

int state_apply_task_add(struct apply_ctx *c)
{
	cJSON *tasks = json_arr(c->state, "tasks"), *t;
	const char *title;

	if (state_arg_text(&title, c, "title", 1) < 0)
		return GS_ERROR;
	t = cJSON_CreateObject();
	json_set_num(t, "id", cJSON_GetArraySize(tasks) + 1);
	json_set_str(t, "title", title);
	json_set_str(t, "status", ST_PENDING);
	json_set_str(t, "created", c->at);
	json_set_str(t, "completed", NULL);
	cJSON_AddItemToArray(tasks, t);
	sbuf_addf(&c->subject, "task #%d: ", cJSON_GetArraySize(tasks));
	state_subject_quote(&c->subject, title, 60);
	return 0;
}

int state_apply_task_done(struct apply_ctx *c)
{
	double n = json_num(c->args, "task", 0);
	cJSON *t = json_is_int(n) && n >= 1 ? cJSON_GetArrayItem(json_arr(c->state, "tasks"), (int)n - 1) : NULL;

	if (!t)
		return state_fail(c, "no task #%g", n);
	if (!strcmp(json_str(t, "status"), ST_DONE))
		return state_fail(c, "task #%d is already done", (int)n);
	json_set_str(t, "status", ST_DONE);
	json_set_str(t, "completed", c->at);
	sbuf_addf(&c->subject, "task #%d done: ", (int)n);
	state_subject_quote(&c->subject, json_str(t, "title"), 60);
	return 0;
}

static cJSON *milestone(const cJSON *state, const char *name)
{
	cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(state, "milestones"))
		if (json_str(m, "name") && !strcmp(json_str(m, "name"), name))
			return m;
	return NULL;
}

int state_apply_milestone_add(struct apply_ctx *c)
{
	const char *name;
	cJSON *m;

	if (state_arg_text(&name, c, "name", 1) < 0)
		return GS_ERROR;
	if (milestone(c->state, name))
		return state_fail(c, "milestone \"%s\" already exists", name);
	m = cJSON_CreateObject();
	json_set_str(m, "name", name);
	json_set_str(m, "completed", NULL);
	cJSON_AddItemToArray(json_arr(c->state, "milestones"), m);
	sbuf_adds(&c->subject, "milestone ");
	state_subject_quote(&c->subject, name, 60);
	return 0;
}

int state_apply_milestone_done(struct apply_ctx *c)
{
	const char *name;
	cJSON *m;

	if (state_arg_text(&name, c, "name", 1) < 0)
		return GS_ERROR;
	if (!(m = milestone(c->state, name)))
		return state_fail(c, "no milestone \"%s\"", name);
	if (json_str(m, "completed"))
		return state_fail(c, "milestone \"%s\" is already done", name);
	json_set_str(m, "completed", c->at);
	sbuf_adds(&c->subject, "milestone reached: ");
	state_subject_quote(&c->subject, name, 60);
	return 0;
}

int state_apply_artifact(struct apply_ctx *c)
{
	const char *path;
	cJSON *agent, *phase, *a;

	if (state_arg_text(&path, c, "path", 1) < 0 || state_arg_agent(&agent, c, 0) < 0 ||
	    state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	if (!state_valid_path(path))
		return state_fail(c, "invalid path '%s'", path);
	a = cJSON_CreateObject();
	json_set_str(a, "path", path);
	json_set_str(a, "created", c->at);
	json_set_str(a, "agent", agent ? json_str(agent, "id") : NULL);
	if (phase)
		json_set_num(a, "phase", json_num(phase, "id", 0));
	else
		json_set_str(a, "phase", NULL);
	cJSON_AddItemToArray(json_arr(c->state, "artifacts"), a);
	sbuf_addf(&c->subject, "artifact %s", path);
	return 0;
}
