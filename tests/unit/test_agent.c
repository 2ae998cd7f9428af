/*
 * test_agent.c - the agents' dialects: every row of the table whole, the
 * payloads each reads, our hooks into and out of their settings files
 * byte for byte, and the usage their transcripts hold.
 */
#include "helpers.h"
#include "git-session/agent.h"

#define PREFIX "git-session hook claude-code"

static char *added(const char *text)
{
	char *out = NULL, *err = NULL;

	assert_int_equal(agent_settings_add(&out, &err, text, text ? strlen(text) : 0, agent_dialect("claude-code"),
					    PREFIX), 0);
	assert_null(err);
	assert_non_null(out);
	return out;
}

static void round_trip(const char *text)
{
	char *with = added(text), *again = NULL, *back = NULL, *err = NULL;
	cJSON *v = cJSON_Parse(with);

	assert_non_null(v);	/* what is written parses */
	cJSON_Delete(v);
	assert_int_equal(agent_settings_count(with, strlen(with), agent_dialect("claude-code"), PREFIX), 10);
	/* twice is once */
	assert_int_equal(agent_settings_add(&again, &err, with, strlen(with), agent_dialect("claude-code"), PREFIX), 0);
	assert_null(again);
	assert_int_equal(agent_settings_remove(&back, &err, with, strlen(with), agent_dialect("claude-code"), PREFIX), 0);
	assert_non_null(back);
	if (text)
		assert_string_equal(back, text);
	free(with);
	free(back);
}

static void test_settings_round_trip(void **unused)
{
	round_trip("{\n    \"permissions\": {\n        \"allow\": [\"Bash(make:*)\"]\n    }\n}\n");
	round_trip("{\"model\": \"opus\"}");
	round_trip("{\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\n\t\t]\n\t}\n}\n");
	round_trip("{\n  \"hooks\": {\n    \"Notification\": []\n  },\n  \"env\": {\"A\": \"1\"}\n}\n");
	round_trip(NULL);
}

static void test_settings_keep_theirs(void **unused)
{
	const char *text = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\n    ]\n  }\n}\n";
	char *with = added(text);
	cJSON *v = cJSON_Parse(with), *stop = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "hooks"), "Stop");

	/* their group first, ours after it */
	assert_int_equal(cJSON_GetArraySize(stop), 2);
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(stop, 0), "hooks"), 0)
			    ->child->next->valuestring, "say done");
	/* the text before our group is theirs, byte for byte */
	assert_memory_equal(with, text, strlen("{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}"));
	cJSON_Delete(v);
	free(with);
}

static void test_settings_refused(void **unused)
{
	char *out = NULL, *err = NULL;

	assert_int_equal(agent_settings_add(&out, &err, "[1]", 3, agent_dialect("claude-code"), PREFIX), GS_ERROR);
	assert_non_null(err);
	free(err);
	err = NULL;
	assert_int_equal(agent_settings_add(&out, &err, "{\"a\": ", 6, agent_dialect("claude-code"), PREFIX), GS_ERROR);
	free(err);
	err = NULL;
	assert_int_equal(agent_settings_add(&out, &err, "{\"hooks\": 3}", 12, agent_dialect("claude-code"), PREFIX),
			 GS_ERROR);
	free(err);
	assert_null(out);
}

static void test_usage(void **unused)
{
	/* Claude: one line per content block, each with the message's usage */
	const char *claude =
		"{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n"
		"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":100,\"output_tokens\":7}}}\n"
		"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"usage\":{\"input_tokens\":10,\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":100,\"output_tokens\":7}}}\n"
		"{\"type\":\"assistant\",\"message\":{\"id\":\"m2\",\"usage\":{\"input_tokens\":20,\"output_tokens\":3}}}\n";
	/* Gemini: a message written again as it grows; the last counts */
	const char *gemini =
		"{\"id\":\"g1\",\"type\":\"gemini\",\"tokens\":{\"input\":50,\"output\":4,\"cached\":10,\"thoughts\":2}}\n"
		"{\"$set\":{\"lastUpdated\":\"x\"}}\n"
		"{\"id\":\"g1\",\"type\":\"gemini\",\"tokens\":{\"input\":50,\"output\":9,\"cached\":10,\"thoughts\":2}}\n";
	const char *gemini_later = "{\"id\":\"g1\",\"type\":\"gemini\",\"tokens\":{\"input\":50,\"output\":12,\"cached\":10}}\n";
	const struct agent_dialect *c = agent_dialect("claude-code"), *g = agent_dialect("gemini-cli");
	struct agent_usage u = { 0 };

	agent_usage_scan(&u, c, claude, strlen(claude));
	assert_int_equal(u.messages, 2);
	assert_true(u.input == 35 && u.output == 10 && u.cached == 100);
	memset(&u, 0, sizeof(u));
	agent_usage_scan(&u, g, gemini, strlen(gemini));
	assert_int_equal(u.messages, 1);
	assert_true(u.input == 40 && u.output == 11 && u.cached == 10);
	/* the next part repeats the last message: its new usage replaces the old */
	agent_usage_scan(&u, g, gemini_later, strlen(gemini_later));
	assert_int_equal(u.messages, 1);
	assert_true(u.input == 40 && u.output == 12 && u.cached == 10);
	/* the last text a message said is the reply, cut at a character */
	{
		char *line = xstrfmt("{\"type\":\"assistant\",\"message\":{\"id\":\"m9\",\"content\":[{\"type\":\"text\",\"text\":\"first\"},"
				     "{\"type\":\"tool_use\"},{\"type\":\"text\",\"text\":\"%s\"}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n",
				     "Done: \\u00e9t\\u00e9 ok.");
		char big[6000];

		memset(&u, 0, sizeof(u));
		agent_usage_scan(&u, c, line, strlen(line));
		assert_string_equal(u.reply, "Done: \xc3\xa9t\xc3\xa9 ok.");
		free(line);
		for (size_t i = 0; i + 2 < sizeof(big); i += 2)
			memcpy(big + i, "\xc3\xa9", 2);
		big[sizeof(big) - 2] = '\0';
		line = xstrfmt("{\"id\":\"g5\",\"type\":\"gemini\",\"content\":\"xx%s\",\"tokens\":{\"input\":1}}\n", big);
		agent_usage_scan(&u, g, line, strlen(line));
		/* the room ends inside a character: it is left out whole */
		assert_int_equal(strlen(u.reply), sizeof(u.reply) - 2);
		assert_true(gs_utf8_valid(u.reply, strlen(u.reply)));
		free(line);
	}
	/* each reads its own transcript's shape only */
	memset(&u, 0, sizeof(u));
	agent_usage_scan(&u, c, gemini, strlen(gemini));
	agent_usage_scan(&u, g, claude, strlen(claude));
	assert_true(u.messages == 0 && u.skipped == 0 && u.input == 0);
}

