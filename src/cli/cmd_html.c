/*
 * cmd_html.c - `git session html`: a session as one HTML page, or with
 * --all an index and a page of every session. What the page shows is
 * gathered here: the reports the other views draw, the transcripts
 * `transcript` reads, and from the checkpoints' operations the tokens
 * over time, the prompts and compactions, and each recorded change of a
 * file with its diff. view_html*.c draws it.
 */
#include "git-session/cmd.h"
#include "git-session/view_html.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/redact.h"
#include "git-session/report.h"
#include "git-session/state.h"
#include "git-session/util.h"
#include "transcript-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DIFF_CHANGE_MAX (32u << 10)	/* of one change's diff */
#define DIFF_PAGE_MAX (400u << 10)	/* of all the diffs of a page */
#define DIFF_READ_MAX (32u << 20)	/* of the blobs a page's diffs read: a page of a big file's many changes is quick */
#define OP_MAX (64u << 20)

/* What the checkpoints' operations tell, oldest first. */
struct history {
	cJSON *ops;		/* the parsed operations, kept: points and marks point into them */
	struct view_html_point *points;
	size_t npoints, apoints;
	struct view_html_mark *marks;
	size_t nmarks, amarks;
	cJSON *who, *changes;
	const char *last_path;	/* the path of the last list of changes made, and that list */
	cJSON *last_list;
	size_t diff_bytes, read_room;	/* the diffs' bytes shown, the bytes of blobs they may still read */
	double used;
};

static void history_clear(struct history *h)
{
	cJSON_Delete(h->ops);
	free(h->points);
	free(h->marks);
	cJSON_Delete(h->who);
	cJSON_Delete(h->changes);
	memset(h, 0, sizeof(*h));
}

static double op_time(const cJSON *op, const cJSON *node)
{
	time_t t;

	if (json_str(op, "at") && gs_time_parse_iso(&t, json_str(op, "at")) == 0)
		return (double)t;
	return json_num(node, "time", 0);
}

/* "Name <email>" of an author line "Name <email> time", once each. */
static void add_who(cJSON *who, const char *s)
{
	const char *end = s ? strrchr(s, '>') : NULL;
	char *name;
	const cJSON *w;

	if (!s || !*s)
		return;
	name = end ? xstrndup(s, (size_t)(end - s + 1)) : xstrdup(s);
	cJSON_ArrayForEach(w, who)
		if (!strcmp(w->valuestring, name))
			break;
	if (!w)
		cJSON_AddItemToArray(who, cJSON_CreateString(name));
	free(name);
}

static void add_point(struct history *h, double t, const char *commit, const char *agent, double added)
{
	struct view_html_point *p;

	ALLOC_GROW(h->points, h->npoints + 1, h->apoints);
	p = &h->points[h->npoints++];
	memset(p, 0, sizeof(*p));
	h->used += added;
	p->t = t;
	p->v = h->used;
	p->added = added;
	p->agent = agent;
	snprintf(p->commit, sizeof(p->commit), "%s", commit ? commit : "");
}

static void add_mark(struct history *h, double t, const char *kind, const char *agent)
{
	ALLOC_GROW(h->marks, h->nmarks + 1, h->amarks);
	h->marks[h->nmarks++] = (struct view_html_mark){ t, kind, agent };
}

/* The tokens an operation added, the prompt or compaction it notes. */
static void op_tokens_marks(struct history *h, const cJSON *op, const char *name, double t, const char *commit)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(op, "args");
	const char *agent = json_str(args, "agent");

	if (!strcmp(name, "agent.turn") || !strcmp(name, "tokens.add") || !strcmp(name, "agent.done")) {
		double added = json_num(args, "input", 0) + json_num(args, "output", 0);

		if (added > 0)
			add_point(h, t, commit, agent, added);
	} else if (!strcmp(name, "session.import")) {
		const cJSON *tok = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(args, "state"), "tokens");

		if (state_tokens_used(tok) > 0)
			add_point(h, t, commit, NULL, state_tokens_used(tok) - h->used);
	} else if (!strcmp(name, "note") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "prompt"))) {
		add_mark(h, t, "prompt", agent);	/* the checkpoint's time, on the clock the rest is drawn by */
	} else if (!strcmp(name, "agent.compact")) {
		add_mark(h, t, "compact", agent);
	}
}

