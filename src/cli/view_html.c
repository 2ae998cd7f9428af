/*
 * view_html.c - a session as one HTML page: escaping, anchors, the head
 * and style, the summary and the lists. Every text goes through the
 * escaping; the head's Content-Security-Policy allows no script and no
 * request. The drawings, the conversation and the files have their own
 * view_html_*.c. Command layer.
 */
#include "git-session/view_html.h"
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/report.h"
#include "git-session/state.h"
#include "git-session/util.h"
#include "transcript-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

/* The bytes of the UTF-8 character at s (at most len), or 0 when it is not one. */
static size_t utf8_char(const unsigned char *s, size_t len)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!n || n > len || !gs_utf8_valid((const char *)s, n))
		return 0;
	return n;
}

void view_html_escape(struct sbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_char(p + i, len - i);

		if (!n || (n == 1 && ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') || p[i] == 0x7f))) {
			sbuf_adds(sb, REPLACEMENT);
			i++;
			continue;
		}
		switch (n == 1 ? p[i] : 0) {
		case '&': sbuf_adds(sb, "&amp;"); break;
		case '<': sbuf_adds(sb, "&lt;"); break;
		case '>': sbuf_adds(sb, "&gt;"); break;
		case '"': sbuf_adds(sb, "&quot;"); break;
		case '\'': sbuf_adds(sb, "&#39;"); break;
		default: sbuf_add(sb, p + i, n);
		}
		i += n;
	}
}

void view_html_escapes(struct sbuf *sb, const char *s)
{
	if (s)
		view_html_escape(sb, s, strlen(s));
}

static int upper_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/*
 * A '-' is kept unless two upper-case hex digits follow it, which would
 * read as an escape: "a-2Fb" and "a/b" are then two anchors, not one.
 */
void view_html_anchor(struct sbuf *sb, const char *prefix, const char *s)
{
	sbuf_adds(sb, prefix);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		int dash_escape = *p == '-' && upper_hex(p[1]) && upper_hex(p[2]);

		if (!dash_escape && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			sbuf_addch(sb, (char)*p);
		else
			sbuf_addf(sb, "-%02X", *p);
	}
}

char *view_html_file_name(const char *id)
{
	struct sbuf sb = SBUF_INIT;

	for (const char *p = id; *p; p++) {
		if (p == id && !strcasecmp(id, "index"))	/* the index's own name, on any file system */
			sbuf_addf(&sb, "%%%02X", (unsigned char)*p);
		else if (*p == '/')
			sbuf_adds(&sb, "%2F");
		else if (*p == '%')
			sbuf_adds(&sb, "%25");
		else
			sbuf_addch(&sb, *p);
	}
	sbuf_adds(&sb, ".html");
	return sbuf_detach(&sb, NULL);
}

