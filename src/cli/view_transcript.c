/*
 * view_transcript.c - an agent's conversation as a person reads it, turn
 * by turn, and its items as JSON lines. A prompt is "> ...", then the
 * reply, each tool call "  → Bash npm test" and its result
 * "    ✗ exit 1 · 12 lines · ...", and the turn's tokens. Command layer.
 */
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/transcript.h"
#include "git-session/util.h"
#include "git-session/view.h"
#include "transcript-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const view_item_kinds[] = {
	[TI_PROMPT] = "prompt", [TI_REPLY] = "reply", [TI_THINKING] = "thinking", [TI_TOOL] = "tool",
	[TI_RESULT] = "result", [TI_USAGE] = "usage", [TI_SUMMARY] = "summary", [TI_EVENT] = "event",
	[TI_UNREAD] = "unread",
};

/* s escaped, each line after prefix; with one, only its first line, "…" when there was more. */
static void lines(struct view *v, const char *prefix, const char *s, int one)
{
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);

		sbuf_adds(&v->out, prefix);
		view_text(v, line);
		free(line);
		p += n + (p[n] == '\n');
		if (one && *p) {
			sbuf_adds(&v->out, v->utf8 ? " …\n" : " ...\n");
			return;
		}
		sbuf_addch(&v->out, '\n');
	}
}

/* A tool's arguments, paths in the work tree shown from its top. */
static void tool_text(struct view *v, const char *s, const char *top)
{
	char *text = out_paths_from(s, top);

	view_text(v, text);
	free(text);
}

static void result(struct view *v, const struct transcript_item *it, const char *top)
{
	const char *c = view_c(v, it->error ? C_RED : C_GREEN), *dot = v->utf8 ? " · " : " - ";
	const char *sep = " ";

	sbuf_addf(&v->out, "    %s%s%s", c, it->error ? (v->utf8 ? "✗" : "x") : (v->utf8 ? "✓" : "ok"),
		  view_c(v, C_RESET));
	if (it->exit >= 0 && it->error) {
		sbuf_addf(&v->out, "%sexit %d", sep, it->exit);
		sep = dot;
	}
	if (it->lines > 1) {
		sbuf_addf(&v->out, "%s%zu lines", sep, it->lines);
		sep = dot;
	}
	if (*it->text) {
		sbuf_adds(&v->out, sep);
		tool_text(v, it->text, top);
	}
	sbuf_addch(&v->out, '\n');
}

void view_transcript_heading(struct view *v, const char *agent, int turn)
{
	const char *rule = v->utf8 ? "──" : "--", *dot = v->utf8 ? "·" : "-";

	if (turn)
		sbuf_addf(&v->out, "%s%s turn %d %s ", view_c(v, C_YELLOW), rule, turn, dot);
	else
		sbuf_addf(&v->out, "%s%s ", view_c(v, C_YELLOW), rule);
	view_text(v, agent);
	sbuf_addf(&v->out, " %s%s\n", rule, view_c(v, C_RESET));
}

static void usage_line(struct view *v, const double u[3])
{
	struct sbuf in = SBUF_INIT, out = SBUF_INIT;

	if (!u[0] && !u[1] && !u[2])
		return;
	out_human_count(&in, u[0]);
	out_human_count(&out, u[1]);
	sbuf_addf(&v->out, "  %stokens: %s in, %s out", view_c(v, C_DIM), in.buf, out.buf);
	if (u[2]) {
		sbuf_reset(&in);
		out_human_count(&in, u[2]);
		sbuf_addf(&v->out, ", %s cached", in.buf);
	}
	sbuf_addf(&v->out, "%s\n", view_c(v, C_RESET));
	sbuf_release(&in);
	sbuf_release(&out);
}

static void item(struct view *v, const struct transcript_item *it, const char *top)
{
	switch (it->kind) {
	case TI_PROMPT:
		sbuf_adds(&v->out, view_c(v, C_BOLD));
		lines(v, "> ", it->text, 0);
		sbuf_adds(&v->out, view_c(v, C_RESET));
		break;
	case TI_REPLY:
		lines(v, "", it->text, 0);
		break;
	case TI_THINKING:
		sbuf_adds(&v->out, view_c(v, C_DIM));
		lines(v, v->utf8 ? "  ∴ " : "  ~ ", it->text, 1);
		sbuf_adds(&v->out, view_c(v, C_RESET));
		break;
	case TI_TOOL:
		sbuf_addf(&v->out, "  %s%s ", view_c(v, C_CYAN), v->utf8 ? "→" : "->");
		view_text(v, it->name ? it->name : "?");
		sbuf_addf(&v->out, "%s%s", view_c(v, C_RESET), *it->text ? ": " : "");
		tool_text(v, it->text, top);
		sbuf_addch(&v->out, '\n');
		break;
	case TI_RESULT:
		result(v, it, top);
		break;
	case TI_SUMMARY:
		sbuf_addf(&v->out, "%s  summary of the conversation so far:%s\n", view_c(v, C_DIM), view_c(v, C_RESET));
		lines(v, "  | ", it->text, 0);
		break;
	case TI_EVENT:
		sbuf_adds(&v->out, view_c(v, it->error ? C_RED : C_DIM));
		lines(v, v->utf8 ? "  · " : "  - ", it->text, 1);
		sbuf_adds(&v->out, view_c(v, C_RESET));
		break;
	case TI_USAGE:
	case TI_UNREAD:
		break;
	}
}

void view_transcript(struct view *v, const char *agent, const struct transcript *t, int turn, const char *top)
{
	double u[3] = { 0, 0, 0 };
	int shown = -1;

	for (size_t i = 0; i < t->n; i++) {
		const struct transcript_item *it = &t->items[i];

		if (turn && it->turn != turn)
			continue;
		if (it->turn != shown) {
			if (shown >= 0) {
				usage_line(v, u);
				sbuf_addch(&v->out, '\n');
			}
			view_transcript_heading(v, agent, it->turn);
			shown = it->turn;
			u[0] = u[1] = u[2] = 0;
		}
		if (it->kind == TI_USAGE) {
			u[0] += it->input;
			u[1] += it->output;
			u[2] += it->cached;
		}
		item(v, it, top);
	}
	if (shown >= 0) {
		usage_line(v, u);
		sbuf_addch(&v->out, '\n');
	}
}

cJSON *view_transcript_item_json(const char *agent, const struct transcript_item *it)
{
	cJSON *o = cJSON_CreateObject();

	json_set_str(o, "agent", agent);
	json_set_num(o, "turn", it->turn);
	json_set_num(o, "part", it->part);
	json_set_num(o, "line", (double)it->line);
	json_set_str(o, "kind", view_item_kinds[it->kind]);
	if (it->name)
		json_set_str(o, "tool", it->name);
	if (it->kind != TI_USAGE)
		json_set_str(o, "text", it->text);
	if (it->kind == TI_RESULT) {
		json_set_bool(o, "error", it->error);
		json_set(o, "exit", it->exit >= 0 ? cJSON_CreateNumber(it->exit) : cJSON_CreateNull());
		json_set_num(o, "lines", (double)it->lines);
		json_set_num(o, "bytes", (double)it->bytes);
	} else if (it->kind == TI_EVENT && it->error) {
		json_set_bool(o, "error", 1);
	} else if (it->kind == TI_USAGE) {
		json_set_num(o, "input", it->input);
		json_set_num(o, "output", it->output);
		json_set_num(o, "cached", it->cached);
	}
	return o;
}
