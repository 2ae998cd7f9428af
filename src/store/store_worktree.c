/*
 * store_worktree.c - repository-relative paths and blobs of working tree
 * files, tree comparisons, and git run as a process. Store layer: libgit2.
 */
#include "git-session/store_worktree.h"
#include "git-session/json.h"
#include "git-session/schema.h"
#include "git-session/util.h"
#include "store-internal.h"

#include <git2/sys/repository.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <spawn.h>
#include <sys/wait.h>
#include <limits.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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
static char *not_in_tree(gs_store *st, const char *path)
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
	return S_ISLNK(s->st_mode) ? FILE_MODE_LINK : s->st_mode & 0100 ? FILE_MODE_EXEC : FILE_MODE_FILE;
}

static double mtime_ms(const struct stat *s)
{
	return (double)s->st_mtim.tv_sec * 1e3 + (double)(s->st_mtim.tv_nsec / 1000000);
}

/*
 * libgit2 reads the whole index to look for .gitattributes there as well
 * as in the working tree (it applies none it finds only in the index:
 * libgit2 1.5 gives the same blob with or without this), and reading an
 * index of 100,000 entries costs more than all else recording a file
 * does. In its place the store hands it an empty one, for as long as the
 * blob takes; attr_index_end puts the repository's own back.
 */
static int attr_index_begin(gs_store *st)
{
	git_index *index = NULL;
	int error;

	if ((error = git_index_new(&index)) == 0)
		error = git_repository_set_index(st->repo, index);
	git_index_free(index);
	return error;
}

