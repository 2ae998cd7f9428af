/*
 * claude.c - the Claude Code orchestrator's session file
 * (.claude/orchestrator-session.json, schema 1.0): goal, agents,
 * completed work, pending tasks, decisions. Pure: no I/O.
 */
#include "format-internal.h"

#include <stdlib.h>
#include <string.h>

/* The skill writes "complete"; real sessions also "completed", "active", "done". */
static const struct word statuses[] = {
	{ "in_progress", ST_IN_PROGRESS }, { "complete", ST_COMPLETED }, { "paused", ST_PAUSED },
	{ "aborted", ST_ABORTED }, { "completed", ST_COMPLETED }, { "active", ST_IN_PROGRESS },
	{ "done", ST_COMPLETED }, { NULL, NULL },
};
static const struct word agent_statuses[] = {
	{ "in_progress", ST_IN_PROGRESS }, { "complete", ST_COMPLETED }, { "failed", ST_FAILED },
	{ "completed", ST_COMPLETED }, { "done", ST_COMPLETED }, { "running", ST_IN_PROGRESS },
	{ NULL, NULL },
};

static int claude_parse(cJSON **doc, const char *buf, size_t len, char **err)
{
	return fmt_parse_object(doc, buf, len, 0, err);
}

static int claude_detect(const cJSON *doc)
{
	static const char *const keys[] = { "goal", "agents", "completed_work", "pending_tasks",
					    "decisions_made", "context_usage" };
	const char *v = json_str(doc, "schema_version");

	if (v && strcmp(v, "1.0"))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (cJSON_GetObjectItemCaseSensitive(doc, keys[i]))
			return 1;
	return 0;
}

static int claude_upgrade(cJSON *doc, char **err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");

	if (v && (!cJSON_IsString(v) || strcmp(v->valuestring, "1.0"))) {
		char *s = json_print(v, 0, NULL);
		*err = xstrfmt("unsupported schema_version %s (this reads 1.0)", s);
		free(s);
		return GS_ERROR;
	}
	return 0;
}

static void import_agents(cJSON *state, cJSON *doc)
{
	cJSON *agents = cJSON_GetObjectItemCaseSensitive(doc, "agents"), *c;

	if (!fmt_all_objects(agents))
		return;
	cJSON_ArrayForEach(c, agents) {
		cJSON *a = fmt_blank_entry(state_agent_fields);
		const char *st = fmt_word_in(agent_statuses, json_str(c, "status"), ST_IN_PROGRESS);

		for (const char *const *k = state_agent_fields; *k; k++)
			if (strcmp(*k, "status"))
				fmt_take(a, *k, c, *k);
		json_set_str(a, "status", st);
		cJSON_DeleteItemFromObjectCaseSensitive(c, "status");
		if (!json_str(a, "id"))
			json_set_str(a, "id", "");
		fmt_move_rest(a, c);
		cJSON_AddItemToArray(json_arr(state, "agents"), a);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "agents");
}

static cJSON *new_task(int id, const char *status)
{
	cJSON *t = fmt_blank_entry(state_task_fields);

	json_set_num(t, "id", id);
	json_set_str(t, "status", status);
	return t;
}

