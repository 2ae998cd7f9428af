/*
 * test_json.c - guarded parsing, stable printing, round trips; and the
 * small helpers of util.c they rest on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "git-session/json.h"
#include "git-session/util.h"

static void refused(const char *text, size_t len, const char *want)
{
	cJSON *v = NULL;
	char *err = NULL;

	assert_int_not_equal(json_parse(&v, text, len, 1 << 20, &err), 0);
	assert_null(v);
	if (!err || !strstr(err, want))
		fail_msg("'%s' does not say '%s'", err ? err : "(null)", want);
	free(err);
}

static void test_guards(void **unused)
{
	char *deep = xmalloc(20001), digits[80];

	memset(deep, '[', 10000);
	memset(deep + 10000, ']', 10000);
	deep[20000] = '\0';
	refused(deep, 20000, "nested deeper");
	free(deep);
	memset(digits, '9', 64);
	digits[64] = '\0';
	refused(digits, 64, "number longer");
	refused("{\"a\": \"\xff\"}", 10, "UTF-8");
	refused("{\"a\": 1}\0xx", 11, "UTF-8");	/* NUL byte inside the input */
	refused("{\"a\": ", 6, "invalid JSON");
	refused("{\"a\": 1} trailing", 17, "invalid JSON");
	refused("{\"a\": 1, \"b\": 2, \"a\": 3}", 24, "the key 'a' appears twice");
	refused("[{\"x\": {\"k\": 1, \"k\": 1}}]", 25, "the key 'k' appears twice");
	{
		cJSON *v = NULL;
		char *err = NULL;
		assert_int_not_equal(json_parse(&v, "[1, 2, 3]", 9, 4, &err), 0);
		assert_non_null(strstr(err, "larger than"));
		free(err);
		/* brackets inside strings do not count as depth */
		assert_int_equal(json_parse(&v, "[\"[[[[[[\"]", 10, 100, &err), 0);
		cJSON_Delete(v);
	}
}

static void test_not_nul_terminated(void **unused)
{
	char buf[8] = { '[', '1', ']', 'X', 'X', 'X', 'X', 'X' };	/* no NUL */
	cJSON *v = NULL;
	char *err = NULL;

	assert_int_equal(json_parse(&v, buf, 3, 100, &err), 0);
	assert_int_equal(cJSON_GetArraySize(v), 1);
	cJSON_Delete(v);
}

static void test_print_pretty(void **unused)
{
	const char *in = "{\"b\":1,\"a\":[true,null,\"x\\u0001\\n\\\"\"],\"e\":{},\"f\":[],\"g\":1.5,\"h\":-3}";
	cJSON *v = NULL;
	char *err = NULL, *out;

	assert_int_equal(json_parse(&v, in, strlen(in), 1000, &err), 0);
	out = json_print(v, 1, NULL);
	assert_string_equal(out,
		"{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    \"x\\u0001\\n\\\"\"\n  ],\n"
		"  \"e\": {},\n  \"f\": [],\n  \"g\": 1.5,\n  \"h\": -3\n}\n");
	free(out);
	out = json_print(v, 0, NULL);
	assert_string_equal(out, "{\"b\":1,\"a\":[true,null,\"x\\u0001\\n\\\"\"],\"e\":{},\"f\":[],\"g\":1.5,\"h\":-3}");
	free(out);
	cJSON_Delete(v);
}

/* As JavaScript's JSON.stringify(v, null, 2): no object kept on one line (Maestro's front matter). */
static void test_print_js(void **unused)
{
	cJSON *v = cJSON_Parse("{\"a\":{\"b\":1},\"c\":[],\"d\":[\"x\"],\"e\":{}}");
	char *s;

	(void)unused;
	s = json_print(v, JSON_PRETTY_JS, NULL);
	assert_string_equal(s, "{\n  \"a\": {\n    \"b\": 1\n  },\n  \"c\": [],\n  \"d\": [\n    \"x\"\n  ],\n"
			       "  \"e\": {}\n}\n");
	free(s);
	s = json_print(v, JSON_PRETTY, NULL);
	assert_non_null(strstr(s, "\"a\": {\"b\": 1}"));
	free(s);
	cJSON_Delete(v);
}

static void test_round_trip(void **unused)
{
	const char *in = "{\"s\": \"caf\xc3\xa9 \xf0\x9f\x98\x80\", \"n\": 9007199254740991, \"d\": 0.1,"
			 " \"big\": 1e300, \"neg\": -0.000001, \"nested\": {\"a\": [[1], {\"b\": null}]}}";
	cJSON *v = NULL, *w = NULL;
	char *err = NULL, *once, *twice;

	assert_int_equal(json_parse(&v, in, strlen(in), 1000, &err), 0);
	once = json_print(v, 1, NULL);
	assert_int_equal(json_parse(&w, once, strlen(once), 1000, &err), 0);
	twice = json_print(w, 1, NULL);
	assert_string_equal(once, twice);
	assert_true(cJSON_Compare(v, w, 1));
	assert_non_null(strstr(once, "9007199254740991"));
	free(once);
	free(twice);
	cJSON_Delete(v);
	cJSON_Delete(w);
}

