/*
 * test_agent_rebuild.c - an agent's own session file rebuilt from its
 * stored transcript: lines relinked over those the filter left out, a
 * message written again passed over, paths moved to this clone (whole
 * paths only), the session id each line says; lines that redaction left
 * unreadable refused; Claude Code's project folder names; Gemini CLI's
 * chat, its header made; session ids safe as file names.
 */
#include "helpers.h"
#include "git-session/agent.h"
#include "git-session/agent_rebuild.h"
#include "git-session/json.h"
#include "git-session/sha256.h"

static const char stored[] =
	"{\"parentUuid\":null,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"fix /home/a/proj/x.c\"},"
	"\"uuid\":\"u1\",\"cwd\":\"/home/a/proj/src\",\"sessionId\":\"old\"}\n"
	/* its parent, an attachment, was not kept */
	"{\"parentUuid\":\"att\",\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":["
	"{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Edit\",\"input\":{\"file_path\":\"/home/a/proj/x.c\","
	"\"old\":\"/home/a/proj-old/y\"}}]},\"uuid\":\"a1\",\"cwd\":\"/home/a/proj/src\",\"sessionId\":\"old\"}\n"
	"\n"
	"{\"parentUuid\":\"a1\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
	"\"tool_use_id\":\"t1\",\"content\":\"edited /home/a/proj/x.c\"}]},\"uuid\":\"u2\",\"cwd\":\"/home/a/proj/src\"}\n"
	/* the same message again (a transcript read from its start again) */
	"{\"parentUuid\":\"a1\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"dup\"},\"uuid\":\"u2\"}\n"
	"{\"type\":\"summary\",\"summary\":\"Fixing x\",\"leafUuid\":\"u2\"}\n";

static cJSON *line_at(const char *text, size_t n)
{
	const char *p = text;
	cJSON *o = NULL;
	char *err = NULL;

	while (n--)
		p = strchr(p, '\n') + 1;
	assert_int_equal(json_parse(&o, p, strcspn(p, "\n"), 1 << 20, &err), 0);
	return o;
}

static void test_claude(void **state)
{
	const struct agent_dialect *d = agent_dialect("claude-code");
	static const char *const roots[] = { "/home/a/proj", NULL };
	struct agent_rebuild rb = { .session = "s-1", .from_roots = roots, .to_root = "/srv/b/clone" };
	char *err = NULL, **cwds;
	size_t n;
	cJSON *o;

	(void)state;
	d->rebuilder->cwds(&cwds, &n, stored, strlen(stored));
	assert_int_equal(n, 1);
	assert_string_equal(cwds[0], "/home/a/proj/src");
	free(cwds[0]);
	free(cwds);
	assert_int_equal(d->rebuilder->rebuild(&rb, &err, stored, strlen(stored)), 0);
	assert_null(err);
	assert_int_equal(rb.lines, 4);
	assert_int_equal(rb.relinked, 1);
	o = line_at(rb.text, 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "parentUuid")));
	assert_string_equal(json_str(o, "cwd"), "/srv/b/clone/src");
	assert_string_equal(json_str(o, "sessionId"), "s-1");
	/* a prompt's text is the user's words: left as said */
	assert_string_equal(json_str(cJSON_GetObjectItem(o, "message"), "content"), "fix /home/a/proj/x.c");
	cJSON_Delete(o);
	o = line_at(rb.text, 1);
	assert_string_equal(json_str(o, "parentUuid"), "u1");
	assert_non_null(strstr(rb.text, "\"file_path\":\"/srv/b/clone/x.c\""));
	assert_non_null(strstr(rb.text, "\"old\":\"/home/a/proj-old/y\""));
	assert_non_null(strstr(rb.text, "edited /srv/b/clone/x.c"));
	assert_null(strstr(rb.text, "dup"));
	cJSON_Delete(o);
	o = line_at(rb.text, 3);
	assert_string_equal(json_str(o, "type"), "summary");
	cJSON_Delete(o);
	free(rb.text);
}

