/*
 * opencode.c - OpenCode's dialect. OpenCode is extended by plugins, not
 * hooks: install writes our plugin (contrib/agents/opencode/git-session.js),
 * a file wholly ours in .opencode/plugins/ or the user's
 * $XDG_CONFIG_HOME/opencode/plugins/. It imports nothing but Node's
 * child_process, so OpenCode has no package to install for it (which,
 * with no registry to reach, it would wait for). The plugin sends each
 * event as {"event", "sessionID", "subagent"?, "input", "output", "ms",
 * "usage", "reply"}: OpenCode's own hook input and output, the session
 * of the agent the user talks to (a sub-agent's under its parent's), and
 * the turn's tokens summed from its assistant messages (input without
 * the cached tokens, as OpenCode counts it; output with the reasoning).
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <string.h>

static const struct agent_hook_event opencode_events[] = {
	{ "session.created", AE_START, NULL },
	{ "chat.message", AE_PROMPT, NULL },
	{ "tool.execute.before", AE_TOOL_BEFORE, NULL },
	{ "tool.execute.after", AE_TOOL_AFTER, NULL },
	{ "subagent.start", AE_SUBAGENT_START, NULL },
	{ "subagent.stop", AE_SUBAGENT_STOP, NULL },
	{ "session.idle", AE_TURN_END, NULL },
	{ "session.compacted", AE_COMPACT, NULL },
	{ NULL, AE_NONE, NULL },
};
static const char *const opencode_writers[] = { "write", "edit", "apply_patch", NULL };
static const char *const opencode_agent_tools[] = { "task", NULL };
static const char *const opencode_shell_tools[] = { "bash", NULL };
static const char *const usage_keys[3] = { "input", "output", "cached" };

static const char plugin_head[] =
	"// git-session's plugin for OpenCode, written by `git session hooks install --agent opencode`\n"
	"// and removed by `git session hooks uninstall --agent opencode`. It needs no package (it\n"
	"// imports only Node's child_process), so OpenCode has nothing to install for it. Each event\n"
	"// goes as JSON on stdin to the command below; where git-session is missing, nothing happens.\n"
	"// A tool call git-session refuses (the session's token budget) throws: OpenCode does not run it.\n"
	"import { spawnSync } from \"node:child_process\"\n"
	"\n";
static const char plugin_tail[] =
	"\n"
	"export const GitSession = async ({ directory }) => {\n"
	"  const parents = {}, tasks = {}, started = {}, usage = {}, replies = {}, answers = {}\n"
	"  const root = (id) => (parents[id] ? parents[id].root : id)\n"
	"  const send = (event, id, body) => {\n"
	"    body.event = event\n"
	"    body.sessionID = root(id)\n"
	"    if (parents[id]) body.subagent = { id, type: parents[id].type }\n"
	"    let text\n"
	"    try { text = JSON.stringify(body) } catch (e) { return null }\n"
	"    return spawnSync(\"/bin/sh\", [\"-c\", \"command -v git-session >/dev/null 2>&1 || exit 0; \" + COMMAND + \" \\\"$0\\\"\", event],\n"
	"      { input: text, cwd: directory, encoding: \"utf8\", timeout: 10000 })\n"
	"  }\n"
	"  // the turn's tokens, each message's last count: input without the cached tokens, output with the reasoning\n"
	"  const turn = (id) => {\n"
	"    const u = { input: 0, output: 0, cached: 0 }\n"
	"    let any = false\n"
	"    for (const t of Object.values(usage[id] || {})) {\n"
	"      u.input += (t.input || 0) + ((t.cache && t.cache.write) || 0)\n"
	"      u.output += (t.output || 0) + (t.reasoning || 0)\n"
	"      u.cached += (t.cache && t.cache.read) || 0\n"
	"      any = true\n"
	"    }\n"
	"    delete usage[id]\n"
	"    return any ? u : undefined\n"
	"  }\n"
	"  return {\n"
	"    \"chat.message\": async (input, output) => {\n"
	"      if (!parents[input.sessionID]) send(\"chat.message\", input.sessionID, { input, output })\n"
	"    },\n"
	"    \"tool.execute.before\": async (input, output) => {\n"
	"      if (input.tool === \"task\" && output && output.args) tasks[input.sessionID] = output.args.subagent_type\n"
	"      started[input.callID] = Date.now()\n"
	"      const r = send(\"tool.execute.before\", input.sessionID, { input, output })\n"
	"      if (r && r.status === 2) throw new Error((r.stderr || \"\").trim() || \"git-session refused the tool call\")\n"
	"    },\n"
	"    \"tool.execute.after\": async (input, output) => {\n"
	"      const ms = started[input.callID] === undefined ? undefined : Date.now() - started[input.callID]\n"
	"      delete started[input.callID]\n"
	"      send(\"tool.execute.after\", input.sessionID, { input, output, ms })\n"
	"    },\n"
	"    event: async ({ event }) => {\n"
	"      const p = event.properties || {}, info = p.info || {}, part = p.part || {}\n"
	"      if (event.type === \"session.created\" && info.parentID) {\n"
	"        parents[info.id] = { root: root(info.parentID), type: tasks[info.parentID] || \"subagent\" }\n"
	"        send(\"subagent.start\", info.id, {})\n"
	"      } else if (event.type === \"session.created\" && info.id) {\n"
	"        send(\"session.created\", info.id, {})\n"
	"      } else if (event.type === \"message.updated\" && info.role === \"assistant\" && info.tokens) {\n"
	"        answers[info.id] = true;\n"
	"        (usage[info.sessionID] = usage[info.sessionID] || {})[info.id] = info.tokens\n"
	"      } else if (event.type === \"message.part.updated\" && part.type === \"text\" && answers[part.messageID]) {\n"
	"        replies[part.sessionID] = part.text\n"
	"      } else if (event.type === \"session.idle\" && p.sessionID) {\n"
	"        const id = p.sessionID\n"
	"        send(parents[id] ? \"subagent.stop\" : \"session.idle\", id, { usage: turn(id), reply: replies[id] })\n"
	"        delete replies[id]\n"
	"      } else if (event.type === \"session.compacted\" && p.sessionID) {\n"
	"        send(\"session.compacted\", p.sessionID, {})\n"
	"      }\n"
	"    },\n"
	"  }\n"
	"}\n";

static char *opencode_plugin(const struct agent_dialect *d, const char *command_prefix)
{
	(void)d;
	return xstrfmt("%sconst COMMAND = \"%s\"\n%s", plugin_head, command_prefix, plugin_tail);
}

/* The user's words: the text parts of the message, not those OpenCode adds itself (synthetic). */
static const char *prompt_of(const cJSON *parts)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, (cJSON_IsArray(parts) ? parts : NULL)) {
		const char *type = json_str(p, "type");

		if (type && !strcmp(type, "text") && !json_bool(p, "synthetic", 0) && json_str(p, "text"))
			return json_str(p, "text");
	}
	return NULL;
}

