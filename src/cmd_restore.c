/*
 * cmd_restore.c - `git session restore [<rev>] [--] [<path>...]`: the
 * working tree's files put back as a checkpoint recorded them. What it is
 * about to change is checkpointed first, so that a restore is undone by
 * restoring that checkpoint; a file whose content the session never
 * recorded (and HEAD does not hold) is not overwritten without --force.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/store_worktree.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct restore {
	const cJSON *from;	/* the manifest restored from */
	const cJSON *now;	/* the active session's manifest */
	cJSON *plan;		/* [{path, action, recorded_oid, current_oid}] */
	cJSON *skipped;		/* [{path, why}]: left alone */
	cJSON *refused;		/* [{path, why}]: cannot be written safely */
	cJSON *unrecorded;	/* paths whose content no checkpoint nor HEAD holds */
};

static void add_why(cJSON *list, const char *path, const char *why)
{
	cJSON *o = cJSON_CreateObject();

	json_set_str(o, "path", path);
	json_set_str(o, "why", why);
	cJSON_AddItemToArray(list, o);
}

/* The manifest entries paths name (a file, or a folder with what is under it); all when none. */
static int select_paths(cJSON **out, struct cmd_ctx *c, const cJSON *manifest, int argc, const char **argv,
			const char *commit)
{
	const cJSON *f;
	int error = 0;

	*out = cJSON_CreateObject();
	for (int i = 0; i < argc && !error; i++) {
		char *path = NULL;
		size_t n;
		int found = 0;

		if ((error = store_worktree_relpath(&path, c->st, argv[i])) < 0)
			break;
		n = strlen(path);
		cJSON_ArrayForEach(f, manifest)
			if (!strcmp(f->string, path) || !n || (!strncmp(f->string, path, n) && f->string[n] == '/')) {
				if (!cJSON_GetObjectItemCaseSensitive(*out, f->string))
					json_set(*out, f->string, cJSON_Duplicate(f, 1));
				found = 1;
			}
		if (!found)
			error = gs_error("'%s' is not in the manifest of checkpoint %.7s", path, commit);
		free(path);
	}
	if (!argc)
		cJSON_ArrayForEach(f, manifest)
			json_set(*out, f->string, cJSON_Duplicate(f, 1));
	return error;
}

/* What one path needs: nothing, a write, a removal; or why it is left alone or refused. */
static void plan_one(struct restore *r, const char *path, const cJSON *rec, const cJSON *fact)
{
	const char *fs = json_str(fact, "fs"), *want = json_str(rec, "oid"), *cur = json_str(fact, "oid");
	const char *kept = json_str(cJSON_GetObjectItemCaseSensitive(r->now, path), "oid");
	const char *head = json_str(fact, "head_oid"), *action = NULL;
	int deleted = !strcmp(json_str(rec, "status") ? json_str(rec, "status") : "", ST_DELETED);
	cJSON *o;

	if (!strcmp(fs, "sparse"))
		return add_why(r->skipped, path, "outside the sparse checkout");
	if (json_str(fact, "error"))
		return add_why(r->refused, path, json_str(fact, "error"));
	if (!strcmp(fs, "dir"))
		return add_why(r->refused, path, "a folder is in its place");
	if (!strcmp(fs, "missing"))
		action = deleted ? NULL : "create";
	else if (deleted)
		action = "delete";
	else if (!json_bool(fact, "same_stat", 0) && (!cur || strcmp(cur, want)))
		action = "write";
	if (!action)
		return;
	o = cJSON_CreateObject();
	json_set_str(o, "path", path);
	json_set_str(o, "action", action);
	json_set_str(o, "recorded_oid", want);
	json_set_str(o, "current_oid", cur);
	cJSON_AddItemToArray(r->plan, o);
	if (cur && !(kept && !strcmp(kept, cur)) && !(head && !strcmp(head, cur)))
		cJSON_AddItemToArray(r->unrecorded, cJSON_CreateString(path));
}

