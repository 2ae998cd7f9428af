/*
 * test_ops.c - the operation table of ops.h: every row is sound, and the
 * load table is right: every operation, applied to a large state loaded
 * with only what its row says it needs (as the engine loads it), writes
 * exactly the tree it writes on the whole state.
 */
#include "helpers.h"

#define OID "587be6b4c3f93f93c489c0111bba5596147a26cb"
#define COMMIT "0123456789012345678901234567890123456789"
#define MANY (STATE_CHUNK + 40)	/* past a chunk: every collection is kept apart */
#define LONG (3 * STATE_CHUNK + 50)	/* past the tail of a list: its first chunks are never read */

/*
 * A sample of each operation, applied to big_state(). An operation that
 * needs less than the whole state must have one: adding an operation
 * without a sample here fails test_every_op_has_a_sample.
 */
static const struct {
	enum op_id id;
	const char *args;
} samples[] = {
	{ OP_SESSION_PAUSE, "{}" },
	{ OP_SESSION_CLOSE, "{\"abort\": true}" },
	{ OP_SESSION_REOPEN, "{}" },
	{ OP_NOTE, "{\"text\": \"n\", \"agent\": \"a1\"}" },
	{ OP_SUMMARY, "{\"text\": \"s\"}" },
	{ OP_SET, "{\"key\": \"a.b\", \"value\": [1, 2]}" },
	{ OP_CHECKPOINT, "{\"files\": {\"src/f0001.c\": {\"status\": \"modified\", \"oid\": \"" COMMIT "\"}}}" },
	{ OP_RESTORE, "{\"from\": \"" COMMIT "\", \"files\": {\"src/f0002.c\": {\"status\": \"deleted\"}}}" },
	{ OP_PHASE_ADD, "{\"names\": [\"X\", \"Y\"], \"blocked_by\": [1]}" },
	{ OP_PHASE_START, "{\"phase\": 2}" },
	{ OP_PHASE_COMPLETE, "{\"phase\": 1, \"context\": \"c\"}" },
	{ OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"e\", \"type\": \"timeout\"}" },
	{ OP_PHASE_SKIP, "{\"phase\": 2}" },
	{ OP_PHASE_RETRY, "{\"phase\": 3}" },
	{ OP_PHASE_STEP, "{\"phase\": 1, \"sub_step\": \"x\"}" },
	{ OP_AGENT_START, "{\"agent\": \"new\", \"type\": \"t\", \"task\": \"k\", \"phase\": 1}" },
	{ OP_AGENT_PROGRESS, "{\"agent\": \"a1\", \"progress\": 50}" },
	{ OP_AGENT_DONE, "{\"agent\": \"a1\", \"summary\": \"ok\"}" },
	{ OP_AGENT_FAIL, "{\"agent\": \"a1\", \"error\": \"e\"}" },
	{ OP_AGENT_ATTACH, "{\"agent\": \"claude-1a2b3c4d\", \"type\": \"claude-code\", \"session\": \"s-1\"}" },
	{ OP_AGENT_TURN, "{\"agent\": \"a1\", \"from\": 0, \"to\": 10, \"input\": 5, \"output\": 3, \"cached\": 1, "
			 "\"bytes\": 10, \"tree\": {\"transcripts/a1/000/000001\": \"" OID "\"}}" },
	{ OP_AGENT_COMPACT, "{\"agent\": \"a1\", \"trigger\": \"auto\"}" },
	{ OP_AGENT_RUN, "{\"agent\": \"a1\", \"command\": \"make test\", \"exit\": 2, \"ms\": 40}" },
	{ OP_FILE_CREATED, "{\"agent\": \"a1\", \"files\": {\"new.c\": {\"oid\": \"" OID "\"}}}" },
	{ OP_FILE_MODIFIED, "{\"agent\": \"a1\", \"files\": {\"src/f0002.c\": {\"oid\": \"" COMMIT "\"}}}" },
	{ OP_FILE_DELETED, "{\"phase\": 1, \"files\": {\"src/f0003.c\": {}}}" },
	{ OP_ERROR_ADD, "{\"type\": \"runtime\", \"message\": \"m\", \"agent\": \"a1\", \"phase\": 1}" },
	{ OP_ERROR_RESOLVE, "{\"error\": 1, \"resolution\": \"r\"}" },
	{ OP_TOKENS_ADD, "{\"agent\": \"a1\", \"input\": 1, \"output\": 2, \"cached\": 1}" },
	{ OP_TOKENS_BUDGET, "{\"max\": 5000}" },
	{ OP_DECIDE, "{\"decision\": \"d\", \"rationale\": \"r\", \"agent\": \"a1\"}" },
	{ OP_TASK_ADD, "{\"title\": \"t\"}" },
	{ OP_TASK_DONE, "{\"task\": 1}" },
	{ OP_MILESTONE_ADD, "{\"name\": \"m\"}" },
	{ OP_MILESTONE_DONE, "{\"name\": \"m0\"}" },
	{ OP_ARTIFACT, "{\"path\": \"out.txt\", \"agent\": \"a1\", \"phase\": 1}" },
	{ OP_HOOK_PRE_COMMIT, "{\"files\": {\"src/f0004.c\": {\"status\": \"modified\", \"oid\": \"" COMMIT "\"}}}" },
	{ OP_COMMIT_RECORD, "{\"id\": \"" OID "\", \"subject\": \"c\", \"branch\": \"main\", "
			    "\"files\": {\"src/f0005.c\": {\"status\": \"modified\", \"oid\": \"" COMMIT "\"}}}" },
	{ OP_COMMIT_REWRITE, "{\"kind\": \"amend\", \"map\": [[\"" COMMIT "\", \"" OID "\"]]}" },
	{ OP_CHECKOUT, "{\"from\": \"main\", \"to\": \"topic\", \"head\": \"" OID "\"}" },
};

