/*
 * gemini_cli.c - Gemini CLI's dialect: its hook events, its payloads'
 * keys, its transcript's usage, its settings file. The settings are
 * .gemini/settings.json, JSON hooks as Claude Code's.
 */
#include "agent-internal.h"
#include "git-session/json.h"

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

/*
 * A shell command's outcome: its result says "Exit Code: 1" on a line of
 * its own when the status was not 0, and has an "error" when it could not
 * run. It says no duration.
 */
static void gemini_cli_outcome(struct agent_event *ev, const cJSON *resp)
{
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(resp, "error");
	const char *said = json_str(resp, "llmContent");
	int r = said ? agent_exit_after(&ev->exit, said, "Exit Code: ") : 0;

	if (r > 0)
		ev->has_exit = 1;
	else if (!r && cJSON_IsObject(resp) && (!error || cJSON_IsNull(error)))
		ev->has_exit = 1;	/* ev->exit is 0 */
	/* the line is there only when the status was not 0 */
	ev->failed = r < 0 || (ev->has_exit && ev->exit != 0) || (error && !cJSON_IsNull(error));
}

static void gemini_cli_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(payload, "tool_response");
	const char *said;

	ev->session = json_str(payload, "session_id");
	ev->prompt = json_str(payload, "prompt");
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

const struct agent_dialect agent_gemini_cli = {
	.name = "gemini-cli",
	.stem = "gemini",
	.resume = "gemini --resume",
	.settings = ".gemini/settings.json",
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
	.flags = AGENT_COMPACT_MANUAL_ONLY,
	.block_exit = 2,
	.read_event = gemini_cli_read_event,
	.usage_mark = "\"tokens\"",
	.scan_usage = gemini_cli_scan_usage,
	.scan_reply = gemini_cli_scan_reply,
};
