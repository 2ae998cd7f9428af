/*
 * view_timeline.c - draws report_timeline()'s facts as bars along time,
 * one terminal row per phase and per agent, to a given width; UTF-8
 * blocks, or plain ASCII when the terminal is not UTF-8. Command layer.
 */
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/report.h"
#include "git-session/util.h"
#include "git-session/view.h"

#include <stdlib.h>
#include <string.h>

struct cell {
	const char *glyph, *color;
};

struct grid {
	struct view *v;
	time_t t0, t1;
	int label, cells;	/* label width, bar cells */
	struct cell *row;
};

/* utf8 and ascii spellings of each glyph */
static const char *g(struct grid *gr, const char *utf8, const char *ascii)
{
	return gr->v->utf8 ? utf8 : ascii;
}

static int col(struct grid *gr, const char *iso, int dflt)
{
	time_t t;

	if (!iso || gs_time_parse_iso(&t, iso) < 0)
		return dflt;
	if (gr->t1 <= gr->t0 || t <= gr->t0)
		return 0;
	if (t >= gr->t1)
		return gr->cells - 1;
	return (int)((double)(t - gr->t0) * (gr->cells - 1) / (double)(gr->t1 - gr->t0));
}

/* label, cut or padded to width characters; controls and, in ASCII, non-ASCII as '?' */
static void put_label(struct grid *gr, const char *indent, const char *s, int width)
{
	struct sbuf *out = &gr->v->out;
	int n = 0;

	sbuf_adds(out, indent);
	for (const char *p = indent; *p; p++)
		n += (*p & 0xc0) != 0x80;	/* characters, not bytes */
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && n < width - 1;) {
		size_t len = 1;

		while ((p[len] & 0xc0) == 0x80)
			len++;
		if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && !gr->v->utf8) || !gs_utf8_valid((const char *)p, len))
			sbuf_addch(out, '?');
		else
			sbuf_add(out, p, len);
		p += len;
		if (++n == width - 1 && *p) {	/* cut: mark it */
			out->len -= len;
			out->buf[out->len] = '\0';
			sbuf_adds(out, g(gr, "\u2026", "~"));
		}
	}
	for (; n < width; n++)
		sbuf_addch(out, ' ');
}

static void fill(struct grid *gr, int from, int to, const char *glyph, const char *color)
{
	for (int i = from; i <= to && i < gr->cells; i++)
		gr->row[i] = (struct cell){ glyph, color };
}

static void emit(struct grid *gr, const char *indent, const char *label)
{
	const char *last = "";

	put_label(gr, indent, label, gr->label);
	sbuf_adds(&gr->v->out, g(gr, "\u2502", "|"));
	for (int i = 0; i < gr->cells; i++) {
		const char *color = view_c(gr->v, gr->row[i].color ? gr->row[i].color : "");

		if (strcmp(color, last))
			sbuf_adds(&gr->v->out, *color ? color : view_c(gr->v, C_RESET));
		last = color;
		sbuf_adds(&gr->v->out, gr->row[i].glyph ? gr->row[i].glyph : " ");
	}
	if (*last)
		sbuf_adds(&gr->v->out, view_c(gr->v, C_RESET));
	/* no trailing blanks */
	while (gr->v->out.len && gr->v->out.buf[gr->v->out.len - 1] == ' ')
		gr->v->out.buf[--gr->v->out.len] = '\0';
	sbuf_addch(&gr->v->out, '\n');
	memset(gr->row, 0, sizeof(*gr->row) * (size_t)gr->cells);
}

static void marks(struct grid *gr, const cJSON *r)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(r, "marks")) {
		int at = col(gr, json_str(m, "at"), -1);

		if (at < 0)
			continue;
		fill(gr, at, at, g(gr, "\u2717", "X"), C_RED);
		if (!strcmp(json_str(m, "kind"), "retried") && at + 1 < gr->cells)
			fill(gr, at + 1, at + 1, g(gr, "\u21bb", "R"), C_YELLOW);
	}
}

static void bar(struct grid *gr, const cJSON *r, int agent)
{
	const char *status = json_str(r, "status"), *glyph;
	int from = col(gr, json_str(r, "from"), -1), to;

	if (from < 0)
		return;	/* not started: the label alone */
	to = col(gr, json_str(r, "to"), gr->cells - 1);
	if (!strcmp(status, ST_IN_PROGRESS))
		glyph = agent ? g(gr, "\u2504", "~") : g(gr, "\u2592", "=");
	else if (!strcmp(status, ST_SKIPPED))
		glyph = g(gr, "\u00b7", ".");
	else	/* completed or failed: the colour tells them apart */
		glyph = agent ? g(gr, "\u2501", "-") : g(gr, "\u2588", "#");
	fill(gr, from, to < from ? from : to, glyph, out_status_color(status));
	if (!strcmp(status, ST_FAILED) && agent)
		fill(gr, to < from ? from : to, to < from ? from : to, g(gr, "\u2717", "X"), C_RED);
}

