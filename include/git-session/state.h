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
#include "git-session/ops.h"
#include "git-session/schema.h"
#include "git-session/util.h"

#define STATE_SCHEMA_VERSION "1.0"
#define STATE_ID_MAX 100
/* tokens.max of a session no one gave a budget: 0, no budget */
#define STATE_DEFAULT_BUDGET 0
#define STATE_DEFAULT_MAX_RETRIES 2
/* What a session holds at most of what a user can grow without end (files: STATE_MANIFEST_MAX). */
#define STATE_PHASES_MAX 1000		/* phases live in session.json, read by every operation */
#define STATE_AGENTS_MAX 50000
/* An agent's last prompt, last reply and commands keep this many bytes; it keeps its last commands. */
#define STATE_AGENT_TEXT_MAX 500
/* The latest time a session records in milliseconds: 9999-12-31T23:59:59.999Z. */
#define STATE_TIME_MS_MAX 253402300799999.0
#define STATE_AGENT_COMMANDS_KEPT 10

/* Limits that apply() enforces on what users and agents put in. */
struct state_limits {
	int max_retries;	/* session.maxRetries */
	int files_elsewhere;	/* manifest entries not loaded, counting against its limit; -1: not counted */
	int before[SPLIT_COUNT];	/* of a list loaded as its tail, the entries before it */
};
#define STATE_LIMITS_INIT { STATE_DEFAULT_MAX_RETRIES, 0 }

/*
 * An operation in flight: its JSON, as op.json stores it, and its row of
 * ops.h, found once where the operation is made (op_new) or read back
 * (op_parse) and carried from there: nothing after looks its name up.
 */
struct state_op {
	const struct op_info *info;	/* NULL for a name ops.h does not know */
	cJSON *json;
};

/* A new operation {"op": <its name>, "at": at, "args": {}}; free it with op_free. */
struct state_op *op_new(enum op_id id, const char *at);
/* Frees an operation op_new made, and its JSON. */
void op_free(struct state_op *op);
/*
 * json, an operation read back, as *out: its row by the name it gives,
 * the one lookup by name. out borrows json. GS_ENOTFOUND (info NULL) for
 * a name ops.h does not know, which state_apply refuses.
 */
int op_parse(struct state_op *out, cJSON *json);
cJSON *op_args(const struct state_op *op);
const char *op_name(const struct state_op *op);

/*
 * Applies op to state in place, with the handler of its row (one with
 * none, of a name ops.h does not know, is refused). state is an empty
 * object for OP_SESSION_START, else a normalised state. On success
 * *subject gets the checkpoint's one-line summary; on failure state is
 * unchanged and *err gets the reason. The caller frees both strings.
 */
int state_apply(cJSON *state, const struct state_op *op, const struct state_limits *lim,
		char **subject, char **err);

/*
 * Checks a loaded document's shape and puts its known keys in schema
 * order, filling absent ones with defaults. Takes ownership of in; on
 * success *out is the normalised state, which the caller frees.
 */
int state_normalize(cJSON **out, cJSON *in, char **err);

/*
 * The collections a large state keeps beside session.json: past
 * STATE_CHUNK entries a list moves to state/<key>/NNNNNN.json, chunks of
 * STATE_CHUNK entries in order, and the manifest to state/files/XX.json,
 * 256 shards by a hash of the path; session.json then says "state/<key>"
 * in its place. A checkpoint so writes the chunks that changed, not the
 * whole state, and an operation loads only the collections it reads.
 * Masks below have the bits of schema.h's GS_SPLIT_KEYS (NEED(NOTES), ...).
 */
#define STATE_CHUNK 256
/*
 * The chunks of a list kept with its tail in session.json are smaller, so
 * that the tail an append rewrites stays small; session.json records the
 * size ("chunk"), and one without is of STATE_CHUNK.
 */
#define STATE_LIST_CHUNK 64
extern const char *const state_split_keys[SPLIT_COUNT];

/* The bit of a collection kept apart when large (0 for any other key). */
unsigned state_split_bit(const char *key);
/* The collections op reads or writes (ops.h): STATE_ALL for an unknown one. */
unsigned state_op_needs(const struct state_op *op);
/* Of those, the lists op only appends to, which may be loaded as their tail (ops.h). */
unsigned state_op_tail(const struct state_op *op);
/* Of a manifest kept apart, the shards to parse, and whether the others were read to be counted. */
struct state_shards {
	unsigned char want[256];
	int count_rest;
};
/*
 * For an operation that reads and writes only the manifest entries of
 * the paths it names, the shards those live in; 0 when op is not one.
 */
int state_op_shards(struct state_shards *out, const struct state_op *op);

