/*
 * store.c - the repository itself: opening it, its configuration (with
 * `git -c` from GIT_CONFIG_PARAMETERS), HEAD and the project, a merge in
 * progress, stale ref locks, and git-session's own files in the git
 * directory. The store is src/store/: the only code that calls libgit2
 * (tools/check-layers.sh checks it); reading checkpoints is store_read.c,
 * writing them store_write.c, refs store_refs.c.
 */
#include "store-internal.h"
#include "git-session/json.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The repository is a partial clone (extensions.partialClone, or a promisor remote): set when it is opened. */
static int partial_clone;

int store_missing_object(char hex[GIT_OID_HEXSZ + 1])
{
	const git_error *e = git_error_last();
	const char *p;
	size_t n;

	if (!partial_clone || !e || !e->message || e->klass != GIT_ERROR_ODB ||
	    !strstr(e->message, "not found") || !(p = strrchr(e->message, '(')))
		return 0;
	n = strspn(++p, "0123456789abcdef");
	if (n < 4 || n > GIT_OID_HEXSZ || p[n] != ')')
		return 0;
	memcpy(hex, p, n);
	hex[n] = '\0';
	return 1;
}

int store_git_error(const char *fmt, ...)
{
	const git_error *e = git_error_last();
	struct sbuf sb = SBUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (store_missing_object(hex)) {
		gs_error("%s: object %s is not in this partial clone: git has not fetched it yet", sb.buf,
			 hex);
		gs_hint("git fetches it from the promisor remote when asked, as 'git cat-file -e %s' does; then "
			"run this again", hex);
	} else {
		if (e && e->message)
			sbuf_addf(&sb, ": %s", e->message);
		gs_error("%s", sb.buf);
	}
	sbuf_release(&sb);
	return GS_ERROR;
}

/*
 * Whether the repository's working tree is dir already: libgit2 1.5's
 * git_repository_set_workdir leaks its path when asked for the one it has.
 */
static int same_workdir(git_repository *repo, const char *dir)
{
	const char *have = git_repository_workdir(repo);
	char *real = realpath(dir, NULL);
	size_t n = real ? strlen(real) : 0;
	int same = have && real && !strncmp(have, real, n) && (!strcmp(have + n, "/") || !have[n]);

	free(real);
	return same;
}

/*
 * Extensions of format 1 that git-session can honour though libgit2 1.5
 * does not know them: partialclone (an object not fetched yet is said so
 * clearly: store_git_error), preciousObjects (git-session prunes no
 * object), worktreeConfig (config.worktree is read: worktree_config).
 * objectFormat and refStorage stay refused: libgit2 1.5 cannot read them.
 */
static void allow_extensions(void)
{
	static const char *ext[] = { "partialclone", "preciousobjects", "worktreeconfig" };

	git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, ext, ARRAY_SIZE(ext));
}

/* extensions.partialClone names the promisor remote; remote.<name>.promisor is a boolean. */
static int is_set(const git_config_entry *e, void *payload)
{
	int on;

	(void)payload;
	return strcmp(e->name, "extensions.partialclone") ? git_config_parse_bool(&on, e->value) == 0 && on : 1;
}

/*
 * With extensions.worktreeConfig, the worktree's config.worktree, over the
 * repository's own as git has it. Whether it is a partial clone, too.
 */
static int worktree_config(git_repository *repo)
{
	git_config *cfg = NULL;
	char *path;
	int on = 0, error = 0;

	if (git_repository_config(&cfg, repo) < 0)
		return GS_ERROR;
	if (git_config_get_bool(&on, cfg, "extensions.worktreeconfig") == 0 && on) {
		path = xstrfmt("%sconfig.worktree", git_repository_path(repo));
		if (access(path, F_OK) == 0)
			error = git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_APP, repo, 0);
		free(path);
	}
	partial_clone = git_config_foreach_match(cfg, "^(extensions\\.partialclone|remote\\..*\\.promisor)$",
						 is_set, NULL) == 1;
	git_config_free(cfg);
	return error < 0 ? GS_ERROR : 0;
}

/*
 * Opens the repository as git finds it: GIT_DIR, GIT_WORK_TREE,
 * GIT_CEILING_DIRECTORIES, GIT_DISCOVERY_ACROSS_FILESYSTEM. Not through
 * GIT_REPOSITORY_OPEN_FROM_ENV: it refuses GIT_WORK_TREE, and it loads
 * the whole index when GIT_INDEX_FILE is set, as it is in every hook,
 * which we never read through libgit2 (30 ms on a 20,000-file index).
 */
