/*
 * mcp_tools.c - the tools `git session mcp` offers. Each is one command
 * line of git session, written as a template that the arguments fill in,
 * so that a tool call is exactly what the shell does. Pure: no I/O.
 *
 * Template words, separated by spaces:
 *   word          itself
 *   {k} {k?}      the value of k (required, optional)
 *   {k*}          each element of the list k
 *   --o={k?}      the option with k's value, --o={k*} once per element
 *   --o{k!}       the flag when k is true
 */
#include "git-session/json.h"
#include "git-session/mcp.h"
#include "git-session/schema.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define END { NULL, NULL, 0, NULL, NULL }
#define ERROR_TYPES GS_WORDS_PIPE(GS_ERROR_TYPES)

static const struct mcp_arg start_args[] = {
	{ "topic", "string", 0, NULL, "What the session is about; the id is made from it unless id is given" },
	{ "id", "string", 0, NULL, "The session id (letters, digits, '.', '_', '-')" },
	{ "goal", "string", 0, NULL, "What the session is to achieve" },
	{ "phases", "string[]", 0, NULL, "Names of the phases of the plan, in order" },
	{ "plans", "string[]", 0, NULL, "Paths of design or implementation documents; their blobs are recorded" },
	{ "budget", "integer", 0, NULL, "Token budget (default: session.budget, else none)" },
	{ "pause_current", "boolean", 0, NULL, "Pause the session in progress in this worktree first" },
	END,
};
static const struct mcp_arg id_arg[] = {
	{ "id", "string", 0, NULL, "A session id; default: the active session" },
	END,
};
static const struct mcp_arg budget_args[] = {
	{ "tokens", "integer", 1, NULL, "The session's new token budget" },
	END,
};
static const struct mcp_arg resume_args[] = {
	{ "id", "string", 0, NULL, "A session id; default: the active session" },
	{ "dry_run", "boolean", 0, NULL, "Only report: do not make it active or un-pause it" },
	END,
};
static const struct mcp_arg list_args[] = {
	{ "all", "boolean", 0, NULL, "Include archived sessions" },
	END,
};
static const struct mcp_arg switch_args[] = {
	{ "id", "string", 1, NULL, "The session to make active" },
	END,
};
static const struct mcp_arg no_args[] = { END };
static const struct mcp_arg close_args[] = {
	{ "abort", "boolean", 0, NULL, "Mark it aborted rather than completed" },
	END,
};
static const struct mcp_arg show_args[] = {
	{ "revision", "string", 0, NULL,
	  "A checkpoint: a session id, <id>~2, a commit id; default: the active session's latest" },
	END,
};
static const struct mcp_arg diff_args[] = {
	{ "from", "string", 1, NULL, "The older checkpoint (a session id, <id>~3, a commit id)" },
	{ "to", "string", 0, NULL, "The newer checkpoint; default: the active session's latest" },
	END,
};
static const struct mcp_arg phase_add_args[] = {
	{ "names", "string[]", 1, NULL, "Names of the phases to add, in order" },
	{ "parallel", "boolean", 0, NULL, "The phases may run at the same time" },
	{ "blocked_by", "integer[]", 0, NULL, "Numbers of the phases these wait for" },
	END,
};
static const struct mcp_arg phase_args[] = {
	{ "phase", "integer", 1, NULL, "The phase's number (from 1)" },
	{ "action", "string", 1, "start|complete|fail|skip|retry|step",
	  "start: pending to in_progress; complete: in_progress to completed; fail: in_progress to failed "
	  "(needs error); skip: pending to skipped; retry: failed to in_progress; step: record the sub-step" },
	{ "context", "string", 0, NULL, "With complete: what the next phases need to know" },
	{ "error", "string", 0, NULL, "With fail: what went wrong" },
	{ "error_type", "string", 0, ERROR_TYPES, "With fail: the kind of error" },
	{ "sub_step", "string", 0, NULL, "With step: the sub-step now under way" },
	END,
};
static const struct mcp_arg agent_args[] = {
	{ "agent", "string", 1, NULL, "The agent's id" },
	{ "action", "string", 1, "start|progress|done|fail",
	  "start (needs type and task), progress (needs percent), done, fail (needs error)" },
	{ "type", "string", 0, NULL, "With start: the kind of agent (coder, tester, ...)" },
	{ "task", "string", 0, NULL, "With start: what it is to do" },
	{ "phase", "integer", 0, NULL, "With start: its phase; default: the current one" },
	{ "percent", "integer", 0, NULL, "With progress: 0 to 100" },
	{ "summary", "string", 0, NULL, "With done: the result" },
	{ "error", "string", 0, NULL, "With fail: what went wrong" },
	{ "error_type", "string", 0, ERROR_TYPES, "With fail: the kind of error" },
	END,
};
static const struct mcp_arg file_args[] = {
	{ "status", "string", 1, "created|modified|deleted", "What happened to the files" },
	{ "paths", "string[]", 1, NULL, "The files, relative to the repository's working tree; their blobs are recorded" },
	{ "agent", "string", 0, NULL, "The agent that changed them" },
	{ "phase", "integer", 0, NULL, "The phase; default: the agent's or the current one" },
	END,
};
static const struct mcp_arg tokens_args[] = {
	{ "agent", "string", 1, NULL, "The agent that used them" },
	{ "input", "integer", 1, NULL, "Input tokens" },
	{ "output", "integer", 1, NULL, "Output tokens" },
	{ "cached", "integer", 0, NULL, "Input tokens served from a cache" },
	{ "isolated", "boolean", 0, NULL, "Used in the agent's own context, not the session's" },
	END,
};
static const struct mcp_arg error_args[] = {
	{ "action", "string", 1, "add|resolve", "add: record an error (needs type and message); resolve: mark error number resolved" },
	{ "type", "string", 0, ERROR_TYPES, "With add: the kind of error" },
	{ "message", "string", 0, NULL, "With add: what went wrong" },
	{ "agent", "string", 0, NULL, "With add: the agent it happened to" },
	{ "phase", "integer", 0, NULL, "With add: the phase it happened in" },
	{ "number", "integer", 0, NULL, "With resolve: the error's number (from 1)" },
	{ "resolution", "string", 0, NULL, "With resolve: how it was resolved" },
	END,
};
static const struct mcp_arg decide_args[] = {
	{ "decision", "string", 1, NULL, "What was decided" },
	{ "rationale", "string", 0, NULL, "Why" },
	{ "agent", "string", 0, NULL, "The agent that decided" },
	END,
};
static const struct mcp_arg task_args[] = {
	{ "action", "string", 1, "add|done", "add a task (needs title), or mark task number done" },
	{ "title", "string", 0, NULL, "With add: the task" },
	{ "number", "integer", 0, NULL, "With done: the task's number (from 1)" },
	END,
};
static const struct mcp_arg milestone_args[] = {
	{ "action", "string", 1, "add|done", "add a milestone, or mark it reached" },
	{ "name", "string", 1, NULL, "The milestone" },
	END,
};
static const struct mcp_arg artifact_args[] = {
	{ "path", "string", 1, NULL, "The artifact's path, relative to the repository's working tree" },
	{ "agent", "string", 0, NULL, "The agent that produced it" },
	{ "phase", "integer", 0, NULL, "The phase it belongs to" },
	END,
};
static const struct mcp_arg note_args[] = {
	{ "text", "string", 1, NULL, "The note" },
	{ "agent", "string", 0, NULL, "The agent it comes from" },
	END,
};
static const struct mcp_arg summary_args[] = {
	{ "text", "string", 1, NULL, "What to remember when the session is resumed" },
	END,
};
static const struct mcp_arg checkpoint_args[] = {
	{ "paths", "string[]", 0, NULL, "Files to record; default: every file of the manifest again" },
	{ "message", "string", 0, NULL, "What this checkpoint is" },
	END,
};
static const struct mcp_arg restore_args[] = {
	{ "revision", "string", 1, NULL,
	  "The checkpoint to restore from: <id>~2, SESSION_HEAD~1, a commit id" },
	{ "paths", "string[]", 0, NULL, "Files or folders of its manifest to restore; default: all of it" },
	{ "dry_run", "boolean", 0, NULL, "Only say what would change" },
	{ "force", "boolean", 0, NULL, "Overwrite changes the session never recorded (checkpointed first all the same)" },
	{ "staged", "boolean", 0, NULL, "Update the index too" },
	END,
};

