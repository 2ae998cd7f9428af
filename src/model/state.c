/*
 * state.c - the session document, its schema order, identity rules and
 * the session-level operations (start, pause, resume, close, note,
 * summary, set, checkpoint). Pure: no I/O, no git.
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

/* The first total of tokens that is not a whole number (sums of those could overflow), or NULL. */
static const char *token_not_whole(const cJSON *t)
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

static int cmp_key(const void *a, const void *b)
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
	qsort(v, (size_t)n, sizeof(*v), cmp_key);
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

		v = cJSON_DetachItemFromObjectCaseSensitive(in, key);
		if (v && !type_ok(key, v)) {
			*err = xstrfmt("session.json: '%s' has the wrong type", key);
			cJSON_Delete(v);
			goto cleanup;
		}
		if (!strcmp(key, "tokens")) {
			cJSON *t = normalize_tokens(v);
			const char *bad = token_not_whole(t);

			cJSON_Delete(v);
			if (bad) {
				*err = xstrfmt("session.json: tokens.%s is not a whole number", bad);
				cJSON_Delete(t);
				goto cleanup;
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

char *state_slug(const char *topic)
{
	struct sbuf sb = SBUF_INIT;
	int dash = 0;

	for (const unsigned char *p = (const unsigned char *)topic; *p && sb.len < 60; p++) {
		if (isascii(*p) && isalnum(*p)) {
			if (dash && sb.len)
				sbuf_addch(&sb, '-');
			sbuf_addch(&sb, (char)tolower(*p));
			dash = 0;
		} else {
			dash = 1;
		}
	}
	return sbuf_detach(&sb, NULL);
}

cJSON *op_new(enum op_id id, const char *at)
{
	cJSON *op = cJSON_CreateObject();

	json_set_str(op, "op", op_info(id)->name);
	json_set_str(op, "at", at);
	json_set(op, "args", cJSON_CreateObject());
	return op;
}

cJSON *op_args(const cJSON *op)
{
	return cJSON_GetObjectItemCaseSensitive(op, "args");
}

const char *op_name(const cJSON *op)
{
	return json_str(op, "op");
}

int state_size(struct apply_ctx *c, enum state_split_index i)
{
	return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c->state, state_split_keys[i])) + c->lim->before[i];
}

int state_fail(struct apply_ctx *c, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(c->err);
	c->err = sbuf_detach(&sb, NULL);
	return GS_ERROR;
}

int state_arg_text(const char **out, struct apply_ctx *c, const char *key, int required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, key);
	size_t len;

	*out = NULL;
	if (!v || cJSON_IsNull(v)) {
		if (required)
			return state_fail(c, "missing %s", key);
		return 0;
	}
	if (!cJSON_IsString(v))
		return state_fail(c, "%s must be a string", key);
	len = strlen(v->valuestring);
	if (len > STATE_TEXT_MAX)
		return state_fail(c, "%s is too long (%zu bytes, at most %d)", key, len, STATE_TEXT_MAX);
	if (!gs_utf8_valid(v->valuestring, len))
		return state_fail(c, "%s is not valid UTF-8", key);
	if (required && !len)
		return state_fail(c, "empty %s", key);
	*out = v->valuestring;
	return 0;
}

void state_subject_quote(struct sbuf *sb, const char *s, size_t n)
{
	size_t i = 0;

	sbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xc0) != 0x80 && i++ == n) {
			sbuf_adds(sb, "...");
			break;
		}
		sbuf_addch(sb, *p < 0x20 ? ' ' : (char)*p);
	}
	sbuf_addch(sb, '"');
}

