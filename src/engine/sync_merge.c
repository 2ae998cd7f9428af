/*
 * sync_merge.c - merging two histories of a session by replaying both
 * sides' operations in one order. They are replayed onto their merge base
 * in the deterministic order of sync_order.h, so that whichever machine
 * merges, the merged state is the same. Engine layer: store and state, no
 * libgit2.
 */
#include "sync-internal.h"
#include "git-session/sync_order.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The time an op happened, for ordering ("" for a merge or a missing op). */
static const char *node_at(const cJSON *node)
{
	const char *at = json_str(node, "at");
	return at ? at : "";
}

/* The commit ids of nodes, sorted, to look them up in O(log n). */
static const char **commits_sorted(size_t *n, const cJSON *nodes)
{
	const cJSON *x;
	const char **v = xcalloc((size_t)cJSON_GetArraySize(nodes) + 1, sizeof(*v));

	*n = 0;
	cJSON_ArrayForEach(x, nodes)
		v[(*n)++] = json_str(x, "commit");
	qsort(v, *n, sizeof(*v), gs_cmp_str);
	return v;
}

static const char **find_commit(const char **sorted, size_t n, const char *commit)
{
	return bsearch(&commit, sorted, n, sizeof(*sorted), gs_cmp_str);
}

/*
 * The checkpoints in replay order (sync_order.h): an array of references
 * to nodes, which must outlive it.
 */
static cJSON *replay_order(cJSON *nodes)
{
	size_t n = (size_t)cJSON_GetArraySize(nodes), ncommits, edges = 0, k = 0;
	struct sync_node *v = xcalloc(n + 1, sizeof(*v));
	const char **commits = commits_sorted(&ncommits, nodes);
	size_t *index = xcalloc(n + 1, sizeof(*index)), *parents, *order = xcalloc(n + 1, sizeof(*order));
	cJSON **items = xcalloc(n + 1, sizeof(*items)), *x, *p, *out = cJSON_CreateArray();

	cJSON_ArrayForEach(x, nodes)
		edges += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "parents"));
	parents = xcalloc(edges + 1, sizeof(*parents));
	cJSON_ArrayForEach(x, nodes) {	/* where each commit sits in nodes, by its place in commits */
		items[k] = x;
		index[find_commit(commits, ncommits, json_str(x, "commit")) - commits] = k++;
	}
	edges = 0;
	for (size_t i = 0; i < n; i++) {
		v[i].commit = json_str(items[i], "commit");
		v[i].at = node_at(items[i]);
		v[i].parents = parents + edges;
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(items[i], "parents")) {
			const char **at = cJSON_IsString(p) ? find_commit(commits, ncommits, p->valuestring) : NULL;

			if (at)	/* a parent outside the walk is already in the state */
				parents[edges + v[i].nparents++] = index[at - commits];
		}
		edges += v[i].nparents;
	}
	n = sync_replay_order(order, v, n);
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemReferenceToArray(out, items[order[i]]);
	free(v);
	free(commits);
	free(index);
	free(parents);
	free(order);
	free(items);
	return out;
}

/* Parses each checkpoint's op.json into "parsed", its time into "at", its row's id into "op_id". */
static void parse_ops(cJSON *nodes)
{
	struct state_op o;
	cJSON *n, *op;

	cJSON_ArrayForEach(n, nodes) {
		const char *text = json_str(n, "op");
		char *err = NULL;

		if (!text || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(n, "parents")) > 1 ||
		    json_parse(&op, text, strlen(text), (size_t)64 << 20, &err) < 0) {
			free(err);
			continue;	/* a merge replays nothing of its own */
		}
		json_set_str(n, "at", json_str(op, "at"));
		cJSON_AddItemToObject(n, "parsed", op);
		if (op_parse(&o, op) == 0)	/* its row found once, here */
			json_set_num(n, "op_id", o.info->id);
	}
}

