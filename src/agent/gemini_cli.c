/*
 * gemini_cli.c - Gemini CLI's dialect: its hook events, its payloads'
 * keys, its transcript's usage, its settings file. The settings are
 * .gemini/settings.json, JSON hooks as Claude Code's.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/transcript.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static const struct agent_hook_event gemini_cli_events[] = {
	{ "SessionStart", AE_START, NULL },
	{ "BeforeAgent", AE_PROMPT, NULL },
	{ "BeforeTool", AE_TOOL_BEFORE, NULL },
	{ "AfterTool", AE_TOOL_AFTER, "write_file|replace|run_shell_command" },
	{ "AfterAgent", AE_TURN_END, NULL },
	{ "PreCompress", AE_COMPACT, NULL },
	{ "SessionEnd", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
static const char *const gemini_cli_writers[] = { "write_file", "replace", NULL };
static const char *const gemini_cli_agent_tools[] = { "invoke_agent", NULL };
static const char *const gemini_cli_shell_tools[] = { "run_shell_command", NULL };
/* /compress in a headless run comes as a prompt too; PreCompress records it */
static const char *const gemini_cli_own_prompts[] = { "/compress", NULL };

/* said has a line that starts with tag */
static int said_line(const char *said, const char *tag)
{
	double ignored;

	return said && agent_exit_after(&ignored, said, tag) != 0;
}

/*
 * A shell command's outcome: its result says "Exit Code: 1" on a line of
 * its own when the status was not 0, "Signal: 9" when a signal ended it,
 * "Error: ..." when it could not run (or an "error"), "Command was ...
 * cancelled" when it was stopped, and "Command moved to background" when
 * it went on: an outcome not known. It says no duration.
 */
static void gemini_cli_outcome(struct agent_event *ev, const cJSON *resp)
{
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(resp, "error");
	const char *said = json_str(resp, "llmContent");
	int r = said ? agent_exit_after(&ev->exit, said, "Exit Code: ") : 0;
	int stopped = said_line(said, "Signal: ") || said_line(said, "Error: ") || said_line(said, "Command was ") ||
		      (error && !cJSON_IsNull(error));

	if (r > 0)
		ev->has_exit = 1;
	else if (!r && !stopped && cJSON_IsObject(resp) && !said_line(said, "Command moved to background"))
		ev->has_exit = 1;	/* ev->exit is 0: the line is there only when the status was not 0 */
	ev->failed = r < 0 || stopped || (ev->has_exit && ev->exit != 0);
}

/*
 * The user's prompt without the context a SessionStart hook added, which
 * a headless run puts before it: "<hook_context>...</hook_context>\n\n"
 * (the CLI escapes '<' and '>' inside, so the first end tag is its end).
 */
static const char *gemini_cli_own_text(const char *prompt)
{
	static const char open[] = "<hook_context>", close[] = "</hook_context>";
	const char *end;

	if (!prompt || strncmp(prompt, open, strlen(open)) || !(end = strstr(prompt, close)))
		return prompt;
	for (end += strlen(close); *end == '\n' || *end == '\r' || *end == ' '; end++)
		;
	return end;
}

static void gemini_cli_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(payload, "tool_response");
	const char *said;

	ev->session = json_str(payload, "session_id");
	ev->prompt = gemini_cli_own_text(json_str(payload, "prompt"));
	ev->tool = json_str(payload, "tool_name");
	if (!(ev->path = json_str(in, "file_path")))
		ev->path = json_str(in, "absolute_path");
	/* write_file says in words that it created the file */
	if ((said = json_str(resp, "llmContent")) || (said = json_str(resp, "returnDisplay")))
		ev->created = strstr(said, "created") != NULL;
	ev->transcript = json_str(payload, "transcript_path");
	ev->said = json_str(payload, "prompt_response");
	ev->command = json_str(in, "command");
	gemini_cli_outcome(ev, resp);
	ev->trigger = json_str(payload, "trigger");
	ev->reason = json_str(payload, "reason");
	ev->source = json_str(payload, "source");
}

/* {"id", "type": "gemini", "tokens": {...}}: a message written again as it grows. */
static int gemini_cli_scan_usage(const char **id, double u[3], const cJSON *line)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(line, "tokens");
	double a, b;

	if (!cJSON_IsObject(t) || !json_str(line, "id"))
		return 0;
	*id = json_str(line, "id");
	if (agent_usage_number(&a, t, "input") < 0 || agent_usage_number(&u[2], t, "cached") < 0 ||
	    agent_usage_number(&u[1], t, "output") < 0 || agent_usage_number(&b, t, "thoughts") < 0)
		return -1;
	u[0] = a > u[2] ? a - u[2] : 0;	/* its input counts the cached tokens too */
	u[1] += b;
	return 1;
}

/* {"type": "gemini", "content": "<the reply>"}: "" for a tool call. */
static const char *gemini_cli_scan_reply(const cJSON *line)
{
	return json_str(line, "content");
}

/* --- the transcript read as a conversation --- */

/* The text parts of a message's content (a string, or [{"text"}...]) joined; thoughts left out. */
static void parts_text(struct sbuf *sb, const cJSON *content)
{
	const cJSON *p;

	if (cJSON_IsString(content))
		sbuf_adds(sb, content->valuestring);
	/* not a hook's added context (BeforeAgent's, a part of its own): no one said it */
	cJSON_ArrayForEach(p, (cJSON_IsArray(content) ? content : NULL))
		if (json_str(p, "text") && !json_bool(p, "thought", 0) && strncmp(json_str(p, "text"), "<hook_context>", 14))
			sbuf_addf(sb, "%s%s", sb->len ? "\n" : "", json_str(p, "text"));
}

