/*
 * test_state.c - the session model: apply, validation, id rules, slugs.
 */
#include "helpers.h"
#include "git-session/state_record.h"

static cJSON *started(const char *extra_args)
{
	cJSON *st = cJSON_CreateObject();
	char *args = xstrfmt("{\"id\": \"s1\", \"topic\": \"Topic\"%s}", extra_args ? extra_args : "");

	ok_(st, OP_SESSION_START, args);
	free(args);
	return st;
}

static void test_start_defaults(void **unused)
{
	cJSON *st = started(NULL);

	assert_string_equal(json_str(st, "session_id"), "s1");
	assert_string_equal(json_str(st, "status"), "in_progress");
	assert_string_equal(json_str(st, "created"), "2025-01-02T03:04:05Z");
	assert_string_equal(json_str(st, "mode"), "default");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(st, "current_phase")));
	assert_int_equal((int)json_num(cJSON_GetObjectItem(st, "tokens"), "max", -1), 0);	/* no budget */
	assert_string_equal(st->child->string, "schema_version");
	cJSON_Delete(st);
}

static void test_start_refusals(void **unused)
{
	cJSON *st = cJSON_CreateObject();

	refused(st, OP_SESSION_START, "{\"id\": \"a/b\"}", "invalid session id");
	refused(st, OP_SESSION_START, "{\"id\": \"ok\", \"budget\": -5}", "budget");
	refused(st, OP_SESSION_START, "{\"id\": \"ok\", \"phases\": [\"\"]}", "phase names");
	cJSON_Delete(st);
	st = started(NULL);
	refused(st, OP_SESSION_START, "{\"id\": \"s2\"}", "already exists");
	cJSON_Delete(st);
}

static void test_status_moves(void **unused)
{
	cJSON *st = started(NULL);

	refused(st, OP_SESSION_RESUME, NULL, "is in progress");
	ok_(st, OP_SESSION_PAUSE, NULL);
	assert_string_equal(json_str(st, "status"), "paused");
	refused(st, OP_NOTE, "{\"text\": \"x\"}", "is paused");
	refused(st, OP_SESSION_PAUSE, NULL, "is paused");
	ok_(st, OP_SESSION_RESUME, NULL);
	ok_(st, OP_SESSION_CLOSE, "{\"abort\": true}");
	assert_string_equal(json_str(st, "status"), "aborted");
	refused(st, OP_SESSION_RESUME, NULL, "is aborted");
	refused(st, OP_NOTE, "{\"text\": \"x\"}", "is aborted");
	cJSON_Delete(st);
}

/* A finished session, completed or aborted, is reopened; one not finished is not. */
static void test_reopen(void **unused)
{
	cJSON *st = started(NULL);
	char *s;

	refused(st, OP_SESSION_REOPEN, NULL, "is in progress, not finished: there is nothing to reopen");
	ok_(st, OP_SESSION_PAUSE, NULL);
	refused(st, OP_SESSION_REOPEN, NULL, "is paused, not finished");
	ok_(st, OP_SESSION_RESUME, NULL);
	ok_(st, OP_SESSION_CLOSE, NULL);
	refused(st, OP_PHASE_ADD, "{\"names\": [\"A\"]}", "is completed");
	s = ok(st, OP_SESSION_REOPEN, NULL);
	assert_string_equal(s, "session s1: completed -> in_progress");
	free(s);
	ok_(st, OP_NOTE, "{\"text\": \"more\"}");
	ok_(st, OP_SESSION_CLOSE, "{\"abort\": true}");
	ok_(st, OP_SESSION_REOPEN, NULL);
	assert_string_equal(json_str(st, "status"), "in_progress");
	cJSON_Delete(st);
}