static int open_repo(git_repository **repo)
{
	const char *dir = getenv("GIT_DIR"), *wt = getenv("GIT_WORK_TREE");
	const char *across = getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM");
	unsigned flags = 0;
	int error, v;

	if (getenv("GIT_OBJECT_DIRECTORY") || getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES"))
		flags = GIT_REPOSITORY_OPEN_FROM_ENV;	/* rare: let libgit2 set up the object store */
	else if (dir && *dir)
		flags = GIT_REPOSITORY_OPEN_NO_SEARCH;
	if (across && git_config_parse_bool(&v, across) == 0 && v)
		flags |= GIT_REPOSITORY_OPEN_CROSS_FS;
	allow_extensions();
	if (flags & GIT_REPOSITORY_OPEN_FROM_ENV && !(wt && *wt)) {
		error = git_repository_open_ext(repo, NULL, flags, NULL);
		return error ? error : worktree_config(*repo);
	}
	flags &= ~(unsigned)GIT_REPOSITORY_OPEN_FROM_ENV;
	error = git_repository_open_ext(repo, dir && *dir ? dir : ".", flags,
					getenv("GIT_CEILING_DIRECTORIES"));
	if (!error && wt && *wt && !same_workdir(*repo, wt))
		error = git_repository_set_workdir(*repo, wt, 0);
	return error ? error : worktree_config(*repo);
}

/* One single-quoted word of GIT_CONFIG_PARAMETERS ('it'\''s' is it's). */
static const char *sq_word(struct sbuf *out, const char *p)
{
	sbuf_reset(out);
	while (*p == '\'') {
		const char *end = strchr(p + 1, '\'');

		if (!end)
			return NULL;
		sbuf_add(out, p + 1, (size_t)(end - p - 1));
		p = end + 1;
		if (p[0] != '\\' || p[1] != '\'')
			return p;
		sbuf_addch(out, '\'');
		p += 2;
	}
	return NULL;
}

static void cli_add(gs_store *st, const char *key, size_t keylen, const char *value)
{
	size_t alloc = st->acli;

	ALLOC_GROW(st->cli_keys, st->ncli + 1, alloc);
	ALLOC_GROW(st->cli_values, st->ncli + 1, st->acli);
	st->cli_keys[st->ncli] = xstrndup(key, keylen);
	st->cli_values[st->ncli++] = value ? xstrdup(value) : NULL;
}

/*
 * `git -c key=value session ...` hands the settings over in
 * GIT_CONFIG_PARAMETERS, which libgit2 1.5 does not read: as
 * 'key'='value' (git 2.31 and later) or 'key=value'.
 */
static int read_cli_config(gs_store *st)
{
	const char *p = getenv("GIT_CONFIG_PARAMETERS");
	struct sbuf key = SBUF_INIT, val = SBUF_INIT;
	int error = 0;

	while (p && *p) {
		const char *eq;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (!(p = sq_word(&key, p))) {
			error = gs_error("bogus format in GIT_CONFIG_PARAMETERS");
			break;
		}
		if (*p == '=') {
			if (!(p = sq_word(&val, p + 1))) {
				error = gs_error("bogus format in GIT_CONFIG_PARAMETERS");
				break;
			}
			cli_add(st, key.buf, key.len, val.buf);
		} else if ((eq = strchr(key.buf, '='))) {
			cli_add(st, key.buf, (size_t)(eq - key.buf), eq + 1);
		} else {
			cli_add(st, key.buf, key.len, NULL);
		}
	}
	sbuf_release(&key);
	sbuf_release(&val);
	return error;
}

/* The last `git -c` value of key (names compare without case), or NULL. */
static int cli_lookup(const char **value, gs_store *st, const char *key)
{
	for (size_t i = st->ncli; i-- > 0;)
		if (!strcasecmp(st->cli_keys[i], key)) {
			*value = st->cli_values[i];
			return 1;
		}
	return 0;
}

/*
 * Why the repository cannot be opened, in words a user can act on; the
 * caller frees it. libgit2 1.5 refuses repositories whose format uses an
 * extension neither it nor allow_extensions knows (extensions.objectFormat
 * for SHA-256; extensions.refStorage): say which, and that git works there.
 */
static char *open_failure(int error)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "unknown error", *ext = strstr(msg, "extensions.");

	if (error == GIT_ENOTFOUND)
		return xstrdup("not a git repository (or any of the parent directories)");
	if (ext && strstr(msg, "unsupported extension"))
		return xstrfmt("cannot open the repository: it uses %s (repository format 1), which git-session "
			       "cannot work with yet: it is built on libgit2 %d.%d, which does not know it", ext,
			       LIBGIT2_VER_MAJOR, LIBGIT2_VER_MINOR);
	return xstrfmt("cannot open the repository: %s", msg);
}

