/*
 * store_refs.c - session refs: the compare-and-swap that moves one,
 * SESSION_HEAD and listing them; moving a ref between refs/sessions/ and
 * refs/archive/sessions/ without a moment in which neither names it, the
 * locks on those refs, the reflogs no ref goes with, the sessions active
 * in the repository's worktrees, and a ref file that does not read.
 */
#include "store-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void store_hold_signals(sigset_t *saved)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, saved);
}

void store_release_signals(const sigset_t *saved)
{
	sigprocmask(SIG_SETMASK, saved, NULL);
}

/* A new ref created refs/sessions/ (and its reflog's folder) perhaps: make them durable. */
static void sync_ref_dirs(gs_store *st, const char *refname)
{
	const char *const bases[] = { "", "logs/" };

	for (size_t i = 0; i < 2; i++) {
		char *path = xstrfmt("%s%s%s", git_repository_commondir(st->repo), bases[i], refname);
		char *slash;

		while ((slash = strrchr(path, '/')) && slash > path + strlen(git_repository_commondir(st->repo))) {
			*slash = '\0';
			store_fsync_path(path);
		}
		free(path);
	}
}

int store_cas(gs_store *st, const char *refname, const char *new_hex, const char *old_hex,
	      const char *logmsg)
{
	git_reference *ref = NULL;
	git_oid new_id, old_id;
	sigset_t saved;
	int error;

	if (git_oid_fromstr(&new_id, new_hex) < 0)
		return gs_error("bad object id '%s'", new_hex);
	if (old_hex) {
		if (git_oid_fromstr(&old_id, old_hex) < 0)
			return gs_error("bad object id '%s'", old_hex);
	} else {
		memset(&old_id, 0, sizeof(old_id));	/* zero: must not exist yet */
	}
	/* libgit2 and git log only some namespaces by default: ask for ours */
	if (git_reference_ensure_log(st->repo, refname) < 0)
		return store_git_error("cannot create the reflog of '%s'", refname);
	/* what the ref will name, durable first when durability is asked */
	store_fsync_barrier(st);
	/* a signal now would leave <ref>.lock behind: hold it off until the lock is gone */
	store_hold_signals(&saved);
	error = git_reference_create_matching(&ref, st->repo, refname, &new_id, 1, &old_id, logmsg);
	if (!error && !old_hex && st->sync_refs)
		sync_ref_dirs(st, refname);
	store_release_signals(&saved);
	git_reference_free(ref);
	if (error == GIT_EMODIFIED || error == GIT_ELOCKED || error == GIT_EEXISTS) {
		git_error_clear();
		return GS_ERACE;
	}
	if (error < 0)
		return store_git_error("cannot update '%s'", refname);
	return 0;
}

int store_active(char **out, gs_store *st)
{
	git_reference *ref = NULL;
	const char *target;
	int error;

	*out = NULL;
	error = git_reference_lookup(&ref, st->repo, SESSION_HEAD);
	if (error == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (error < 0)
		return store_git_error("cannot read %s", SESSION_HEAD);
	target = git_reference_symbolic_target(ref);
	if (target && !strncmp(target, SESSIONS_PREFIX, strlen(SESSIONS_PREFIX)))
		*out = xstrdup(target + strlen(SESSIONS_PREFIX));
	else
		gs_warning("%s does not name a session; ignoring it", SESSION_HEAD);
	git_reference_free(ref);
	return 0;
}

/*
 * Whether to set or remove SESSION_HEAD again after finding it locked:
 * another command of this worktree holds the lock for microseconds (waited
 * for, 2 s at most); a dead one's, older than session.staleLockAge, goes.
 */
static int head_locked_again(gs_store *st, int *tries)
{
	int64_t age;

	git_error_clear();
	if ((*tries)++ >= 200)
		return 0;
	if (store_config_int(&age, st, "session.staleLockAge", 10) == 0 &&
	    store_break_stale_lock(st, SESSION_HEAD, (int)age))
		return 1;
	nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	return 1;
}

int store_set_active(gs_store *st, const char *id)
{
	git_reference *ref = NULL;
	char *target = xstrfmt("%s%s", SESSIONS_PREFIX, id);
	char *msg = xstrfmt("session: switch to %s", id);
	int error, tries = 0;

	do {
		git_reference_free(ref);
		ref = NULL;
		error = git_reference_symbolic_create(&ref, st->repo, SESSION_HEAD, target, 1, msg);
	} while (error == GIT_ELOCKED && head_locked_again(st, &tries));
	git_reference_free(ref);
	free(target);
	free(msg);
	return error < 0 ? store_git_error("cannot set %s", SESSION_HEAD) : 0;
}

int store_clear_active(gs_store *st)
{
	int error, tries = 0;

	while ((error = git_reference_remove(st->repo, SESSION_HEAD)) == GIT_ELOCKED && head_locked_again(st, &tries))
		;
	if (error == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	return error < 0 ? store_git_error("cannot remove %s", SESSION_HEAD) : 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct store_ref_entry *)a)->id, ((const struct store_ref_entry *)b)->id);
}