static void test_note_and_subject(void **unused)
{
	cJSON *st = started(NULL);
	char *subject = NULL, *err = NULL;

	assert_int_equal(apply_at(st, OP_NOTE, "{\"text\": \"line one\\nline two\"}", "2025-01-02T03:04:05Z", &subject, &err), 0);
	assert_string_equal(subject, "note: \"line one line two\"");
	free(subject);
	assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "notes"), 0), "timestamp"),
			    "2025-01-02T03:04:05Z");
	assert_string_equal(json_str(st, "updated"), "2025-01-02T03:04:05Z");
	refused(st, OP_NOTE, "{\"text\": \"\"}", "empty text");
	refused(st, OP_NOTE, "{}", "missing text");
	refused(st, OP_NOTE, "{\"text\": 5}", "must be a string");
	{
		struct state_op *op = op_new(OP_NOTE, "2025-01-02T03:04:05Z"), read;
		char *before = json_print(st, 0, NULL), *after;

		json_set_str(op->json, "op", "nosuch");
		assert_int_equal(op_parse(&read, op->json), GS_ENOTFOUND);
		assert_int_not_equal(state_apply(st, &read, NULL, &subject, &err), 0);
		assert_non_null(strstr(err, "unknown operation 'nosuch'"));
		after = json_print(st, 0, NULL);
		assert_string_equal(before, after);
		free(before);
		free(after);
		free(err);
		op_free(op);
	}
	cJSON_Delete(st);
}

static void test_text_limits(void **unused)
{
	cJSON *st = started(NULL);
	struct state_op *op = op_new(OP_NOTE, "2025-01-02T03:04:05Z");
	char *big = xmalloc(2 * 1024 * 1024 + 1), *subject = NULL, *err = NULL;

	memset(big, 'a', 2 * 1024 * 1024);
	big[2 * 1024 * 1024] = '\0';
	json_set_str(op_args(op), "text", big);
	assert_int_not_equal(state_apply(st, op, NULL, &subject, &err), 0);
	assert_non_null(strstr(err, "too long"));
	free(err);
	json_set_str(op_args(op), "text", "bad \xff utf8");
	assert_int_not_equal(state_apply(st, op, NULL, &subject, &err), 0);
	assert_non_null(strstr(err, "UTF-8"));
	free(err);
	free(big);
	op_free(op);
	cJSON_Delete(st);
}

static void test_set_extra(void **unused)
{
	cJSON *st = started(NULL);

	ok_(st, OP_SET, "{\"key\": \"a.b.c\", \"value\": {\"x\": [1, 2]}}");
	assert_int_equal((int)cJSON_GetArraySize(cJSON_GetObjectItem(state_extra_get(st, "a.b.c"), "x")), 2);
	ok_(st, OP_SET, "{\"key\": \"a.b.d\", \"value\": \"s\"}");
	assert_string_equal(state_extra_get(st, "a.b.d")->valuestring, "s");
	refused(st, OP_SET, "{\"key\": \"a.b.d.e\", \"value\": 1}", "is not an object");
	refused(st, OP_SET, "{\"key\": \".x\", \"value\": 1}", "empty segment");
	refused(st, OP_SET, "{\"key\": \"x.\", \"value\": 1}", "empty segment");
	refused(st, OP_SET, "{\"key\": \"x\"}", "missing value");
	assert_null(state_extra_get(st, "a.zz"));
	assert_null(state_extra_get(st, "a.b.d.e"));
	cJSON_Delete(st);
}

static void test_checkpoint_files(void **unused)
{
	cJSON *st = started(NULL), *files;
	const char *oid = "\"0123456789012345678901234567890123456789\"";
	char *args = xstrfmt("{\"files\": {\"z.c\": {\"status\": \"modified\", \"oid\": %s},"
			     " \"a/b.c\": {\"status\": \"created\", \"oid\": %s}}}", oid, oid);

	ok_(st, OP_CHECKPOINT, args);
	free(args);
	files = cJSON_GetObjectItem(st, "files");
	assert_string_equal(files->child->string, "a/b.c");	/* kept sorted */
	assert_string_equal(files->child->next->string, "z.c");
	ok_(st, OP_CHECKPOINT, "{\"files\": {\"m.c\": {\"status\": \"deleted\"}}}");
	assert_string_equal(files->child->next->string, "m.c");
	/* a created file stays created when re-recorded as modified */
	args = xstrfmt("{\"files\": {\"a/b.c\": {\"status\": \"modified\", \"oid\": %s}}}", oid);
	ok_(st, OP_CHECKPOINT, args);
	free(args);
	assert_string_equal(json_str(cJSON_GetObjectItem(files, "a/b.c"), "status"), "created");
	refused(st, OP_CHECKPOINT, "{\"files\": {\"x\": {\"status\": \"deleted\", \"oid\": \"ab\"}}}", "no blob");
	refused(st, OP_CHECKPOINT, "{\"files\": {\"x\": {\"status\": \"modified\"}}}", "need one");
	refused(st, OP_CHECKPOINT, "{\"files\": {\"x\": {\"status\": \"eaten\"}}}", "status must be");
	cJSON_Delete(st);
}

