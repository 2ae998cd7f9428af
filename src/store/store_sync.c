/*
 * store_sync.c - what merging two histories of a session needs from the
 * object store: the checkpoints one side has and the other lacks, with
 * their operations, and the merge bases. libgit2 only.
 */
#include "store-internal.h"
#include "git-session/json.h"

#include <stdlib.h>
#include <string.h>

static int parse_oid(git_oid *out, const char *hex)
{
	if (git_oid_fromstr(out, hex) < 0)
		return gs_error("'%s' is not a commit id", hex);
	return 0;
}

/* op.json of a checkpoint, as text (NULL when it has none). */
static char *op_text(git_commit *c)
{
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *text = NULL;

	if (git_commit_tree(&tree, c) == 0 && git_tree_entry_bypath(&e, tree, "op.json") == 0 &&
	    git_blob_lookup(&blob, git_commit_owner(c), git_tree_entry_id(e)) == 0)
		text = xstrndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_error_clear();
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	return text;
}

static cJSON *describe(git_commit *c)
{
	cJSON *o = cJSON_CreateObject(), *parents = json_arr(o, "parents");
	char hex[HEX_SZ], *op = op_text(c);

	git_oid_tostr(hex, sizeof(hex), git_commit_id(c));
	json_set_str(o, "commit", hex);
	for (unsigned i = 0; i < git_commit_parentcount(c); i++) {
		git_oid_tostr(hex, sizeof(hex), git_commit_parent_id(c, i));
		cJSON_AddItemToArray(parents, cJSON_CreateString(hex));
	}
	json_set_str(o, "op", op);
	json_set_num(o, "time", (double)git_commit_time(c));
	if (git_commit_author(c)) {
		const git_signature *a = git_commit_author(c);
		char *who = xstrfmt("%s <%s> %lld", a->name, a->email, (long long)a->when.time);

		json_set_str(o, "author", who);
		free(who);
	}
	free(op);
	return o;
}

int store_walk(cJSON **out, gs_store *st, const char *const *tips, size_t ntips,
	       const char *const *hide, size_t nhide)
{
	git_revwalk *walk = NULL;
	git_oid id;
	int error = GS_ERROR, r;

	*out = NULL;
	if (git_revwalk_new(&walk, st->repo) < 0) {
		store_git_error("cannot walk the checkpoints");
		goto cleanup;
	}
	for (size_t i = 0; i < ntips; i++)
		if (parse_oid(&id, tips[i]) < 0 || git_revwalk_push(walk, &id) < 0)
			goto walk_error;
	for (size_t i = 0; i < nhide; i++)
		if (parse_oid(&id, hide[i]) < 0 || git_revwalk_hide(walk, &id) < 0)
			goto walk_error;
	*out = cJSON_CreateArray();
	while ((r = git_revwalk_next(&id, walk)) == 0) {
		git_commit *c = NULL;

		if (git_commit_lookup(&c, st->repo, &id) < 0)
			goto walk_error;
		cJSON_AddItemToArray(*out, describe(c));
		git_commit_free(c);
	}
	if (r != GIT_ITEROVER)
		goto walk_error;
	error = 0;
	goto cleanup;
walk_error:
	store_git_error("cannot walk the checkpoints");
	cJSON_Delete(*out);
	*out = NULL;
cleanup:
	git_revwalk_free(walk);
	return error;
}

