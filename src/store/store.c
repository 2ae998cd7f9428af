/*
 * store.c - sessions in the object store: opening the repository, config,
 * reading and writing checkpoints, the compare-and-swap on session refs,
 * SESSION_HEAD, listing and renaming refs, git-session's own files in the
 * git directory. The store is src/store*.c: the only code that calls
 * libgit2 (tools/check-layers.sh checks it).
 */
#include "store-internal.h"
#include "git-session/json.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
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
	int error, fsync_on;

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
	if (store_config_bool(&fsync_on, st, "session.fsync", 1) < 0)
		goto fail;
	st->fsync = fsync_on;
	st->sign = -1;
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, fsync_on);
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

void store_tip_clear(struct store_tip *tip)
{
	free(tip->json);
	free(tip->subject);
	gs_parts_free(tip->parts, tip->nparts);
	memset(tip, 0, sizeof(*tip));
}

/*
 * Whether want (NULL: everything) asks for the folder dir (2), for its
 * last *last blobs ("dir:<last>": 3), for some blobs in it ("dir/name":
 * 1), or not at all (0); with name, for that blob.
 */
static int wanted(const char *dir, const char *name, const char *const *want, size_t *last)
{
	size_t len = strlen(dir);
	int some = 0;

	for (; want && *want; want++) {
		if (!strcmp(*want, dir))
			return 2;
		if (last && !strncmp(*want, dir, len) && (*want)[len] == ':') {
			*last = strtoul(*want + len + 1, NULL, 10);
			return 3;
		}
		if (!strncmp(*want, dir, len) && (*want)[len] == '/' && (!name || !strcmp(*want + len + 1, name)))
			some = 1;
	}
	return want ? some : 2;
}

/* The blobs of state/<name>/ for each name in want, in path order. */
static int read_parts(struct store_tip *out, gs_store *st, git_tree *tree, const char *const *want)
{
	const git_tree_entry *dir = git_tree_entry_byname(tree, "state");
	git_tree *state = NULL;
	int error = 0;

	if (!dir || (want && !*want))
		return 0;
	if (git_tree_lookup(&state, st->repo, git_tree_entry_id(dir)) < 0)
		error = GS_ERROR;
	for (size_t i = 0; !error && i < git_tree_entrycount(state); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(state, i);
		git_tree *sub = NULL;
		size_t from = 0, last = 0;
		int how = wanted(git_tree_entry_name(e), NULL, want, &last), whole = how >= 2;

		if (!how)
			continue;
		if (git_tree_lookup(&sub, st->repo, git_tree_entry_id(e)) < 0) {
			error = GS_ERROR;
			break;
		}
		if (how == 3 && git_tree_entrycount(sub) > last)	/* the names sort as their numbers */
			from = git_tree_entrycount(sub) - last;
		for (size_t k = from; !error && k < git_tree_entrycount(sub); k++) {
			const git_tree_entry *b = git_tree_entry_byindex(sub, k);
			git_blob *blob = NULL;
			struct gs_part *p;

			if (!whole && !wanted(git_tree_entry_name(e), git_tree_entry_name(b), want, NULL))
				continue;
			if (git_blob_lookup(&blob, st->repo, git_tree_entry_id(b)) < 0) {
				error = GS_ERROR;
				break;
			}
			ALLOC_GROW(out->parts, out->nparts + 1, out->aparts);
			p = &out->parts[out->nparts++];
			p->path = xstrfmt("state/%s/%s", git_tree_entry_name(e), git_tree_entry_name(b));
			p->len = (size_t)git_blob_rawsize(blob);
			p->text = xstrndup(git_blob_rawcontent(blob), p->len);
			git_blob_free(blob);
		}
		git_tree_free(sub);
	}
	git_tree_free(state);
	return error;
}

