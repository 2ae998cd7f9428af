/*
 * store_fsck.c - reading every object of a checkpoint with its hash
 * checked, and the repairs: quarantining a damaged loose object, dropping
 * reflog entries, forcing a ref. Store layer: libgit2 and files.
 */
#include "store-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void store_verify_clear(struct store_verify *v)
{
	free(v->problem);
	free(v->json);
	gs_parts_free(v->parts, v->nparts);
	for (size_t i = 0; i < v->nbad; i++)
		free(v->bad[i]);
	free(v->bad);
	memset(v, 0, sizeof(*v));
}

static void bad_object(struct store_verify *v, const git_oid *id, const char *what)
{
	const git_error *e = git_error_last();
	char hex[HEX_SZ], missing[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), id);
	if (store_missing_object(missing)) {	/* nothing to move aside, nor to repair */
		if (!v->unfetched++ && !v->problem)
			v->problem = xstrfmt("%s %.12s is not in this partial clone: git has not fetched it yet "
					     "('git cat-file -e %s' fetches it)", what, hex, hex);
		git_error_clear();
		return;
	}
	ALLOC_GROW(v->bad, v->nbad + 1, v->abad);
	v->bad[v->nbad++] = xstrdup(hex);
	if (!v->problem)
		v->problem = xstrfmt("%s %.12s cannot be read: %s", what, hex,
				     e && e->message ? e->message : "damaged");
	git_error_clear();
}

/* Reads an object and checks that its content hashes to its id. */
static int read_object(git_odb_object **out, git_odb *odb, struct store_verify *v, const git_oid *id,
		       const char *what)
{
	git_oid actual;

	if (git_odb_read(out, odb, id) < 0) {
		bad_object(v, id, what);
		return GS_ERROR;
	}
	if (git_odb_hash(&actual, git_odb_object_data(*out), git_odb_object_size(*out),
			 git_odb_object_type(*out)) < 0 || !git_oid_equal(&actual, id)) {
		git_odb_object_free(*out);
		*out = NULL;
		git_error_set_str(GIT_ERROR_ODB, "object hash mismatch");
		bad_object(v, id, what);
		return GS_ERROR;
	}
	return 0;
}

/* Reads tree id (at path, "" for the top) and all below it; keeps session.json and state/. */
static void verify_tree(struct store_verify *v, gs_store *st, git_odb *odb, const git_oid *id,
			const char *path)
{
	git_odb_object *raw = NULL;
	git_tree *tree = NULL;

	if (read_object(&raw, odb, v, id, "tree") < 0)
		return;
	git_odb_object_free(raw);
	if (git_tree_lookup(&tree, st->repo, id) < 0) {
		bad_object(v, id, "tree");
		return;
	}
	for (size_t i = 0; i < git_tree_entrycount(tree); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		char *full = xstrfmt("%s%s", path, git_tree_entry_name(e));
		int top = !*path, part = !strncmp(full, "state/", 6) && strchr(full + 6, '/');

		if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
			char *below = xstrfmt("%s/", full);
			verify_tree(v, st, odb, git_tree_entry_id(e), below);
			free(below);
		} else if (read_object(&raw, odb, v, git_tree_entry_id(e), top || part ? full : "file blob") == 0) {
			if (top && !strcmp(full, "session.json")) {
				v->len = git_odb_object_size(raw);
				v->json = xstrndup(git_odb_object_data(raw), v->len);
			} else if (part) {
				struct gs_part *p;

				ALLOC_GROW(v->parts, v->nparts + 1, v->aparts);
				p = &v->parts[v->nparts++];
				p->path = xstrdup(full);
				p->len = git_odb_object_size(raw);
				p->text = xstrndup(git_odb_object_data(raw), p->len);
			}
			git_odb_object_free(raw);
		}
		free(full);
	}
	git_tree_free(tree);
}

