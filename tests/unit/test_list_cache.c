/*
 * test_list_cache.c - the file list remembers checkpoints in: what it
 * writes it reads back, and anything not as written is refused whole.
 */
#include "helpers.h"
#include "git-session/list_cache.h"

#define A "0123456789abcdef0123456789abcdef01234567"
#define B "89abcdef0123456789abcdef0123456789abcdef"

static void test_round_trip(void **unused)
{
	struct list_cache c = { 0 }, back;
	char *text;
	size_t len;
	const struct list_entry *e;

	list_cache_add(&c, B, 1700000000, xstrdup("paused"), xstrdup("2025 11 21, a hand's edit"), NULL,
		       xstrdup("a \"quoted\"\ntopic \xc3\xa9"), xstrdup("s-1"));
	list_cache_add(&c, A, -5, xstrdup("in_progress"), NULL, xstrdup("2025-11-21T10:01:00Z"), NULL, NULL);
	list_cache_sort(&c);
	text = list_cache_format(&c, &len);
	assert_non_null(strstr(text, A " -5 [\"in_progress\",null,\"2025-11-21T10:01:00Z\",null]\n"));
	assert_int_equal(list_cache_parse(&back, text, len), 0);
	assert_int_equal(back.n, 2);
	e = list_cache_find(&back, B);
	assert_non_null(e);
	assert_int_equal(e->time, 1700000000);
	assert_string_equal(e->status, "paused");
	assert_string_equal(e->created, "2025 11 21, a hand's edit");	/* spaces are fine */
	assert_string_equal(e->topic, "a \"quoted\"\ntopic \xc3\xa9");
	assert_null(e->updated);
	assert_string_equal(e->session, "s-1");
	e = list_cache_find(&back, A);
	assert_null(e->session);	/* an older file's line */
	assert_null(e->created);
	assert_null(e->topic);
	assert_null(list_cache_find(&back, "0000000000000000000000000000000000000000"));
	assert_null(list_cache_find(&back, "0123"));
	list_cache_clear(&back);
	list_cache_clear(&c);
	free(text);
}

static void cache_refused(const char *text)
{
	struct list_cache c;

	assert_int_equal(list_cache_parse(&c, text, strlen(text)), GS_ERROR);
	assert_int_equal(c.n, 0);
	assert_null(c.v);
}

static void test_not_as_written(void **unused)
{
	cache_refused("");
	cache_refused("git-session list cache 1\n");	/* an older format */
	cache_refused(LIST_CACHE_HEADER "\n" A " 1 [\"paused\",null,null,null]");		/* no newline */
	cache_refused(LIST_CACHE_HEADER "\n" A " x [\"paused\",null,null,null]\n");		/* time */
	cache_refused(LIST_CACHE_HEADER "\n0123 1 [\"paused\",null,null,null]\n");		/* commit */
	cache_refused(LIST_CACHE_HEADER "\n" "0123456789ABCDEF0123456789abcdef01234567 1 [\"paused\",null,null,null]\n");
	cache_refused(LIST_CACHE_HEADER "\n" A " 1 [\"paused\",null,null,5]\n");		/* topic */
	cache_refused(LIST_CACHE_HEADER "\n" A " 1 [null,null,null,null]\n");		/* no status */
	cache_refused(LIST_CACHE_HEADER "\n" A " 1 [\"paused\",null,null]\n");		/* three */
	cache_refused(LIST_CACHE_HEADER "\n" A " 1 [\"paused\",null,null,null] x\n");	/* after it */
	cache_refused(LIST_CACHE_HEADER "\n" A " 1 [\"paused\",null,null,null]\n" A " 1 [\"paused\",null,null,null]\n");
	cache_refused(LIST_CACHE_HEADER "\n" A " 1 [\"paused\",null,null,null]\n" "garbage\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_not_as_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
