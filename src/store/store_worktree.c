/*
 * store_worktree.c - the working tree as the store sees it: paths
 * relative to its top, recording a file as a blob (git's filters and
 * the stat cache), the scan of a manifest's paths, and a file's diff against
 * what was recorded. Store layer: libgit2.
 */
#include "git-session/store_run.h"
#include "git-session/store_worktree.h"
#include "git-session/json.h"
#include "git-session/util.h"
#include "store-internal.h"

#include <git2/sys/repository.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Resolves "." and ".." lexically, as git does with a pathspec. */
static char *lexical_normalize(const char *abs)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = abs;

	while (*p) {
		const char *end;
		size_t n;

		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (n == 1 && p[0] == '.') {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (sb.len && sb.buf[sb.len - 1] != '/')
				sb.len--;
			if (sb.len)
				sb.len--;
			sbuf_add(&sb, "", 0);
		} else if (n) {
			sbuf_addch(&sb, '/');
			sbuf_add(&sb, p, n);
		}
		p = end;
	}
	if (!sb.len)
		sbuf_addch(&sb, '/');
	return sbuf_detach(&sb, NULL);
}

int store_worktree_relpath(char **out, gs_store *st, const char *arg)
{
	const char *wd = store_workdir(st);
	char cwd[PATH_MAX], *abs, *norm, *rel;
	size_t wlen;
	int error = GS_ERROR;

	*out = NULL;
	if (!wd)
		return gs_error("this operation must be run in a work tree");
	if (!*arg)
		return gs_error("empty path");
	wlen = strlen(wd);
	if (wlen && wd[wlen - 1] == '/')
		wlen--;
	if (arg[0] == '/') {
		abs = xstrdup(arg);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return gs_error("cannot read the current directory: %s", strerror(errno));
		/* as git: from outside the working tree (GIT_WORK_TREE elsewhere), paths are from its top */
		if (strncmp(cwd, wd, wlen) || (cwd[wlen] && cwd[wlen] != '/'))
			abs = xstrfmt("%.*s/%s", (int)wlen, wd, arg);
		else
			abs = xstrfmt("%s/%s", cwd, arg);
	}
	norm = lexical_normalize(abs);
	if (strncmp(norm, wd, wlen) || (norm[wlen] != '/' && norm[wlen]) || !norm[wlen] ||
	    !norm[wlen + 1]) {
		gs_error("'%s' is outside the working tree", arg);
		goto cleanup;
	}
	rel = norm + wlen + 1;
	if (!strncasecmp(rel, ".git", 4) && (rel[4] == '/' || !rel[4])) {
		gs_error("'%s' is inside the git directory", arg);
		goto cleanup;
	}
	*out = xstrdup(rel);
	error = 0;
cleanup:
	free(abs);
	free(norm);
	return error;
}

/*
 * What git would say of a path of the working tree that a command is to
 * read: NULL when it may, else why not. A directory on its way that is a
 * symbolic link takes it out of the tree ("beyond a symbolic link", as
 * git says): following it could read anything, .git/config included. A
 * directory that holds a repository of its own is a submodule's.
 */
char *store_not_in_tree(gs_store *st, const char *path)
{
	struct sbuf dir = SBUF_INIT;
	char *why = NULL;
	struct stat s;

	sbuf_adds(&dir, store_workdir(st));
	for (const char *p = path, *slash; !why && (slash = strchr(p, '/')); p = slash + 1) {
		size_t top;

		sbuf_add(&dir, p, (size_t)(slash - p));
		top = dir.len;
		if (lstat(dir.buf, &s) < 0)
			break;	/* not there: nothing on the way to follow */
		if (S_ISLNK(s.st_mode)) {
			why = xstrfmt("'%s' is beyond a symbolic link", path);
		} else {
			sbuf_adds(&dir, "/.git");
			if (lstat(dir.buf, &s) == 0)
				why = xstrfmt("'%s' is in submodule '%.*s'", path, (int)(slash - path), path);
			dir.len = top;
			dir.buf[top] = '\0';
		}
		sbuf_addch(&dir, '/');
	}
	sbuf_release(&dir);
	return why;
}