/*
 * *text with its secrets redacted, as every text the session stores is:
 * what the page shows of files and commit messages, which git keeps as
 * they are.
 */
static char *redacted(char **text)
{
	char *r = NULL;
	size_t len;

	if (*text && redact_text(&r, &len, *text, strlen(*text)) > 0) {
		free(*text);
		*text = r;
	}
	return *text;
}

/*
 * Whether the hunk whose "@@" line is at p starts inside a private key:
 * a line of it ends one (-----END ... PRIVATE KEY) before any begins one.
 */
static int hunk_starts_in_key(const char *p)
{
	for (p = strchr(p, '\n'); p && *++p && strncmp(p, "@@", 2); p = strchr(p, '\n')) {
		size_t n = strcspn(p, "\n");

		if (memmem(p, n, "-----BEGIN ", 11))
			return 0;
		if (memmem(p, n, "-----END ", 9))
			return memmem(p, n, "PRIVATE KEY", 11) != NULL;
	}
	return 0;
}

/*
 * Whether a diff's line (its text line, at in the diff) is inside a
 * private key: redaction, seeing one line at a time, knows only its
 * BEGIN line, but the lines to its END line are the key too. *in_key
 * carries it from a line to the next.
 */
static int in_private_key(int *in_key, const char *line, const char *at)
{
	if (!strncmp(at, "@@", 2)) {	/* a hunk, maybe within a key its lines do not begin */
		*in_key = hunk_starts_in_key(at);
		return 0;
	}
	if (*in_key) {
		*in_key = !strstr(line, "-----END ");
		return 1;
	}
	*in_key = strstr(line, "-----BEGIN ") && strstr(line, "PRIVATE KEY") && !strstr(line, "-----END ");
	return 0;
}

/* The diff d as change's, each line's text redacted after its mark (+, -, space), which stays. */
static void redact_diff(cJSON *change, const char *d)
{
	struct sbuf sb = SBUF_INIT;
	int in_key = 0;

	for (const char *p = d; *p;) {
		size_t n = strcspn(p, "\n"), skip = *p == '+' || *p == '-' || *p == ' ';
		char *line = xstrndup(p + skip, n - skip);

		sbuf_add(&sb, p, skip);
		sbuf_adds(&sb, in_private_key(&in_key, line, p) ? "[REDACTED:private-key]" : redacted(&line));
		free(line);
		if (p[n] == '\n')
			sbuf_addch(&sb, '\n');
		p += n + (p[n] == '\n');
	}
	json_set_str(change, "diff", sb.buf ? sb.buf : "");
	sbuf_release(&sb);
}

/* d cut at a line within DIFF_CHANGE_MAX and what is left of the page's budget, said in the change. */
static void keep_diff(struct history *h, cJSON *change, char *d)
{
	size_t len = strlen(d), room = DIFF_PAGE_MAX - h->diff_bytes, max = room < DIFF_CHANGE_MAX ? room : DIFF_CHANGE_MAX;

	if (len > max) {
		size_t n = max;

		while (n && d[n - 1] != '\n')
			n--;
		char *note = xstrfmt("%zu bytes more of this diff not shown, to keep the page small", len - n);

		json_set_str(change, "note", note);
		free(note);
		d[n] = '\0';
		len = n;
	}
	h->diff_bytes += len;
	redact_diff(change, d);
}

/* One recorded change of path, from the blob before (NULL: none) to new_oid (NULL: deleted). */
static void add_change(struct history *h, gs_store *st, const char *path, const char *old_oid, const char *new_oid,
		       const char *status, const cJSON *op, const char *commit)
{
	cJSON *list = h->last_path && !strcmp(h->last_path, path) ? h->last_list : NULL, *c = cJSON_CreateObject();
	char *d = NULL;

	if (!list) {	/* the changes come path by path: a path's list is the last one made, or new */
		list = cJSON_CreateArray();
		cJSON_AddItemToObject(h->changes, path, list);
		h->last_path = path;
		h->last_list = list;
	}
	json_set_str(c, "commit", commit);
	json_set_str(c, "at", json_str(op, "at"));
	json_set_str(c, "status", status);
	json_set_str(c, "agent", json_str(cJSON_GetObjectItemCaseSensitive(op, "args"), "agent"));
	if (h->diff_bytes >= DIFF_PAGE_MAX)
		json_set_str(c, "note", "diff not shown, to keep the page small: 'git session diff' and git show have it");
	else if (store_blob_diff(&d, st, &h->read_room, path, old_oid, new_oid) < 0)
		json_set_str(c, "note", "diff not available: a blob is missing from the repository");
	else if (!d)
		json_set_str(c, "note", "diff not shown, to make the page quickly: 'git session diff' and git show have it");
	else
		keep_diff(h, c, d);
	cmd_print_errors();
	free(d);
	cJSON_AddItemToArray(list, c);
}

