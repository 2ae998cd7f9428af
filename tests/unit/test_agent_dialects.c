/*
 * test_agent_dialects.c - the dialects of OpenCode, Cursor and the generic
 * payload: what each reads of its payloads, the generic version and name
 * checks, Cursor's flat hooks.json and OpenCode's plugin file in and out
 * byte for byte, and a Cursor payload recognised through Claude's hooks.
 */
#include "helpers.h"
#include "git-session/agent.h"

static void read_ev(struct agent_event *ev, cJSON **keep, const char *agent, const char *json)
{
	*keep = cJSON_Parse(json);
	assert_non_null(*keep);
	agent_read_event(ev, agent_dialect(agent), *keep);
}

static void test_generic(void **unused)
{
	struct agent_event ev;
	cJSON *p;

	read_ev(&ev, &p, "generic", "{\"version\":1,\"agent\":\"pi\",\"session_id\":\"s1\",\"tool\":\"sh\","
		"\"command\":\"make\",\"exit\":2,\"ms\":15,\"usage\":{\"input\":10,\"output\":2,\"cached\":3}}");
	assert_null(ev.refused);
	assert_string_equal(ev.agent, "pi");
	assert_string_equal(ev.command, "make");
	assert_true(ev.has_exit && ev.exit == 2 && ev.failed && ev.has_ms && ev.ms == 15);
	assert_true(ev.has_usage && ev.usage[0] == 10 && ev.usage[1] == 2 && ev.usage[2] == 3);
	cJSON_Delete(p);
	/* any tool writes a file its payload names */
	read_ev(&ev, &p, "generic", "{\"version\":1,\"agent\":\"pi\",\"tool\":\"x\",\"path\":\"a.c\",\"change\":\"created\"}");
	assert_string_equal(ev.path, "a.c");
	assert_true(ev.created && !ev.command && !ev.has_usage);
	assert_string_equal(ev.session, "");
	cJSON_Delete(p);
	/* a usage with a count out of range is left out whole */
	read_ev(&ev, &p, "generic", "{\"version\":1,\"agent\":\"pi\",\"usage\":{\"input\":1.5,\"output\":2}}");
	assert_false(ev.has_usage);
	cJSON_Delete(p);
	read_ev(&ev, &p, "generic", "{\"version\":1,\"agent\":\"pi\",\"usage\":{\"input\":-1}}");
	assert_false(ev.has_usage);
	cJSON_Delete(p);
	static const char *const refused[] = {
		"{\"version\":2,\"agent\":\"pi\"}", "{\"version\":\"1\",\"agent\":\"pi\"}", "{\"agent\":\"pi\"}",
		"{\"version\":1}", "{\"version\":1,\"agent\":\"../x\"}", "{\"version\":1,\"agent\":\"1abc\"}",
		"{\"version\":1,\"agent\":\"a b\"}", "{\"version\":1,\"agent\":\"ab.\"}", "{\"version\":1,\"agent\":\"\"}",
		"{\"version\":1,\"agent\":\"abcdefghijabcdefghijabcdefghijabc\"}", "{\"version\":1,\"agent\":7}",
		"{\"version\":1,\"agent\":\"claude-code\"}", "{\"version\":1,\"agent\":\"generic\"}",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		read_ev(&ev, &p, "generic", refused[i]);
		assert_non_null(ev.refused);
		cJSON_Delete(p);
	}
	assert_true(agent_name_valid("my-agent_2.0") && agent_name_valid("abcdefghijabcdefghijabcdefghijab"));
	assert_false(agent_name_valid("-x") || agent_name_valid(NULL) || agent_name_valid("é"));
	(void)unused;
}

