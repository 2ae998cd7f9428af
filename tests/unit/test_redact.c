/*
 * test_redact.c - every kind of secret the redactor knows leaves the
 * text, and what only looks like one (commit ids, paths, prose) stays.
 */
#include "helpers.h"
#include "git-session/redact.h"

static void redacted(const char *in, const char *want)
{
	char *out = NULL;
	size_t len = 0;

	assert_true(redact_text(&out, &len, in, strlen(in)) > 0);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	free(out);
}

static void kept(const char *in)
{
	char *out = (char *)1;
	size_t len = 1;

	assert_int_equal(redact_text(&out, &len, in, strlen(in)), 0);
	assert_null(out);
}

static void test_token_shapes(void **unused)
{
	redacted("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED:aws-key] here");
	redacted("ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED:github-token]");
	redacted("use github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz now",
		 "use [REDACTED:github-token] now");
	redacted("glpat-xYz0123456789abcdefAB", "[REDACTED:gitlab-token]");
	redacted("//registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789",
		 "//registry.npmjs.org/:_authToken [REDACTED:npm-token]");
	redacted("slack xoxb-123456789012-abcdefghijkl done", "slack [REDACTED:slack-token] done");
	redacted("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED:google-api-key]");
	redacted("ANTHROPIC_API_KEY is sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
		 "ANTHROPIC_API_KEY is [REDACTED:api-key]");
	redacted("stripe sk_live_abcdefghijklmnop1234", "stripe [REDACTED:api-key]");
}

static void test_blocks_and_structures(void **unused)
{
	redacted("before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\ndef==\n-----END RSA PRIVATE KEY-----\nafter",
		 "before\n[REDACTED:private-key]\nafter");
	redacted("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "[REDACTED:private-key]");
	redacted("Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		 "Bearer [REDACTED:jwt]");
	redacted("clone https://bob:s3cretPass@git.example.com/x.git",
		 "clone https://bob:[REDACTED:url-password]@git.example.com/x.git");
	redacted("rand Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa then", "rand [REDACTED:high-entropy] then");
}

static void test_assignments(void **unused)
{
	redacted("password=hunter22", "password=[REDACTED:password]");
	redacted("DB_PASSWORD = 'correct horse'", "DB_PASSWORD = '[REDACTED:password]'");
	redacted("{\"api_key\": \"abcd1234efgh\", \"n\": 1}", "{\"api_key\": \"[REDACTED:password]\", \"n\": 1}");
	redacted("client_secret: s3cr3t!", "client_secret: [REDACTED:password]");
	/* a value with a shape of its own keeps its kind */
	redacted("GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
		 "GITHUB_TOKEN=[REDACTED:github-token]");
	/* two in one text, and the rest as it was */
	redacted("a password=xyzzy1 b token: qwerty9 c", "a password=[REDACTED:password] b token: [REDACTED:password] c");
}

static void test_not_secrets(void **unused)
{
	kept("commit 3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it");
	kept("id 123e4567-e89b-12d3-a456-426614174000");
	kept("edit src/components/Button2/index.tsx and tests/unit/test_redact.c");
	kept("max_tokens: 4096 and password: ${DB_PASSWORD} and token=<your token>");
	kept("ThisIsAVeryLongIdentifierName2 is fine");
	kept("see .workflow/WFS-bug-fix-123 and src/Components2/HelloWorld3/index.tsx");
	kept("branch feature/ABC-1234-add-Login2-page");
	kept("the password is not written here");
	kept("");
	kept("password=[REDACTED:password]");
}

static void test_json(void **unused)
{
	cJSON *v = cJSON_Parse("{\"text\":\"token=abcdef123\",\"list\":[\"AKIAIOSFODNN7EXAMPLE\",\"ok\"],"
			       "\"password=keyname1\":\"plain\"}");

	assert_int_equal(redact_json(v), 2);
	assert_string_equal(cJSON_GetObjectItem(v, "text")->valuestring, "token=[REDACTED:password]");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "list"), 0)->valuestring,
			    "[REDACTED:aws-key]");
	assert_string_equal(cJSON_GetObjectItem(v, "password=keyname1")->valuestring, "plain");
	cJSON_Delete(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_shapes),
		cmocka_unit_test(test_blocks_and_structures),
		cmocka_unit_test(test_assignments),
		cmocka_unit_test(test_not_secrets),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