/* A file an operation recorded: sorted by path, then in the order recorded, each is a change from the one before. */
struct fchange {
	const char *path, *oid;	/* oid NULL: deleted */
	const char *op_name, *commit;
	const cJSON *op;
	size_t order;
};

static int by_path(const void *x, const void *y)
{
	const struct fchange *a = x, *b = y;
	int c = strcmp(a->path, b->path);

	return c ? c : (a->order > b->order) - (a->order < b->order);
}

static const char *file_status(const char *op_name, const char *prev, int known, int based, const char *new_oid)
{
	if (!strncmp(op_name, "file.", 5))
		return op_name + 5;
	if (!new_oid)
		return "deleted";
	return (known && prev) || (!known && based) ? "modified" : "created";
}

/*
 * The blob a file first recorded had before: in git's HEAD when it was
 * recorded, or for a commit the session recorded, in that commit's parent.
 */
static int base_blob(char out[HEX_SZ], gs_store *st, const struct fchange *f)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(f->op, "args");
	const char *head = json_str(cJSON_GetObjectItemCaseSensitive(f->op, "context"), "head");

	if (!strcmp(f->op_name, "file.created"))
		return GS_ENOTFOUND;
	if (!strcmp(f->op_name, "commit.record") && json_str(args, "id"))
		return store_commit_blob(out, st, json_str(args, "id"), 1, f->path);
	return head ? store_commit_blob(out, st, head, 0, f->path) : GS_ENOTFOUND;
}

/* The files an operation recorded, in v. */
static void op_files(struct fchange **v, size_t *n, size_t *alloc, const cJSON *op, const char *name,
		     const char *commit)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(op, "args"), "files"), *f;

	if (!cJSON_IsObject(files) || !strcmp(name, "hook.pre-commit"))
		return;
	cJSON_ArrayForEach(f, files) {
		ALLOC_GROW(*v, *n + 1, *alloc);
		(*v)[*n] = (struct fchange){ f->string, json_str(f, "oid"), name, commit, op, *n };
		(*n)++;
	}
}

/* Each change of a file, with its diff: from what the session recorded before, else from what git had. */
static void file_changes(struct history *h, gs_store *st, struct fchange *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), by_path);
	for (size_t i = 0; i < n; i++) {
		int known = i && !strcmp(v[i - 1].path, v[i].path), based = 0;
		const char *prev = known ? v[i - 1].oid : NULL, *old_oid = prev;
		char base[HEX_SZ] = "";

		if (known && (prev && v[i].oid ? !strcmp(prev, v[i].oid) : prev == v[i].oid))
			continue;	/* recorded again as it was */
		if (!known && base_blob(base, st, &v[i]) == 0) {
			old_oid = base;	/* a file the session found: from what git had */
			based = 1;
		}
		add_change(h, st, v[i].path, old_oid, v[i].oid, file_status(v[i].op_name, prev, known, based, v[i].oid),
			   v[i].op, v[i].commit);
	}
}