static const char *const style =
	":root{--fg:#1f2328;--bg:#fff;--dim:#59636e;--line:#d1d9e0;--box:#f6f8fa;--accent:#0969da;"
	"--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--add:#dafbe1;--del:#ffebe9;--run:#bf8700}\n"
	"@media (prefers-color-scheme: dark){:root{--fg:#e6edf3;--bg:#0d1117;--dim:#9198a1;--line:#3d444d;"
	"--box:#151b23;--accent:#4493f8;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--add:#12261e;--del:#25171c;--run:#d29922}}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0 auto;max-width:72rem;padding:1rem;font:15px/1.5 system-ui,sans-serif;color:var(--fg);"
	"background:var(--bg);overflow-wrap:anywhere}\n"
	"a{color:var(--accent)}\n"
	"h1{font-size:1.5rem;margin:.2rem 0 .6rem;word-break:break-all}h2{border-bottom:1px solid var(--line);"
	"padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.05rem;margin:1.2rem 0 .4rem;word-break:break-all}\n"
	"nav#toc{display:flex;flex-wrap:wrap;gap:.2rem .8rem;padding:.4rem 0;border-bottom:1px solid var(--line)}\n"
	"dl{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}dt{color:var(--dim)}dd{margin:0;min-width:0}\n"
	"pre{background:var(--box);border:1px solid var(--line);border-radius:6px;padding:.5rem;overflow-x:auto;"
	"white-space:pre-wrap;font:13px/1.4 ui-monospace,monospace;margin:.3rem 0;max-width:100%}\n"
	"code{font:13px ui-monospace,monospace}\n"
	"svg{max-width:100%;height:auto;display:block;font:11px system-ui,sans-serif}\n"
	".scroll{overflow-x:auto;max-width:100%}.scroll>svg.timeline{min-width:600px}\n"
	"table{border-collapse:collapse;font-size:13px}td,th{border:1px solid var(--line);padding:.15rem .5rem;text-align:right}"
	"td:first-child,th:first-child{text-align:left}\n"
	".turn{padding:.3rem .6rem;margin:.4rem 0;border-left:3px solid var(--line);white-space:pre-wrap}\n"
	".turn.prompt{border-color:var(--accent);font-weight:600}.turn.reply{border-color:var(--ok)}\n"
	".turn.note{color:var(--dim);white-space:normal}\n"
	"details{margin:.2rem 0}summary{cursor:pointer;overflow-wrap:anywhere}\n"
	"details.tool>summary{font:13px ui-monospace,monospace;color:var(--dim)}\n"
	"details.tool[data-error] > summary{color:var(--bad)}\n"
	"span.add{background:var(--add);display:block}span.del{background:var(--del);display:block}\n"
	"p.empty{color:var(--dim);font-style:italic}.dim{color:var(--dim)}\n"
	"li{margin:.2rem 0}li[data-status=failed],li.error[data-status=pending]{color:var(--bad)}\n"
	".phase rect{fill:var(--accent)}.agent rect{fill:var(--ok)}g[data-status=failed] rect{fill:var(--bad)}"
	"g[data-status=in_progress] rect{fill-opacity:.55}g[data-status=pending] rect{fill:var(--line)}\n"
	"svg text{fill:var(--fg)}svg .axis{stroke:var(--line)}.mark path,.mark circle{stroke:var(--bg)}"
	".mark[data-kind=failure] path{fill:var(--bad)}.mark[data-kind=retry] path{fill:var(--warn)}"
	".mark[data-kind=commit] circle{fill:var(--fg)}.mark[data-kind=prompt] path{fill:var(--accent)}"
	".mark[data-kind=compact] path{fill:var(--dim)}\n"
	".chart polyline{fill:none;stroke:var(--accent);stroke-width:2}.chart circle{fill:var(--accent)}\n"
	"@media print{nav#toc{display:none}body{max-width:none;font-size:11pt}details>*{display:block}"
	"details::details-content{content-visibility:visible;display:block}"
	"pre{white-space:pre-wrap;overflow:visible}a{color:inherit}section{break-inside:auto}}\n";

