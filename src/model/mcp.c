/*
 * mcp.c - JSON-RPC 2.0 framing for the Model Context Protocol: what a
 * line may hold, and the lines the server sends. Pure: no I/O.
 */
#include "git-session/json.h"
#include "git-session/mcp.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/* Newest first: an initialize asking for one of these gets it, any other the newest. */
static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" };

const char *mcp_negotiate(const char *requested)
{
	for (size_t i = 0; requested && i < ARRAY_SIZE(versions); i++)
		if (!strcmp(requested, versions[i]))
			return versions[i];
	return versions[0];
}

void mcp_msg_clear(struct mcp_msg *m)
{
	cJSON_Delete(m->root);
	memset(m, 0, sizeof(*m));
}

static char *line_of(cJSON *msg)
{
	char *text = json_print(msg, 0, NULL);

	cJSON_Delete(msg);
	return text;
}

static cJSON *envelope(const cJSON *id)
{
	cJSON *msg = cJSON_CreateObject();

	json_set_str(msg, "jsonrpc", "2.0");
	json_set(msg, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	return msg;
}

char *mcp_response(const cJSON *id, cJSON *result)
{
	cJSON *msg = envelope(id);

	json_set(msg, "result", result ? result : cJSON_CreateObject());
	return line_of(msg);
}

char *mcp_error(const cJSON *id, int code, const char *message)
{
	cJSON *msg = envelope(id), *err = json_obj(msg, "error");

	json_set_num(err, "code", code);
	json_set_str(err, "message", message);
	return line_of(msg);
}

char *mcp_notification(const char *method, cJSON *params)
{
	cJSON *msg = cJSON_CreateObject();

	json_set_str(msg, "jsonrpc", "2.0");
	json_set_str(msg, "method", method);
	if (params)
		json_set(msg, "params", params);
	return line_of(msg);
}

/* A request id: a string or a whole number (MCP: never null). */
static int valid_id(const cJSON *id)
{
	return cJSON_IsString(id) || (cJSON_IsNumber(id) && json_is_int(id->valuedouble));
}

int mcp_parse(struct mcp_msg *out, const char *line, size_t len, char **reply)
{
	const cJSON *v, *id, *method, *params;
	char *err = NULL;

	memset(out, 0, sizeof(*out));
	*reply = NULL;
	if (json_parse(&out->root, line, len, MCP_MESSAGE_MAX, &err) < 0) {
		char *why = xstrfmt("parse error: %s", err);

		*reply = mcp_error(NULL, MCP_PARSE_ERROR, why);
		free(why);
		free(err);
		return MCP_PARSE_ERROR;
	}
	v = out->root;
	id = cJSON_GetObjectItemCaseSensitive(v, "id");
	method = cJSON_GetObjectItemCaseSensitive(v, "method");
	params = cJSON_GetObjectItemCaseSensitive(v, "params");
	if (!cJSON_IsObject(v) || strcmp(json_str(v, "jsonrpc") ? json_str(v, "jsonrpc") : "", "2.0") ||
	    (id && !valid_id(id)) || (method && !cJSON_IsString(method)) ||
	    (!method && !cJSON_GetObjectItemCaseSensitive(v, "result") &&
	     !cJSON_GetObjectItemCaseSensitive(v, "error"))) {
		*reply = mcp_error(id && valid_id(id) ? id : NULL, MCP_INVALID_REQUEST,
				   cJSON_IsArray(v) ? "invalid request: batches are not part of MCP"
						    : "invalid request: not a JSON-RPC 2.0 message");
		mcp_msg_clear(out);
		return MCP_INVALID_REQUEST;
	}
	if (method && params && !cJSON_IsObject(params)) {
		*reply = id ? mcp_error(id, MCP_INVALID_PARAMS, "invalid params: params must be an object") : NULL;
		mcp_msg_clear(out);
		return MCP_INVALID_PARAMS;
	}
	out->id = method ? id : NULL;
	out->method = method ? method->valuestring : NULL;
	out->params = params;
	return 0;
}

cJSON *mcp_prompts_list(void)
{
	cJSON *r = cJSON_CreateObject(), *p = cJSON_CreateObject(), *arg = cJSON_CreateObject();

	json_set_str(p, "name", MCP_BRIEF_PROMPT);
	json_set_str(p, "title", "Session brief");
	json_set_str(p, "description", "Where a git-session session stands, for an agent that picks it up: its goal, "
		     "status and next step, context summary, last prompts and reply, failures not resolved, open "
		     "tasks, decisions and files; redacted, at most about 1,500 tokens");
	json_set_str(arg, "name", "session");
	json_set_str(arg, "description", "the session's id; this worktree's active session when not given");
	json_set_bool(arg, "required", 0);
	cJSON_AddItemToArray(json_arr(p, "arguments"), arg);
	cJSON_AddItemToArray(json_arr(r, "prompts"), p);
	return r;
}

cJSON *mcp_prompt_result(const char *session, const char *text)
{
	cJSON *r = cJSON_CreateObject(), *m = cJSON_CreateObject(), *c = json_obj(m, "content");
	char *what = xstrfmt("The brief of git-session session %s", session);

	json_set_str(r, "description", what);
	json_set_str(m, "role", "user");
	json_set_str(c, "type", "text");
	json_set_str(c, "text", text);
	cJSON_AddItemToArray(json_arr(r, "messages"), m);
	free(what);
	return r;
}
