/*
 * store_read.c - reading checkpoints: session.json, the parts of state/
 * a caller asks for, and the blobs under a folder of a checkpoint's tree.
 */
#include "store-internal.h"

#include <stdlib.h>
#include <string.h>

void store_tip_clear(struct store_tip *tip)
{
	free(tip->json);
	free(tip->subject);
	gs_parts_free(tip->parts, tip->nparts);
	memset(tip, 0, sizeof(*tip));
}

static int in_list(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return 1;
	return 0;
}

/* Whether want (NULL: everything) asks for nothing of state/. */
static int want_nothing(const struct store_want *want)
{
	return want && !(want->folders && *want->folders) && !(want->tails && *want->tails) &&
	       !(want->sharded && want->shards && *want->shards);
}

/*
 * Whether want (NULL: everything) asks for the folder dir whole (2), for
 * its last *last blobs (3), for some blobs in it (1), or not at all (0).
 */
static int wanted(const char *dir, const struct store_want *want, size_t *last)
{
	if (!want || in_list(want->folders, dir))
		return 2;
	if (in_list(want->tails, dir)) {
		*last = (size_t)want->tail_chunks;
		return 3;
	}
	return want->sharded && !strcmp(want->sharded, dir) && want->shards && *want->shards;
}

/* The blobs of state/<name>/ for each name in want, in path order. */
static int read_parts(struct store_tip *out, gs_store *st, git_tree *tree, const struct store_want *want)
{
	const git_tree_entry *dir = git_tree_entry_byname(tree, "state");
	git_tree *state = NULL;
	int error = 0;

	if (!dir || want_nothing(want))
		return 0;
	if (git_tree_lookup(&state, st->repo, git_tree_entry_id(dir)) < 0)
		error = GS_ERROR;
	for (size_t i = 0; !error && i < git_tree_entrycount(state); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(state, i);
		git_tree *sub = NULL;
		size_t from = 0, last = 0;
		int how = wanted(git_tree_entry_name(e), want, &last), whole = how >= 2;

		if (!how)
			continue;
		if (git_tree_lookup(&sub, st->repo, git_tree_entry_id(e)) < 0) {
			error = GS_ERROR;
			break;
		}
		if (how == 3 && git_tree_entrycount(sub) > last)	/* the names sort as their numbers */
			from = git_tree_entrycount(sub) - last;
		for (size_t k = from; !error && k < git_tree_entrycount(sub); k++) {
			const git_tree_entry *b = git_tree_entry_byindex(sub, k);
			git_blob *blob = NULL;
			struct gs_part *p;

			if (!whole && !in_list(want->shards, git_tree_entry_name(b)))
				continue;
			if (git_blob_lookup(&blob, st->repo, git_tree_entry_id(b)) < 0) {
				error = GS_ERROR;
				break;
			}
			ALLOC_GROW(out->parts, out->nparts + 1, out->aparts);
			p = &out->parts[out->nparts++];
			p->path = xstrfmt("state/%s/%s", git_tree_entry_name(e), git_tree_entry_name(b));
			p->len = (size_t)git_blob_rawsize(blob);
			p->text = xstrndup(git_blob_rawcontent(blob), p->len);
			git_blob_free(blob);
		}
		git_tree_free(sub);
	}
	git_tree_free(state);
	return error;
}

