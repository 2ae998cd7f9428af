/*
 * cmd_restore.c - `git session restore <rev> [--] [<path>...]`: the
 * working tree's files put back as a checkpoint recorded them. Everything
 * is checked before the first byte is written, so a restore that cannot
 * complete writes nothing; what it is about to change is checkpointed
 * first, so that a restore is undone by restoring that checkpoint. A file
 * whose content the session never recorded is not overwritten without
 * --force, nor is a newer one HEAD holds that the session never recorded
 * or a teammate committed since the checkpoint (a pulled change, which a
 * merge of the session may have recorded too).
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/store_run.h"
#include "git-session/store_worktree.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One path of the checkpoint restored from, and what restoring it takes. */
struct target {
	const cJSON *rec;	/* the entry restored from; rec->string is the path */
	const cJSON *kept;	/* the active session's entry for the path, or NULL */
	const cJSON *fact;	/* what the working tree holds there (store_worktree_scan) */
	const char *action;	/* "create", "write", "delete", or NULL: nothing to do */
	const char *mode;	/* the mode recorded: 100644, 100755 or 120000 */
	char *refused;		/* why it cannot be written safely */
	const char *skipped;	/* why it is left alone */
	int unrecorded;		/* what is there now no checkpoint nor HEAD holds */
	int committed;		/* what is there now is HEAD's, newer than the checkpoint: unrecorded, or a teammate's */
};

struct restore {
	const cJSON **all;	/* the manifest restored from, sorted by path */
	size_t nall;
	struct target *t;	/* the paths selected, sorted */
	size_t n;
	cJSON *facts;
	const char *since;	/* the HEAD of the checkpoint restored from */
};

#define PATH(t) ((t)->rec->string)
#define MAX_NAMED 10	/* commits looked up and named for refused paths */

