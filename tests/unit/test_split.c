/*
 * test_split.c - large collections kept beside session.json: chunks and
 * shards, what a change rewrites, partial loads, damaged parts.
 */
#include "helpers.h"

static const unsigned notes_bit = NEED(NOTES), files_bit = NEED(FILES);

static cJSON *state_with(int notes, int files)
{
	const char *text = "{\"session_id\": \"s\", \"status\": \"in_progress\"}";
	cJSON *raw = NULL, *st = NULL;
	char *err = NULL;

	assert_int_equal(json_parse(&raw, text, strlen(text), 1 << 20, &err), 0);
	assert_int_equal(state_normalize(&st, raw, &err), 0);
	for (int i = 0; i < notes; i++) {
		cJSON *n = cJSON_CreateObject();
		char t[32];

		snprintf(t, sizeof(t), "note %d", i);
		json_set_str(n, "text", t);
		json_set_str(n, "agent", NULL);
		json_set_str(n, "timestamp", "2025-01-02T03:04:05Z");
		cJSON_AddItemToArray(json_arr(st, "notes"), n);
	}
	for (int i = 0; i < files; i++) {
		cJSON *f = cJSON_CreateObject();
		char path[32];

		snprintf(path, sizeof(path), "src/f%04d.c", i);
		json_set_str(f, "status", "created");
		json_set_str(f, "oid", "587be6b4c3f93f93c489c0111bba5596147a26cb");
		json_set(json_obj(st, "files"), path, f);
	}
	return st;
}

static const struct gs_part *find(const struct gs_part *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].path, path))
			return &v[i];
	return NULL;
}