static cJSON *project_from(const cJSON *p)
{
	cJSON *out = cJSON_CreateObject();
	static const char *const keys[] = { "name", "path", "branch", "head" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		json_set_str(out, keys[i], json_str(p, keys[i]));
	json_set_str(out, "start_branch", json_str(p, "branch"));
	return out;
}

static int start_check(struct apply_ctx *c, const char **topic, const char **goal,
		       const char **mode)
{
	const char *id = json_str(c->args, "id");
	const cJSON *phases = cJSON_GetObjectItemCaseSensitive(c->args, "phases");
	double budget = json_num(c->args, "budget", STATE_DEFAULT_BUDGET);
	char *err = NULL;

	if (c->state->child)
		return state_fail(c, "session '%s' already exists", json_str(c->state, "session_id"));
	if (!id || state_valid_id(id, &err) < 0) {
		state_fail(c, "invalid session id '%s': %s", id ? id : "", err ? err : "missing");
		free(err);
		return GS_ERROR;
	}
	if (state_arg_text(topic, c, "topic", 0) || state_arg_text(goal, c, "goal", 0) || state_arg_text(mode, c, "mode", 0))
		return GS_ERROR;
	if (!json_is_int(budget) || budget <= 0)
		return state_fail(c, "budget must be a positive whole number");
	for (const cJSON *p = cJSON_IsArray(phases) ? phases->child : NULL; p; p = p->next)
		if (!cJSON_IsString(p) || !*p->valuestring)
			return state_fail(c, "phase names must be non-empty strings");
	return 0;
}

int op_session_start(struct apply_ctx *c)
{
	const char *id = json_str(c->args, "id"), *topic, *goal, *mode;
	const cJSON *plans = cJSON_GetObjectItemCaseSensitive(c->args, "plans");
	const cJSON *phases = cJSON_GetObjectItemCaseSensitive(c->args, "phases");
	cJSON *in, *st = NULL, *arr;
	char *err = NULL;
	int n = 0;

	if (start_check(c, &topic, &goal, &mode) < 0)
		return GS_ERROR;
	in = cJSON_CreateObject();
	json_set_str(in, "session_id", id);
	json_set_str(in, "topic", topic);
	json_set_str(in, "goal", goal);
	json_set_str(in, "mode", mode ? mode : "default");
	json_set_str(in, "created", c->at);
	json_set_str(in, "updated", c->at);
	json_set(in, "project", project_from(cJSON_GetObjectItemCaseSensitive(c->args, "project")));
	arr = json_arr(in, "plans");
	for (const cJSON *p = cJSON_IsArray(plans) ? plans->child : NULL; p; p = p->next) {
		cJSON *plan = cJSON_CreateObject();
		json_set_str(plan, "path", json_str(p, "path"));
		json_set_str(plan, "oid", json_str(p, "oid"));
		cJSON_AddItemToArray(arr, plan);
	}
	arr = json_arr(in, "phases");
	for (const cJSON *p = cJSON_IsArray(phases) ? phases->child : NULL; p; p = p->next)
		cJSON_AddItemToArray(arr, state_new_phase(++n, p->valuestring));
	if (n)
		json_set_num(in, "current_phase", 1);
	json_set_num(json_obj(in, "tokens"), "max", json_num(c->args, "budget", STATE_DEFAULT_BUDGET));
	if (state_normalize(&st, in, &err) < 0) {
		state_fail(c, "%s", err);
		free(err);
		return GS_ERROR;
	}
	while (st->child) {
		cJSON *v = cJSON_DetachItemViaPointer(st, st->child);
		cJSON_AddItemToObject(c->state, v->string, v);
	}
	cJSON_Delete(st);
	sbuf_addf(&c->subject, "start session %s", id);
	if (topic) {
		sbuf_adds(&c->subject, ": ");
		state_subject_quote(&c->subject, topic, 60);
	}
	return 0;
}

static int set_status(struct apply_ctx *c, const char *to, const char *from1, const char *from2)
{
	const char *st = json_str(c->state, "status");

	if (strcmp(st, from1) && (!from2 || strcmp(st, from2)))
		return state_fail(c, "session '%s' is %s", json_str(c->state, "session_id"),
				  !strcmp(st, ST_IN_PROGRESS) ? "in progress" : st);
	/* the subject first: setting the status frees the old string */
	sbuf_addf(&c->subject, "session %s: %s -> %s", json_str(c->state, "session_id"), st, to);
	json_set_str(c->state, "status", to);
	return 0;
}

int op_session_pause(struct apply_ctx *c)
{
	return set_status(c, ST_PAUSED, ST_IN_PROGRESS, NULL);
}

int op_session_resume(struct apply_ctx *c)
{
	return set_status(c, ST_IN_PROGRESS, ST_PAUSED, NULL);
}

int op_session_close(struct apply_ctx *c)
{
	int abort = json_bool(c->args, "abort", 0);
	return set_status(c, abort ? ST_ABORTED : ST_COMPLETED, ST_IN_PROGRESS, ST_PAUSED);
}

int op_note(struct apply_ctx *c)
{
	const char *text, *agent;
	cJSON *note;

	if (state_arg_text(&text, c, "text", 1) || state_arg_text(&agent, c, "agent", 0))
		return GS_ERROR;
	note = cJSON_CreateObject();
	json_set_str(note, "text", text);
	json_set_str(note, "agent", agent);
	json_set_str(note, "timestamp", c->at);
	cJSON_AddItemToArray(json_arr(c->state, "notes"), note);
	sbuf_adds(&c->subject, "note: ");
	state_subject_quote(&c->subject, text, 60);
	return 0;
}

int op_summary(struct apply_ctx *c)
{
	const char *text;

	if (state_arg_text(&text, c, "text", 1))
		return GS_ERROR;
	json_set_str(c->state, "context_summary", text);
	sbuf_adds(&c->subject, "summary: ");
	state_subject_quote(&c->subject, text, 60);
	return 0;
}

/* Walks a dotted key into extra; creates objects on the way when asked. */
static int extra_walk(cJSON **parent, const char **leaf, struct apply_ctx *c,
		      cJSON *extra, char *key)
{
	cJSON *cur = extra;
	char *seg = key, *dot;

	for (;;) {
		dot = strchr(seg, '.');
		if (!*seg || (dot && dot == seg))
			return state_fail(c, "invalid key '%s': empty segment", json_str(c->args, "key"));
		if (!dot)
			break;
		*dot = '\0';
		{
			cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, seg);
			if (!next)
				next = json_set(cur, seg, cJSON_CreateObject());
			else if (!cJSON_IsObject(next))
				return state_fail(c, "'%s' is not an object", seg);
			cur = next;
		}
		seg = dot + 1;
	}
	*parent = cur;
	*leaf = seg;
	return 0;
}