static int cmp_entry(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* obj's members sorted by key, in an array the caller frees. */
static const cJSON **sorted(size_t *n, const cJSON *obj)
{
	const cJSON **v = xcalloc((size_t)cJSON_GetArraySize(obj) + 1, sizeof(*v));

	*n = 0;
	for (const cJSON *e = cJSON_IsObject(obj) ? obj->child : NULL; e; e = e->next)
		v[(*n)++] = e;
	qsort(v, *n, sizeof(*v), cmp_entry);
	return v;
}

static const cJSON *find(const cJSON **v, size_t n, const char *path, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(v[mid]->string, path, len);

		if (!c && v[mid]->string[len])
			c = 1;
		if (!c)
			return v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The entries of the manifest the paths name (a file, or a folder with
 * what is under it); all when none. A name twice is refused: git's trees
 * cannot hold it, and which one wins would be chance.
 */
static int select_paths(struct restore *r, struct cmd_ctx *c, const cJSON *manifest, int argc, const char **argv,
			const char *commit)
{
	char *pick = NULL;
	int error = 0;

	r->all = sorted(&r->nall, manifest);
	for (size_t i = 1; i < r->nall; i++)
		if (!strcmp(r->all[i - 1]->string, r->all[i]->string))
			return gs_error("checkpoint %.7s names '%s' twice; nothing was written", commit, r->all[i]->string);
	pick = xcalloc(r->nall + 1, 1);
	for (int a = 0; a < argc && !error; a++) {
		char *path = NULL;
		size_t len;
		int found = 0;

		if ((error = store_worktree_relpath(&path, c->st, argv[a])) < 0)
			break;
		len = strlen(path);
		for (size_t i = 0; i < r->nall; i++)
			if (!strncmp(r->all[i]->string, path, len) && (!r->all[i]->string[len] || r->all[i]->string[len] == '/'))
				pick[i] = found = 1;
		if (!found)
			error = gs_error("'%s' is not in the manifest of checkpoint %.7s", path, commit);
		free(path);
	}
	r->t = xcalloc(r->nall + 1, sizeof(*r->t));
	for (size_t i = 0; i < r->nall && !error; i++)
		if (!argc || pick[i])
			r->t[r->n++].rec = r->all[i];
	free(pick);
	return error;
}

/* The mode rec records, or NULL when it is none a file may have. */
static const char *recorded_mode(const cJSON *rec)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(rec, "mode");

	if (!m || cJSON_IsNull(m))
		return FILE_MODE_FILE;
	if (cJSON_IsString(m) && (!strcmp(m->valuestring, FILE_MODE_FILE) || !strcmp(m->valuestring, FILE_MODE_EXEC) ||
				  !strcmp(m->valuestring, FILE_MODE_LINK)))
		return m->valuestring;
	return NULL;
}

static int is_deleted(const cJSON *rec)
{
	const char *s = json_str(rec, "status");

	return s && !strcmp(s, ST_DELETED);
}

/* Why path cannot be written: below a file the manifest holds, or below a file here the plan keeps. */
static char *below_file(const struct restore *r, const struct target *t)
{
	const char *path = PATH(t), *blocked = json_str(t->fact, "blocked");
	const cJSON *up;

	for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/'))
		if ((up = find(r->all, r->nall, path, (size_t)(s - path))) && !is_deleted(up))
			return xstrfmt("'%s' is a %s in the same checkpoint", up->string,
				       recorded_mode(up) && !strcmp(recorded_mode(up), FILE_MODE_LINK) ?
				       "symbolic link" : "file");
	/* a file here where a folder goes: only when the plan deletes it first */
	if (blocked && !((up = find(r->all, r->nall, blocked, strlen(blocked))) && is_deleted(up)))
		return xstrfmt("'%s' is a file in the working tree", blocked);
	return NULL;
}

/*
 * Whether a commit by someone else changed path since the checkpoint's
 * HEAD: a teammate's pulled change, which the session's merge may have
 * recorded too, is not reverted silently. Unknown counts as yes.
 */
static int by_others(struct cmd_ctx *c, const char *path, const char *since)
{
	int others = 1;
	size_t mark = gs_error_mark();

	if (store_worktree_changed_by_others(&others, c->st, path, since) < 0)
		others = 1;
	gs_error_rewind(mark);
	return others;
}

/* What one path needs: nothing, a write, a removal; or why it is left alone or refused. */
static void plan_one(struct target *t, const struct restore *r, struct cmd_ctx *c)
{
	const char *fs = json_str(t->fact, "fs"), *want = json_str(t->rec, "oid"), *cur = json_str(t->fact, "oid");
	const char *kept = json_str(t->kept, "oid"), *head = json_str(t->fact, "head_oid");
	const char *now_mode = json_str(t->fact, "mode");
	int deleted = is_deleted(t->rec);

	if (!fs)
		fs = "missing";
	if (!(t->mode = recorded_mode(t->rec))) {
		t->refused = xstrdup("its mode is none a file may have");
		return;
	}
	if (!strcmp(fs, "sparse")) {
		t->skipped = "outside the sparse checkout";
		return;
	}
	if (json_str(t->fact, "error")) {
		t->refused = xstrdup(json_str(t->fact, "error"));
		return;
	}
	if (!strcmp(fs, "dir")) {
		if (!deleted)
			t->refused = xstrdup("a folder is in its place");
		return;	/* recorded deleted: no file there, nothing to do */
	}
	if (!strcmp(fs, "missing"))
		t->action = deleted ? NULL : "create";
	else if (deleted)
		t->action = "delete";
	else if ((!json_bool(t->fact, "same_stat", 0) && (!cur || !want || strcmp(cur, want))) ||
		 (now_mode && strcmp(now_mode, t->mode)))
		t->action = "write";
	if (!t->action)
		return;
	if (!deleted && !(t->refused = below_file(r, t)) && store_worktree_blob_check(&t->refused, c->st, want, t->mode) == 0)
		t->refused = NULL;
	if (t->refused || !cur)
		return;	/* nothing there: safe */
	if (kept && !strcmp(kept, cur)) {
		/* what the session last recorded: safe to overwrite, unless a teammate committed it since */
		t->committed = head && !strcmp(head, cur) && by_others(c, PATH(t), r->since);
		return;
	}
	if (head && !strcmp(head, cur))
		t->committed = 1;	/* HEAD's, and the session never recorded it: newer than the checkpoint */
	else
		t->unrecorded = 1;
}

static int make_plan(struct restore *r, struct cmd_ctx *c, const cJSON *now)
{
	cJSON *selected = cJSON_CreateObject();
	const cJSON **mine, *f;
	size_t nmine, j = 0;
	int error;

	for (size_t i = 0; i < r->n; i++)	/* references: the scan reads them, nothing is copied */
		cJSON_AddItemReferenceToObject(selected, PATH(&r->t[i]), (cJSON *)r->t[i].rec);
	error = store_worktree_scan(&r->facts, c->st, selected);
	cJSON_Delete(selected);
	if (error < 0)
		return error;
	mine = sorted(&nmine, now);
	f = r->facts->child;	/* in the order it was given */
	for (size_t i = 0; i < r->n; i++, f = f->next) {
		while (j < nmine && strcmp(mine[j]->string, PATH(&r->t[i])) < 0)
			j++;
		r->t[i].kept = j < nmine && !strcmp(mine[j]->string, PATH(&r->t[i])) ? mine[j] : NULL;
		r->t[i].fact = f;
		plan_one(&r->t[i], r, c);
	}
	free(mine);
	return 0;
}

/* A path to record, the manifest's entry for it (a stat that has not changed is trusted), its status. */
struct rec_path {
	const char *path;
	const cJSON *known;
	const char *status;
};

static int cmp_rec_path(const void *a, const void *b)
{
	return strcmp(((const struct rec_path *)a)->path, ((const struct rec_path *)b)->path);
}

/*
 * For the checkpoint before: every file of the session's manifest and of
 * the plan as it is now, as `checkpoint` records them, so that restoring
 * it puts back exactly what was there. After: the plan's files as written,
 * with the status they had (created, modified; deleted ones are found gone).
 */
static int record_plan(cJSON **out, const struct restore *r, struct cmd_ctx *c, const cJSON *now, int after)
{
	size_t n = 0, k = 0, nnow = after ? 0 : (size_t)cJSON_GetArraySize(now);
	struct rec_path *v = xcalloc(nnow + r->n + 1, sizeof(*v));
	int error = 0;

	for (const cJSON *p = after || !cJSON_IsObject(now) ? NULL : now->child; p; p = p->next)
		v[n++] = (struct rec_path){ p->string, p, NULL };
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].action)
			v[n++] = (struct rec_path){ PATH(&r->t[i]), after ? NULL : r->t[i].kept,
						    after && !is_deleted(r->t[i].rec) ? json_str(r->t[i].rec, "status") : NULL };
	qsort(v, n, sizeof(*v), cmp_rec_path);	/* stable enough: equal paths carry the same entry */
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1].path, v[i].path))
			v[k++] = v[i];
	*out = cJSON_CreateObject();
	for (size_t i = 0; i < k && !error; i++)
		error = engine_record_file_new(*out, c->st, v[i].path, v[i].status, v[i].known);
	if (error < 0) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	free(v);
	return error;
}

