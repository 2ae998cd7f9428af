/*
 * generic.c - the generic dialect: any agent whose plugins or hooks can
 * run a command feeds `git session hook generic <event>` one JSON object
 * in the shape doc/agent-hooks.md specifies (version 1). The payload
 * names its agent, which becomes the agent's CLI and its ids' stem; it
 * says which tool wrote a file or ran a command, and carries the turn's
 * tokens itself: there is no transcript to read.
 */
#include "agent-internal.h"
#include "git-session/json.h"

#include <string.h>

#define GENERIC_VERSION 1

static const struct agent_hook_event generic_events[] = {
	{ "session-start", AE_START, NULL },
	{ "prompt", AE_PROMPT, NULL },
	{ "tool-before", AE_TOOL_BEFORE, NULL },
	{ "tool-after", AE_TOOL_AFTER, NULL },
	{ "tool-failed", AE_TOOL_FAILED, NULL },
	{ "subagent-start", AE_SUBAGENT_START, NULL },
	{ "subagent-stop", AE_SUBAGENT_STOP, NULL },
	{ "turn-end", AE_TURN_END, NULL },
	{ "compact", AE_COMPACT, NULL },
	{ "session-end", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
static const char *const usage_keys[3] = { "input", "output", "cached" };

static void generic_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(payload, "version");
	const char *change = json_str(payload, "change");

	if (!cJSON_IsNumber(version) || version->valuedouble != GENERIC_VERSION) {
		ev->refused = "its \"version\" is not 1, the version of the generic payload this git-session reads";
		return;
	}
	if (!(ev->agent = json_str(payload, "agent"))) {
		ev->refused = "it has no \"agent\", the name of the agent it comes from";
		return;
	}
	/* an agent with a dialect of its own is read by it: its transcript, its resume */
	if (agent_dialect(ev->agent)) {
		ev->refused = "its \"agent\" has a dialect of its own: run 'git session hook <agent> <event>'";
		return;
	}
	ev->session = json_str(payload, "session_id");
	ev->prompt = json_str(payload, "prompt");
	ev->tool = json_str(payload, "tool");
	ev->path = json_str(payload, "path");
	ev->created = change && !strcmp(change, "created");
	ev->patch = json_str(payload, "patch");
	ev->command = json_str(payload, "command");
	ev->has_exit = agent_number(&ev->exit, cJSON_GetObjectItemCaseSensitive(payload, "exit"), AGENT_EXIT_MIN,
				    AGENT_EXIT_MAX);
	ev->has_ms = agent_number(&ev->ms, cJSON_GetObjectItemCaseSensitive(payload, "ms"), 0, AGENT_MS_MAX);
	ev->failed = json_bool(payload, "failed", 0) || (ev->has_exit && ev->exit != 0);
	ev->subagent_id = json_str(payload, "subagent_id");
	ev->subagent_type = json_str(payload, "subagent_type");
	ev->said = json_str(payload, "reply");
	ev->trigger = json_str(payload, "trigger");
	ev->reason = json_str(payload, "reason");
	agent_payload_usage(ev, cJSON_GetObjectItemCaseSensitive(payload, "usage"), usage_keys);
}

const struct agent_dialect agent_generic = {
	.name = "generic",
	.stem = "generic",
	.events = generic_events,
	.flags = AGENT_TOOLS_ANY,
	.block_exit = 2,
	.read_event = generic_read_event,
};
