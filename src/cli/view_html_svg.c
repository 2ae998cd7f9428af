/*
 * view_html_svg.c - the page's drawings as SVG: the timeline and the
 * tokens over time. The timeline draws report_timeline()'s facts, as
 * `timeline` does in a terminal, with prompts, compactions and commits
 * marked; the tokens chart has a table of the same numbers. Command layer.
 */
#include "git-session/view_html.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TL_WIDTH 960
#define TL_LABEL 170		/* the labels' column */
#define TL_RIGHT 12
#define TL_ROW 22
#define TL_TOP 8

double view_html_scale(double t, double t0, double t1, double x0, double x1)
{
	if (!(t1 > t0))
		return (x0 + x1) / 2;
	if (t < t0)
		t = t0;
	if (t > t1)
		t = t1;
	return x0 + (t - t0) / (t1 - t0) * (x1 - x0);
}

static double iso(const char *s, double def)
{
	time_t t;

	return s && gs_time_parse_iso(&t, s) == 0 ? (double)t : def;
}

struct axis {
	double t0, t1;
};

static double x_of(const struct axis *a, double t)
{
	return view_html_scale(t, a->t0, a->t1, TL_LABEL, TL_WIDTH - TL_RIGHT);
}

/* A mark: a shape at x on row y, in <a href> where the page has a section for it. */
static void mark(struct sbuf *out, const char *kind, double x, double y, const char *href, const char *title)
{
	if (href) {
		sbuf_adds(out, "<a href=\"#");
		view_html_escapes(out, href);
		sbuf_adds(out, "\">");
	}
	sbuf_addf(out, "<g class=\"mark\" data-kind=\"%s\"><title>", kind);
	view_html_escapes(out, title);
	sbuf_adds(out, "</title>");
	if (!strcmp(kind, "commit"))
		sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/>", x, y);
	else if (!strcmp(kind, "failure"))	/* a cross */
		sbuf_addf(out, "<path d=\"M%.1f %.1fl4 -4 3 3 -4 4 4 4 -3 3 -4 -4 -4 4 -3 -3 4 -4 -4 -4 3 -3z\"/>",
			  x, y - 3);
	else if (!strcmp(kind, "retry"))	/* a triangle pointing back */
		sbuf_addf(out, "<path d=\"M%.1f %.1fl-7 6 7 6z\"/>", x + 3, y - 6);
	else if (!strcmp(kind, "prompt"))	/* a triangle pointing down */
		sbuf_addf(out, "<path d=\"M%.1f %.1fh10l-5 8z\"/>", x - 5, y - 10);
	else				/* compact: a diamond */
		sbuf_addf(out, "<path d=\"M%.1f %.1fl5 5 -5 5 -5 -5z\"/>", x, y - 5);
	sbuf_adds(out, "</g>");
	if (href)
		sbuf_adds(out, "</a>");
	sbuf_addch(out, '\n');
}

/* The href of the anchor prefix+s, in a buffer the caller releases. */
static const char *anchor(struct sbuf *sb, const char *prefix, const char *s)
{
	sbuf_reset(sb);
	view_html_anchor(sb, prefix, s);
	return sb->buf;
}

/* The row agent is drawn on (0-based), or -1. */
static int agent_row(const cJSON *rows, const char *agent)
{
	const cJSON *r;
	int i = 0;

	cJSON_ArrayForEach(r, rows) {
		if (agent && !strcmp(json_str(r, "kind") ? json_str(r, "kind") : "", "agent") && json_str(r, "id") &&
		    !strcmp(json_str(r, "id"), agent))
			return i;
		i++;
	}
	return -1;
}

/* "phase 2 Build: failed, from ... to ..., retried 1 times": what a row's <title> says. */
static void row_title(struct sbuf *title, const cJSON *r, int phase, const char *sid, const char *status)
{
	sbuf_addf(title, "%s %s", phase ? "phase" : "agent", sid);
	if (phase && json_str(r, "label"))
		sbuf_addf(title, " %s", json_str(r, "label"));
	sbuf_addf(title, ": %s", status);
	if (json_str(r, "from"))
		sbuf_addf(title, ", from %s", json_str(r, "from"));
	if (json_str(r, "to"))
		sbuf_addf(title, " to %s", json_str(r, "to"));
	if (json_num(r, "retry_count", 0) > 0)
		sbuf_addf(title, ", retried %d times", (int)json_num(r, "retry_count", 0));
}