/* One clone's facts stay out of the state: its path, a file's stat data; and a status never flips back. */
static void test_local_facts(void **unused)
{
	cJSON *st = started(", \"project\": {\"name\": \"app\", \"path\": \"/home/alice/app\", \"branch\": \"main\"}");
	cJSON *files, *e;
	const char *oid = "\"0123456789012345678901234567890123456789\"";
	char *args = xstrfmt("{\"files\": {\"d.md\": {\"status\": \"modified\", \"oid\": %s, \"size\": 3,"
			     " \"mtime\": 1700000000123, \"ino\": 42}}}", oid);

	assert_string_equal(json_str(cJSON_GetObjectItem(st, "project"), "name"), "app");
	assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(st, "project"), "path"));
	/* an older session's path goes with its next operation */
	json_set_str(cJSON_GetObjectItem(st, "project"), "path", "/home/alice/app");
	ok_(st, OP_NOTE, "{\"text\": \"hi\"}");
	assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(st, "project"), "path"));
	ok_(st, OP_CHECKPOINT, args);	/* an operation an older version wrote, replayed by a merge */
	free(args);
	files = cJSON_GetObjectItem(st, "files");
	e = cJSON_GetObjectItem(files, "d.md");
	assert_null(cJSON_GetObjectItem(e, "size"));
	assert_null(cJSON_GetObjectItem(e, "mtime"));
	assert_null(cJSON_GetObjectItem(e, "ino"));
	/* a teammate's record that says created, replayed after: the session saw the file before */
	args = xstrfmt("{\"id\": \"%040d\", \"files\": {\"d.md\": {\"status\": \"created\", \"oid\": %s}}}", 7, oid);
	ok_(st, OP_COMMIT_RECORD, args);
	free(args);
	assert_string_equal(json_str(cJSON_GetObjectItem(files, "d.md"), "status"), "modified");
	/* deleted, then there again: created */
	ok_(st, OP_CHECKPOINT, "{\"files\": {\"d.md\": {\"status\": \"deleted\"}}}");
	args = xstrfmt("{\"files\": {\"d.md\": {\"status\": \"created\", \"oid\": %s}}}", oid);
	ok_(st, OP_CHECKPOINT, args);
	free(args);
	assert_string_equal(json_str(cJSON_GetObjectItem(files, "d.md"), "status"), "created");
	cJSON_Delete(st);

	assert_string_equal(state_file_status(NULL, "created", 0), "created");
	assert_string_equal(state_file_status(NULL, "modified", 0), "modified");
	assert_string_equal(state_file_status("created", "modified", 0), "created");
	assert_string_equal(state_file_status("created", "modified", 1), "modified");	/* a user said so */
	assert_string_equal(state_file_status("modified", "created", 0), "modified");
	assert_string_equal(state_file_status("modified", "created", 1), "modified");
	assert_string_equal(state_file_status("deleted", "created", 0), "created");
	assert_string_equal(state_file_status("deleted", "modified", 0), "modified");
	assert_string_equal(state_file_status("created", "deleted", 0), "deleted");
	assert_string_equal(state_file_status("modified", "deleted", 0), "deleted");
}

/* The manifest's keys, in order, joined by spaces. */
static char *keys_of(const cJSON *files)
{
	struct sbuf sb = SBUF_INIT;

	for (const cJSON *c = files->child; c; c = c->next)
		sbuf_addf(&sb, "%s%s", sb.len ? " " : "", c->string);
	return sbuf_detach(&sb, NULL);
}

