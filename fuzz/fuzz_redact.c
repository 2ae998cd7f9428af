/*
 * fuzz_redact.c - any bytes through the redactor, as text and as a
 * transcript: no crash, and every line that parses as JSON still parses
 * after (or the whole text, when it is one JSON document).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "git-session/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parses(const char *s, size_t len)
{
	const char *end = NULL;
	cJSON *v = len ? cJSON_ParseWithLengthOpts(s, len, &end, 0) : NULL;

	if (!v)
		return 0;
	cJSON_Delete(v);
	while (end < s + len && strchr(" \t\r\n", *end) && *end)
		end++;
	return end == s + len;
}

static size_t lines(const char *s, size_t len)
{
	size_t n = 0;

	for (const char *p = s; (p = memchr(p, '\n', len - (size_t)(p - s))); p++)
		n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	const char *nl = memchr(in, '\n', size);
	char *out = NULL;
	size_t len = 0, i = 0, o = 0, a, b;

	if (redact_text(&out, &len, in, size) > 0 && (!out || strlen(out) > len))
		abort();
	free(out);
	out = NULL;
	if (redact_jsonl(&out, &len, in, size) <= 0) {
		if (out)
			abort();
		return 0;
	}
	if (nl && nl + 1 < in + size && parses(in, size)) {
		if (!parses(out, len))
			abort();
	} else {
		/* line by line: as many lines, and each that parsed parses */
		if (lines(in, size) != lines(out, len))
			abort();
		while (i <= size) {
			const char *x = in + i, *y = out + o;
			const char *xe = memchr(x, '\n', size - i), *ye = memchr(y, '\n', len - o);
			a = xe ? (size_t)(xe - x) : size - i;
			b = ye ? (size_t)(ye - y) : len - o;
			if (parses(x, a) && !parses(y, b))
				abort();
			i += a + 1;
			o += b + 1;
		}
	}
	free(out);
	return 0;
}
