/*
 * store.h - the only layer that touches libgit2. Sessions are refs under
 * refs/sessions/, checkpoints are commits whose tree holds session.json,
 * op.json and files/<path>; SESSION_HEAD names the worktree's active
 * session. Object ids cross this interface as hex strings.
 *
 * Functions print their own "error: ..." line (git's error() style) and
 * return a negative code; GS_ENOTFOUND and GS_ERACE are returned quietly
 * where the caller is expected to handle them.
 */
#ifndef GIT_SESSION_STORE_H
#define GIT_SESSION_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cjson/cJSON.h>

#define SESSIONS_PREFIX "refs/sessions/"
#define ARCHIVE_PREFIX "refs/archive/sessions/"
#define SESSION_HEAD "SESSION_HEAD"
#define HEX_SZ 41	/* 40 hex digits and a NUL */

/* git's modes of a file in a tree: a regular file, an executable one, a symbolic link. */
#define STORE_MODE_FILE "100644"
#define STORE_MODE_EXEC "100755"
#define STORE_MODE_LINK "120000"

typedef struct gs_store gs_store;

/*
 * libgit2's process-wide set-up and tear-down, once per process. The
 * system's CA certificates are never loaded: no command talks to a
 * remote through libgit2 (store_tls.c).
 */
void store_global_init(void);
void store_global_shutdown(void);

/* Opens the repository of the current directory, honouring GIT_DIR and GIT_WORK_TREE. */
int store_open(gs_store **out);
/* The version of libgit2 git-session runs on ("1.5.1"). */
const char *store_libgit2_version(void);
/* The same, saying nothing when the repository cannot be opened: *why says why (caller frees). */
int store_open_why(gs_store **out, char **why);
void store_free(gs_store *st);
/*
 * The signer's time limit, in seconds, when session.signTimeout does not
 * set one and standard input is no terminal (10 unless set): a caller
 * that is itself given a deadline (an agent's hook) sets one within it.
 */
void store_set_sign_limit(gs_store *st, int seconds);
/* The working tree with a trailing '/', or NULL in a bare repository. */
const char *store_workdir(gs_store *st);
const char *store_gitdir(gs_store *st);
/* The git directory holding objects and refs (the common dir of worktrees). */
const char *store_commondir(gs_store *st);

/*
 * git's core.fsync components (git 2.36+), and what a value of it asks
 * for: names and aggregates separated by commas, "-x" to remove one,
 * "none"; unset, git's default (packs and their metadata, no loose object
 * and no ref). store_fsync.c.
 */
enum {
	GS_FSYNC_LOOSE_OBJECT = 1 << 0,
	GS_FSYNC_PACK = 1 << 1,
	GS_FSYNC_PACK_METADATA = 1 << 2,
	GS_FSYNC_COMMIT_GRAPH = 1 << 3,
	GS_FSYNC_INDEX = 1 << 4,
	GS_FSYNC_REFERENCE = 1 << 5,
	GS_FSYNC_ALL = (1 << 6) - 1,
	GS_FSYNC_DEFAULT = GS_FSYNC_PACK | GS_FSYNC_PACK_METADATA | GS_FSYNC_COMMIT_GRAPH,
};
unsigned store_fsync_parse(const char *value);

/* git config, all levels. A missing key gives def; a malformed one an error. */
int store_config_bool(int *out, gs_store *st, const char *key, int def);
int store_config_int(int64_t *out, gs_store *st, const char *key, int64_t def);
/* NULL when unset; the caller frees the result. */
char *store_config_str(gs_store *st, const char *key);
/* Whether name is a remote name git accepts, and none git would read as an option. */
int store_remote_name_valid(const char *name);

