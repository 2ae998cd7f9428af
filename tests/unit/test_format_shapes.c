/*
 * test_format_shapes.c - CCW, craft and BMAD documents in the shapes their
 * users write: read whole into the model, written back equal, and what the
 * session changes since written in the document's own spelling.
 */
#include "helpers.h"
#include "git-session/format.h"

/* text as a format's document, imported; *doc is the document. */
static cJSON *import(cJSON **doc, const char *name, const char *text)
{
	const struct format *f = format_find(name);
	cJSON *state = NULL, *files = NULL;
	char *err = NULL;
	int active;

	if (format_parse(doc, &f, text, strlen(text), &err) < 0)
		fail_msg("'%s' refused: %s", text, err);
	if (format_import(&state, &files, &active, f, *doc, NULL, 0, &err) < 0)
		fail_msg("not imported: %s", err);
	cJSON_Delete(files);
	return state;
}

static cJSON *export(const char *name, const cJSON *state)
{
	cJSON *doc = NULL;
	char *err = NULL;

	if (format_export(&doc, format_find(name), state, &err) < 0)
		fail_msg("not exported: %s", err);
	return doc;
}

/* A ccw document's workflow-session.json (its registry line aside). */
static const cJSON *session(const cJSON *doc)
{
	return cJSON_GetObjectItemCaseSensitive(doc, "session");
}

/* The names and statuses of the state's phases, "name=status ...". */
static char *phases(const cJSON *state)
{
	struct sbuf sb = SBUF_INIT;
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases"))
		sbuf_addf(&sb, "%s%s=%s", sb.len ? " " : "", json_str(p, "name"), json_str(p, "status"));
	return sbuf_detach(&sb, NULL);
}

static void test_ccw_phases_as_status_words(void **unused)
{
	static const char text[] = "{\"session_id\": \"WFS-a\", \"status\": \"completed\", \"task_description\": "
				   "{\"goal\": \"document it\", \"scope\": \"docs/\"}, \"phases\": {\"discovery\": "
				   "\"completed\", \"conflicts\": \"failed\", \"synthesis\": \"synthesis_completed\", "
				   "\"tasks\": \"pending\"}}";
	cJSON *doc, *state = import(&doc, "ccw", text), *out;
	char *names = phases(state);

	(void)unused;
	assert_string_equal(names, "discovery=completed conflicts=failed synthesis=completed tasks=pending");
	assert_string_equal(json_str(state, "goal"), "document it");
	assert_string_equal(json_str(state, "status"), "completed");
	out = export("ccw", state);
	assert_true(json_equal(session(out), session(doc)));
	free(names);
	cJSON_Delete(out);
	cJSON_Delete(state);
	cJSON_Delete(doc);
}

/* current_phase as the file spells it: a number stays a number, a word its word, after a move too. */
static void test_ccw_current_phase_as_written(void **unused)
{
	static const struct { const char *current, *names, *then; } cases[] = {
		{ "3", "\"a\": {\"status\": \"completed\"}, \"b\": {\"status\": \"completed\"}, "
		       "\"c\": {\"status\": \"in_progress\"}, \"d\": {\"status\": \"pending\"}", "4" },
		{ "\"IMPLEMENT\"", "\"plan\": {\"status\": \"completed\"}, \"implement\": {\"status\": \"in_progress\"}, "
				   "\"review\": {\"status\": \"pending\"}", "\"REVIEW\"" },
		{ "\"INIT\"", "\"INIT\": {\"status\": \"completed\"}, \"BRAINSTORM\": {\"status\": \"pending\"}, "
			      "\"PLAN\": {\"status\": \"pending\"}", "\"BRAINSTORM\"" },
		{ "\"execute\"", "\"plan\": \"completed\", \"execute\": \"in_progress\", \"review\": \"pending\"",
		  "\"review\"" },
	};

	(void)unused;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = xstrfmt("{\"session_id\": \"WFS-c\", \"status\": \"active\", \"current_phase\": %s, "
				     "\"phases\": {%s}}", cases[i].current, cases[i].names);
		cJSON *doc, *state = import(&doc, "ccw", text), *out = export("ccw", state);
		char *cur;

		assert_true(json_equal(session(out), session(doc)));
		cJSON_Delete(out);
		/* the session moves on: the export names the next phase as the file would */
		json_set_num(state, "current_phase", json_num(state, "current_phase", 0) + 1);
		out = export("ccw", state);
		cur = json_print(cJSON_GetObjectItemCaseSensitive(session(out), "current_phase"), 0, NULL);
		assert_string_equal(cur, cases[i].then);
		free(cur);
		free(text);
		cJSON_Delete(out);
		cJSON_Delete(state);
		cJSON_Delete(doc);
	}
}

