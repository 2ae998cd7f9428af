/*
 * format_copilot.c - the Copilot "session-resume" skill's state
 * (00-session-state.json, schema 3.0; 1.0 and 2.0 migrated as the skill
 * says) and its human companion 00-handoff.md. Pure: no I/O.
 */
#include "format-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct word step_statuses[] = {
	{ "pending", ST_PENDING }, { "in_progress", ST_IN_PROGRESS }, { "complete", ST_COMPLETED },
	{ "skipped", ST_SKIPPED }, { "failed", ST_FAILED }, { NULL, NULL },
};

static int parse(cJSON **doc, const char *buf, size_t len, char **err)
{
	cJSON *v;

	if (json_parse(&v, buf, len, FORMAT_MAX_BYTES, err) < 0)
		return GS_ERROR;
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		*err = xstrdup("not a JSON object");
		return GS_ERROR;
	}
	*doc = cJSON_CreateObject();
	json_set(*doc, "state", v);
	return 0;
}

static int detect(const cJSON *doc)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "state");

	return cJSON_GetObjectItemCaseSensitive(st, "steps") ||
	       cJSON_GetObjectItemCaseSensitive(st, "current_step");
}

/* 1.0, 2.0 or none -> 3.0: no lock, no stale_threshold_ms, no claims. */
static int upgrade(cJSON *doc, char **err)
{
	cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "state"), *step;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(st, "schema_version");
	const char *s = cJSON_GetStringValue(v);

	if (v && (!s || (strcmp(s, "1.0") && strcmp(s, "2.0") && strcmp(s, "3.0")))) {
		char *p = json_print(v, 0, NULL);
		*err = xstrfmt("unsupported schema_version %s (this reads 1.0, 2.0 and 3.0)", p);
		free(p);
		return GS_ERROR;
	}
	if (s && !strcmp(s, "3.0"))
		return 0;
	json_set_str(st, "schema_version", "3.0");
	cJSON_DeleteItemFromObjectCaseSensitive(st, "lock");
	cJSON_DeleteItemFromObjectCaseSensitive(st, "stale_threshold_ms");
	cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(st, "steps"))
		cJSON_DeleteItemFromObjectCaseSensitive(step, "claim");
	return 0;
}

/* A step's number: its key when that is a whole number from 1, else 0. */
static int step_id(const char *key)
{
	char *end;
	long n = strtol(key, &end, 10);

	return *key && !*end && n > 0 && n < 100000 && key[0] != '0' ? (int)n : 0;
}

static void import_step(cJSON *state, int id, cJSON *in)
{
	cJSON *p = state_new_phase(id, NULL), *arts = cJSON_GetObjectItemCaseSensitive(in, "artifacts"), *c;
	char name[32];

	json_set_num(p, "id", id);
	snprintf(name, sizeof(name), "step %d", id);
	if (json_str(in, "name"))
		fmt_take(p, "name", in, "name");
	else
		json_set_str(p, "name", name);
	json_set_str(p, "status", fmt_word_in(step_statuses, json_str(in, "status"), ST_PENDING));
	if (fmt_word_in(step_statuses, json_str(in, "status"), NULL))
		cJSON_DeleteItemFromObjectCaseSensitive(in, "status");
	for (const char *const *k = (const char *const[]){ "started", "completed", "sub_step", NULL }; *k; k++)
		fmt_take(p, *k, in, *k);
	if (fmt_all_strings(arts)) {
		cJSON_ArrayForEach(c, arts) {
			cJSON *a = fmt_blank_entry(state_artifact_fields);
			json_set_str(a, "path", c->valuestring);
			json_set_num(a, "phase", id);
			cJSON_AddItemToArray(json_arr(state, "artifacts"), a);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(in, "artifacts");
	}
	fmt_move_rest(p, in);
	cJSON_AddItemToArray(json_arr(state, "phases"), p);
}

static void import_steps(cJSON *state, cJSON *doc)
{
	cJSON *steps = cJSON_GetObjectItemCaseSensitive(doc, "steps"), *c;
	int max = 0;

	if (!cJSON_IsObject(steps))
		return;
	cJSON_ArrayForEach(c, steps) {
		int id = step_id(c->string);

		if (!id || !cJSON_IsObject(c))
			return;		/* not numbered steps: kept as they are, in extra */
		if (id > max)
			max = id;
	}
	for (int id = 1; id <= max; id++)	/* in step order, whatever the key order */
		cJSON_ArrayForEach(c, steps)
			if (step_id(c->string) == id)
				import_step(state, id, c);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "steps");
}

