/*
 * maestro_flow.c - maestro-flow sessions: a folder each under
 * .workflow/sessions/, its session.json, the registries it names and
 * runs/<id>/run.json.
 * session/3.0, and session/1.0-1.3 as upstream still reads them. The
 * chain's steps are the phases, runs the agents, decision gates the
 * decisions. Pure: no I/O.
 *
 * The document: {"session": {...}, "runs": {"<run id>": {...}},
 * "artifacts": {...}, "evidence": {...}, "gates": {...}}, parts optional.
 */
#include "format-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Preferred spelling first: the export writes the first one of ours. */
static const struct word statuses[] = {
	{ "open", ST_IN_PROGRESS }, { "completed", ST_COMPLETED }, { "failed", ST_ABORTED },
	{ "paused", ST_PAUSED }, { "archived", ST_COMPLETED }, { NULL, NULL },
};
static const struct word statuses_v1[] = {
	{ "running", ST_IN_PROGRESS }, { "paused", ST_PAUSED }, { "sealed", ST_COMPLETED },
	{ "failed", ST_ABORTED }, { "archived", ST_COMPLETED }, { NULL, NULL },
};
static const struct word step_statuses[] = {
	{ "pending", ST_PENDING }, { "running", ST_IN_PROGRESS }, { "completed", ST_COMPLETED },
	{ "failed", ST_FAILED }, { "skipped", ST_SKIPPED }, { "sealed", ST_COMPLETED }, { NULL, NULL },
};
/* A run's status as an agent's: what has not ended is in progress. */
static const struct word run_statuses[] = {
	{ "completed", ST_COMPLETED }, { "sealed", ST_COMPLETED }, { "failed", ST_FAILED },
	{ "cancelled", ST_FAILED }, { NULL, NULL },
};
/* The registries a session names, by their part's name. */
static const char *const registries[] = { "artifacts", "evidence", "gates", NULL };

static const cJSON *session_of(const cJSON *doc)
{
	return cJSON_GetObjectItemCaseSensitive(doc, "session");
}

static int is_v3(const cJSON *s)
{
	const char *v = json_str(s, "schema_version");

	return v ? !strncmp(v, "session/3", 9) : cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s, "chain"));
}

static int maestro_flow_parse(cJSON **doc, const char *buf, size_t len, char **err)
{
	cJSON *v;

	if (fmt_parse_object(&v, buf, len, 0, err) < 0)
		return GS_ERROR;
	if (cJSON_IsObject(session_of(v)) && !cJSON_GetObjectItemCaseSensitive(v, "schema_version")) {
		*doc = v;	/* a whole document, its parts in one */
		return 0;
	}
	*doc = cJSON_CreateObject();
	json_set(*doc, "session", v);
	return 0;
}

static int maestro_flow_detect(const cJSON *doc)
{
	const cJSON *s = session_of(doc);
	const char *v = json_str(s, "schema_version");

	return v && !strncmp(v, "session/", 8) && json_str(s, "session_id");
}

/* The file a registry part is read from: as the session names it, plain names only. */
static const char *registry_file(const cJSON *s, const char *part)
{
	char key[32];
	const char *name;

	snprintf(key, sizeof(key), "%s_ref", part);
	name = json_str(s, key);
	if (!name)
		name = json_str(cJSON_GetObjectItemCaseSensitive(s, "refs"), part);
	return format_plain_name(name) ? name : NULL;
}

static cJSON *maestro_flow_side_files(const cJSON *doc)
{
	const cJSON *s = session_of(doc);
	cJSON *out = cJSON_CreateObject();

	for (const char *const *p = registries; *p; p++)
		if (registry_file(s, *p))
			json_set_str(out, *p, registry_file(s, *p));
	return out;
}

/* Whether the file of registry part is session.json, runs, or an earlier registry's. */
static int taken(const cJSON *s, const char *part)
{
	const char *name = registry_file(s, part);

	if (!name)
		return 0;
	if (!strcmp(name, "session.json") || !strcmp(name, "runs"))
		return 1;
	for (const char *const *p = registries; strcmp(*p, part); p++)
		if (registry_file(s, *p) && !strcmp(registry_file(s, *p), name))
			return 1;
	return 0;
}

