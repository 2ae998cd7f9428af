/*
 * format.c - what every foreign format shares: the table, detection,
 * the round-trip patch, and small mapping helpers. Pure: no I/O.
 */
#include "format-internal.h"
#include "git-session/yaml.h"

#include <stdlib.h>
#include <string.h>

static const struct format *const formats[FORMAT_COUNT] = {
#define GS_FORMAT_ROW(id, name) [FORMAT_##id] = &format_##name,
	GS_FORMATS(GS_FORMAT_ROW)
#undef GS_FORMAT_ROW
};

const struct format *format_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}

const struct format *format_get(enum format_id id)
{
	return formats[id];
}

const char *format_name(const struct format *f)
{
	return f->name;
}

enum format_id format_id(const struct format *f)
{
	return f->id;
}

const char *format_names(void)
{
#define GS_FORMAT_WORD(id, name) ", " #name
	return &(GS_FORMATS(GS_FORMAT_WORD))[2];
#undef GS_FORMAT_WORD
}

/* The format whose reader's complaint to show when none could read buf. */
static const struct format *claimed(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (len >= 3 && !strncmp(buf, "---", 3))
		return &format_maestro;
	if (i < len && (buf[i] == '{' || buf[i] == '['))
		return &format_claude;
	return &format_bmad;
}

int format_parse(cJSON **doc, const struct format **f, const char *buf, size_t len, char **err)
{
	const struct format *mine;
	char *why = NULL;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {	/* a UTF-8 byte order mark, as editors on Windows write */
		buf += 3;
		len -= 3;
	}
	mine = claimed(buf, len);

	*doc = NULL;
	*err = NULL;
	if (len > FORMAT_MAX_BYTES) {
		*err = xstrfmt("larger than %u bytes", FORMAT_MAX_BYTES);
		return GS_ERROR;
	}
	if (*f)
		return (*f)->parse(doc, buf, len, err);
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		char *e = NULL;

		if (formats[i]->parse(doc, buf, len, &e) == 0 && formats[i]->detect(*doc)) {
			*f = formats[i];
			free(why);
			return 0;
		}
		cJSON_Delete(*doc);
		*doc = NULL;
		if (formats[i] == mine && e) {
			why = e;
			e = NULL;
		}
		free(e);
	}
	*err = why ? why : xstrfmt("not a session file of a known format (%s)", format_names());
	return GS_ERROR;
}

int format_equal(const cJSON *a, const cJSON *b)
{
	return json_equal(a, b);
}

/*
 * The patch: the changes that turn the export of a freshly imported
 * state into the source document. Each is {"at": [key or index, ...],
 * "export": what the export has there (absent: nothing), "source": what
 * the source has (absent: nothing)}. Applied on export only where the
 * export still has exactly "export": a value the session has since
 * changed is the session's.
 */
static void diff(cJSON *out, cJSON *at, const cJSON *exp, const cJSON *src)
{
	cJSON *fix;

	if (exp && src && cJSON_IsObject(exp) && cJSON_IsObject(src)) {
		size_t ne, ns;	/* members found by binary search: O(n log n), not O(n^2) */
		const cJSON **se = json_members_sorted(exp, &ne), **ss = json_members_sorted(src, &ns);

		for (const cJSON *c = exp->child; c; c = c->next) {
			cJSON_AddItemToArray(at, cJSON_CreateString(c->string));
			diff(out, at, c, json_member_find(ss, ns, c->string));
			cJSON_Delete(cJSON_DetachItemViaPointer(at, at->child->prev));
		}
		for (const cJSON *c = src->child; c; c = c->next)
			if (!json_member_find(se, ne, c->string)) {
				cJSON_AddItemToArray(at, cJSON_CreateString(c->string));
				diff(out, at, NULL, c);
				cJSON_Delete(cJSON_DetachItemViaPointer(at, at->child->prev));
			}
		free(se);
		free(ss);
		return;
	}
	if (exp && src && cJSON_IsArray(exp) && cJSON_IsArray(src) &&
	    cJSON_GetArraySize(exp) == cJSON_GetArraySize(src)) {
		int i = 0;
		for (const cJSON *a = exp->child, *b = src->child; a; a = a->next, b = b->next, i++) {
			cJSON_AddItemToArray(at, cJSON_CreateNumber(i));
			diff(out, at, a, b);
			cJSON_Delete(cJSON_DetachItemViaPointer(at, at->child->prev));
		}
		return;
	}
	if (exp && src && json_equal(exp, src))
		return;
	fix = cJSON_CreateObject();
	json_set(fix, "at", cJSON_Duplicate(at, 1));
	if (exp)
		json_set(fix, "export", cJSON_Duplicate(exp, 1));
	if (src)
		json_set(fix, "source", cJSON_Duplicate(src, 1));
	cJSON_AddItemToArray(out, fix);
}

