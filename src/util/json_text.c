/*
 * json_text.c - JSON text read without parsing it: blanks, where a string
 * or a value ends, a string's escapes decoded and written, and the members
 * of the top-level object found by name. For text too large to parse
 * whole, and for transcripts kept byte for byte. Pure: no I/O.
 */
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

size_t json_skip_ws(const char *b, size_t i, size_t len)
{
	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	return i;
}

static unsigned hex4(const char *s)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++)
		v = v * 16 + (unsigned)(s[k] >= '0' && s[k] <= '9' ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
	return v;
}

static void add_utf8(struct sbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
	}
	sbuf_add(sb, b, n);
}

void json_string_decode(struct sbuf *sb, const char *s, size_t from, size_t to)
{
	size_t i = from + 1, end = to - 1;

	sbuf_reset(sb);
	while (i < end) {
		const char *bs = memchr(s + i, '\\', end - i);
		size_t plain = bs ? (size_t)(bs - s) - i : end - i;
		unsigned cp;

		sbuf_add(sb, s + i, plain);
		if ((i += plain) >= end)
			break;
		switch (s[i + 1]) {
		case 'b': sbuf_addch(sb, '\b'); break;
		case 'f': sbuf_addch(sb, '\f'); break;
		case 'n': sbuf_addch(sb, '\n'); break;
		case 'r': sbuf_addch(sb, '\r'); break;
		case 't': sbuf_addch(sb, '\t'); break;
		case 'u':
			cp = hex4(s + i + 2);
			if (cp >= 0xD800 && cp < 0xDC00 && i + 12 <= end && s[i + 6] == '\\' && s[i + 7] == 'u') {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(s + i + 8) - 0xDC00);
				i += 6;
			}
			add_utf8(sb, cp);
			i += 4;
			break;
		default: sbuf_addch(sb, s[i + 1]);	/* " \ / */
		}
		i += 2;
	}
}

void json_string_encode(struct sbuf *sb, const char *s, size_t len)
{
	size_t from = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" :
				  c == '\t' ? "\\t" : NULL;

		if (!esc && c >= 0x20)
			continue;
		sbuf_add(sb, s + from, i - from);
		if (esc)
			sbuf_adds(sb, esc);
		else
			sbuf_addf(sb, "\\u%04x", c);
		from = i + 1;
	}
	sbuf_add(sb, s + from, len - from);
}

/* The index just past the string starting at b[i] (a '"'), or 0. */
size_t json_string_end(const char *b, size_t i, size_t len)
{
	for (i++; i < len; i++)
		if (b[i] == '\\')
			i++;
		else if (b[i] == '"')
			return i + 1;
	return 0;
}

/* The index just past the value at b[i], or 0: a skim, not a validation. */
size_t json_value_end(const char *b, size_t i, size_t len)
{
	int depth = 0;

	for (; i < len; i++) {
		char c = b[i];

		if (c == '"') {
			size_t end = json_string_end(b, i, len);

			if (!end || !depth)
				return end;
			i = end - 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (!depth)
				return i;
			if (!--depth)
				return i + 1;
		} else if (!depth && strchr(", \t\r\n", c)) {
			return i;
		}
	}
	return 0;
}

/* The string token b[from..to) unescaped, or NULL when it is not one. */
static char *string_token(const char *b, size_t from, size_t to)
{
	cJSON *v = b[from] == '"' ? cJSON_ParseWithLength(b + from, to - from) : NULL;
	char *s = cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;

	cJSON_Delete(v);
	return s;
}

int json_count_members(const char *buf, size_t len)
{
	size_t i = json_skip_ws(buf, 0, len);
	int n = 0;

	if (i >= len || buf[i] != '{')
		return GS_ERROR;
	for (i = json_skip_ws(buf, i + 1, len); i < len && buf[i] != '}'; n++) {
		size_t kend = buf[i] == '"' ? json_string_end(buf, i, len) : 0, vend;

		i = kend ? json_skip_ws(buf, kend, len) : len;
		if (i >= len || buf[i] != ':' || !(vend = json_value_end(buf, json_skip_ws(buf, i + 1, len), len)))
			return GS_ERROR;
		i = json_skip_ws(buf, vend, len);
		if (i < len && buf[i] == ',')
			i = json_skip_ws(buf, i + 1, len);
		else if (i >= len || buf[i] != '}')
			return GS_ERROR;
	}
	return i < len ? n : GS_ERROR;
}

int json_scan_top(char **vals, const char *buf, size_t len, const char *const *keys, size_t n)
{
	size_t i = json_skip_ws(buf, 0, len), found = 0;

	memset(vals, 0, n * sizeof(*vals));
	if (i >= len || buf[i] != '{')
		return GS_ERROR;
	for (i = json_skip_ws(buf, i + 1, len); i < len && buf[i] != '}' && found < n;) {
		size_t kend = buf[i] == '"' ? json_string_end(buf, i, len) : 0, vstart, vend;
		char *key = kend ? string_token(buf, i, kend) : NULL;

		i = kend ? json_skip_ws(buf, kend, len) : len;
		vstart = i < len && buf[i] == ':' ? json_skip_ws(buf, i + 1, len) : len;
		vend = vstart < len ? json_value_end(buf, vstart, len) : 0;
		if (!key || !vend) {
			free(key);
			return GS_ERROR;
		}
		for (size_t k = 0; k < n; k++)
			if (!vals[k] && !strcmp(key, keys[k])) {
				vals[k] = string_token(buf, vstart, vend);
				found++;
			}
		free(key);
		i = json_skip_ws(buf, vend, len);
		if (i < len && buf[i] == ',')
			i = json_skip_ws(buf, i + 1, len);
		else if (i >= len || buf[i] != '}')
			return GS_ERROR;
	}
	return i < len ? 0 : GS_ERROR;
}
