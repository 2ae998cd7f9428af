/*
 * agent_resume.c - `git session resume --agent <name>[:<agent>]`: the
 * agent's own session file rebuilt, in this clone and this home, from the
 * transcript the session keeps (agent_rebuild.h), and the one command
 * that continues it printed. A transcript not kept whole is refused.
 */
#include "git-session/agent.h"
#include "git-session/agent_rebuild.h"
#include "git-session/cmd.h"
#include "git-session/engine.h"
#include "git-session/ops.h"
#include "git-session/store.h"
#include "git-session/json.h"
#include "git-session/report.h"
#include "git-session/state.h"
#include "git-session/transcript.h"
#include "git-session/util.h"
#include "git-session/view.h"
#include "resume-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether agent a is a top-level session of d's CLI. */
static int of_cli(const cJSON *a, const struct agent_dialect *d)
{
	const char *cli = json_str(a, "cli") ? json_str(a, "cli") : json_str(a, "type");
	const char *id = json_str(a, "id");
	size_t n = strlen(d->stem);

	if (json_str(a, "parent") || !id)
		return 0;
	return cli ? !strcmp(cli, d->name) : !strncmp(id, d->stem, n) && id[n] == '-';
}

/* The agent to rebuild: the one named (its id, or its CLI's session id), else the newest of d's CLI. */
static int pick_agent(const cJSON **out, const cJSON *state, const struct agent_dialect *d, const char *named)
{
	const cJSON *a, *best = NULL;
	const char *best_at = "";

	*out = NULL;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		const char *at = json_str(cJSON_GetObjectItemCaseSensitive(a, "transcript"), "at");

		if (!of_cli(a, d))
			continue;
		if (named && strcmp(named, json_str(a, "id")) &&
		    (!json_str(a, "session") || strcmp(named, json_str(a, "session"))))
			continue;
		if (!best || strcmp(at ? at : "", best_at) >= 0)	/* ISO times; ties: the later started */
			best = a, best_at = at ? at : "";
	}
	if (!best && named)
		return gs_error("the session has no %s agent '%s'", d->name, named);
	if (!best)
		return gs_error("the session has no %s agent whose conversation its hooks recorded", d->name);
	*out = best;
	return 0;
}

struct parts {
	struct sbuf text;
	int n, gap;		/* parts read; a part not numbered next */
};

static int add_part(const char *path, const char *data, size_t len, void *payload)
{
	struct parts *p = payload;
	const char *last = strrchr(path, '/');

	if (!last || atoi(last + 1) != p->n + 1)
		p->gap = 1;
	p->n++;
	sbuf_add(&p->text, data, len);
	if (len && data[len - 1] != '\n')
		sbuf_addch(&p->text, '\n');
	return 0;
}

/* The agent's stored transcript, whole: refused when a part was not kept, or is missing. */
static int read_whole(struct sbuf *out, struct cmd_ctx *c, const char *commit, const cJSON *a)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "transcript");
	const char *id = json_str(a, "id");
	struct parts p = { SBUF_INIT, 0, 0 };
	char *dir = xstrfmt("transcripts/%s", id);
	int parts = (int)json_num(t, "parts", 0), error;

	error = strchr(id, '/') || !strcmp(id, "..") ? 0 : store_walk_blobs(c->st, commit, dir, add_part, &p);
	free(dir);
	if (error < 0)
		goto cleanup;
	if (json_bool(t, "incomplete", 0))
		error = gs_error("the transcript of agent '%s' is not kept whole: a part passed "
				 "session.transcriptLimit, had a line too long to read, or came while "
				 "session.transcripts was false", id);
	else if (!p.n)
		error = gs_error("no transcript of agent '%s' is kept (session.transcripts false?)", id);
	else if (p.gap || p.n != parts)
		error = gs_error("the transcript of agent '%s' is not kept whole: %d part%s kept of the %d recorded%s",
				 id, p.n, p.n == 1 ? "" : "s", parts, p.gap ? ", numbered with gaps" : "");
	if (error < 0)
		goto cleanup;
	*out = p.text;
	return 0;
