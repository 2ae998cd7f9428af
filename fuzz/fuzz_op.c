/*
 * fuzz_op.c - any operation, applied to a session with phases, agents,
 * errors and files: apply() must refuse cleanly or leave a state that
 * prints and reads back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/json.h"
#include "git-session/state.h"

static void must(cJSON *st, enum op_id id, const char *args)
{
	struct state_op *op = op_new(id, "2025-01-01T00:00:00Z");
	cJSON *a = NULL;
	char *subject = NULL, *err = NULL;

	if (json_parse(&a, args, strlen(args), 1 << 20, &err) < 0)
		abort();
	json_set(op->json, "args", a);
	if (state_apply(st, op, NULL, &subject, &err) < 0)
		abort();
	free(subject);
	op_free(op);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *st = cJSON_CreateObject(), *json = NULL, *again = NULL;
	struct state_op op;
	char *subject = NULL, *err = NULL, *before, *after;
	size_t len;

	must(st, OP_SESSION_START, "{\"id\": \"s\", \"phases\": [\"A\", \"B\"]}");
	must(st, OP_PHASE_START, "{\"phase\": 1}");
	must(st, OP_AGENT_START, "{\"agent\": \"a1\", \"type\": \"code\", \"task\": \"t\"}");
	must(st, OP_ERROR_ADD, "{\"type\": \"runtime\", \"message\": \"m\", \"phase\": 1}");
	must(st, OP_CHECKPOINT, "{\"files\": {\"f\": {\"status\": \"created\", \"oid\": \"0123456789012345678901234567890123456789\"}}}");
	before = json_print(st, 0, NULL);
	if (json_parse(&json, (const char *)data, size, 1 << 20, &err) < 0) {
		free(err);
		err = NULL;
	} else {
		op_parse(&op, json);	/* an unknown name too: state_apply refuses it */
		if (state_apply(st, &op, NULL, &subject, &err) < 0) {
			free(err);
			err = NULL;
			after = json_print(st, 0, NULL);
			if (strcmp(before, after))
				abort();	/* a refused operation changes nothing */
			free(after);
		}
	}
	after = json_print(st, 1, &len);
	/* what the engine would write reads back (it refuses to write a state nested too deep) */
	if (!json_depth_over(st, JSON_MAX_DEPTH) && json_parse(&again, after, len, 1 << 24, &err) < 0)
		abort();
	free(err);
	free(subject);
	free(before);
	free(after);
	cJSON_Delete(again);
	cJSON_Delete(json);
	cJSON_Delete(st);
	return 0;
}
