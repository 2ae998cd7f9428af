/*
 * state_split.c - session.json and the collections a large state keeps
 * beside it, in chunks (lists) and shards (the manifest), so that a
 * checkpoint costs what it changes. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PART_MAX (256u * 1024 * 1024)

const char *const state_split_keys[SPLIT_COUNT] = {
#define GS_SPLIT_NAME(id, key) [SPLIT_##id] = key,
	GS_SPLIT_KEYS(GS_SPLIT_NAME)
#undef GS_SPLIT_NAME
};

unsigned state_split_bit(const char *key)
{
	for (unsigned i = 0; i < ARRAY_SIZE(state_split_keys); i++)
		if (!strcmp(key, state_split_keys[i]))
			return 1u << i;
	return 0;
}

unsigned state_shard(const char *path)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h & 0xff;
}

static unsigned bit_index(unsigned b)
{
	unsigned i = 0;

	while (b > 1u) {
		b >>= 1;
		i++;
	}
	return i;
}

int state_tail_before(const struct state_loaded *loaded, enum state_split_index i)
{
	return loaded->tailed & (1u << i) ? (int)(loaded->first_chunk[i] * loaded->chunk[i]) : 0;
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

/* The shard a part of the manifest is, from its name ("state/files/3a.json"). */
static int part_shard(unsigned *s, const struct gs_part *p)
{
	return sscanf(p->path + strlen("state/files/"), "%2x.json", s) == 1 ? 0 : GS_ERROR;
}

/*
 * Checks one part of key, parsed as v: its name, shape and (a shard) what
 * it holds. A list's chunk i is full, unless it is the last (count) of a
 * list whose tail is not kept in session.json.
 */
static int part_ok(const char *key, const struct gs_part *p, size_t i, size_t count, int chunk, const cJSON *v)
{
	int files = !strcmp(key, "files"), ok;
	char *want = part_path(key, (unsigned)i, files);
	unsigned s;

	if (!files) {
		ok = cJSON_IsArray(v) && !strcmp(p->path, want) &&
		     (i + 1 == count || cJSON_GetArraySize(v) == chunk);
	} else {
		ok = cJSON_IsObject(v) && part_shard(&s, p) == 0;
		/* a path has one shard, so a path twice can only be twice in one */
		for (const cJSON *e = ok ? v->child : NULL; e && ok; e = e->next)
			ok = state_shard(e->string) == s && cJSON_GetObjectItemCaseSensitive(v, e->string) == e;
	}
	free(want);
	return ok;
}

/*
 * The entries of key's parts, in one list or object; NULL with *err when
 * damaged. A list's parts are its chunks from number from on (0 but for
 * a tail), all full when full. With shards (the manifest), only the parts
 * of the shards wanted; the entries of the others are counted in *elsewhere.
 */
