/*
 * opts.c - parse-options for git-session's commands.
 */
#include "git-session/cmd.h"
#include "git-session/opts.h"
#include "git-session/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void usage_with_options(const char *const *usage, const struct option *opts, int to_stdout)
{
	FILE *f = to_stdout ? stdout : cmd_stderr();

	cmd_print_errors();	/* the error that brought the usage up comes first */
	for (size_t i = 0; usage[i]; i++)
		fprintf(f, "%s %s\n", i ? "   or:" : "usage:", usage[i]);
	if (opts && opts->type != OPT_END)
		fputc('\n', f);
	for (; opts && opts->type != OPT_END; opts++) {
		char left[64];
		int n;

		if (opts->short_name && opts->long_name)
			n = snprintf(left, sizeof(left), "-%c, --%s", opts->short_name, opts->long_name);
		else if (opts->short_name)
			n = snprintf(left, sizeof(left), "-%c", opts->short_name);
		else
			n = snprintf(left, sizeof(left), "--%s", opts->long_name);
		if (opts->type == OPT_OPTARG && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, "[=%s]", opts->argh ? opts->argh : "<value>");
		else if (opts->type != OPT_BOOL && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, " %s", opts->argh ? opts->argh : "<value>");
		fprintf(f, "    %-24s %s\n", left, opts->help ? opts->help : "");
	}
	fflush(f);
}

static int set_value(const struct option *o, const char *arg, const char *given)
{
	char *end;
	long long v;

	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = 1;
		return 0;
	case OPT_STRING:
	case OPT_OPTARG:
		*(const char **)o->value = arg;
		return 0;
	case OPT_LIST:
		strlist_push(o->value, arg);
		return 0;
	case OPT_INT:
		errno = 0;
		v = strtoll(arg, &end, 10);
		if (errno || end == arg || *end)
			return gs_error("option '%s' expects a whole number, not '%s'", given, arg);
		*(long long *)o->value = v;
		return 0;
	default:
		return GS_ERROR;
	}
}

static const struct option *find_long(const struct option *opts, const char *name, size_t len,
				      int *negated)
{
	*negated = 0;
	for (const struct option *o = opts; o->type != OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	if (len > 3 && !strncmp(name, "no-", 3))
		for (const struct option *o = opts; o->type != OPT_END; o++)
			if (o->type == OPT_BOOL && o->long_name && strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*negated = 1;
				return o;
			}
	return NULL;
}

static int take_arg(const char **out, int *i, int argc, const char **argv, const char *given)
{
	if (*i + 1 >= argc)
		return gs_error("option '%s' requires a value", given);
	*out = argv[++*i];
	return 0;
}

static int parse_one(int *i, int argc, const char **argv, const struct option *opts)
{
	const char *a = argv[*i], *val = NULL;

	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		int neg;
		const struct option *o = find_long(opts, a + 2, len, &neg);

		if (!o)
			return gs_error("unknown option '%.*s'", (int)len, a + 2);
		if (o->type == OPT_BOOL) {
			if (eq)
				return gs_error("option '%s' takes no value", o->long_name);
			*(int *)o->value = !neg;
			return 0;
		}
		if (o->type == OPT_OPTARG)
			return set_value(o, eq ? eq + 1 : "", a);
		if (eq)
			val = eq + 1;
		else if (take_arg(&val, i, argc, argv, a) < 0)
			return GS_ERROR;
		return set_value(o, val, a);
	}
	for (const char *p = a + 1; *p; p++) {
		const struct option *o = opts;
		char given[3] = { '-', *p, 0 };

		while (o->type != OPT_END && o->short_name != *p)
			o++;
		if (o->type == OPT_END)
			return gs_error("unknown switch '%c'", *p);
		if (o->type == OPT_BOOL) {
			*(int *)o->value = 1;
			continue;
		}
		if (p[1])
			val = p + 1;
		else if (take_arg(&val, i, argc, argv, given) < 0)
			return GS_ERROR;
		return set_value(o, val, given);
	}
	return 0;
}

int parse_options(int *argc, const char **argv, const struct option *opts,
		  const char *const *usage, int keep_dashdash)
{
	int i, out = 0;

	for (i = 1; i < *argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			if (keep_dashdash)
				argv[out++] = a;
			while (++i < *argc)
				argv[out++] = argv[i];
			break;
		}
		/* --help past the first argument (main() opens the manual for that one) is usage, as in git */
		if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "--help-usage")) {
			usage_with_options(usage, opts, 1);
			return GS_EUSAGE;
		}
		if (a[0] != '-' || !a[1]) {
			argv[out++] = a;
			continue;
		}
		if (parse_one(&i, *argc, argv, opts) < 0) {
			usage_with_options(usage, opts, 0);
			return GS_EUSAGE;
		}
	}
	*argc = out;
	argv[out] = NULL;
	return 0;
}
