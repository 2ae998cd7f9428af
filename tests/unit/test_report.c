/*
 * test_report.c - status, tokens and diff reports built from states.
 */
#include "helpers.h"
#include "git-session/report.h"

static const struct report_ctx ctx = { "abc", 1, 1735787045, 2 };	/* 2025-01-02T03:04:05Z */

static cJSON *status_of(const cJSON *st)
{
	return report_status(st, &ctx);
}

static const char *next_cmd(const cJSON *st)
{
	static char buf[128];
	cJSON *r = status_of(st);
	const char *c = json_str(cJSON_GetObjectItem(r, "next"), "command");

	snprintf(buf, sizeof(buf), "%s", c ? c : "(none)");
	cJSON_Delete(r);
	return buf;
}

/* A file's kind by content: one that holds HEAD's content is never "modified". */
static void test_file_kind(void **unused)
{
	cJSON *st = cJSON_Parse("{\"phases\": [], \"agents\": []}");
	cJSON *rec = cJSON_Parse("{\"status\": \"modified\", \"oid\": \"1111111111111111111111111111111111111111\"}");
	static const struct {
		const char *fact, *kind;
	} cases[] = {
		{ "{\"fs\": \"file\", \"same_stat\": true, \"oid\": null, \"head_oid\": null}", "clean" },
		{ "{\"fs\": \"file\", \"oid\": \"1111111111111111111111111111111111111111\","
		  " \"head_oid\": \"1111111111111111111111111111111111111111\"}", "committed" },
		{ "{\"fs\": \"file\", \"oid\": \"2222222222222222222222222222222222222222\", \"head_oid\": null}", "modified" },
		{ "{\"fs\": \"file\", \"oid\": \"2222222222222222222222222222222222222222\","
		  " \"head_oid\": \"3333333333333333333333333333333333333333\"}", "modified" },
		/* a later commit (a teammate's, merged) changed what was recorded: the file is HEAD's */
		{ "{\"fs\": \"file\", \"oid\": \"2222222222222222222222222222222222222222\","
		  " \"head_oid\": \"2222222222222222222222222222222222222222\", \"in_history\": true}", "committed" },
		/* put back to HEAD's, and what was recorded is in no commit of HEAD's */
		{ "{\"fs\": \"file\", \"oid\": \"2222222222222222222222222222222222222222\","
		  " \"head_oid\": \"2222222222222222222222222222222222222222\", \"in_history\": false}", "reverted" },
		{ "{\"fs\": \"file\", \"oid\": \"2222222222222222222222222222222222222222\","
		  " \"head_oid\": \"2222222222222222222222222222222222222222\"}", "reverted" },
		{ "{\"fs\": \"missing\", \"oid\": null, \"head_oid\": null}", "deleted" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cJSON *fact = cJSON_Parse(cases[i].fact);

		assert_non_null(fact);
		assert_string_equal(report_file_kind(st, rec, fact), cases[i].kind);
		cJSON_Delete(fact);
	}
	cJSON_Delete(rec);
	cJSON_Delete(st);
}

static void test_levels(void **unused)
{
	assert_string_equal(report_token_level(80000, 100000), "ok");	/* 80% is not over 80% */
	assert_string_equal(report_token_level(80001, 100000), "warning");
	assert_string_equal(report_token_level(95000, 100000), "warning");
	assert_string_equal(report_token_level(95001, 100000), "critical");
	assert_string_equal(report_token_level(200000, 100000), "critical");
	assert_string_equal(report_token_level(5, 0), "ok");
}

static void test_tokens_report(void **unused)
{
	cJSON *st = session_with(NULL), *r, *by;

	ok_(st, OP_TOKENS_ADD, "{\"agent\": \"a\", \"input\": 100, \"output\": 50}");
	ok_(st, OP_TOKENS_ADD, "{\"agent\": \"b\", \"input\": 1000, \"output\": 500, \"cached\": 7}");
	ok_(st, OP_TOKENS_ADD, "{\"agent\": \"c\", \"input\": 300, \"output\": 0, \"isolated\": true}");
	r = report_tokens(st);
	assert_int_equal((int)json_num(r, "max", -1), 0);	/* no budget unless one is set */
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "remaining")));
	assert_int_equal((int)json_num(r, "percent", -1), 0);
	assert_string_equal(json_str(r, "level"), "ok");
	cJSON_Delete(r);
	ok_(st, OP_TOKENS_BUDGET, "{\"max\": 150000}");
	r = report_tokens(st);
	assert_int_equal((int)json_num(r, "used", 0), 1650);
	assert_int_equal((int)json_num(r, "max", 0), 150000);
	assert_int_equal((int)json_num(r, "remaining", 0), 148350);
	assert_true(json_num(r, "percent", 0) == 1.1);
	assert_int_equal((int)json_num(r, "saved", 0), 300);
	assert_true(json_num(r, "savings_percent", 0) == 15.4);	/* 300 / 1950 */
	by = cJSON_GetObjectItem(r, "by_agent");
	assert_string_equal(json_str(cJSON_GetArrayItem(by, 0), "agent"), "b");	/* most first */
	assert_int_equal((int)json_num(cJSON_GetArrayItem(by, 0), "total", 0), 1500);
	assert_string_equal(json_str(cJSON_GetArrayItem(by, 2), "agent"), "a");
	cJSON_Delete(r);
	cJSON_Delete(st);
}

