/*
 * store_fsck.h - the store's side of fsck and repair: reading every
 * object of a checkpoint, the reflog, moving damaged objects aside and
 * setting a ref whatever it holds (src/store/store_fsck.c).
 */
#ifndef GIT_SESSION_STORE_FSCK_H
#define GIT_SESSION_STORE_FSCK_H

#include "git-session/store.h"

/* What reading every object of one checkpoint found. */
struct store_verify {
	char *problem;		/* the first thing wrong, or NULL */
	int has_parent;
	char parent[HEX_SZ];	/* first parent */
	char *json;		/* session.json, when it could be read */
	size_t len;
	struct gs_part *parts;	/* the blobs under state/ */
	size_t nparts, aparts;
	char **bad;		/* ids of objects that cannot be read */
	size_t nbad, abad;
	int unfetched;		/* objects a partial clone has not fetched yet: not damage */
};
void store_verify_clear(struct store_verify *v);
/*
 * Reads commit, its tree and every tree and blob under it, verifying
 * each object's hash. Returns 0 when it could look (v->problem says what
 * is wrong, if anything), negative when it could not even start.
 */
int store_verify(struct store_verify *v, gs_store *st, const char *commit);
/* The newest reflog entry's new value; GS_ENOTFOUND when there is none. */
int store_reflog_newest(char out[HEX_SZ], gs_store *st, const char *refname);
/* How many entries refname's reflog has (0: none, or no reflog). */
size_t store_reflog_count(gs_store *st, const char *refname);
/* Whether some reflog entry of refname set it to commit. */
int store_reflog_has(gs_store *st, const char *refname, const char *commit);
/* The reflog's entry before the one that set commit: GS_ENOTFOUND when there is none. */
int store_reflog_before(char out[HEX_SZ], gs_store *st, const char *refname, const char *commit);
/*
 * Moves a loose object out of the object store, into the folder name of
 * the git directory; GS_ENOTFOUND if it is not loose.
 */
int store_quarantine(gs_store *st, const char *oid, const char *name);
/*
 * Makes the newest reflog entry follow the one before it (its old value
 * that entry's new one): after a ref set by hand to something the reflog
 * never held, git fsck then finds no entry naming it.
 */
int store_reflog_relink_newest(gs_store *st, const char *refname);
/* Drops reflog entries whose new value is one of oids. */
int store_reflog_drop(gs_store *st, const char *refname, char *const *oids, size_t n);
/*
 * Sets refname whatever it holds, with a reflog entry. A garbage ref file
 * is moved first into quarantine, a folder of the git directory.
 */
int store_force_ref(gs_store *st, const char *refname, const char *new_hex, const char *logmsg,
		    const char *quarantine);
/* Whether the object is in a pack (so not loose, and not to be moved aside). */
int store_object_packed(gs_store *st, const char *oid);

#endif
