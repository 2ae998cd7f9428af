/*
 * store_run.c - git run as a process (store_run.h): its output collected
 * through a pipe, its standard error and input through files so that no
 * pipe fills up, and a time limit kept by killing its whole process group.
 */
#include "git-session/store_run.h"
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

const char *store_run_dir(gs_store *st)
{
	return store_workdir(st) ? store_workdir(st) : store_gitdir(st);
}

int store_git_config_bool(int *out, const char *key, int def)
{
	const char *args[] = { "git", "config", "--bool", "--get", key, NULL };
	struct sbuf sb = SBUF_INIT;
	int rc = store_run(&(struct store_run){ .argv = args, .out = &sb });

	*out = rc == 0 && sb.buf ? !strncmp(sb.buf, "true", 4) : def;
	sbuf_release(&sb);
	return rc < 0 ? rc : 0;
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
 * on its standard input when null_input (unattended: and the MCP server's
 * is its protocol).
 * SIGINT, SIGTERM and SIGHUP wait, watched, while it runs: one that comes
 * kills the group before it takes its course, so no signer is left behind.
 */
static void unattended(posix_spawn_file_actions_t *fa, posix_spawnattr_t *attr, struct child *c, sigset_t *saved,
		       int null_input)
{
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, saved);
	c->sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (null_input)
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

/* The environment git gets: run's variables first (getenv finds the first of a name), then ours. */
static char **child_env(const struct store_run *run)
{
	size_t n = 0, m = 0;
	char **envp;

	while (environ[n])
		n++;
	while (run->env && run->env[m])
		m++;
	envp = xcalloc(n + m + 1, sizeof(*envp));
	memcpy(envp, run->env, m * sizeof(*envp));
	memcpy(envp + m, environ, n * sizeof(*envp));
	return envp;
}

/* A file holding run's standard input, read from its start; NULL (errno set) when none can be made. */
static FILE *input_file(const struct store_run *run)
{
	FILE *f = tmpfile();

	if (f && ((run->inlen && fwrite(run->in, 1, run->inlen, f) != run->inlen) || fflush(f) || fseek(f, 0, SEEK_SET))) {
		fclose(f);
		f = NULL;
	}
	return f;
}

/* What a run needs open before git starts, closed by io_close. */
struct run_io {
	int pipe[2];	/* git's standard output */
	FILE *in, *err;	/* its standard input and error, when run asks */
};

static void io_close(struct run_io *io)
{
	if (io->pipe[0] >= 0)
		close(io->pipe[0]);
	if (io->pipe[1] >= 0)
		close(io->pipe[1]);
	if (io->in)
		fclose(io->in);
	if (io->err)
		fclose(io->err);
}

static int io_open(struct run_io *io, const struct store_run *run)
{
	io->pipe[0] = io->pipe[1] = -1;
	io->in = io->err = NULL;
	if ((run->in && !(io->in = input_file(run))) || (run->err && !(io->err = tmpfile())) ||
	    pipe2(io->pipe, O_CLOEXEC) < 0) {
		int error = gs_error("cannot run git: %s", strerror(errno));

		io_close(io);
		return error;
	}
	return 0;
}

/* Where git's standard streams go, and the directory it runs in. */
static void io_actions(posix_spawn_file_actions_t *fa, const struct run_io *io, const struct store_run *run)
{
	posix_spawn_file_actions_adddup2(fa, io->pipe[1], 1);
	if (io->in) {
		posix_spawn_file_actions_adddup2(fa, fileno(io->in), 0);
		posix_spawn_file_actions_addclose(fa, fileno(io->in));
	}
	if (io->err) {
		posix_spawn_file_actions_adddup2(fa, fileno(io->err), 2);
		posix_spawn_file_actions_addclose(fa, fileno(io->err));
	}
	if (run->dir)
		posix_spawn_file_actions_addchdir_np(fa, run->dir);
}

/*
 * Waits, a second at most, until the killed group pgid has no process
 * left: a signer git started is not our child, so its end cannot be
 * waited for; without this it may still be dying when we return.
 */
static void group_gone(pid_t pgid)
{
	struct timespec step = { 0, 2000000 };	/* 2 ms */

	for (int i = 0; i < 500 && kill(-pgid, 0) == 0; i++)
		nanosleep(&step, NULL);
}

/* Waits for git's end, by the deadline (0: none): its exit code, or GS_ETIMEDOUT or GS_ERROR. */
static int finish(struct child *c, struct sbuf *out, int64_t deadline)
{
	int status;

	if (collect(&status, out, c, deadline) < 0) {
		kill(deadline ? -c->pid : c->pid, SIGKILL);	/* the group is git's own only with a deadline */
		while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (deadline)
			group_gone(c->pid);
		return deadline ? GS_ETIMEDOUT : gs_error("cannot run git: %s", strerror(errno));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * Runs git, its standard output into out (a pipe), its standard error into
 * err through a file (NULL: the user's). At the deadline (0: none) kills
 * its whole process group (git and what it started: a signer).
 */
static int spawn_and_wait(const struct store_run *run, struct sbuf *out)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct child c = { 0, -1, -1, -1 };
	int64_t deadline = run->timeout_ms > 0 ? now_ms() + run->timeout_ms : 0;
	char **envp = run->env ? child_env(run) : environ;
	struct run_io io;
	sigset_t saved;
	int rc, error;

	if ((error = io_open(&io, run)) < 0)
		return error;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	io_actions(&fa, &io, run);
	if (deadline)
		unattended(&fa, &attr, &c, &saved, !io.in);
	rc = posix_spawnp(&c.pid, "git", &fa, &attr, (char *const *)run->argv, envp);
	close(io.pipe[1]);
	io.pipe[1] = -1;
	c.out = io.pipe[0];
	if (rc != 0) {
		error = gs_error("cannot run git: %s", strerror(rc));
	} else {
		if (deadline)
			c.pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
		error = finish(&c, out, deadline);
		if (io.err)
			slurp_file(run->err, io.err);
	}
	if (c.pidfd >= 0)
		close(c.pidfd);
	if (c.sigfd >= 0)
		close(c.sigfd);
	if (deadline)	/* a signal that came is delivered now */
		sigprocmask(SIG_SETMASK, &saved, NULL);
	io_close(&io);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (envp != environ)
		free(envp);
	return error;
}

int store_run(const struct store_run *run)
{
	struct sbuf dropped = SBUF_INIT;
	int rc = spawn_and_wait(run, run->out ? run->out : &dropped);

	sbuf_release(&dropped);
	if (rc > 0 && run->must_succeed) {
		gs_error("'git %s' failed", run->argv[1]);
		return GS_ERROR;
	}
	return rc;
}
