/*
 * test_mcp.c - JSON-RPC framing, version negotiation, and the tools:
 * their schemas and the command lines their arguments make.
 */
#include "helpers.h"
#include "git-session/mcp.h"

static void parse_fails(const char *line, int code, const char *id_json)
{
	struct mcp_msg m;
	char *reply = NULL, *idtext;
	cJSON *r;

	assert_int_equal(mcp_parse(&m, line, strlen(line), &reply), code);
	assert_null(m.root);
	if (!id_json) {
		assert_null(reply);
		return;
	}
	assert_non_null(reply);
	r = cJSON_Parse(reply);
	assert_int_equal((int)json_num(cJSON_GetObjectItem(r, "error"), "code", 0), code);
	idtext = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "id"));
	assert_string_equal(idtext, id_json);
	free(idtext);
	cJSON_Delete(r);
	free(reply);
}

static void test_parse(void **unused)
{
	struct mcp_msg m;
	char *reply = NULL;
	const char *req = "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/list\", \"params\": {}}";
	const char *note = "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}";
	const char *resp = "{\"jsonrpc\": \"2.0\", \"id\": \"s1\", \"result\": {}}";

	assert_int_equal(mcp_parse(&m, req, strlen(req), &reply), 0);
	assert_string_equal(m.method, "tools/list");
	assert_int_equal((int)m.id->valuedouble, 7);
	assert_true(cJSON_IsObject(m.params));
	mcp_msg_clear(&m);
	assert_int_equal(mcp_parse(&m, note, strlen(note), &reply), 0);
	assert_null(m.id);
	mcp_msg_clear(&m);
	assert_int_equal(mcp_parse(&m, resp, strlen(resp), &reply), 0);
	assert_null(m.method);
	assert_null(m.id);	/* a response: nothing to answer */
	mcp_msg_clear(&m);

	parse_fails("{nope", MCP_PARSE_ERROR, "null");
	parse_fails("[{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}]", MCP_INVALID_REQUEST, "null");
	parse_fails("{\"id\": 1, \"method\": \"ping\"}", MCP_INVALID_REQUEST, "1");
	parse_fails("{\"jsonrpc\": \"1.0\", \"id\": \"a\", \"method\": \"ping\"}", MCP_INVALID_REQUEST, "\"a\"");
	parse_fails("{\"jsonrpc\": \"2.0\", \"id\": null, \"method\": \"ping\"}", MCP_INVALID_REQUEST, "null");
	parse_fails("{\"jsonrpc\": \"2.0\", \"id\": 1.5, \"method\": \"ping\"}", MCP_INVALID_REQUEST, "null");
	parse_fails("{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": 3}", MCP_INVALID_REQUEST, "2");
	parse_fails("{\"jsonrpc\": \"2.0\", \"id\": 2}", MCP_INVALID_REQUEST, "2");
	parse_fails("{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"x\", \"params\": [1]}", MCP_INVALID_PARAMS, "3");
	/* a notification with bad params has no one to answer */
	parse_fails("{\"jsonrpc\": \"2.0\", \"method\": \"x\", \"params\": 5}", MCP_INVALID_PARAMS, NULL);
}

static void test_lines(void **unused)
{
	cJSON *id = cJSON_CreateString("q"), *p = cJSON_CreateObject();
	char *line;

	line = mcp_response(id, NULL);
	assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"result\":{}}");
	free(line);
	line = mcp_error(NULL, MCP_METHOD_NOT_FOUND, "method not found");
	assert_string_equal(line, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32601,\"message\":\"method not found\"}}");
	free(line);
	json_set_str(p, "uri", "git-session://active");
	line = mcp_notification("notifications/resources/updated", p);
	assert_non_null(strstr(line, "\"params\":{\"uri\":\"git-session://active\"}"));
	assert_null(strchr(line, '\n'));
	free(line);
	cJSON_Delete(id);
}