static void import_tasks(cJSON *state, cJSON *files, cJSON *doc)
{
	cJSON *done = cJSON_GetObjectItemCaseSensitive(doc, "completed_work"), *c;
	cJSON *pending = cJSON_GetObjectItemCaseSensitive(doc, "pending_tasks");
	cJSON *tasks = json_arr(state, "tasks");
	const char *key = "pending_tasks";
	int n = 0;

	if (fmt_all_strings(done)) {	/* the shape real sessions write: one line of text each */
		cJSON_ArrayForEach(c, done) {
			cJSON *t = new_task(++n, ST_DONE);
			json_set_str(t, "title", c->valuestring);
			cJSON_AddItemToArray(tasks, t);
		}
		if (done->child)
			json_set_str(json_obj(json_obj(state, "extra"), "claude_shape"), "completed_work", "text");
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "completed_work");
	} else if (fmt_all_objects(done)) {
		cJSON_ArrayForEach(c, done) {
			cJSON *t = new_task(++n, "done"), *f;

			fmt_take(t, "title", c, "task");
			cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(c, "files"))
				if (cJSON_IsString(f))
					json_set_str(json_set(files, f->valuestring, cJSON_CreateObject()),
						     "status", ST_MODIFIED);
			fmt_move_rest(t, c);
			cJSON_AddItemToArray(tasks, t);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "completed_work");
	}
	if (!pending && fmt_all_strings(cJSON_GetObjectItemCaseSensitive(doc, "next_actions"))) {
		key = "next_actions";	/* craft 1.3's name for what is still to do */
		pending = cJSON_GetObjectItemCaseSensitive(doc, key);
		json_set_str(json_obj(json_obj(state, "extra"), "claude_shape"), "pending", key);
	}
	if (fmt_all_strings(pending)) {
		cJSON_ArrayForEach(c, pending) {
			cJSON *t = new_task(++n, ST_PENDING);
			json_set_str(t, "title", c->valuestring);
			cJSON_AddItemToArray(tasks, t);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
	}
}

/* Entries that map key for key (decisions, errors): known keys, then the rest. */
static void import_list(cJSON *state, const char *as, cJSON *doc, const char *key,
			const char *const *keys)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, key), *c;

	if (!fmt_all_objects(list))
		return;
	cJSON_ArrayForEach(c, list) {
		cJSON *e = fmt_blank_entry(keys);

		for (const char *const *k = keys; *k; k++)
			fmt_take(e, *k, c, *k);
		fmt_move_rest(e, c);
		cJSON_AddItemToArray(json_arr(state, as), e);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
}

/*
 * started_at, paused_at, resumed_at, completed_at (real sessions), or
 * started (craft 1.3): the first is when it was created, the latest when
 * it was updated. They stay in the file's own keys too.
 */
static void import_dates(cJSON *state, const cJSON *doc)
{
	const char *latest = NULL;
	time_t t, last = 0;

	if (!json_str(state, "created") && json_str(doc, "started_at"))
		fmt_copy(state, "created", doc, "started_at");
	else if (!json_str(state, "created") && json_str(doc, "started"))
		fmt_copy(state, "created", doc, "started");
	for (const char *const *k = (const char *const[]){ "started", "started_at", "paused_at", "resumed_at",
							   "completed_at", NULL }; *k; k++)
		if (json_str(doc, *k) && gs_time_parse_iso(&t, json_str(doc, *k)) == 0 && (!latest || t > last)) {
			latest = json_str(doc, *k);
			last = t;
		}
	if (!json_str(state, "updated") && latest)
		json_set_str(state, "updated", latest);
}

/* files_modified (real sessions): the manifest's, as modified. */
static void import_files(cJSON *files, const cJSON *doc)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc, "files_modified"))
		if (cJSON_IsString(f) && !cJSON_GetObjectItemCaseSensitive(files, f->valuestring))
			json_set_str(json_set(files, f->valuestring, cJSON_CreateObject()), "status", ST_MODIFIED);
}

static int claude_to_state(cJSON *state, cJSON *files, int *active, const cJSON *in, char **err)
{
	cJSON *doc = cJSON_Duplicate(in, 1);
	const char *st = fmt_word_in(statuses, json_str(doc, "status"), NULL);

	(void)err;
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "schema_version");
	for (const char *const *k = (const char *const[]){ "session_id", "created", "updated", "goal", "mode",
							   NULL }; *k; k++)
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, *k)))
			fmt_take(state, *k, doc, *k);
	if (st)
		json_set_str(state, "status", st);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "status");	/* another word: the patch keeps it */
	import_dates(state, doc);
	import_files(files, doc);
	import_agents(state, doc);
	import_tasks(state, files, doc);
	import_list(state, "decisions", doc, "decisions_made", state_decision_fields);
	import_list(state, "errors", doc, "errors", state_error_fields);
	fmt_rest_to_extra(state, format_claude.name, doc);
	*active = 1;
	cJSON_Delete(doc);
	return 0;
}