/* A compaction's call is in no message: the running total's growth past it, less the messages, counts. */
static void test_usage_compaction(void **unused)
{
#define COST(in, out) "{\"type\":\"cost-state\",\"modelUsage\":{\"m\":{\"inputTokens\":" #in \
	",\"outputTokens\":" #out ",\"cacheReadInputTokens\":0,\"cacheCreationInputTokens\":0}}}\n"
	const char *before = "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"usage\":{\"input_tokens\":100,\"output_tokens\":20}}}\n"
			     COST(1391, 260);
	const char *part = "{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\"}\n"
			   "{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"content\":\"compact_boundary\"}}\n"
			   "{\"type\":\"assistant\",\"message\":{\"id\":\"m2\",\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}}\n"
			   COST(1505, 280) COST(1000, 100);
	const char *quoted = "{\"type\":\"user\",\"message\":{\"content\":\"\\\"compact_boundary\\\"\"}}\n" COST(1600, 290);
	const struct agent_dialect *c = agent_dialect("claude-code");
	struct agent_usage u = { 0 };

	agent_usage_scan(&u, c, before, strlen(before));
	assert_true(u.input == 100 && u.output == 20 && u.compactions == 0 && u.has_total);
	/* the next part, carried on: 114 in and 20 out since the total, 10 and 5 of them a message's */
	u.input = u.output = 0;
	agent_usage_scan(&u, c, part, strlen(part));
	assert_int_equal(u.compactions, 1);
	assert_int_equal(u.messages, 2);
	assert_true(u.input == 114 && u.output == 20);
	/* a total that went back, and a prompt that quotes the mark, count nothing more */
	assert_true(u.total[0] == 1000 && !u.pending);
	u.input = u.output = 0;
	agent_usage_scan(&u, c, quoted, strlen(quoted));
	assert_true(u.input == 0 && u.output == 0 && u.compactions == 1);
#undef COST
}

static void test_usage_out_of_range(void **unused)
{
	/* each bad line is skipped, its tokens not counted; the good ones around it count */
	const char *text =
		"{\"message\":{\"id\":\"a\",\"usage\":{\"input_tokens\":1,\"output_tokens\":10000000000000}}}\n"
		"{\"message\":{\"id\":\"b\",\"usage\":{\"input_tokens\":1e400}}}\n"
		"{\"message\":{\"id\":\"c\",\"usage\":{\"input_tokens\":-1}}}\n"
		"{\"message\":{\"id\":\"d\",\"usage\":{\"input_tokens\":\"9\"}}}\n"
		"{\"message\":{\"id\":\"e\",\"usage\":{\"input_tokens\":2.5}}}\n"
		"{\"message\":{\"id\":\"f\",\"usage\":{\"input_tokens\":600000000000,\"cache_creation_input_tokens\":600000000000}}}\n"
		"{\"message\":{\"id\":\"g\",\"usage\":{\"input_tokens\":3,\"output_tokens\":4,\"cache_read_input_tokens\":null}}}\n"
		"{\"message\":{\"id\":\"i\",\"usage\":{\"input_tokens\":999999999999}}}\n"
		"{\"message\":{\"id\":\"j\",\"usage\":{\"input_tokens\":5}}}\n";
	const char *gemini =
		"{\"id\":\"h\",\"type\":\"gemini\",\"tokens\":{\"input\":5,\"output\":999999999999,\"thoughts\":2}}\n"
		"{\"id\":\"k\",\"type\":\"gemini\",\"tokens\":{\"input\":5,\"output\":-1}}\n"
		"{\"id\":\"l\",\"type\":\"gemini\",\"tokens\":{\"input\":5,\"output\":1,\"cached\":7}}\n";
	struct agent_usage u = { 0 };

	agent_usage_scan(&u, agent_dialect("claude-code"), text, strlen(text));
	/* a..f bad; i takes the total past 10^12 with g: skipped too */
	assert_int_equal(u.skipped, 7);
	assert_int_equal(u.messages, 2);
	assert_true(u.input == 8 && u.output == 4 && u.cached == 0);
	assert_string_equal(u.last_id, "j");
	/* output and thoughts past 10^12 together, a negative count; cached more than the input it is part of */
	memset(&u, 0, sizeof(u));
	agent_usage_scan(&u, agent_dialect("gemini-cli"), gemini, strlen(gemini));
	assert_int_equal(u.skipped, 2);
	assert_int_equal(u.messages, 1);
	assert_true(u.input == 0 && u.output == 1 && u.cached == 7);
}