void view_html_head(struct sbuf *out, const char *title)
{
	sbuf_adds(out, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		  "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
		  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		  "<meta name=\"color-scheme\" content=\"light dark\">\n"
		  "<meta name=\"referrer\" content=\"no-referrer\">\n<title>");
	view_html_escapes(out, title);
	sbuf_addf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

void view_html_foot(struct sbuf *out)
{
	sbuf_adds(out, "</body>\n</html>\n");
}

/* <section id="id"><h2>title</h2> */
static void section_open(struct sbuf *out, const char *id, const char *title)
{
	sbuf_addf(out, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

static void empty(struct sbuf *out)
{
	sbuf_adds(out, "<p class=\"empty\">none</p>\n");
}

/* <dt>name</dt><dd data-field="field">text</dd>, text escaped ("-" when NULL). */
static void field(struct sbuf *out, const char *name, const char *key, const char *text)
{
	sbuf_addf(out, "<dt>%s</dt><dd data-field=\"%s\">", name, key);
	if (text && *text)
		view_html_escapes(out, text);
	else
		sbuf_adds(out, "-");
	sbuf_adds(out, "</dd>\n");
}

static void tokens_fields(struct sbuf *out, const cJSON *t)
{
	struct sbuf sb = SBUF_INIT;
	double max = json_num(t, "max", 0);

	sbuf_addf(&sb, "%.0f used (%.0f in, %.0f out, %.0f cached)", json_num(t, "used", 0), json_num(t, "input", 0),
		  json_num(t, "output", 0), json_num(t, "cached", 0));
	field(out, "tokens", "tokens", sb.buf);
	sbuf_reset(&sb);
	if (max > 0)
		sbuf_addf(&sb, "%.0f: %.1f%% used, %s", max, json_num(t, "percent", 0), json_str(t, "level"));
	else
		sbuf_adds(&sb, "none");
	field(out, "budget", "budget", sb.buf);
	sbuf_release(&sb);
}

static void summary(struct sbuf *out, const struct view_html_page *p)
{
	const cJSON *s = p->state, *w;
	const cJSON *project = cJSON_GetObjectItemCaseSensitive(s, "project");
	struct sbuf who = SBUF_INIT;

	cJSON_ArrayForEach(w, p->who)
		if (cJSON_IsString(w))
			sbuf_addf(&who, "%s%s", who.len ? ", " : "", w->valuestring);
	sbuf_adds(out, "<header id=\"summary\">\n<h1>");
	view_html_escapes(out, json_str(s, "session_id"));
	sbuf_adds(out, "</h1>\n<dl>\n");
	field(out, "goal", "goal", json_str(s, "goal") ? json_str(s, "goal") : json_str(s, "topic"));
	field(out, "status", "status", json_str(s, "status"));
	field(out, "who", "who", who.buf);
	field(out, "created", "created", json_str(s, "created"));
	field(out, "updated", "updated", json_str(s, "updated"));
	field(out, "branch", "branch", json_str(project, "branch"));
	tokens_fields(out, p->tokens);
	field(out, "checkpoint", "checkpoint", p->commit);
	sbuf_adds(out, "</dl>\n");
	if (json_str(s, "context_summary")) {
		sbuf_adds(out, "<p class=\"summary\">");
		view_html_escapes(out, json_str(s, "context_summary"));
		sbuf_adds(out, "</p>\n");
	}
	sbuf_adds(out, "</header>\n");
	sbuf_release(&who);
}

static const char *const sections[][2] = {
	{ "timeline", "Timeline" }, { "conversation", "Conversation" }, { "files", "Files" },
	{ "commits", "Commits" }, { "decisions", "Decisions" }, { "errors", "Errors" },
	{ "tasks", "Tasks" }, { "tokens", "Tokens" },
};

static void toc(struct sbuf *out)
{
	sbuf_adds(out, "<nav id=\"toc\"><a href=\"#summary\">Summary</a>");
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		sbuf_addf(out, " <a href=\"#%s\">%s</a>", sections[i][0], sections[i][1]);
	sbuf_adds(out, "</nav>\n");
}

/* " <span class="dim">(by agent, at time)</span>" of an entry, when it says them. */
static void by_at(struct sbuf *out, const struct view_html_page *p, const cJSON *e, const char *at_key)
{
	const char *agent = json_str(e, "agent"), *at = json_str(e, at_key);

	if (!agent && !at)
		return;
	sbuf_adds(out, " <span class=\"dim\">(");
	if (agent) {
		sbuf_adds(out, "by ");
		view_html_agent_link(out, p, agent);
		sbuf_adds(out, at ? ", " : "");
	}
	view_html_escapes(out, at);
	sbuf_adds(out, ")</span>");
}

struct entry_at {
	const char *key;
	size_t at;
};

static int by_key_then_at(const void *x, const void *y)
{
	const struct entry_at *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->at > b->at) - (a->at < b->at);
}

/*
 * For each entry of list, whether it is the first whose key says what
 * it says: that one takes the anchor, a later one (a file that says it
 * twice) none. Caller frees.
 */
static unsigned char *firsts(const cJSON *list, const char *key)
{
	size_t n = (size_t)cJSON_GetArraySize(list), k = 0;
	struct entry_at *v = xcalloc(n + 1, sizeof(*v));
	unsigned char *first = xcalloc(n + 1, 1);
	const cJSON *e;

	cJSON_ArrayForEach(e, list) {
		v[k] = (struct entry_at){ json_str(e, key) ? json_str(e, key) : "", k };
		k++;
	}
	qsort(v, n, sizeof(*v), by_key_then_at);
	for (size_t i = 0; i < n; i++)
		first[v[i].at] = !i || strcmp(v[i - 1].key, v[i].key);
	free(v);
	return first;
}

static void commits(struct sbuf *out, const struct view_html_page *p)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(p->state, "commits"), *c;
	size_t nsorted = 0, k = 0;
	const cJSON **sorted = p->messages ? json_members_sorted(p->messages, &nsorted) : NULL;	/* a lookup a commit */
	unsigned char *first = firsts(list, "id");

	section_open(out, "commits", "Commits");
	if (!cJSON_GetArraySize(list))
		empty(out);
	else
		sbuf_adds(out, "<ol>\n");
	cJSON_ArrayForEach(c, list) {
		const char *id = json_str(c, "id") ? json_str(c, "id") : "";
		const char *body = nsorted ? json_str(json_member_find(sorted, nsorted, id), "body") : NULL;

		sbuf_adds(out, "<li class=\"commit\"");
		if (first[k++]) {
			sbuf_adds(out, " id=\"");
			view_html_anchor(out, "commit-", id);
			sbuf_adds(out, "\"");
		}
		sbuf_adds(out, "><code>");
		view_html_escape(out, id, strlen(id) < 12 ? strlen(id) : 12);
		sbuf_adds(out, "</code> <strong>");
		view_html_escapes(out, json_str(c, "subject"));
		sbuf_adds(out, "</strong>");
		by_at(out, p, c, "timestamp");
		if (body && *body) {
			sbuf_adds(out, "<pre class=\"body\">");
			view_html_escapes(out, body);
			sbuf_adds(out, "</pre>");
		}
		sbuf_adds(out, "</li>\n");
	}
	if (cJSON_GetArraySize(list))
		sbuf_adds(out, "</ol>\n");
	sbuf_adds(out, "</section>\n");
	free(sorted);
	free(first);
}

/* A list section: each entry of the state's list key an <li class="cls">, drawn by one. */
static void list_section(struct sbuf *out, const struct view_html_page *p, const char *key, const char *title,
			 const char *cls, void (*one)(struct sbuf *, const struct view_html_page *, const cJSON *))
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(p->state, key), *e;
	int n = 0;

	section_open(out, key, title);
	cJSON_ArrayForEach(e, list) {
		if (!n++)
			sbuf_adds(out, "<ol>\n");
		sbuf_addf(out, "<li class=\"%s\"", cls);
		one(out, p, e);
		sbuf_adds(out, "</li>\n");
	}
	if (n)
		sbuf_adds(out, "</ol>\n");
	else
		empty(out);
	sbuf_adds(out, "</section>\n");
}

