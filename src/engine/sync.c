/*
 * sync.c - sessions across machines. git carries the objects (git fetch
 * and git push, so every transport, credential helper and server-side
 * hook works as it does for git); this file integrates what arrived:
 * create, fast-forward, or merge two histories by replaying both sides'
 * operations onto their merge base in one deterministic order, so that
 * whichever machine merges, the merged state is the same. Engine layer:
 * store, state and git, no libgit2.
 */
#include "sync-internal.h"
#include "git-session/sync_order.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"
#include "git-session/store_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char *sync_tracking_prefix(const char *remote)
{
	return xstrfmt("refs/remotes/%s/sessions/", remote);
}

int sync_fetch(struct engine *e, const char *remote)
{
	char *url_key = xstrfmt("remote.%s.url", remote), *url = store_config_str(e->st, url_key);
	char *spec = xstrfmt("+refs/sessions/*:refs/remotes/%s/sessions/*", remote);
	/* --no-filter: in a partial clone too, a session arrives whole, readable offline */
	const char *args[] = { "git", "fetch", "--quiet", "--prune", "--no-write-fetch-head", "--no-filter", remote,
			       spec, NULL };
	struct sbuf out = SBUF_INIT;
	int error = 0;

	if (!url)
		error = gs_error("no such remote: '%s' (see git remote -v)", remote);
	else if (store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(e->st), .out = &out }) != 0)
		error = gs_error("cannot fetch sessions from '%s'", remote);
	sbuf_release(&out);
	free(url_key);
	free(url);
	free(spec);
	return error;
}

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
	const char *name, *target, *commit, *at;
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
		v[(*n)++].place = place;
	}
	return v;
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
		line = xstrfmt("%s%s%s changed on both sides; kept the later (%.7s)", a[i].name,
			       *a[i].target ? " " : "", a[i].target, c < 0 ? x->commit : a[i].commit);
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

/* The two sides since they diverged, replayed; *merged is the new checkpoint. */
int sync_merge(char merged[HEX_SZ], struct engine *e, const char *id, const char *ours,
	       const char *theirs, const char *from, cJSON *report)
{
	const char *tips[2] = { ours, theirs };
	char **bases = NULL, *base_commit = NULL;
	size_t nbases = 0;
	cJSON *nodes = NULL, *mine = NULL, *other = NULL, *order = NULL, *state = NULL;
	cJSON *their_tree = NULL;
	struct state_op *op = NULL;
	struct replay_ctx r = { e, NULL, cJSON_CreateObject(), NULL, 0, NULL };
	struct store_tip tip = { 0 };
	int error, dups;

	if ((error = store_merge_bases(&bases, &nbases, e->st, ours, theirs)) < 0)
		goto cleanup;
	if (!nbases) {
		error = gs_error("session '%s' here and on '%s' share no history: not merging", id, from);
		goto cleanup;
	}
	/* one base: replay what came after it; criss-crossed: replay everything */
	base_commit = nbases == 1 ? bases[0] : NULL;
	if ((error = store_walk(&nodes, e->st, tips, 2, (const char *const *)bases, nbases == 1)) < 0 ||
	    (error = store_walk(&mine, e->st, &ours, 1, &theirs, 1)) < 0 ||
	    (error = store_walk(&other, e->st, &theirs, 1, &ours, 1)) < 0 ||
	    (error = store_tree_paths(&their_tree, e->st, theirs, "transcripts")) < 0)
		goto cleanup;
	if (base_commit) {
		if ((error = engine_load_rev(&state, &tip, e->st, base_commit)) < 0)
			goto cleanup;
	} else {
		state = cJSON_CreateObject();
	}
	parse_ops(nodes);
	r.theirs = commits_sorted(&r.ntheirs, other);
	r.their_tree = their_tree;
	dups = drop_duplicates(nodes, mine, r.theirs, r.ntheirs);
	order = replay_order(nodes);
	op = op_new(OP_MERGE, NULL);
	json_set_str(op_args(op), "from", from);
	json_set_str(op_args(op), "ours", ours);
	json_set_str(op_args(op), "theirs", theirs);
	json_set_str(op_args(op), "base", base_commit);
	r.skipped = json_arr(op_args(op), "skipped");
	json_set_num(op_args(op), "replayed", replay(state, order, &r));
	if (dups)
		json_set_num(op_args(op), "duplicates", dups);
	note_conflicts(json_arr(op_args(op), "conflicts"), order, mine, other);
	if ((error = engine_complete_op(op->json, e->st)) < 0 ||
	    (error = write_merge(merged, e, id, state, op, ours, theirs, r.carry)) < 0)
		goto cleanup;
	json_set(report, "conflicts", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(op_args(op), "conflicts"), 1));
	json_set(report, "skipped", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(op_args(op), "skipped"), 1));