static int removes(const struct target *t)
{
	return t->action && !strcmp(t->action, "delete");
}

#define STAGE_BATCH 500	/* entries per git update-index: argv stays far below the system's limit */

/*
 * --staged: the index gets the recorded blobs and modes too, all checked
 * already, through git: removals first (paths after --), then entries.
 */
static int stage(const struct restore *r, struct cmd_ctx *c)
{
	const char **args = xcalloc(STAGE_BATCH * 4 + 8, sizeof(*args));
	struct sbuf out = SBUF_INIT;
	int error = 0;

	for (int removing = 1; removing >= 0 && !error; removing--) {
		size_t i = 0;

		while (i < r->n && !error) {
			size_t n = 0, k = 0;

			args[n++] = "git";
			args[n++] = "update-index";
			args[n++] = removing ? "--force-remove" : "--add";
			if (removing)
				args[n++] = "--";
			for (; i < r->n && k < STAGE_BATCH; i++) {
				const struct target *t = &r->t[i];

				if (!t->action || removes(t) != removing)
					continue;
				k++;
				if (!removing) {
					args[n++] = "--cacheinfo";
					args[n++] = t->mode;
					args[n++] = json_str(t->rec, "oid");
				}
				args[n++] = PATH(t);
			}
			args[n] = NULL;
			if (k)
				error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(c->st), .out = &out,
							  .must_succeed = 1 });
		}
	}
	sbuf_release(&out);
	free(args);
	return error;
}

