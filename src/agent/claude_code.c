/*
 * claude_code.c - Claude Code's dialect: its hook events, its payloads'
 * keys, its transcript's usage, its settings file. The settings are
 * .claude/settings.json, JSON hooks.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/transcript.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct agent_hook_event claude_code_events[] = {
	{ "SessionStart", AE_START, NULL },
	{ "UserPromptSubmit", AE_PROMPT, NULL },
	{ "PreToolUse", AE_TOOL_BEFORE, NULL },
	{ "PostToolUse", AE_TOOL_AFTER, "Write|Edit|MultiEdit|NotebookEdit|Bash" },
	{ "PostToolUseFailure", AE_TOOL_FAILED, "Bash" },
	{ "SubagentStart", AE_SUBAGENT_START, NULL },
	{ "SubagentStop", AE_SUBAGENT_STOP, NULL },
	{ "Stop", AE_TURN_END, NULL },
	{ "PreCompact", AE_COMPACT, NULL },
	{ "SessionEnd", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
static const char *const claude_code_writers[] = { "Write", "Edit", "MultiEdit", "NotebookEdit", NULL };
static const char *const claude_code_agent_tools[] = { "Task", "Agent", NULL };
static const char *const claude_code_shell_tools[] = { "Bash", NULL };
/* a background sub-agent's end comes back as a prompt */
static const char *const claude_code_own_prompts[] = { "<task-notification>", NULL };

/*
 * A shell command's outcome. PostToolUse comes when Bash succeeded: exit
 * 0, unless it was interrupted, sent to the background, or its status was
 * not 0 and read as no error (grep's 1: "returnCodeInterpretation").
 * PostToolUseFailure says "error": "Exit code 1\n...".
 */
static void claude_code_outcome(struct agent_event *ev, const cJSON *payload, const cJSON *resp)
{
	const char *error = json_str(payload, "error");

	ev->has_ms = agent_number(&ev->ms, cJSON_GetObjectItemCaseSensitive(payload, "duration_ms"), 0, AGENT_MS_MAX);
	if (error || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(payload, "is_interrupt"))) {
		ev->failed = 1;
		ev->has_exit = error && agent_exit_after(&ev->exit, error, "Exit code ") > 0;
		return;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "interrupted")))
		ev->failed = 1;
	else if (cJSON_IsObject(resp) && !json_str(resp, "backgroundTaskId") && !json_str(resp, "returnCodeInterpretation"))
		ev->has_exit = 1;	/* ev->exit is 0 */
}

static void claude_code_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(payload, "tool_response");
	const char *said = json_str(resp, "type");

	ev->session = json_str(payload, "session_id");
	ev->prompt = json_str(payload, "prompt");
	ev->tool = json_str(payload, "tool_name");
	if (!(ev->path = json_str(in, "file_path")))
		ev->path = json_str(in, "notebook_path");
	ev->created = said && !strcmp(said, "create");	/* Write answers {"type": "create"} or "update" */
	ev->transcript = json_str(payload, "transcript_path");
	ev->subagent_id = json_str(payload, "agent_id");
	ev->subagent_type = json_str(payload, "agent_type");
	ev->subagent_transcript = json_str(payload, "agent_transcript_path");
	ev->said = json_str(payload, "last_assistant_message");
	ev->command = json_str(in, "command");
	claude_code_outcome(ev, payload, resp);
	ev->trigger = json_str(payload, "trigger");
	ev->reason = json_str(payload, "reason");
	ev->source = json_str(payload, "source");
}

/* {"message": {"id", "usage": {...}}}: one line per content block, each with the message's usage. */
static int claude_code_scan_usage(const char **id, double u[3], const cJSON *line)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(line, "message");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "usage");
	double a, b;

	if (!cJSON_IsObject(t) || !json_str(msg, "id"))
		return 0;
	*id = json_str(msg, "id");
	if (agent_usage_number(&a, t, "input_tokens") < 0 || agent_usage_number(&b, t, "cache_creation_input_tokens") < 0 ||
	    agent_usage_number(&u[1], t, "output_tokens") < 0 || agent_usage_number(&u[2], t, "cache_read_input_tokens") < 0)
		return -1;
	u[0] = a + b;
	return 1;
}

