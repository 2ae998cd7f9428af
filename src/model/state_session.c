/*
 * state_session.c - the operations on the session itself: start, pause,
 * resume, close, reopen, import, and what it says of itself: note,
 * summary, set. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdlib.h>
#include <string.h>

/* The project as the session shares it: no clone's path (an older start op may carry one). */
static cJSON *project_from(const cJSON *p)
{
	cJSON *out = cJSON_CreateObject();
	static const char *const keys[] = { "name", "branch", "head" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		json_set_str(out, keys[i], json_str(p, keys[i]));
	json_set_str(out, "start_branch", json_str(p, "branch"));
	return out;
}

static int start_check(struct apply_ctx *c, const char **topic, const char **goal,
		       const char **mode)
{
	const char *id = json_str(c->args, "id");
	const cJSON *phases = cJSON_GetObjectItemCaseSensitive(c->args, "phases");
	const cJSON *given = cJSON_GetObjectItemCaseSensitive(c->args, "budget");
	double budget = json_num(c->args, "budget", -1);
	char *err = NULL;

	if (c->state->child)
		return state_fail(c, "session '%s' already exists", json_str(c->state, "session_id"));
	if (!id || state_valid_id(id, &err) < 0) {
		state_fail(c, "invalid session id '%s': %s", id ? id : "", err ? err : "missing");
		free(err);
		return GS_ERROR;
	}
	if (state_arg_text(topic, c, "topic", 0) || state_arg_text(goal, c, "goal", 0) || state_arg_text(mode, c, "mode", 0))
		return GS_ERROR;
	if (given && !cJSON_IsNull(given) && (!json_is_int(budget) || budget <= 0))
		return state_fail(c, "budget must be a positive whole number");
	for (const cJSON *p = cJSON_IsArray(phases) ? phases->child : NULL; p; p = p->next)
		if (!cJSON_IsString(p) || !*p->valuestring)
			return state_fail(c, "phase names must be non-empty strings");
	return 0;
}

int state_apply_session_start(struct apply_ctx *c)
{
	const char *id = json_str(c->args, "id"), *topic, *goal, *mode;
	const cJSON *plans = cJSON_GetObjectItemCaseSensitive(c->args, "plans");
	const cJSON *phases = cJSON_GetObjectItemCaseSensitive(c->args, "phases");
	cJSON *in, *st = NULL, *arr;
	char *err = NULL;
	int n = 0;

	if (start_check(c, &topic, &goal, &mode) < 0)
		return GS_ERROR;
	in = cJSON_CreateObject();
	json_set_str(in, "session_id", id);
	json_set_str(in, "topic", topic);
	json_set_str(in, "goal", goal);
	json_set_str(in, "mode", mode ? mode : "default");
	json_set_str(in, "created", c->at);
	json_set_str(in, "updated", c->at);
	json_set(in, "project", project_from(cJSON_GetObjectItemCaseSensitive(c->args, "project")));
	arr = json_arr(in, "plans");
	for (const cJSON *p = cJSON_IsArray(plans) ? plans->child : NULL; p; p = p->next) {
		cJSON *plan = cJSON_CreateObject();
		json_set_str(plan, "path", json_str(p, "path"));
		json_set_str(plan, "oid", json_str(p, "oid"));
		cJSON_AddItemToArray(arr, plan);
	}
	arr = json_arr(in, "phases");
	for (const cJSON *p = cJSON_IsArray(phases) ? phases->child : NULL; p; p = p->next)
		cJSON_AddItemToArray(arr, state_new_phase(++n, p->valuestring));
	if (n)
		json_set_num(in, "current_phase", 1);
	json_set_num(json_obj(in, "tokens"), "max", json_num(c->args, "budget", STATE_DEFAULT_BUDGET));
	if (state_normalize(&st, in, &err) < 0) {
		state_fail(c, "%s", err);
		free(err);
		return GS_ERROR;
	}
	while (st->child) {
		cJSON *v = cJSON_DetachItemViaPointer(st, st->child);
		cJSON_AddItemToObject(c->state, v->string, v);
	}
	cJSON_Delete(st);
	sbuf_addf(&c->subject, "start session %s", id);
	if (topic) {
		sbuf_adds(&c->subject, ": ");
		state_subject_quote(&c->subject, topic, 60);
	}
	return 0;
}

static int set_status(struct apply_ctx *c, const char *to, const char *from1, const char *from2)
{
	const char *st = json_str(c->state, "status");

	if (strcmp(st, from1) && (!from2 || strcmp(st, from2)))
		return state_fail(c, "session '%s' is %s", json_str(c->state, "session_id"),
				  !strcmp(st, ST_IN_PROGRESS) ? "in progress" : st);
	/* the subject first: setting the status frees the old string */
	sbuf_addf(&c->subject, "session %s: %s -> %s", json_str(c->state, "session_id"), st, to);
	json_set_str(c->state, "status", to);
	return 0;
}

int state_apply_session_pause(struct apply_ctx *c)
{
	return set_status(c, ST_PAUSED, ST_IN_PROGRESS, NULL);
}

int state_apply_session_resume(struct apply_ctx *c)
{
	return set_status(c, ST_IN_PROGRESS, ST_PAUSED, NULL);
}

int state_apply_session_close(struct apply_ctx *c)
{
	int abort = json_bool(c->args, "abort", 0);
	return set_status(c, abort ? ST_ABORTED : ST_COMPLETED, ST_IN_PROGRESS, ST_PAUSED);
}

/* A finished session (completed or aborted) in progress again; a paused one is resumed instead. */
int state_apply_session_reopen(struct apply_ctx *c)
{
	const char *st = json_str(c->state, "status");

	if (!strcmp(st, ST_IN_PROGRESS) || !strcmp(st, ST_PAUSED))
		return state_fail(c, "session '%s' is %s, not finished: there is nothing to reopen",
				  json_str(c->state, "session_id"), !strcmp(st, ST_PAUSED) ? st : "in progress");
	return set_status(c, ST_IN_PROGRESS, ST_COMPLETED, ST_ABORTED);
}

int state_apply_note(struct apply_ctx *c)
{
	const char *text, *agent;
	cJSON *note, *a;

	if (state_arg_text(&text, c, "text", 1) || state_arg_text(&agent, c, "agent", 0))
		return GS_ERROR;
	/* an agent's prompt, noted by its hooks */
	if (agent && json_bool(c->args, "prompt", 0) && (a = state_agent(c->state, agent))) {
		/* when the prompt came, to the millisecond: what changed before it is not the turn's */
		const cJSON *at = cJSON_GetObjectItemCaseSensitive(c->args, "at_ms");

		if (at && (!cJSON_IsNumber(at) || !json_is_int(at->valuedouble) || at->valuedouble < 0 ||
			   at->valuedouble > STATE_TIME_MS_MAX))
			return state_fail(c, "a prompt's at_ms is a whole number of milliseconds since 1970");
		state_agent_prompt(a, text, at ? at->valuedouble : 0);
	}
	note = cJSON_CreateObject();
	json_set_str(note, "text", text);
	json_set_str(note, "agent", agent);
	json_set_str(note, "timestamp", c->at);
	cJSON_AddItemToArray(json_arr(c->state, "notes"), note);
	sbuf_adds(&c->subject, "note: ");
	state_subject_quote(&c->subject, text, 60);
	return 0;
}

int state_apply_summary(struct apply_ctx *c)
{
	const char *text;

	if (state_arg_text(&text, c, "text", 1))
		return GS_ERROR;
	json_set_str(c->state, "context_summary", text);
	sbuf_adds(&c->subject, "summary: ");
	state_subject_quote(&c->subject, text, 60);
	return 0;
}

/* Walks a dotted key into extra; creates objects on the way when asked. */
static int extra_walk(cJSON **parent, const char **leaf, struct apply_ctx *c,
		      cJSON *extra, char *key)
{
	cJSON *cur = extra;
	char *seg = key, *dot;

	for (;;) {
		dot = strchr(seg, '.');
		if (!*seg || (dot && dot == seg))
			return state_fail(c, "invalid key '%s': empty segment", json_str(c->args, "key"));
		if (!dot)
			break;
		*dot = '\0';
		{
			cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, seg);
			if (!next)
				next = json_set(cur, seg, cJSON_CreateObject());
			else if (!cJSON_IsObject(next))
				return state_fail(c, "'%s' is not an object", seg);
			cur = next;
		}
		seg = dot + 1;
	}
	*parent = cur;
	*leaf = seg;
	return 0;
}

