/*
 * state.c - the session document: session.json's shape and schema order
 * (state_normalize), and the rules for session ids and slugs. Pure: no
 * I/O, no git.
 */
#include "state-internal.h"

#include <stdlib.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The order keys take in session.json (schema.h); see doc/json.md. */
enum key_kind { KIND_TEXT, KIND_LIST, KIND_OBJECT, KIND_SPECIAL };
static const struct {
	const char *key;
	enum key_kind kind;
} schema_keys[] = {
#define GS_SCHEMA_ROW(key, kind) { #key, KIND_##kind },
	GS_STATE_KEYS(GS_SCHEMA_ROW)
#undef GS_SCHEMA_ROW
};
static const char *const token_keys[] = {
#define GS_TOKEN_ROW(key) #key,
	GS_TOKEN_KEYS(GS_TOKEN_ROW)
#undef GS_TOKEN_ROW
};

/* The value a key takes when absent: NULL for tokens, built by normalize_tokens. */
static cJSON *default_for(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(schema_keys); i++) {
		if (strcmp(key, schema_keys[i].key))
			continue;
		if (schema_keys[i].kind == KIND_LIST)
			return cJSON_CreateArray();
		if (schema_keys[i].kind == KIND_OBJECT)
			return cJSON_CreateObject();
		break;
	}
	if (!strcmp(key, "tokens"))
		return NULL;
	if (!strcmp(key, "schema_version"))
		return cJSON_CreateString(STATE_SCHEMA_VERSION);
	if (!strcmp(key, "status"))
		return cJSON_CreateString(ST_IN_PROGRESS);
	return cJSON_CreateNull();
}

const char *state_token_not_whole(const cJSON *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(token_keys); i++)
		if (!json_is_int(json_num(t, token_keys[i], 0)))
			return token_keys[i];
	return NULL;
}

/* Every token field is a number; max defaults to the budget. */
static cJSON *normalize_tokens(cJSON *in)
{
	cJSON *t = cJSON_CreateObject(), *by;

	for (size_t i = 0; i < ARRAY_SIZE(token_keys); i++) {
		double def = strcmp(token_keys[i], "max") ? 0 : STATE_DEFAULT_BUDGET;
		json_set_num(t, token_keys[i], json_num(in, token_keys[i], def));
	}
	by = in ? cJSON_DetachItemFromObjectCaseSensitive(in, "by_agent") : NULL;
	json_set(t, "by_agent", cJSON_IsObject(by) ? by : cJSON_CreateObject());
	if (by && !cJSON_IsObject(by))
		cJSON_Delete(by);
	for (cJSON *c = in ? in->child : NULL; c; c = c->next)
		if (!cJSON_GetObjectItemCaseSensitive(t, c->string))
			cJSON_AddItemToObject(t, c->string, cJSON_Duplicate(c, 1));
	return t;
}

static int type_ok(const char *key, const cJSON *v)
{
	cJSON *def;
	int ok;

	if (cJSON_IsNull(v) || !strcmp(key, "current_phase"))
		return 1;
	if (!strcmp(key, "tokens"))
		return cJSON_IsObject(v);
	def = default_for(key);
	ok = cJSON_IsNull(def) ? cJSON_IsString(v) : (def->type & 0xff) == (v->type & 0xff);
	cJSON_Delete(def);
	return ok;
}