int store_list_refs(struct store_ref_entry **out, size_t *n, gs_store *st, const char *prefix)
{
	git_reference_iterator *it = NULL;
	char *glob = xstrfmt("%s*", prefix);
	size_t alloc = 0, plen = strlen(prefix);
	struct store_ref_entry *v = NULL;
	git_reference *ref;
	int error;

	*n = 0;
	*out = NULL;
	if (git_reference_iterator_glob_new(&it, st->repo, glob) < 0) {
		free(glob);
		return store_git_error("cannot list '%s'", prefix);
	}
	while ((error = git_reference_next(&ref, it)) == 0) {
		const char *name = git_reference_name(ref) + plen;
		const git_oid *target = git_reference_target(ref);

		if (!strchr(name, '/') && target) {
			ALLOC_GROW(v, *n + 1, alloc);
			v[*n].id = xstrdup(name);
			git_oid_tostr(v[(*n)++].tip, HEX_SZ, target);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	free(glob);
	if (error != GIT_ITEROVER) {
		store_ref_entries_free(v, *n);
		*n = 0;
		return store_git_error("cannot list '%s'", prefix);
	}
	git_error_clear();
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_entry);
	*out = v;
	return 0;
}

const struct store_ref_entry *store_ref_entry_find(const struct store_ref_entry *v, size_t n, const char *id)
{
	struct store_ref_entry key = { (char *)id, "" };

	return n ? bsearch(&key, v, n, sizeof(*v), cmp_entry) : NULL;
}

void store_ref_entries_free(struct store_ref_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].id);
	free(v);
}

int store_list(char ***out, size_t *n, gs_store *st, const char *prefix)
{
	struct store_ref_entry *v;
	int error = store_list_refs(&v, n, st, prefix);

	*out = NULL;
	if (error < 0)
		return error;
	*out = xcalloc(*n + 1, sizeof(**out));
	for (size_t i = 0; i < *n; i++)
		(*out)[i] = v[i].id;	/* the ids move over */
	free(v);
	return 0;
}

void store_ids_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

int store_ref_exists(gs_store *st, const char *refname)
{
	git_oid id;
	int error = git_reference_name_to_id(&id, st->repo, refname);

	git_error_clear();
	return error == 0;
}
/* Whether refname or its reflog holds a lock younger than max_age seconds (-1: any lock). */
static int ref_locked_since(gs_store *st, const char *refname, int max_age)
{
	const char *const bases[] = { "", "logs/" };
	int locked = 0;

	for (size_t i = 0; i < 2 && !locked; i++) {
		char *lock = xstrfmt("%s%s%s.lock", store_commondir(st), bases[i], refname);
		struct stat s;

		locked = lstat(lock, &s) == 0 && (max_age < 0 || time(NULL) - s.st_mtime < max_age);
		free(lock);
	}
	return locked;
}