/* Lines with no uuid, time, folder or session (written by another tool): each made, chained in order. */
static void test_filled(void **state)
{
	static const char bare[] =
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hello\"}}\n"
		"{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{\"role\":\"assistant\","
		"\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n"
		"{\"type\":\"last-prompt\",\"lastPrompt\":\"hello\"}\n"
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"again\"}}\n";
	const struct agent_dialect *d = agent_dialect("claude-code");
	struct agent_rebuild rb = { .session = "s-2", .to_root = "/c", .cwd = "/c/sub" }, again = rb;
	char *err = NULL;
	cJSON *o[3];

	(void)state;
	assert_int_equal(d->rebuilder->rebuild(&rb, &err, bare, strlen(bare)), 0);
	o[0] = line_at(rb.text, 2);	/* the CLI's own record: as it was */
	assert_null(cJSON_GetObjectItem(o[0], "uuid"));
	assert_null(cJSON_GetObjectItem(o[0], "parentUuid"));
	cJSON_Delete(o[0]);
	for (size_t i = 0; i < 3; i++) {
		o[i] = line_at(rb.text, i < 2 ? i : 3);
		assert_int_equal(strlen(json_str(o[i], "uuid")), 36);
		assert_string_equal(json_str(o[i], "cwd"), "/c/sub");
		assert_non_null(json_str(o[i], "timestamp"));
	}
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o[0], "parentUuid")));
	assert_string_equal(json_str(o[1], "parentUuid"), json_str(o[0], "uuid"));
	assert_string_equal(json_str(o[2], "parentUuid"), json_str(o[1], "uuid"));
	assert_string_equal(json_str(o[2], "timestamp"), "2026-01-01T00:00:00Z");
	assert_string_not_equal(json_str(o[0], "uuid"), json_str(o[2], "uuid"));
	/* the same each time */
	assert_int_equal(d->rebuilder->rebuild(&again, &err, bare, strlen(bare)), 0);
	assert_string_equal(rb.text, again.text);
	for (size_t i = 0; i < 3; i++)
		cJSON_Delete(o[i]);
	free(rb.text);
	free(again.text);
}

/* A sub-agent's lines among the conversation's: a line relinked hangs on the last of its own chain. */
static void test_sidechain(void **state)
{
	static const char mixed[] =
		"{\"type\":\"user\",\"uuid\":\"m1\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n"
		"{\"type\":\"user\",\"uuid\":\"s1\",\"parentUuid\":null,\"isSidechain\":true,"
		"\"message\":{\"role\":\"user\",\"content\":\"sub\"}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"m2\",\"parentUuid\":\"gone\",\"message\":{\"role\":\"assistant\","
		"\"content\":[]}}\n"
		"{\"type\":\"assistant\",\"uuid\":\"s2\",\"parentUuid\":\"gone2\",\"isSidechain\":true,"
		"\"message\":{\"role\":\"assistant\",\"content\":[]}}\n";
	const struct agent_dialect *d = agent_dialect("claude-code");
	struct agent_rebuild rb = { .session = "s", .to_root = "/c" };
	char *err = NULL;
	cJSON *o;

	(void)state;
	assert_int_equal(d->rebuilder->rebuild(&rb, &err, mixed, strlen(mixed)), 0);
	assert_int_equal(rb.relinked, 2);
	o = line_at(rb.text, 2);
	assert_string_equal(json_str(o, "parentUuid"), "m1");
	cJSON_Delete(o);
	o = line_at(rb.text, 3);
	assert_string_equal(json_str(o, "parentUuid"), "s1");
	cJSON_Delete(o);
	free(rb.text);
}