const cJSON *state_extra_get(const cJSON *state, const char *key)
{
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(state, "extra");
	const char *seg = key;

	while (cur && *seg) {
		const char *dot = strchrnul(seg, '.');
		char *name = xstrndup(seg, (size_t)(dot - seg));

		cur = cJSON_IsObject(cur) ? cJSON_GetObjectItemCaseSensitive(cur, name) : NULL;
		free(name);
		if (!*dot)
			return cur;
		seg = dot + 1;
	}
	return NULL;
}

int op_set(struct apply_ctx *c)
{
	const char *key;
	const cJSON *value = cJSON_GetObjectItemCaseSensitive(c->args, "value");
	cJSON *parent = NULL, *scratch;
	const char *leaf = NULL;
	char *k;
	int error, segments = 1;

	if (state_arg_text(&key, c, "key", 1))
		return GS_ERROR;
	if (!value)
		return state_fail(c, "missing value");
	for (const char *p = key; *p; p++)
		segments += *p == '.';
	/* session.json, extra and a level per dot above the value: all within what a reader takes */
	if (segments >= JSON_MAX_DEPTH || json_depth_over(value, JSON_MAX_DEPTH - segments - 1))
		return state_fail(c, "'%.40s%s' with that value would nest deeper than the %d levels a session.json may have",
				  key, strlen(key) > 40 ? "..." : "", JSON_MAX_DEPTH);
	/* walk a copy, so a bad key leaves extra as it was */
	scratch = cJSON_Duplicate(json_obj(c->state, "extra"), 1);
	k = xstrdup(key);
	error = extra_walk(&parent, &leaf, c, scratch, k);
	if (!error) {
		json_set(parent, leaf, cJSON_Duplicate(value, 1));
		json_set(c->state, "extra", scratch);
		scratch = NULL;
		sbuf_addf(&c->subject, "set %s", key);
	}
	cJSON_Delete(scratch);
	free(k);
	return error;
}

/*
 * Merges entries (sorted by path, each with ->string set) into the
 * manifest (sorted by path) in one pass, replacing entries with the same
 * path. O(manifest + entries), so recording stays cheap on large
 * manifests and session.json diffs stay small.
 */
