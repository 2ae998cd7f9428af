/*
 * opts.h - a small command-line option parser in the manner of git's
 * parse-options: long and short options, "--opt=value" and "--opt value",
 * options among the arguments, "--" to stop, and generated usage.
 */
#ifndef GIT_SESSION_OPTS_H
#define GIT_SESSION_OPTS_H

#include "git-session/strlist.h"

#include <stddef.h>

/* OPT_OPTARG: a string whose value may only come with '=' ("--color",
 * "--color=never"); alone it stores "". */
enum opt_type { OPT_BOOL, OPT_STRING, OPT_LIST, OPT_INT, OPT_OPTARG, OPT_END };


struct option {
	enum opt_type type;
	char short_name;
	const char *long_name;
	void *value;		/* int *, const char **, struct strlist *, long long * */
	const char *argh;	/* the argument's name in usage, e.g. "<id>" */
	const char *help;
};
#define OPT_END_MARK { OPT_END, 0, NULL, NULL, NULL, NULL }
#define OPT_QUIET(v) { OPT_BOOL, 'q', "quiet", (v), NULL, "print nothing" }

/*
 * Parses options out of argv (argv[0] is the command's name), leaving the
 * other arguments in argv[0..*argc). "--" ends the options; what follows
 * it is kept after a "--" argument when keep_dashdash, else passed as
 * arguments. "-h" prints usage on stdout. Returns 0, or GS_EUSAGE after
 * printing what is wrong.
 */
int parse_options(int *argc, const char **argv, const struct option *opts,
		  const char *const *usage, int keep_dashdash);
/* Prints usage (the lines of usage, then the options) to stderr or stdout. */
void usage_with_options(const char *const *usage, const struct option *opts, int to_stdout);

#endif
