/*
 * fsprobe.c - what a new file costs the file system in a folder: the
 * median, in microseconds, of creating 20 empty files there. A
 * checkpoint creates files (its loose objects, their objects/xx
 * folders, a ref's lock), and on some file systems (ext4 without a
 * journal) a new file costs more the more files were deleted nearby in
 * the last minutes: the figure says what the hooks' times were taken
 * against. The files are kept: deleting them would make the next ones
 * dearer.
 *
 *   fsprobe <folder>
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define FILES 20

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double us[FILES];
	char path[4096];
	struct timespec a, b;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: fsprobe <folder>\n");
		return 2;
	}
	for (int i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "%s/probe-%d-%d", argv[1], (int)getpid(), i);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0) {
			perror(path);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		close(fd);
		us[i] = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
	}
	qsort(us, FILES, sizeof(*us), cmp);
	printf("%.1f\n", (us[FILES / 2 - 1] + us[FILES / 2]) / 2);
	return 0;
}
