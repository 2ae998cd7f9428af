/*
 * test_path.c - the paths a manifest may name (git's checkout rules, as
 * on NTFS and HFS+ too) and the whole-manifest check.
 */
#include "helpers.h"

#define OID "0123456789abcdef0123456789abcdef01234567"

static void test_ordinary_paths(void **unused)
{
	const char *good[] = {
		"a", "a/b.c", "dir/.hidden", "x/.gitignore", ".github/workflows/ci.yml", "sub/.github/x",
		"a.git", ".gitx", "x/.gitx/y", "git", "git~1x", "git~2", "x/git~10", ".git.x", ".git-x/y", "gitmodules",
		".gitignore", ".gitmodules", ".gitattributes", ".mailmap", "-rf", "--", "a b/c d", "a.", "a ",
		"caf\xc3\xa9/na\xc3\xafve.txt", "\xe6\x97\xa5\xe6\x9c\xac/\xe8\xaa\x9e", "emoji\xf0\x9f\x98\x80",
		"...", "..a", "a..", ".a/.b", "x/.../y", "a:b", "~", "\xe2\x80\x8c" "x", ".g\xe2\x80\x8c" "itx",
		".gi", ".gi\xe2\x80\x8c", "g\xe2\x80\x8cit~1", ".git\xc3\xa9",
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (!state_valid_path(good[i]))
			fail_msg("'%s' should be valid: %s", good[i], state_path_problem(good[i], 0));
}

static void refused_all(const char *const *bad, size_t n, int link)
{
	for (size_t i = 0; i < n; i++) {
		const char *why = state_path_problem(bad[i], link);

		if (!why)
			fail_msg("'%s' should be refused%s", bad[i], link ? " as a link" : "");
		if (!link && state_valid_path(bad[i]))
			fail_msg("state_valid_path takes '%s'", bad[i]);
	}
}

static void test_shape_refused(void **unused)
{
	const char *bad[] = {
		"", "/abs", "/", "//x", "../x", "..", ".", "a/../b", "a/./b", "./a", "a//b", "a/", "a/..",
		"a\001b", "a\nb", "\x1f", "a\tb", "a\\b", "\\", "a\\..\\b", "x/y\\z",
		"\xff", "a/\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	};

	refused_all(bad, ARRAY_SIZE(bad), 0);
	assert_string_equal(state_path_problem("/etc/passwd", 0), "an absolute path");
}

static void test_dotgit_refused(void **unused)
{
	const char *bad[] = {
		/* any depth, any case */
		".git", ".git/config", ".GIT/x", ".Git", "sub/.git", "sub/.git/config", "a/b/c/.gIt/hooks/post-commit",
		/* NTFS: trailing dots and spaces, alternate streams */
		".git.", ".git ", ".git...", ".git. .", ".git .", "sub/.GIT./config", ".git::$INDEX_ALLOCATION",
		".git:x", "sub/.git::$INDEX_ALLOCATION/config", ".git. :stream",
		/* NTFS short name */
		"git~1", "GIT~1", "Git~1/config", "sub/git~1", "git~1.", "git~1 ", "git~1:x",
		/* HFS+ ignorable code points anywhere in the name */
		".g\xe2\x80\x8c" "it", ".g\xe2\x80\x8d" "it/config", "\xe2\x80\x8e.git", ".git\xe2\x80\x8f",
		".\xe2\x80\xaagit", ".gi\xe2\x80\xae" "t", "sub/.\xe2\x81\xaa" "GIT/x", ".g\xe2\x81\xaf" "it",
		".g\xef\xbb\xbf" "it", ".\xe2\x80\x8c" "g\xe2\x80\x8di\xef\xbb\xbft\xe2\x80\x8c/HEAD",
	};

	refused_all(bad, ARRAY_SIZE(bad), 0);
	assert_string_equal(state_path_problem("sub/.git/config", 0),
			    "a .git path component (as git spells one on any platform)");
}

static void test_links(void **unused)
{
	const char *bad[] = {
		".gitmodules", "sub/.gitmodules", ".GITMODULES", ".gitmodules.", ".gitmodules :$DATA", ".gitmodules::$DATA",
		"gitmod~1", "GITMOD~4", "gitmod~2 .", "gi7eba~1", "GI7EBA~9", "gi7eb~12", "~1234567", ".g\xe2\x80\x8citmodules",
		".gitattributes", "x/.GitAttributes.", "gitatt~1", "gi7d29~3", ".gitignore", ".gitignore ", "gitign~1",
		"gi250a~1", ".mailmap", ".MAILMAP:x", "mailma~1", "maba30~1", ".mail\xe2\x80\x8dmap",
		/* git looks at every component of a link's path */
		".gitmodules/x", "a/.GITMODULES/b",
	};
	const char *good[] = {
		"gitmodules", ".gitmodulesx", "gitmod~5", "gitmod~1x", "gi7eba~0", "x.gitmodules", "gi7ebb~1",
		"x/gitmodules/y", ".gitconfig", ".github",
	};

	refused_all(bad, ARRAY_SIZE(bad), 1);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (!state_valid_path(bad[i]))
			fail_msg("'%s' is a good name for a file", bad[i]);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (state_path_problem(good[i], 1))
			fail_msg("'%s' should be a good name for a link: %s", good[i], state_path_problem(good[i], 1));
}

/* state_manifest_check on JSON text: NULL when it holds, else its message (caller frees). */
static char *check(const char *text)
{
	cJSON *m = NULL;
	char *err = NULL;

	if (json_parse(&m, text, strlen(text), 1 << 20, &err) < 0)
		fail_msg("bad test JSON %s: %s", text, err);
	if (state_manifest_check(&err, m) == 0)
		assert_null(err);
	else
		assert_non_null(err);
	cJSON_Delete(m);
	return err;
}

static void refused_manifest(const char *text, const char *want)
{
	char *err = check(text);

	if (!err || strcmp(err, want))
		fail_msg("%s: got '%s', want '%s'", text, err ? err : "(accepted)", want);
	free(err);
}

#define E(st) "{\"status\": \"" st "\", \"oid\": \"" OID "\"}"
#define DEL "{\"status\": \"deleted\"}"
#define LINK "{\"status\": \"created\", \"oid\": \"" OID "\", \"mode\": \"120000\"}"

static void test_manifest_shapes(void **unused)
{
	assert_null(check("{}"));
	assert_null(check("{\"a\": " E("created") ", \"a-b\": " E("modified") ", \"b\": " DEL
			  ", \"x\": {\"status\": \"created\", \"oid\": \"" OID "\", \"mode\": \"100755\"},"
			  " \"y\": {\"status\": \"created\", \"oid\": \"" OID "\", \"mode\": \"100644\", \"phase\": 1}}"));
	refused_manifest("[]", "the manifest is not an object");
	refused_manifest("{\"a\": " E("created") ", \"sub/.git/config\": " E("created") "}",
			 "'sub/.git/config': a .git path component (as git spells one on any platform)");
	refused_manifest("{\"a\": 1}", "'a': the entry is not an object");
	refused_manifest("{\"a\": " E("gone") "}", "'a': status must be created, modified or deleted");
	refused_manifest("{\"a\": {\"oid\": \"" OID "\"}}", "'a': status must be created, modified or deleted");
	refused_manifest("{\"a\": {\"status\": \"created\", \"oid\": \"" OID "\", \"mode\": \"160000\"}}",
			 "'a': mode must be \"100644\", \"100755\" or \"120000\"");
	refused_manifest("{\"a\": {\"status\": \"created\", \"oid\": \"" OID "\", \"mode\": 33188}}",
			 "'a': mode must be \"100644\", \"100755\" or \"120000\"");
	refused_manifest("{\"a\": {\"status\": \"created\", \"oid\": \"0123456789ABCDEF0123456789abcdef01234567\"}}",
			 "'a': oid must be 40 lower-case hexadecimal digits");
	refused_manifest("{\"a\": {\"status\": \"created\", \"oid\": \"" OID "0\"}}",
			 "'a': oid must be 40 lower-case hexadecimal digits");
	refused_manifest("{\"a\": {\"status\": \"created\", \"oid\": 7}}", "'a': oid must be 40 lower-case hexadecimal digits");
	refused_manifest("{\"a\": {\"status\": \"created\"}}", "'a': a deleted file has no blob, others need one");
	refused_manifest("{\"a\": {\"status\": \"deleted\", \"oid\": \"" OID "\"}}",
			 "'a': a deleted file has no blob, others need one");
	/* a link named as a file git reads; the same name as a file is fine */
	assert_null(check("{\".gitmodules\": " E("created") "}"));
	refused_manifest("{\"x/.gitmodules\": " LINK "}",
			 "'x/.gitmodules': a symbolic link git will not check out under that name");
	refused_manifest("{\"GITMOD~1\": " LINK "}", "'GITMOD~1': a symbolic link git will not check out under that name");
}

static void test_manifest_nesting(void **unused)
{
	refused_manifest("{\"a\": " E("created") ", \"a-b\": " E("created") ", \"a/x\": " E("created") "}",
			 "'a/x': below a file, 'a'");
	refused_manifest("{\"a\": " E("created") ", \"a/b/c/d\": " E("modified") "}", "'a/b/c/d': below a file, 'a'");
	refused_manifest("{\"d/e\": " E("created") ", \"d/e/f/g\": " E("created") "}", "'d/e/f/g': below a file, 'd/e'");
	refused_manifest("{\"l\": " LINK ", \"l/post-commit\": " E("created") "}",
			 "'l/post-commit': below a symbolic link, 'l'");
	/* deleting below a link would follow it */
	refused_manifest("{\"l\": " LINK ", \"l/x\": " DEL "}", "'l/x': below a symbolic link, 'l'");
	/* a folder that became a file (or the other way) is history, not a conflict */
	assert_null(check("{\"a\": " E("created") ", \"a/x\": " DEL "}"));
	assert_null(check("{\"a\": " DEL ", \"a/x\": " E("created") "}"));
	assert_null(check("{\"l\": {\"status\": \"deleted\", \"mode\": \"120000\"}, \"l/x\": " E("created") "}"));
	/* the first bad path in manifest order, even unsorted */
	refused_manifest("{\"z/y\": " E("created") ", \"a/.git\": " E("created") ", \"z\": " E("created") "}",
			 "'z/y': below a file, 'z'");
}

/* 50,000 entries, half of them folders beside files of similar names: linear, so this is quick. */
static void test_manifest_large(void **unused)
{
	cJSON *m = cJSON_CreateObject();
	char *err = NULL, path[64];

	for (int i = 0; i < 25000; i++) {
		snprintf(path, sizeof(path), "d%05d/sub/f.c", i);
		cJSON_AddItemToObject(m, path, cJSON_Parse(E("created")));
		snprintf(path, sizeof(path), "d%05d-x", i);
		cJSON_AddItemToObject(m, path, cJSON_Parse(E("created")));
	}
	assert_int_equal(state_manifest_check(&err, m), 0);
	cJSON_AddItemToObject(m, "d24999-x/y", cJSON_Parse(DEL));
	assert_int_equal(state_manifest_check(&err, m), 0);
	cJSON_AddItemToObject(m, "d12345-x/y", cJSON_Parse(E("created")));
	assert_int_equal(state_manifest_check(&err, m), GS_ERROR);
	assert_string_equal(err, "'d12345-x/y': below a file, 'd12345-x'");
	free(err);
	cJSON_Delete(m);
}

static void test_loader(void **unused)
{
	const char *bad[][2] = {
		{ "sub/.git/config", E("created") },
		{ "git~1/config", E("created") },
		{ ".g\\u200cit/config", E("created") },
		{ ".git\\\\config", E("created") },
		{ "x", "{\"status\": \"created\", \"oid\": \"abc\"}" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xstrfmt("{\"session_id\": \"s\", \"files\": {\"ok\": " E("created") ", \"%s\": %s}}",
				     bad[i][0], bad[i][1]);
		cJSON *in = NULL, *out = NULL;
		char *err = NULL;

		assert_int_equal(json_parse(&in, text, strlen(text), 1 << 20, &err), 0);
		assert_int_equal(state_normalize(&out, in, &err), GS_ERROR);
		assert_null(out);
		if (strncmp(err, "the manifest: '", 15))
			fail_msg("%s: %s", text, err);
		free(err);
		free(text);
	}
}

/* Nesting is restore's to refuse: a recording that loads part of a large manifest cannot see it whole. */
static void test_loader_nesting(void **unused)
{
	const char *text = "{\"session_id\": \"s\", \"files\": {\"a\": " E("created") ", \"a/x\": " E("created") "}}";
	cJSON *in = NULL, *out = NULL;
	char *err = NULL;

	assert_int_equal(json_parse(&in, text, strlen(text), 1 << 20, &err), 0);
	assert_int_equal(state_normalize(&out, in, &err), 0);
	assert_int_equal(state_manifest_check(&err, cJSON_GetObjectItemCaseSensitive(out, "files")), GS_ERROR);
	assert_string_equal(err, "'a/x': below a file, 'a'");
	free(err);
	cJSON_Delete(out);
}

static const char *status_of(const cJSON *st, const char *path)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "files"), path);

	return e ? json_str(e, "status") : "(none)";
}

