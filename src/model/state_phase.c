/*
 * state_phase.c - the phases of a session's plan and the moves between
 * them. A phase is added, started, completed, failed, skipped or retried,
 * and steps within one; the current phase follows. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void phase_subject(struct sbuf *sb, const cJSON *p)
{
	sbuf_addf(sb, "phase %d", (int)json_num(p, "id", 0));
	if (json_str(p, "name") && *json_str(p, "name")) {	/* an imported phase may have none */
		sbuf_adds(sb, " ");
		state_subject_quote(sb, json_str(p, "name"), 40);
	}
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
	/* a plan that grows keeps the phase being worked on, or none: only a move changes it */
	return 0;
}

/* "phase 3 \"Name\"", or "phase 3" for a phase read with no name, for a message. */
static const char *phase_named(char *buf, size_t n, const cJSON *p)
{
	const char *name = json_str(p, "name");

	if (name && *name)
		snprintf(buf, n, "phase %d \"%s\"", (int)json_num(p, "id", 0), name);
	else
		snprintf(buf, n, "phase %d", (int)json_num(p, "id", 0));
	return buf;
}

/* Checks the move and names the allowed ones when it is not. */
static int phase_move(struct apply_ctx *c, cJSON *p, const char *from, const char *verb)
{
	const char *st = json_str(p, "status");
	char named[256];

	if (strcmp(st, from))
		return state_fail(c, "cannot %s %s: it is %s (allowed: %s)", verb, phase_named(named, sizeof(named), p),
				  st, state_phase_moves(st));
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
		char named[256], by[256];

		if (strcmp(st, ST_COMPLETED) && strcmp(st, ST_SKIPPED))
			return state_fail(c, "cannot start %s: blocked by %s (%s)", phase_named(named, sizeof(named), p),
					  phase_named(by, sizeof(by), dep), st);
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
	char named[256];
	cJSON *p, *e;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || phase_move(c, p, ST_FAILED, "retry") < 0)
		return GS_ERROR;
	retries = (int)json_num(p, "retry_count", 0);
	if (retries >= max)
		return state_fail(c, "%s has been retried %d time%s, the limit (session.maxRetries); "
				  "escalate: fix the cause with a person, then raise session.maxRetries or skip the phase",
				  phase_named(named, sizeof(named), p), retries, retries == 1 ? "" : "s");
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
	char named[256];
	cJSON *p;

	if (state_arg_phase(&p, c, "phase", 1) < 0 || state_arg_text(&step, c, "sub_step", 1) < 0)
		return GS_ERROR;
	if (strcmp(json_str(p, "status"), ST_IN_PROGRESS))
		return state_fail(c, "%s is %s, not in progress", phase_named(named, sizeof(named), p),
				  json_str(p, "status"));
	json_set_str(p, "sub_step", step);
	phase_subject(&c->subject, p);
	sbuf_adds(&c->subject, " at ");
	state_subject_quote(&c->subject, step, 40);
	return 0;
}