/* The operation a node parsed, with the row parse_ops found; GS_ENOTFOUND for none (a merge, a dropped one). */
static int node_op(struct state_op *out, const cJSON *node)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(node, "op_id");

	out->json = cJSON_GetObjectItemCaseSensitive(node, "parsed");
	out->info = cJSON_IsNumber(id) ? op_info((enum op_id)id->valueint) : NULL;
	return out->json ? 0 : GS_ENOTFOUND;
}

/* What an op writes to: its key, agent or phase ("" for none); num holds a number. */
static const char *op_target(char num[32], const cJSON *op)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(op, "args");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(args, "key");

	if (!t)
		t = cJSON_GetObjectItemCaseSensitive(args, "agent");
	if (!t)
		t = cJSON_GetObjectItemCaseSensitive(args, "phase");
	if (cJSON_IsNumber(t)) {
		snprintf(num, 32, "%d", t->valueint);
		return num;
	}
	return cJSON_IsString(t) ? t->valuestring : "";
}

/* Operations whose last writer wins (ops.h): both sides writing one is a conflict. */
static int overwrites(const struct state_op *op)
{
	return op->info && (op->info->flags & OPF_LWW);
}

/* An overwriting op of one side, with where it sits in the replay order. */
struct lww {
	const char *name, *target, *commit, *at, *author;
	size_t place;
	char num[32];
};

static int lww_cmp(const struct lww *x, const struct lww *y)
{
	int c = strcmp(x->name, y->name);

	if (!c)
		c = strcmp(x->target, y->target);
	return c ? c : (x->place > y->place) - (x->place < y->place);
}

static int lww_ptr_cmp(const void *a, const void *b)
{
	return lww_cmp(*(const struct lww *const *)a, *(const struct lww *const *)b);
}

/* The overwriting ops in order that belong to the side whose commits are sorted in side. */
static struct lww *lww_ops(size_t *n, const cJSON *order, const char **side, size_t nside)
{
	struct lww *v = xcalloc((size_t)cJSON_GetArraySize(order) + 1, sizeof(*v));
	const cJSON *a;
	size_t place = 0;

	*n = 0;
	cJSON_ArrayForEach(a, order) {
		struct state_op op;

		place++;
		if (node_op(&op, a) < 0 || !overwrites(&op) || !find_commit(side, nside, json_str(a, "commit")))
			continue;
		v[*n].name = op.info->name;
		v[*n].target = op_target(v[*n].num, op.json);	/* may point into v[*n]: v never moves */
		v[*n].commit = json_str(a, "commit");
		v[*n].at = node_at(a);
		v[*n].author = json_str(a, "author");
		v[(*n)++].place = place;
	}
	return v;
}

/* "summary changed on both sides; kept Bob's (d4115b8)": whose value won, by the name its checkpoint's author gave. */
static char *conflict_line(const struct lww *op, const struct lww *kept)
{
	const char *who = kept->author ? kept->author : "", *lt = strstr(who, " <");
	int len = lt ? (int)(lt - who) : 0;

	if (len > 0)
		return xstrfmt("%s%s%s changed on both sides; kept %.*s's (%.7s)", op->name, *op->target ? " " : "",
			       op->target, len, who, kept->commit);
	return xstrfmt("%s%s%s changed on both sides; kept the later (%.7s)", op->name, *op->target ? " " : "",
		       op->target, kept->commit);
}

/*
 * An overwriting op that the other side also made to the same target:
 * the later one wins, and the conflict is reported, once for each of
 * ours, against the first of theirs in replay order. O(n log n).
 */
