/*
 * fuzz_trailer.c - any commit message: the trailer goes in once, and a
 * second pass finds it there.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/trailer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *msg = malloc(size + 1), *out = NULL, *twice = NULL;

	memcpy(msg, data, size);
	msg[size] = '\0';	/* git hands hooks text; a NUL ends it */
	if (trailer_add(&out, msg, "Session-Id", "s1", '#') == TRAILER_ADDED &&
	    trailer_add(&twice, out, "Session-Id", "s1", '#') != TRAILER_PRESENT)
		abort();
	free(out);
	free(twice);
	free(msg);
	return 0;
}