/* The row's failures, each retried one followed by its retry, as `timeline` draws them. */
static void row_marks(struct sbuf *out, const struct axis *a, const cJSON *r, int phase, const char *sid,
		      const char *retry_href, double y)
{
	struct sbuf title = SBUF_INIT;
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(r, "marks")) {
		double x = x_of(a, iso(json_str(m, "at"), a->t0));

		sbuf_reset(&title);
		sbuf_addf(&title, "failure of %s %s at %s%s%s", phase ? "phase" : "agent", sid,
			  json_str(m, "at") ? json_str(m, "at") : "?", json_str(m, "type") ? ": " : "",
			  json_str(m, "type") ? json_str(m, "type") : "");
		mark(out, "failure", x, y, "errors", title.buf);
		if (!json_str(m, "kind") || strcmp(json_str(m, "kind"), "retried"))
			continue;
		sbuf_reset(&title);
		sbuf_addf(&title, "retry of %s %s", phase ? "phase" : "agent", sid);
		mark(out, "retry", x + 9, y, retry_href, title.buf);
	}
	sbuf_release(&title);
}

/* The row's label (linking its entry where the page has one), its bar and its marks, at y. */
static void row(struct sbuf *out, const struct view_html_page *p, const struct axis *a, const cJSON *r, double y)
{
	int phase = !strcmp(json_str(r, "kind") ? json_str(r, "kind") : "", "phase"), linked;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(r, "id");
	const char *status = json_str(r, "status") ? json_str(r, "status") : "", *sid;
	struct sbuf sidb = SBUF_INIT, title = SBUF_INIT, href = SBUF_INIT;
	double from = iso(json_str(r, "from"), NAN), to = iso(json_str(r, "to"), a->t1), x0, x1;

	if (cJSON_IsNumber(id))
		sbuf_addf(&sidb, "%d", id->valueint);
	else if (cJSON_IsString(id))
		sbuf_adds(&sidb, id->valuestring);
	sid = sidb.buf ? sidb.buf : "";
	row_title(&title, r, phase, sid, status);
	linked = phase ? cJSON_IsNumber(id) && view_html_has_phase(p, id->valueint) : view_html_has_agent(p, sid);
	if (linked)
		anchor(&href, phase ? "phase-" : "agent-", sid);
	sbuf_addf(out, "<g class=\"%s\" data-id=\"", phase ? "phase" : "agent");
	view_html_escapes(out, sid);
	sbuf_adds(out, "\" data-status=\"");
	view_html_escapes(out, status);
	sbuf_adds(out, "\"><title>");
	view_html_escapes(out, title.buf);
	sbuf_adds(out, "</title>");
	if (linked)
		sbuf_addf(out, "<a href=\"#%s\">", href.buf);
	sbuf_addf(out, "<text x=\"%d\" y=\"%.1f\">", phase ? 4 : 16, y + 4);
	if (phase) {
		view_html_escapes(out, sid);
		sbuf_addch(out, ' ');
	}
	view_html_escapes(out, json_str(r, "label") ? json_str(r, "label") : sid);
	sbuf_adds(out, linked ? "</text></a>" : "</text>");
	if (!isnan(from)) {
		x0 = x_of(a, from);
		x1 = x_of(a, to < from ? from : to);
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\"/>", x0, y - 7,
			  x1 - x0 < 2 ? 2 : x1 - x0, phase ? 14 : 10);
	}
	sbuf_adds(out, "</g>\n");
	row_marks(out, a, r, phase, sid, linked ? href.buf : NULL, y);
	sbuf_release(&sidb);
	sbuf_release(&title);
	sbuf_release(&href);
}

/* Below the drawing, the phases as a list: what a phase's label and retries link to. */
static void phase_list(struct sbuf *out, const cJSON *state)
{
	const cJSON *ph, *list = cJSON_GetObjectItemCaseSensitive(state, "phases");

	if (!cJSON_GetArraySize(list))
		return;
	sbuf_adds(out, "<ol class=\"phases\">\n");
	cJSON_ArrayForEach(ph, list) {
		int id = (int)json_num(ph, "id", 0);

		if (state_phase(state, id) == ph)	/* a later phase of the same id (a file that says it twice): no anchor */
			sbuf_addf(out, "<li id=\"phase-%d\" data-status=\"", id);
		else
			sbuf_adds(out, "<li data-status=\"");
		view_html_escapes(out, json_str(ph, "status"));
		sbuf_addf(out, "\" value=\"%d\"><strong>", id);
		view_html_escapes(out, json_str(ph, "name"));
		sbuf_adds(out, "</strong> <span class=\"dim\">");
		view_html_escapes(out, json_str(ph, "status"));
		if (json_num(ph, "retry_count", 0) > 0)
			sbuf_addf(out, ", retried %d times", (int)json_num(ph, "retry_count", 0));
		if (json_str(ph, "started")) {
			sbuf_adds(out, ", ");
			view_html_escapes(out, json_str(ph, "started"));
			sbuf_adds(out, " to ");
			view_html_escapes(out, json_str(ph, "completed") ? json_str(ph, "completed") : "now");
		}
		sbuf_adds(out, "</span></li>\n");
	}
	sbuf_adds(out, "</ol>\n");
}

