/*
 * test_work.c - phases, agents, files, errors, tokens, decisions, tasks,
 * milestones: every transition, legal and refused.
 */
#include "helpers.h"

static void test_phase_moves_legal(void **unused)
{
	cJSON *st = session_with("[\"A\", \"B\", \"C\"]");
	char *s;

	assert_int_equal((int)json_num(st, "current_phase", 0), 1);
	s = ok(st, OP_PHASE_START, "{\"phase\": 1}");
	assert_string_equal(s, "phase 1 \"A\": pending -> in_progress");
	free(s);
	assert_string_equal(json_str(state_phase(st, 1), "started"), "2025-01-02T03:04:05Z");
	s = ok(st, OP_PHASE_COMPLETE, "{\"phase\": 1, \"context\": \"use REST\"}");
	assert_string_equal(s, "phase 1 \"A\": in_progress -> completed");
	free(s);
	assert_string_equal(json_str(state_phase(st, 1), "downstream_context"), "use REST");
	assert_int_equal((int)json_num(st, "current_phase", 0), 2);
	ok_(st, OP_PHASE_SKIP, "{\"phase\": 2}");
	assert_string_equal(phase_status(st, 2), "skipped");
	assert_int_equal((int)json_num(st, "current_phase", 0), 3);
	ok_(st, OP_PHASE_START, "{\"phase\": 3}");
	s = ok(st, OP_PHASE_FAIL, "{\"phase\": 3, \"error\": \"boom\", \"type\": \"timeout\"}");
	assert_string_equal(s, "phase 3 \"C\": in_progress -> failed (timeout)");
	free(s);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st, "errors")), 1);
	assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "errors"), 0), "type"), "timeout");
	s = ok(st, OP_PHASE_RETRY, "{\"phase\": 3}");
	assert_string_equal(s, "phase 3 \"C\": failed -> in_progress (retry 1 of 2)");
	free(s);
	assert_int_equal((int)json_num(state_phase(st, 3), "retry_count", 0), 1);
	{
		cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "errors"), 0);
		assert_true(json_bool(e, "resolved", 0));	/* the retry dealt with it */
		assert_string_equal(json_str(e, "resolution"), "retried (attempt 1)");
	}
	ok_(st, OP_PHASE_COMPLETE, "{\"phase\": 3}");
	/* completing a phase resolves what failed it */
	assert_true(json_bool(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "errors"), 0), "resolved", 0));
	cJSON_Delete(st);
}

static void test_phase_moves_refused(void **unused)
{
	cJSON *st = session_with("[\"A\", \"B\"]");

	refused(st, OP_PHASE_COMPLETE, "{\"phase\": 1}", "it is pending (allowed: start, skip)");
	refused(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"x\"}", "it is pending (allowed: start, skip)");
	refused(st, OP_PHASE_RETRY, "{\"phase\": 1}", "it is pending (allowed: start, skip)");
	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	refused(st, OP_PHASE_START, "{\"phase\": 1}", "it is in_progress (allowed: complete, fail)");
	refused(st, OP_PHASE_SKIP, "{\"phase\": 1}", "it is in_progress (allowed: complete, fail)");
	refused(st, OP_PHASE_RETRY, "{\"phase\": 1}", "it is in_progress (allowed: complete, fail)");
	ok_(st, OP_PHASE_COMPLETE, "{\"phase\": 1}");
	refused(st, OP_PHASE_START, "{\"phase\": 1}", "it is completed (allowed: none)");
	refused(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"x\"}", "it is completed (allowed: none)");
	ok_(st, OP_PHASE_SKIP, "{\"phase\": 2}");
	refused(st, OP_PHASE_START, "{\"phase\": 2}", "it is skipped (allowed: none)");
	refused(st, OP_PHASE_START, "{\"phase\": 9}", "no phase 9 (the session has 2)");
	refused(st, OP_PHASE_START, "{\"phase\": \"1\"}", "a phase is named by its number");
	refused(st, OP_PHASE_START, "{}", "missing phase number");
	cJSON_Delete(st);
}