/* A checkpoint as read from the object store. */
struct store_tip {
	int exists;		/* 0: the ref does not exist yet */
	char commit[HEX_SZ];
	char *json;		/* session.json, NUL-terminated; freed by store_tip_clear */
	size_t len;
	time_t time;		/* committer time */
	char *subject;		/* the commit's first line */
	struct gs_part *parts;	/* state/<key>/<name> blobs read, in path order */
	size_t nparts, aparts;
};
void store_tip_clear(struct store_tip *tip);
/* Reads the checkpoint a ref points at. GS_ENOTFOUND when there is no such ref. */
int store_read_ref(struct store_tip *out, gs_store *st, const char *refname);
/*
 * What of a checkpoint's state/ to read: some folders whole, of others
 * only their last tail_chunks blobs in name order, and of one folder only
 * the blobs named. Lists are NULL-terminated, or NULL for none: a zeroed
 * struct store_want reads nothing of state/.
 */
struct store_want {
	const char *const *folders;	/* read whole ("notes") */
	const char *const *tails;	/* of each, the last tail_chunks blobs */
	int tail_chunks;
	const char *sharded;		/* a folder ("files") of which only ... */
	const char *const *shards;	/* ... these blobs are read ("3a.json") */
};
/* The same, reading of state/ only what want asks for (NULL: all of it). */
int store_read_ref_want(struct store_tip *out, gs_store *st, const char *refname,
			const struct store_want *want);
/* Reads session.json (no parts) of commit hex, full or abbreviated; what names it in messages. */
int store_read_commit(struct store_tip *out, gs_store *st, const char *hex, const char *what);
/* Reads the checkpoint any revision names (a commit id, <ref>~2, ...). */
int store_read_rev(struct store_tip *out, gs_store *st, const char *rev);

struct store_file {
	const char *path;	/* repository-relative */
	const char *oid;	/* blob id, or NULL to drop files/<path> */
	int link;		/* a symbolic link: mode 120000, as git stores one */
	int raw;		/* path is the checkpoint tree's own, not under files/ */
};
struct store_checkpoint {
	const struct store_tip *parent;	/* NULL or !exists: a root commit */
	const char *json;		/* the new session.json */
	size_t len;
	const char *op;			/* op.json */
	size_t oplen;
	const struct gs_part *parts;	/* state/ blobs to write, or remove (text NULL) */
	size_t nparts;
	const struct store_file *files;
	size_t nfiles;
	const char *message;
	const char *tree_from;		/* build on this commit's tree, not the parent's (a rollback) */
	const char *merge_parent;	/* a second parent (a merge of two histories) */
	const char *author_at;		/* the author's time (ISO 8601), when not now (an import) */
};
/* Writes blobs, tree and commit; does not move any ref. */
int store_write_checkpoint(char out[HEX_SZ], gs_store *st, const struct store_checkpoint *cp);
/*
 * Moves refname to new_hex if it still points at old_hex (NULL: only if
 * it does not exist yet), with a reflog entry. GS_ERACE when another
 * writer moved it or holds its lock.
 */
int store_cas(gs_store *st, const char *refname, const char *new_hex, const char *old_hex,
	      const char *logmsg);
/*
 * Removes refname's lock, and its reflog's, when older than max_age
 * seconds: a writer holds one for milliseconds, so such a lock was left
 * by a process that died (kill -9, power loss). Returns 1 when it
 * removed one, with a warning.
 */
int store_break_stale_lock(gs_store *st, const char *refname, int max_age);

/* The committer's time for a new checkpoint (GIT_COMMITTER_DATE or now). */
int store_now(time_t *out, gs_store *st);
/* "Name <email>", the author a commit made now would have; NULL when git knows none. The caller frees it. */
int store_ident(char **out, gs_store *st);

/* The id of the session SESSION_HEAD names, or NULL; the caller frees it. */
int store_active(char **out, gs_store *st);
int store_set_active(gs_store *st, const char *id);
int store_clear_active(gs_store *st);

