/*
 * output.h - what commands print: user text with control characters
 * escaped (no terminal escape injection), colour when wanted, relative
 * times and human figures. Pure formatting into buffers, plus the one
 * decision of whether stdout gets colour.
 */
#ifndef GIT_SESSION_OUTPUT_H
#define GIT_SESSION_OUTPUT_H

#include <stdio.h>
#include <time.h>

#include "git-session/util.h"

/* Appends s with C0, DEL and C1 control characters shown as ^X or \u0085. */
void out_escape(struct sbuf *sb, const char *s);
/* The columns s takes on a terminal, as the locale's wcwidth says; one per UTF-8 character it does not decode. */
size_t out_width(const char *s);
/*
 * Appends s escaped, on one line (its blanks run together, none at either
 * end), cut to cols columns: past them, to what fits before more ("...").
 */
void out_line_cut(struct sbuf *sb, const char *s, size_t cols, const char *more);
/* Writes s escaped to f. */
void out_text(FILE *f, const char *s);
/* The same on one line: newlines and tabs as spaces. */
void out_line(FILE *f, const char *s);

/* Colour: decided once by the command from --color/--no-color, NO_COLOR, config and isatty. */
struct out_color {
	int on;
};
const char *out_c(const struct out_color *c, const char *code);	/* "" when off */
#define C_RESET "\033[m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_BLUE "\033[34m"
#define C_CYAN "\033[36m"
#define C_DIM "\033[2m"

/* s with the paths under top (the work tree) shown from it, as the views show a tool's arguments; caller frees. */
char *out_paths_from(const char *s, const char *top);
/* Non-zero when the locale's character set is UTF-8 (main calls setlocale). */
int out_utf8(void);
/* The glyph for a status ("completed", "in_progress", ...): UTF-8 or ASCII. */
const char *out_mark(const char *status, int utf8);
/* The colour a status is shown in. */
const char *out_status_color(const char *status);

/* "3 minutes ago", "2 days ago", ...: the age of then at now. */
void out_relative_time(struct sbuf *sb, time_t then, time_t now);
/* "1h 24m", "2d 3h", "45s": a span, to two units. */
void out_duration(struct sbuf *sb, long secs);
/* "45.2k", "1.5M", "950". */
void out_human_count(struct sbuf *sb, double n);

#endif