/* Ids that name folders: refused whole when not a plain folder name. */
static int maestro_flow_upgrade(cJSON *doc, char **err)
{
	const cJSON *s = session_of(doc), *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs"), *r;
	const char *id = json_str(s, "session_id");

	if (!cJSON_IsObject(s)) {
		*err = xstrdup("no session.json");
		return GS_ERROR;
	}
	if (!format_plain_name(id)) {
		*err = xstrfmt("session id '%s' is not a plain folder name", id ? id : "");
		return GS_ERROR;
	}
	if (runs && !cJSON_IsObject(runs)) {
		*err = xstrdup("'runs' is not a set of runs");
		return GS_ERROR;
	}
	cJSON_ArrayForEach(r, runs) {
		const cJSON *rid = cJSON_GetObjectItemCaseSensitive(r, "run_id");

		if (!cJSON_IsObject(r) || !format_plain_name(r->string)) {
			*err = xstrfmt("run '%s' is not a plain folder name", r->string);
			return GS_ERROR;
		}
		if (rid && (!cJSON_IsString(rid) || !format_plain_name(rid->valuestring))) {
			*err = xstrfmt("run '%s': its run_id is not a plain folder name", r->string);
			return GS_ERROR;
		}
	}
	for (const char *const *p = registries; *p; p++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_ref", *p);
		if ((json_str(s, key) || json_str(cJSON_GetObjectItemCaseSensitive(s, "refs"), *p)) &&
		    !registry_file(s, *p)) {
			*err = xstrfmt("the %s file the session names is not a file beside it", *p);
			return GS_ERROR;
		}
		if (taken(s, *p)) {	/* the export writes each file once */
			*err = xstrfmt("the %s file '%s' is the session's own, or another registry's", *p,
				       registry_file(s, *p));
			return GS_ERROR;
		}
	}
	return 0;
}

/* "command arg...": a step's name. */
static char *step_name(const cJSON *step)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(step, "args"), *a;
	struct sbuf sb = SBUF_INIT;

	sbuf_adds(&sb, json_str(step, "command") ?: json_str(step, "name") ?: json_str(step, "step_id") ?: "");
	if (cJSON_IsString(args) && *args->valuestring)
		sbuf_addf(&sb, " %s", args->valuestring);
	cJSON_ArrayForEach(a, (cJSON_IsArray(args) ? args : NULL))
		if (cJSON_IsString(a))
			sbuf_addf(&sb, " %s", a->valuestring);
	return sbuf_detach(&sb, NULL);
}

/* The id of the phase of step_id (or whose 1.x step names run_id), or 0. */
static int phase_of(const cJSON *state, const char *step_id, const char *run_id)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		const char *sid = json_str(p, "key"), *rid = json_str(p, "run_id");

		if ((step_id && sid && !strcmp(step_id, sid)) || (run_id && rid && !strcmp(run_id, rid)))
			return (int)json_num(p, "id", 0);
	}
	return 0;
}

static void import_chain(cJSON *state, cJSON *chain)
{
	cJSON *s;
	int n = 0;

	cJSON_ArrayForEach(s, chain) {
		cJSON *p = state_new_phase(++n, NULL), *in = cJSON_Duplicate(s, 1);
		const char *st = fmt_word_in(step_statuses, json_str(in, "status"), NULL);
		char *name = step_name(in);

		json_set_str(p, "name", name);
		free(name);
		json_set_str(p, "status", st ? st : ST_PENDING);
		cJSON_DeleteItemFromObjectCaseSensitive(in, "status");	/* another word: the patch keeps it */
		if (json_str(in, "step_id"))	/* the step's own name, which status shows for the number */
			fmt_take(p, "key", in, "step_id");
		fmt_move_rest(p, in);
		cJSON_Delete(in);
		cJSON_AddItemToArray(json_arr(state, "phases"), p);
	}
}

