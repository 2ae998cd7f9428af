/*
 * store_worktree.h - the working tree side of the store: turning what a
 * user typed into a repository-relative path, hashing files into blobs,
 * writing them back (store_put.c) and comparing trees (store_tree.c).
 * Running git is store_run.h.
 */
#ifndef GIT_SESSION_STORE_WORKTREE_H
#define GIT_SESSION_STORE_WORKTREE_H

#include <time.h>
#include <cjson/cJSON.h>

#include "git-session/store.h"
#include "git-session/util.h"

/*
 * Normalises arg (relative to the current directory, or absolute) into a
 * path relative to the top of the working tree. Refuses paths outside
 * it and paths into .git. The caller frees *out.
 */
int store_worktree_relpath(char **out, gs_store *st, const char *arg);

/* What recording a file of the working tree found. */
enum store_found {
	STORE_FOUND_FILE,	/* a file or a symbolic link: its blob, mode and stat */
	STORE_FOUND_GONE,	/* not there, or no longer a file (allow_missing) */
	STORE_FOUND_SPARSE,	/* outside the sparse checkout: as it was recorded */
};
struct store_file_fact {
	enum store_found found;
	char oid[HEX_SZ];	/* the blob (filters applied), when a file */
	const char *mode;	/* STORE_MODE_FILE, _EXEC or _LINK, when a file */
};

/*
 * Hashes the working tree's path into a blob (git's filters applied) and
 * says in *out what it found. A missing file is STORE_FOUND_GONE when
 * allow_missing, else refused. A file whose size, mtime, inode and mode
 * are those this clone's stat cache (store_cache.c) holds for it is not
 * read again, as git trusts an index entry whose stat data has not
 * changed; known, when not NULL, is what the manifest recorded (its oid).
 */
int store_worktree_record(struct store_file_fact *out, gs_store *st, const char *path, int allow_missing,
			  const struct store_file_fact *known);

/*
 * Looks at every path of a manifest (state "files") in the working tree
 * and in HEAD, and returns facts, path -> {
 *   "fs": "file" | "missing" | "dir" | "unreadable" | "sparse",
 *   "mode": the file's mode now ("100644", "100755", "120000") when a file,
 *   "blocked": when missing because a folder on its way is a file, that file,
 *   "same_stat": whether size, mtime, inode and mode are those this
 *                clone's stat cache holds for the blob recorded (the file
 *                is then not read: it is what was recorded),
 *   "oid": the blob id of the file now (null when same_stat or not a file),
 *   "head_oid": the blob id HEAD holds at the path, or null,
 *   "error": why the file could not be read, or absent }.
 * Reads only the manifest's paths: cost follows the manifest, not the
 * repository. The caller frees *out.
 */
int store_worktree_scan(cJSON **out, gs_store *st, const cJSON *manifest);

/* The blob id of the file at path now, or NULL when it is missing; caller frees. */
int store_worktree_hash(char **out, gs_store *st, const char *path);

/* A unified diff of the recorded blob against the file now; caller frees. */
int store_worktree_diff(char **out, gs_store *st, const char *path, const char *recorded_oid);

/* Writing files back for restore (store_put.c). */

/*
 * Puts path in the working tree as the blob hex, byte for byte through
 * the checkout filters git would apply (eol, ident, filter drivers), an
 * executable file when mode is "100755", a symbolic link when "120000";
 * or removes it when hex is NULL. A file is written to a temporary and
 * renamed over it, so that a reader or a kill sees it old or new, never
 * half-written. Never writes through a symbolic link: a path beyond one
 * is an error, as is a folder where the file goes.
 */
int store_worktree_put(gs_store *st, const char *path, const char *hex, const char *mode);

/*
 * 0 when hex is a full blob id the repository holds as a blob, and, for
 * mode "120000", one a symbolic link can point to (not empty, no NUL, not
 * too long); else GS_ERROR and *why (caller frees).
 */
int store_worktree_blob_check(char **why, gs_store *st, const char *hex, const char *mode);

/* Commits and trees (store_tree.c). */

/* The last commit of HEAD that changed path, as "<abbrev> \"<subject>\"" (git log -1), or NULL; caller frees. */
int store_worktree_last_commit(char **out, gs_store *st, const char *path);

/*
 * Where the project stands against what a checkpoint recorded: {
 *   "branch": {"current", "recorded", "recorded_exists"},
 *   "head": {"current", "recorded", "recorded_exists", "new_commits",
 *            "commits": [{"id", "subject"}] (at most max), "descends"} }.
 * New commits are HEAD's that are neither the recorded HEAD, nor one of
 * seen (the commits the session recorded, nseen of them), nor behind
 * one: after a merge of two clones' records, what either saw is not new.
 * A recorded HEAD this clone lacks (a teammate's, not pulled yet) is not
 * a rewritten history when HEAD descends from a commit of seen.
 * The caller frees *out.
 */
int store_worktree_project(cJSON **out, gs_store *st, const char *recorded_branch, const char *recorded_head,
			   const char *const *seen, size_t nseen, int max);

/*
 * *out 1 when blob is path's in one of commits (n commit ids, oldest
 * first: the newest 64 are looked into; those this clone lacks are
 * passed over) that HEAD is or descends from, or in one of the newest 64
 * commits of HEAD's since them (a commit the session never saw): content
 * the history of HEAD holds, that a later commit changed; else 0.
 */
int store_worktree_in_history(int *out, gs_store *st, const char *path, const char *blob,
			      const char *const *commits, size_t n);

/*
 * *out 1 when a commit of HEAD's that changed path after commit since
 * (the last one, when since is not a commit here) is by another author
 * than the user (git's author identity): a teammate's change.
 */
int store_worktree_changed_by_others(int *out, gs_store *st, const char *path, const char *since);

/* Files two trees (or the index and HEAD) hold differently, in the order git lists them. */
enum store_change { STORE_ADDED, STORE_MODIFIED, STORE_DELETED };
struct store_changed_file {
	char *path;
	enum store_change change;
	char oid[HEX_SZ];	/* the new blob, when not deleted */
};
struct store_changes {
	struct store_changed_file *v;
	size_t n, alloc;
};
void store_changes_clear(struct store_changes *c);

/*
 * What the index stages against HEAD, added to out. Asks git (`git diff
 * --cached --raw`): it honours GIT_INDEX_FILE and its cache-tree, where
 * reading a large index with libgit2 costs O(index).
 */
int store_worktree_staged(struct store_changes *out, gs_store *st);

/*
 * Commit oid's first message line, and the files it changes against its
 * first parent (all of them for a root commit), added to files as
 * store_worktree_staged gives them: what the index staged for that
 * commit. The caller frees *subject and clears files.
 */
int store_worktree_commit(char **subject, struct store_changes *files, gs_store *st, const char *oid);

#endif
