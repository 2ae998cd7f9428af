/*
 * json.h - JSON in and out, on cJSON: a parser that refuses hostile input
 * before cJSON sees it, a stable pretty printer, and small accessors.
 * Pure: no I/O.
 */
#ifndef GIT_SESSION_JSON_H
#define GIT_SESSION_JSON_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define JSON_MAX_DEPTH 100
#define JSON_MAX_NUMBER 40	/* characters in one number literal */

/*
 * Parses len bytes of buf (which need not be NUL-terminated). Refuses
 * input over max bytes, nested deeper than JSON_MAX_DEPTH, with a number
 * literal over JSON_MAX_NUMBER characters, with invalid UTF-8 or a NUL,
 * or with a key twice in one object.
 * On error *err gets a message the caller frees; *out stays NULL.
 */
/*
 * Routes cJSON's allocations through xmalloc, which aborts when memory
 * runs out, as every other allocation does. Once, before any cJSON call.
 */
void json_global_init(void);

int json_parse(cJSON **out, const char *buf, size_t len, size_t max, char **err);

/*
 * The string values of the top-level keys wanted, read from the text of
 * a JSON object without building it, stopping once all are found: for
 * listing many sessions, whose session.json names these first. vals[i]
 * is NULL when keys[i] is absent or not a string; the caller frees each.
 * GS_ERROR when the text read is not a JSON object.
 */
int json_scan_top(char **vals, const char *buf, size_t len, const char *const *keys, size_t n);
/* How many members the JSON object buf holds, skimmed, not built; GS_ERROR when it is not one. */
int json_count_members(const char *buf, size_t len);
/*
 * Spans in JSON text, for editing a file in place: the index past the
 * blanks at b[i], and past the value at b[i] (0 when it does not scan;
 * a skim, not a validation).
 */
size_t json_skip_ws(const char *b, size_t i, size_t len);
size_t json_value_end(const char *b, size_t i, size_t len);
/* The index past the string that starts at b[i] (a '"'), or 0. */
size_t json_string_end(const char *b, size_t i, size_t len);
/*
 * The JSON string s[from..to) (its quotes included, checked by the parser)
 * decoded into sb, replacing what sb held; and len bytes appended as the
 * inside of a JSON string, every byte kept: only quotes, backslashes and
 * control characters escaped.
 */
struct sbuf;
void json_string_decode(struct sbuf *sb, const char *s, size_t from, size_t to);
void json_string_encode(struct sbuf *sb, const char *s, size_t len);

/*
 * Prints v as JSON: pretty (two-space indent, one key per line, trailing
 * newline; a nested object holding only scalars on one line, so that one
 * manifest entry or note is one line of a diff) or compact. Key order is the order of the object. The caller
 * frees the result.
 */
char *json_print(const cJSON *v, int pretty, size_t *len);
#define JSON_PRETTY 1
/* pretty as JavaScript's JSON.stringify(v, null, 2) writes it: every value on its own line */
#define JSON_PRETTY_JS 2

/*
 * Appends s's len bytes as text a JSON string can hold: each NUL, and
 * each byte that does not begin a well-formed UTF-8 character, becomes
 * U+FFFD (json_print writes any such byte of a string the same way).
 */
void json_add_text(struct sbuf *sb, const char *s, size_t len);

/* Accessors that tolerate NULL and wrong types. */
const char *json_str(const cJSON *obj, const char *key);
double json_num(const cJSON *obj, const char *key, double def);
int json_bool(const cJSON *obj, const char *key, int def);
/*
 * Whether a and b are the same JSON data (objects whatever the order of
 * their members): O(n log n) in their size.
 */
int json_equal(const cJSON *a, const cJSON *b);
/*
 * Whether v nests deeper than limit arrays and objects, as json_parse
 * counts them (an object of scalars is 1): what a reader would refuse.
 * Its recursion stops at limit.
 */
int json_depth_over(const cJSON *v, int limit);
/* obj's members sorted by key (the caller frees the array, not the members), and a lookup in it. */
const cJSON **json_members_sorted(const cJSON *obj, size_t *n);
const cJSON *json_member_find(const cJSON *const *sorted, size_t n, const char *key);
/* A copy of obj[key], or null when absent; the caller owns it. */
cJSON *json_dup_or_null(const cJSON *obj, const char *key);

/*
 * Stores val under key, replacing an existing member in place (so the
 * key keeps its position) or appending. Takes ownership of val.
 */
cJSON *json_set(cJSON *obj, const char *key, cJSON *val);
cJSON *json_set_str(cJSON *obj, const char *key, const char *s);	/* NULL stores null */
cJSON *json_set_num(cJSON *obj, const char *key, double n);
cJSON *json_set_bool(cJSON *obj, const char *key, int b);
/* Returns obj[key], creating an empty object or array there if absent. */
cJSON *json_obj(cJSON *obj, const char *key);
cJSON *json_arr(cJSON *obj, const char *key);

/* Non-zero when the number is an integer that a double holds exactly. */
int json_is_int(double d);
/*
 * d as json_print writes it: an integer whole, else the shortest of
 * %.15g..%.17g that reads back as d ("null" when not finite).
 */
void json_number_text(char *buf, size_t size, double d);
/*
 * Whether the number literal token[0..len) (JSON's syntax, a leading '+'
 * allowed) denotes exactly the decimal value json_number_text prints
 * for d, its parsed double: "1.0", "1e2", "0.5" yes; "0.1234567890123456789",
 * "9007199254740993.0", "-0", "1e-400" no. Sign of zero included.
 */
int json_number_exact(const char *token, size_t len, double d);

#endif