/* A tool call as the message records it, with its result: {"name", "args", "status", "result": [{"functionResponse"}]}. */
static void gemini_call(struct transcript *t, const cJSON *call)
{
	const char *name = json_str(call, "name") ? json_str(call, "name") : "?", *status = json_str(call, "status");
	char *args = transcript_args_summary(cJSON_GetObjectItemCaseSensitive(call, "args"));
	struct transcript_item *it = transcript_add(t, TI_TOOL, args, strlen(args));
	struct sbuf sb = SBUF_INIT;
	const cJSON *r;
	int error = status && strcmp(status, "success");

	if (it)
		it->name = xstrdup(name);
	free(args);
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(call, "result")) {
		const cJSON *resp = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r,
			"functionResponse"), "response");
		const char *s = json_str(resp, "output");

		if (json_str(resp, "error"))
			s = json_str(resp, "error"), error = 1;
		if (s)
			sbuf_addf(&sb, "%s%s", sb.len ? "\n" : "", s);
	}
	if (!sb.len && json_str(call, "resultDisplay"))
		sbuf_adds(&sb, json_str(call, "resultDisplay"));
	if (status || sb.len)
		transcript_result(t, name, sb.buf ? sb.buf : "", sb.len, error);
	sbuf_release(&sb);
}

/* {"id", "type": "user" | "gemini" | "info" | "error" | "warning", "content", "thoughts", "toolCalls", "tokens"} */
static void gemini_message(struct transcript *t, const cJSON *m)
{
	const char *type = json_str(m, "type"), *id;
	struct sbuf sb = SBUF_INIT;
	const cJSON *x;
	double u[3];

	if (!type || !json_str(m, "id"))
		return;
	transcript_message(t, json_str(m, "id"));	/* a message grows: written again whole */
	parts_text(&sb, cJSON_GetObjectItemCaseSensitive(m, "content"));
	if (!strcmp(type, "user")) {
		const char *own = gemini_cli_own_text(sb.buf ? sb.buf : "");

		if (*own)	/* not the function responses it sends back */
			transcript_prompt(t, own, strlen(own));
	} else if (!strcmp(type, "gemini")) {
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(m, "thoughts")) {
			char *s = xstrfmt("%s%s%s", json_str(x, "subject") ? json_str(x, "subject") : "",
					  json_str(x, "subject") && json_str(x, "description") ? ": " : "",
					  json_str(x, "description") ? json_str(x, "description") : "");

			if (*s)
				transcript_add(t, TI_THINKING, s, strlen(s));
			free(s);
		}
		if (sb.len && strspn(sb.buf, " \t\r\n") < sb.len)
			transcript_add(t, TI_REPLY, sb.buf, sb.len);
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(m, "toolCalls"))
			gemini_call(t, x);
		if (gemini_cli_scan_usage(&id, u, m) > 0)
			transcript_usage(t, id, u[0], u[1], u[2]);
	} else if (sb.len) {
		struct transcript_item *it = transcript_add(t, TI_EVENT, sb.buf, sb.len);

		if (it && !strcmp(type, "error"))
			it->error = 1;
	}
	sbuf_release(&sb);
}

/* A message per line; the header and {"$set": ...} lines are the CLI's. A chat file written whole has "messages". */
static void gemini_cli_read_line(struct transcript *t, const cJSON *line)
{
	const cJSON *m, *all = cJSON_GetObjectItemCaseSensitive(line, "messages");

	if (json_str(line, "type") || !cJSON_IsArray(all)) {
		gemini_message(t, line);
		return;
	}
	cJSON_ArrayForEach(m, all)
		gemini_message(t, m);
}

/* The messages: prompts, replies with their tool calls and results, notices. Not the header nor "$set" updates. */
static int gemini_cli_keeps_line(const char *line, size_t len, size_t cut[2])
{
	char *type = transcript_top_str(line, len, "type");
	int keep = type && (!strcmp(type, "user") || !strcmp(type, "gemini") || !strcmp(type, "info") ||
			    !strcmp(type, "error") || !strcmp(type, "warning"));

	(void)cut;
	free(type);
	return keep;
}

const struct agent_dialect agent_gemini_cli = {
	.name = "gemini-cli",
	.stem = "gemini",
	.resume = "gemini --resume",
	.settings = ".gemini/settings.json",
	.settings_user = "settings.json",
	.settings_ops = &agent_json_hooks,
	.timeout = 10000,	/* milliseconds */
	.events = gemini_cli_events,
	.write_tools = gemini_cli_writers,
	.agent_tools = gemini_cli_agent_tools,
	.shell_tools = gemini_cli_shell_tools,
	.own_prompts = gemini_cli_own_prompts,
	.folder = ".gemini",
	.home_env = "GEMINI_CLI_HOME",
	/* it asks before every turn (trigger "auto") whether it compresses: only a /compress counts */
	.flags = AGENT_COMPACT_MANUAL_ONLY | AGENT_BRIEF_AT_PROMPT,
	.block_exit = 2,
	.read_event = gemini_cli_read_event,
	.usage_mark = "\"tokens\"",
	.scan_usage = gemini_cli_scan_usage,
	.scan_reply = gemini_cli_scan_reply,
	.read_line = gemini_cli_read_line,
	.keeps_line = gemini_cli_keeps_line,
	.context_out = agent_context_json,
	.rebuilder = &agent_gemini_cli_rebuilder,
};
