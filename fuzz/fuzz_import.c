/*
 * fuzz_import.c - any bytes, read as one format's session file (FORMAT,
 * set when building): parsing and importing must refuse cleanly, and
 * what imports must export and print again.
 */
#include <stdint.h>
#include <stdlib.h>

#include "git-session/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct format *f = format_find(FORMAT);
	cJSON *doc = NULL, *state = NULL, *files = NULL, *out = NULL;
	char *err = NULL, *text = NULL;
	size_t len;
	int active;

	if (!f)
		abort();
	if (format_parse(&doc, &f, (const char *)data, size, &err) == 0 &&
	    format_import(&state, &files, &active, f, doc, NULL, 0, &err) == 0) {
		if (format_export(&out, f, state, &err) < 0 || format_print(&text, &len, f, out, NULL) < 0)
			abort();
	}
	free(err);
	free(text);
	cJSON_Delete(doc);
	cJSON_Delete(state);
	cJSON_Delete(files);
	cJSON_Delete(out);
	return 0;
}
