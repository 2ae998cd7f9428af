/*
 * transcript.c - an agent's transcript read as a conversation, line by
 * line, and the lines a stored part keeps. Each dialect reads its own
 * lines (agent_dialect.read_line, keeps_line) through the helpers here,
 * which bound what is kept.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/transcript.h"
#include "git-session/sha256.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void transcript_init(struct transcript *t, const struct agent_dialect *d)
{
	memset(t, 0, sizeof(*t));
	t->d = d;
}

static void item_free(struct transcript_item *it)
{
	free(it->text);
	free(it->name);
	free(it->body);
}

void transcript_clear(struct transcript *t)
{
	for (size_t i = 0; i < t->n; i++)
		item_free(&t->items[i]);
	free(t->items);
	memset(t, 0, sizeof(*t));
}

/* len bytes of s, at most max, cut at a character's start ("…" after a cut). */
static char *text_cut(const char *s, size_t len, size_t max)
{
	struct sbuf sb = SBUF_INIT;
	size_t n = len;

	if (n > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	json_add_text(&sb, s, n);
	if (n < len)
		sbuf_adds(&sb, "…");
	return sbuf_detach(&sb, NULL);
}

struct transcript_item *transcript_add(struct transcript *t, enum transcript_kind kind, const char *text,
				       size_t len)
{
	struct transcript_item *it;

	if (t->line_items >= TRANSCRIPT_ITEMS_PER_LINE)
		return NULL;
	t->line_items++;
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 64;
		t->items = xrealloc(t->items, t->alloc * sizeof(*t->items));
	}
	it = &t->items[t->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->turn = t->turn;
	it->part = t->part;
	it->line = t->line;
	it->exit = -1;
	it->text = text_cut(text ? text : "", text ? len : 0, TRANSCRIPT_TEXT_MAX);
	return it;
}

void transcript_prompt(struct transcript *t, const char *text, size_t len)
{
	if (!t->opened)
		t->turn++;
	t->opened = 0;
	transcript_add(t, TI_PROMPT, text, len);
}

void transcript_open_turn(struct transcript *t)
{
	if (!t->opened)
		t->turn++;
	t->opened = 1;
}

/* Whether the n bytes at s are all blanks. */
static int blank(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++, n--;
	return !n;
}

/* Lines a command's output wraps its own in, not worth showing first. */
static int wrapper_line(const char *s, size_t n)
{
	static const char *const noise[] = { "<untrusted_context>", "</untrusted_context>", "Process Group PGID:" };

	for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
		if (n >= strlen(noise[i]) && !memcmp(s, noise[i], strlen(noise[i])))
			return 1;
	return 0;
}

/* "Exit code 1" (Claude Code), "Exit Code: 1" (Gemini CLI): the status, or -1. */
static int exit_line(const char *s, size_t n)
{
	char buf[32];
	int v;

	if (n < 10 || n >= sizeof(buf) || strncasecmp(s, "exit code", 9))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (sscanf(buf + 9, ":%d", &v) == 1 || sscanf(buf + 9, "%d", &v) == 1)
		return v >= 0 && v < 256 ? v : -1;
	return -1;
}

void transcript_result(struct transcript *t, const char *name, const char *text, size_t len, int error)
{
	const char *first = NULL, *end = text + len;
	size_t first_len = 0, lines = 0;
	int status = -1;
	struct transcript_item *it;

	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int e;

		if ((e = exit_line(p, n)) >= 0 && status < 0)
			status = e;
		else if (!wrapper_line(p, n) && ++lines && !first && !blank(p, n))
			first = p, first_len = n;
		p += n + 1;
	}
	if (first && first_len > 8 && !strncmp(first, "Output: ", 8))
		first += 8, first_len -= 8;
	if (!(it = transcript_add(t, TI_RESULT, NULL, 0)))
		return;
	free(it->text);
	it->text = text_cut(first ? first : "", first_len, 200);	/* a line to show */
	it->name = name ? xstrdup(name) : NULL;
	it->body = text_cut(text, len, TRANSCRIPT_TEXT_MAX);
	it->error = error || status > 0;
	it->exit = status;
	it->lines = lines;
	it->bytes = len;
}

