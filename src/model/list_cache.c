/*
 * list_cache.c - the file that remembers what `list` shows of each
 * checkpoint (see list_cache.h). Pure: no I/O.
 */
#include "git-session/json.h"
#include "git-session/list_cache.h"
#include "git-session/util.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void list_cache_clear(struct list_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].status);
		free(c->v[i].created);
		free(c->v[i].updated);
		free(c->v[i].topic);
		free(c->v[i].session);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

void list_cache_add(struct list_cache *c, const char *commit, int64_t time, char *status,
		    char *created, char *updated, char *topic, char *session)
{
	struct list_entry *e;

	ALLOC_GROW(c->v, c->n + 1, c->alloc);
	e = &c->v[c->n++];
	snprintf(e->commit, sizeof(e->commit), "%s", commit);
	e->time = time;
	e->status = status;
	e->created = created;
	e->updated = updated;
	e->topic = topic;
	e->session = session;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct list_entry *)a)->commit, ((const struct list_entry *)b)->commit);
}

void list_cache_sort(struct list_cache *c)
{
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_entry);
}

const struct list_entry *list_cache_find(const struct list_cache *c, const char *commit)
{
	struct list_entry key;

	if (!c->n || strlen(commit) != 40)
		return NULL;
	memcpy(key.commit, commit, sizeof(key.commit));
	return bsearch(&key, c->v, c->n, sizeof(*c->v), cmp_entry);
}

/* The next space-separated word of *p (up to end), or NULL. */
static char *next_word(const char **p, const char *end)
{
	const char *s = *p, *sp = memchr(s, ' ', (size_t)(end - s));

	if (!sp || sp == s)
		return NULL;
	*p = sp + 1;
	return xstrndup(s, (size_t)(sp - s));
}

/* The string at i of a, copied, or NULL for a null; ok cleared for anything else. */
static char *field(const cJSON *a, int i, int *ok)
{
	const cJSON *v = cJSON_GetArrayItem(a, i);

	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	*ok &= cJSON_IsNull(v);
	return NULL;
}

static int parse_line(struct list_cache *c, const char *s, const char *end)
{
	char *commit = next_word(&s, end), *time = commit ? next_word(&s, end) : NULL, *stop = NULL, *err = NULL;
	char *v[5] = { NULL };
	long long when = time ? strtoll(time, &stop, 10) : 0;
	cJSON *a = NULL;
	int ok = time && stop && !*stop && strlen(commit) == 40 &&
		 json_parse(&a, s, (size_t)(end - s), 1 << 20, &err) == 0 &&
		 cJSON_IsArray(a) && (cJSON_GetArraySize(a) == 4 || cJSON_GetArraySize(a) == 5);

	for (size_t i = 0; ok && i < 40; i++)
		ok = isxdigit((unsigned char)commit[i]) && !isupper((unsigned char)commit[i]);
	for (int i = 0; ok && i < cJSON_GetArraySize(a); i++)
		v[i] = field(a, i, &ok);
	if (ok && v[0])
		list_cache_add(c, commit, when, v[0], v[1], v[2], v[3], v[4]);
	else
		for (int i = 0; i < 5; i++)
			free(v[i]);
	cJSON_Delete(a);
	free(err);
	free(commit);
	free(time);
	return ok && v[0] ? 0 : GS_ERROR;
}

int list_cache_parse(struct list_cache *out, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl = memchr(p, '\n', len);

	memset(out, 0, sizeof(*out));
	for (const char *q = text; q < end; q++)	/* words are printable; the topic is JSON */
		if ((unsigned char)*q < 0x20 && *q != '\n')
			return GS_ERROR;
	if (!gs_utf8_valid(text, len) || !nl || (size_t)(nl - p) != strlen(LIST_CACHE_HEADER) || memcmp(p, LIST_CACHE_HEADER, (size_t)(nl - p)))
		return GS_ERROR;
	for (p = nl + 1; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))) || parse_line(out, p, nl) < 0) {
			list_cache_clear(out);
			return GS_ERROR;
		}
	}
	list_cache_sort(out);
	for (size_t i = 1; i < out->n; i++)
		if (!strcmp(out->v[i - 1].commit, out->v[i].commit)) {
			list_cache_clear(out);
			return GS_ERROR;
		}
	return 0;
}

char *list_cache_format(const struct list_cache *c, size_t *len)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_adds(&sb, LIST_CACHE_HEADER "\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct list_entry *e = &c->v[i];
		const char *v[5] = { e->status, e->created, e->updated, e->topic, e->session };
		cJSON *a = cJSON_CreateArray();
		char *text;

		for (int k = 0; k < (e->session ? 5 : 4); k++)
			cJSON_AddItemToArray(a, v[k] ? cJSON_CreateString(v[k]) : cJSON_CreateNull());
		text = json_print(a, 0, NULL);
		sbuf_addf(&sb, "%s %" PRId64 " %s\n", e->commit, e->time, text);
		free(text);
		cJSON_Delete(a);
	}
	return sbuf_detach(&sb, len);
}
