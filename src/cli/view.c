/*
 * view.c - what every report's drawing uses: marks, bars, colour, escaped
 * text, section headers; the reports themselves are in view_<name>.c.
 * Command layer: prints, touches no git.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

const char *view_c(struct view *v, const char *code)
{
	return out_c(&v->color, code);
}

void view_text(struct view *v, const char *s)
{
	out_escape(&v->out, s ? s : "");
}

void view_print_json(const cJSON *obj)
{
	char *s = json_print(obj, 1, NULL);

	fputs(s, stdout);
	free(s);
}

void view_mark(struct view *v, const char *status)
{
	const char *color = view_c(v, out_status_color(status));

	sbuf_addf(&v->out, "%s%s%s", color, out_mark(status, v->utf8), *color ? C_RESET : "");
}

/* prefix, then s escaped, then suffix. */
void view_say(struct view *v, const char *prefix, const char *s, const char *suffix)
{
	sbuf_adds(&v->out, prefix);
	view_text(v, s);
	sbuf_adds(&v->out, suffix);
}

void view_status_word(struct sbuf *sb, const char *status)
{
	sbuf_adds(sb, !strcmp(status, ST_IN_PROGRESS) ? "in progress" : status);
}

void view_section(struct view *v, const char *title)
{
	sbuf_addf(&v->out, "\n%s%s%s\n", view_c(v, C_BOLD), title, view_c(v, C_RESET));
}

void view_bar(struct view *v, int percent, int width)
{
	int full = percent * width / 100;

	sbuf_addch(&v->out, '[');
	for (int i = 0; i < width; i++)
		sbuf_adds(&v->out, i < full ? (v->utf8 ? "\u2588" : "#") : (v->utf8 ? "\u2591" : "-"));
	sbuf_addch(&v->out, ']');
}

int view_columns(long long given)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	int w = given > 1000 ? 1000 : given < 0 ? 0 : (int)given;

	if (w <= 0 && cols && atoi(cols) > 0)
		w = atoi(cols);
	if (w <= 0 && isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	if (w <= 0)
		w = 80;
	return w < 40 ? 40 : w > 1000 ? 1000 : w;
}

int view_start(struct view *v, struct cmd_ctx *c, const struct report_opts *o)
{
	memset(v, 0, sizeof(*v));
	v->utf8 = out_utf8();
	v->width = view_columns(0);
	return cmd_color(&v->color.on, c, o->color, o->no_color);
}

void view_finish(struct view *v)
{
	fwrite(v->out.buf, 1, v->out.len, stdout);
	sbuf_release(&v->out);
}

