/*
 * mcp.h - the Model Context Protocol, as `git session mcp` speaks it:
 * JSON-RPC 2.0 messages, one per line (mcp.c), and the tools, each one
 * of the commands (mcp_tools.c). Pure: no I/O; cmd_mcp.c does the
 * reading, writing and running.
 */
#ifndef GIT_SESSION_MCP_H
#define GIT_SESSION_MCP_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "git-session/strlist.h"
#include "git-session/util.h"

#define MCP_SERVER_VERSION GIT_SESSION_VERSION
#define MCP_MESSAGE_MAX (8u * 1024 * 1024)	/* one line; longer ones are refused */

/* JSON-RPC's error codes, and MCP's for an unknown resource. */
enum {
	MCP_PARSE_ERROR = -32700,
	MCP_INVALID_REQUEST = -32600,
	MCP_METHOD_NOT_FOUND = -32601,
	MCP_INVALID_PARAMS = -32602,
	MCP_INTERNAL_ERROR = -32603,
	MCP_RESOURCE_NOT_FOUND = -32002,
};

/* One message read. A request has id and method; a notification method only. */
struct mcp_msg {
	cJSON *root;		/* owns what the pointers below point into */
	const cJSON *id;	/* NULL for a notification or a response */
	const char *method;	/* NULL for a response */
	const cJSON *params;	/* an object, or NULL */
};

/*
 * Parses one line into *out. A line that is not a JSON-RPC 2.0 message
 * gives a negative code and, in *reply, the error response to send
 * (NULL when there is no one to answer); the caller frees it.
 */
int mcp_parse(struct mcp_msg *out, const char *line, size_t len, char **reply);
void mcp_msg_clear(struct mcp_msg *m);

/* Lines to send, without the newline; the caller frees them. result is taken. */
char *mcp_response(const cJSON *id, cJSON *result);
char *mcp_error(const cJSON *id, int code, const char *message);
char *mcp_notification(const char *method, cJSON *params);

/*
 * The prompts the server offers: MCP_BRIEF_PROMPT, a session's brief
 * (report_brief) as a user message, for the session its optional
 * argument "session" names, else the active one. mcp_prompts_list is
 * prompts/list's result; mcp_prompt_result prompts/get's, text taken as
 * the message.
 */
#define MCP_BRIEF_PROMPT "session-brief"
cJSON *mcp_prompts_list(void);
cJSON *mcp_prompt_result(const char *session, const char *text);

/* The protocol revision to answer an initialize that asks for requested (which may be NULL). */
const char *mcp_negotiate(const char *requested);

/* What a tool's result is made of. */
enum mcp_output {
	MCP_OUT_CHANGE,		/* a write: {session, checkpoint, subject, output} */
	MCP_OUT_OBJECT,		/* the command's --json object, as it is */
	MCP_OUT_LIST,		/* the command's --json array, as {sessions: [...]} */
};

/* One argument of a tool; type is string, integer, boolean, string[] or integer[]. */
struct mcp_arg {
	const char *name;
	const char *type;
	int required;
	const char *choices;	/* "a|b|c", or NULL */
	const char *description;
};

struct mcp_tool {
	const char *name;
	const char *title;
	const char *description;
	const struct mcp_arg *args;	/* ends with a NULL name */
	const char *argv;		/* the command line, a template (mcp_tools.c) */
	enum mcp_output output;
	int read_only;
};

const struct mcp_tool *mcp_tools(size_t *n);
const struct mcp_tool *mcp_tool_find(const char *name);
/* The tool as tools/list shows it; the caller frees it. */
cJSON *mcp_tool_describe(const struct mcp_tool *t);
/*
 * The git session command line that performs the tool with args: the
 * template filled in, each word the caller's (mcp_argv_clear). Refuses
 * missing and mistyped arguments, and arguments the tool does not take,
 * with *err (caller frees).
 */
int mcp_tool_argv(struct strlist *out, const struct mcp_tool *t, const cJSON *args, char **err);
void mcp_argv_clear(struct strlist *argv);

#endif