/* Session ids under prefix (SESSIONS_PREFIX or ARCHIVE_PREFIX), sorted; free with store_ids_free. */
int store_list(char ***out, size_t *n, gs_store *st, const char *prefix);
void store_ids_free(char **ids, size_t n);
/* The same with the commit each ref points at; free with store_ref_entries_free. */
struct store_ref_entry {
	char *id;
	char tip[HEX_SZ];
};
int store_list_refs(struct store_ref_entry **out, size_t *n, gs_store *st, const char *prefix);
void store_ref_entries_free(struct store_ref_entry *v, size_t n);
/* The entry of id in a list store_list_refs made, or NULL. */
const struct store_ref_entry *store_ref_entry_find(const struct store_ref_entry *v, size_t n, const char *id);
/*
 * The history of checkpoint tip written again without paths in any of its
 * trees (store_rewrite.c); out gets the new tip. Commits that do not
 * change are kept. Moves no ref.
 */
int store_rewrite_without(char out[HEX_SZ], gs_store *st, const char *tip, const char *const *paths, size_t npaths);
/*
 * Deletes a ref and its reflog if it still points at expect (hex);
 * GS_ENOTFOUND when it is gone, GS_ERACE while it is locked.
 */
int store_delete_ref(gs_store *st, const char *refname, const char *expect);
/*
 * Moves a ref and its reflog's entries to a name that must be free
 * (store_refs.c): to is written first, from deleted after, each a
 * compare-and-swap, so that one of them names the session at every
 * instant; the end of a move cut short is taken up. Moves go one at a
 * time, under STORE_MOVE_LOCK ("<name>.lock" in the git directory, as
 * store_break_stale_lock takes a ref's). GS_ENOTFOUND when from is gone,
 * GS_ERACE when a lock is held on either or on the move.
 */
#define STORE_MOVE_LOCK "session-move"
int store_rename(gs_store *st, const char *from, const char *to, const char *logmsg);
/* The sessions SESSION_HEAD names in each worktree of the repository (duplicates kept). */
int store_active_all(char ***out, size_t *n, gs_store *st);
/*
 * The ids under prefix that only a reflog names: no ref, one entry at
 * least, and no lock younger than max_lock_age seconds (a writer at work).
 */
int store_reflog_orphans(char ***out, size_t *n, gs_store *st, const char *prefix, int max_lock_age);
int store_ref_exists(gs_store *st, const char *refname);
/* Whether the object oid (hex) is there and its header reads (a cheap look, not a full check). */
int store_object_exists(gs_store *st, const char *oid);
/* The value of refname as stored, or GS_ERROR (quietly) when the ref file is unreadable or garbage. */
int store_ref_value(char out[HEX_SZ], gs_store *st, const char *refname);

/*
 * The checkpoints reachable from any of tips but from none of hide,
 * each {"commit", "parents": [ids], "op": op.json's text, "time", "author"
 * (name <email> time)}; in no
 * particular order. The caller frees *out.
 */
int store_walk(cJSON **out, gs_store *st, const char *const *tips, size_t ntips,
	       const char *const *hide, size_t nhide);
/* The merge bases of a and b; *n is 0 when they share no history. */
int store_merge_bases(char ***out, size_t *n, gs_store *st, const char *a, const char *b);
/* The commits local has that upstream lacks (*ahead), and the other way round (*behind). */
int store_ahead_behind(size_t *ahead, size_t *behind, gs_store *st, const char *local, const char *upstream);
/* 1 when commit descends from (or is) ancestor, 0 when not. */
int store_descends(gs_store *st, const char *commit, const char *ancestor);
/* The blobs under dir in commit's tree, {path: blob id} (paths from the top; empty when none). */
int store_tree_paths(cJSON **out, gs_store *st, const char *commit, const char *dir);
/* The commits each remote's copy of session id points at (refs/remotes/<remote>/sessions/<id>); free with store_ids_free. */
int store_tracking_tips(char ***out, size_t *n, gs_store *st, const char *id);

/* The current branch (short name, "HEAD" when detached) and HEAD's commit (zeros when unborn). */
int store_head(char **branch, char head[HEX_SZ], gs_store *st);
/* Non-zero while a merge is being concluded (MERGE_HEAD exists). */
int store_merging(gs_store *st);
/* The repository is in the middle of a merge, rebase, cherry-pick, revert or bisect: its name, else NULL. */
const char *store_busy(gs_store *st);
/*
 * Where hooks go: core.hooksPath (relative to the top of the working
 * tree) when set, else the common git dir's hooks/. *from_config says
 * which. The caller frees *out.
 */