/* Whether refname or its reflog is locked, by a live writer or a dead one. */
static int ref_locked(gs_store *st, const char *refname)
{
	return ref_locked_since(st, refname, -1);
}

size_t store_reflog_count(gs_store *st, const char *refname)
{
	git_reflog *log = NULL;
	size_t n = 0;

	if (git_reflog_read(&log, st->repo, refname) == 0)
		n = git_reflog_entrycount(log);
	git_reflog_free(log);
	git_error_clear();
	return n;
}

static int reflog_names(git_reflog *log, const git_oid *id)
{
	for (size_t i = 0; i < git_reflog_entrycount(log); i++)
		if (git_oid_equal(git_reflog_entry_id_new(git_reflog_entry_byindex(log, i)), id))
			return 1;
	return 0;
}

/*
 * Writes from's reflog as to's (whose ref does not exist yet), so that the
 * history moves with the session. A reflog of to left by a move that was
 * cut short holds from's entries: it is replaced; one that names another
 * history is a session only fsck can bring back, and is kept.
 */
static int copy_reflog(gs_store *st, const char *from, const char *to)
{
	git_reflog *src = NULL, *dst = NULL;
	const git_reflog_entry *e;
	int error;

	if (git_reflog_read(&src, st->repo, from) < 0 || git_reflog_read(&dst, st->repo, to) < 0) {
		error = store_git_error("cannot read the reflog of '%s' or '%s'", from, to);
		goto cleanup;
	}
	if ((e = git_reflog_entry_byindex(dst, 0)) && !reflog_names(src, git_reflog_entry_id_new(e))) {
		error = gs_error("'%s' has no ref but a reflog of another history: nothing was moved", to);
		gs_hint("'git reflog show %s' lists the checkpoints of that lost session", to);
		goto cleanup;
	}
	while (git_reflog_entrycount(dst))
		git_reflog_drop(dst, 0, 0);
	for (size_t i = git_reflog_entrycount(src); i-- > 0;) {
		e = git_reflog_entry_byindex(src, i);
		if (git_reflog_append(dst, git_reflog_entry_id_new(e), git_reflog_entry_committer(e),
				      git_reflog_entry_message(e)) < 0) {
			error = store_git_error("cannot copy the reflog of '%s'", from);
			goto cleanup;
		}
	}
	error = git_reflog_write(dst);
	if (error == GIT_ELOCKED) {
		git_error_clear();
		error = GS_ERACE;
	} else if (error < 0) {
		error = store_git_error("cannot write the reflog of '%s'", to);
	}
cleanup:
	git_reflog_free(src);
	git_reflog_free(dst);
	return error;
}

/* Deletes refname if it still points at id, then its reflog. */
static int delete_matching(gs_store *st, git_reference *ref)
{
	const char *name = git_reference_name(ref);
	int error = git_reference_delete(ref);

	if (error == GIT_EMODIFIED || error == GIT_ELOCKED || error == GIT_ENOTFOUND) {
		git_error_clear();
		return error;
	}
	if (error < 0)
		return store_git_error("cannot delete '%s'", name);
	if (git_reflog_delete(st->repo, name) < 0)
		git_error_clear();	/* the ref is gone: a leftover log is only noise */
	return 0;
}

/*
 * A move cut short (a kill between its two steps) left to at from's
 * commit with from's reflog and the move's own entry: the move may end.
 * A move the other way, begun now, never sees this: its target's reflog
 * is the shorter.
 */
static int interrupted_move(gs_store *st, git_reference *src, const char *from, const char *to)
{
	git_oid id;

	if (git_reference_name_to_id(&id, st->repo, to) < 0) {
		git_error_clear();
		return 0;
	}
	return git_oid_equal(&id, git_reference_target(src)) && store_reflog_count(st, to) > store_reflog_count(st, from);
}