static void test_opencode(void **unused)
{
	struct agent_event ev;
	cJSON *p;

	read_ev(&ev, &p, "opencode", "{\"event\":\"chat.message\",\"sessionID\":\"ses_1\",\"input\":{\"sessionID\":\"ses_1\"},"
		"\"output\":{\"message\":{\"role\":\"user\"},\"parts\":[{\"type\":\"text\",\"text\":\"ctx\",\"synthetic\":true},"
		"{\"type\":\"file\"},{\"type\":\"text\",\"text\":\"fix it\"}]}}");
	assert_string_equal(ev.session, "ses_1");
	assert_string_equal(ev.prompt, "fix it");
	cJSON_Delete(p);
	read_ev(&ev, &p, "opencode", "{\"sessionID\":\"ses_1\",\"input\":{\"tool\":\"write\",\"args\":{\"filePath\":\"a.txt\"}},"
		"\"output\":{\"metadata\":{\"filepath\":\"/r/a.txt\",\"exists\":false}},\"ms\":12}");
	assert_string_equal(ev.path, "/r/a.txt");
	assert_true(ev.created);
	cJSON_Delete(p);
	read_ev(&ev, &p, "opencode", "{\"sessionID\":\"ses_1\",\"input\":{\"tool\":\"edit\",\"args\":{\"filePath\":\"a.txt\"}},"
		"\"output\":{\"metadata\":{\"filediff\":{\"file\":\"/r/a.txt\"}}}}");
	assert_string_equal(ev.path, "/r/a.txt");
	assert_false(ev.created);
	cJSON_Delete(p);
	read_ev(&ev, &p, "opencode", "{\"sessionID\":\"ses_1\",\"input\":{\"tool\":\"apply_patch\",\"args\":{\"patchText\":\"P\"}}}");
	assert_string_equal(ev.patch, "P");
	assert_null(ev.path);
	cJSON_Delete(p);
	read_ev(&ev, &p, "opencode", "{\"sessionID\":\"ses_1\",\"subagent\":{\"id\":\"ses_2\",\"type\":\"general\"},"
		"\"input\":{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}},\"output\":{\"metadata\":{\"exit\":3}},\"ms\":40}");
	assert_string_equal(ev.command, "ls");
	assert_string_equal(ev.subagent_id, "ses_2");
	assert_string_equal(ev.subagent_type, "general");
	assert_true(ev.has_exit && ev.exit == 3 && ev.failed && ev.has_ms && ev.ms == 40);
	cJSON_Delete(p);
	/* before the call, its arguments are in the output; a task is no writer */
	read_ev(&ev, &p, "opencode", "{\"sessionID\":\"ses_1\",\"input\":{\"tool\":\"task\"},\"output\":{\"args\":{\"filePath\":\"x\"}}}");
	assert_null(ev.path);
	assert_true(agent_is_agent_tool(agent_dialect("opencode"), "task"));
	cJSON_Delete(p);
	read_ev(&ev, &p, "opencode", "{\"event\":\"session.idle\",\"sessionID\":\"ses_1\",\"reply\":\"Done.\","
		"\"usage\":{\"input\":402,\"output\":25,\"cached\":600}}");
	assert_string_equal(ev.said, "Done.");
	assert_true(ev.has_usage && ev.usage[0] == 402 && ev.usage[1] == 25 && ev.usage[2] == 600);
	cJSON_Delete(p);
	(void)unused;
}

#define CURSOR_COMMON "\"conversation_id\":\"c1\",\"generation_id\":\"g\",\"cursor_version\":\"1.7.2\",\"workspace_roots\":[\"/r\"]"

static const char *no_env(const char *name)
{
	(void)name;
	return NULL;
}

