/*
 * copilot.c - the Copilot "session-resume" skill's state
 * (00-session-state.json, schema 3.0; 1.0 and 2.0 migrated as the skill
 * says) and its human companion 00-handoff.md. Pure: no I/O.
 */
#include "format-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The skill writes "complete"; some runs write "completed" or "done". */
static const struct word step_statuses[] = {
	{ "pending", ST_PENDING }, { "in_progress", ST_IN_PROGRESS }, { "complete", ST_COMPLETED },
	{ "skipped", ST_SKIPPED }, { "failed", ST_FAILED }, { "completed", ST_COMPLETED },
	{ "done", ST_COMPLETED }, { "not_started", ST_PENDING }, { NULL, NULL },
};

static int copilot_parse(cJSON **doc, const char *buf, size_t len, char **err)
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

static int copilot_detect(const cJSON *doc)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "state");

	return cJSON_GetObjectItemCaseSensitive(st, "steps") ||
	       cJSON_GetObjectItemCaseSensitive(st, "current_step");
}

/* 1.0, 2.0 or none -> 3.0: no lock, no stale_threshold_ms, no claims. */
static int copilot_upgrade(cJSON *doc, char **err)
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

/* Where a step key sorts: "3_5" and "3.5" between 3 and 4; a key that is no number last. */
static double step_rank(const char *key)
{
	char buf[32], *end;
	double v;

	if (strlen(key) >= sizeof(buf))
		return 1e9;
	strcpy(buf, key);
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = '.';
	v = strtod(buf, &end);
	return *buf && !*end && v > 0 && v < 1e6 ? v : 1e9;
}

static void import_step(cJSON *state, int id, cJSON *in, const char *key)
{
	cJSON *p = state_new_phase(id, NULL), *arts = cJSON_GetObjectItemCaseSensitive(in, "artifacts"), *c;
	const char *agent = json_str(in, "agent");
	char name[48];

	json_set_num(p, "id", id);
	snprintf(name, sizeof(name), "step %s", key);
	if (json_str(in, "name"))
		fmt_take(p, "name", in, "name");
	else
		json_set_str(p, "name", name);
	if (!step_id(key))
		json_set_str(p, "key", key);	/* the step's own key, for the export */
	json_set_str(p, "status", fmt_word_in(step_statuses, json_str(in, "status"), ST_PENDING));
	if (fmt_word_in(step_statuses, json_str(in, "status"), NULL))
		cJSON_DeleteItemFromObjectCaseSensitive(in, "status");
	if (agent) {
		if (*agent)
			cJSON_AddItemToArray(json_arr(p, "agents"), cJSON_CreateString(agent));
		cJSON_DeleteItemFromObjectCaseSensitive(in, "agent");
	}
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

struct step { cJSON *v; double rank; int id, at; };

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->at - y->at;
}

/*
 * Every step a phase, in step order: a whole-number key keeps its number
 * as the phase's id; any other key ("3_5", "3.5", "review") gets the next
 * free id and is kept as the phase's "key".
 */
static void import_steps(cJSON *state, cJSON *doc)
{
	cJSON *steps = cJSON_GetObjectItemCaseSensitive(doc, "steps"), *c;
	int n = cJSON_GetArraySize(steps), i = 0, next = 0;
	struct step *v;

	if (!cJSON_IsObject(steps) || !n)
		return;
	cJSON_ArrayForEach(c, steps)
		if (!cJSON_IsObject(c))
			return;		/* not steps as the skill writes them: kept as they are, in extra */
	v = xcalloc((size_t)n, sizeof(*v));
	cJSON_ArrayForEach(c, steps) {
		v[i] = (struct step){ c, step_rank(c->string), step_id(c->string), i };
		if (v[i].id > next)
			next = v[i].id;
		i++;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_step);
	for (i = 0; i < n; i++)
		import_step(state, v[i].id ? v[i].id : ++next, v[i].v, v[i].v->string);
	free(v);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "steps");
}

/* The step key of a phase: its own key, or its id. */
static void phase_key(char *buf, size_t n, const cJSON *p)
{
	if (json_str(p, "key"))
		snprintf(buf, n, "%s", json_str(p, "key"));
	else
		snprintf(buf, n, "%d", (int)json_num(p, "id", 0));
}

