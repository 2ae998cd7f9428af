/*
 * test_trailer.c - where the Session-Id trailer goes in a commit message.
 */
#include "helpers.h"
#include "git-session/trailer.h"

static void added(const char *msg, const char *want)
{
	char *out = NULL;

	assert_int_equal(trailer_add(&out, msg, "Session-Id", "s1", '#'), TRAILER_ADDED);
	assert_string_equal(out, want);
	free(out);
}

static void not_added(const char *msg, enum trailer_result want)
{
	char *out = NULL;

	assert_int_equal(trailer_add(&out, msg, "Session-Id", "s1", '#'), want);
	assert_null(out);
}

static void test_placement(void **unused)
{
	added("Fix the bug\n", "Fix the bug\n\nSession-Id: s1\n");
	added("Fix the bug", "Fix the bug\n\nSession-Id: s1\n");
	added("Fix: a subject that looks like a trailer\n",
	      "Fix: a subject that looks like a trailer\n\nSession-Id: s1\n");
	added("Subject\n\nBody text.\n", "Subject\n\nBody text.\n\nSession-Id: s1\n");
	/* only the trailer block counts: a Session-Id in the body (a quoted message) does not */
	added("Subject\n\nSession-Id: other\nsaid the old message.\n",
	      "Subject\n\nSession-Id: other\nsaid the old message.\n\nSession-Id: s1\n");
	added("Subject\n\nSession-Id: other\n\nA last paragraph.\n",
	      "Subject\n\nSession-Id: other\n\nA last paragraph.\n\nSession-Id: s1\n");
	/* an existing trailer block is joined, not followed by a new paragraph */
	added("Subject\n\nBody.\n\nSigned-off-by: A <a@b>\n",
	      "Subject\n\nBody.\n\nSigned-off-by: A <a@b>\nSession-Id: s1\n");
	/* before git's comment lines */
	added("Subject\n\n# Please enter the commit message\n# Lines starting with '#' are ignored\n",
	      "Subject\n\nSession-Id: s1\n\n# Please enter the commit message\n# Lines starting with '#' are ignored\n");
	/* before the scissors line; what follows it does not count */
	added("Subject\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\nSession-Id: zz\n",
	      "Subject\n\nSession-Id: s1\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\nSession-Id: zz\n");
}

static void test_refusals(void **unused)
{
	not_added("Subject\n\nSession-Id: other\n", TRAILER_PRESENT);
	not_added("Subject\n\nsession-id: other\n", TRAILER_PRESENT);
	not_added("Subject\n\nBody.\n\nSigned-off-by: A <a@b>\nSession-Id: other\n", TRAILER_PRESENT);
	not_added("", TRAILER_EMPTY);
	not_added("\n\n# Please enter the commit message\n", TRAILER_EMPTY);
	not_added("   \n", TRAILER_EMPTY);
}

static void test_comment_char(void **unused)
{
	char *out = NULL;

	assert_int_equal(trailer_add(&out, "Subject\n; comment\n", "Session-Id", "s1", ';'), TRAILER_ADDED);
	assert_string_equal(out, "Subject\n\nSession-Id: s1\n; comment\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_comment_char),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
