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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One running agent: its id, how far, its task. */
static void view_agent(struct view *v, const cJSON *a, const char *indent)
{
	sbuf_adds(&v->out, indent);
	view_mark(v, ST_IN_PROGRESS);
	view_say(v, " ", json_str(a, "id"), "");
	sbuf_addf(&v->out, " %d%%: ", (int)json_num(a, "progress", 0));
	view_say(v, "", json_str(a, "task"), "");
	view_stale(v, a);
	sbuf_addch(&v->out, '\n');
}

/* Agents at work outside any phase, and the tasks still to do: what a session without phases has. */
static void view_agents_tasks(struct view *v, const cJSON *r)
{
	const cJSON *a, *t;
	int said = 0;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(r, "agents")) {
		if (!json_str(a, "status") || strcmp(json_str(a, "status"), ST_IN_PROGRESS) ||
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "phase")))
			continue;	/* those of a phase are under it */
		if (!said++)
			sbuf_addf(&v->out, "\n%sAgents at work%s\n", view_c(v, C_BOLD), view_c(v, C_RESET));
		view_agent(v, a, "  ");
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "pending_tasks")))
		sbuf_addf(&v->out, "\n%sTasks to do%s\n", view_c(v, C_BOLD), view_c(v, C_RESET));
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(r, "pending_tasks")) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, ST_PENDING);
		sbuf_addf(&v->out, " #%d ", (int)json_num(t, "id", 0));
		view_say(v, "", json_str(t, "title"), "\n");
	}
}

static void view_work(struct view *v, const cJSON *r)
{
	const cJSON *p, *a;

	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "done")))
		sbuf_addf(&v->out, "\n%sDone%s\n", view_c(v, C_BOLD), view_c(v, C_RESET));
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "done")) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, json_str(p, "status"));
		sbuf_addf(&v->out, " %d ", (int)json_num(p, "id", 0));
		view_text(v, json_str(p, "name"));
		if (json_str(p, "downstream_context"))
			view_say(v, v->utf8 ? " \u2014 " : " -- ", json_str(p, "downstream_context"), "");
		sbuf_addch(&v->out, '\n');
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "in_progress")))
		sbuf_addf(&v->out, "\n%sIn progress%s\n", view_c(v, C_BOLD), view_c(v, C_RESET));
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "in_progress")) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, json_str(p, "status"));
		sbuf_addf(&v->out, " %d ", (int)json_num(p, "id", 0));
		view_text(v, json_str(p, "name"));
		if (!strcmp(json_str(p, "status"), ST_FAILED))
			sbuf_adds(&v->out, " (failed)");
		if (json_str(p, "sub_step"))
			view_say(v, ", at \"", json_str(p, "sub_step"), "\"");
		view_stale(v, p);
		sbuf_addch(&v->out, '\n');
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(p, "agents")) {
			view_agent(v, a, "      ");
		}
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "pending")))
		sbuf_addf(&v->out, "\n%sPending%s\n", view_c(v, C_BOLD), view_c(v, C_RESET));
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "pending")) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, ST_PENDING);
		sbuf_addf(&v->out, " %d ", (int)json_num(p, "id", 0));
		view_say(v, "", json_str(p, "name"), "\n");
	}
	view_agents_tasks(v, r);
}

static void view_project(struct view *v, const cJSON *r, int *said)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "branch");
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "head"), *c;
	const char *y = view_c(v, C_YELLOW), *z = view_c(v, C_RESET);

	if (json_bool(b, "changed", 0)) {
		view_say(v, "  Branch: the checkpoint was taken on ", json_str(b, "recorded"), "");
		view_say(v, ", now on ", json_str(b, "current"), "\n");
		*said = 1;
	}
	if (!json_bool(b, "recorded_exists", 1) && json_str(b, "recorded")) {
		sbuf_addf(&v->out, "  %sBranch ", y);
		view_say(v, "", json_str(b, "recorded"), "");
		sbuf_addf(&v->out, " no longer exists%s\n", z);
		*said = 1;
	}
	if (json_bool(h, "rewritten", 0)) {
		sbuf_addf(&v->out, "  %sHistory was rewritten: the checkpoint's HEAD %.7s is no longer an ancestor of HEAD "
			  "(rebased, reset or deleted)%s\n", y, json_str(h, "recorded"), z);
		*said = 1;
	}
	if (json_num(h, "new_commits", 0) > 0) {
		int n = (int)json_num(h, "new_commits", 0);
		sbuf_addf(&v->out, "  HEAD: %d new commit%s since the checkpoint\n", n, n == 1 ? "" : "s");
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(h, "commits")) {
			sbuf_addf(&v->out, "      %.7s ", json_str(c, "id"));
			view_say(v, "", json_str(c, "subject"), "\n");
		}
		*said = 1;
	}
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "plans"))
		if (json_bool(c, "changed", 0)) {
			view_say(v, "  Plan ", json_str(c, "path"),
				 json_str(c, "current_oid") ? " changed since the checkpoint\n" : " is gone\n");
			*said = 1;
		}
}