cleanup:
	for (size_t i = 0; i < nbases; i++)
		free(bases[i]);
	free(bases);
	free(r.theirs);
	cJSON_Delete(r.carry);
	cJSON_Delete(their_tree);
	cJSON_Delete(order);
	cJSON_Delete(nodes);
	cJSON_Delete(mine);
	cJSON_Delete(other);
	cJSON_Delete(state);
	op_free(op);
	store_tip_clear(&tip);
	return error;
}

/*
 * What gc deleted here, kept in the git directory as "<commit> <id>"
 * lines: the tip it deleted and the remote copies that tip already held,
 * so that pull leaves those alone, as it leaves archived sessions.
 */
#define PRUNED_FILE "session-pruned"

/* The record without the lines of id (*dropped: whether it had some); the caller frees it. */
static char *pruned_without(gs_store *st, const char *id, int *dropped)
{
	char *text = NULL;
	size_t len, idlen = strlen(id);
	struct sbuf sb = SBUF_INIT;

	if (store_file_read(&text, &len, st, PRUNED_FILE, (size_t)64 << 20) < 0)
		return sbuf_detach(&sb, NULL);
	for (const char *line = text; *line;) {
		size_t l = strcspn(line, "\n");
		const char *sp = memchr(line, ' ', l);

		if (!(sp && (size_t)(line + l - sp - 1) == idlen && !memcmp(sp + 1, id, idlen)))
			sbuf_addf(&sb, "%.*s\n", (int)l, line);
		else
			*dropped = 1;
		line += l + (line[l] == '\n');
	}
	free(text);
	return sbuf_detach(&sb, NULL);
}

int sync_forget(gs_store *st, const char *id, const char *tip)
{
	int dropped = 0, error;
	char *text = pruned_without(st, id, &dropped), **remote = NULL;
	struct sbuf sb = SBUF_INIT;
	size_t n = 0;

	sbuf_adds(&sb, text);
	sbuf_addf(&sb, "%s %s\n", tip, id);
	if (store_tracking_tips(&remote, &n, st, id) == 0)
		for (size_t i = 0; i < n; i++)
			if (strcmp(remote[i], tip) && store_descends(st, tip, remote[i]) == 1)
				sbuf_addf(&sb, "%s %s\n", remote[i], id);
	if ((error = store_file_write(st, PRUNED_FILE, sb.buf, sb.len)) < 0)
		gs_warning("cannot record that session '%s' was deleted: a pull brings it back", id);
	store_ids_free(remote, n);
	sbuf_release(&sb);
	free(text);
	return error;
}

/* A session pull brought back (the remote went on from what gc deleted): no longer deleted here. */
static void unforget(gs_store *st, const char *id)
{
	int dropped = 0;
	char *text = pruned_without(st, id, &dropped);

	if (dropped)
		store_file_write(st, PRUNED_FILE, text, strlen(text));
	free(text);
}

