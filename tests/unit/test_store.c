/*
 * test_store.c - the store on a repository of its own: a checkpoint's
 * tree as files and folders trade places, the parts of state/ a load asks
 * for, the compare-and-swap, stale locks, and git run as a process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>
#include <cmocka.h>

#include "git-session/json.h"
#include "git-session/state_record.h"
#include "git-session/store.h"
#include "git-session/store_run.h"
#include "git-session/store_worktree.h"
#include "git-session/util.h"

static char top[] = "/tmp/gs-test-store-XXXXXX";

static int setup(void **state)
{
	char *cmd;
	int rc;
	gs_store *st = NULL;

	if (!mkdtemp(top))
		return -1;
	setenv("HOME", top, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_CONFIG_PARAMETERS");
	cmd = xstrfmt("git init -q '%s'", top);
	rc = system(cmd);
	free(cmd);
	if (rc != 0 || chdir(top) < 0)
		return -1;
	store_global_init();
	if (store_open(&st) < 0)
		return -1;
	*state = st;
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xstrfmt("rm -rf '%s'", top);

	store_free(*state);
	store_global_shutdown();
	if (chdir("/") == 0 && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
	free(cmd);
	return 0;
}

static void blob(char out[HEX_SZ], gs_store *st, const char *text)
{
	assert_int_equal(store_blob_write(out, st, text, strlen(text)), 0);
}

/* Writes a checkpoint on parent (NULL: a root) with files and parts; its commit into out. */
static void write_cp(char out[HEX_SZ], gs_store *st, const char *parent, const struct store_file *files,
		     size_t nfiles, const struct gs_part *parts, size_t nparts)
{
	struct store_tip tip = { 0 };
	struct store_checkpoint cp = {
		.parent = &tip, .json = "{}", .len = 2, .op = "{}", .oplen = 2, .parts = parts, .nparts = nparts,
		.files = files, .nfiles = nfiles, .message = "test",
	};

	if (parent) {
		tip.exists = 1;
		memcpy(tip.commit, parent, HEX_SZ);
	}
	assert_int_equal(store_write_checkpoint(out, st, &cp), 0);
}

static cJSON *paths_of(gs_store *st, const char *commit)
{
	cJSON *paths = NULL;

	assert_int_equal(store_tree_paths(&paths, st, commit, "files"), 0);
	return paths;
}

/* A file that becomes a folder, and back, as git add takes it: removals go first. */
static void test_file_and_folder_trade_places(void **state)
{
	gs_store *st = *state;
	char a[HEX_SZ], b[HEX_SZ], c1[HEX_SZ], c2[HEX_SZ], c3[HEX_SZ];
	cJSON *paths;

	blob(a, st, "a\n");
	blob(b, st, "b\n");
	write_cp(c1, st, NULL, (struct store_file[]){ { "d.txt", a, 0, 0 }, { "keep", a, 0, 0 } }, 2, NULL, 0);
	write_cp(c2, st, c1, (struct store_file[]){ { "d.txt", NULL, 0, 0 }, { "d.txt/inner", b, 0, 0 } }, 2, NULL, 0);
	paths = paths_of(st, c2);
	assert_null(cJSON_GetObjectItemCaseSensitive(paths, "files/d.txt"));
	assert_string_equal(json_str(paths, "files/d.txt/inner"), b);
	assert_string_equal(json_str(paths, "files/keep"), a);
	cJSON_Delete(paths);
	/* the folder becomes a file again, with no removal asked for: the way is cleared */
	write_cp(c3, st, c2, (struct store_file[]){ { "d.txt", a, 0, 0 } }, 1, NULL, 0);
	paths = paths_of(st, c3);
	assert_string_equal(json_str(paths, "files/d.txt"), a);
	assert_null(cJSON_GetObjectItemCaseSensitive(paths, "files/d.txt/inner"));
	cJSON_Delete(paths);
}

