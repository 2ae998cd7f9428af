/*
 * test_yaml.c - YAML in and out: core-schema scalars, what is refused
 * (aliases, duplicate keys, deep nesting, non-scalar keys, size), and a
 * round trip through the emitter.
 */
#include "helpers.h"
#include "git-session/yaml.h"

static char *as_json(const char *yaml)
{
	cJSON *v = NULL;
	char *err = NULL, *text;

	if (yaml_parse(&v, yaml, strlen(yaml), 1 << 20, &err) < 0)
		fail_msg("'%s' was refused: %s", yaml, err);
	text = json_print(v, 0, NULL);
	cJSON_Delete(v);
	return text;
}

static void test_core_schema_scalars(void **unused)
{
	static const struct { const char *yaml, *json; } cases[] = {
		{ "a: ~", "{\"a\":null}" },
		{ "a:", "{\"a\":null}" },
		{ "a: Null", "{\"a\":null}" },
		{ "a: True", "{\"a\":true}" },
		{ "a: FALSE", "{\"a\":false}" },
		{ "a: yes", "{\"a\":\"yes\"}" },	/* YAML 1.1's booleans are strings in 1.2 */
		{ "a: 12", "{\"a\":12}" },
		{ "a: -1.5e3", "{\"a\":-1500}" },
		{ "a: 0x1f", "{\"a\":31}" },
		{ "a: 0o17", "{\"a\":15}" },
		{ "a: .5", "{\"a\":0.5}" },
		{ "a: 1_000", "{\"a\":\"1_000\"}" },
		{ "a: inf", "{\"a\":\"inf\"}" },
		{ "a: 0x1p3", "{\"a\":\"0x1p3\"}" },
		{ "a: '12'", "{\"a\":\"12\"}" },
		{ "a: \"true\"", "{\"a\":\"true\"}" },
		{ "a: 2025-01-02", "{\"a\":\"2025-01-02\"}" },
		{ "a: [1, b, {c: d}]", "{\"a\":[1,\"b\",{\"c\":\"d\"}]}" },
		{ "- x\n- 2", "[\"x\",2]" },
		{ "a: !!int \"12\"", "{\"a\":12}" },	/* a core tag says what the text is */
		{ "a: !!str 12", "{\"a\":\"12\"}" },
		{ "a: ! 12", "{\"a\":\"12\"}" },
		{ "a: !!map {b: !!seq [1]}", "{\"a\":{\"b\":[1]}}" },
		{ "a: \"<<\"", "{\"a\":\"<<\"}" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = as_json(cases[i].yaml);

		if (strcmp(got, cases[i].json))
			fail_msg("'%s' reads as %s, not %s", cases[i].yaml, got, cases[i].json);
		free(got);
	}
}

static void test_refused(void **unused)
{
	static const struct { const char *yaml, *why; } cases[] = {
		{ "a: &x 1\nb: *x", "alias" },
		{ "a: 1\na: 2", "2: the key 'a' appears twice" },
		{ "a: 1\n...\n  - b: 2\n", "2: a '...' line ends the document here" },
		{ "a: 1\n...\n---\nb: 2\n", "2: a '...' line" },
		{ "a: 1\n---\nb: 2\n", "2: a second document" },
		{ "a:\n  b: 1\n\tc: 2\n", "3: a tab" },
		{ "? [a, b]\n: 1", "key" },
		{ "a: [1, 2", "" },
		{ "a: b: c", "" },
		{ "a: !custom b", "1: the tag !custom is not read" },
		{ "a: !!binary aGVsbG8=", "the tag !!binary" },
		{ "a: !!set {b: null}", "the tag !!set" },
		{ "a: !!timestamp 2026-01-01", "the tag !!timestamp" },
		{ "a:\n  <<: {b: 1}\n  c: 2", "2: a merge key" },
		{ "a: \"x\\0y\"", "1: a NUL character" },
	};
	char deep[4096] = "";
	cJSON *v = NULL;
	char *err = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (yaml_parse(&v, cases[i].yaml, strlen(cases[i].yaml), 1 << 20, &err) == 0)
			fail_msg("'%s' was accepted", cases[i].yaml);
		assert_null(v);
		assert_non_null(err);
		if (!strstr(err, cases[i].why))
			fail_msg("'%s': '%s' does not say '%s'", cases[i].yaml, err, cases[i].why);
		free(err);
		err = NULL;
	}
	for (int i = 0; i < JSON_MAX_DEPTH + 5; i++)
		strcat(deep, "[");
	assert_int_not_equal(yaml_parse(&v, deep, strlen(deep), 1 << 20, &err), 0);
	assert_non_null(strstr(err, "deep"));
	free(err);
	assert_int_not_equal(yaml_parse(&v, "a: 1", 4, 3, &err), 0);
	free(err);
}

static void test_emit_round_trip(void **unused)
{
	const char *text = "{\"s\": \"true\", \"n\": 12, \"z\": null, \"b\": false, \"l\": [\"- x\", \"a: b\", \"\"],"
			   " \"u\": \"caf\\u00e9 \\n two\", \"num\": \"0x10\","
			   " \"lines\": [\"a\\nb\\n\", \"  lead\\nx\", \"trail \\ny\", \"\\n\\n\", \"t\\tab\\n\\n\\n\","
			   " \"cr\\r\\nlf\", \"# not\\n- a list\", \"end\\n \", \"x\\n\\u2028y\"]}";
	cJSON *v = NULL, *back = NULL;
	char *err = NULL, *yaml = NULL, *a, *b;
	size_t len;

	assert_int_equal(json_parse(&v, text, strlen(text), 1 << 20, &err), 0);
	assert_int_equal(yaml_emit(&yaml, &len, v, &err), 0);
	assert_int_equal(strlen(yaml), len);
	if (yaml_parse(&back, yaml, len, 1 << 20, &err) < 0)
		fail_msg("the emitted YAML does not read back: %s\n%s", err, yaml);
	a = json_print(v, 0, NULL);
	b = json_print(back, 0, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(yaml);
	cJSON_Delete(v);
	cJSON_Delete(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_schema_scalars),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_emit_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