static void test_manifest_merge(void **unused)
{
	cJSON *st = started(NULL), *files, *in = NULL, *norm = NULL;
	const char *o = "\"0123456789012345678901234567890123456789\"";
	char *args, *k, *err = NULL;

	args = xstrfmt("{\"files\": {\"m\": {\"status\": \"created\", \"oid\": %s}, \"z\": {\"status\": \"created\", \"oid\": %s},"
		       " \"a\": {\"status\": \"created\", \"oid\": %s}}}", o, o, o);
	ok_(st, OP_CHECKPOINT, args);
	free(args);
	files = cJSON_GetObjectItem(st, "files");
	assert_string_equal(k = keys_of(files), "a m z");
	free(k);
	/* replace the head, the tail and the middle; insert before the head, between, after the tail */
	ok_(st, OP_CHECKPOINT, "{\"files\": {\"z\": {\"status\": \"deleted\"}, \"0\": {\"status\": \"deleted\"},"
		 " \"a\": {\"status\": \"deleted\"}, \"n\": {\"status\": \"deleted\"}, \"m\": {\"status\": \"deleted\"},"
		 " \"zz\": {\"status\": \"deleted\"}}}");
	assert_string_equal(k = keys_of(files), "0 a m n z zz");
	free(k);
	assert_int_equal(cJSON_GetArraySize(files), 6);
	assert_string_equal(files->child->prev->string, "zz");	/* the tail pointer is right */
	for (const cJSON *c = files->child; c; c = c->next)
		assert_string_equal(json_str(c, "status"), "deleted");
	/* a hand-edited, unsorted manifest is sorted on load */
	args = xstrdup("{\"session_id\": \"x\", \"files\": {\"b\": {\"status\": \"deleted\"}, \"c\": {\"status\": \"deleted\"},"
		       " \"a\": {\"status\": \"deleted\"}}}");
	assert_int_equal(json_parse(&in, args, strlen(args), 1 << 20, &err), 0);
	free(args);
	assert_int_equal(state_normalize(&norm, in, &err), 0);
	assert_string_equal(k = keys_of(cJSON_GetObjectItem(norm, "files")), "a b c");
	free(k);
	assert_string_equal(cJSON_GetObjectItem(norm, "files")->child->prev->string, "c");
	cJSON_Delete(norm);
	cJSON_Delete(st);
}

static void test_paths(void **unused)
{
	const char *good[] = { "a", "a/b.c", "dir/.hidden", "x/.gitignore", ".github/workflows/ci.yml" };
	const char *bad[] = { "", "/abs", "../x", "a/../b", "a/./b", "./a", "a//b", "a/", ".git",
			      ".git/config", ".GIT/x", "a\001b" };

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (!state_valid_path(good[i]))
			fail_msg("'%s' should be valid", good[i]);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (state_valid_path(bad[i]))
			fail_msg("'%s' should be refused", bad[i]);
}

static void test_ids(void **unused)
{
	const char *good[] = { "a", "2025-01-02-topic", "WFS-x_y.z", "x.lockx" };
	const char *bad[] = { "", "a/b", "..", "a..b", ".a", "-a", "a b", "x.lock", "x.", "caf\xc3\xa9",
			      "a\tb", "a~1", "a^", "a:b", "a@{1}" };
	char long_id[102], *err = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		assert_int_equal(state_valid_id(good[i], &err), 0);
		assert_null(err);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (state_valid_id(bad[i], &err) == 0)
			fail_msg("'%s' should be refused", bad[i]);
		assert_non_null(err);
		free(err);
	}
	memset(long_id, 'a', 101);
	long_id[101] = '\0';
	assert_int_not_equal(state_valid_id(long_id, &err), 0);
	free(err);
	long_id[100] = '\0';
	assert_int_equal(state_valid_id(long_id, &err), 0);
}