static void attr_index_end(gs_store *st)
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
static char *filter_driver(gs_store *st, const char *path, const char *which, int *builtin)
{
	static const char *names[] = { "filter", "text", "eol", "crlf", "ident" };
	const char *values[ARRAY_SIZE(names)] = { NULL };
	git_config_entry *e = NULL;
	char *name = NULL, *key;
	int rc;

	if ((rc = attr_index_begin(st)) == 0)
		rc = git_attr_get_many(values, st->repo, 0, path, ARRAY_SIZE(names), names);
	attr_index_end(st);
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
	int error = store_worktree_run_git(&out, st, args);

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

/* files' entry for path, new: replacing the one there, or appended (no lookup) when fresh. */
static cJSON *new_entry(cJSON *files, const char *path, int fresh)
{
	cJSON *e = cJSON_CreateObject();

	if (fresh)
		cJSON_AddItemToObject(files, path, e);
	else
		json_set(files, path, e);
	return e;
}

/*
 * Whether known (a manifest entry) recorded the file s describes: same
 * size, mtime, inode and mode. Its blob then goes in *id, as git trusts
 * an index entry whose stat data has not changed.
 */
static int known_blob(git_oid *id, const cJSON *known, const struct stat *s)
{
	const char *mode = json_str(known, "mode");

	return known && json_num(known, "size", -1) == (double)s->st_size &&
	       json_num(known, "ino", -1) == (double)s->st_ino && json_num(known, "mtime", -1) == mtime_ms(s) &&
	       !strcmp(mode ? mode : FILE_MODE_FILE, file_mode(s)) && json_str(known, "oid") &&
	       strlen(json_str(known, "oid")) == GIT_OID_HEXSZ && git_oid_fromstr(id, json_str(known, "oid")) == 0;
}

static int record(cJSON *files, gs_store *st, const char *path, const char *status, int allow_missing,
		  int fresh, const cJSON *known)
{
	char *full = xstrfmt("%s%s", store_workdir(st), path), *why = not_in_tree(st, path), *driver = NULL;
	char hex[HEX_SZ];
	struct stat s;
	git_oid id;
	cJSON *e;
	int error = GS_ERROR, gone, rc;

	if (why && !allow_missing) {
		gs_error("%s", why);
		goto cleanup;
	}
	gone = why || lstat(full, &s) < 0;
	if (gone && !why && errno != ENOENT && errno != ENOTDIR) {
		gs_error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (allow_missing && !why && (gone || !S_ISREG(s.st_mode)) && skip_worktree(st, path)) {
		error = 0;	/* outside the sparse checkout: as it was recorded */
		goto cleanup;
	}
	/* re-recording what the manifest holds: what is no longer a file here is gone, as git sees it */
	if (allow_missing && !gone && !S_ISREG(s.st_mode) && !S_ISLNK(s.st_mode))
		gone = 1;
	if (gone) {
		if (!allow_missing) {
			gs_error("'%s' does not exist", path);
			goto cleanup;
		}
		e = new_entry(files, path, fresh);
		json_set_str(e, "status", ST_DELETED);
		error = 0;
		goto cleanup;
	}
	if (S_ISDIR(s.st_mode)) {
		gs_error("'%s' is a directory", path);
		goto cleanup;
	}
	if (!S_ISREG(s.st_mode) && !S_ISLNK(s.st_mode)) {
		gs_error("'%s' is not a regular file", path);
		goto cleanup;
	}
	if (known_blob(&id, known, &s)) {
		rc = 0;	/* unchanged since it was recorded: not read again */
	} else if ((driver = S_ISREG(s.st_mode) ? filter_driver(st, path, "clean", NULL) : NULL)) {
		rc = driver_hash(&id, st, path, 1);
	} else {
		if ((rc = attr_index_begin(st)) == 0)
			rc = git_blob_create_from_workdir(&id, st->repo, path);
		attr_index_end(st);
	}
	if (rc < 0) {
		store_git_error("cannot read '%s'", path);
		goto cleanup;
	}
	git_oid_tostr(hex, sizeof(hex), &id);
	e = new_entry(files, path, fresh);
	json_set_str(e, "status", status ? status : ST_MODIFIED);
	json_set_str(e, "oid", hex);
	if (strcmp(file_mode(&s), FILE_MODE_FILE))
		json_set_str(e, "mode", file_mode(&s));
	/*
	 * The stat cache: a later resume trusts an unchanged stat and does
	 * not read the file. A file changed in the last second could change
	 * again within its mtime's granularity ("racily clean", as git
	 * says): it gets no cache, so it is always read.
	 */
	if (time(NULL) - s.st_mtim.tv_sec > 1) {
		json_set_num(e, "size", (double)s.st_size);
		json_set_num(e, "mtime", mtime_ms(&s));
		json_set_num(e, "ino", (double)s.st_ino);
	}
	error = 0;
cleanup:
	free(full);
	free(why);
	free(driver);
	return error;
}

int store_worktree_record(cJSON *files, gs_store *st, const char *path, const char *status, int allow_missing)
{
	return record(files, st, path, status, allow_missing, 0, NULL);
}

int store_worktree_record_new(cJSON *files, gs_store *st, const char *path, const char *status,
			      const cJSON *known)
{
	return record(files, st, path, status, 1, 1, known);
}

/* The folders on path's way, made as needed; never through a symbolic link (not_in_tree checked that). */
static int make_parents(gs_store *st, const char *path)
{
	struct sbuf dir = SBUF_INIT;
	int error = 0;
	struct stat s;

	sbuf_adds(&dir, store_workdir(st));
	for (const char *p = path, *slash; !error && (slash = strchr(p, '/')); p = slash + 1) {
		sbuf_add(&dir, p, (size_t)(slash - p));
		if (lstat(dir.buf, &s) < 0 && mkdir(dir.buf, 0777) < 0 && errno != EEXIST)
			error = gs_error("cannot make the folder of '%s': %s", path, strerror(errno));
		else if (lstat(dir.buf, &s) == 0 && !S_ISDIR(s.st_mode))
			error = gs_error("cannot write '%s': '%.*s' is not a folder", path, (int)(slash - path), path);
		sbuf_addch(&dir, '/');
	}
	sbuf_release(&dir);
	return error;
}

#define PUT_TMP_DIR "git-session/restore"

/* Temporaries a writer killed on its way left in PUT_TMP_DIR: those of processes that are gone. */
static void clear_dead_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		long pid = strtol(e->d_name, NULL, 10);
		char *path;

		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* a writer still at work */
		path = xstrfmt("%s/%s", dir, e->d_name);
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
}

/*
 * A temporary for full: in $GIT_DIR/git-session/restore when that is on
 * the file system of full's folder (a kill leaves nothing in the working
 * tree, and the next writer clears it), else beside full.
 */
static char *put_temp(gs_store *st, const char *full)
{
	static unsigned seq;
	char *dir = xstrfmt("%s" PUT_TMP_DIR, store_gitdir(st)), *parent = xstrdup(full), *tmp;
	struct sbuf quiet = SBUF_INIT;
	struct stat a, b;
	int made;

	*strrchr(parent, '/') = '\0';
	gs_capture_errors(&quiet);	/* no folder there: the temporary goes beside full */
	made = gs_make_dirs(store_gitdir(st), PUT_TMP_DIR) == 0;
	gs_capture_errors(NULL);
	sbuf_release(&quiet);
	if (made && stat(dir, &a) == 0 && stat(parent, &b) == 0 && a.st_dev == b.st_dev) {
		if (!seq)
			clear_dead_temps(dir);
		tmp = xstrfmt("%s/%ld.%u", dir, (long)getpid(), seq++);
	} else {
		tmp = xstrfmt("%s.tmp.%ld", full, (long)getpid());
	}
	free(dir);
	free(parent);
	return tmp;
}

/* libgit2 writes a filtered blob into this: straight into the temporary, no copy of the whole. */
struct fd_stream {
	git_writestream parent;
	int fd;
};

static int fd_stream_write(git_writestream *s, const char *buf, size_t len)
{
	return gs_write_in_full(((struct fd_stream *)s)->fd, buf, len) < 0 ? -1 : 0;
}

static int fd_stream_close(git_writestream *s)
{
	(void)s;
	return 0;
}

static void fd_stream_free(git_writestream *s)
{
	(void)s;
}

/*
 * The blob's bytes into fd as `git checkout` writes them: through the
 * eol/crlf and ident filters .gitattributes asks for, and through git
 * itself when a filter driver is configured. A blob no filter applies
 * to (a binary one among them) is written as it is.
 */
static int write_blob(int fd, gs_store *st, git_blob *blob, const char *path)
{
	struct fd_stream out = { { fd_stream_write, fd_stream_close, fd_stream_free }, fd };
	git_filter_list *fl = NULL;
	char hex[HEX_SZ], *driver;
	int error, builtin = 1;

	if ((driver = filter_driver(st, path, "smudge", &builtin))) {
		struct sbuf sb = SBUF_INIT;
		char *arg = xstrfmt("--path=%s", path);
		const char *args[] = { "git", "cat-file", "--filters", arg, hex, NULL };

		git_oid_tostr(hex, sizeof(hex), git_blob_id(blob));
		error = store_worktree_run_git(&sb, st, args);
		if (!error && gs_write_in_full(fd, sb.buf ? sb.buf : "", sb.len) < 0)
			error = GS_ERROR;
		sbuf_release(&sb);
		free(arg);
		free(driver);
		return error;
	}
	if (!builtin)	/* nothing would filter it: as it is */
		return gs_write_in_full(fd, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) < 0 ? GS_ERROR : 0;
	if ((error = attr_index_begin(st)) == 0 &&
	    (error = git_filter_list_load(&fl, st->repo, blob, path, GIT_FILTER_TO_WORKTREE, GIT_FILTER_DEFAULT)) == 0) {
		if (fl)
			error = git_filter_list_stream_blob(fl, blob, &out.parent);
		else
			error = gs_write_in_full(fd, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) < 0 ? GS_ERROR : 0;
	}
	attr_index_end(st);
	git_filter_list_free(fl);
	return error;
}

/* The blob at full, a file of mode (0666 or 0777) or a symbolic link, by a temporary and a rename. */
static int put_file(gs_store *st, const char *full, const char *path, git_blob *blob, int mode, int link)
{
	char *tmp = put_temp(st, full);
	char *to = link ? xstrndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) : NULL;
	int fd = -1, failed;

	errno = 0;
	if (link) {
		failed = symlink(to, tmp) < 0;
	} else {
		failed = (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode)) < 0 ||
			 write_blob(fd, st, blob, path) < 0 || (st->fsync && fsync(fd) < 0);
		if (fd >= 0 && close(fd) < 0)
			failed = 1;
	}
	if (failed || rename(tmp, full) < 0) {
		if (errno || !git_error_last())
			gs_error("cannot write '%s': %s", path, errno ? strerror(errno) : "filter failed");
		else
			store_git_error("cannot write '%s'", path);
		unlink(tmp);
		failed = 1;
	}
	free(tmp);
	free(to);
	return failed ? GS_ERROR : 0;
}