int store_open_why(gs_store **out, char **why)
{
	gs_store *st = xcalloc(1, sizeof(*st));
	int error;

	*out = NULL;
	*why = NULL;
	if ((error = open_repo(&st->repo)) < 0) {
		*why = open_failure(error);
		store_free(st);
		return GS_ERROR;
	}
	if (git_repository_config_snapshot(&st->config, st->repo) < 0) {
		store_git_error("cannot read the configuration");
		goto fail;
	}
	if (read_cli_config(st) < 0 || store_install_odb_guard(st) < 0)
		goto fail;
	if (store_fsync_setup(st) < 0)
		goto fail;
	st->sign = -1;
	*out = st;
	return 0;
fail:
	store_free(st);
	return GS_ERROR;
}

int store_open(gs_store **out)
{
	char *why = NULL;
	int error = store_open_why(out, &why);

	if (why) {
		gs_error("%s", why);
		if (strstr(why, "extensions."))
			gs_hint("git-session works in repositories of format 0, and of format 1 with no extension "
				"but partialClone, preciousObjects and worktreeConfig; see 'Repository formats' in its README");
		free(why);
	}
	return error;
}

void store_free(gs_store *st)
{
	if (!st)
		return;
	store_cache_free(st);
	for (size_t i = 0; i < st->ncli; i++) {
		free(st->cli_keys[i]);
		free(st->cli_values[i]);
	}
	free(st->cli_keys);
	free(st->cli_values);
	git_config_free(st->config);
	git_repository_free(st->repo);
	free(st);
}

const char *store_workdir(gs_store *st)
{
	return git_repository_workdir(st->repo);
}

const char *store_gitdir(gs_store *st)
{
	return git_repository_path(st->repo);
}

const char *store_commondir(gs_store *st)
{
	return git_repository_commondir(st->repo);
}

int store_config_bool(int *out, gs_store *st, const char *key, int def)
{
	const char *v;
	int error;

	if (cli_lookup(&v, st, key)) {
		if (!v) {
			*out = 1;	/* a bare key is true */
			return 0;
		}
		return git_config_parse_bool(out, v) < 0 ?
			gs_error("bad boolean config value '%s' for '%s'", v, key) : 0;
	}
	error = git_config_get_bool(out, st->config, key);

	if (error == GIT_ENOTFOUND) {
		*out = def;
		return 0;
	}
	return error < 0 ? store_git_error("bad config value for '%s'", key) : 0;
}

int store_config_int(int64_t *out, gs_store *st, const char *key, int64_t def)
{
	const char *v;
	int error;

	if (cli_lookup(&v, st, key))
		return !v || git_config_parse_int64(out, v) < 0 ?
			gs_error("bad numeric config value '%s' for '%s'", v ? v : "", key) : 0;
	error = git_config_get_int64(out, st->config, key);

	if (error == GIT_ENOTFOUND) {
		*out = def;
		return 0;
	}
	return error < 0 ? store_git_error("bad config value for '%s'", key) : 0;
}

char *store_config_str(gs_store *st, const char *key)
{
	git_buf buf = GIT_BUF_INIT;
	const char *v;
	char *s = NULL;

	if (cli_lookup(&v, st, key))
		return xstrdup(v ? v : "true");
	if (git_config_get_string_buf(&buf, st->config, key) == 0)
		s = xstrdup(buf.ptr);
	git_buf_dispose(&buf);
	git_error_clear();
	return s;
}

int store_remote_name_valid(const char *name)
{
	int valid = 0;

	/* git push and git fetch would take "-x" for an option */
	if (!name || name[0] == '-' || git_remote_name_is_valid(&valid, name) < 0)
		valid = 0;
	git_error_clear();
	return valid;
}

int store_head(char **branch, char head[HEX_SZ], gs_store *st)
{
	git_reference *ref = NULL;
	const char *target;
	git_oid id;

	*branch = NULL;
	if (git_reference_lookup(&ref, st->repo, "HEAD") < 0)
		return store_git_error("cannot read HEAD");
	target = git_reference_symbolic_target(ref);
	if (target && !strncmp(target, "refs/heads/", 11))
		*branch = xstrdup(target + 11);
	else
		*branch = xstrdup(target ? target : "HEAD");
	git_reference_free(ref);
	if (git_reference_name_to_id(&id, st->repo, "HEAD") < 0) {
		git_error_clear();
		memset(&id, 0, sizeof(id));	/* unborn */
	}
	git_oid_tostr(head, HEX_SZ, &id);
	return 0;
}

