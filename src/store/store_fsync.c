/*
 * store_fsync.c - how durable a checkpoint is: as git's own commits
 * (core.fsync, core.fsyncMethod, core.fsyncObjectFiles), or more when
 * session.fsync asks. libgit2 1.5 has one process-wide switch for
 * fsync; its reference database reads it once, when created, and its
 * loose objects at each write: so the refs get a database of their own
 * made under the refs' choice, and the switch is left at the objects'.
 * git's batch mode becomes one syncfs() before a ref moves.
 */
#include "store-internal.h"

#include <fcntl.h>
#include <git2/sys/repository.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const struct {
	const char *name;
	unsigned mask;
} components[] = {
	{ "loose-object", GS_FSYNC_LOOSE_OBJECT },
	{ "pack", GS_FSYNC_PACK },
	{ "pack-metadata", GS_FSYNC_PACK_METADATA },
	{ "commit-graph", GS_FSYNC_COMMIT_GRAPH },
	{ "index", GS_FSYNC_INDEX },
	{ "reference", GS_FSYNC_REFERENCE },
	{ "objects", GS_FSYNC_LOOSE_OBJECT | GS_FSYNC_PACK },
	{ "derived-metadata", GS_FSYNC_PACK_METADATA | GS_FSYNC_COMMIT_GRAPH },
	{ "committed", GS_FSYNC_LOOSE_OBJECT | GS_FSYNC_PACK | GS_FSYNC_REFERENCE },
	{ "added", GS_FSYNC_LOOSE_OBJECT | GS_FSYNC_PACK | GS_FSYNC_REFERENCE | GS_FSYNC_INDEX },
	{ "all", GS_FSYNC_ALL },
};

/*
 * git's parse_fsync_components(), quirks and all: "none" empties only as
 * the last name, "-x" removes x, a name matches the components it
 * begins (as "ref" does "reference"), and an unknown one is ignored.
 */
unsigned store_fsync_parse(const char *value)
{
	unsigned current = GS_FSYNC_DEFAULT, plus = 0, minus = 0;

	while (value) {
		size_t len;
		int negated = 0;

		value += strspn(value, ", \t\n\r");
		len = strcspn(value, ",");
		if (!strcmp(value, "none")) {
			current = 0;
		} else {
			if (*value == '-') {
				negated = 1;
				value++;
				len--;
			}
			if (!len)
				break;
			for (size_t i = 0; i < ARRAY_SIZE(components); i++)
				if (!strncmp(components[i].name, value, len))
					*(negated ? &minus : &plus) |= components[i].mask;
		}
		value = value[len] ? value + len : NULL;
	}
	return (current & ~minus) | plus;
}

/* The components asked for, and whether objects are synced one by one or behind one barrier. */
static int read_config(unsigned *mask, int *batch, gs_store *st)
{
	char *value = store_config_str(st, "core.fsync"), *method = store_config_str(st, "core.fsyncMethod");
	int legacy, session, error = 0;

	*mask = store_fsync_parse(value);
	/* writeout-only flushes no disk cache: libgit2 cannot, and a barrier is as cheap */
	*batch = method && (!strcasecmp(method, "batch") || !strcasecmp(method, "writeout-only"));
	if ((error = store_config_bool(&legacy, st, "core.fsyncObjectFiles", 0)) < 0 ||
	    (error = store_config_bool(&session, st, "session.fsync", 0)) < 0)
		goto cleanup;
	if (legacy)
		*mask |= GS_FSYNC_LOOSE_OBJECT;
	if (session)
		*mask |= GS_FSYNC_LOOSE_OBJECT | GS_FSYNC_REFERENCE;
	st->fsync = session;
cleanup:
	free(value);
	free(method);
	return error;
}

int store_fsync_setup(gs_store *st)
{
	git_refdb *refdb = NULL;
	unsigned mask;
	int batch, error;

	if (read_config(&mask, &batch, st) < 0)
		return GS_ERROR;
	st->sync_refs = !!(mask & GS_FSYNC_REFERENCE);
	st->sync_objects = !(mask & GS_FSYNC_LOOSE_OBJECT) ? STORE_SYNC_NONE : batch ? STORE_SYNC_BATCH : STORE_SYNC_EACH;
	/* a durable ref must not name objects a power cut could take: a barrier at least */
	if (st->sync_refs && st->sync_objects == STORE_SYNC_NONE)
		st->sync_objects = STORE_SYNC_BATCH;
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, st->sync_refs);
	error = git_refdb_open(&refdb, st->repo);
	if (!error)
		error = git_repository_set_refdb(st->repo, refdb);
	git_refdb_free(refdb);
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, st->sync_objects == STORE_SYNC_EACH);
	return error < 0 ? store_git_error("cannot open the references") : 0;
}

/*
 * Batch: the objects were written without fsync; one syncfs() of their
 * file system makes them, and the folders made for them, durable before
 * a ref names them. What it costs follows what was written since.
 */
void store_fsync_barrier(gs_store *st)
{
	char *path;
	int fd;

	if (st->sync_objects != STORE_SYNC_BATCH)
		return;
	path = xstrfmt("%sobjects", git_repository_commondir(st->repo));
	if ((fd = open(path, O_RDONLY)) >= 0) {
#ifdef __linux__
		if (syncfs(fd) < 0)
#endif
			sync();
		close(fd);
	}
	free(path);
}