int store_worktree_put(gs_store *st, const char *path, const char *hex, const char *mode)
{
	char *full = xstrfmt("%s%s", store_workdir(st), path), *why = not_in_tree(st, path);
	git_blob *blob = NULL;
	git_oid id;
	struct stat s;
	int error = GS_ERROR, have = lstat(full, &s) == 0;

	if (why) {
		gs_error("%s", why);
	} else if (have && S_ISDIR(s.st_mode)) {
		gs_error("'%s' is a folder in the working tree", path);
	} else if (!hex) {
		error = unlink(full) < 0 && errno != ENOENT ? gs_error("cannot remove '%s': %s", path, strerror(errno)) : 0;
		for (char *slash; !error && (slash = strrchr(full, '/')) && slash > full + strlen(store_workdir(st));) {
			*slash = '\0';	/* folders left empty go too, as git checkout removes them */
			if (rmdir(full) < 0)
				break;
		}
	} else if (git_oid_fromstr(&id, hex) < 0 || git_blob_lookup(&blob, st->repo, &id) < 0) {
		store_git_error("cannot read the blob %s of '%s'", hex, path);
	} else if (make_parents(st, path) == 0) {
		error = put_file(st, full, path, blob, mode && !strcmp(mode, FILE_MODE_EXEC) ? 0777 : 0666,
				 mode && !strcmp(mode, FILE_MODE_LINK));
	}
	git_blob_free(blob);
	free(full);
	free(why);
	return error;
}

