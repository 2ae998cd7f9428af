/*
 * test_transcript.c - transcripts read as conversations: each dialect's
 * lines become items in order, with their turn and line; garbage and
 * hostile lines are passed over within bounds; the lines a stored part
 * keeps.
 */
#include "helpers.h"
#include "git-session/agent.h"
#include "git-session/transcript.h"

static void read_text(struct transcript *t, const char *dialect, const char *text)
{
	transcript_init(t, agent_dialect(dialect));
	transcript_read(t, text, strlen(text));
}

static void check(const struct transcript_item *it, enum transcript_kind kind, int turn, size_t line, const char *text)
{
	assert_int_equal(it->kind, kind);
	assert_int_equal(it->turn, turn);
	assert_int_equal(it->line, line);
	if (text)
		assert_string_equal(it->text, text);
}

static const char claude[] =
	"{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"content\":\"run the tests\"}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"run the tests\"}}\n"
	"{\"type\":\"attachment\",\"attachment\":{\"type\":\"prompt_snapshot\",\"systemPrompt\":[\"You are...\"]}}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"text\",\"text\":\"Running them.\"}],"
	"\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\","
	"\"input\":{\"command\":\"npm test\\nnpm run lint\",\"description\":\"Run the tests\"}}],"
	"\"usage\":{\"input_tokens\":10,\"output_tokens\":7}}}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
	"\"content\":\"Exit code 1\\nFAIL test/a.js\\n  expected 2\",\"is_error\":true}]}}\n"
	"{\"type\":\"user\",\"isMeta\":true,\"message\":{\"content\":\"<local-command-caveat>x</local-command-caveat>\"}}\n"
	"{\"type\":\"user\",\"origin\":{\"kind\":\"task-notification\"},\"message\":{\"content\":\"<task-notification>"
	"<summary>Agent \\\"docs\\\" finished</summary><result>Wrote USAGE.md</result></task-notification>\"}}\n"
	"{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"compactMetadata\":{\"trigger\":\"manual\"}}\n"
	"{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"content\":\"The user asked for tests.\"}}\n"
	"{\"type\":\"user\",\"message\":{\"content\":\"<command-name>/compact</command-name>\\n<command-args></command-args>\"}}\n"
	"{\"type\":\"user\",\"message\":{\"content\":\"fix it\"}}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m2\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"},"
	"{\"type\":\"text\",\"text\":\"Fixed.\"}],\"usage\":{\"input_tokens\":3,\"output_tokens\":2,"
	"\"cache_read_input_tokens\":100}}}\n";

static void test_claude(void **unused)
{
	struct transcript t;

	read_text(&t, "claude-code", claude);
	assert_int_equal(t.n, 13);
	check(&t.items[0], TI_PROMPT, 1, 2, "run the tests");
	check(&t.items[1], TI_REPLY, 1, 4, "Running them.");
	/* one usage per message, its last line's */
	check(&t.items[2], TI_USAGE, 1, 4, NULL);
	assert_true(t.items[2].output == 7);
	check(&t.items[3], TI_TOOL, 1, 5, "npm test …");
	assert_string_equal(t.items[3].name, "Bash");
	check(&t.items[4], TI_RESULT, 1, 6, "FAIL test/a.js");
	assert_int_equal(t.items[4].error, 1);
	assert_int_equal(t.items[4].exit, 1);
	assert_int_equal(t.items[4].lines, 2);	/* "Exit code 1" is not one */
	/* a tool_result is not a prompt: still turn 1 */
	check(&t.items[5], TI_EVENT, 1, 8, "Agent \"docs\" finished: Wrote USAGE.md");
	/* the compaction opens the turn its /compact is in */
	check(&t.items[6], TI_EVENT, 2, 9, "context compacted (manual)");
	check(&t.items[7], TI_SUMMARY, 2, 10, "The user asked for tests.");
	check(&t.items[8], TI_PROMPT, 2, 11, "/compact");
	check(&t.items[9], TI_PROMPT, 3, 12, "fix it");
	check(&t.items[10], TI_THINKING, 3, 13, "hmm");
	check(&t.items[11], TI_REPLY, 3, 13, "Fixed.");
	check(&t.items[12], TI_USAGE, 3, 13, NULL);
	assert_true(t.items[12].cached == 100);
	assert_int_equal(t.turn, 3);
	assert_int_equal(t.skipped, 0);
	transcript_clear(&t);
}

