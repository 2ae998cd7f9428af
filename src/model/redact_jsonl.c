/*
 * redact_jsonl.c - secrets out of a transcript, JSON lines: a line that
 * is JSON is redacted string by string, each decoded first, so that
 * escapes hide nothing, a marker never splits one and the line still
 * parses; a string that is the value of a secret's name goes whole.
 * Other lines are free text (redact.c). Pure C, no I/O.
 */
#include "git-session/redact.h"
#include "git-session/json.h"
#include "git-session/util.h"
#include "redact-internal.h"

#include <stdlib.h>
#include <string.h>

/*
 * JSON text (whole, checked) into out, every string redacted as text,
 * keys included; a string that is the value of a secret's name
 * ("password": "...") goes whole. Everything else is kept byte for byte.
 */
static int redact_json_text(struct sbuf *out, const char *s, size_t len)
{
	struct sbuf raw = SBUF_INIT;
	size_t i = 0, copied = 0, end, n;
	enum name_kind name = NOT_SECRET;
	int found = 0, k;
	char *clean;

	while (i < len) {
		if (s[i] != '"') {
			size_t blank = json_skip_ws(s, i, len);

			if (blank == i && s[i] != ':')
				name = NOT_SECRET;
			i = blank > i ? blank : i + 1;
			continue;
		}
		end = json_string_end(s, i, len);
		json_string_decode(&raw, s, i, end);
		if ((k = redact_value(&clean, &n, raw.buf ? raw.buf : "", raw.len, name)) > 0) {
			sbuf_add(out, s + copied, i + 1 - copied);
			json_string_encode(out, clean, n);
			copied = end - 1;
			found += k;
			free(clean);
		}
		i = json_skip_ws(s, end, len);
		name = i < len && s[i] == ':' ? redact_key_kind(raw.buf ? raw.buf : "", raw.len) : NOT_SECRET;
	}
	sbuf_add(out, s + copied, len - copied);
	sbuf_release(&raw);
	return found;
}

/* s[0..len) is one JSON value (with blanks around it) */
static int is_json(const char *s, size_t len)
{
	const char *end = NULL;
	cJSON *v;

	if (!len)
		return 0;
	v = cJSON_ParseWithLengthOpts(s, len, &end, 0);
	if (!v)
		return 0;
	cJSON_Delete(v);
	return json_skip_ws(s, (size_t)(end - s), len) == len;	/* JSON's blanks, no others */
}

/* one line, JSON or not, into out */
static int redact_line(struct sbuf *out, const char *s, size_t len)
{
	char *clean;
	size_t n;
	int found;

	if (is_json(s, len))
		return redact_json_text(out, s, len);
	if ((found = redact_text(&clean, &n, s, len)) > 0) {
		sbuf_add(out, clean, n);
		free(clean);
	} else {
		sbuf_add(out, s, len);
	}
	return found;
}

int redact_jsonl(char **out, size_t *outlen, const char *s, size_t len)
{
	struct sbuf sb = SBUF_INIT;
	const char *nl = memchr(s, '\n', len);
	int found = 0;

	*out = NULL;
	*outlen = 0;
	if (nl && nl + 1 < s + len && is_json(s, len)) {
		found = redact_json_text(&sb, s, len);	/* one document over many lines */
	} else {
		for (size_t i = 0; i < len;) {
			size_t n = (nl = memchr(s + i, '\n', len - i)) ? (size_t)(nl - s) - i : len - i;
			found += redact_line(&sb, s + i, n);
			if (nl)
				sbuf_addch(&sb, '\n');
			i += n + 1;
		}
	}
	if (!found) {
		sbuf_release(&sb);
		return 0;
	}
	*out = sbuf_detach(&sb, outlen);
	return found;
}