static void note_conflicts(cJSON *conflicts, const cJSON *order, const cJSON *ours, const cJSON *theirs)
{
	size_t nmine, nother, na, nb;
	const char **mine = commits_sorted(&nmine, ours), **other = commits_sorted(&nother, theirs);
	struct lww *a = lww_ops(&na, order, mine, nmine), *b = lww_ops(&nb, order, other, nother);
	const struct lww **sorted = xcalloc(nb + 1, sizeof(*sorted));

	for (size_t i = 0; i < nb; i++)
		sorted[i] = &b[i];
	qsort(sorted, nb, sizeof(*sorted), lww_ptr_cmp);
	for (size_t i = 0; i < na; i++) {
		struct lww key = a[i];
		size_t lo = 0, hi = nb;
		const struct lww *x;
		int c;
		char *line;

		key.place = 0;	/* the first of theirs with a's name and target */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (lww_cmp(sorted[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == nb || strcmp(sorted[lo]->name, a[i].name) || strcmp(sorted[lo]->target, a[i].target))
			continue;
		x = sorted[lo];
		c = strcmp(a[i].at, x->at);	/* the later by time, ties by commit id */
		c = c ? c : strcmp(a[i].commit, x->commit);
		line = conflict_line(&a[i], c < 0 ? x : &a[i]);
		cJSON_AddItemToArray(conflicts, cJSON_CreateString(line));
		free(line);
	}
	free(sorted);
	free(mine);
	free(other);
	free(a);
	free(b);
}

/* The manifest as checkpoint file updates (blobs kept, deleted files dropped), and the tree content carried. */
static struct store_file *merge_files(size_t *n, const cJSON *state, const cJSON *carry)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(state, "files"), *f;
	struct store_file *out = xcalloc((size_t)(cJSON_GetArraySize(files) + cJSON_GetArraySize(carry)) + 1,
					 sizeof(*out));

	*n = 0;
	cJSON_ArrayForEach(f, files) {
		out[*n].path = f->string;
		out[*n].link = json_str(f, "mode") && !strcmp(json_str(f, "mode"), FILE_MODE_LINK);
		out[(*n)++].oid = json_str(f, "oid");
	}
	cJSON_ArrayForEach(f, carry) {
		out[*n].path = f->string;
		out[*n].raw = 1;
		out[(*n)++].oid = f->valuestring;
	}
	return out;
}

/* What makes a checkpoint's operation the one it is: its author line and op.json (NULL for a merge). */
static char *op_key(const cJSON *node)
{
	const char *text = json_str(node, "op");

	if (!text || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(node, "parents")) > 1)
		return NULL;
	return xstrfmt("%s\n%s", json_str(node, "author") ? json_str(node, "author") : "", text);
}

/*
 * A checkpoint of theirs with one of ours' author (name, email, time)
 * and op.json byte for byte is the same operation: gc's rewrite keeps
 * both, so a rewritten history and the one it came from share their ops,
 * not their commits. It is replayed once. Returns how many were dropped.
 */
static int drop_duplicates(cJSON *nodes, const cJSON *ours, const char **theirs, size_t ntheirs)
{
	size_t n = 0;
	char **keys = xcalloc((size_t)cJSON_GetArraySize(ours) + 1, sizeof(*keys)), *key;
	const cJSON *x;
	cJSON *node;
	int dropped = 0;

	cJSON_ArrayForEach(x, ours)
		if ((key = op_key(x)))
			keys[n++] = key;
	qsort(keys, n, sizeof(*keys), gs_cmp_str);
	cJSON_ArrayForEach(node, nodes) {
		if (!cJSON_GetObjectItemCaseSensitive(node, "parsed") ||
		    !find_commit(theirs, ntheirs, json_str(node, "commit")) || !(key = op_key(node)))
			continue;
		if (bsearch(&key, keys, n, sizeof(*keys), gs_cmp_str)) {
			cJSON_DeleteItemFromObjectCaseSensitive(node, "parsed");
			dropped++;
		}
		free(key);
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return dropped;
}

/* What the merge replays and what it must carry into its tree. */
struct replay_ctx {
	struct engine *e;
	cJSON *skipped;
	cJSON *carry;			/* {path: blob}: tree content of their ops, for the merge's tree */
	const char **theirs;		/* their commits since the merge base, sorted */
	size_t ntheirs;
	const cJSON *their_tree;	/* {path: blob} under transcripts/ at their tip */
};

/*
 * The blobs an op of theirs put in its checkpoint's tree (an agent's
 * transcript part), as their tip still holds them: the merge is built on
 * our tree, which lacks them.
 */
static void carry_tree(struct replay_ctx *r, const cJSON *node, const struct state_op *op)
{
	const cJSON *f;

	if (!find_commit(r->theirs, r->ntheirs, json_str(node, "commit")))
		return;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(op_args(op), "tree")) {
		const char *have = json_str(r->their_tree, f->string);

		if (cJSON_IsString(f) && have && !strcmp(have, f->valuestring))
			json_set_str(r->carry, f->string, have);
	}
}

