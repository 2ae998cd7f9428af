/*
 * state_split.c - session.json and the collections a large state keeps
 * beside it, in chunks (lists) and shards (the manifest), so that a
 * checkpoint costs what it changes. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PART_MAX (256u * 1024 * 1024)

const char *const state_split_keys[9] = {
	"agents", "files", "errors", "decisions", "tasks", "milestones", "artifacts", "notes", "commits",
};
#define FILES_BIT 2u

static unsigned bit(const char *key)
{
	for (unsigned i = 0; i < ARRAY_SIZE(state_split_keys); i++)
		if (!strcmp(key, state_split_keys[i]))
			return 1u << i;
	return 0;
}

/*
 * What each operation reads or writes besides session.json's own keys
 * (phases, tokens, project, extra ...). An operation not named here
 * loads everything: being wrong here would lose data, being absent only
 * costs time.
 */
static const struct { const char *op; const char *needs; } needs[] = {
	{ "note", "notes" },
	{ "summary", "" },
	{ "set", "" },
	{ "session.pause", "" },
	{ "session.close", "" },
	{ "decide", "decisions" },
	{ "task.add", "tasks" },
	{ "task.done", "tasks" },
	{ "milestone.add", "milestones" },
	{ "milestone.done", "milestones" },
	{ "artifact", "artifacts" },
	{ "phase.add", "" },
	{ "phase.start", "" },
	{ "phase.skip", "" },
	{ "phase.step", "" },
	{ "phase.complete", "errors" },
	{ "phase.fail", "errors" },
	{ "phase.retry", "errors" },
	{ "agent.start", "agents" },
	{ "agent.progress", "agents" },
	{ "agent.done", "agents" },
	{ "agent.fail", "agents errors" },
	{ "tokens.add", "agents" },
	{ "error.add", "agents errors" },
	{ "error.resolve", "errors" },
	{ "file.created", "files" },
	{ "file.modified", "files" },
	{ "file.deleted", "files" },
	{ "checkpoint", "files" },
	{ "hook.pre-commit", "files" },
	{ "commit.record", "files commits" },
	{ "commit.rewrite", "commits" },
	{ "checkout", "" },
};

unsigned state_op_needs(const cJSON *op)
{
	const char *name = op_name(op);

	for (size_t i = 0; name && i < ARRAY_SIZE(needs); i++) {
		unsigned mask = 0;
		char *words, *w, *save = NULL;

		if (strcmp(name, needs[i].op))
			continue;
		words = xstrdup(needs[i].needs);
		for (w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
			mask |= bit(w);
		free(words);
		return mask;
	}
	return STATE_ALL;
}

/* The manifest shard of path: FNV-1a, low byte. */
static unsigned shard(const char *path)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h & 0xff;
}

static char *part_path(const char *key, unsigned i, int files)
{
	return files ? xstrfmt("state/%s/%02x.json", key, i) : xstrfmt("state/%s/%06u.json", key, i);
}

/* The parts of key, in path order: a prefix match on a list sorted by path. */
static size_t parts_of(const struct gs_part **first, const char *key, const struct gs_part *parts, size_t n)
{
	char *prefix = xstrfmt("state/%s/", key);
	size_t len = strlen(prefix), count = 0;

	*first = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(parts[i].path, prefix, len)) {
			if (!count)
				*first = &parts[i];
			count++;
		}
	free(prefix);
	return count;
}

/* The entries of key's parts, in one list or object; NULL with *err when damaged. */
static cJSON *gather(const char *key, const struct gs_part *p, size_t count, char **err)
{
	int files = !strcmp(key, "files");
	cJSON *all = files ? cJSON_CreateObject() : cJSON_CreateArray();

	for (size_t i = 0; i < count; i++) {
		char *want = part_path(key, files ? 0 : (unsigned)i, files);
		cJSON *v = NULL;
		unsigned s;
		int bad = json_parse(&v, p[i].text, p[i].len, PART_MAX, err) < 0;

		if (!bad && !files)
			bad = !cJSON_IsArray(v) || strcmp(p[i].path, want) ||
			      (i + 1 < count && cJSON_GetArraySize(v) != STATE_CHUNK);
		if (!bad && files)
			bad = !cJSON_IsObject(v) || sscanf(p[i].path + strlen("state/files/"), "%2x.json", &s) != 1;
		for (cJSON *e = bad ? NULL : v->child; e && !bad; e = e->next)
			bad = files && (shard(e->string) != s || cJSON_GetObjectItemCaseSensitive(all, e->string));
		free(want);
		if (bad) {
			if (!*err)
				*err = xstrfmt("'%s' is not in the right shape", p[i].path);
			cJSON_Delete(v);
			cJSON_Delete(all);
			return NULL;
		}
		while (v->child)
			cJSON_AddItemToArray(all, cJSON_DetachItemViaPointer(v, v->child));
		cJSON_Delete(v);
	}
	return all;
}

