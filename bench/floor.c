/*
 * floor.c - the least a program can do to take one checkpoint with
 * libgit2: open the repository, write the session.json and op.json
 * blobs, a tree and a commit on the ref's tip, and move the ref with a
 * compare-and-swap (reflog on), fsync as git-session does by default.
 * git-session's checkpoint is measured against it.
 *
 *   floor init                         libgit2 start-up only
 *   floor write <ref> <state> <op>     one checkpoint
 *
 * Built with -DSKIP_CA_PARSE it also skips mbedTLS's CA bundle parse at
 * start-up, as git-session does (src/store/store_tls.c): the true minimum.
 */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SKIP_CA_PARSE
int mbedtls_x509_crt_parse_file(void *chain, const char *path);
int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}
#endif

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		exit(2);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_reference *ref = NULL;
	git_tree *tree = NULL;
	git_oid old, blob, opblob, tree_id, commit;
	size_t len, oplen;
	char *state, *op;
	int has_parent;

	git_libgit2_init();
	if (argc == 2 && !strcmp(argv[1], "init"))
		return git_libgit2_shutdown() < 0;
	if (argc != 5)
		return 129;
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	state = slurp(argv[3], &len);
	op = slurp(argv[4], &oplen);
	if (git_repository_open(&repo, ".") < 0)
		goto fail;
	has_parent = git_reference_name_to_id(&old, repo, argv[2]) == 0;
	if (!has_parent)
		memset(&old, 0, sizeof(old));
	if ((has_parent && git_commit_lookup(&parent, repo, &old) < 0) ||
	    git_blob_create_from_buffer(&blob, repo, state, len) < 0 ||
	    git_blob_create_from_buffer(&opblob, repo, op, oplen) < 0 ||
	    git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, "session.json", &blob, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_insert(NULL, tb, "op.json", &opblob, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_write(&tree_id, tb) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0 ||
	    git_signature_now(&sig, "Bench", "bench@example.com") < 0 ||
	    git_commit_create(&commit, repo, NULL, sig, sig, NULL, "note: \"bench\"", tree,
			      has_parent, (const git_commit **)&parent) < 0 ||
	    git_reference_ensure_log(repo, argv[2]) < 0 ||
	    git_reference_create_matching(&ref, repo, argv[2], &commit, 1, &old, "floor") < 0)
		goto fail;
	git_reference_free(ref);
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	git_commit_free(parent);
	git_repository_free(repo);
	free(state);
	free(op);
	git_libgit2_shutdown();
	return 0;
fail:
	fprintf(stderr, "floor: %s\n", git_error_last() ? git_error_last()->message : "failed");
	return 1;
}
