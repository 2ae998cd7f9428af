/*
 * store_run.c - git run as a process, for what libgit2 cannot do (filter
 * drivers, signing, fetch and push, git's own config reader): its output
 * collected, a time limit kept by killing its whole process group.
 */
#include "git-session/store_worktree.h"
#include "git-session/util.h"
#include "store-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Runs git with args in the working tree; its standard output into out. */
static int run_git_in(struct sbuf *out, const char *dir, const char *const *args);
static int run_git(struct sbuf *out, struct sbuf *err, const char *dir, const char *const *args, char *const *envp,
		   int timeout_ms);

int store_worktree_run_git(struct sbuf *out, gs_store *st, const char *const *args)
{
	int rc = store_worktree_git_rc(out, st, args);

	if (rc > 0)
		gs_error("'git %s' failed", args[1]);
	return rc ? GS_ERROR : 0;
}

int store_worktree_git_rc(struct sbuf *out, gs_store *st, const char *const *args)
{
	return run_git_in(out, st ? (store_workdir(st) ? store_workdir(st) : store_gitdir(st)) : NULL, args);
}

int store_git_config_bool(int *out, const char *key, int def)
{
	const char *args[] = { "git", "config", "--bool", "--get", key, NULL };
	struct sbuf sb = SBUF_INIT;
	int rc = run_git_in(&sb, NULL, args);

	*out = rc == 0 && sb.buf ? !strncmp(sb.buf, "true", 4) : def;
	sbuf_release(&sb);
	return rc < 0 ? rc : 0;
}

/* Runs git in dir (NULL: here) with stdout into out: git's exit code, or GS_ERROR. */
static int run_git_in(struct sbuf *out, const char *dir, const char *const *args)
{
	return run_git(out, NULL, dir, args, environ, 0);
}

int store_worktree_git_env(struct sbuf *out, gs_store *st, const char *const *args, const char *const *env,
			   int timeout_ms)
{
	char **envp;
	size_t n = 0, m = 0;
	int rc;

	while (environ[n])
		n++;
	while (env[m])
		m++;
	envp = xcalloc(n + m + 1, sizeof(*envp));
	memcpy(envp, env, m * sizeof(*envp));	/* first: getenv finds the first of a name */
	memcpy(envp + m, environ, n * sizeof(*envp));
	rc = run_git(out, NULL, store_workdir(st) ? store_workdir(st) : store_gitdir(st), args, envp, timeout_ms);
	free(envp);
	return rc;
}

int store_worktree_git_err(struct sbuf *out, struct sbuf *err, gs_store *st, const char *const *args)
{
	return run_git(out, err, store_workdir(st) ? store_workdir(st) : store_gitdir(st), args, environ, 0);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before deadline (0: none, so -1 for poll), at least 0. */
static int left_ms(int64_t deadline)
{
	int64_t left;

	if (!deadline)
		return -1;
	left = deadline - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* A child git: its pid, the pipe of its output, and what tells of its end or of ours (-1: none). */
struct child {
	pid_t pid;
	int out, pidfd, sigfd;
};

/*
 * Collects the child's output, and its end into *status, by the deadline
 * if there is one (0: none). Its pidfd (-1 when the kernel gives none:
 * then it is looked at every 10 ms) says when it ended. -1 at the
 * deadline, or when SIGINT, SIGTERM or SIGHUP came for us meanwhile.
 */
static int collect(int *status, struct sbuf *out, struct child *c, int64_t deadline)
{
	char buf[65536];
	int ended = 0, fd = c->out;

	while (!(fd < 0 && (ended || !deadline))) {
		struct pollfd p[3] = { { fd, POLLIN, 0 }, { ended ? -1 : c->pidfd, POLLIN, 0 }, { c->sigfd, POLLIN, 0 } };
		int wait = left_ms(deadline);
		ssize_t n;

		if (deadline && c->pidfd < 0 && !ended && (wait < 0 || wait > 10))
			wait = 10;
		if ((poll(p, 3, wait) < 0 && errno != EINTR) || p[2].revents)
			return -1;
		if (p[0].revents) {
			if ((n = read(fd, buf, sizeof(buf))) > 0)
				sbuf_add(out, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				fd = -1;	/* the caller closes it */
		}
		if (deadline && !ended && (c->pidfd < 0 || p[1].revents) && waitpid(c->pid, status, WNOHANG) == c->pid)
			ended = 1;
		if (deadline && !left_ms(deadline) && !(fd < 0 && ended))
			return -1;
	}
	while (!ended && waitpid(c->pid, status, 0) < 0)
		if (errno != EINTR) {
			*status = 128 << 8;
			break;
		}
	return 0;
}

/*
 * With a deadline, git runs in a process group of its own, with nothing
 * on its standard input (unattended: and the MCP server's is its protocol).
 * SIGINT, SIGTERM and SIGHUP wait, watched, while it runs: one that comes
 * kills the group before it takes its course, so no signer is left behind.
 */
static void unattended(posix_spawn_file_actions_t *fa, posix_spawnattr_t *attr, struct child *c, sigset_t *saved)
{
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, saved);
	c->sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawnattr_setpgroup(attr, 0);
	posix_spawnattr_setsigmask(attr, saved);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
}

/* Appends what file holds to sb. */
static void slurp_file(struct sbuf *sb, FILE *f)
{
	char buf[65536];
	size_t got;

	rewind(f);
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(sb, buf, got);
}

/*
 * Runs git; its standard error into err (NULL: the user's), through a
 * file, so that no pipe fills up. At the deadline (0: none) kills its
 * whole process group (git and what it started: a signer). GS_ETIMEDOUT
 * then; else git's exit code, or GS_ERROR.
 */
static int run_git(struct sbuf *out, struct sbuf *err, const char *dir, const char *const *args, char *const *envp,
		   int timeout_ms)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct child c = { 0, -1, -1, -1 };
	int fds[2], status, rc, error = GS_ERROR;
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	FILE *errf = NULL;
	sigset_t saved;

	if ((err && !(errf = tmpfile())) || pipe2(fds, O_CLOEXEC) < 0) {
		error = gs_error("cannot run git: %s", strerror(errno));
		if (errf)
			fclose(errf);
		return error;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	if (errf) {
		posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
		posix_spawn_file_actions_addclose(&fa, fileno(errf));
	}
	if (dir)
		posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (deadline)
		unattended(&fa, &attr, &c, &saved);
	rc = posix_spawnp(&c.pid, "git", &fa, &attr, (char *const *)args, envp);
	close(fds[1]);
	c.out = fds[0];
	if (rc != 0) {
		gs_error("cannot run git: %s", strerror(rc));
		goto cleanup;
	}
	if (deadline)
		c.pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
	if (collect(&status, out, &c, deadline) < 0) {
		kill(deadline ? -c.pid : c.pid, SIGKILL);	/* the group is git's own only with a deadline */
		while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
			;
		error = deadline ? GS_ETIMEDOUT : gs_error("cannot run git: %s", strerror(errno));
	} else {
		error = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	}
	if (errf)
		slurp_file(err, errf);
cleanup:
	close(fds[0]);
	if (c.pidfd >= 0)
		close(c.pidfd);
	if (c.sigfd >= 0)
		close(c.sigfd);
	if (deadline)	/* a signal that came is delivered now */
		sigprocmask(SIG_SETMASK, &saved, NULL);
	if (errf)
		fclose(errf);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return error;
}