static void export_agents(cJSON *doc, const cJSON *state)
{
	static const char *const keys[] = { "id", "type", "task", "status", "started", "completed",
					    "progress", "result_summary", NULL };
	cJSON *out = json_arr(doc, "agents");
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		cJSON *a = cJSON_CreateObject();

		for (const char *const *k = keys; *k; k++)
			json_set(a, *k, json_dup_or_null(c, *k));
		json_set_str(a, "status", fmt_word_out(agent_statuses, json_str(c, "status")));
		fmt_copy_rest(a, c, state_agent_fields);
		cJSON_AddItemToArray(out, a);
	}
}

/* Tasks done as completed_work (objects, or a line of text each as the file had them), the rest as pending. */
static void export_tasks(cJSON *doc, const cJSON *state)
{
	const cJSON *shape = fmt_from_extra(state, "claude_shape"), *t;
	const char *text = json_str(shape, "completed_work");
	cJSON *done = json_arr(doc, "completed_work");
	cJSON *pending = json_arr(doc, json_str(shape, "pending") ? json_str(shape, "pending") : "pending_tasks");

	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(state, "tasks")) {
		if (json_str(t, "status") && !strcmp(json_str(t, "status"), "done") && text) {
			cJSON_AddItemToArray(done, json_dup_or_null(t, "title"));
		} else if (json_str(t, "status") && !strcmp(json_str(t, "status"), "done")) {
			cJSON *w = cJSON_CreateObject();

			json_set(w, "task", json_dup_or_null(t, "title"));
			fmt_copy_rest(w, t, state_task_fields);
			cJSON_AddItemToArray(done, w);
		} else {
			cJSON_AddItemToArray(pending, json_dup_or_null(t, "title"));
		}
	}
}

static cJSON *claude_from_state(const cJSON *state)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(state, "tokens");
	const cJSON *extra = fmt_from_extra(state, format_claude.name), *proj = cJSON_GetObjectItemCaseSensitive(state, "project");
	cJSON *doc = cJSON_CreateObject(), *p, *cu;
	double used = state_tokens_used(t), max = json_num(t, "max", STATE_DEFAULT_BUDGET);

	json_set_str(doc, "schema_version", "1.0");
	fmt_copy(doc, "session_id", state, "session_id");
	fmt_copy(doc, "created", state, "created");
	fmt_copy(doc, "updated", state, "updated");
	p = json_obj(doc, "project");
	json_set(p, "name", json_dup_or_null(proj, "name"));
	json_set(p, "path", json_dup_or_null(proj, "path"));
	json_set(p, "git_branch", json_dup_or_null(proj, "branch"));
	json_set(doc, "goal", json_dup_or_null(state, "goal"));
	fmt_copy(doc, "mode", state, "mode");
	json_set_str(doc, "status", fmt_word_out(statuses, json_str(state, "status")));
	export_agents(doc, state);
	export_tasks(doc, state);
	json_set(doc, "decisions_made", fmt_entries(cJSON_GetObjectItemCaseSensitive(state, "decisions"),
						    (const char *const[]){ "decision", "rationale", "timestamp", NULL }));
	cu = json_obj(doc, "context_usage");
	json_set_num(cu, "estimated_tokens", used);
	json_set_num(cu, "percentage", max > 0 ? (double)(long long)(used * 100 / max) : 0);
	json_set(cu, "last_compression", cJSON_CreateNull());
	json_set(doc, "errors", fmt_entries(cJSON_GetObjectItemCaseSensitive(state, "errors"), (const char *const[]){ NULL }));
	fmt_copy_rest(doc, extra, (const char *const[]){ NULL });	/* never over what the model says */
	return doc;
}

static int claude_print(char **out, size_t *len, const cJSON *doc, const char *part)
{
	return part ? 0 : fmt_print_json(out, len, doc);
}

/* The parts of the session the export writes (format_lost names the others). */
static const char claude_holds[] = "agents tasks decisions errors tokens";

FORMAT_DEFINE(CLAUDE, claude);