static int make_plan(struct restore *r, struct cmd_ctx *c, const cJSON *selected)
{
	cJSON *facts = NULL;
	const cJSON *f;
	int error;

	if ((error = store_worktree_scan(&facts, c->st, selected)) < 0)
		return error;
	cJSON_ArrayForEach(f, selected)
		plan_one(r, f->string, f, cJSON_GetObjectItemCaseSensitive(facts, f->string));
	cJSON_Delete(facts);
	return 0;
}

/*
 * For the checkpoint before: every file of the session's manifest and of
 * the plan as it is now, as `checkpoint` records them, so that restoring
 * it puts back exactly what was there. After: the plan's files as written.
 */
static int record_plan(cJSON **out, struct restore *r, struct cmd_ctx *c, int after)
{
	const cJSON *p;
	int error = 0;

	*out = cJSON_CreateObject();
	for (p = after || !r->now ? NULL : r->now->child; p && !error; p = p->next)
		error = store_worktree_record(*out, c->st, p->string, NULL, 1);
	for (p = r->plan->child; p && !error; p = p->next) {
		const char *path = json_str(p, "path");
		const char *status = json_str(cJSON_GetObjectItemCaseSensitive(r->from, path), "status");

		if (!cJSON_GetObjectItemCaseSensitive(*out, path))	/* once each */
			error = store_worktree_record(*out, c->st, path,
						      after && strcmp(status, ST_DELETED) ? status : NULL, 1);
	}
	if (error < 0) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	return error;
}

/* --staged: the index gets the recorded blobs too, through git. */
static int stage(struct restore *r, struct cmd_ctx *c)
{
	const char **args = xcalloc((size_t)cJSON_GetArraySize(r->plan) * 2 + 4, sizeof(*args));
	char **owned = xcalloc((size_t)cJSON_GetArraySize(r->plan) + 1, sizeof(*owned));
	struct sbuf out = SBUF_INIT;
	const cJSON *p;
	size_t n = 0, k = 0;
	int error;

	args[n++] = "git";
	args[n++] = "update-index";
	args[n++] = "--add";
	cJSON_ArrayForEach(p, r->plan) {
		const char *path = json_str(p, "path");
		const char *mode = json_str(cJSON_GetObjectItemCaseSensitive(r->from, path), "mode");

		if (!strcmp(json_str(p, "action"), "delete")) {
			args[n++] = "--force-remove";
			args[n++] = path;
		} else {
			owned[k] = xstrfmt("%s,%s,%s", mode ? mode : "100644", json_str(p, "recorded_oid"), path);
			args[n++] = "--cacheinfo";
			args[n++] = owned[k++];
		}
	}
	error = store_worktree_run_git(&out, c->st, args);
	while (k)
		free(owned[--k]);
	free(owned);
	free(args);
	sbuf_release(&out);
	return error;
}

static void print_plan(const struct restore *r, const char *commit, int dry_run)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, r->plan)
		printf("%s%s %s\n", dry_run ? "would " : "", json_str(p, "action"), json_str(p, "path"));
	cJSON_ArrayForEach(p, r->skipped)
		printf("left alone: %s (%s)\n", json_str(p, "path"), json_str(p, "why"));
	if (!cJSON_GetArraySize(r->plan))
		printf("Nothing to restore: the files are as checkpoint %.7s recorded them.\n", commit);
}

/* Refuses, naming the files, what cannot be written, or would lose what the session never recorded. */
static int check_plan(const struct restore *r, int force)
{
	const cJSON *p;

	if (cJSON_GetArraySize(r->refused)) {
		gs_error("cannot restore these files safely; nothing was written:");
		cJSON_ArrayForEach(p, r->refused)
			fprintf(stderr, "\t%s: %s\n", json_str(p, "path"), json_str(p, "why"));
		return GS_ERROR;
	}
	if (cJSON_GetArraySize(r->unrecorded) && !force) {
		gs_error("restoring would lose changes the session never recorded; nothing was written:");
		cJSON_ArrayForEach(p, r->unrecorded)
			fprintf(stderr, "\t%s\n", p->valuestring);
		gs_hint("record them first (git session checkpoint <path>), or restore with --force: "
			"their content is checkpointed before the restore either way");
		return GS_ERROR;
	}
	return 0;
}