/* Decision gates (3.0 decisions, 1.x decision_points): shown as decisions, their status said. */
static void import_decisions(cJSON *state, const cJSON *list, const char *idkey)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, list) {
		cJSON *e = fmt_blank_entry(state_decision_fields);
		char *text = xstrfmt("gate %s after %s: %s", json_str(d, idkey) ?: "?",
				     json_str(d, "after_step_id") ?: "the start", json_str(d, "status") ?: "?");

		json_set_str(e, "decision", text);
		free(text);
		fmt_copy_rest(e, d, (const char *const[]){ NULL });
		cJSON_AddItemToArray(json_arr(state, "decisions"), e);
	}
}

/* A run as an agent: its command, attempt, verdict and actor kept beside. */
static void import_run(cJSON *state, const cJSON *run, const char *id)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(run, "command");
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(run, "output");
	const char *verdict = json_str(run, "verdict") ?: json_str(out, "verdict");
	const char *st = fmt_word_in(run_statuses, json_str(run, "status"), ST_IN_PROGRESS);
	const char *step = json_str(run, "step_id") ?: json_str(run, "chain_step_id");
	cJSON *a = fmt_blank_entry(state_agent_fields), *p;
	char *err = NULL, *task;
	int ph;

	if (state_valid_id(id, &err) < 0) {	/* not an agent id: the run stays in the runs only */
		free(err);
		cJSON_Delete(a);
		return;
	}
	if (verdict && (!strcmp(verdict, "needs_retry") || !strcmp(verdict, "blocked") || !strcmp(verdict, "failed")))
		st = ST_FAILED;
	task = step_name(cJSON_IsObject(cmd) ? cmd : run);
	if (cJSON_IsObject(cmd))	/* command-run/1.x: {name, ...} */
		json_set_str(a, "type", json_str(cmd, "name"));
	else
		json_set_str(a, "type", json_str(run, "command"));
	json_set_str(a, "id", id);
	json_set_str(a, "task", json_str(run, "goal") ?: task);
	ph = phase_of(state, step, id);
	if (ph)
		json_set_num(a, "phase", ph);
	json_set_str(a, "status", st);
	json_set_str(a, "started", json_str(run, "started_at") ?: json_str(run, "created_at"));
	if (strcmp(st, ST_IN_PROGRESS))
		json_set_str(a, "completed", json_str(run, "ended_at") ?: json_str(run, "completed_at"));
	json_set_str(a, "result_summary", json_str(run, "summary"));
	for (const char *const *k = (const char *const[]){ "attempt", "retry_of_run_id", "actor_id", NULL }; *k; k++)
		fmt_copy(a, *k, run, *k);
	json_set_str(a, "verdict", verdict);
	cJSON_AddItemToArray(json_arr(state, "agents"), a);
	if ((p = state_phase(state, ph))) {
		cJSON_AddItemToArray(json_arr(p, "agents"), cJSON_CreateString(id));
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(p, "started")) && json_str(a, "started"))
			json_set_str(p, "started", json_str(a, "started"));
		if (!strcmp(json_str(p, "status"), ST_COMPLETED) && json_str(a, "completed"))
			json_set_str(p, "completed", json_str(a, "completed"));
	}
	free(task);
}

/* The earliest start of a run, and the latest end (or sealed_at), as the session's created and updated. */
static void run_times(cJSON *state, const cJSON *runs, const char *sealed)
{
	const char *first = NULL, *last = sealed;
	const cJSON *r;

	cJSON_ArrayForEach(r, runs) {
		const char *t0 = json_str(r, "started_at") ?: json_str(r, "created_at");
		const char *t1 = json_str(r, "ended_at") ?: json_str(r, "completed_at") ?: t0;

		if (t0 && (!first || strcmp(t0, first) < 0))
			first = t0;
		if (t1 && !sealed && (!last || strcmp(t1, last) > 0))
			last = t1;
	}
	json_set_str(state, "created", first ?: last);
	json_set_str(state, "updated", last ?: first);
}

