/*
 * view_resume.c - `resume` drawn for a person: the status header, the work
 * by where it stands, and what changed behind the session's back.
 */
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/view.h"

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
		if (view_is_agent_session(r))
			break;	/* drawn whole by view_agent_session */
		if (!json_str(a, "status") || strcmp(json_str(a, "status"), ST_IN_PROGRESS) ||
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "phase")))
			continue;	/* those of a phase are under it */
		if (!said++)
			view_section(v, "Agents at work");
		view_agent(v, a, "  ");
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "pending_tasks")))
		view_section(v, "Tasks to do");
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(r, "pending_tasks")) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, ST_PENDING);
		sbuf_addf(&v->out, " #%d ", (int)json_num(t, "id", 0));
		view_say(v, "", json_str(t, "title"), "\n");
	}
}

/* The phases being worked on: in progress, or (failed) those that failed and wait for a retry. */
static void view_doing(struct view *v, const cJSON *r, int failed)
{
	const cJSON *p, *a;
	int said = 0;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "in_progress")) {
		if ((strcmp(json_str(p, "status"), ST_FAILED) == 0) != failed)
			continue;
		if (!said++)
			view_section(v, failed ? "Failed" : "In progress");
		sbuf_adds(&v->out, "  ");
		view_mark(v, json_str(p, "status"));
		view_phase_label(v, p);
		view_text(v, json_str(p, "name"));
		if (failed && json_num(p, "retry_count", 0) > 0)
			sbuf_addf(&v->out, " (retried %d time%s)", (int)json_num(p, "retry_count", 0),
				  json_num(p, "retry_count", 0) == 1 ? "" : "s");
		if (json_str(p, "sub_step"))
			view_say(v, ", at \"", json_str(p, "sub_step"), "\"");
		view_stale(v, p);
		sbuf_addch(&v->out, '\n');
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(p, "agents")) {
			view_agent(v, a, "      ");
		}
	}
}

static void view_work(struct view *v, const cJSON *r)
{
	const cJSON *p;

	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "done")))
		view_section(v, "Done");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "done")) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, json_str(p, "status"));
		view_phase_label(v, p);
		view_text(v, json_str(p, "name"));
		if (json_str(p, "downstream_context"))
			view_say(v, v->utf8 ? " \u2014 " : " -- ", json_str(p, "downstream_context"), "");
		sbuf_addch(&v->out, '\n');
	}
	view_doing(v, r, 0);
	view_doing(v, r, 1);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "pending")))
		view_section(v, "Pending");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "pending")) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, ST_PENDING);
		view_phase_label(v, p);
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
	if (json_bool(h, "recorded_missing", 0) && !json_bool(h, "rewritten", 0)) {
		sbuf_addf(&v->out, "  HEAD: the checkpoint's HEAD %.7s is not in this clone (a teammate's? git pull "
			  "fetches it)\n", json_str(h, "recorded"));
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

	view_section(v, "Changed since the checkpoint");
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

void view_resume(struct view *v, const cJSON *r, const cJSON *diffs, time_t now)
{
	view_header(v, r, now);
	view_errors(v, r);
	view_work(v, r);
	if (view_is_agent_session(r))
		view_agent_session(v, r);
	else
		sbuf_addch(&v->out, '\n');
	view_tokens_line(v, cJSON_GetObjectItemCaseSensitive(r, "tokens"));
	view_decisions_summary(v, r);
	view_changes(v, r, diffs);
	view_next(v, r);
}
