/*
 * test_redact.c - every kind of secret the redactor knows leaves the
 * text, and what only looks like one (commit ids, paths, prose) stays.
 */
#include "helpers.h"
#include "git-session/redact.h"
#include "git-session/util.h"

static void redacted(const char *in, const char *want)
{
	char *out = NULL;
	size_t len = 0;

	if (redact_text(&out, &len, in, strlen(in)) <= 0)
		fail_msg("nothing redacted in: %s", in);
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

/* in a transcript line, as a JSON string: the same redaction, and the line still parses */
static void json_line(const char *in, const char *want)
{
	cJSON *line = cJSON_CreateObject(), *back;
	char *text, *out = NULL;
	size_t len = 0;
	int n;

	cJSON_AddStringToObject(cJSON_AddObjectToObject(line, "message"), "content", in);
	text = cJSON_PrintUnformatted(line);
	n = redact_jsonl(&out, &len, text, strlen(text));
	if (!want) {
		assert_int_equal(n, 0);
		assert_null(out);
	} else {
		assert_true(n > 0);
		assert_int_equal(len, strlen(out));
		assert_non_null(back = cJSON_Parse(out));
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(back, "message"), "content")->valuestring,
				    want);
		cJSON_Delete(back);
	}
	free(out);
	free(text);
	cJSON_Delete(line);
}

static void redacted(const char *in, const char *want);
static void kept(const char *in);

/*
 * As plain text, after an escaped newline in text that holds JSON (a
 * transcript line that does not parse), and inside a transcript line's
 * JSON string, alone and between real newlines.
 */
static void both(const char *in, const char *want)
{
	char *esc_in = xstrfmt("one\\n%s", in), *esc_want = xstrfmt("one\\n%s", want);
	char *nl_in = xstrfmt("x\n%s\ny", in), *nl_want = xstrfmt("x\n%s\ny", want);

	redacted(in, want);
	redacted(esc_in, esc_want);
	json_line(in, want);
	json_line(nl_in, nl_want);
	free(esc_in);
	free(esc_want);
	free(nl_in);
	free(nl_want);
}

