/*
 * codex.c - OpenAI Codex CLI's dialect: its hook events, its payloads'
 * keys, its rollout transcript's usage, its hooks file. The hooks are
 * .codex/hooks.json (or $CODEX_HOME/hooks.json), JSON shaped as Claude
 * Code's; Codex runs them only in a trusted project and only those whose
 * hash the user trusted (codex_trust.c).
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/transcript.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static const struct agent_hook_event codex_events[] = {
	{ "SessionStart", AE_START, NULL },
	{ "UserPromptSubmit", AE_PROMPT, NULL },
	{ "PreToolUse", AE_TOOL_BEFORE, NULL },
	/* an exact list of names: Bash is exec_command, shell and shell_command alike */
	{ "PostToolUse", AE_TOOL_AFTER, "Bash|apply_patch" },
	{ "SubagentStart", AE_SUBAGENT_START, NULL },
	{ "SubagentStop", AE_SUBAGENT_STOP, NULL },
	{ "Stop", AE_TURN_END, NULL },
	{ "PreCompact", AE_COMPACT, NULL },
	{ NULL, AE_NONE, NULL },
};
/* its edits are patches: the files each names */
static const char *const codex_writers[] = { "apply_patch", NULL };
static const char *const codex_agent_tools[] = { "collaborationspawn_agent", NULL };
static const char *const codex_shell_tools[] = { "Bash", NULL };

/*
 * Codex's payloads: a tool's input in tool_input.command, the shell's
 * command line or apply_patch's patch; its response a string. Bash's says
 * no exit status: it is not known.
 */
static void codex_read_event(struct agent_event *ev, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");

	ev->session = json_str(payload, "session_id");
	ev->prompt = json_str(payload, "prompt");
	ev->tool = json_str(payload, "tool_name");
	ev->cwd = json_str(payload, "cwd");
	ev->transcript = json_str(payload, "transcript_path");
	ev->subagent_id = json_str(payload, "agent_id");
	ev->subagent_type = json_str(payload, "agent_type");
	ev->subagent_transcript = json_str(payload, "agent_transcript_path");
	ev->said = json_str(payload, "last_assistant_message");
	ev->command = json_str(in, "command");
	ev->patch = json_str(in, "command");
	ev->trigger = json_str(payload, "trigger");
	ev->source = json_str(payload, "source");
	ev->call = json_str(payload, "tool_use_id");
}

/*
 * {"type": "event_msg", "payload": {"type": "item_completed", "item":
 * {"type": "CommandExecution", "id": <the call>, "exit_code", "duration":
 * {"secs", "nanos"}}}}: a shell call's outcome, which Bash's payload does
 * not say.
 */
static int codex_scan_exit(struct agent_event *ev, const cJSON *line)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(line, "payload");
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(p, "item");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(item, "duration");
	const char *type = json_str(item, "type"), *id = json_str(item, "id");
	double secs, nanos;

	if (!ev->call || !type || strcmp(type, "CommandExecution") || !id || strcmp(id, ev->call))
		return 0;
	ev->has_exit = agent_number(&ev->exit, cJSON_GetObjectItemCaseSensitive(item, "exit_code"), AGENT_EXIT_MIN,
				    AGENT_EXIT_MAX);
	ev->failed = !ev->has_exit || ev->exit != 0;
	if (agent_number(&secs, cJSON_GetObjectItemCaseSensitive(dur, "secs"), 0, AGENT_MS_MAX / 1000) &&
	    agent_number(&nanos, cJSON_GetObjectItemCaseSensitive(dur, "nanos"), 0, 999999999)) {
		ev->ms = (double)(long long)(secs * 1000 + nanos / 1e6);
		ev->has_ms = 1;
	}
	return 1;
}

/*
 * {"type": "token_usage_record", "payload": {"response_id", "usage":
 * {"input_tokens", "cached_input_tokens", "output_tokens"}}}: one line per
 * model response. Its input counts the cached tokens too, its output the
 * reasoning.
 */
static int codex_scan_usage(const char **id, double u[3], const cJSON *line)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(line, "payload");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "usage");
	const char *type = json_str(line, "type");
	double in;

	if (!type || strcmp(type, "token_usage_record") || !cJSON_IsObject(t) || !json_str(p, "response_id"))
		return 0;
	*id = json_str(p, "response_id");
	if (agent_usage_number(&in, t, "input_tokens") < 0 || agent_usage_number(&u[2], t, "cached_input_tokens") < 0 ||
	    agent_usage_number(&u[1], t, "output_tokens") < 0)
		return -1;
	u[0] = in > u[2] ? in - u[2] : 0;
	return 1;
}

/* --- the rollout read as a conversation --- */

/* What Codex puts in a user message for the model: the environment, the project's instructions. */
static int injected(const char *s)
{
	return !strncmp(s, "<environment_context>", 21) || !strncmp(s, "<user_instructions>", 19) ||
	       !strncmp(s, "# AGENTS.md instructions", 24);
}

/* A message's text blocks (input_text, output_text) joined. */
static void message_text(struct sbuf *sb, const cJSON *content)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, (cJSON_IsArray(content) ? content : NULL))
		if (json_str(b, "text"))
			sbuf_addf(sb, "%s%s", sb->len ? "\n" : "", json_str(b, "text"));
}