/* Every row of the table is whole: what the hook runner and `hooks --agent` take from it is there. */
static void test_table(void **unused)
{
	char *names = agent_names(", ", " or ");
	size_t n = 0;

	for (const struct agent_dialect *const *d = agent_dialects; *d; d++, n++) {
		assert_ptr_equal(agent_dialect((*d)->name), *d);
		assert_non_null(strstr(names, (*d)->name));
		assert_true((*d)->stem && *(*d)->stem && (!(*d)->settings || (*d)->settings[0] != '/'));
		/* an agent with settings has the ops to edit them; one without (generic) none */
		assert_true(!(*d)->settings == !(*d)->settings_ops);
		assert_true(!(*d)->settings_ops || ((*d)->settings_ops->add && (*d)->settings_ops->remove &&
						    (*d)->settings_ops->count));
		assert_true(!(*d)->hooks_file || (*d)->settings);
		/* a transcript read for usage says where its usage is */
		assert_true(!(*d)->scan_usage == !(*d)->usage_mark && (!(*d)->usage_mark || *(*d)->usage_mark));
		assert_true((*d)->read_event && (*d)->block_exit > 1);
		assert_true((*d)->write_tools || ((*d)->flags & AGENT_TOOLS_ANY));
		assert_true(!(*d)->settings || (*d)->folder);
		/* hooks in the agent's settings have a timeout; a file wholly ours (a plugin) brings its own */
		assert_true(!(*d)->settings || (*d)->hooks_file || (*d)->timeout > 0);
		assert_true(agent_event_count(*d) > 0);
		for (const struct agent_hook_event *e = (*d)->events; e->event; e++)
			assert_int_equal(agent_event_kind(*d, e->event), e->kind);
	}
	assert_int_equal(n, 8);
	assert_string_equal(names, "claude-code, gemini-cli, qwen-code, copilot-cli, codex, opencode, cursor or generic");
	free(names);
}

static void test_read_event(void **unused)
{
	cJSON *p = cJSON_Parse("{\"session_id\":\"s1\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/r/a.c\"},"
			       "\"tool_response\":{\"type\":\"create\"},\"agent_id\":\"x1\",\"agent_type\":\"Explore\","
			       "\"transcript_path\":\"/t\",\"agent_transcript_path\":\"/t/x1\",\"trigger\":\"auto\"}");
	cJSON *gp = cJSON_Parse("{\"tool_name\":\"write_file\",\"tool_input\":{\"absolute_path\":\"b.c\"},"
				"\"tool_response\":{\"llmContent\":\"Successfully created and wrote to new file\"}}");
	struct agent_event ev;

	agent_read_event(&ev, agent_dialect("claude-code"), p);
	assert_string_equal(ev.session, "s1");
	assert_string_equal(ev.path, "/r/a.c");
	assert_int_equal(ev.created, 1);
	assert_true(!strcmp(ev.subagent_id, "x1") && !strcmp(ev.subagent_type, "Explore"));
	assert_true(!strcmp(ev.transcript, "/t") && !strcmp(ev.subagent_transcript, "/t/x1"));
	assert_true(!strcmp(ev.trigger, "auto") && !ev.prompt && !ev.reason);
	/* Write is not one of Gemini's writers: no file */
	agent_read_event(&ev, agent_dialect("gemini-cli"), p);
	assert_null(ev.path);
	assert_int_equal(ev.created, 0);
	agent_read_event(&ev, agent_dialect("gemini-cli"), gp);
	assert_string_equal(ev.session, "");
	assert_string_equal(ev.path, "b.c");
	assert_int_equal(ev.created, 1);
	cJSON_Delete(p);
	cJSON_Delete(gp);
}

