/*
 * report_diff.c - the facts `diff` shows: what moved between two states
 * of a session. Pure.
 */
#include "report-internal.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/* A move of something keyed by id: {"<key>": id, ..., "from": a, "to": b}. */
static cJSON *move(const char *const *keys, const cJSON *item, const char *from, const char *to)
{
	cJSON *m = cJSON_CreateObject();

	report_copy_keys(m, item, keys);
	json_set_str(m, "from", from);
	json_set_str(m, "to", to);
	return m;
}

static void diff_phases(cJSON *out, const cJSON *a, const cJSON *b)
{
	cJSON *arr = json_set(out, "phases", cJSON_CreateArray());
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(b, "phases")) {
		const cJSON *old = state_phase(a, (int)json_num(p, "id", 0));
		const char *from = old ? report_str_or(old, "status", "") : NULL, *to = report_str_or(p, "status", "");

		if (!from || strcmp(from, to) || json_num(old, "retry_count", 0) != json_num(p, "retry_count", 0)) {
			cJSON *m = move((const char *const[]){ "id", "name", NULL }, p, from, to);
			json_set(m, "retry_count", json_dup_or_null(p, "retry_count"));
			cJSON_AddItemToArray(arr, m);
		}
	}
}

static void diff_agents(cJSON *out, const cJSON *a, const cJSON *b)
{
	cJSON *arr = json_set(out, "agents", cJSON_CreateArray());
	const cJSON *ag;

	cJSON_ArrayForEach(ag, cJSON_GetObjectItemCaseSensitive(b, "agents")) {
		const cJSON *old = state_agent(a, report_str_or(ag, "id", ""));
		const char *from = old ? report_str_or(old, "status", "") : NULL, *to = report_str_or(ag, "status", "");

		if (!from || strcmp(from, to) || json_num(old, "progress", 0) != json_num(ag, "progress", 0)) {
			cJSON *m = move((const char *const[]){ "id", "type", "phase", NULL }, ag, from, to);
			json_set(m, "progress", json_dup_or_null(ag, "progress"));
			json_set(m, "result_summary", json_dup_or_null(ag, "result_summary"));
			cJSON_AddItemToArray(arr, m);
		}
	}
}

static void diff_files(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *fa = cJSON_GetObjectItemCaseSensitive(a, "files"), *f;
	cJSON *arr = json_set(out, "files", cJSON_CreateArray());

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(b, "files")) {
		const cJSON *old = cJSON_GetObjectItemCaseSensitive(fa, f->string);
		const char *from = old ? report_str_or(old, "status", "") : NULL, *to = report_str_or(f, "status", "");

		if (!from || strcmp(from, to) || strcmp(report_str_or(old, "oid", ""), report_str_or(f, "oid", ""))) {
			cJSON *m = cJSON_CreateObject();
			json_set_str(m, "path", f->string);
			json_set_str(m, "from", from);
			json_set_str(m, "to", to);
			json_set(m, "oid", json_dup_or_null(f, "oid"));
			json_set(m, "agent", json_dup_or_null(f, "agent"));
			cJSON_AddItemToArray(arr, m);
		}
	}
}

static void diff_errors(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *ea = cJSON_GetObjectItemCaseSensitive(a, "errors"), *e;
	cJSON *errs = json_set(out, "errors", cJSON_CreateObject());
	cJSON *opened = json_set(errs, "opened", cJSON_CreateArray());
	cJSON *resolved = json_set(errs, "resolved", cJSON_CreateArray());
	int i = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, "errors")) {
		const cJSON *old = cJSON_GetArrayItem(ea, i++);
		cJSON *m;

		if (!old) {
			cJSON_AddItemToArray(opened, m = cJSON_CreateObject());
			json_set_num(m, "number", i);
			report_copy_keys(m, e, (const char *const[]){ "type", "message", "agent", "phase", NULL });
		}
		if (json_bool(e, "resolved", 0) && !json_bool(old, "resolved", 0)) {
			cJSON_AddItemToArray(resolved, m = cJSON_CreateObject());
			json_set_num(m, "number", i);
			json_set(m, "resolution", json_dup_or_null(e, "resolution"));
		}
	}
}

/* Entries appended to a list since the older state. */
static cJSON *appended(const cJSON *a, const cJSON *b, const char *key)
{
	int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, key)), i = 0;
	cJSON *arr = cJSON_CreateArray();
	const cJSON *v;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(b, key))
		if (i++ >= n)
			cJSON_AddItemToArray(arr, cJSON_Duplicate(v, 1));
	return arr;
}

static void diff_tokens(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(a, "tokens");
	const cJSON *tb = cJSON_GetObjectItemCaseSensitive(b, "tokens");
	cJSON *t = json_set(out, "tokens", cJSON_CreateObject());

	for (const char *const *k = (const char *const[]){ "input", "output", "cached", "saved", NULL }; *k; k++)
		json_set_num(t, *k, json_num(tb, *k, 0) - json_num(ta, *k, 0));
	json_set_num(t, "used", state_tokens_used(tb) - state_tokens_used(ta));
}

static void diff_tasks(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(a, "tasks"), *t;
	cJSON *arr = json_set(out, "tasks", cJSON_CreateArray());
	int i = 0;

	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(b, "tasks")) {
		const cJSON *old = cJSON_GetArrayItem(ta, i++);
		const char *from = old ? report_str_or(old, "status", "") : NULL;

		if (!from || strcmp(from, report_str_or(t, "status", "")))
			cJSON_AddItemToArray(arr, move((const char *const[]){ "id", "title", NULL }, t, from,
						       report_str_or(t, "status", "")));
	}
}

cJSON *report_diff(const cJSON *from, const cJSON *to, const char *from_commit, const char *to_commit)
{
	cJSON *out = cJSON_CreateObject();
	const char *sa = report_str_or(from, "status", ""), *sb = report_str_or(to, "status", "");

	json_set_str(out, "from", from_commit);
	json_set_str(out, "to", to_commit);
	if (strcmp(sa, sb)) {
		cJSON *s = json_set(out, "status", cJSON_CreateObject());
		json_set_str(s, "from", sa);
		json_set_str(s, "to", sb);
	} else {
		json_set_str(out, "status", NULL);
	}
	diff_phases(out, from, to);
	diff_agents(out, from, to);
	diff_files(out, from, to);
	diff_errors(out, from, to);
	diff_tokens(out, from, to);
	json_set(out, "decisions", appended(from, to, "decisions"));
	json_set(out, "notes", appended(from, to, "notes"));
	diff_tasks(out, from, to);
	json_set(out, "milestones", appended(from, to, "milestones"));
	json_set(out, "artifacts", appended(from, to, "artifacts"));
	return out;
}
