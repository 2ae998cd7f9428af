/*
 * state.h - the session model: the state document (session.json), the
 * operations that change it, and the rules they obey. Pure C on cJSON:
 * no I/O, no git. See doc/json.md for the fields.
 *
 * An operation is a JSON object:
 *   {"op": "note", "at": "<ISO 8601 UTC>", "args": {...},
 *    "context": {"branch": "...", "head": "<oid>"}}
 * It carries everything apply() needs, time included, so replaying the
 * same operations on the same state always gives the same result.
 */
#ifndef GIT_SESSION_STATE_H
#define GIT_SESSION_STATE_H

#include <cjson/cJSON.h>

#define STATE_SCHEMA_VERSION "1.0"
#define STATE_ID_MAX 100
#define STATE_DEFAULT_BUDGET 150000
#define STATE_DEFAULT_MAX_RETRIES 2

/* Limits that apply() enforces on what users and agents put in. */
struct state_limits {
	int max_retries;	/* session.maxRetries */
};
#define STATE_LIMITS_INIT { STATE_DEFAULT_MAX_RETRIES }

/* A new operation {"op": name, "at": at, "args": {}}; the caller frees it. */
cJSON *op_new(const char *name, const char *at);
cJSON *op_args(const cJSON *op);
const char *op_name(const cJSON *op);

/*
 * Applies op to state in place. state is an empty object for
 * "session.start", else a normalised state. On success *subject gets the
 * checkpoint's one-line summary; on failure state is unchanged and *err
 * gets the reason. The caller frees both strings.
 */
int state_apply(cJSON *state, const cJSON *op, const struct state_limits *lim,
		char **subject, char **err);

/*
 * Checks a loaded document's shape and puts its known keys in schema
 * order, filling absent ones with defaults. Takes ownership of in; on
 * success *out is the normalised state, which the caller frees.
 */
int state_normalize(cJSON **out, cJSON *in, char **err);

/* 0 when id is a valid session id, else -1 with *err set (caller frees). */
int state_valid_id(const char *id, char **err);

/* Non-zero when path is a clean repository-relative path outside .git. */
int state_valid_path(const char *path);

/* Lower-case, hyphenated slug of topic (at most 60 chars); caller frees. */
char *state_slug(const char *topic);

/* The value under a dotted key of extra ("a.b.c"), or NULL. */
const cJSON *state_extra_get(const cJSON *state, const char *key);

/* The phase with this id, or the agent with this id, or NULL. */
cJSON *state_phase(const cJSON *state, int id);
cJSON *state_agent(const cJSON *state, const char *id);

/*
 * Tokens counted against the budget: input + output, less what ran in
 * isolated contexts ("saved", BMAD's savings). Cached tokens are input
 * served from a cache and do not count twice.
 */
double state_tokens_used(const cJSON *tokens);

/* Name of the transitions a phase in status `from` may make, for messages. */
const char *state_phase_moves(const char *from);

#endif