/* Shell commands: their line, status and time as each CLI says them; what is out of range is not known. */
static void test_read_shell(void **unused)
{
	static const struct {
		const char *agent, *payload;
		int failed, has_exit;
		double exit;
		int has_ms;
		double ms;
	} cases[] = {
		{ "claude-code", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"stdout\":\"\",\"interrupted\":false},\"duration_ms\":9}", 0, 1, 0, 1, 9 },
		{ "claude-code", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"error\":\"Exit code 3\\nto-stdout\",\"is_interrupt\":false,\"duration_ms\":20}", 1, 1, 3, 1, 20 },
		{ "claude-code", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"error\":\"Exit code 12345678901\",\"duration_ms\":-1}", 1, 0, 0, 0, 0 },
		{ "claude-code", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"error\":\"Exit code 1x\",\"duration_ms\":1.5}", 1, 0, 0, 0, 0 },
		{ "claude-code", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"sleep 9\"},"
		  "\"tool_response\":{\"interrupted\":true}}", 1, 0, 0, 0, 0 },
		{ "claude-code", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"grep x\"},"
		  "\"tool_response\":{\"returnCodeInterpretation\":\"No matches found\"}}", 0, 0, 0, 0, 0 },
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"<untrusted_context>\\nOutput: x\\nExit Code: 1\\n"
		  "Process Group PGID: 9\\n</untrusted_context>\"}}", 1, 1, 1, 0, 0 },
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"Output: Exit Code: 7\\nProcess Group PGID: 9\"}}", 0, 1, 0, 0, 0 },
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"x\",\"error\":{\"message\":\"no shell\"}}}", 1, 0, 0, 0, 0 },
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"Exit Code: -2147483649\"}}", 1, 0, 0, 0, 0 },
		/* stopped with no status: a signal, a spawn error, a cancel; gone on in the background: not known */
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"Output: x\\nSignal: 9\\nProcess Group PGID: 9\"}}", 1, 0, 0, 0, 0 },
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"Output: (empty)\\nError: spawn ENOENT\"}}", 1, 0, 0, 0, 0 },
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"<untrusted_context>\\nCommand was cancelled by user "
		  "before it could complete.\"}}", 1, 0, 0, 0, 0 },
		{ "gemini-cli", "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls\"},"
		  "\"tool_response\":{\"llmContent\":\"Command moved to background (PID: 7).\"}}", 0, 0, 0, 0, 0 },
	};
	struct agent_event ev;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *p = cJSON_Parse(cases[i].payload);

		assert_non_null(p);
		agent_read_event(&ev, agent_dialect(cases[i].agent), p);
		assert_non_null(ev.command);
		assert_int_equal(ev.failed, cases[i].failed);
		assert_int_equal(ev.has_exit, cases[i].has_exit);
		if (ev.has_exit)
			assert_true(ev.exit == cases[i].exit);
		assert_int_equal(ev.has_ms, cases[i].has_ms);
		if (ev.has_ms)
			assert_true(ev.ms == cases[i].ms);
		cJSON_Delete(p);
	}
	/* a command only for a shell tool; a sub-agent's notice is no prompt */
	{
		cJSON *p = cJSON_Parse("{\"tool_name\":\"Read\",\"tool_input\":{\"command\":\"x\"},"
				       "\"prompt\":\"<task-notification>\\n</task-notification>\"}");

		agent_read_event(&ev, agent_dialect("claude-code"), p);
		assert_null(ev.command);
		assert_null(ev.prompt);
		cJSON_Delete(p);
	}
}

/* An older install's group (a matcher without Bash, no failure event) is brought up to date, and only ours. */
static void test_settings_upgrade(void **unused)
{
	const char *old = "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\n        \"matcher\": \"Write\",\n"
			  "        \"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]\n      },\n"
			  "      {\n        \"matcher\": \"Write|Edit|MultiEdit|NotebookEdit\",\n        \"hooks\": [\n"
			  "          {\"type\": \"command\", \"command\": \"" PREFIX " PostToolUse\", \"timeout\": 10}\n"
			  "        ]\n      }\n    ]\n  }\n}\n";
	const struct agent_dialect *d = agent_dialect("claude-code");
	char *with, *again = NULL, *err = NULL;
	cJSON *v, *post;

	assert_int_equal(agent_settings_count(old, strlen(old), d, PREFIX), 0);
	with = added(old);
	assert_int_equal(agent_settings_count(with, strlen(with), d, PREFIX), 10);
	v = cJSON_Parse(with);
	post = cJSON_GetObjectItem(cJSON_GetObjectItem(v, "hooks"), "PostToolUse");
	assert_int_equal(cJSON_GetArraySize(post), 2);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(post, 0), "matcher")->valuestring, "Write");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(post, 1), "matcher")->valuestring,
			    "Write|Edit|MultiEdit|NotebookEdit|Bash");
	assert_non_null(strstr(with, "        \"matcher\": \"Write\",\n"));	/* theirs as it was */
	assert_int_equal(agent_settings_add(&again, &err, with, strlen(with), d, PREFIX), 0);
	assert_null(again);
	cJSON_Delete(v);
	free(with);
}

static void test_dialects(void **unused)
{
	assert_int_equal(agent_event_kind(agent_dialect("gemini-cli"), "AfterAgent"), AE_TURN_END);
	assert_int_equal(agent_event_kind(agent_dialect("claude-code"), "Stop"), AE_TURN_END);
	assert_int_equal(agent_event_kind(agent_dialect("claude-code"), "Nope"), AE_NONE);
	assert_null(agent_dialect("nope"));
}

