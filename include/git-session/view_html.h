/*
 * view_html.h - a session as one self-contained HTML page (command layer,
 * view_html*.c): no script, no request leaves it, every text from the
 * session escaped. What the page shows is gathered by cmd_html.c from the
 * same reports and transcripts the other views use.
 */
#ifndef GIT_SESSION_VIEW_HTML_H
#define GIT_SESSION_VIEW_HTML_H

#include <stddef.h>
#include <time.h>
#include <cjson/cJSON.h>

#include "git-session/util.h"

struct talks;

/*
 * len bytes of s as HTML text or attribute value: & < > " ' as entities,
 * a NUL, a byte that is not well-formed UTF-8 and a control character
 * other than tab, newline and carriage return as U+FFFD.
 */
void view_html_escape(struct sbuf *sb, const char *s, size_t len);
/* The same of a string; NULL writes nothing. */
void view_html_escapes(struct sbuf *sb, const char *s);
/*
 * prefix, then s with every byte outside [A-Za-z0-9._-] written as -XX
 * (two upper-case hex digits), and a '-' that two such digits follow too:
 * an id and a fragment that are the same on every run, need no escaping,
 * and of two texts are two.
 */
void view_html_anchor(struct sbuf *sb, const char *prefix, const char *s);

/* A point of the tokens chart: when (seconds since 1970) and the tokens used by then. */
struct view_html_point {
	double t, v;
	char commit[41];
	const char *agent;	/* NULL when not said */
	double added;
};

/*
 * Where t falls on an axis from t0 to t1 drawn from x0 to x1: clamped to
 * the axis; the middle when the span is empty.
 */
double view_html_scale(double t, double t0, double t1, double x0, double x1);

/* A mark the timeline draws besides the timeline report's: a prompt or a compaction. */
struct view_html_mark {
	double t;
	const char *kind;	/* "prompt", "compact" */
	const char *agent;	/* whose, or NULL */
};

/* What one page shows, gathered by the command. */
struct view_html_page {
	const cJSON *state;
	const char *commit;		/* the checkpoint the page is made from */
	const cJSON *timeline;		/* report_timeline() */
	const cJSON *tokens;		/* report_tokens() */
	const struct view_html_point *points;	/* the tokens after each checkpoint that added some, oldest first */
	size_t npoints;
	const struct view_html_mark *marks;
	size_t nmarks;
	const cJSON *who;		/* the people behind the checkpoints and the agents: an array of strings */
	const cJSON *messages;		/* commit id -> {"body": the message after its subject} */
	const cJSON *changes;		/* path -> [{commit, at, status, agent, diff, cut}] oldest first */
	const struct talks *talks;	/* the agents' conversations */
	const char *top;		/* the work tree, or NULL: paths under it shown from it */
	/* view_html_page()'s: the agents that have an article, sorted, for links that land */
	const char **agents;
	size_t nagents;
};

/* Whether the page has an article of agent id, and an entry of phase id: a link to them lands. */
int view_html_has_agent(const struct view_html_page *p, const char *id);
int view_html_has_phase(const struct view_html_page *p, int id);
/* The agent's id, or "phase <n>", linking its entry when the page has one. */
void view_html_agent_link(struct sbuf *out, const struct view_html_page *p, const char *id);
void view_html_phase_link(struct sbuf *out, const struct view_html_page *p, int id);

/* The page, appended to out. */
void view_html_page(struct sbuf *out, const struct view_html_page *p);

/* The SVG timeline of p (view_html_svg.c). */
void view_html_timeline_svg(struct sbuf *out, const struct view_html_page *p);
/* The SVG chart of p's tokens over time, and the table of the same numbers (view_html_svg.c). */
void view_html_tokens_chart(struct sbuf *out, const struct view_html_page *p);
/* The conversations (view_html_talk.c). */
void view_html_conversation(struct sbuf *out, const struct view_html_page *p);
/* The files and the diff of each recorded change (view_html_files.c). */
void view_html_files(struct sbuf *out, const struct view_html_page *p);

/*
 * The file a session's page is written to: its id with '/' and '%' as %2F
 * and %25, then ".html"; the first letter of an id "index" as %XX too,
 * that page not being the index. Caller frees.
 */
char *view_html_file_name(const char *id);
/*
 * The index of sessions: rows [{id, goal, status, updated}], each linking
 * view_html_file_name(id).
 */
void view_html_index(struct sbuf *out, const cJSON *rows);

/* The page's head: doctype, CSP, viewport, colour schemes, the style; then <body>. */
void view_html_head(struct sbuf *out, const char *title);
void view_html_foot(struct sbuf *out);

#endif
