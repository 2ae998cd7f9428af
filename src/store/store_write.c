/*
 * store_write.c - writing a checkpoint: its blobs, the tree updates that
 * make its tree from its parent's, and its commit, durable before a ref
 * moves (the fsync of the folders git does not sync). Moves no ref.
 */
#include "store-internal.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void store_fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Which objects/xx directories exist, as a bitmap. libgit2 1.5 fsyncs the
 * objects it writes but not a directory it had to create for them: a
 * crash could lose the directory entry, and the objects with it.
 */
static void object_dirs(unsigned char seen[256], gs_store *st)
{
	char *path = xstrfmt("%sobjects", git_repository_commondir(st->repo));
	struct dirent *d;
	DIR *dir = opendir(path);

	memset(seen, 0, 256);
	while (dir && (d = readdir(dir)))
		if (strlen(d->d_name) == 2 && isxdigit((unsigned char)d->d_name[0]) &&
		    isxdigit((unsigned char)d->d_name[1]))
			seen[strtol(d->d_name, NULL, 16)] = 1;
	if (dir)
		closedir(dir);
	free(path);
}

/* fsyncs the objects/xx directories created since before was taken. */
static void sync_new_object_dirs(gs_store *st, const unsigned char before[256])
{
	unsigned char after[256];
	int any = 0;

	object_dirs(after, st);
	for (int i = 0; i < 256; i++)
		if (after[i] && !before[i]) {
			char *dir = xstrfmt("%sobjects/%02x", git_repository_commondir(st->repo), i);
			store_fsync_path(dir);
			free(dir);
			any = 1;
		}
	if (any) {
		char *dir = xstrfmt("%sobjects", git_repository_commondir(st->repo));
		store_fsync_path(dir);
		free(dir);
	}
}

/* libgit2's object cache on for trees of any size, or off again. */
static void tree_cache(int on)
{
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)(on ? 64 << 20 : 4096));
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, on);
}

/* Whether base (which may be NULL) has an entry at path: a removal needs one. */
static int in_tree(git_tree *base, const char *path)
{
	git_tree_entry *e = NULL;

	if (!base || git_tree_entry_bypath(&e, base, path) < 0) {
		git_error_clear();
		return 0;
	}
	git_tree_entry_free(e);
	return 1;
}

/*
 * Where an upsert of path meets the base tree's other kind of entry (a
 * folder where a file goes, or a file where a folder goes, as when
 * utils became utils/a.py), the removal that must come first; *first is
 * then set. Returns how many removals it added.
 */