/* Phases as a list of named entries stay a list, a phase added here at its end. */
static void test_ccw_phases_as_a_list(void **unused)
{
	static const char text[] = "{\"session_id\": \"WFS-l\", \"status\": \"active\", \"current_phase\": \"plan\", "
				   "\"phases\": [{\"name\": \"analyze\", \"status\": \"done\", \"id\": \"P1\"}, "
				   "{\"name\": \"plan\", \"status\": \"in_progress\", \"notes\": [\"x\"]}]}";
	cJSON *doc, *state = import(&doc, "ccw", text), *out = export("ccw", state), *p;
	char *names = phases(state), *list;

	(void)unused;
	assert_string_equal(names, "analyze=completed plan=in_progress");
	assert_int_equal(json_num(state, "current_phase", 0), 2);
	assert_true(json_equal(session(out), session(doc)));
	cJSON_Delete(out);
	p = cJSON_CreateObject();
	json_set_num(p, "id", 3);
	json_set_str(p, "name", "review");
	json_set_str(p, "status", "pending");
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(state, "phases"), p);
	out = export("ccw", state);
	list = json_print(cJSON_GetObjectItemCaseSensitive(session(out), "phases"), 0, NULL);
	assert_string_equal(list, "[{\"name\":\"analyze\",\"status\":\"done\",\"id\":\"P1\"},"
				  "{\"name\":\"plan\",\"status\":\"in_progress\",\"notes\":[\"x\"]},"
				  "{\"name\":\"review\",\"status\":\"pending\"}]");
	free(names);
	free(list);
	cJSON_Delete(out);
	cJSON_Delete(state);
	cJSON_Delete(doc);
}

/* Phases without a name, or with one already taken, keep a key of their own in the map. */
static void test_ccw_phase_keys(void **unused)
{
	static const char text[] = "{\"session_id\": \"WFS-k\", \"status\": \"active\", \"current_phase\": \"c\", "
				   "\"phases\": {\"a\": \"completed\", \"b\": \"completed\", \"c\": \"in_progress\"}}";
	cJSON *doc, *state = import(&doc, "ccw", text), *out, *ph = cJSON_GetObjectItemCaseSensitive(state, "phases");
	char *keys;

	(void)unused;
	json_set_str(cJSON_GetArrayItem(ph, 1), "name", "a");
	json_set_str(cJSON_GetArrayItem(ph, 2), "name", NULL);
	out = export("ccw", state);
	keys = json_print(cJSON_GetObjectItemCaseSensitive(session(out), "phases"), 0, NULL);
	assert_string_equal(keys, "{\"a\":\"completed\",\"a (2)\":\"completed\",\"phase 3\":\"in_progress\"}");
	assert_string_equal(json_str(session(out), "current_phase"), "phase 3");
	free(keys);
	cJSON_Delete(out);
	cJSON_Delete(state);
	cJSON_Delete(doc);
}