/* Qwen Code: Claude's keys, Gemini's tools; the empty prompt after each tool batch is none */
static void test_qwen_code(void **unused)
{
	const struct agent_dialect *d = agent_dialect("qwen-code");
	cJSON *again = cJSON_Parse("{\"session_id\":\"q1\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"\"}");
	cJSON *w = cJSON_Parse("{\"session_id\":\"q1\",\"tool_name\":\"write_file\",\"tool_input\":{\"file_path\":\"/r/n.md\","
			       "\"content\":\"x\"},\"tool_response\":{\"llmContent\":\"Successfully created and wrote to new "
			       "file: /r/n.md.\"},\"duration_ms\":3}");
	cJSON *f = cJSON_Parse("{\"session_id\":\"q1\",\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"ls x\"},"
			       "\"error\":\"Command: ls x\\nOutput: no\\nExit Code: 2\\nSignal: (none)\",\"duration_ms\":1076}");
	const char *line = "{\"uuid\":\"u1\",\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":"
			   "\"Done.\"}]},\"usageMetadata\":{\"promptTokenCount\":1007,\"candidatesTokenCount\":27,"
			   "\"thoughtsTokenCount\":3,\"cachedContentTokenCount\":100}}\n";
	struct agent_usage u = { 0 };
	struct agent_event ev;

	(void)unused;
	assert_int_equal(agent_event_kind(d, "UserPromptSubmit"), AE_PROMPT);
	agent_read_event(&ev, d, again);
	assert_null(ev.prompt);
	agent_read_event(&ev, d, w);
	assert_true(!strcmp(ev.path, "/r/n.md") && ev.created && !ev.command);
	agent_read_event(&ev, d, f);
	assert_true(!strcmp(ev.command, "ls x") && ev.has_exit && ev.exit == 2 && ev.failed && ev.has_ms && ev.ms == 1076);
	agent_usage_scan(&u, d, line, strlen(line));
	assert_true(u.input == 907 && u.cached == 100 && u.output == 30 && u.messages == 1);
	assert_string_equal(u.reply, "Done.");
	cJSON_Delete(again);
	cJSON_Delete(w);
	cJSON_Delete(f);
}

/* Copilot CLI's own payloads: a sub-agent's are the session's, its prompt and turns not the user's */
static void test_copilot_cli(void **unused)
{
	const struct agent_dialect *d = agent_dialect("copilot-cli");
	cJSON *sh = cJSON_Parse("{\"sessionId\":\"s1\",\"timestamp\":1795683718377,\"toolName\":\"bash\",\"toolArgs\":"
				"{\"command\":\"exit 3\"},\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":"
				"\"\\n<shellId: 0 completed with exit code 3>\"}}");
	cJSON *sub = cJSON_Parse("{\"sessionId\":\"a1\",\"toolName\":\"create\",\"toolArgs\":{\"path\":\"/r/s.txt\","
				 "\"file_text\":\"s\"},\"agentId\":\"a1\",\"agentType\":\"general-purpose\",\"parentAgentId\":\"s1\"}");
	cJSON *subp = cJSON_Parse("{\"sessionId\":\"a1\",\"prompt\":\"sub task\",\"agentId\":\"a1\",\"parentAgentId\":\"s1\"}");
	cJSON *subend = cJSON_Parse("{\"sessionId\":\"a1\",\"transcriptPath\":\"/h/.copilot/session-state/s1/events.jsonl\","
				    "\"stopReason\":\"end_turn\",\"agentId\":\"a1\",\"parentAgentId\":\"s1\"}");
	cJSON *substop = cJSON_Parse("{\"sessionId\":\"s1\",\"transcriptPath\":\"/t\",\"agentId\":\"a1\",\"agentName\":\"g\","
				     "\"agentType\":\"g\",\"response\":\"Sub done.\",\"parentAgentId\":\"s1\"}");
	const char *lines = "{\"type\":\"session.usage_record\",\"data\":{\"usage\":{\"inputTokens\":1001,\"outputTokens\":21,"
			    "\"cacheReadTokens\":100,\"apiCallId\":\"c1\"}},\"id\":\"e1\"}\n"
			    "{\"type\":\"assistant.message\",\"data\":{\"messageId\":\"m1\",\"content\":\"Notes written.\","
			    "\"apiCallId\":\"c1\"},\"id\":\"e2\"}\n"
			    "{\"type\":\"session.usage_record\",\"agentId\":\"a1\",\"data\":{\"usage\":{\"inputTokens\":5,"
			    "\"outputTokens\":5,\"cacheReadTokens\":0,\"apiCallId\":\"c2\"}},\"id\":\"e3\"}\n";
	struct agent_usage u = { 0 };
	struct agent_event ev;

	(void)unused;
	assert_int_equal(agent_event_kind(d, "agentStop"), AE_TURN_END);
	agent_read_event(&ev, d, sh);
	assert_true(!strcmp(ev.session, "s1") && !strcmp(ev.command, "exit 3") && ev.has_exit && ev.exit == 3);
	assert_true(ev.failed && !ev.has_ms && !ev.skip);
	agent_read_event(&ev, d, sub);
	assert_true(!strcmp(ev.session, "s1") && !strcmp(ev.subagent_id, "a1") && !strcmp(ev.path, "/r/s.txt"));
	assert_true(ev.created && !ev.skip);
	agent_read_event(&ev, d, subp);
	assert_true(ev.skip);
	agent_read_event(&ev, d, subend);
	assert_true(ev.skip);
	agent_read_event(&ev, d, substop);
	assert_true(!ev.skip && !strcmp(ev.said, "Sub done.") && !ev.subagent_transcript);
	agent_usage_scan(&u, d, lines, strlen(lines));
	assert_true(u.input == 901 && u.cached == 100 && u.output == 21);
	assert_string_equal(u.reply, "Notes written.");
	cJSON_Delete(sh);
	cJSON_Delete(sub);
	cJSON_Delete(subp);
	cJSON_Delete(subend);
	cJSON_Delete(substop);
}

