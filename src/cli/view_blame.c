/*
 * view_blame.c - `git session blame` printed: columns, porcelain or JSON.
 * Columns for people are git blame's, each as wide as its widest value,
 * and a column no line fills left out; --porcelain is for programs, as
 * git blame --line-porcelain (a header and keys a line, then the line
 * after a TAB); --json an array.
 */
#include "blame-internal.h"

#include "git-session/json.h"
#include "git-session/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A line's bytes as git blame prints them, NULs and tabs included; terminal controls made visible. */
static void print_text(const struct blame_line *l)
{
	for (const char *p = l->text, *end = p + l->len; p <= end; p += strlen(p) + 1) {
		out_text(stdout, p);
		if (p + strlen(p) < end)
			putchar('\0');
	}
}

static const char *const date_names[] = { "short", "iso", "iso-strict", "relative", "unix", "raw" };

int blame_date_mode(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(date_names); i++)
		if (!strcmp(name, date_names[i]))
			return (int)i;
	return -1;
}

/* The author's time as mode says, in the author's zone as git shows it. Caller frees. */
static char *format_date(const struct blame_person *p, enum blame_date mode)
{
	int sign = p->tz[0] == '-' ? -1 : 1;
	int hh = p->tz[0] ? (p->tz[1] - '0') * 10 + (p->tz[2] - '0') : 0;
	int mm = p->tz[0] ? (p->tz[3] - '0') * 10 + (p->tz[4] - '0') : 0;
	time_t t = (time_t)p->time + sign * (hh * 3600 + mm * 60);
	struct sbuf sb = SBUF_INIT;
	struct tm tm;
	char buf[64];

	if (mode == DATE_UNIX || mode == DATE_RAW) {
		sbuf_addf(&sb, "%lld", p->time);
		if (mode == DATE_RAW)
			sbuf_addf(&sb, " %c%02d%02d", sign < 0 ? '-' : '+', hh, mm);
	} else if (mode == DATE_RELATIVE) {
		out_relative_time(&sb, (time_t)p->time, time(NULL));
	} else if (!gmtime_r(&t, &tm) ||
		   !strftime(buf, sizeof(buf), mode == DATE_SHORT ? "%Y-%m-%d" : mode == DATE_ISO ?
			     "%Y-%m-%d %H:%M:%S" : "%Y-%m-%dT%H:%M:%S", &tm)) {
		sbuf_adds(&sb, "-");
	} else {
		sbuf_adds(&sb, buf);
		if (mode == DATE_ISO)
			sbuf_addf(&sb, " %c%02d%02d", sign < 0 ? '-' : '+', hh, mm);
		else if (mode == DATE_ISO_STRICT)
			sbuf_addf(&sb, "%c%02d:%02d", sign < 0 ? '-' : '+', hh, mm);
	}
	return sbuf_detach(&sb, NULL);
}

/* A value for a column: escaped, "-" when there is none. Caller frees. */
static char *shown(const char *s)
{
	struct sbuf sb = SBUF_INIT;

	out_escape(&sb, s && *s ? s : "-");
	return sbuf_detach(&sb, NULL);
}

enum { COL_CHECKPOINT, COL_SESSION, COL_AGENT, COL_PHASE, COL_AUTHOR, COL_DATE, COL_N };

/* The columns of a line for people, each allocated (caller frees). */
static void line_columns(char *col[COL_N], const struct blame_line *l, enum blame_date date)
{
	const struct blame_who *w = l->who;

	col[COL_CHECKPOINT] = w->checkpoint[0] ? xstrndup(w->checkpoint, 8) : xstrdup("-");
	col[COL_SESSION] = shown(w->session);
	col[COL_AGENT] = shown(w->agent);
	col[COL_PHASE] = shown(w->phase);
	col[COL_AUTHOR] = shown(w->author.name);
	col[COL_DATE] = format_date(&w->author, date);
}

