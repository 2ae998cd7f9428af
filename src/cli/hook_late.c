/*
 * hook_late.c - the turn of an agent that writes its transcript after
 * its hook, read once the agent exits. Copilot CLI writes its session
 * store in bursts, the end of a turn run with a prompt (-p) only as it
 * exits, after its last hook; Qwen Code writes a turn's last response
 * after its Stop. A process of our own, apart from the agent's (which
 * does not wait for it), waits for the agent to exit (at most
 * LATE_WAIT_MS: a session that goes on has written its turn by then) and
 * the file to be whole, and records the turn then, as the hook would
 * have.
 */
#include "git-session/util.h"
#include "hook-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LATE_POLL_MS 100
#define LATE_WAIT_MS 60000

/*
 * The process that runs the shell that runs this hook: the agent (or
 * what launched it), which writes its transcript until it exits. 0 when
 * it cannot be known (no /proc).
 */
static pid_t agent_pid(void)
{
	char path[64], buf[512], *end;
	pid_t pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getppid());
	if (!(f = fopen(path, "r")))
		return 0;
	/* "pid (comm) state ppid ...": comm may hold blanks and parentheses */
	if (fgets(buf, sizeof(buf), f) && (end = strrchr(buf, ')')))
		sscanf(end + 1, " %*c %d", &pid);
	fclose(f);
	return pid > 1 ? pid : 0;
}

static int alive(pid_t pid)
{
	return pid && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Whether path is there and has kept its size for one poll: the agent is done writing it. */
static int settled(const char *path, off_t *size)
{
	struct stat sb;
	int same;

	if (stat(path, &sb) < 0)
		return 0;
	same = sb.st_size > 0 && sb.st_size == *size;
	*size = sb.st_size;
	return same;
}

int hook_turn_later(struct hook_run *r, int (*turn)(struct hook_run *r))
{
	struct timespec tick = { 0, LATE_POLL_MS * 1000000L };
	off_t size = -1;
	pid_t agent = agent_pid(), pid = fork();
	int fd;

	if (pid < 0)
		return gs_error("cannot wait for the transcript '%s': fork failed", r->ev.transcript);
	if (pid > 0)
		return 0;
	/* the agent waits for its hook's output to close: none is left open */
	setsid();
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	/* the agent gone and the file whole, or the time up */
	for (int waited = 0; waited < LATE_WAIT_MS && (alive(agent) || !settled(r->ev.transcript, &size));
	     waited += LATE_POLL_MS)
		nanosleep(&tick, NULL);
	/* the session as it is now: the agent's end may have come meanwhile */
	free(r->session);
	cJSON_Delete(r->state);
	r->session = NULL;
	r->state = NULL;
	r->linked = 0;
	r->late = 1;
	if (size > 0 && hook_find_session(r) == 0)
		turn(r);
	_exit(0);
}