static void view_changes(struct view *v, const cJSON *r, const cJSON *diffs)
{
	const cJSON *f, *m = cJSON_GetObjectItemCaseSensitive(r, "manifest");
	int said = 0;

	sbuf_addf(&v->out, "\n%sChanged since the checkpoint%s\n", view_c(v, C_BOLD), view_c(v, C_RESET));
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "conflicts")) {
		const char *kind = json_str(f, "kind");

		sbuf_addf(&v->out, "  %s%-10s%s ", view_c(v, strcmp(kind, "partial") ? C_RED : C_YELLOW), kind,
			  view_c(v, C_RESET));
		view_text(v, json_str(f, "path"));
		if (!strcmp(kind, "partial"))
			sbuf_adds(&v->out, ": recorded while its phase or agent was still at work");
		if (json_str(f, "detail"))
			view_say(v, " (", json_str(f, "detail"), ")");
		sbuf_addch(&v->out, '\n');
		said = 1;
	}
	view_project(v, r, &said);
	if (!said)
		sbuf_addf(&v->out, "  nothing: %d file%s checked, %d read\n", (int)json_num(m, "files", 0),
			  json_num(m, "files", 0) == 1 ? "" : "s", (int)json_num(m, "hashed", 0));
	cJSON_ArrayForEach(f, diffs) {
		sbuf_addch(&v->out, '\n');
		view_text(v, f->valuestring);
	}
}

/* Facts from the working tree: manifest scan, project, plans. */
static int gather(cJSON **scan, cJSON **project, cJSON **plans, struct cmd_ctx *c, const cJSON *state)
{
	const cJSON *proj = cJSON_GetObjectItemCaseSensitive(state, "project"), *p;
	int error;

	*project = *plans = NULL;
	if ((error = store_worktree_scan(scan, c->st, cJSON_GetObjectItemCaseSensitive(state, "files"))) < 0 ||
	    (error = store_worktree_project(project, c->st, json_str(proj, "branch"), json_str(proj, "head"), 5)) < 0)
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

/* Unified diffs of the modified text files, when asked; path -> text. */
static int diffs_for(cJSON **out, struct cmd_ctx *c, const cJSON *r)
{
	const cJSON *f;
	int error = 0;

	*out = cJSON_CreateObject();
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r, "conflicts")) {
		char *text = NULL;

		if (strcmp(json_str(f, "kind"), ST_MODIFIED) || !json_str(f, "recorded_oid"))
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

int cmd_resume(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session resume [<id>] [--json] [--dry-run] [--diff] [--exit-code] [-q]", NULL,
	};
	int dry_run = 0, show_diff = 0, exit_code = 0, quiet = 0, error;
	struct report_opts o = { 0 };
	struct report_ctx ctx = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *scan = NULL, *project = NULL, *plans = NULL, *r = NULL, *diffs = NULL;
	char *id = NULL;
	struct view v;
	const struct option opts[] = {
		REPORT_OPTIONS(o),
		{ OPT_BOOL, 'n', "dry-run", &dry_run, NULL, "report only: do not activate or un-pause" },
		{ OPT_BOOL, 0, "diff", &show_diff, NULL, "show how modified files differ from what was recorded" },
		{ OPT_BOOL, 0, "exit-code", &exit_code, NULL, "exit 1 when anything changed behind the session" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0 ||
	    (error = view_load_target(&state, &tip, &ctx, &id, c, argc ? argv[0] : NULL)) < 0 ||
	    (error = view_start(&v, c, &o)) < 0)
		goto cleanup;
	if (!dry_run && strcmp(json_str(state, "status"), ST_IN_PROGRESS) &&
	    strcmp(json_str(state, "status"), ST_PAUSED)) {
		error = gs_error("session '%s' is %s: there is nothing to resume", id, json_str(state, "status"));
		gs_hint("'git session resume --dry-run %s' shows where it ended", id);
		goto cleanup;
	}
	if ((error = gather(&scan, &project, &plans, c, state)) < 0 ||
	    (!dry_run && (error = activate(&state, &tip, c, id)) < 0))
		goto cleanup;
	ctx.active = ctx.active || !dry_run;
	r = report_resume(state, scan, project, plans, &ctx);
	json_set_bool(r, "activated", !dry_run);
	if (show_diff && (error = diffs_for(&diffs, c, r)) < 0)
		goto cleanup;
	if (quiet) {
		/* activated; nothing to say */
	} else if (o.json) {
		if (diffs)
			json_set(r, "diffs", cJSON_Duplicate(diffs, 1));
		view_print_json(r);
	} else {
		view_header(&v, r, ctx.now);
		view_errors(&v, r);
		view_work(&v, r);
		sbuf_addch(&v.out, '\n');
		view_tokens_line(&v, cJSON_GetObjectItemCaseSensitive(r, "tokens"));
		view_decisions_summary(&v, r);
		view_changes(&v, r, diffs);
		view_next(&v, r);
		view_finish(&v);
	}
	if (exit_code && moved(r))
		error = GS_ERROR;
cleanup:
	cJSON_Delete(state);
	cJSON_Delete(scan);
	cJSON_Delete(project);
	cJSON_Delete(plans);
	cJSON_Delete(r);
	cJSON_Delete(diffs);
	store_tip_clear(&tip);
	free(id);
	return cmd_exit(error);
}
