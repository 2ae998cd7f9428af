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
	char *source, *file;	/* file: the session file read, as realpath(3) names it */
	const struct format *f;
	cJSON *state, *files;
	int active, archived, here;	/* here: imported from the same file already */
};

struct jobs {
	struct job *v;
	size_t n, alloc, reads;	/* reads: sessions read, a file read twice counted twice */
	const char *as;
	const struct format *f;
};

static void job_clear(struct job *job)
{
	free(job->source);
	free(job->file);
	cJSON_Delete(job->state);
	cJSON_Delete(job->files);
	memset(job, 0, sizeof(*job));
}

static void jobs_clear(struct jobs *j)
{
	for (size_t i = 0; i < j->n; i++)
		job_clear(&j->v[i]);
	free(j->v);
}

static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *d = xstrdup(dirname(copy));

	free(copy);
	return d;
}

/*
 * A session file in a folder of ccw's archives/ (archives/<id>/<file>) is a
 * finished one's: never made active. Only that place: a project may well
 * live under a folder named archives.
 */
static int under_archives(const char *path)
{
	char *session_dir = dir_of(path), *parent = dir_of(session_dir), *copy = xstrdup(parent);
	int yes = !strcmp(basename(copy), "archives");

	free(session_dir);
	free(parent);
	free(copy);
	return yes;
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
/*
 * The job that read the same session file as job, or NULL: a registry line
 * or a pointer and a folder's walk may reach one file twice.
 */
static struct job *read_before(struct jobs *j, const struct job *job)
{
	for (size_t i = 0; job->file && i < j->n; i++)
		if (j->v[i].file && !strcmp(j->v[i].file, job->file) &&
		    !strcmp(json_str(j->v[i].state, "session_id"), json_str(job->state, "session_id")))
			return &j->v[i];
	return NULL;
}

/*
 * A session read from doc, which came from source (a registry, at line; a
 * pointer's file; a session file) and session file file (NULL: none).
 */
static int add_job(struct jobs *j, struct cmd_ctx *c, const struct format *f, cJSON *doc,
		   const char *source, const char *file, int line, int active)
{
	struct job job = { 0 }, *twice;
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
	text = json_print(doc, 0, &len);
	if (store_hash(digest, text, len) < 0)
		goto cleanup;
	imp = json_obj(json_obj(job.state, "extra"), "import");
	json_set_str(imp, "source", source);
	json_set_str(imp, "digest", digest);
	if (line)	/* its place in the registry, for the export */
		json_set_num(imp, "line", line);
	job.f = f;
	job.active = (job.active || active) && !under_archives(source);
	job.archived = in_archive(source);
	job.source = xstrdup(source);
	job.file = file ? realpath(file, NULL) : NULL;
	j->reads++;
	if ((twice = read_before(j, &job))) {	/* the read with its registry line or pointer stays */
		if (strcmp(source, file) || active) {
			job_clear(twice);
			*twice = job;
			memset(&job, 0, sizeof(job));
		}
		error = 0;
		goto cleanup;
	}
	if (check_state(j, job.state, source) < 0)
		goto cleanup;
	ALLOC_GROW(j->v, j->n + 1, j->alloc);
	j->v[j->n++] = job;
	memset(&job, 0, sizeof(job));
	error = 0;
cleanup:
	job_clear(&job);
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
static int entry_doc(cJSON **one, char **file, const struct format *f, const cJSON *e, const char *root,
		     const char *regdir)
{
	const struct format *ff = f;
	char *err = NULL;
	cJSON *sess = NULL;
	int error = 0;

	*one = NULL;
	*file = entry_file(f, format_registry_dir(f, e), root, regdir);
	if (*file && (error = read_doc(&sess, &ff, *file)) < 0)
		goto cleanup;
	if ((error = format_registry_doc(one, f, e, sess, &err)) < 0)
		gs_error("%s: %s", *file ? *file : "", err);
cleanup:
	cJSON_Delete(sess);
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
		char *file = NULL;

		if ((error = entry_doc(&one, &file, f, e, root, regdir)) == 0)
			error = add_job(j, c, f, one, path, file, line, 0);
		line++;
		cJSON_Delete(one);
		free(file);
		if (error < 0)
			break;
	}
	free(regdir);
	free(root);
	return error;
}

/*
 * What a folder of a walk is: any folder; a format's root, holding the
 * folder of its sessions' folders (.workflow/ with sessions/ or active/),
 * where only folders and a registry are read, the other files being the
 * tool's own; or that folder, where only folders are.
 */
enum walk { WALK_ANY, WALK_ROOT, WALK_SESSIONS };

static int add_file(struct jobs *j, struct cmd_ctx *c, const char *path);
static int add_dir(struct jobs *j, struct cmd_ctx *c, const char *path, enum walk kind);

/* A file that only names the active session's own file: the format it is of, or NULL. */
static const struct format *pointer_format(const char *path)
{
	return format_by_pointer_name(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
}

/* The session file a folder of a session's own holds (caller frees), or NULL. */
static char *session_file_in(const char *path)
{
	struct stat s;

	for (int i = 0; i < FORMAT_COUNT; i++) {
		const char *file = format_layout(format_get(i))->session_file;
		char *full = file ? xstrfmt("%s/%s", path, file) : NULL;

		if (full && stat(full, &s) == 0 && S_ISREG(s.st_mode))
			return full;
		free(full);
	}
	return NULL;
}

/*
 * A folder in a folder: a session's own, holding a format's session file,
 * or one a format keeps such folders in (ccw's active/ and archives/,
 * maestro-flow's sessions/); other folders are not looked into.
 */
static int add_subdir(struct jobs *j, struct cmd_ctx *c, const char *path, const char *name)
{
	char *file = session_file_in(path);
	int error;

	if (file) {
		error = add_file(j, c, file);
		free(file);
		return error;
	}
	return format_session_dir(name) ? add_dir(j, c, path, WALK_SESSIONS) : 0;
}

/* A name a session file may have in a folder: .json, .jsonl, .md, .yaml, .yml, and no pointer. */
static int is_session_name(const char *name)
{
	const char *ext = strrchr(name, '.');

	return ext && !pointer_format(name) &&
	       (!strcmp(ext, ".json") || !strcmp(ext, ".jsonl") || !strcmp(ext, ".md") ||
		!strcmp(ext, ".yaml") || !strcmp(ext, ".yml"));
}

/* Whether a file in a folder of kind is read: in a format's root only its registry. */
static int walk_reads(enum walk kind, const char *name)
{
	const struct format *rf = format_with_registry();

	if (kind == WALK_ROOT)
		return rf && !strcmp(name, format_layout(rf)->registry_file);
	return kind == WALK_ANY && is_session_name(name);
}

/* Whether dir holds a folder with a session file: a folder of sessions' folders. */
static int holds_sessions(const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), yes = 0;

	for (int i = 0; i < n; i++) {
		char *sub = xstrfmt("%s/%s", dir, names[i]->d_name), *file = NULL;

		if (!yes && names[i]->d_name[0] != '.' && (file = session_file_in(sub)))
			yes = 1;
		free(file);
		free(sub);
		free(names[i]);
	}
	free(names);
	return yes;
}

/* Whether a folder's listing holds a format's folder of sessions' folders, with a session in it. */
static int is_root(const char *path, struct dirent **names, int n)
{
	int yes = 0;

	for (int i = 0; i < n && !yes; i++) {
		char *full = xstrfmt("%s/%s", path, names[i]->d_name);

		yes = names[i]->d_name[0] != '.' && format_session_dir(names[i]->d_name) && holds_sessions(full);
		free(full);
	}
	return yes;
}

/* A folder: every session file in it, in name order. */
static int add_dir(struct jobs *j, struct cmd_ctx *c, const char *path, enum walk kind)
{
	struct dirent **names = NULL;
	int n = scandir(path, &names, NULL, alphasort), error = 0;

	if (n < 0)
		return gs_error("cannot read '%s': %s", path, strerror(errno));
	if (kind == WALK_ANY && is_root(path, names, n))
		kind = WALK_ROOT;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *full = xstrfmt("%s/%s", path, name);
		struct stat s;

		if (error || name[0] == '.' || stat(full, &s) < 0)
			;	/* hidden, or gone since the listing */
		else if (S_ISDIR(s.st_mode))
			error = add_subdir(j, c, full, name);
		else if (S_ISREG(s.st_mode) && walk_reads(kind, name))
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
		error = add_job(j, c, f, doc, other, other, 0, 1);
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

/* Whether file is in folder dir, links resolved: a link out of it (~/.aws/...) is never read in. */
static int inside(const char *file, const char *dir)
{
	char *real = realpath(file, NULL), *home = realpath(dir, NULL);
	size_t n = home ? strlen(home) : 0;
	int yes = real && home && !strncmp(real, home, n) && real[n] == '/';

	free(real);
	free(home);
	return yes;
}

/*
 * One JSON file of a document's in the session's folder dir, into
 * doc[part]; *budget: the bytes the document may still take.
 */
static int read_json_part(cJSON *doc, const char *part, const char *file, const char *dir, size_t *budget)
{
	char *text = NULL, *err = NULL;
	cJSON *v = NULL;
	size_t len;
	int error;

	if (!inside(file, dir)) {
		error = gs_error("%s: a link out of the session's folder '%s': not read", file, dir);
		goto cleanup;
	}
	if ((error = gs_read_file(&text, &len, file, *budget)) < 0)
		goto cleanup;
	*budget -= len;
	if ((error = json_parse(&v, text, len, FORMAT_MAX_BYTES, &err)) < 0) {
		gs_error("%s: %s", file, err);
		goto cleanup;
	}
	json_set(doc, part, v);
cleanup:
	free(text);
	free(err);
	return error;
}

/*
 * The files beside a session file its document holds too: the side files
 * it names and the items' folders (maestro-flow's runs/<id>/run.json),
 * FORMAT_MAX_BYTES in all.
 */
static int read_sides(cJSON *doc, const struct format *f, const char *dir)
{
	const struct format_layout *l = format_layout(f);
	cJSON *sides = format_side_files(f, doc), *sd;
	struct dirent **names = NULL;
	size_t budget = FORMAT_MAX_BYTES;
	char *items = NULL;
	struct stat s;
	int n = 0, error = 0;

	cJSON_ArrayForEach(sd, sides) {
		char *file = xstrfmt("%s/%s", dir, sd->valuestring);

		if (stat(file, &s) == 0)
			error = read_json_part(doc, sd->string, file, dir, &budget);
		free(file);
		if (error < 0)
			goto cleanup;
	}
	if (!l->items_dir)
		goto cleanup;
	items = xstrfmt("%s/%s", dir, l->items_dir);
	if (stat(items, &s) < 0 || (n = scandir(items, &names, NULL, alphasort)) < 0) {
		n = 0;
		goto cleanup;
	}
	for (int i = 0; i < n && !error; i++) {
		char *file = xstrfmt("%s/%s/%s", items, names[i]->d_name, l->item_file);

		if (names[i]->d_name[0] != '.' && stat(file, &s) == 0 && S_ISREG(s.st_mode))
			error = read_json_part(json_obj(doc, l->items_dir), names[i]->d_name, file, dir, &budget);
		free(file);
	}
cleanup:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(items);
	cJSON_Delete(sides);
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

	if (stat(path, &s) == 0 && S_ISDIR(s.st_mode)) {
		char *file = session_file_in(path), *copy = xstrdup(path);

		error = file ? add_file(j, c, file)
			     : add_dir(j, c, path, format_session_dir(basename(copy)) ? WALK_SESSIONS : WALK_ANY);
		free(file);
		free(copy);
		return error;
	}
	if (!f)
		f = pointer_format(path);
	if ((error = read_doc(&doc, &f, path)) < 0)
		return error;
	dir = dir_of(path);
	if ((entries = format_registry(f, doc)))
		error = add_registry(j, c, f, entries, path);
	else if ((pointer = format_pointer(f, doc)))
		error = add_pointed(j, c, f, dir, pointer);
	else if ((error = read_part(doc, f, dir)) == 0 && (error = read_sides(doc, f, dir)) == 0)
		error = add_job(j, c, f, doc, path, path, 0, 0);
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
/*
 * Whether job's session is here already from the same file (job->here), or
 * refused (archived here, from another file): decided for every file before
 * the first one is written, so that a refusal writes nothing.
 */
static int check_here(struct cmd_ctx *c, struct job *job)
{
	const char *id = json_str(job->state, "session_id");
	const char *digest = json_str(state_extra_get(job->state, "import"), "digest");
	char *ref = engine_refname(id), *archived = xstrfmt("%s%s", ARCHIVE_PREFIX, id);
	int exists = store_ref_exists(c->st, ref), in_archive = !exists && store_ref_exists(c->st, archived);
	struct store_tip tip = { 0 };
	cJSON *old = NULL;
	int error = 0;

	if ((exists || in_archive) && engine_load_ref(&old, &tip, c->st, exists ? ref : archived) == 0 &&
	    !strcmp(json_str(state_extra_get(old, "import"), "digest") ?: "", digest))
		job->here = 1;
	else if (in_archive) {
		error = gs_error("%s: session '%s' is archived here", job->source, id);
		gs_hint("unarchive it to import it again ('git session unarchive %s'), or import it as another with --as <id>", id);
	} else
		cmd_print_errors();	/* a session here that does not read is imported over, said first */
	store_tip_clear(&tip);
	cJSON_Delete(old);
	free(ref);
	free(archived);
	return error;
}

static int write_job(struct cmd_ctx *c, struct job *job, int quiet)
{
	const char *id = json_str(job->state, "session_id");
	char *ref = engine_refname(id), *archived = xstrfmt("%s%s", ARCHIVE_PREFIX, id), *msg = NULL;
	struct state_op *op = NULL;
	cJSON *args;
	struct engine_result r = { 0 };
	const char *at;
	char now[32];
	int exists, error = 0;
	time_t t;

	if (job->here) {
		if (!quiet)
			printf("%s: session %s already imported\n", job->source, id);
		goto cleanup;
	}
	exists = store_ref_exists(c->st, ref);
	at = json_str(job->state, exists ? "updated" : "created");
	if (!at || gs_time_parse_iso(&t, at) < 0) {	/* no date in the file: the import's own */
		if (store_now(&t, c->st) < 0)
			t = time(NULL);
		gs_time_iso(now, sizeof(now), t);
		at = NULL;
	}
	/* what status and list show of a file that gives no time of its own */
	json_set_str(json_obj(json_obj(job->state, "extra"), "import"), "at", at ? at : now);
	op = op_new(OP_SESSION_IMPORT, at);
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
	op_free(op);
	free(ref);
	free(archived);
	free(msg);
	return error;
}

/* An imported session not made active: its name, its status and how to go on with it. */
static void say_imported(const struct job *job)
{
	const char *id = json_str(job->state, "session_id"), *st = json_str(job->state, "status");

	printf("imported '%s' (%s%s); git session %s %s\n", id, strcmp(st, ST_IN_PROGRESS) ? st : "in progress",
	       job->archived ? ", archived" : "", job->archived ? "unarchive" : "switch", id);
}

int cmd_import(int argc, const char **argv, struct cmd_ctx *c)
{
	const char *format = NULL, *active = NULL;
	struct jobs jobs = { 0 };
	char *written = NULL;
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
	for (int i = 0; i < argc && !error; i++) {
		size_t had = jobs.reads;

		if ((error = add_file(&jobs, c, argv[i])) == 0 && jobs.reads == had) {
			error = gs_error("nothing to import in %s: no session file of a known format (%s) in it",
					 argv[i], format_names());
			gs_hint("name the session files, or the folder that holds them (.workflow/, docs/maestro/state/, ...)");
		}
	}
	if (!error && jobs.as && jobs.n > 1)
		error = gs_error("--as names one session; these files hold %zu", jobs.n);
	for (size_t i = 0; i < jobs.n && !error; i++)
		error = check_here(c, &jobs.v[i]);
	written = xcalloc(jobs.n + 1, 1);
	for (size_t i = 0; i < jobs.n && error >= 0; i++) {
		error = write_job(c, &jobs.v[i], quiet);
		written[i] = error > 0;
		if (error > 0 && jobs.v[i].active && !jobs.v[i].archived)
			active = json_str(jobs.v[i].state, "session_id");
	}
	error = error < 0 ? error : 0;
	if (!error && active && (error = store_set_active(c->st, active)) == 0 && !quiet)
		printf("Active session: %s\n", active);
	for (size_t i = 0; i < jobs.n && !error && !quiet; i++)
		if (written[i] && (!active || strcmp(active, json_str(jobs.v[i].state, "session_id"))))
			say_imported(&jobs.v[i]);
	free(written);
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

/* One more file of a session's folder: path (taken) under -o, and the text of the document's part. */
static int add_part(struct gs_part **v, size_t *n, size_t *alloc, const struct format *f, const cJSON *doc,
		    const char *part, char *path)
{
	char *text = NULL;
	size_t len;
	int error;

	if ((error = format_print(&text, &len, f, doc, part)) < 0 || !text) {
		free(path);
		return error;
	}
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = (struct gs_part){ path, text, len };
	return 0;
}

/*
 * The files of a session kept in a folder of its own (a format with items,
 * as maestro-flow): <id>/ with its session file, the side files it names
 * and <items>/<item>/<file> each, all made before one is written.
 */
static int folder_parts(struct gs_part **out, size_t *n, const struct format *f, const cJSON *doc, const char *id)
{
	const struct format_layout *l = format_layout(f);
	cJSON *sides = format_side_files(f, doc), *sd;
	const cJSON *it;
	size_t alloc = 0;
	int error = 0;

	*out = NULL;
	*n = 0;
	if (!format_plain_name(id))
		error = gs_error("session '%s' is not a plain folder name", id);
	else
		error = add_part(out, n, &alloc, f, doc, NULL, xstrfmt("%s/%s", id, l->session_file));
	cJSON_ArrayForEach(sd, sides)
		if (!error)
			error = add_part(out, n, &alloc, f, doc, sd->string, xstrfmt("%s/%s", id, sd->valuestring));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, l->items_dir)) {
		char *part = xstrfmt("%s/%s", l->items_dir, it->string);

		if (!error && !format_plain_name(it->string))
			error = gs_error("session '%s': '%s' is not a plain folder name", id, it->string);
		if (!error)
			error = add_part(out, n, &alloc, f, doc, part, xstrfmt("%s/%s/%s", id, part, l->item_file));
		free(part);
	}
	cJSON_Delete(sides);
	return error;
}

/* Whether path may be written: absent, or a folder (dir) or a file, never a link followed elsewhere. */
static int check_place(const char *path, int dir)
{
	struct stat s;

	if (lstat(path, &s) < 0)
		return errno == ENOENT ? 0 : gs_error("cannot read '%s': %s", path, strerror(errno));
	if (S_ISLNK(s.st_mode))
		return gs_error("'%s' is a symbolic link: nothing is written through it", path);
	if (dir ? !S_ISDIR(s.st_mode) : !S_ISREG(s.st_mode))
		return gs_error("'%s' is in the way: it is no %s", path, dir ? "folder" : "file");
	return 0;
}

/* Every folder of part i under dir and its file: places to write, and no other part's. */
static int check_part(const char *dir, const struct gs_part *v, size_t n, size_t i)
{
	char *full = xstrfmt("%s/%s", dir, v[i].path), *slash = full + strlen(dir) + 1;
	size_t len = strlen(v[i].path);
	int error = 0;

	for (; !error && (slash = strchr(slash, '/')); *slash++ = '/') {
		*slash = '\0';
		error = check_place(full, 1);
	}
	if (!error)
		error = check_place(full, 0);
	for (size_t k = 0; k < n && !error; k++)	/* a side file named as another file, or as a folder */
		if (k != i && !strncmp(v[k].path, v[i].path, len) && (!v[k].path[len] || v[k].path[len] == '/'))
			error = gs_error("'%s' would be written twice, or as a file and a folder", full);
	free(full);
	return error;
}

static int write_part(const char *dir, const struct gs_part *p)
{
	char *sub = xstrfmt("/%s", p->path), *file = xstrfmt("%s/%s", dir, p->path);
	int error;

	*strrchr(sub, '/') = '\0';
	if ((error = gs_make_dirs(dir, sub)) == 0)
		error = gs_write_file(file, p->text, p->len, 0666);
	free(sub);
	free(file);
	return error;
}

/* A session's folder into dir: every file made and every place checked before the first is written. */
static int export_folder(const struct format *f, const cJSON *doc, const char *id, const char *dir)
{
	struct gs_part *parts = NULL;
	size_t n = 0;
	int error;

	if ((error = folder_parts(&parts, &n, f, doc, id)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n && !error; i++)
		error = check_part(dir, parts, n, i);
	if (!error && mkdir(dir, 0777) < 0 && errno != EEXIST)
		error = gs_error("cannot make '%s': %s", dir, strerror(errno));
	for (size_t i = 0; i < n && !error; i++)
		error = write_part(dir, &parts[i]);
cleanup:
	gs_parts_free(parts, n);
	return error;
}

/* The document's main part to path (or stdout); a second part in its own file beside it. */
/* The session to export and its ref: an archived one too, since export only reads it. */
static int export_target(char **id, char **ref, struct cmd_ctx *c, const char *given)
{
	char *archived = given ? xstrfmt("%s%s", ARCHIVE_PREFIX, given) : NULL, *live = NULL, *err = NULL;
	int error;

	*ref = NULL;
	if (archived && state_valid_id(given, &err) == 0 && store_ref_exists(c->st, archived) &&
	    !store_ref_exists(c->st, (live = engine_refname(given)))) {
		*id = xstrdup(given);
		*ref = archived;
		archived = NULL;
		error = 0;
	} else if ((error = cmd_target(id, c, given)) == 0) {
		*ref = engine_refname(*id);
	}
	free(archived);
	free(live);
	free(err);
	return error;
}

static int export_session(struct cmd_ctx *c, const struct format *f, const char *given, const char *path)
{
	struct store_tip tip = { 0 };
	char *id = NULL, *ref = NULL, *err = NULL, *text = NULL, *part = NULL, *dir = NULL, *lost = NULL;
	cJSON *state = NULL, *doc = NULL;
	size_t len;
	int error, n;

	if ((error = export_target(&id, &ref, c, given)) < 0 ||
	    (error = engine_load_ref(&state, &tip, c->st, ref)) < 0)
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
	free(lost);
	if ((lost = format_unplaced(&n, f, state)))
		gs_warning("%s has no place for phase%s %s; %s in the session", format_name(f), n > 1 ? "s" : "",
			   lost, n > 1 ? "they stay" : "it stays");
	if (path && format_layout(f)->items_dir) {	/* -o: the folder of the sessions' folders */
		error = export_folder(f, doc, id, path);
		goto cleanup;
	}
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
		{ OPT_STRING, 'o', "output", &path, "<file>", "write to a file (maestro-flow: into the folder of the sessions' folders), not to standard output" },
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