/* A file's mode as a manifest holds it (as git does: only the owner's x bit counts). */
static const char *file_mode(const struct stat *s)
{
	return S_ISLNK(s->st_mode) ? STORE_MODE_LINK : s->st_mode & 0100 ? STORE_MODE_EXEC : STORE_MODE_FILE;
}

/*
 * libgit2 reads the whole index to look for .gitattributes there as well
 * as in the working tree (it applies none it finds only in the index:
 * libgit2 1.5 gives the same blob with or without this), and reading an
 * index of 100,000 entries costs more than all else recording a file
 * does. In its place the store hands it an empty one, for as long as the
 * blob takes; store_attr_index_end puts the repository's own back.
 */
int store_attr_index_begin(gs_store *st)
{
	git_index *index = NULL;
	int error;

	if ((error = git_index_new(&index)) == 0)
		error = git_repository_set_index(st->repo, index);
	git_index_free(index);
	return error;
}

void store_attr_index_end(gs_store *st)
{
	git_repository_set_index(st->repo, NULL);	/* read again from disk when asked for */
}

/*
 * The filter driver (.gitattributes "filter=<name>") git would run for
 * path, its "smudge" or "clean" (or "process") configured, or NULL;
 * libgit2 runs none. *builtin (when not NULL) says whether git's own
 * filters could apply: an eol, text, crlf or ident attribute, or
 * core.autocrlf. One attribute lookup for all. The caller frees it.
 */
char *store_filter_driver(gs_store *st, const char *path, const char *which, int *builtin)
{
	static const char *names[] = { "filter", "text", "eol", "crlf", "ident" };
	const char *values[ARRAY_SIZE(names)] = { NULL };
	git_config_entry *e = NULL;
	char *name = NULL, *key;
	int rc;

	if ((rc = store_attr_index_begin(st)) == 0)
		rc = git_attr_get_many(values, st->repo, 0, path, ARRAY_SIZE(names), names);
	store_attr_index_end(st);
	if (builtin) {
		*builtin = rc < 0 || (git_config_get_entry(&e, st->config, "core.autocrlf") == 0 && e->value &&
				      strcasecmp(e->value, "false"));
		for (size_t i = 1; i < ARRAY_SIZE(names); i++)
			*builtin |= git_attr_value(values[i]) != GIT_ATTR_VALUE_UNSPECIFIED;
		git_config_entry_free(e);
		e = NULL;
	}
	for (const char *const *k = (const char *const[]){ which, "process", NULL };
	     rc == 0 && git_attr_value(values[0]) == GIT_ATTR_VALUE_STRING && *k && !name; k++) {
		key = xstrfmt("filter.%s.%s", values[0], *k);
		if (git_config_get_entry(&e, st->config, key) == 0 && e->value && *e->value)
			name = xstrdup(values[0]);
		git_config_entry_free(e);
		e = NULL;
		free(key);
	}
	git_error_clear();
	return name;
}

/* The blob of path through git, which runs the filter driver that cleans it; written when write. */
static int driver_hash(git_oid *id, gs_store *st, const char *path, int write)
{
	const char *args[] = { "git", "hash-object", write ? "-w" : "--", write ? "--" : path, write ? path : NULL, NULL };
	struct sbuf out = SBUF_INIT;
	int error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .out = &out, .must_succeed = 1 });

	if (!error && (out.len < GIT_OID_HEXSZ || git_oid_fromstrn(id, out.buf, GIT_OID_HEXSZ) < 0))
		error = gs_error("cannot read what git hash-object says of '%s'", path);
	sbuf_release(&out);
	return error;
}

/* Whether the index marks path as outside a sparse checkout: there, not in the working tree. */
static int skip_worktree(gs_store *st, const char *path)
{
	git_index *index = NULL;
	const git_index_entry *e;
	int skip = 0;

	if (git_repository_index(&index, st->repo) == 0 && (e = git_index_get_bypath(index, path, 0)))
		skip = (e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE) != 0;
	git_index_free(index);
	git_error_clear();
	return skip;
}

/*
 * Whether the stat cache knows the file s describes at path (same size,
 * mtime, inode and mode): its blob then goes in *id, as git trusts an
 * index entry whose stat data has not changed. A blob a look learned
 * without writing it (resume's) is trusted only once it is there; one
 * the manifest records (known) is.
 */