/* current_step, a number (3, 3.5) or a key ("3_5"): the phase it names. */
static void import_current(cJSON *state, cJSON *doc)
{
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(doc, "current_step"), *p;
	char want[48], key[48];

	if (cJSON_IsNumber(cur))
		snprintf(want, sizeof(want), "%.15g", cur->valuedouble);
	else if (cJSON_IsString(cur) && strlen(cur->valuestring) < sizeof(want))
		snprintf(want, sizeof(want), "%s", cur->valuestring);
	else
		return;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		phase_key(key, sizeof(key), p);
		if (!strcmp(key, want) || (step_rank(key) < 1e9 && step_rank(key) == step_rank(want))) {
			json_set_num(state, "current_phase", json_num(p, "id", 0));
			cJSON_DeleteItemFromObjectCaseSensitive(doc, "current_step");
			return;
		}
	}
	if (cJSON_IsNumber(cur) && json_is_int(cur->valuedouble))	/* 0: not started yet */
		fmt_take(state, "current_phase", doc, "current_step");
}

/* decisions {key: text} and decision_log [{id, step, agent, title, choice, rationale}]. */
static void import_decisions(cJSON *state, cJSON *doc)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "decisions"), *log, *c;
	int strings = cJSON_IsObject(d);

	cJSON_ArrayForEach(c, d)
		if (!cJSON_IsString(c))
			strings = 0;
	if (strings) {
		cJSON_ArrayForEach(c, d) {
			cJSON *e = fmt_blank_entry(state_decision_fields);
			json_set_str(e, "decision", c->valuestring);
			json_set_str(e, "key", c->string);
			cJSON_AddItemToArray(json_arr(state, "decisions"), e);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "decisions");
	}
	log = cJSON_GetObjectItemCaseSensitive(doc, "decision_log");
	if (!fmt_all_objects(log))
		return;
	cJSON_ArrayForEach(c, log)
		if (!json_str(c, "choice"))
			return;
	cJSON_ArrayForEach(c, log) {
		cJSON *e = fmt_blank_entry(state_decision_fields);

		fmt_take(e, "decision", c, "choice");
		for (const char *const *k = (const char *const[]){ "rationale", "timestamp", "agent", NULL }; *k; k++)
			fmt_take(e, *k, c, *k);
		fmt_move_rest(e, c);
		cJSON_AddItemToArray(json_arr(state, "decisions"), e);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "decision_log");
}

static int copilot_to_state(cJSON *state, cJSON *files, int *active, const cJSON *in, char **err)
{
	cJSON *doc = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(in, "state"), 1);
	const cJSON *project = cJSON_GetObjectItemCaseSensitive(doc, "project");

	(void)files;
	(void)err;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema_version");
	if (cJSON_IsString(project)) {
		json_set_str(state, "session_id", project->valuestring);	/* format_import slugs it if it must */
		fmt_take(state, "topic", doc, "project");
	}
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "updated"))) {
		fmt_copy(state, "created", doc, "updated");
		fmt_take(state, "updated", doc, "updated");
	}
	import_steps(state, doc);
	import_current(state, doc);
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
	static const char *const skip[] = { "id", "key", "name", "status", "agents", "parallel", "blocked_by",
					    "started", "completed", "retry_count", "sub_step",
					    "downstream_context", NULL };
	const cJSON *agents = cJSON_GetObjectItemCaseSensitive(p, "agents"), *a;
	cJSON *s = cJSON_CreateObject(), *arts;

	fmt_copy(s, "name", p, "name");
	json_set_str(s, "agent", fmt_all_strings(agents) && agents->child ? agents->child->valuestring : "");
	json_set_str(s, "status", fmt_word_out(step_statuses, json_str(p, "status")));
	json_set(s, "sub_step", json_dup_or_null(p, "sub_step"));
	arts = json_arr(s, "artifacts");
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "artifacts"))
		if (json_num(a, "phase", -1) == json_num(p, "id", -2))
			cJSON_AddItemToArray(arts, json_dup_or_null(a, "path"));
	json_set(s, "started", json_dup_or_null(p, "started"));
	json_set(s, "completed", json_dup_or_null(p, "completed"));
	fmt_copy_rest(s, p, skip);
	if (!cJSON_GetObjectItemCaseSensitive(s, "context_files_used"))
		json_arr(s, "context_files_used");
	return s;
}

/* current_step: the current phase's step key as a number (3, 3.5), as the skill's validator wants. */
static cJSON *export_current(const cJSON *state)
{
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(state, "current_phase"), *p;
	const char *key;

	if (!cJSON_IsNumber(cur))
		return cJSON_CreateNumber(0);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases"))
		if (json_num(p, "id", -1) == cur->valuedouble && (key = json_str(p, "key")))
			return step_rank(key) < 1e9 ? cJSON_CreateNumber(step_rank(key)) : cJSON_CreateString(key);
	return cJSON_CreateNumber(cur->valuedouble);
}