static size_t clear_way(git_tree_update *up, char **paths, git_tree *base, const char *path, int *first)
{
	git_tree_entry *e = NULL;
	size_t added = 0;

	if (!base)
		return 0;
	if (git_tree_entry_bypath(&e, base, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		paths[added] = xstrdup(path);
		up[added].path = paths[added];
		up[added++].action = GIT_TREE_UPDATE_REMOVE;
	}
	git_tree_entry_free(e);
	for (const char *slash = strchr(path + strlen("files/"), '/'); slash; slash = strchr(slash + 1, '/')) {
		char *dir = xstrndup(path, (size_t)(slash - path));

		e = NULL;
		if (git_tree_entry_bypath(&e, base, dir) == 0 && git_tree_entry_type(e) != GIT_OBJECT_TREE) {
			paths[added] = dir;
			up[added].path = dir;
			up[added++].action = GIT_TREE_UPDATE_REMOVE;
			dir = NULL;
		}
		git_tree_entry_free(e);
		free(dir);
	}
	git_error_clear();
	*first |= added != 0;
	return added;
}

/* files/<path> updates, leaving out removals of paths the base tree lacks. */
static int file_updates(git_tree_update *up, size_t *n, git_tree *base, const struct store_checkpoint *cp,
			char **paths, int *removals_first)
{
	for (size_t i = 0; i < cp->nfiles; i++) {
		char *path = cp->files[i].raw ? xstrdup(cp->files[i].path) : xstrfmt("files/%s", cp->files[i].path);

		if (cp->files[i].oid && !cp->files[i].raw)
			*n += clear_way(up + *n, paths + *n, base, path, removals_first);
		if (!cp->files[i].oid) {
			if (!in_tree(base, path)) {
				free(path);
				continue;
			}
			up[*n].action = GIT_TREE_UPDATE_REMOVE;
		} else {
			up[*n].action = GIT_TREE_UPDATE_UPSERT;
			up[*n].filemode = cp->files[i].link ? GIT_FILEMODE_LINK : GIT_FILEMODE_BLOB;
			if (git_oid_fromstr(&up[*n].id, cp->files[i].oid) < 0) {
				free(path);
				return gs_error("bad blob id '%s'", cp->files[i].oid);
			}
		}
		paths[*n] = path;
		up[*n].path = path;
		(*n)++;
	}
	return 0;
}

/* Whether one update's path is a folder of another's (d.txt and d.txt/inner). */
static int folder_and_file(const git_tree_update *up, size_t n)
{
	const char **paths = xcalloc(n, sizeof(*paths));
	int found = 0;

	for (size_t i = 0; i < n; i++)
		paths[i] = up[i].path;
	qsort(paths, n, sizeof(*paths), gs_cmp_str);
	for (size_t i = 0; i < n && !found; i++) {
		size_t len = strlen(paths[i]), lo = i + 1, hi = n;

		/* the first path not below paths[i] + "/" ("d.txt-x" sorts before "d.txt/") */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strncmp(paths[mid], paths[i], len);

			if (c < 0 || (c == 0 && (unsigned char)paths[mid][len] < '/'))
				lo = mid + 1;
			else
				hi = mid;
		}
		found = lo < n && !strncmp(paths[lo], paths[i], len) && paths[lo][len] == '/';
	}
	free(paths);
	return found;
}

/* state/ blobs from the checkpoint's parts: written, or removed when there. */
static int part_updates(git_tree_update *up, size_t *n, gs_store *st, git_tree *base,
			const struct store_checkpoint *cp)
{
	for (size_t i = 0; i < cp->nparts; i++) {
		const struct gs_part *p = &cp->parts[i];

		if (!p->text) {
			if (!in_tree(base, p->path))
				continue;
			up[*n].action = GIT_TREE_UPDATE_REMOVE;
		} else {
			up[*n].action = GIT_TREE_UPDATE_UPSERT;
			up[*n].filemode = GIT_FILEMODE_BLOB;
			if (git_blob_create_from_buffer(&up[*n].id, st->repo, p->text, p->len) < 0)
				return store_git_error("cannot write the checkpoint");
		}
		up[(*n)++].path = p->path;
	}
	return 0;
}

/* Paths in the order a walk of the tree meets them: '/' before any other character. */
static int update_path_cmp(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)((const git_tree_update *)a)->path;
	const unsigned char *y = (const unsigned char *)((const git_tree_update *)b)->path;

	for (; *x && *x == *y; x++, y++)
		;
	return (*x == '/' ? 1 : *x) - (*y == '/' ? 1 : *y);
}

/*
 * libgit2 checks each path against the base tree, so one update cannot
 * put a file where a folder was or the other way round (d.txt becoming
 * d.txt/inner). Only then (found among the updates, or force: a way
 * cleared in the base) do removals go first, into a tree of their own,
 * and the remaining updates apply to it.
 */
