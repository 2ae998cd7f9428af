/*
 * cmd_import.c - import and export: other tools' session files in and
 * out. Reads and writes the files; the formats themselves are in
 * format_*.c.
 */
#include "git-session/cmd.h"
#include "git-session/format.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const import_usage[] = {
	"git session import [--format <format>] [--as <id>] [-q] <file>...",
	NULL,
};

/* The usage of export: a line for the format with a registry, if one has. */
static const char *const *export_usage(void)
{
	static const char *usage[3] = { "git session export --format <format> [<id>] [-o <file>]" };
	const struct format *f = format_with_registry();

	if (f && !usage[1])
		usage[1] = xstrfmt("git session export --format %s --registry [-o <file>]", format_name(f));
	return usage;
}

/* One session to write: what a file (or a registry line) gave. */
struct job {
	char *source;
	const struct format *f;
	cJSON *state, *files;
	int active, archived;
};

struct jobs {
	struct job *v;
	size_t n, alloc;
	const char *as;
	const struct format *f;
};

static void jobs_clear(struct jobs *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->v[i].source);
		cJSON_Delete(j->v[i].state);
		cJSON_Delete(j->v[i].files);
	}
	free(j->v);
}

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

/* Files in an archive folder are archived sessions: orchestrator-history/, archive/. */
static int in_archive(const char *path)
{
	char *d = dir_of(path), *copy = xstrdup(d);
	const char *base = basename(copy);
	int yes = !strcmp(base, "orchestrator-history") || !strcmp(base, "archive");

	free(d);
	free(copy);
	return yes;
}

static int read_doc(cJSON **doc, const struct format **f, const char *path)
{
	char *buf = NULL, *err = NULL;
	size_t len;
	int error;

	if ((error = gs_read_file(&buf, &len, path, FORMAT_MAX_BYTES)) < 0)
		return error;
	if ((error = format_parse(doc, f, buf, len, &err)) < 0)	/* "<line>: <what>" reads "<file>:<line>: <what>" */
		gs_error("%s:%s%s", path, isdigit((unsigned char)*err) ? "" : " ", err);
	free(buf);
	free(err);
	return error;
}

/* Whether an imported state can be a session here: its size, depth and id (after --as). */
static int check_state(const struct jobs *j, const cJSON *state, const char *source)
{
	const char *id;
	char *verr = NULL;
	int error;

	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(state, "phases")) > STATE_PHASES_MAX ||
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(state, "agents")) > STATE_AGENTS_MAX)
		return gs_error("%s: more than a session holds (%d phases, %d agents)", source, STATE_PHASES_MAX,
				STATE_AGENTS_MAX);
	/* the import's op.json holds the state two levels down: both must read back */
	if (json_depth_over(state, JSON_MAX_DEPTH - 2))
		return gs_error("%s: nested deeper than a session can keep (%d levels, with the state's own)",
				source, JSON_MAX_DEPTH - 2);
	if (!(id = json_str(state, "session_id"))) {
		error = gs_error("%s: no session id in the file", source);
		gs_hint("give it one with --as <id>");
		return error;
	}
	if (state_valid_id(id, &verr) < 0) {
		error = gs_error("%s: invalid session id '%s': %s", source, id, verr);
		gs_hint("give it another with --as <id>");
		free(verr);
		return error;
	}
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(json_str(j->v[i].state, "session_id"), id))
			return gs_error("%s: session '%s' is also in %s", source, id, j->v[i].source);
	return 0;
}