static void test_slug(void **unused)
{
	struct { const char *in, *out; } cases[] = {
		{ "Add OAuth login", "add-oauth-login" },
		{ "  --Fix: bug #123!! ", "fix-bug-123" },
		{ "caf\xc3\xa9 au lait", "cafe-au-lait" },			/* accents dropped, the word whole */
		{ "Na\xc3\xafve \xc3\x86SIR \xc3\x97 2", "naive-asir-2" },	/* U+00D7 is no letter */
		{ "don't panic, don\xe2\x80\x99t", "dont-panic-dont" },
		{ "\xe4\xbf\xae\xe5\xa4\x8d login \xe9\x94\x99\xe8\xaf\xaf", "login" },
		{ "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "" },
		{ "\xff\xfe abc \xc3", "abc" },				/* not UTF-8, cut short */
		{ "x \xe2\x80", "x" },
		{ "fix src/cli/view_status.c crash", "fix-src-cli-view-status-c-crash" },
		/* the report's first prompt: cut at a word, not in "both" */
		{ "P1: create todo.py with add and list items, unit tests for both, and", "p1-create-todo-py-with-add-and" },
		{ "Create todo.py with add and list items, unit tests", "create-todo-py-with-add-and-list" },
		{ "Pneumonoultramicroscopicsilicovolcanoconiosis is a word", "pneumonoultramicroscopicsilicovo" },
		{ "", "" },
		{ "!!!", "" },
		{ "\n\t-- ...", "" },
	};
	char *s, *err = NULL, *id;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		s = state_slug(cases[i].in);
		assert_string_equal(s, cases[i].out);
		assert_true(strlen(s) <= STATE_SLUG_MAX);
		id = xstrfmt("2026-11-25-%s", s);
		assert_int_equal(state_valid_id(*s ? id : "x", &err), 0);
		free(id);
		free(s);
	}
	s = state_slug("a very long topic that goes on and on and on and on and on and on and on");
	assert_string_equal(s, "a-very-long-topic-that-goes-on");
	free(s);
}

/* A count the reader would refuse (2^53 and past) is never written: the operation is refused whole. */
static void test_tokens_near_2_53(void **unused)
{
	cJSON *st = started(NULL), *t = cJSON_GetObjectItem(st, "tokens");
	char *s;

	ok_(st, OP_AGENT_START, "{\"agent\": \"a1\", \"type\": \"code\", \"task\": \"t\"}");
	json_set_num(t, "input", 9007199254740481.0);
	refused(st, OP_TOKENS_ADD, "{\"agent\": \"z\", \"input\": 500, \"output\": 500}", "counts exactly");
	refused(st, OP_TOKENS_ADD, "{\"agent\": \"z\", \"input\": 511, \"output\": 0}", "session's input");
	refused(st, OP_TOKENS_ADD, "{\"agent\": \"z\", \"input\": 600, \"output\": 0, \"isolated\": true}",
		"session's input");	/* isolated use is still counted in the input */
	refused(st, OP_AGENT_TURN, "{\"agent\": \"a1\", \"from\": 0, \"to\": 10, \"input\": 0, \"output\": 511}",
		"tokens used");
	s = ok(st, OP_TOKENS_ADD, "{\"agent\": \"z\", \"input\": 510, \"output\": 0}");
	free(s);
	assert_true(json_num(t, "input", 0) == 9007199254740991.0);
	assert_true(json_num(t, "peak", 0) == 9007199254740991.0);
	/* an agent's own count past 2^53 while the session's is small */
	json_set_num(t, "input", 0);
	json_set_num(t, "peak", 0);
	json_set_num(cJSON_GetObjectItem(state_agent(st, "a1"), "tokens"), "cached", 9007199254740990.0);
	refused(st, OP_TOKENS_ADD, "{\"agent\": \"a1\", \"input\": 1, \"output\": 1, \"cached\": 2}",
		"agent's cached");
	ok_(st, OP_TOKENS_ADD, "{\"agent\": \"a1\", \"input\": 1, \"output\": 1, \"cached\": 1}");
	cJSON_Delete(st);
}