static void test_fail_needs_error_and_type(void **unused)
{
	cJSON *st = session_with("[\"A\"]");

	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	refused(st, OP_PHASE_FAIL, "{\"phase\": 1}", "missing error");
	refused(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"x\", \"type\": \"cosmic\"}", "unknown error type 'cosmic'");
	ok_(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"x\"}");
	assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "errors"), 0), "type"), "runtime");
	cJSON_Delete(st);
}

static void test_retry_limit(void **unused)
{
	cJSON *st = session_with("[\"A\"]");

	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	for (int i = 0; i < 2; i++) {
		ok_(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"x\"}");
		ok_(st, OP_PHASE_RETRY, "{\"phase\": 1}");
	}
	ok_(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"third\"}");
	refused(st, OP_PHASE_RETRY, "{\"phase\": 1}", "retried 2 times, the limit (session.maxRetries); escalate");
	test_limits.max_retries = 3;
	ok_(st, OP_PHASE_RETRY, "{\"phase\": 1}");
	assert_int_equal((int)json_num(state_phase(st, 1), "retry_count", 0), 3);
	test_limits.max_retries = 0;
	ok_(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"x\"}");
	refused(st, OP_PHASE_RETRY, "{\"phase\": 1}", "escalate");
	test_limits.max_retries = STATE_DEFAULT_MAX_RETRIES;
	cJSON_Delete(st);
}

static void test_blocked_and_parallel(void **unused)
{
	cJSON *st = session_with("[\"A\"]");

	ok_(st, OP_PHASE_ADD, "{\"names\": [\"B\", \"C\"], \"parallel\": true, \"blocked_by\": [1]}");
	assert_true(json_bool(state_phase(st, 2), "parallel", 0));
	refused(st, OP_PHASE_START, "{\"phase\": 2}", "blocked by phase 1 \"A\" (pending)");
	refused(st, OP_PHASE_ADD, "{\"names\": [\"D\"], \"blocked_by\": [7]}", "blocked by an unknown phase");
	refused(st, OP_PHASE_ADD, "{\"names\": []}", "no phase names");
	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	refused(st, OP_PHASE_START, "{\"phase\": 3}", "blocked by phase 1 \"A\" (in_progress)");
	ok_(st, OP_PHASE_COMPLETE, "{\"phase\": 1}");
	ok_(st, OP_PHASE_START, "{\"phase\": 2}");
	ok_(st, OP_PHASE_START, "{\"phase\": 3}");	/* two at once */
	assert_string_equal(phase_status(st, 3), "in_progress");
	cJSON_Delete(st);
}

static void test_phase_step(void **unused)
{
	cJSON *st = session_with("[\"A\"]");

	refused(st, OP_PHASE_STEP, "{\"phase\": 1, \"sub_step\": \"waf\"}", "is pending, not in progress");
	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	ok_(st, OP_PHASE_STEP, "{\"phase\": 1, \"sub_step\": \"phase_2_waf\"}");
	assert_string_equal(json_str(state_phase(st, 1), "sub_step"), "phase_2_waf");
	ok_(st, OP_PHASE_COMPLETE, "{\"phase\": 1}");
	assert_null(json_str(state_phase(st, 1), "sub_step"));
	cJSON_Delete(st);
}

