/*
 * timeit.c - times commands, interleaved run by run so that the
 * machine's noise falls on all of them alike, and prints for each, in
 * order, "median min" in milliseconds, the largest resident set any
 * run reached, in KiB, and the median CPU time (user and system, the
 * command and what it waited for) in milliseconds: on a loaded machine,
 * what a quiet one's time would be closer to.
 *
 *   timeit [-d] <runs> <command> [<args>...] [:: <command> [<args>...]]...
 *
 * With -d, one more line for each pair of commands (first and second,
 * third and fourth, ...): the median of the second's time minus the
 * first's, run by run -- what the second adds, with the noise both
 * runs shared taken out -- and the same of their CPU times.
 * Each command's stdout is discarded; a failing run ends the measurement.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v and returns its median. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	int diffs = argc > 1 && !strcmp(argv[1], "-d"), n, ncmd = 0;
	char **cmds[64];
	double *t, *cpu;
	long rss[64] = { 0 };
	double pair[32] = { 0 }, cpair[32] = { 0 };

	argv += diffs;
	argc -= diffs;
	n = argc > 2 ? atoi(argv[1]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: timeit <runs> <command> [<args>...] [:: <command>...]...\n");
		return 129;
	}
	cmds[ncmd++] = argv + 2;
	for (int i = 2; i < argc && ncmd < 64; i++)
		if (!strcmp(argv[i], "::")) {
			argv[i] = NULL;
			cmds[ncmd++] = argv + i + 1;
		}
	t = calloc((size_t)(n * ncmd), sizeof(*t));
	cpu = calloc((size_t)(n * ncmd), sizeof(*cpu));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int r = 0; r < n; r++)
		for (int c = 0; c < ncmd; c++) {
			double start = now_ms();
			struct rusage ru;
			pid_t pid;
			int status;

			if (posix_spawnp(&pid, cmds[c][0], &fa, NULL, cmds[c], environ) != 0) {
				perror(cmds[c][0]);
				return 1;
			}
			wait4(pid, &status, 0, &ru);
			t[c * n + r] = now_ms() - start;
			cpu[c * n + r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
					 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
			rss[c] = ru.ru_maxrss > rss[c] ? ru.ru_maxrss : rss[c];
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				fprintf(stderr, "timeit: '%s' failed on run %d\n", cmds[c][0], r + 1);
				return 1;
			}
		}
	if (diffs) {	/* before the sort below puts each command's runs out of order */
		double *d = calloc((size_t)n, sizeof(*d));

		for (int c = 0; c + 1 < ncmd; c += 2) {
			for (int r = 0; r < n; r++)
				d[r] = t[(c + 1) * n + r] - t[c * n + r];
			pair[c / 2] = median(d, n);
			for (int r = 0; r < n; r++)
				d[r] = cpu[(c + 1) * n + r] - cpu[c * n + r];
			cpair[c / 2] = median(d, n);
		}
		free(d);
	}
	for (int c = 0; c < ncmd; c++) {
		double m = median(t + c * n, n);

		printf("%.3f %.3f %ld %.3f\n", m, t[c * n], rss[c], median(cpu + c * n, n));
	}
	for (int c = 0; diffs && c + 1 < ncmd; c += 2)
		printf("%.3f %.3f\n", pair[c / 2], cpair[c / 2]);
	free(t);
	free(cpu);
	return 0;
}