static void print_plan(const struct restore *r, const char *commit, int dry_run)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].action && ++n)
			printf("%s%s %s\n", dry_run ? "would " : "", r->t[i].action, PATH(&r->t[i]));
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].skipped)
			printf("left alone: %s (%s)\n", PATH(&r->t[i]), r->t[i].skipped);
	if (!n)
		printf("Nothing to restore: the files are as checkpoint %.7s recorded them.\n", commit);
}

/* The hint for unrecorded changes: after an interrupted restore, the way back is its checkpoint before. */
static void hint_unrecorded(struct cmd_ctx *c, const char *id)
{
	struct store_tip tip = { 0 };
	char *ref = engine_refname(id);

	if (store_read_ref(&tip, c->st, ref) == 0 && tip.subject &&
	    !strncmp(tip.subject, "checkpoint: \"before restoring from ", 35))
		gs_hint("the last restore did not finish: its checkpoint before, %.7s, holds the files as they were: "
			"git session restore --force %.7s", tip.commit, tip.commit);
	else
		gs_hint("record them first (git session checkpoint <path>), or restore with --force: "
			"with it, what they hold now is checkpointed before they are overwritten");
	store_tip_clear(&tip);
	free(ref);
}

/*
 * Refuses, naming the files, what cannot be written; or would lose what
 * the session never recorded, or revert what HEAD holds that is newer
 * than what the session recorded (unless force).
 */
static int check_plan(const struct restore *r, struct cmd_ctx *c, const char *id, const char *commit, int force)
{
	size_t refused = 0, unrecorded = 0, committed = 0, named = 0;

	for (size_t i = 0; i < r->n; i++) {
		refused += !!r->t[i].refused;
		unrecorded += r->t[i].unrecorded;
		committed += r->t[i].committed;
	}
	if (refused) {
		gs_error("cannot restore these files safely; nothing was written:");
		for (size_t i = 0; i < r->n; i++)
			if (r->t[i].refused)
				cmd_say("\t%s: %s\n", PATH(&r->t[i]), r->t[i].refused);
		return GS_ERROR;
	}
	if (force || (!unrecorded && !committed))
		return 0;
	if (committed) {
		gs_error("restoring would revert changes committed in HEAD since checkpoint %.7s, that the session "
			 "never recorded or a teammate made; nothing was written:", commit);
		for (size_t i = 0; i < r->n; i++) {
			char *by = NULL;

			if (!r->t[i].committed)
				continue;
			if (named++ < MAX_NAMED && store_worktree_last_commit(&by, c->st, PATH(&r->t[i])) == 0 && by)
				cmd_say("\t%s (from commit %s)\n", PATH(&r->t[i]), by);
			else
				cmd_say("\t%s\n", PATH(&r->t[i]));
			free(by);
		}
		gs_hint("they are newer than checkpoint %.7s: restore them with --force (checkpointed first), or "
			"name only the paths to restore", commit);
	}
	if (unrecorded) {
		gs_error("restoring would lose changes the session never recorded; nothing was written:");
		for (size_t i = 0; i < r->n; i++)
			if (r->t[i].unrecorded)
				cmd_say("\t%s\n", PATH(&r->t[i]));
		hint_unrecorded(c, id);
	}
	return GS_ERROR;
}

/* The plan's writes: removals first (a file may be where a folder goes), then files in path order. */
static int write_plan(const struct restore *r, struct cmd_ctx *c)
{
	int error = 0;

	for (int removing = 1; removing >= 0; removing--)
		for (size_t i = 0; i < r->n && !error; i++) {
			const struct target *t = &r->t[i];

			if (t->action && removes(t) == removing)
				error = store_worktree_put(c->st, PATH(t), removing ? NULL : json_str(t->rec, "oid"),
							   t->mode);
		}
	return error;
}