static void test_agents(void **unused)
{
	cJSON *st = session_with("[\"A\", \"B\"]");
	char *s;

	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	s = ok(st, OP_AGENT_START, "{\"agent\": \"arch-1\", \"type\": \"arch\", \"task\": \"design\"}");
	assert_string_equal(s, "agent arch-1 started (arch, phase 1): \"design\"");
	free(s);
	assert_int_equal((int)json_num(state_agent(st, "arch-1"), "phase", 0), 1);	/* the current phase */
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(state_phase(st, 1), "agents"), 0)->valuestring,
			    "arch-1");
	refused(st, OP_AGENT_START, "{\"agent\": \"arch-1\", \"type\": \"arch\", \"task\": \"x\"}", "already running");
	refused(st, OP_AGENT_START, "{\"agent\": \"a/b\", \"type\": \"arch\", \"task\": \"x\"}", "invalid agent id");
	refused(st, OP_AGENT_START, "{\"agent\": \"x\", \"type\": \"arch\"}", "missing task");
	refused(st, OP_AGENT_START, "{\"agent\": \"x\", \"type\": \"a\", \"task\": \"t\", \"phase\": 5}", "no phase 5");
	refused(st, OP_AGENT_PROGRESS, "{\"agent\": \"arch-1\", \"progress\": 101}", "0 to 100");
	refused(st, OP_AGENT_PROGRESS, "{\"agent\": \"nobody\", \"progress\": 10}", "unknown agent 'nobody'");
	ok_(st, OP_AGENT_PROGRESS, "{\"agent\": \"arch-1\", \"progress\": 60}");
	s = ok(st, OP_AGENT_DONE, "{\"agent\": \"arch-1\", \"summary\": \"3 methods proposed\"}");
	assert_string_equal(s, "agent arch-1 done: \"3 methods proposed\"");
	free(s);
	assert_int_equal((int)json_num(state_agent(st, "arch-1"), "progress", 0), 100);
	refused(st, OP_AGENT_DONE, "{\"agent\": \"arch-1\"}", "it is completed");
	refused(st, OP_AGENT_START, "{\"agent\": \"arch-1\", \"type\": \"a\", \"task\": \"t\"}", "already ran");
	ok_(st, OP_AGENT_START, "{\"agent\": \"code-1\", \"type\": \"code\", \"task\": \"build\", \"phase\": 2}");
	ok_(st, OP_AGENT_FAIL, "{\"agent\": \"code-1\", \"error\": \"compile error\"}");
	assert_string_equal(json_str(state_agent(st, "code-1"), "status"), "failed");
	{
		cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "errors"), 0);
		assert_string_equal(json_str(e, "agent"), "code-1");
		assert_int_equal((int)json_num(e, "phase", 0), 2);
	}
	cJSON_Delete(st);
}

static void test_files(void **unused)
{
	cJSON *st = session_with("[\"A\"]");
	const char *oid = "0123456789012345678901234567890123456789";
	char *args = xstrfmt("{\"files\": {\"src/a.c\": {\"oid\": \"%s\"}}, \"agent\": \"c1\"}", oid), *s;
	cJSON *e;

	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	refused(st, OP_FILE_CREATED, args, "unknown agent 'c1'");
	ok_(st, OP_AGENT_START, "{\"agent\": \"c1\", \"type\": \"code\", \"task\": \"t\"}");
	s = ok(st, OP_FILE_CREATED, args);
	assert_string_equal(s, "file created: src/a.c by c1");
	free(s);
	free(args);
	e = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "files"), "src/a.c");
	assert_string_equal(json_str(e, "status"), "created");
	assert_string_equal(json_str(e, "agent"), "c1");
	assert_int_equal((int)json_num(e, "phase", 0), 1);
	ok_(st, OP_FILE_DELETED, "{\"files\": {\"src/a.c\": {}}}");
	assert_string_equal(json_str(e = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "files"), "src/a.c"), "status"),
			    "deleted");
	assert_string_equal(json_str(e, "agent"), "c1");	/* kept from before */
	refused(st, OP_FILE_MODIFIED, "{\"files\": {\"../x\": {\"oid\": \"ab\"}}}", "invalid path");
	refused(st, OP_FILE_MODIFIED, "{\"files\": {\".git/config\": {\"oid\": \"ab\"}}}", "invalid path");
	refused(st, OP_FILE_MODIFIED, "{\"files\": {\"/etc/passwd\": {\"oid\": \"ab\"}}}", "invalid path");
	refused(st, OP_FILE_MODIFIED, "{\"files\": {\"x\": {}}}", "need one");
	cJSON_Delete(st);
}