static void test_status_progress_and_errors(void **unused)
{
	cJSON *st = session_with("[\"A\", \"B\", \"C\", \"D\"]"), *r, *prog, *errs;

	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	ok_(st, OP_PHASE_COMPLETE, "{\"phase\": 1}");
	ok_(st, OP_PHASE_SKIP, "{\"phase\": 4}");
	ok_(st, OP_ERROR_ADD, "{\"type\": \"runtime\", \"message\": \"one\"}");
	ok_(st, OP_ERROR_ADD, "{\"type\": \"timeout\", \"message\": \"two\"}");
	ok_(st, OP_ERROR_RESOLVE, "{\"error\": 1, \"resolution\": \"fixed\"}");
	r = status_of(st);
	prog = cJSON_GetObjectItem(r, "progress");
	assert_int_equal((int)json_num(prog, "phases", 0), 4);
	assert_int_equal((int)json_num(prog, "completed", 0), 1);
	assert_int_equal((int)json_num(prog, "skipped", 0), 1);
	assert_int_equal((int)json_num(prog, "percent", 0), 50);
	errs = cJSON_GetObjectItem(r, "unresolved_errors");
	assert_int_equal(cJSON_GetArraySize(errs), 1);
	assert_int_equal((int)json_num(cJSON_GetArrayItem(errs, 0), "number", 0), 2);
	assert_int_equal((int)json_num(r, "errors_total", 0), 2);
	assert_true(json_bool(r, "active", 0));
	assert_string_equal(json_str(r, "checkpoint"), "abc");
	assert_int_equal((int)json_num(r, "elapsed_seconds", -1), 0);
	cJSON_Delete(r);
	cJSON_Delete(st);
}

static void test_next_action(void **unused)
{
	cJSON *st = session_with(NULL);

	assert_string_equal(next_cmd(st), "git session phase add <name>...");
	ok_(st, OP_PHASE_ADD, "{\"names\": [\"A\", \"B\"]}");
	assert_string_equal(next_cmd(st), "git session phase start 1");
	ok_(st, OP_PHASE_START, "{\"phase\": 1}");
	assert_string_equal(next_cmd(st), "git session phase complete 1");
	ok_(st, OP_AGENT_START, "{\"agent\": \"x\", \"type\": \"t\", \"task\": \"t\"}");
	assert_string_equal(next_cmd(st), "(none)");	/* wait for the agent */
	ok_(st, OP_AGENT_DONE, "{\"agent\": \"x\"}");
	ok_(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"e\"}");
	assert_string_equal(next_cmd(st), "git session phase retry 1");
	for (int i = 0; i < 2; i++) {
		ok_(st, OP_PHASE_RETRY, "{\"phase\": 1}");
		ok_(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"e\"}");
	}
	{
		cJSON *r = status_of(st);
		assert_null(json_str(cJSON_GetObjectItem(r, "next"), "command"));
		assert_non_null(strstr(json_str(cJSON_GetObjectItem(r, "next"), "text"), "escalate"));
		cJSON_Delete(r);
	}
	cJSON_Delete(st);
	st = session_with("[\"A\"]");
	ok_(st, OP_PHASE_SKIP, "{\"phase\": 1}");
	assert_string_equal(next_cmd(st), "git session close");
	ok_(st, OP_SESSION_PAUSE, NULL);
	assert_string_equal(next_cmd(st), "git session resume s");
	cJSON_Delete(st);
}