/* A decision with no key: one decision_log entry, with what the skill requires. */
static cJSON *export_logged(const cJSON *state, const cJSON *d, int n)
{
	cJSON *e = cJSON_CreateObject();
	const char *text = json_str(d, "decision") ? json_str(d, "decision") : "";
	char id[16];

	snprintf(id, sizeof(id), "D%03d", n);
	json_set(e, "id", json_str(d, "id") ? json_dup_or_null(d, "id") : cJSON_CreateString(id));
	json_set(e, "timestamp", json_dup_or_null(d, "timestamp"));
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(d, "step")))
		fmt_copy(e, "step", d, "step");
	else
		json_set_num(e, "step", json_num(state, "current_phase", 1) >= 1 ? json_num(state, "current_phase", 1) : 1);
	json_set_str(e, "agent", json_str(d, "agent") ? json_str(d, "agent") : "");
	json_set(e, "title", json_dup_or_null(d, json_str(d, "title") ? "title" : "decision"));
	json_set_str(e, "choice", text);
	json_set_str(e, "rationale", json_str(d, "rationale") ? json_str(d, "rationale") : "");
	fmt_copy_rest(e, d, (const char *const[]){ "decision", "key", NULL });
	return e;
}

static void export_decisions(cJSON *st, const cJSON *state)
{
	static const char *const required[] = { "region", "compliance", "budget", "architecture_pattern",
						"deployment_strategy", NULL };
	cJSON *dec = json_obj(st, "decisions"), *log = NULL;
	const cJSON *d;
	int n = 0;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(state, "decisions")) {
		if (json_str(d, "key")) {
			json_set(dec, json_str(d, "key"), json_dup_or_null(d, "decision"));
			continue;
		}
		if (!log)
			log = json_arr(st, "decision_log");
		cJSON_AddItemToArray(log, export_logged(state, d, ++n));
	}
	for (const char *const *k = required; *k; k++)
		if (!cJSON_GetObjectItemCaseSensitive(dec, *k))
			json_set_str(dec, *k, "");
}

static cJSON *copilot_from_state(const cJSON *state)
{
	const cJSON *extra = fmt_from_extra(state, format_copilot.name), *p;
	const cJSON *project = cJSON_GetObjectItemCaseSensitive(state, "project");
	cJSON *doc = cJSON_CreateObject(), *st = json_obj(doc, "state"), *steps;

	json_set_str(st, "schema_version", "3.0");
	json_set(st, "project", json_str(state, "topic") ? json_dup_or_null(state, "topic")
							   : json_dup_or_null(state, "session_id"));
	json_set(st, "current_step", export_current(state));
	fmt_copy(st, "updated", state, "updated");
	steps = json_obj(st, "steps");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		char key[48];

		phase_key(key, sizeof(key), p);
		json_set(steps, key, export_step(state, p));
	}
	export_decisions(st, state);
	fmt_copy_rest(st, extra, (const char *const[]){ NULL });	/* never over what the model says */
	/* what the skill's validator requires of every file */
	if (!cJSON_GetObjectItemCaseSensitive(st, "branch"))
		json_set_str(st, "branch", json_str(project, "branch") ? json_str(project, "branch") : "");
	for (const char *const *k = (const char *const[]){ "iac_tool", "region", NULL }; *k; k++)
		if (!cJSON_GetObjectItemCaseSensitive(st, *k))
			json_set_str(st, *k, "");
	if (!cJSON_GetObjectItemCaseSensitive(st, "updated"))
		json_set_str(st, "updated", json_str(state, "created") ? json_str(state, "created") : "");
	if (!cJSON_GetObjectItemCaseSensitive(st, "open_findings"))
		json_arr(st, "open_findings");
	if (json_str(state, "context_summary"))
		fmt_copy(doc, "handoff", state, "context_summary");
	return doc;
}

static int copilot_print(char **out, size_t *len, const cJSON *doc, const char *part)
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

/* The parts of the session the export writes (format_lost names the others). */
static const char copilot_holds[] = "phases phase-agents decisions artifacts context_summary";

/* The handoff, for people, beside the state: 00-handoff.md. */
FORMAT_DEFINE(COPILOT, copilot, .layout = { .part = "handoff", .part_file = "00-handoff.md" });