/* Replays the ordered ops onto state; the ones that no longer apply are listed. */
static int replay(cJSON *state, const cJSON *order, struct replay_ctx *r)
{
	const cJSON *n;
	int applied = 0;

	cJSON_ArrayForEach(n, order) {
		struct state_op op;
		char *subject = NULL, *err = NULL;

		if (node_op(&op, n) < 0)
			continue;
		if (state_apply(state, &op, &r->e->lim, &subject, &err) < 0) {
			char *line = xstrfmt("%.7s %s: %s", json_str(n, "commit"), op_name(&op), err);
			cJSON_AddItemToArray(r->skipped, cJSON_CreateString(line));
			free(line);
		} else {
			carry_tree(r, n, &op);
			applied++;
		}
		free(subject);
		free(err);
	}
	return applied;
}

static char *merge_body(const cJSON *conflicts, const cJSON *skipped)
{
	struct sbuf sb = SBUF_INIT;
	const cJSON *x;

	cJSON_ArrayForEach(x, conflicts)
		sbuf_addf(&sb, "conflict: %s\n", x->valuestring);
	cJSON_ArrayForEach(x, skipped)
		sbuf_addf(&sb, "skipped: %s\n", x->valuestring);
	return sbuf_detach(&sb, NULL);
}

/* Writes the merge checkpoint of state, with ours and theirs as parents. */
static int write_merge(char out[HEX_SZ], struct engine *e, const char *id, const cJSON *state,
		       struct state_op *op, const char *ours, const char *theirs, const cJSON *carry)
{
	struct store_tip parent = { 1 };
	struct store_checkpoint cp = { 0 };
	const cJSON *args = op_args(op);
	char *opjson = NULL, *msg = NULL, *subject, *body;
	int error;

	snprintf(parent.commit, sizeof(parent.commit), "%s", ours);
	subject = xstrfmt("merge %s: %d operations replayed%s", json_str(args, "from"),
			  (int)json_num(args, "replayed", 0),
			  cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(args, "skipped")) ? ", some skipped" : "");
	body = merge_body(cJSON_GetObjectItemCaseSensitive(args, "conflicts"),
			  cJSON_GetObjectItemCaseSensitive(args, "skipped"));
	opjson = json_print(op->json, 1, &cp.oplen);
	msg = engine_message(subject, body, id, op);
	cp.parent = &parent;
	cp.op = opjson;
	cp.files = merge_files(&cp.nfiles, state, carry);
	cp.message = msg;
	cp.merge_parent = theirs;
	error = engine_write(out, e->st, &cp, state, NULL, NULL, 0, 0);
	free((void *)cp.files);
	free(opjson);
	free(msg);
	free(subject);
	free(body);
	return error;
}

/* What a merge works from: the two sides since they diverged, and the state it replays onto. */
struct merge_sides {
	char **bases;
	size_t nbases;
	const char *base;	/* the one merge base; NULL when criss-crossed */
	cJSON *nodes;		/* the checkpoints of both sides past the base */
	cJSON *mine, *other;	/* ours not in theirs, theirs not in ours */
	cJSON *their_tree;	/* {path: blob} under transcripts/ at their tip */
	cJSON *state;		/* at the base; empty when criss-crossed */
	struct store_tip tip;
};