static void test_negotiate(void **unused)
{
	assert_string_equal(mcp_negotiate("2025-06-18"), "2025-06-18");
	assert_string_equal(mcp_negotiate("2024-11-05"), "2024-11-05");
	assert_string_equal(mcp_negotiate("2031-01-01"), "2025-11-25");
	assert_string_equal(mcp_negotiate(NULL), "2025-11-25");
}

/* The command line tool name makes of args (JSON), as one string; NULL with *err on refusal. */
static char *line_of(const char *name, const char *args, char **err)
{
	const struct mcp_tool *t = mcp_tool_find(name);
	struct strlist argv = { 0 };
	struct sbuf sb = SBUF_INIT;
	cJSON *a = cJSON_Parse(args);
	int error;

	assert_non_null(t);
	error = mcp_tool_argv(&argv, t, a, err);
	for (size_t i = 0; i < argv.n; i++)
		sbuf_addf(&sb, "%s%s", i ? "|" : "", argv.v[i]);
	mcp_argv_clear(&argv);
	cJSON_Delete(a);
	if (error) {
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_detach(&sb, NULL);
}

static void line_is(const char *name, const char *args, const char *want)
{
	char *err = NULL, *got = line_of(name, args, &err);

	if (!got)
		fail_msg("%s %s: %s", name, args, err);
	assert_string_equal(got, want);
	free(got);
}

static void tool_refused(const char *name, const char *args, const char *want)
{
	char *err = NULL, *got = line_of(name, args, &err);

	assert_null(got);
	if (!err || !strstr(err, want))
		fail_msg("'%s' does not say '%s'", err ? err : "(null)", want);
	free(err);
}

static void test_tool_lines(void **unused)
{
	line_is("session_start", "{\"topic\": \"OAuth\", \"phases\": [\"A\", \"B\"], \"budget\": 9000, \"pause_current\": true}",
		"start|--phase=A|--phase=B|--budget=9000|--pause-current|--|OAuth");
	line_is("session_start", "{}", "start|--");
	line_is("note_add", "{\"text\": \"--not-an-option\"}", "note|--|--not-an-option");
	line_is("phase_update", "{\"phase\": 2, \"action\": \"complete\", \"context\": \"-x\"}",
		"phase|complete|--context=-x|--|2");
	line_is("phase_update", "{\"phase\": 2, \"action\": \"step\", \"sub_step\": \"tests\"}", "phase|step|--|2|tests");
	line_is("agent_update", "{\"agent\": \"a\", \"action\": \"fail\", \"error\": \"e\", \"error_type\": \"timeout\"}",
		"agent|fail|--error=e|--type=timeout|--|a");
	line_is("file_record", "{\"status\": \"deleted\", \"paths\": [\"a.c\", \"b c.c\"]}", "file|deleted|--|a.c|b c.c");
	line_is("session_list", "{\"all\": false}", "list|--json");
	line_is("session_status", "null", "status|--json|--");

	tool_refused("note_add", "{}", "needs the argument 'text'");
	tool_refused("note_add", "{\"text\": \"x\", \"colour\": 1}", "takes no argument 'colour'");
	tool_refused("note_add", "{\"text\": 5}", "argument 'text' must be a string");
	tool_refused("phase_update", "{\"phase\": 1.5, \"action\": \"start\"}", "'phase' must be an integer");
	tool_refused("phase_update", "{\"phase\": 1, \"action\": \"explode\"}", "one of start|complete");
	tool_refused("phase_update", "{\"phase\": 1, \"action\": \"star\"}", "one of start");
	tool_refused("file_record", "{\"status\": \"created\", \"paths\": \"a.c\"}", "must be a list of strings");
	tool_refused("file_record", "{\"status\": \"created\", \"paths\": [1]}", "must be a list of strings");
	tool_refused("session_close", "{\"abort\": \"yes\"}", "'abort' must be true or false");
	tool_refused("session_status", "[]", "arguments must be an object");
}

/* Every template's words name arguments the tool declares, and the other way round. */
static void test_tools_consistent(void **unused)
{
	size_t n;
	const struct mcp_tool *t = mcp_tools(&n);

	assert_int_equal(n, 26);
	for (size_t i = 0; i < n; i++) {
		cJSON *d = mcp_tool_describe(&t[i]), *props = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "inputSchema"), "properties");

		assert_ptr_equal(mcp_tool_find(t[i].name), &t[i]);
		assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "outputSchema"), "type"));
		for (const struct mcp_arg *a = t[i].args; a->name; a++) {
			char *ref = xstrfmt("{%s", a->name);

			if (!strstr(t[i].argv, ref))
				fail_msg("%s: argument '%s' is not in its command line", t[i].name, a->name);
			assert_non_null(cJSON_GetObjectItem(props, a->name));
			free(ref);
		}
		for (const char *p = strchr(t[i].argv, '{'); p; p = strchr(p + 1, '{')) {
			size_t len = strcspn(p + 1, "?*!}");
			int found = 0;

			for (const struct mcp_arg *a = t[i].args; a->name && !found; a++)
				found = strlen(a->name) == len && !strncmp(a->name, p + 1, len);
			if (!found)
				fail_msg("%s: its command line uses an argument it does not declare", t[i].name);
		}
		cJSON_Delete(d);
	}
	assert_null(mcp_tool_find("no_such_tool"));
	assert_null(mcp_tool_find(NULL));
}

