/*
 * fuzz_transcript.c - any transcript part, as each agent's hook reads it:
 * the usage scan never fails and counts only what a turn may record,
 * whole numbers from 0 to AGENT_TOKENS_MAX, each message once; read as a
 * conversation, every item is bounded valid UTF-8; the lines a stored
 * part keeps are lines of the input; an apply_patch patch names at most
 * AGENT_PATCH_FILES_MAX paths, each text of the input; the agent's own
 * session file rebuilt from it is valid UTF-8, a line of it for each
 * line read, or refused with a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "git-session/agent.h"
#include "git-session/agent_rebuild.h"
#include "git-session/json.h"
#include "git-session/transcript.h"
#include "git-session/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct agent_usage *u)
{
	const double v[] = { u->input, u->output, u->cached, u->last_input, u->last_output, u->last_cached };

	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++)
		if (!json_is_int(v[i]) || v[i] > AGENT_TOKENS_MAX)
			abort();
	if (u->input < 0 || u->output < 0 || u->cached < 0 || u->messages < 0 || u->skipped < 0)
		abort();
}

static void scan(const struct agent_dialect *d, const uint8_t *data, size_t size)
{
	struct agent_usage u = { 0 }, half = { 0 };
	size_t cut = size / 2;

	agent_usage_scan(&u, d, (const char *)data, size);
	check(&u);
	/* in two turns, as two Stops read it: the second carries the first's last message */
	agent_usage_scan(&half, d, (const char *)data, cut);
	check(&half);
	half.input = half.output = half.cached = 0;
	agent_usage_scan(&half, d, (const char *)data + cut, size - cut);
	if (half.input > AGENT_TOKENS_MAX || half.output > AGENT_TOKENS_MAX || half.cached > AGENT_TOKENS_MAX)
		abort();
}

static void converse(const struct agent_dialect *d, const uint8_t *data, size_t size)
{
	struct transcript t;
	char *kept = NULL;
	size_t n;

	transcript_init(&t, d);
	transcript_read(&t, (const char *)data, size);
	for (size_t i = 0; i < t.n; i++) {
		size_t len = strlen(t.items[i].text);

		if (len > TRANSCRIPT_TEXT_MAX + 3 || !gs_utf8_valid(t.items[i].text, len) || t.items[i].turn > t.turn)
			abort();
	}
	transcript_clear(&t);
	transcript_filter(&kept, &n, d, (const char *)data, size);
	if (kept ? n > size : n != size)
		abort();
	free(kept);
}

static void patch(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct agent_patch_file *v;
	size_t n;

	if (agent_patch_files(&v, &n, text) == 0) {
		if (n > AGENT_PATCH_FILES_MAX)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!*v[i].path || !strstr(text, v[i].path))
				abort();
		agent_patch_files_free(v, n);
	} else if (v || n) {
		abort();
	}
	free(text);
}

static void rebuild(const struct agent_dialect *d, const uint8_t *data, size_t size)
{
	static const char *const roots[] = { "/home/a/p", "/", NULL };
	struct agent_rebuild rb = { .session = "s", .from_roots = roots, .to_root = "/c", .cwd = "/c/d" };
	char *err = NULL, **cwds = NULL;
	size_t n = 0, lines = 0;

	if (!d->rebuilder || !d->rebuilder->rebuild)
		return;
	if (d->rebuilder->rebuild(&rb, &err, (const char *)data, size) < 0) {
		if (!err || rb.text)
			abort();
	} else {
		for (size_t i = 0; i < rb.len; i++)
			lines += rb.text[i] == '\n';
		if (err || lines != rb.lines || !gs_utf8_valid(rb.text, rb.len))
			abort();
	}
	if (d->rebuilder->cwds)
		d->rebuilder->cwds(&cwds, &n, (const char *)data, size);
	for (size_t i = 0; i < n; i++)
		free(cwds[i]);
	free(cwds);
	free(err);
	free(rb.text);
	free(rb.started);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	patch(data, size);
	for (size_t i = 0; agent_dialects[i]; i++) {
		scan(agent_dialects[i], data, size);
		converse(agent_dialects[i], data, size);
		rebuild(agent_dialects[i], data, size);
	}
	return 0;
}