static void kept_both(const char *in)
{
	kept(in);
	json_line(in, NULL);
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

static void test_new_shapes(void **unused)
{
	both("ENCRYPTION_KEY=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	     "ENCRYPTION_KEY=[REDACTED:password]");
	both("SECRET_KEY_BASE=4bd5f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a09f8"
	     "e7d6c5b4a3928170aabbccddeeff00112233445566778899aabbccddeeff0011223344556677889900aabbccdd",
	     "SECRET_KEY_BASE=[REDACTED:password]");
	both("  secret_key_base: 0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
	     "  secret_key_base: [REDACTED:password]");
	both("export STRIPE_WEBHOOK_SECRET=whsec_abc", "export STRIPE_WEBHOOK_SECRET=[REDACTED:password]");
	both("DEPLOY_TOKEN=abcd1234", "DEPLOY_TOKEN=[REDACTED:password]");
	both("signingKey: \"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==\"", "signingKey: \"[REDACTED:high-entropy]\"");
	both("Authorization: Bearer 3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39",
	     "Authorization: Bearer [REDACTED:password]");
	both("curl -H 'Authorization: bearer opaque.Token_value-123456' x",
	     "curl -H 'Authorization: bearer [REDACTED:password]' x");
	both("Authorization: Basic YWxpY2U6aHVudGVyMg==", "Authorization: Basic [REDACTED:password]");
	both("use Bearer 0123456789abcdef0123456789abcdef now", "use Bearer [REDACTED:password] now");
	both("SECRET_KEY = 'django-insecure-k7#x@9!zq(2)m&w^p3+v$r8*t-y4=u5%s6'",
	     "SECRET_KEY = '[REDACTED:django-secret-key]'");
	both("SECRET_KEY=django-insecure-k7#x@9!zq(2)m&w^p3+v$r8*t-y4=u5%s6 next",
	     "SECRET_KEY=[REDACTED:django-secret-key] next");
	both("key django-insecure-abcdefghij0123456789xyz", "key [REDACTED:django-secret-key]");
	both("git clone https://alice:p@ss/w@rd@git.example.com/repo.git",
	     "git clone https://alice:[REDACTED:url-password]@git.example.com/repo.git");
	both("postgres://app:s3cr3t/x@db:5432/app", "postgres://app:[REDACTED:url-password]@db:5432/app");
	both("https://:ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com/o/r",
	     "https://:[REDACTED:url-password]@github.com/o/r");
	both("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0abcdefgh\nxyz\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----\nok",
	     "[REDACTED:private-key]\nok");
	both("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\nAb\n"
	     "-----END ENCRYPTED PRIVATE KEY-----", "[REDACTED:private-key]");
	both("curl -u alice:Tr0ub4dor https://x", "curl -u alice:[REDACTED:password] https://x");
	both("curl -s --user 'bob:hunter22' x", "curl -s --user 'bob:[REDACTED:password]' x");
	both("curl --user=bob:hunter22 x", "curl --user=bob:[REDACTED:password] x");
	both("mysql -u root -pS3cretPw db", "mysql -u root -p[REDACTED:password] db");
	both("mysqldump -h db -p'my pass' x", "mysqldump -h db -p'[REDACTED:password]' x");
	both("mysql --password=S3cretPw db", "mysql --password=[REDACTED:password] db");
	both("docker login --password hunter22 reg", "docker login --password [REDACTED:password] reg");
	both("conn := sql.Open(dsn); password := \"hunter22\"", "conn := sql.Open(dsn); password := \"[REDACTED:password]\"");
	both("'password' => 'hunter22'", "'password' => '[REDACTED:password]'");
}

/* text that holds JSON, as a tool result shows a file: escapes must not hide a key */
static void test_escaped_json(void **unused)
{
	both("{\\\"api_key\\\": \\\"abc123SECRETvalue\\\", \\\"password\\\":\\\"hunter2SECRET\\\"}",
	     "{\\\"api_key\\\": \\\"[REDACTED:password]\\\", \\\"password\\\":\\\"[REDACTED:password]\\\"}");
	redacted("aws:\\nAKIAIOSFODNN7SECRET1", "aws:\\n[REDACTED:aws-key]");
	redacted("a\\tghp_0123456789abcdefghijABCDEFGHIJ012345\\tb", "a\\t[REDACTED:github-token]\\tb");
	redacted("cert\\nZx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa\\nend", "cert\\n[REDACTED:high-entropy]\\nend");
	redacted("caf\\u00e9Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa", "caf\\u00e9[REDACTED:high-entropy]");
	/* the n of an escape is never the start of a match */
	kept("x\\nnotASecretButLongWords");
	json_line("{\"api_key\": \"abc123SECRETvalue\", \"password\": \"hunter2SECRET\"}",
		  "{\"api_key\": \"[REDACTED:password]\", \"password\": \"[REDACTED:password]\"}");
	json_line("aws:\nAKIAIOSFODNN7SECRET1", "aws:\n[REDACTED:aws-key]");
	json_line("say \"ghp_0123456789abcdefghijABCDEFGHIJ012345\" now", "say \"[REDACTED:github-token]\" now");
}

static void jsonl(const char *in, const char *want)
{
	char *out = NULL;
	size_t len = 0;

	if (!want) {
		assert_int_equal(redact_jsonl(&out, &len, in, strlen(in)), 0);
		assert_null(out);
		return;
	}
	assert_true(redact_jsonl(&out, &len, in, strlen(in)) > 0);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	free(out);
}

/* a transcript's structure: secrets under a name, in arrays, keys; the rest byte for byte */
static void test_jsonl(void **unused)
{
	jsonl("{\"input\":{\"password\":\"hunter22\",\"n\":1.50e3,\"x\":\"\\u00e9\\/\"}}\n",
	      "{\"input\":{\"password\":\"[REDACTED:password]\",\"n\":1.50e3,\"x\":\"\\u00e9\\/\"}}\n");
	jsonl("{\"a\":[\"ok\",\"AKIAIOSFODNN7EXAMPLE\"]}\r\n{\"b\":2}\nnot json password=hunter22\n",
	      "{\"a\":[\"ok\",\"[REDACTED:aws-key]\"]}\r\n{\"b\":2}\nnot json password=[REDACTED:password]\n");
	jsonl("{\"env\": {\"DB_TOKEN\": \"${X}\", \"SIGNING_KEY\": \"sort_by_name_here\"}}", NULL);
	jsonl("{\"env\": {\"SIGNING_KEY\": \"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA\"}}",
	      "{\"env\": {\"SIGNING_KEY\": \"[REDACTED:high-entropy]\"}}");
	jsonl("{\"headers\":{\"Authorization\":\"Basic YWxpY2U6aHVudGVy\"}}",
	      "{\"headers\":{\"Authorization\":\"[REDACTED:password]\"}}");
	/* a key is redacted like a value */
	jsonl("{\"ghp_0123456789abcdefghijABCDEFGHIJ012345\": 1}", "{\"[REDACTED:github-token]\": 1}");
	/* only JSON's blanks end a whole document: after a form feed it is lines, and stays as many */
	jsonl("{\"t\": \"a\nb password=hunter22\"}\f",
	      "{\"t\": \"a\nb password=[REDACTED:password]\"}\f");
	/* a pretty-printed document, whole */
	jsonl("{\n  \"token\":\n    \"abcdef123\"\n}\n", "{\n  \"token\":\n    \"[REDACTED:password]\"\n}\n");
	/* a marker never splits an escape: quotes and backslashes come out escaped */
	jsonl("{\"t\":\"password=\\\"a\\\\bcdef\\\" x\\nZx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa\\n\"}",
	      "{\"t\":\"password=\\\"[REDACTED:password]\\\" x\\n[REDACTED:high-entropy]\\n\"}");
	jsonl("{\"usage\":{\"input_tokens\":10,\"max_tokens\":4096},\"id\":\"msg_01AbCdEfGhIjKlMnOpQrStUv12\"}", NULL);
	jsonl("", NULL);
}

static void test_false_positives(void **unused)
{
	kept_both("function getUserAccountById2FromCache3Layer() {");
	kept_both("const token = getToken(userId);");
	kept_both("let password = config.password;");
	kept_both("token = os.environ[\"GITHUB_TOKEN\"]");
	kept_both("The secret: tests must run before the merge");
	kept_both("if (password == other) return;");
	kept_both("password_hash = bcrypt(pw)");
	kept_both("tokenizer: bert-base-uncased");
	kept_both("max_tokens: 4096");
	kept_both("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
	kept_both("image@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
	kept_both("golang.org/x/net v0.0.0-20191109021931-daa7c04131f5");
	kept_both("uuid 550e8400-e29b-41d4-a716-446655440000 and 3f1c2a9e8b7d6c5f4e3d2c1b0a9f8e7d6c5b4a39");
	kept_both("src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\"");
	kept_both("test_user_can_login_with_valid_credentials_and_2fa_enabled_v2");
	kept_both("TestUserCanLoginWithValidCredentials2And2FAEnabled");
	kept_both("/home/alice/projects/Repo2/src/Components3/UserProfileCard4.tsx");
	kept_both("git push -u origin main; docker run -u 1000:1000 img; mkdir -p x");
	kept_both("the Bearer scheme, Authorization: Bearer <token>, Bearer $TOKEN");
	kept_both("primary_key: id, SORT_KEY=created_at_timestamp_desc");
	kept_both("tool_use_id toolu_01A09q90qw90lq917835lq9X and req_011CVabcDEF123ghiJKL456");
	kept_both("https://user@example.com/a@b and https://host:8080/path");
	kept_both("function login(password: string, token: Optional[str]) {");
	kept_both("client.login(username=username, password=password)");
	kept_both("const token = accessToken; let apiKey = this.apiKey;");
}

/* what an imported session file is made of: paths, ids, times in names, hashes */
static void test_identifiers(void **unused)
{
	kept_both("review-20260505T074943Z/review-index.json");
	kept_both("Index at agent-output/_baselines/review-20260505T074943Z/review-index.json");
	kept_both("WFS-dirty-ui-editor-convergence-20260417");
	kept_both("run-6401c7fc128f");
	kept_both("ART-0123456789abcdef0123");
	kept_both("2026-04-20T10:00:00.123Z");
	kept_both("content_hash: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	kept_both("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855");
	kept_both("f:\\proj\\src\\x.py and C:\\Users\\Bob2\\AppData\\Local\\Temp\\Xy7Kq2Lm9\\a.txt");
	kept_both("/var/home/u/proj/src/mod_x.py");
	kept_both(".workflow/active/WFS-Auth2Refactor-20260417T093000Z/IMPL_PLAN.md");
	kept_both("agent-output/Contoso-Run3/2026-05-05T07-49-43Z_Review2Index.json");
	kept_both("session WFS-Bug2Fix-Login3Page-20251201T101112Z and run RUN_2026_04_20_Alpha7");
	kept_both("src/Ab3Cd5Ef7Gh9/Kl2Mn4Pq6Rs8/Tu1Vw3Xy5Za7.ts");
}

/* the same rule still takes a random run for a secret, in a path or after a key word */
static void test_identifiers_secrets(void **unused)
{
	redacted("key Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa/x", "key [REDACTED:high-entropy]");
	redacted("Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa", "[REDACTED:high-entropy]");
	redacted("X-Key: aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW", "X-Key: [REDACTED:high-entropy]");
	redacted("run-Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa done", "[REDACTED:high-entropy] done");
	/* base64 with its '/' and '+', base64url with '-' and '_': judged as keys, not as paths */
	redacted("k wJalrXUt7nFEMI/K7MDENG/bPxRfiCY9EXAMPLEKEY+x2 z", "k [REDACTED:high-entropy] z");
	redacted("sig dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "sig [REDACTED:high-entropy]");
	redacted("cache/build/Zx8Qp2Lm9Rt4Vw7Ky1Bn5Hj3Gf6Dc0Sa/out.o",
		 "[REDACTED:high-entropy].o");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_shapes),
		cmocka_unit_test(test_blocks_and_structures),
		cmocka_unit_test(test_assignments),
		cmocka_unit_test(test_not_secrets),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_new_shapes),
		cmocka_unit_test(test_escaped_json),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_false_positives),
		cmocka_unit_test(test_identifiers),
		cmocka_unit_test(test_identifiers_secrets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