static const struct mcp_tool tools[] = {
	{ "session_start", "Start a session",
	  "Start a new session and make it the active one of this worktree. Fails if another session is in "
	  "progress here, unless pause_current.",
	  start_args, "start --id={id?} --goal={goal?} --plan={plans*} --phase={phases*} --budget={budget?} "
	  "--pause-current{pause_current!} -- {topic?}", MCP_OUT_CHANGE, 0 },
	{ "session_status", "Session status",
	  "Read a session's state: status, phases, agents, files, unresolved errors, tokens. Changes nothing.",
	  id_arg, "status --json -- {id?}", MCP_OUT_OBJECT, 1 },
	{ "session_resume", "Resume a session",
	  "Compare a session's recorded files with the working tree (conflicts, files changed or missing "
	  "since), and make it active and in progress again unless dry_run.",
	  resume_args, "resume --json --dry-run{dry_run!} -- {id?}", MCP_OUT_OBJECT, 0 },
	{ "session_list", "List sessions", "List the sessions of this repository. Changes nothing.",
	  list_args, "list --json --all{all!}", MCP_OUT_LIST, 1 },
	{ "session_switch", "Switch session", "Make another session the active one of this worktree.",
	  switch_args, "switch -- {id}", MCP_OUT_CHANGE, 0 },
	{ "session_pause", "Pause the session", "Pause the active session; writes are refused until it is resumed.",
	  no_args, "pause", MCP_OUT_CHANGE, 0 },
	{ "session_close", "Close the session", "Mark the active session completed (or aborted).",
	  close_args, "close --abort{abort!}", MCP_OUT_CHANGE, 0 },
	{ "session_reopen", "Reopen a session",
	  "Put a completed or aborted session back in progress, to go on with it; it becomes the active one "
	  "here unless another is in progress here.",
	  id_arg, "reopen -- {id?}", MCP_OUT_CHANGE, 0 },
	{ "session_show", "Show a checkpoint", "Read the whole state at any checkpoint of any session. Changes nothing.",
	  show_args, "show --json -- {revision?}", MCP_OUT_OBJECT, 1 },
	{ "session_diff", "Diff two checkpoints", "What changed between two checkpoints. Changes nothing.",
	  diff_args, "diff --json -- {from} {to?}", MCP_OUT_OBJECT, 1 },
	{ "phase_add", "Add phases", "Add phases to the active session's plan.",
	  phase_add_args, "phase add --parallel{parallel!} --blocked-by={blocked_by*} -- {names*}", MCP_OUT_CHANGE, 0 },
	{ "phase_update", "Move a phase",
	  "Move a phase of the active session: start, complete, fail, skip, retry, or record its sub-step. "
	  "Illegal moves are refused with the allowed ones named.",
	  phase_args, "phase {action} --context={context?} --error={error?} --type={error_type?} -- {phase} {sub_step?}",
	  MCP_OUT_CHANGE, 0 },
	{ "agent_update", "Record an agent",
	  "Record an agent's start, progress, result or failure in the active session.",
	  agent_args, "agent {action} --type={type?} --task={task?} --phase={phase?} --summary={summary?} "
	  "--error={error?} --type={error_type?} -- {agent} {percent?}", MCP_OUT_CHANGE, 0 },
	{ "file_record", "Record files",
	  "Record files created, modified or deleted in the active session, with their current blobs.",
	  file_args, "file {status} --agent={agent?} --phase={phase?} -- {paths*}", MCP_OUT_CHANGE, 0 },
	{ "tokens_add", "Record token use", "Add an agent's token use to the active session's budget.",
	  tokens_args, "tokens add --agent={agent} --input={input} --output={output} --cached={cached?} "
	  "--isolated{isolated!}", MCP_OUT_CHANGE, 0 },
	{ "tokens_budget", "Set the token budget", "Set the active session's token budget.",
	  budget_args, "tokens budget -- {tokens}", MCP_OUT_CHANGE, 0 },
	{ "tokens_report", "Token report", "Read a session's token use against its budget, by agent. Changes nothing.",
	  id_arg, "tokens --json -- {id?}", MCP_OUT_OBJECT, 1 },
	{ "error_record", "Record an error", "Record an error in the active session, or mark one resolved.",
	  error_args, "error {action} --type={type?} --message={message?} --agent={agent?} --phase={phase?} "
	  "--resolution={resolution?} -- {number?}", MCP_OUT_CHANGE, 0 },
	{ "decision_record", "Record a decision", "Record a decision and its rationale in the active session.",
	  decide_args, "decide --rationale={rationale?} --agent={agent?} -- {decision}", MCP_OUT_CHANGE, 0 },
	{ "task_update", "Add or finish a task", "Add a task to the active session, or mark one done.",
	  task_args, "task {action} -- {title?} {number?}", MCP_OUT_CHANGE, 0 },
	{ "milestone_update", "Add or reach a milestone", "Add a milestone to the active session, or mark one reached.",
	  milestone_args, "milestone {action} -- {name}", MCP_OUT_CHANGE, 0 },
	{ "artifact_record", "Record an artifact", "Record an artifact the work produced in the active session.",
	  artifact_args, "artifact --agent={agent?} --phase={phase?} -- {path}", MCP_OUT_CHANGE, 0 },
	{ "note_add", "Add a note", "Add a note to the active session.",
	  note_args, "note --agent={agent?} -- {text}", MCP_OUT_CHANGE, 0 },
	{ "summary_set", "Set the summary", "Set the active session's context summary: what to remember on resume.",
	  summary_args, "summary -- {text}", MCP_OUT_CHANGE, 0 },
	{ "checkpoint", "Take a checkpoint",
	  "Record files (their blobs) and take a checkpoint of the active session.",
	  checkpoint_args, "checkpoint --message={message?} -- {paths*}", MCP_OUT_CHANGE, 0 },
	{ "session_restore", "Restore files",
	  "Put the working tree's files back as a checkpoint recorded them, all checked before anything is written. "
	  "What it changes is checkpointed first ('before': restoring it undoes). Refuses to overwrite changes the "
	  "session never recorded unless force.",
	  restore_args, "restore --json --dry-run{dry_run!} --force{force!} --staged{staged!} --source={revision} -- {paths*}",
	  MCP_OUT_OBJECT, 0 },
};