static void codex_message(struct transcript *t, const cJSON *p)
{
	const char *role = json_str(p, "role");
	struct sbuf sb = SBUF_INIT;

	message_text(&sb, cJSON_GetObjectItemCaseSensitive(p, "content"));
	if (role && sb.len && !strcmp(role, "user") && !injected(sb.buf))
		transcript_prompt(t, sb.buf, sb.len);
	else if (role && sb.len && !strcmp(role, "assistant") && strspn(sb.buf, " \t\r\n") < sb.len)
		transcript_add(t, TI_REPLY, sb.buf, sb.len);
	sbuf_release(&sb);
}

/* An apply_patch's files, "a.c, b.c"; NULL when it is not a patch. */
static char *patch_summary(const char *patch)
{
	struct agent_patch_file *v;
	struct sbuf sb = SBUF_INIT;
	size_t n;

	if (!patch || agent_patch_files(&v, &n, patch) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&sb, "%s%s%s", i ? v[i].kind == AGENT_PATCH_MOVE_TO ? " -> " : ", " : "",
			  v[i].kind == AGENT_PATCH_DELETE ? "-" : "", v[i].path);
	agent_patch_files_free(v, n);
	return sbuf_detach(&sb, NULL);
}

/* A tool call: function_call's arguments are JSON in a string, custom_tool_call's input the text itself. */
static void codex_call(struct transcript *t, const cJSON *p, int custom)
{
	const char *name = json_str(p, "name") ? json_str(p, "name") : "?";
	const char *raw = json_str(p, custom ? "input" : "arguments");
	cJSON *args = raw && !custom ? cJSON_Parse(raw) : NULL;
	struct transcript_item *it;
	char *summary;

	if (!args)
		args = cJSON_CreateString(raw ? raw : "");
	summary = custom ? patch_summary(raw) : NULL;
	if (!summary)
		summary = transcript_args_summary(args);
	if ((it = transcript_add(t, TI_TOOL, summary, strlen(summary))))
		it->name = xstrdup(name);
	free(summary);
	cJSON_Delete(args);
}

static void codex_item(struct transcript *t, const cJSON *p)
{
	const char *type = json_str(p, "type"), *s;
	const cJSON *b;

	if (!type)
		return;
	if (!strcmp(type, "message")) {
		codex_message(t, p);
	} else if (!strcmp(type, "function_call") || !strcmp(type, "custom_tool_call")) {
		codex_call(t, p, type[0] == 'c');
	} else if (!strcmp(type, "function_call_output") || !strcmp(type, "custom_tool_call_output")) {
		double status = 0;

		s = json_str(p, "output");
		agent_exit_after(&status, s, "Process exited with code ");
		transcript_result(t, NULL, s ? s : "", s ? strlen(s) : 0, status != 0);
	} else if (!strcmp(type, "reasoning")) {
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(p, "summary"))
			if ((s = json_str(b, "text")) && *s)
				transcript_add(t, TI_THINKING, s, strlen(s));
	}
}

/* {"timestamp", "type", "payload"}: response_item (the model's input and output), token_usage_record, compacted. */
static void codex_read_line(struct transcript *t, const cJSON *line)
{
	const char *type = json_str(line, "type"), *s, *id;
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(line, "payload");
	double u[3];

	if (!type)
		return;
	if (!strcmp(type, "response_item")) {
		codex_item(t, p);
	} else if (!strcmp(type, "compacted") && (s = json_str(p, "message")) && *s) {
		transcript_open_turn(t);
		transcript_add(t, TI_SUMMARY, s, strlen(s));
	} else if (codex_scan_usage(&id, u, line) > 0) {
		transcript_usage(t, id, u[0], u[1], u[2]);
	}
}

/*
 * The conversation's lines: the model's input and output, usage,
 * compactions. Not what Codex keeps for itself (session_meta, turn
 * contexts, its events, which repeat the items), nor its developer
 * messages (its own instructions, skills, permissions), written each session.
 */
static int codex_keeps_line(const char *line, size_t len, size_t cut[2])
{
	char *type = transcript_top_str(line, len, "type");
	int keep = type && (!strcmp(type, "response_item") || !strcmp(type, "token_usage_record") ||
			    !strcmp(type, "compacted"));

	(void)cut;
	if (keep && !strcmp(type, "response_item") && memmem(line, len < 512 ? len : 512, "\"role\":\"developer\"", 18))
		keep = 0;
	free(type);
	return keep;
}

const struct agent_dialect agent_codex = {
	.name = "codex",
	.stem = "codex",
	.resume = "codex resume",
	.settings = ".codex/hooks.json",
	.settings_user = "hooks.json",
	.settings_ops = &agent_json_hooks,
	.timeout = 10,	/* seconds */
	.events = codex_events,
	.write_tools = codex_writers,
	.agent_tools = codex_agent_tools,
	.shell_tools = codex_shell_tools,
	.folder = ".codex",
	.folder_env = "CODEX_HOME",
	.flags = AGENT_HOOKS_EACH_FILE,
	.block_exit = 2,
	.read_event = codex_read_event,
	.usage_mark = "\"token_usage_record\"",
	.scan_usage = codex_scan_usage,
	.read_line = codex_read_line,
	.keeps_line = codex_keeps_line,
	/* hookSpecificOutput.additionalContext: a developer message to the model */
	.context_out = agent_context_json,
	.exit_mark = "\"CommandExecution\"",
	.scan_exit = codex_scan_exit,
	.trust = &agent_codex_trust,
};