void transcript_usage(struct transcript *t, const char *id, double input, double output, double cached)
{
	struct transcript_item *it = NULL;

	if (id && !strcmp(t->usage_id, id) && t->usage_at < t->n && t->items[t->usage_at].kind == TI_USAGE)
		it = &t->items[t->usage_at];	/* the same message again: its last usage counts */
	else if ((it = transcript_add(t, TI_USAGE, NULL, 0)))
		t->usage_at = t->n - 1;
	if (!it)
		return;
	snprintf(t->usage_id, sizeof(t->usage_id), "%s", id ? id : "");
	it->input = input;
	it->output = output;
	it->cached = cached;
}

void transcript_message(struct transcript *t, const char *id)
{
	if (id && *t->msg_id && !strcmp(t->msg_id, id) && t->msg_first <= t->n) {
		while (t->n > t->msg_first)
			item_free(&t->items[--t->n]);
		t->turn = t->msg_turn;
		t->opened = 0;
	} else {
		snprintf(t->msg_id, sizeof(t->msg_id), "%s", id ? id : "");
		t->msg_first = t->n;
		t->msg_turn = t->turn;
	}
}

char *transcript_top_str(const char *line, size_t len, const char *key)
{
	char *v = NULL;

	if (json_scan_top(&v, line, len, &key, 1) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

int transcript_member_span(size_t *from, size_t *to, const char *line, size_t len, const char *key)
{
	size_t i = json_skip_ws(line, 0, len), klen = strlen(key), prev = 0;

	if (i >= len || line[i] != '{')
		return 0;
	for (i = json_skip_ws(line, i + 1, len); i < len && line[i] != '}';) {
		size_t k = i, kend = line[i] == '"' ? json_string_end(line, i, len) : 0, vend = 0, next;

		i = kend ? json_skip_ws(line, kend, len) : len;
		if (i < len && line[i] == ':')
			i = json_skip_ws(line, i + 1, len);
		if (i >= len || !(vend = json_value_end(line, i, len)))
			return 0;
		next = json_skip_ws(line, vend, len);
		if (next < len && line[next] == ',')
			next = json_skip_ws(line, next + 1, len);
		if (kend - k == klen + 2 && !memcmp(line + k + 1, key, klen)) {
			/* with the comma before it, or (the first member) after it */
			*from = prev ? prev : k;
			*to = prev || next >= len || line[next] == '}' ? vend : next;
			return 1;
		}
		prev = vend;
		i = next;
	}
	return 0;
}

/* --- the one-line summary of a call's arguments --- */

/* The first line of s, at most max bytes, "…" when there was more. */
static void add_one_line(struct sbuf *sb, const char *s, size_t max)
{
	size_t n = strcspn(s, "\n"), len = strlen(s);
	char *cut = text_cut(s, n, max);

	sbuf_adds(sb, cut);
	if (n < len && n <= max)
		sbuf_adds(sb, " …");
	free(cut);
}

char *transcript_args_summary(const cJSON *input)
{
	/* what names a call best, in that order */
	static const char *const keys[] = { "command", "file_path", "absolute_path", "notebook_path", "path",
		"pattern", "query", "url", "description", "prompt", "skill", "name" };
	struct sbuf sb = SBUF_INIT;
	const char *s = NULL, *type = json_str(input, "subagent_type");
	const cJSON *m;

	for (size_t i = 0; i < ARRAY_SIZE(keys) && !s; i++)
		s = json_str(input, keys[i]);
	cJSON_ArrayForEach(m, (cJSON_IsObject(input) ? input : NULL))
		if (!s && cJSON_IsString(m))
			s = m->valuestring;
	if (s)
		add_one_line(&sb, s, 160);
	if (type)
		sbuf_addf(&sb, " (%.60s)", type);
	return sbuf_detach(&sb, NULL);
}

/* --- reading lines --- */

/* More than max values in the JSON text s (counted from its separators and openings, strings' too). */
static int too_many_values(const char *s, size_t n, size_t max)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		if ((s[i] == ',' || s[i] == '[' || s[i] == '{') && ++count > max)
			return 1;
	return 0;
}

static void read_one(struct transcript *t, const char *line, size_t n)
{
	cJSON *v = NULL;
	char *err = NULL;

	t->line_items = 0;
	if (blank(line, n))
		return;		/* a blank line says nothing */
	if (n > TRANSCRIPT_LINE_MAX || too_many_values(line, n, TRANSCRIPT_LINE_VALUES) ||
	    json_parse(&v, line, n, TRANSCRIPT_LINE_MAX, &err) < 0 || !cJSON_IsObject(v)) {
		t->skipped++;
		if (t->unread && !v)
			transcript_add(t, TI_UNREAD, line, n);
	} else
		t->d->read_line(t, v);
	cJSON_Delete(v);
	free(err);
}

/* Whether text is one JSON document over many lines (a chat file written whole), not JSON lines. */
static int one_document(const char *text, size_t len)
{
	size_t i = json_skip_ws(text, 0, len);
	const char *nl = memchr(text + i, '\n', len - i);

	return i < len && text[i] == '{' && nl && json_value_end(text, i, len) > (size_t)(nl - text) &&
	       len <= TRANSCRIPT_LINE_MAX;
}

void transcript_read(struct transcript *t, const char *text, size_t len)
{
	const char *end = text + len;

	if (!t->d || !t->d->read_line)
		return;
	if (one_document(text, len)) {
		t->line = 1;
		read_one(t, text, len);
		return;
	}
	t->line = 0;
	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		t->line++;
		read_one(t, p, n);
		p += n + 1;
	}
}

