/*
 * store_run.h - git run as a process, for what libgit2 cannot do (filter
 * drivers, signing, fetch and push, git's own reading of its config). As
 * with git's struct child_process, a struct says what to run, where, and
 * what to collect, and one function runs it.
 */
#ifndef GIT_SESSION_STORE_RUN_H
#define GIT_SESSION_STORE_RUN_H

#include <stddef.h>

#include "git-session/store.h"
#include "git-session/util.h"

struct store_run {
	const char *const *argv;	/* argv[0] is "git"; NULL-terminated */
	const char *dir;		/* where git runs (store_run_dir); NULL: the current directory */
	const char *const *env;		/* "NAME=value" set for git, NULL-terminated; NULL: none */
	const char *in;			/* git's standard input, whole; NULL: ours */
	size_t inlen;
	struct sbuf *out;		/* git's standard output; NULL: read and dropped */
	struct sbuf *err;		/* git's standard error; NULL: the user's */
	/*
	 * > 0: a time limit. git then runs unattended, in a process group of
	 * its own (with nothing on its standard input unless in says), killed
	 * whole at the limit: GS_ETIMEDOUT.
	 */
	int timeout_ms;
	/* A non-zero exit is an error: "'git <argv[1]>' failed" is said and GS_ERROR returned. */
	unsigned must_succeed : 1;
};

/* git's exit code (0 when it succeeded), or a negative error when it could not run or was stopped. */
int store_run(const struct store_run *run);

/* Where git runs for st: its working tree, or its git directory when bare. */
const char *store_run_dir(gs_store *st);

/*
 * A boolean of git's configuration as git reads it (a process), for when
 * the repository cannot be opened here: *out is def when it is unset.
 */
int store_git_config_bool(int *out, const char *key, int def);

#endif