/* The last name of a URL or a path ("git@host:team/app.git", "/srv/app.git/": "app"), or NULL. */
static char *url_name(const char *url)
{
	size_t n = strlen(url), start;

	while (n && url[n - 1] == '/')
		n--;
	if (n > 4 && !strncmp(url + n - 4, ".git", 4))
		n -= 4;
	while (n && url[n - 1] == '/')
		n--;
	for (start = n; start && url[start - 1] != '/' && url[start - 1] != ':'; start--)
		;
	return n > start ? xstrndup(url + start, n - start) : NULL;
}

/*
 * The project's name, the same in every clone: the last name of origin's
 * URL; without one, the working tree's (or git dir's) folder name.
 */
static char *project_name(gs_store *st)
{
	const char *dir = store_workdir(st);
	git_config_entry *origin = NULL;
	char *copy, *base, *end, *named = NULL;

	if (git_config_get_entry(&origin, st->config, "remote.origin.url") == 0 && origin->value)
		named = url_name(origin->value);
	git_config_entry_free(origin);
	git_error_clear();
	if (named && strcmp(named, ".") && strcmp(named, ".."))
		return named;
	free(named);
	if (!dir)
		dir = git_repository_commondir(st->repo);
	copy = xstrdup(dir);
	end = copy + strlen(copy);
	while (end > copy + 1 && end[-1] == '/')
		*--end = '\0';
	if (!store_workdir(st) && end - copy > 5 && !strcmp(end - 5, "/.git"))
		end[-5] = '\0';
	base = strrchr(copy, '/');
	base = xstrdup(base ? base + 1 : copy);
	free(copy);
	return base;
}

cJSON *store_project(gs_store *st)
{
	cJSON *p = cJSON_CreateObject();
	char head[HEX_SZ], *branch = NULL, *name = project_name(st);

	/* not the clone's path: one person's, not the session's (the session is shared) */
	json_set_str(p, "name", name);
	if (store_head(&branch, head, st) == 0) {
		json_set_str(p, "branch", branch);
		json_set_str(p, "head", head);
	}
	free(branch);
	free(name);
	return p;
}

int store_merging(gs_store *st)
{
	return git_repository_state(st->repo) == GIT_REPOSITORY_STATE_MERGE;
}

int store_hooks_dir(char **out, int *from_config, gs_store *st)
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

const char *store_busy(gs_store *st)
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

int store_break_stale_lock(gs_store *st, const char *refname, int max_age)
{
	const char *const bases[] = { "", "logs/" };
	int broke = 0;

	for (size_t i = 0; i < 2; i++) {
		/* SESSION_HEAD is the worktree's own; refs are in the common directory */
		char *lock = xstrfmt("%s%s%s.lock", strcmp(refname, SESSION_HEAD) ? git_repository_commondir(st->repo) :
						    git_repository_path(st->repo), bases[i], refname);
		struct stat s;
		time_t age;

		if (lstat(lock, &s) == 0 && (age = time(NULL) - s.st_mtime) >= max_age) {
			if (unlink(lock) == 0) {
				gs_warning("removed '%s', left %lds ago by a writer that is gone", lock, (long)age);
				broke = 1;
			}
		}
		free(lock);
	}
	return broke;
}

int store_file_read(char **text, size_t *len, gs_store *st, const char *name, size_t max)
{
	char *path = xstrfmt("%s%s", store_commondir(st), name);
	int error = access(path, R_OK) == 0 ? gs_read_file(text, len, path, max) : GS_ENOTFOUND;

	free(path);
	return error;
}

int store_file_write(gs_store *st, const char *name, const char *text, size_t len)
{
	char *path = xstrfmt("%s%s", store_commondir(st), name);
	int error = access(store_commondir(st), W_OK) == 0 ? gs_write_file(path, text, len, 0644) : GS_ERROR;

	free(path);
	return error;
}

const char *store_libgit2_version(void)
{
	static char v[32];
	int major, minor, rev;

	git_libgit2_version(&major, &minor, &rev);
	snprintf(v, sizeof(v), "%d.%d.%d", major, minor, rev);
	return v;
}