/* Whether gc deleted id here at theirs, or past it. */
static int pruned_here(gs_store *st, const char *id, const char *theirs)
{
	char *text = NULL, *key = xstrfmt(" %s", id);
	size_t len, klen = strlen(key);
	int found = 0;

	if (store_file_read(&text, &len, st, PRUNED_FILE, (size_t)64 << 20) < 0) {
		free(key);
		return 0;
	}
	for (const char *line = text; *line && !found;) {
		size_t l = strcspn(line, "\n");
		char tip[HEX_SZ];

		if (l == HEX_SZ - 1 + klen && !memcmp(line + HEX_SZ - 1, key, klen)) {
			memcpy(tip, line, HEX_SZ - 1);
			tip[HEX_SZ - 1] = '\0';
			found = !strcmp(tip, theirs) ||
				(store_object_exists(st, tip) && store_descends(st, tip, theirs) == 1);
		}
		line += l + (line[l] == '\n');
	}
	free(text);
	free(key);
	return found;
}

/*
 * Whether the remote's session id at theirs may come in as it is (a new
 * session, a fast-forward): its tip must read as a state of that session.
 * NULL when it may; else why not (the caller frees it).
 */
static char *refusal(struct engine *e, const char *id, const char *theirs)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *why = NULL;

	if (engine_load_rev(&state, &tip, e->st, theirs) < 0)
		why = xstrfmt("its checkpoint %.7s cannot be read", theirs);
	else if (!json_str(state, "session_id") || strcmp(json_str(state, "session_id"), id))
		why = xstrfmt("its checkpoint %.7s is not one of session '%s'", theirs, id);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	return why;
}

/* One session: what the remote has, brought into the local ref. */
static int integrate(struct engine *e, const struct sync_opts *o, const char *id, const char *theirs,
		     cJSON *report)
{
	char *ref = engine_refname(id), *archived = xstrfmt("%s%s", ARCHIVE_PREFIX, id), *logmsg = NULL;
	char ours[HEX_SZ], merged[HEX_SZ];
	const char *action = "up to date";
	int error = 0, have;

	json_set_str(report, "id", id);
	json_set_str(report, "theirs", theirs);
	if (store_ref_exists(e->st, archived)) {
		action = "archived here, left alone";
		goto done;
	}
	have = store_ref_exists(e->st, ref) && store_ref_value(ours, e->st, ref) == 0;
	if (!have && pruned_here(e->st, id, theirs)) {
		action = "deleted here, left alone";
		goto done;
	}
	json_set_str(report, "ours", have ? ours : NULL);
	if (!have)
		action = "new";
	else if (!strcmp(ours, theirs) || (error = store_descends(e->st, ours, theirs)) == 1)
		action = "up to date";
	else if (error == 0 && (error = store_descends(e->st, theirs, ours)) == 1)
		action = "fast-forward";
	else if (error == 0)
		action = "merge";
	if (error < 0)
		goto cleanup;
	error = 0;
	if (!strcmp(action, "new") || !strcmp(action, "fast-forward")) {
		char *why = refusal(e, id, theirs);

		if (why) {
			gs_warning("not taking session '%s' from '%s': %s", id, o->remote, why);
			json_set_str(report, "detail", why);
			action = "refused";
			free(why);
			goto done;
		}
	}
	if (o->dry_run || !strcmp(action, "up to date"))
		goto done;
	logmsg = xstrfmt("session: %s from %s", action, o->remote);
	if (!strcmp(action, "merge")) {
		char *from = xstrfmt("%s/%s", o->remote, id);

		error = sync_merge(merged, e, id, ours, theirs, from, report);
		free(from);
		if (error < 0)
			goto cleanup;
		json_set_str(report, "merged", merged);
		error = store_cas(e->st, ref, merged, ours, logmsg);
	} else {
		error = store_cas(e->st, ref, theirs, have ? ours : NULL, logmsg);
		if (!error && !have)
			unforget(e->st, id);
	}
done:
	json_set_str(report, "action", action);
cleanup:
	free(ref);
	free(archived);
	free(logmsg);
	return error;
}