/* The step being worked on, else the first one left when the session is open. */
static void set_current(cJSON *state)
{
	const char *want[] = { ST_IN_PROGRESS, ST_PENDING };
	const cJSON *p;

	for (int i = 0; i < 2; i++) {
		if (i && strcmp(json_str(state, "status"), ST_IN_PROGRESS))
			return;
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases"))
			if (!strcmp(json_str(p, "status"), want[i])) {
				json_set_num(state, "current_phase", json_num(p, "id", 0));
				return;
			}
	}
}

static int maestro_flow_to_state(cJSON *state, cJSON *files, int *active, const cJSON *in, char **err)
{
	cJSON *doc = cJSON_Duplicate(session_of(in), 1), *parts = cJSON_CreateObject(), *orch;
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(in, "runs"), *r;
	int v3 = is_v3(doc);
	const char *st = fmt_word_in(v3 ? statuses : statuses_v1, json_str(doc, "status"), NULL);

	(void)files;
	(void)err;
	orch = v3 ? doc : cJSON_GetObjectItemCaseSensitive(doc, "orchestration");
	fmt_take(state, "session_id", doc, "session_id");
	if (json_str(doc, v3 ? "objective" : "intent"))
		fmt_take(state, "goal", doc, v3 ? "objective" : "intent");
	if (st && !strcmp(json_str(doc, "status"), "archived") && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "completed_at")))
		st = ST_ABORTED;	/* archived after it failed */
	json_set_str(state, "status", st ? st : ST_IN_PROGRESS);
	*active = st && !strcmp(json_str(doc, "status"), v3 ? "open" : "running");
	if (json_str(doc, "created_at"))
		fmt_take(state, "created", doc, "created_at");
	if (json_str(doc, "updated_at"))
		fmt_take(state, "updated", doc, "updated_at");
	if (fmt_all_objects(cJSON_GetObjectItemCaseSensitive(orch, "chain"))) {
		import_chain(state, cJSON_GetObjectItemCaseSensitive(orch, "chain"));
		cJSON_DeleteItemFromObjectCaseSensitive(orch, "chain");
	}
	if (fmt_all_objects(cJSON_GetObjectItemCaseSensitive(orch, v3 ? "decisions" : "decision_points"))) {
		import_decisions(state, cJSON_GetObjectItemCaseSensitive(orch, v3 ? "decisions" : "decision_points"),
				 v3 ? "decision_id" : "point_id");
		cJSON_DeleteItemFromObjectCaseSensitive(orch, v3 ? "decisions" : "decision_points");
	}
	cJSON_ArrayForEach(r, runs)
		import_run(state, r, r->string);
	if (!json_str(state, "created"))	/* session/1.x has no dates of its own: its runs' */
		run_times(state, runs, json_str(cJSON_GetObjectItemCaseSensitive(doc, "lifecycle"), "sealed_at"));
	set_current(state);
	fmt_rest_to_extra(state, format_maestro_flow.name, doc);
	for (const char *const *p = (const char *const[]){ "runs", "artifacts", "evidence", "gates", NULL }; *p; p++)
		fmt_copy(parts, *p, in, *p);
	if (parts->child)
		json_set(json_obj(state, "extra"), "maestro_flow_parts", parts);
	else
		cJSON_Delete(parts);
	cJSON_Delete(doc);
	return 0;
}

