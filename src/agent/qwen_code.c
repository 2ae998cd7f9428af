/*
 * qwen_code.c - Qwen Code's dialect: its hook events, its payloads' keys,
 * its transcript's usage, its settings file. The settings are
 * .qwen/settings.json (or ~/.qwen/settings.json), JSON hooks as Claude
 * Code's with their timeout in milliseconds; its payloads are Claude
 * Code's keys around Gemini CLI's tools, whose fork it is.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/transcript.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static const struct agent_hook_event qwen_code_events[] = {
	{ "SessionStart", AE_START, NULL },
	{ "UserPromptSubmit", AE_PROMPT, NULL },
	{ "PreToolUse", AE_TOOL_BEFORE, NULL },
	{ "PostToolUse", AE_TOOL_AFTER, "write_file|edit|run_shell_command" },
	{ "PostToolUseFailure", AE_TOOL_FAILED, "run_shell_command" },
	{ "SubagentStart", AE_SUBAGENT_START, NULL },
	{ "SubagentStop", AE_SUBAGENT_STOP, NULL },
	{ "Stop", AE_TURN_END, NULL },
	{ "PreCompact", AE_COMPACT, NULL },
	{ "SessionEnd", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
static const char *const qwen_code_writers[] = { "write_file", "edit", NULL };
static const char *const qwen_code_agent_tools[] = { "agent", "task", NULL };
static const char *const qwen_code_shell_tools[] = { "run_shell_command", NULL };
/* a background sub-agent's end comes back as a message of the CLI's */
static const char *const qwen_code_own_prompts[] = { "<task-notification>", NULL };

/*
 * A shell command's outcome: its result (PostToolUse's llmContent, or
 * PostToolUseFailure's "error") says "Exit Code: N" on a line of its own,
 * "(none)" when a signal ended it or it went to the background; the
 * payload says its duration.
 */
static void qwen_code_outcome(struct agent_event *ev, const cJSON *payload, const cJSON *resp)
{
	const char *error = json_str(payload, "error"), *said = error ? error : json_str(resp, "llmContent");
	double signal;

	ev->has_ms = agent_number(&ev->ms, cJSON_GetObjectItemCaseSensitive(payload, "duration_ms"), 0, AGENT_MS_MAX);
	ev->has_exit = said && agent_exit_after(&ev->exit, said, "Exit Code: ") > 0;
	ev->failed = error || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(payload, "is_interrupt")) ||
		     (ev->has_exit && ev->exit != 0) || (said && agent_exit_after(&signal, said, "Signal: ") > 0);
}

static void qwen_code_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(payload, "tool_response");
	const char *said = json_str(resp, "llmContent");

	ev->session = json_str(payload, "session_id");
	/* it says UserPromptSubmit again, with "", after each batch of tool calls: no prompt */
	ev->prompt = json_str(payload, "prompt");
	if (ev->prompt && !*ev->prompt)
		ev->prompt = NULL;
	ev->tool = json_str(payload, "tool_name");
	ev->path = json_str(in, "file_path");
	ev->created = said && !strncmp(said, "Successfully created", 20);	/* write_file says so */
	ev->transcript = json_str(payload, "transcript_path");
	ev->subagent_id = json_str(payload, "agent_id");
	ev->subagent_type = json_str(payload, "agent_type");
	ev->subagent_transcript = json_str(payload, "agent_transcript_path");
	ev->said = json_str(payload, "last_assistant_message");
	ev->command = json_str(in, "command");
	qwen_code_outcome(ev, payload, resp);
	ev->trigger = json_str(payload, "trigger");
	ev->reason = json_str(payload, "reason");
}

/*
 * {"uuid", "type": "assistant", "usageMetadata": {...}}: each model
 * response once; its prompt count holds the cached tokens too.
 */
static int qwen_code_scan_usage(const char **id, double u[3], const cJSON *line)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(line, "usageMetadata");
	double a, b;

	if (!cJSON_IsObject(t) || !json_str(line, "uuid"))
		return 0;
	*id = json_str(line, "uuid");
	if (agent_usage_number(&a, t, "promptTokenCount") < 0 || agent_usage_number(&u[2], t, "cachedContentTokenCount") < 0 ||
	    agent_usage_number(&u[1], t, "candidatesTokenCount") < 0 || agent_usage_number(&b, t, "thoughtsTokenCount") < 0)
		return -1;
	u[0] = a > u[2] ? a - u[2] : 0;
	u[1] += b;
	return 1;
}

/* The first text part of the message that is no thought. */
static const char *first_text(const cJSON *parts)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, (cJSON_IsArray(parts) ? parts : NULL))
		if (json_str(p, "text") && *json_str(p, "text") && !json_bool(p, "thought", 0))
			return json_str(p, "text");
	return NULL;
}