static cJSON *gather(int *elsewhere, const char *key, const struct gs_part *p, size_t count, unsigned from,
		     int full, int chunk, const struct state_shards *shards, char **err)
{
	int files = !strcmp(key, "files");
	cJSON *all = files ? cJSON_CreateObject() : cJSON_CreateArray();

	for (size_t i = 0; i < count; i++) {
		cJSON *v = NULL;
		unsigned s;
		int n;

		if (shards && part_shard(&s, &p[i]) == 0 && !shards->want[s] &&
		    (n = json_count_members(p[i].text, p[i].len)) >= 0) {
			*elsewhere += n;
			continue;
		}
		if (json_parse(&v, p[i].text, p[i].len, PART_MAX, err) < 0 ||
		    !part_ok(key, &p[i], from + i, from + count + !!full, chunk, v)) {
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

/* The manifest kept apart, with the shards wanted or all of it. */
static int join_files(struct state_loaded *out, cJSON *raw, const struct gs_part *first, size_t count,
		      unsigned wanted, const struct state_shards *shards, char **err)
{
	cJSON *all;

	if (!(wanted & NEED(FILES))) {
		out->unloaded |= NEED(FILES);
		all = cJSON_CreateObject();
	} else if (!count && !shards) {	/* the shards asked for may not exist yet */
		*err = xstrdup("'files' is kept under state/files/, which is missing");
		return GS_ERROR;
	} else if (!(all = gather(&out->files_elsewhere, "files", first, count, 0, 0, 0, shards, err))) {
		return GS_ERROR;
	}
	if (shards && (wanted & NEED(FILES))) {
		out->partial = 1;
		if (!shards->count_rest)
			out->files_elsewhere = -1;	/* the other shards were not read */
		memcpy(out->shards, shards->want, sizeof(out->shards));
	}
	cJSON_ReplaceItemInObjectCaseSensitive(raw, "files", all);
	return 0;
}

/*
 * A list kept apart: {"chunks": "state/<key>", "chunked": N, "tail": [...]}
 * (N entries in full chunks, the rest in session.json), or, as checkpoints
 * before it wrote, "state/<key>" with every chunk under state/. Of what
 * was read: every chunk (wanted, not in tail), the last ones or none.
 */
static int join_list(struct state_loaded *out, cJSON *raw, unsigned i, const struct gs_part *first,
		     size_t count, unsigned wanted, unsigned tail, char **err)
{
	const char *key = state_split_keys[i];
	cJSON *v = cJSON_GetObjectItemCaseSensitive(raw, key), *all, *rest = NULL;
	char *ref = xstrfmt("state/%s", key);
	int old = cJSON_IsString(v) && !strcmp(v->valuestring, ref);
	int kept = cJSON_IsObject(v) && json_str(v, "chunks") && !strcmp(json_str(v, "chunks"), ref);
	unsigned bit = 1u << i, from = 0, nchunks = 0;
	double chunked = kept ? json_num(v, "chunked", -1) : 0, size = kept ? json_num(v, "chunk", STATE_CHUNK) : STATE_CHUNK;

	free(ref);
	if (!old && !kept) {
		if (count)
			*err = xstrfmt("'%s' has parts under state/ but is not kept there", key);
		return count ? GS_ERROR : 0;
	}
	rest = kept ? cJSON_GetObjectItemCaseSensitive(v, "tail") : NULL;
	if (kept && (!json_is_int(chunked) || chunked < 0 || chunked > (double)INT_MAX || !json_is_int(size) ||
		     size < 1 || size > STATE_CHUNK || (int)chunked % (int)size || !cJSON_IsArray(rest) ||
		     count > (size_t)(chunked / size))) {
		*err = xstrfmt("'%s' is not in the right shape", key);
		return GS_ERROR;
	}
	nchunks = (unsigned)(chunked / size);
	out->chunk[i] = (unsigned)size;
	if (old && (!(wanted & bit) || ((tail & bit) && !count))) {
		out->unloaded |= bit;	/* an append to it loads it whole, and writes it anew */
		cJSON_ReplaceItemInObjectCaseSensitive(raw, key, cJSON_CreateArray());
		return 0;
	}
	if (kept)	/* all its chunks, or the last ones, or none */
		from = (wanted & bit) && !(tail & bit) ? 0 : nchunks - (unsigned)count;
	else if ((tail & bit) && sscanf(first->path + strlen(key) + 7, "%06u", &from) != 1)
		from = 0;
	if (((kept && !from && count != nchunks) || (old && !count))) {
		*err = xstrfmt("'%s' is kept under state/%s/, which is missing", key, key);
		return GS_ERROR;
	}
	if (!(all = gather(NULL, key, first, count, from, kept, (int)size, NULL, err)))
		return GS_ERROR;
	while (rest && rest->child)
		cJSON_AddItemToArray(all, cJSON_DetachItemViaPointer(rest, rest->child));
	if (from || (kept && count < nchunks) || (tail & bit)) {
		out->tailed |= bit;
		out->first_chunk[i] = from;
		out->tail_size[i] = cJSON_GetArraySize(all);
	}
	cJSON_ReplaceItemInObjectCaseSensitive(raw, key, all);
	return 0;
}

int state_join(struct state_loaded *out, cJSON *raw, unsigned wanted, unsigned tail,
	       const struct state_shards *shards, const struct gs_part *parts, size_t n, char **err)
{
	memset(out, 0, sizeof(*out));
	*err = NULL;
	for (unsigned i = 0; i < ARRAY_SIZE(state_split_keys); i++) {
		const struct gs_part *first;
		size_t count = parts_of(&first, state_split_keys[i], parts, n);
		int error;

		if (i == SPLIT_FILES) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(raw, "files");

			if (!(cJSON_IsString(v) && !strcmp(v->valuestring, "state/files")))
				error = count ? (*err = xstrdup("'files' has parts under state/ but is not kept there"),
						 GS_ERROR) : 0;
			else
				error = join_files(out, raw, first, count, wanted, shards, err);
		} else {
			error = join_list(out, raw, i, first, count, wanted, tail, err);
		}
		if (error < 0)
			return error;
	}
	return 0;
}

int state_load(cJSON **out, struct state_loaded *loaded, const char *text, size_t len, unsigned wanted,
	       unsigned tail, const struct state_shards *shards, const struct gs_part *parts, size_t n,
	       char **err)
{
	cJSON *raw = NULL;
	int error = json_parse(&raw, text, len, PART_MAX, err);

	*out = NULL;
	if (!error && (error = state_join(loaded, raw, wanted, tail, shards, parts, n, err)) < 0)
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

/* The texts of a collection's chunks or shards, in one pass over it; NULL for an empty one. */
static char **chunk_texts(size_t **lens, const cJSON *coll, unsigned count, unsigned chunk, int files,
			  const unsigned char *only)
{
	cJSON **c = xcalloc(count, sizeof(*c));
	char **texts = xcalloc(count, sizeof(*texts));
	unsigned at = 0;

	*lens = xcalloc(count, sizeof(**lens));
	for (unsigned i = 0; i < count; i++)
		c[i] = files ? cJSON_CreateObject() : cJSON_CreateArray();
	for (const cJSON *e = count ? coll->child : NULL; e; e = e->next, at++) {
		unsigned i = files ? state_shard(e->string) : at / chunk;

		if (i >= count)
			break;	/* a list's tail, kept in session.json */
		if (files)	/* references, not copies */
			cJSON_AddItemReferenceToObject(c[i], e->string, (cJSON *)e);
		else
			cJSON_AddItemReferenceToArray(c[i], (cJSON *)e);
	}
	for (unsigned i = 0; i < count; i++) {
		texts[i] = c[i]->child && (!only || only[i]) ? json_print(c[i], 1, &(*lens)[i]) : NULL;
		cJSON_Delete(c[i]);
	}
	free(c);
	return texts;
}

/* Whether part is key's and, for a list, its chunk number (*at). */
static int chunk_of(unsigned *at, const struct gs_part *part, const char *key)
{
	size_t len = strlen(key);

	return !strncmp(part->path, "state/", 6) && !strncmp(part->path + 6, key, len) &&
	       part->path[6 + len] == '/' && sscanf(part->path + 7 + len, "%06u", at) == 1;
}

/*
 * Adds the part at path with text to out (text NULL: its removal), unless
 * old holds it already the same (or, for a removal, does not hold it).
 */
static void write_part(struct gs_part **out, size_t *nout, char *path, char *text, size_t len,
		       const struct gs_part *old, size_t nold)
{
	const struct gs_part *was = NULL;

	for (size_t k = 0; k < nold && !was; k++)
		if (!strcmp(old[k].path, path))
			was = &old[k];
	if (text ? was && was->len == len && !memcmp(was->text, text, len) : !was) {
		free(path);
		free(text);
		return;
	}
	add_part(out, nout, path, text, len);
}

/*
 * The manifest's parts to write, and old ones to remove. With only (a
 * partly loaded manifest), the other shards are left as they are.
 */
static void split_files(struct gs_part **out, size_t *nout, const cJSON *coll, const unsigned char *only,
			const struct gs_part *old, size_t nold)
{
	unsigned count = cJSON_GetArraySize(coll) <= STATE_CHUNK && !only ? 0 : 256;
	size_t *lens = NULL;
	char **texts = chunk_texts(&lens, coll, count, 0, 1, only);

	for (unsigned i = 0; i < count; i++)
		if (!only || only[i])
			write_part(out, nout, part_path("files", i, 1), texts[i], lens[i], old, nold);
	for (size_t k = 0; !count && k < nold; k++)
		if (!strncmp(old[k].path, "state/files/", 12))
			add_part(out, nout, xstrdup(old[k].path), NULL, 0);
	free(texts);
	free(lens);
}

/*
 * A list: up to STATE_CHUNK entries stay in session.json; past that, its
 * full chunks go under state/<key>/ and the rest stays in session.json
 * as the tail, so that appending writes session.json alone until a chunk
 * fills. coll holds the entries from chunk base on. Returns its value in
 * session.json.
 */
static cJSON *split_list(struct gs_part **out, size_t *nout, const char *key, const cJSON *coll, int tailed,
			 unsigned base, unsigned chunk, const struct gs_part *old, size_t nold)
{
	unsigned size = (unsigned)cJSON_GetArraySize(coll), nfull, at;
	size_t *lens = NULL;
	char **texts, *ref;
	cJSON *v, *rest;
	const cJSON *e = coll->child;

	if (!tailed)	/* written whole: in today's chunk size */
		chunk = STATE_LIST_CHUNK;
	nfull = !tailed && size <= STATE_CHUNK ? 0 : size / chunk;
	texts = chunk_texts(&lens, coll, nfull, chunk, 0, NULL);
	for (unsigned i = 0; i < nfull; i++)
		write_part(out, nout, part_path(key, base + i, 0), texts[i], lens[i], old, nold);
	for (size_t k = 0; k < nold; k++)	/* old chunks past the new last one */
		if (chunk_of(&at, &old[k], key) && at >= base + nfull)
			add_part(out, nout, xstrdup(old[k].path), NULL, 0);
	free(texts);
	free(lens);
	if (!tailed && size <= STATE_CHUNK)
		return cJSON_CreateArrayReference(coll->child);
	v = cJSON_CreateObject();
	ref = xstrfmt("state/%s", key);
	json_set_str(v, "chunks", ref);
	free(ref);
	json_set_num(v, "chunked", (double)(base + nfull) * chunk);
	if (chunk != STATE_CHUNK)
		json_set_num(v, "chunk", chunk);
	rest = json_set(v, "tail", cJSON_CreateArray());
	for (unsigned i = 0; e && i < nfull * chunk; i++)
		e = e->next;
	for (; e; e = e->next)
		cJSON_AddItemReferenceToArray(rest, (cJSON *)e);
	return v;
}

int state_split(char **core, size_t *len, struct gs_part **out, size_t *nout, const cJSON *state,
		const struct state_loaded *loaded, const struct gs_part *old, size_t nold)
{
	static const struct state_loaded all;
	cJSON *top = cJSON_CreateObject();

	*core = NULL;
	*out = NULL;
	*nout = 0;
	loaded = loaded ? loaded : &all;
	for (const cJSON *c = state->child; c; c = c->next) {
		unsigned b = state_split_bit(c->string), base = 0;
		const unsigned char *only = b == NEED(FILES) && loaded->partial ? loaded->shards : NULL;
		int reached = (loaded->unloaded & b) && c->child, tailed = (loaded->tailed & b) != 0;

		if (tailed) {	/* a tail that lost entries: what went is not known here */
			base = loaded->first_chunk[bit_index(b)];
			reached = cJSON_GetArraySize(c) < loaded->tail_size[bit_index(b)];
		}
		for (const cJSON *e = only ? c->child : NULL; e && !reached; e = e->next)
			reached = !only[state_shard(e->string)];
		if (reached) {
			cJSON_Delete(top);
			gs_parts_free(*out, *nout);
			*out = NULL;
			*nout = 0;
			return GS_EPARTIAL;
		}
		if (b && (loaded->unloaded & b)) {	/* as it was: a folder of chunks */
			char *ref = xstrfmt("state/%s", c->string);
			cJSON_AddItemToObject(top, c->string, cJSON_CreateString(ref));
			free(ref);
		} else if (b == NEED(FILES)) {
			split_files(out, nout, c, only, old, nold);
			if (only || cJSON_GetArraySize(c) > STATE_CHUNK)
				cJSON_AddItemToObject(top, c->string, cJSON_CreateString("state/files"));
			else
				cJSON_AddItemReferenceToObject(top, c->string, (cJSON *)c);
		} else if (b) {
			cJSON_AddItemToObject(top, c->string, split_list(out, nout, c->string, c, tailed, base,
									 loaded->chunk[bit_index(b)], old, nold));
		} else {
			cJSON_AddItemReferenceToObject(top, c->string, (cJSON *)c);
		}
	}
	*core = json_print(top, 1, len);
	cJSON_Delete(top);
	return 0;
}