/*
 * {"type": "cost-state", "modelUsage": {"<model>": {"inputTokens", ...}}}:
 * the session's usage so far, sub-agents' and compactions' included;
 * {"type": "system", "subtype": "compact_boundary"}: a compaction.
 */
static int claude_code_scan_total(double total[3], const cJSON *line)
{
	const char *type = json_str(line, "type"), *sub = json_str(line, "subtype");
	const cJSON *m;

	if (type && sub && !strcmp(type, "system") && !strcmp(sub, "compact_boundary"))
		return 2;
	if (!type || strcmp(type, "cost-state"))
		return 0;
	total[0] = total[1] = total[2] = 0;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(line, "modelUsage")) {
		double in, made, out, read;

		if (agent_usage_number(&in, m, "inputTokens") < 0 || agent_usage_number(&made, m, "cacheCreationInputTokens") < 0 ||
		    agent_usage_number(&out, m, "outputTokens") < 0 || agent_usage_number(&read, m, "cacheReadInputTokens") < 0)
			return 0;
		total[0] += in + made;
		total[1] += out;
		total[2] += read;
	}
	return 1;
}
/* {"message": {"content": [..., {"type": "text", "text"}]}}: its last text block. */
static const char *claude_code_scan_reply(const cJSON *line)
{
	const cJSON *b, *content = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(line, "message"), "content");
	const char *text = NULL, *type;

	cJSON_ArrayForEach(b, content)
		if ((type = json_str(b, "type")) && !strcmp(type, "text") && json_str(b, "text") && *json_str(b, "text"))
			text = json_str(b, "text");
	return text;
}

static const char *const claude_code_total_marks[] = { "\"cost-state\"", "\"compact_boundary\"", NULL };
/* --- the transcript read as a conversation --- */

#define SEEN_MAIN 1u	/* a line of the main conversation: sub-agents' lines (isSidechain) are not its turns */

/* The text between <tag> and </tag> in s, or NULL: the CLI wraps what it injects in tags. */
static const char *tagged(size_t *len, const char *s, const char *tag)
{
	char open[64], close[64];
	const char *a, *b;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	if (!(a = strstr(s, open)) || !(b = strstr(a += strlen(open), close)))
		return NULL;
	*len = (size_t)(b - a);
	return a;
}

/* The text blocks of a content array (or the content string) joined, tool results left out. */
static void content_text(struct sbuf *sb, const cJSON *content)
{
	const cJSON *b;

	if (cJSON_IsString(content))
		sbuf_adds(sb, content->valuestring);
	cJSON_ArrayForEach(b, (cJSON_IsArray(content) ? content : NULL)) {
		const char *type = json_str(b, "type");

		if (type && !strcmp(type, "text") && json_str(b, "text"))
			sbuf_addf(sb, "%s%s", sb->len ? "\n" : "", json_str(b, "text"));
		else if (type && !strcmp(type, "image"))
			sbuf_addf(sb, "%s[image]", sb->len ? "\n" : "");
	}
}

/* A user line's words: a prompt, a slash command, or what the CLI injects (a sub-agent's report, a command's output). */
static void claude_user_text(struct transcript *t, const cJSON *line, const char *s)
{
	const char *kind = json_str(cJSON_GetObjectItemCaseSensitive(line, "origin"), "kind"), *a, *b;
	size_t n, m;

	if ((kind && !strcmp(kind, "task-notification")) || !strncmp(s, "<task-notification>", 19)) {
		struct sbuf sb = SBUF_INIT;

		if ((a = tagged(&n, s, "summary")))
			sbuf_add(&sb, a, n);
		if ((b = tagged(&m, s, "result")))
			sbuf_addf(&sb, "%s%.*s", sb.len ? ": " : "", (int)m, b);
		transcript_add(t, TI_EVENT, sb.len ? sb.buf : s, sb.len ? sb.len : strlen(s));
		sbuf_release(&sb);
	} else if ((a = tagged(&n, s, "command-name")) && !strncmp(s, "<command-", 9)) {
		struct sbuf sb = SBUF_INIT;

		sbuf_add(&sb, a, n);
		if ((b = tagged(&m, s, "command-args")) && m)
			sbuf_addf(&sb, " %.*s", (int)m, b);
		transcript_prompt(t, sb.buf, sb.len);
		sbuf_release(&sb);
	} else if ((a = tagged(&n, s, "local-command-stdout")) && !strncmp(s, "<local-command-stdout>", 22)) {
		if (n)
			transcript_add(t, TI_EVENT, a, n);
	} else if (json_bool(line, "isSidechain", 0) && (t->seen & SEEN_MAIN)) {
		transcript_add(t, TI_EVENT, s, strlen(s));	/* a sub-agent's task, written in its parent's transcript */
	} else if (strncmp(s, "<local-command-caveat>", 22)) {
		transcript_prompt(t, s, strlen(s));
	}
}