/* The move under held signals: to is written first, from deleted after, each a compare-and-swap. */
static int move_ref(gs_store *st, const char *from, const char *to, const char *logmsg)
{
	git_reference *src = NULL, *dst = NULL;
	char hex[HEX_SZ];
	int error, created = 0;

	if ((error = git_reference_lookup(&src, st->repo, from)) < 0 || !git_reference_target(src)) {
		git_error_clear();
		error = GS_ENOTFOUND;
		goto cleanup;
	}
	if (ref_locked(st, from) || ref_locked(st, to)) {
		error = GS_ERACE;	/* nothing is touched while another writer, live or dead, holds one */
		goto cleanup;
	}
	git_oid_tostr(hex, sizeof(hex), git_reference_target(src));
	if (store_ref_exists(st, to) && !interrupted_move(st, src, from, to)) {
		error = gs_error("'%s' already exists", to);
		goto cleanup;
	}
	if (!store_ref_exists(st, to)) {
		if ((error = copy_reflog(st, from, to)) < 0 || (error = store_cas(st, to, hex, NULL, logmsg)) < 0)
			goto cleanup;
		created = 1;
	}
	/* a writer holding from's lock (a checkpoint) does so for milliseconds */
	for (int tries = 0; (error = delete_matching(st, src)) == GIT_ELOCKED && tries < 100; tries++)
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	if (error == GIT_ENOTFOUND) {
		error = 0;	/* deleted meanwhile (a prune): to names the session */
	} else if (error == GIT_EMODIFIED || error == GIT_ELOCKED) {
		/* from moved on, or stays locked: it names the session, to goes */
		if (created && git_reference_lookup(&dst, st->repo, to) == 0 &&
		    git_oid_equal(git_reference_target(dst), git_reference_target(src)))
			delete_matching(st, dst);
		git_error_clear();
		error = GS_ERACE;
	}
cleanup:
	git_reference_free(src);
	git_reference_free(dst);
	return error;
}

/*
 * Moves go one at a time: an archive and an unarchive of one session at
 * once could each delete the ref the other has just written.
 */