/* A removal of a path the base lacks is no update; a link is mode 120000. */
static void test_removal_of_nothing_and_links(void **state)
{
	gs_store *st = *state;
	char a[HEX_SZ], c1[HEX_SZ], c2[HEX_SZ];
	struct store_tip tip;
	cJSON *paths;

	blob(a, st, "target");
	write_cp(c1, st, NULL, (struct store_file[]){ { "l", a, 1, 0 }, { "gone", NULL, 0, 0 } }, 2, NULL, 0);
	write_cp(c2, st, c1, (struct store_file[]){ { "never", NULL, 0, 0 } }, 1, NULL, 0);
	paths = paths_of(st, c2);
	assert_string_equal(json_str(paths, "files/l"), a);
	assert_int_equal(cJSON_GetArraySize(paths), 1);
	cJSON_Delete(paths);
	assert_int_equal(store_read_commit(&tip, st, c2, "test"), 0);
	assert_string_equal(tip.json, "{}");
	store_tip_clear(&tip);
}

static const struct gs_part parts[] = {
	{ "state/agents/a.json", "[1]", 3 },
	{ "state/files/3a.json", "{}", 2 },
	{ "state/files/4b.json", "{}", 2 },
	{ "state/notes/0001.json", "[1]", 3 },
	{ "state/notes/0002.json", "[2]", 3 },
};

static size_t read_want(gs_store *st, const struct store_want *want, const char *first)
{
	struct store_tip tip;
	size_t n;

	assert_int_equal(store_read_ref_want(&tip, st, "refs/sessions/parts", want), 0);
	n = tip.nparts;
	if (first)
		assert_string_equal(tip.parts[0].path, first);
	store_tip_clear(&tip);
	return n;
}

static void test_want(void **state)
{
	gs_store *st = *state;
	char c[HEX_SZ];

	write_cp(c, st, NULL, NULL, 0, parts, ARRAY_SIZE(parts));
	assert_int_equal(store_cas(st, "refs/sessions/parts", c, NULL, "test"), 0);
	assert_int_equal(read_want(st, NULL, "state/agents/a.json"), 5);
	assert_int_equal(read_want(st, &(struct store_want){ 0 }, NULL), 0);
	assert_int_equal(read_want(st, &(struct store_want){ .folders = (const char *[]){ "notes", NULL } },
				   "state/notes/0001.json"), 2);
	assert_int_equal(read_want(st, &(struct store_want){ .tails = (const char *[]){ "notes", NULL },
							     .tail_chunks = 1 }, "state/notes/0002.json"), 1);
	assert_int_equal(read_want(st, &(struct store_want){ .sharded = "files",
							     .shards = (const char *[]){ "4b.json", NULL } },
				   "state/files/4b.json"), 1);
	assert_int_equal(read_want(st, &(struct store_want){ .folders = (const char *[]){ "agents", NULL },
							     .sharded = "files",
							     .shards = (const char *[]){ "3a.json", "4b.json", NULL } },
				   "state/agents/a.json"), 3);
}

static void test_cas(void **state)
{
	gs_store *st = *state;
	char c1[HEX_SZ], c2[HEX_SZ], value[HEX_SZ];

	write_cp(c1, st, NULL, NULL, 0, NULL, 0);
	write_cp(c2, st, c1, NULL, 0, NULL, 0);
	assert_int_equal(store_cas(st, "refs/sessions/cas", c1, NULL, "test"), 0);
	assert_int_equal(store_cas(st, "refs/sessions/cas", c2, NULL, "test"), GS_ERACE);
	assert_int_equal(store_cas(st, "refs/sessions/cas", c2, c2, "test"), GS_ERACE);
	assert_int_equal(store_cas(st, "refs/sessions/cas", c2, c1, "test"), 0);
	assert_int_equal(store_ref_value(value, st, "refs/sessions/cas"), 0);
	assert_string_equal(value, c2);
	assert_true(store_ref_exists(st, "refs/sessions/cas"));
	assert_false(store_ref_damaged(st, "refs/sessions/cas"));
}

