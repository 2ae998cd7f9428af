/*
 * pager.c - git's pager for long output.
 */
#include "git-session/pager.h"
#include "git-session/util.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The pager git would use, or NULL for none; the caller frees it. */
static char *pager_command(struct cmd_ctx *c)
{
	const char *env = getenv("GIT_PAGER");
	char *pager = env ? xstrdup(env) : store_config_str(c->st, "core.pager");

	if (!pager && getenv("PAGER"))
		pager = xstrdup(getenv("PAGER"));
	if (!pager)
		pager = xstrdup("less");
	if (!*pager || !strcmp(pager, "cat")) {
		free(pager);
		return NULL;
	}
	return pager;
}

void pager_start(struct cmd_ctx *c)
{
	char *pager, *argv[4];
	int fds[2];
	posix_spawn_file_actions_t fa;

	if (!(c->flags & USE_PAGER) || c->pager || !c->st || !isatty(1) || !(pager = pager_command(c)))
		return;
	setenv("LESS", "FRX", 0);	/* 0: unless set */
	setenv("LV", "-c", 0);
	if (pipe(fds) < 0) {
		free(pager);
		return;
	}
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = pager;
	argv[3] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	fflush(stdout);
	if (posix_spawn(&c->pager, "/bin/sh", &fa, NULL, argv, environ) == 0) {
		dup2(fds[1], 1);	/* from here on, stdout feeds the pager */
		if (isatty(2))
			dup2(fds[1], 2);
		/*
		 * A pager that quits early (q in less) must not kill us before we
		 * wait for it, as git waits for its pager: writes then fail quietly.
		 */
		signal(SIGPIPE, SIG_IGN);
	} else {
		c->pager = 0;
	}
	close(fds[0]);
	close(fds[1]);
	posix_spawn_file_actions_destroy(&fa);
	free(pager);
}

void pager_finish(struct cmd_ctx *c)
{
	int status;

	if (!c->pager)
		return;
	fflush(stdout);
	fflush(stderr);
	close(1);
	close(2);
	while (waitpid(c->pager, &status, 0) < 0 && errno == EINTR)
		;
	c->pager = 0;
}