/* Checkpoint the files as they are, write them, checkpoint them as written. */
static int apply_plan(char before[HEX_SZ], struct restore *r, struct cmd_ctx *c, const char *id,
		      const char *commit, int staged, int quiet)
{
	struct engine_result res = { { 0 } };
	cJSON *op = op_new(OP_CHECKPOINT, NULL), *files = NULL;
	char *msg = xstrfmt("before restoring from %.7s", commit);
	const cJSON *p;
	int error;

	if ((error = record_plan(&files, r, c, 0)) < 0)
		goto cleanup;
	json_set(op_args(op), "files", files);
	json_set_str(op_args(op), "message", msg);
	if ((error = cmd_write(&res, c, id, op, NULL, 1)) < 0)
		goto cleanup;
	memcpy(before, res.commit, HEX_SZ);
	cJSON_ArrayForEach(p, r->plan) {
		const char *path = json_str(p, "path");
		const char *mode = json_str(cJSON_GetObjectItemCaseSensitive(r->from, path), "mode");

		if ((error = store_worktree_put(c->st, path, !strcmp(json_str(p, "action"), "delete") ? NULL :
						json_str(p, "recorded_oid"), mode)) < 0)
			goto undo_hint;
	}
	if (staged && (error = stage(r, c)) < 0)
		goto undo_hint;
	cJSON_Delete(op);
	op = op_new(OP_RESTORE, NULL);
	json_set_str(op_args(op), "from", commit);
	if ((error = record_plan(&files, r, c, 1)) < 0)
		goto undo_hint;
	json_set(op_args(op), "files", files);
	error = cmd_write(NULL, c, id, op, NULL, quiet);
undo_hint:
	if (error < 0)
		gs_hint("the files as they were before are in checkpoint %.7s: git session restore %.7s", before,
			before);
cleanup:
	engine_result_clear(&res);
	cJSON_Delete(op);
	free(msg);
	return error;
}

static void print_json(const struct restore *r, const char *id, const char *commit, int dry_run,
		       const char *before)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	json_set_str(o, "session", id);
	json_set_str(o, "from", commit);
	json_set_bool(o, "dry_run", dry_run);
	json_set_str(o, "before", before);
	json_set(o, "files", cJSON_Duplicate(r->plan, 1));
	json_set(o, "skipped", cJSON_Duplicate(r->skipped, 1));
	json_set(o, "unrecorded", cJSON_Duplicate(r->unrecorded, 1));
	text = json_print(o, 1, NULL);
	fputs(text, stdout);
	free(text);
	cJSON_Delete(o);
}

/* Whether word names a checkpoint, asked quietly. */
static int names_checkpoint(struct cmd_ctx *c, const char *word)
{
	struct sbuf quiet = SBUF_INIT;
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *spec = NULL;
	int yes;

	gs_capture_errors(&quiet);
	yes = cmd_resolve_rev(&spec, c, word) == 0 && engine_load_rev(&state, &tip, c->st, spec) == 0;
	gs_capture_errors(NULL);
	sbuf_release(&quiet);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(spec);
	return yes;
}

/*
 * [<rev>] [--] [<path>...], as git restore takes them: the word before --
 * is the revision; with no --, the first word is when it names a checkpoint.
 * What is left in argv are the paths.
 */