const struct mcp_tool *mcp_tools(size_t *n)
{
	*n = ARRAY_SIZE(tools);
	return tools;
}

const struct mcp_tool *mcp_tool_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(tools); i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	return NULL;
}

static cJSON *type_schema(const char *type)
{
	cJSON *s = cJSON_CreateObject();
	const char *bracket = strstr(type, "[]");

	if (bracket) {
		char *item = xstrndup(type, (size_t)(bracket - type));

		json_set_str(s, "type", "array");
		json_set_str(json_obj(s, "items"), "type", item);
		free(item);
	} else {
		json_set_str(s, "type", type);
	}
	return s;
}

static cJSON *input_schema(const struct mcp_arg *args)
{
	cJSON *s = cJSON_CreateObject(), *props, *req = cJSON_CreateArray();

	json_set_str(s, "type", "object");
	props = json_obj(s, "properties");
	for (const struct mcp_arg *a = args; a->name; a++) {
		cJSON *p = type_schema(a->type);

		json_set_str(p, "description", a->description);
		if (a->choices) {
			char *words = xstrdup(a->choices), *w, *save = NULL;
			cJSON *e = json_arr(p, "enum");

			for (w = strtok_r(words, "|", &save); w; w = strtok_r(NULL, "|", &save))
				cJSON_AddItemToArray(e, cJSON_CreateString(w));
			free(words);
		}
		if (strstr(a->type, "[]") && a->required)
			json_set_num(p, "minItems", 1);
		json_set(props, a->name, p);
		if (a->required)
			cJSON_AddItemToArray(req, cJSON_CreateString(a->name));
	}
	if (cJSON_GetArraySize(req))
		json_set(s, "required", req);
	else
		cJSON_Delete(req);
	json_set(s, "additionalProperties", cJSON_CreateFalse());
	return s;
}