static void add_n(cJSON *st, enum op_id id, int n, const char *fmt)
{
	for (int i = 0; i < n; i++) {
		char *args = xstrfmt(fmt, i, i);

		ok_(st, id, args);
		free(args);
	}
}

/* A session whose every collection is past a chunk, with phases in each status a sample needs. */
static cJSON *big_state(void)
{
	cJSON *st = session_with("[\"A\", \"B\", \"C\"]");
	cJSON *files = cJSON_CreateObject(), *op;

	ok_(st, OP_PHASE_START, "{\"phase\": 3}");
	ok_(st, OP_PHASE_FAIL, "{\"phase\": 3, \"error\": \"e\"}");
	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	add_n(st, OP_AGENT_START, MANY, "{\"agent\": \"a%d\", \"type\": \"t\", \"task\": \"k%d\"}");
	add_n(st, OP_ERROR_ADD, LONG, "{\"type\": \"runtime\", \"message\": \"m%d %d\"}");
	add_n(st, OP_DECIDE, LONG + 100, "{\"decision\": \"d%d %d\"}");
	add_n(st, OP_TASK_ADD, MANY, "{\"title\": \"t%d %d\"}");
	add_n(st, OP_MILESTONE_ADD, MANY, "{\"name\": \"m%d\", \"n\": %d}");
	add_n(st, OP_ARTIFACT, LONG, "{\"path\": \"a%d/%d\"}");
	add_n(st, OP_NOTE, LONG + 300, "{\"text\": \"note %d %d\"}");
	for (int i = 0; i < MANY; i++) {
		char id[41];

		snprintf(id, sizeof(id), "%040d", i);
		op = cJSON_CreateObject();
		json_set_str(op, "id", id);
		json_set_str(op, "subject", "s");
		cJSON_AddItemToArray(json_arr(st, "commits"), op);
	}
	json_set_str(cJSON_GetArrayItem(json_arr(st, "commits"), 1), "id", COMMIT);	/* for commit.rewrite */
	for (int i = 0; i < 2 * MANY; i++) {
		char path[32];
		cJSON *f = cJSON_CreateObject();

		snprintf(path, sizeof(path), "src/f%04d.c", i);
		json_set_str(f, "status", ST_CREATED);
		json_set_str(f, "oid", OID);
		json_set(files, path, f);
	}
	json_set(st, "files", files);
	return st;
}

/*
 * Whether the store would hand the part at of parts to a load of mask
 * (the lists in tail as their last chunks, the manifest by shards): as
 * the engine's want_init and the store's read_parts choose.
 */
