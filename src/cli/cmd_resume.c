/*
 * cmd_resume.c - `git session resume`: make a session active again and
 * say where the work stands and what changed behind its back.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/report.h"
#include "git-session/util.h"
#include "git-session/view.h"
#include "git-session/store_worktree.h"
#include "resume-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The commits the session saw: those it recorded (the newest loaded), then its HEAD; the caller frees. */
static const char **seen_commits(size_t *n, const cJSON *state)
{
	const cJSON *commits = cJSON_GetObjectItemCaseSensitive(state, "commits"), *m;
	const char **v = xcalloc((size_t)cJSON_GetArraySize(commits) + 2, sizeof(*v));

	*n = 0;
	if (!cJSON_IsArray(commits))	/* a large list's chunks: not loaded */
		commits = NULL;
	cJSON_ArrayForEach(m, commits)
		if (json_str(m, "id"))
			v[(*n)++] = json_str(m, "id");
	if (json_str(cJSON_GetObjectItemCaseSensitive(state, "project"), "head"))
		v[(*n)++] = json_str(cJSON_GetObjectItemCaseSensitive(state, "project"), "head");
	return v;
}

/*
 * A file that holds what HEAD holds, not what was recorded: "in_history"
 * when what was recorded is in a commit the session saw that HEAD holds
 * (a later commit changed it, a teammate's merged one maybe).
 */
static int mark_in_history(cJSON *scan, struct cmd_ctx *c, const cJSON *state, const char **seen, size_t n)
{
	const cJSON *rec;
	cJSON *f = NULL;
	int error = 0, yes;

	cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(state, "files")) {
		const char *was = json_str(rec, "oid"), *now;

		f = f && f->next && !strcmp(f->next->string, rec->string) ? f->next :
		    cJSON_GetObjectItemCaseSensitive(scan, rec->string);
		now = json_str(f, "oid");
		if (!was || !now || strcmp(now, json_str(f, "head_oid") ? json_str(f, "head_oid") : "") ||
		    !strcmp(now, was))
			continue;
		if ((error = store_worktree_in_history(&yes, c->st, rec->string, was, seen, n)) < 0)
			break;
		json_set_bool(f, "in_history", yes);
	}
	return error;
}

/* Facts from the working tree: manifest scan, project, plans. */
static int gather(cJSON **scan, cJSON **project, cJSON **plans, struct cmd_ctx *c, const cJSON *state)
{
	const cJSON *proj = cJSON_GetObjectItemCaseSensitive(state, "project"), *p;
	size_t nseen;
	const char **seen = seen_commits(&nseen, state);
	int error;

	*project = *plans = NULL;
	error = store_worktree_scan(scan, c->st, cJSON_GetObjectItemCaseSensitive(state, "files"));
	if (!error)
		error = mark_in_history(*scan, c, state, seen, nseen);
	if (!error)
		error = store_worktree_project(project, c->st, json_str(proj, "branch"), json_str(proj, "head"),
					       seen, nseen, 5);
	free(seen);
	if (error < 0)
		return error;
	*plans = cJSON_CreateObject();
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "plans")) {
		char *oid = NULL;
		if ((error = store_worktree_hash(&oid, c->st, json_str(p, "path") ? json_str(p, "path") : "")) < 0)
			return error;
		json_set_str(*plans, json_str(p, "path"), oid);
		free(oid);
	}
	return 0;
}

/* Unified diffs of the modified and reverted text files, when asked; path -> text. */
static int diffs_for(cJSON **out, struct cmd_ctx *c, const cJSON *r)
{
	const cJSON *f;
	int error = 0;

	*out = cJSON_CreateObject();
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "conflicts")) {
		char *text = NULL;

		if ((strcmp(json_str(f, "kind"), ST_MODIFIED) && strcmp(json_str(f, "kind"), "reverted")) ||
		    !json_str(f, "recorded_oid"))
			continue;
		if ((error = store_worktree_diff(&text, c->st, json_str(f, "path"), json_str(f, "recorded_oid"))) < 0)
			break;
		json_set_str(*out, json_str(f, "path"), text);
		free(text);
	}
	return error;
}

/* Un-pauses (one checkpoint) and points SESSION_HEAD at the session. */
static int activate(cJSON **state, struct store_tip *tip, struct cmd_ctx *c, const char *id)
{
	struct engine_result r = { 0 };
	struct state_op *op;
	int error;

	if (!strcmp(json_str(*state, "status"), ST_PAUSED)) {
		op = op_new(OP_SESSION_RESUME, NULL);
		error = engine_commit(&r, &c->eng, id, op, NULL, 0);
		op_free(op);
		if (error < 0)
			return error;
		cJSON_Delete(*state);
		*state = r.state;
		memcpy(tip->commit, r.commit, HEX_SZ);
		r.state = NULL;
		engine_result_clear(&r);
	}
	return store_set_active(c->st, id);
}