static int move_lock(char **path, gs_store *st)
{
	int fd;

	*path = xstrfmt("%s%s.lock", store_commondir(st), STORE_MOVE_LOCK);
	if ((fd = open(*path, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0) {
		close(fd);
		return 0;
	}
	fd = errno == EEXIST ? GS_ERACE : gs_error("cannot create '%s': %s", *path, strerror(errno));
	free(*path);
	*path = NULL;
	return fd;
}

int store_rename(gs_store *st, const char *from, const char *to, const char *logmsg)
{
	sigset_t saved;
	char *lock = NULL;
	int error;

	/* SIGINT and SIGTERM wait for the end of the move, as for any ref update */
	store_hold_signals(&saved);
	if ((error = move_lock(&lock, st)) == 0) {
		error = move_ref(st, from, to, logmsg);
		unlink(lock);
		free(lock);
	}
	store_release_signals(&saved);
	return error;
}

int store_delete_ref(gs_store *st, const char *refname, const char *expect)
{
	git_reference *ref = NULL;
	char hex[HEX_SZ];
	sigset_t saved;
	int error;

	if (git_reference_lookup(&ref, st->repo, refname) < 0) {
		git_error_clear();
		return GS_ENOTFOUND;
	}
	git_oid_tostr(hex, sizeof(hex), git_reference_target(ref) ? git_reference_target(ref) : &(git_oid){ { 0 } });
	if (strcmp(hex, expect)) {
		git_reference_free(ref);
		return gs_error("'%s' moved meanwhile; it is left as it is", refname);
	}
	store_hold_signals(&saved);
	if (ref_locked(st, refname)) {
		error = GIT_ELOCKED;
	} else {
		/*
		 * The reflog first: a kill between the two leaves a ref to delete
		 * again, not a reflog fsck would take for a lost session.
		 */
		if (git_reflog_delete(st->repo, refname) < 0)
			git_error_clear();
		/* libgit2 deletes only if the ref still holds what was looked up */
		error = delete_matching(st, ref);
	}
	store_release_signals(&saved);
	git_reference_free(ref);
	if (error == GIT_ELOCKED)
		return GS_ERACE;
	if (error == GIT_EMODIFIED)
		return gs_error("'%s' moved meanwhile; it is left as it is", refname);
	return error == GIT_ENOTFOUND ? GS_ENOTFOUND : error;
}

/*
 * The session a SESSION_HEAD file names ("ref: refs/sessions/<id>"), added
 * to ids. Read as a file: a worktree whose folder is gone keeps its git
 * directory, and its session, until git worktree prune.
 */
static void add_active(char ***ids, size_t *n, size_t *alloc, const char *path)
{
	const char *prefix = "ref: " SESSIONS_PREFIX;
	char *text = NULL;
	size_t len;

	if (access(path, F_OK) == 0 && gs_read_file(&text, &len, path, 4096) == 0 &&
	    !strncmp(text, prefix, strlen(prefix))) {
		ALLOC_GROW(*ids, *n + 1, *alloc);
		(*ids)[(*n)++] = xstrndup(text + strlen(prefix), strcspn(text + strlen(prefix), "\r\n"));
	}
	free(text);
}

int store_active_all(char ***out, size_t *n, gs_store *st)
{
	git_strarray names = { 0 };
	size_t alloc = 0;
	char *path = xstrfmt("%s%s", store_commondir(st), SESSION_HEAD);

	*out = NULL;
	*n = 0;
	add_active(out, n, &alloc, path);	/* the main worktree's git directory is the common one */
	free(path);
	if (git_worktree_list(&names, st->repo) < 0) {
		store_ids_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_git_error("cannot list the worktrees");
	}
	for (size_t i = 0; i < names.count; i++) {
		path = xstrfmt("%sworktrees/%s/%s", store_commondir(st), names.strings[i], SESSION_HEAD);
		add_active(out, n, &alloc, path);
		free(path);
	}
	git_strarray_dispose(&names);
	return 0;
}

int store_reflog_orphans(char ***out, size_t *n, gs_store *st, const char *prefix, int max_lock_age)
{
	char *dir = xstrfmt("%slogs/%s", store_commondir(st), prefix);
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *ref, value[HEX_SZ];

		if (de->d_name[0] == '.' || (len > 5 && !strcmp(de->d_name + len - 5, ".lock")))
			continue;
		ref = xstrfmt("%s%s", prefix, de->d_name);
		/* a log with no ref and no live writer's lock: a move at work writes the log first */
		if (!store_ref_exists(st, ref) && !store_ref_damaged(st, ref) && !ref_locked_since(st, ref, max_lock_age) &&
		    store_reflog_newest(value, st, ref) == 0) {
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[(*n)++] = xstrdup(de->d_name);
		}
		free(ref);
	}
	if (d)
		closedir(d);
	free(dir);
	return 0;
}

int store_ref_value(char out[HEX_SZ], gs_store *st, const char *refname)
{
	git_oid id;

	if (git_reference_name_to_id(&id, st->repo, refname) < 0) {
		git_error_clear();
		return GS_ERROR;
	}
	git_oid_tostr(out, HEX_SZ, &id);
	return 0;
}

int store_ref_damaged(gs_store *st, const char *refname)
{
	char *path = xstrfmt("%s%s", store_commondir(st), refname), value[HEX_SZ];
	git_reference *ref = NULL;
	int damaged = store_ref_value(value, st, refname) < 0 && access(path, F_OK) == 0;

	/* a line of packed-refs that names it but does not read: damage, not absence */
	if (!damaged && git_reference_lookup(&ref, st->repo, refname) < 0) {
		char *packed = xstrfmt("%spacked-refs", store_commondir(st)), *text = NULL, *line;
		size_t len, n = strlen(refname);

		if (access(packed, R_OK) == 0 && gs_read_file(&text, &len, packed, 1u << 30) == 0)
			for (line = text; line && !damaged; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
				size_t l = strcspn(line, "\n");
				damaged = l > n && line[l - n - 1] == ' ' && !strncmp(line + l - n, refname, n);
			}
		free(text);
		free(packed);
	}
	git_reference_free(ref);
	git_error_clear();
	free(path);
	return damaged;
}