static int part_wanted(const struct gs_part *parts, size_t n, size_t at, unsigned mask, unsigned tail,
		       const struct state_shards *sh)
{
	const char *path = parts[at].path;

	for (unsigned i = 0; i < SPLIT_COUNT; i++) {
		char *prefix = xstrfmt("state/%s/", state_split_keys[i]);
		int in = !strncmp(path, prefix, strlen(prefix));
		unsigned shard;

		if (in && i != SPLIT_FILES && (mask & tail & (1u << i))) {
			free(prefix);
			return 0;	/* an append reads only the tail session.json keeps */
		}
		if (in && i == SPLIT_FILES && sh && !sh->count_rest && (mask & NEED(FILES)) &&
		    sscanf(path + strlen(prefix), "%2x.json", &shard) == 1) {
			free(prefix);
			return sh->want[shard];
		}
		free(prefix);
		if (in)
			return (mask & (1u << i)) != 0;
	}
	return 0;
}

struct tree {
	char *core;
	struct gs_part *parts;	/* path order; owns what it points to */
	size_t n;
};

static void tree_clear(struct tree *t)
{
	free(t->core);
	gs_parts_free(t->parts, t->n);
}

/* The tree that results from writing (core, out) over the parts of base. */
static void tree_write(struct tree *dst, const struct tree *base, char *core, const struct gs_part *out,
		       size_t nout)
{
	dst->core = core;
	dst->parts = xcalloc(base->n + nout + 1, sizeof(*dst->parts));
	dst->n = 0;
	for (size_t i = 0; i < base->n; i++) {
		int replaced = 0;

		for (size_t k = 0; k < nout && !replaced; k++)
			replaced = !strcmp(out[k].path, base->parts[i].path);
		if (!replaced) {
			dst->parts[dst->n].path = xstrdup(base->parts[i].path);
			dst->parts[dst->n].text = xstrdup(base->parts[i].text);
			dst->parts[dst->n++].len = base->parts[i].len;
		}
	}
	for (size_t k = 0; k < nout; k++)
		if (out[k].text) {
			dst->parts[dst->n].path = xstrdup(out[k].path);
			dst->parts[dst->n].text = xstrdup(out[k].text);
			dst->parts[dst->n++].len = out[k].len;
		}
}

static int part_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gs_part *)a)->path, ((const struct gs_part *)b)->path);
}

enum level { LOAD_SHARDS, LOAD_COUNTED, LOAD_ALL };
static int tails_cut;	/* loads that left a list's first chunks unread */
static int refusals_ok;	/* an operation the state refuses is no failure of the test */

/*
 * Applies op to the stored tree as the engine does at one level; GS_EPARTIAL
 * when it needs more. On success *out is the tree written, *subject the
 * checkpoint's subject.
 */
static int apply_stored(struct tree *out, char **subject, const struct tree *stored, const struct state_op *op,
			enum level level)
{
	struct state_shards shards;
	int by_path = state_op_shards(&shards, op);
	unsigned wanted = level == LOAD_ALL ? STATE_ALL : state_op_needs(op);
	unsigned tail = level == LOAD_ALL ? 0 : state_op_tail(op);
	const struct state_shards *sh = level == LOAD_ALL || !by_path ? NULL : &shards;
	struct gs_part *have = xcalloc(stored->n + 1, sizeof(*have));
	struct state_limits lim = STATE_LIMITS_INIT;
	struct state_loaded loaded;
	struct gs_part *parts = NULL;
	size_t n = 0, nparts = 0, len;
	char *err = NULL, *core = NULL;
	cJSON *st = NULL;
	int error;

	shards.count_rest = level == LOAD_COUNTED;
	*subject = NULL;
	for (size_t i = 0; i < stored->n; i++)
		if (part_wanted(stored->parts, stored->n, i, wanted, tail, sh))
			have[n++] = stored->parts[i];
	if ((error = state_load(&st, &loaded, stored->core, strlen(stored->core), wanted, tail, sh, have, n,
				&err)) < 0)
		fail_msg("load: %s", err);
	for (unsigned i = 0; i < SPLIT_COUNT; i++)
		tails_cut += state_tail_before(&loaded, i) > 0;
	lim.files_elsewhere = loaded.files_elsewhere;
	for (unsigned i = 0; i < SPLIT_COUNT; i++)
		lim.before[i] = state_tail_before(&loaded, i);
	error = state_apply(st, op, &lim, subject, &err);
	if (error == 0)
		error = state_split(&core, &len, &parts, &nparts, st,
				    wanted == STATE_ALL && !sh ? NULL : &loaded, have, n);
	if (error == 0)
		tree_write(out, stored, core, parts, nparts);
	else if (error != GS_EPARTIAL && !refusals_ok)
		fail_msg("%s: %s", op_name(op), err ? err : "state_split failed");
	gs_parts_free(parts, nparts);
	free(have);
	if (error) {
		free(*subject);
		*subject = NULL;
	}
	free(err);
	cJSON_Delete(st);
	return error;
}