int sync_integrate(cJSON *report, struct engine *e, const struct sync_opts *o)
{
	char *prefix = sync_tracking_prefix(o->remote), **ids = NULL, *why = NULL;
	size_t n = 0;
	int error, failed = 0;

	if ((error = store_list(&ids, &n, e->st, prefix)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		char *tracking = xstrfmt("%s%s", prefix, ids[i]), theirs[HEX_SZ];
		cJSON *r = cJSON_CreateObject();

		if (o->only && strcmp(o->only, ids[i])) {
			cJSON_Delete(r);
			free(tracking);
			continue;
		}
		if (state_valid_id(ids[i], &why) < 0) {	/* HEAD, -x, ...: no command could name it */
			gs_warning("not taking session '%s' from '%s': %s", ids[i], o->remote, why);
			json_set_str(r, "id", ids[i]);
			json_set_str(r, "action", "refused");
			json_set_str(r, "detail", why);
			cJSON_AddItemToArray(report, r);
			free(why);
			why = NULL;
			free(tracking);
			continue;
		}
		/* a lost race with a local writer: integrate again (bounded) */
		for (int tries = 0; tries < 5; tries++) {
			error = store_ref_value(theirs, e->st, tracking);
			if (error == 0)
				error = integrate(e, o, ids[i], theirs, r);
			if (error != GS_ERACE)
				break;
		}
		if (error == GS_ERACE)
			gs_error("session '%s' kept changing here; pull again", ids[i]);
		failed |= error < 0;
		cJSON_AddItemToArray(report, r);
		free(tracking);
	}
	error = failed ? GS_ERROR : 0;
cleanup:
	store_ids_free(ids, n);
	free(prefix);
	return error;
}

/*
 * A rejection that says the ref moved on the remote while we pushed (a
 * lost race with another pusher), which a fetch, merge and push again
 * mends: git's receive-pack says "failed to update ref" or "cannot lock
 * ref ... is at X but expected Y".
 */
static int remote_moved(const char *summary)
{
	return strstr(summary, "failed to update ref") || strstr(summary, "cannot lock ref") ||
	       strstr(summary, "but expected") || strstr(summary, "failed to lock");
}

/* Parses `git push --porcelain`: "<flag>\t<src>:<dst>\t<summary>" per ref. */
static int push_result(cJSON *report, const char *out, int *retry)
{
	int error = 0;

	*retry = 0;
	for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *tab = strchr(line, '\t'), *dst, *sum, *end = strchrnul(line, '\n');
		char *id, *summary;
		cJSON *r;

		if (!tab || tab != line + 1 || !(dst = memchr(tab, ':', (size_t)(end - tab))) ||
		    !(sum = memchr(dst, '\t', (size_t)(end - dst))))
			continue;
		id = xstrndup(dst + 1, (size_t)(sum - dst - 1));
		summary = xstrndup(sum + 1, (size_t)(end - sum - 1));
		r = cJSON_CreateObject();
		json_set_str(r, "id", !strncmp(id, SESSIONS_PREFIX, strlen(SESSIONS_PREFIX)) ?
			     id + strlen(SESSIONS_PREFIX) : id);
		json_set_str(r, "action", *line == '=' ? "up to date" : *line == '*' ? "new" :
			     *line == '!' ? "rejected" : "pushed");
		json_set_str(r, "detail", summary);
		if (*line == '!' && strstr(summary, "[remote rejected]") && !remote_moved(summary))
			error = gs_error("the remote refused %s: %s", id, summary);
		else if (*line == '!')
			*retry = 1;	/* it moved on meanwhile: fetch, merge, push again */
		cJSON_AddItemToArray(report, r);
		free(id);
		free(summary);
	}
	return error;
}

/* git push's arguments; the refspecs, from args[*fixed] on, are allocated. */
static const char **push_args(size_t *fixed, gs_store *st, const struct sync_opts *o, char ***ids, size_t *n)
{
	const char **args;
	size_t k = 0;

	*ids = NULL;
	*n = 0;
	if (o->only) {
		*ids = xcalloc(2, sizeof(**ids));
		(*ids)[0] = xstrdup(o->only);
		*n = 1;
	} else if (store_list(ids, n, st, SESSIONS_PREFIX) < 0) {
		return NULL;
	}
	args = xcalloc(*n + 8, sizeof(*args));
	args[k++] = "git";
	args[k++] = "push";
	args[k++] = "--porcelain";
	if (o->dry_run)
		args[k++] = "--dry-run";
	args[k++] = o->remote;
	*fixed = k;
	for (size_t i = 0; i < *n; i++)
		args[k++] = xstrfmt("%s%s:%s%s", SESSIONS_PREFIX, (*ids)[i], SESSIONS_PREFIX, (*ids)[i]);
	return args;
}