const cJSON *state_extra_get(const cJSON *state, const char *key)
{
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(state, "extra");
	const char *seg = key;

	while (cur && *seg) {
		const char *dot = strchrnul(seg, '.');
		char *name = xstrndup(seg, (size_t)(dot - seg));

		cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, name) : NULL;
		free(name);
		if (!*dot)
			return cur;
		seg = dot + 1;
	}
	return NULL;
}

int state_apply_set(struct apply_ctx *c)
{
	const char *key;
	const cJSON *value = cJSON_GetObjectItemCaseSensitive(c->args, "value");
	cJSON *parent = NULL, *scratch;
	const char *leaf = NULL;
	char *k;
	int error, segments = 1;

	if (state_arg_text(&key, c, "key", 1))
		return GS_ERROR;
	if (!value)
		return state_fail(c, "missing value");
	for (const char *p = key; *p; p++)
		segments += *p == '.';
	/* session.json, extra and a level per dot above the value: all within what a reader takes */
	if (segments >= JSON_MAX_DEPTH || json_depth_over(value, JSON_MAX_DEPTH - segments - 1))
		return state_fail(c, "'%.40s%s' with that value would nest deeper than the %d levels a session.json may have",
				  key, strlen(key) > 40 ? "..." : "", JSON_MAX_DEPTH);
	/* walk a copy, so a bad key leaves extra as it was */
	scratch = cJSON_Duplicate(json_obj(c->state, "extra"), 1);
	k = xstrdup(key);
	error = extra_walk(&parent, &leaf, c, scratch, k);
	if (!error) {
		json_set(parent, leaf, cJSON_Duplicate(value, 1));
		json_set(c->state, "extra", scratch);
		scratch = NULL;
		sbuf_addf(&c->subject, "set %s", key);
	}
	cJSON_Delete(scratch);
	free(k);
	return error;
}

