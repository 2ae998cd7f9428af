/*
 * store_tree.c - commits and trees against the working tree's history:
 * the last commit that changed a path, where HEAD stands against what a
 * checkpoint recorded, what the index stages (`git diff --cached --raw`)
 * and what a commit changed against its first parent.
 */
#include "git-session/store_run.h"
#include "git-session/store_worktree.h"
#include "git-session/json.h"
#include "git-session/util.h"
#include "store-internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int store_worktree_last_commit(char **out, gs_store *st, const char *path)
{
	const char *args[] = { "git", "--literal-pathspecs", "log", "-1", "--no-show-signature",
			       "--format=%h \"%s\"", "--", path, NULL };
	struct sbuf sb = SBUF_INIT;
	int rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .out = &sb });

	*out = NULL;
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	if (rc == 0 && sb.len)
		*out = sbuf_detach(&sb, NULL);
	sbuf_release(&sb);
	return rc == 0 ? 0 : GS_ERROR;
}

int store_worktree_changed_by_others(int *out, gs_store *st, const char *path, const char *since)
{
	char *range = NULL;
	const char *args[] = { "git", "--literal-pathspecs", "log", "--no-show-signature", "--format=%ae", "-1", "--",
			       path, NULL };
	git_signature *me = NULL;
	struct sbuf sb = SBUF_INIT;
	git_commit *c = NULL;
	git_oid id;
	int error;

	*out = 0;
	if ((error = store_signature(&me, st, "AUTHOR")) < 0)
		return error;
	if (since && git_oid_fromstr(&id, since) == 0 && !git_oid_is_zero(&id) && git_commit_lookup(&c, st->repo, &id) == 0)
		args[5] = range = xstrfmt("%s..HEAD", since);	/* every commit since, not the last one only */
	git_commit_free(c);
	git_error_clear();
	if ((error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .out = &sb })) == 0)
		for (char *line = sb.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			if ((nl = strchr(line, '\n')))
				*nl = '\0';
			*out |= *line && strcasecmp(line, me->email) != 0;
		}
	else
		*out = 1;	/* not known: taken as a teammate's, which --force overrides */
	sbuf_release(&sb);
	free(range);
	git_signature_free(me);
	return 0;
}

#define SEEN_MAX 64	/* the newest commits a session saw that are walked from, or looked into */

/* The commits of seen this clone has, as oids, in an array the caller frees. */
static git_oid *seen_here(size_t *n, gs_store *st, const char *const *seen, size_t nseen)
{
	git_oid *v = xcalloc(nseen + 1, sizeof(*v));
	git_commit *c;

	*n = 0;
	for (size_t i = 0; i < nseen; i++)
		if (seen[i] && git_oid_fromstr(&v[*n], seen[i]) == 0 && !git_oid_is_zero(&v[*n]) &&
		    git_commit_lookup(&c, st->repo, &v[*n]) == 0) {
			git_commit_free(c);
			(*n)++;
		}
	git_error_clear();
	return v;
}

/* HEAD's commits that are none of hide's nor behind one: what the session never saw. */
static cJSON *commit_list(gs_store *st, const git_oid *head, const git_oid *hide, size_t nhide, int max,
			  size_t *count)
{
	cJSON *arr = cJSON_CreateArray();
	git_revwalk *walk = NULL;
	git_oid id;

	*count = 0;
	if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, head) < 0)
		goto done;
	for (size_t i = 0; i < nhide; i++)
		if (git_revwalk_hide(walk, &hide[i]) < 0)
			goto done;
	while (git_revwalk_next(&id, walk) == 0) {
		git_commit *c = NULL;
		char hex[HEX_SZ];

		if ((int)++*count > max)
			continue;
		cJSON *o = cJSON_CreateObject();
		git_oid_tostr(hex, sizeof(hex), &id);
		json_set_str(o, "id", hex);
		if (git_commit_lookup(&c, st->repo, &id) == 0)
			json_set_str(o, "subject", git_commit_summary(c));
		git_commit_free(c);
		cJSON_AddItemToArray(arr, o);
	}
done:
	git_revwalk_free(walk);
	git_error_clear();
	return arr;
}

/* Whether h is one of v or descends from one; the last of v (the newest) first. */
static int descends_any(gs_store *st, const git_oid *h, const git_oid *v, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (git_oid_equal(h, &v[i]) || git_graph_descendant_of(st->repo, h, &v[i]) == 1)
			return 1;
	git_error_clear();
	return 0;
}