/* A sub-agent's lines in its parent's transcript (isSidechain) are in the parent's turn; in its own, its turns. */
static void test_sidechain(void **unused)
{
	const char *text =
		"{\"type\":\"user\",\"isSidechain\":false,\"message\":{\"content\":\"delegate\"}}\n"
		"{\"type\":\"user\",\"isSidechain\":true,\"message\":{\"content\":\"sub task\"}}\n"
		"{\"type\":\"assistant\",\"isSidechain\":true,\"message\":{\"id\":\"s\",\"content\":\"done\"}}\n";
	struct transcript t;

	read_text(&t, "claude-code", text);
	assert_int_equal(t.n, 3);
	check(&t.items[1], TI_EVENT, 1, 2, "sub task");
	check(&t.items[2], TI_REPLY, 1, 3, "done");
	transcript_clear(&t);
	read_text(&t, "claude-code", strchr(text, '\n') + 1);
	check(&t.items[0], TI_PROMPT, 1, 1, "sub task");
	transcript_clear(&t);
}

/* Lines that are not JSON, kept as text when asked (grep searches them). */
static void test_unread(void **unused)
{
	const char *text = "plain words\n[1]\n{\"type\":\"user\",\"message\":{\"content\":\"hi\"}}\n";
	struct transcript t;

	read_text(&t, "claude-code", text);
	assert_int_equal(t.n, 1);
	transcript_clear(&t);
	transcript_init(&t, agent_dialect("claude-code"));
	t.unread = 1;
	transcript_read(&t, text, strlen(text));
	assert_int_equal(t.n, 2);
	check(&t.items[0], TI_UNREAD, 0, 1, "plain words");
	check(&t.items[1], TI_PROMPT, 1, 3, "hi");
	assert_int_equal(t.skipped, 2);
	transcript_clear(&t);
}

/* Parts read one after the other: turns and usage go on. */
static void test_parts(void **unused)
{
	struct transcript t;
	const char *a = "{\"type\":\"user\",\"message\":{\"content\":\"one\"}}\n";
	const char *b = "{\"type\":\"user\",\"message\":{\"content\":\"two\"}}\n";

	transcript_init(&t, agent_dialect("claude-code"));
	t.part = 1;
	transcript_read(&t, a, strlen(a));
	t.part = 2;
	transcript_read(&t, b, strlen(b));
	assert_int_equal(t.n, 2);
	check(&t.items[1], TI_PROMPT, 2, 1, "two");
	assert_int_equal(t.items[1].part, 2);
	transcript_clear(&t);
}