static void decision(struct sbuf *out, const struct view_html_page *p, const cJSON *e)
{
	sbuf_adds(out, "><strong>");
	view_html_escapes(out, json_str(e, "decision"));
	sbuf_adds(out, "</strong>");
	if (json_str(e, "rationale")) {
		sbuf_adds(out, ": ");
		view_html_escapes(out, json_str(e, "rationale"));
	}
	by_at(out, p, e, "timestamp");
}

static void error_one(struct sbuf *out, const struct view_html_page *p, const cJSON *e)
{
	int resolved = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "resolved"));
	const char *res = json_str(e, "resolution");

	sbuf_addf(out, " data-status=\"%s\"><strong>", resolved ? "resolved" : "pending");
	view_html_escapes(out, json_str(e, "type"));
	sbuf_adds(out, "</strong>: ");
	view_html_escapes(out, json_str(e, "message"));
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "phase"))) {
		sbuf_adds(out, " ");
		view_html_phase_link(out, p, (int)json_num(e, "phase", 0));
	}
	by_at(out, p, e, "timestamp");
	if (resolved && res) {
		sbuf_adds(out, "<br>resolved: ");
		view_html_escapes(out, res);
	}
}

static void task(struct sbuf *out, const struct view_html_page *p, const cJSON *e)
{
	sbuf_adds(out, " data-status=\"");
	view_html_escapes(out, json_str(e, "status"));
	sbuf_addf(out, "\">#%d ", (int)json_num(e, "id", 0));
	view_html_escapes(out, json_str(e, "title"));
	sbuf_addf(out, " <span class=\"dim\">(");
	view_html_escapes(out, json_str(e, "status"));
	sbuf_adds(out, ")</span>");
}

int view_html_has_agent(const struct view_html_page *p, const char *id)
{
	return id && p->nagents && bsearch(&id, p->agents, p->nagents, sizeof(*p->agents), gs_cmp_str);
}

int view_html_has_phase(const struct view_html_page *p, int id)
{
	return state_phase(p->state, id) != NULL;
}

void view_html_agent_link(struct sbuf *out, const struct view_html_page *p, const char *id)
{
	int linked = view_html_has_agent(p, id);

	if (linked) {
		sbuf_adds(out, "<a href=\"#");
		view_html_anchor(out, "agent-", id);
		sbuf_adds(out, "\">");
	}
	view_html_escapes(out, id);
	if (linked)
		sbuf_adds(out, "</a>");
}

