/*
 * cmd_fsck.c - `git session fsck [<id> | --all] [--repair]` and
 * `git session rollback [<id>] [--to <rev>]`.
 */
#include "git-session/cmd.h"
#include "git-session/fsck.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The ref of session id, live or archived, even when its file is damaged. */
static char *session_ref(gs_store *st, const char *id)
{
	const char *const prefixes[] = { SESSIONS_PREFIX, ARCHIVE_PREFIX };
	char *err = NULL;

	if (state_valid_id(id, &err) < 0) {
		gs_error("invalid session id '%s': %s", id, err);
		free(err);
		return NULL;
	}
	for (size_t i = 0; i < 2; i++) {
		char *ref = xstrfmt("%s%s", prefixes[i], id), value[HEX_SZ];

		if (store_ref_exists(st, ref) || store_reflog_newest(value, st, ref) == 0 ||
		    store_ref_damaged(st, ref))
			return ref;
		free(ref);
	}
	gs_error("no such session: '%s'", id);
	return NULL;
}

static void say_report(const struct fsck_report *r, int lost)
{
	const char *id = strrchr(r->refname, '/') + 1;

	if (r->ok) {
		printf("ok %s: %d checkpoint%s\n", id, r->checked, r->checked == 1 ? "" : "s");
		return;
	}
	if (r->ref_damaged && lost)
		gs_error("%s: '%s' is gone and only its reflog names the session; the reflog says the tip is %.12s",
			 id, r->refname, r->tip);
	else if (r->ref_damaged)
		gs_error("%s: the ref file is damaged; its reflog says the tip is %.12s", id, r->tip);
	if (r->bad)
		gs_error("%s: checkpoint %.12s%s is damaged: %s", id, r->first_bad,
			 r->bad == 1 && !strcmp(r->first_bad, r->tip) ? " (the tip)" : "", r->problem);
	if (r->bad && r->bad > 1)
		gs_error("%s: %d checkpoints above the last good one are damaged", id, r->bad);
	if (r->reflog_disagrees)
		gs_error("%s: the reflog does not end at the tip %.12s", id, r->tip);
	if (r->counts)
		gs_error("%s: the tip %.12s does not hold what session.json counts: %s", id, r->tip, r->counts);
	if (r->history_damaged)
		gs_error("%s: checkpoint %.12s, below the last good one, is damaged: %s%s", id, r->first_damaged_below,
			 r->problem_below, r->history_damaged > 1 ? " (and others below it; git fsck names the objects)" : "");
	if (r->last_good[0])
		cmd_say("%s: the last good checkpoint is %.12s\n", id, r->last_good);
	else
		cmd_say("%s: no good checkpoint was found\n", id);
}

static int has_id(char *const *ids, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ids[i], id))
			return 1;
	return 0;
}

/*
 * Whether the reflog of <prefix><id>, which has no ref, is what a move
 * to <other><id> left behind (the ref there went through its newest entry).
 */
static int left_by_move(gs_store *st, const char *prefix, const char *other, const char *id)
{
	char *ref = xstrfmt("%s%s", prefix, id), *there = xstrfmt("%s%s", other, id), newest[HEX_SZ];
	int left = store_ref_exists(st, there) && store_reflog_newest(newest, st, ref) == 0 &&
		   store_reflog_has(st, there, newest);

	free(ref);
	free(there);
	return left;
}

/*
 * Every session, live and archived, and those only a reflog names (a ref
 * lost, a move cut short): refs get the refs, both the ids with a ref in
 * each namespace. The caller frees them with store_ids_free.
 */