static int moved(const cJSON *r)
{
	const cJSON *p;

	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "conflicts")) ||
	    json_bool(cJSON_GetObjectItemCaseSensitive(r, "branch"), "changed", 0) ||
	    json_bool(cJSON_GetObjectItemCaseSensitive(r, "head"), "moved", 0))
		return 1;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "plans"))
		if (json_bool(p, "changed", 0))
			return 1;
	return 0;
}

/* A session in progress or paused can be resumed; any other is over. */
static int resumable(const cJSON *state, const char *id)
{
	const char *status = json_str(state, "status");
	int error;

	if (!strcmp(status, ST_IN_PROGRESS) || !strcmp(status, ST_PAUSED))
		return 0;
	error = gs_error("session '%s' is %s: there is nothing to resume", id, status);
	gs_hint("'git session resume --dry-run %s' shows where it ended;", id);
	gs_hint("to go on with it, reopen it first: git session reopen %s", id);
	return error;
}

/* The resume report on *state, after activating the session unless dry_run. */
static int resume_report(cJSON **r, cJSON **state, struct store_tip *tip, struct report_ctx *ctx,
			 struct cmd_ctx *c, const char *id, int dry_run)
{
	cJSON *scan = NULL, *project = NULL, *plans = NULL;
	const char **elsewhere = NULL;
	int error;

	*r = NULL;
	if ((error = gather(&scan, &project, &plans, c, *state)) < 0 ||
	    (!dry_run && (error = activate(state, tip, c, id)) < 0))
		goto cleanup;
	ctx->active = ctx->active || !dry_run;
	ctx->elsewhere = elsewhere = agent_resume_elsewhere(*state);
	*r = report_resume(*state, scan, project, plans, ctx);
	ctx->elsewhere = NULL;
	json_set_bool(*r, "activated", !dry_run);
cleanup:
	free(elsewhere);
	cJSON_Delete(scan);
	cJSON_Delete(project);
	cJSON_Delete(plans);
	return error;
}

int cmd_resume(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session resume [<id>] [--json] [--dry-run] [--diff] [--exit-code] [-q]",
		"git session resume --agent <name>[:<agent>] [<id>] [--force] [--json] [-q]", NULL,
	};
	int dry_run = 0, show_diff = 0, exit_code = 0, quiet = 0, force = 0, error;
	const char *agent = NULL;
	struct report_opts o = { 0 };
	struct report_ctx ctx = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *r = NULL, *diffs = NULL;
	char *id = NULL;
	struct view v;
	const struct option opts[] = {
		REPORT_OPTIONS(o),
		{ OPT_BOOL, 'n', "dry-run", &dry_run, NULL, "report only: do not activate or un-pause" },
		{ OPT_BOOL, 0, "diff", &show_diff, NULL, "show how modified files differ from what was recorded" },
		{ OPT_BOOL, 0, "exit-code", &exit_code, NULL, "exit 1 when anything changed behind the session" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		{ OPT_STRING, 0, "agent", &agent, "<name>", "rebuild the agent's own session from its stored transcript" },
		{ OPT_BOOL, 0, "force", &force, NULL, "with --agent: replace the agent's session file of that id" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0)
		goto cleanup;
	if (agent || force) {
		if (!agent || dry_run || show_diff || exit_code)
			error = gs_error(agent ? "--agent takes no --dry-run, --diff or --exit-code" : "--force needs --agent");
		else
			error = agent_resume(c, agent, argc ? argv[0] : NULL, force, o.json, quiet);
		goto cleanup;
	}
	if (
	    (error = cmd_load_target(&state, &tip, &ctx, &id, c, argc ? argv[0] : NULL)) < 0 ||
	    (error = view_start(&v, c, &o)) < 0)
		goto cleanup;
	if ((!dry_run && (error = resumable(state, id)) < 0) ||
	    (error = resume_report(&r, &state, &tip, &ctx, c, id, dry_run)) < 0 ||
	    (show_diff && (error = diffs_for(&diffs, c, r)) < 0))
		goto cleanup;
	if (quiet) {
		/* activated; nothing to say */
	} else if (o.json) {
		if (diffs)
			json_set(r, "diffs", cJSON_Duplicate(diffs, 1));
		view_print_json(r);
	} else {
		view_resume(&v, r, diffs, ctx.now);
		view_finish(&v);
	}
	if (exit_code && moved(r))
		error = GS_ERROR;
cleanup:
	cJSON_Delete(state);
	cJSON_Delete(r);
	cJSON_Delete(diffs);
	store_tip_clear(&tip);
	free(id);
	return cmd_exit(error);
}
