/*
 * fuzz_list_cache.c - whatever bytes $GIT_DIR/session-list-cache holds:
 * refused whole, or read, written again and read back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/list_cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct list_cache c, back;
	char *text, *again;
	size_t len, len2;

	if (list_cache_parse(&c, (const char *)data, size) < 0)
		return 0;
	text = list_cache_format(&c, &len);
	if (list_cache_parse(&back, text, len) < 0 || back.n != c.n)
		abort();
	again = list_cache_format(&back, &len2);
	if (len != len2 || memcmp(text, again, len))
		abort();	/* what it writes, it reads back as it was */
	for (size_t i = 0; i < c.n; i++)
		if (list_cache_find(&back, c.v[i].commit) == NULL)
			abort();
	free(text);
	free(again);
	list_cache_clear(&c);
	list_cache_clear(&back);
	return 0;
}
