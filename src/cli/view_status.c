/*
 * view_status.c - `status` drawn for a person: the header, unresolved
 * errors, phases with their agents, tokens, decisions and the next
 * thing to do. resume draws its report with the same parts.
 */
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/view.h"

#include <string.h>

void view_header(struct view *v, const cJSON *r, time_t now)
{
	const cJSON *prog = cJSON_GetObjectItemCaseSensitive(r, "progress");
	const char *status = json_str(r, "status");
	time_t t;

	sbuf_addf(&v->out, "%sSession %s%s  ", view_c(v, C_BOLD), json_str(r, "session_id"), view_c(v, C_RESET));
	view_mark(v, status);
	sbuf_addch(&v->out, ' ');
	view_status_word(&v->out, status);
	sbuf_adds(&v->out, json_bool(r, "active", 0) ? " (active here)\n" : "\n");
	if (json_str(r, "topic")) {
		sbuf_adds(&v->out, "Topic     ");
		view_text(v, json_str(r, "topic"));
		sbuf_addch(&v->out, '\n');
	}
	if (json_str(r, "goal")) {
		sbuf_adds(&v->out, "Goal      ");
		view_text(v, json_str(r, "goal"));
		sbuf_addch(&v->out, '\n');
	}
	sbuf_adds(&v->out, "Started   ");
	if (gs_time_parse_iso(&t, json_str(r, "created") ? json_str(r, "created") : "") == 0)
		out_relative_time(&v->out, t, now);
	sbuf_adds(&v->out, ", last checkpoint ");
	if (gs_time_parse_iso(&t, json_str(r, "updated") ? json_str(r, "updated") : "") == 0)
		out_relative_time(&v->out, t, now);
	sbuf_addf(&v->out, " (%.7s)\n", json_str(r, "checkpoint"));
	if (json_num(prog, "phases", 0)) {
		sbuf_adds(&v->out, "Progress  ");
		view_bar(v, (int)json_num(prog, "percent", 0), 20);
		sbuf_addf(&v->out, " %d/%d phases done, %d%%\n",
			  (int)(json_num(prog, "completed", 0) + json_num(prog, "skipped", 0)),
			  (int)json_num(prog, "phases", 0), (int)json_num(prog, "percent", 0));
	}
}

void view_errors(struct view *v, const cJSON *r)
{
	const cJSON *errors = cJSON_GetObjectItemCaseSensitive(r, "unresolved_errors"), *e;

	if (!cJSON_GetArraySize(errors))
		return;
	view_section(v, "Unresolved errors");
	cJSON_ArrayForEach(e, errors) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, ST_FAILED);
		sbuf_addf(&v->out, " #%d %s", (int)json_num(e, "number", 0), json_str(e, "type"));
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "phase")))
			sbuf_addf(&v->out, ", phase %d", (int)json_num(e, "phase", 0));
		if (json_str(e, "agent")) {
			sbuf_adds(&v->out, ", agent ");
			view_text(v, json_str(e, "agent"));
		}
		sbuf_adds(&v->out, ": ");
		view_text(v, json_str(e, "message"));
		sbuf_addch(&v->out, '\n');
	}
}

void view_stale(struct view *v, const cJSON *e)
{
	if (json_bool(e, "stale", 0))
		sbuf_addf(&v->out, " %s(stale: no operation since %s)%s", view_c(v, C_YELLOW),
			  json_str(e, "seen") ? json_str(e, "seen") : "its start", view_c(v, C_RESET));
}

void view_phase(struct view *v, const cJSON *p, int max_retries)
{
	const cJSON *a, *b;
	int first = 1;

	sbuf_adds(&v->out, "  ");
	view_mark(v, json_str(p, "status"));
	sbuf_addf(&v->out, " %d ", (int)json_num(p, "id", 0));
	view_text(v, json_str(p, "name"));
	sbuf_adds(&v->out, "  ");
	sbuf_addf(&v->out, "%s", view_c(v, C_DIM));
	view_status_word(&v->out, json_str(p, "status"));
	if (json_num(p, "retry_count", 0))
		sbuf_addf(&v->out, ", retry %d of %d", (int)json_num(p, "retry_count", 0), max_retries);
	if (json_bool(p, "parallel", 0))
		sbuf_adds(&v->out, ", parallel");
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(p, "blocked_by"))
		sbuf_addf(&v->out, "%s%d", first ? ", after phase " : ", ", (int)b->valuedouble), first = 0;
	if (json_str(p, "sub_step")) {
		sbuf_adds(&v->out, ", at ");
		view_text(v, json_str(p, "sub_step"));
	}
	sbuf_adds(&v->out, view_c(v, C_RESET));
	view_stale(v, p);
	sbuf_addch(&v->out, '\n');
	first = 1;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(p, "agents")) {
		sbuf_adds(&v->out, first ? "      " : "  ");
		first = 0;
		view_mark(v, json_str(a, "status"));
		sbuf_addch(&v->out, ' ');
		view_text(v, json_str(a, "id"));
		if (json_str(a, "status") && !strcmp(json_str(a, "status"), ST_IN_PROGRESS))
			sbuf_addf(&v->out, " %d%%", (int)json_num(a, "progress", 0));
		view_stale(v, a);
	}
	if (!first)
		sbuf_addch(&v->out, '\n');
}

void view_decisions_summary(struct view *v, const cJSON *r)
{
	const cJSON *p, *notes;
	const cJSON *decisions = cJSON_GetObjectItemCaseSensitive(r, "recent_decisions");
	int n;

	cJSON_ArrayForEach(p, decisions) {
		view_say(v, p == decisions->child ? "Decided   " : "          ", json_str(p, "decision"), "");
		if (json_str(p, "rationale"))
			view_say(v, v->utf8 ? " \u2014 " : " -- ", json_str(p, "rationale"), "");
		sbuf_addch(&v->out, '\n');
	}
	notes = cJSON_GetObjectItemCaseSensitive(r, "recent_notes");
	n = (int)json_num(cJSON_GetObjectItemCaseSensitive(r, "counts"), "notes", 0);
	if (n && cJSON_GetArraySize(notes)) {
		view_say(v, "Noted     ", json_str(cJSON_GetArrayItem(notes, cJSON_GetArraySize(notes) - 1), "text"), "");
		sbuf_addf(&v->out, n > 1 ? " (the latest of %d notes)\n" : "\n", n);
	}
	if (json_str(r, "context_summary"))
		view_say(v, "Summary   ", json_str(r, "context_summary"), "\n");
}

void view_next(struct view *v, const cJSON *r)
{
	const cJSON *next = cJSON_GetObjectItemCaseSensitive(r, "next");

	sbuf_addf(&v->out, "\n%sNext:%s ", view_c(v, C_BOLD), view_c(v, C_RESET));
	view_text(v, json_str(next, "text"));
	if (json_str(next, "command"))
		sbuf_addf(&v->out, "\n      %s", json_str(next, "command"));
	sbuf_addch(&v->out, '\n');
}

void view_status(struct view *v, const cJSON *r, time_t now, int max_retries)
{
	const cJSON *p;

	view_header(v, r, now);
	view_errors(v, r);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "phases")))
		view_section(v, "Phases");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "phases"))
		view_phase(v, p, max_retries);
	sbuf_addch(&v->out, '\n');
	view_tokens_line(v, cJSON_GetObjectItemCaseSensitive(r, "tokens"));
	view_decisions_summary(v, r);
	view_next(v, r);
}
