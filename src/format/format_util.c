/*
 * format_util.c - the helpers the format files share: words mapped both
 * ways, keys moved and copied, entries made, documents parsed and
 * printed. Pure: no I/O.
 */
#include "format-internal.h"
#include "git-session/yaml.h"

#include <stdlib.h>
#include <string.h>

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

int fmt_parse_json(cJSON **doc, const char *buf, size_t len, char **err)
{
	const char *end = NULL;
	cJSON *v = NULL;
	size_t line = 1;
	char *why;

	if (json_parse(doc, buf, len, FORMAT_MAX_BYTES, err) == 0)
		return 0;
	if (len > FORMAT_MAX_BYTES || (v = cJSON_ParseWithLengthOpts(buf, len, &end, 0))) {
		cJSON_Delete(v);
		return GS_ERROR;	/* JSON, refused for another reason: no one line to name */
	}
	for (const char *p = buf; end && p < end && p < buf + len; p++)
		line += *p == '\n';
	why = xstrfmt("%zu: %s", line, *err);
	free(*err);
	*err = why;
	return GS_ERROR;
}

int fmt_parse_object(cJSON **doc, const char *buf, size_t len, int yaml, char **err)
{
	if ((yaml ? yaml_parse(doc, buf, len, FORMAT_MAX_BYTES, err) : fmt_parse_json(doc, buf, len, err)) < 0)
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