static int apply_removals(git_tree **base, gs_store *st, git_tree_update *up, size_t *n, int force)
{
	git_tree_update *rm;
	size_t nrm = 0, keep = 0;
	git_tree *removed = NULL;
	git_oid id;
	int error = 0;

	if (!force && !folder_and_file(up, *n))
		return 0;
	rm = xcalloc(*n + 1, sizeof(*rm));
	for (size_t i = 0; i < *n; i++)
		if (up[i].action == GIT_TREE_UPDATE_REMOVE)
			rm[nrm++] = up[i];
	/*
	 * A removal may both clear a way and be recorded, and a folder's removal
	 * takes what is below it: each path once, none below one removed.
	 * Sorted, a folder comes right before what is in it: O(n log n).
	 */
	qsort(rm, nrm, sizeof(*rm), update_path_cmp);
	for (size_t i = 0; i < nrm; i++) {
		size_t len = keep ? strlen(rm[keep - 1].path) : 0;

		if (!keep || (strcmp(rm[keep - 1].path, rm[i].path) &&
			      !(!strncmp(rm[keep - 1].path, rm[i].path, len) && rm[i].path[len] == '/')))
			rm[keep++] = rm[i];
	}
	nrm = keep;
	keep = 0;
	if (git_tree_create_updated(&id, st->repo, *base, nrm, rm) < 0 ||
	    git_tree_lookup(&removed, st->repo, &id) < 0)
		error = store_git_error("cannot write the checkpoint's tree");
	git_tree_free(*base);
	*base = removed;
	for (size_t i = 0; i < *n; i++)
		if (up[i].action != GIT_TREE_UPDATE_REMOVE)
			up[keep++] = up[i];
	*n = keep;
	free(rm);
	return error;
}

/* The commit to build on (cp->parent), and the tree to start from: the parent's, or cp->tree_from's. */
static int checkpoint_base(git_commit **parent, git_tree **base, gs_store *st, const struct store_checkpoint *cp)
{
	git_commit *from = NULL;
	git_oid id;
	int bad;

	if (cp->parent && cp->parent->exists &&
	    (git_oid_fromstr(&id, cp->parent->commit) < 0 || git_commit_lookup(parent, st->repo, &id) < 0 ||
	     (!cp->tree_from && git_commit_tree(base, *parent) < 0)))
		return store_git_error("cannot read checkpoint %s", cp->parent->commit);
	if (!cp->tree_from)
		return 0;
	bad = git_oid_fromstr(&id, cp->tree_from) < 0 || git_commit_lookup(&from, st->repo, &id) < 0 ||
	      git_commit_tree(base, from) < 0;
	git_commit_free(from);
	return bad ? store_git_error("cannot read checkpoint %s", cp->tree_from) : 0;
}

/* The updates of a checkpoint's tree; paths holds the ones made for files (freed by updates_free). */
struct updates {
	git_tree_update *up;
	char **paths;
	size_t n, npaths;
	int removals_first;
};

static void updates_free(struct updates *u)
{
	for (size_t i = 2; i < u->npaths; i++)
		free(u->paths[i]);
	free(u->paths);
	free(u->up);
}

/* session.json and op.json, the files and the parts of state/, as tree updates of base. */
static int gather_updates(struct updates *u, gs_store *st, git_tree *base, const struct store_checkpoint *cp)
{
	/* room for each file's update and the removals that may clear its way (one a level, at most) */
	size_t room = cp->nfiles * 2 + cp->nparts + 2;
	int gathered;

	for (size_t i = 0; i < cp->nfiles; i++)
		for (const char *p = cp->files[i].path; (p = strchr(p, '/')); p++)
			room++;
	u->up = xcalloc(room, sizeof(*u->up));
	u->paths = xcalloc(room, sizeof(*u->paths));
	u->n = u->npaths = 2;
	u->up[0].action = u->up[1].action = GIT_TREE_UPDATE_UPSERT;
	u->up[0].filemode = u->up[1].filemode = GIT_FILEMODE_BLOB;
	u->up[0].path = "session.json";
	u->up[1].path = "op.json";
	if (git_blob_create_from_buffer(&u->up[0].id, st->repo, cp->json, cp->len) < 0 ||
	    git_blob_create_from_buffer(&u->up[1].id, st->repo, cp->op, cp->oplen) < 0)
		return store_git_error("cannot write the checkpoint");
	/*
	 * Each file's path is looked up in the base tree, so its folders are
	 * read once per file: the object cache (off, as a short command wants
	 * it) holds the trees while the updates are gathered.
	 */
	tree_cache(1);
	gathered = file_updates(u->up, &u->n, base, cp, u->paths, &u->removals_first);
	tree_cache(0);
	u->npaths = u->n;
	if (gathered < 0 || part_updates(u->up, &u->n, st, base, cp) < 0)
		return GS_ERROR;
	u->npaths = u->n;
	return 0;
}