/* Waits before another try, longer each time and by a random amount, so that racing pushers part. */
static void push_backoff(unsigned *seed, int tries)
{
	unsigned cap = 50u << (tries < 5 ? tries : 5);	/* ms: 50, 100, ... 1600 */
	struct timespec ts;

	cap = cap / 2 + (unsigned)rand_r(seed) % cap;
	ts.tv_sec = cap / 1000;
	ts.tv_nsec = (long)(cap % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

/* The merges integration made, kept for the push's report: {id: {ours, theirs, merged, conflicts, skipped}}. */
static void keep_merges(cJSON *merges, const cJSON *pulled)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, pulled) {
		const char *id = json_str(r, "id");
		cJSON *m;

		if (!id || !json_str(r, "merged"))
			continue;
		if (!(m = cJSON_GetObjectItemCaseSensitive(merges, id)))
			json_set_str((m = json_obj(merges, id)), "ours", json_str(r, "ours"));
		json_set_str(m, "theirs", json_str(r, "theirs"));
		json_set_str(m, "merged", json_str(r, "merged"));
		for (const char *const *k = (const char *const[]){ "conflicts", "skipped", NULL }; *k; k++) {
			const cJSON *x;

			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, *k))
				cJSON_AddItemToArray(json_arr(m, *k), cJSON_Duplicate(x, 1));
		}
	}
}

/* Each pushed session that was merged first says so, with its conflicts. */
static void report_merges(cJSON *report, const cJSON *merges)
{
	cJSON *r;

	cJSON_ArrayForEach(r, report) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(merges, json_str(r, "id"));

		for (const cJSON *x = m ? m->child : NULL; x; x = x->next)
			json_set(r, x->string, cJSON_Duplicate(x, 1));
	}
}

int sync_push(cJSON *report, struct engine *e, const struct sync_opts *o)
{
	int error = 0, retry = 1, git_failed = 0;
	unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	struct sbuf err = SBUF_INIT;	/* git's messages of the last try: shown only when it failed */
	cJSON *merges = cJSON_CreateObject();

	for (int tries = 0; retry && tries < SYNC_PUSH_TRIES && !error; tries++) {
		if (tries)
			push_backoff(&seed, tries);
		cJSON *pulled = cJSON_CreateArray();
		struct sbuf out = SBUF_INIT;
		char **ids = NULL;
		size_t n = 0, fixed = 0;
		const char **args;
		int rc;

		sbuf_release(&err);
		if ((error = sync_fetch(e, o->remote)) < 0 || (error = sync_integrate(pulled, e, o)) < 0 ||
		    !(args = push_args(&fixed, e->st, o, &ids, &n))) {
			cJSON_Delete(pulled);
			error = error < 0 ? error : GS_ERROR;
			break;
		}
		keep_merges(merges, pulled);
		cJSON_Delete(pulled);
		if (n == 0) {
			retry = 0;
		} else {
			/* only the last attempt's outcome is reported */
			cJSON_Delete(report->child);
			report->child = NULL;
			rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(e->st), .out = &out, .err = &err });
			error = push_result(report, out.buf ? out.buf : "", &retry);
			if (!error && rc != 0 && !retry)
				error = git_failed = GS_ERROR;
			if (o->dry_run)
				retry = 0;
		}
		for (size_t i = 0; i < n; i++)
			free((void *)args[fixed + i]);
		free(args);
		store_ids_free(ids, n);
		sbuf_release(&out);
	}
	if ((error || retry) && err.len)
		gs_error_quote(err.buf, err.len);
	if (git_failed)
		gs_error("cannot push sessions to '%s'", o->remote);
	else if (!error && retry)
		error = gs_error("'%s' kept moving while we pushed; try again", o->remote);
	report_merges(report, merges);
	cJSON_Delete(merges);
	sbuf_release(&err);
	return error;
}