int store_verify(struct store_verify *v, gs_store *st, const char *commit)
{
	git_odb_object *raw = NULL;
	git_commit *c = NULL;
	git_odb *odb = NULL;
	git_oid id;

	memset(v, 0, sizeof(*v));
	if (git_oid_fromstr(&id, commit) < 0)
		return gs_error("bad object id '%s'", commit);
	if (git_repository_odb(&odb, st->repo) < 0)
		return store_git_error("cannot open the object database");
	if (read_object(&raw, odb, v, &id, "commit") == 0 && git_commit_lookup(&c, st->repo, &id) == 0) {
		if (git_commit_parentcount(c) > 0) {
			v->has_parent = 1;
			git_oid_tostr(v->parent, HEX_SZ, git_commit_parent_id(c, 0));
		}
		verify_tree(v, st, odb, git_commit_tree_id(c), "");
		if (!v->problem && !v->json)
			v->problem = xstrdup("no session.json");
	} else if (!v->problem) {
		/* a sound object of another kind (a blob, a tree) is not damaged: never moved aside */
		const git_error *e = git_error_last();

		v->problem = xstrfmt("%.12s is not a commit: %s", commit, e && e->message ? e->message : "another object");
		git_error_clear();
	}
	git_commit_free(c);
	git_odb_object_free(raw);
	git_odb_free(odb);
	return 0;
}

int store_reflog_newest(char out[HEX_SZ], gs_store *st, const char *refname)
{
	git_reflog *log = NULL;
	const git_reflog_entry *e;
	int error = GS_ENOTFOUND;

	if (git_reflog_read(&log, st->repo, refname) < 0) {
		git_error_clear();
		return GS_ENOTFOUND;
	}
	if ((e = git_reflog_entry_byindex(log, 0))) {
		git_oid_tostr(out, HEX_SZ, git_reflog_entry_id_new(e));
		error = 0;
	}
	git_reflog_free(log);
	return error;
}

int store_reflog_has(gs_store *st, const char *refname, const char *commit)
{
	git_reflog *log = NULL;
	int found = 0;
	git_oid id;

	if (git_oid_fromstr(&id, commit) < 0 || git_reflog_read(&log, st->repo, refname) < 0) {
		git_error_clear();
		return 0;
	}
	for (size_t i = 0; i < git_reflog_entrycount(log) && !found; i++)
		found = git_oid_equal(git_reflog_entry_id_new(git_reflog_entry_byindex(log, i)), &id);
	git_reflog_free(log);
	return found;
}

int store_reflog_before(char out[HEX_SZ], gs_store *st, const char *refname, const char *commit)
{
	git_reflog *log = NULL;
	int error = GS_ENOTFOUND;
	git_oid id;

	if (git_oid_fromstr(&id, commit) < 0 || git_reflog_read(&log, st->repo, refname) < 0) {
		git_error_clear();
		return GS_ENOTFOUND;
	}
	for (size_t i = 0, seen = 0; i < git_reflog_entrycount(log); i++) {
		const git_oid *v = git_reflog_entry_id_new(git_reflog_entry_byindex(log, i));

		if (git_oid_equal(v, &id)) {
			seen = 1;
		} else if (seen) {	/* the first older entry that is not commit itself */
			git_oid_tostr(out, HEX_SZ, v);
			error = 0;
			break;
		}
	}
	git_reflog_free(log);
	return error;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char *p = xstrdup(path);
	int error = 0;

	for (char *slash = strchr(p + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			error = gs_error("cannot create '%s': %s", p, strerror(errno));
			break;
		}
		if (!slash)
			break;
		*slash = '/';
	}
	free(p);
	return error;
}

int store_quarantine(gs_store *st, const char *oid, const char *name)
{
	char *from = xstrfmt("%sobjects/%.2s/%s", store_commondir(st), oid, oid + 2);
	char *sub = xstrfmt("%s%s/objects/%.2s", store_commondir(st), name, oid);
	char *to = xstrfmt("%s/%s", sub, oid + 2);
	int error = 0;

	if (access(from, F_OK) < 0)
		error = GS_ENOTFOUND;	/* packed, or already gone */
	else if ((error = make_dirs(sub)) == 0 && rename(from, to) < 0)
		error = gs_error("cannot move '%s' to '%s': %s", from, to, strerror(errno));
	free(from);
	free(sub);
	free(to);
	return error;
}

