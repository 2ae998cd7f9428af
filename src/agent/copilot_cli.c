/*
 * copilot_cli.c - GitHub Copilot CLI's dialect: its hook events, its
 * payloads' keys, its session store's usage, its hooks file. Our hooks
 * are a file of their own, .github/hooks/git-session.json (or
 * ~/.copilot/hooks/git-session.json), version 1 with camelCase events
 * and timeouts in seconds. Copilot also runs Claude Code's hooks
 * (.claude/settings.json) with Claude-style payloads: those are
 * recognised (copilot_cli_claims) and read here too, one reader for both
 * spellings of each key.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/transcript.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static const struct agent_hook_event copilot_cli_events[] = {
	{ "sessionStart", AE_START, NULL },
	{ "userPromptSubmitted", AE_PROMPT, NULL },
	{ "preToolUse", AE_TOOL_BEFORE, NULL },
	{ "postToolUse", AE_TOOL_AFTER, "create|edit|apply_patch|bash" },
	{ "postToolUseFailure", AE_TOOL_FAILED, "bash" },
	{ "subagentStart", AE_SUBAGENT_START, NULL },
	{ "subagentStop", AE_SUBAGENT_STOP, NULL },
	{ "agentStop", AE_TURN_END, NULL },
	{ "preCompact", AE_COMPACT, NULL },
	{ "sessionEnd", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
/* its own names, then those its Claude-style payloads give them */
static const char *const copilot_cli_writers[] = { "create", "edit", "apply_patch", "Write", "Edit", NULL };
static const char *const copilot_cli_agent_tools[] = { "task", "Task", NULL };
static const char *const copilot_cli_shell_tools[] = { "bash", "Bash", NULL };

/* The key in Copilot's spelling, else in the Claude-style one. */
static const cJSON *item2(const cJSON *o, const char *camel, const char *snake)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, camel);

	return v ? v : cJSON_GetObjectItemCaseSensitive(o, snake);
}

static const char *str2(const cJSON *o, const char *camel, const char *snake)
{
	const char *s = json_str(o, camel);

	return s ? s : json_str(o, snake);
}

/* The status in "<shellId: 0 completed with exit code 3>", the last one the text says: 1, else 0. */
static int shell_exit(double *out, const char *text)
{
	static const char tag[] = "completed with exit code ";
	const char *p, *last = NULL;
	double v = 0;
	int n = 0;

	for (p = text; p && (p = strstr(p, tag)); p += sizeof(tag) - 1)
		last = p + sizeof(tag) - 1;
	if (!last)
		return 0;
	for (p = last; '0' <= *p && *p <= '9' && n < 11; p++, n++)
		v = v * 10 + (*p - '0');
	if (!n || n > 10 || *p != '>' || v > AGENT_EXIT_MAX)
		return 0;
	*out = v;
	return 1;
}

/*
 * A shell command's outcome. postToolUse says "success" whatever its
 * status: the status is only in the text given to the model. A failure
 * (postToolUseFailure) says "error". No duration is said.
 */
static void copilot_cli_outcome(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *res = item2(payload, "toolResult", "tool_result");
	const char *text = str2(res, "textResultForLlm", "text_result_for_llm");
	const char *type = str2(res, "resultType", "result_type");

	ev->has_exit = text && shell_exit(&ev->exit, text);
	ev->failed = json_str(payload, "error") || (type && strcmp(type, "success")) || (ev->has_exit && ev->exit != 0);
}