/* Reads session.json of commit id, and the parts under state/ in want, into out. */
static int read_checkpoint(struct store_tip *out, gs_store *st, const git_oid *id, const char *what,
			   const char *const *want)
{
	git_commit *commit = NULL;
	const git_tree_entry *entry;
	git_blob *blob = NULL;
	git_tree *tree = NULL;
	int error;

	if ((error = git_commit_lookup(&commit, st->repo, id)) < 0 ||
	    (error = git_commit_tree(&tree, commit)) < 0) {
		store_git_error("cannot read checkpoint %s of '%s'", git_oid_tostr_s(id), what);
		gs_hint("run 'git session fsck --repair' to go back to the last good checkpoint");
		goto cleanup;
	}
	if (!(entry = git_tree_entry_byname(tree, "session.json")) ||
	    (error = git_blob_lookup(&blob, st->repo, git_tree_entry_id(entry))) < 0) {
		char hex[GIT_OID_HEXSZ + 1];

		if (entry && store_missing_object(hex)) {
			error = store_git_error("cannot read session.json of checkpoint %s of '%s'",
						git_oid_tostr_s(id), what);
			goto cleanup;
		}
		error = entry ? error : GIT_ENOTFOUND;
		gs_error("checkpoint %s of '%s' has no readable session.json", git_oid_tostr_s(id), what);
		if (error != GIT_ENOTFOUND)
			gs_hint("run 'git session fsck --repair' to go back to the last good checkpoint");
		error = GS_ERROR;
		goto cleanup;
	}
	if ((error = read_parts(out, st, tree, want)) < 0) {
		store_git_error("cannot read the state of checkpoint %s of '%s'", git_oid_tostr_s(id), what);
		gs_hint("run 'git session fsck --repair' to go back to the last good checkpoint");
		goto cleanup;
	}
	out->exists = 1;
	git_oid_tostr(out->commit, HEX_SZ, id);
	out->len = (size_t)git_blob_rawsize(blob);
	out->json = xstrndup(git_blob_rawcontent(blob), out->len);
	out->time = git_commit_time(commit);
	out->subject = xstrdup(git_commit_summary(commit) ? git_commit_summary(commit) : "");
	error = 0;
cleanup:
	if (error < 0) {
		gs_parts_free(out->parts, out->nparts);
		out->parts = NULL;
		out->nparts = 0;
	}
	git_blob_free(blob);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

int store_read_ref(struct store_tip *out, gs_store *st, const char *refname)
{
	return store_read_ref_want(out, st, refname, NULL);
}

int store_read_ref_want(struct store_tip *out, gs_store *st, const char *refname,
			const char *const *want)
{
	git_oid id;
	int error;

	memset(out, 0, sizeof(*out));
	error = git_reference_name_to_id(&id, st->repo, refname);
	if (error == GIT_ENOTFOUND)
		return GS_ENOTFOUND;
	if (error < 0)
		return store_git_error("cannot read '%s'", refname);
	return read_checkpoint(out, st, &id, refname, want);
}

int store_read_commit(struct store_tip *out, gs_store *st, const char *hex, const char *what)
{
	git_oid id;

	size_t len = strlen(hex);
	git_object *obj = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if (len < 4 || len > 40 || strspn(hex, "0123456789abcdef") != len || git_oid_fromstrn(&id, hex, len) < 0)
		return gs_error("'%s' is not an object id", hex);
	if (len < 40) {	/* abbreviated, as commands print it */
		if (git_object_lookup_prefix(&obj, st->repo, &id, len, GIT_OBJECT_COMMIT) < 0)
			return store_git_error("cannot read checkpoint %s of '%s'", hex, what);
		git_oid_cpy(&id, git_object_id(obj));
		git_object_free(obj);
	}
	error = read_checkpoint(out, st, &id, what, (const char *const[]){ NULL });
	return error;
}

int store_read_rev(struct store_tip *out, gs_store *st, const char *rev)
{
	git_object *obj = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	error = git_revparse_single(&obj, st->repo, rev);
	if (error == GIT_ENOTFOUND || error == GIT_EAMBIGUOUS || error == GIT_EINVALIDSPEC) {
		git_object_free(obj);
		return GS_ENOTFOUND;
	}
	if (error < 0) {
		store_git_error("cannot resolve '%s'", rev);
		gs_hint("if a checkpoint is damaged, 'git session fsck --repair' goes back to the last good one");
		return GS_ERROR;
	}
	if (git_object_type(obj) != GIT_OBJECT_COMMIT) {
		git_object_free(obj);
		return gs_error("'%s' is not a checkpoint (not a commit)", rev);
	}
	error = read_checkpoint(out, st, git_object_id(obj), rev, NULL);
	git_object_free(obj);
	return error;
}

void store_fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Which objects/xx directories exist, as a bitmap. libgit2 1.5 fsyncs the
 * objects it writes but not a directory it had to create for them: a
 * crash could lose the directory entry, and the objects with it.
 */
static void object_dirs(unsigned char seen[256], gs_store *st)
{
	char *path = xstrfmt("%sobjects", git_repository_commondir(st->repo));
	struct dirent *d;
	DIR *dir = opendir(path);

	memset(seen, 0, 256);
	while (dir && (d = readdir(dir)))
		if (strlen(d->d_name) == 2 && isxdigit((unsigned char)d->d_name[0]) &&
		    isxdigit((unsigned char)d->d_name[1]))
			seen[strtol(d->d_name, NULL, 16)] = 1;
	if (dir)
		closedir(dir);
	free(path);
}

/* fsyncs the objects/xx directories created since before was taken. */
static void sync_new_object_dirs(gs_store *st, const unsigned char before[256])
{
	unsigned char after[256];
	int any = 0;

	object_dirs(after, st);
	for (int i = 0; i < 256; i++)
		if (after[i] && !before[i]) {
			char *dir = xstrfmt("%sobjects/%02x", git_repository_commondir(st->repo), i);
			store_fsync_path(dir);
			free(dir);
			any = 1;
		}
	if (any) {
		char *dir = xstrfmt("%sobjects", git_repository_commondir(st->repo));
		store_fsync_path(dir);
		free(dir);
	}
}

/* libgit2's object cache on for trees of any size, or off again. */
static void tree_cache(int on)
{
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)(on ? 64 << 20 : 4096));
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, on);
}

