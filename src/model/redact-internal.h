/*
 * redact-internal.h - what redact.c (free text) gives redact_jsonl.c
 * (transcripts' JSON): the values that a name marks as secret. Not for
 * other files.
 */
#ifndef GIT_SESSION_REDACT_INTERNAL_H
#define GIT_SESSION_REDACT_INTERNAL_H

#include <stddef.h>

/* What a name says of its value: none, any value is a secret, a long random one is. */
enum name_kind { NOT_SECRET, ANY_VALUE, LONG_VALUE };

/* A key whose string value is a secret: a secret's name, or a header that carries one. */
enum name_kind redact_key_kind(const char *key, size_t n);
/*
 * s[0..len), the value of a name of kind name, redacted into *clean (*n
 * bytes): whole when the name marks it, else as text. As redact_text returns.
 */
int redact_value(char **clean, size_t *n, const char *s, size_t len, enum name_kind name);

#endif