/* The ref lists sync compares: sorted, found by id; and how far two tips are apart. */
static void test_ref_lists_and_distance(void **state)
{
	gs_store *st = *state;
	char c1[HEX_SZ], c2[HEX_SZ], c3[HEX_SZ];
	struct store_ref_entry *v = NULL;
	size_t n = 0, ahead = 9, behind = 9;

	write_cp(c1, st, NULL, NULL, 0, NULL, 0);
	write_cp(c2, st, c1, NULL, 0, NULL, 0);
	write_cp(c3, st, c2, NULL, 0, NULL, 0);
	assert_int_equal(store_cas(st, "refs/sessions/zz", c2, NULL, "test"), 0);
	assert_int_equal(store_cas(st, "refs/sessions/aa", c3, NULL, "test"), 0);
	assert_int_equal(store_cas(st, "refs/sessions/mm/nested", c3, NULL, "test"), 0);
	assert_int_equal(store_list_refs(&v, &n, st, "refs/sessions/"), 0);
	assert_true(n >= 2);
	for (size_t i = 1; i < n; i++)
		assert_true(strcmp(v[i - 1].id, v[i].id) < 0);
	assert_non_null(store_ref_entry_find(v, n, "zz"));
	assert_string_equal(store_ref_entry_find(v, n, "zz")->tip, c2);
	assert_string_equal(store_ref_entry_find(v, n, "aa")->tip, c3);
	assert_null(store_ref_entry_find(v, n, "mm/nested"));	/* no id has a slash */
	assert_null(store_ref_entry_find(v, n, "nope"));
	assert_null(store_ref_entry_find(NULL, 0, "zz"));
	store_ref_entries_free(v, n);
	assert_int_equal(store_ahead_behind(&ahead, &behind, st, c1, c3), 0);
	assert_int_equal(ahead, 0);
	assert_int_equal(behind, 2);
	assert_int_equal(store_ahead_behind(&ahead, &behind, st, c3, c1), 0);
	assert_int_equal(ahead, 2);
	assert_int_equal(behind, 0);
	assert_int_equal(store_ahead_behind(&ahead, &behind, st, "nothex", c1), GS_ERROR);
	gs_error_clear();
}

static void test_stale_lock(void **state)
{
	gs_store *st = *state;
	char *lock = xstrfmt("%srefs/sessions/locked.lock", store_commondir(st));
	struct utimbuf old = { 1000000000, 1000000000 };

	assert_int_equal(gs_make_dirs(store_commondir(st), "refs/sessions"), 0);
	assert_int_equal(gs_write_file(lock, "", 0, 0644), 0);
	assert_int_equal(store_break_stale_lock(st, "refs/sessions/locked", 10), 0);	/* young: a writer */
	assert_int_equal(utime(lock, &old), 0);
	assert_int_equal(store_break_stale_lock(st, "refs/sessions/locked", 10), 1);
	assert_int_not_equal(access(lock, F_OK), 0);
	free(lock);
}

static void test_run(void **state)
{
	gs_store *st = *state;
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	const char *hash[] = { "git", "hash-object", "--stdin", NULL };
	const char *var[] = { "git", "var", "GIT_AUTHOR_IDENT", NULL };
	const char *bad[] = { "git", "rev-parse", "--verify", "--quiet", "no-such-rev", NULL };
	char expect[HEX_SZ];

	assert_int_equal(store_hash(expect, "hello\n", 6), 0);
	assert_int_equal(store_run(&(struct store_run){ .argv = hash, .dir = store_run_dir(st), .in = "hello\n",
							.inlen = 6, .out = &out }), 0);
	assert_true(out.len >= 40 && !strncmp(out.buf, expect, 40));
	sbuf_reset(&out);
	assert_int_equal(store_run(&(struct store_run){ .argv = var, .env = (const char *[]){ "GIT_AUTHOR_NAME=Other", NULL },
							.out = &out }), 0);
	assert_non_null(strstr(out.buf, "Other <author@example.com>"));
	assert_int_equal(store_run(&(struct store_run){ .argv = bad, .dir = store_run_dir(st), .err = &err }), 1);
	assert_int_equal(store_run(&(struct store_run){ .argv = bad, .dir = store_run_dir(st), .err = &err,
							.must_succeed = 1 }), GS_ERROR);
	sbuf_release(&out);
	sbuf_release(&err);
}