cleanup:
	sbuf_release(&p.text);
	return error;
}

/* Whether rel is a folder of the work tree at top. */
static int is_dir_here(const char *top, const char *rel)
{
	char *here = xstrfmt("%s/%s", top, rel);
	struct stat sb;
	int is_dir = stat(here, &sb) == 0 && S_ISDIR(sb.st_mode);

	free(here);
	return is_dir;
}

/*
 * How many of the absolute paths under root that text names (a tool's
 * arguments, its results) are files of this clone when moved to top: the
 * evidence for root against another reading of a working folder.
 */
static size_t paths_here(const struct sbuf *text, const char *root, const char *top)
{
	char *under = xstrfmt("%s/", root);
	size_t n = strlen(under), found = 0, tried = 0;
	const char *end = text->buf + text->len;

	for (const char *hit = text->buf; tried < 500 && (hit = memmem(hit, (size_t)(end - hit), under, n));
	     hit += n) {
		const char *rest = hit + n;
		size_t k = strcspn(rest, "\"\\ \t\n'`:,;()[]{}<>");
		struct stat sb;
		char *here;

		/* a whole path: not the end of a longer one */
		if ((hit > text->buf && (hit[-1] == '/' || hit[-1] == '.' || hit[-1] == '_' || hit[-1] == '-' ||
					 (hit[-1] >= 'A' && hit[-1] <= 'Z') || (hit[-1] >= 'a' && hit[-1] <= 'z') ||
					 (hit[-1] >= '0' && hit[-1] <= '9'))) ||
		    !k || (size_t)(end - rest) < k)
			continue;
		tried++;
		here = xstrfmt("%s/%.*s", top, (int)k, rest);
		/* files only: the working folder itself is named in every line */
		found += !strstr(here, "/../") && lstat(here, &sb) == 0 && !S_ISDIR(sb.st_mode);
		free(here);
	}
	free(under);
	return found;
}

/*
 * The project root the transcript's lines were written under, from their
 * working folder cwd, and *rel cwd's place in this work tree (top), ""
 * at its top. known (the root recorded files' paths give) wins when cwd
 * is in it; else, of the readings of cwd (less a trailing part of it that
 * is a folder here, or whole), the one under which most paths text names
 * are here; on a tie the longest such part. The caller frees both.
 */
static void recorded_root(char **root, char **rel, const char *cwd, const char *top, const char *known,
			  const struct sbuf *text)
{
	size_t n = strlen(cwd), kn = known ? strlen(known) : 0, best_n, best = 0, score;
	int chosen = 0;

	while (n > 1 && cwd[n - 1] == '/')
		n--;
	best_n = n;
	/* a reading whose part climbs (..) names no folder of the work tree */
	if (strstr(cwd, "/../") || strstr(cwd, "/./") || (n >= 3 && !strncmp(cwd + n - 3, "/..", 3)) ||
	    (n >= 2 && !strncmp(cwd + n - 2, "/.", 2)))
		goto done;
	for (const char *p = cwd + 1; p <= cwd + n; p++) {
		size_t at = n;
		char *r;

		if (p < cwd + n) {
			char *part;
			int dir;

			if (p[-1] != '/')
				continue;
			part = xstrndup(p, (size_t)(cwd + n - p));
			dir = is_dir_here(top, part);
			free(part);
			if (!dir)
				continue;
			at = (size_t)(p - 1 - cwd);
		}
		if (known && at == kn && !strncmp(cwd, known, kn)) {	/* the recorded files' root */
			best_n = at;
			break;
		}
		r = xstrndup(cwd, at);
		score = at > 1 ? paths_here(text, r, top) : 0;
		free(r);
		if (!chosen || score > best) {
			best_n = at;
			best = score;
			chosen = 1;
		}
	}
done:
	*root = xstrndup(cwd, best_n);
	*rel = best_n < n ? xstrndup(cwd + best_n + 1, n - best_n - 1) : xstrdup("");
}