static void files_merge(cJSON *manifest, cJSON **entries, int n)
{
	cJSON *c = manifest->child;

	for (int i = 0; i < n; i++) {
		cJSON *e = entries[i];
		int cmp = 1;

		while (c && (cmp = strcmp(c->string, e->string)) < 0)
			c = c->next;
		if (!c) {
			cJSON_AddItemToArray(manifest, e);
			continue;
		}
		e->next = cmp ? c : c->next;	/* splice in before c, or in c's place */
		e->prev = c->prev;
		if (c == manifest->child)
			manifest->child = e;
		else
			e->prev->next = e;
		if (!cmp) {
			if (e->next)
				e->next->prev = e;
			else
				manifest->child->prev = e;
			c->next = c->prev = NULL;
			cJSON_Delete(c);
		} else {
			c->prev = e;
		}
		c = e->next;
	}
}

/* The manifest entry recorded for f; old is what the manifest had. */
static cJSON *file_entry(struct apply_ctx *c, const cJSON *f, const cJSON *old, const char *status,
			 const char *agent, const cJSON *phase)
{
	cJSON *e = cJSON_CreateObject();
	const char *st = status ? status : json_str(f, "status"), *mode = json_str(f, "mode");
	const cJSON *keep = old ? cJSON_GetObjectItemCaseSensitive(old, "phase") : NULL;

	/* a file first created in this session stays "created" until deleted */
	if (!strcmp(st, ST_MODIFIED) && !status && old && json_str(old, "status") &&
	    !strcmp(json_str(old, "status"), ST_CREATED))
		st = ST_CREATED;
	json_set_str(e, "status", st);
	json_set_str(e, "oid", json_str(f, "oid"));
	if (phase && !cJSON_IsNull(phase))
		json_set(e, "phase", cJSON_Duplicate(phase, 1));
	else
		json_set(e, "phase", cJSON_Duplicate(keep ? keep : cJSON_GetObjectItemCaseSensitive(c->state, "current_phase"), 1));
	json_set_str(e, "agent", agent ? agent : json_str(old, "agent"));
	/* a symbolic link or an executable, as git stores one; a plain file has no mode */
	if (mode && (!strcmp(mode, FILE_MODE_LINK) || !strcmp(mode, FILE_MODE_EXEC)))
		json_set_str(e, "mode", mode);
	for (const char *const *k = (const char *const[]){ "size", "mtime", "ino", NULL }; *k; k++)
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(f, *k)))
			json_set_num(e, *k, json_num(f, *k, 0));
	e->string = xstrdup(f->string);
	return e;
}

/*
 * in (n entries, sorted by path) against the manifest (sorted too), in one
 * pass: how many paths it does not hold; known[i], when given, gets the
 * manifest's entry of in[i] or NULL.
 */
static int merge_paths(cJSON **known, cJSON *const *in, int n, const cJSON *manifest)
{
	const cJSON *m = manifest ? manifest->child : NULL;
	int fresh = 0;

	for (int i = 0; i < n; i++) {
		int hit;

		while (m && strcmp(m->string, in[i]->string) < 0)
			m = m->next;
		hit = m && !strcmp(m->string, in[i]->string);
		fresh += !hit;
		if (known)
			known[i] = hit ? (cJSON *)m : NULL;
	}
	return fresh;
}

/* files' entries, sorted by path, in an array the caller frees. */
static cJSON **sorted_entries(int *n, const cJSON *files)
{
	cJSON **in = xcalloc((size_t)cJSON_GetArraySize(files) + 1, sizeof(*in));

	*n = 0;
	for (const cJSON *f = files ? files->child : NULL; f; f = f->next)
		in[(*n)++] = (cJSON *)f;
	qsort(in, (size_t)*n, sizeof(*in), cmp_key);
	return in;
}

int state_manifest_new(const cJSON *state, const cJSON *files)
{
	int n, fresh;
	cJSON **in = sorted_entries(&n, files);

	fresh = merge_paths(NULL, in, n, cJSON_GetObjectItemCaseSensitive(state, "files"));
	free(in);
	return fresh;
}