/* The goal: goal, project, a task description, the topic; what is not the model's stays in the document. */
static void test_ccw_goal(void **unused)
{
	static const struct { const char *fields, *goal; } cases[] = {
		{ "\"goal\": \"ship beta\", \"scope\": \"P6-P9\"", "ship beta" },
		{ "\"project\": \"notes search\", \"description\": \"FTS5\"", "notes search" },
		{ "\"task_description\": \"converge the editor\", \"summary\": {\"goal\": \"other\"}", "converge the editor" },
		{ "\"description\": {\"GOAL\": \"TDD plan\", \"SCOPE\": \"kg\"}", "TDD plan" },
		{ "\"summary\": {\"goal\": \"stabilize\"}", "stabilize" },
		{ "\"topic\": \"图谱问答\", \"沉淀位置\": \"docs/\"", "图谱问答" },
	};

	(void)unused;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = xstrfmt("{\"session_id\": \"WFS-g\", \"status\": \"planning\", %s}", cases[i].fields);
		cJSON *doc, *state = import(&doc, "ccw", text), *out = export("ccw", state);

		assert_string_equal(json_str(state, "goal"), cases[i].goal);
		assert_true(json_equal(session(out), session(doc)));
		free(text);
		cJSON_Delete(out);
		cJSON_Delete(state);
		cJSON_Delete(doc);
	}
}

/* A file that is not JSON: refused, the line named first. */
static void test_not_json_names_its_line(void **unused)
{
	static const char text[] = "{\n  \"session_id\": \"WFS-x\",\n  \"scope\": {\n    \"total_lines\": 9,166\n  }\n}\n";
	const struct format *f = NULL;
	cJSON *doc = NULL;
	char *err = NULL;

	(void)unused;
	assert_int_equal(format_parse(&doc, &f, text, strlen(text), &err), GS_ERROR);
	assert_non_null(strstr(err, "4: invalid JSON"));
	assert_ptr_equal(strstr(err, "4: "), err);
	free(err);
	f = format_find("ccw");
	assert_int_equal(format_parse(&doc, &f, text, strlen(text), &err), GS_ERROR);
	assert_ptr_equal(strstr(err, "4: invalid JSON"), err);
	free(err);
}

/* BMAD's reader defaults are the model's; the file gets back only what it had. */
static void test_bmad_defaults_not_written(void **unused)
{
	static const char text[] = "session_id: \"ENG1-A-B\"\nstatus: \"active\"\ntokens:\n  initial: 0\n  current: 10\n"
				   "  saved: 5\ncontext_summary: \"\"\n";
	cJSON *doc, *state = import(&doc, "bmad", text), *out = export("bmad", state);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(state, "tokens");

	(void)unused;
	assert_int_equal(json_num(t, "max", 0), 150000);
	assert_int_equal(json_num(t, "peak", -1), 0);
	assert_true(json_equal(out, doc));
	cJSON_Delete(out);
	cJSON_Delete(state);
	cJSON_Delete(doc);
}

/* craft 1.3: started is the start, next_actions the tasks still to do, work done text stays text. */
static void test_craft_next_actions(void **unused)
{
	static const char text[] = "{\"session_id\": \"s-1\", \"started\": \"2025-12-27T10:30:00\", \"goal\": \"g\", "
				   "\"agents\": [], \"completed_work\": [\"\xe2\x9c\x85 one\"], "
				   "\"next_actions\": [\"two\", \"three\"]}";
	cJSON *doc, *state = import(&doc, "claude", text), *out = export("claude", state), *t;
	char *work;

	(void)unused;
	assert_string_equal(json_str(state, "created"), "2025-12-27T10:30:00");
	assert_true(json_equal(out, doc));
	cJSON_Delete(out);
	t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(state, "tasks"), 1);
	assert_string_equal(json_str(t, "title"), "two");
	json_set_str(t, "status", "done");
	out = export("claude", state);
	work = json_print(cJSON_GetObjectItemCaseSensitive(out, "completed_work"), 0, NULL);
	assert_string_equal(work, "[\"\xe2\x9c\x85 one\",\"two\"]");
	assert_null(cJSON_GetObjectItemCaseSensitive(out, "pending_tasks"));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(out, "next_actions")), 1);
	free(work);
	cJSON_Delete(out);
	cJSON_Delete(state);
	cJSON_Delete(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ccw_phases_as_status_words),
		cmocka_unit_test(test_ccw_current_phase_as_written),
		cmocka_unit_test(test_ccw_phases_as_a_list),
		cmocka_unit_test(test_ccw_phase_keys),
		cmocka_unit_test(test_ccw_goal),
		cmocka_unit_test(test_not_json_names_its_line),
		cmocka_unit_test(test_bmad_defaults_not_written),
		cmocka_unit_test(test_craft_next_actions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