int store_hooks_dir(char **out, int *from_config, gs_store *st);

/* The blob id git would give buf (nothing is written). */
int store_hash(char out[HEX_SZ], const char *buf, size_t len);
/* The content of blob hex, NUL-terminated (it may hold NULs before); the caller frees it. */
int store_blob_read(char **out, size_t *len, gs_store *st, const char *hex);
/* Writes buf as a blob (a part of an agent's transcript). */
int store_blob_write(char out[HEX_SZ], gs_store *st, const char *buf, size_t len);

/*
 * The git session an agent's own session (its id, as its hooks give it)
 * belongs to, kept in the common git directory: *id NULL when none.
 */
int store_agent_linked(char **id, gs_store *st, const char *agent_session);
int store_agent_link(gs_store *st, const char *agent_session, const char *id);
/*
 * What `hooks install --agent` keeps of a worktree's settings file, to
 * give it back on uninstall: GS_ENOTFOUND when nothing is kept.
 */
int store_agent_backup_read(char **text, size_t *len, gs_store *st, const char *agent);
int store_agent_backup_write(gs_store *st, const char *agent, const char *text, size_t len);
int store_agent_backup_drop(gs_store *st, const char *agent);
/*
 * The repository's own exclude file, info/exclude in the common git
 * directory, which `hooks install --agent --local` adds a line to: read
 * whole (GS_ENOTFOUND when there is none) or replaced whole.
 */
int store_exclude_read(char **text, size_t *len, gs_store *st);
int store_exclude_write(gs_store *st, const char *text, size_t len);
/*
 * Whether git would leave path (relative to the top of the working tree)
 * out of `git add`: ignored by .gitignore at any level, info/exclude or
 * core.excludesFile, and not tracked. The agent hooks record no such
 * file; checkpoint records one only with --force, as git add.
 */
int store_ignored(int *out, gs_store *st, const char *path);
/* Whether real (an absolute path, symbolic links resolved) is in the git directory or the common one. */
int store_in_gitdir(gs_store *st, const char *real);
/*
 * The unified diff from blob old_hex to blob new_hex (either NULL: empty)
 * of path; GS_ENOTFOUND when either is not in the repository. *room is
 * the bytes of blobs the caller lets it read, the two blobs' taken from
 * it: when they do not fit, *out is NULL and nothing is read. Caller frees.
 */
int store_blob_diff(char **out, gs_store *st, size_t *room, const char *path, const char *old_hex,
		    const char *new_hex);
/* The blob commit (with parent, its first parent) holds at path; GS_ENOTFOUND when none. */
int store_commit_blob(char out[HEX_SZ], gs_store *st, const char *commit, int parent, const char *path);
/* A commit's message after its subject ("" when none); GS_ENOTFOUND when there is no such commit. Caller frees. */
int store_commit_body(char **out, gs_store *st, const char *hex);

/* Calls fn on each blob under dir in the tree of commit, in path order (none: no call). */
typedef int (*store_blob_fn)(const char *path, const char *data, size_t len, void *payload);
int store_walk_blobs(gs_store *st, const char *commit, const char *dir, store_blob_fn fn, void *payload);

/*
 * The project a session lives in: {name (origin's URL's last name, else
 * the working tree's or git dir's folder name: the same in every clone),
 * branch, head}; no path, which is one clone's. The caller owns it.
 */
cJSON *store_project(gs_store *st);

/*
 * A file of git-session's own in the git directory (name relative to it,
 * "session-list-cache"): read whole (GS_ENOTFOUND when there is none;
 * *text the caller frees), or replaced whole; a read-only git directory
 * is GS_ERROR, silently: such files are caches.
 */
int store_file_read(char **text, size_t *len, gs_store *st, const char *name, size_t max);
int store_file_write(gs_store *st, const char *name, const char *text, size_t len);
/* Whether refname's file is there but cannot be read as a ref (1), or not (0). */
int store_ref_damaged(gs_store *st, const char *refname);

#endif