static int all_refs(char ***refs, size_t *n, char ***both, size_t *nboth, struct cmd_ctx *c)
{
	const char *const prefixes[] = { SESSIONS_PREFIX, ARCHIVE_PREFIX };
	char **ids[2] = { NULL, NULL }, **lost[2] = { NULL, NULL }, *err = NULL;
	size_t nids[2] = { 0, 0 }, nlost[2] = { 0, 0 }, alloc = 0, aboth = 0;
	int error = 0;

	*refs = *both = NULL;
	*n = *nboth = 0;
	for (size_t p = 0; p < 2 && !error; p++)
		if (store_list(&ids[p], &nids[p], c->st, prefixes[p]) < 0 ||
		    store_reflog_orphans(&lost[p], &nlost[p], c->st, prefixes[p], (int)c->eng.stale_lock_age) < 0)
			error = GS_ERROR;
	for (size_t p = 0; p < 2 && !error; p++) {
		for (size_t i = 0; i < nids[p]; i++) {
			ALLOC_GROW(*refs, *n + 1, alloc);
			(*refs)[(*n)++] = xstrfmt("%s%s", prefixes[p], ids[p][i]);
			if (p == 0 && has_id(ids[1], nids[1], ids[p][i])) {
				ALLOC_GROW(*both, *nboth + 1, aboth);
				(*both)[(*nboth)++] = xstrdup(ids[p][i]);
			}
		}
		for (size_t i = 0; i < nlost[p]; i++) {
			if ((p == 1 && has_id(lost[0], nlost[0], lost[p][i])) || state_valid_id(lost[p][i], &err) < 0 ||
			    left_by_move(c->st, prefixes[p], prefixes[!p], lost[p][i])) {
				free(err);
				err = NULL;
				continue;
			}
			ALLOC_GROW(*refs, *n + 1, alloc);
			(*refs)[(*n)++] = xstrfmt("%s%s", prefixes[p], lost[p][i]);
		}
	}
	for (size_t p = 0; p < 2; p++) {
		store_ids_free(ids[p], nids[p]);
		store_ids_free(lost[p], nlost[p]);
	}
	return error;
}

/*
 * A session both live and archived at the same checkpoint: an archive or
 * unarchive cut short. The ref with the longer reflog is the one the move
 * wrote (the other's entries and its own): the move ends there.
 */
static int check_both(struct cmd_ctx *c, const char *id, int repair)
{
	char *live = xstrfmt("%s%s", SESSIONS_PREFIX, id), *arch = xstrfmt("%s%s", ARCHIVE_PREFIX, id);
	int to_archive = store_reflog_count(c->st, arch) > store_reflog_count(c->st, live), error;
	char *msg = xstrfmt("session: %s %s", to_archive ? "archive" : "unarchive", id), a[HEX_SZ], b[HEX_SZ];

	if (store_ref_value(a, c->st, live) < 0 || store_ref_value(b, c->st, arch) < 0 || strcmp(a, b)) {
		/* two histories under one id (one brought back from its reflog): for the user to sort out */
		error = gs_error("%s: '%s' and '%s' hold two different histories", id, live, arch);
		gs_hint("'git log %s %s' shows them; 'git update-ref -d' one after keeping what it holds", live, arch);
	} else if (!repair) {
		error = gs_error("%s: both '%s' and '%s' name it: an %s was cut short", id, live, arch,
				 to_archive ? "archive" : "unarchive");
		gs_hint("'git session %s %s' or 'git session fsck --all --repair' ends it", to_archive ? "archive" : "unarchive", id);
	} else if ((error = engine_move(&c->eng, to_archive ? live : arch, to_archive ? arch : live, msg)) == 0) {
		printf("repaired %s: the %s cut short is done\n", id, to_archive ? "archive" : "unarchive");
	}
	free(msg);
	free(live);
	free(arch);
	return error;
}

/* One session checked, said, and with --repair mended: 0 when it is sound or was mended. */
static int fsck_one(struct cmd_ctx *c, const char *refname, int repair)
{
	struct fsck_report r;
	char fixed[HEX_SZ], *why;
	int lost, error = 0;

	if (fsck_session(&r, c->st, refname) < 0)
		return GS_ERROR;
	lost = !store_ref_exists(c->st, refname) && !store_ref_damaged(c->st, refname);
	say_report(&r, lost);
	if (!r.ok && repair && r.last_good[0] && (r.bad || r.ref_damaged)) {
		why = r.bad ? xstrfmt("checkpoint %.7s was damaged (%s)", r.tip, r.problem) :
		      lost ? xstrdup("the ref was lost; its reflog was left") : xstrdup("the ref file was damaged");
		if ((error = fsck_rollback(fixed, &c->eng, &r, NULL, why)) == 0)
			printf("repaired %s: back at %.7s, with checkpoint %.7s\n", strrchr(refname, '/') + 1,
			       r.last_good, fixed);
		free(why);
	} else if (!r.ok) {
		error = GS_ERROR;
		if (!repair && r.last_good[0] && (r.bad || r.ref_damaged))
			gs_hint("'git session fsck %s--repair' goes back to the last good checkpoint",
				lost ? "--all " : "");
	}
	fsck_report_clear(&r);
	return error;
}