#define OID_A "0123456789abcdef0123456789abcdef01234567"

/* An agent session as its hooks record it: a CLI's agent, its sub-agent, files, commits. */
static cJSON *agent_session(const char *agents_json)
{
	cJSON *st = session_with(NULL);

	cJSON_ReplaceItemInObject(st, "agents", cJSON_Parse(agents_json));
	cJSON_ReplaceItemInObject(st, "files", cJSON_Parse(
		"{\"README.md\": {\"status\": \"modified\", \"oid\": \"" OID_A "\", \"agent\": \"claude-1\"},"
		" \"docs/USAGE.md\": {\"status\": \"created\", \"oid\": \"" OID_A "\", \"agent\": \"general-purpose-2\"},"
		" \"notes.txt\": {\"status\": \"created\", \"oid\": \"" OID_A "\"},"
		" \"test_todo.py\": {\"status\": \"created\", \"oid\": \"" OID_A "\", \"agent\": \"claude-1\"},"
		" \"todo.py\": {\"status\": \"created\", \"oid\": \"" OID_A "\", \"agent\": \"claude-1\"},"
		" \"z.py\": {\"status\": \"created\", \"oid\": \"" OID_A "\", \"agent\": \"claude-1\"}}"));
	cJSON_ReplaceItemInObject(st, "commits", cJSON_Parse(
		"[{\"id\": \"1111111aaaa\", \"subject\": \"add todo\"}, {\"id\": \"2222222bbbb\", \"subject\": \"link the usage docs\"}]"));
	return st;
}

#define CLAUDE_NOW "{\"id\": \"claude-1\", \"type\": \"claude-code\", \"status\": \"in_progress\", " \
	"\"started\": \"2025-01-02T03:00:00Z\", \"seen\": \"2025-01-02T03:04:00Z\", \"session\": \"1a2b-3c4d\", " \
	"\"by\": \"Alice <alice@example.com>\", \"cli\": \"claude-code\", \"prompts\": 3, " \
	"\"last_prompt\": \"link the docs\", \"last_reply\": \"README links the usage docs now.\", " \
	"\"tokens\": {\"input\": 70000, \"output\": 3800, \"cached\": 5}, " \
	"\"commands\": {\"run\": 4, \"failed\": 2, \"last\": [" \
	"{\"command\": \"make\", \"exit\": 2, \"ms\": 5, \"at\": \"2025-01-02T03:01:00Z\"}," \
	"{\"command\": \"pytest -q\", \"exit\": 1, \"ms\": null, \"at\": \"2025-01-02T03:02:00Z\"}," \
	"{\"command\": \"pytest -q\", \"exit\": 0, \"ms\": 80, \"at\": \"2025-01-02T03:03:00Z\"}," \
	"{\"command\": \"ls\", \"exit\": null, \"ms\": null, \"at\": \"2025-01-02T03:03:30Z\"}]}}"
#define SUBAGENT "{\"id\": \"general-purpose-2\", \"type\": \"general-purpose\", \"status\": \"completed\", " \
	"\"started\": \"2025-01-02T03:02:00Z\", \"parent\": \"claude-1\", \"cli\": \"claude-code\", " \
	"\"result_summary\": \"wrote docs/USAGE.md\", \"tokens\": {\"input\": 2000, \"output\": 140, \"cached\": 0}}"

static const cJSON *agent_of(const cJSON *r, const char *id)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItem(r, "agents"))
		if (!strcmp(json_str(a, "id"), id))
			return a;
	fail_msg("no agent %s in the report", id);
	return NULL;
}