/* Whether base (which may be NULL) has an entry at path: a removal needs one. */
static int in_tree(git_tree *base, const char *path)
{
	git_tree_entry *e = NULL;

	if (!base || git_tree_entry_bypath(&e, base, path) < 0) {
		git_error_clear();
		return 0;
	}
	git_tree_entry_free(e);
	return 1;
}

/*
 * Where an upsert of path meets the base tree's other kind of entry (a
 * folder where a file goes, or a file where a folder goes, as when
 * utils became utils/a.py), the removal that must come first; *first is
 * then set. Returns how many removals it added.
 */
static size_t clear_way(git_tree_update *up, char **paths, git_tree *base, const char *path, int *first)
{
	git_tree_entry *e = NULL;
	size_t added = 0;

	if (!base)
		return 0;
	if (git_tree_entry_bypath(&e, base, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		paths[added] = xstrdup(path);
		up[added].path = paths[added];
		up[added++].action = GIT_TREE_UPDATE_REMOVE;
	}
	git_tree_entry_free(e);
	for (const char *slash = strchr(path + strlen("files/"), '/'); slash; slash = strchr(slash + 1, '/')) {
		char *dir = xstrndup(path, (size_t)(slash - path));

		e = NULL;
		if (git_tree_entry_bypath(&e, base, dir) == 0 && git_tree_entry_type(e) != GIT_OBJECT_TREE) {
			paths[added] = dir;
			up[added].path = dir;
			up[added++].action = GIT_TREE_UPDATE_REMOVE;
			dir = NULL;
		}
		git_tree_entry_free(e);
		free(dir);
	}
	git_error_clear();
	*first |= added != 0;
	return added;
}

/* files/<path> updates, leaving out removals of paths the base tree lacks. */
static int file_updates(git_tree_update *up, size_t *n, git_tree *base, const struct store_checkpoint *cp,
			char **paths, int *removals_first)
{
	for (size_t i = 0; i < cp->nfiles; i++) {
		char *path = cp->files[i].raw ? xstrdup(cp->files[i].path) : xstrfmt("files/%s", cp->files[i].path);

		if (cp->files[i].oid && !cp->files[i].raw)
			*n += clear_way(up + *n, paths + *n, base, path, removals_first);
		if (!cp->files[i].oid) {
			if (!in_tree(base, path)) {
				free(path);
				continue;
			}
			up[*n].action = GIT_TREE_UPDATE_REMOVE;
		} else {
			up[*n].action = GIT_TREE_UPDATE_UPSERT;
			up[*n].filemode = cp->files[i].link ? GIT_FILEMODE_LINK : GIT_FILEMODE_BLOB;
			if (git_oid_fromstr(&up[*n].id, cp->files[i].oid) < 0) {
				free(path);
				return gs_error("bad blob id '%s'", cp->files[i].oid);
			}
		}
		paths[*n] = path;
		up[*n].path = path;
		(*n)++;
	}
	return 0;
}

/* Whether one update's path is a folder of another's (d.txt and d.txt/inner). */
static int folder_and_file(const git_tree_update *up, size_t n)
{
	const char **paths = xcalloc(n, sizeof(*paths));
	int found = 0;

	for (size_t i = 0; i < n; i++)
		paths[i] = up[i].path;
	qsort(paths, n, sizeof(*paths), gs_cmp_str);
	for (size_t i = 0; i < n && !found; i++) {
		size_t len = strlen(paths[i]), lo = i + 1, hi = n;

		/* the first path not below paths[i] + "/" ("d.txt-x" sorts before "d.txt/") */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strncmp(paths[mid], paths[i], len);

			if (c < 0 || (c == 0 && (unsigned char)paths[mid][len] < '/'))
				lo = mid + 1;
			else
				hi = mid;
		}
		found = lo < n && !strncmp(paths[lo], paths[i], len) && paths[lo][len] == '/';
	}
	free(paths);
	return found;
}