/* The manifest entry of a recording, and what the next one trusts of it: never stat data, one clone's. */
static void test_record_entry(void **state)
{
	struct state_file_seen seen = { .oid = "587be6b4c3f93f93c489c0111bba5596147a26cb", .mode = "100755" }, back;
	cJSON *e = state_record_entry(&seen, NULL), *gone, *old;
	char *text = json_print(e, 0, NULL);

	(void)state;
	assert_string_equal(text, "{\"status\":\"modified\",\"oid\":\"587be6b4c3f93f93c489c0111bba5596147a26cb\","
				  "\"mode\":\"100755\"}");
	assert_int_equal(state_record_known(&back, e), 0);
	assert_string_equal(back.oid, seen.oid);
	assert_string_equal(back.mode, "100755");
	free(text);
	cJSON_Delete(e);
	/* an entry an older version wrote, with another clone's stat: its blob reads, its stat is not taken */
	old = cJSON_Parse("{\"status\":\"created\",\"oid\":\"587be6b4c3f93f93c489c0111bba5596147a26cb\","
			  "\"size\":3,\"mtime\":1700000000123,\"ino\":42}");
	assert_int_equal(state_record_known(&back, old), 0);
	assert_string_equal(back.oid, seen.oid);
	assert_null(back.mode);
	cJSON_Delete(old);
	seen.gone = 1;
	gone = state_record_entry(&seen, "created");
	text = json_print(gone, 0, NULL);
	assert_string_equal(text, "{\"status\":\"deleted\"}");
	assert_int_equal(state_record_known(&back, gone), -1);
	free(text);
	cJSON_Delete(gone);
}

