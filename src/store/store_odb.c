/*
 * store_odb.c - a loose-object reader placed in front of libgit2's.
 *
 * libgit2 1.5 loops forever reading a truncated loose object: when
 * inflate() runs out of input it reports Z_BUF_ERROR, which libgit2
 * treats as "try again" (libgit2 #7342, fixed upstream after 1.5).
 * A session's tip truncated by a crash or a full disk would hang every
 * command. This backend, asked first, reads loose objects itself and
 * reports a truncated or garbled one as an error; libgit2 still checks
 * the object's hash. Objects it does not find loose (packed ones) go on
 * to libgit2's own backends. Store layer: libgit2 and zlib.
 */
#include "store-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <git2/sys/odb_backend.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define GUARD_PRIORITY 10		/* before libgit2's packs (2) and loose (1) */
#define LOOSE_MAX (1024u * 1024 * 1024)	/* refuse to inflate past 1 GiB */

struct guard {
	git_odb_backend parent;
	char *objects;	/* "<git dir>/objects/" */
};

static int corrupt(const git_oid *oid, const char *why)
{
	git_error_set(GIT_ERROR_ODB, "loose object %s is damaged: %s", git_oid_tostr_s(oid), why);
	return GS_ERROR;
}

/* The whole compressed file, or GIT_ENOTFOUND when there is no loose object. */
static int slurp(struct sbuf *sb, const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return errno == ENOENT ? GIT_ENOTFOUND : GS_ERROR;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || sb->len > LOOSE_MAX) {
			close(fd);
			return GS_ERROR;
		}
		sbuf_add(sb, buf, (size_t)n);
	}
	close(fd);
	return 0;
}

/* Inflates all of in into out; a stream that ends early is an error, never a loop. */
static int inflate_all(struct sbuf *out, const struct sbuf *in)
{
	z_stream z = { 0 };
	int ret;

	if (inflateInit(&z) != Z_OK)
		return GS_ERROR;
	z.next_in = (Bytef *)in->buf;
	z.avail_in = (uInt)in->len;
	do {
		sbuf_grow(out, 65536);
		z.next_out = (Bytef *)out->buf + out->len;
		z.avail_out = (uInt)(out->alloc - out->len - 1);
		ret = inflate(&z, Z_NO_FLUSH);
		out->len = (size_t)((char *)z.next_out - out->buf);
		if (ret == Z_BUF_ERROR && z.avail_in == 0)
			break;	/* no input left, and not the end: truncated */
	} while (ret == Z_OK && out->len <= LOOSE_MAX);
	inflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : GS_ERROR;
}

static int guard_read(void **data, size_t *len, git_object_t *type, git_odb_backend *backend,
		      const git_oid *oid)
{
	struct guard *g = (struct guard *)backend;
	struct sbuf raw = SBUF_INIT, obj = SBUF_INIT;
	char *path = xstrfmt("%s%.2s/%s", g->objects, git_oid_tostr_s(oid), git_oid_tostr_s(oid) + 2);
	const char *nul, *space;
	unsigned long size;
	char *end;
	int error;

	if ((error = slurp(&raw, path)) < 0) {
		if (error != GIT_ENOTFOUND)
			error = corrupt(oid, "cannot be read");
		goto cleanup;
	}
	if (inflate_all(&obj, &raw) < 0) {
		error = corrupt(oid, "its zlib stream is truncated or garbled");
		goto cleanup;
	}
	nul = memchr(obj.buf, '\0', obj.len);
	space = nul ? memchr(obj.buf, ' ', (size_t)(nul - obj.buf)) : NULL;
	if (!space) {
		error = corrupt(oid, "no object header");
		goto cleanup;
	}
	size = strtoul(space + 1, &end, 10);
	*(char *)space = '\0';
	*type = git_object_string2type(obj.buf);
	if (end != nul || *type == GIT_OBJECT_INVALID || size != obj.len - (size_t)(nul + 1 - obj.buf)) {
		error = corrupt(oid, "its header does not match its content");
		goto cleanup;
	}
	*data = git_odb_backend_data_alloc(backend, size + 1);
	memcpy(*data, nul + 1, size);
	*len = size;
	error = 0;
cleanup:
	sbuf_release(&raw);
	sbuf_release(&obj);
	free(path);
	return error;
}

static void guard_free(git_odb_backend *backend)
{
	struct guard *g = (struct guard *)backend;

	free(g->objects);
	free(g);
}

int store_install_odb_guard(gs_store *st)
{
	struct guard *g = xcalloc(1, sizeof(*g));
	git_odb *odb = NULL;
	int error;

	git_odb_init_backend(&g->parent, GIT_ODB_BACKEND_VERSION);
	g->parent.read = guard_read;
	g->parent.free = guard_free;
	g->objects = xstrfmt("%sobjects/", git_repository_commondir(st->repo));
	if ((error = git_repository_odb(&odb, st->repo)) < 0 ||
	    (error = git_odb_add_backend(odb, &g->parent, GUARD_PRIORITY)) < 0) {
		guard_free(&g->parent);
		git_odb_free(odb);
		return store_git_error("cannot set up the object database");
	}
	git_odb_free(odb);	/* the repository keeps it, and it keeps the backend */
	return 0;
}

int store_hash(char out[HEX_SZ], const char *buf, size_t len)
{
	git_oid id;

	if (git_odb_hash(&id, buf, len, GIT_OBJECT_BLOB) < 0)
		return store_git_error("cannot hash");
	git_oid_tostr(out, HEX_SZ, &id);
	return 0;
}

int store_blob_write(char out[HEX_SZ], gs_store *st, const char *buf, size_t len)
{
	git_oid id;

	if (git_blob_create_from_buffer(&id, st->repo, buf, len) < 0)
		return store_git_error("cannot write a blob");
	git_oid_tostr(out, HEX_SZ, &id);
	return 0;
}

int store_blob_read(char **out, size_t *len, gs_store *st, const char *hex)
{
	git_blob *blob = NULL;
	git_oid id;

	*out = NULL;
	if (git_oid_fromstr(&id, hex) < 0 || git_blob_lookup(&blob, st->repo, &id) < 0)
		return store_git_error("cannot read the blob %s", hex);
	*len = (size_t)git_blob_rawsize(blob);
	*out = xmalloc(*len + 1);
	memcpy(*out, git_blob_rawcontent(blob), *len);
	(*out)[*len] = '\0';
	git_blob_free(blob);
	return 0;
}

int store_object_exists(gs_store *st, const char *oid)
{
	git_odb *odb = NULL;
	git_object_t type;
	size_t len;
	git_oid id;
	int ok = git_oid_fromstr(&id, oid) == 0 && git_repository_odb(&odb, st->repo) == 0 &&
		 git_odb_read_header(&len, &type, odb, &id) == 0;

	git_odb_free(odb);
	git_error_clear();
	return ok;
}