static void copilot_cli_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = item2(payload, "toolArgs", "tool_input");
	const char *parent = str2(payload, "parentAgentId", "parent_agent_id");

	ev->subagent_id = str2(payload, "agentId", "agent_id");
	ev->subagent_type = str2(payload, "agentType", "agent_type");
	/* inside a sub-agent the session id is the sub-agent's: its parent's is the session */
	ev->session = ev->subagent_id && parent ? parent : str2(payload, "sessionId", "session_id");
	ev->prompt = json_str(payload, "prompt");
	ev->tool = str2(payload, "toolName", "tool_name");
	if (!(ev->path = json_str(in, "path")))
		ev->path = json_str(in, "file_path");
	/* apply_patch (gpt-5 models) takes the patch whole, Edit through Claude's hooks */
	if (cJSON_IsString(in))
		ev->patch = in->valuestring;
	ev->cwd = json_str(payload, "cwd");
	ev->created = ev->tool && (!strcmp(ev->tool, "create") || !strcmp(ev->tool, "Write"));
	ev->transcript = str2(payload, "transcriptPath", "transcript_path");
	/* sub-agents write into the session's own store: read once, with the session's turn */
	ev->said = ev->subagent_id ? str2(payload, "response", "last_assistant_message") : NULL;
	ev->command = json_str(in, "command");
	copilot_cli_outcome(ev, payload);
	ev->trigger = json_str(payload, "trigger");
	ev->reason = json_str(payload, "reason");
	/* a sub-agent's prompt and the end of its turns come as the session's own: not the user's */
	ev->skip = ev->subagent_id && (ev->prompt || (ev->transcript && !str2(payload, "agentName", "agent_name")));
}

/*
 * A payload that came through Claude Code's hooks is Copilot's when its
 * environment says so (COPILOT_CLI=1, unless Claude Code's own says
 * otherwise: an agent started from Copilot's shell inherits it), or when
 * it has what Claude Code's never have: a top-level timestamp, camelCase
 * keys. Cursor's payloads say cursor_version.
 */
static int copilot_cli_claims(const cJSON *payload, const char *(*env)(const char *name))
{
	const char *v;

	if (((v = env("CLAUDECODE")) && *v) || json_str(payload, "cursor_version") || ((v = env("CURSOR_VERSION")) && *v))
		return 0;
	if ((v = env("COPILOT_CLI")) && !strcmp(v, "1"))
		return 1;
	return cJSON_GetObjectItemCaseSensitive(payload, "timestamp") || json_str(payload, "sessionId");
}

/*
 * {"type": "session.usage_record", "data": {"usage": {"inputTokens",
 * "outputTokens", "cacheReadTokens", "apiCallId"}}}: one per request, its
 * input holding the cached tokens too. {"type": "assistant.message"} has
 * no usage, and counts nothing: its text is the reply.
 */
static int copilot_cli_scan_usage(const char **id, double u[3], const cJSON *line)
{
	const char *type = json_str(line, "type");
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(line, "data");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(data, "usage");
	double a;

	if (!type || json_str(line, "agentId"))
		return 0;	/* a sub-agent's: counted with its record below */
	if (!strcmp(type, "assistant.message") && json_str(data, "messageId") && json_str(data, "content") &&
	    *json_str(data, "content")) {
		*id = json_str(data, "messageId");
		u[0] = u[1] = u[2] = 0;
		return 1;
	}
	if (strcmp(type, "session.usage_record") || !cJSON_IsObject(t))
		return 0;
	if (!(*id = json_str(t, "apiCallId")) && !(*id = json_str(line, "id")))
		return 0;
	if (agent_usage_number(&a, t, "inputTokens") < 0 || agent_usage_number(&u[2], t, "cacheReadTokens") < 0 ||
	    agent_usage_number(&u[1], t, "outputTokens") < 0)
		return -1;
	u[0] = a > u[2] ? a - u[2] : 0;
	return 1;
}

static const char *copilot_cli_scan_reply(const cJSON *line)
{
	return json_str(cJSON_GetObjectItemCaseSensitive(line, "data"), "content");
}

/* --- the session store read as a conversation --- */

static void copilot_tools(struct transcript *t, const cJSON *calls)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, (cJSON_IsArray(calls) ? calls : NULL)) {
		const char *name = json_str(c, "name") ? json_str(c, "name") : "?";
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arguments");
		char *args = cJSON_IsString(a) ? xstrdup(a->valuestring) : transcript_args_summary(a);
		struct transcript_item *it = transcript_add(t, TI_TOOL, args, strlen(args));

		if (it)
			it->name = xstrdup(name);
		free(args);
	}
}

