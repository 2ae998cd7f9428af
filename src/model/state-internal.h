/*
 * state-internal.h - what the files of the model share: the handler type
 * of the operation table and small helpers. Not for other layers.
 */
#ifndef GIT_SESSION_STATE_INTERNAL_H
#define GIT_SESSION_STATE_INTERNAL_H

#include "git-session/json.h"
#include "git-session/ops.h"
#include "git-session/state.h"
#include "git-session/util.h"

#define STATE_TEXT_MAX (1024 * 1024)	/* one note, message or summary */
#define STATE_MANIFEST_MAX 50000	/* files in one session's manifest */

/* What a handler gets: validate everything first, then change state. */
struct apply_ctx {
	cJSON *state;
	const cJSON *args;
	const char *at;
	const struct state_limits *lim;
	struct sbuf subject;
	char *err;
};

typedef int (*apply_fn)(struct apply_ctx *c);

/* Sets c->err and returns GS_ERROR. */
int state_fail(struct apply_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A required string argument of at most STATE_TEXT_MAX bytes, valid UTF-8. */
int state_arg_text(const char **out, struct apply_ctx *c, const char *key, int required);
/* Appends s to sb quoted and shortened to n characters, for subjects. */
void state_subject_quote(struct sbuf *sb, const char *s, size_t n);

/* The manifest shard of path: FNV-1a, low byte (state_split.c). */
unsigned state_shard(const char *path);
/* qsort's comparison of two cJSON items by key (->string). */
int state_cmp_key(const void *a, const void *b);
/* The first total of tokens that is not a whole number (sums of those could overflow), or NULL. */
const char *state_token_not_whole(const cJSON *tokens);

/* The phase an operation names by its number under key, which must exist; *out NULL when absent and not required. */
int state_arg_phase(cJSON **out, struct apply_ctx *c, const char *key, int required);
/*
 * The agent an operation names ("agent"), which must exist, or be named in
 * a phase's own list (its entry is then made); *out NULL when absent and
 * not required.
 */
int state_arg_agent(cJSON **out, struct apply_ctx *c, int required);
/* A prompt the user gave agent, as its hooks noted it: counted, the last kept (state_agent.c). */
void state_agent_prompt(cJSON *agent, const char *text, double at_ms);
/* The error type an operation gives ("type", one of schema.h's), def when absent. */
int state_arg_error_type(const char **out, struct apply_ctx *c, const char *def);
/* A new unresolved error in the session's list; agent and phase may be NULL. */
cJSON *state_new_error(struct apply_ctx *c, const char *type, const char *message,
		       const char *agent, const cJSON *phase);

/* The entries of the list of collection i, those loaded and those before them that were not. */
int state_size(struct apply_ctx *c, enum state_split_index i);
/* How many of the paths of files the manifest of state does not hold yet. */
int state_manifest_new(const cJSON *state, const cJSON *files);
/*
 * Records files (path -> {oid, status}) into the manifest; status, agent
 * and phase override what each entry says when given. Returns how many,
 * or GS_EPARTIAL when new paths come to a manifest not all counted.
 */
int state_record_files(struct apply_ctx *c, const cJSON *files, const char *status,
		       const char *agent, const cJSON *phase);

/*
 * One manifest entry as the path judge sees it: problem, when not NULL,
 * is what is already known to be wrong with it (state_path.c).
 */
struct state_path_entry {
	const char *path;
	const char *problem;
	unsigned deleted : 1, link : 1;
	unsigned fresh : 1;	/* recorded by the operation at hand */
	unsigned superseded : 1, below_link : 1;	/* set by state_paths_supersede */
};
/*
 * As git add replaces a file by a folder and back: marks superseded each
 * live entry of v (n entries) that a fresh live entry displaces, a file
 * or link above it or anything below it (below_link when a fresh link
 * is above it). GS_ERROR and *err (caller frees) when two fresh live
 * entries nest; 0 otherwise.
 */
int state_paths_supersede(char **err, struct state_path_entry *v, size_t n);
/*
 * The first of v (n entries) with a problem or below an entry that is a
 * file or a symbolic link (a deleted entry may stay below a file, not
 * below a link): GS_ERROR and *err "'<path>': <why>" (caller frees), else 0.
 */
int state_paths_check(char **err, const struct state_path_entry *v, size_t n);
/* Non-zero when s is an object id as a manifest holds one: 40 lower-case hex digits. */
int state_is_oid(const char *s);

/*
 * The handlers of ops.h's table, in state_session.c, state_files.c,
 * state_phase.c, state_agent.c, state_work.c and state_git.c.
 */
#define GS_OP_DECLARE(id, name, fn, flags, needs, tail) int fn(struct apply_ctx *c);
GS_OP_LIST(GS_OP_DECLARE)
#undef GS_OP_DECLARE

#endif