static void test_status_agent_session(void **unused)
{
	cJSON *st = agent_session("[" CLAUDE_NOW ", " SUBAGENT "]"), *r = status_of(st);
	const cJSON *a = agent_of(r, "claude-1"), *sub = agent_of(r, "general-purpose-2"), *c, *f;

	assert_string_equal(json_str(a, "by"), "Alice <alice@example.com>");
	assert_string_equal(json_str(a, "cli"), "claude-code");
	assert_int_equal((int)json_num(a, "prompts", 0), 3);
	assert_string_equal(json_str(a, "last_prompt"), "link the docs");
	assert_string_equal(json_str(a, "last_reply"), "README links the usage docs now.");
	assert_int_equal((int)json_num(cJSON_GetObjectItem(a, "tokens"), "input", 0), 70000);
	c = cJSON_GetObjectItem(a, "commands");
	assert_int_equal((int)json_num(c, "run", 0), 4);
	assert_int_equal((int)json_num(c, "failed", 0), 2);
	assert_string_equal(json_str(cJSON_GetObjectItem(c, "last"), "command"), "ls");
	/* the newest that failed, not the newest: a pass after it does not hide it */
	assert_string_equal(json_str(cJSON_GetObjectItem(c, "last_failed"), "command"), "pytest -q");
	assert_int_equal((int)json_num(cJSON_GetObjectItem(c, "last_failed"), "exit", 0), 1);
	f = cJSON_GetObjectItem(a, "files");	/* its own files only; a few named */
	assert_int_equal((int)json_num(f, "count", 0), 4);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(f, "paths")), 3);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "paths"), 0)->valuestring, "README.md");
	assert_string_equal(json_str(a, "resume"), "claude --resume 1a2b-3c4d");
	assert_string_equal(json_str(sub, "parent"), "claude-1");
	assert_int_equal((int)json_num(cJSON_GetObjectItem(sub, "files"), "count", 0), 1);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(sub, "files"), "paths"), 0)->valuestring,
			    "docs/USAGE.md");
	assert_null(json_str(sub, "resume"));	/* no session of its own */
	f = cJSON_GetObjectItem(r, "files_touched");
	assert_int_equal((int)json_num(f, "count", 0), 6);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "recent_commits")), 2);
	assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "recent_commits"), 1), "subject"),
			    "link the usage docs");
	/* the agent runs in its CLI: go on there, nothing to wait for */
	assert_non_null(strstr(json_str(cJSON_GetObjectItem(r, "next"), "text"), "continue with your agent claude-1"));
	assert_null(json_str(cJSON_GetObjectItem(r, "next"), "command"));
	cJSON_Delete(r);
	/* its CLI ended: resume it there */
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "agents"), 0), "status",
				  cJSON_CreateString("completed"));
	assert_string_equal(next_cmd(st), "claude --resume 1a2b-3c4d");
	/* its conversation is not on this machine (a teammate's): carried here first, in progress or not */
	{
		static const char *const elsewhere[] = { "claude-1", NULL };
		cJSON *was = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "agents"), 0);
		struct report_ctx here = ctx;
		cJSON *rep;

		here.elsewhere = elsewhere;
		for (int i = 0; i < 2; i++) {
			rep = report_status(st, &here);
			assert_string_equal(json_str(cJSON_GetObjectItem(rep, "next"), "command"),
					    "git session resume --agent claude-code:claude-1");
			cJSON_Delete(rep);
			cJSON_ReplaceItemInObject(was, "status", cJSON_CreateString("in_progress"));
		}
	}
	cJSON_Delete(st);
}

static void test_status_agent_session_old_and_hostile(void **unused)
{
	/* recorded before "cli", "by", "prompts", "commands": a hooked agent is known by its session */
	cJSON *st = agent_session("[{\"id\": \"gemini-1\", \"type\": \"gemini-cli\", \"status\": \"completed\","
				  " \"started\": \"2025-01-02T03:00:00Z\", \"session\": \"9f9f\"}]"), *r = status_of(st);
	const cJSON *a = agent_of(r, "gemini-1");
	const char *text;

	assert_string_equal(json_str(a, "cli"), "gemini-cli");
	assert_null(json_str(a, "by"));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(a, "commands")));
	assert_null(json_str(a, "last_reply"));
	assert_int_equal((int)json_num(a, "prompts", -1), 0);
	assert_string_equal(next_cmd(st), "gemini --resume 9f9f");
	cJSON_Delete(r);
	cJSON_Delete(st);
	/* a session id no shell should see: no command made of it */
	st = agent_session("[{\"id\": \"claude-1\", \"type\": \"claude-code\", \"status\": \"completed\","
			   " \"cli\": \"claude-code\", \"session\": \"x; rm -rf ~\"}]");
	r = status_of(st);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(agent_of(r, "claude-1"), "resume")));
	assert_null(json_str(cJSON_GetObjectItem(r, "next"), "command"));
	assert_non_null(strstr(json_str(cJSON_GetObjectItem(r, "next"), "text"), "resume the agent claude-1 in its CLI"));
	cJSON_Delete(r);
	cJSON_Delete(st);
	/* an agent of no CLI, done, with no phases: never "plan the work in phases" */
	st = agent_session("[{\"id\": \"w\", \"type\": \"code\", \"status\": \"completed\", \"parent\": \"w\"}]");
	r = status_of(st);
	text = json_str(cJSON_GetObjectItem(r, "next"), "text");
	assert_null(strstr(text, "phases"));
	assert_string_equal(next_cmd(st), "git session close");
	cJSON_Delete(r);
	cJSON_Delete(st);
	/* a commands record not of the shape: read as far as it holds */
	st = agent_session("[{\"id\": \"claude-1\", \"commands\": {\"run\": \"x\", \"last\": [1, {\"command\": 5},"
			   " {\"command\": \"make\", \"exit\": \"2\"}]}}]");
	r = status_of(st);
	a = cJSON_GetObjectItem(agent_of(r, "claude-1"), "commands");
	assert_int_equal((int)json_num(a, "run", -1), 0);
	assert_string_equal(json_str(cJSON_GetObjectItem(a, "last"), "command"), "make");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(a, "last_failed")));
	cJSON_Delete(r);
	cJSON_Delete(st);
}