/* The checkpoints up to tip, oldest first, read for what the page draws along time. */
static int history_load(struct history *h, gs_store *st, const char *tip)
{
	cJSON *nodes = NULL, *node, **v;
	struct fchange *fc = NULL;
	size_t nfc = 0, afc = 0;
	int error, n = 0;

	memset(h, 0, sizeof(*h));
	h->ops = cJSON_CreateArray();
	h->who = cJSON_CreateArray();
	h->changes = cJSON_CreateObject();
	h->read_room = DIFF_READ_MAX;
	if ((error = store_walk(&nodes, st, &tip, 1, NULL, 0)) < 0)
		return error;
	v = xcalloc((size_t)cJSON_GetArraySize(nodes) + 1, sizeof(*v));
	cJSON_ArrayForEach(node, nodes)
		v[n++] = node;
	for (int i = n - 1; i >= 0; i--) {	/* the walk gives the newest first */
		const char *text, *commit, *name;
		cJSON *op = NULL;
		char *err = NULL;

		node = v[i];
		text = json_str(node, "op"), commit = json_str(node, "commit");
		add_who(h->who, json_str(node, "author"));
		if (!text || json_parse(&op, text, strlen(text), OP_MAX, &err) < 0 || !(name = json_str(op, "op"))) {
			cJSON_Delete(op);
			free(err);
			continue;	/* no operation to read: fsck says why */
		}
		cJSON_AddItemToArray(h->ops, op);
		op_tokens_marks(h, op, name, op_time(op, node), commit);
		op_files(&fc, &nfc, &afc, op, name, commit);
	}
	file_changes(h, st, fc, nfc);
	free(fc);
	free(v);
	cJSON_Delete(nodes);
	return 0;
}

/* What the operations do not account for (an import before they were kept, a merge): at the checkpoint. */
static void tokens_rest(struct history *h, const cJSON *state, const cJSON *tokens, const char *commit)
{
	double used = json_num(tokens, "used", 0);
	time_t t = 0;

	if (h->npoints ? h->points[h->npoints - 1].v == used : used <= 0)
		return;
	gs_time_parse_iso(&t, json_str(state, "updated") ? json_str(state, "updated") : "");
	add_point(h, (double)t, commit, NULL, used - h->used);
}

/* The message bodies of the session's commits, redacted: {id: {"body"}}. */
static cJSON *commit_messages(gs_store *st, const cJSON *state)
{
	cJSON *messages = cJSON_CreateObject();
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(state, "commits")) {
		char *body = NULL;

		if (json_str(c, "id") && store_commit_body(&body, st, json_str(c, "id")) == 0 && *redacted(&body)) {
			cJSON *m = cJSON_CreateObject();

			json_set_str(m, "body", body);
			cJSON_AddItemToObject(messages, json_str(c, "id"), m);	/* appended: no lookup a commit */
		}
		free(body);
	}
	return messages;
}

/* The page of the checkpoint tip (its state loaded), into out. */
static int page(struct sbuf *out, gs_store *st, const struct store_tip *tip, const cJSON *state)
{
	struct history h;
	struct talks ts = { 0 };
	cJSON *timeline = report_timeline(state), *tokens = report_tokens(state), *messages = NULL;
	const cJSON *a;
	int error;

	if ((error = history_load(&h, st, tip->commit)) < 0 ||
	    (error = talks_load(&ts, st, tip->commit, state, NULL, 0)) < 0)
		goto cleanup;
	tokens_rest(&h, state, tokens, tip->commit);
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents"))
		add_who(h.who, json_str(a, "by"));
	messages = commit_messages(st, state);
	{
		struct view_html_page p = {
			.state = state, .commit = tip->commit, .timeline = timeline, .tokens = tokens,
			.points = h.points, .npoints = h.npoints, .marks = h.marks, .nmarks = h.nmarks,
			.who = h.who, .messages = messages, .changes = h.changes, .talks = &ts, .top = store_workdir(st),
		};
		view_html_page(out, &p);
	}
cleanup:
	talks_clear(&ts);
	history_clear(&h);
	cJSON_Delete(timeline);
	cJSON_Delete(tokens);
	cJSON_Delete(messages);
	return error;
}

static int write_out(const char *path, const struct sbuf *sb, int quiet)
{
	if (!path) {
		fwrite(sb->buf ? sb->buf : "", 1, sb->len, stdout);
		return 0;
	}
	if (gs_write_file(path, sb->buf ? sb->buf : "", sb->len, 0666) < 0)
		return GS_ERROR;
	if (!quiet)
		printf("wrote %s\n", path);
	return 0;
}