/* Checkpoint the files as they are, write them, checkpoint them as written. */
static int apply_plan(char before[HEX_SZ], const struct restore *r, struct cmd_ctx *c, const cJSON *now,
		      const char *id, const char *commit, int staged, int quiet)
{
	struct engine_result res = { { 0 } };
	struct state_op *op = op_new(OP_CHECKPOINT, NULL);
	cJSON *files = NULL;
	char *msg = xstrfmt("before restoring from %.7s", commit);
	int error;

	if ((error = record_plan(&files, r, c, now, 0)) < 0)
		goto cleanup;
	json_set(op_args(op), "files", files);
	json_set_str(op_args(op), "message", msg);
	if ((error = cmd_write(&res, c, id, op, NULL, 1)) < 0)
		goto cleanup;
	memcpy(before, res.commit, HEX_SZ);
	if ((error = write_plan(r, c)) < 0 || (staged && (error = stage(r, c)) < 0))
		goto undo_hint;
	op_free(op);
	op = op_new(OP_RESTORE, NULL);
	json_set_str(op_args(op), "from", commit);
	if ((error = record_plan(&files, r, c, NULL, 1)) < 0)
		goto undo_hint;
	json_set(op_args(op), "files", files);
	error = cmd_write(NULL, c, id, op, NULL, quiet);
undo_hint:
	if (error < 0)
		gs_hint("the files as they were before are in checkpoint %.7s: git session restore --force %.7s",
			before, before);
cleanup:
	engine_result_clear(&res);
	op_free(op);
	free(msg);
	return error;
}

static void print_json(const struct restore *r, const char *id, const char *commit, int dry_run,
		       const char *before)
{
	cJSON *o = cJSON_CreateObject(), *files, *skipped, *unrecorded;
	char *text;

	json_set_str(o, "session", id);
	json_set_str(o, "from", commit);
	json_set_bool(o, "dry_run", dry_run);
	json_set_str(o, "before", before);
	files = json_set(o, "files", cJSON_CreateArray());
	skipped = json_set(o, "skipped", cJSON_CreateArray());
	unrecorded = json_set(o, "unrecorded", cJSON_CreateArray());
	for (size_t i = 0; i < r->n; i++) {
		const struct target *t = &r->t[i];

		if (t->action) {
			cJSON *f = cJSON_CreateObject();

			json_set_str(f, "path", PATH(t));
			json_set_str(f, "action", t->action);
			json_set_str(f, "recorded_oid", json_str(t->rec, "oid"));
			json_set_str(f, "current_oid", json_str(t->fact, "oid"));
			json_set_str(f, "mode", is_deleted(t->rec) ? NULL : t->mode);
			cJSON_AddItemToArray(files, f);
		}
		if (t->skipped) {
			cJSON *s = cJSON_CreateObject();

			json_set_str(s, "path", PATH(t));
			json_set_str(s, "why", t->skipped);
			cJSON_AddItemToArray(skipped, s);
		}
		if (t->unrecorded || t->committed)
			cJSON_AddItemToArray(unrecorded, cJSON_CreateString(PATH(t)));
	}
	text = json_print(o, 1, NULL);
	fputs(text, stdout);
	free(text);
	cJSON_Delete(o);
}

/*
 * <rev> [--] [<path>...], or --source=<rev> [--] [<path>...], as git
 * restore takes them; a revision is required, as git restore requires a
 * path: restoring is never what a bare command does. What is left in
 * argv are the paths.
 */
static int split_rev(const char **rev, int *argc, const char ***argv)
{
	int dd = -1;

	for (int i = 0; i < *argc && dd < 0; i++)
		if (!strcmp((*argv)[i], "--")) {
			dd = i;
			memmove(*argv + i, *argv + i + 1, (size_t)(*argc - i - 1) * sizeof(**argv));
			(*argc)--;
		}
	if (*rev)
		return 0;	/* --source: every word is a path */
	if (dd > 1) {
		gs_error("one revision at most before --");
		return GS_EUSAGE;
	}
	if (dd == 0 || !*argc) {
		gs_error("you must name the checkpoint to restore from");
		return GS_EUSAGE;
	}
	*rev = (*argv)[0];
	(*argv)++;
	(*argc)--;
	return 0;
}

static void restore_clear(struct restore *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->t[i].refused);
	free(r->t);
	free(r->all);
	cJSON_Delete(r->facts);
}

/* The whole manifest judged before anything else: one bad entry and nothing is restored. */
static int check_manifest(const cJSON *files, const char *commit)
{
	char *err = NULL;

	if (files && !cJSON_IsObject(files))
		return gs_error("checkpoint %.7s has no manifest restore can read; nothing was written", commit);
	if (files && state_manifest_check(&err, files) < 0) {
		gs_error("checkpoint %.7s cannot be restored: %s; nothing was written", commit, err ? err : "");
		free(err);
		return GS_ERROR;
	}
	return 0;
}