/*
 * Where the walk of the last fix went at each depth of its path: fixes
 * come in document order, so the next one's array index is found by going
 * on from there, not from the start (which made a patch of n fixes into
 * one array O(n^2)).
 */
struct fix_cursor {
	const cJSON *array[JSON_MAX_DEPTH + 2];
	int index[JSON_MAX_DEPTH + 2];
	cJSON *node[JSON_MAX_DEPTH + 2];
};

static cJSON *child_at(cJSON *v, const cJSON *key, struct fix_cursor *cur, int depth)
{
	cJSON *c;
	int i = 0;

	if (cJSON_IsString(key) && cJSON_IsObject(v))
		return cJSON_GetObjectItemCaseSensitive(v, key->valuestring);
	if (!cJSON_IsNumber(key) || !cJSON_IsArray(v) || key->valueint < 0 || depth > JSON_MAX_DEPTH)
		return NULL;
	c = v->child;
	if (cur->array[depth] == v && cur->node[depth] && cur->index[depth] <= key->valueint) {
		c = cur->node[depth];
		i = cur->index[depth];
	}
	for (; c && i < key->valueint; c = c->next)
		i++;
	cur->array[depth] = v;
	cur->index[depth] = i;
	cur->node[depth] = c;
	return c;
}

static void apply_fix(cJSON *doc, const cJSON *fix, struct fix_cursor *fc)
{
	const cJSON *at = cJSON_GetObjectItemCaseSensitive(fix, "at"), *k;
	const cJSON *exp = cJSON_GetObjectItemCaseSensitive(fix, "export");
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(fix, "source");
	cJSON *parent = doc, *cur, *copy;
	int n = cJSON_GetArraySize(at), i = 0;

	if (!n)
		return;
	for (k = at->child; k && i < n - 1; k = k->next, i++)
		if (!(parent = child_at(parent, k, fc, i)))
			return;
	cur = child_at(parent, k, fc, i);
	if (exp ? !cur || !json_equal(cur, exp) : cur != NULL)
		return;		/* the session changed it since: keep the session's */
	if (cJSON_IsString(k)) {
		if (src)
			json_set(parent, k->valuestring, cJSON_Duplicate(src, 1));
		else
			cJSON_DeleteItemFromObjectCaseSensitive(parent, k->valuestring);
	} else if (src && cur) {
		copy = cJSON_Duplicate(src, 1);
		cJSON_ReplaceItemViaPointer(parent, cur, copy);
		fc->node[i] = copy;
	} else {
		memset(fc, 0, sizeof(*fc));	/* the array changes length: walk afresh */
		if (src && k->valueint == cJSON_GetArraySize(parent))
			cJSON_AddItemToArray(parent, cJSON_Duplicate(src, 1));
		else if (!src)
			cJSON_DeleteItemFromArray(parent, k->valueint);
	}
}