int store_worktree_blob_check(char **why, gs_store *st, const char *hex, const char *mode)
{
	int link = mode && !strcmp(mode, FILE_MODE_LINK);
	git_blob *blob = NULL;
	git_odb *odb = NULL;
	git_object_t type = GIT_OBJECT_INVALID;
	size_t len;
	git_oid id;
	int rc;

	*why = NULL;
	if (!hex || strlen(hex) != GIT_OID_HEXSZ || strspn(hex, "0123456789abcdef") != GIT_OID_HEXSZ ||
	    git_oid_fromstr(&id, hex) < 0) {
		*why = xstrfmt("'%s' is not a blob id", hex ? hex : "");
	} else if (git_repository_odb(&odb, st->repo) < 0) {
		*why = xstrfmt("cannot read the object database: %s", git_error_last() ? git_error_last()->message : "?");
	} else if ((rc = git_odb_read_header(&len, &type, odb, &id)) < 0) {
		char missing[GIT_OID_HEXSZ + 1];

		if (rc == GIT_ENOTFOUND && store_missing_object(missing))
			*why = xstrfmt("object %s is not in this partial clone: git has not fetched it yet "
				       "('git cat-file -e %s' fetches it)", hex, hex);
		else
			*why = xstrfmt(rc == GIT_ENOTFOUND ? "blob %s is missing from the repository" : "cannot read blob %s", hex);
	} else if (type != GIT_OBJECT_BLOB) {
		*why = xstrfmt("%s is a %s, not a blob", hex, git_object_type2string(type));
	} else if (link && (!len || len >= PATH_MAX)) {
		*why = xstrfmt("blob %s is no symbolic link's target", hex);
	} else if (link && git_blob_lookup(&blob, st->repo, &id) == 0 &&
		   memchr(git_blob_rawcontent(blob), '\0', (size_t)git_blob_rawsize(blob))) {
		*why = xstrfmt("blob %s is no symbolic link's target", hex);
	}
	git_blob_free(blob);
	git_odb_free(odb);
	git_error_clear();
	return *why ? GS_ERROR : 0;
}

int store_worktree_last_commit(char **out, gs_store *st, const char *path)
{
	const char *args[] = { "git", "--literal-pathspecs", "log", "-1", "--no-show-signature",
			       "--format=%h \"%s\"", "--", path, NULL };
	struct sbuf sb = SBUF_INIT;
	int rc = store_worktree_git_rc(&sb, st, args);

	*out = NULL;
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	if (rc == 0 && sb.len)
		*out = sbuf_detach(&sb, NULL);
	sbuf_release(&sb);
	return rc == 0 ? 0 : GS_ERROR;
}