/* The state for doc, with where it came from; one more job. */
static int add_job(struct jobs *j, struct cmd_ctx *c, const struct format *f, cJSON *doc,
		   const char *source, int active)
{
	struct job job = { 0 };
	char digest[HEX_SZ], *err = NULL, *text = NULL;
	cJSON *imp, *project = store_project(c->st);
	size_t len;
	int error = GS_ERROR;

	if (format_import(&job.state, &job.files, &job.active, f, doc, project, in_archive(source), &err) < 0) {
		gs_error("%s: %s", source, err);
		goto cleanup;
	}
	if (j->as)
		json_set_str(job.state, "session_id", j->as);
	if (check_state(j, job.state, source) < 0)
		goto cleanup;
	text = json_print(doc, 0, &len);
	if (store_hash(digest, text, len) < 0)
		goto cleanup;
	imp = json_obj(json_obj(job.state, "extra"), "import");
	json_set_str(imp, "source", source);
	json_set_str(imp, "digest", digest);
	job.f = f;
	job.active = job.active || active;
	job.archived = in_archive(source);
	job.source = xstrdup(source);
	ALLOC_GROW(j->v, j->n + 1, j->alloc);
	j->v[j->n++] = job;
	memset(&job, 0, sizeof(job));
	error = 0;
cleanup:
	cJSON_Delete(job.state);
	cJSON_Delete(job.files);
	cJSON_Delete(project);
	free(err);
	free(text);
	return error;
}

/* Whether dir, a registry's folder, stays below the registry's own: a registry does not send import elsewhere. */
static int below(const char *dir)
{
	return *dir != '/' && strcmp(dir, "..") && strncmp(dir, "../", 3) && !strstr(dir, "/../") &&
	       !(strlen(dir) >= 3 && !strcmp(dir + strlen(dir) - 3, "/.."));
}

/* The session file of a registry entry in folder dir, or NULL: below root, else beside the registry. */
static char *entry_file(const struct format *f, const char *dir, const char *root, const char *regdir)
{
	const char *name = format_layout(f)->session_file;
	char *file, *base;
	struct stat s;

	if (!dir || !name)
		return NULL;
	file = below(dir) ? xstrfmt("%s/%s/%s", root, dir, name) : xstrdup("");
	if (stat(file, &s) == 0)
		return file;
	free(file);
	base = xstrdup(dir);	/* the registry moved: look beside it */
	file = xstrfmt("%s/%s/%s", regdir, basename(base), name);
	free(base);
	if (stat(file, &s) == 0)
		return file;
	free(file);
	return NULL;
}

/* One registry entry: the document of the entry and its session file (if any). */
static int entry_doc(cJSON **one, const struct format *f, const cJSON *e, const char *root, const char *regdir)
{
	char *file = entry_file(f, format_registry_dir(f, e), root, regdir), *err = NULL;
	const struct format *ff = f;
	cJSON *sess = NULL;
	int error = 0;

	*one = NULL;
	if (file && (error = read_doc(&sess, &ff, file)) < 0)
		goto cleanup;
	if ((error = format_registry_doc(one, f, e, sess, &err)) < 0)
		gs_error("%s: %s", file ? file : "", err);
cleanup:
	cJSON_Delete(sess);
	free(file);
	free(err);
	return error;
}

/* A registry: each entry a session, with its own session file if there is one. */
static int add_registry(struct jobs *j, struct cmd_ctx *c, const struct format *f, const cJSON *entries,
			const char *path)
{
	char *regdir = dir_of(path), *root = dir_of(regdir);
	const cJSON *e;
	int error = 0, line = 1;

	cJSON_ArrayForEach(e, entries) {
		cJSON *one = NULL;

		if ((error = entry_doc(&one, f, e, root, regdir)) == 0 &&
		    (error = add_job(j, c, f, one, path, 0)) == 0)	/* its place, for the export */
			json_set_num(json_obj(json_obj(j->v[j->n - 1].state, "extra"), "import"), "line",
				     line);
		line++;
		cJSON_Delete(one);
		if (error < 0)
			break;
	}
	free(regdir);
	free(root);
	return error;
}

static int add_file(struct jobs *j, struct cmd_ctx *c, const char *path);
static int add_dir(struct jobs *j, struct cmd_ctx *c, const char *path);