static void test_hostile(void **unused)
{
	struct sbuf sb = SBUF_INIT;
	struct transcript t;
	char *big = xmalloc(200000);

	sbuf_adds(&sb, "not json\n{\n[]\n\"str\"\n{\"type\":5}\n{\"type\":\"user\",\"type\":\"user\"}\n");
	sbuf_adds(&sb, "{\"type\":\"user\",\"message\":{\"content\":\"bad \xff\xfe utf8\"}}\n");
	{
		static const char nul[] = "{\"type\":\"user\",\"message\":{\"content\":\"a\0b\"}}\n";

		sbuf_add(&sb, nul, sizeof(nul) - 1);
	}
	for (int i = 0; i < 300; i++)
		sbuf_addch(&sb, '[');
	sbuf_addch(&sb, '\n');
	sbuf_adds(&sb, "{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1e300},\"content\":\"x\"}}\n");
	sbuf_adds(&sb, "{\"type\":\"user\",\"message\":{\"content\":{\"not\":\"a list\"}}}\n");
	sbuf_adds(&sb, "{\"type\":\"assistant\",\"message\":{\"content\":[5,null,{\"type\":\"tool_use\"},{\"type\":\"text\"}]}}\n");
	/* thousands of blocks on one line: at most TRANSCRIPT_ITEMS_PER_LINE items */
	sbuf_adds(&sb, "{\"type\":\"assistant\",\"message\":{\"content\":[");
	for (int i = 0; i < 5000; i++)
		sbuf_addf(&sb, "%s{\"type\":\"text\",\"text\":\"b%d\"}", i ? "," : "", i);
	sbuf_adds(&sb, "]}}\n");
	/* a text longer than an item keeps: cut at a character, marked */
	memset(big, 'a', 199999);
	big[199999] = '\0';
	memcpy(big + TRANSCRIPT_TEXT_MAX - 1, "\xc3\xa9", 2);
	sbuf_addf(&sb, "{\"type\":\"user\",\"message\":{\"content\":\"%s\"}}\n", big);
	/* a million values on a line: not parsed */
	sbuf_adds(&sb, "{\"type\":\"user\",\"x\":[");
	for (int i = 0; i < (int)TRANSCRIPT_LINE_VALUES; i++)
		sbuf_adds(&sb, "0,");
	sbuf_adds(&sb, "0],\"message\":{\"content\":\"many\"}}\n");
	sbuf_adds(&sb, "{\"type\":\"user\",\"message\":{\"content\":\"last\"}}");	/* no newline at the end */

	transcript_init(&t, agent_dialect("claude-code"));
	transcript_read(&t, sb.buf, sb.len);
	/* not JSON, "{", "[]" and "str" (no objects), a duplicate key, bad UTF-8, a NUL, too deep, too many values */
	assert_int_equal(t.skipped, 9);
	assert_int_equal(t.n, TRANSCRIPT_ITEMS_PER_LINE + 4);	/* and "x", a "?" tool, the two prompts */
	check(&t.items[t.n - 2], TI_PROMPT, 1, 14, NULL);
	assert_true(strlen(t.items[t.n - 2].text) <= TRANSCRIPT_TEXT_MAX + strlen("…"));
	assert_true(gs_utf8_valid(t.items[t.n - 2].text, strlen(t.items[t.n - 2].text)));
	assert_string_equal(t.items[t.n - 2].text + strlen(t.items[t.n - 2].text) - strlen("…"), "…");
	check(&t.items[t.n - 1], TI_PROMPT, 2, 16, "last");
	transcript_clear(&t);
	sbuf_release(&sb);
	free(big);
}

static const char gemini[] =
	"{\"sessionId\":\"s\",\"projectHash\":\"h\",\"startTime\":\"2026-01-01T00:00:00Z\",\"kind\":\"main\"}\n"
	"{\"$set\":{\"messages\":[{\"id\":\"c\",\"type\":\"user\",\"content\":[{\"text\":\"<session_context>\"}]}]}}\n"
	"{\"id\":\"u1\",\"type\":\"user\",\"content\":[{\"text\":\"fix the tests\"}]}\n"
	"{\"$set\":{\"lastUpdated\":\"2026-01-01T00:00:01Z\"}}\n"
	"{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"\",\"tokens\":{\"input\":200,\"output\":10,\"cached\":50}}\n"
	"{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"\",\"tokens\":{\"input\":200,\"output\":10,\"cached\":50},"
	"\"toolCalls\":[{\"id\":\"x\",\"name\":\"run_shell_command\",\"args\":{\"command\":\"make test\"},"
	"\"result\":[{\"functionResponse\":{\"id\":\"x\",\"name\":\"run_shell_command\",\"response\":{\"output\":"
	"\"<untrusted_context>\\nOutput: boom\\nExit Code: 3\\nProcess Group PGID: 9\\n</untrusted_context>\"}}}],"
	"\"status\":\"success\"}]}\n"
	"{\"id\":\"u2\",\"type\":\"user\",\"content\":[{\"functionResponse\":{\"id\":\"x\",\"name\":\"run_shell_command\"}}]}\n"
	"{\"id\":\"g2\",\"type\":\"gemini\",\"content\":\"Fixed.\",\"thoughts\":[{\"subject\":\"Plan\",\"description\":\"look\"}],"
	"\"toolCalls\":[{\"name\":\"replace\",\"args\":{\"file_path\":\"/r/a.c\"},\"status\":\"error\","
	"\"result\":[{\"functionResponse\":{\"response\":{\"error\":\"no match\"}}}]}]}\n"
	"{\"id\":\"i1\",\"type\":\"info\",\"content\":\"Compressed the chat.\"}\n";

