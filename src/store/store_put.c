/*
 * store_put.c - writing a blob back into the working tree for restore,
 * as git checkout writes it: through the filters, by a temporary and a
 * rename, never through a symbolic link; and the check of a blob before
 * anything is written.
 */
#include "git-session/store_run.h"
#include "git-session/store_worktree.h"
#include "git-session/util.h"
#include "store-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folders on path's way, made as needed; never through a symbolic link (store_not_in_tree checked that). */
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
	struct stat a, b;
	size_t mark = gs_error_mark();	/* no folder there: the temporary goes beside full */
	int made;

	*strrchr(parent, '/') = '\0';
	made = gs_make_dirs(store_gitdir(st), PUT_TMP_DIR) == 0;
	gs_error_rewind(mark);
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

	if ((driver = store_filter_driver(st, path, "smudge", &builtin))) {
		struct sbuf sb = SBUF_INIT;
		char *arg = xstrfmt("--path=%s", path);
		const char *args[] = { "git", "cat-file", "--filters", arg, hex, NULL };

		git_oid_tostr(hex, sizeof(hex), git_blob_id(blob));
		error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .out = &sb, .must_succeed = 1 });
		if (!error && gs_write_in_full(fd, sb.buf ? sb.buf : "", sb.len) < 0)
			error = GS_ERROR;
		sbuf_release(&sb);
		free(arg);
		free(driver);
		return error;
	}
	if (!builtin)	/* nothing would filter it: as it is */
		return gs_write_in_full(fd, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) < 0 ? GS_ERROR : 0;
	if ((error = store_attr_index_begin(st)) == 0 &&
	    (error = git_filter_list_load(&fl, st->repo, blob, path, GIT_FILTER_TO_WORKTREE, GIT_FILTER_DEFAULT)) == 0) {
		if (fl)
			error = git_filter_list_stream_blob(fl, blob, &out.parent);
		else
			error = gs_write_in_full(fd, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) < 0 ? GS_ERROR : 0;
	}
	store_attr_index_end(st);
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
	char *full = xstrfmt("%s%s", store_workdir(st), path), *why = store_not_in_tree(st, path);
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
		error = put_file(st, full, path, blob, mode && !strcmp(mode, STORE_MODE_EXEC) ? 0777 : 0666,
				 mode && !strcmp(mode, STORE_MODE_LINK));
	}
	git_blob_free(blob);
	free(full);
	free(why);
	return error;
}

int store_worktree_blob_check(char **why, gs_store *st, const char *hex, const char *mode)
{
	int link = mode && !strcmp(mode, STORE_MODE_LINK);
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
