/*
 * helpers.h - building states and applying operations in unit tests.
 */
#ifndef GIT_SESSION_TEST_HELPERS_H
#define GIT_SESSION_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

static struct state_limits test_limits = STATE_LIMITS_INIT;

/* Applies operation id with args (JSON text) at a time. */
static inline int apply_at(cJSON *st, enum op_id id, const char *args, const char *at,
			   char **subject, char **err)
{
	struct state_op *op = op_new(id, at);
	cJSON *a = NULL;
	char *perr = NULL;
	int error;

	if (args) {
		if (json_parse(&a, args, strlen(args), 1 << 20, &perr) < 0)
			fail_msg("bad test JSON %s: %s", args, perr);
		json_set(op->json, "args", a);
	}
	error = state_apply(st, op, &test_limits, subject, err);
	op_free(op);
	return error;
}

/* Applies and expects success; returns the subject (caller frees). */
static inline char *ok(cJSON *st, enum op_id id, const char *args)
{
	char *subject = NULL, *err = NULL;

	if (apply_at(st, id, args, "2025-01-02T03:04:05Z", &subject, &err))
		fail_msg("%s %s: %s", op_info(id)->name, args ? args : "", err);
	return subject;
}

static inline void ok_(cJSON *st, enum op_id id, const char *args)
{
	free(ok(st, id, args));
}

/* Expects a failure whose message contains want, with st unchanged. */
static inline void refused(cJSON *st, enum op_id id, const char *args, const char *want)
{
	char *before = json_print(st, 0, NULL), *after, *subject = NULL, *err = NULL;

	if (!apply_at(st, id, args, "2025-01-02T03:04:05Z", &subject, &err))
		fail_msg("%s %s should have been refused", op_info(id)->name, args ? args : "");
	assert_null(subject);
	if (!err || !strstr(err, want))
		fail_msg("%s: error '%s' does not contain '%s'", op_info(id)->name, err ? err : "(null)", want);
	after = json_print(st, 0, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(err);
}

/* A started session with the given phases ("A", "B", ...). */
static inline cJSON *session_with(const char *phases_json)
{
	cJSON *st = cJSON_CreateObject();
	char *args = xstrfmt("{\"id\": \"s\", \"phases\": %s}", phases_json ? phases_json : "[]");

	ok_(st, OP_SESSION_START, args);
	free(args);
	return st;
}

static inline const char *phase_status(const cJSON *st, int id)
{
	return json_str(state_phase(st, id), "status");
}

#endif