/* A number is kept iff it prints back as the value written: no silent change. */
static void test_numbers(void **unused)
{
	static const char *const kept[] = { "1.0", "1e2", "1E+2", "0.5", "-3", "1e-5", "0", "0.0", "0e9", "-1.50",
					    "9007199254740992", "9007199254740991", "0.1", "0.30000000000000004",
					    "1e300", "1.7976931348623157e308", "5e-324", "1152921504606847000",
					    "12.5e-3", "0.0000001", "100000000000000000000000",
					    "4.94065645841247e-324" /* a subnormal as printed before */ };
	static const char *const changed[] = { "9007199254740993", "9007199254740993.0", "9.007199254740993e15",
					       "0.1234567890123456789", "-0", "-0.0", "-0e5",
					       "1152921504606846976", "123456789012345678901234567890",
					       "0.10000000000000000555", "4.9406564584124654e-324", "2.5e-324" };
	static const char *const range[] = { "1e-400", "2e-324", "1e400", "-1e309" };
	cJSON *v = NULL;
	char *err = NULL, text[64];

	for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++) {
		if (json_parse(&v, kept[i], strlen(kept[i]), 100, &err))
			fail_msg("%s refused: %s", kept[i], err);
		cJSON_Delete(v);
	}
	for (size_t i = 0; i < sizeof(changed) / sizeof(*changed); i++)
		refused(changed[i], strlen(changed[i]), "not kept exactly");
	for (size_t i = 0; i < sizeof(range) / sizeof(*range); i++)
		refused(range[i], strlen(range[i]), "out of the range");
	refused("[1, {\"a\": 0.1234567890123456789}]", 33, "would read back as 0.12345678901234568");

	/* whatever the printer writes, the parser takes back as the same double */
	srand(7);
	for (int i = 0; i < 20000; i++) {
		uint64_t bits = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
		double d;

		memcpy(&d, &bits, sizeof(d));
		if (!isfinite(d) || d == 0)
			continue;
		json_number_text(text, sizeof(text), d);
		if (json_parse(&v, text, strlen(text), 100, &err) || v->valuedouble != d)
			fail_msg("%s (bits %llx) does not read back: %s", text, (unsigned long long)bits,
				 err ? err : "another value");
		assert_true(json_number_exact(text, strlen(text), d));
		cJSON_Delete(v);
	}
}

static void test_set_keeps_position(void **unused)
{
	cJSON *o = cJSON_CreateObject();
	char *out;

	json_set_num(o, "a", 1);
	json_set_num(o, "b", 2);
	json_set_str(o, "a", "one");
	json_set_str(o, "c", NULL);
	out = json_print(o, 0, NULL);
	assert_string_equal(out, "{\"a\":\"one\",\"b\":2,\"c\":null}");
	free(out);
	assert_string_equal(json_str(o, "a"), "one");
	assert_null(json_str(o, "b"));
	assert_int_equal((int)json_num(o, "b", 0), 2);
	assert_int_equal((int)json_num(o, "zz", 7), 7);
	assert_true(cJSON_IsArray(json_arr(o, "b")));	/* wrong type is replaced */
	cJSON_Delete(o);
}