static void test_errors(void **unused)
{
	cJSON *st = session_with(NULL);
	char *s;

	s = ok(st, OP_ERROR_ADD, "{\"type\": \"dependency\", \"message\": \"npm down\"}");
	assert_string_equal(s, "error #1 (dependency): \"npm down\"");
	free(s);
	refused(st, OP_ERROR_ADD, "{\"message\": \"x\"}", "missing type");
	refused(st, OP_ERROR_ADD, "{\"message\": \"x\", \"type\": \"bad\"}", "unknown error type");
	refused(st, OP_ERROR_RESOLVE, "{\"error\": 2, \"resolution\": \"r\"}", "no error #2");
	refused(st, OP_ERROR_RESOLVE, "{\"error\": 0, \"resolution\": \"r\"}", "no error #0");
	refused(st, OP_ERROR_RESOLVE, "{\"error\": 1}", "missing resolution");
	ok_(st, OP_ERROR_RESOLVE, "{\"error\": 1, \"resolution\": \"mirror\"}");
	refused(st, OP_ERROR_RESOLVE, "{\"error\": 1, \"resolution\": \"again\"}", "already resolved");
	cJSON_Delete(st);
}

static void test_tokens(void **unused)
{
	cJSON *st = session_with(NULL), *t, *by;

	ok_(st, OP_AGENT_START, "{\"agent\": \"coder\", \"type\": \"code\", \"task\": \"t\"}");
	ok_(st, OP_TOKENS_ADD, "{\"agent\": \"coder\", \"input\": 8000, \"output\": 4000, \"cached\": 2000}");
	ok_(st, OP_TOKENS_ADD, "{\"agent\": \"tester\", \"input\": 7000, \"output\": 4000, \"cached\": 1000}");
	t = cJSON_GetObjectItem(st, "tokens");
	assert_int_equal((int)json_num(t, "input", 0), 15000);
	assert_int_equal((int)json_num(t, "output", 0), 8000);
	assert_int_equal((int)json_num(t, "cached", 0), 3000);
	assert_int_equal((int)json_num(t, "peak", 0), 23000);
	by = cJSON_GetObjectItem(t, "by_agent");
	assert_int_equal((int)json_num(cJSON_GetObjectItem(by, "coder"), "input", 0), 8000);
	assert_int_equal((int)json_num(cJSON_GetObjectItem(by, "tester"), "cached", 0), 1000);
	assert_int_equal((int)json_num(cJSON_GetObjectItem(state_agent(st, "coder"), "tokens"), "output", 0), 4000);
	assert_true(state_tokens_used(t) == 23000);
	ok_(st, OP_TOKENS_ADD, "{\"agent\": \"dev\", \"input\": 100000, \"output\": 45000, \"isolated\": true}");
	assert_int_equal((int)json_num(t, "saved", 0), 145000);
	assert_true(state_tokens_used(t) == 23000);	/* isolated use is saved, not used */
	refused(st, OP_TOKENS_ADD, "{\"agent\": \"x\", \"input\": -1, \"output\": 0}", "whole numbers");
	refused(st, OP_TOKENS_ADD, "{\"agent\": \"x\", \"input\": 1.5, \"output\": 0}", "whole numbers");
	refused(st, OP_TOKENS_ADD, "{\"input\": 1, \"output\": 0}", "missing agent");
	cJSON_Delete(st);
}

static void test_token_defaults(void **unused)
{
	/* a missing max is no budget (0), other missing fields 0 */
	const char *doc = "{\"session_id\": \"x\", \"tokens\": {\"max\": null, \"current\": 5}}";
	cJSON *in = NULL, *st = NULL, *t;
	char *err = NULL;

	assert_int_equal(json_parse(&in, doc, strlen(doc), 1 << 20, &err), 0);
	assert_int_equal(state_normalize(&st, in, &err), 0);
	t = cJSON_GetObjectItem(st, "tokens");
	assert_int_equal((int)json_num(t, "max", -1), 0);
	assert_int_equal((int)json_num(t, "peak", -1), 0);
	assert_int_equal((int)json_num(t, "saved", -1), 0);
	assert_int_equal((int)json_num(t, "current", 0), 5);	/* unknown keys kept */
	cJSON_Delete(st);
}