/* The checkpoint's tree: base with cp's updates. Takes base. */
static int checkpoint_tree(git_tree **tree, gs_store *st, git_tree *base, const struct store_checkpoint *cp)
{
	struct updates u = { 0 };
	git_oid id;
	int error = GS_ERROR;

	if (gather_updates(&u, st, base, cp) < 0 || apply_removals(&base, st, u.up, &u.n, u.removals_first) < 0)
		goto cleanup;
	if (git_tree_create_updated(&id, st->repo, base, u.n, u.up) < 0 || git_tree_lookup(tree, st->repo, &id) < 0) {
		store_git_error("cannot write the checkpoint's tree");
		goto cleanup;
	}
	error = 0;
cleanup:
	updates_free(&u);
	git_tree_free(base);
	return error;
}

/* The checkpoint's author and committer; the author at cp->author_at when it says (an import). */
static int checkpoint_idents(git_signature **author, git_signature **committer, gs_store *st,
			     const struct store_checkpoint *cp)
{
	git_signature *at = NULL;
	time_t when;

	if (store_signature(author, st, "AUTHOR") < 0 || store_signature(committer, st, "COMMITTER") < 0)
		return GS_ERROR;
	if (!cp->author_at || gs_time_parse_iso(&when, cp->author_at) != 0)
		return 0;
	if (git_signature_new(&at, (*author)->name, (*author)->email, when, 0) < 0)
		return store_git_error("invalid author time '%s'", cp->author_at);
	git_signature_free(*author);
	*author = at;
	return 0;
}

/* The checkpoint's commit of tree, on parent (and cp->merge_parent); GS_ETIMEDOUT when signing timed out. */
static int checkpoint_commit(git_oid *out, gs_store *st, const struct store_checkpoint *cp, git_commit *parent,
			     const git_tree *tree)
{
	git_signature *author = NULL, *committer = NULL;
	const git_commit *parents[2] = { parent, NULL };
	git_commit *other = NULL;
	git_oid id;
	int error = GS_ERROR;

	if (checkpoint_idents(&author, &committer, st, cp) < 0)
		goto cleanup;
	if (cp->merge_parent &&
	    (git_oid_fromstr(&id, cp->merge_parent) < 0 || git_commit_lookup(&other, st->repo, &id) < 0)) {
		store_git_error("cannot read checkpoint %s", cp->merge_parent);
		goto cleanup;
	}
	parents[1] = other;
	error = store_commit_create(out, st, author, committer, NULL, cp->message, tree,
				    parent ? 1 + !!parents[1] : 0, parents);
cleanup:
	git_commit_free(other);
	git_signature_free(author);
	git_signature_free(committer);
	return error;
}

int store_write_checkpoint(char out[HEX_SZ], gs_store *st, const struct store_checkpoint *cp)
{
	git_commit *parent = NULL;
	git_tree *base = NULL, *tree = NULL;
	git_oid id;
	int error = GS_ERROR;
	unsigned char dirs[256];

	if (st->sync_objects == STORE_SYNC_EACH)
		object_dirs(dirs, st);
	if (checkpoint_base(&parent, &base, st, cp) < 0)
		goto cleanup;
	error = checkpoint_tree(&tree, st, base, cp);
	base = NULL;
	if (error < 0 || (error = checkpoint_commit(&id, st, cp, parent, tree)) < 0)
		goto cleanup;	/* GS_ETIMEDOUT kept: a hook says what to do */
	git_oid_tostr(out, HEX_SZ, &id);
	if (st->sync_objects == STORE_SYNC_EACH)
		sync_new_object_dirs(st, dirs);
cleanup:
	git_tree_free(tree);
	git_tree_free(base);
	git_commit_free(parent);
	return error;
}