/* A file that only names the active session's own file: the format it is of, or NULL. */
static const struct format *pointer_format(const char *path)
{
	return format_by_pointer_name(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
}

/*
 * A folder in a folder: a session's own, holding a format's session file,
 * or one a format keeps such folders in (ccw's active/ and archives/);
 * other folders are not looked into.
 */
static int add_subdir(struct jobs *j, struct cmd_ctx *c, const char *path, const char *name)
{
	struct stat s;

	for (int i = 0; i < FORMAT_COUNT; i++) {
		const char *file = format_layout(format_get(i))->session_file;
		char *full = file ? xstrfmt("%s/%s", path, file) : NULL;
		int error = 0, found = full && stat(full, &s) == 0 && S_ISREG(s.st_mode);

		if (found)
			error = add_file(j, c, full);
		free(full);
		if (found)
			return error;
	}
	return format_session_dir(name) ? add_dir(j, c, path) : 0;
}

/* A name a session file may have in a folder: .json, .jsonl, .md, .yaml, .yml, and no pointer. */
static int is_session_name(const char *name)
{
	const char *ext = strrchr(name, '.');

	return ext && !pointer_format(name) &&
	       (!strcmp(ext, ".json") || !strcmp(ext, ".jsonl") || !strcmp(ext, ".md") ||
		!strcmp(ext, ".yaml") || !strcmp(ext, ".yml"));
}

/* A folder: every session file in it, in name order. */
static int add_dir(struct jobs *j, struct cmd_ctx *c, const char *path)
{
	struct dirent **names = NULL;
	int n = scandir(path, &names, NULL, alphasort), error = 0;

	if (n < 0)
		return gs_error("cannot read '%s': %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *full = xstrfmt("%s/%s", path, name);
		struct stat s;

		if (error || name[0] == '.' || stat(full, &s) < 0)
			;	/* hidden, or gone since the listing */
		else if (S_ISDIR(s.st_mode))
			error = add_subdir(j, c, full, name);
		else if (S_ISREG(s.st_mode) && is_session_name(name))
			error = add_file(j, c, full);
		free(full);
		free(names[i]);
	}
	free(names);
	return error;
}

/* A pointer file: the session of the file it names, beside it, which is the active one. */
static int add_pointed(struct jobs *j, struct cmd_ctx *c, const struct format *f, const char *dir,
		       const char *pointer)
{
	char *other = xstrfmt("%s/%s", dir, pointer);
	cJSON *doc = NULL;
	int error;

	if ((error = read_doc(&doc, &f, other)) == 0)
		error = add_job(j, c, f, doc, other, 1);
	cJSON_Delete(doc);
	free(other);
	return error;
}

/* A document's second part, from its own file beside the main one, when there is one. */
static int read_part(cJSON *doc, const struct format *f, const char *dir)
{
	const struct format_layout *l = format_layout(f);
	char *other, *text = NULL;
	struct stat s;
	size_t len;
	int error = 0;

	if (!l->part_file)
		return 0;
	other = xstrfmt("%s/%s", dir, l->part_file);
	if (stat(other, &s) == 0 && (error = gs_read_file(&text, &len, other, FORMAT_MAX_BYTES)) == 0)
		json_set_str(doc, l->part, text);
	free(other);
	free(text);
	return error;
}

static int add_file(struct jobs *j, struct cmd_ctx *c, const char *path)
{
	const struct format *f = j->f;
	const cJSON *entries;
	cJSON *doc = NULL;
	char *dir = NULL, *pointer = NULL;
	struct stat s;
	int error;

	if (stat(path, &s) == 0 && S_ISDIR(s.st_mode))
		return add_dir(j, c, path);
	if (!f)
		f = pointer_format(path);
	if ((error = read_doc(&doc, &f, path)) < 0)
		return error;
	dir = dir_of(path);
	if ((entries = format_registry(f, doc)))
		error = add_registry(j, c, f, entries, path);
	else if ((pointer = format_pointer(f, doc)))
		error = add_pointed(j, c, f, dir, pointer);
	else if ((error = read_part(doc, f, dir)) == 0)
		error = add_job(j, c, f, doc, path, 0);
	cJSON_Delete(doc);
	free(dir);
	free(pointer);
	return error;
}

/* The manifest of files the source names that exist here (deleted ones too). */
static int record_files(cJSON *args, struct cmd_ctx *c, struct job *job)
{
	cJSON *manifest = json_obj(job->state, "files"), *blobs = json_obj(args, "files"), *f;
	cJSON *null = cJSON_CreateNull();
	int error = 0, ignored = 0, n_ignored = 0;

	cJSON_ArrayForEach(f, job->files) {
		const char *status = json_str(f, "status");
		cJSON *e;

		if (!state_valid_path(f->string) || !status)
			continue;
		/* what git would not add (.env) is not stored, so never pushed */
		if ((error = store_ignored(&ignored, c->st, f->string)) < 0)
			break;
		if (ignored) {
			n_ignored++;
			continue;
		}
		/* one read: a file missing here comes back "deleted", with no blob */
		if (strcmp(status, ST_DELETED)) {
			if ((error = engine_record_file(blobs, c->st, f->string, status, 1)) < 0)
				break;
			if (!json_str(cJSON_GetObjectItemCaseSensitive(blobs, f->string), "oid")) {
				cJSON_DeleteItemFromObjectCaseSensitive(blobs, f->string);
				continue;	/* not here: the source's own lists keep it */
			}
		}
		e = cJSON_CreateObject();
		json_set_str(e, "status", status);
		json_set_str(e, "oid", json_str(cJSON_GetObjectItemCaseSensitive(blobs, f->string), "oid"));
		json_set(e, "phase", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(f, "phase") ?: null, 1));
		json_set_str(e, "agent", json_str(f, "agent"));
		json_set(manifest, f->string, e);
	}
	cJSON_Delete(null);
	if (n_ignored)
		gs_warning("%d file%s the repository ignores not recorded", n_ignored, n_ignored == 1 ? "" : "s");
	return error;
}