static void merge_sides_clear(struct merge_sides *s)
{
	for (size_t i = 0; i < s->nbases; i++)
		free(s->bases[i]);
	free(s->bases);
	cJSON_Delete(s->their_tree);
	cJSON_Delete(s->nodes);
	cJSON_Delete(s->mine);
	cJSON_Delete(s->other);
	cJSON_Delete(s->state);
	store_tip_clear(&s->tip);
}

/* Reads both sides of ours and theirs; the caller clears s, also on failure. */
static int merge_sides_read(struct merge_sides *s, struct engine *e, const char *id, const char *ours,
			    const char *theirs, const char *from)
{
	const char *tips[2] = { ours, theirs };
	int error;

	if ((error = store_merge_bases(&s->bases, &s->nbases, e->st, ours, theirs)) < 0)
		return error;
	if (!s->nbases)
		return gs_error("session '%s' here and on '%s' share no history: not merging", id, from);
	/* one base: replay what came after it; criss-crossed: replay everything */
	s->base = s->nbases == 1 ? s->bases[0] : NULL;
	if ((error = store_walk(&s->nodes, e->st, tips, 2, (const char *const *)s->bases, s->nbases == 1)) < 0 ||
	    (error = store_walk(&s->mine, e->st, &ours, 1, &theirs, 1)) < 0 ||
	    (error = store_walk(&s->other, e->st, &theirs, 1, &ours, 1)) < 0 ||
	    (error = store_tree_paths(&s->their_tree, e->st, theirs, "transcripts")) < 0)
		return error;
	if (s->base)
		return engine_load_rev(&s->state, &s->tip, e->st, s->base);
	s->state = cJSON_CreateObject();
	return 0;
}

/*
 * The merge operation: both sides replayed onto s->state in one order,
 * its arguments saying what that met; *carry gets the tree content of
 * their ops that the merge's tree must hold (the caller deletes it).
 */
static struct state_op *merge_replay(cJSON **carry, struct merge_sides *s, struct engine *e, const char *ours,
				     const char *theirs, const char *from)
{
	struct replay_ctx r = { e, NULL, cJSON_CreateObject(), NULL, 0, s->their_tree };
	struct state_op *op;
	cJSON *order;
	int dups;

	parse_ops(s->nodes);
	r.theirs = commits_sorted(&r.ntheirs, s->other);
	dups = drop_duplicates(s->nodes, s->mine, r.theirs, r.ntheirs);
	order = replay_order(s->nodes);
	op = op_new(OP_MERGE, NULL);
	json_set_str(op_args(op), "from", from);
	json_set_str(op_args(op), "ours", ours);
	json_set_str(op_args(op), "theirs", theirs);
	json_set_str(op_args(op), "base", s->base);
	r.skipped = json_arr(op_args(op), "skipped");
	json_set_num(op_args(op), "replayed", replay(s->state, order, &r));
	if (dups)
		json_set_num(op_args(op), "duplicates", dups);
	note_conflicts(json_arr(op_args(op), "conflicts"), order, s->mine, s->other);
	free(r.theirs);
	cJSON_Delete(order);
	*carry = r.carry;
	return op;
}

int sync_merge(char merged[HEX_SZ], struct engine *e, const char *id, const char *ours,
	       const char *theirs, const char *from, cJSON *report)
{
	struct merge_sides s = { 0 };
	struct state_op *op = NULL;
	cJSON *carry = NULL;
	int error;

	if ((error = merge_sides_read(&s, e, id, ours, theirs, from)) < 0)
		goto cleanup;
	op = merge_replay(&carry, &s, e, ours, theirs, from);
	if ((error = engine_complete_op(op->json, e->st)) < 0 ||
	    (error = write_merge(merged, e, id, s.state, op, ours, theirs, carry)) < 0)
		goto cleanup;
	json_set(report, "conflicts", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(op_args(op), "conflicts"), 1));
	json_set(report, "skipped", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(op_args(op), "skipped"), 1));
cleanup:
	merge_sides_clear(&s);
	cJSON_Delete(carry);
	op_free(op);
	return error;
}