static void test_cursor(void **unused)
{
	const struct agent_dialect *d = agent_dialect("cursor");
	struct agent_event ev;
	cJSON *p;

	read_ev(&ev, &p, "cursor", "{" CURSOR_COMMON ",\"hook_event_name\":\"afterFileEdit\",\"file_path\":\"/r/a.c\","
		"\"edits\":[]}");
	assert_string_equal(ev.session, "c1");
	assert_string_equal(ev.path, "/r/a.c");
	assert_ptr_equal(agent_guest(agent_dialect("claude-code"), p, no_env), d);
	cJSON_Delete(p);
	read_ev(&ev, &p, "cursor", "{" CURSOR_COMMON ",\"session_id\":\"s9\",\"tool_name\":\"Shell\","
		"\"tool_input\":{\"command\":\"npm test\"},\"tool_output\":\"{\\\"exitCode\\\":1}\",\"duration\":54}");
	assert_string_equal(ev.session, "s9");
	assert_string_equal(ev.command, "npm test");
	assert_true(ev.has_exit && ev.exit == 1 && ev.failed && ev.has_ms && ev.ms == 54);
	cJSON_Delete(p);
	/* a tool_output that is not JSON says no status */
	read_ev(&ev, &p, "cursor", "{" CURSOR_COMMON ",\"tool_name\":\"Shell\",\"tool_input\":{\"command\":\"ls\"},"
		"\"tool_output\":\"{nope\"}");
	assert_false(ev.has_exit);
	cJSON_Delete(p);
	read_ev(&ev, &p, "cursor", "{" CURSOR_COMMON ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/r/b.c\"}}");
	assert_string_equal(ev.path, "/r/b.c");
	cJSON_Delete(p);
	/* Claude Code's own payload is not Cursor's */
	p = cJSON_Parse("{\"session_id\":\"s\",\"hook_event_name\":\"Stop\",\"cwd\":\"/r\"}");
	assert_null(agent_guest(agent_dialect("claude-code"), p, no_env));
	cJSON_Delete(p);
	(void)unused;
}

static void settings_round_trip(const char *agent, const char *text, const char *prefix, int events)
{
	const struct agent_dialect *d = agent_dialect(agent);
	char *with = NULL, *again = NULL, *back = NULL, *err = NULL;

	assert_int_equal(agent_settings_add(&with, &err, text, text ? strlen(text) : 0, d, prefix), 0);
	assert_non_null(with);
	assert_int_equal(agent_settings_count(with, strlen(with), d, prefix), events);
	assert_int_equal(agent_settings_add(&again, &err, with, strlen(with), d, prefix), 0);
	assert_null(again);	/* twice is once */
	assert_int_equal(agent_settings_remove(&back, &err, with, strlen(with), d, prefix), 0);
	assert_non_null(back);
	if (text)
		assert_string_equal(back, text);
	free(with);
	free(back);
}

static void test_settings(void **unused)
{
	const struct agent_dialect *d = agent_dialect("cursor");
	char *with = NULL, *err = NULL;
	cJSON *v, *h;

	settings_round_trip("cursor", "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"stop\": [{ \"command\": \"./a.sh\" }]\n\t}\n}\n",
			    "git-session hook cursor", 11);
	settings_round_trip("cursor", "{\"version\":1}", "git-session hook cursor", 11);
	settings_round_trip("opencode", NULL, "git-session hook opencode", 8);
	/* a new hooks.json says its version, each entry flat */
	assert_int_equal(agent_settings_add(&with, &err, NULL, 0, d, "git-session hook cursor"), 0);
	v = cJSON_Parse(with);
	assert_int_equal((int)cJSON_GetObjectItem(v, "version")->valuedouble, 1);
	h = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(v, "hooks"), "postToolUse"), 0);
	assert_string_equal(cJSON_GetObjectItem(h, "matcher")->valuestring, "Shell");
	assert_non_null(strstr(cJSON_GetObjectItem(h, "command")->valuestring,
			       "cd \"${CURSOR_PROJECT_DIR:-.}\" && git-session hook cursor postToolUse"));
	assert_null(cJSON_GetObjectItem(h, "hooks"));
	cJSON_Delete(v);
	free(with);
	/* the plugin: wholly ours; one not ours is refused; an older one of ours written again */
	d = agent_dialect("opencode");
	assert_int_equal(agent_settings_add(&with, &err, "// mine\n", 8, d, "git-session hook opencode"), GS_ERROR);
	assert_non_null(err);
	free(err);
	err = NULL;
	assert_int_equal(agent_settings_count("// mine\n", 8, d, "git-session hook opencode"), 0);
	assert_int_equal(agent_settings_add(&with, &err, "// git-session hook opencode, old\n", 34, d,
					    "git-session hook opencode"), 0);
	assert_non_null(strstr(with, "import { spawnSync } from \"node:child_process\""));
	assert_non_null(strstr(with, "const COMMAND = \"git-session hook opencode\"\n"));
	free(with);
	(void)unused;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_opencode),
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_settings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
