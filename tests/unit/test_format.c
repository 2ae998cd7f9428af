/*
 * test_format.c - the format table's names, the plain names a session's
 * folders may have, and maestro-flow's document in and out.
 */
#include "helpers.h"
#include "git-session/format.h"

static void test_names(void **unused)
{
	const struct format *f = format_find("maestro-flow");

	(void)unused;
	assert_non_null(f);
	assert_string_equal(format_name(f), "maestro-flow");
	assert_null(format_find("maestro_flow"));
	assert_ptr_equal(format_find("ccw"), format_get(FORMAT_CCW));
	assert_non_null(strstr(format_names(), "ccw, maestro-flow, copilot"));
	assert_non_null(strstr(format_choices(1), "maestro-flow"));
}

static void test_plain_name(void **unused)
{
	char longest[130];

	(void)unused;
	assert_true(format_plain_name("run-3d70181f7c87"));
	assert_true(format_plain_name("20260726-001-execute"));
	assert_true(format_plain_name("订单-1"));
	assert_false(format_plain_name(NULL));
	assert_false(format_plain_name(""));
	assert_false(format_plain_name("."));
	assert_false(format_plain_name(".."));
	assert_false(format_plain_name(".hidden"));
	assert_false(format_plain_name("a/b"));
	assert_false(format_plain_name("a\\b"));
	assert_false(format_plain_name("a\nb"));
	memset(longest, 'r', sizeof(longest));
	longest[128] = 0;
	assert_true(format_plain_name(longest));
	longest[128] = 'r';
	longest[129] = 0;
	assert_false(format_plain_name(longest));
}

static const char session_v3[] =
	"{\"schema_version\": \"session/3.0\", \"session_id\": \"s1\", \"objective\": \"o\","
	" \"definition_of_done\": \"\", \"status\": \"open\", \"orchestration_revision\": 2,"
	" \"activity_revision\": 2, \"chain\": [{\"step_id\": \"s-1\", \"command\": \"maestro-plan\","
	" \"args\": [\"a b\"], \"status\": \"running\", \"run_ids\": [\"r1\"], \"goal_ref\": null,"
	" \"decision_ref\": null, \"decision_refs\": [], \"stage\": null}], \"decisions\": [],"
	" \"active_run_ids\": [\"r1\"], \"artifacts_ref\": \"artifacts.json\", \"evidence_ref\": \"evidence.json\","
	" \"created_at\": \"2026-01-01T00:00:00.000Z\", \"updated_at\": \"2026-01-01T00:00:01.000Z\","
	" \"completed_at\": null, \"archived_at\": null}";

/* doc's session with runs (JSON text of the runs object), imported. */
static int import(cJSON **state, const char *runs, char **err)
{
	const struct format *f = format_find("maestro-flow");
	cJSON *doc = NULL, *files = NULL, *r = NULL;
	int active, error;

	assert_int_equal(format_parse(&doc, &f, session_v3, strlen(session_v3), err), 0);
	if (runs) {
		assert_int_equal(json_parse(&r, runs, strlen(runs), 1 << 20, err), 0);
		json_set(doc, "runs", r);
	}
	error = format_import(state, &files, &active, f, doc, NULL, 0, err);
	if (!error)
		assert_true(active);
	cJSON_Delete(doc);
	cJSON_Delete(files);
	return error;
}

static void test_round_trip(void **unused)
{
	const char *runs = "{\"r1\": {\"schema_version\": \"run/3.0\", \"run_id\": \"r1\", \"step_id\": \"s-1\","
			   " \"attempt\": 1, \"status\": \"running\", \"command\": \"maestro-plan\", \"args\": []}}";
	cJSON *state = NULL, *out = NULL, *src = NULL;
	const cJSON *p;
	char *err = NULL;

	(void)unused;
	assert_int_equal(import(&state, runs, &err), 0);
	p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(state, "phases"), 0);
	assert_string_equal(json_str(p, "name"), "maestro-plan a b");
	assert_string_equal(json_str(p, "status"), ST_IN_PROGRESS);
	assert_string_equal(json_str(p, "key"), "s-1");
	assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(state, "agents"), 0), "id"), "r1");
	assert_int_equal(format_export(&out, format_find("maestro-flow"), state, &err), 0);
	assert_int_equal(json_parse(&src, session_v3, strlen(session_v3), 1 << 20, &err), 0);
	assert_true(json_equal(cJSON_GetObjectItemCaseSensitive(out, "session"), src));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(out, "runs"), "r1"));
	cJSON_Delete(state);
	cJSON_Delete(out);
	cJSON_Delete(src);
}

static void test_hostile_runs(void **unused)
{
	const char *bad[] = { "{\"..\": {}}", "{\"a/b\": {}}", "{\"r1\": {\"run_id\": \"../x\"}}",
			      "{\"r1\": {\"run_id\": 7}}", "[]" };
	cJSON *state = NULL;

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char *err = NULL;

		assert_int_equal(import(&state, bad[i], &err), GS_ERROR);
		assert_non_null(err);
		assert_null(state);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_plain_name),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_hostile_runs),
	};

	json_global_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