/* The blob id of a file as git would store it: a symlink is its target's name. */
static int hash_path(git_oid *id, gs_store *st, const char *path, const char *full, const struct stat *s)
{
	char target[4096], *driver;
	ssize_t n;
	int error;

	if (!S_ISLNK(s->st_mode) && (driver = filter_driver(st, path, "clean", NULL))) {
		error = driver_hash(id, st, path, 0);
		free(driver);
		return error;
	}
	if (!S_ISLNK(s->st_mode)) {
		if ((error = attr_index_begin(st)) == 0)
			error = git_repository_hashfile(id, st->repo, path, GIT_OBJECT_BLOB, NULL);
		attr_index_end(st);
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
	if ((why = not_in_tree(st, path))) {	/* never followed: as git sees it, not here */
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
	} else if (json_set_str(f, "mode", file_mode(&s)) &&
		   json_num(rec, "size", -1) == (double)s.st_size &&
		   json_num(rec, "ino", -1) == (double)s.st_ino &&
		   json_num(rec, "mtime", -1) == mtime_ms(&s)) {
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

static cJSON *commit_list(gs_store *st, const git_oid *head, const git_oid *recorded, int rec_ok,
			  int max, size_t *count)
{
	cJSON *arr = cJSON_CreateArray();
	git_revwalk *walk = NULL;
	git_oid id;

	*count = 0;
	if (git_revwalk_new(&walk, st->repo) < 0 || git_revwalk_push(walk, head) < 0 ||
	    (rec_ok && git_revwalk_hide(walk, recorded) < 0))
		goto done;
	while (git_revwalk_next(&id, walk) == 0) {
		git_commit *c = NULL;
		char hex[HEX_SZ];

		if ((int)++*count > max)
			continue;
		cJSON *o = cJSON_CreateObject();
		git_oid_tostr(hex, sizeof(hex), &id);
		json_set_str(o, "id", hex);
		if (git_commit_lookup(&c, st->repo, &id) == 0)
			json_set_str(o, "subject", git_commit_summary(c));
		git_commit_free(c);
		cJSON_AddItemToArray(arr, o);
	}
done:
	git_revwalk_free(walk);
	git_error_clear();
	return arr;
}

int store_worktree_project(cJSON **out, gs_store *st, const char *recorded_branch,
		     const char *recorded_head, int max)
{
	cJSON *branch, *head;
	char now[HEX_SZ], *current = NULL, *ref;
	git_oid h, r;
	git_commit *rc = NULL;
	size_t n = 0;
	int has_head, rec_ok;

	*out = NULL;
	if (store_head(&current, now, st) < 0)
		return GS_ERROR;
	*out = cJSON_CreateObject();
	branch = json_set(*out, "branch", cJSON_CreateObject());
	json_set_str(branch, "current", current);
	json_set_str(branch, "recorded", recorded_branch);
	ref = xstrfmt("refs/heads/%s", recorded_branch ? recorded_branch : "");
	json_set_bool(branch, "recorded_exists", recorded_branch &&
		      (!strcmp(recorded_branch, "HEAD") || store_ref_exists(st, ref)));
	free(ref);
	head = json_set(*out, "head", cJSON_CreateObject());
	json_set_str(head, "current", now);
	json_set_str(head, "recorded", recorded_head);
	has_head = git_oid_fromstr(&h, now) == 0 && !git_oid_is_zero(&h);
	rec_ok = recorded_head && git_oid_fromstr(&r, recorded_head) == 0 && !git_oid_is_zero(&r) &&
		 git_commit_lookup(&rc, st->repo, &r) == 0;
	git_commit_free(rc);
	git_error_clear();
	json_set_bool(head, "recorded_exists", rec_ok);
	json_set(head, "commits", has_head ? commit_list(st, &h, &r, rec_ok, max, &n) : cJSON_CreateArray());
	json_set_num(head, "new_commits", (double)n);
	json_set_bool(head, "descends", !rec_ok ? !has_head && !recorded_head :
		      git_oid_equal(&h, &r) || git_graph_descendant_of(st->repo, &h, &r) == 1);
	free(current);
	return 0;
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
	if ((why = not_in_tree(st, path))) {	/* never read through a symbolic link */
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

/* Runs git with args in the working tree; its standard output into out. */
static int run_git_in(struct sbuf *out, const char *dir, const char *const *args);
static int run_git(struct sbuf *out, struct sbuf *err, const char *dir, const char *const *args, char *const *envp,
		   int timeout_ms);

int store_worktree_run_git(struct sbuf *out, gs_store *st, const char *const *args)
{
	int rc = store_worktree_git_rc(out, st, args);

	if (rc > 0)
		gs_error("'git %s' failed", args[1]);
	return rc ? GS_ERROR : 0;
}

int store_worktree_git_rc(struct sbuf *out, gs_store *st, const char *const *args)
{
	return run_git_in(out, st ? (store_workdir(st) ? store_workdir(st) : store_gitdir(st)) : NULL, args);
}

int store_git_config_bool(int *out, const char *key, int def)
{
	const char *args[] = { "git", "config", "--bool", "--get", key, NULL };
	struct sbuf sb = SBUF_INIT;
	int rc = run_git_in(&sb, NULL, args);

	*out = rc == 0 && sb.buf ? !strncmp(sb.buf, "true", 4) : def;
	sbuf_release(&sb);
	return rc < 0 ? rc : 0;
}

/* Runs git in dir (NULL: here) with stdout into out: git's exit code, or GS_ERROR. */
static int run_git_in(struct sbuf *out, const char *dir, const char *const *args)
{
	return run_git(out, NULL, dir, args, environ, 0);
}

int store_worktree_git_env(struct sbuf *out, gs_store *st, const char *const *args, const char *const *env,
			   int timeout_ms)
{
	char **envp;
	size_t n = 0, m = 0;
	int rc;

	while (environ[n])
		n++;
	while (env[m])
		m++;
	envp = xcalloc(n + m + 1, sizeof(*envp));
	memcpy(envp, env, m * sizeof(*envp));	/* first: getenv finds the first of a name */
	memcpy(envp + m, environ, n * sizeof(*envp));
	rc = run_git(out, NULL, store_workdir(st) ? store_workdir(st) : store_gitdir(st), args, envp, timeout_ms);
	free(envp);
	return rc;
}

int store_worktree_git_err(struct sbuf *out, struct sbuf *err, gs_store *st, const char *const *args)
{
	return run_git(out, err, store_workdir(st) ? store_workdir(st) : store_gitdir(st), args, environ, 0);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before deadline (0: none, so -1 for poll), at least 0. */
static int left_ms(int64_t deadline)
{
	int64_t left;

	if (!deadline)
		return -1;
	left = deadline - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* A child git: its pid, the pipe of its output, and what tells of its end or of ours (-1: none). */
struct child {
	pid_t pid;
	int out, pidfd, sigfd;
};

/*
 * Collects the child's output, and its end into *status, by the deadline
 * if there is one (0: none). Its pidfd (-1 when the kernel gives none:
 * then it is looked at every 10 ms) says when it ended. -1 at the
 * deadline, or when SIGINT, SIGTERM or SIGHUP came for us meanwhile.
 */
static int collect(int *status, struct sbuf *out, struct child *c, int64_t deadline)
{
	char buf[65536];
	int ended = 0, fd = c->out;

	while (!(fd < 0 && (ended || !deadline))) {
		struct pollfd p[3] = { { fd, POLLIN, 0 }, { ended ? -1 : c->pidfd, POLLIN, 0 }, { c->sigfd, POLLIN, 0 } };
		int wait = left_ms(deadline);
		ssize_t n;

		if (deadline && c->pidfd < 0 && !ended && (wait < 0 || wait > 10))
			wait = 10;
		if ((poll(p, 3, wait) < 0 && errno != EINTR) || p[2].revents)
			return -1;
		if (p[0].revents) {
			if ((n = read(fd, buf, sizeof(buf))) > 0)
				sbuf_add(out, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				fd = -1;	/* the caller closes it */
		}
		if (deadline && !ended && (c->pidfd < 0 || p[1].revents) && waitpid(c->pid, status, WNOHANG) == c->pid)
			ended = 1;
		if (deadline && !left_ms(deadline) && !(fd < 0 && ended))
			return -1;
	}
	while (!ended && waitpid(c->pid, status, 0) < 0)
		if (errno != EINTR) {
			*status = 128 << 8;
			break;
		}
	return 0;
}

/*
 * With a deadline, git runs in a process group of its own, with nothing
 * on its standard input (unattended: and the MCP server's is its protocol).
 * SIGINT, SIGTERM and SIGHUP wait, watched, while it runs: one that comes
 * kills the group before it takes its course, so no signer is left behind.
 */
static void unattended(posix_spawn_file_actions_t *fa, posix_spawnattr_t *attr, struct child *c, sigset_t *saved)
{
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, saved);
	c->sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawnattr_setpgroup(attr, 0);
	posix_spawnattr_setsigmask(attr, saved);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
}

/* Appends what file holds to sb. */
static void slurp_file(struct sbuf *sb, FILE *f)
{
	char buf[65536];
	size_t got;

	rewind(f);
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(sb, buf, got);
}

/*
 * Runs git; its standard error into err (NULL: the user's), through a
 * file, so that no pipe fills up. At the deadline (0: none) kills its
 * whole process group (git and what it started: a signer). GS_ETIMEDOUT
 * then; else git's exit code, or GS_ERROR.
 */
static int run_git(struct sbuf *out, struct sbuf *err, const char *dir, const char *const *args, char *const *envp,
		   int timeout_ms)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct child c = { 0, -1, -1, -1 };
	int fds[2], status, rc, error = GS_ERROR;
	int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	FILE *errf = NULL;
	sigset_t saved;

	if ((err && !(errf = tmpfile())) || pipe2(fds, O_CLOEXEC) < 0) {
		error = gs_error("cannot run git: %s", strerror(errno));
		if (errf)
			fclose(errf);
		return error;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	if (errf) {
		posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
		posix_spawn_file_actions_addclose(&fa, fileno(errf));
	}
	if (dir)
		posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (deadline)
		unattended(&fa, &attr, &c, &saved);
	rc = posix_spawnp(&c.pid, "git", &fa, &attr, (char *const *)args, envp);
	close(fds[1]);
	c.out = fds[0];
	if (rc != 0) {
		gs_error("cannot run git: %s", strerror(rc));
		goto cleanup;
	}
	if (deadline)
		c.pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
	if (collect(&status, out, &c, deadline) < 0) {
		kill(deadline ? -c.pid : c.pid, SIGKILL);	/* the group is git's own only with a deadline */
		while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
			;
		error = deadline ? GS_ETIMEDOUT : gs_error("cannot run git: %s", strerror(errno));
	} else {
		error = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	}
	if (errf)
		slurp_file(err, errf);
cleanup:
	close(fds[0]);
	if (c.pidfd >= 0)
		close(c.pidfd);
	if (c.sigfd >= 0)
		close(c.sigfd);
	if (deadline)	/* a signal that came is delivered now */
		sigprocmask(SIG_SETMASK, &saved, NULL);
	if (errf)
		fclose(errf);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return error;
}

int store_worktree_staged(cJSON **out, gs_store *st)
{
	static const char *const args[] = {
		"git", "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", NULL,
	};
	struct sbuf raw = SBUF_INIT;
	const char *p, *end;
	int error;

	*out = NULL;
	if (!store_workdir(st))
		return gs_error("this operation must be run in a work tree");
	if ((error = store_worktree_run_git(&raw, st, args)) < 0)
		goto cleanup;
	*out = cJSON_CreateObject();
	/* records: ":<mode> <mode> <oid> <oid> <status>\0<path>\0" */
	for (p = raw.buf, end = raw.buf + raw.len; p && p < end;) {
		const char *path = memchr(p, '\0', (size_t)(end - p));
		char oid[HEX_SZ], status;
		cJSON *e;

		if (!path || path + 1 >= end || *p != ':' || path - p < 97) {
			error = gs_error("cannot read what git diff --cached says");
			break;
		}
		path++;
		memcpy(oid, p + 56, 40);
		oid[40] = '\0';
		status = p[97];
		e = cJSON_CreateObject();
		cJSON_AddItemToObject(*out, path, e);
		json_set_str(e, "status", status == 'D' ? "deleted" : status == 'A' ? "created" : "modified");
		if (status != 'D')
			json_set_str(e, "oid", oid);
		p = path + strlen(path) + 1;
	}
cleanup:
	sbuf_release(&raw);
	return error;
}

/* git's tree order: a tree's name sorts as if it ended in '/'. */
static int entry_cmp(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *na = git_tree_entry_name(a), *nb = git_tree_entry_name(b);
	size_t la = strlen(na), lb = strlen(nb);
	int c = memcmp(na, nb, la < lb ? la : lb);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = la > lb ? (unsigned char)na[lb] : git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	cb = lb > la ? (unsigned char)nb[la] : git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return ca - cb;
}

static void commit_file(cJSON *files, const char *path, const git_tree_entry *from,
			const git_tree_entry *to)
{
	cJSON *e = cJSON_CreateObject();
	char oid[HEX_SZ];

	if (!to) {
		json_set_str(e, "status", ST_DELETED);
	} else {
		git_oid_tostr(oid, sizeof(oid), git_tree_entry_id(to));
		json_set_str(e, "status", from ? "modified" : "created");
		json_set_str(e, "oid", oid);
	}
	cJSON_AddItemToObject(files, path, e);
}

static int diff_trees(cJSON *files, git_repository *repo, struct sbuf *path,
		      const git_tree *a, const git_tree *b);

/* One name on either side (a or b may be NULL); recurses into trees. */
static int diff_entry(cJSON *files, git_repository *repo, struct sbuf *path,
		      const git_tree_entry *a, const git_tree_entry *b)
{
	const git_tree_entry *e = a ? a : b;
	size_t len = path->len;
	int error = 0;

	if (a && b && git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)) &&
	    git_tree_entry_filemode(a) == git_tree_entry_filemode(b))
		return 0;
	if (git_tree_entry_filemode(e) == GIT_FILEMODE_COMMIT)
		return 0;	/* a submodule: its commits are not ours to record */
	sbuf_adds(path, git_tree_entry_name(e));
	if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		git_tree *ta = NULL, *tb = NULL;

		sbuf_addch(path, '/');
		if ((a && git_tree_lookup(&ta, repo, git_tree_entry_id(a)) < 0) ||
		    (b && git_tree_lookup(&tb, repo, git_tree_entry_id(b)) < 0))
			error = GS_ERROR;
		else
			error = diff_trees(files, repo, path, ta, tb);
		git_tree_free(ta);
		git_tree_free(tb);
	} else {
		commit_file(files, path->buf, a, b);
	}
	path->len = len;
	path->buf[len] = '\0';
	return error;
}

/* Walks both trees in order and descends only where they differ. */
static int diff_trees(cJSON *files, git_repository *repo, struct sbuf *path,
		      const git_tree *a, const git_tree *b)
{
	size_t na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0, i = 0, j = 0;
	int error = 0;

	while (!error && (i < na || j < nb)) {
		const git_tree_entry *ea = i < na ? git_tree_entry_byindex(a, i) : NULL;
		const git_tree_entry *eb = j < nb ? git_tree_entry_byindex(b, j) : NULL;
		int c = !ea ? 1 : !eb ? -1 : entry_cmp(ea, eb);

		error = diff_entry(files, repo, path, c <= 0 ? ea : NULL, c >= 0 ? eb : NULL);
		i += c <= 0;
		j += c >= 0;
	}
	return error;
}

int store_worktree_commit(char **subject, cJSON **files, gs_store *st, const char *oid)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *tree = NULL, *old = NULL;
	struct sbuf path = SBUF_INIT;
	git_oid id;
	int error = 0;

	*subject = NULL;
	*files = cJSON_CreateObject();
	sbuf_add(&path, "", 0);
	/* libgit2's tree diff reads every subtree: this one skips equal ones */
	if (git_oid_fromstr(&id, oid) < 0 || git_commit_lookup(&c, st->repo, &id) < 0 ||
	    git_commit_tree(&tree, c) < 0 ||
	    (git_commit_parentcount(c) && (git_commit_parent(&parent, c, 0) < 0 ||
					   git_commit_tree(&old, parent) < 0)) ||
	    diff_trees(*files, st->repo, &path, old, tree) < 0) {
		error = store_git_error("cannot read commit %s", oid);
		cJSON_Delete(*files);
		*files = NULL;
		goto cleanup;
	}
	*subject = xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
cleanup:
	sbuf_release(&path);
	git_tree_free(old);
	git_tree_free(tree);
	git_commit_free(parent);
	git_commit_free(c);
	return error;
}

int store_worktree_hooks_dir(char **out, int *from_config, gs_store *st)
{
	git_buf buf = GIT_BUF_INIT;
	const char *wd = store_workdir(st);

	*out = NULL;
	*from_config = 0;
	/* libgit2 1.5 ignores core.hooksPath: git does not */
	if (git_config_get_path(&buf, st->config, "core.hookspath") == 0 && buf.ptr && *buf.ptr) {
		*from_config = 1;
		*out = buf.ptr[0] == '/' || !wd ? xstrdup(buf.ptr) : xstrfmt("%s%s", wd, buf.ptr);
	} else {
		*out = xstrfmt("%shooks", git_repository_commondir(st->repo));
	}
	git_buf_dispose(&buf);
	git_error_clear();
	return 0;
}

const char *store_worktree_busy(gs_store *st)
{
	switch (git_repository_state(st->repo)) {
	case GIT_REPOSITORY_STATE_NONE: return NULL;
	case GIT_REPOSITORY_STATE_MERGE: return "a merge";
	case GIT_REPOSITORY_STATE_REVERT:
	case GIT_REPOSITORY_STATE_REVERT_SEQUENCE: return "a revert";
	case GIT_REPOSITORY_STATE_CHERRYPICK:
	case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE: return "a cherry-pick";
	case GIT_REPOSITORY_STATE_BISECT: return "a bisect";
	default: return "a rebase or am";
	}
}