/* A phase as a chain step: what it came with, else made from its name (command, then one argument). */
static cJSON *export_step(const cJSON *p, int v3, const cJSON *chain)
{
	cJSON *s = cJSON_CreateObject();
	const char *name = json_str(p, "name") ?: "", *sp = strchr(name, ' ');
	char *cmd = sp ? xstrndup(name, (size_t)(sp - name)) : xstrdup(name);
	char *sid = NULL;

	if (!json_str(p, "key")) {	/* a new phase: s-<n>, the first n free */
		for (int n = (int)json_num(p, "id", 1);; n++) {
			const cJSON *o;
			int used = 0;

			free(sid);
			sid = xstrfmt("s-%d", n);
			cJSON_ArrayForEach(o, chain)
				used |= json_str(o, "step_id") && !strcmp(json_str(o, "step_id"), sid);
			if (!used)
				break;
		}
	}
	json_set_str(s, "step_id", json_str(p, "key") ?: sid);
	json_set_str(s, "command", json_str(p, "command") ?: *cmd ? cmd : "phase");
	if (v3) {
		cJSON *args = cJSON_CreateArray();

		if (sp && sp[1])
			cJSON_AddItemToArray(args, cJSON_CreateString(sp + 1));
		json_set(s, "args", cJSON_GetObjectItemCaseSensitive(p, "args") ? json_dup_or_null(p, "args") : args);
		if (cJSON_GetObjectItemCaseSensitive(p, "args"))
			cJSON_Delete(args);
	}
	json_set_str(s, "status", fmt_word_out(step_statuses, json_str(p, "status")));
	if (v3) {
		json_set(s, "run_ids", cJSON_GetObjectItemCaseSensitive(p, "run_ids") ? json_dup_or_null(p, "run_ids")
										    : cJSON_CreateArray());
		json_set(s, "goal_ref", json_dup_or_null(p, "goal_ref"));
		json_set(s, "decision_ref", json_dup_or_null(p, "decision_ref"));
		json_set(s, "decision_refs", cJSON_GetObjectItemCaseSensitive(p, "decision_refs")
						     ? json_dup_or_null(p, "decision_refs") : cJSON_CreateArray());
		json_set(s, "stage", json_dup_or_null(p, "stage"));
	} else {
		json_set(s, "run_id", json_dup_or_null(p, "run_id"));
		if (!json_str(p, "inserted_by"))
			json_set_str(s, "inserted_by", "git-session");
		json_set(s, "decision_ref", json_dup_or_null(p, "decision_ref"));
	}
	fmt_copy_rest(s, p, state_phase_fields);
	cJSON_DeleteItemFromObjectCaseSensitive(s, "key");	/* written as step_id */
	cJSON_DeleteItemFromObjectCaseSensitive(s, "seen");	/* the model's own clock, for staleness */
	free(cmd);
	free(sid);
	return s;
}

static cJSON *export_chain(const cJSON *state, int v3)
{
	cJSON *chain = cJSON_CreateArray();
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases"))
		cJSON_AddItemToArray(chain, export_step(p, v3, chain));
	return chain;
}

/* The decision gates: the decisions that came from one (a decision made here has no gate). */
static cJSON *export_decisions(const cJSON *state, const char *idkey)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *d;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(state, "decisions")) {
		cJSON *e;

		if (!json_str(d, idkey))
			continue;
		e = cJSON_CreateObject();
		fmt_copy_rest(e, d, state_decision_fields);
		cJSON_AddItemToArray(out, e);
	}
	return out;
}

static const char *first_time(const cJSON *state, const char *a, const char *b)
{
	return json_str(state, a) ?: json_str(state, b) ?: "1970-01-01T00:00:00.000Z";
}

/* Whether the session finished in its file is in progress again here (git session reopen). */
static int reopened(const cJSON *state, const cJSON *extra, const struct word *words)
{
	const char *was = fmt_word_in(words, json_str(extra, "status"), NULL), *now = json_str(state, "status");

	return was && (!strcmp(was, ST_COMPLETED) || !strcmp(was, ST_ABORTED)) &&
	       (!strcmp(now, ST_IN_PROGRESS) || !strcmp(now, ST_PAUSED));
}