/* s as one word of a POSIX shell's command line. */
static void shell_word(struct sbuf *sb, const char *s)
{
	if (*s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@")]) {
		sbuf_adds(sb, s);
		return;
	}
	sbuf_addch(sb, '\'');
	for (; *s; s++)
		if (*s == '\'')
			sbuf_adds(sb, "'\\''");
		else
			sbuf_addch(sb, *s);
	sbuf_addch(sb, '\'');
}

static int exists_error(const char *path)
{
	int error = gs_error("'%s' exists: the agent has a session of that id here", path);

	gs_hint("'--force' replaces it with the conversation the session keeps");
	return error;
}

/*
 * folder, then each folder of dir in it, made as the agent makes them
 * (0777 less the umask); each checked to be in folder (symbolic links
 * resolved) before the next is made in it.
 */
static int make_dirs_inside(const char *folder, const char *dir)
{
	char *real_folder = NULL, *path = NULL;
	size_t n;
	int error = 0;

	if (mkdir(folder, 0777) < 0 && errno != EEXIST)
		return gs_error("cannot make '%s': %s", folder, strerror(errno));
	if (!(real_folder = realpath(folder, NULL)))
		return gs_error("cannot read '%s': %s", folder, strerror(errno));
	n = strlen(real_folder);
	for (const char *p = dir; !error && *p; p += strcspn(p, "/"), p += *p == '/') {
		char *real;

		free(path);
		path = xstrfmt("%s/%.*s", folder, (int)(p + strcspn(p, "/") - dir), dir);
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			error = gs_error("cannot make '%s': %s", path, strerror(errno));
			break;
		}
		real = realpath(path, NULL);
		if (!real || strncmp(real, real_folder, n) || real[n] != '/')
			error = gs_error("'%s' is not in the agent's folder '%s'", path, folder);
		free(real);
	}
	free(path);
	free(real_folder);
	return error;
}

/*
 * The place of folder/rel made ready, before the session records
 * anything: its folders made, and refused when they lead out of folder
 * or (without force) the agent has a session file of that id there.
 */
static int prepare_place(const char *folder, const char *rel, int force)
{
	char *path = xstrfmt("%s/%s", folder, rel), *dir = xstrndup(rel, (size_t)(strrchr(rel, '/') - rel));
	struct stat sb;
	int error = make_dirs_inside(folder, dir);

	if (!error && !force && lstat(path, &sb) == 0)
		error = exists_error(path);
	free(path);
	free(dir);
	return error;
}

/*
 * text written at folder/rel (prepare_place made its folders) through a
 * temporary file; an existing file is replaced only with force.
 */
