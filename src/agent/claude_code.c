/*
 * claude_code.c - Claude Code's dialect: its hook events, its payloads'
 * keys, its transcript's usage, its settings file. The settings are
 * .claude/settings.json, JSON hooks.
 */
#include "agent-internal.h"
#include "git-session/json.h"

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

const struct agent_dialect agent_claude_code = {
	.name = "claude-code",
	.stem = "claude",
	.resume = "claude --resume",
	.settings = ".claude/settings.json",
	.settings_local = ".claude/settings.local.json",
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
};