static int cached_blob(git_oid *id, gs_store *st, const char *path, const struct store_file_fact *known,
		       const struct stat *s)
{
	char hex[HEX_SZ];
	git_odb *odb = NULL;
	int there;

	if (!store_cache_match(hex, st, path, s) || git_oid_fromstr(id, hex) < 0)
		return 0;
	if (known && !strcmp(known->oid, hex))
		return 1;
	there = git_repository_odb(&odb, st->repo) == 0 && git_odb_exists(odb, id);
	git_odb_free(odb);
	git_error_clear();
	return there;
}

/*
 * What lstat found at path, judged for recording: 1 when it is a file or
 * a link to hash, 0 when out says all (gone, or sparse), else an error.
 */
static int record_look(struct store_file_fact *out, gs_store *st, const char *path, int allow_missing,
		       struct stat *s)
{
	char *full = xstrfmt("%s%s", store_workdir(st), path), *why = store_not_in_tree(st, path);
	int error = GS_ERROR, gone;

	if (why && !allow_missing) {
		gs_error("%s", why);
		goto cleanup;
	}
	gone = why || lstat(full, s) < 0;
	if (gone && !why && errno != ENOENT && errno != ENOTDIR) {
		gs_error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (allow_missing && !why && (gone || !S_ISREG(s->st_mode)) && skip_worktree(st, path)) {
		out->found = STORE_FOUND_SPARSE;	/* outside the sparse checkout: as it was recorded */
		error = 0;
		goto cleanup;
	}
	/* re-recording what the manifest holds: what is no longer a file here is gone, as git sees it */
	if (allow_missing && !gone && !S_ISREG(s->st_mode) && !S_ISLNK(s->st_mode))
		gone = 1;
	if (gone && !allow_missing)
		gs_error("'%s' does not exist", path);
	else if (gone)
		out->found = STORE_FOUND_GONE, error = 0;
	else if (S_ISDIR(s->st_mode))
		gs_error("'%s' is a directory", path);
	else if (!S_ISREG(s->st_mode) && !S_ISLNK(s->st_mode))
		gs_error("'%s' is not a regular file", path);
	else
		error = 1;
cleanup:
	free(full);
	free(why);
	return error;
}

int store_worktree_record(struct store_file_fact *out, gs_store *st, const char *path, int allow_missing,
			  const struct store_file_fact *known)
{
	char *driver = NULL;
	struct stat s;
	git_oid id;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = record_look(out, st, path, allow_missing, &s)) <= 0)
		return rc;
	if (cached_blob(&id, st, path, known, &s)) {
		rc = 0;	/* unchanged since it was recorded: not read again */
	} else if ((driver = S_ISREG(s.st_mode) ? store_filter_driver(st, path, "clean", NULL) : NULL)) {
		rc = driver_hash(&id, st, path, 1);
	} else {
		if ((rc = store_attr_index_begin(st)) == 0)
			rc = git_blob_create_from_workdir(&id, st->repo, path);
		store_attr_index_end(st);
	}
	free(driver);
	if (rc < 0)
		return store_git_error("cannot read '%s'", path);
	out->found = STORE_FOUND_FILE;
	git_oid_tostr(out->oid, sizeof(out->oid), &id);
	out->mode = file_mode(&s);
	store_cache_learn(st, path, out->oid, &s);
	return 0;
}

/* The blob id of a file as git would store it: a symlink is its target's name. */
static int hash_path(git_oid *id, gs_store *st, const char *path, const char *full, const struct stat *s)
{
	char target[4096], *driver;
	ssize_t n;
	int error;

	if (!S_ISLNK(s->st_mode) && (driver = store_filter_driver(st, path, "clean", NULL))) {
		error = driver_hash(id, st, path, 0);
		free(driver);
		return error;
	}
	if (!S_ISLNK(s->st_mode)) {
		if ((error = store_attr_index_begin(st)) == 0)
			error = git_repository_hashfile(id, st->repo, path, GIT_OBJECT_BLOB, NULL);
		store_attr_index_end(st);
		return error;
	}
	if ((n = readlink(full, target, sizeof(target))) < 0) {
		git_error_set_str(GIT_ERROR_OS, strerror(errno));
		return GS_ERROR;
	}
	return git_odb_hash(id, target, (size_t)n, GIT_OBJECT_BLOB);
}