/*
 * A whole state read from another tool's file: replaces what the session
 * had (on a re-import), keeping its id. Times are the source's.
 */
int state_apply_session_import(struct apply_ctx *c)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(c->args, "state");
	const char *format = json_str(c->args, "format"), *id, *had = json_str(c->state, "session_id");
	cJSON *st = NULL;
	char *err = NULL;

	if (!format || state_normalize(&st, cJSON_Duplicate(in, 1), &err) < 0) {
		state_fail(c, "%s", err ? err : "missing format");
		free(err);
		return GS_ERROR;
	}
	id = json_str(st, "session_id");
	if (state_valid_id(id, &err) < 0 || (had && strcmp(had, id))) {
		state_fail(c, "invalid session id '%s': %s", id, err ? err : "not this session's");
		free(err);
		cJSON_Delete(st);
		return GS_ERROR;
	}
	sbuf_addf(&c->subject, "%s session %s from %s", had ? "re-import" : "import", id, format);
	while (c->state->child)
		cJSON_Delete(cJSON_DetachItemViaPointer(c->state, c->state->child));
	while (st->child) {
		cJSON *v = cJSON_DetachItemViaPointer(st, st->child);
		cJSON_AddItemToObject(c->state, v->string, v);
	}
	cJSON_Delete(st);
	return 0;
}