int format_import(cJSON **state, cJSON **files, int *active, const struct format *f,
		  const cJSON *in, const cJSON *project, char **err)
{
	cJSON *doc = cJSON_Duplicate(in, 1), *st = cJSON_CreateObject(), *fl = cJSON_CreateObject();
	cJSON *norm = NULL, *exp = NULL, *patch = NULL, *imp, *at;
	int error = GS_ERROR;

	*state = *files = NULL;
	*active = 0;
	*err = NULL;
	if (f->upgrade(doc, err) < 0 || f->to_state(st, fl, active, doc, err) < 0)
		goto cleanup;
	if (project)
		json_set(st, "project", cJSON_Duplicate(project, 1));
	if (state_normalize(&norm, st, err) < 0) {
		st = NULL;
		goto cleanup;
	}
	st = NULL;
	exp = f->from_state(norm);
	patch = cJSON_CreateArray();
	at = cJSON_CreateArray();
	diff(patch, at, exp, doc);
	cJSON_Delete(at);
	{
		struct fix_cursor *fc = xcalloc(1, sizeof(*fc));

		for (const cJSON *fix = patch->child; fix; fix = fix->next)
			apply_fix(exp, fix, fc);
		free(fc);
	}
	if (!json_equal(exp, doc)) {	/* cannot happen: the patch is a full diff */
		*err = xstrdup("cannot hold this document faithfully");
		goto cleanup;
	}
	imp = json_obj(json_obj(norm, "extra"), "import");
	json_set_str(imp, "format", f->name);
	json_set(imp, "patch", patch);
	patch = NULL;
	*state = norm;
	*files = fl;
	norm = fl = NULL;
	error = 0;
cleanup:
	cJSON_Delete(doc);
	cJSON_Delete(st);
	cJSON_Delete(fl);
	cJSON_Delete(norm);
	cJSON_Delete(exp);
	cJSON_Delete(patch);
	return error;
}

int format_export(cJSON **doc, const struct format *f, const cJSON *state, char **err)
{
	const cJSON *imp = state_extra_get(state, "import"), *fix;
	const char *from = json_str(imp, "format");

	*err = NULL;
	*doc = f->from_state(state);
	if (!*doc) {
		*err = xstrfmt("cannot write this session as %s", f->name);
		return GS_ERROR;
	}
	if (from && !strcmp(from, f->name)) {
		struct fix_cursor *fc = xcalloc(1, sizeof(*fc));

		cJSON_ArrayForEach(fix, cJSON_GetObjectItemCaseSensitive(imp, "patch"))
			apply_fix(*doc, fix, fc);
		free(fc);
	}
	return 0;
}

/* The parts format_lost looks at: collections, and what "tokens" and "plans" hold. */
static const char *const parts[] = { "phases", "agents", "errors", "decisions", "tasks", "milestones",
				     "artifacts", "notes", "plans", "context_summary", "tokens", NULL };

static int held(const char *holds, const char *part)
{
	size_t n = strlen(part);

	for (const char *p = strstr(holds, part); p; p = strstr(p + 1, part))
		if ((p == holds || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* How many entries of part the format would drop. */
static int dropped(const struct format *f, const cJSON *state, const char *part)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(state, part), *c;
	int n = 0;

	if (held(f->holds, part))
		return 0;
	if (!strcmp(part, "tokens"))
		return state_tokens_used(v) > 0;
	if (cJSON_IsString(v))
		return *v->valuestring != 0;
	cJSON_ArrayForEach(c, v) {
		/* an agent its phase names is kept where the format keeps phase agents */
		if (!strcmp(part, "agents") && held(f->holds, "phase-agents") &&
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "phase")))
			continue;
		n++;
	}
	return n;
}

char *format_lost(const struct format *f, const cJSON *state)
{
	struct sbuf sb = SBUF_INIT;

	for (const char *const *p = parts; *p; p++) {
		int n = dropped(f, state, *p);

		if (!n)
			continue;
		sbuf_adds(&sb, sb.len ? ", " : "");
		if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(state, *p)))
			sbuf_addf(&sb, "%s (%d)", *p, n);
		else
			sbuf_adds(&sb, *p);
	}
	if (!sb.len) {
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_detach(&sb, NULL);
}

int format_print(char **out, size_t *len, const struct format *f, const cJSON *doc, const char *part)
{
	*out = NULL;
	*len = 0;
	return f->print(out, len, doc, part);
}