/* state/ blobs from the checkpoint's parts: written, or removed when there. */
static int part_updates(git_tree_update *up, size_t *n, gs_store *st, git_tree *base,
			const struct store_checkpoint *cp)
{
	for (size_t i = 0; i < cp->nparts; i++) {
		const struct gs_part *p = &cp->parts[i];

		if (!p->text) {
			if (!in_tree(base, p->path))
				continue;
			up[*n].action = GIT_TREE_UPDATE_REMOVE;
		} else {
			up[*n].action = GIT_TREE_UPDATE_UPSERT;
			up[*n].filemode = GIT_FILEMODE_BLOB;
			if (git_blob_create_from_buffer(&up[*n].id, st->repo, p->text, p->len) < 0)
				return store_git_error("cannot write the checkpoint");
		}
		up[(*n)++].path = p->path;
	}
	return 0;
}

/* Paths in the order a walk of the tree meets them: '/' before any other character. */
static int update_path_cmp(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)((const git_tree_update *)a)->path;
	const unsigned char *y = (const unsigned char *)((const git_tree_update *)b)->path;

	for (; *x && *x == *y; x++, y++)
		;
	return (*x == '/' ? 1 : *x) - (*y == '/' ? 1 : *y);
}

/*
 * libgit2 checks each path against the base tree, so one update cannot
 * put a file where a folder was or the other way round (d.txt becoming
 * d.txt/inner). Only then (found among the updates, or force: a way
 * cleared in the base) do removals go first, into a tree of their own,
 * and the remaining updates apply to it.
 */
static int apply_removals(git_tree **base, gs_store *st, git_tree_update *up, size_t *n, int force)
{
	git_tree_update *rm;
	size_t nrm = 0, keep = 0;
	git_tree *removed = NULL;
	git_oid id;
	int error = 0;

	if (!force && !folder_and_file(up, *n))
		return 0;
	rm = xcalloc(*n + 1, sizeof(*rm));
	for (size_t i = 0; i < *n; i++)
		if (up[i].action == GIT_TREE_UPDATE_REMOVE)
			rm[nrm++] = up[i];
	/*
	 * A removal may both clear a way and be recorded, and a folder's removal
	 * takes what is below it: each path once, none below one removed.
	 * Sorted, a folder comes right before what is in it: O(n log n).
	 */
	qsort(rm, nrm, sizeof(*rm), update_path_cmp);
	for (size_t i = 0; i < nrm; i++) {
		size_t len = keep ? strlen(rm[keep - 1].path) : 0;

		if (!keep || (strcmp(rm[keep - 1].path, rm[i].path) &&
			      !(!strncmp(rm[keep - 1].path, rm[i].path, len) && rm[i].path[len] == '/')))
			rm[keep++] = rm[i];
	}
	nrm = keep;
	keep = 0;
	if (git_tree_create_updated(&id, st->repo, *base, nrm, rm) < 0 ||
	    git_tree_lookup(&removed, st->repo, &id) < 0)
		error = store_git_error("cannot write the checkpoint's tree");
	git_tree_free(*base);
	*base = removed;
	for (size_t i = 0; i < *n; i++)
		if (up[i].action != GIT_TREE_UPDATE_REMOVE)
			up[keep++] = up[i];
	*n = keep;
	free(rm);
	return error;
}

