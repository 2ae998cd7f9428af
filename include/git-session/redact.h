/*
 * redact.h - secrets out of free text before it is stored: prompts,
 * notes, transcripts and every text argument of an operation. A secret
 * becomes "[REDACTED:<kind>]", so that what git holds (and push sends)
 * never has it. Pure C, no I/O.
 */
#ifndef GIT_SESSION_REDACT_H
#define GIT_SESSION_REDACT_H

#include <stddef.h>
#include <cjson/cJSON.h>

/*
 * The kinds found, as they appear in the marker: private-key (PEM and
 * PGP blocks), aws-key, github-token, gitlab-token, npm-token,
 * slack-token, google-api-key, api-key (Anthropic, OpenAI, Stripe),
 * django-secret-key, jwt, url-password, password (the value a name
 * marks: `password=`, `"api_key": "..."`, a long random `*_KEY=`,
 * `Authorization: Bearer ...`, `curl -u user:...`, `mysql -p...`: the
 * name stays, the value goes) and high-entropy (a long run of letters
 * and digits that looks random).
 */

/*
 * The text with every secret replaced, in *out (NUL-terminated, *outlen
 * bytes; the caller frees it). Returns how many were replaced; with 0,
 * *out is NULL and the text is to be kept as it is.
 */
int redact_text(char **out, size_t *outlen, const char *text, size_t len);

/* Redacts every string value below v (object keys are left), in place; returns how many. */
int redact_json(cJSON *v);

/*
 * redact_text() for a transcript: each line that is JSON (or the whole
 * text, when it is one JSON document) has its strings decoded, redacted
 * and encoded again, so escapes hide nothing and a line that parsed
 * still parses; other lines are redacted as text.
 */
int redact_jsonl(char **out, size_t *outlen, const char *text, size_t len);

#endif