/* A tool result's text: a string, or text blocks. */
static void claude_result(struct transcript *t, const cJSON *block)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(block, "content");
	struct sbuf sb = SBUF_INIT;

	content_text(&sb, c);
	transcript_result(t, NULL, sb.buf ? sb.buf : "", sb.len, json_bool(block, "is_error", 0));
	sbuf_release(&sb);
}

static void claude_user(struct transcript *t, const cJSON *line, const cJSON *content)
{
	struct sbuf sb = SBUF_INIT;
	const cJSON *b;
	int results = 0;

	if (json_bool(line, "isMeta", 0))
		return;		/* what the CLI adds for the model */
	cJSON_ArrayForEach(b, (cJSON_IsArray(content) ? content : NULL))
		if (json_str(b, "type") && !strcmp(json_str(b, "type"), "tool_result")) {
			claude_result(t, b);
			results++;
		}
	content_text(&sb, content);
	if (!sb.len)
		;
	else if (json_bool(line, "isCompactSummary", 0))
		transcript_add(t, TI_SUMMARY, sb.buf, sb.len);
	else if (results)
		transcript_add(t, TI_EVENT, sb.buf, sb.len);	/* "[Request interrupted by user]" */
	else
		claude_user_text(t, line, sb.buf);
	sbuf_release(&sb);
}

static void claude_assistant(struct transcript *t, const cJSON *line, const cJSON *content)
{
	const char *id;
	double u[3];
	const cJSON *b;

	if (cJSON_IsString(content) && strspn(content->valuestring, " \t\r\n") < strlen(content->valuestring))
		transcript_add(t, TI_REPLY, content->valuestring, strlen(content->valuestring));
	cJSON_ArrayForEach(b, (cJSON_IsArray(content) ? content : NULL)) {
		const char *type = json_str(b, "type"), *s;

		if (!type)
			continue;
		if (!strcmp(type, "text") && (s = json_str(b, "text")) && strspn(s, " \t\r\n") < strlen(s)) {
			transcript_add(t, TI_REPLY, s, strlen(s));
		} else if (!strcmp(type, "thinking") && (s = json_str(b, "thinking")) && *s) {
			transcript_add(t, TI_THINKING, s, strlen(s));
		} else if (!strcmp(type, "tool_use") || !strcmp(type, "server_tool_use")) {
			char *args = transcript_args_summary(cJSON_GetObjectItemCaseSensitive(b, "input"));
			struct transcript_item *it = transcript_add(t, TI_TOOL, args, strlen(args));

			if (it)
				it->name = xstrdup(json_str(b, "name") ? json_str(b, "name") : "?");
			free(args);
		}
	}
	if (claude_code_scan_usage(&id, u, line) > 0)
		transcript_usage(t, id, u[0], u[1], u[2]);
}

/* {"type": "user" | "assistant" | "summary" | "system", "message": {"content": ...}}; the rest is the CLI's. */
static void claude_code_read_line(struct transcript *t, const cJSON *line)
{
	const char *type = json_str(line, "type"), *s;
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(line, "message"),
								 "content");

	if (!type)
		return;
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(line, "isSidechain")))
		t->seen |= SEEN_MAIN;
	if (!strcmp(type, "user")) {
		claude_user(t, line, content);
	} else if (!strcmp(type, "assistant")) {
		claude_assistant(t, line, content);
	} else if (!strcmp(type, "summary") && (s = json_str(line, "summary"))) {
		transcript_add(t, TI_SUMMARY, s, strlen(s));
	} else if (!strcmp(type, "system") && json_str(line, "subtype") &&
		   !strcmp(json_str(line, "subtype"), "compact_boundary")) {
		const char *why = json_str(cJSON_GetObjectItemCaseSensitive(line, "compactMetadata"), "trigger");
		char *text = xstrfmt("context compacted%s%s%s", why ? " (" : "", why ? why : "", why ? ")" : "");

		transcript_open_turn(t);
		transcript_add(t, TI_EVENT, text, strlen(text));
		free(text);
	}
}