static int split_rev(const char **rev, int *argc, const char ***argv, struct cmd_ctx *c)
{
	int dd = -1;

	*rev = NULL;
	for (int i = 0; i < *argc && dd < 0; i++)
		if (!strcmp((*argv)[i], "--")) {
			dd = i;
			memmove(*argv + i, *argv + i + 1, (size_t)(*argc - i - 1) * sizeof(**argv));
			(*argc)--;
		}
	if (dd > 1) {
		gs_error("one revision at most before --");
		return GS_EUSAGE;
	}
	if (dd == 1 || (dd < 0 && *argc && names_checkpoint(c, (*argv)[0]))) {
		*rev = (*argv)[0];
		(*argv)++;
		(*argc)--;
	}
	return 0;
}

int cmd_restore(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session restore [<rev>] [--dry-run] [--force] [--staged] [--json] [-q] [--] [<path>...]", NULL,
	};
	struct restore r = { 0 };
	struct store_tip tip = { 0 }, cur = { 0 };
	cJSON *src = NULL, *mine = NULL, *selected = NULL;
	char *id = NULL, *spec = NULL, *ref = NULL, before[HEX_SZ] = "";
	const char *rev = NULL, *busy;
	int dry_run = 0, force = 0, staged = 0, json = 0, quiet = 0, error;
	const struct option opts[] = {
		{ OPT_BOOL, 'n', "dry-run", &dry_run, NULL, "say what would change, change nothing" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "overwrite changes the session never recorded" },
		{ OPT_BOOL, 0, "staged", &staged, NULL, "update the index too" },
		{ OPT_BOOL, 0, "json", &json, NULL, "print what it does (or would) as JSON" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 1)) < 0)
		goto cleanup;
	if ((error = split_rev(&rev, &argc, &argv, c)) < 0) {
		usage_with_options(usage, opts, 0);
		goto cleanup;
	}
	if (!store_workdir(c->st)) {
		error = gs_error("this operation must be run in a work tree");
		goto cleanup;
	}
	if ((busy = store_worktree_busy(c->st))) {
		error = gs_error("%s is in progress: finish or abort it before restoring files", busy);
		goto cleanup;
	}
	if ((error = engine_active(&id, c->st)) < 0 || (error = cmd_resolve_rev(&spec, c, rev)) < 0)
		goto cleanup;
	if ((error = engine_load_rev(&src, &tip, c->st, spec)) == GS_ENOTFOUND)
		error = gs_error("unknown revision or session '%s'", rev ? rev : SESSION_HEAD);
	if (error < 0)
		goto cleanup;
	ref = engine_refname(id);
	if ((error = engine_load_some(&mine, &cur, c->st, ref, NEED(FILES))) < 0)
		goto cleanup;
	r.from = cJSON_GetObjectItemCaseSensitive(src, "files");
	r.now = cJSON_GetObjectItemCaseSensitive(mine, "files");
	r.plan = cJSON_CreateArray();
	r.skipped = cJSON_CreateArray();
	r.refused = cJSON_CreateArray();
	r.unrecorded = cJSON_CreateArray();
	if ((error = select_paths(&selected, c, r.from, argc, argv, tip.commit)) < 0 ||
	    (error = make_plan(&r, c, selected)) < 0 || (error = check_plan(&r, force || dry_run)) < 0)
		goto cleanup;
	if (!dry_run && cJSON_GetArraySize(r.plan) &&
	    (error = apply_plan(before, &r, c, id, tip.commit, staged, quiet || json)) < 0)
		goto cleanup;
	if (json)
		print_json(&r, id, tip.commit, dry_run, *before ? before : NULL);
	else if (!quiet && (dry_run || !cJSON_GetArraySize(r.plan)))
		print_plan(&r, tip.commit, dry_run);
	else if (!quiet)
		printf("To undo: git session restore %.7s\n", before);
cleanup:
	cJSON_Delete(r.plan);
	cJSON_Delete(r.skipped);
	cJSON_Delete(r.refused);
	cJSON_Delete(r.unrecorded);
	cJSON_Delete(selected);
	cJSON_Delete(src);
	cJSON_Delete(mine);
	store_tip_clear(&tip);
	store_tip_clear(&cur);
	free(id);
	free(spec);
	free(ref);
	return cmd_exit(error);
}
