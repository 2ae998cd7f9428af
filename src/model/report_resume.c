/*
 * report_resume.c - the facts `resume` shows: the status report, the work
 * by where it stands, and what changed behind the session's back (files,
 * branch, HEAD, plans). Pure.
 */
#include "report-internal.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/*
 * The entry's phase or agent was still at work when it was recorded. Not
 * an agent a CLI's hooks attached: they record a file once its tool wrote it.
 */
static int in_flight(const cJSON *state, const cJSON *rec)
{
	const cJSON *p = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "phase")) ?
		state_phase(state, (int)json_num(rec, "phase", 0)) : NULL;
	const cJSON *a = json_str(rec, "agent") ? state_agent(state, json_str(rec, "agent")) : NULL;

	return (p && !strcmp(report_str_or(p, "status", ""), ST_IN_PROGRESS)) ||
	       (a && !strcmp(report_str_or(a, "status", ""), ST_IN_PROGRESS) && !report_agent_cli(a));
}

const char *report_file_kind(const cJSON *state, const cJSON *rec, const cJSON *fact)
{
	const char *fs = report_str_or(fact, "fs", "missing"), *oid = json_str(rec, "oid");

	if (!strcmp(fs, "sparse"))
		return "clean";	/* outside a sparse checkout: git keeps it, not the working tree */
	if (!strcmp(report_str_or(rec, "status", ""), ST_DELETED))
		return strcmp(fs, "missing") ? "recreated" : "clean";
	if (!strcmp(fs, "missing") || !strcmp(fs, "dir"))
		return "deleted";
	if (!strcmp(fs, "unreadable"))
		return "unreadable";
	if (!json_bool(fact, "same_stat", 0) && strcmp(report_str_or(fact, "oid", ""), oid ? oid : "")) {
		/* content, not which clone's record a merge kept: HEAD's content is no change behind the session */
		if (strcmp(report_str_or(fact, "oid", ""), report_str_or(fact, "head_oid", "")))
			return "modified";
		return json_bool(fact, "in_history", 0) ? "committed" : "reverted";
	}
	if (in_flight(state, rec))
		return "partial";
	if (oid && !strcmp(report_str_or(fact, "head_oid", ""), oid))
		return "committed";
	return "clean";
}

static int is_conflict(const char *kind)
{
	return strcmp(kind, "clean") && strcmp(kind, "committed");
}

static void resume_files(cJSON *out, const cJSON *state, const cJSON *scan)
{
	static const char *const kinds[] = { "clean", "committed", "modified", "reverted", "deleted",
					     "recreated", "partial", "unreadable" };
	cJSON *files = json_set(out, "files", cJSON_CreateArray());
	cJSON *conflicts = json_set(out, "conflicts", cJSON_CreateArray());
	cJSON *summary = cJSON_CreateObject();
	const cJSON *rec, *fact = NULL;
	int n = 0, hashed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		json_set_num(summary, kinds[i], 0);
	cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(state, "files")) {
		/* the scan follows the manifest's order: walk both together */
		fact = fact ? fact->next : (scan ? scan->child : NULL);
		if (!fact || strcmp(fact->string, rec->string))
			fact = cJSON_GetObjectItemCaseSensitive(scan, rec->string);
		const char *kind = report_file_kind(state, rec, fact);
		cJSON *f = cJSON_CreateObject();

		json_set_str(f, "path", rec->string);
		json_set_str(f, "kind", kind);
		json_set(f, "recorded_status", json_dup_or_null(rec, "status"));
		json_set(f, "recorded_oid", json_dup_or_null(rec, "oid"));
		json_set(f, "current_oid", json_bool(fact, "same_stat", 0) ? json_dup_or_null(rec, "oid") : json_dup_or_null(fact, "oid"));
		json_set(f, "head_oid", json_dup_or_null(fact, "head_oid"));
		json_set(f, "phase", json_dup_or_null(rec, "phase"));
		json_set(f, "agent", json_dup_or_null(rec, "agent"));
		json_set_str(f, "detail", !strcmp(report_str_or(fact, "fs", ""), "dir") ? "now a directory" :
			     !strcmp(report_str_or(fact, "fs", ""), "sparse") ? "outside the sparse checkout" :
			     !strcmp(kind, "reverted") ? "holds HEAD's content; what was recorded is in no commit of HEAD's" :
			     json_str(fact, "error"));
		if (is_conflict(kind))
			cJSON_AddItemToArray(conflicts, cJSON_Duplicate(f, 1));
		cJSON_AddItemToArray(files, f);
		json_set_num(summary, kind, json_num(summary, kind, 0) + 1);
		n++;
		hashed += json_str(fact, "oid") != NULL;
	}
	json_set_num(summary, "files", n);
	json_set_num(summary, "hashed", hashed);
	json_set(out, "manifest", summary);
}