int store_object_packed(gs_store *st, const char *oid)
{
	char *loose = xstrfmt("%sobjects/%.2s/%s", store_commondir(st), oid, oid + 2);
	git_odb *odb = NULL;
	git_oid id;
	int packed = 0;

	/* there, but not as a loose file */
	if (access(loose, F_OK) < 0 && git_oid_fromstr(&id, oid) == 0 && git_repository_odb(&odb, st->repo) == 0)
		packed = git_odb_exists(odb, &id);
	git_odb_free(odb);
	git_error_clear();
	free(loose);
	return packed;
}

int store_reflog_relink_newest(gs_store *st, const char *refname)
{
	git_reflog *log = NULL;
	const git_reflog_entry *e;
	git_signature *who = NULL;
	char *msg = NULL;
	git_oid id;
	int error = 0;

	if (git_reflog_read(&log, st->repo, refname) < 0)
		return store_git_error("cannot read the reflog of '%s'", refname);
	if (git_reflog_entrycount(log) && (e = git_reflog_entry_byindex(log, 0))) {
		git_oid_cpy(&id, git_reflog_entry_id_new(e));
		msg = xstrdup(git_reflog_entry_message(e) ? git_reflog_entry_message(e) : "");
		if (git_signature_dup(&who, git_reflog_entry_committer(e)) < 0 || git_reflog_drop(log, 0, 0) < 0 ||
		    git_reflog_append(log, &id, who, msg) < 0 || git_reflog_write(log) < 0)
			error = store_git_error("cannot rewrite the reflog of '%s'", refname);
	}
	git_signature_free(who);
	free(msg);
	git_reflog_free(log);
	return error;
}

int store_reflog_drop(gs_store *st, const char *refname, char *const *oids, size_t n)
{
	git_reflog *log = NULL;
	int error = 0;

	if (git_reflog_read(&log, st->repo, refname) < 0)
		return store_git_error("cannot read the reflog of '%s'", refname);
	for (size_t i = git_reflog_entrycount(log); i-- > 0;) {
		char hex[HEX_SZ];

		git_oid_tostr(hex, sizeof(hex), git_reflog_entry_id_new(git_reflog_entry_byindex(log, i)));
		for (size_t k = 0; k < n; k++)
			if (!strcmp(hex, oids[k])) {
				git_reflog_drop(log, i, 1);
				break;
			}
	}
	if (git_reflog_write(log) < 0)
		error = store_git_error("cannot write the reflog of '%s'", refname);
	git_reflog_free(log);
	return error;
}

int store_force_ref(gs_store *st, const char *refname, const char *new_hex, const char *logmsg,
		    const char *quarantine)
{
	char *path = xstrfmt("%s%s", store_commondir(st), refname), value[HEX_SZ];
	git_reference *ref = NULL;
	git_oid id;
	int error;

	if (git_oid_fromstr(&id, new_hex) < 0) {
		free(path);
		return gs_error("bad object id '%s'", new_hex);
	}
	/* libgit2 refuses to touch a garbage ref file: keep it in the quarantine */
	if (store_ref_value(value, st, refname) < 0 && access(path, F_OK) == 0) {
		char *aside = xstrfmt("%s%s/%s", store_commondir(st), quarantine, refname);
		char *dir = xstrdup(aside);

		*strrchr(dir, '/') = '\0';
		if ((error = make_dirs(dir)) < 0 || rename(path, aside) < 0) {
			error = gs_error("cannot move '%s' aside: %s", path, strerror(errno));
			free(aside);
			free(dir);
			free(path);
			return error;
		}
		free(aside);
		free(dir);
	}
	free(path);
	error = git_reference_create(&ref, st->repo, refname, &id, 1, logmsg);
	git_reference_free(ref);
	return error < 0 ? store_git_error("cannot set '%s'", refname) : 0;
}
