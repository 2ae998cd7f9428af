/*
 * store_rewrite.c - a session's history written again without some paths
 * of its trees: how gc keeps the transcripts of archived sessions within
 * session.transcriptLimit. A commit whose tree and parents do not change
 * is kept as it is (its signature with it); the others keep their author,
 * committer and message, and are signed again when checkpoints are
 * signed. Moves no ref. Store layer: libgit2.
 */
#include "git-session/util.h"
#include "store-internal.h"

#include <stdlib.h>
#include <string.h>

struct mapping {
	git_oid from, to;
};

/* What a commit already rewritten became; parents come before children, so the search runs backwards. */
static const git_oid *mapped(const struct mapping *map, size_t n, const git_oid *from)
{
	while (n--)
		if (!git_oid_cmp(&map[n].from, from))
			return &map[n].to;
	return from;
}

/* The tree without paths, and whether anything was taken out. */
static int drop_paths(git_oid *out, int *changed, gs_store *st, git_tree *tree, const char *const *paths,
		      size_t npaths)
{
	git_tree_update *up = xcalloc(npaths + 1, sizeof(*up));
	size_t n = 0;
	int error = 0;

	for (size_t i = 0; i < npaths; i++) {
		git_tree_entry *e = NULL;

		if (git_tree_entry_bypath(&e, tree, paths[i]) == 0) {
			up[n].action = GIT_TREE_UPDATE_REMOVE;
			up[n++].path = paths[i];
		}
		git_tree_entry_free(e);
	}
	git_error_clear();
	*changed = n > 0;
	git_oid_cpy(out, git_tree_id(tree));
	if (n && git_tree_create_updated(out, st->repo, tree, n, up) < 0)
		error = store_git_error("cannot write a rewritten tree");
	free(up);
	return error;
}

static int rewrite_one(git_oid *to, gs_store *st, const git_oid *from, const struct mapping *map, size_t n,
		       const char *const *paths, size_t npaths)
{
	git_commit *c = NULL, *parents[2] = { NULL, NULL };
	git_tree *tree = NULL, *new_tree = NULL;
	git_oid tree_id;
	size_t np;
	int changed, error = GS_ERROR;

	if (git_commit_lookup(&c, st->repo, from) < 0 || git_commit_tree(&tree, c) < 0) {
		store_git_error("cannot read a checkpoint to rewrite");
		goto cleanup;
	}
	if ((np = git_commit_parentcount(c)) > 2) {
		gs_error("checkpoint with %zu parents: not one of git-session's", np);
		goto cleanup;
	}
	if (drop_paths(&tree_id, &changed, st, tree, paths, npaths) < 0)
		goto cleanup;
	for (size_t i = 0; i < np; i++) {
		const git_oid *p = mapped(map, n, git_commit_parent_id(c, (unsigned)i));

		changed |= git_oid_cmp(p, git_commit_parent_id(c, (unsigned)i)) != 0;
		if (git_commit_lookup(&parents[i], st->repo, p) < 0) {
			store_git_error("cannot read a rewritten checkpoint");
			goto cleanup;
		}
	}
	if (!changed) {
		git_oid_cpy(to, from);
		error = 0;
		goto cleanup;
	}
	if (git_tree_lookup(&new_tree, st->repo, &tree_id) < 0) {
		store_git_error("cannot read a rewritten tree");
		goto cleanup;
	}
	error = store_commit_create(to, st, git_commit_author(c), git_commit_committer(c),
				    git_commit_message_encoding(c), git_commit_message_raw(c), new_tree, np,
				    (const git_commit **)parents);
cleanup:
	git_commit_free(parents[0]);
	git_commit_free(parents[1]);
	git_tree_free(new_tree);
	git_tree_free(tree);
	git_commit_free(c);
	return error;
}

int store_rewrite_without(char out[HEX_SZ], gs_store *st, const char *tip, const char *const *paths, size_t npaths)
{
	git_revwalk *walk = NULL;
	struct mapping *map = NULL;
	size_t n = 0, alloc = 0;
	git_oid id;
	int error = GS_ERROR, rc;

	if (git_oid_fromstr(&id, tip) < 0 || git_revwalk_new(&walk, st->repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 || git_revwalk_push(walk, &id) < 0) {
		store_git_error("cannot walk the history of %s", tip);
		goto cleanup;
	}
	while ((rc = git_revwalk_next(&id, walk)) == 0) {
		ALLOC_GROW(map, n + 1, alloc);
		git_oid_cpy(&map[n].from, &id);
		if (rewrite_one(&map[n].to, st, &id, map, n, paths, npaths) < 0)
			goto cleanup;
		n++;
	}
	if (rc != GIT_ITEROVER || !n) {
		store_git_error("cannot walk the history of %s", tip);
		goto cleanup;
	}
	git_oid_tostr(out, HEX_SZ, &map[n - 1].to);	/* the tip comes last */
	error = 0;
cleanup:
	git_revwalk_free(walk);
	free(map);
	return error;
}