/* Writes text over the start of path (its inode kept), with an mtime long past. */
static void put_old(const char *path, const char *text)
{
	struct utimbuf old = { 1735689600, 1735689600 };	/* 2025-01-01 */
	int fd = open(path, O_WRONLY | O_CREAT, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
	assert_int_equal(utime(path, &old), 0);
}

/* A stat cache of the working tree dir that says file, with its stat now, holds blob oid. */
static int write_cache(const char *cache, const char *dir, const char *oid, const char *file)
{
	struct stat sb;
	struct sbuf text = SBUF_INIT;
	int error;

	assert_int_equal(stat(file, &sb), 0);
	sbuf_addf(&text, "git-session stat cache 2 %s/", dir);
	sbuf_addch(&text, '\0');
	sbuf_addf(&text, "%s 100644 %llu %llu %llu %llu %s", oid, (unsigned long long)sb.st_size,
		  (unsigned long long)sb.st_mtim.tv_sec * 1000000000ULL + (unsigned long long)sb.st_mtim.tv_nsec,
		  (unsigned long long)sb.st_ctim.tv_sec * 1000000000ULL + (unsigned long long)sb.st_ctim.tv_nsec,
		  (unsigned long long)sb.st_ino, file);
	sbuf_addch(&text, '\0');
	error = gs_write_file(cache, text.buf, text.len, 0644);
	sbuf_release(&text);
	return error;
}

static void record_blob(char out[HEX_SZ], gs_store *st, const char *path)
{
	struct store_file_fact fact;

	assert_int_equal(store_worktree_record(&fact, st, path, 0, NULL), 0);
	memcpy(out, fact.oid, HEX_SZ);
}

/*
 * The stat cache: a file whose stat is the one the cache holds is not
 * read again (as git trusts its index), across commands; a cache written
 * for another working tree, or damaged, is not trusted.
 */
static void test_stat_cache(void **state)
{
	gs_store *st = NULL;	/* its own, freed and opened again as commands do */
	char first[HEX_SZ], again[HEX_SZ], *path, *text = NULL;
	size_t len;

	(void)state;
	assert_int_equal(store_open(&st), 0);
	put_old("cached.txt", "one\n");
	record_blob(first, st, "cached.txt");
	store_free(st);	/* written back here */
	assert_int_equal(store_open(&st), 0);
	path = xstrfmt("%s/.git/session-stat-cache", top);
	assert_int_equal(gs_read_file(&text, &len, path, 1 << 20), 0);
	assert_non_null(memmem(text, len, " cached.txt", 12));
	free(text);
	/* the same size, mtime and inode, rewritten in place: its ctime moved, it is read again */
	put_old("cached.txt", "two\n");
	record_blob(again, st, "cached.txt");
	assert_string_not_equal(again, first);
	store_free(st);
	/* a record of the file's stat as it is now answers without a read, here only */
	assert_int_equal(write_cache(path, top, first, "cached.txt"), 0);
	assert_int_equal(store_open(&st), 0);
	record_blob(again, st, "cached.txt");
	assert_string_equal(again, first);
	store_free(st);
	assert_int_equal(write_cache(path, "/elsewhere", first, "cached.txt"), 0);
	assert_int_equal(store_open(&st), 0);
	record_blob(again, st, "cached.txt");
	assert_string_not_equal(again, first);
	/* nor a damaged one */
	store_free(st);
	text = xstrfmt("git-session stat cache 2 %s/%c%s 100644 4 1735689600000000000 1 zz cached.txt%c", top, 0, first, 0);
	assert_int_equal(gs_write_file(path, text, strlen(top) + 27 + 40 + 50, 0644), 0);
	free(text);
	assert_int_equal(store_open(&st), 0);
	record_blob(again, st, "cached.txt");
	assert_string_not_equal(again, first);
	store_free(st);
	free(path);
}

/* core.fsync read as git reads it, quirks included */
static void test_fsync_parse(void **state)
{
	const unsigned committed = GS_FSYNC_LOOSE_OBJECT | GS_FSYNC_PACK | GS_FSYNC_REFERENCE;

	(void)state;
	assert_int_equal(store_fsync_parse(NULL), GS_FSYNC_DEFAULT);
	assert_false(store_fsync_parse(NULL) & (GS_FSYNC_LOOSE_OBJECT | GS_FSYNC_REFERENCE));
	assert_int_equal(store_fsync_parse("none"), 0);
	assert_int_equal(store_fsync_parse("committed"), GS_FSYNC_DEFAULT | committed);
	assert_int_equal(store_fsync_parse("all"), GS_FSYNC_ALL);
	assert_int_equal(store_fsync_parse("loose-object,reference"), GS_FSYNC_DEFAULT | committed);
	/* blanks before a name are skipped, not after it (git reads "loose-object " as unknown) */
	assert_int_equal(store_fsync_parse(" loose-object , reference"), GS_FSYNC_DEFAULT | GS_FSYNC_REFERENCE);
	/* a removal takes from the default only; "none" empties only as the last name */
	assert_int_equal(store_fsync_parse("all,-reference"), GS_FSYNC_ALL);
	assert_int_equal(store_fsync_parse("reference,none"), GS_FSYNC_REFERENCE);
	assert_int_equal(store_fsync_parse("none,reference"), GS_FSYNC_DEFAULT | GS_FSYNC_REFERENCE);
	/* a name matches the components it begins ("pack" takes pack-metadata too); unknown ones are ignored */
	assert_int_equal(store_fsync_parse("-pack"), GS_FSYNC_COMMIT_GRAPH);
	assert_int_equal(store_fsync_parse("ref"), GS_FSYNC_DEFAULT | GS_FSYNC_REFERENCE);
	assert_int_equal(store_fsync_parse("nothing-known,"), GS_FSYNC_DEFAULT);
	assert_int_equal(store_fsync_parse("-"), GS_FSYNC_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_and_folder_trade_places),
		cmocka_unit_test(test_removal_of_nothing_and_links),
		cmocka_unit_test(test_want),
		cmocka_unit_test(test_cas),
		cmocka_unit_test(test_ref_lists_and_distance),
		cmocka_unit_test(test_stale_lock),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_record_entry),
		cmocka_unit_test(test_stat_cache),
		cmocka_unit_test(test_fsync_parse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