/* What of a state state_join loaded, for state_split. */
struct state_loaded {
	unsigned unloaded;		/* collections left out: empty placeholders */
	unsigned char shards[256];	/* the manifest's shards parsed, when partial */
	int partial;			/* only those shards of a kept-apart manifest */
	int files_elsewhere;		/* entries of the other shards; -1: not counted */
	unsigned tailed;		/* lists loaded as their last chunks only */
	unsigned first_chunk[SPLIT_COUNT];	/* of those, the number of the first chunk loaded */
	unsigned chunk[SPLIT_COUNT];		/* and the size of their chunks */
	int tail_size[SPLIT_COUNT];	/* and how many entries were loaded */
};

/*
 * Puts the parts read with session.json (raw, as parsed) back into it.
 * Collections raw keeps apart but in wanted are an error to find
 * without parts; those not in wanted become empty placeholders. Lists in
 * tail were read as their last chunks only, or none: they hold those
 * entries and the tail session.json keeps, and loaded says where they
 * start. With shards, of a
 * manifest kept apart only the shards wanted are parsed (they need not all
 * exist yet), and the others counted when they were read (count_rest),
 * else files_elsewhere is -1. *err (caller frees) says what is wrong with
 * a damaged checkpoint.
 */
int state_join(struct state_loaded *out, cJSON *raw, unsigned wanted, unsigned tail,
	       const struct state_shards *shards, const struct gs_part *parts, size_t n, char **err);
/* Parses session.json, joins its parts and normalises: what a reader of a checkpoint does. */
int state_load(cJSON **out, struct state_loaded *loaded, const char *text, size_t len, unsigned wanted,
	       unsigned tail, const struct state_shards *shards, const struct gs_part *parts, size_t n,
	       char **err);

/* The entries of a list kept apart not loaded ahead of its tail (0 when loaded whole). */
int state_tail_before(const struct state_loaded *loaded, enum state_split_index i);

/*
 * session.json's text for state (*core, caller frees) and the parts to
 * write or remove (*out, free with gs_parts_free), given the parts it
 * was loaded with (old) and what of them was loaded (NULL: all).
 * GS_EPARTIAL when the state reaches what was not loaded: the operation
 * needed it after all.
 */
int state_split(char **core, size_t *len, struct gs_part **out, size_t *nout, const cJSON *state,
		const struct state_loaded *loaded, const struct gs_part *old, size_t nold);

/* The fields of each kind of entry (schema.h), NULL-terminated. */
extern const char *const state_phase_fields[], *const state_agent_fields[], *const state_error_fields[],
	*const state_decision_fields[], *const state_task_fields[], *const state_artifact_fields[];

/* A new pending phase (name may be NULL): no agents, nothing blocking, no retries, the rest null; the caller owns it. */
cJSON *state_new_phase(int id, const char *name);

/* 0 when id is a valid session id, else -1 with *err set (caller frees). */
int state_valid_id(const char *id, char **err);

/*
 * Why git would not check out path (link: as a symbolic link), or NULL
 * when it would. git's rules with core.protectNTFS and core.protectHFS
 * on, on every platform: no empty, '.' or '..' component, not absolute,
 * no backslash, no control character, valid UTF-8, no component that is
 * .git in any spelling NTFS or HFS+ reads as .git (".GIT", ".git. ",
 * "git~1", ".git::$INDEX_ALLOCATION", ".g\u200cit"), and for a link no
 * component that is .gitmodules, .gitattributes, .gitignore or .mailmap
 * in any of those spellings.
 */
const char *state_path_problem(const char *path, int link);
/* Non-zero when state_path_problem finds nothing wrong with path. */
int state_valid_path(const char *path);

/*
 * Checks each entry of a manifest on its own, as the loader needs it:
 * what state_manifest_check says but the nesting, which a recording that
 * loads only part of a large manifest cannot see whole (restore checks
 * it). 0, or GS_ERROR and *err (caller frees) for the first bad entry.
 */
int state_manifest_entries_check(char **err, const cJSON *files);

/*
 * Checks a whole manifest (session.json's "files") as restore needs it:
 * every path valid, status created, modified or deleted,
 * oid (40 lower-case hex digits) on all but the deleted, mode "100644",
 * "100755" or "120000" when given, no entry below another that is a
 * file or a symbolic link (a deleted one may stay below a file). 0 when
 * it holds; else GS_ERROR and *err (caller frees) is "'<path>': <why>"
 * for the first bad path in manifest order. Linear in the manifest.
 */
int state_manifest_check(char **err, const cJSON *files);

/*
 * The slug of topic: its first words, lower-case ASCII (Latin-1 letters
 * without their accents), joined by '-', as many as fit in
 * STATE_SLUG_MAX characters; never a word cut, but for a first word
 * longer than that. "" when topic has no letter or digit; caller frees.
 */
#define STATE_SLUG_MAX 32
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