static cJSON *output_schema(enum mcp_output output)
{
	static const char *const change =
		"{\"type\": \"object\", \"properties\": {"
		"\"session\": {\"type\": \"string\", \"description\": \"the session written to\"},"
		"\"checkpoint\": {\"type\": \"string\", \"description\": \"the checkpoint (a commit id) the call wrote; for one that writes none, the session's latest\"},"
		"\"subject\": {\"type\": \"string\", \"description\": \"what that checkpoint recorded\"},"
		"\"output\": {\"type\": \"string\", \"description\": \"what the command printed\"}},"
		"\"required\": [\"session\", \"checkpoint\", \"subject\", \"output\"]}";
	static const char *const list =
		"{\"type\": \"object\", \"properties\": {\"sessions\": {\"type\": \"array\", \"items\": {"
		"\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}, \"status\": {\"type\": \"string\"},"
		"\"active\": {\"type\": \"boolean\"}, \"checkpoint\": {\"type\": \"string\"}},"
		"\"required\": [\"id\", \"status\", \"active\", \"checkpoint\"]}}}, \"required\": [\"sessions\"]}";
	static const char *const object =
		"{\"type\": \"object\", \"description\": \"the command's --json object, as doc/json.md describes it\"}";
	const char *text = output == MCP_OUT_CHANGE ? change : output == MCP_OUT_LIST ? list : object;

	return cJSON_Parse(text);
}

cJSON *mcp_tool_describe(const struct mcp_tool *t)
{
	cJSON *d = cJSON_CreateObject(), *notes;

	json_set_str(d, "name", t->name);
	json_set_str(d, "title", t->title);
	json_set_str(d, "description", t->description);
	json_set(d, "inputSchema", input_schema(t->args));
	json_set(d, "outputSchema", output_schema(t->output));
	notes = json_obj(d, "annotations");
	json_set_bool(notes, "readOnlyHint", t->read_only);
	json_set_bool(notes, "destructiveHint", 0);
	json_set_bool(notes, "openWorldHint", 0);
	return d;
}

