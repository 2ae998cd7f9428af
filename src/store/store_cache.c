/*
 * store_cache.c - the stat cache: for each file of the working tree the
 * store hashed, its size, mtime, ctime, inode and mode then, and the blob it
 * held, so that a file whose stat has not changed is not read again (as
 * git trusts an index entry). Those are one clone's facts: the cache is a
 * file of this worktree's git directory, never part of a session, and
 * one written for another working tree (a copied or moved clone) is not
 * trusted. Lost or damaged, it only costs a read of each file.
 *
 * The file: a header "git-session stat cache 2 <work tree>" then, sorted
 * by path, "<oid> <mode> <size> <mtime ns> <ctime ns> <inode> <path>",
 * each record
 * ended by a NUL (a path may hold any other byte).
 */
#include "store-internal.h"
#include "git-session/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_FILE "session-stat-cache"
#define CACHE_MAGIC "git-session stat cache 2 "
#define CACHE_MAX ((size_t)256 << 20)
#define CACHE_ENTRIES_MAX 1000000	/* past that, nothing more is learned */

struct cache_entry {
	const char *path;	/* in the file's text, or owned (learned) */
	char oid[HEX_SZ];
	const char *mode;	/* STORE_MODE_* */
	unsigned long long size, mtime, ctime, ino;	/* times in ns: a rewrite that kept the mtime changed the ctime */
	size_t seq;		/* learned: the order, the last one kept */
};

/*
 * The file is not parsed when read: a lookup is a binary search in its
 * text, so that a hook that looks at one file pays for one read of the
 * cache, not for its thousands of entries. What this process learned
 * waits in learned until the cache is written back, merged then.
 */
struct store_cache {
	char *text;		/* the file as read */
	const char *body, *end;	/* its records, sorted by path */
	struct cache_entry *learned;
	size_t n, alloc;
};

static const char *mode_of(const struct stat *s)
{
	return S_ISLNK(s->st_mode) ? STORE_MODE_LINK : s->st_mode & 0100 ? STORE_MODE_EXEC : STORE_MODE_FILE;
}

static unsigned long long ns(const struct timespec *t)
{
	return (unsigned long long)t->tv_sec * 1000000000ULL + (unsigned long long)t->tv_nsec;
}

static char *cache_path(gs_store *st)
{
	return xstrfmt("%s" CACHE_FILE, store_gitdir(st));
}

/* One record "<oid> <mode> <size> <mtime> <ctime> <ino> <path>" into e; -1 when it is not one. */
static int parse_entry(struct cache_entry *e, const char *rec)
{
	static const char *const modes[] = { STORE_MODE_FILE, STORE_MODE_EXEC, STORE_MODE_LINK };
	unsigned long long *nums[] = { &e->size, &e->mtime, &e->ctime, &e->ino };
	const char *p = rec + HEX_SZ - 1;
	char *end;

	memset(e, 0, sizeof(*e));
	if (strspn(rec, "0123456789abcdef") != HEX_SZ - 1 || *p++ != ' ')
		return -1;
	memcpy(e->oid, rec, HEX_SZ - 1);
	for (size_t i = 0; i < ARRAY_SIZE(modes) && !e->mode; i++)
		if (!strncmp(p, modes[i], 6) && p[6] == ' ')
			e->mode = modes[i];
	if (!e->mode)
		return -1;
	p += 7;
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		*nums[i] = strtoull(p, &end, 10);
		if (errno || *end != ' ')
			return -1;
		p = end + 1;
	}
	e->path = p;
	return *p ? 0 : -1;
}

/* The cache of this working tree; empty when there is none, or it is another working tree's. */
static struct store_cache *cache_load(gs_store *st)
{
	struct store_cache *c = xcalloc(1, sizeof(*c));
	char *path = cache_path(st), *head = xstrfmt(CACHE_MAGIC "%s", store_workdir(st));
	size_t len = 0, mark = gs_error_mark();

	if (access(path, R_OK) == 0 && gs_read_file(&c->text, &len, path, CACHE_MAX) == 0 && len &&
	    !c->text[len - 1] && !strcmp(c->text, head)) {
		c->body = c->text + strlen(c->text) + 1;
		c->end = c->text + len;
	}
	gs_error_rewind(mark);	/* a cache that cannot be read is no error */
	free(path);
	free(head);
	return c;
}

static struct store_cache *cache_of(gs_store *st)
{
	if (!st->cache && store_workdir(st))
		st->cache = cache_load(st);
	return st->cache;
}

/* path's record in the file, by a binary search of its text; 0 when none (or a damaged one is met). */
static int find(struct cache_entry *out, const struct store_cache *c, const char *path)
{
	const char *lo = c->body, *hi = c->end;

	while (lo && lo < hi) {
		const char *mid = lo + (hi - lo) / 2;
		int cmp;

		while (mid > lo && mid[-1])	/* back to the start of its record */
			mid--;
		if (parse_entry(out, mid) < 0)
			return 0;
		if (!(cmp = strcmp(out->path, path)))
			return 1;
		if (cmp < 0)
			lo = mid + strlen(mid) + 1;
		else
			hi = mid;
	}
	return 0;
}

