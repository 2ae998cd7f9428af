/*
 * output.c - safe, readable terminal text.
 */
#include "git-session/output.h"
#include "git-session/schema.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <langinfo.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

void out_escape(struct sbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 && *p != '\n' && *p != '\t') {
			sbuf_addch(sb, '^');
			sbuf_addch(sb, (char)(*p + '@'));
		} else if (*p == 0x7f) {
			sbuf_adds(sb, "^?");
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			sbuf_addf(sb, "\\u%04x", p[1]);	/* C1 controls, CSI among them */
			p++;
		} else {
			sbuf_addch(sb, (char)*p);
		}
	}
}

size_t out_width(const char *s)
{
	mbstate_t st;
	size_t n = 0;

	memset(&st, 0, sizeof(st));
	while (*s) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, strlen(s), &st);

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			/* not in the locale's encoding: a column per UTF-8 character */
			memset(&st, 0, sizeof(st));
			n += ((unsigned char)*s++ & 0xc0) != 0x80;
			continue;
		}
		n += wcwidth(wc) > 0 ? (size_t)wcwidth(wc) : 0;
		s += k;
	}
	return n;
}


void out_line_cut(struct sbuf *sb, const char *s, size_t cols, const char *more)
{
	struct sbuf esc = SBUF_INIT, line = SBUF_INIT;
	size_t room = cols > out_width(more) ? cols - out_width(more) : 0, n = 0, i;

	out_escape(&esc, s ? s : "");
	for (i = 0; i < esc.len; i++) {
		if (!strchr(" \t\n\r", esc.buf[i]))
			sbuf_addch(&line, esc.buf[i]);
		else if (line.len && line.buf[line.len - 1] != ' ')
			sbuf_addch(&line, ' ');	/* one line, its blanks run together */
	}
	while (line.len && line.buf[line.len - 1] == ' ')
		line.buf[--line.len] = '\0';
	if (!line.len) {
		/* nothing to say */
	} else if (out_width(line.buf) <= cols) {
		sbuf_add(sb, line.buf, line.len);
	} else {
		for (i = 0; i < line.len; i++)
			if (((unsigned char)line.buf[i] & 0xc0) != 0x80 && n++ == room)
				break;	/* cut before the character past the room */
		while (i && line.buf[i - 1] == ' ')
			i--;
		sbuf_add(sb, line.buf, i);
		sbuf_adds(sb, more);
	}
	sbuf_release(&esc);
	sbuf_release(&line);
}

void out_line(FILE *f, const char *s)
{
	struct sbuf sb = SBUF_INIT;

	out_escape(&sb, s ? s : "");
	for (size_t i = 0; i < sb.len; i++)
		if (sb.buf[i] == '\n' || sb.buf[i] == '\t')
			sb.buf[i] = ' ';	/* one line: a list keeps one entry a line */
	if (sb.len)
		fwrite(sb.buf, 1, sb.len, f);
	sbuf_release(&sb);
}

void out_text(FILE *f, const char *s)
{
	struct sbuf sb = SBUF_INIT;

	out_escape(&sb, s ? s : "");
	if (sb.len)
		fwrite(sb.buf, 1, sb.len, f);
	sbuf_release(&sb);
}

const char *out_c(const struct out_color *c, const char *code)
{
	return c && c->on ? code : "";
}

void out_relative_time(struct sbuf *sb, time_t then, time_t now)
{
	static const struct { long secs; const char *unit; } units[] = {
		{ 365L * 86400, "year" }, { 30L * 86400, "month" }, { 7L * 86400, "week" },
		{ 86400, "day" }, { 3600, "hour" }, { 60, "minute" }, { 1, "second" },
	};
	long d = (long)(now - then);

	if (d < 0) {
		sbuf_adds(sb, "in the future");
		return;
	}
	if (d < 1) {
		sbuf_adds(sb, "just now");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (d >= units[i].secs) {
			long n = d / units[i].secs;
			sbuf_addf(sb, "%ld %s%s ago", n, units[i].unit, n == 1 ? "" : "s");
			return;
		}
}

void out_duration(struct sbuf *sb, long secs)
{
	if (secs >= 86400)
		sbuf_addf(sb, "%ldd %ldh", secs / 86400, secs % 86400 / 3600);
	else if (secs >= 3600)
		sbuf_addf(sb, "%ldh %ldm", secs / 3600, secs % 3600 / 60);
	else if (secs >= 60)
		sbuf_addf(sb, "%ldm %lds", secs / 60, secs % 60);
	else
		sbuf_addf(sb, "%lds", secs < 0 ? 0 : secs);
}

void out_human_count(struct sbuf *sb, double n)
{
	if (n >= 1e6)
		sbuf_addf(sb, "%.1fM", n / 1e6);
	else if (n >= 1e3)
		sbuf_addf(sb, "%.1fk", n / 1e3);
	else
		sbuf_addf(sb, "%.0f", n);
	/* "150.0k" reads better as "150k" */
	if (sb->len >= 4 && !strncmp(sb->buf + sb->len - 3, ".0", 2)) {
		char unit = sb->buf[sb->len - 1];
		sb->len -= 3;
		sbuf_addch(sb, unit);
	}
}

int out_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static const struct {
	const char *status, *utf8, *ascii, *color;
} marks[] = {
	{ ST_COMPLETED, "\u2713", "[x]", C_GREEN },
	{ ST_IN_PROGRESS, "\u25cf", "[>]", C_CYAN },
	{ ST_FAILED, "\u2717", "[!]", C_RED },
	{ ST_ABORTED, "\u2717", "[!]", C_RED },
	{ ST_PENDING, "\u25a1", "[ ]", "" },
	{ ST_SKIPPED, "\u2013", "[-]", C_DIM },
	{ ST_PAUSED, "\u2016", "[=]", C_YELLOW },
};

const char *out_mark(const char *status, int utf8)
{
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (status && !strcmp(status, marks[i].status))
			return utf8 ? marks[i].utf8 : marks[i].ascii;
	return utf8 ? "?" : "[?]";
}

const char *out_status_color(const char *status)
{
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (status && !strcmp(status, marks[i].status))
			return marks[i].color;
	return "";
}

char *out_paths_from(const char *s, const char *top)
{
	size_t n = top ? strlen(top) : 0;
	struct sbuf sb = SBUF_INIT;

	while (n > 1 && top[n - 1] == '/')
		n--;

	for (const char *p = s; *p;) {
		const char *at = n > 1 ? memmem(p, strlen(p), top, n) : NULL;

		if (!at) {
			sbuf_adds(&sb, p);
			break;
		}
		sbuf_add(&sb, p, (size_t)(at - p));
		if (at[n] == '/')
			p = at + n + 1;		/* in the work tree: from its top */
		else
			sbuf_add(&sb, at, n), p = at + n;
	}
	return sb.buf ? sbuf_detach(&sb, NULL) : xstrdup("");
}
