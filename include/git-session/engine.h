/*
 * engine.h - the operation engine: loads a session's state through the
 * store, applies an operation with the model, and publishes the new
 * checkpoint with a compare-and-swap, retrying on a lost race so that
 * concurrent writers lose nothing. Uses store and state; no libgit2.
 */
#ifndef GIT_SESSION_ENGINE_H
#define GIT_SESSION_ENGINE_H

#include <stdint.h>
#include <cjson/cJSON.h>

#include "git-session/state.h"
#include "git-session/store.h"

struct engine {
	gs_store *st;
	struct state_limits lim;
	int64_t lock_timeout_ms;	/* session.lockTimeout: total wait on lost races */
	int64_t stale_lock_age;		/* session.staleLockAge: seconds after which a lock is a dead writer's */
};

int engine_init(struct engine *e, gs_store *st);

/* "refs/sessions/<id>"; the caller frees it. */
char *engine_refname(const char *id);

/*
 * Reads and validates the checkpoint refname points at. On success *state
 * is the normalised state (caller frees with cJSON_Delete) and tip is
 * filled (caller clears with store_tip_clear). GS_ENOTFOUND, quietly, when
 * the ref does not exist.
 */
int engine_load_ref(cJSON **state, struct store_tip *tip, gs_store *st, const char *refname);
/*
 * The same, with only the collections in wanted (bits of
 * state_split_keys) read when a large state keeps them apart; the
 * others are empty. For readers that need a part of a large state.
 */
/*
 * What status and resume read: everything, but of the lists that only
 * grow and are shown by their latest entries (ENGINE_VIEW_TAIL) only the
 * last chunk and the tail session.json keeps; before[i] gets how many
 * entries of list i come before those loaded, for counts.
 */
#define ENGINE_VIEW_TAIL (NEED(NOTES) | NEED(DECISIONS) | NEED(ARTIFACTS))
int engine_load_view(cJSON **state, struct store_tip *tip, int before[SPLIT_COUNT], gs_store *st,
		     const char *refname);
int engine_load_some(cJSON **state, struct store_tip *tip, gs_store *st, const char *refname,
		     unsigned wanted);
/*
 * The string values of keys (keys[0] one every state has) at the top of
 * refname's session.json -- or of commit hex, when given -- read without
 * parsing the state: for readers of a few fields of many sessions, or on
 * every commit. A text that does not scan is loaded in full, to say what
 * is wrong. vals[i] is NULL when absent; the caller frees each, and
 * clears tip. GS_ENOTFOUND, quietly, when refname does not exist.
 */
int engine_peek(char **vals, struct store_tip *tip, gs_store *st, const char *refname, const char *hex,
		const char *const *keys, size_t n);
/* The same for any revision that names a checkpoint. */
int engine_load_rev(cJSON **state, struct store_tip *tip, gs_store *st, const char *rev);

/* Resolves a session id to a live session's ref, or prints why not. */
int engine_find(char **refname, gs_store *st, const char *id);
/* The active session's id (SESSION_HEAD), or an error saying there is none. */
int engine_active(char **id, gs_store *st);

/* What a published checkpoint gives back; free with engine_result_clear. */
struct engine_result {
	char commit[HEX_SZ];
	char *subject;
	cJSON *state;
};
void engine_result_clear(struct engine_result *r);

/*
 * Applies op (which it completes with the time and the project's branch
 * and head) to session id and publishes a checkpoint. body, if given,
 * goes into the commit message under the subject. With create the
 * session must not exist yet (ENGINE_CREATE); with ENGINE_IN_PROGRESS a
 * session that is not in progress is left alone, quietly: GS_ESKIPPED.
 * With ENGINE_AUTHOR_AT the checkpoint's author date is the op's time.
 * out may be NULL.
 */
#define ENGINE_CREATE 1
#define ENGINE_IN_PROGRESS 2
#define ENGINE_AUTHOR_AT 4	/* the commit's author time is the op's "at" */
int engine_commit(struct engine_result *out, struct engine *e, const char *id, struct state_op *op,
		  const char *body, int flags);

/*
 * Writes a checkpoint of state (session.json, and the collections kept
 * beside it that changed against old, the parts the state was read with,
 * of which loaded says what was loaded: NULL for everything;
 * all of them, replacing state/, when old_known is 0) with what else cp
 * says. cp's json and parts are filled in here. The ref does not move.
 */
int engine_write(char out[HEX_SZ], gs_store *st, struct store_checkpoint *cp, const cJSON *state,
		 const struct state_loaded *loaded, const struct gs_part *old, size_t nold, int old_known);
/* Fills in op's time (if unset) and where the project stands. */
int engine_complete_op(cJSON *op, gs_store *st);
/* A checkpoint's commit message: subject, body, then the trailers; the caller frees it. */
char *engine_message(const char *subject, const char *body, const char *id, const struct state_op *op);

/*
 * Moves a session's ref (archive, unarchive) with its reflog, as
 * store_rename; a lock left by a dead writer (older than
 * session.staleLockAge) is removed, a live one waited for up to
 * session.lockTimeout. Nothing is deleted before the new ref is written.
 */
int engine_move(struct engine *e, const char *from, const char *to, const char *logmsg);
/* Deletes a ref and its reflog if it still points at expect, waiting on locks as engine_move. */
int engine_delete_ref(struct engine *e, const char *refname, const char *expect);
/* Whether session id is the active one (SESSION_HEAD) of any worktree of the repository. */
int engine_active_anywhere(int *out, gs_store *st, const char *id);

/*
 * Records the working tree's path into files (record.c): its blob (git's
 * filters applied) under path as {"oid", "status", "mode" (for a link or
 * an executable), "size", "mtime", "ino"}; the stat fields are left out
 * for a file changed in the last second. A missing file is recorded with
 * status "deleted" and no oid when allow_missing, else refused; a path
 * outside the sparse checkout is left as it is. status NULL: "modified".
 */
int engine_record_file(cJSON *files, gs_store *st, const char *path, const char *status, int allow_missing);
/*
 * The same (allow_missing) for a path files does not hold yet: appended
 * without a lookup, so that recording a whole manifest stays linear.
 * known, when not NULL, is the manifest's entry for path: a file whose
 * size, mtime, inode and mode are those it recorded is not read again.
 */
int engine_record_file_new(cJSON *files, gs_store *st, const char *path, const char *status, const cJSON *known);

/*
 * What the index stages against HEAD, as files for the manifest: path ->
 * {"status": created|modified|deleted, "oid": staged blob} (record.c).
 */
int engine_staged_files(cJSON **out, gs_store *st);
/*
 * Commit oid's first message line, and the files it changes against its
 * first parent, as engine_staged_files gives them. The caller frees both.
 */
int engine_commit_files(char **subject, cJSON **files, gs_store *st, const char *oid);

#endif
