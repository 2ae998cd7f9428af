/*
 * test_html.c - the session page: every text escaped (NUL, bytes that
 * are not UTF-8, controls included), anchors stable and plain, the
 * drawings' scale, and a page of hostile texts that holds no markup of
 * theirs, no script and no URL.
 */
#include "helpers.h"
#include "git-session/report.h"
#include "git-session/view_html.h"

static char *escaped(const char *s, size_t len)
{
	struct sbuf sb = SBUF_INIT;

	view_html_escape(&sb, s, len);
	return sb.buf ? sbuf_detach(&sb, NULL) : xstrdup("");
}

static void test_escape(void **unused)
{
	static const struct { const char *in; size_t len; const char *out; } cases[] = {
		{ "plain text", 10, "plain text" },
		{ "<script>alert(1)</script>", 25, "&lt;script&gt;alert(1)&lt;/script&gt;" },
		{ "a & b \"q\" 's'", 13, "a &amp; b &quot;q&quot; &#39;s&#39;" },
		{ "</pre> ]]> <!-- -->", 19, "&lt;/pre&gt; ]]&gt; &lt;!-- --&gt;" },
		{ "tab\tnew\nline\r", 13, "tab\tnew\nline\r" },
		{ "nul\0after", 9, "nul\xef\xbf\xbd" "after" },			/* a NUL does not end the text */
		{ "esc\033[31m", 8, "esc\xef\xbf\xbd[31m" },
		{ "del\177", 4, "del\xef\xbf\xbd" },
		{ "bad\xff", 4, "bad\xef\xbf\xbd" },
		{ "cut\xe2\x82", 5, "cut\xef\xbf\xbd\xef\xbf\xbd" },			/* a character cut short */
		{ "over\xc0\xaf", 6, "over\xef\xbf\xbd\xef\xbf\xbd" },			/* an overlong '/' */
		{ "sur\xed\xa0\x80", 6, "sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },	/* a UTF-16 surrogate */
		{ "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", 14, "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *got = escaped(cases[i].in, cases[i].len);

		if (strcmp(got, cases[i].out))
			fail_msg("case %zu: '%s', not '%s'", i, got, cases[i].out);
		free(got);
	}
}

static void test_anchor(void **unused)
{
	static const struct { const char *prefix, *in, *out; } cases[] = {
		{ "file-", "src/login.c", "file-src-2Flogin.c" },
		{ "agent-", "claude-1a2b3c4d", "agent-claude-1a2b3c4d" },
		{ "file-", "a b\"<x>", "file-a-20b-22-3Cx-3E" },
		{ "file-", "caf\xc3\xa9", "file-caf-C3-A9" },
		{ "file-", "under_score.dot-dash", "file-under_score.dot-dash" },
		{ "commit-", "", "commit-" },
		{ "file-", "x/y", "file-x-2Fy" },	/* and x-2Fy is another anchor */
		{ "file-", "x-2Fy", "file-x-2D2Fy" },
		{ "file-", "a--2F-A-1b-ff", "file-a--2D2F-A-1b-ff" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sbuf sb = SBUF_INIT;

		view_html_anchor(&sb, cases[i].prefix, cases[i].in);
		assert_string_equal(sb.buf, cases[i].out);
		sbuf_release(&sb);
	}
}

static void test_file_name_and_scale(void **unused)
{
	char *name = view_html_file_name("team/alice%1");

	assert_string_equal(name, "team%2Falice%251.html");
	free(name);
	name = view_html_file_name("index");	/* not the index's own file */
	assert_string_equal(name, "%69ndex.html");
	free(name);
	name = view_html_file_name("INDEX");
	assert_string_equal(name, "%49NDEX.html");
	free(name);
	name = view_html_file_name("index2");
	assert_string_equal(name, "index2.html");
	free(name);
	assert_true(view_html_scale(5, 0, 10, 100, 200) == 150);
	assert_true(view_html_scale(-5, 0, 10, 100, 200) == 100);	/* clamped */
	assert_true(view_html_scale(50, 0, 10, 100, 200) == 200);
	assert_true(view_html_scale(3, 7, 7, 100, 200) == 150);	/* an empty span: the middle */
	assert_true(view_html_scale(0, 0, 10, 190, 14) == 190);	/* an axis drawn upwards */
}

static const char hostile_state[] =
	"{\"session_id\": \"s<b>1\", \"topic\": \"<script>alert(1)</script>\", \"status\": \"in_progress\","
	" \"created\": \"2025-11-21T10:00:00Z\", \"updated\": \"2025-11-21T11:00:00Z\","
	" \"project\": {\"branch\": \"x\\\"><img src=x onerror=alert(1)>\"},"
	" \"phases\": [{\"id\": 1, \"name\": \"</svg><script>p()</script>\", \"status\": \"failed\","
	"   \"started\": \"2025-11-21T10:05:00Z\", \"completed\": null, \"retry_count\": 1}],"
	" \"agents\": [{\"id\": \"a\\\"'<x>\", \"status\": \"completed\", \"phase\": 1, \"task\": \"]]></pre>\","
	"   \"started\": \"2025-11-21T10:06:00Z\", \"completed\": \"2025-11-21T10:30:00Z\"}],"
	" \"files\": {\"src/<i>.c\": {\"status\": \"created\", \"oid\": \"0\", \"phase\": 9, \"agent\": \"ghost\"}},"
	" \"errors\": [{\"type\": \"runtime\", \"message\": \"</li></ol><script>e()</script>\", \"phase\": 1,"
	"   \"timestamp\": \"2025-11-21T10:20:00Z\", \"resolved\": false, \"resolution\": \"pending\"}],"
	" \"decisions\": [{\"decision\": \"https://evil.example/x\", \"rationale\": \"<style>*{}</style>\", \"agent\": \"ghost\"}],"
	" \"tasks\": [{\"id\": 1, \"title\": \"&amp; <!--\", \"status\": \"pending\"}],"
	" \"commits\": [{\"id\": \"abc\\\"def\", \"subject\": \"<a href=javascript:x>\", \"timestamp\": \"2025-11-21T10:40:00Z\"}],"
	" \"tokens\": {\"input\": 10, \"output\": 5, \"max\": 100}}";

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Every link within the page lands on an id it has: none to an agent or phase the page does not show. */
static void links_land(const char *page)
{
	for (const char *h = page; (h = strstr(h, "href=\"#")); h++) {
		size_t n = strcspn(h + 7, "\"");
		char *id = xstrfmt("id=\"%.*s\"", (int)n, h + 7);

		if (!strstr(page, id))
			fail_msg("a link to nothing: %s", id);
		free(id);
	}
}

/* Each id once: an entry a file lists twice takes no second anchor. */
static void ids_once(const char *page)
{
	for (const char *h = page; (h = strstr(h, " id=\"")); h++) {
		size_t n = strcspn(h + 5, "\"");
		char *id = xstrfmt(" id=\"%.*s\"", (int)n, h + 5);

		if (count(page, id) != 1)
			fail_msg("an id twice: %s", id);
		free(id);
	}
}

static void test_hostile_page(void **unused)
{
	cJSON *state = NULL, *timeline, *tokens, *changes = NULL;
	struct view_html_point pt = { .t = 1763719200, .v = 15, .commit = "c0ffee", .agent = "<x>", .added = 15 };
	struct view_html_mark mk[] = { { 1763719300, "prompt", "a\"'<x>" }, { 1763719400, "compact", "ghost" } };
	struct sbuf out = SBUF_INIT;
	char *err = NULL;
	const char *diff = "{\"src/<i>.c\": [{\"commit\": \"c\", \"at\": \"t\", \"status\": \"created\","
			   " \"diff\": \"+++ b/x\\n+</pre><script>d()</script>\\n-]]>\\n\"}]}";

	assert_int_equal(json_parse(&state, hostile_state, strlen(hostile_state), 1 << 20, &err), 0);
	assert_int_equal(json_parse(&changes, diff, strlen(diff), 1 << 20, &err), 0);
	timeline = report_timeline(state);
	tokens = report_tokens(state);
	{
		struct view_html_page p = { .state = state, .commit = "0123", .timeline = timeline, .tokens = tokens,
					    .points = &pt, .npoints = 1, .marks = mk, .nmarks = 2, .changes = changes };
		view_html_page(&out, &p);
	}
	assert_int_equal(count(out.buf, "<script"), 0);
	assert_int_equal(count(out.buf, "<img"), 0);
	assert_int_equal(count(out.buf, "<style>"), 1);		/* the page's own */
	assert_int_equal(count(out.buf, "href=\"http"), 0);	/* a URL in a text stays text */
	assert_int_equal(count(out.buf, "http:"), 0);
	assert_int_equal(count(out.buf, "https:"), 1);
	assert_int_equal(count(out.buf, "<pre"), count(out.buf, "</pre>"));
	assert_int_equal(count(out.buf, "<svg"), count(out.buf, "</svg>"));
	assert_int_equal(count(out.buf, "<li "), count(out.buf, "</li>"));
	assert_non_null(strstr(out.buf, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(out.buf, "<span class=\"add\">+&lt;/pre&gt;&lt;script&gt;d()&lt;/script&gt;\n</span>"));
	assert_non_null(strstr(out.buf, "id=\"agent-a-22-27-3Cx-3E\""));
	assert_non_null(strstr(out.buf, "id=\"file-src-2F-3Ci-3E.c\""));
	assert_non_null(strstr(out.buf, "id=\"commit-abc-22def\""));
	assert_non_null(strstr(out.buf, "<g class=\"mark\" data-kind=\"prompt\">"));
	assert_non_null(strstr(out.buf, "<g class=\"mark\" data-kind=\"failure\">"));
	assert_non_null(strstr(out.buf, "<a href=\"#commit-abc-22def\"><g class=\"mark\" data-kind=\"commit\">"));
	assert_non_null(strstr(out.buf, "data-field=\"checkpoint\">0123</dd>"));
	assert_non_null(strstr(out.buf, "Content-Security-Policy"));
	links_land(out.buf);
	ids_once(out.buf);
	assert_non_null(strstr(out.buf, "(by ghost)"));			/* an agent with no article: not linked */
	/* every section there, empty ones saying so */
	assert_non_null(strstr(out.buf, "<section id=\"conversation\">\n<h2>Conversation</h2>\n<article"));
	sbuf_release(&out);
	cJSON_Delete(state);
	cJSON_Delete(timeline);
	cJSON_Delete(tokens);
	cJSON_Delete(changes);
}

static void test_empty_page(void **unused)
{
	cJSON *state = cJSON_Parse("{\"session_id\": \"e\"}"), *timeline = report_timeline(state);
	cJSON *tokens = report_tokens(state);
	static const char *const ids[] = { "timeline", "conversation", "files", "commits", "decisions", "errors",
					   "tasks", "tokens" };
	struct sbuf out = SBUF_INIT;
	struct view_html_page p = { .state = state, .commit = "0", .timeline = timeline, .tokens = tokens };

	view_html_page(&out, &p);
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		char *sec = xstrfmt("<section id=\"%s\">", ids[i]), *link = xstrfmt("href=\"#%s\"", ids[i]);
		const char *at = strstr(out.buf, sec);

		assert_non_null(at);
		assert_non_null(strstr(out.buf, link));
		{	/* the drawing is there, with nothing on it */
			const char *none = strstr(at, "<p class=\"empty\">none</p>");

			assert_non_null(none);
			assert_true(none < strstr(at, "</section>"));
		}
		free(sec);
		free(link);
	}
	assert_int_equal(count(out.buf, "<!doctype html>"), 1);
	sbuf_release(&out);
	cJSON_Delete(state);
	cJSON_Delete(timeline);
	cJSON_Delete(tokens);
}

static void test_listed_twice(void **unused)
{
	static const char twice[] =
		"{\"session_id\": \"t\", \"phases\": [{\"id\": 1, \"name\": \"A\", \"status\": \"completed\"},"
		" {\"id\": 1, \"name\": \"A again\", \"status\": \"failed\"}],"
		" \"agents\": [{\"id\": \"ag\", \"status\": \"completed\"}, {\"id\": \"ag\", \"status\": \"failed\"}],"
		" \"commits\": [{\"id\": \"c1\", \"subject\": \"one\"}, {\"id\": \"c2\", \"subject\": \"two\"},"
		"  {\"id\": \"c1\", \"subject\": \"one again\"}]}";
	cJSON *state = cJSON_Parse(twice), *timeline = report_timeline(state), *tokens = report_tokens(state);
	struct view_html_page p = { .state = state, .commit = "0", .timeline = timeline, .tokens = tokens };
	struct sbuf out = SBUF_INIT;

	view_html_page(&out, &p);
	ids_once(out.buf);
	links_land(out.buf);
	assert_int_equal(count(out.buf, "<li class=\"commit\""), 3);	/* each shown */
	assert_non_null(strstr(out.buf, "one again"));
	assert_int_equal(count(out.buf, "<article class=\"agent\""), 2);
	assert_non_null(strstr(out.buf, "A again"));
	sbuf_release(&out);
	cJSON_Delete(state);
	cJSON_Delete(timeline);
	cJSON_Delete(tokens);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_anchor),
		cmocka_unit_test(test_file_name_and_scale),
		cmocka_unit_test(test_hostile_page),
		cmocka_unit_test(test_empty_page),
		cmocka_unit_test(test_listed_twice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