/* Whether the entries of v (n) that are not fresh, the manifest as it was, hold no nesting. */
static int manifest_was_sound(struct state_path_entry *v, size_t n)
{
	struct state_path_entry *old = xcalloc(n + 1, sizeof(*old));
	size_t k = 0;
	char *err = NULL;
	int ok;

	for (size_t i = 0; i < n; i++)
		if (!v[i].fresh)
			old[k++] = v[i];
	ok = state_paths_check(&err, old, k) == 0;
	free(err);
	free(old);
	return ok;
}

/* Manifest entry e displaced (state_paths_supersede): out of the manifest below a link, else deleted. */
static void supersede(cJSON *manifest, cJSON *e, int below_link)
{
	if (below_link) {
		cJSON_Delete(cJSON_DetachItemViaPointer(manifest, e));
		return;
	}
	json_set_str(e, "status", ST_DELETED);
	json_set(e, "oid", cJSON_CreateNull());
	for (const char *const *k = (const char *const[]){ "mode", "size", "mtime", "ino", NULL }; *k; k++)
		cJSON_DeleteItemFromObjectCaseSensitive(e, *k);
}

static struct state_path_entry path_entry(const cJSON *f, const char *status, int fresh)
{
	const char *st = status ? status : json_str(f, "status"), *mode = json_str(f, "mode");

	return (struct state_path_entry){ f->string, NULL, st && !strcmp(st, ST_DELETED),
					  mode && !strcmp(mode, FILE_MODE_LINK), fresh, 0, 0 };
}

/*
 * The manifest as it would be with in (*n entries, sorted by path, with
 * known[i] the manifest's entry of in[i]) recorded, in one pass. What a
 * fresh entry displaces, as git add does (a file that became a folder, a
 * folder that became a file or a link), goes: deleted, or out of the
 * manifest below a link, through which restore would never delete; then
 * nothing may come below a file or a link. Only when that holds is the
 * manifest changed (and in and known lose what a link displaced).
 */
static int record_nesting(struct apply_ctx *c, cJSON *manifest, cJSON **in, cJSON **known, int *n,
			  const char *status)
{
	size_t size = (size_t)cJSON_GetArraySize(manifest) + (size_t)*n + 1, k = 0, kept = 0, out = 0;
	struct state_path_entry *v = xcalloc(size, sizeof(*v)), *after = xcalloc(size, sizeof(*after));
	cJSON **at = xcalloc(size, sizeof(*at)), *m = manifest ? manifest->child : NULL;
	int i = 0, error;
	char *err = NULL;

	while (m || i < *n) {
		int cmp = !m ? 1 : i == *n ? -1 : strcmp(m->string, in[i]->string);

		at[k] = cmp < 0 ? m : NULL;
		v[k++] = cmp < 0 ? path_entry(m, NULL, 0) : path_entry(in[i++], status, 1);
		if (cmp <= 0)
			m = m->next;
	}
	if ((error = state_paths_supersede(&err, v, k)) == 0) {
		for (size_t j = 0; j < k; j++)
			if (!(v[j].superseded && v[j].below_link)) {
				after[kept] = v[j];
				after[kept].deleted |= v[j].superseded;
				after[kept++].link &= !v[j].superseded;
			}
		error = state_paths_check(&err, after, kept);
	}
	if (error && !manifest_was_sound(v, k)) {
		free(err);	/* the manifest was already so (an earlier version wrote it): restore judges it */
		err = NULL;
		error = 0;
	}
	if (error) {
		error = state_fail(c, "%s", err);
		goto cleanup;
	}
	for (size_t j = 0, fi = 0; j < k; j++) {
		int gone = v[j].superseded && v[j].below_link;

		if (at[j]) {
			if (v[j].superseded)
				supersede(manifest, at[j], gone);
			continue;
		}
		if (gone && known[fi])
			cJSON_Delete(cJSON_DetachItemViaPointer(manifest, known[fi]));
		if (!gone) {
			in[out] = in[fi];
			known[out++] = known[fi];
		}
		fi++;
	}
	*n = (int)out;
cleanup:
	free(err);
	free(at);
	free(after);
	free(v);
	return error;
}

