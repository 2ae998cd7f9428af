/*
 * fuzz_mcp.c - whatever bytes a client sends as one line: the JSON-RPC
 * framing, and, for a tools/call, the command line its arguments make.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/json.h"
#include "git-session/mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A refusal's answer is a JSON-RPC error, itself readable. */
static void check_reply(const char *reply)
{
	cJSON *r = NULL;
	char *err = NULL;

	if (json_parse(&r, reply, strlen(reply), 1 << 20, &err) < 0 ||
	    !cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "error"), "code")))
		abort();
	cJSON_Delete(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_msg m;
	struct strlist argv = { 0 };
	char *reply = NULL, *err = NULL;
	const struct mcp_tool *t;

	if (mcp_parse(&m, (const char *)data, size, &reply) < 0) {
		if (reply)
			check_reply(reply);
		free(reply);
		return 0;
	}
	if (m.method && !strcmp(m.method, "tools/call") && (t = mcp_tool_find(json_str(m.params, "name")))) {
		if (mcp_tool_argv(&argv, t, cJSON_GetObjectItemCaseSensitive(m.params, "arguments"), &err) == 0) {
			size_t len = argv.n ? strlen(argv.v[0]) : 0;

			/* the command is the template's, whatever the arguments */
			if (!len || strncmp(t->argv, argv.v[0], len) || t->argv[len] != ' ')
				abort();
		}
		free(err);
		mcp_argv_clear(&argv);
	}
	if (m.method && !strcmp(m.method, "initialize") && !mcp_negotiate(json_str(m.params, "protocolVersion")))
		abort();
	mcp_msg_clear(&m);
	return 0;
}