int cmd_fsck(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session fsck [<id> | --all] [--repair]", NULL };
	int all = 0, repair = 0, error, bad = 0;
	char **refs = NULL, **both = NULL, *id = NULL;
	size_t n = 0, nboth = 0;
	const struct option opts[] = {
		{ OPT_BOOL, 0, "all", &all, NULL, "every session, live and archived" },
		{ OPT_BOOL, 0, "repair", &repair, NULL, "go back to the last good checkpoint of a damaged session" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0)
		return cmd_exit(error);
	if (all || (!argc && store_active(&id, c->st) == 0 && !id)) {
		if (all_refs(&refs, &n, &both, &nboth, c) < 0)
			return EXIT_FAILED;
	} else {
		refs = xcalloc(2, sizeof(char *));
		if (!(refs[0] = session_ref(c->st, argc ? argv[0] : id))) {
			free(refs);
			free(id);
			return EXIT_FAILED;
		}
		n = 1;
	}
	for (size_t i = 0; i < n; i++) {
		bad |= fsck_one(c, refs[i], repair) < 0;
		cmd_print_errors();	/* and on to the next session */
	}
	for (size_t i = 0; i < nboth; i++) {
		bad |= check_both(c, both[i], repair) < 0;
		cmd_print_errors();
	}
	store_ids_free(refs, n);
	store_ids_free(both, nboth);
	free(id);
	return bad ? EXIT_FAILED : EXIT_OK;
}

int cmd_rollback(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session rollback [<id>] [--to <rev>]", NULL };
	const char *to = NULL;
	char *id = NULL, *ref = NULL, *spec = NULL, *why = NULL, fixed[HEX_SZ];
	struct store_tip tip = { 0 };
	struct fsck_report r = { 0 };
	cJSON *state = NULL;
	int error;
	const struct option opts[] = {
		{ OPT_STRING, 0, "to", &to, "<rev>", "the checkpoint to go back to (default: the last good one)" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0)
		return cmd_exit(error);
	if (!argc && (error = engine_active(&id, c->st)) < 0)
		return EXIT_FAILED;
	if (!(ref = session_ref(c->st, argc ? argv[0] : id)) || (error = fsck_session(&r, c->st, ref)) < 0) {
		error = GS_ERROR;
		goto cleanup;
	}
	if (to) {
		if ((error = cmd_resolve_rev(&spec, c, to)) < 0 ||
		    (error = engine_load_rev(&state, &tip, c->st, spec)) < 0) {
			if (error == GS_ENOTFOUND)
				error = gs_error("unknown revision '%s'", to);
			goto cleanup;
		}
		if (strcmp(json_str(state, "session_id"), strrchr(ref, '/') + 1)) {
			error = gs_error("'%s' is a checkpoint of another session", to);
			goto cleanup;
		}
		why = xstrfmt("back to the state of %s", to);
	} else if (r.ok) {
		error = gs_error("session '%s' is not damaged; name a checkpoint with --to <rev>", strrchr(ref, '/') + 1);
		goto cleanup;
	} else {
		why = r.bad ? xstrfmt("checkpoint %.7s was damaged (%s)", r.tip, r.problem) :
			      xstrdup("the ref file was damaged");
	}
	if ((error = fsck_rollback(fixed, &c->eng, &r, to ? tip.commit : NULL, why)) < 0)
		goto cleanup;
	printf("[%s %.7s] rollback to %.7s\n", strrchr(ref, '/') + 1, fixed, to ? tip.commit : r.last_good);
cleanup:
	fsck_report_clear(&r);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(id);
	free(ref);
	free(spec);
	free(why);
	return cmd_exit(error);
}
