/*
 * view_html_files.c - the page's files and the diff of each recorded
 * change. Each path the session recorded, how it stands, and its
 * changes, added and removed lines marked. Command layer.
 */
#include "git-session/view_html.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/* A unified diff, each line escaped, added and removed lines in their spans. */
static void diff(struct sbuf *out, const char *d)
{
	sbuf_adds(out, "<pre class=\"diff\">");
	for (const char *p = d; *p;) {
		size_t n = strcspn(p, "\n"), len = n + (p[n] == '\n');
		const char *cls = NULL;

		if (*p == '+' && strncmp(p, "+++ ", 4))
			cls = "add";
		else if (*p == '-' && strncmp(p, "--- ", 4))
			cls = "del";
		else if (!strncmp(p, "@@", 2))
			cls = "hunk";
		if (cls)
			sbuf_addf(out, "<span class=\"%s\">", cls);
		view_html_escape(out, p, len);
		if (cls)
			sbuf_adds(out, "</span>");
		p += len;
	}
	sbuf_adds(out, "</pre>\n");
}

static void change(struct sbuf *out, const struct view_html_page *p, const cJSON *c)
{
	const char *agent = json_str(c, "agent");

	sbuf_adds(out, "<div class=\"change\"><p class=\"dim\">");
	view_html_escapes(out, json_str(c, "status"));
	sbuf_adds(out, " at ");
	view_html_escapes(out, json_str(c, "at"));
	if (agent) {
		sbuf_adds(out, " by ");
		view_html_agent_link(out, p, agent);
	}
	sbuf_adds(out, ", checkpoint <code>");
	view_html_escapes(out, json_str(c, "commit"));
	sbuf_adds(out, "</code></p>\n");
	if (json_str(c, "diff"))
		diff(out, json_str(c, "diff"));
	if (json_str(c, "note")) {
		sbuf_adds(out, "<p class=\"dim\">");
		view_html_escapes(out, json_str(c, "note"));
		sbuf_adds(out, "</p>\n");
	}
	sbuf_adds(out, "</div>\n");
}

void view_html_files(struct sbuf *out, const struct view_html_page *p)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(p->state, "files"), *f, *c;
	size_t nsorted = 0;
	const cJSON **sorted = p->changes ? json_members_sorted(p->changes, &nsorted) : NULL;	/* a lookup a file */
	int n = 0;

	cJSON_ArrayForEach(f, files) {
		const cJSON *list = nsorted ? json_member_find(sorted, nsorted, f->string) : NULL;

		sbuf_adds(out, "<article class=\"file\" id=\"");
		view_html_anchor(out, "file-", f->string);
		sbuf_adds(out, "\">\n<h3>");
		view_html_escapes(out, f->string);
		sbuf_adds(out, "</h3>\n<p class=\"dim\" data-status=\"");
		view_html_escapes(out, json_str(f, "status"));
		sbuf_adds(out, "\">");
		view_html_escapes(out, json_str(f, "status"));
		if (json_str(f, "agent")) {
			sbuf_adds(out, " by ");
			view_html_agent_link(out, p, json_str(f, "agent"));
		}
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(f, "phase"))) {
			sbuf_adds(out, " in ");
			view_html_phase_link(out, p, (int)json_num(f, "phase", 0));
		}
		sbuf_adds(out, "</p>\n");
		cJSON_ArrayForEach(c, list)
			change(out, p, c);
		if (!cJSON_GetArraySize(list))
			sbuf_adds(out, "<p class=\"dim\">no recorded change in this checkpoint's history</p>\n");
		sbuf_adds(out, "</article>\n");
		n++;
	}
	if (!n)
		sbuf_adds(out, "<p class=\"empty\">none</p>\n");
	free(sorted);
}