/* Carried from Alice to Bob and back: each clone's folders, the latest last; every root moved. */
static void test_carried(void **state)
{
	static const char both[] =
		"{\"type\":\"user\",\"uuid\":\"a\",\"cwd\":\"/home/alice/p\",\"message\":{\"role\":\"user\",\"content\":[]}}\n"
		"{\"type\":\"user\",\"uuid\":\"b\",\"cwd\":\"/home/bob/q/sub\",\"message\":{\"role\":\"user\",\"content\":[]}}\n"
		"{\"type\":\"user\",\"uuid\":\"c\",\"cwd\":\"/home/alice/p\",\"message\":{\"role\":\"user\",\"content\":[]}}\n"
		"{\"type\":\"user\",\"uuid\":\"d\",\"cwd\":\"/home/bob/q/sub\",\"message\":{\"role\":\"user\",\"content\":[]}}\n";
	static const char *const roots[] = { "/home/alice/p", "/home/bob/q", NULL };
	const struct agent_dialect *d = agent_dialect("claude-code");
	struct agent_rebuild rb = { .session = "s", .from_roots = roots, .to_root = "/srv/c" };
	char *err = NULL, **cwds;
	size_t n;

	(void)state;
	d->rebuilder->cwds(&cwds, &n, both, strlen(both));
	assert_int_equal(n, 2);
	assert_string_equal(cwds[0], "/home/alice/p");
	assert_string_equal(cwds[1], "/home/bob/q/sub");
	for (size_t i = 0; i < n; i++)
		free(cwds[i]);
	free(cwds);
	assert_int_equal(d->rebuilder->rebuild(&rb, &err, both, strlen(both)), 0);
	assert_null(strstr(rb.text, "/home/"));
	assert_non_null(strstr(rb.text, "\"cwd\":\"/srv/c/sub\""));
	free(rb.text);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\nnot json [REDACTED]\n",
		"{\"type\":\"user\",\"uuid\":\"u1\",\"message\":\"[REDACTED:token]\"}\n",
		"{\"type\":\"assistant\",\"uuid\":7,\"message\":{\"role\":\"assistant\",\"content\":[]}}\n",
		"{\"type\":\"assistant\",\"message\":{\"content\":[]}}\n",
		"{\"uuid\":\"u1\"}\n",
		"\n\n",
		"",
	};
	const struct agent_dialect *d = agent_dialect("claude-code");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct agent_rebuild rb = { .session = "s", .to_root = "/x" };
		char *err = NULL;

		assert_int_equal(d->rebuilder->rebuild(&rb, &err, bad[i], strlen(bad[i])), GS_ERROR);
		assert_non_null(err);
		assert_null(rb.text);
		free(err);
	}
}

/*
 * Thinking blocks whose signature (or the thinking it seals) redaction
 * changed are left out, a message left with none dropped and the next
 * relinked over it; an intact signature stays.
 */
static void test_unsealed(void **state)
{
	static const char text[] =
		"{\"parentUuid\":null,\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n"
		"{\"parentUuid\":\"u1\",\"type\":\"assistant\",\"uuid\":\"a1\",\"message\":{\"role\":\"assistant\",\"content\":["
		"{\"type\":\"thinking\",\"thinking\":\"hmm\",\"signature\":\"[REDACTED:high-entropy]\"}]}}\n"
		"{\"parentUuid\":\"a1\",\"type\":\"assistant\",\"uuid\":\"a2\",\"message\":{\"role\":\"assistant\",\"content\":["
		"{\"type\":\"redacted_thinking\",\"data\":\"[REDACTED:token]\"},"
		"{\"type\":\"thinking\",\"thinking\":\"key [REDACTED:aws-key] here\",\"signature\":\"RXF1YWw=\"},"
		"{\"type\":\"thinking\",\"thinking\":\"fine\",\"signature\":\"EqoBCkgI+/b=\"},"
		"{\"type\":\"redacted_thinking\",\"data\":\"RW5jcnlwdGVk\"},"
		"{\"type\":\"text\",\"text\":\"done\"}]}}\n"
		"{\"parentUuid\":\"a2\",\"type\":\"assistant\",\"uuid\":\"a3\",\"message\":{\"role\":\"assistant\",\"content\":["
		"{\"type\":\"thinking\",\"thinking\":\"x\",\"signature\":\"ab[REDACTED:high-entropy]cd\"}]}}\n"
		"{\"parentUuid\":\"a3\",\"type\":\"user\",\"uuid\":\"u2\",\"message\":{\"role\":\"user\",\"content\":\"next\"}}\n";
	const struct agent_dialect *d = agent_dialect("claude-code");
	struct agent_rebuild rb = { .session = "s", .to_root = "/x" };
	char *err = NULL;
	cJSON *o, *content;

	(void)state;
	assert_int_equal(d->rebuilder->rebuild(&rb, &err, text, strlen(text)), 0);
	assert_int_equal(rb.unsealed, 4);
	assert_int_equal(rb.lines, 3);
	assert_null(strstr(rb.text, "REDACTED"));
	o = line_at(rb.text, 1);
	assert_string_equal(json_str(o, "uuid"), "a2");
	assert_string_equal(json_str(o, "parentUuid"), "u1");
	content = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "message"), "content");
	assert_int_equal(cJSON_GetArraySize(content), 3);
	assert_string_equal(json_str(cJSON_GetArrayItem(content, 0), "signature"), "EqoBCkgI+/b=");
	assert_string_equal(json_str(cJSON_GetArrayItem(content, 1), "data"), "RW5jcnlwdGVk");
	cJSON_Delete(o);
	o = line_at(rb.text, 2);
	assert_string_equal(json_str(o, "uuid"), "u2");
	assert_string_equal(json_str(o, "parentUuid"), "a2");
	cJSON_Delete(o);
	assert_int_equal(rb.relinked, 2);
	free(rb.text);
}

