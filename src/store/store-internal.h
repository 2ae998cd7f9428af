/*
 * store-internal.h - what the store's files share. Only the store
 * includes libgit2.
 */
#ifndef GIT_SESSION_STORE_INTERNAL_H
#define GIT_SESSION_STORE_INTERNAL_H

#include <git2.h>
#include <signal.h>

#include "git-session/store.h"
#include "git-session/store_fsck.h"
#include "git-session/util.h"

struct gs_store {
	git_repository *repo;
	git_config *config;	/* a snapshot, read once */
	char **cli_keys;	/* `git -c key=value`, from GIT_CONFIG_PARAMETERS; */
	char **cli_values;	/* a value is NULL for a bare key (true) */
	size_t ncli, acli;
	int fsync;		/* session.fsync: also the files restore writes */
	enum store_sync { STORE_SYNC_NONE, STORE_SYNC_EACH, STORE_SYNC_BATCH } sync_objects;
	int sync_refs;		/* refs and reflogs fsynced as they are written */
	int sign;		/* session.sign, else commit.gpgSign; -1 until a commit asks */
	int sign_limit;		/* seconds the signer may take unattended, when config does not say (0: 10) */
	struct store_cache *cache;	/* this worktree's stat cache, read when first asked (store_cache.c) */
};

/*
 * Durability (store_fsync.c): what core.fsync, core.fsyncMethod,
 * core.fsyncObjectFiles and session.fsync ask, set on st and on libgit2;
 * the barrier that makes batch-written objects durable before a ref moves.
 */
int store_fsync_setup(gs_store *st);
void store_fsync_barrier(gs_store *st);
/* fsyncs a file or a directory, if it can be opened: what durability asks of what is written. */
void store_fsync_path(const char *path);
/* Prints "error: <what>: <libgit2's message>" and returns GS_ERROR. */
int store_git_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The object libgit2 just failed to find, in a partial clone: one git has
 * not fetched yet, and fetches when asked for it (libgit2 cannot). Its
 * hex into hex, or 0 when the last error is another.
 */
int store_missing_object(char hex[GIT_OID_HEXSZ + 1]);
int store_signature(git_signature **out, gs_store *st, const char *who);
int store_ident_parse_date(time_t *t, int *offset, const char *s);
/*
 * A checkpoint's commit (store_sign.c): by git commit-tree -S, signed
 * with git's own configuration, when session.sign (else commit.gpgSign)
 * says so, else by libgit2. Moves no ref.
 */
int store_commit_create(git_oid *out, gs_store *st, const git_signature *author, const git_signature *committer,
			const char *encoding, const char *message, const git_tree *tree, size_t nparents,
			const git_commit **parents);
/*
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT held off while a ref is changed
 * (store_refs.c): a kill then would leave a lock, or a half-done move.
 */
void store_hold_signals(sigset_t *saved);
void store_release_signals(const sigset_t *saved);
/* Reads loose objects before libgit2 does, failing on a truncated one (store_odb.c). */
int store_install_odb_guard(gs_store *st);

/*
 * The working tree (store_worktree.c), shared with store_put.c: why git
 * would not read path (beyond a symbolic link, in a submodule), or NULL;
 * the filter driver git would run for path (caller frees); an empty index
 * lent to libgit2 for as long as one blob is filtered.
 */
char *store_not_in_tree(gs_store *st, const char *path);
char *store_filter_driver(gs_store *st, const char *path, const char *which, int *builtin);
int store_attr_index_begin(gs_store *st);
void store_attr_index_end(gs_store *st);

/*
 * The stat cache (store_cache.c): this clone's facts of the files it
 * hashed, never a session's. match: 1 and the blob in oid when path's
 * entry has s's size, mtime, inode and mode; learn: path held blob oid
 * when it had stat s (not for a file changed in the last second); free:
 * written back when something was learned, silently (a cache).
 */
struct stat;
int store_cache_match(char oid[HEX_SZ], gs_store *st, const char *path, const struct stat *s);
void store_cache_learn(gs_store *st, const char *path, const char *oid, const struct stat *s);
void store_cache_free(gs_store *st);

#endif