int store_worktree_project(cJSON **out, gs_store *st, const char *recorded_branch, const char *recorded_head,
			   const char *const *seen, size_t nseen, int max)
{
	cJSON *branch, *head;
	char now[HEX_SZ], *current = NULL, *ref;
	const char *rec[] = { recorded_head };
	git_oid h, *r, *hide;
	size_t n = 0, nr, nhide;
	int has_head, rec_ok;

	*out = NULL;
	if (store_head(&current, now, st) < 0)
		return GS_ERROR;
	*out = cJSON_CreateObject();
	branch = json_set(*out, "branch", cJSON_CreateObject());
	json_set_str(branch, "current", current);
	json_set_str(branch, "recorded", recorded_branch);
	ref = xstrfmt("refs/heads/%s", recorded_branch ? recorded_branch : "");
	json_set_bool(branch, "recorded_exists", recorded_branch &&
		      (!strcmp(recorded_branch, "HEAD") || store_ref_exists(st, ref)));
	free(ref);
	head = json_set(*out, "head", cJSON_CreateObject());
	json_set_str(head, "current", now);
	json_set_str(head, "recorded", recorded_head);
	has_head = git_oid_fromstr(&h, now) == 0 && !git_oid_is_zero(&h);
	r = seen_here(&nr, st, rec, 1);
	rec_ok = nr == 1;
	hide = seen_here(&nhide, st, seen, nseen);
	if (rec_ok)	/* hidden too: hide has room for nseen + 1 */
		hide[nhide++] = r[0];
	json_set_bool(head, "recorded_exists", rec_ok);
	json_set(head, "commits", has_head ? commit_list(st, &h, hide, nhide, max, &n) : cJSON_CreateArray());
	json_set_num(head, "new_commits", (double)n);
	/* a recorded HEAD this clone lacks (a teammate's, not pulled) is judged by the commits it has */
	json_set_bool(head, "descends", rec_ok ? descends_any(st, &h, r, 1) :
		      has_head && nhide ? descends_any(st, &h, hide + (nhide > SEEN_MAX ? nhide - SEEN_MAX : 0),
						       nhide > SEEN_MAX ? SEEN_MAX : nhide) :
		      !has_head && !recorded_head);
	free(hide);
	free(r);
	free(current);
	return 0;
}

/* Whether commit c's tree holds blob want at path. */
static int holds_at(gs_store *st, const git_oid *c, const char *path, const git_oid *want)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	int yes = git_commit_lookup(&commit, st->repo, c) == 0 && git_commit_tree(&tree, commit) == 0 &&
		  git_tree_entry_bypath(&te, tree, path) == 0 && git_oid_equal(git_tree_entry_id(te), want);

	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(commit);
	return yes;
}

/*
 * Whether one of HEAD's commits since those the session saw (the newest
 * SEEN_MAX of them, as resume lists new ones) holds blob want at path: a
 * commit the session never saw (no hook, a teammate's) took it in.
 */
static int new_commit_holds(gs_store *st, const git_oid *head, const git_oid *seen, size_t nseen, const char *path,
			    const git_oid *want)
{
	git_revwalk *walk = NULL;
	git_oid id;
	int yes = 0, k = 0;

	if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, head) < 0)
		goto done;
	for (size_t i = 0; i < nseen; i++)
		if (git_revwalk_hide(walk, &seen[i]) < 0)
			goto done;
	while (!yes && k++ < SEEN_MAX && git_revwalk_next(&id, walk) == 0)
		yes = holds_at(st, &id, path, want);
done:
	git_revwalk_free(walk);
	return yes;
}

int store_worktree_in_history(int *out, gs_store *st, const char *path, const char *blob,
			      const char *const *commits, size_t n)
{
	git_oid h, want, *v = seen_here(&n, st, commits + (n > SEEN_MAX ? n - SEEN_MAX : 0),
					n > SEEN_MAX ? SEEN_MAX : n);
	char now[HEX_SZ], *branch = NULL;
	int error = store_head(&branch, now, st);

	*out = 0;
	if (error < 0 || git_oid_fromstr(&h, now) < 0 || !blob || git_oid_fromstr(&want, blob) < 0)
		goto cleanup;
	for (size_t i = 0; i < n && !*out; i++)
		if (holds_at(st, &v[i], path, &want))
			*out = descends_any(st, &h, &v[i], 1);
	if (!*out)
		*out = new_commit_holds(st, &h, v, n, path, &want);
	git_error_clear();
cleanup:
	free(branch);
	free(v);
	return error < 0 ? error : 0;
}