static size_t planned(const struct restore *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->t[i].action != NULL;
	return n;
}

struct restore_opts {
	int dry_run, force, staged, json, quiet;
};

/* Restores paths (none: the whole manifest) of session id from the checkpoint spec names. */
static int restore_from(struct cmd_ctx *c, const char *id, const char *spec, const char *rev,
			const struct restore_opts *o, int argc, const char **argv)
{
	struct restore r = { 0 };
	struct store_tip tip = { 0 }, cur = { 0 };
	cJSON *src = NULL, *mine = NULL;
	const cJSON *from, *now;
	char *ref = NULL, before[HEX_SZ] = "";
	int error;

	if ((error = engine_load_rev(&src, &tip, c->st, spec)) == GS_ENOTFOUND)
		error = gs_error("unknown revision or session '%s'", rev);
	if (error < 0)
		goto cleanup;
	ref = engine_refname(id);
	if ((error = engine_load_some(&mine, &cur, c->st, ref, NEED(FILES))) < 0)
		goto cleanup;
	from = cJSON_GetObjectItemCaseSensitive(src, "files");
	now = cJSON_GetObjectItemCaseSensitive(mine, "files");
	r.since = json_str(cJSON_GetObjectItemCaseSensitive(src, "project"), "head");
	if ((error = check_manifest(from, tip.commit)) < 0 ||
	    (error = select_paths(&r, c, from, argc, argv, tip.commit)) < 0 ||
	    (error = make_plan(&r, c, now)) < 0 || (error = check_plan(&r, c, id, tip.commit, o->force)) < 0)
		goto cleanup;
	if (!o->dry_run && planned(&r) &&
	    (error = apply_plan(before, &r, c, now, id, tip.commit, o->staged, o->quiet || o->json)) < 0)
		goto cleanup;
	if (o->json)
		print_json(&r, id, tip.commit, o->dry_run, *before ? before : NULL);
	else if (!o->quiet && (o->dry_run || !planned(&r)))
		print_plan(&r, tip.commit, o->dry_run);
	else if (!o->quiet)
		printf("To undo: git session restore %.7s\n", before);
cleanup:
	restore_clear(&r);
	cJSON_Delete(src);
	cJSON_Delete(mine);
	store_tip_clear(&tip);
	store_tip_clear(&cur);
	free(ref);
	return error;
}

int cmd_restore(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session restore [--dry-run] [--force] [--staged] [--json] [-q] <rev> [--] [<path>...]",
		"git session restore [<options>] --source=<rev> [--] [<path>...]", NULL,
	};
	struct restore_opts o = { 0 };
	char *id = NULL, *spec = NULL;
	const char *rev = NULL, *busy;
	int error;
	const struct option opts[] = {
		{ OPT_STRING, 's', "source", &rev, "<rev>", "the checkpoint to restore from" },
		{ OPT_BOOL, 'n', "dry-run", &o.dry_run, NULL, "check everything and say what would change, change nothing" },
		{ OPT_BOOL, 'f', "force", &o.force, NULL, "overwrite changes the session never recorded" },
		{ OPT_BOOL, 0, "staged", &o.staged, NULL, "update the index too" },
		{ OPT_BOOL, 0, "json", &o.json, NULL, "print what it does (or would) as JSON" },
		{ OPT_BOOL, 'q', "quiet", &o.quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 1)) < 0)
		goto cleanup;
	if ((error = split_rev(&rev, &argc, &argv)) < 0) {
		usage_with_options(usage, opts, 0);
		goto cleanup;
	}
	if ((busy = store_busy(c->st))) {
		error = gs_error("%s is in progress: finish or abort it before restoring files", busy);
		goto cleanup;
	}
	if ((error = engine_active(&id, c->st)) < 0 || (error = cmd_resolve_rev(&spec, c, rev)) < 0)
		goto cleanup;
	error = restore_from(c, id, spec, rev, &o, argc, argv);
cleanup:
	free(id);
	free(spec);
	return cmd_exit(error);
}