/* Loads core and parts back and checks the state is what was split. */
static cJSON *round_trip(const cJSON *st, const char *core, size_t len, const struct gs_part *parts,
			 size_t n, unsigned wanted, struct state_loaded *loaded)
{
	cJSON *back = NULL;
	char *err = NULL, *a, *b;

	if (state_load(&back, loaded, core, len, wanted, 0, NULL, parts, n, &err) < 0)
		fail_msg("load: %s", err);
	if (wanted == STATE_ALL) {
		a = json_print(st, 1, NULL);
		b = json_print(back, 1, NULL);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	return back;
}

static void test_small_stays_whole(void **unused)
{
	cJSON *st = state_with(STATE_CHUNK, STATE_CHUNK), *back;
	struct gs_part *parts;
	size_t len, n;
	char *core, *whole = json_print(st, 1, NULL);
	struct state_loaded loaded;

	assert_int_equal(state_split(&core, &len, &parts, &n, st, NULL, NULL, 0), 0);
	assert_int_equal(n, 0);
	assert_string_equal(core, whole);
	back = round_trip(st, core, len, NULL, 0, STATE_ALL, &loaded);
	assert_int_equal(loaded.unloaded, 0);
	cJSON_Delete(back);
	free(core);
	free(whole);
	cJSON_Delete(st);
}

/* A state as a checkpoint stores it: session.json and its parts. */
struct stored {
	char *core;
	size_t len;
	struct gs_part *parts;
	size_t n;
};

/* Splits st, loaded as loaded says, against what was stored before (old); 0 or GS_EPARTIAL. */
static int store_state(struct stored *out, const cJSON *st, const struct state_loaded *loaded,
		       const struct stored *old)
{
	return state_split(&out->core, &out->len, &out->parts, &out->n, st, loaded,
			   old ? old->parts : NULL, old ? old->n : 0);
}

static void stored_clear(struct stored *s)
{
	free(s->core);
	gs_parts_free(s->parts, s->n);
	memset(s, 0, sizeof(*s));
}

static void test_chunks_and_one_change(void **unused)
{
	cJSON *st = state_with(600, 0), *back, *n2;
	struct stored first, again;
	struct state_loaded loaded;

	assert_int_equal(store_state(&first, st, NULL, NULL), 0);
	/* nine full chunks of 64 apart, the 24 after them in session.json, with their count and size */
	assert_non_null(strstr(first.core, "\"chunks\": \"state/notes\""));
	assert_non_null(strstr(first.core, "\"chunked\": 576"));
	assert_non_null(strstr(first.core, "\"chunk\": 64"));
	assert_non_null(strstr(first.core, "note 599"));
	assert_null(strstr(first.core, "note 575\""));
	assert_int_equal(first.n, 9);
	assert_string_equal(first.parts[0].path, "state/notes/000000.json");
	assert_string_equal(first.parts[8].path, "state/notes/000008.json");
	assert_non_null(strstr(first.parts[8].text, "note 575"));
	back = round_trip(st, first.core, first.len, first.parts, first.n, STATE_ALL, &loaded);
	/* one more note: session.json alone is written again */
	n2 = cJSON_Duplicate(cJSON_GetArrayItem(json_arr(back, "notes"), 0), 1);
	cJSON_AddItemToArray(json_arr(back, "notes"), n2);
	assert_int_equal(store_state(&again, back, NULL, &first), 0);
	assert_int_equal(again.n, 0);
	stored_clear(&again);
	/* until the tail fills a chunk: then that chunk, once */
	while (cJSON_GetArraySize(json_arr(back, "notes")) < 640)
		cJSON_AddItemToArray(json_arr(back, "notes"), cJSON_Duplicate(n2, 1));
	assert_int_equal(store_state(&again, back, NULL, &first), 0);
	assert_int_equal(again.n, 1);
	assert_string_equal(again.parts[0].path, "state/notes/000009.json");
	assert_non_null(strstr(again.core, "\"chunked\": 640"));
	assert_non_null(strstr(again.core, "\"tail\": []"));
	stored_clear(&again);
	/* down to what fits session.json: every chunk goes */
	while (cJSON_GetArraySize(json_arr(back, "notes")) > 10)
		cJSON_DeleteItemFromArray(json_arr(back, "notes"), 0);
	assert_int_equal(store_state(&again, back, NULL, &first), 0);
	assert_int_equal(again.n, 9);
	for (size_t i = 0; i < again.n; i++)
		assert_null(again.parts[i].text);
	assert_null(strstr(again.core, "state/notes"));
	stored_clear(&again);
	stored_clear(&first);
	cJSON_Delete(back);
	cJSON_Delete(st);
}

/*
 * Checkpoints written before the tail moved into session.json keep every
 * chunk under state/, the last one partly full: they read as before, an
 * append to them loads them whole (GS_EPARTIAL), and the write after that
 * is in today's form, keeping the full chunk as it was.
 */
static void test_older_chunks_still_read(void **unused)
{
	char *chunk0 = xstrdup("["), *chunk1 = xstrdup("[");
	cJSON *st = NULL, *note;
	struct state_loaded loaded;
	struct stored again;
	char *err = NULL;
	const char *core = "{\"session_id\": \"s\", \"status\": \"in_progress\", \"notes\": \"state/notes\"}";

	for (int i = 0; i < 300; i++) {
		char **c = i < 256 ? &chunk0 : &chunk1;
		char *more = xstrfmt("%s%s{\"text\": \"n%d\", \"agent\": null, \"timestamp\": \"t\"}", *c,
				     i == 0 || i == 256 ? "" : ", ", i);
		free(*c);
		*c = more;
	}
	{
		char *a = xstrfmt("%s]", chunk0), *b = xstrfmt("%s]", chunk1);
		struct gs_part parts[] = {
			{ "state/notes/000000.json", a, strlen(a) }, { "state/notes/000001.json", b, strlen(b) },
		};

		/* read whole, as before */
		assert_int_equal(state_load(&st, &loaded, core, strlen(core), STATE_ALL, 0, NULL, parts, 2, &err), 0);
		assert_int_equal(cJSON_GetArraySize(json_arr(st, "notes")), 300);
		cJSON_Delete(st);
		/* an append loads nothing of it, and finds it must load it whole */
		assert_int_equal(state_load(&st, &loaded, core, strlen(core), NEED(NOTES), NEED(NOTES), NULL, NULL, 0,
					    &err), 0);
		assert_true(loaded.unloaded & NEED(NOTES));
		note = cJSON_CreateObject();
		json_set_str(note, "text", "new");
		cJSON_AddItemToArray(json_arr(st, "notes"), note);
		assert_int_equal(state_split(&again.core, &again.len, &again.parts, &again.n, st, &loaded, NULL, 0),
				 GS_EPARTIAL);
		cJSON_Delete(st);
		/* whole: cut anew in today's chunks of 64, the last 45 in session.json */
		assert_int_equal(state_load(&st, &loaded, core, strlen(core), STATE_ALL, 0, NULL, parts, 2, &err), 0);
		note = cJSON_CreateObject();
		json_set_str(note, "text", "new");
		cJSON_AddItemToArray(json_arr(st, "notes"), note);
		assert_int_equal(state_split(&again.core, &again.len, &again.parts, &again.n, st, &loaded, parts, 2), 0);
		assert_int_equal(again.n, 4);
		for (size_t i = 0; i < again.n; i++)
			assert_non_null(again.parts[i].text);
		assert_string_equal(again.parts[3].path, "state/notes/000003.json");
		assert_non_null(strstr(again.core, "\"chunked\": 256"));
		assert_non_null(strstr(again.core, "\"chunk\": 64"));
		assert_non_null(strstr(again.core, "\"n299\""));
		stored_clear(&again);
		cJSON_Delete(st);
		free(a);
		free(b);
	}
	free(chunk0);
	free(chunk1);
}

static void test_manifest_shards(void **unused)
{
	cJSON *st = state_with(0, 2000), *back, *f;
	struct stored first, again;
	struct state_loaded loaded;

	assert_int_equal(store_state(&first, st, NULL, NULL), 0);
	assert_true(first.n > 200 && first.n <= 256);
	assert_non_null(find(first.parts, first.n, "state/files/00.json"));
	back = round_trip(st, first.core, first.len, first.parts, first.n, STATE_ALL, &loaded);
	f = cJSON_Duplicate(cJSON_GetObjectItem(json_obj(back, "files"), "src/f0000.c"), 1);
	json_set(json_obj(back, "files"), "lib/new.c", f);
	assert_int_equal(store_state(&again, back, NULL, &first), 0);
	assert_int_equal(again.n, 1);
	assert_non_null(strstr(again.parts[0].text, "lib/new.c"));
	assert_string_equal(first.core, again.core);	/* session.json itself did not change */
	stored_clear(&again);
	stored_clear(&first);
	cJSON_Delete(back);
	cJSON_Delete(st);
}

static void test_partial_load(void **unused)
{
	cJSON *st = state_with(600, 300), *lean, *extra;
	struct stored first, again;
	struct state_loaded loaded;

	assert_int_equal(store_state(&first, st, NULL, NULL), 0);
	lean = round_trip(st, first.core, first.len, first.parts, first.n, notes_bit, &loaded);
	assert_int_equal(loaded.unloaded, files_bit);
	assert_int_equal(cJSON_GetArraySize(json_arr(lean, "notes")), 600);
	assert_null(json_obj(lean, "files")->child);	/* an empty placeholder */
	/* a change that keeps to what was loaded writes nothing else */
	json_set_str(lean, "context_summary", "lean");
	assert_int_equal(store_state(&again, lean, &loaded, &first), 0);
	assert_int_equal(again.n, 0);
	assert_non_null(strstr(again.core, "\"files\": \"state/files\""));
	stored_clear(&again);
	/* one that reaches what was not loaded is refused */
	extra = cJSON_CreateObject();
	json_set_str(extra, "status", "created");
	json_set(json_obj(lean, "files"), "x.c", extra);
	assert_int_equal(store_state(&again, lean, &loaded, &first), GS_EPARTIAL);
	assert_null(again.core);
	assert_null(again.parts);
	cJSON_Delete(lean);
	stored_clear(&first);
	cJSON_Delete(st);
}

static void test_manifest_by_shard(void **unused)
{
	cJSON *st = state_with(0, 2000), *part, *f;
	struct state_op *op = op_new(OP_FILE_MODIFIED, NULL);
	struct stored first, again;
	struct state_loaded loaded;
	struct state_shards set;
	char *err = NULL;

	json_set(json_obj(op_args(op), "files"), "src/f0007.c", cJSON_CreateObject());
	assert_int_equal(state_op_shards(&set, op), 1);
	assert_int_equal(store_state(&first, st, NULL, NULL), 0);
	/* every shard given, but the others only counted */
	set.count_rest = 1;
	assert_int_equal(state_load(&part, &loaded, first.core, first.len, STATE_ALL, 0, &set, first.parts,
				    first.n, &err), 0);
	assert_true(loaded.partial);
	assert_true(cJSON_GetArraySize(json_obj(part, "files")) < 30);
	assert_int_equal(cJSON_GetArraySize(json_obj(part, "files")) + loaded.files_elsewhere, 2000);
	cJSON_Delete(part);
	/* not read: not counted */
	set.count_rest = 0;
	assert_int_equal(state_load(&part, &loaded, first.core, first.len, STATE_ALL, 0, &set, first.parts,
				    first.n, &err), 0);
	assert_int_equal(loaded.files_elsewhere, -1);
	/* a change to the shard loaded writes that shard */
	f = cJSON_GetObjectItem(json_obj(part, "files"), "src/f0007.c");
	json_set_str(f, "status", "modified");
	assert_int_equal(store_state(&again, part, &loaded, &first), 0);
	assert_int_equal(again.n, 1);
	assert_non_null(strstr(again.parts[0].text, "\"src/f0007.c\": {\"status\": \"modified\""));
	assert_string_equal(first.core, again.core);
	stored_clear(&again);
	/* a path of another shard is beyond what was loaded */
	json_set(json_obj(part, "files"), "elsewhere/x.c", cJSON_Duplicate(f, 1));
	assert_int_equal(store_state(&again, part, &loaded, &first), GS_EPARTIAL);
	cJSON_Delete(part);
	stored_clear(&first);
	op_free(op);
	cJSON_Delete(st);
}

/* With the manifest's other shards not counted, only new paths need them. */
static void test_new_paths_need_the_count(void **unused)
{
	struct state_limits lim = STATE_LIMITS_INIT;
	cJSON *st = state_with(0, 3);
	struct state_op *op;
	char *subject = NULL, *err = NULL;

	lim.files_elsewhere = -1;
	op = op_new(OP_FILE_MODIFIED, "2025-01-02T03:04:05Z");
	json_set_str(json_obj(json_obj(op_args(op), "files"), "src/f0001.c"), "oid",
		     "587be6b4c3f93f93c489c0111bba5596147a26cb");
	assert_int_equal(state_apply(st, op, &lim, &subject, &err), 0);
	free(subject);
	op_free(op);
	op = op_new(OP_FILE_CREATED, "2025-01-02T03:04:05Z");
	json_set_str(json_obj(json_obj(op_args(op), "files"), "src/new.c"), "oid",
		     "587be6b4c3f93f93c489c0111bba5596147a26cb");
	assert_int_equal(state_apply(st, op, &lim, &subject, &err), GS_EPARTIAL);
	assert_null(err);
	assert_null(cJSON_GetObjectItem(json_obj(st, "files"), "src/new.c"));	/* nothing changed */
	lim.files_elsewhere = 0;
	assert_int_equal(state_apply(st, op, &lim, &subject, &err), 0);
	assert_non_null(cJSON_GetObjectItem(json_obj(st, "files"), "src/new.c"));
	free(subject);
	op_free(op);
	cJSON_Delete(st);
}

static void damaged(const char *core, const struct gs_part *parts, size_t n, const char *want)
{
	cJSON *st = NULL;
	char *err = NULL;
	struct state_loaded loaded;

	assert_int_not_equal(state_load(&st, &loaded, core, strlen(core), STATE_ALL, 0, NULL, parts, n, &err), 0);
	assert_null(st);
	if (!err || !strstr(err, want))
		fail_msg("'%s' does not say '%s'", err ? err : "(null)", want);
	free(err);
}

static void test_damaged_parts(void **unused)
{
	const char *split = "{\"session_id\": \"s\", \"notes\": \"state/notes\"}";
	const char *whole = "{\"session_id\": \"s\"}";
	struct gs_part gap[] = {
		{ "state/notes/000000.json", "[]", 2 }, { "state/notes/000002.json", "[]", 2 },
	};
	struct gs_part wrong_shard[] = { { "state/files/00.json", "{\"a\": {}}", 9 } };
	struct gs_part not_list[] = { { "state/notes/000000.json", "{}", 2 } };

	damaged(split, NULL, 0, "which is missing");
	damaged(split, gap, 2, "not in the right shape");
	damaged(split, not_list, 1, "not in the right shape");
	damaged("{\"session_id\": \"s\", \"files\": \"state/files\"}", wrong_shard, 1, "not in the right shape");
	damaged(whole, not_list, 1, "not kept there");
	damaged("{\"session_id\": \"s\", \"notes\": \"elsewhere\"}", NULL, 0, "wrong type");
}

static void test_op_needs(void **unused)
{
	struct state_op *note = op_new(OP_NOTE, NULL), *start = op_new(OP_SESSION_START, NULL),
			*commit = op_new(OP_COMMIT_RECORD, NULL), odd;
	cJSON *json = cJSON_Duplicate(note->json, 1);

	json_set_str(json, "op", "no.such.op");
	assert_int_equal(op_parse(&odd, json), GS_ENOTFOUND);
	assert_null(odd.info);
	assert_int_equal(state_op_needs(note), notes_bit);
	assert_int_equal(state_op_needs(start), STATE_ALL);
	assert_int_equal(state_op_needs(&odd), STATE_ALL);
	assert_int_equal(state_op_tail(&odd), 0);
	assert_int_equal(state_op_needs(commit), NEED(FILES) | NEED(COMMITS));
	/* a name ops.h knows is read back to its row */
	json_set_str(json, "op", "commit.record");
	assert_int_equal(op_parse(&odd, json), 0);
	assert_ptr_equal(odd.info, commit->info);
	op_free(note);
	op_free(start);
	op_free(commit);
	cJSON_Delete(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_stays_whole),
		cmocka_unit_test(test_chunks_and_one_change),
		cmocka_unit_test(test_older_chunks_still_read),
		cmocka_unit_test(test_manifest_shards),
		cmocka_unit_test(test_partial_load),
		cmocka_unit_test(test_manifest_by_shard),
		cmocka_unit_test(test_new_paths_need_the_count),
		cmocka_unit_test(test_damaged_parts),
		cmocka_unit_test(test_op_needs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