/* session/3.0, in the order maestro-flow writes its keys. */
static cJSON *export_v3(const cJSON *state, const cJSON *extra)
{
	cJSON *s = cJSON_CreateObject();
	const char *st = fmt_word_out(statuses, json_str(state, "status"));

	if (!strcmp(json_str(state, "status"), ST_PAUSED))
		st = "open";
	json_set_str(s, "schema_version", json_str(extra, "schema_version") ?: "session/3.0");
	fmt_copy(s, "session_id", state, "session_id");
	json_set_str(s, "objective", json_str(state, "goal") ?: json_str(state, "topic") ?: json_str(state, "session_id"));
	json_set_str(s, "definition_of_done", json_str(extra, "definition_of_done") ?: "");
	json_set_str(s, "status", st);
	json_set(s, "orchestration_revision", extra ? json_dup_or_null(extra, "orchestration_revision") : cJSON_CreateNumber(1));
	json_set(s, "activity_revision", extra ? json_dup_or_null(extra, "activity_revision") : cJSON_CreateNumber(1));
	json_set(s, "chain", export_chain(state, 1));
	json_set(s, "decisions", export_decisions(state, "decision_id"));
	json_set(s, "active_run_ids", extra ? json_dup_or_null(extra, "active_run_ids") : cJSON_CreateArray());
	json_set_str(s, "artifacts_ref", json_str(extra, "artifacts_ref") ?: "artifacts.json");
	json_set_str(s, "evidence_ref", json_str(extra, "evidence_ref") ?: "evidence.json");
	json_set_str(s, "created_at", first_time(state, "created", "updated"));
	json_set_str(s, "updated_at", first_time(state, "updated", "created"));
	if (reopened(state, extra, statuses)) {	/* maestro-flow reads these dates as finished */
		json_set(s, "completed_at", cJSON_CreateNull());
		json_set(s, "archived_at", cJSON_CreateNull());
	} else if (extra) {
		fmt_copy(s, "completed_at", extra, "completed_at");
		fmt_copy(s, "archived_at", extra, "archived_at");
	} else {
		json_set_str(s, "completed_at", strcmp(st, "open") ? first_time(state, "updated", "created") : NULL);
		json_set_str(s, "archived_at", NULL);
	}
	fmt_copy_rest(s, extra, (const char *const[]){ NULL });
	return s;
}

/* session/1.x: the rest as read, the chain and decision points from the phases and decisions. */
static cJSON *export_v1(const cJSON *state, const cJSON *extra)
{
	cJSON *s = cJSON_CreateObject(), *orch;

	json_set(s, "schema_version", json_dup_or_null(extra, "schema_version"));
	fmt_copy(s, "session_id", state, "session_id");
	json_set(s, "intent", json_dup_or_null(state, "goal"));
	json_set_str(s, "status", fmt_word_out(statuses_v1, json_str(state, "status")));
	fmt_copy_rest(s, extra, (const char *const[]){ NULL });
	if (reopened(state, extra, statuses_v1) && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "lifecycle")))
		json_set(json_obj(s, "lifecycle"), "sealed_at", cJSON_CreateNull());
	orch = json_obj(s, "orchestration");
	json_set(orch, "chain", export_chain(state, 0));
	json_set(orch, "decision_points", export_decisions(state, "point_id"));
	return s;
}

/* An agent of the session that is no run yet, as a run/3.0 of its phase's step. */
static cJSON *agent_run(const cJSON *a, const cJSON *state, const cJSON *step)
{
	const char *st = json_str(a, "status"), *t0 = json_str(a, "started");
	cJSON *r = cJSON_CreateObject();

	json_set_str(r, "schema_version", "run/3.0");
	fmt_copy(r, "run_id", a, "id");
	fmt_copy(r, "session_id", state, "session_id");
	fmt_copy(r, "step_id", step, "step_id");
	json_set(r, "parent_run_id", cJSON_CreateNull());
	json_set(r, "retry_of_run_id", cJSON_CreateNull());
	json_set_num(r, "attempt", 1);
	fmt_copy(r, "command", step, "command");
	fmt_copy(r, "args", step, "args");
	json_set_str(r, "goal", json_str(a, "task") && *json_str(a, "task") ? json_str(a, "task") : NULL);
	json_set_str(r, "status", !strcmp(st, ST_COMPLETED) ? "completed" : !strcmp(st, ST_FAILED) ? "failed" : "running");
	json_set_num(r, "revision", 1);
	json_set_str(r, "actor_id", json_str(a, "type") && *json_str(a, "type") ? json_str(a, "type") : "git-session");
	json_arr(r, "input_refs");
	json_arr(r, "output_refs");
	json_set(r, "primary_artifact_id", cJSON_CreateNull());
	json_set_str(r, "verdict", !strcmp(st, ST_COMPLETED) ? "done" : !strcmp(st, ST_FAILED) ? "needs_retry" : NULL);
	json_set_str(r, "summary", json_str(a, "result_summary"));
	json_set_str(r, "created_at", t0 ?: first_time(state, "created", "updated"));
	json_set_str(r, "started_at", t0);
	json_set_str(r, "ended_at", strcmp(st, ST_IN_PROGRESS) ? json_str(a, "completed") : NULL);
	json_set(r, "sealed_at", cJSON_CreateNull());
	return r;
}