int store_write_checkpoint(char out[HEX_SZ], gs_store *st, const struct store_checkpoint *cp)
{
	git_signature *author = NULL, *committer = NULL;
	time_t when;
	git_commit *parent = NULL, *other = NULL;
	const git_commit *parents[2] = { NULL, NULL };
	git_tree *base = NULL, *tree = NULL;
	/* room for each file's update and the removals that may clear its way (one a level, at most) */
	size_t room = cp->nfiles * 2 + cp->nparts + 2;
	git_tree_update *up;
	char **paths;
	git_oid parent_id, tree_id, commit_id;
	size_t n = 2, npaths = 2;
	int error = GS_ERROR, removals_first = 0, gathered;
	unsigned char dirs[256];

	for (size_t i = 0; i < cp->nfiles; i++)
		for (const char *p = cp->files[i].path; (p = strchr(p, '/')); p++)
			room++;
	up = xcalloc(room, sizeof(*up));
	paths = xcalloc(room, sizeof(*paths));
	if (st->fsync)
		object_dirs(dirs, st);
	if (cp->parent && cp->parent->exists) {
		if (git_oid_fromstr(&parent_id, cp->parent->commit) < 0 ||
		    git_commit_lookup(&parent, st->repo, &parent_id) < 0 ||
		    (!cp->tree_from && git_commit_tree(&base, parent) < 0)) {
			store_git_error("cannot read checkpoint %s", cp->parent->commit);
			goto cleanup;
		}
	}
	if (cp->tree_from) {
		git_commit *from = NULL;
		git_oid from_id;
		int bad = git_oid_fromstr(&from_id, cp->tree_from) < 0 ||
			  git_commit_lookup(&from, st->repo, &from_id) < 0 || git_commit_tree(&base, from) < 0;

		git_commit_free(from);
		if (bad) {
			store_git_error("cannot read checkpoint %s", cp->tree_from);
			goto cleanup;
		}
	}
	up[0].action = up[1].action = GIT_TREE_UPDATE_UPSERT;
	up[0].filemode = up[1].filemode = GIT_FILEMODE_BLOB;
	up[0].path = "session.json";
	up[1].path = "op.json";
	if (git_blob_create_from_buffer(&up[0].id, st->repo, cp->json, cp->len) < 0 ||
	    git_blob_create_from_buffer(&up[1].id, st->repo, cp->op, cp->oplen) < 0) {
		store_git_error("cannot write the checkpoint");
		goto cleanup;
	}
	/*
	 * Each file's path is looked up in the base tree, so its folders are
	 * read once per file: the object cache (off, as a short command wants
	 * it) holds the trees while the updates are gathered.
	 */
	tree_cache(1);
	gathered = file_updates(up, &n, base, cp, paths, &removals_first);
	tree_cache(0);
	if (gathered < 0 || part_updates(up, &n, st, base, cp) < 0)
		goto cleanup;
	npaths = n;
	if (apply_removals(&base, st, up, &n, removals_first) < 0)
		goto cleanup;
	if (git_tree_create_updated(&tree_id, st->repo, base, n, up) < 0 ||
	    git_tree_lookup(&tree, st->repo, &tree_id) < 0) {
		store_git_error("cannot write the checkpoint's tree");
		goto cleanup;
	}
	if (store_signature(&author, st, "AUTHOR") < 0 ||
	    store_signature(&committer, st, "COMMITTER") < 0)
		goto cleanup;
	if (cp->author_at && gs_time_parse_iso(&when, cp->author_at) == 0) {
		git_signature *at = NULL;

		if (git_signature_new(&at, author->name, author->email, when, 0) < 0) {
			store_git_error("invalid author time '%s'", cp->author_at);
			goto cleanup;
		}
		git_signature_free(author);
		author = at;
	}
	if (cp->merge_parent && (git_oid_fromstr(&parent_id, cp->merge_parent) < 0 ||
				 git_commit_lookup(&other, st->repo, &parent_id) < 0)) {
		store_git_error("cannot read checkpoint %s", cp->merge_parent);
		goto cleanup;
	}
	parents[0] = parent;
	parents[1] = other;
	if ((error = store_commit_create(&commit_id, st, author, committer, NULL, cp->message, tree,
					 parent ? 1 + !!parents[1] : 0, parents)) < 0)
		goto cleanup;	/* GS_ETIMEDOUT kept: a hook says what to do */
	git_oid_tostr(out, HEX_SZ, &commit_id);
	if (st->fsync)
		sync_new_object_dirs(st, dirs);
	error = 0;
cleanup:
	git_commit_free(other);
	for (size_t i = 2; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(up);
	git_signature_free(author);
	git_signature_free(committer);
	git_tree_free(tree);
	git_tree_free(base);
	git_commit_free(parent);
	return error;
}

/* A new ref created refs/sessions/ (and its reflog's folder) perhaps: make them durable. */
static void sync_ref_dirs(gs_store *st, const char *refname)
{
	const char *const bases[] = { "", "logs/" };

	for (size_t i = 0; i < 2; i++) {
		char *path = xstrfmt("%s%s%s", git_repository_commondir(st->repo), bases[i], refname);
		char *slash;

		while ((slash = strrchr(path, '/')) && slash > path + strlen(git_repository_commondir(st->repo))) {
			*slash = '\0';
			store_fsync_path(path);
		}
		free(path);
	}
}

int store_cas(gs_store *st, const char *refname, const char *new_hex, const char *old_hex,
	      const char *logmsg)
{
	git_reference *ref = NULL;
	git_oid new_id, old_id;
	sigset_t saved;
	int error;

	if (git_oid_fromstr(&new_id, new_hex) < 0)
		return gs_error("bad object id '%s'", new_hex);
	if (old_hex) {
		if (git_oid_fromstr(&old_id, old_hex) < 0)
			return gs_error("bad object id '%s'", old_hex);
	} else {
		memset(&old_id, 0, sizeof(old_id));	/* zero: must not exist yet */
	}
	/* libgit2 and git log only some namespaces by default: ask for ours */
	if (git_reference_ensure_log(st->repo, refname) < 0)
		return store_git_error("cannot create the reflog of '%s'", refname);
	/* a signal now would leave <ref>.lock behind: hold it off until the lock is gone */
	store_hold_signals(&saved);
	error = git_reference_create_matching(&ref, st->repo, refname, &new_id, 1, &old_id, logmsg);
	if (!error && !old_hex && st->fsync)
		sync_ref_dirs(st, refname);
	store_release_signals(&saved);
	git_reference_free(ref);
	if (error == GIT_EMODIFIED || error == GIT_ELOCKED || error == GIT_EEXISTS) {
		git_error_clear();
		return GS_ERACE;
	}
	if (error < 0)
		return store_git_error("cannot update '%s'", refname);
	return 0;
}

int store_active(char **out, gs_store *st)
{
	git_reference *ref = NULL;
	const char *target;
	int error;

	*out = NULL;
	error = git_reference_lookup(&ref, st->repo, SESSION_HEAD);
	if (error == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (error < 0)
		return store_git_error("cannot read %s", SESSION_HEAD);
	target = git_reference_symbolic_target(ref);
	if (target && !strncmp(target, SESSIONS_PREFIX, strlen(SESSIONS_PREFIX)))
		*out = xstrdup(target + strlen(SESSIONS_PREFIX));
	else
		gs_warning("%s does not name a session; ignoring it", SESSION_HEAD);
	git_reference_free(ref);
	return 0;
}

/*
 * Whether to set or remove SESSION_HEAD again after finding it locked:
 * another command of this worktree holds the lock for microseconds (waited
 * for, 2 s at most); a dead one's, older than session.staleLockAge, goes.
 */
static int head_locked_again(gs_store *st, int *tries)
{
	int64_t age;

	git_error_clear();
	if ((*tries)++ >= 200)
		return 0;
	if (store_config_int(&age, st, "session.staleLockAge", 10) == 0 &&
	    store_break_stale_lock(st, SESSION_HEAD, (int)age))
		return 1;
	nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	return 1;
}

int store_set_active(gs_store *st, const char *id)
{
	git_reference *ref = NULL;
	char *target = xstrfmt("%s%s", SESSIONS_PREFIX, id);
	char *msg = xstrfmt("session: switch to %s", id);
	int error, tries = 0;

	do {
		git_reference_free(ref);
		ref = NULL;
		error = git_reference_symbolic_create(&ref, st->repo, SESSION_HEAD, target, 1, msg);
	} while (error == GIT_ELOCKED && head_locked_again(st, &tries));
	git_reference_free(ref);
	free(target);
	free(msg);
	return error < 0 ? store_git_error("cannot set %s", SESSION_HEAD) : 0;
}

int store_clear_active(gs_store *st)
{
	int error, tries = 0;

	while ((error = git_reference_remove(st->repo, SESSION_HEAD)) == GIT_ELOCKED && head_locked_again(st, &tries))
		;
	if (error == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	return error < 0 ? store_git_error("cannot remove %s", SESSION_HEAD) : 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct store_ref_entry *)a)->id, ((const struct store_ref_entry *)b)->id);
}