/* dir/name, as a path to say: "sessions/" given, "sessions/index.html", not "sessions//index.html". */
static char *in_dir(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	return xstrfmt("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

/* Session id's page into dir; its row of the index, "written" false when it could not be read or written. */
static cJSON *write_one(gs_store *st, const char *dir, const char *id, struct sbuf *sb)
{
	char *ref = xstrfmt("%s%s", SESSIONS_PREFIX, id), *name = view_html_file_name(id);
	char *path = in_dir(dir, name);
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *row = cJSON_CreateObject();
	int ok;

	sbuf_reset(sb);
	ok = engine_load_ref(&state, &tip, st, ref) == 0 && page(sb, st, &tip, state) == 0 && write_out(path, sb, 1) == 0;
	cmd_print_errors();
	json_set_str(row, "id", id);
	json_set_bool(row, "written", ok);
	json_set_str(row, "goal", json_str(state, "goal") ? json_str(state, "goal") : json_str(state, "topic"));
	json_set_str(row, "status", ok ? json_str(state, "status") : "damaged");
	json_set_str(row, "updated", json_str(state, "updated"));
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(ref);
	free(name);
	free(path);
	return row;
}

/* Every live session's page into dir, then the index linking them; one that fails is said, and the rest written. */
static int write_all(gs_store *st, const char *dir, int quiet)
{
	struct store_ref_entry *refs = NULL;
	cJSON *rows = cJSON_CreateArray();
	struct sbuf sb = SBUF_INIT;
	struct stat sb_dir;
	size_t n = 0, failed = 0;
	char *path = NULL;
	int error;

	if (mkdir(dir, 0777) < 0 && (errno != EEXIST || stat(dir, &sb_dir) < 0 || !S_ISDIR(sb_dir.st_mode))) {
		error = gs_error("cannot create '%s': %s", dir, strerror(errno == EEXIST ? ENOTDIR : errno));
		goto cleanup;
	}
	if ((error = store_list_refs(&refs, &n, st, SESSIONS_PREFIX)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		cJSON *row = write_one(st, dir, refs[i].id, &sb);

		failed += !json_bool(row, "written", 0);
		cJSON_AddItemToArray(rows, row);
	}
	sbuf_reset(&sb);
	view_html_index(&sb, rows);
	path = in_dir(dir, "index.html");
	if ((error = write_out(path, &sb, 1)) < 0)
		goto cleanup;
	if (!quiet)
		printf("wrote %s and %zu session page%s\n", path, n - failed, n - failed == 1 ? "" : "s");
	if (failed)
		error = gs_error("%zu session%s could not be written: the index marks %s damaged", failed,
				 failed == 1 ? "" : "s", failed == 1 ? "it" : "them");
cleanup:
	free(path);
	store_ref_entries_free(refs, n);
	cJSON_Delete(rows);
	sbuf_release(&sb);
	return error;
}

int cmd_html(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session html [<rev>] [-o <file>] [-q]",
		"git session html --all -o <dir> [-q]", NULL,
	};
	const char *output = NULL;
	int all = 0, quiet = 0, error;
	struct store_tip tip = { 0 };
	struct sbuf sb = SBUF_INIT;
	cJSON *state = NULL;
	char *spec = NULL;
	const struct option opts[] = {
		{ OPT_STRING, 'o', "output", &output, "<file>", "write to a file (with --all, a folder), not to standard output" },
		{ OPT_BOOL, 0, "all", &all, NULL, "an index page and a page of every session" },
		OPT_QUIET(&quiet),
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, all ? 0 : 1, usage)) < 0)
		goto cleanup;
	if (all) {
		error = output ? write_all(c->st, output, quiet) :
			cmd_usage_error(usage, opts, "--all writes several files; name a folder with -o <dir>");
		goto cleanup;
	}
	if ((error = cmd_resolve_rev(&spec, c, argc ? argv[0] : NULL)) < 0)
		goto cleanup;
	if ((error = engine_load_rev(&state, &tip, c->st, spec)) == GS_ENOTFOUND)
		error = gs_error("unknown revision or session '%s'", argc ? argv[0] : SESSION_HEAD);
	if (error < 0 || (error = page(&sb, c->st, &tip, state)) < 0)
		goto cleanup;
	error = write_out(output, &sb, quiet);
cleanup:
	sbuf_release(&sb);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(spec);
	return cmd_exit(error);
}