void view_html_phase_link(struct sbuf *out, const struct view_html_page *p, int id)
{
	if (view_html_has_phase(p, id))
		sbuf_addf(out, "<a href=\"#phase-%d\">phase %d</a>", id, id);
	else
		sbuf_addf(out, "phase %d", id);
}

/* The agents the conversation has an article of: the state's, and those only a transcript names. */
static const char **agents_of(size_t *n, const struct view_html_page *p)
{
	const cJSON *agents = cJSON_GetObjectItemCaseSensitive(p->state, "agents"), *a;
	size_t talks = p->talks ? p->talks->n : 0;
	const char **v = xcalloc((size_t)cJSON_GetArraySize(agents) + talks + 1, sizeof(*v));

	*n = 0;
	cJSON_ArrayForEach(a, agents)
		if (json_str(a, "id"))
			v[(*n)++] = json_str(a, "id");
	for (size_t i = 0; i < talks; i++)
		v[(*n)++] = p->talks->v[i].id;
	qsort(v, *n, sizeof(*v), gs_cmp_str);
	return v;
}

void view_html_page(struct sbuf *out, const struct view_html_page *given)
{
	struct view_html_page page = *given, *p = &page;
	struct sbuf title = SBUF_INIT;

	page.agents = agents_of(&page.nagents, given);

	sbuf_addf(&title, "Session %s", json_str(p->state, "session_id") ? json_str(p->state, "session_id") : "");
	view_html_head(out, title.buf);
	sbuf_release(&title);
	toc(out);
	summary(out, p);
	section_open(out, "timeline", "Timeline");
	view_html_timeline_svg(out, p);
	sbuf_adds(out, "</section>\n");
	section_open(out, "conversation", "Conversation");
	view_html_conversation(out, p);
	sbuf_adds(out, "</section>\n");
	section_open(out, "files", "Files");
	view_html_files(out, p);
	sbuf_adds(out, "</section>\n");
	commits(out, p);
	list_section(out, p, "decisions", "Decisions", "decision", decision);
	list_section(out, p, "errors", "Errors", "error", error_one);
	list_section(out, p, "tasks", "Tasks", "task", task);
	section_open(out, "tokens", "Tokens");
	view_html_tokens_chart(out, p);
	sbuf_adds(out, "</section>\n");
	view_html_foot(out);
	free(page.agents);
}

/* A file's name as a relative URL: every byte but [A-Za-z0-9._~-] as %XX, so that it names that file. */
static void url_path(struct sbuf *out, const char *name)
{
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("._~-", *c))
			sbuf_addch(out, (char)*c);
		else
			sbuf_addf(out, "%%%02X", *c);
}

void view_html_index(struct sbuf *out, const cJSON *rows)
{
	const cJSON *r;

	view_html_head(out, "Sessions");
	sbuf_addf(out, "<h1>Sessions</h1>\n");
	if (!cJSON_GetArraySize(rows)) {
		empty(out);
		view_html_foot(out);
		return;
	}
	sbuf_adds(out, "<div class=\"scroll\"><table id=\"sessions\">\n<tr><th>id</th><th>goal</th><th>status</th>"
		  "<th>updated</th></tr>\n");
	cJSON_ArrayForEach(r, rows) {
		char *name = view_html_file_name(json_str(r, "id") ? json_str(r, "id") : "");

		sbuf_adds(out, "<tr class=\"session\"><td>");
		if (json_bool(r, "written", 1)) {	/* a page not written is not linked */
			sbuf_adds(out, "<a href=\"");
			url_path(out, name);
			sbuf_adds(out, "\">");
		}
		view_html_escapes(out, json_str(r, "id"));
		sbuf_adds(out, json_bool(r, "written", 1) ? "</a></td><td>" : "</td><td>");
		view_html_escapes(out, json_str(r, "goal"));
		sbuf_adds(out, "</td><td data-field=\"status\">");
		view_html_escapes(out, json_str(r, "status"));
		sbuf_adds(out, "</td><td>");
		view_html_escapes(out, json_str(r, "updated"));
		sbuf_adds(out, "</td></tr>\n");
		free(name);
	}
	sbuf_adds(out, "</table></div>\n");
	view_html_foot(out);
}
