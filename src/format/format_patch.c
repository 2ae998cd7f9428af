/*
 * format_patch.c - the round-trip patch: what turns the export of a
 * freshly imported state back into the source document, and applying it
 * on export. Pure: no I/O.
 */
#include "format-internal.h"

#include <stdlib.h>
#include <string.h>

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

void format_patch_diff(cJSON *patch, const cJSON *exp, const cJSON *src)
{
	cJSON *at = cJSON_CreateArray();

	diff(patch, at, exp, src);
	cJSON_Delete(at);
}

void format_patch_apply(cJSON *doc, const cJSON *patch)
{
	struct fix_cursor *fc = xcalloc(1, sizeof(*fc));
	const cJSON *fix;

	cJSON_ArrayForEach(fix, patch)
		apply_fix(doc, fix, fc);
	free(fc);
}
