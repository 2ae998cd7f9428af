/*
 * agent.c - the agents' hook dialects (Claude Code, Gemini CLI) and the
 * usage in their transcripts; our hooks in their settings files are in
 * agent_json_hooks.c.
 */
#include "git-session/agent.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct agent_hook_event claude_events[] = {
	{ "SessionStart", AE_START, NULL },
	{ "UserPromptSubmit", AE_PROMPT, NULL },
	{ "PreToolUse", AE_TOOL_BEFORE, NULL },
	{ "PostToolUse", AE_TOOL_AFTER, "Write|Edit|MultiEdit|NotebookEdit" },
	{ "SubagentStart", AE_SUBAGENT_START, NULL },
	{ "SubagentStop", AE_SUBAGENT_STOP, NULL },
	{ "Stop", AE_TURN_END, NULL },
	{ "PreCompact", AE_COMPACT, NULL },
	{ "SessionEnd", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
static const char *const claude_writers[] = { "Write", "Edit", "MultiEdit", "NotebookEdit", NULL };
static const char *const claude_agents[] = { "Task", "Agent", NULL };

static const struct agent_hook_event gemini_events[] = {
	{ "SessionStart", AE_START, NULL },
	{ "BeforeAgent", AE_PROMPT, NULL },
	{ "BeforeTool", AE_TOOL_BEFORE, NULL },
	{ "AfterTool", AE_TOOL_AFTER, "write_file|replace" },
	{ "AfterAgent", AE_TURN_END, NULL },
	{ "PreCompress", AE_COMPACT, NULL },
	{ "SessionEnd", AE_END, NULL },
	{ NULL, AE_NONE, NULL },
};
static const char *const gemini_writers[] = { "write_file", "replace", NULL };
static const char *const gemini_agents[] = { "invoke_agent", NULL };

static const struct agent_dialect claude = {
	"claude-code", "claude", ".claude/settings.json", 10, claude_events, claude_writers, claude_agents,
	".claude", "CLAUDE_CONFIG_DIR", NULL,
};
static const struct agent_dialect gemini = {
	"gemini-cli", "gemini", ".gemini/settings.json", 10000, gemini_events, gemini_writers, gemini_agents,
	".gemini", NULL, "GEMINI_CLI_HOME",
};
const struct agent_dialect *const agent_dialects[] = { &claude, &gemini, NULL };

const struct agent_dialect *agent_dialect(const char *name)
{
	for (size_t i = 0; agent_dialects[i]; i++)
		if (!strcmp(agent_dialects[i]->name, name))
			return agent_dialects[i];
	return NULL;
}

enum agent_event agent_event_kind(const struct agent_dialect *d, const char *event)
{
	for (const struct agent_hook_event *e = d->events; e->event; e++)
		if (!strcmp(e->event, event))
			return e->kind;
	return AE_NONE;
}

static int listed(const char *const *list, const char *s)
{
	for (; s && *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

int agent_is_agent_tool(const struct agent_dialect *d, const char *tool)
{
	return listed(d->agent_tools, tool);
}

int agent_tool_file(const char **path, int *created, const struct agent_dialect *d, const cJSON *payload)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(payload, "tool_input");
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(payload, "tool_response");
	const char *said;

	*path = NULL;
	*created = 0;
	if (!listed(d->write_tools, json_str(payload, "tool_name")))
		return 0;
	if (!(*path = json_str(in, "file_path")) && !(*path = json_str(in, "notebook_path")))
		*path = json_str(in, "absolute_path");
	/* Claude's Write answers {"type": "create"}; Gemini's write_file says so in words */
	if ((said = json_str(resp, "type")))
		*created = !strcmp(said, "create");
	else if ((said = json_str(resp, "llmContent")) || (said = json_str(resp, "returnDisplay")))
		*created = strstr(said, "created") != NULL;
	return *path && **path ? 1 : 0;
}

/* --- usage in transcripts --- */

/*
 * One count of a usage: absent is 0; else a whole number from 0 to
 * AGENT_TOKENS_MAX, or the line is not counted (-1).
 */
static int usage_num(double *out, const cJSON *usage, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(usage, key);

	*out = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || !json_is_int(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > AGENT_TOKENS_MAX)
		return -1;
	*out = v->valuedouble;
	return 0;
}

/*
 * Claude: {"message": {"id", "usage": {...}}}; Gemini: {"id", "type":
 * "gemini", "tokens": {...}}. 1 with the line's usage, 0 when it has
 * none, -1 when a count is not one.
 */
static int line_usage(const char **id, double u[3], const cJSON *line)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(line, "message"), *t;
	double a, b;

	if ((t = cJSON_GetObjectItemCaseSensitive(msg, "usage")) && cJSON_IsObject(t) && json_str(msg, "id")) {
		*id = json_str(msg, "id");
		if (usage_num(&a, t, "input_tokens") < 0 || usage_num(&b, t, "cache_creation_input_tokens") < 0 ||
		    usage_num(&u[1], t, "output_tokens") < 0 || usage_num(&u[2], t, "cache_read_input_tokens") < 0)
			return -1;
		u[0] = a + b;
	} else if ((t = cJSON_GetObjectItemCaseSensitive(line, "tokens")) && cJSON_IsObject(t) && json_str(line, "id")) {
		*id = json_str(line, "id");
		if (usage_num(&a, t, "input") < 0 || usage_num(&u[2], t, "cached") < 0 ||
		    usage_num(&u[1], t, "output") < 0 || usage_num(&b, t, "thoughts") < 0)
			return -1;
		u[0] = a > u[2] ? a - u[2] : 0;
		u[1] += b;
	} else {
		return 0;
	}
	return u[0] <= AGENT_TOKENS_MAX && u[1] <= AGENT_TOKENS_MAX ? 1 : -1;
}

/* Counts a message's usage; -1 (and nothing counted) when a turn's total would pass AGENT_TOKENS_MAX. */
static int count_message(struct agent_usage *u, const char *id, const double v[3])
{
	int again = !strcmp(u->last_id, id);	/* a message seen before: its last usage counts */
	double in = u->input + v[0] - (again ? u->last_input : 0);
	double out = u->output + v[1] - (again ? u->last_output : 0);
	double cached = u->cached + v[2] - (again ? u->last_cached : 0);

	if (in > AGENT_TOKENS_MAX || out > AGENT_TOKENS_MAX || cached > AGENT_TOKENS_MAX)
		return -1;
	if (!again) {
		u->messages++;
		snprintf(u->last_id, sizeof(u->last_id), "%s", id);
	}
	u->input = in;
	u->output = out;
	u->cached = cached;
	u->last_input = v[0];
	u->last_output = v[1];
	u->last_cached = v[2];
	return 0;
}

void agent_usage_scan(struct agent_usage *u, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);
		const char *id;
		double v[3];

		/* only lines that can hold a usage are parsed */
		if (memmem(p, n, "\"usage\"", 7) || memmem(p, n, "\"tokens\"", 8)) {
			cJSON *line = cJSON_ParseWithLength(p, n);

			int r = line ? line_usage(&id, v, line) : 0;

			if (r < 0 || (r > 0 && count_message(u, id, v) < 0))
				u->skipped++;
			cJSON_Delete(line);
		}
		p = stop + 1;
	}
}