static void test_gemini(void **unused)
{
	struct transcript t;

	read_text(&t, "gemini-cli", gemini);
	assert_int_equal(t.skipped, 0);
	assert_int_equal(t.n, 9);
	check(&t.items[0], TI_PROMPT, 1, 3, "fix the tests");
	/* g1 written again with its tool call: read once, from its last line */
	check(&t.items[1], TI_TOOL, 1, 6, "make test");
	check(&t.items[2], TI_RESULT, 1, 6, "boom");
	assert_int_equal(t.items[2].exit, 3);
	assert_int_equal(t.items[2].error, 1);
	check(&t.items[3], TI_USAGE, 1, 6, NULL);
	assert_true(t.items[3].input == 150 && t.items[3].cached == 50);
	/* the function responses sent back are no prompt */
	check(&t.items[4], TI_THINKING, 1, 8, "Plan: look");
	check(&t.items[5], TI_REPLY, 1, 8, "Fixed.");
	check(&t.items[6], TI_TOOL, 1, 8, "/r/a.c");
	check(&t.items[7], TI_RESULT, 1, 8, "no match");
	assert_int_equal(t.items[7].error, 1);
	check(&t.items[8], TI_EVENT, 1, 9, "Compressed the chat.");
	transcript_clear(&t);
}

/* A chat file written whole, as one JSON document over many lines. */
static void test_gemini_document(void **unused)
{
	struct transcript t;

	read_text(&t, "gemini-cli", "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n"
		  "    {\"id\": \"u\", \"type\": \"user\", \"content\": \"hello\"},\n"
		  "    {\"id\": \"g\", \"type\": \"gemini\", \"content\": \"hi\"}\n  ]\n}\n");
	assert_int_equal(t.n, 2);
	check(&t.items[0], TI_PROMPT, 1, 1, "hello");
	check(&t.items[1], TI_REPLY, 1, 1, "hi");
	transcript_clear(&t);
}

static void test_filter(void **unused)
{
	const char *keep = "{\"type\":\"user\",\"message\":{\"content\":\"x\"}}\n";
	char *out = NULL;
	size_t n;

	transcript_filter(&out, &n, agent_dialect("claude-code"), claude, strlen(claude));
	assert_non_null(out);
	assert_null(strstr(out, "queue-operation"));
	assert_null(strstr(out, "prompt_snapshot"));
	assert_non_null(strstr(out, "compact_boundary"));
	/* the queue's line and the attachment's out, the rest byte for byte */
	assert_int_equal(n, strlen(claude) - (strcspn(claude, "\n") + 1) -
			 (strcspn(strstr(claude, "{\"type\":\"attachment\""), "\n") + 1));
	assert_memory_equal(out, strchr(claude, '\n') + 1, strcspn(strchr(claude, '\n') + 1, "\n") + 1);
	free(out);
	/* a result's toolUseResult, the CLI's copy of it, is left out of the line */
	{
		const char *line = "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\","
				   "\"content\":\"ok\"}]},\"toolUseResult\":{\"originalFile\":\"...\"},\"uuid\":\"u\"}\n";

		transcript_filter(&out, &n, agent_dialect("claude-code"), line, strlen(line));
		assert_string_equal(out, "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\","
				    "\"content\":\"ok\"}]},\"uuid\":\"u\"}\n");
		assert_int_equal(n, strlen(out));
		free(out);
	}
	/* nothing to drop: kept as it is */
	transcript_filter(&out, &n, agent_dialect("claude-code"), keep, strlen(keep));
	assert_null(out);
	assert_int_equal(n, strlen(keep));
	/* Gemini: the messages, not the header nor the updates */
	transcript_filter(&out, &n, agent_dialect("gemini-cli"), gemini, strlen(gemini));
	assert_non_null(out);
	assert_null(strstr(out, "$set"));
	assert_null(strstr(out, "projectHash"));
	assert_non_null(strstr(out, "\"id\":\"g2\""));
	free(out);
	/* garbage is no conversation */
	transcript_filter(&out, &n, agent_dialect("claude-code"), "garbage\n{\"type\":\"user\"}\n", 24);
	assert_string_equal(out, "{\"type\":\"user\"}\n");
	free(out);
}

