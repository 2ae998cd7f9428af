/*
 * fuzz_session_json.c - whatever bytes session.json holds: skim its top
 * as list does, parse, check, apply operations to what loads, build every
 * report, print, parse again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/json.h"
#include "git-session/report.h"
#include "git-session/state.h"

static void apply(cJSON *st, enum op_id id, const char *args)
{
	struct state_op *op = op_new(id, "2025-01-01T00:00:00Z");
	cJSON *a = NULL;
	char *subject = NULL, *err = NULL;

	if (json_parse(&a, args, strlen(args), 1 << 20, &err) == 0)
		json_set(op->json, "args", a);
	free(err);
	err = NULL;
	state_apply(st, op, NULL, &subject, &err);
	free(subject);
	free(err);
	op_free(op);
}

/* What a checkpoint stores, split into session.json and state/, must load back the same. */
static void split_round_trip(const cJSON *st, const char *whole)
{
	struct state_loaded loaded;
	struct gs_part *parts = NULL;
	cJSON *back = NULL;
	char *core = NULL, *err = NULL, *text;
	size_t len, n;

	if (state_split(&core, &len, &parts, &n, st, NULL, NULL, 0) < 0 ||
	    state_load(&back, &loaded, core, len, STATE_ALL, 0, NULL, parts, n, &err) < 0)
		abort();
	text = json_print(back, 1, NULL);
	if (strcmp(text, whole))
		abort();
	free(text);
	free(core);
	free(err);
	gs_parts_free(parts, n);
	cJSON_Delete(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_ctx ctx = { "0000000000000000000000000000000000000000", 1, 1735689600, 2 };
	cJSON *raw = NULL, *st = NULL, *again = NULL, *r;
	char *err = NULL, *text;
	static const char *const keys[] = { "status", "topic", "created", "updated" };
	char *top[4];
	size_t len;

	/* list's skim: any bytes, never a read past them; what it finds it owns */
	json_scan_top(top, (const char *)data, size, keys, 4);
	for (int i = 0; i < 4; i++)
		free(top[i]);
	if (json_parse(&raw, (const char *)data, size, 1 << 20, &err) < 0 ||
	    state_normalize(&st, raw, &err) < 0) {
		free(err);
		return 0;
	}
	apply(st, OP_NOTE, "{\"text\": \"fuzz\"}");
	apply(st, OP_PHASE_ADD, "{\"names\": [\"P\"]}");
	apply(st, OP_PHASE_START, "{\"phase\": 1}");
	apply(st, OP_AGENT_START, "{\"agent\": \"a\", \"type\": \"t\", \"task\": \"t\"}");
	apply(st, OP_TOKENS_ADD, "{\"agent\": \"a\", \"input\": 1, \"output\": 2}");
	apply(st, OP_CHECKPOINT, "{\"files\": {\"x\": {\"status\": \"deleted\"}}}");
	apply(st, OP_SESSION_CLOSE, "{}");
	cJSON_Delete(report_status(st, &ctx));
	cJSON_Delete(report_tokens(st));
	cJSON_Delete(report_diff(st, st, "a", "b"));
	r = report_resume(st, cJSON_GetObjectItem(st, "files"), cJSON_GetObjectItem(st, "project"),
			  cJSON_GetObjectItem(st, "plans"), &ctx);
	cJSON_Delete(r);
	text = json_print(st, 1, &len);
	if (json_parse(&again, text, len, 1 << 24, &err) < 0)
		abort();	/* what we print, we must read back */
	cJSON_Delete(again);
	split_round_trip(st, text);
	free(text);
	cJSON_Delete(st);
	return 0;
}