/* The operation "<command>.<word>" a tool's template and choice stand for, if one exists. */
static const struct op_info *tool_op(const struct mcp_tool *t, const char *word)
{
	char *cmd = xstrndup(t->argv, strcspn(t->argv, " ")), *name = xstrfmt("%s.%s", cmd, word);
	const struct op_info *info = op_lookup(name);

	free(cmd);
	free(name);
	return info;
}

/*
 * The word lists of the tools are the operation table's: every choice of
 * a subcommand argument is an operation, and every operation of a command
 * family that has tools is reachable through one of them.
 */
static void test_tools_match_operations(void **unused)
{
	static const char *const families[] = { "phase", "agent", "file", "error", "task", "milestone", "tokens" };
	int reached[OP_COUNT] = { 0 };
	size_t n;
	const struct mcp_tool *t = mcp_tools(&n);

	for (size_t i = 0; i < n; i++) {
		const struct op_info *info;
		char *first = xstrndup(t[i].argv, strcspn(t[i].argv, "-{"));

		for (const struct mcp_arg *a = t[i].args; a->name; a++) {
			char *ref = xstrfmt("%.*s{%s}", (int)strcspn(t[i].argv, " ") + 1, t[i].argv, a->name);

			if (a->choices && !strncmp(t[i].argv, ref, strlen(ref))) {	/* "phase {action}" */
				char *words = xstrdup(a->choices), *save = NULL;

				for (char *w = strtok_r(words, "|", &save); w; w = strtok_r(NULL, "|", &save)) {
					if (!(info = tool_op(&t[i], w)))
						fail_msg("%s: '%s %s' is no operation", t[i].name, first, w);
					reached[info->id] = 1;
				}
				free(words);
			}
			free(ref);
		}
		if (strchr(first, ' ')) {	/* "phase add ...": a fixed subcommand */
			char *w = strchr(first, ' ') + 1;

			w[strcspn(w, " ")] = '\0';
			if (*w && (info = tool_op(&t[i], w)))
				reached[info->id] = 1;
		}
		free(first);
	}
	for (int id = 0; id < OP_COUNT; id++)
		for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
			size_t len = strlen(families[f]);

			if (!strncmp(op_info(id)->name, families[f], len) && op_info(id)->name[len] == '.' && !reached[id] &&
			    !(op_info(id)->flags & OPF_HOOK))
				fail_msg("no MCP tool reaches %s", op_info(id)->name);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_tools_match_operations),
		cmocka_unit_test(test_tool_lines),
		cmocka_unit_test(test_tools_consistent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