/* As engine_commit: narrow first, and wider on GS_EPARTIAL. */
static enum level apply_narrow(struct tree *out, char **subject, const struct tree *stored, const struct state_op *op)
{
	struct state_shards shards;
	int by_path = state_op_shards(&shards, op);

	if (apply_stored(out, subject, stored, op, LOAD_SHARDS) == 0)
		return LOAD_SHARDS;
	if (by_path && apply_stored(out, subject, stored, op, LOAD_COUNTED) == 0)
		return LOAD_COUNTED;
	assert_int_equal(apply_stored(out, subject, stored, op, LOAD_ALL), 0);
	return LOAD_ALL;
}

static void assert_same_tree(const struct tree *a, const struct tree *b, const char *what)
{
	if (strcmp(a->core, b->core))
		fail_msg("%s: session.json differs with the narrow load", what);
	if (a->n != b->n)
		fail_msg("%s: %zu parts against %zu with the narrow load", what, a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->parts[i].path, b->parts[i].path) || strcmp(a->parts[i].text, b->parts[i].text))
			fail_msg("%s: %s differs with the narrow load", what, a->parts[i].path);
}

static void test_load_table_property(void **unused)
{
	cJSON *st = big_state();
	struct tree stored = { 0 }, done = { 0 };
	size_t len;
	int narrow = 0;

	assert_int_equal(state_split(&stored.core, &len, &stored.parts, &stored.n, st, NULL, NULL, 0), 0);
	assert_true(stored.n > SPLIT_COUNT);	/* every collection is kept apart */
	json_set_str(st, "status", ST_COMPLETED);	/* for the operations on a finished session */
	assert_int_equal(state_split(&done.core, &len, &done.parts, &done.n, st, NULL, NULL, 0), 0);
	for (size_t i = 0; i < ARRAY_SIZE(samples); i++) {
		const struct tree *on = samples[i].id == OP_SESSION_REOPEN ? &done : &stored;
		struct state_op *op = op_new(samples[i].id, "2025-01-03T00:00:00Z");
		cJSON *a = NULL;
		struct tree whole = { 0 }, part = { 0 };
		char *err = NULL, *sw = NULL, *sp = NULL;

		if (json_parse(&a, samples[i].args, strlen(samples[i].args), 1 << 20, &err) < 0)
			fail_msg("bad sample %s: %s", samples[i].args, err);
		json_set(op->json, "args", a);
		assert_int_equal(apply_stored(&whole, &sw, on, op, LOAD_ALL), 0);
		narrow += apply_narrow(&part, &sp, on, op) != LOAD_ALL;
		qsort(whole.parts, whole.n, sizeof(*whole.parts), part_cmp);
		qsort(part.parts, part.n, sizeof(*part.parts), part_cmp);
		assert_same_tree(&whole, &part, op_info(samples[i].id)->name);
		assert_string_equal(sw, sp);
		tree_clear(&whole);
		tree_clear(&part);
		free(sw);
		free(sp);
		op_free(op);
	}
	/* the test means something only if most operations did load less, and some lists only their tail */
	assert_true(narrow >= (int)ARRAY_SIZE(samples) - 3);
	assert_true(tails_cut >= 6);
	tree_clear(&stored);
	tree_clear(&done);
	cJSON_Delete(st);
}

