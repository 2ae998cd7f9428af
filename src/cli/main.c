/*
 * main.c - git-session's entry point: finds the command and runs it
 * (dispatch.c).
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/store.h"
#include "git-session/util.h"

int main(int argc, const char **argv)
{
	const struct command *cmd;
	int ret;

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
	if (!(cmd = command_find(argv[1]))) {
		gs_error("'%s' is not a git session command. See 'git session -h'.", argv[1]);
		cmd_print_errors();
		command_suggest(argv[1]);
		return EXIT_FAILED;
	}
	store_global_init();
	ret = command_run(cmd, argc - 1, argv + 1, NULL);
	store_global_shutdown();
	return ret;
}