static int write_session(const char *folder, const char *rel, const char *text, size_t len, int force)
{
	char *path = xstrfmt("%s/%s", folder, rel), *tmp = xstrfmt("%s.git-session-%ld.tmp", path, (long)getpid());
	int fd, error = 0;

	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		error = gs_error("cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	if (gs_write_in_full(fd, text, len) < 0 || fsync(fd) < 0) {
		error = gs_error("cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
	} else if (close(fd) < 0) {
		error = gs_error("cannot write '%s': %s", tmp, strerror(errno));
	/* without --force, link(2) refuses a file made meanwhile, where rename(2) would replace it */
	} else if (force ? rename(tmp, path) < 0 : link(tmp, path) < 0) {
		error = errno == EEXIST ? exists_error(path) : gs_error("cannot write '%s': %s", path, strerror(errno));
	}
	if (error < 0 || !force)
		unlink(tmp);
cleanup:
	free(tmp);
	free(path);
	return error;
}

/* The agent's file of the session under an older format's name, replaced by the one written: removed. */
static void remove_old(const char *folder, const char *rel)
{
	char *path = xstrfmt("%s/%s", folder, rel);

	if (unlink(path) < 0 && errno != ENOENT)
		gs_warning("cannot remove '%s', which the file written replaces: %s", path, strerror(errno));
	free(path);
}

/* The command that continues the session, from the folder it ran in (here: the caller's). */
static char *resume_command(const struct agent_dialect *d, const char *session, const char *cwd)
{
	struct sbuf sb = SBUF_INIT;
	char *here = getcwd(NULL, 0), *real = here ? realpath(here, NULL) : NULL;

	if (!real || strcmp(real, cwd)) {
		sbuf_adds(&sb, "cd ");
		shell_word(&sb, cwd);
		sbuf_adds(&sb, " && ");
	}
	sbuf_addf(&sb, "%s ", d->resume);
	shell_word(&sb, session);
	free(here);
	free(real);
	return sbuf_detach(&sb, NULL);
}

struct carry {
	const struct agent_dialect *d;
	const cJSON *agent;
	char *top, **roots, *rel, *cwd, *file, *folder;	/* roots: NULL-terminated */
	size_t nroots;
	struct agent_rebuild rb;
};

static void carry_clear(struct carry *k)
{
	free(k->top);
	for (size_t i = 0; i < k->nroots; i++)
		free(k->roots[i]);
	free(k->roots);
	free(k->rel);
	free(k->cwd);
	free(k->file);
	free(k->folder);
	free(k->rb.text);
	free(k->rb.started);
}

/*
 * The folder the files the session recorded (relative) were written in,
 * as tools' arguments say their paths: the one most of them give (the
 * shortest of a tie: a file of the same name deeper is another), or NULL.
 */
static char *root_of_files(const cJSON *state, const struct sbuf *text)
{
	struct roots { char *root; int votes; } v[16];
	const cJSON *f;
	size_t n = 0, best = 0;
	int tried = 0;
	char *root;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(state, "files")) {
		size_t i = 0;

		if (!f->string || tried++ >= 200 || !(root = agent_root_of(text->buf, text->len, f->string)))
			continue;
		while (i < n && strcmp(v[i].root, root))
			i++;
		if (i < n)
			v[i].votes++, free(root);
		else if (n < ARRAY_SIZE(v))
			v[n].root = root, v[n++].votes = 1;
		else
			free(root);
	}
	for (size_t i = 1; i < n; i++)
		if (v[i].votes > v[best].votes ||
		    (v[i].votes == v[best].votes && strlen(v[i].root) < strlen(v[best].root)))
			best = i;
	root = n ? v[best].root : NULL;
	for (size_t i = 0; i < n; i++)
		if (i != best)
			free(v[i].root);
	return root;
}

/* What the agent's registry names the project at cwd (a folder name), or NULL. */
static char *registry_name(const char *folder, const char *registry, const char *cwd)
{
	char *path = xstrfmt("%s/%s", folder, registry), *text = NULL, *err = NULL, *name = NULL;
	size_t len = 0;
	cJSON *o = NULL;

	if (access(path, F_OK) == 0 && gs_read_file(&text, &len, path, 16 << 20) == 0 &&
	    json_parse(&o, text, len, 16 << 20, &err) == 0) {
		const char *v = json_str(cJSON_GetObjectItemCaseSensitive(o, "projects"), cwd);

		if (v && agent_session_id_ok(v))
			name = xstrdup(v);
	}
	gs_error_clear();
	cJSON_Delete(o);
	free(err);
	free(text);
	free(path);
	return name;
}

/*
 * The roots the lines were written under, from the working folders they
 * say (a conversation carried between clones says several), else from a
 * recorded file; k->rel the latest folder's place in the work tree.
 */
static void find_roots(struct carry *k, const struct agent_rebuilder *r, const cJSON *state, const struct sbuf *text)
{
	char **cwds = NULL, *known = root_of_files(state, text);
	size_t n = 0;

	if (r->cwds)
		r->cwds(&cwds, &n, text->buf, text->len);
	k->roots = xcalloc(n + 2, sizeof(*k->roots));
	for (size_t i = 0; i < n; i++) {
		char *root, *rel;

		recorded_root(&root, &rel, cwds[i], k->top, known, text);
		for (size_t j = 0; root && j < k->nroots; j++)
			if (!strcmp(k->roots[j], root))
				free(root), root = NULL;
		if (root && strcmp(root, k->top))
			k->roots[k->nroots++] = root;
		else
			free(root);
		free(k->rel);
		k->rel = rel;
		free(cwds[i]);
	}
	free(cwds);
	/* the lines say no folder (Gemini CLI's): the recorded files' root, else nothing moves */
	if (!n && known && strcmp(known, k->top))
		k->roots[k->nroots++] = known, known = NULL;
	free(known);
	if (!k->rel)
		k->rel = xstrdup("");
}