void store_changes_clear(struct store_changes *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static struct store_changed_file *change_add(struct store_changes *c, const char *path, enum store_change change)
{
	struct store_changed_file *f;

	ALLOC_GROW(c->v, c->n + 1, c->alloc);
	f = &c->v[c->n++];
	f->path = xstrdup(path);
	f->change = change;
	f->oid[0] = '\0';
	return f;
}

int store_worktree_staged(struct store_changes *out, gs_store *st)
{
	static const char *const args[] = {
		"git", "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", NULL,
	};
	struct sbuf raw = SBUF_INIT;
	const char *p, *end;
	int error;

	if (!store_workdir(st))
		return gs_error("this operation must be run in a work tree");
	if ((error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .out = &raw,
						.must_succeed = 1 })) < 0)
		goto cleanup;
	/* records: ":<mode> <mode> <oid> <oid> <status>\0<path>\0" */
	for (p = raw.buf, end = raw.buf + raw.len; p && p < end;) {
		const char *path = memchr(p, '\0', (size_t)(end - p));
		struct store_changed_file *f;
		char status;

		if (!path || path + 1 >= end || *p != ':' || path - p < 97) {
			error = gs_error("cannot read what git diff --cached says");
			break;
		}
		path++;
		status = p[97];
		f = change_add(out, path, status == 'D' ? STORE_DELETED : status == 'A' ? STORE_ADDED : STORE_MODIFIED);
		if (status != 'D') {
			memcpy(f->oid, p + 56, 40);
			f->oid[40] = '\0';
		}
		p = path + strlen(path) + 1;
	}
cleanup:
	sbuf_release(&raw);
	return error;
}

/* git's tree order: a tree's name sorts as if it ended in '/'. */
static int entry_cmp(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *na = git_tree_entry_name(a), *nb = git_tree_entry_name(b);
	size_t la = strlen(na), lb = strlen(nb);
	int c = memcmp(na, nb, la < lb ? la : lb);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = la > lb ? (unsigned char)na[lb] : git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	cb = lb > la ? (unsigned char)nb[la] : git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return ca - cb;
}

static void commit_file(struct store_changes *files, const char *path, const git_tree_entry *from,
			const git_tree_entry *to)
{
	struct store_changed_file *f = change_add(files, path, !to ? STORE_DELETED : from ? STORE_MODIFIED : STORE_ADDED);

	if (to)
		git_oid_tostr(f->oid, sizeof(f->oid), git_tree_entry_id(to));
}

static int diff_trees(struct store_changes *files, git_repository *repo, struct sbuf *path,
		      const git_tree *a, const git_tree *b);

/* One name on either side (a or b may be NULL); recurses into trees. */
static int diff_entry(struct store_changes *files, git_repository *repo, struct sbuf *path,
		      const git_tree_entry *a, const git_tree_entry *b)
{
	const git_tree_entry *e = a ? a : b;
	size_t len = path->len;
	int error = 0;

	if (a && b && git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)) &&
	    git_tree_entry_filemode(a) == git_tree_entry_filemode(b))
		return 0;
	if (git_tree_entry_filemode(e) == GIT_FILEMODE_COMMIT)
		return 0;	/* a submodule: its commits are not ours to record */
	sbuf_adds(path, git_tree_entry_name(e));
	if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		git_tree *ta = NULL, *tb = NULL;

		sbuf_addch(path, '/');
		if ((a && git_tree_lookup(&ta, repo, git_tree_entry_id(a)) < 0) ||
		    (b && git_tree_lookup(&tb, repo, git_tree_entry_id(b)) < 0))
			error = GS_ERROR;
		else
			error = diff_trees(files, repo, path, ta, tb);
		git_tree_free(ta);
		git_tree_free(tb);
	} else {
		commit_file(files, path->buf, a, b);
	}
	path->len = len;
	path->buf[len] = '\0';
	return error;
}

/* Walks both trees in order and descends only where they differ. */
static int diff_trees(struct store_changes *files, git_repository *repo, struct sbuf *path,
		      const git_tree *a, const git_tree *b)
{
	size_t na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0, i = 0, j = 0;
	int error = 0;

	while (!error && (i < na || j < nb)) {
		const git_tree_entry *ea = i < na ? git_tree_entry_byindex(a, i) : NULL;
		const git_tree_entry *eb = j < nb ? git_tree_entry_byindex(b, j) : NULL;
		int c = !ea ? 1 : !eb ? -1 : entry_cmp(ea, eb);

		error = diff_entry(files, repo, path, c <= 0 ? ea : NULL, c >= 0 ? eb : NULL);
		i += c <= 0;
		j += c >= 0;
	}
	return error;
}

int store_worktree_commit(char **subject, struct store_changes *files, gs_store *st, const char *oid)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *tree = NULL, *old = NULL;
	struct sbuf path = SBUF_INIT;
	git_oid id;
	int error = 0;

	*subject = NULL;
	sbuf_add(&path, "", 0);
	/* libgit2's tree diff reads every subtree: this one skips equal ones */
	if (git_oid_fromstr(&id, oid) < 0 || git_commit_lookup(&c, st->repo, &id) < 0 ||
	    git_commit_tree(&tree, c) < 0 ||
	    (git_commit_parentcount(c) && (git_commit_parent(&parent, c, 0) < 0 ||
					   git_commit_tree(&old, parent) < 0)) ||
	    diff_trees(files, st->repo, &path, old, tree) < 0) {
		error = store_git_error("cannot read commit %s", oid);
		goto cleanup;
	}
	*subject = xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
cleanup:
	sbuf_release(&path);
	git_tree_free(old);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(c);
	return error;
}