/* 1 when written, 0 when already there. */
static int write_job(struct cmd_ctx *c, struct job *job, int quiet)
{
	const char *id = json_str(job->state, "session_id");
	char *ref = engine_refname(id), *archived = xstrfmt("%s%s", ARCHIVE_PREFIX, id), *msg = NULL;
	struct state_op *op = NULL;
	cJSON *old = NULL, *args;
	struct store_tip tip = { 0 };
	struct engine_result r = { 0 };
	const char *digest = json_str(state_extra_get(job->state, "import"), "digest"), *at;
	int exists, error = 0;
	time_t t;

	exists = store_ref_exists(c->st, ref);
	if ((exists || store_ref_exists(c->st, archived)) &&
	    (error = engine_load_ref(&old, &tip, c->st, exists ? ref : archived)) == 0 &&
	    !strcmp(json_str(state_extra_get(old, "import"), "digest") ?: "", digest)) {
		if (!quiet)
			printf("%s: session %s already imported\n", job->source, id);
		error = 0;
		goto cleanup;
	}
	cmd_print_errors();	/* a session here that does not read is imported over, said first */
	if (!exists && store_ref_exists(c->st, archived)) {
		error = gs_error("%s: session '%s' is archived here", job->source, id);
		gs_hint("unarchive it to import it again ('git session unarchive %s'), or import it as another with --as <id>", id);
		goto cleanup;
	}
	at = json_str(job->state, exists ? "updated" : "created");
	op = op_new(OP_SESSION_IMPORT, at && gs_time_parse_iso(&t, at) == 0 ? at : NULL);
	args = op_args(op);
	json_set_str(args, "format", format_name(job->f));
	if ((error = record_files(args, c, job)) < 0)
		goto cleanup;
	json_set(args, "state", cJSON_Duplicate(job->state, 1));
	if ((error = engine_commit(&r, &c->eng, id, op, NULL,
				   (exists ? 0 : ENGINE_CREATE) | (at ? ENGINE_AUTHOR_AT : 0))) < 0)
		goto cleanup;
	if (!quiet)
		printf("[%s %.7s] %s\n", id, r.commit, r.subject);
	if (job->archived && !exists) {
		msg = xstrfmt("session: archive %s", id);
		error = engine_move(&c->eng, ref, archived, msg);
	}
	error = error < 0 ? error : 1;
cleanup:
	engine_result_clear(&r);
	store_tip_clear(&tip);
	cJSON_Delete(old);
	op_free(op);
	free(ref);
	free(archived);
	free(msg);
	return error;
}