static void test_record(void **unused)
{
	cJSON *st = session_with(NULL);

	ok_(st, OP_FILE_CREATED, "{\"files\": {\"a\": {\"oid\": \"" OID "\"}, \"l\": {\"oid\": \"" OID "\", \"mode\": \"120000\"}}}");
	refused(st, OP_FILE_DELETED, "{\"files\": {\"l/x\": {}}}", "below a symbolic link, 'l'");
	refused(st, OP_FILE_CREATED, "{\"files\": {\"b\": {\"oid\": \"" OID "\"}, \"b/c\": {\"oid\": \"" OID "\"}}}",
		"'b/c': below a file, 'b'");
	refused(st, OP_FILE_CREATED, "{\"files\": {\"sub/.GIT./config\": {\"oid\": \"" OID "\"}}}", "invalid path");
	refused(st, OP_FILE_CREATED, "{\"files\": {\"git~1/config\": {\"oid\": \"" OID "\"}}}", "invalid path");
	refused(st, OP_FILE_CREATED, "{\"files\": {\".gitmodules\": {\"oid\": \"" OID "\", \"mode\": \"120000\"}}}",
		"invalid path '.gitmodules': a symbolic link");
	refused(st, OP_FILE_CREATED, "{\"files\": {\"c\": {\"oid\": \"xyz\"}}}", "oid must be 40");
	/* as git add: a file or link above a fresh entry goes, and so does what is below a fresh file or link */
	ok_(st, OP_FILE_CREATED, "{\"files\": {\"a/x\": {\"oid\": \"" OID "\"}}}");
	assert_string_equal(status_of(st, "a"), ST_DELETED);
	ok_(st, OP_FILE_MODIFIED, "{\"files\": {\"l/hooks/post-commit\": {\"oid\": \"" OID "\"}}}");
	assert_string_equal(status_of(st, "l"), ST_DELETED);
	assert_null(json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, "files"), "l"), "mode"));
	ok_(st, OP_FILE_CREATED, "{\"files\": {\"a\": {\"oid\": \"" OID "\"}}}");
	assert_string_equal(status_of(st, "a/x"), ST_DELETED);
	assert_string_equal(status_of(st, "a"), ST_CREATED);
	ok_(st, OP_FILE_CREATED, "{\"files\": {\"l\": {\"oid\": \"" OID "\", \"mode\": \"120000\"}}}");
	assert_string_equal(status_of(st, "l/hooks/post-commit"), "(none)");
	/* a file becomes a folder once the file is recorded gone, in the same call or before */
	ok_(st, OP_CHECKPOINT, "{\"files\": {\"a\": {\"status\": \"deleted\"}, \"a/x\": {\"status\": \"created\", \"oid\": \"" OID "\"}}}");
	ok_(st, OP_FILE_CREATED, "{\"files\": {\".gitmodules\": {\"oid\": \"" OID "\"}}}");
	cJSON_Delete(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordinary_paths),
		cmocka_unit_test(test_shape_refused),
		cmocka_unit_test(test_dotgit_refused),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_manifest_shapes),
		cmocka_unit_test(test_manifest_nesting),
		cmocka_unit_test(test_manifest_large),
		cmocka_unit_test(test_loader),
		cmocka_unit_test(test_loader_nesting),
		cmocka_unit_test(test_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