static const char *fake_env_value;
static const char *fake_env(const char *name)
{
	return fake_env_value && !strncmp(fake_env_value, name, strlen(name)) && fake_env_value[strlen(name)] == '='
		       ? fake_env_value + strlen(name) + 1 : NULL;
}

/* Copilot's payloads through Claude's hooks are Copilot's, read with its keys; Claude Code's stay Claude's */
static void test_guest(void **unused)
{
	const struct agent_dialect *claude = agent_dialect("claude-code");
	cJSON *cp = cJSON_Parse("{\"hook_event_name\":\"PostToolUse\",\"session_id\":\"9f\",\"timestamp\":\"2026-11-26T09:01:58.377Z\","
				"\"cwd\":\"/r\",\"tool_name\":\"Edit\",\"tool_input\":{\"path\":\"/r/n.md\",\"old_str\":\"a\","
				"\"new_str\":\"b\"},\"tool_result\":{\"result_type\":\"success\",\"text_result_for_llm\":\"ok\"}}");
	cJSON *cs = cJSON_Parse("{\"sessionId\":\"7e\",\"timestamp\":1795683402118,\"agentName\":\"g\",\"agent_id\":\"b5\","
				"\"agent_type\":\"g\",\"parent_agent_id\":\"7e\"}");
	cJSON *cc = cJSON_Parse("{\"session_id\":\"a4\",\"transcript_path\":\"/h/.claude/projects/p/a4.jsonl\",\"cwd\":\"/r\","
				"\"permission_mode\":\"bypassPermissions\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":"
				"\"Write\",\"tool_input\":{\"file_path\":\"/r/h.txt\",\"content\":\"h\"},\"tool_use_id\":\"t1\"}");
	const struct agent_dialect *g;
	struct agent_event ev;

	(void)unused;
	fake_env_value = NULL;
	assert_ptr_equal(g = agent_guest(claude, cp, fake_env), agent_dialect("copilot-cli"));
	agent_read_event(&ev, g, cp);
	assert_true(!strcmp(ev.session, "9f") && !strcmp(ev.path, "/r/n.md") && !ev.created);
	assert_ptr_equal(g = agent_guest(claude, cs, fake_env), agent_dialect("copilot-cli"));
	agent_read_event(&ev, g, cs);
	assert_true(!strcmp(ev.session, "7e") && !strcmp(ev.subagent_id, "b5") && !strcmp(ev.subagent_type, "g"));
	/* Claude Code's own, with its environment or none; and what Claude Code's says wins over Copilot's */
	assert_null(agent_guest(claude, cc, fake_env));
	fake_env_value = "CLAUDECODE=1";
	assert_null(agent_guest(claude, cc, fake_env));
	assert_null(agent_guest(claude, cp, fake_env));
	fake_env_value = "COPILOT_CLI=1";
	assert_ptr_equal(agent_guest(claude, cc, fake_env), agent_dialect("copilot-cli"));
	/* only through the hooks of the agent it is a guest of */
	assert_null(agent_guest(agent_dialect("gemini-cli"), cp, fake_env));
	fake_env_value = NULL;
	cJSON_Delete(cp);
	cJSON_Delete(cs);
	cJSON_Delete(cc);
}

/* Copilot's hooks file is wholly ours: made, known, removed; one not ours is refused */
static void test_file_hooks(void **unused)
{
	const struct agent_dialect *d = agent_dialect("copilot-cli");
	const char *p = "git-session hook copilot-cli";
	const char *foreign = "{\"version\":1,\"hooks\":{\"sessionStart\":[{\"type\":\"command\",\"bash\":\"echo hi\"}]}}";
	char *out = NULL, *again = NULL, *err = NULL, *back = NULL;
	const cJSON *hooks;
	cJSON *v;

	(void)unused;
	assert_int_equal(agent_settings_add(&out, &err, NULL, 0, d, p), 0);
	assert_non_null(v = cJSON_Parse(out));
	assert_int_equal(json_num(v, "version", 0), 1);
	hooks = cJSON_GetObjectItemCaseSensitive(v, "hooks");
	assert_string_equal(json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(hooks, "agentStop"), 0), "bash"),
			    "command -v git-session >/dev/null 2>&1 || exit 0; git-session hook copilot-cli agentStop");
	cJSON_Delete(v);
	assert_int_equal(agent_settings_count(out, strlen(out), d, p), (int)agent_event_count(d));
	assert_int_equal(agent_settings_add(&again, &err, out, strlen(out), d, p), 0);
	assert_null(again);
	assert_int_equal(agent_settings_remove(&back, &err, out, strlen(out), d, p), 0);
	assert_string_equal(back, "");
	free(back);
	assert_int_equal(agent_settings_add(&again, &err, foreign, strlen(foreign), d, p), -1);
	assert_non_null(err);
	free(err);
	err = NULL;
	assert_int_equal(agent_settings_count(foreign, strlen(foreign), d, p), 0);
	assert_int_equal(agent_settings_remove(&back, &err, foreign, strlen(foreign), d, p), 0);
	assert_null(back);
	free(out);
}