/*
 * The conversation's lines: prompts, replies, tool calls and results,
 * summaries, compactions. Not the CLI's own records: request shapes and
 * blobs, the queue, attachments (the system prompt, tool and skill lists,
 * files it re-reads), snapshots, costs, hook summaries; nor a result's
 * toolUseResult, which repeats it (with the whole file an Edit changed).
 */
static int claude_code_keeps_line(const char *line, size_t len, size_t cut[2])
{
	static const char *const keys[] = { "type", "subtype" };
	char *v[2];
	int keep = 0;

	if (json_scan_top(v, line, len, keys, 2) == 0 && v[0])
		keep = !strcmp(v[0], "user") || !strcmp(v[0], "assistant") || !strcmp(v[0], "summary") ||
		       (!strcmp(v[0], "system") && v[1] && (!strcmp(v[1], "compact_boundary") ||
							     !strcmp(v[1], "api_error")));
	/* a tool's result again, for the CLI's display: the whole file an Edit changed, a Read's */
	if (keep && !strcmp(v[0], "user"))
		transcript_member_span(&cut[0], &cut[1], line, len, "toolUseResult");
	free(v[0]);
	free(v[1]);
	return keep;
}

/*
 * The summary Claude Code's compaction made, without the words it wraps
 * it in for its own model: the paragraph before it ("This session is
 * being continued..."), its reminders, and what follows it (the
 * transcript's path, "Continue the conversation..."), which told to
 * another agent would be orders.
 */
static char *claude_code_summary_of(const char *text)
{
	static const char intro[] = "This session is being continued from a previous conversation";
	static const char *const tails[] = { "\nIf you need specific details from before compaction",
					     "\nContinue the conversation from where it left off" };
	struct sbuf sb = SBUF_INIT;
	const char *p = text, *end = text + strlen(text), *r, *e;
	char *out;

	if (!strncmp(p, intro, strlen(intro)) && (r = strstr(p, "\n\n")))
		p = r + 2;
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++)
		if ((r = strstr(p, tails[i])) && r < end)
			end = r;
	while (p < end) {
		r = strstr(p, "<system-reminder>");
		if (!r || r >= end || !(e = strstr(r, "</system-reminder>")) || e >= end) {
			sbuf_add(&sb, p, (size_t)(end - p));
			break;
		}
		sbuf_add(&sb, p, (size_t)(r - p));
		p = e + strlen("</system-reminder>");
	}
	while (sb.len && strchr(" \t\r\n", sb.buf[sb.len - 1]))
		sb.buf[--sb.len] = '\0';
	out = xstrdup(sb.buf ? sb.buf + strspn(sb.buf, " \t\r\n") : "");
	sbuf_release(&sb);
	return out;
}

const struct agent_dialect agent_claude_code = {
	.name = "claude-code",
	.stem = "claude",
	.resume = "claude --resume",
	.settings = ".claude/settings.json",
	.settings_local = ".claude/settings.local.json",
	.settings_user = "settings.json",
	.settings_ops = &agent_json_hooks,
	.timeout = 10,	/* seconds */
	.events = claude_code_events,
	.write_tools = claude_code_writers,
	.agent_tools = claude_code_agent_tools,
	.shell_tools = claude_code_shell_tools,
	.own_prompts = claude_code_own_prompts,
	.folder = ".claude",
	.folder_env = "CLAUDE_CONFIG_DIR",
	.block_exit = 2,
	.read_event = claude_code_read_event,
	.usage_mark = "\"usage\"",
	.scan_usage = claude_code_scan_usage,
	.total_marks = claude_code_total_marks,
	.scan_total = claude_code_scan_total,
	.scan_reply = claude_code_scan_reply,
	.read_line = claude_code_read_line,
	.keeps_line = claude_code_keeps_line,
	.context_out = agent_context_json,
	/* the summary it made, a user message after the compact_boundary */
	.summary_mark = "\"isCompactSummary\"",
	.summary_of = claude_code_summary_of,
	.rebuilder = &agent_claude_code_rebuilder,
};