int store_merge_bases(char ***out, size_t *n, gs_store *st, const char *a, const char *b)
{
	git_oidarray bases = { 0 };
	git_oid ia, ib;
	int r;

	*out = NULL;
	*n = 0;
	if (parse_oid(&ia, a) < 0 || parse_oid(&ib, b) < 0)
		return GS_ERROR;
	r = git_merge_bases(&bases, st->repo, &ia, &ib);
	if (r == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (r < 0)
		return store_git_error("cannot find where %.7s and %.7s diverged", a, b);
	*out = xcalloc(bases.count + 1, sizeof(**out));
	for (size_t i = 0; i < bases.count; i++) {
		(*out)[i] = xmalloc(HEX_SZ);
		git_oid_tostr((*out)[i], HEX_SZ, &bases.ids[i]);
	}
	*n = bases.count;
	git_oidarray_dispose(&bases);
	return 0;
}

int store_ahead_behind(size_t *ahead, size_t *behind, gs_store *st, const char *local, const char *upstream)
{
	git_oid l, u;

	*ahead = *behind = 0;
	if (parse_oid(&l, local) < 0 || parse_oid(&u, upstream) < 0)
		return GS_ERROR;
	if (git_graph_ahead_behind(ahead, behind, st->repo, &l, &u) < 0)
		return store_git_error("cannot compare %.7s and %.7s", local, upstream);
	return 0;
}

int store_descends(gs_store *st, const char *commit, const char *ancestor)
{
	git_oid c, a;
	int r;

	if (parse_oid(&c, commit) < 0 || parse_oid(&a, ancestor) < 0)
		return GS_ERROR;
	if (git_oid_equal(&c, &a))
		return 1;
	if ((r = git_graph_descendant_of(st->repo, &c, &a)) < 0)
		return store_git_error("cannot compare %.7s and %.7s", commit, ancestor);
	return r;
}

struct paths_walk {
	cJSON *out;
	const char *dir;
};

static int path_one(const char *root, const git_tree_entry *e, void *payload)
{
	struct paths_walk *w = payload;
	char hex[HEX_SZ], *path;

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e));
	path = xstrfmt("%s/%s%s", w->dir, root, git_tree_entry_name(e));
	json_set_str(w->out, path, hex);
	free(path);
	return 0;
}

int store_tree_paths(cJSON **out, gs_store *st, const char *commit, const char *dir)
{
	struct paths_walk w = { NULL, dir };
	git_commit *c = NULL;
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *e = NULL;
	git_oid id;
	int error = GS_ERROR;

	*out = NULL;
	if (parse_oid(&id, commit) < 0)
		return GS_ERROR;
	if (git_commit_lookup(&c, st->repo, &id) < 0 || git_commit_tree(&tree, c) < 0) {
		store_git_error("cannot read checkpoint %.7s", commit);
		goto cleanup;
	}
	w.out = cJSON_CreateObject();
	if (git_tree_entry_bypath(&e, tree, dir) < 0 || git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		git_error_clear();
		error = 0;	/* nothing there */
		goto cleanup;
	}
	if (git_tree_lookup(&sub, st->repo, git_tree_entry_id(e)) < 0 ||
	    git_tree_walk(sub, GIT_TREEWALK_PRE, path_one, &w) < 0) {
		store_git_error("cannot read '%s' of checkpoint %.7s", dir, commit);
		goto cleanup;
	}
	error = 0;
cleanup:
	if (error < 0)
		cJSON_Delete(w.out);
	else
		*out = w.out;
	git_tree_entry_free(e);
	git_tree_free(sub);
	git_tree_free(tree);
	git_commit_free(c);
	return error;
}

int store_tracking_tips(char ***out, size_t *n, gs_store *st, const char *id)
{
	git_reference_iterator *it = NULL;
	char *glob = xstrfmt("refs/remotes/*/sessions/%s", id);
	size_t alloc = 0;
	git_reference *ref;
	int r;

	*out = NULL;
	*n = 0;
	if (git_reference_iterator_glob_new(&it, st->repo, glob) < 0) {
		free(glob);
		return store_git_error("cannot list the remote copies of '%s'", id);
	}
	while ((r = git_reference_next(&ref, it)) == 0) {
		if (git_reference_target(ref)) {
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[*n] = xmalloc(HEX_SZ);
			git_oid_tostr((*out)[(*n)++], HEX_SZ, git_reference_target(ref));
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	free(glob);
	if (r != GIT_ITEROVER)
		return store_git_error("cannot list the remote copies of '%s'", id);
	return 0;
}
