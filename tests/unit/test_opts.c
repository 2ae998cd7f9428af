/*
 * test_opts.c - the command-line contract of parse_options, as git's
 * parse-options keeps it: long and short options, --opt=value and
 * --opt value, --no-<bool>, clustered switches, options among the
 * arguments, "--" and its keeping, and usage errors.
 */
#include "helpers.h"
#include "git-session/opts.h"

struct seen {
	int flag, quiet;
	const char *name, *color;
	struct strlist list;
	long long count;
	char words[256];	/* the words of the line, which the options point into */
};

/* Parses the words of line (space-separated; argv[0] is "cmd") into s; the rest into rest. */
static int parse(struct seen *s, char *rest, const char *line, int keep_dashdash)
{
	static const char *const usage[] = { "cmd [options] <args>", NULL };
	const struct option opts[] = {
		{ OPT_BOOL, 'f', "flag", &s->flag, NULL, "a flag" },
		OPT_QUIET(&s->quiet),
		{ OPT_STRING, 'n', "name", &s->name, "<name>", "a string" },
		{ OPT_LIST, 0, "item", &s->list, "<item>", "a list" },
		{ OPT_INT, 0, "count", &s->count, "<n>", "a number" },
		{ OPT_OPTARG, 0, "color", &s->color, "<when>", "value only with '='" },
		OPT_END_MARK,
	};
	char *save = NULL;
	const char *argv[32];
	int argc = 0, error;

	memset(s, 0, sizeof(*s));
	snprintf(s->words, sizeof(s->words), "%s", line);
	for (char *w = strtok_r(s->words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	error = parse_options(&argc, argv, opts, usage, keep_dashdash);
	rest[0] = '\0';
	for (int i = 0; !error && i < argc; i++)
		strcat(strcat(rest, i ? " " : ""), argv[i]);
	return error;
}

static void test_accepted(void **unused)
{
	static const struct {
		const char *line, *rest, *name, *color;
		int flag, quiet;
		long long count;
		size_t items;
		int keep;
	} cases[] = {
		{ "cmd a b", "a b", NULL, NULL, 0, 0, 0, 0, 0 },
		{ "cmd --flag a", "a", NULL, NULL, 1, 0, 0, 0, 0 },
		{ "cmd a --flag --no-flag", "a", NULL, NULL, 0, 0, 0, 0, 0 },
		{ "cmd -fq x", "x", NULL, NULL, 1, 1, 0, 0, 0 },
		{ "cmd -qnjoe", "", "joe", NULL, 0, 1, 0, 0, 0 },
		{ "cmd -n joe y", "y", "joe", NULL, 0, 0, 0, 0, 0 },
		{ "cmd --name=a=b", "", "a=b", NULL, 0, 0, 0, 0, 0 },
		{ "cmd --name -- x", "x", "--", NULL, 0, 0, 0, 0, 0 },
		{ "cmd --item a --item=b c", "c", NULL, NULL, 0, 0, 0, 2, 0 },
		{ "cmd --count -12", "", NULL, NULL, 0, 0, -12, 0, 0 },
		{ "cmd --color", "", NULL, "", 0, 0, 0, 0, 0 },
		{ "cmd --color=never x", "x", NULL, "never", 0, 0, 0, 0, 0 },
		{ "cmd a -- --flag -q", "a --flag -q", NULL, NULL, 0, 0, 0, 0, 0 },
		{ "cmd a -- --flag", "a -- --flag", NULL, NULL, 0, 0, 0, 0, 1 },
		{ "cmd - x", "- x", NULL, NULL, 0, 0, 0, 0, 0 },
	};
	char rest[256];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen s;

		if (parse(&s, rest, cases[i].line, cases[i].keep))
			fail_msg("'%s' was refused", cases[i].line);
		if (strcmp(rest, cases[i].rest))
			fail_msg("'%s': arguments '%s', not '%s'", cases[i].line, rest, cases[i].rest);
		assert_int_equal(s.flag, cases[i].flag);
		assert_int_equal(s.quiet, cases[i].quiet);
		assert_int_equal(s.count, cases[i].count);
		assert_int_equal(s.list.n, cases[i].items);
		if (cases[i].name)
			assert_string_equal(s.name, cases[i].name);
		else
			assert_null(s.name);
		if (cases[i].color)
			assert_string_equal(s.color, cases[i].color);
		else
			assert_null(s.color);
		strlist_clear(&s.list);
	}
}

static void test_refused(void **unused)
{
	static const char *const lines[] = {
		"cmd --nope", "cmd -x", "cmd --flag=1", "cmd --name", "cmd -n", "cmd --count ten",
		"cmd --count 9x", "cmd --no-name x", "cmd --count", "cmd -fz",
	};
	char rest[256];

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		struct seen s;

		if (parse(&s, rest, lines[i], 0) != GS_EUSAGE)
			fail_msg("'%s' was accepted", lines[i]);
		strlist_clear(&s.list);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