static void test_stale(void **unused)
{
	cJSON *a = cJSON_Parse("{\"status\": \"in_progress\", \"started\": \"2025-01-02T02:00:00Z\"}");

	(void)unused;
	assert_true(report_stale(a, 1735787045, 1800));		/* 64 minutes since its start */
	assert_false(report_stale(a, 1735787045, 7200));
	assert_false(report_stale(a, 1735787045, 0));		/* off */
	cJSON_AddStringToObject(a, "seen", "2025-01-02T03:00:00Z");
	assert_false(report_stale(a, 1735787045, 1800));	/* an operation 4 minutes ago */
	assert_true(report_stale(a, 1735787045, 200));
	cJSON_ReplaceItemInObject(a, "status", cJSON_CreateString("completed"));
	assert_false(report_stale(a, 1735787045, 1));
	cJSON_Delete(a);
}

static void test_ages(void **unused)
{
	static const struct { const char *s; int64_t secs; } ok[] = {
		{ "30.days", 30 * 86400 }, { "2.weeks.ago", 14 * 86400 }, { "12h", 43200 }, { "90d", 90 * 86400 },
		{ "3 months", 90 * 86400 }, { "1.year", 365 * 86400 }, { "45 minutes ago", 2700 }, { "10s", 10 },
		{ "now", 0 }, { "never", -1 },
	};
	static const char *const bad[] = { "", "soon", "days", "-3d", "3", "3x", "3.days.later", "3d4h",
					    "99999999999999999999d" };
	int64_t v;

	(void)unused;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(gs_parse_age(&v, ok[i].s), 0);
		assert_int_equal(v, ok[i].secs);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gs_parse_age(&v, bad[i]), GS_ERROR);
}

static void test_diff(void **unused)
{
	cJSON *a = session_with("[\"A\", \"B\"]"), *b, *d, *m;

	ok_(a, OP_PHASE_START, "{\"phase\": 1}");
	ok_(a, OP_ERROR_ADD, "{\"type\": \"runtime\", \"message\": \"old\", \"phase\": 1}");
	b = cJSON_Duplicate(a, 1);
	ok_(b, OP_PHASE_COMPLETE, "{\"phase\": 1}");	/* resolves error #1 */
	ok_(b, OP_AGENT_START, "{\"agent\": \"c1\", \"type\": \"code\", \"task\": \"t\"}");
	ok_(b, OP_CHECKPOINT, "{\"files\": {\"a.c\": {\"status\": \"created\", \"oid\": \"0123456789012345678901234567890123456789\"}}}");
	ok_(b, OP_ERROR_ADD, "{\"type\": \"timeout\", \"message\": \"new\"}");
	ok_(b, OP_TOKENS_ADD, "{\"agent\": \"c1\", \"input\": 10, \"output\": 5}");
	ok_(b, OP_DECIDE, "{\"decision\": \"d\"}");
	ok_(b, OP_NOTE, "{\"text\": \"n\"}");
	d = report_diff(a, b, "aaa", "bbb");
	assert_string_equal(json_str(d, "from"), "aaa");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(d, "status")));
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "phases"), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "phases")), 1);
	assert_string_equal(json_str(m, "from"), "in_progress");
	assert_string_equal(json_str(m, "to"), "completed");
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "agents"), 0);
	assert_null(json_str(m, "from"));
	assert_string_equal(json_str(m, "id"), "c1");
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "files"), 0);
	assert_string_equal(json_str(m, "path"), "a.c");
	assert_null(json_str(m, "from"));
	m = cJSON_GetObjectItem(d, "errors");
	assert_int_equal((int)json_num(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "opened"), 0), "number", 0), 2);
	assert_int_equal((int)json_num(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "resolved"), 0), "number", 0), 1);
	assert_int_equal((int)json_num(cJSON_GetObjectItem(d, "tokens"), "used", 0), 15);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "decisions")), 1);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "notes")), 1);
	cJSON_Delete(d);
	d = report_diff(b, b, "bbb", "bbb");	/* nothing changed, nothing listed */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "phases")), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "files")), 0);
	assert_int_equal((int)json_num(cJSON_GetObjectItem(d, "tokens"), "input", 1), 0);
	cJSON_Delete(d);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void at_(cJSON *st, enum op_id id, const char *args, const char *at)
{
	char *subject = NULL, *err = NULL;

	if (apply_at(st, id, args, at, &subject, &err))
		fail_msg("%s %s: %s", op_info(id)->name, args, err);
	free(subject);
}