/* A member taken out of a line leaves the same object without it, whatever its place. */
static void test_member_span(void **unused)
{
	const char *cases[][2] = {
		{ "{\"a\":1,\"toolUseResult\":{\"x\":\"}\"},\"b\":[2]}", "{\"a\":1,\"b\":[2]}" },
		{ "{\"toolUseResult\": \"s\" , \"b\":2}", "{\"b\":2}" },
		{ "{\"a\":1, \"toolUseResult\":null}", "{\"a\":1}" },
		{ "{ \"toolUseResult\":[1,{\"c\":3}] }", "{  }" },
	};
	size_t from, to;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *line = cases[i][0];
		char *out;

		assert_int_equal(transcript_member_span(&from, &to, line, strlen(line), "toolUseResult"), 1);
		out = xstrfmt("%.*s%s", (int)from, line, line + to);
		assert_string_equal(out, cases[i][1]);
		free(out);
	}
	assert_int_equal(transcript_member_span(&from, &to, "{\"a\":{\"toolUseResult\":1}}", 26, "toolUseResult"), 0);
	assert_int_equal(transcript_member_span(&from, &to, "{\"a\":", 5, "toolUseResult"), 0);
}

static void test_args_summary(void **unused)
{
	const char *cases[][2] = {
		{ "{\"command\":\"npm test\",\"description\":\"Run\"}", "npm test" },
		{ "{\"file_path\":\"/a/b.c\",\"content\":\"...\"}", "/a/b.c" },
		{ "{\"description\":\"Write docs\",\"prompt\":\"...\",\"subagent_type\":\"general-purpose\"}",
		  "Write docs (general-purpose)" },
		{ "{\"x\":1,\"y\":\"first string\"}", "first string" },
		{ "{}", "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cJSON *v = cJSON_Parse(cases[i][0]);
		char *s = transcript_args_summary(v);

		assert_string_equal(s, cases[i][1]);
		free(s);
		cJSON_Delete(v);
	}
}

/* The marks of a transcript's first and last whole lines: the newline is no part of a line, a line still written none */
static void test_edge_marks(void **unused)
{
	char head[TRANSCRIPT_MARK_SZ], tail[TRANSCRIPT_MARK_SZ], one[TRANSCRIPT_MARK_SZ];
	const char *text = "{\"a\":1}\n{\"b\":2}\n{\"c\":";

	(void)unused;
	transcript_edge_marks(head, tail, text, strlen(text));
	transcript_line_mark(one, "{\"a\":1}", 7);
	assert_string_equal(head, one);
	assert_int_equal(strlen(head), 16);
	transcript_line_mark(one, "{\"b\":2}\n", 8);
	assert_string_equal(tail, one);
	/* e3b0c442...: SHA-256 of nothing */
	transcript_line_mark(one, "\n", 1);
	assert_string_equal(one, "e3b0c44298fc1c14");
	transcript_edge_marks(head, tail, "no line yet", 11);
	assert_string_equal(head, "");
	assert_string_equal(tail, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_sidechain),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_gemini),
		cmocka_unit_test(test_gemini_document),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_member_span),
		cmocka_unit_test(test_args_summary),
		cmocka_unit_test(test_edge_marks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