int store_list_refs(struct store_ref_entry **out, size_t *n, gs_store *st, const char *prefix)
{
	git_reference_iterator *it = NULL;
	char *glob = xstrfmt("%s*", prefix);
	size_t alloc = 0, plen = strlen(prefix);
	struct store_ref_entry *v = NULL;
	git_reference *ref;
	int error;

	*n = 0;
	*out = NULL;
	if (git_reference_iterator_glob_new(&it, st->repo, glob) < 0) {
		free(glob);
		return store_git_error("cannot list '%s'", prefix);
	}
	while ((error = git_reference_next(&ref, it)) == 0) {
		const char *name = git_reference_name(ref) + plen;
		const git_oid *target = git_reference_target(ref);

		if (!strchr(name, '/') && target) {
			ALLOC_GROW(v, *n + 1, alloc);
			v[*n].id = xstrdup(name);
			git_oid_tostr(v[(*n)++].tip, HEX_SZ, target);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	free(glob);
	if (error != GIT_ITEROVER) {
		store_ref_entries_free(v, *n);
		*n = 0;
		return store_git_error("cannot list '%s'", prefix);
	}
	git_error_clear();
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_entry);
	*out = v;
	return 0;
}

void store_ref_entries_free(struct store_ref_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].id);
	free(v);
}