static void import_decisions(cJSON *state, cJSON *doc)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "decisions"), *c;

	if (!cJSON_IsObject(d))
		return;
	cJSON_ArrayForEach(c, d)
		if (!cJSON_IsString(c))
			return;
	cJSON_ArrayForEach(c, d) {
		cJSON *e = fmt_blank_entry(state_decision_fields);
		json_set_str(e, "decision", c->valuestring);
		json_set_str(e, "key", c->string);
		cJSON_AddItemToArray(json_arr(state, "decisions"), e);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "decisions");
}

static int to_state(cJSON *state, cJSON *files, int *active, const cJSON *in, char **err)
{
	cJSON *doc = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(in, "state"), 1);
	const cJSON *project = cJSON_GetObjectItemCaseSensitive(doc, "project");

	(void)files;
	(void)err;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema_version");
	if (cJSON_IsString(project)) {
		char *slug = state_slug(project->valuestring);
		json_set_str(state, "session_id", *slug ? slug : NULL);
		free(slug);
		fmt_take(state, "topic", doc, "project");
	}
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "updated"))) {
		fmt_copy(state, "created", doc, "updated");
		fmt_take(state, "updated", doc, "updated");
	}
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(doc, "current_step")))
		fmt_take(state, "current_phase", doc, "current_step");
	import_steps(state, doc);
	import_decisions(state, doc);
	if (json_str(in, "handoff"))
		fmt_copy(state, "context_summary", in, "handoff");
	fmt_rest_to_extra(state, format_copilot.name, doc);
	*active = 1;
	cJSON_Delete(doc);
	return 0;
}

static cJSON *export_step(const cJSON *state, const cJSON *p)
{
	static const char *const skip[] = { "id", "name", "status", "agents", "parallel", "blocked_by",
					    "started", "completed", "retry_count", "sub_step",
					    "downstream_context", NULL };
	cJSON *s = cJSON_CreateObject(), *arts;
	const cJSON *a;
	char name[32];

	snprintf(name, sizeof(name), "step %d", (int)json_num(p, "id", 0));
	if (json_str(p, "name") && strcmp(json_str(p, "name"), name))
		fmt_copy(s, "name", p, "name");
	json_set_str(s, "status", fmt_word_out(step_statuses, json_str(p, "status")));
	json_set(s, "sub_step", json_dup_or_null(p, "sub_step"));
	arts = json_arr(s, "artifacts");
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "artifacts"))
		if (json_num(a, "phase", -1) == json_num(p, "id", -2))
			cJSON_AddItemToArray(arts, json_dup_or_null(a, "path"));
	json_set(s, "started", json_dup_or_null(p, "started"));
	json_set(s, "completed", json_dup_or_null(p, "completed"));
	fmt_copy_rest(s, p, skip);
	return s;
}

static cJSON *from_state(const cJSON *state)
{
	const cJSON *extra = fmt_from_extra(state, format_copilot.name), *p, *d;
	cJSON *doc = cJSON_CreateObject(), *st = json_obj(doc, "state"), *steps, *dec;

	json_set_str(st, "schema_version", "3.0");
	json_set(st, "project", json_str(state, "topic") ? json_dup_or_null(state, "topic")
							   : json_dup_or_null(state, "session_id"));
	json_set(st, "current_step", json_dup_or_null(state, "current_phase"));
	fmt_copy(st, "updated", state, "updated");
	steps = json_obj(st, "steps");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		char key[32];

		snprintf(key, sizeof(key), "%d", (int)json_num(p, "id", 0));
		json_set(steps, key, export_step(state, p));
	}
	dec = json_obj(st, "decisions");
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(state, "decisions")) {
		char key[32];
		const char *k = json_str(d, "key");

		if (!k) {
			snprintf(key, sizeof(key), "decision-%d", cJSON_GetArraySize(dec) + 1);
			k = key;
		}
		json_set(dec, k, json_dup_or_null(d, "decision"));
	}
	fmt_copy_rest(st, extra, (const char *const[]){ NULL });	/* never over what the model says */
	if (json_str(state, "context_summary"))
		fmt_copy(doc, "handoff", state, "context_summary");
	return doc;
}

static int print(char **out, size_t *len, const cJSON *doc, const char *part)
{
	const char *h;

	if (!part)
		return fmt_print_json(out, len, cJSON_GetObjectItemCaseSensitive(doc, "state"));
	if (strcmp(part, "handoff") || !(h = json_str(doc, "handoff")))
		return 0;
	*out = xstrdup(h);
	*len = strlen(h);
	return 0;
}

FORMAT_DEFINE(COPILOT, copilot);