void transcript_filter(char **out, size_t *outlen, const struct agent_dialect *d, const char *text, size_t len)
{
	struct sbuf sb = SBUF_INIT;
	const char *end = text + len;
	size_t dropped = 0;

	*out = NULL;
	*outlen = len;
	if (!d->keeps_line || one_document(text, len))
		return;		/* what is not JSON lines is kept as it is */
	for (const char *p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		size_t cut[2] = { 0, 0 };

		if (!d->keeps_line(p, nl ? n - 1 : n, cut)) {
			dropped++;
		} else if (cut[1] > cut[0] && cut[1] <= n) {
			sbuf_add(&sb, p, cut[0]);
			sbuf_add(&sb, p + cut[1], n - cut[1]);
			dropped++;
		} else {
			sbuf_add(&sb, p, n);
		}
		p += n;
	}
	if (!dropped) {
		sbuf_release(&sb);
		return;
	}
	*out = sbuf_detach(&sb, outlen);
}

void transcript_line_mark(char out[TRANSCRIPT_MARK_SZ], const char *line, size_t len)
{
	char hex[65];

	if (len && line[len - 1] == '\n')
		len--;
	sha256_hex(hex, line, len);
	memcpy(out, hex, TRANSCRIPT_MARK_SZ - 1);
	out[TRANSCRIPT_MARK_SZ - 1] = '\0';
}

void transcript_edge_marks(char head[TRANSCRIPT_MARK_SZ], char tail[TRANSCRIPT_MARK_SZ], const char *text,
			   size_t len)
{
	const char *nl = memchr(text, '\n', len), *last;

	*head = *tail = '\0';
	if (!nl)
		return;
	transcript_line_mark(head, text, (size_t)(nl - text));
	while (len && text[len - 1] != '\n')
		len--;	/* a line still being written is not read yet */
	for (last = text + len - 1; last > text && last[-1] != '\n'; last--)
		;
	transcript_line_mark(tail, last, (size_t)(text + len - last));
}