int state_cmp_key(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The children of obj in key order (sorts only when they are not). */
static void sort_object(cJSON *obj)
{
	cJSON **v, *c;
	int n = 0, i = 0, sorted = 1;

	for (c = obj->child; c; c = c->next, n++)
		if (c->next && strcmp(c->string, c->next->string) > 0)
			sorted = 0;
	if (sorted)
		return;
	v = xcalloc((size_t)n, sizeof(*v));
	for (c = obj->child; c; c = c->next)
		v[i++] = c;
	qsort(v, (size_t)n, sizeof(*v), state_cmp_key);
	obj->child = v[0];
	for (i = 0; i < n; i++) {
		v[i]->prev = i ? v[i - 1] : v[n - 1];	/* cJSON: the head's prev is the tail */
		v[i]->next = i + 1 < n ? v[i + 1] : NULL;
	}
	free(v);
}

static int one_of(const char *s, const char *const *set)
{
	for (; s && *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

/* A string field that must hold one of set; absent, it gets def (unless NULL). */
static int check_word(cJSON *o, const char *key, const char *const *set, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v && def) {
		json_set_str(o, key, def);
		return 0;
	}
	return cJSON_IsString(v) && one_of(v->valuestring, set) ? 0 : GS_ERROR;
}

/*
 * The entries of the lists the model relies on, checked one by one: an
 * entry edited by hand into the wrong shape is refused with its place.
 */
static int normalize_entries(cJSON *st, char **err)
{
	static const char *const phase_st[] = GS_WORD_ARRAY(GS_PHASE_STATUSES);
	static const char *const agent_st[] = GS_WORD_ARRAY(GS_AGENT_STATUSES);
	static const char *const file_st[] = GS_WORD_ARRAY(GS_FILE_STATUSES);
	static const char *const task_st[] = GS_WORD_ARRAY(GS_TASK_STATUSES);
	static const char *const lists[] = { "phases", "agents", "errors", "tasks", "decisions",
					     "milestones", "artifacts", "commits" };
	cJSON *e;
	char *why;
	int i;

	for (size_t k = 0; k < ARRAY_SIZE(lists); k++) {
		i = 0;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(st, lists[k])) {
			i++;
			if (!cJSON_IsObject(e))
				goto bad;
			if (!strcmp(lists[k], "phases") &&
			    (!json_is_int(json_num(e, "id", 0.5)) || check_word(e, "status", phase_st, ST_PENDING) ||
			     !json_str(e, "name")))
				goto bad;
			if (!strcmp(lists[k], "agents") &&
			    (!json_str(e, "id") || check_word(e, "status", agent_st, ST_IN_PROGRESS)))
				goto bad;
			if (!strcmp(lists[k], "tasks") && check_word(e, "status", task_st, ST_PENDING))
				goto bad;
			if (!strcmp(lists[k], "phases") || !strcmp(lists[k], "agents"))
				for (const char *const *a = (const char *const[]){ "agents", "blocked_by", NULL }; *a; a++)
					if (cJSON_GetObjectItemCaseSensitive(e, *a) &&
					    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e, *a)))
						goto bad;
		}
		continue;
bad:
		*err = xstrfmt("session.json: entry %d of '%s' is not in the right shape", i, lists[k]);
		return GS_ERROR;
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(st, "files"))
		if (!cJSON_IsObject(e) || check_word(e, "status", file_st, NULL) ||
		    (!json_str(e, "oid") != !strcmp(json_str(e, "status"), ST_DELETED))) {
			*err = xstrfmt("session.json: the manifest entry of '%s' is not in the right shape", e->string);
			return GS_ERROR;
		}
	/* a path git would not check out makes the checkpoint damaged, wherever it came from */
	if (state_manifest_entries_check(&why, cJSON_GetObjectItemCaseSensitive(st, "files")) < 0) {
		*err = xstrfmt("the manifest: %s", why);
		free(why);
		return GS_ERROR;
	}
	return 0;
}

/*
 * The value of key in session.json, v as read (NULL when absent, taken
 * over), checked and defaulted: *out, or GS_ERROR and *err.
 */
static int normalize_key(cJSON **out, const char *key, cJSON *v, char **err)
{
	*out = NULL;
	if (v && !type_ok(key, v)) {
		*err = xstrfmt("session.json: '%s' has the wrong type", key);
		cJSON_Delete(v);
		return GS_ERROR;
	}
	if (!strcmp(key, "tokens")) {
		cJSON *t = normalize_tokens(v);
		const char *bad = state_token_not_whole(t);

		cJSON_Delete(v);
		if (bad) {
			*err = xstrfmt("session.json: tokens.%s is not a whole number", bad);
			cJSON_Delete(t);
			return GS_ERROR;
		}
		v = t;
	} else if (!v || cJSON_IsNull(v)) {
		cJSON *d = default_for(key);

		if (v && cJSON_IsNull(d)) {
			cJSON_Delete(d);	/* a null that may stay null */
		} else {
			cJSON_Delete(v);
			v = d;
		}
	}
	*out = v;
	return 0;
}

