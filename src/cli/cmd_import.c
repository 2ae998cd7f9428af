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
static const char *const export_usage[] = {
	"git session export --format <format> [<id>] [-o <file>]",
	"git session export --format ccw --registry [-o <file>]",
	NULL,
};

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
	if ((error = format_parse(doc, f, buf, len, &err)) < 0)
		gs_error("%s: %s", path, err);
	free(buf);
	free(err);
	return error;
}

/* The state for doc, with where it came from; one more job. */
static int add_job(struct jobs *j, struct cmd_ctx *c, const struct format *f, cJSON *doc,
		   const char *source, int active)
{
	struct job job = { 0 };
	char digest[HEX_SZ], *err = NULL, *text = NULL, *verr = NULL;
	const char *id;
	cJSON *imp, *project = store_project(c->st);
	size_t len;
	int error = GS_ERROR;

	if (format_import(&job.state, &job.files, &job.active, f, doc, project, &err) < 0) {
		gs_error("%s: %s", source, err);
		goto cleanup;
	}
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(job.state, "phases")) > STATE_PHASES_MAX ||
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(job.state, "agents")) > STATE_AGENTS_MAX) {
		gs_error("%s: more than a session holds (%d phases, %d agents)", source, STATE_PHASES_MAX,
			 STATE_AGENTS_MAX);
		goto cleanup;
	}
	/* the import's op.json holds the state two levels down: both must read back */
	if (json_depth_over(job.state, JSON_MAX_DEPTH - 2)) {
		gs_error("%s: nested deeper than a session can keep (%d levels, with the state's own)", source,
			 JSON_MAX_DEPTH - 2);
		goto cleanup;
	}
	if (j->as)
		json_set_str(job.state, "session_id", j->as);
	if (!(id = json_str(job.state, "session_id"))) {
		gs_error("%s: no session id in the file", source);
		gs_hint("give it one with --as <id>");
		goto cleanup;
	}
	if (state_valid_id(id, &verr) < 0) {
		gs_error("%s: invalid session id '%s': %s", source, id, verr);
		gs_hint("give it another with --as <id>");
		goto cleanup;
	}
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(json_str(j->v[i].state, "session_id"), id)) {
			gs_error("%s: session '%s' is also in %s", source, id, j->v[i].source);
			goto cleanup;
		}
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
	free(verr);
	free(text);
	return error;
}

/* A CCW registry: each line a session, with its workflow-session.json if there is one. */
static int add_registry(struct jobs *j, struct cmd_ctx *c, const struct format *f, cJSON *doc,
			const char *path)
{
	char *regdir = dir_of(path), *root = dir_of(regdir);
	cJSON *e;
	int error = 0, line = 1;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "registry")) {
		const char *dir = json_str(e, "directory");
		cJSON *one = cJSON_CreateObject(), *sess = NULL;
		const struct format *ff = f;
		struct stat s;
		char *wf = NULL, *base = dir ? xstrdup(dir) : NULL;

		/* only below the registry's own folder: a registry does not send import elsewhere */
		if (dir && *dir != '/' && strcmp(dir, "..") && strncmp(dir, "../", 3) && !strstr(dir, "/../") &&
		    !(strlen(dir) >= 3 && !strcmp(dir + strlen(dir) - 3, "/..")))
			wf = xstrfmt("%s/%s/workflow-session.json", root, dir);
		else if (dir)
			wf = xstrdup("");
		if (wf && stat(wf, &s) < 0) {	/* the registry moved: look beside it */
			free(wf);
			wf = xstrfmt("%s/%s/workflow-session.json", regdir, basename(base));
		}
		if (wf && stat(wf, &s) == 0) {
			if ((error = read_doc(&sess, &ff, wf)) < 0 ||
			    !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(sess, "session"))) {
				error = error < 0 ? error : gs_error("%s: not a workflow session", wf);
			} else {
				json_set(one, "session", cJSON_DetachItemFromObjectCaseSensitive(sess, "session"));
			}
		}
		json_set(one, "registry", cJSON_Duplicate(e, 1));
		if (!error && (error = add_job(j, c, f, one, path, 0)) == 0)	/* its place, for the export */
			json_set_num(json_obj(json_obj(j->v[j->n - 1].state, "extra"), "import"), "line",
				     line);
		line++;
		cJSON_Delete(sess);
		cJSON_Delete(one);
		free(wf);
		free(base);
		if (error < 0)
			break;
	}
	free(regdir);
	free(root);
	return error;
}

static int add_file(struct jobs *j, struct cmd_ctx *c, const char *path);
static int add_dir(struct jobs *j, struct cmd_ctx *c, const char *path);

/* BMAD's active-session.yaml names the active session's file. */
static int is_pointer_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return !strcmp(base, "active-session.yaml") || !strcmp(base, "active-session.yml");
}

/*
 * CCW's layout: .workflow/active/<id>/ and .workflow/archives/<id>/, each
 * with its workflow-session.json; other folders are not looked into.
 */
static int add_subdir(struct jobs *j, struct cmd_ctx *c, const char *path, const char *name)
{
	char *wf = xstrfmt("%s/workflow-session.json", path);
	struct stat s;
	int error = 0;

	if (stat(wf, &s) == 0 && S_ISREG(s.st_mode))
		error = add_file(j, c, wf);
	else if (!strcmp(name, "active") || !strcmp(name, "archives"))
		error = add_dir(j, c, path);
	free(wf);
	return error;
}