/* {"type": "user.message" | "assistant.message" | "tool.execution_complete" | "session.usage_record", "data"} */
static void copilot_cli_read_line(struct transcript *t, const cJSON *line)
{
	const char *type = json_str(line, "type"), *s, *id;
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(line, "data"), *res;
	double u[3];

	if (!type)
		return;
	if (!strcmp(type, "user.message") && (s = json_str(data, "content")) && *s) {
		if (json_str(line, "agentId"))	/* a sub-agent's task */
			transcript_add(t, TI_EVENT, s, strlen(s));
		else
			transcript_prompt(t, s, strlen(s));
	} else if (!strcmp(type, "assistant.message")) {
		if ((s = json_str(data, "content")) && strspn(s, " \t\r\n") < strlen(s))
			transcript_add(t, TI_REPLY, s, strlen(s));
		copilot_tools(t, cJSON_GetObjectItemCaseSensitive(data, "toolRequests"));
	} else if (!strcmp(type, "tool.execution_complete")) {
		res = cJSON_GetObjectItemCaseSensitive(data, "result");
		s = json_str(res, "content") ? json_str(res, "content") : "";
		transcript_result(t, json_str(data, "toolCallId") ? json_str(data, "toolCallId") : "?", s, strlen(s),
				  !json_bool(data, "success", 1));
	} else if (!strcmp(type, "session.usage_record") && copilot_cli_scan_usage(&id, u, line) > 0) {
		transcript_usage(t, id, u[0], u[1], u[2]);
	}
}

/* The conversation and its usage; not the CLI's own records (hooks, turns, shutdown). */
static int copilot_cli_keeps_line(const char *line, size_t len, size_t cut[2])
{
	static const char *const kept[] = { "user.message", "assistant.message", "tool.execution_start",
					    "tool.execution_complete", "session.usage_record", "subagent.started",
					    "subagent.completed", "session.compaction_complete", NULL };
	char *type = transcript_top_str(line, len, "type");
	int keep = 0;

	(void)cut;
	for (const char *const *k = kept; type && *k && !keep; k++)
		keep = !strcmp(type, *k);
	free(type);
	return keep;
}

/*
 * Our hooks file, .github/hooks/git-session.json: {"version": 1, "hooks":
 * {"<event>": [{"type": "command", "bash", "timeoutSec"[, "matcher"]}]}}.
 */
static char *copilot_cli_hooks_file(const struct agent_dialect *d, const char *prefix)
{
	struct sbuf sb = SBUF_INIT;
	const struct agent_hook_event *e;

	sbuf_adds(&sb, "{\n  \"version\": 1,\n  \"hooks\": {\n");
	for (e = d->events; e->event; e++) {
		sbuf_addf(&sb, "    \"%s\": [\n      { \"type\": \"command\", \"bash\": \"" AGENT_HOOK_GUARD, e->event);
		json_string_encode(&sb, prefix, strlen(prefix));
		sbuf_addf(&sb, " %s\", \"timeoutSec\": %d", e->event, d->timeout);
		if (e->matcher)
			sbuf_addf(&sb, ", \"matcher\": \"^(%s)$\"", e->matcher);
		sbuf_addf(&sb, " }\n    ]%s\n", e[1].event ? "," : "");
	}
	sbuf_adds(&sb, "  }\n}\n");
	return sbuf_detach(&sb, NULL);
}

const struct agent_dialect agent_copilot_cli = {
	.name = "copilot-cli",
	.stem = "copilot",
	.resume = "copilot --resume",
	.settings = ".github/hooks/git-session.json",
	.settings_user = "hooks/git-session.json",
	.settings_ops = &agent_file_hooks,
	.hooks_file = copilot_cli_hooks_file,
	.timeout = 10,	/* seconds */
	.events = copilot_cli_events,
	.write_tools = copilot_cli_writers,
	.agent_tools = copilot_cli_agent_tools,
	.shell_tools = copilot_cli_shell_tools,
	.folder = ".copilot",
	.folder_env = "COPILOT_HOME",
	/* it writes its session store in bursts, a -p run's end only as it exits */
	.flags = AGENT_TRANSCRIPT_LATE,
	.block_exit = 2,
	.read_event = copilot_cli_read_event,
	.usage_mark = "\"apiCallId\"",
	.scan_usage = copilot_cli_scan_usage,
	.scan_reply = copilot_cli_scan_reply,
	.read_line = copilot_cli_read_line,
	.keeps_line = copilot_cli_keeps_line,
	.guest_of = "claude-code",
	.claims = copilot_cli_claims,
	.gate = "Copilot CLI runs a project's hooks only in a folder it trusts: answer its question once\n"
		"in this folder, or add \"%s\" to \"trustedFolders\" in ~/.copilot/config.json",
};