/*
 * HEAD's trees, one directory at a time: the manifest is sorted, so
 * neighbouring paths share a directory and its tree is looked up once.
 */
struct head_cursor {
	git_tree *root, *dir;
	struct sbuf dirname;
};

static const git_tree_entry *head_entry(struct head_cursor *hc, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	git_tree_entry *te = NULL;

	if (!hc->root)
		return NULL;
	if (!hc->dir || hc->dirname.len != len || strncmp(hc->dirname.buf, path, len)) {
		if (hc->dir != hc->root)
			git_tree_free(hc->dir);
		hc->dir = NULL;
		sbuf_reset(&hc->dirname);
		sbuf_add(&hc->dirname, path, len);
		if (!len) {
			hc->dir = hc->root;
		} else if (git_tree_entry_bypath(&te, hc->root, hc->dirname.buf) == 0 &&
			   git_tree_entry_type(te) == GIT_OBJECT_TREE) {
			git_tree_lookup(&hc->dir, git_tree_owner(hc->root), git_tree_entry_id(te));
		}
		git_tree_entry_free(te);
		git_error_clear();
	}
	return hc->dir ? git_tree_entry_byname(hc->dir, slash ? slash + 1 : path) : NULL;
}

/* "blocked": the first folder on path's way that is not one (a file where a folder goes). */
static void set_blocked(cJSON *f, gs_store *st, const char *path)
{
	struct sbuf dir = SBUF_INIT;
	struct stat s;

	sbuf_adds(&dir, store_workdir(st));
	for (const char *p = path, *slash; (slash = strchr(p, '/')); p = slash + 1) {
		sbuf_add(&dir, p, (size_t)(slash - p));
		if (lstat(dir.buf, &s) < 0)
			break;
		if (!S_ISDIR(s.st_mode)) {
			cJSON_AddItemToObject(f, "blocked", cJSON_CreateString(dir.buf + strlen(store_workdir(st))));
			break;
		}
		sbuf_addch(&dir, '/');
	}
	sbuf_release(&dir);
}

static void scan_one(cJSON *f, gs_store *st, struct head_cursor *hc, const char *path, const cJSON *rec)
{
	char *full = xstrfmt("%s%s", store_workdir(st), path), hex[HEX_SZ], *why;
	const git_tree_entry *te = head_entry(hc, path);
	struct stat s;
	git_oid id;

	json_set_str(f, "head_oid", NULL);
	if (te && git_tree_entry_type(te) == GIT_OBJECT_BLOB) {
		git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(te));
		json_set_str(f, "head_oid", hex);
	}
	json_set_bool(f, "same_stat", 0);
	json_set_str(f, "oid", NULL);
	if ((why = store_not_in_tree(st, path))) {	/* never followed: as git sees it, not here */
		json_set_str(f, "fs", "missing");
		json_set_str(f, "error", why);
		free(why);
	} else if (lstat(full, &s) < 0 && skip_worktree(st, path)) {
		json_set_str(f, "fs", "sparse");	/* outside the sparse checkout: not a deletion */
	} else if (lstat(full, &s) < 0) {
		int e = errno;

		json_set_str(f, "fs", e == ENOENT || e == ENOTDIR ? "missing" : "unreadable");
		if (e != ENOENT && e != ENOTDIR)
			json_set_str(f, "error", strerror(e));
		if (e == ENOTDIR)
			set_blocked(f, st, path);
	} else if (S_ISDIR(s.st_mode)) {
		json_set_str(f, "fs", "dir");
	} else if (!S_ISREG(s.st_mode) && !S_ISLNK(s.st_mode)) {
		json_set_str(f, "fs", "unreadable");	/* a FIFO would block a read */
		json_set_str(f, "error", "not a regular file");
	} else if (json_set_str(f, "mode", file_mode(&s)) && store_cache_match(hex, st, path, &s) &&
		   json_str(rec, "oid") && !strcmp(hex, json_str(rec, "oid"))) {
		json_set_str(f, "fs", "file");
		json_set_bool(f, "same_stat", 1);
	} else if (hash_path(&id, st, path, full, &s) < 0) {
		json_set_str(f, "fs", "unreadable");
		json_set_str(f, "error", git_error_last() ? git_error_last()->message : "cannot read it");
		git_error_clear();
	} else {
		json_set_str(f, "fs", "file");
		git_oid_tostr(hex, sizeof(hex), &id);
		json_set_str(f, "oid", hex);
		store_cache_learn(st, path, hex, &s);
	}
	free(full);
}