/* the headers of an apply_patch patch, in its order; what is before Begin and after End is not read */
static void test_patch_files(void **unused)
{
	const char *patch = "apply_patch <<'EOF'\n*** Begin Patch\r\n*** Add File: docs/new.md\n+# new\n"
			    "*** Update File:   src/a.c  \n@@ int a;\n-int a;\n+int b;\n*** Move to: src/b.c\n"
			    "*** Delete File: old.txt\n+*** Add File: not-a-header\n*** End Patch\n"
			    "*** Add File: after-the-end\nEOF\n";
	struct agent_patch_file *v;
	size_t n;

	(void)unused;
	assert_int_equal(agent_patch_files(&v, &n, patch), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].path, "docs/new.md");
	assert_int_equal(v[0].kind, AGENT_PATCH_ADD);
	assert_string_equal(v[1].path, "src/a.c");
	assert_int_equal(v[1].kind, AGENT_PATCH_UPDATE);
	assert_string_equal(v[2].path, "src/b.c");
	assert_int_equal(v[2].kind, AGENT_PATCH_MOVE_TO);
	assert_string_equal(v[3].path, "old.txt");
	assert_int_equal(v[3].kind, AGENT_PATCH_DELETE);
	agent_patch_files_free(v, n);
	/* refused whole: no begin, a header with no path, a move with no update before it */
	assert_int_equal(agent_patch_files(&v, &n, "*** Add File: a\n+x\n"), -1);
	assert_null(v);
	assert_int_equal(agent_patch_files(&v, &n, "*** Begin Patch\n*** Add File: a\n*** Delete File:  \n"), -1);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_int_equal(agent_patch_files(&v, &n, "*** Begin Patch\n*** Move to: b\n*** End Patch\n"), -1);
	assert_int_equal(agent_patch_files(&v, &n, "*** Begin Patch\n*** End Patch\n"), 0);
	assert_int_equal(n, 0);
	agent_patch_files_free(v, n);
}

static void test_patch_files_many(void **unused)
{
	struct sbuf sb = SBUF_INIT;
	struct agent_patch_file *v;
	size_t n;

	(void)unused;
	sbuf_adds(&sb, "*** Begin Patch\n");
	for (int i = 0; i < AGENT_PATCH_FILES_MAX; i++)
		sbuf_addf(&sb, "*** Delete File: f%d\n", i);
	assert_int_equal(agent_patch_files(&v, &n, sb.buf), 0);
	assert_int_equal(n, AGENT_PATCH_FILES_MAX);
	agent_patch_files_free(v, n);
	sbuf_adds(&sb, "*** Delete File: one-more\n");
	assert_int_equal(agent_patch_files(&v, &n, sb.buf), -1);
	assert_null(v);
	sbuf_release(&sb);
}

/* Codex: apply_patch's patch and Bash's command, both in tool_input.command; the tool decides which. */
static void test_codex_read_event(void **unused)
{
	const struct agent_dialect *d = agent_dialect("codex");
	cJSON *p = cJSON_Parse("{\"session_id\":\"01a2\",\"cwd\":\"/r\",\"tool_name\":\"apply_patch\",\"tool_use_id\":\"call_1\","
			       "\"tool_input\":{\"command\":\"*** Begin Patch\\n*** Add File: a\\n+x\\n*** End Patch\\n\"}}");
	cJSON *b = cJSON_Parse("{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},\"tool_response\":\"a\\n\"}");
	cJSON *w = cJSON_Parse("{\"tool_name\":\"Write\",\"tool_input\":{\"command\":\"ls\",\"file_path\":\"x\"}}");
	struct agent_event ev;

	(void)unused;
	agent_read_event(&ev, d, p);
	assert_non_null(ev.patch);
	assert_null(ev.command);
	assert_null(ev.path);
	assert_string_equal(ev.cwd, "/r");
	assert_string_equal(ev.call, "call_1");
	agent_read_event(&ev, d, b);
	assert_string_equal(ev.command, "ls");
	assert_null(ev.patch);
	assert_false(ev.has_exit);	/* Bash's payload says none */
	agent_read_event(&ev, d, w);
	assert_null(ev.command);
	assert_null(ev.patch);
	assert_null(ev.path);
	/* the others' dialects have no patch tools */
	agent_read_event(&ev, agent_dialect("claude-code"), p);
	assert_null(ev.patch);
	cJSON_Delete(p);
	cJSON_Delete(b);
	cJSON_Delete(w);
}