/* The agents of phases that are no runs yet (work recorded here): runs of their steps, named by them. */
static void export_agent_runs(cJSON *doc, const cJSON *state)
{
	cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "session"), *runs = json_obj(doc, "runs");
	cJSON *chain = cJSON_GetObjectItemCaseSensitive(s, "chain");
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		const char *id = json_str(a, "id");
		int ph = (int)json_num(a, "phase", 0), i = 0;
		const cJSON *p;
		cJSON *step = NULL;

		if (!format_plain_name(id) || cJSON_GetObjectItemCaseSensitive(runs, id))
			continue;
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
			if (json_num(p, "id", -1) == ph)
				step = cJSON_GetArrayItem(chain, i);
			i++;
		}
		if (!step)
			continue;	/* no step to be a run of */
		json_set(runs, id, agent_run(a, state, step));
		cJSON_AddItemToArray(json_arr(step, "run_ids"), cJSON_CreateString(id));
		if (!strcmp(json_str(a, "status"), ST_IN_PROGRESS))
			cJSON_AddItemToArray(json_arr(s, "active_run_ids"), cJSON_CreateString(id));
	}
	if (!runs->child)
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "runs");
}

static cJSON *maestro_flow_from_state(const cJSON *state)
{
	const cJSON *extra = fmt_from_extra(state, format_maestro_flow.name);
	const cJSON *parts = fmt_from_extra(state, "maestro_flow_parts"), *c;
	cJSON *doc = cJSON_CreateObject();
	const char *v = json_str(extra, "schema_version");
	int v1 = v && !strncmp(v, "session/", 8) && strncmp(v, "session/3", 9);

	json_set(doc, "session", v1 ? export_v1(state, extra) : export_v3(state, extra));
	cJSON_ArrayForEach(c, parts)
		json_set(doc, c->string, cJSON_Duplicate(c, 1));
	if (!v1)
		export_agent_runs(doc, state);
	if (!extra) {	/* a session from elsewhere: the empty registries its session.json names */
		cJSON *a = json_obj(doc, "artifacts"), *e = json_obj(doc, "evidence");

		json_set_str(a, "schema_version", "artifacts/1.0");
		json_set_num(a, "revision", 0);
		json_obj(a, "artifacts");
		json_obj(a, "aliases");
		json_set_str(e, "schema_version", "evidence/1.0");
		json_set_num(e, "revision", 0);
		json_obj(e, "records");
	}
	return doc;
}

/* A part's text: NULL (the session), a registry's name, or "runs/<id>"; JSON.stringify(v, null, 2) + "\n". */
static int maestro_flow_print(char **out, size_t *len, const cJSON *doc, const char *part)
{
	const cJSON *v;

	if (part && !strncmp(part, "runs/", 5))
		v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "runs"), part + 5);
	else
		v = cJSON_GetObjectItemCaseSensitive(doc, part ? part : "session");
	if (!v)
		return 0;
	*out = json_print(v, JSON_PRETTY_JS, len);
	return 0;
}

/* Decisions made here have no gate to be: only those that came from one are written. */
static const char maestro_flow_holds[] = "phases agents decisions";

/* .workflow/sessions/<id>/session.json, with runs/<id>/run.json beside it. */
static const char *const session_dirs[] = { "sessions", NULL };

FORMAT_DEFINE(MAESTRO_FLOW, maestro_flow,
	      .layout = { .session_file = "session.json", .session_dirs = session_dirs, .items_dir = "runs",
			  .item_file = "run.json" },
	      .side_files = maestro_flow_side_files);
