/*
 * view_tokens.c - `tokens` drawn for a person, and the tokens line status
 * and resume show.
 */
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/view.h"

#include <string.h>

void view_tokens_line(struct view *v, const cJSON *t)
{
	const char *level = json_str(t, "level");

	sbuf_adds(&v->out, "Tokens    ");
	out_human_count(&v->out, json_num(t, "used", 0));
	if (json_num(t, "max", 0) <= 0) {
		sbuf_adds(&v->out, " (no budget)\n");
		return;
	}
	sbuf_adds(&v->out, " / ");
	out_human_count(&v->out, json_num(t, "max", 0));
	sbuf_addf(&v->out, " (%.1f%%)\n", json_num(t, "percent", 0));
	if (strcmp(level, "ok"))
		sbuf_addf(&v->out, "          %s%s %s: over %s of the budget used%s\n",
			  view_c(v, !strcmp(level, "critical") ? C_RED : C_YELLOW),
			  !strcmp(level, "critical") ? (v->utf8 ? "\u2717" : "!!") : (v->utf8 ? "\u26a0" : "!"),
			  level, !strcmp(level, "critical") ? "95%" : "80%", view_c(v, C_RESET));
}

void view_tokens(struct view *v, const cJSON *t)
{
	const cJSON *a;
	size_t w = 24;	/* the ids' column: as wide as the longest */

	sbuf_addf(&v->out, "%sToken use: %s%s\n\n", view_c(v, C_BOLD), json_str(t, "session_id"), view_c(v, C_RESET));
	view_tokens_line(v, t);
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(t, "remaining")))
		sbuf_addf(&v->out, "Remaining %.0f\n", json_num(t, "remaining", 0));
	sbuf_addf(&v->out, "Totals    %.0f input, %.0f output, %.0f cached; peak %.0f\n",
		  json_num(t, "input", 0), json_num(t, "output", 0), json_num(t, "cached", 0),
		  json_num(t, "peak", 0));
	if (json_num(t, "saved", 0))
		sbuf_addf(&v->out, "Saved     %.0f in isolated agent contexts (%.1f%% of all use)\n",
			  json_num(t, "saved", 0), json_num(t, "savings_percent", 0));
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(t, "by_agent")) {
		struct sbuf name = SBUF_INIT;

		out_escape(&name, json_str(a, "agent"));
		w = out_width(name.buf) > w ? out_width(name.buf) : w;
		sbuf_release(&name);
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "by_agent")))
		sbuf_addf(&v->out, "\n%-*s %10s %10s %10s\n", (int)w + 2, "By agent", "input", "output", "cached");
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(t, "by_agent")) {
		struct sbuf name = SBUF_INIT;

		out_escape(&name, json_str(a, "agent"));
		/* padded by what a terminal shows, not by bytes */
		sbuf_addf(&v->out, "  %s%*s %10.0f %10.0f %10.0f\n", name.buf, (int)(w - out_width(name.buf)), "",
			  json_num(a, "input", 0), json_num(a, "output", 0), json_num(a, "cached", 0));
		sbuf_release(&name);
	}
}