static const char *qwen_code_scan_reply(const cJSON *line)
{
	return first_text(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(line, "message"), "parts"));
}

/* --- the transcript read as a conversation --- */

static void parts_text(struct sbuf *sb, const cJSON *parts)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, (cJSON_IsArray(parts) ? parts : NULL))
		if (json_str(p, "text") && !json_bool(p, "thought", 0))
			sbuf_addf(sb, "%s%s", sb->len ? "\n" : "", json_str(p, "text"));
}

static void qwen_parts(struct transcript *t, const cJSON *parts)
{
	const cJSON *p, *call, *resp;

	cJSON_ArrayForEach(p, (cJSON_IsArray(parts) ? parts : NULL)) {
		if ((call = cJSON_GetObjectItemCaseSensitive(p, "functionCall"))) {
			const char *name = json_str(call, "name") ? json_str(call, "name") : "?";
			char *args = transcript_args_summary(cJSON_GetObjectItemCaseSensitive(call, "args"));
			struct transcript_item *it = transcript_add(t, TI_TOOL, args, strlen(args));

			if (it)
				it->name = xstrdup(name);
			free(args);
		} else if ((resp = cJSON_GetObjectItemCaseSensitive(p, "functionResponse"))) {
			const cJSON *r = cJSON_GetObjectItemCaseSensitive(resp, "response");
			const char *name = json_str(resp, "name") ? json_str(resp, "name") : "?";
			const char *s = json_str(r, "error") ? json_str(r, "error") : json_str(r, "output");

			transcript_result(t, name, s ? s : "", s ? strlen(s) : 0, json_str(r, "error") != NULL);
		}
	}
}

/* {"uuid", "type": "user" | "assistant" | "tool_result" | "system", "message": {"role", "parts"}, "usageMetadata"} */
static void qwen_code_read_line(struct transcript *t, const cJSON *line)
{
	const char *type = json_str(line, "type"), *id;
	const cJSON *parts = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(line, "message"), "parts");
	struct sbuf sb = SBUF_INIT;
	double u[3];

	if (!type)
		return;
	parts_text(&sb, parts);
	if (!strcmp(type, "user")) {
		if (json_str(line, "subtype") && sb.len)	/* a notification of the CLI's */
			transcript_add(t, TI_EVENT, sb.buf, sb.len);
		else if (sb.len)
			transcript_prompt(t, sb.buf, sb.len);
	} else if (!strcmp(type, "assistant")) {
		if (sb.len && strspn(sb.buf, " \t\r\n") < sb.len)
			transcript_add(t, TI_REPLY, sb.buf, sb.len);
		qwen_parts(t, parts);
		if (qwen_code_scan_usage(&id, u, line) > 0)
			transcript_usage(t, id, u[0], u[1], u[2]);
	} else if (!strcmp(type, "tool_result")) {
		qwen_parts(t, parts);
	}
	sbuf_release(&sb);
}

/* The conversation: prompts, replies, tool results; not the CLI's own records ("system"). */
static int qwen_code_keeps_line(const char *line, size_t len, size_t cut[2])
{
	char *type = transcript_top_str(line, len, "type");
	int keep = type && (!strcmp(type, "user") || !strcmp(type, "assistant") || !strcmp(type, "tool_result"));

	(void)cut;
	free(type);
	return keep;
}

const struct agent_dialect agent_qwen_code = {
	.name = "qwen-code",
	.stem = "qwen",
	.resume = "qwen --resume",
	.settings = ".qwen/settings.json",
	.settings_user = "settings.json",
	.settings_ops = &agent_json_hooks,
	.timeout = 10000,	/* milliseconds */
	.events = qwen_code_events,
	.write_tools = qwen_code_writers,
	.agent_tools = qwen_code_agent_tools,
	.shell_tools = qwen_code_shell_tools,
	.own_prompts = qwen_code_own_prompts,
	.folder = ".qwen",
	/* it writes a turn's last response after its Stop */
	.flags = AGENT_TRANSCRIPT_LATE,
	.block_exit = 2,
	.read_event = qwen_code_read_event,
	.usage_mark = "\"usageMetadata\"",
	.scan_usage = qwen_code_scan_usage,
	.scan_reply = qwen_code_scan_reply,
	.read_line = qwen_code_read_line,
	.keeps_line = qwen_code_keeps_line,
	.gate = "Qwen Code runs a project's hooks only in a folder it trusts, when its folder trust is on\n"
		"(security.folderTrust.enabled): trust this folder when it asks, or add\n"
		"\"%s\": \"TRUST_FOLDER\" to ~/.qwen/trustedFolders.json",
};