/* The file rebuilt from text, for this clone: k->rb, k->cwd, k->file. */
static int rebuild(struct carry *k, struct cmd_ctx *c, const cJSON *state, const struct sbuf *text)
{
	const struct agent_rebuilder *r = k->d->rebuilder;
	const char *wd = store_workdir(c->st);
	char *err = NULL, *project = NULL;

	if (!wd || !(k->top = realpath(wd, NULL)))
		return gs_error("resume --agent needs a work tree");
	find_roots(k, r, state, text);
	k->cwd = *k->rel ? xstrfmt("%s/%s", k->top, k->rel) : xstrdup(k->top);
	k->rb.session = json_str(k->agent, "session");
	k->rb.from_roots = k->nroots ? (const char *const *)k->roots : NULL;
	k->rb.to_root = k->top;
	k->rb.cwd = k->cwd;
	if (r->rebuild(&k->rb, &err, text->buf, text->len) < 0) {
		gs_error("cannot rebuild agent '%s's session: %s", json_str(k->agent, "id"), err);
		free(err);
		return GS_ERROR;
	}
	if (r->registry)
		project = registry_name(k->folder, r->registry, k->cwd);
	k->file = r->path(&k->rb, k->cwd, project);
	free(project);
	if (!k->file || *k->file == '/' || strstr(k->file, "..") || !strchr(k->file, '/'))
		return gs_error("no place for agent '%s's session in its folder", json_str(k->agent, "id"));
	return 0;
}