int state_record_files(struct apply_ctx *c, const cJSON *files, const char *status,
		       const char *agent, const cJSON *phase)
{
	cJSON *manifest = json_obj(c->state, "files"), **in, **out, **known;
	const cJSON *f;
	int n = 0, fresh, error = 0;

	if (!cJSON_IsObject(files))
		return state_fail(c, "files must be an object");
	for (f = files->child; f; f = f->next) {
		const char *oid = json_str(f, "oid"), *st = status ? status : json_str(f, "status");
		const char *mode = json_str(f, "mode"), *why;

		if ((why = state_path_problem(f->string, mode && !strcmp(mode, FILE_MODE_LINK))))
			return state_fail(c, "invalid path '%s': %s", f->string, why);
		if (!st || (strcmp(st, ST_CREATED) && strcmp(st, ST_MODIFIED) && strcmp(st, ST_DELETED)))
			return state_fail(c, "'%s': status must be created, modified or deleted", f->string);
		if (!!oid == !strcmp(st, ST_DELETED))
			return state_fail(c, "'%s': a deleted file has no blob, others need one", f->string);
		if (oid && !state_is_oid(oid))
			return state_fail(c, "'%s': oid must be 40 lower-case hexadecimal digits", f->string);
	}
	in = sorted_entries(&n, files);
	known = xcalloc((size_t)n + 1, sizeof(*known));
	fresh = merge_paths(known, in, n, manifest);
	if (fresh && c->lim->files_elsewhere < 0)
		error = GS_EPARTIAL;	/* new paths: the whole manifest must be counted */
	else if (cJSON_GetArraySize(manifest) + c->lim->files_elsewhere + fresh > STATE_MANIFEST_MAX)
		error = state_fail(c, "a session's manifest holds at most %d files", STATE_MANIFEST_MAX);
	if (!error)
		error = record_nesting(c, manifest, in, known, &n, status);
	if (!error) {
		out = xcalloc((size_t)n + 1, sizeof(*out));
		for (int i = 0; i < n; i++)
			out[i] = file_entry(c, in[i], known[i], status, agent, phase);
		files_merge(manifest, out, n);
		free(out);
	}
	free(in);
	free(known);
	return error ? error : n;
}

int op_checkpoint(struct apply_ctx *c)
{
	const char *msg;
	int n;

	if (state_arg_text(&msg, c, "message", 0))
		return GS_ERROR;
	if ((n = state_record_files(c, cJSON_GetObjectItemCaseSensitive(c->args, "files"),
				    NULL, NULL, NULL)) < 0)
		return n;
	sbuf_adds(&c->subject, "checkpoint");
	if (msg && *msg) {
		sbuf_adds(&c->subject, ": ");
		state_subject_quote(&c->subject, msg, 60);
	} else {
		sbuf_addf(&c->subject, ": %d file%s", n, n == 1 ? "" : "s");
	}
	return 0;
}

/* The files a restore wrote, as it wrote them from checkpoint "from". */
int op_restore(struct apply_ctx *c)
{
	const char *from;
	int n;

	if (state_arg_text(&from, c, "from", 1))
		return GS_ERROR;
	if ((n = state_record_files(c, cJSON_GetObjectItemCaseSensitive(c->args, "files"), NULL, NULL, NULL)) < 0)
		return n;
	sbuf_addf(&c->subject, "restore %d file%s from %.7s", n, n == 1 ? "" : "s", from);
	return 0;
}

/*
 * A whole state read from another tool's file: replaces what the session
 * had (on a re-import), keeping its id. Times are the source's.
 */
int op_session_import(struct apply_ctx *c)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(c->args, "state");
	const char *format = json_str(c->args, "format"), *id, *had = json_str(c->state, "session_id");
	cJSON *st = NULL;
	char *err = NULL;

	if (!format || state_normalize(&st, cJSON_Duplicate(in, 1), &err) < 0) {
		state_fail(c, "%s", err ? err : "missing format");
		free(err);
		return GS_ERROR;
	}
	id = json_str(st, "session_id");
	if (state_valid_id(id, &err) < 0 || (had && strcmp(had, id))) {
		state_fail(c, "invalid session id '%s': %s", id, err ? err : "not this session's");
		free(err);
		cJSON_Delete(st);
		return GS_ERROR;
	}
	sbuf_addf(&c->subject, "%s session %s from %s", had ? "re-import" : "import", id, format);
	while (c->state->child)
		cJSON_Delete(cJSON_DetachItemViaPointer(c->state, c->state->child));
	while (st->child) {
		cJSON *v = cJSON_DetachItemViaPointer(st, st->child);
		cJSON_AddItemToObject(c->state, v->string, v);
	}
	cJSON_Delete(st);
	return 0;
}