static const struct mcp_arg *arg_of(const struct mcp_tool *t, const char *name)
{
	for (const struct mcp_arg *a = t->args; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

/* One value as a word of the command line, or NULL when it has the wrong type. */
static char *word(const cJSON *v, const char *type)
{
	if (!strncmp(type, "integer", 7))
		return cJSON_IsNumber(v) && json_is_int(v->valuedouble) ? xstrfmt("%.0f", v->valuedouble) : NULL;
	return cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
}

static int value_ok(const struct mcp_arg *a, const cJSON *v)
{
	char *w;
	int ok;

	if (!strcmp(a->type, "boolean"))
		return cJSON_IsBool(v);
	if (strstr(a->type, "[]")) {
		const cJSON *e;

		if (!cJSON_IsArray(v))
			return 0;
		cJSON_ArrayForEach(e, v) {
			if (!(w = word(e, a->type)))
				return 0;
			free(w);
		}
		return 1;
	}
	if (!(w = word(v, a->type)))
		return 0;
	ok = !a->choices;
	for (const char *c = a->choices; c && !ok; c = strchr(c, '|') ? strchr(c, '|') + 1 : NULL)
		ok = !strncmp(c, w, strlen(w)) && (c[strlen(w)] == '|' || !c[strlen(w)]);
	free(w);
	return ok;
}

static const char *type_words(const char *type)
{
	static const char *const words[][2] = {
		{ "string", "a string" }, { "integer", "an integer" }, { "boolean", "true or false" },
		{ "string[]", "a list of strings" }, { "integer[]", "a list of integers" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(type, words[i][0]))
			return words[i][1];
	return type;
}

/* Checks the arguments against the tool's: known, typed, present when required. */
static int check_args(const struct mcp_tool *t, const cJSON *args, char **err)
{
	const struct mcp_arg *a;

	if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		*err = xstrdup("arguments must be an object");
		return GS_ERROR;
	}
	for (const cJSON *v = args ? args->child : NULL; v; v = v->next) {
		if (!(a = arg_of(t, v->string))) {
			*err = xstrfmt("%s takes no argument '%s'", t->name, v->string);
			return GS_ERROR;
		}
		if (!value_ok(a, v)) {
			*err = xstrfmt("argument '%s' must be %s%s%s", a->name, type_words(a->type),
				       a->choices ? ", one of " : "", a->choices ? a->choices : "");
			return GS_ERROR;
		}
	}
	for (a = t->args; a->name; a++)
		if (a->required && !cJSON_GetObjectItemCaseSensitive(args, a->name)) {
			*err = xstrfmt("%s needs the argument '%s'", t->name, a->name);
			return GS_ERROR;
		}
	return 0;
}

/* Fills in one template word. */
static void expand(struct strlist *out, const char *tw, const struct mcp_tool *t, const cJSON *args)
{
	const char *open = strchr(tw, '{');
	size_t keylen;
	char *key, mark;
	const cJSON *v;

	if (!open) {
		strlist_push(out, xstrdup(tw));
		return;
	}
	keylen = strcspn(open + 1, "?*!}");
	mark = open[1 + keylen];
	key = xstrndup(open + 1, keylen);
	v = cJSON_GetObjectItemCaseSensitive(args, key);
	if (mark == '!') {
		if (cJSON_IsTrue(v))
			strlist_push(out, xstrndup(tw, (size_t)(open - tw)));
	} else if (v) {
		const struct mcp_arg *a = arg_of(t, key);
		const cJSON *e = mark == '*' ? v->child : v;

		for (; e; e = mark == '*' ? e->next : NULL) {
			char *w = word(e, a->type), *full = xstrfmt("%.*s%s", (int)(open - tw), tw, w);

			strlist_push(out, full);
			free(w);
		}
	}
	free(key);
}

void mcp_argv_clear(struct strlist *argv)
{
	for (size_t i = 0; i < argv->n; i++)
		free((char *)argv->v[i]);
	strlist_clear(argv);
}

int mcp_tool_argv(struct strlist *out, const struct mcp_tool *t, const cJSON *args, char **err)
{
	char *tmpl, *tw, *save = NULL;

	*err = NULL;
	if (check_args(t, args, err) < 0)
		return GS_ERROR;
	tmpl = xstrdup(t->argv);
	for (tw = strtok_r(tmpl, " ", &save); tw; tw = strtok_r(NULL, " ", &save))
		expand(out, tw, t, args);
	free(tmpl);
	return 0;
}
