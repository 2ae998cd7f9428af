/*
 * store_cache.c - the stat cache: for each file of the working tree the
 * store hashed, its size, mtime, inode and mode then, and the blob it
 * held, so that a file whose stat has not changed is not read again (as
 * git trusts an index entry). Those are one clone's facts: the cache is a
 * file of this worktree's git directory, never part of a session, and
 * one written for another working tree (a copied or moved clone) is not
 * trusted. Lost or damaged, it only costs a read of each file.
 *
 * The file: a header "git-session stat cache 1 <work tree>" then, sorted
 * by path, "<oid> <mode> <size> <mtime ms> <inode> <path>", each record
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
#define CACHE_MAGIC "git-session stat cache 1 "
#define CACHE_MAX ((size_t)256 << 20)
#define CACHE_ENTRIES_MAX 1000000	/* past that, nothing more is learned */

struct cache_entry {
	const char *path;	/* in the file's text, or owned */
	char oid[HEX_SZ];
	const char *mode;	/* STORE_MODE_* */
	unsigned long long size, mtime, ino;
	int owned, gone;
};

struct store_cache {
	char *text;		/* the file as read: paths point into it */
	struct cache_entry *v;
	size_t n, alloc;
	size_t sorted;		/* v[0..sorted) are in path order; later ones were learned since */
	int dirty;
};

static const char *mode_of(const struct stat *s)
{
	return S_ISLNK(s->st_mode) ? STORE_MODE_LINK : s->st_mode & 0100 ? STORE_MODE_EXEC : STORE_MODE_FILE;
}

static unsigned long long mtime_ms(const struct stat *s)
{
	return (unsigned long long)s->st_mtim.tv_sec * 1000 + (unsigned long long)s->st_mtim.tv_nsec / 1000000;
}

static char *cache_path(gs_store *st)
{
	return xstrfmt("%s" CACHE_FILE, store_gitdir(st));
}

/* One record "<oid> <mode> <size> <mtime> <ino> <path>" into e; -1 when it is not one. */
static int parse_entry(struct cache_entry *e, const char *rec)
{
	static const char *const modes[] = { STORE_MODE_FILE, STORE_MODE_EXEC, STORE_MODE_LINK };
	unsigned long long *nums[] = { &e->size, &e->mtime, &e->ino };
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

/* The cache as the file holds it; empty when there is none, or it is damaged or another working tree's. */
static struct store_cache *cache_load(gs_store *st)
{
	struct store_cache *c = xcalloc(1, sizeof(*c));
	char *path = cache_path(st), *head = xstrfmt(CACHE_MAGIC "%s", store_workdir(st));
	size_t len = 0, mark = gs_error_mark();
	const char *p, *end;

	if (access(path, R_OK) || gs_read_file(&c->text, &len, path, CACHE_MAX) < 0 ||
	    !len || c->text[len - 1] || strcmp(c->text, head))
		goto empty;
	for (p = c->text + strlen(c->text) + 1, end = c->text + len; p < end; p += strlen(p) + 1) {
		ALLOC_GROW(c->v, c->n + 1, c->alloc);
		if (parse_entry(&c->v[c->n], p) < 0 || (c->n && strcmp(c->v[c->n - 1].path, c->v[c->n].path) >= 0))
			goto empty;	/* damaged: trust none of it */
		c->n++;
	}
	c->sorted = c->n;
	goto done;
empty:
	c->n = c->sorted = 0;
	c->dirty = len > 0;	/* rewritten for this working tree */
done:
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

static struct cache_entry *find(struct store_cache *c, const char *path)
{
	size_t lo = 0, hi = c->sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(c->v[mid].path, path);

		if (!cmp)
			return &c->v[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = c->sorted; i < c->n; i++)	/* learned by this process: a few */
		if (!strcmp(c->v[i].path, path))
			return &c->v[i];
	return NULL;
}

int store_cache_match(char oid[HEX_SZ], gs_store *st, const char *path, const struct stat *s)
{
	struct store_cache *c = cache_of(st);
	const struct cache_entry *e = c ? find(c, path) : NULL;

	if (!e || e->gone || e->size != (unsigned long long)s->st_size || e->mtime != mtime_ms(s) ||
	    e->ino != (unsigned long long)s->st_ino || strcmp(e->mode, mode_of(s)))
		return 0;
	memcpy(oid, e->oid, HEX_SZ);
	return 1;
}

void store_cache_learn(gs_store *st, const char *path, const char *oid, const struct stat *s)
{
	struct store_cache *c = cache_of(st);
	struct cache_entry *e;

	if (!c)
		return;
	/* changed in the last second: it could change again within the mtime's granularity ("racily clean") */
	if (time(NULL) - s->st_mtim.tv_sec <= 1) {
		store_cache_forget(st, path);
		return;
	}
	if (!(e = find(c, path))) {
		if (c->n >= CACHE_ENTRIES_MAX)
			return;
		ALLOC_GROW(c->v, c->n + 1, c->alloc);
		e = &c->v[c->n++];
		memset(e, 0, sizeof(*e));
		e->path = xstrdup(path);
		e->owned = 1;
	} else if (!e->gone && !strcmp(e->oid, oid) && e->size == (unsigned long long)s->st_size &&
		   e->mtime == mtime_ms(s) && e->ino == (unsigned long long)s->st_ino && !strcmp(e->mode, mode_of(s))) {
		return;	/* known already */
	}
	memcpy(e->oid, oid, HEX_SZ - 1);
	e->oid[HEX_SZ - 1] = '\0';
	e->mode = mode_of(s);
	e->size = (unsigned long long)s->st_size;
	e->mtime = mtime_ms(s);
	e->ino = (unsigned long long)s->st_ino;
	e->gone = 0;
	c->dirty = 1;
}

void store_cache_forget(gs_store *st, const char *path)
{
	struct store_cache *c = cache_of(st);
	struct cache_entry *e = c ? find(c, path) : NULL;

	if (e && !e->gone) {
		e->gone = 1;
		c->dirty = 1;
	}
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct cache_entry *)a)->path, ((const struct cache_entry *)b)->path);
}

/* Writes the cache whole through a temporary renamed over it: a reader sees the old or the new. */
static void cache_write(gs_store *st, struct store_cache *c)
{
	char *path = cache_path(st), *tmp = xstrfmt("%s.tmp.%ld", path, (long)getpid());
	struct sbuf sb = SBUF_INIT;
	int fd;

	qsort(c->v, c->n, sizeof(*c->v), cmp_entry);
	sbuf_addf(&sb, CACHE_MAGIC "%s", store_workdir(st));
	sbuf_addch(&sb, '\0');
	for (size_t i = 0; i < c->n; i++) {
		const struct cache_entry *e = &c->v[i];

		if (e->gone)
			continue;
		sbuf_addf(&sb, "%s %s %llu %llu %llu %s", e->oid, e->mode, e->size, e->mtime, e->ino, e->path);
		sbuf_addch(&sb, '\0');
	}
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
	size_t mark = gs_error_mark();

	if (!c)
		return;
	if (c->dirty && store_workdir(st))
		cache_write(st, c);
	gs_error_rewind(mark);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].owned)
			free((char *)c->v[i].path);
	free(c->v);
	free(c->text);
	free(c);
	st->cache = NULL;
}
