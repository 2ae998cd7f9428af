/*
 * sha256.h - SHA-256 of a buffer, as hex: the name an agent CLI gives a
 * project's folder (Gemini CLI's projectHash). Pure C, no I/O.
 */
#ifndef GIT_SESSION_SHA256_H
#define GIT_SESSION_SHA256_H

#include <stddef.h>

/* out gets the 64 hex digits of len bytes of buf's SHA-256, and a NUL. */
void sha256_hex(char out[65], const void *buf, size_t len);

#endif