static int label_width(const cJSON *t, int width)
{
	const cJSON *r;
	int w = 8;

	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(t, "rows")) {
		int n = (int)strlen(json_str(r, "label") ? json_str(r, "label") : "") + 6;
		w = n > w ? n : w;
	}
	return w > width / 3 ? width / 3 : w;
}

static void axis(struct grid *gr, const cJSON *t)
{
	struct sbuf left = SBUF_INIT, right = SBUF_INIT;
	const char *start = json_str(t, "start"), *end = json_str(t, "end");
	int pad;

	for (int i = 0; i < gr->label; i++)
		sbuf_addch(&gr->v->out, ' ');
	sbuf_adds(&gr->v->out, g(gr, "\u2514", "+"));
	for (int i = 0; i < gr->cells; i++)
		sbuf_adds(&gr->v->out, g(gr, "\u2500", "-"));
	sbuf_addch(&gr->v->out, '\n');
	/* "2026-11-21 03:48Z" under the start, the span and end time under the end */
	sbuf_addf(&left, "%.10s %.5sZ", start ? start : "", start && strlen(start) > 11 ? start + 11 : "");
	sbuf_adds(&right, "+");
	out_duration(&right, (long)json_num(t, "seconds", 0));
	sbuf_addf(&right, " %.5sZ", end && strlen(end) > 11 ? end + 11 : "");
	if ((int)(left.len + right.len) + 2 > gr->cells) {	/* narrow: the time of day alone */
		sbuf_reset(&left);
		sbuf_addf(&left, "%.5sZ", start && strlen(start) > 11 ? start + 11 : "");
	}
	for (int i = 0; i < gr->label + 1; i++)
		sbuf_addch(&gr->v->out, ' ');
	sbuf_adds(&gr->v->out, left.buf);
	pad = gr->cells - (int)left.len - (int)right.len;
	for (int i = 0; i < pad; i++)
		sbuf_addch(&gr->v->out, ' ');
	sbuf_addf(&gr->v->out, "%s%s\n", pad > 0 ? "" : " ", right.buf);
	sbuf_release(&left);
	sbuf_release(&right);
}

/* What each glyph means, wrapped to the width. */
static void legend(struct grid *gr, int width)
{
	const char *items[][3] = {
		{ "\u2588", "#", "phase" }, { "\u2592", "=", "phase active" }, { "\u2501", "-", "agent" },
		{ "\u2504", "~", "agent running" }, { "\u2717", "X", "failure" }, { "\u21bb", "R", "retry" },
		{ "\u25cf", "o", "commit" },
	};
	int used = 0;

	sbuf_addch(&gr->v->out, '\n');
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		int n = 2 + (int)strlen(items[i][2]);

		if (used && used + 2 + n > width) {
			sbuf_addch(&gr->v->out, '\n');
			used = 0;
		}
		sbuf_addf(&gr->v->out, "%s%s %s", used ? "  " : "", g(gr, items[i][0], items[i][1]), items[i][2]);
		used += (used ? 2 : 0) + n;
	}
	sbuf_addch(&gr->v->out, '\n');
}

void view_timeline(struct view *v, const cJSON *t, int width)
{
	struct grid gr = { v, 0, 0, 0, 0, NULL };
	const cJSON *r, *c;
	char label[64];

	gs_time_parse_iso(&gr.t0, json_str(t, "start"));
	gs_time_parse_iso(&gr.t1, json_str(t, "end"));
	gr.label = label_width(t, width);
	gr.cells = width - gr.label - 1;
	gr.row = xcalloc((size_t)gr.cells, sizeof(*gr.row));
	/* "Timeline of <id> (<status>)", on two lines when that is too wide */
	sbuf_addf(&v->out, "%s%s%s%s", view_c(v, C_BOLD),
		  (int)strlen(json_str(t, "session_id")) + 12 <= width ? "Timeline of " : "",
		  json_str(t, "session_id"), view_c(v, C_RESET));
	sbuf_adds(&v->out, (int)strlen(json_str(t, "session_id")) + 27 > width ? "\n(" : " (");
	view_status_word(&v->out, json_str(t, "status"));
	sbuf_adds(&v->out, ")\n\n");
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(t, "rows")) {
		int agent = !strcmp(json_str(r, "kind"), "agent");

		bar(&gr, r, agent);
		marks(&gr, r);
		if (agent) {
			emit(&gr, "  ", json_str(r, "label"));
		} else {
			int retries = (int)json_num(r, "retry_count", 0);

			snprintf(label, sizeof(label), "%d ", (int)json_num(r, "id", 0));
			if (retries)
				snprintf(label + strlen(label), sizeof(label) - strlen(label), "%s%d ",
					 g(&gr, "\u21bb", "R"), retries);
			emit(&gr, label, json_str(r, "label"));
		}
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "commits"))) {
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(t, "commits"))
			fill(&gr, col(&gr, json_str(c, "at"), 0), col(&gr, json_str(c, "at"), 0),
			     g(&gr, "\u25cf", "o"), C_YELLOW);
		emit(&gr, "", "commits");
	}
	axis(&gr, t);
	legend(&gr, width);
	free(gr.row);
}