static void test_time(void **unused)
{
	char buf[32];
	time_t t;

	gs_time_iso(buf, sizeof(buf), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
	assert_int_equal(gs_time_parse_iso(&t, "2025-11-21T10:00:00Z"), 0);
	assert_int_equal((long)t, 1763719200L);
	assert_int_equal(gs_time_parse_iso(&t, "2025-11-21T12:00:00+02:00"), 0);
	assert_int_equal((long)t, 1763719200L);
	assert_int_equal(gs_time_parse_iso(&t, "2025-11-21 05:00:00.123-05:00"), 0);
	assert_int_equal((long)t, 1763719200L);
	assert_int_equal(gs_time_parse_iso(&t, "2025-11-21"), 0);
	assert_int_not_equal(gs_time_parse_iso(&t, "2025-13-01T00:00:00Z"), 0);
	assert_int_not_equal(gs_time_parse_iso(&t, "yesterday"), 0);
	assert_int_not_equal(gs_time_parse_iso(&t, "2025-11-21T10:00:00Zjunk"), 0);
}

static void test_utf8(void **unused)
{
	assert_true(gs_utf8_valid("plain", 5));
	assert_true(gs_utf8_valid("caf\xc3\xa9", 5));
	assert_true(gs_utf8_valid("\xf0\x9f\x98\x80", 4));
	assert_false(gs_utf8_valid("\xc3", 1));		/* truncated */
	assert_false(gs_utf8_valid("\xc0\xaf", 2));	/* overlong '/' */
	assert_false(gs_utf8_valid("\xed\xa0\x80", 3));	/* surrogate */
	assert_false(gs_utf8_valid("\xf4\x90\x80\x80", 4));	/* beyond U+10FFFF */
	assert_false(gs_utf8_valid("a\0b", 3));
}

static void test_sbuf(void **unused)
{
	struct sbuf sb = SBUF_INIT;
	char *s;
	size_t len;

	for (int i = 0; i < 1000; i++)
		sbuf_addf(&sb, "%d,", i);
	assert_int_equal(sb.len, strlen(sb.buf));
	s = sbuf_detach(&sb, &len);
	assert_int_equal(len, strlen(s));
	assert_null(sb.buf);
	free(s);
	s = sbuf_detach(&sb, NULL);	/* an empty buffer detaches as "" */
	assert_string_equal(s, "");
	free(s);
}

static void scan(const char *text, int want, const char *a, const char *b)
{
	static const char *const keys[] = { "a", "b" };
	char *v[2];

	assert_int_equal(json_scan_top(v, text, strlen(text), keys, 2), want);
	if (a)
		assert_string_equal(v[0], a);
	else
		assert_null(v[0]);
	if (b)
		assert_string_equal(v[1], b);
	else
		assert_null(v[1]);
	free(v[0]);
	free(v[1]);
}

static void test_count_members(void **unused)
{
	const char *texts[] = { "{}", " {\"a\": 1}\n", "{\"a\": {\"b\": [1, \"}\"]}, \"c\": null}", "[1]", "{\"a\": 1", "" };
	const int want[] = { 0, 1, 2, GS_ERROR, GS_ERROR, GS_ERROR };

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		assert_int_equal(json_count_members(texts[i], strlen(texts[i])), want[i]);
}

static void test_scan_top(void **unused)
{
	scan("{\"a\": \"x\", \"b\": \"y\"}", 0, "x", "y");
	/* nested values, and keys inside them, are skipped, not matched */
	scan("{\"n\": {\"a\": \"no\", \"l\": [1, \"]}\", {}]}, \"b\": \"y\", \"a\": \"x\"}", 0, "x", "y");
	/* escapes are undone; non-strings and absent keys give NULL */
	scan("{\"a\": \"t\\u00e9\\\"q\", \"b\": 12}", 0, "t\xc3\xa9\"q", NULL);
	scan("{\"a\": null}", 0, NULL, NULL);
	scan(" {\n}\n", 0, NULL, NULL);
	/* the first value wins, as cJSON's lookup does */
	scan("{\"a\": \"1\", \"a\": \"2\", \"b\": \"3\"}", 0, "1", "3");
	/* it stops once everything is found: what follows is not read */
	scan("{\"a\": \"x\", \"b\": \"y\", garbage", 0, "x", "y");
	scan("[\"a\"]", GS_ERROR, NULL, NULL);
	scan("{\"a\": \"x\"", GS_ERROR, "x", NULL);
	scan("{\"a\" \"x\"}", GS_ERROR, NULL, NULL);
	scan("{\"a\": \"unterminated}", GS_ERROR, NULL, NULL);
	scan("{\"a\": [1, 2}", GS_ERROR, NULL, NULL);
	scan("", GS_ERROR, NULL, NULL);
}

/* json_equal agrees with cJSON_Compare (exact, and slow on deep objects); members found by name. */
static void test_equal(void **unused)
{
	static const char *const texts[] = {
		"{}", "[]", "null", "0", "1", "1.5", "\"1\"", "\"\"", "true", "false",
		"{\"a\": 1, \"b\": [1, 2]}", "{\"b\": [1, 2], \"a\": 1}", "{\"b\": [2, 1], \"a\": 1}",
		"{\"a\": 1}", "{\"a\": 1, \"b\": null}", "{\"a\": {\"x\": {\"y\": []}}}",
		"{\"a\": {\"x\": {\"y\": [null]}}}", "[1, 2]", "[1, 2, 3]", "[{\"a\": 1}]", "[{\"A\": 1}]",
	};
	cJSON *v[ARRAY_SIZE(texts)];
	const cJSON **sorted;
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		assert_non_null(v[i] = cJSON_Parse(texts[i]));
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		for (size_t j = 0; j < ARRAY_SIZE(texts); j++)
			if (json_equal(v[i], v[j]) != cJSON_Compare(v[i], v[j], 1))
				fail_msg("json_equal(%s, %s) is %d", texts[i], texts[j], json_equal(v[i], v[j]));
	assert_true(json_equal(NULL, NULL));
	assert_false(json_equal(v[0], NULL));
	sorted = json_members_sorted(v[14], &n);
	assert_int_equal(n, 2);
	assert_ptr_equal(json_member_find(sorted, n, "b"), cJSON_GetObjectItemCaseSensitive(v[14], "b"));
	assert_ptr_equal(json_member_find(sorted, n, "a"), v[14]->child);
	assert_null(json_member_find(sorted, n, "c"));
	assert_null(json_member_find(sorted, 0, "a"));
	free(sorted);
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		cJSON_Delete(v[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guards),
		cmocka_unit_test(test_not_nul_terminated),
		cmocka_unit_test(test_print_pretty),
		cmocka_unit_test(test_print_js),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_set_keeps_position),
		cmocka_unit_test(test_scan_top),
		cmocka_unit_test(test_count_members),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_sbuf),
		cmocka_unit_test(test_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