/* A random operation of those that grow lists, with arguments made from step. */
static struct state_op *random_op(unsigned *seed, int step)
{
	static const struct { enum op_id id; const char *fmt; } kinds[] = {
		{ OP_NOTE, "{\"text\": \"step %d\"}" },
		{ OP_NOTE, "{\"text\": \"step %d by a1\", \"agent\": \"a1\"}" },
		{ OP_DECIDE, "{\"decision\": \"d%d\", \"agent\": \"a2\"}" },
		{ OP_ERROR_ADD, "{\"type\": \"runtime\", \"message\": \"e%d\", \"phase\": 1}" },
		{ OP_ARTIFACT, "{\"path\": \"out/%d.txt\"}" },
		{ OP_AGENT_START, "{\"agent\": \"r%d\", \"type\": \"t\", \"task\": \"k\"}" },
		{ OP_TOKENS_ADD, "{\"agent\": \"a1\", \"input\": %d, \"output\": 1}" },
		{ OP_ERROR_RESOLVE, "{\"error\": %d, \"resolution\": \"r\"}" },
		{ OP_SET, "{\"key\": \"k%d\", \"value\": 1}" },
		{ OP_FILE_MODIFIED, "{\"files\": {\"src/f%04d.c\": {\"oid\": \"" COMMIT "\"}}}" },
	};
	unsigned k = (unsigned)rand_r(seed) % ARRAY_SIZE(kinds);
	struct state_op *op = op_new(kinds[k].id, "2025-01-03T00:00:00Z");
	cJSON *a = NULL;
	char *args = xstrfmt(kinds[k].fmt, kinds[k].id == OP_ERROR_RESOLVE ? 1 + step % 50 : step), *err = NULL;

	if (json_parse(&a, args, strlen(args), 1 << 20, &err) < 0)
		fail_msg("bad args %s: %s", args, err);
	json_set(op->json, "args", a);
	free(args);
	return op;
}

/*
 * Random sequences of operations, each applied to its own history with the
 * narrow loads and with whole loads: the two histories stay the same,
 * tree for tree, at every step (lists crossing chunk boundaries included).
 */
static void test_random_sequences_stay_equal(void **unused)
{
	cJSON *st = big_state();
	struct tree whole = { 0 }, part = { 0 };
	size_t len;
	unsigned seed = 20261123;

	assert_int_equal(state_split(&whole.core, &len, &whole.parts, &whole.n, st, NULL, NULL, 0), 0);
	assert_int_equal(state_split(&part.core, &len, &part.parts, &part.n, st, NULL, NULL, 0), 0);
	tails_cut = 0;
	refusals_ok = 1;
	for (int step = 0; step < 200; step++) {
		struct state_op *op = random_op(&seed, step);
		struct tree w = { 0 }, p = { 0 };
		char *sw = NULL, *sp = NULL, *what = xstrfmt("step %d, %s", step, op_name(op));
		int ew = apply_stored(&w, &sw, &whole, op, LOAD_ALL);

		if (ew == 0) {
			apply_narrow(&p, &sp, &part, op);
			qsort(w.parts, w.n, sizeof(*w.parts), part_cmp);
			qsort(p.parts, p.n, sizeof(*p.parts), part_cmp);
			assert_same_tree(&w, &p, what);
			assert_string_equal(sw, sp);
			tree_clear(&whole);
			tree_clear(&part);
			whole = w;
			part = p;
		}
		free(sw);
		free(sp);
		free(what);
		op_free(op);
	}
	refusals_ok = 0;
	assert_true(tails_cut > 50);
	tree_clear(&whole);
	tree_clear(&part);
	cJSON_Delete(st);
}

static void test_every_op_has_a_sample(void **unused)
{
	for (int id = 0; id < OP_COUNT; id++) {
		int found = 0;

		for (size_t i = 0; i < ARRAY_SIZE(samples); i++)
			found |= samples[i].id == (enum op_id)id;
		if (!found && op_info(id)->needs != STATE_ALL)
			fail_msg("%s loads less than everything but has no sample in test_ops.c", op_info(id)->name);
	}
}

static void test_rows(void **unused)
{
	for (int id = 0; id < OP_COUNT; id++) {
		const struct op_info *info = op_info(id);

		assert_int_equal(info->id, id);
		assert_ptr_equal(op_lookup(info->name), info);
		assert_true((info->needs & ~STATE_ALL) == 0);
		if (info->flags & OPF_BY_PATH)	/* by path is a narrowing of the manifest */
			assert_true(info->needs & NEED(FILES));
	}
	assert_null(op_lookup("no.such.op"));
	assert_null(op_lookup(NULL));
	assert_null(op_info(OP_COUNT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_every_op_has_a_sample),
		cmocka_unit_test(test_load_table_property),
		cmocka_unit_test(test_random_sequences_stay_equal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