int state_join(unsigned *unloaded, cJSON *raw, unsigned wanted, const struct gs_part *parts,
	       size_t n, char **err)
{
	*unloaded = 0;
	*err = NULL;
	for (unsigned i = 0; i < ARRAY_SIZE(state_split_keys); i++) {
		const char *key = state_split_keys[i];
		cJSON *v = cJSON_GetObjectItemCaseSensitive(raw, key), *all;
		const struct gs_part *first;
		size_t count = parts_of(&first, key, parts, n);
		char *ref = xstrfmt("state/%s", key);
		int split = cJSON_IsString(v) && !strcmp(v->valuestring, ref);

		free(ref);
		if (!split && count) {
			*err = xstrfmt("'%s' has parts under state/ but is not kept there", key);
			return GS_ERROR;
		}
		if (!split)
			continue;
		if (!(wanted & (1u << i))) {
			*unloaded |= 1u << i;
			all = i == 1 ? cJSON_CreateObject() : cJSON_CreateArray();
		} else if (!count) {
			*err = xstrfmt("'%s' is kept under state/%s/, which is missing", key, key);
			return GS_ERROR;
		} else if (!(all = gather(key, first, count, err))) {
			return GS_ERROR;
		}
		cJSON_ReplaceItemInObjectCaseSensitive(raw, key, all);
	}
	return 0;
}

int state_load(cJSON **out, unsigned *unloaded, const char *text, size_t len, unsigned wanted,
	       const struct gs_part *parts, size_t n, char **err)
{
	cJSON *raw = NULL;
	int error = json_parse(&raw, text, len, PART_MAX, err);

	*out = NULL;
	if (!error && (error = state_join(unloaded, raw, wanted, parts, n, err)) < 0)
		cJSON_Delete(raw);
	if (!error)
		error = state_normalize(out, raw, err);	/* takes raw */
	return error;
}

static void add_part(struct gs_part **out, size_t *n, char *path, char *text, size_t len)
{
	*out = xrealloc(*out, (*n + 1) * sizeof(**out));
	(*out)[*n].path = path;
	(*out)[*n].text = text;
	(*out)[(*n)++].len = len;
}

/* The text of chunk or shard i of a collection: references, not copies. */
static char *chunk_text(size_t *len, const cJSON *coll, unsigned i, int files)
{
	cJSON *c = files ? cJSON_CreateObject() : cJSON_CreateArray();
	const cJSON *e;
	unsigned at = 0;
	char *text;

	for (e = coll->child; e; e = e->next, at++)
		if (files ? shard(e->string) == i : at / STATE_CHUNK == i) {
			if (files)
				cJSON_AddItemReferenceToObject(c, e->string, (cJSON *)e);
			else
				cJSON_AddItemReferenceToArray(c, (cJSON *)e);
		}
	text = c->child ? json_print(c, 1, len) : NULL;
	cJSON_Delete(c);
	return text;
}

/* Parts to write for one loaded collection, and old ones to remove. */
static void split_one(struct gs_part **out, size_t *nout, const char *key, const cJSON *coll,
		      const struct gs_part *old, size_t nold)
{
	int files = !strcmp(key, "files"), size = cJSON_GetArraySize(coll);
	unsigned count = size <= STATE_CHUNK ? 0 : files ? 256 : (unsigned)(size + STATE_CHUNK - 1) / STATE_CHUNK;
	const struct gs_part *first;
	size_t nfirst = parts_of(&first, key, old, nold);
	char **made = xcalloc(count + 1, sizeof(*made));
	size_t nmade = 0;

	for (unsigned i = 0; i < count; i++) {
		char *path = part_path(key, i, files);
		size_t len = 0;
		char *text = chunk_text(&len, coll, i, files);
		const struct gs_part *was = NULL;

		for (size_t k = 0; k < nfirst && !was; k++)
			if (!strcmp(first[k].path, path))
				was = &first[k];
		if (!text) {
			free(path);
			continue;
		}
		made[nmade++] = xstrdup(path);
		if (was && was->len == len && !memcmp(was->text, text, len)) {
			free(path);
			free(text);
		} else {
			add_part(out, nout, path, text, len);
		}
	}
	for (size_t k = 0; k < nfirst; k++) {	/* old parts no longer made */
		int stays = 0;

		for (size_t i = 0; i < nmade && !stays; i++)
			stays = !strcmp(made[i], first[k].path);
		if (!stays)
			add_part(out, nout, xstrdup(first[k].path), NULL, 0);
	}
	for (size_t i = 0; i < nmade; i++)
		free(made[i]);
	free(made);
}

int state_split(char **core, size_t *len, struct gs_part **out, size_t *nout, const cJSON *state,
		unsigned unloaded, const struct gs_part *old, size_t nold)
{
	cJSON *top = cJSON_CreateObject();

	*core = NULL;
	*out = NULL;
	*nout = 0;
	for (const cJSON *c = state->child; c; c = c->next) {
		unsigned b = bit(c->string);

		if (b && (unloaded & b) && c->child) {
			cJSON_Delete(top);
			gs_parts_free(*out, *nout);
			*out = NULL;
			*nout = 0;
			return GS_EPARTIAL;
		}
		if (b && !(unloaded & b))
			split_one(out, nout, c->string, c, old, nold);
		if (b && ((unloaded & b) || cJSON_GetArraySize(c) > STATE_CHUNK)) {
			char *ref = xstrfmt("state/%s", c->string);
			cJSON_AddItemToObject(top, c->string, cJSON_CreateString(ref));
			free(ref);
		} else {
			cJSON_AddItemReferenceToObject(top, c->string, (cJSON *)c);
		}
	}
	*core = json_print(top, 1, len);
	cJSON_Delete(top);
	return 0;
}
