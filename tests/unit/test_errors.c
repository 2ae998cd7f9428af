/*
 * test_errors.c - errors recorded by the library for the front end to
 * print: in order, hints with their error, made safe when taken; probes
 * that nest and forget exactly what they caused; warnings through a
 * routine the front end may replace.
 */
#include "helpers.h"

static struct sbuf said = SBUF_INIT;

static void collect(const char *line)
{
	sbuf_addf(&said, "%s\n", line);
}

static void test_recorded_then_taken(void **unused)
{
	char *text;

	gs_error_clear();
	assert_null(gs_error_take());
	assert_int_equal(gs_error("no such session '%s'", "x"), GS_ERROR);
	gs_hint("start one");
	assert_int_equal(gs_error("bad\033[31m"), GS_ERROR);
	assert_string_equal(gs_error_last(), "bad\033[31m");	/* as recorded; made safe when taken */
	gs_error_quote("fatal: from git\n", 16);
	text = gs_error_take();
	assert_string_equal(text, "error: no such session 'x'\nhint: start one\nerror: bad?[31m\nfatal: from git\n");
	free(text);
	assert_null(gs_error_take());
	assert_null(gs_error_last());
}

static void test_probes_nest(void **unused)
{
	size_t outer, inner;
	char *text;

	gs_error_clear();
	gs_error("before");
	outer = gs_error_mark();
	gs_error("outer probe");
	gs_hint("its hint");
	inner = gs_error_mark();
	gs_error("inner probe");
	assert_string_equal(gs_error_first(inner), "inner probe");
	gs_error_rewind(inner);
	assert_string_equal(gs_error_last(), "outer probe");
	text = gs_error_take();	/* what is before the outer probe only */
	assert_string_equal(text, "error: before\n");
	free(text);
	assert_string_equal(gs_error_first(outer), "outer probe");
	gs_error_rewind(outer);
	assert_null(gs_error_take());
	gs_error("after");
	text = gs_error_take();
	assert_string_equal(text, "error: after\n");
	free(text);
}

static void test_warnings_go_through_the_routine(void **unused)
{
	gs_warn_fn old = gs_set_warn_routine(collect);
	size_t mark;

	gs_error_clear();
	sbuf_reset(&said);
	gs_warning("odd\001");
	gs_warning("C1 \302\2332J and the end");	/* CSI: one '?', nothing after it doubled */
	gs_hint("said at once: no error is pending");
	gs_error("failed");
	gs_hint("kept with the error");
	mark = gs_error_mark();
	gs_hint("in a probe: kept, and forgotten");
	gs_error_rewind(mark);
	assert_string_equal(said.buf, "warning: odd?\nwarning: C1 ?2J and the end\n"
				      "hint: said at once: no error is pending\n");
	gs_error_clear();
	assert_ptr_equal(gs_set_warn_routine(old), collect);
	assert_null(gs_set_warn_routine(NULL));	/* the default, which it already was */
	sbuf_release(&said);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_then_taken),
		cmocka_unit_test(test_probes_nest),
		cmocka_unit_test(test_warnings_go_through_the_routine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