/* A name a session file may have in a folder: .json, .jsonl, .md, .yaml, .yml, and no pointer. */
static int is_session_name(const char *name)
{
	const char *ext = strrchr(name, '.');

	return ext && !is_pointer_name(name) &&
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

static int add_file(struct jobs *j, struct cmd_ctx *c, const char *path)
{
	const struct format *f = j->f;
	cJSON *doc = NULL;
	const char *pointer;
	char *dir = NULL, *other = NULL, *text = NULL;
	struct stat s;
	size_t len;
	int error;

	if (stat(path, &s) == 0 && S_ISDIR(s.st_mode))
		return add_dir(j, c, path);
	if (!f && is_pointer_name(path))
		f = format_get(FORMAT_BMAD);
	if ((error = read_doc(&doc, &f, path)) < 0)
		return error;
	dir = dir_of(path);
	if (format_id(f) == FORMAT_CCW && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "registry"))) {
		error = add_registry(j, c, f, doc, path);
	} else if (format_id(f) == FORMAT_BMAD && (pointer = format_bmad_pointer(doc))) {
		other = xstrfmt("%s/%s.yaml", dir, pointer);	/* active-session.yaml: the session it names */
		cJSON_Delete(doc);
		doc = NULL;
		error = read_doc(&doc, &f, other);
		if (!error)
			error = add_job(j, c, f, doc, other, 1);
	} else {
		if (format_id(f) == FORMAT_COPILOT) {	/* the handoff beside the state */
			other = xstrfmt("%s/00-handoff.md", dir);
			if (stat(other, &s) == 0 && (error = gs_read_file(&text, &len, other, FORMAT_MAX_BYTES)) == 0)
				json_set_str(doc, "handoff", text);
		}
		if (!error)
			error = add_job(j, c, f, doc, path, 0);
	}
	cJSON_Delete(doc);
	free(dir);
	free(other);
	free(text);
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
			if ((error = store_worktree_record(blobs, c->st, f->string, status, 1)) < 0)
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
		for (const char *const *k = (const char *const[]){ "size", "mtime", "ino", NULL }; *k; k++)
			if (cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(blobs, f->string), *k))
				json_set_num(e, *k, json_num(cJSON_GetObjectItemCaseSensitive(blobs, f->string), *k, 0));
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
 * Every live session as a CCW registry, one line each: the imported in
 * the registry's order, then the others by id.
 */
static int registry(struct sbuf *out, struct cmd_ctx *c)
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
		    (error = format_ccw_registry_line(&lines[k].text, state)) == 0)
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

/* The document's main part to path (or stdout); copilot's handoff beside it. */
static int export_session(struct cmd_ctx *c, const struct format *f, const char *given, const char *path)
{
	struct store_tip tip = { 0 };
	char *id = NULL, *ref = NULL, *err = NULL, *text = NULL, *handoff = NULL, *dir = NULL, *lost = NULL;
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
				 format_id(f) == FORMAT_CCW ? " (it is known only from a registry line: "
							      "--registry writes that)" : "");
		goto cleanup;
	}
	if ((lost = format_lost(f, state)))
		gs_warning("%s has no place for the session's %s; they stay in the session", format_name(f), lost);
	if ((error = write_out(path, text, len)) < 0)
		goto cleanup;
	free(text);
	text = NULL;
	if (path && (error = format_print(&text, &len, f, doc, "handoff")) == 0 && text) {
		dir = dir_of(path);
		handoff = xstrfmt("%s/00-handoff.md", dir);
		error = gs_write_file(handoff, text, len, 0666);
	}
cleanup:
	store_tip_clear(&tip);
	cJSON_Delete(state);
	cJSON_Delete(doc);
	free(id);
	free(ref);
	free(err);
	free(text);
	free(handoff);
	free(dir);
	free(lost);
	return error;
}

int cmd_export(int argc, const char **argv, struct cmd_ctx *c)
{
	const char *format = NULL, *path = NULL;
	const struct format *f;
	int reg = 0, error;
	const struct option opts[] = {
		{ OPT_STRING, 0, "format", &format, "<format>", "maestro, claude, copilot, bmad or ccw" },
		{ OPT_STRING, 'o', "output", &path, "<file>", "write to a file, not to standard output" },
		{ OPT_BOOL, 0, "registry", &reg, NULL, "ccw: the registry of every session (session_status.jsonl)" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, export_usage, 0)) < 0)
		return cmd_exit(error);
	if (!format)
		return cmd_exit(cmd_usage_error(export_usage, opts, "which format? (--format: %s)", format_names()));
	if (!(f = format_find(format)))
		return cmd_exit(cmd_usage_error(export_usage, opts, "unknown format '%s' (known: %s)", format,
						format_names()));
	if ((error = cmd_no_more_args(argc, reg ? 0 : 1, export_usage)) < 0)
		return cmd_exit(error);
	if (reg) {
		struct sbuf sb = SBUF_INIT;

		if (format_id(f) != FORMAT_CCW)
			return cmd_exit(cmd_usage_error(export_usage, opts, "--registry is for --format ccw"));
		if ((error = registry(&sb, c)) == 0)
			error = write_out(path, sb.buf ? sb.buf : "", sb.len);
		sbuf_release(&sb);
		return cmd_exit(error);
	}
	return cmd_exit(export_session(c, f, argc ? argv[0] : NULL, path));
}