static void resume_project(cJSON *out, const cJSON *project)
{
	const cJSON *pb = cJSON_GetObjectItemCaseSensitive(project, "branch");
	const cJSON *ph = cJSON_GetObjectItemCaseSensitive(project, "head");
	cJSON *b = json_set(out, "branch", cJSON_CreateObject());
	cJSON *h = json_set(out, "head", cJSON_CreateObject());
	const char *rec = json_str(ph, "recorded");
	int unborn_then = !rec || strspn(rec, "0") == strlen(rec);	/* no commit to descend from */

	report_copy_keys(b, pb, (const char *const[]){ "recorded", "current", NULL });
	json_set_bool(b, "changed", strcmp(report_str_or(pb, "recorded", ""), report_str_or(pb, "current", "")) != 0);
	json_set_bool(b, "recorded_exists", json_bool(pb, "recorded_exists", 0));
	report_copy_keys(h, ph, (const char *const[]){ "recorded", "current", "new_commits", "commits", NULL });
	json_set_bool(h, "moved", strcmp(report_str_or(ph, "recorded", ""), report_str_or(ph, "current", "")) != 0);
	json_set_bool(h, "rewritten", !unborn_then && !json_bool(ph, "descends", 0));
	/* a teammate's commit this clone has not fetched */
	json_set_bool(h, "recorded_missing", !unborn_then && !json_bool(ph, "recorded_exists", 0));
}

static void resume_plans(cJSON *out, const cJSON *state, const cJSON *plans_now)
{
	cJSON *arr = json_set(out, "plans", cJSON_CreateArray());
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "plans")) {
		const char *path = report_str_or(p, "path", ""), *now = json_str(plans_now, path);
		cJSON *o = cJSON_CreateObject();

		json_set_str(o, "path", path);
		json_set(o, "recorded_oid", json_dup_or_null(p, "oid"));
		json_set_str(o, "current_oid", now);
		json_set_bool(o, "changed", strcmp(now ? now : "", report_str_or(p, "oid", "")) != 0);
		cJSON_AddItemToArray(arr, o);
	}
}

/* Phases by where they stand: done, in progress, pending. */
static void resume_work(cJSON *out, const cJSON *state, const struct report_ctx *ctx)
{
	cJSON *done = json_set(out, "done", cJSON_CreateArray());
	cJSON *doing = json_set(out, "in_progress", cJSON_CreateArray());
	cJSON *pending = json_set(out, "pending", cJSON_CreateArray());
	const cJSON *p, *a;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		const char *st = report_str_or(p, "status", "");
		cJSON *o = cJSON_CreateObject(), *agents;

		report_copy_keys(o, p, (const char *const[]){ "id", "name", "status", NULL });
		if (json_str(p, "key"))
			json_set(o, "key", json_dup_or_null(p, "key"));
		if (!strcmp(st, ST_COMPLETED) || !strcmp(st, ST_SKIPPED)) {
			json_set(o, "downstream_context", json_dup_or_null(p, "downstream_context"));
			cJSON_AddItemToArray(done, o);
		} else if (!strcmp(st, ST_PENDING)) {
			json_set(o, "blocked_by", json_dup_or_null(p, "blocked_by"));
			cJSON_AddItemToArray(pending, o);
		} else {
			json_set(o, "sub_step", json_dup_or_null(p, "sub_step"));
			json_set(o, "retry_count", json_dup_or_null(p, "retry_count"));
			report_liveness(o, p, ctx);
			agents = json_set(o, "agents", cJSON_CreateArray());
			cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents"))
				if ((int)json_num(a, "phase", -1) == (int)json_num(p, "id", 0) &&
				    !strcmp(report_str_or(a, "status", ""), ST_IN_PROGRESS)) {
					cJSON *v = cJSON_Duplicate(a, 1);

					report_liveness(v, a, ctx);
					cJSON_AddItemToArray(agents, v);
				}
			cJSON_AddItemToArray(doing, o);
		}
	}
}

cJSON *report_resume(const cJSON *state, const cJSON *scan, const cJSON *project,
		     const cJSON *plans_now, const struct report_ctx *ctx)
{
	cJSON *out = report_status(state, ctx), *next = cJSON_DetachItemFromObjectCaseSensitive(out, "next");

	resume_work(out, state, ctx);
	resume_files(out, state, scan);
	resume_project(out, project);
	resume_plans(out, state, plans_now);
	json_set(out, "next", next);	/* last, as in status */
	return out;
}