static void test_normalize(void **unused)
{
	const char *doc = "{\"extra\": {}, \"unknown_key\": 1, \"status\": \"paused\", \"session_id\": \"x\","
			  " \"tokens\": {\"input\": 5}, \"phases\": null}";
	cJSON *in = NULL, *st = NULL;
	char *err = NULL;

	assert_int_equal(json_parse(&in, doc, strlen(doc), 1 << 20, &err), 0);
	assert_int_equal(state_normalize(&st, in, &err), 0);
	assert_string_equal(st->child->string, "schema_version");
	assert_string_equal(st->child->prev->string, "unknown_key");	/* kept, last */
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(st, "phases")));
	assert_int_equal((int)json_num(cJSON_GetObjectItem(st, "tokens"), "max", -1), 0);
	assert_int_equal((int)json_num(cJSON_GetObjectItem(st, "tokens"), "input", 0), 5);
	assert_int_equal((int)json_num(cJSON_GetObjectItem(st, "tokens"), "cached", -1), 0);
	cJSON_Delete(st);

	doc = "{\"session_id\": \"x\", \"status\": \"sleeping\"}";
	assert_int_equal(json_parse(&in, doc, strlen(doc), 1 << 20, &err), 0);
	assert_int_not_equal(state_normalize(&st, in, &err), 0);
	assert_non_null(strstr(err, "unknown status"));
	free(err);
	/* totals that could overflow to infinity when added (found by fuzzing) */
	doc = "{\"session_id\": \"x\", \"tokens\": {\"input\": 1e308, \"output\": 1e308}}";
	assert_int_equal(json_parse(&in, doc, strlen(doc), 1 << 20, &err), 0);
	assert_int_not_equal(state_normalize(&st, in, &err), 0);
	assert_non_null(strstr(err, "tokens.input is not a whole number"));
	free(err);
	doc = "{\"session_id\": \"x\", \"phases\": {}}";
	assert_int_equal(json_parse(&in, doc, strlen(doc), 1 << 20, &err), 0);
	assert_int_not_equal(state_normalize(&st, in, &err), 0);
	assert_non_null(strstr(err, "'phases' has the wrong type"));
	free(err);
	doc = "[1]";
	assert_int_equal(json_parse(&in, doc, strlen(doc), 1 << 20, &err), 0);
	assert_int_not_equal(state_normalize(&st, in, &err), 0);
	free(err);
	{
		/* entries edited into the wrong shape: refused with their place (found by fuzzing) */
		const char *bad[] = {
			"{\"session_id\": \"x\", \"phases\": [{\"id\": 1, \"name\": \"A\"}, {\"id\": 2}]}",
			"{\"session_id\": \"x\", \"phases\": [{\"id\": 1.5, \"name\": \"A\"}]}",
			"{\"session_id\": \"x\", \"phases\": [{\"id\": 1, \"name\": \"A\", \"status\": \"lost\"}]}",
			"{\"session_id\": \"x\", \"agents\": [{\"status\": \"completed\"}]}",
			"{\"session_id\": \"x\", \"agents\": [\"a1\"]}",
			"{\"session_id\": \"x\", \"files\": {\"a\": {\"status\": \"created\"}}}",
			"{\"session_id\": \"x\", \"files\": {\"a\": {}}}",
		};
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			assert_int_equal(json_parse(&in, bad[i], strlen(bad[i]), 1 << 20, &err), 0);
			if (state_normalize(&st, in, &err) == 0)
				fail_msg("should be refused: %s", bad[i]);
			assert_non_null(strstr(err, "not in the right shape"));
			free(err);
		}
		/* a phase without a status is pending: the default fills it in */
		doc = "{\"session_id\": \"x\", \"phases\": [{\"id\": 1, \"name\": \"A\"}]}";
		assert_int_equal(json_parse(&in, doc, strlen(doc), 1 << 20, &err), 0);
		assert_int_equal(state_normalize(&st, in, &err), 0);
		assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "phases"), 0), "status"), "pending");
		cJSON_Delete(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_defaults),
		cmocka_unit_test(test_start_refusals),
		cmocka_unit_test(test_status_moves),
		cmocka_unit_test(test_reopen),
		cmocka_unit_test(test_note_and_subject),
		cmocka_unit_test(test_text_limits),
		cmocka_unit_test(test_set_extra),
		cmocka_unit_test(test_checkpoint_files),
		cmocka_unit_test(test_local_facts),
		cmocka_unit_test(test_manifest_merge),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_slug),
		cmocka_unit_test(test_tokens_near_2_53),
		cmocka_unit_test(test_normalize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