/* helpers for the format files */

const char *fmt_word_in(const struct word *w, const char *theirs, const char *def)
{
	for (; theirs && w->theirs; w++)
		if (!strcmp(w->theirs, theirs))
			return w->ours;
	return def;
}

const char *fmt_word_out(const struct word *w, const char *ours)
{
	for (; ours && w->theirs; w++)
		if (!strcmp(w->ours, ours))
			return w->theirs;
	return ours;
}

void fmt_take(cJSON *dst, const char *as, cJSON *src, const char *key)
{
	cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(src, key);

	if (v)
		json_set(dst, as, v);
}

void fmt_copy(cJSON *dst, const char *as, const cJSON *src, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, key);

	if (v)
		json_set(dst, as, cJSON_Duplicate(v, 1));
}

void fmt_move_rest(cJSON *dst, cJSON *src)
{
	while (src && src->child) {
		cJSON *v = cJSON_DetachItemViaPointer(src, src->child);

		if (cJSON_GetObjectItemCaseSensitive(dst, v->string))
			cJSON_Delete(v);	/* a name the model uses: the patch keeps it */
		else
			cJSON_AddItemToObject(dst, v->string, v);
	}
}

void fmt_copy_rest(cJSON *dst, const cJSON *src, const char *const *skip)
{
	for (const cJSON *c = src ? src->child : NULL; c; c = c->next) {
		int known = 0;

		for (const char *const *k = skip; *k && !known; k++)
			known = !strcmp(*k, c->string);
		if (!known && !cJSON_GetObjectItemCaseSensitive(dst, c->string))
			cJSON_AddItemToObject(dst, c->string, cJSON_Duplicate(c, 1));
	}
}

void fmt_rest_to_extra(cJSON *state, const char *name, cJSON *rest)
{
	if (rest && rest->child)
		fmt_move_rest(json_obj(json_obj(state, "extra"), name), rest);
}

const cJSON *fmt_from_extra(const cJSON *state, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(state, "extra"), name);
}

cJSON *fmt_entries(const cJSON *list, const char *const *keys)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *c;

	cJSON_ArrayForEach(c, list) {
		cJSON *e = cJSON_CreateObject();

		for (const char *const *k = keys; *k; k++)
			json_set(e, *k, json_dup_or_null(c, *k));
		fmt_copy_rest(e, c, keys);
		cJSON_AddItemToArray(out, e);
	}
	return out;
}

cJSON *fmt_blank_entry(const char *const *keys)
{
	cJSON *e = cJSON_CreateObject();

	for (; *keys; keys++)
		json_set(e, *keys, cJSON_CreateNull());
	return e;
}

/* Whether v is an array whose every element passes is. */
static int all_of(const cJSON *v, cJSON_bool (*is)(const cJSON *))
{
	const cJSON *c;

	if (!cJSON_IsArray(v))
		return 0;
	cJSON_ArrayForEach(c, v)
		if (!is(c))
			return 0;
	return 1;
}

int fmt_all_objects(const cJSON *v)
{
	return all_of(v, cJSON_IsObject);
}

int fmt_all_strings(const cJSON *v)
{
	return all_of(v, cJSON_IsString);
}

int fmt_parse_object(cJSON **doc, const char *buf, size_t len, int yaml, char **err)
{
	if ((yaml ? yaml_parse : json_parse)(doc, buf, len, FORMAT_MAX_BYTES, err) < 0)
		return GS_ERROR;
	if (!cJSON_IsObject(*doc)) {
		cJSON_Delete(*doc);
		*doc = NULL;
		*err = xstrdup(yaml ? "not a YAML mapping" : "not a JSON object");
		return GS_ERROR;
	}
	return 0;
}

int fmt_print_json(char **out, size_t *len, const cJSON *v)
{
	*out = json_print(v, 1, len);
	return 0;
}

int fmt_print_yaml(char **out, size_t *len, const cJSON *v)
{
	char *err = NULL;
	int error = yaml_emit(out, len, v, &err);

	free(err);
	return error;
}