static void opencode_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "input");
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(payload, "output");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(out, "metadata");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(in, "args");
	const cJSON *sub = cJSON_GetObjectItemCaseSensitive(payload, "subagent");
	const cJSON *exists = cJSON_GetObjectItemCaseSensitive(meta, "exists");

	if (!args)	/* before the call, its arguments are in the output */
		args = cJSON_GetObjectItemCaseSensitive(out, "args");
	ev->session = json_str(payload, "sessionID");
	ev->subagent_id = json_str(sub, "id");
	ev->subagent_type = json_str(sub, "type");
	ev->prompt = prompt_of(cJSON_GetObjectItemCaseSensitive(out, "parts"));
	ev->tool = json_str(in, "tool");
	if (!(ev->path = json_str(meta, "filepath")) &&
	    !(ev->path = json_str(cJSON_GetObjectItemCaseSensitive(meta, "filediff"), "file")))
		ev->path = json_str(args, "filePath");
	ev->created = cJSON_IsFalse(exists);
	ev->patch = json_str(args, "patchText");
	ev->command = json_str(args, "command");
	ev->has_exit = agent_number(&ev->exit, cJSON_GetObjectItemCaseSensitive(meta, "exit"), AGENT_EXIT_MIN,
				    AGENT_EXIT_MAX);
	ev->failed = ev->has_exit && ev->exit != 0;
	ev->has_ms = agent_number(&ev->ms, cJSON_GetObjectItemCaseSensitive(payload, "ms"), 0, AGENT_MS_MAX);
	ev->said = json_str(payload, "reply");
	agent_payload_usage(ev, cJSON_GetObjectItemCaseSensitive(payload, "usage"), usage_keys);
}

/*
 * OpenCode installs @opencode-ai/plugin into each of its folders at
 * start, and waits for that before it loads a plugin: with no registry to
 * reach, a minute or more. A folder with node_modules/ and a lock naming
 * the package looks installed. Only where the folder has no packages of
 * its own (OpenCode's .gitignore leaves all three out of git).
 */
static const char *const opencode_aside[][2] = {
	{ "../package.json", NULL },
	{ "../node_modules/", "" },
	{ "../package-lock.json",
	  "{\"lockfileVersion\":3,\"packages\":{\"\":{\"dependencies\":{\"@opencode-ai/plugin\":\"*\"}}}}\n" },
	{ NULL, NULL },
};

const struct agent_dialect agent_opencode = {
	.name = "opencode",
	.stem = "opencode",
	.resume = "opencode --session",
	.settings = ".opencode/plugins/git-session.js",
	.settings_user = "opencode/plugins/git-session.js",
	.settings_ops = &agent_file_hooks,
	.events = opencode_events,
	.write_tools = opencode_writers,
	.agent_tools = opencode_agent_tools,
	.shell_tools = opencode_shell_tools,
	/* the user's plugins are in $XDG_CONFIG_HOME/opencode, ~/.config/opencode by default */
	.folder = ".config",
	.folder_env = "XDG_CONFIG_HOME",
	.block_exit = 2,
	.read_event = opencode_read_event,
	.hooks_file = opencode_plugin,
	.aside = opencode_aside,
};
