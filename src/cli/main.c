/*
 * main.c - git-session's entry point: finds the command and runs it
 * (dispatch.c), or opens the manual page as git help does.
 */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/store.h"
#include "git-session/util.h"

/* Where this binary is installed: "/usr/local" of "/usr/local/bin/git-session"; NULL when not known. */
static char *install_prefix(const char *argv0)
{
	char buf[PATH_MAX], *exe = NULL, *slash;
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n > 0) {
		buf[n] = '\0';
		exe = xstrdup(buf);
	} else if (strchr(argv0, '/')) {
		exe = realpath(argv0, NULL);
	}
	for (int i = 0; exe && i < 2; i++) {
		if (!(slash = strrchr(exe, '/'))) {
			free(exe);
			return NULL;
		}
		*slash = '\0';
	}
	return exe;
}

/*
 * As `git help -m`: man git-session, with MANPATH starting at the pages
 * installed beside this binary, as git does with its own (the build
 * tree keeps a copy there too). Returns only when man cannot run.
 */
static int show_manual(const char *argv0)
{
	char *prefix = install_prefix(argv0);

	if (prefix) {
		const char *old = getenv("MANPATH");
		char *manpath = xstrfmt("%s/share/man:%s", prefix, old ? old : "");	/* ':' and man's own after */

		setenv("MANPATH", manpath, 1);
		free(manpath);
		free(prefix);
	}
	fflush(stdout);
	execlp("man", "man", "git-session", (char *)NULL);
	gs_error("cannot run 'man' to show the manual page: %s", strerror(errno));
	gs_hint("'git session -h' lists the commands, 'git session <command> -h' a command's options");
	cmd_print_errors();
	return EXIT_FAILED;
}

static const char help_usage[] = "usage: git session help [-m | --man] [<command>]\n";

/* `git session help [<command>]`: the commands, or the manual page. */
static int help(int argc, const char **argv, const char *argv0)
{
	int i = 1;

	if (i < argc && (!strcmp(argv[i], "-m") || !strcmp(argv[i], "--man")))
		i++;
	if (i < argc && !strcmp(argv[i], "-h")) {
		fputs(help_usage, stdout);
		return EXIT_USAGE;
	}
	if (i == argc && i == 1) {
		command_list(stdout);
		return EXIT_OK;
	}
	if (argc - i > 1 || (i < argc && argv[i][0] == '-')) {
		if (argv[i][0] == '-')
			gs_error("unknown option '%s'", argv[i]);
		else
			gs_error("one command at a time");
		cmd_print_errors();
		fputs(help_usage, stderr);
		return EXIT_USAGE;
	}
	if (i < argc && !command_find(argv[i])) {
		gs_error("'%s' is not a git session command. See 'git session help'.", argv[i]);
		cmd_print_errors();
		command_suggest(argv[i]);
		return EXIT_FAILED;
	}
	return show_manual(argv0);
}

/*
 * A command lives a few milliseconds and writes an object after another,
 * each with its own compression state (about 256 KB): the memory it
 * frees stays its own for the next one, not given back to the system to
 * be faulted in again (about a tenth of a hook's CPU time).
 */
static void keep_heap(void)
{
#ifdef __GLIBC__
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_TOP_PAD, 4 << 20);
#endif
}

int main(int argc, const char **argv)
{
	const struct command *cmd;
	int ret;

	keep_heap();
	setlocale(LC_CTYPE, "");	/* for out_utf8(); nothing else is locale-bound */
	json_global_init();
	gs_set_warn_routine(cmd_warn);
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
		printf("git-session version %s (libgit2 %s)\n", GIT_SESSION_VERSION, store_libgit2_version());
		return EXIT_OK;
	}
	if (argc < 2 || !strcmp(argv[1], "-h")) {
		command_list(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_FAILED : EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1, argv[0]);
	if (!strcmp(argv[1], "--help"))	/* git turns `git session --help` into this page itself */
		return show_manual(argv[0]);
	if (!(cmd = command_find(argv[1]))) {
		gs_error("'%s' is not a git session command. See 'git session -h'.", argv[1]);
		cmd_print_errors();
		command_suggest(argv[1]);
		return EXIT_FAILED;
	}
	if (argc > 2 && !strcmp(argv[2], "--help"))	/* as git: `git <command> --help` is its manual */
		return show_manual(argv[0]);
	store_global_init();
	ret = command_run(cmd, argc - 1, argv + 1, NULL);
	store_global_shutdown();
	return ret;
}