static void test_timeline(void **unused)
{
	cJSON *st = cJSON_CreateObject(), *t, *rows, *r;

	at_(st, OP_SESSION_START, "{\"id\": \"s\", \"phases\": [\"A\", \"B\"]}", "2025-01-02T03:00:00Z");
	at_(st, OP_PHASE_START, "{\"phase\": 1}", "2025-01-02T03:01:00Z");
	at_(st, OP_AGENT_START, "{\"agent\": \"x\", \"type\": \"t\", \"task\": \"k\"}", "2025-01-02T03:02:00Z");
	at_(st, OP_PHASE_FAIL, "{\"phase\": 1, \"error\": \"boom\"}", "2025-01-02T03:03:00Z");
	at_(st, OP_PHASE_RETRY, "{\"phase\": 1}", "2025-01-02T03:04:00Z");
	at_(st, OP_COMMIT_RECORD, "{\"id\": \"0123456789012345678901234567890123456789\", \"subject\": \"c\"}",
	    "2025-01-02T03:10:00Z");
	t = report_timeline(st);
	assert_string_equal(json_str(t, "start"), "2025-01-02T03:00:00Z");
	assert_string_equal(json_str(t, "end"), "2025-01-02T03:10:00Z");
	assert_int_equal((int)json_num(t, "seconds", 0), 600);
	rows = cJSON_GetObjectItem(t, "rows");
	/* phase 1, its agent x, phase 2 */
	assert_int_equal(cJSON_GetArraySize(rows), 3);
	r = cJSON_GetArrayItem(rows, 0);
	assert_string_equal(json_str(r, "kind"), "phase");
	assert_string_equal(json_str(r, "from"), "2025-01-02T03:01:00Z");
	assert_int_equal((int)json_num(r, "retry_count", 0), 1);
	assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "marks"), 0), "kind"), "retried");
	assert_string_equal(json_str(cJSON_GetArrayItem(rows, 1), "label"), "x");
	assert_null(json_str(cJSON_GetArrayItem(rows, 2), "from"));	/* phase 2 never started */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(t, "commits")), 1);
	cJSON_Delete(t);
	cJSON_Delete(st);
	/* with no phases, agents have rows of their own */
	st = session_with(NULL);
	ok_(st, OP_AGENT_START, "{\"agent\": \"free\", \"type\": \"t\", \"task\": \"k\"}");
	t = report_timeline(st);
	rows = cJSON_GetObjectItem(t, "rows");
	assert_int_equal(cJSON_GetArraySize(rows), 1);
	assert_string_equal(json_str(cJSON_GetArrayItem(rows, 0), "kind"), "agent");
	assert_int_equal((int)json_num(t, "seconds", -1), 0);
	cJSON_Delete(t);
	cJSON_Delete(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_file_kind),
		cmocka_unit_test(test_tokens_report),
		cmocka_unit_test(test_status_progress_and_errors),
		cmocka_unit_test(test_next_action),
		cmocka_unit_test(test_status_agent_session),
		cmocka_unit_test(test_status_agent_session_old_and_hostile),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_ages),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_timeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