int store_worktree_scan(cJSON **out, gs_store *st, const cJSON *manifest)
{
	struct head_cursor hc = { NULL, NULL, SBUF_INIT };
	git_object *obj = NULL;
	const cJSON *rec;

	*out = NULL;
	if (!store_workdir(st))
		return gs_error("this operation must be run in a work tree");
	if (git_revparse_single(&obj, st->repo, "HEAD^{tree}") == 0)
		hc.root = (git_tree *)obj;	/* an unborn HEAD has no tree: nothing is committed */
	git_error_clear();
	*out = cJSON_CreateObject();
	cJSON_ArrayForEach(rec, manifest)
	{
		cJSON *f = cJSON_CreateObject();

		/* manifest keys are unique: append, no lookup (it would make this O(n^2)) */
		cJSON_AddItemToObject(*out, rec->string, f);
		scan_one(f, st, &hc, rec->string, rec);
	}
	if (hc.dir != hc.root)
		git_tree_free(hc.dir);
	git_tree_free(hc.root);
	sbuf_release(&hc.dirname);
	return 0;
}

int store_worktree_hash(char **out, gs_store *st, const char *path)
{
	char *full = xstrfmt("%s%s", store_workdir(st), path), hex[HEX_SZ];
	struct stat s;
	git_oid id;
	int error = 0;

	*out = NULL;
	if (lstat(full, &s) == 0 && (S_ISREG(s.st_mode) || S_ISLNK(s.st_mode))) {
		if (hash_path(&id, st, path, full, &s) < 0) {
			error = store_git_error("cannot read '%s'", path);
		} else {
			git_oid_tostr(hex, sizeof(hex), &id);
			*out = xstrdup(hex);
		}
	}
	free(full);
	return error;
}

#define DIFF_MAX (64u * 1024 * 1024)	/* past that, a file is diffed as git diffs a binary one */

int store_worktree_diff(char **out, gs_store *st, const char *path, const char *recorded_oid)
{
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	char *full = xstrfmt("%s%s", store_workdir(st), path), *buf = NULL, *why = NULL;
	git_buf text = GIT_BUF_INIT;
	git_patch *patch = NULL;
	struct stat s;
	git_blob *blob = NULL;
	git_oid id;
	size_t len = 0;
	int error = GS_ERROR;

	*out = NULL;
	if (git_oid_fromstr(&id, recorded_oid) < 0 || git_blob_lookup(&blob, st->repo, &id) < 0) {
		store_git_error("cannot read the recorded blob of '%s'", path);
		goto cleanup;
	}
	if ((why = store_not_in_tree(st, path))) {	/* never read through a symbolic link */
		*out = xstrfmt("%s: not diffed\n", why);
		error = 0;
		goto cleanup;
	}
	if (lstat(full, &s) == 0 && S_ISREG(s.st_mode) && (s.st_size > DIFF_MAX || git_blob_rawsize(blob) > DIFF_MAX)) {
		*out = xstrfmt("Binary files a/%s and b/%s differ (too large to diff)\n", path, path);
		error = 0;
		goto cleanup;
	}
	if (gs_read_file(&buf, &len, full, DIFF_MAX) < 0)
		goto cleanup;
	if (git_patch_from_blob_and_buffer(&patch, blob, path, buf, len, path, &opts) < 0 ||
	    git_patch_to_buf(&text, patch) < 0) {
		store_git_error("cannot diff '%s'", path);
		goto cleanup;
	}
	*out = xstrdup(text.ptr ? text.ptr : "");
	error = 0;
cleanup:
	git_buf_dispose(&text);
	git_patch_free(patch);
	git_blob_free(blob);
	free(buf);
	free(full);
	free(why);
	return error;
}
