/*
 * sha256.c - SHA-256 of a buffer as hex, by mbed TLS (libgit2's own
 * crypto library, here already).
 */
#include "git-session/sha256.h"

#include <mbedtls/sha256.h>
#include <stdio.h>

void sha256_hex(char out[65], const void *buf, size_t len)
{
	unsigned char h[32];

	mbedtls_sha256_ret(buf, len, h, 0);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}
