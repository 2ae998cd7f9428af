/*
 * test_output.c - what commands print: user text escaped so that it
 * cannot drive the terminal, relative times, spans and counts.
 */
#include "helpers.h"
#include "git-session/output.h"

static void test_escape(void **unused)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain text", "plain text" },
		{ "tab\tand\nnewline", "tab\tand\nnewline" },
		{ "\033]0;title\007", "^[]0;title^G" },
		{ "\033[31mred", "^[[31mred" },
		{ "del\177", "del^?" },
		{ "csi\302\233x", "csi\\u009bx" },
		{ "nel\302\205", "nel\\u0085" },
		{ "caf\303\251 \342\234\223", "caf\303\251 \342\234\223" },	/* printable UTF-8 stays */
		{ "\r\b", "^M^H" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sbuf sb = SBUF_INIT;

		out_escape(&sb, cases[i].in);
		if (strcmp(sb.buf ? sb.buf : "", cases[i].out))
			fail_msg("case %zu: '%s', not '%s'", i, sb.buf, cases[i].out);
		sbuf_release(&sb);
	}
}

static void test_line_cut(void **unused)
{
	static const struct { const char *in; size_t cols; const char *out; } cases[] = {
		{ "short", 10, "short" },
		{ "  one\n\n two\tthree  ", 40, "one two three" },		/* one line, blanks run together */
		{ "0123456789", 10, "0123456789" },				/* fits exactly */
		{ "0123456789A", 10, "0123456..." },
		{ "word and word", 12, "word and..." },			/* no blank before the mark */
		{ "caf\303\251 caf\303\251 caf\303\251", 9, "caf\303\251 c..." },	/* characters, not bytes */
		{ "\343\201\202\343\201\204\343\201\206\343\201\210\343\201\212", 4, "\343\201\202..." },	/* never mid-character */
		{ "\033[31mred", 40, "^[[31mred" },			/* escaped still */
		{ "", 5, "" },
		{ "abc", 2, "..." },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sbuf sb = SBUF_INIT;

		out_line_cut(&sb, cases[i].in, cases[i].cols, "...");
		if (strcmp(sb.buf ? sb.buf : "", cases[i].out))
			fail_msg("case %zu: '%s', not '%s'", i, sb.buf ? sb.buf : "", cases[i].out);
		sbuf_release(&sb);
	}
	assert_int_equal(out_width("caf\303\251 \342\234\223"), 6);
}

static void test_times_and_counts(void **unused)
{
	static const struct { long secs; const char *ago, *span; } times[] = {
		{ 0, "just now", "0s" },
		{ 45, "45 seconds ago", "45s" },
		{ 60, "1 minute ago", "1m 0s" },
		{ 3 * 3600 + 120, "3 hours ago", "3h 2m" },
		{ 2 * 86400 + 7200, "2 days ago", "2d 2h" },
	};
	static const struct { double n; const char *s; } counts[] = {
		{ 950, "950" }, { 1000, "1k" }, { 45200, "45.2k" }, { 150000, "150k" }, { 1500000, "1.5M" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(times); i++) {
		struct sbuf ago = SBUF_INIT, span = SBUF_INIT;

		out_relative_time(&ago, 1700000000 - times[i].secs, 1700000000);
		out_duration(&span, times[i].secs);
		assert_string_equal(ago.buf, times[i].ago);
		assert_string_equal(span.buf, times[i].span);
		sbuf_release(&ago);
		sbuf_release(&span);
	}
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		struct sbuf sb = SBUF_INIT;

		out_human_count(&sb, counts[i].n);
		assert_string_equal(sb.buf, counts[i].s);
		sbuf_release(&sb);
	}
	assert_string_equal(out_mark(ST_COMPLETED, 0), "[x]");
	assert_string_equal(out_mark("nonsense", 0), "[?]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_line_cut),
		cmocka_unit_test(test_times_and_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
