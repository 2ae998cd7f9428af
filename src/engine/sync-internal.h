/*
 * sync-internal.h - what the files of sync share: the replay merge that
 * integrating calls. Not for other folders.
 */
#ifndef GIT_SESSION_SYNC_INTERNAL_H
#define GIT_SESSION_SYNC_INTERNAL_H

#include <cjson/cJSON.h>

#include "git-session/engine.h"
#include "git-session/sync.h"

/*
 * Merges theirs into ours, both tips of session id, by replaying the
 * operations of both sides since their merge base in one deterministic
 * order; from names their side in the message ("<remote>/<id>"). *merged
 * is the merge checkpoint, not yet on any ref; report gets its
 * "conflicts" and "skipped".
 */
int sync_merge(char merged[HEX_SZ], struct engine *e, const char *id, const char *ours,
	       const char *theirs, const char *from, cJSON *report);

/* The refs a sync compares, each list read once and sorted by id. */
struct sync_refs {
	struct store_ref_entry *local, *tracking, *archived;
	struct store_ref_entry *pruned;	/* what gc deleted here: an id may have several */
	size_t nlocal, ntracking, narchived, npruned;
};

int sync_refs_read(struct sync_refs *r, gs_store *st, const char *remote);
void sync_refs_clear(struct sync_refs *r);
/* qsort's order of store_ref_entry lists: by id. */
int sync_cmp_entry(const void *a, const void *b);
/*
 * sync_integrate on refs already read: only the sessions whose tip
 * differs on the two sides are looked at, and only those that moved, or
 * were left alone or refused, are reported.
 */
int sync_integrate_refs(cJSON *report, struct engine *e, const struct sync_opts *o, const struct sync_refs *r);

#endif
