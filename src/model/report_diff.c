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

/*
 * How a list of entries keyed by id (or path) is compared: the entry of
 * the older state with the same key, what besides the status makes a
 * change, and the move that says so.
 */
struct keyed {
	const char *list;
	const cJSON *(*old)(const cJSON *state, const cJSON *entry);
	int (*changed)(const cJSON *old, const cJSON *entry);
	cJSON *(*move)(const cJSON *entry, const char *from, const char *to);
};

/* The entries of list new or changed since the older state a. */
static void diff_keyed(cJSON *out, const cJSON *a, const cJSON *b, const struct keyed *k)
{
	cJSON *arr = json_set(out, k->list, cJSON_CreateArray());
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, k->list)) {
		const cJSON *old = k->old(a, e);
		const char *from = old ? report_str_or(old, "status", "") : NULL, *to = report_str_or(e, "status", "");

		if (!from || strcmp(from, to) || k->changed(old, e))
			cJSON_AddItemToArray(arr, k->move(e, from, to));
	}
}

static const cJSON *old_phase(const cJSON *state, const cJSON *p)
{
	return state_phase(state, (int)json_num(p, "id", 0));
}

static int phase_changed(const cJSON *old, const cJSON *p)
{
	return json_num(old, "retry_count", 0) != json_num(p, "retry_count", 0);
}

static cJSON *phase_move(const cJSON *p, const char *from, const char *to)
{
	cJSON *m = move((const char *const[]){ "id", "name", NULL }, p, from, to);

	json_set(m, "retry_count", json_dup_or_null(p, "retry_count"));
	return m;
}

static const cJSON *old_agent(const cJSON *state, const cJSON *ag)
{
	return state_agent(state, report_str_or(ag, "id", ""));
}

static int agent_changed(const cJSON *old, const cJSON *ag)
{
	return json_num(old, "progress", 0) != json_num(ag, "progress", 0);
}

static cJSON *agent_move(const cJSON *ag, const char *from, const char *to)
{
	cJSON *m = move((const char *const[]){ "id", "type", "phase", NULL }, ag, from, to);

	json_set(m, "progress", json_dup_or_null(ag, "progress"));
	json_set(m, "result_summary", json_dup_or_null(ag, "result_summary"));
	return m;
}

static const cJSON *old_file(const cJSON *state, const cJSON *f)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(state, "files"), f->string);
}

static int file_changed(const cJSON *old, const cJSON *f)
{
	return strcmp(report_str_or(old, "oid", ""), report_str_or(f, "oid", "")) != 0;
}

static cJSON *file_move(const cJSON *f, const char *from, const char *to)
{
	cJSON *m = cJSON_CreateObject();

	json_set_str(m, "path", f->string);
	json_set_str(m, "from", from);
	json_set_str(m, "to", to);
	json_set(m, "oid", json_dup_or_null(f, "oid"));
	json_set(m, "agent", json_dup_or_null(f, "agent"));
	return m;
}

static const struct keyed phases = { "phases", old_phase, phase_changed, phase_move };
static const struct keyed agents = { "agents", old_agent, agent_changed, agent_move };
static const struct keyed files = { "files", old_file, file_changed, file_move };

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
	diff_keyed(out, from, to, &phases);
	diff_keyed(out, from, to, &agents);
	diff_keyed(out, from, to, &files);
	diff_errors(out, from, to);
	diff_tokens(out, from, to);
	json_set(out, "decisions", appended(from, to, "decisions"));
	json_set(out, "notes", appended(from, to, "notes"));
	diff_tasks(out, from, to);
	json_set(out, "milestones", appended(from, to, "milestones"));
	json_set(out, "artifacts", appended(from, to, "artifacts"));
	return out;
}