/* Codex's usage: one token_usage_record per response, its input counting the cached tokens. */
static void test_codex_usage(void **unused)
{
	const char *text =
		"{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[]}}\n"
		"{\"type\":\"token_usage_record\",\"payload\":{\"response_id\":\"r1\",\"usage\":{\"input_tokens\":1001,"
		"\"cached_input_tokens\":600,\"output_tokens\":25}}}\n"
		"{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_usage_record\"}}\n"
		"{\"type\":\"token_usage_record\",\"payload\":{\"response_id\":\"r2\",\"usage\":{\"input_tokens\":100,"
		"\"cached_input_tokens\":0,\"output_tokens\":5}}}\n"
		"{\"type\":\"token_usage_record\",\"payload\":{\"response_id\":\"r3\",\"usage\":{\"input_tokens\":-1}}}\n";
	struct agent_usage u = { 0 };

	(void)unused;
	agent_usage_scan(&u, agent_dialect("codex"), text, strlen(text));
	assert_int_equal(u.messages, 2);
	assert_true(u.input == 501 && u.output == 30 && u.cached == 600);
	assert_int_equal(u.skipped, 1);
}

/* A shell call's outcome from the rollout: only the call's own CommandExecution. */
static void test_codex_exit(void **unused)
{
	const struct agent_dialect *d = agent_dialect("codex");
	cJSON *l = cJSON_Parse("{\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"item\":{\"type\":"
			       "\"CommandExecution\",\"id\":\"call_4\",\"exit_code\":3,\"duration\":{\"secs\":2,\"nanos\":5000000}}}}");
	struct agent_event ev = { 0 };

	(void)unused;
	ev.call = "call_5";
	assert_int_equal(d->scan_exit(&ev, l), 0);
	assert_false(ev.has_exit);
	ev.call = "call_4";
	assert_int_equal(d->scan_exit(&ev, l), 1);
	assert_true(ev.has_exit && ev.exit == 3 && ev.failed && ev.has_ms && ev.ms == 2005);
	cJSON_Delete(l);
}

/* Codex's trust: the hash of each of our hooks by its place, as its /hooks records it; what a config lacks. */
static void test_codex_trust(void **unused)
{
	const struct agent_dialect *d = agent_dialect("codex");
	const char *theirs = "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}}";
	const char *untrusted = "[projects.\"/p\"]\ntrust_level = \"untrusted\"\n";
	char *out = NULL, *err = NULL, *entries, *add, *conflict;

	(void)unused;
	assert_non_null(d->trust);
	assert_int_equal(agent_settings_add(&out, &err, theirs, strlen(theirs), d, "git-session hook codex"), 0);
	entries = d->trust->entries(out, strlen(out), "/p/.codex/hooks.json", "/p", "git-session hook codex");
	assert_non_null(entries);
	assert_non_null(strstr(entries, "[projects.\"/p\"]\ntrust_level = \"trusted\"\n"));
	/* ours after theirs: the second group of Stop; the hash as Codex's for this hook */
	assert_non_null(strstr(entries, "[hooks.state.\"/p/.codex/hooks.json:stop:1:0\"]\n"));
	assert_null(strstr(entries, ":stop:0:0"));
	assert_non_null(strstr(entries, "[hooks.state.\"/p/.codex/hooks.json:session_start:0:0\"]\ntrusted_hash = "
				"\"sha256:3f89588d105a11df09d97dcb05c07d2ace78b40e03f6fff1f6e23925d78cadf3\"\n"));
	d->trust->plan(&add, &conflict, NULL, 0, entries);
	assert_string_equal(add, entries);
	assert_null(conflict);
	free(add);
	d->trust->plan(&add, &conflict, entries, strlen(entries), entries);
	assert_null(add);
	assert_null(conflict);
	d->trust->plan(&add, &conflict, untrusted, strlen(untrusted), entries);
	assert_string_equal(conflict, "[projects.\"/p\"]");
	assert_null(strstr(add, "projects"));
	free(add);
	free(conflict);
	free(entries);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings_round_trip),
		cmocka_unit_test(test_settings_keep_theirs),
		cmocka_unit_test(test_settings_refused),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_usage_compaction),
		cmocka_unit_test(test_usage_out_of_range),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_read_event),
		cmocka_unit_test(test_read_shell),
		cmocka_unit_test(test_settings_upgrade),
		cmocka_unit_test(test_dialects),
		cmocka_unit_test(test_patch_files),
		cmocka_unit_test(test_patch_files_many),
		cmocka_unit_test(test_qwen_code),
		cmocka_unit_test(test_copilot_cli),
		cmocka_unit_test(test_guest),
		cmocka_unit_test(test_file_hooks),
		cmocka_unit_test(test_codex_read_event),
		cmocka_unit_test(test_codex_usage),
		cmocka_unit_test(test_codex_exit),
		cmocka_unit_test(test_codex_trust),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