int cmd_import(int argc, const char **argv, struct cmd_ctx *c)
{
	const char *format = NULL, *active = NULL;
	struct jobs jobs = { 0 };
	int quiet = 0, error = 0;
	const struct option opts[] = {
		{ OPT_STRING, 0, "format", &format, "<format>", "the files' format (default: from their content)" },
		{ OPT_STRING, 0, "as", &jobs.as, "<id>", "the session's id (a new session, not the file's)" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, import_usage, 0)) < 0)
		return cmd_exit(error);
	if (!argc)
		return cmd_exit(cmd_usage_error(import_usage, opts, "nothing to import"));
	if (format && !(jobs.f = format_find(format)))
		return cmd_exit(cmd_usage_error(import_usage, opts, "unknown format '%s' (known: %s)", format,
						format_names()));
	/* everything read and checked before anything is written */
	for (int i = 0; i < argc && !error; i++)
		error = add_file(&jobs, c, argv[i]);
	if (!error && jobs.as && jobs.n > 1)
		error = gs_error("--as names one session; these files hold %zu", jobs.n);
	for (size_t i = 0; i < jobs.n && error >= 0; i++) {
		error = write_job(c, &jobs.v[i], quiet);
		if (error > 0 && jobs.v[i].active && !jobs.v[i].archived)
			active = json_str(jobs.v[i].state, "session_id");
	}
	error = error < 0 ? error : 0;
	if (!error && active && (error = store_set_active(c->st, active)) == 0 && !quiet)
		printf("Active session: %s\n", active);
	jobs_clear(&jobs);
	return cmd_exit(error);
}

struct reg_line {
	double line;
	char *text;
};

