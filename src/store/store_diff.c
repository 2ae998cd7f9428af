/*
 * store_diff.c - blobs diffed, and what a commit holds, for the page. The
 * diff between two recorded blobs, the blob a commit holds at a path, a
 * commit's message body. libgit2 only.
 */
#include "store-internal.h"

#include <stdlib.h>
#include <string.h>

#define BLOB_DIFF_MAX (8u * 1024 * 1024)	/* past that, a blob is diffed as git diffs a binary one */

static int blob_of(git_blob **out, gs_store *st, const char *hex)
{
	git_oid id;

	*out = NULL;
	if (!hex)
		return 0;
	if (git_oid_fromstr(&id, hex) < 0 || git_blob_lookup(out, st->repo, &id) < 0) {
		git_error_clear();
		return GS_ENOTFOUND;
	}
	return 0;
}

/* The bytes of blob hex (NULL: none, 0) added to *size, read from its header: the blob itself is not inflated. */
static int add_size(size_t *size, git_odb *odb, const char *hex)
{
	git_object_t type;
	size_t len;
	git_oid id;

	if (!hex)
		return 0;
	if (git_oid_fromstr(&id, hex) < 0 || git_odb_read_header(&len, &type, odb, &id) < 0) {
		git_error_clear();
		return GS_ENOTFOUND;
	}
	*size += len;
	return 0;
}

/* Whether the two blobs fit in *room, which they are then taken from. */
static int fits(int *out, gs_store *st, size_t *room, const char *old_hex, const char *new_hex)
{
	git_odb *odb = NULL;
	size_t size = 0;
	int error;

	*out = 0;
	if ((error = git_repository_odb(&odb, st->repo)) < 0) {
		error = store_git_error("cannot open the object database");
		goto cleanup;
	}
	if ((error = add_size(&size, odb, old_hex)) < 0 || (error = add_size(&size, odb, new_hex)) < 0)
		goto cleanup;
	if ((*out = size <= *room))
		*room -= size;
cleanup:
	git_odb_free(odb);
	return error;
}

int store_blob_diff(char **out, gs_store *st, size_t *room, const char *path, const char *old_hex, const char *new_hex)
{
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_blob *a = NULL, *b = NULL;
	git_buf text = GIT_BUF_INIT;
	git_patch *patch = NULL;
	int error, fit;

	*out = NULL;
	if ((error = fits(&fit, st, room, old_hex, new_hex)) < 0 || !fit)
		goto cleanup;
	if ((error = blob_of(&a, st, old_hex)) < 0 || (error = blob_of(&b, st, new_hex)) < 0)
		goto cleanup;
	if ((a && git_blob_rawsize(a) > BLOB_DIFF_MAX) || (b && git_blob_rawsize(b) > BLOB_DIFF_MAX)) {
		*out = xstrfmt("Binary files a/%s and b/%s differ (too large to diff)\n", path, path);
		goto cleanup;
	}
	if (git_patch_from_blobs(&patch, a, path, b, path, &opts) < 0 || git_patch_to_buf(&text, patch) < 0) {
		error = store_git_error("cannot diff '%s'", path);
		goto cleanup;
	}
	*out = xstrdup(text.ptr ? text.ptr : "");
cleanup:
	git_buf_dispose(&text);
	git_patch_free(patch);
	git_blob_free(a);
	git_blob_free(b);
	return error;
}

int store_commit_blob(char out[HEX_SZ], gs_store *st, const char *commit, int parent, const char *path)
{
	git_commit *c = NULL, *p = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_oid id;
	int error = GS_ENOTFOUND;

	*out = '\0';
	if (git_oid_fromstr(&id, commit) == 0 && git_commit_lookup(&c, st->repo, &id) == 0 &&
	    (!parent || git_commit_parent(&p, c, 0) == 0) && git_commit_tree(&tree, p ? p : c) == 0 &&
	    git_tree_entry_bypath(&e, tree, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
		git_oid_tostr(out, HEX_SZ, git_tree_entry_id(e));
		error = 0;
	}
	git_error_clear();
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_commit_free(p);
	git_commit_free(c);
	return error;
}

int store_commit_body(char **out, gs_store *st, const char *hex)
{
	git_commit *c = NULL;
	git_oid id;

	*out = NULL;
	if (git_oid_fromstr(&id, hex) < 0 || git_commit_lookup(&c, st->repo, &id) < 0) {
		git_error_clear();
		return GS_ENOTFOUND;
	}
	*out = xstrdup(git_commit_body(c) ? git_commit_body(c) : "");
	git_commit_free(c);
	return 0;
}