static int same(const struct cache_entry *e, const struct stat *s)
{
	return e->size == (unsigned long long)s->st_size && e->mtime == ns(&s->st_mtim) &&
	       e->ctime == ns(&s->st_ctim) && e->ino == (unsigned long long)s->st_ino && !strcmp(e->mode, mode_of(s));
}

int store_cache_match(char oid[HEX_SZ], gs_store *st, const char *path, const struct stat *s)
{
	struct store_cache *c = cache_of(st);
	struct cache_entry e;

	/* what this process learned is not looked up: a command looks at a file once, or hashes it again */
	if (!c || !find(&e, c, path) || !same(&e, s))
		return 0;
	memcpy(oid, e.oid, HEX_SZ);
	return 1;
}

/*
 * Path held blob oid when it had stat s. A file changed in the last
 * second could change again within the mtime's granularity ("racily
 * clean", as git says): it is not learned. What the file says of path
 * before stays true of the stat it names, so nothing is forgotten.
 */
void store_cache_learn(gs_store *st, const char *path, const char *oid, const struct stat *s)
{
	struct store_cache *c = cache_of(st);
	struct cache_entry e;

	if (!c || time(NULL) - s->st_mtim.tv_sec <= 1 || c->n >= CACHE_ENTRIES_MAX ||
	    (find(&e, c, path) && same(&e, s) && !strcmp(e.oid, oid)))
		return;
	ALLOC_GROW(c->learned, c->n + 1, c->alloc);
	e.path = xstrdup(path);
	memcpy(e.oid, oid, HEX_SZ - 1);
	e.oid[HEX_SZ - 1] = '\0';
	e.mode = mode_of(s);
	e.size = (unsigned long long)s->st_size;
	e.mtime = ns(&s->st_mtim);
	e.ctime = ns(&s->st_ctim);
	e.ino = (unsigned long long)s->st_ino;
	e.seq = c->n;
	c->learned[c->n++] = e;
}

/* By path, and for one path the one learned last first: it is the one kept. */
static int cmp_learned(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;
	int cmp = strcmp(x->path, y->path);

	return cmp ? cmp : x->seq < y->seq ? 1 : -1;
}

static void add_record(struct sbuf *sb, const struct cache_entry *e)
{
	sbuf_addf(sb, "%s %s %llu %llu %llu %llu %s", e->oid, e->mode, e->size, e->mtime, e->ctime, e->ino, e->path);
	sbuf_addch(sb, '\0');
}

/* The file's records and what was learned, merged in path order; a damaged record is dropped. */
static void merge_records(struct sbuf *sb, struct store_cache *c)
{
	const char *p = c->body;
	struct cache_entry e;
	size_t i = 0;
	int have = 0, cmp;

	qsort(c->learned, c->n, sizeof(*c->learned), cmp_learned);
	for (;;) {
		while (!have && p && p < c->end) {	/* the file's next record that reads */
			have = parse_entry(&e, p) == 0;
			p += strlen(p) + 1;
		}
		if (!have && i == c->n)
			break;
		cmp = !have ? 1 : i == c->n ? -1 : strcmp(e.path, c->learned[i].path);
		if (cmp < 0) {
			add_record(sb, &e);
			have = 0;
			continue;
		}
		have = have && cmp > 0;	/* the same path: what was learned replaces it */
		add_record(sb, &c->learned[i]);
		while (++i < c->n && !strcmp(c->learned[i].path, c->learned[i - 1].path))
			;	/* learned before, of the same path */
	}
}

/* Writes the cache whole through a temporary renamed over it: a reader sees the old or the new. */
static void cache_write(gs_store *st, struct store_cache *c)
{
	char *path = cache_path(st), *tmp = xstrfmt("%s.tmp.%ld", path, (long)getpid());
	struct sbuf sb = SBUF_INIT;
	int fd;

	sbuf_addf(&sb, CACHE_MAGIC "%s", store_workdir(st));
	sbuf_addch(&sb, '\0');
	merge_records(&sb, c);
	/* a cache: not fsynced, and a failure to write it is no error */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0) {
		int failed = gs_write_in_full(fd, sb.buf, sb.len) < 0;

		if (close(fd) < 0 || failed || rename(tmp, path) < 0)
			unlink(tmp);
	}
	sbuf_release(&sb);
	free(tmp);
	free(path);
}

void store_cache_free(gs_store *st)
{
	struct store_cache *c = st->cache;

	if (!c)
		return;
	if (c->n && store_workdir(st))
		cache_write(st, c);	/* records no error: a cache */
	for (size_t i = 0; i < c->n; i++)
		free((char *)c->learned[i].path);
	free(c->learned);
	free(c->text);
	free(c);
	st->cache = NULL;
}
