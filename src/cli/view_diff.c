/*
 * view_diff.c - `diff` drawn for a person: what moved between two
 * checkpoints, a line each.
 */
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/view.h"

#include <string.h>

static void view_moves(struct view *v, const cJSON *arr, const char *kind)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, arr) {
		const char *from = json_str(m, "from"), *to = json_str(m, "to");

		if (!strcmp(kind, "phase")) {
			sbuf_addf(&v->out, "phase %d ", (int)json_num(m, "id", 0));
			view_say(v, "\"", json_str(m, "name"), "\"");
		} else if (!strcmp(kind, "task")) {
			sbuf_addf(&v->out, "task #%d ", (int)json_num(m, "id", 0));
			view_say(v, "\"", json_str(m, "title"), "\"");
		} else {
			view_say(v, !strcmp(kind, "agent") ? "agent " : "file ",
			    json_str(m, !strcmp(kind, "agent") ? "id" : "path"), "");
		}
		if (!from)
			sbuf_addf(&v->out, ": %s%s%s", view_c(v, C_GREEN), !strcmp(kind, "agent") ? "started" :
				  !strcmp(kind, "file") ? to : "added", view_c(v, C_RESET));
		else if (strcmp(from, to))
			sbuf_addf(&v->out, ": %s -> %s%s%s", from, view_c(v, out_status_color(to)), to, view_c(v, C_RESET));
		if (!strcmp(kind, "agent") && to && !strcmp(to, ST_IN_PROGRESS))
			sbuf_addf(&v->out, " (%d%%)", (int)json_num(m, "progress", 0));
		if (!strcmp(kind, "phase") && from && !strcmp(from, ST_FAILED))
			sbuf_addf(&v->out, " (retry %d)", (int)json_num(m, "retry_count", 0));
		sbuf_addch(&v->out, '\n');
	}
}

void view_diff(struct view *v, const cJSON *d)
{
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(d, "status"), *e;
	const cJSON *errors = cJSON_GetObjectItemCaseSensitive(d, "errors");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "tokens");

	sbuf_addf(&v->out, "%sdiff %.7s..%.7s%s\n", view_c(v, C_BOLD), json_str(d, "from"), json_str(d, "to"),
		  view_c(v, C_RESET));
	if (cJSON_IsObject(status))
		sbuf_addf(&v->out, "session: %s -> %s\n", json_str(status, "from"), json_str(status, "to"));
	view_moves(v, cJSON_GetObjectItemCaseSensitive(d, "phases"), "phase");
	view_moves(v, cJSON_GetObjectItemCaseSensitive(d, "agents"), "agent");
	view_moves(v, cJSON_GetObjectItemCaseSensitive(d, "files"), "file");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(errors, "opened")) {
		sbuf_addf(&v->out, "error #%d opened: %s%s%s ", (int)json_num(e, "number", 0), view_c(v, C_RED),
			  json_str(e, "type"), view_c(v, C_RESET));
		view_text(v, json_str(e, "message"));
		sbuf_addch(&v->out, '\n');
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(errors, "resolved")) {
		sbuf_addf(&v->out, "error #%d resolved: ", (int)json_num(e, "number", 0));
		view_say(v, "", json_str(e, "resolution"), "\n");
	}
	if (json_num(t, "input", 0) || json_num(t, "output", 0) || json_num(t, "cached", 0) || json_num(t, "saved", 0))
		sbuf_addf(&v->out, "tokens: %+.0f input, %+.0f output, %+.0f cached, %+.0f saved (used %+.0f)\n",
			  json_num(t, "input", 0), json_num(t, "output", 0), json_num(t, "cached", 0),
			  json_num(t, "saved", 0), json_num(t, "used", 0));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "decisions"))
		view_say(v, "decision: ", json_str(e, "decision"), "\n");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "notes"))
		view_say(v, "note: ", json_str(e, "text"), "\n");
	view_moves(v, cJSON_GetObjectItemCaseSensitive(d, "tasks"), "task");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "milestones"))
		view_say(v, "milestone: ", json_str(e, "name"), "\n");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "artifacts"))
		view_say(v, "artifact: ", json_str(e, "path"), "\n");
}
