/*
 * cursor.c - Cursor's dialect, from its documentation (its hooks
 * reference): .cursor/hooks.json, {"version": 1, "hooks": {"<event>":
 * [{"command", "matcher", "timeout"}]}}, or the user's ~/.cursor/hooks.json,
 * whose hooks Cursor runs in ~/.cursor: our command goes to
 * $CURSOR_PROJECT_DIR first. Every payload has conversation_id,
 * cursor_version and workspace_roots; a file edit comes as afterFileEdit
 * (its absolute file_path), a shell command as postToolUse of Shell.
 * Cursor runs Claude Code's hooks too, with its own payloads: those are
 * recognised by their cursor_version (cursor_claims). Its transcripts say
 * no tokens: none are counted.
 */
#include "agent-internal.h"
#include "git-session/json.h"

#include <string.h>

static const struct agent_hook_event cursor_events[] = {
	{ "sessionStart", AE_START, NULL },
	{ "beforeSubmitPrompt", AE_PROMPT, NULL },
	{ "preToolUse", AE_TOOL_BEFORE, NULL },
	/* files come as afterFileEdit, which says them all */
	{ "postToolUse", AE_TOOL_AFTER, "Shell" },
	{ "postToolUseFailure", AE_TOOL_FAILED, "Shell" },
	{ "afterFileEdit", AE_TOOL_AFTER, NULL },
	{ "subagentStart", AE_SUBAGENT_START, NULL },
	{ "subagentStop", AE_SUBAGENT_STOP, NULL },
	{ "stop", AE_TURN_END, NULL },
	{ "preCompact", AE_COMPACT, NULL },
	{ "sessionEnd", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
/* afterFileEdit names no tool: "" is its */
static const char *const cursor_writers[] = { "", "Write", "Edit", "MultiEdit", "TabWrite", "Delete", NULL };
static const char *const cursor_agent_tools[] = { "Task", NULL };
static const char *const cursor_shell_tools[] = { "Shell", NULL };

/* postToolUse's tool_output, a JSON text: {"exitCode": 0, "stdout": ...} */
static void shell_outcome(struct agent_event *ev, const cJSON *payload)
{
	const char *text = json_str(payload, "tool_output");
	cJSON *out = text ? cJSON_Parse(text) : NULL;

	ev->has_exit = agent_number(&ev->exit, cJSON_GetObjectItemCaseSensitive(out, "exitCode"), AGENT_EXIT_MIN,
				    AGENT_EXIT_MAX);
	cJSON_Delete(out);
	ev->has_ms = agent_number(&ev->ms, cJSON_GetObjectItemCaseSensitive(payload, "duration"), 0, AGENT_MS_MAX);
	ev->failed = (ev->has_exit && ev->exit != 0) || json_str(payload, "error_message") != NULL;
}

static void cursor_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");

	if (!(ev->session = json_str(payload, "session_id")))
		ev->session = json_str(payload, "conversation_id");
	ev->prompt = json_str(payload, "prompt");
	ev->tool = json_str(payload, "tool_name");
	if ((ev->path = json_str(payload, "file_path")) && !ev->tool)
		ev->tool = "";
	else if (!ev->path && !(ev->path = json_str(in, "file_path")))
		ev->path = json_str(in, "path");
	ev->command = json_str(in, "command");
	shell_outcome(ev, payload);
	/* subagentStop names no subagent_id: a sub-agent is known by its type alone, start and stop */
	ev->subagent_type = json_str(payload, "subagent_type");
	ev->said = json_str(payload, "summary");
	ev->trigger = json_str(payload, "trigger");
	ev->reason = json_str(payload, "reason");
}

/* Cursor's own payload where Claude Code's hooks run it: it names its own event (hook_event_name). */
static int cursor_claims(const cJSON *payload, const char *(*env)(const char *name))
{
	(void)env;
	return json_str(payload, "cursor_version") != NULL;
}

const struct agent_dialect agent_cursor = {
	.name = "cursor",
	.stem = "cursor",
	.settings = ".cursor/hooks.json",
	.settings_user = "hooks.json",
	.project_env = "CURSOR_PROJECT_DIR",
	.settings_ops = &agent_json_hooks,
	.timeout = 10,	/* seconds */
	.events = cursor_events,
	.write_tools = cursor_writers,
	.agent_tools = cursor_agent_tools,
	.shell_tools = cursor_shell_tools,
	.folder = ".cursor",
	.flags = AGENT_HOOKS_FLAT,
	.block_exit = 2,
	.read_event = cursor_read_event,
	.guest_of = "claude-code",
	.claims = cursor_claims,
};