/*
 * An operation is a sign of life (session.staleAfter) of the agent it
 * names, when it reads the agents (so a state kept in parts gets the
 * same as a whole one), and of the phase it works in: the one it names,
 * else its agent's, else the current one.
 */
static void mark_seen(cJSON *state, const cJSON *op, const char *at)
{
	const char *name = json_str(op_args(op), "agent");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(op_args(op), "phase");
	cJSON *a = NULL, *p = NULL;

	if (name && (state_op_needs(op) & NEED(AGENTS)) && (a = state_agent(state, name)))
		json_set_str(a, "seen", at);
	if (cJSON_IsNumber(v))
		p = state_phase(state, (int)v->valuedouble);
	else if (a && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "phase")))
		p = state_phase(state, (int)json_num(a, "phase", 0));
	else
		p = state_phase(state, (int)json_num(state, "current_phase", -1));
	if (p && !strcmp(json_str(p, "status") ? json_str(p, "status") : "", ST_IN_PROGRESS))
		json_set_str(p, "seen", at);
}

int state_apply(cJSON *state, const cJSON *op, const struct state_limits *lim,
		char **subject, char **err)
{
	struct state_limits deflim = STATE_LIMITS_INIT;
	struct apply_ctx c = { state, op_args(op), json_str(op, "at"), lim ? lim : &deflim, SBUF_INIT, NULL };
	const struct op_info *info;
	const char *name = op_name(op), *status, *bad;
	const cJSON *ctx;
	int error;

	*subject = *err = NULL;
	if (!name || !(info = op_lookup(name))) {
		*err = xstrfmt("unknown operation '%s'", name ? name : "");
		return GS_ERROR;
	}
	if (!c.at || !cJSON_IsObject(c.args)) {
		*err = xstrfmt("malformed operation '%s'", name);
		return GS_ERROR;
	}
	status = json_str(state, "status");
	if (status && strcmp(status, ST_IN_PROGRESS) && !(info->flags & OPF_CLOSED)) {
		*err = xstrfmt("session '%s' is %s", json_str(state, "session_id"), status);
		return GS_ERROR;
	}
	if ((error = state_handler(info->id)(&c)) < 0) {
		sbuf_release(&c.subject);
		if (error == GS_EPARTIAL) {	/* it needs more of the state than was loaded */
			free(c.err);
			return GS_EPARTIAL;
		}
		*err = c.err ? c.err : xstrfmt("%s failed", name);
		return GS_ERROR;
	}
	/* what is written must read back: the reader takes only whole token counts below 2^53 */
	if ((bad = token_not_whole(cJSON_GetObjectItemCaseSensitive(state, "tokens")))) {
		sbuf_release(&c.subject);
		*err = xstrfmt("%s would leave tokens.%s at %.0f, past what a session counts exactly: nothing written",
			       name, bad, json_num(cJSON_GetObjectItemCaseSensitive(state, "tokens"), bad, 0));
		return GS_ERROR;
	}
	if (info->id != OP_SESSION_IMPORT) {	/* an import keeps the source's time */
		json_set_str(state, "updated", c.at);
		mark_seen(state, op, c.at);
	}
	ctx = cJSON_GetObjectItemCaseSensitive(op, "context");
	if (cJSON_IsObject(ctx)) {
		cJSON *project = json_obj(state, "project");
		if (json_str(ctx, "branch"))
			json_set_str(project, "branch", json_str(ctx, "branch"));
		if (json_str(ctx, "head"))
			json_set_str(project, "head", json_str(ctx, "head"));
	}
	*subject = sbuf_detach(&c.subject, NULL);
	return 0;
}