int state_normalize(cJSON **out, cJSON *in, char **err)
{
	cJSON *st = NULL, *v;
	const char *status;
	int error = GS_ERROR;

	*out = NULL;
	*err = NULL;
	if (!cJSON_IsObject(in)) {
		*err = xstrdup("session.json is not a JSON object");
		goto cleanup;
	}
	st = cJSON_CreateObject();
	for (size_t i = 0; i < ARRAY_SIZE(schema_keys); i++) {
		const char *key = schema_keys[i].key;

		if (normalize_key(&v, key, cJSON_DetachItemFromObjectCaseSensitive(in, key), err) < 0)
			goto cleanup;
		cJSON_AddItemToObject(st, key, v);
	}
	while (in->child) {	/* keys we do not know: keep them, last */
		v = cJSON_DetachItemViaPointer(in, in->child);
		cJSON_AddItemToObject(st, v->string, v);
	}
	sort_object(cJSON_GetObjectItemCaseSensitive(st, "files"));	/* a hand edit may unsort it */
	if (normalize_entries(st, err) < 0)
		goto cleanup;
	if (!json_str(st, "session_id")) {
		*err = xstrdup("session.json: no session_id");
		goto cleanup;
	}
	status = json_str(st, "status");
	if (!status || (strcmp(status, ST_IN_PROGRESS) && strcmp(status, ST_PAUSED) &&
			strcmp(status, ST_COMPLETED) && strcmp(status, ST_ABORTED))) {
		*err = xstrfmt("session.json: unknown status '%s'", status ? status : "");
		goto cleanup;
	}
	*out = st;
	st = NULL;
	error = 0;
cleanup:
	cJSON_Delete(st);
	cJSON_Delete(in);
	return error;
}

int state_valid_id(const char *id, char **err)
{
	size_t len = strlen(id);

	*err = NULL;
	if (!len)
		*err = xstrdup("empty session id");
	else if (len > STATE_ID_MAX)
		*err = xstrfmt("session id longer than %d characters", STATE_ID_MAX);
	else if (id[0] == '.' || id[0] == '-')
		*err = xstrdup("session id may not start with '.' or '-'");
	else if (strstr(id, ".."))
		*err = xstrdup("session id may not contain '..'");
	else if (id[len - 1] == '.' || (len >= 5 && !strcmp(id + len - 5, ".lock")))
		*err = xstrdup("session id may not end with '.' or '.lock'");
	else if (len >= 4 && !strcmp(id + len - 4, "HEAD") && strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == len)
		*err = xstrfmt("'%s' is a name git gives a ref of its own (HEAD, SESSION_HEAD, ORIG_HEAD, ...)", id);
	else
		for (const char *p = id; *p; p++)
			if (!isascii((unsigned char)*p) ||
			    !(isalnum((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-')) {
				*err = xstrdup("session id may contain only ASCII letters, digits, '.', '_' and '-'");
				break;
			}
	return *err ? GS_ERROR : 0;
}

/* U+00C0..U+00FF as the ASCII letter a slug keeps of it ('.': not a letter). */
static const char latin1[] = "AAAAAAACEEEEIIIIDNOOOOO.OUUUUYTsaaaaaaaceeeeiiiidnooooo.ouuuuyty";

/*
 * The next character of a slug's word at *p, lower-case, moving *p past
 * what it read: 0 at a word's end, -1 for a character a word drops (an
 * apostrophe), else the letter or digit.
 */
static int slug_char(const unsigned char **p)
{
	const unsigned char *s = *p;

	*p = s + 1;
	if (isascii(*s) && isalnum(*s))
		return tolower(*s);
	if (*s == '\'')
		return -1;
	if (*s == 0xc3 && s[1] >= 0x80 && s[1] <= 0xbf) {
		*p = s + 2;
		return latin1[s[1] - 0x80] == '.' ? 0 : tolower((unsigned char)latin1[s[1] - 0x80]);
	}
	if (*s == 0xe2 && s[1] == 0x80 && s[2] == 0x99) {	/* U+2019, the typographic apostrophe */
		*p = s + 3;
		return -1;
	}
	while (**p >= 0x80 && **p < 0xc0)
		(*p)++;	/* any other character ends a word, whole */
	return 0;
}

char *state_slug(const char *topic)
{
	struct sbuf sb = SBUF_INIT, word = SBUF_INIT;
	const unsigned char *p = (const unsigned char *)topic;

	for (;;) {
		int c = *p ? slug_char(&p) : 0;

		if (c) {
			if (c > 0 && word.len <= STATE_SLUG_MAX)	/* past that, it is cut anyway */
				sbuf_addch(&word, (char)c);
			continue;
		}
		if (word.len && sb.len + !!sb.len + word.len > STATE_SLUG_MAX) {
			if (!sb.len)	/* one word longer than a slug: cut */
				sbuf_add(&sb, word.buf, STATE_SLUG_MAX);
			break;
		}
		if (word.len) {
			if (sb.len)
				sbuf_addch(&sb, '-');
			sbuf_add(&sb, word.buf, word.len);
			sbuf_reset(&word);
		}
		if (!*p)
			break;
	}
	sbuf_release(&word);
	return sbuf_detach(&sb, NULL);
}
