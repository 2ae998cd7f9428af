/*
 * worktree.c - repository-relative paths and blobs of working tree files.
 */
#include "git-session/worktree.h"
#include "git-session/json.h"
#include "git-session/util.h"
#include "store-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int worktree_relpath(char **out, gs_store *st, const char *arg)
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
	if (arg[0] == '/') {
		abs = xstrdup(arg);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return gs_error("cannot read the current directory: %s", strerror(errno));
		abs = xstrfmt("%s/%s", cwd, arg);
	}
	norm = lexical_normalize(abs);
	wlen = strlen(wd);
	if (wlen && wd[wlen - 1] == '/')
		wlen--;
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

int worktree_record(cJSON *files, gs_store *st, const char *path, const char *status,
		    int allow_missing)
{
	char *full = xstrfmt("%s%s", store_workdir(st), path);
	char hex[HEX_SZ];
	struct stat s;
	git_oid id;
	cJSON *e;
	int error = GS_ERROR;

	if (lstat(full, &s) < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			gs_error("cannot read '%s': %s", path, strerror(errno));
			goto cleanup;
		}
		if (!allow_missing) {
			gs_error("'%s' does not exist", path);
			goto cleanup;
		}
		e = json_set(files, path, cJSON_CreateObject());
		json_set_str(e, "status", "deleted");
		error = 0;
		goto cleanup;
	}
	if (S_ISDIR(s.st_mode)) {
		gs_error("'%s' is a directory", path);
		goto cleanup;
	}
	if (git_blob_create_from_workdir(&id, st->repo, path) < 0) {
		store_git_error("cannot read '%s'", path);
		goto cleanup;
	}
	git_oid_tostr(hex, sizeof(hex), &id);
	e = json_set(files, path, cJSON_CreateObject());
	json_set_str(e, "status", status ? status : "modified");
	json_set_str(e, "oid", hex);
	json_set_num(e, "size", (double)s.st_size);
	json_set_num(e, "mtime", (double)s.st_mtim.tv_sec * 1e3 + (double)(s.st_mtim.tv_nsec / 1000000));
	json_set_num(e, "ino", (double)s.st_ino);
	error = 0;
cleanup:
	free(full);
	return error;
}