static int cmp_line(const void *a, const void *b)
{
	const struct reg_line *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/*
 * Every live session as f's registry, one line each: the imported in the
 * registry's order, then the others by id.
 */
static int registry(struct sbuf *out, struct cmd_ctx *c, const struct format *f)
{
	struct reg_line *lines;
	char **ids = NULL;
	size_t n = 0, k = 0;
	int error;

	if ((error = store_list(&ids, &n, c->st, SESSIONS_PREFIX)) < 0)
		return error;
	lines = xcalloc(n + 1, sizeof(*lines));
	for (size_t i = 0; i < n && !error; i++) {
		struct store_tip tip = { 0 };
		char *ref = engine_refname(ids[i]);
		cJSON *state = NULL;

		if ((error = engine_load_ref(&state, &tip, c->st, ref)) == 0 &&
		    (error = format_registry_line(&lines[k].text, f, state)) == 0)
			lines[k++].line = json_num(state_extra_get(state, "import"), "line", 1e9 + (double)i);
		free(ref);
		cJSON_Delete(state);
		store_tip_clear(&tip);
	}
	qsort(lines, k, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < k; i++) {
		sbuf_adds(out, lines[i].text);
		sbuf_addch(out, '\n');
		free(lines[i].text);
	}
	free(lines);
	store_ids_free(ids, n);
	return error;
}

static int write_out(const char *path, const char *text, size_t len)
{
	if (!path) {
		fwrite(text, 1, len, stdout);
		return 0;
	}
	return gs_write_file(path, text, len, 0666);
}

/* The document's main part to path (or stdout); a second part in its own file beside it. */
static int export_session(struct cmd_ctx *c, const struct format *f, const char *given, const char *path)
{
	struct store_tip tip = { 0 };
	char *id = NULL, *ref = NULL, *err = NULL, *text = NULL, *part = NULL, *dir = NULL, *lost = NULL;
	cJSON *state = NULL, *doc = NULL;
	size_t len;
	int error;

	if ((error = cmd_target(&id, c, given)) < 0)
		goto cleanup;
	ref = engine_refname(id);
	if ((error = engine_load_ref(&state, &tip, c->st, ref)) < 0)
		goto cleanup;
	if ((error = format_export(&doc, f, state, &err)) < 0) {
		gs_error("%s", err);
		goto cleanup;
	}
	if ((error = format_print(&text, &len, f, doc, NULL)) < 0) {
		gs_error("cannot write session '%s' as %s", id, format_name(f));
		goto cleanup;
	}
	if (!text || !len) {
		error = gs_error("session '%s' has nothing to write as %s%s", id, format_name(f),
				 format_layout(f)->registry_file ? " (it is known only from a registry line: "
								   "--registry writes that)" : "");
		goto cleanup;
	}
	if ((lost = format_lost(f, state)))
		gs_warning("%s has no place for the session's %s; they stay in the session", format_name(f), lost);
	if ((error = write_out(path, text, len)) < 0)
		goto cleanup;
	free(text);
	text = NULL;
	if (path && format_layout(f)->part_file &&
	    (error = format_print(&text, &len, f, doc, format_layout(f)->part)) == 0 && text) {
		dir = dir_of(path);
		part = xstrfmt("%s/%s", dir, format_layout(f)->part_file);
		error = gs_write_file(part, text, len, 0666);
	}
cleanup:
	store_tip_clear(&tip);
	cJSON_Delete(state);
	cJSON_Delete(doc);
	free(id);
	free(ref);
	free(err);
	free(text);
	free(part);
	free(dir);
	free(lost);
	return error;
}

/* export --registry: every session as the registry file of f. */
static int export_registry(struct cmd_ctx *c, const struct format *f, const char *path)
{
	struct sbuf sb = SBUF_INIT;
	int error;

	if ((error = registry(&sb, c, f)) == 0)
		error = write_out(path, sb.buf ? sb.buf : "", sb.len);
	sbuf_release(&sb);
	return error;
}

int cmd_export(int argc, const char **argv, struct cmd_ctx *c)
{
	const struct format *f, *rf = format_with_registry();
	const char *format = NULL, *path = NULL, *const *usage = export_usage();
	char *reg_help = rf ? xstrfmt("%s: the registry of every session (%s)", format_name(rf),
				      format_layout(rf)->registry_file) : NULL;
	int reg = 0, error;
	const struct option opts[] = {
		{ OPT_STRING, 0, "format", &format, "<format>", format_choices(0) },
		{ OPT_STRING, 'o', "output", &path, "<file>", "write to a file, not to standard output" },
		{ OPT_BOOL, 0, "registry", &reg, NULL, reg_help },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		goto cleanup;
	if (!format) {
		error = cmd_usage_error(usage, opts, "which format? (--format: %s)", format_names());
		goto cleanup;
	}
	if (!(f = format_find(format))) {
		error = cmd_usage_error(usage, opts, "unknown format '%s' (known: %s)", format, format_names());
		goto cleanup;
	}
	if ((error = cmd_no_more_args(argc, reg ? 0 : 1, usage)) < 0)
		goto cleanup;
	if (reg && f != rf)
		error = cmd_usage_error(usage, opts, "--registry is for --format %s", rf ? format_name(rf) : "");
	else if (reg)
		error = export_registry(c, f, path);
	else
		error = export_session(c, f, argc ? argv[0] : NULL, path);
cleanup:
	free(reg_help);
	return cmd_exit(error);
}
