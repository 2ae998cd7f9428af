/*
 * format-internal.h - what the format files share: the table entry of a
 * format, the round-trip patch and helpers for mapping words and entries.
 * Not for other layers.
 */
#ifndef GIT_SESSION_FORMAT_INTERNAL_H
#define GIT_SESSION_FORMAT_INTERNAL_H

#include "git-session/format.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

struct format {
	enum format_id id;
	const char *name;
	/* Non-zero when a parsed document (as read from one file) is this format's. */
	int (*detect)(const cJSON *doc);
	/* Turns one file's text into the document as data. */
	int (*parse)(cJSON **doc, const char *buf, size_t len, char **err);
	/* The format's own defaults and migrations, in place; an error for what it refuses. */
	int (*upgrade)(cJSON *doc, char **err);
	/* doc -> state (a fresh object, filled), files, active. */
	int (*to_state)(cJSON *state, cJSON *files, int *active, const cJSON *doc, char **err);
	/* state -> doc. */
	cJSON *(*from_state)(const cJSON *state);
	/* doc (or one part of it) -> text. */
	int (*print)(char **out, size_t *len, const cJSON *doc, const char *part);
	/* The parts of the model its export writes, space separated (format_lost). */
	const char *holds;

	/* Where its sessions lie beyond one file each, and what reads those files; zeros for none. */
	struct format_layout layout;
	/* A pointer file's document: the file it names (format_pointer). */
	char *(*pointer)(const cJSON *doc);
	/* A registry's entries, an entry's folder, its document, a state's line (format_registry*). */
	const cJSON *(*registry)(const cJSON *doc);
	const char *(*registry_dir)(const cJSON *entry);
	int (*registry_doc)(cJSON **doc, const cJSON *entry, const cJSON *session, char **err);
	int (*registry_line)(char **out, const cJSON *state);
	/* Whether its export writes phase p (format_unplaced names the others); NULL: every phase. */
	int (*placed)(const cJSON *state, const cJSON *p);
	/* The files beside the session file the document holds (format_side_files). */
	cJSON *(*side_files)(const cJSON *doc);
};

#define GS_FORMAT_EXTERN(id, name, title) extern const struct format format_##name;
GS_FORMATS(GS_FORMAT_EXTERN)
#undef GS_FORMAT_EXTERN
/*
 * The table entry format_<name>, from the statics <name>_detect, ... of
 * src/format/<name>.c, then any of the members after holds, as designated
 * initialisers (.layout = ..., .pointer = ...).
 */
#define FORMAT_DEFINE(ID, nm, ...) \
	const struct format format_##nm = { .id = FORMAT_##ID, .name = #nm, .detect = nm##_detect, \
					    .parse = nm##_parse, .upgrade = nm##_upgrade, .to_state = nm##_to_state, \
					    .from_state = nm##_from_state, .print = nm##_print, .holds = nm##_holds, \
					    __VA_ARGS__ }

/*
 * The round-trip patch (format_patch.c): appends to patch the fixes that
 * turn exp into src; applies them to doc where doc still has what the
 * export had.
 */
void format_patch_diff(cJSON *patch, const cJSON *exp, const cJSON *src);
void format_patch_apply(cJSON *doc, const cJSON *patch);

/* Helpers for the format files (format_util.c). */

/* A pair of spellings: theirs (the format's) and ours (the model's). */
struct word { const char *theirs, *ours; };
/* ours for theirs (def when unknown), and back (ours itself when unknown). */
const char *fmt_word_in(const struct word *w, const char *theirs, const char *def);
const char *fmt_word_out(const struct word *w, const char *ours);

/* Moves src[key] (if present) to dst[as]. */
void fmt_take(cJSON *dst, const char *as, cJSON *src, const char *key);
/* Copies src[key] (if present) to dst[as]. */
void fmt_copy(cJSON *dst, const char *as, const cJSON *src, const char *key);
/* A fmt_copy of src[key], or null. */
cJSON *json_dup_or_null(const cJSON *src, const char *key);
/* Moves what is left in src into dst, keeping what dst has. */
void fmt_move_rest(cJSON *dst, cJSON *src);
/* Copies the keys of src that are not in skip (NULL-terminated) nor in dst. */
void fmt_copy_rest(cJSON *dst, const cJSON *src, const char *const *skip);
/* Puts what is left of a document's top level under extra.<name>, if anything. */
void fmt_rest_to_extra(cJSON *state, const char *name, cJSON *rest);
/* extra.<name>, or NULL. */
const cJSON *fmt_from_extra(const cJSON *state, const char *name);

/* The entries of list, each with keys first (null when missing), then its other keys; the caller owns it. */
cJSON *fmt_entries(const cJSON *list, const char *const *keys);
/* A model entry with every key of keys null; the caller owns it. */
cJSON *fmt_blank_entry(const char *const *keys);
/* Non-zero when v is an array whose entries are all objects (or all strings). */
int fmt_all_objects(const cJSON *v);
int fmt_all_strings(const cJSON *v);

/* json_parse, its complaint as "<line>: <what>" where the text stops being JSON. */
int fmt_parse_json(cJSON **doc, const char *buf, size_t len, char **err);
/* A JSON (or YAML) document that must be an object. */
int fmt_parse_object(cJSON **doc, const char *buf, size_t len, int yaml, char **err);
/* Text of a YAML or JSON value, for print. */
int fmt_print_json(char **out, size_t *len, const cJSON *v);
int fmt_print_yaml(char **out, size_t *len, const cJSON *v);

#endif