static void print_human(const struct blame *b, enum blame_date date)
{
	size_t width[COL_N] = { 0 }, numw = 1;
	int used[COL_N] = { 0 };

	used[COL_AUTHOR] = used[COL_DATE] = 1;
	for (size_t i = 0; i < b->n; i++) {
		char *col[COL_N];

		line_columns(col, &b->lines[i], date);
		for (int k = 0; k < COL_N; k++) {
			size_t w = out_width(col[k]);

			if (w > width[k])
				width[k] = w;
			used[k] |= strcmp(col[k], "-") != 0;
			free(col[k]);
		}
		if ((size_t)snprintf(NULL, 0, "%zu", b->lines[i].final) > numw)
			numw = (size_t)snprintf(NULL, 0, "%zu", b->lines[i].final);
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct blame_line *l = &b->lines[i];
		char *col[COL_N];

		line_columns(col, l, date);
		printf("%.8s ", l->commit);
		if (used[COL_CHECKPOINT])
			printf("%-8s ", col[COL_CHECKPOINT]);
		putchar('(');
		for (int k = COL_SESSION; k <= COL_DATE; k++)
			if (used[k])
				printf("%s%*s ", col[k], (int)(width[k] - out_width(col[k])), "");
		printf("%*zu) ", (int)numw, l->final);
		print_text(l);
		putchar('\n');
		for (int k = 0; k < COL_N; k++)
			free(col[k]);
	}
}

/* "key value" on a line of its own; the value escaped, with no newline or TAB. */
static void print_key(const char *key, const char *value)
{
	printf("%s ", key);
	out_line(stdout, value ? value : "");
	putchar('\n');
}

static void print_porcelain(const struct blame *b)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct blame_line *l = &b->lines[i];
		const struct blame_who *w = l->who;

		printf("%s %zu %zu\n", w->checkpoint[0] ? w->checkpoint : l->commit, l->orig, l->final);
		print_key("commit", l->commit);
		print_key("session", w->session);
		print_key("agent", w->agent);
		print_key("author", w->author.name);
		printf("author-mail <");
		out_line(stdout, w->author.mail ? w->author.mail : "");
		printf(">\nauthor-time %lld\nauthor-tz %s\n", w->author.time, w->author.tz[0] ? w->author.tz : "+0000");
		print_key("phase", w->phase);
		print_key("filename", w->filename ? w->filename : b->path);
		putchar('\t');
		print_text(l);
		putchar('\n');
	}
}

static void print_json(const struct blame *b)
{
	cJSON *arr = cJSON_CreateArray();
	char *text;

	for (size_t i = 0; i < b->n; i++) {
		const struct blame_line *l = &b->lines[i];
		const struct blame_who *w = l->who;
		cJSON *o = cJSON_CreateObject();
		struct sbuf sb = SBUF_INIT;
		char *date = format_date(&w->author, DATE_ISO_STRICT);

		json_set_num(o, "line", (double)l->final);
		json_set_str(o, "commit", strcmp(l->commit, NOT_COMMITTED) ? l->commit : NULL);
		json_set_str(o, "checkpoint", w->checkpoint[0] ? w->checkpoint : NULL);
		json_set_str(o, "session", w->session);
		json_set_str(o, "agent", w->agent);
		json_set_str(o, "phase", w->phase);
		json_set_str(o, "author", w->author.name);
		json_set_str(o, "author_mail", w->author.mail);
		json_set_str(o, "date", date);
		free(date);
		json_add_text(&sb, l->text, l->len);	/* a NUL as U+FFFD: JSON text holds none */
		json_set_str(o, "text", sb.buf ? sb.buf : "");
		sbuf_release(&sb);
		cJSON_AddItemToArray(arr, o);
	}
	text = json_print(arr, 1, NULL);
	fputs(text, stdout);
	free(text);
	cJSON_Delete(arr);
}

void blame_print(const struct blame *b, enum blame_format format, enum blame_date date)
{
	if (format == BLAME_JSON)
		print_json(b);
	else if (format == BLAME_PORCELAIN)
		print_porcelain(b);
	else
		print_human(b, date);
}