int store_list(char ***out, size_t *n, gs_store *st, const char *prefix)
{
	struct store_ref_entry *v;
	int error = store_list_refs(&v, n, st, prefix);

	*out = NULL;
	if (error < 0)
		return error;
	*out = xcalloc(*n + 1, sizeof(**out));
	for (size_t i = 0; i < *n; i++)
		(*out)[i] = v[i].id;	/* the ids move over */
	free(v);
	return 0;
}

void store_ids_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

int store_ref_exists(gs_store *st, const char *refname)
{
	git_oid id;
	int error = git_reference_name_to_id(&id, st->repo, refname);

	git_error_clear();
	return error == 0;
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

static char *project_name(gs_store *st)
{
	const char *dir = store_workdir(st);
	char *copy, *base, *end;

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
	const char *wd = store_workdir(st);
	char *path = xstrdup(wd ? wd : store_gitdir(st));
	size_t n = strlen(path);

	if (n > 1 && path[n - 1] == '/')
		path[n - 1] = '\0';
	json_set_str(p, "name", name);
	json_set_str(p, "path", path);
	if (store_head(&branch, head, st) == 0) {
		json_set_str(p, "branch", branch);
		json_set_str(p, "head", head);
	}
	free(branch);
	free(name);
	free(path);
	return p;
}

int store_merging(gs_store *st)
{
	return git_repository_state(st->repo) == GIT_REPOSITORY_STATE_MERGE;
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

int store_ref_damaged(gs_store *st, const char *refname)
{
	char *path = xstrfmt("%s%s", store_commondir(st), refname), value[HEX_SZ];
	git_reference *ref = NULL;
	int damaged = store_ref_value(value, st, refname) < 0 && access(path, F_OK) == 0;

	/* a line of packed-refs that names it but does not read: damage, not absence */
	if (!damaged && git_reference_lookup(&ref, st->repo, refname) < 0) {
		char *packed = xstrfmt("%spacked-refs", store_commondir(st)), *text = NULL, *line;
		size_t len, n = strlen(refname);

		if (access(packed, R_OK) == 0 && gs_read_file(&text, &len, packed, 1u << 30) == 0)
			for (line = text; line && !damaged; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
				size_t l = strcspn(line, "\n");
				damaged = l > n && line[l - n - 1] == ' ' && !strncmp(line + l - n, refname, n);
			}
		free(text);
		free(packed);
	}
	git_reference_free(ref);
	git_error_clear();
	free(path);
	return damaged;
}

const char *store_libgit2_version(void)
{
	static char v[32];
	int major, minor, rev;

	git_libgit2_version(&major, &minor, &rev);
	snprintf(v, sizeof(v), "%d.%d.%d", major, minor, rev);
	return v;
}