static void test_path_move(void **state)
{
	static const char *const cases[][4] = {
		{ "/h/p", "/h/p", "/c", "/c" },
		{ "/h/p/a and /h/p", "/h/p/", "/c", "/c/a and /c" },
		{ "cd /h/p && ls /h/p2 /x/h/p", "/h/p", "/c", "cd /c && ls /h/p2 /x/h/p" },
		{ "\"/h/p\":", "/h/p", "/c", "\"/c\":" },
		{ "nothing", "/h/p", "/c", NULL },
		{ "/h/p.old/x", "/h/p", "/c", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *s = agent_path_move(cases[i][0], cases[i][1], cases[i][2]);

		if (!cases[i][3]) {
			assert_null(s);
			continue;
		}
		assert_string_equal(s, cases[i][3]);
		free(s);
	}
	assert_null(agent_path_move("/x", "/", "/c"));
}

static void test_project_dir(void **state)
{
	char long_path[300], *s;

	(void)state;
	s = agent_claude_project_dir("/tmp/cx/repo");
	assert_string_equal(s, "-tmp-cx-repo");
	free(s);
	s = agent_claude_project_dir("/home/b/my proj.v2/é");	/* one UTF-16 unit: one '-' */
	assert_string_equal(s, "-home-b-my-proj-v2--");
	free(s);
	s = agent_claude_project_dir("/a/\xf0\x9f\x98\x80");	/* two units */
	assert_string_equal(s, "-a---");
	free(s);
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	s = agent_claude_project_dir(long_path);
	/* Math.abs(hash).toString(36) of the path, as Claude Code's node gives it */
	assert_int_equal(strncmp(s, "-aaaa", 5), 0);
	assert_int_equal(s[200], '-');
	assert_string_equal(s + 201, "fbzugh");
	free(s);
}

static void test_session_id(void **state)
{
	static const char *const ok[] = { "3366f1cf-853e-4467-ac6e-daed8fe08872", "a", "a.b_c-1" };
	static const char *const bad[] = { "", "..", "../x", "a/b", ".x", "x.", "a b", "a\\b", "a..b", NULL };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		assert_true(agent_session_id_ok(ok[i]));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(agent_session_id_ok(bad[i]));
}

static void test_gemini(void **state)
{
	static const char chat[] =
		"{\"id\":\"m1\",\"timestamp\":\"2026-11-26T08:58:50.801Z\",\"type\":\"user\",\"content\":[{\"text\":\"write notes\"}]}\n"
		"{\"id\":\"m2\",\"timestamp\":\"2026-11-26T08:58:51.055Z\",\"type\":\"gemini\",\"content\":\"\","
		"\"toolCalls\":[{\"name\":\"write_file\",\"args\":{\"file_path\":\"/h/a/p/notes.md\"}}]}\n"
		"{\"id\":\"m3\",\"timestamp\":\"2026-11-26T08:58:51.243Z\",\"type\":\"user\",\"content\":[{\"functionResponse\":"
		"{\"name\":\"write_file\",\"response\":{\"output\":\"wrote /h/a/p/notes.md\"}}}]}\n";
	const struct agent_dialect *d = agent_dialect("gemini-cli");
	static const char *const roots[] = { "/h/a/p", NULL };
	struct agent_rebuild rb = { .session = "d9746273-db64-4a7a-ac64-f09431229110", .from_roots = roots,
				    .to_root = "/tmp/gx/bob", .cwd = "/tmp/gx/bob" };
	char *err = NULL, *path, *root;
	cJSON *h;

	(void)state;
	root = agent_root_of(chat, strlen(chat), "notes.md");
	assert_string_equal(root, "/h/a/p");
	free(root);
	assert_null(agent_root_of(chat, strlen(chat), "other.md"));
	assert_int_equal(d->rebuilder->rebuild(&rb, &err, chat, strlen(chat)), 0);
	assert_int_equal(rb.lines, 4);
	h = line_at(rb.text, 0);
	assert_string_equal(json_str(h, "sessionId"), rb.session);
	/* SHA-256 of the folder, as the CLI names a project it has not named yet */
	assert_string_equal(json_str(h, "projectHash"),
			    "2e356c285611a3e8dfd3fda6e1fffdc23921627ed2f2db54b7f90a9cc1d893fc");
	assert_string_equal(json_str(h, "startTime"), "2026-11-26T08:58:50.801Z");
	assert_string_equal(json_str(h, "lastUpdated"), "2026-11-26T08:58:51.243Z");
	cJSON_Delete(h);
	assert_non_null(strstr(rb.text, "\"file_path\":\"/tmp/gx/bob/notes.md\""));
	assert_non_null(strstr(rb.text, "wrote /tmp/gx/bob/notes.md"));
	path = d->rebuilder->path(&rb, rb.cwd, NULL);
	assert_string_equal(path, "tmp/2e356c285611a3e8dfd3fda6e1fffdc23921627ed2f2db54b7f90a9cc1d893fc/chats/"
			    "session-2026-11-26T08-58-d9746273.jsonl");
	free(path);
	path = d->rebuilder->path(&rb, rb.cwd, "bob");
	assert_string_equal(path, "tmp/bob/chats/session-2026-11-26T08-58-d9746273.jsonl");
	free(path);
	free(rb.text);
	free(rb.started);
}

static void test_gemini_refused(void **state)
{
	static const char *const bad[] = {
		"{\"id\":\"m1\",\"type\":\"user\"}\n",
		"{\"type\":\"user\",\"content\":\"x\"}\n",
		"[REDACTED]\n",
		"\n",
	};
	const struct agent_dialect *d = agent_dialect("gemini-cli");

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct agent_rebuild rb = { .session = "s", .to_root = "/x" };
		char *err = NULL;

		assert_int_equal(d->rebuilder->rebuild(&rb, &err, bad[i], strlen(bad[i])), GS_ERROR);
		assert_non_null(err);
		assert_null(rb.text);
		free(err);
		free(rb.started);
	}
}

/* One block, two blocks of padding, a whole block: as sha256sum says. */
static void test_sha256(void **state)
{
	char out[65], buf[120];

	(void)state;
	sha256_hex(out, "", 0);
	assert_string_equal(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	memset(buf, 'b', 119);
	sha256_hex(out, buf, 119);
	assert_string_equal(out, "68297a9eb141ce16bbc0847da1c0c48e2858704feaa13993bde29f87a198a6e1");
	memset(buf, 'a', 64);
	sha256_hex(out, buf, 64);
	assert_string_equal(out, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claude),
		cmocka_unit_test(test_filled),
		cmocka_unit_test(test_sidechain),
		cmocka_unit_test(test_carried),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_unsealed),
		cmocka_unit_test(test_path_move),
		cmocka_unit_test(test_project_dir),
		cmocka_unit_test(test_session_id),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_gemini),
		cmocka_unit_test(test_gemini_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