/* Reads session.json of commit id, and the parts under state/ in want, into out. */
static int read_checkpoint(struct store_tip *out, gs_store *st, const git_oid *id, const char *what,
			   const struct store_want *want)
{
	git_commit *commit = NULL;
	const git_tree_entry *entry;
	git_blob *blob = NULL;
	git_tree *tree = NULL;
	int error;

	if ((error = git_commit_lookup(&commit, st->repo, id)) < 0 ||
	    (error = git_commit_tree(&tree, commit)) < 0) {
		store_git_error("cannot read checkpoint %s of '%s'", git_oid_tostr_s(id), what);
		gs_hint("run 'git session fsck --repair' to go back to the last good checkpoint");
		goto cleanup;
	}
	if (!(entry = git_tree_entry_byname(tree, "session.json")) ||
	    (error = git_blob_lookup(&blob, st->repo, git_tree_entry_id(entry))) < 0) {
		char hex[GIT_OID_HEXSZ + 1];

		if (entry && store_missing_object(hex)) {
			error = store_git_error("cannot read session.json of checkpoint %s of '%s'",
						git_oid_tostr_s(id), what);
			goto cleanup;
		}
		error = entry ? error : GIT_ENOTFOUND;
		gs_error("checkpoint %s of '%s' has no readable session.json", git_oid_tostr_s(id), what);
		if (error != GIT_ENOTFOUND)
			gs_hint("run 'git session fsck --repair' to go back to the last good checkpoint");
		error = GS_ERROR;
		goto cleanup;
	}
	if ((error = read_parts(out, st, tree, want)) < 0) {
		store_git_error("cannot read the state of checkpoint %s of '%s'", git_oid_tostr_s(id), what);
		gs_hint("run 'git session fsck --repair' to go back to the last good checkpoint");
		goto cleanup;
	}
	out->exists = 1;
	git_oid_tostr(out->commit, HEX_SZ, id);
	out->len = (size_t)git_blob_rawsize(blob);
	out->json = xstrndup(git_blob_rawcontent(blob), out->len);
	out->time = git_commit_time(commit);
	out->subject = xstrdup(git_commit_summary(commit) ? git_commit_summary(commit) : "");
	error = 0;
cleanup:
	if (error < 0) {
		gs_parts_free(out->parts, out->nparts);
		out->parts = NULL;
		out->nparts = 0;
	}
	git_blob_free(blob);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

int store_read_ref(struct store_tip *out, gs_store *st, const char *refname)
{
	return store_read_ref_want(out, st, refname, NULL);
}

int store_read_ref_want(struct store_tip *out, gs_store *st, const char *refname,
			const struct store_want *want)
{
	git_oid id;
	int error;

	memset(out, 0, sizeof(*out));
	error = git_reference_name_to_id(&id, st->repo, refname);
	if (error == GIT_ENOTFOUND)
		return GS_ENOTFOUND;
	if (error < 0)
		return store_git_error("cannot read '%s'", refname);
	return read_checkpoint(out, st, &id, refname, want);
}

int store_read_commit(struct store_tip *out, gs_store *st, const char *hex, const char *what)
{
	git_oid id;

	size_t len = strlen(hex);
	git_object *obj = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if (len < 4 || len > 40 || strspn(hex, "0123456789abcdef") != len || git_oid_fromstrn(&id, hex, len) < 0)
		return gs_error("'%s' is not an object id", hex);
	if (len < 40) {	/* abbreviated, as commands print it */
		if (git_object_lookup_prefix(&obj, st->repo, &id, len, GIT_OBJECT_COMMIT) < 0)
			return store_git_error("cannot read checkpoint %s of '%s'", hex, what);
		git_oid_cpy(&id, git_object_id(obj));
		git_object_free(obj);
	}
	error = read_checkpoint(out, st, &id, what, &(struct store_want){ 0 });
	return error;
}

int store_read_rev(struct store_tip *out, gs_store *st, const char *rev)
{
	git_object *obj = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	error = git_revparse_single(&obj, st->repo, rev);
	if (error == GIT_ENOTFOUND || error == GIT_EAMBIGUOUS || error == GIT_EINVALIDSPEC) {
		git_object_free(obj);
		return GS_ENOTFOUND;
	}
	if (error < 0) {
		store_git_error("cannot resolve '%s'", rev);
		gs_hint("if a checkpoint is damaged, 'git session fsck --repair' goes back to the last good one");
		return GS_ERROR;
	}
	if (git_object_type(obj) != GIT_OBJECT_COMMIT) {
		git_object_free(obj);
		return gs_error("'%s' is not a checkpoint (not a commit)", rev);
	}
	error = read_checkpoint(out, st, git_object_id(obj), rev, NULL);
	git_object_free(obj);
	return error;
}

struct walk {
	git_repository *repo;
	const char *prefix;
	store_blob_fn fn;
	void *payload;
	int error;
};

static int walk_one(const char *root, const git_tree_entry *e, void *payload)
{
	struct walk *w = payload;
	git_blob *blob = NULL;
	char *path;

	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(e)) < 0) {
		w->error = store_git_error("cannot read a blob of '%s'", w->prefix);
		return -1;
	}
	path = xstrfmt("%s/%s%s", w->prefix, root, git_tree_entry_name(e));
	w->error = w->fn(path, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), w->payload);
	free(path);
	git_blob_free(blob);
	return w->error < 0 ? -1 : 0;
}

int store_walk_blobs(gs_store *st, const char *commit, const char *dir, store_blob_fn fn, void *payload)
{
	struct walk w = { st->repo, dir, fn, payload, 0 };
	git_commit *c = NULL;
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *e = NULL;
	git_oid id;
	int error = 0;

	if (git_oid_fromstr(&id, commit) < 0 || git_commit_lookup(&c, st->repo, &id) < 0 ||
	    git_commit_tree(&tree, c) < 0) {
		error = store_git_error("cannot read checkpoint %s", commit);
		goto cleanup;
	}
	if (git_tree_entry_bypath(&e, tree, dir) < 0 || git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		git_error_clear();
		goto cleanup;	/* nothing there */
	}
	if (git_tree_lookup(&sub, st->repo, git_tree_entry_id(e)) < 0) {
		error = store_git_error("cannot read '%s' of checkpoint %s", dir, commit);
		goto cleanup;
	}
	if (git_tree_walk(sub, GIT_TREEWALK_PRE, walk_one, &w) < 0)
		error = w.error < 0 ? w.error : store_git_error("cannot read '%s'", dir);
cleanup:
	git_tree_entry_free(e);
	git_tree_free(sub);
	git_tree_free(tree);
	git_commit_free(c);
	return error;
}
