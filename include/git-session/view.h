/*
 * view.h - rendering reports for a person (command layer): a view is the
 * colour and glyph choice and the buffer the text is built in.
 */
#ifndef GIT_SESSION_VIEW_H
#define GIT_SESSION_VIEW_H

#include <time.h>
#include <cjson/cJSON.h>

#include "git-session/cmd.h"
#include "git-session/output.h"
#include "git-session/report.h"

struct view {
	struct out_color color;
	int utf8;
	int width;	/* the columns a line may take: view_columns(0) */
	struct sbuf out;
};

/* Options every report takes. */
struct report_opts {
	int json, no_color;
	const char *color;
};
#define REPORT_OPTIONS(o) \
	{ OPT_BOOL, 0, "json", &(o).json, NULL, "print a JSON object (see doc/json.md)" }, \
	{ OPT_OPTARG, 0, "color", &(o).color, "<when>", "colour: always, never or auto" }, \
	{ OPT_BOOL, 0, "no-color", &(o).no_color, NULL, "no colour" }

int view_start(struct view *v, struct cmd_ctx *c, const struct report_opts *o);
/* given (when over 0, at most 1000), else COLUMNS, else the terminal's, else 80; at least 40. */
int view_columns(long long given);
/* Writes the text to stdout and frees it. */
void view_finish(struct view *v);
void view_print_json(const cJSON *obj);

/* The parts every drawing uses (view.c). */
const char *view_c(struct view *v, const char *code);	/* "" without colour */
void view_text(struct view *v, const char *s);		/* escaped */
void view_say(struct view *v, const char *prefix, const char *s, const char *suffix);
void view_mark(struct view *v, const char *status);
void view_status_word(struct sbuf *sb, const char *status);
void view_bar(struct view *v, int percent, int width);
/* A blank line, then title in bold: what a list below it is. */
void view_section(struct view *v, const char *title);

/* report_status()'s facts (view_status.c), and its parts resume reuses. */
void view_status(struct view *v, const cJSON *r, time_t now, int max_retries);
void view_header(struct view *v, const cJSON *r, time_t now);
void view_errors(struct view *v, const cJSON *r);
/* " (stale: no operation since ...)" after an agent or phase a report marks stale. */
void view_stale(struct view *v, const cJSON *e);
void view_phase(struct view *v, const cJSON *p, int max_retries);
/* " 3 " for a phase: its own key where it has one (a Copilot step 3_5 as "3.5"), else its number. */
void view_phase_label(struct view *v, const cJSON *p);
void view_decisions_summary(struct view *v, const cJSON *r);
/*
 * The agents of a session with no phases, sub-agents under their parent,
 * each with who ran it, its prompts, reply, files, commands and tokens;
 * then the session's files and commits.
 */
void view_agent_session(struct view *v, const cJSON *r);
/* Whether r is of a session with agents and no phases, which view_agent_session draws. */
int view_is_agent_session(const cJSON *r);
void view_next(struct view *v, const cJSON *r);

/* report_tokens()'s facts (view_tokens.c), and the one line status shows of them. */
void view_tokens(struct view *v, const cJSON *t);
void view_tokens_line(struct view *v, const cJSON *t);

/* report_diff()'s facts (view_diff.c). */
void view_diff(struct view *v, const cJSON *d);

/* report_resume()'s facts (view_resume.c), with diffs (path -> text, or NULL) after them. */
void view_resume(struct view *v, const cJSON *r, const cJSON *diffs, time_t now);

/* report_timeline()'s facts as bars along time, width columns wide (view_timeline.c). */
void view_timeline(struct view *v, const cJSON *t, int width);

#endif