/* The commits, and the prompts and compactions of agents with no row, on the last row. */
static void events_row(struct sbuf *out, const struct axis *a, const struct view_html_page *p, const cJSON *rows, double y)
{
	struct sbuf title = SBUF_INIT, href = SBUF_INIT;
	const cJSON *c;

	sbuf_addf(out, "<text x=\"4\" y=\"%.1f\" class=\"dim\">commits</text>\n", y + 4);
	sbuf_addf(out, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", TL_LABEL,
		  TL_WIDTH - TL_RIGHT, y + TL_ROW / 2.0, y + TL_ROW / 2.0);
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(p->timeline, "commits")) {
		sbuf_reset(&title);
		sbuf_addf(&title, "commit %.12s: %s", json_str(c, "id") ? json_str(c, "id") : "",
			  json_str(c, "subject") ? json_str(c, "subject") : "");
		mark(out, "commit", x_of(a, iso(json_str(c, "at"), a->t0)), y, anchor(&href, "commit-", json_str(c, "id")),
		     title.buf);
	}
	for (size_t i = 0; i < p->nmarks; i++) {
		int r = agent_row(rows, p->marks[i].agent);
		double my = r < 0 ? y : TL_TOP + TL_ROW / 2.0 + r * TL_ROW;
		time_t t = (time_t)p->marks[i].t;
		char when[32];

		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		sbuf_reset(&title);
		sbuf_addf(&title, "%s%s%s at %s", !strcmp(p->marks[i].kind, "prompt") ? "prompt" : "compaction",
			  p->marks[i].agent ? " of " : "", p->marks[i].agent ? p->marks[i].agent : "", when);
		mark(out, p->marks[i].kind, x_of(a, p->marks[i].t), my,
		     view_html_has_agent(p, p->marks[i].agent) ? anchor(&href, "agent-", p->marks[i].agent) : "conversation",
		     title.buf);
	}
	sbuf_release(&title);
	sbuf_release(&href);
}

static void widen(struct axis *a, double t)
{
	if (isnan(t))
		return;
	if (isnan(a->t0) || t < a->t0)
		a->t0 = t;
	if (isnan(a->t1) || t > a->t1)
		a->t1 = t;
}

/* From the first to the last time anything drawn says: the session's span, or what its rows and marks hold. */
static void span(struct axis *a, const struct view_html_page *p)
{
	const cJSON *r, *m;

	a->t0 = a->t1 = NAN;
	widen(a, iso(json_str(p->timeline, "start"), NAN));
	widen(a, iso(json_str(p->timeline, "end"), NAN));
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(p->timeline, "rows")) {
		widen(a, iso(json_str(r, "from"), NAN));
		widen(a, iso(json_str(r, "to"), NAN));
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(r, "marks"))
			widen(a, iso(json_str(m, "at"), NAN));
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(p->timeline, "commits"))
		widen(a, iso(json_str(m, "at"), NAN));
	for (size_t k = 0; k < p->nmarks; k++)
		widen(a, p->marks[k].t);
	if (isnan(a->t0))
		a->t0 = a->t1 = 0;
}

void view_html_timeline_svg(struct sbuf *out, const struct view_html_page *p)
{
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(p->timeline, "rows"), *r;
	struct axis a;
	int n = cJSON_GetArraySize(rows), i = 0, height = TL_TOP + (n + 2) * TL_ROW;

	span(&a, p);
	sbuf_addf(out, "<div class=\"scroll\"><svg role=\"img\" class=\"timeline\" "
		  "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" aria-label=\"", TL_WIDTH, height, TL_WIDTH, height);
	sbuf_addf(out, "Timeline: %d rows of phases and agents, from ", n);
	view_html_escapes(out, json_str(p->timeline, "start") ? json_str(p->timeline, "start") : "?");
	sbuf_adds(out, " to ");
	view_html_escapes(out, json_str(p->timeline, "end") ? json_str(p->timeline, "end") : "?");
	sbuf_adds(out, "\">\n");
	cJSON_ArrayForEach(r, rows)
		row(out, p, &a, r, TL_TOP + TL_ROW / 2.0 + TL_ROW * i++);
	events_row(out, &a, p, rows, TL_TOP + TL_ROW / 2.0 + TL_ROW * n);
	sbuf_addf(out, "<text x=\"%d\" y=\"%d\" class=\"dim\">", TL_LABEL, height - 6);
	view_html_escapes(out, json_str(p->timeline, "start"));
	sbuf_addf(out, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"dim\">", TL_WIDTH - TL_RIGHT, height - 6);
	view_html_escapes(out, json_str(p->timeline, "end"));
	sbuf_adds(out, "</text>\n</svg></div>\n");
	if (!n && !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p->timeline, "commits")) && !p->nmarks)
		sbuf_adds(out, "<p class=\"empty\">none</p>\n");
	phase_list(out, p->state);
}