static void test_decisions_tasks_milestones(void **unused)
{
	cJSON *st = session_with(NULL), *d;
	char *s;

	ok_(st, OP_DECIDE, "{\"decision\": \"Use bootstrap\", \"rationale\": \"balance\"}");
	d = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "decisions"), 0);
	assert_string_equal(json_str(d, "rationale"), "balance");
	assert_string_equal(json_str(d, "timestamp"), "2025-01-02T03:04:05Z");
	refused(st, OP_DECIDE, "{}", "missing decision");
	ok_(st, OP_TASK_ADD, "{\"title\": \"Add unit tests\"}");
	s = ok(st, OP_TASK_DONE, "{\"task\": 1}");
	assert_string_equal(s, "task #1 done: \"Add unit tests\"");
	free(s);
	refused(st, OP_TASK_DONE, "{\"task\": 1}", "already done");
	refused(st, OP_TASK_DONE, "{\"task\": 2}", "no task #2");
	ok_(st, OP_MILESTONE_ADD, "{\"name\": \"PRD complete\"}");
	refused(st, OP_MILESTONE_ADD, "{\"name\": \"PRD complete\"}", "already exists");
	ok_(st, OP_MILESTONE_DONE, "{\"name\": \"PRD complete\"}");
	refused(st, OP_MILESTONE_DONE, "{\"name\": \"PRD complete\"}", "already done");
	refused(st, OP_MILESTONE_DONE, "{\"name\": \"nope\"}", "no milestone");
	ok_(st, OP_ARTIFACT, "{\"path\": \"docs/prd.md\"}");
	refused(st, OP_ARTIFACT, "{\"path\": \"../prd.md\"}", "invalid path");
	cJSON_Delete(st);
}

/* Only a phase's move changes the current phase: what an import kept stays through other work. */
static void test_current_phase_kept(void **unused)
{
	static const char *const ops[][2] = {
		{ "note", "{\"text\": \"hi\"}" },
		{ "decide", "{\"decision\": \"Use REST\"}" },
		{ "phase.add", "{\"names\": [\"D\"]}" },
		{ "phase.add", "{\"names\": [\"E\", \"F\"], \"blocked_by\": [1]}" },
		{ "task.add", "{\"title\": \"t\"}" },
		{ "milestone.add", "{\"name\": \"m\"}" },
		{ "error.add", "{\"type\": \"runtime\", \"message\": \"x\"}" },
		{ "agent.start", "{\"agent\": \"a\", \"type\": \"code\", \"task\": \"t\"}" },
		{ "tokens.add", "{\"agent\": \"a\", \"input\": 1, \"output\": 1}" },
		{ "summary", "{\"text\": \"s\"}" },
		{ "set", "{\"key\": \"k\", \"value\": 1}" },
		{ "artifact", "{\"path\": \"docs/a.md\"}" },
	};
	cJSON *kept[] = { cJSON_CreateNumber(3), cJSON_CreateString("3.5") };

	for (size_t k = 0; k < ARRAY_SIZE(kept); k++) {
		cJSON *st = session_with("[\"A\", \"B\", \"C\", \"G\"]");

		json_set(st, "current_phase", cJSON_Duplicate(kept[k], 1));
		for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
			ok_(st, op_lookup(ops[i][0])->id, ops[i][1]);
			assert_true(json_equal(cJSON_GetObjectItem(st, "current_phase"), kept[k]));
		}
		ok_(st, OP_PHASE_START, "{\"phase\": 2}");	/* a move does change it */
		assert_int_equal((int)json_num(st, "current_phase", 0), 2);
		cJSON_Delete(st);
		cJSON_Delete(kept[k]);
	}
	{
		cJSON *st = session_with(NULL);	/* none: a phase added is not started, so none still */

		json_set(st, "current_phase", cJSON_CreateNull());
		ok_(st, OP_PHASE_ADD, "{\"names\": [\"A\"]}");
		assert_true(cJSON_IsNull(cJSON_GetObjectItem(st, "current_phase")));
		ok_(st, OP_PHASE_START, "{\"phase\": 1}");
		assert_int_equal((int)json_num(st, "current_phase", 0), 1);
		cJSON_Delete(st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_phase_moves_legal),
		cmocka_unit_test(test_phase_moves_refused),
		cmocka_unit_test(test_current_phase_kept),
		cmocka_unit_test(test_fail_needs_error_and_type),
		cmocka_unit_test(test_retry_limit),
		cmocka_unit_test(test_blocked_and_parallel),
		cmocka_unit_test(test_phase_step),
		cmocka_unit_test(test_agents),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_token_defaults),
		cmocka_unit_test(test_decisions_tasks_milestones),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