/* The session id a chat file's header (its first key) names, or NULL. The caller frees it. */
static char *chat_session(const char *path)
{
	static const char *const key = "sessionId";
	char buf[16384], *v = NULL;
	struct stat sb;
	ssize_t n = -1;
	int fd;

	if (lstat(path, &sb) < 0 || !S_ISREG(sb.st_mode) || (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || json_scan_top(&v, buf, (size_t)n, &key, 1) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

/* The files of the agent's folder its session sid may be in (the rebuilder's find pattern): 1 when there are some. */
static int find_sessions(glob_t *g, const char *folder, const struct agent_rebuilder *r, const char *sid)
{
	int n = r->find_id_len ? r->find_id_len : (int)strlen(sid), found;
	char *pattern = xstrfmt("%s/%s%.*s%s", folder, r->find_before, n, sid, r->find_after);

	found = glob(pattern, 0, NULL, g) == 0;
	free(pattern);
	return found;
}

/* Whether the file at path is of session sid: its name says the whole id, else its header does. */
static int holds_session(const char *path, const struct agent_rebuilder *r, const char *sid)
{
	char *named;
	int yes;

	if (!r->find_id_len)
		return 1;
	named = chat_session(path);
	yes = named && !strcmp(named, sid);
	free(named);
	return yes;
}

/*
 * A file of the agent's that holds its session of this id under another
 * name than k->file (Gemini CLI names a chat by the minute it made the
 * file): with force, k->file becomes it, or *old when it is of another
 * format, removed once the new one is written; without, refused.
 */
static int existing_session(char **old, struct carry *k, int force)
{
	const struct agent_rebuilder *r = k->d->rebuilder;
	char *found = NULL, *want = xstrfmt("%s/%s", k->folder, k->file);
	size_t n = strlen(k->folder) + 1;
	int error = 0;
	glob_t g;

	*old = NULL;
	if (!r->find_before || !r->find_id_len) {
		free(want);
		return 0;
	}
	if (find_sessions(&g, k->folder, r, k->rb.session)) {
		for (size_t i = 0; i < g.gl_pathc && (!found || strcmp(found, want)); i++)
			if (holds_session(g.gl_pathv[i], r, k->rb.session) && !strncmp(g.gl_pathv[i], want, n) &&
			    !strstr(g.gl_pathv[i] + n, "/../")) {
				free(found);
				found = xstrdup(g.gl_pathv[i]);
			}
		globfree(&g);
	}
	if (found && strcmp(found, want)) {
		const char *ext = strrchr(k->file, '.'), *fext = strrchr(found, '.');

		if (!force)
			error = exists_error(found);
		else if (ext && fext && !strcmp(ext, fext)) {
			free(k->file);
			k->file = xstrdup(found + n);
		} else {
			*old = xstrdup(found + n);
		}
	}
	free(found);
	free(want);
	return error;
}

/*
 * The session made this worktree's active one (un-paused), the agent's
 * own session linked to it, and its transcript recorded as read to the
 * end of the file written: the CLI's next turns, appended to that file,
 * are recorded in this session from there, not read again.
 */
static int carry_on(struct cmd_ctx *c, const char *id, const cJSON *state, const struct carry *k)
{
	char head[TRANSCRIPT_MARK_SZ], tail[TRANSCRIPT_MARK_SZ];
	struct state_op *op;
	int error = 0;

	if (!strcmp(json_str(state, "status"), ST_PAUSED)) {
		op = op_new(OP_SESSION_RESUME, NULL);
		error = engine_commit(NULL, &c->eng, id, op, NULL, 0);
		op_free(op);
	}
	if (error < 0 || (error = store_set_active(c->st, id)) < 0 ||
	    (error = store_agent_link(c->st, k->rb.session, id)) < 0)
		return error;
	op = op_new(OP_AGENT_TURN, NULL);
	json_set_str(op_args(op), "agent", json_str(k->agent, "id"));
	json_set_bool(op_args(op), "restart", 1);
	json_set_num(op_args(op), "from", 0);
	json_set_num(op_args(op), "to", (double)k->rb.len);
	/* this file's marks: where the conversation goes on from now, which another machine's file is not */
	transcript_edge_marks(head, tail, k->rb.text, k->rb.len);
	json_set_str(op_args(op), "head", head);
	json_set_str(op_args(op), "tail", tail);
	error = engine_commit(NULL, &c->eng, id, op, NULL, 0);
	op_free(op);
	return error;
}

/*
 * The file written taken away again when the session could not record
 * it: the agent's turns in it would be read from its start, as another
 * conversation, and a second run needs no --force.
 */
static void uncarry(const struct carry *k)
{
	char *path = xstrfmt("%s/%s", k->folder, k->file);

	if (unlink(path) < 0)
		gs_error("the session did not record '%s', and it cannot be removed: %s", path, strerror(errno));
	else
		gs_error("the session did not record '%s': it is removed again", path);
	free(path);
}

static void report(const struct carry *k, int json, int quiet)
{
	char *cmd = resume_command(k->d, k->rb.session, k->cwd), *path = xstrfmt("%s/%s", k->folder, k->file);
	cJSON *o;

	if (json) {
		o = cJSON_CreateObject();
		json_set_str(o, "agent", json_str(k->agent, "id"));
		json_set_str(o, "cli", k->d->name);
		json_set_str(o, "session", k->rb.session);
		json_set_str(o, "file", k->file);
		json_set(o, "path", cJSON_CreateString(path));
		json_set_str(o, "cwd", k->cwd);
		json_set_num(o, "lines", (double)k->rb.lines);
		json_set_num(o, "relinked", (double)k->rb.relinked);
		json_set_num(o, "thinking_dropped", (double)k->rb.unsealed);
		json_set_str(o, "command", cmd);
		view_print_json(o);
		cJSON_Delete(o);
	} else if (!quiet) {
		fprintf(stderr, "Rebuilt %s session %s (%zu lines", k->d->name, k->rb.session, k->rb.lines);
		/* a signature redaction changed is refused by the API: those blocks are not sent back */
		if (k->rb.unsealed)
			fprintf(stderr, ", %zu thinking block%s left out: redacted", k->rb.unsealed,
				k->rb.unsealed == 1 ? "" : "s");
		fprintf(stderr, ") in %s\n", path);
		printf("%s\n", cmd);
	}
	free(path);
	free(cmd);
}

int agent_resume(struct cmd_ctx *c, const char *spec, const char *given, int force, int json, int quiet)
{
	struct carry k = { 0 };
	struct store_tip tip = { 0 };
	struct report_ctx ctx = { 0 };
	struct sbuf text = SBUF_INIT;
	const char *colon = strchr(spec, ':');
	char *name = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(spec), *id = NULL, *names, *old = NULL;
	cJSON *state = NULL;
	int error;

	if (!(k.d = agent_dialect(name))) {
		names = agent_names(", ", " or ");
		error = gs_error("unknown agent '%s': it is %s", name, names);
		free(names);
		goto cleanup;
	}
	if (!k.d->rebuilder || !k.d->rebuilder->rebuild) {
		error = gs_error("cannot rebuild a %s session: %s", k.d->name,
				 k.d->rebuilder ? k.d->rebuilder->why_not : "it has no session file to write");
		goto cleanup;
	}
	if ((error = cmd_load_target(&state, &tip, &ctx, &id, c, given)) < 0 ||
	    (error = pick_agent(&k.agent, state, k.d, colon ? colon + 1 : NULL)) < 0)
		goto cleanup;
	if (!agent_session_id_ok(json_str(k.agent, "session"))) {
		error = gs_error("agent '%s' has no session id of its CLI to resume, or one that is not a file name",
				 json_str(k.agent, "id"));
		goto cleanup;
	}
	if (!(k.folder = cmd_agent_folder(k.d))) {
		error = gs_error("no home folder: set HOME");
		goto cleanup;
	}
	if ((error = read_whole(&text, c, tip.commit, k.agent)) < 0 || (error = rebuild(&k, c, state, &text)) < 0 ||
	    (error = existing_session(&old, &k, force)) < 0 || (error = prepare_place(k.folder, k.file, force)) < 0)
		goto cleanup;
	/* the file first: a checkpoint must not record reading a file that is not there */
	if ((error = write_session(k.folder, k.file, k.rb.text, k.rb.len, force)) < 0)
		goto cleanup;
	if (strcmp(json_str(state, "status"), ST_IN_PROGRESS) && strcmp(json_str(state, "status"), ST_PAUSED)) {
		gs_warning("session '%s' is %s: the agent's next turns are not recorded in it", id,
			   json_str(state, "status"));
		gs_hint("to record them, reopen it first: git session reopen %s", id);
	} else if ((error = carry_on(c, id, state, &k)) < 0) {
		uncarry(&k);
		goto cleanup;
	}
	if (old)
		remove_old(k.folder, old);
	report(&k, json, quiet);
cleanup:
	carry_clear(&k);
	sbuf_release(&text);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(old);
	free(id);
	free(name);
	return error;
}

/* Whether a session of the agent with its own session id sid is in its folder on this machine. */
static int session_here(const struct agent_dialect *d, const char *sid)
{
	char *folder = cmd_agent_folder(d);
	int found = 0;
	glob_t g;

	if (folder && find_sessions(&g, folder, d->rebuilder, sid)) {
		for (size_t i = 0; i < g.gl_pathc && !found; i++)
			found = holds_session(g.gl_pathv[i], d->rebuilder, sid);
		globfree(&g);
	}
	free(folder);
	return found;
}

const char **agent_resume_elsewhere(const cJSON *state)
{
	const cJSON *a, *agents = cJSON_GetObjectItemCaseSensitive(state, "agents");
	const char **v = xcalloc((size_t)cJSON_GetArraySize(agents) + 1, sizeof(*v));
	size_t n = 0;

	cJSON_ArrayForEach(a, agents) {
		const char *sid = json_str(a, "session");

		for (size_t i = 0; agent_dialects[i]; i++) {
			const struct agent_dialect *d = agent_dialects[i];

			if (of_cli(a, d) && d->rebuilder && d->rebuilder->find_before && sid &&
			    agent_session_id_ok(sid) && !session_here(d, sid))
				v[n++] = json_str(a, "id");
		}
	}
	return v;
}