#define CH_WIDTH 720
#define CH_HEIGHT 220
#define CH_LEFT 70
#define CH_PAD 14

static void when(char out[32], double t)
{
	time_t tt = (time_t)t;

	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
}

static void chart_table(struct sbuf *out, const struct view_html_page *p)
{
	char at[32];

	sbuf_adds(out, "<div class=\"scroll\"><table class=\"tokens\">\n<tr><th>time</th><th>checkpoint</th><th>agent</th>"
		  "<th>added</th><th>total</th></tr>\n");
	for (size_t i = 0; i < p->npoints; i++) {
		const struct view_html_point *pt = &p->points[i];

		when(at, pt->t);
		sbuf_addf(out, "<tr><td>%s</td><td><code>%.12s</code></td><td>", at, pt->commit);
		view_html_escapes(out, pt->agent ? pt->agent : "-");
		sbuf_addf(out, "</td><td>%.0f</td><td>%.0f</td></tr>\n", pt->added, pt->v);
	}
	sbuf_adds(out, "</table></div>\n");
}

void view_html_tokens_chart(struct sbuf *out, const struct view_html_page *p)
{
	double max = json_num(p->tokens, "max", 0), top = max, t0, t1;
	struct sbuf line = SBUF_INIT;
	char at[32];

	if (!p->npoints) {
		sbuf_adds(out, "<p class=\"empty\">none</p>\n");
		return;
	}
	t0 = p->points[0].t, t1 = p->points[p->npoints - 1].t;
	for (size_t i = 0; i < p->npoints; i++)
		top = p->points[i].v > top ? p->points[i].v : top;
	top = top > 0 ? top : 1;
	sbuf_addf(out, "<div class=\"scroll\"><svg role=\"img\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		  "height=\"%d\" aria-label=\"Tokens used over time: %.0f at the last of %zu checkpoints\">\n",
		  CH_WIDTH, CH_HEIGHT, CH_WIDTH, CH_HEIGHT, p->points[p->npoints - 1].v, p->npoints);
	sbuf_addf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", CH_LEFT, CH_HEIGHT - 30,
		  CH_WIDTH - CH_PAD, CH_HEIGHT - 30);
	sbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text><text x=\"%d\" y=\"%d\" "
		  "text-anchor=\"end\">0</text>\n", CH_LEFT - 6, CH_PAD + 4, top, CH_LEFT - 6, CH_HEIGHT - 30);
	if (max > 0)
		sbuf_addf(out, "<line class=\"axis\" stroke-dasharray=\"4 3\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\">"
			  "<title>budget %.0f</title></line>\n", CH_LEFT, CH_WIDTH - CH_PAD, CH_PAD, CH_PAD, max);
	for (size_t i = 0; i < p->npoints; i++) {
		double x = view_html_scale(p->points[i].t, t0, t1, CH_LEFT, CH_WIDTH - CH_PAD);
		double y = view_html_scale(p->points[i].v, 0, top, CH_HEIGHT - 30, CH_PAD);

		sbuf_addf(&line, "%s%.1f,%.1f", i ? " " : "", x, y);
		when(at, p->points[i].t);
		sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"><title>%s: %.0f tokens (+%.0f", x, y, at,
			  p->points[i].v, p->points[i].added);
		if (p->points[i].agent) {
			sbuf_adds(out, " by ");
			view_html_escapes(out, p->points[i].agent);
		}
		sbuf_addf(out, ") at %.12s</title></circle>\n", p->points[i].commit);
	}
	sbuf_addf(out, "<polyline points=\"%s\"/>\n", line.buf);
	when(at, t0);
	sbuf_addf(out, "<text x=\"%d\" y=\"%d\">%s</text>", CH_LEFT, CH_HEIGHT - 10, at);
	when(at, t1);
	sbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n</svg></div>\n", CH_WIDTH - CH_PAD,
		  CH_HEIGHT - 10, at);
	sbuf_release(&line);
	chart_table(out, p);
}
