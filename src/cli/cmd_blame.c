/*
 * cmd_blame.c - `git session blame`: git blame, with each line's
 * checkpoint, session, agent and phase, and that checkpoint's author.
 * `git session blame [-L <range>] [<rev>] [--] <file>`. A committed
 * line's session is its commit's Session-Id trailer; its checkpoint is
 * the one that recorded the commit, and its agent and phase are what the
 * file's record said there. A line not committed yet belongs to the
 * session whose recorded blob of the file holds it (the active session
 * first), and to the checkpoint that recorded that blob. Printing is
 * view_blame.c's.
 */
#include "blame-internal.h"

#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/pager.h"
#include "git-session/store_run.h"
#include "git-session/store_worktree.h"

#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_FATAL 128	/* what git exits with when blame cannot be done */
#define GS_EFATAL (-EXIT_FATAL)	/* git refused: exit as git does */

/* What git log prints of a checkpoint; fields apart by \001, the subject last. */
#define CHECKPOINT_FORMAT "--format=%H%x01%an%x01%ae%x01%at%x01%ai%x01%s"

static int is_hex(const char *p, size_t len)
{
	return strspn(p, "0123456789abcdef") >= len;
}

static struct blame_who *who_of(struct blame *b, const char *commit)
{
	for (size_t i = 0; i < b->nwho; i++)
		if (!strcmp(b->whos[i].commit, commit))
			return &b->whos[i];
	return NULL;
}

static void person_clear(struct blame_person *p)
{
	free(p->name);
	free(p->mail);
	memset(p, 0, sizeof(*p));
}

/* "+hhmm" or "-hhmm", else "+0000": a zone git would not write is no zone. */
static void set_tz(struct blame_person *p, const char *tz)
{
	int ok = (tz[0] == '+' || tz[0] == '-') && strspn(tz + 1, "0123456789") == 4 && !tz[5];

	memcpy(p->tz, ok ? tz : "+0000", 6);
}

/* A key line of git blame --porcelain that says who wrote a commit, and the file's name there. */
static void author_key(struct blame_who *w, const char *line, size_t len)
{
	char *v;

	if (len > 12 && !strncmp(line, "author-mail ", 12)) {
		v = xstrndup(line + 12, len - 12);
		free(w->author.mail);
		w->author.mail = (*v == '<' && len > 13 && v[len - 13] == '>') ? xstrndup(v + 1, len - 14) : xstrdup(v);
		free(v);
	} else if (len > 12 && !strncmp(line, "author-time ", 12)) {
		w->author.time = strtoll(line + 12, NULL, 10);
	} else if (len == 15 && !strncmp(line, "author-tz ", 10)) {
		v = xstrndup(line + 10, 5);
		set_tz(&w->author, v);
		free(v);
	} else if (len >= 7 && !strncmp(line, "author ", 7)) {
		free(w->author.name);
		w->author.name = xstrndup(line + 7, len - 7);
	} else if (len > 9 && !strncmp(line, "filename ", 9) && !w->filename) {
		w->filename = xstrndup(line + 9, len - 9);
	}
}

/*
 * `git blame --porcelain` (size bytes: a line of a binary file may hold a
 * NUL): each line's commit, numbers and text, and each commit's author.
 */
static void parse_porcelain(struct blame *b, const char *out, size_t size)
{
	const char *p = out, *end = out + size;
	struct blame_who *cur = NULL;
	struct blame_line *open = NULL;	/* its header read, its text not yet */
	size_t most = 1;

	for (const char *q = out; q < end && (q = memchr(q, '\t', (size_t)(end - q))); q++)
		most++;	/* a line per TAB at most, and so a commit */
	b->whos = xcalloc(most + 1, sizeof(*b->whos));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len >= 44 && p[40] == ' ' && is_hex(p, 40)) {
			struct blame_line *l;
			char commit[HEX_SZ] = { 0 }, *num;

			memcpy(commit, p, 40);
			if (!(cur = who_of(b, commit)) && b->nwho < most) {
				cur = &b->whos[b->nwho++];
				memcpy(cur->commit, commit, HEX_SZ);
			}
			if (!cur)	/* a header with no line after it: git's output cut short */
				break;
			ALLOC_GROW(b->lines, b->n + 1, b->alloc);
			l = memset(&b->lines[b->n], 0, sizeof(*l));
			memcpy(l->commit, commit, HEX_SZ);
			l->orig = strtoul(p + 41, &num, 10);
			l->final = strtoul(num, NULL, 10);
			l->who = cur;
			open = l;
		} else if (*p == '\t' && open) {
			open->text = xmalloc(len);	/* the line may hold a NUL */
			memcpy(open->text, p + 1, len - 1);
			open->text[len - 1] = '\0';
			open->len = len - 1;
			open = NULL;
			b->n++;
		} else if (cur) {	/* a commit's keys come the first time it is named */
			author_key(cur, p, len);
		}
		p += len + 1;
	}
}

/* Each distinct commit, with its Session-Id trailer, asked of git once for all. */
static int sessions_of_commits(struct blame *b)
{
	const char **args = xcalloc(b->nwho + 8, sizeof(*args));
	struct sbuf out = SBUF_INIT;
	size_t n = 0;
	int error = 0;

	args[n++] = "git";
	args[n++] = "show";
	args[n++] = "-s";
	args[n++] = "--format=%H %(trailers:key=Session-Id,valueonly,separator=%x20)";
	for (size_t i = 0; i < b->nwho; i++)
		if (strcmp(b->whos[i].commit, NOT_COMMITTED))
			args[n++] = b->whos[i].commit;
	if (n > 4 && (error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(b->c->st), .out = &out,
							 .must_succeed = 1 })) == 0) {
		for (char *p = out.buf, *nl; p && *p; p = nl ? nl + 1 : NULL) {
			struct blame_who *w;

			nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			if (strlen(p) > 41 && (w = who_of(b, (p[40] = '\0', p))) && p[41])
				w->session = xstrndup(p + 41, strcspn(p + 41, " "));
		}
	}
	sbuf_release(&out);
	free(args);
	return error;
}

/* The agent and phase of path's record in a state, the phase by its name when it has one. */
static void record_of(struct blame_who *w, const cJSON *state, const char *path)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(state, "files"), path);
	const cJSON *ph = cJSON_GetObjectItemCaseSensitive(f, "phase");
	const cJSON *p = cJSON_IsNumber(ph) ? state_phase(state, (int)ph->valuedouble) : NULL;

	free(w->agent);
	free(w->phase);
	w->agent = json_str(f, "agent") ? xstrdup(json_str(f, "agent")) : NULL;
	w->phase = p && json_str(p, "name") ? xstrdup(json_str(p, "name")) :
		   cJSON_IsNumber(ph) ? xstrfmt("%d", (int)ph->valuedouble) : NULL;
}

/*
 * A line of CHECKPOINT_FORMAT split in place: fields[0..4] the id, author
 * name, mail, time and ISO date; the subject, last, is returned (NULL when
 * the line does not scan).
 */
static char *checkpoint_fields(char *fields[5], char *line)
{
	for (int i = 0; i < 5; i++) {
		char *sep = strchr(line, '\001');

		if (!sep)
			return NULL;
		fields[i] = line;
		*sep = '\0';
		line = sep + 1;
	}
	return strlen(fields[0]) == 40 && is_hex(fields[0], 40) && strlen(fields[4]) >= 5 ? line : NULL;
}

/* w recorded by the checkpoint of fields: its id and its author. */
static void set_checkpoint(struct blame_who *w, char *fields[5])
{
	memcpy(w->checkpoint, fields[0], 40);
	w->checkpoint[40] = '\0';
	person_clear(&w->author);
	w->author.name = xstrdup(fields[1]);
	w->author.mail = xstrdup(fields[2]);
	w->author.time = strtoll(fields[3], NULL, 10);
	set_tz(&w->author, fields[4] + strlen(fields[4]) - 5);
}

/* The commit not yet matched, of session id, that a subject's "commit <abbrev>:" names. */
static struct blame_who *recorded_commit(struct blame *b, const char *id, const char *subject)
{
	size_t len;

	if (strncmp(subject, "commit ", 7))
		return NULL;
	subject += 7;
	len = strspn(subject, "0123456789abcdef");
	if (len < 7 || len > 40)
		return NULL;
	for (size_t i = 0; i < b->nwho; i++)
		if (b->whos[i].session && !strcmp(b->whos[i].session, id) && !b->whos[i].found &&
		    !strncmp(b->whos[i].commit, subject, len))
			return &b->whos[i];
	return NULL;
}

/* Session id's ref, live or archived (gc archives finished ones); NULL when gone. Caller frees. */
static char *session_ref(struct blame *b, const char *id)
{
	char *ref = NULL, *err = NULL;
	size_t mark = gs_error_mark();

	if (engine_find(&ref, b->c->st, id) == 0)
		return ref;
	gs_error_rewind(mark);
	if (state_valid_id(id, &err) == 0) {	/* a trailer is anyone's text */
		ref = xstrfmt("%s%s", ARCHIVE_PREFIX, id);
		if (!store_ref_exists(b->c->st, ref)) {
			free(ref);
			ref = NULL;
		}
	}
	free(err);
	return ref;
}

/* In session id's history, the checkpoint that recorded each of its commits. */
static int agents_of_session(struct blame *b, const char *id)
{
	struct sbuf out = SBUF_INIT;
	char *ref = session_ref(b, id);
	int error;

	if (!ref)	/* gone: the session's name alone */
		return 0;
	{
		const char *args[] = { "git", "log", CHECKPOINT_FORMAT, ref, "--", NULL };
		error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(b->c->st), .out = &out,
						  .must_succeed = 1 });
	}
	for (char *p = out.buf, *nl; !error && p && *p; p = nl ? nl + 1 : NULL) {
		char *fields[5], *subject;
		struct blame_who *w;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!(subject = checkpoint_fields(fields, p)) || !(w = recorded_commit(b, id, subject)))
			continue;
		{
			struct store_tip tip = { 0 };
			cJSON *state = NULL;

			w->found = 1;
			set_checkpoint(w, fields);
			size_t mark = gs_error_mark();

			/* a checkpoint that does not load leaves its lines' agent and phase unknown */
			if (engine_load_rev(&state, &tip, b->c->st, fields[0]) == 0)
				record_of(w, state, w->filename ? w->filename : b->path);
			gs_error_rewind(mark);
			cJSON_Delete(state);
			store_tip_clear(&tip);
		}
	}
	sbuf_release(&out);
	free(ref);
	return error;
}

static void no_free(void *p)
{
	(void)p;
}

/* A line by its bytes, NULs and all. */
struct span {
	const char *p;
	size_t len;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The lines of the blob recorded for path in state, as a tsearch set of spans (*spans) over *text. */
static void *line_set(char **text, struct span **spans, struct blame *b, const cJSON *state)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(state, "files"), b->path);
	void *set = NULL;
	size_t len, n = 0;

	*text = NULL;
	*spans = NULL;
	if (!json_str(f, "oid") || store_blob_read(text, &len, b->c->st, json_str(f, "oid")) < 0 || !*text)
		return NULL;
	*spans = xcalloc(len + 1, sizeof(**spans));	/* at most a line a byte, and one more */
	for (const char *p = *text, *end = *text + len, *nl; p <= end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		if (nl > p || nl < end) {
			(*spans)[n] = (struct span){ p, (size_t)(nl - p) };
			tsearch(&(*spans)[n++], &set, span_cmp);
		}
	}
	return set;
}

/*
 * w, lines of session tip's record of the file: the checkpoint that last
 * recorded the file's blob, and its author; else git's "Not Committed
 * Yet" of the lines (as).
 */
static void record_checkpoint(struct blame *b, struct blame_who *w, const char *tip, const struct blame_who *as)
{
	struct sbuf out = SBUF_INIT;
	char *spec = xstrfmt("files/%s", b->path), *fields[5];
	const char *args[] = { "git", "--literal-pathspecs", "log", "-1", CHECKPOINT_FORMAT, tip, "--", spec, NULL };
	size_t mark = gs_error_mark();

	if (store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(b->c->st), .out = &out,
					   .must_succeed = 1 }) == 0 && out.buf &&
	    (out.buf[strcspn(out.buf, "\n")] = '\0', checkpoint_fields(fields, out.buf))) {
		set_checkpoint(w, fields);
	} else {
		gs_error_rewind(mark);
		w->author.name = xstrdup(as->author.name ? as->author.name : "Not Committed Yet");
		w->author.mail = xstrdup(as->author.mail ? as->author.mail : "not.committed.yet");
		w->author.time = as->author.time;
		memcpy(w->author.tz, as->author.tz[0] ? as->author.tz : "+0000", 6);
	}
	sbuf_release(&out);
	free(spec);
}

/*
 * The lines not committed yet that session id's recorded blob of the
 * file holds, and no session before it took: to it, with the agent and
 * phase of that record and the checkpoint that made it. Returns how many
 * it took.
 */
static size_t attribute_to(struct blame *b, const char *id, struct blame_who **extra, size_t *nextra)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *ref = engine_refname(id), *text = NULL;
	struct span *spans = NULL;
	void *set = NULL;
	size_t mark = gs_error_mark(), took = 0;	/* a session that does not read is no candidate */
	int found = engine_load_some(&state, &tip, b->c->st, ref, NEED(FILES)) == 0 &&
		    (set = line_set(&text, &spans, b, state)) != NULL;

	gs_error_rewind(mark);
	if (found) {
		struct blame_who *w = &(*extra)[(*nextra)++];
		const struct blame_who *was = NULL;

		memcpy(w->commit, NOT_COMMITTED, HEX_SZ);
		w->session = xstrdup(id);
		record_of(w, state, b->path);
		for (size_t i = 0; i < b->n; i++) {
			struct span line = { b->lines[i].text, b->lines[i].len };

			if (!strcmp(b->lines[i].commit, NOT_COMMITTED) && !b->lines[i].who->session &&
			    b->lines[i].who != w && tfind(&line, &set, span_cmp)) {
				was = b->lines[i].who;
				b->lines[i].who = w;
				took++;
			}
		}
		if (was)
			record_checkpoint(b, w, tip.commit, was);
		tdestroy(set, no_free);
	}
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(spans);
	free(text);
	free(ref);
	return took;
}

/*
 * The lines not committed yet: each to the first session (the active
 * one, then the others in order) whose recorded blob of the file holds it.
 */
static int attribute_uncommitted(struct blame *b, struct blame_who **extra, size_t *nextra)
{
	struct store_ref_entry *refs = NULL;
	char *active = NULL;
	size_t n = 0, left = 0;
	int error;

	for (size_t i = 0; i < b->n; i++)
		left += !strcmp(b->lines[i].commit, NOT_COMMITTED);
	if (!left || (error = store_active(&active, b->c->st)) < 0 ||
	    (error = store_list_refs(&refs, &n, b->c->st, SESSIONS_PREFIX)) < 0) {
		free(active);
		return left ? error : 0;
	}
	*extra = xcalloc(n + 1, sizeof(**extra));
	for (size_t k = 0; k <= n && left; k++) {
		const char *id = k == 0 ? active : refs[k - 1].id;

		if (id && !(k > 0 && active && !strcmp(id, active)))
			left -= attribute_to(b, id, extra, nextra);
	}
	store_ref_entries_free(refs, n);
	free(active);
	return 0;
}

/* A /regex/ at *s (git's -L form), its closing slash passed; 0 when there is none. */
static int skip_regex(const char **s)
{
	const char *p = *s;

	if (*p == '^')
		p++;
	if (*p++ != '/')
		return 0;
	for (; *p && *p != '/'; p++)
		if (*p == '\\' && p[1])
			p++;
	if (*p != '/')
		return 0;
	*s = p + 1;
	return 1;
}

/* An optionally signed number at *s, passed; 0 when there is none. */
static int skip_number(const char **s, const char *signs)
{
	const char *p = *s + (**s && strchr(signs, **s) ? 1 : 0);
	size_t digits = strspn(p, "0123456789");

	if (!digits)
		return 0;
	*s = p + digits;
	return 1;
}

/*
 * Whether range has a shape git's -L takes: <start>,<end> with either
 * left out, a start a number or /regex/, an end a number, +N, -N or
 * /regex/; or :<funcname>. Whether the lines exist is git's to say.
 */
static int valid_range(const char *range)
{
	const char *p = range;

	if (*p == ':')
		return p[1] != '\0';
	if (*p && *p != ',' && !skip_number(&p, "+-") && !skip_regex(&p))
		return 0;
	if (!*p)
		return 1;
	if (*p++ != ',')
		return 0;
	if (*p && !skip_number(&p, "+-") && !skip_regex(&p))
		return 0;
	return !*p;
}

/*
 * Runs git blame --porcelain into out. What git refuses (a range past
 * the end, a revision it does not know) is said as git says it, without
 * its "fatal: ": returns EXIT_FATAL then, as git exits.
 */
static int run_git_blame(struct sbuf *out, struct cmd_ctx *c, const struct strlist *ranges, const char *rev,
			 const char *path)
{
	const char **args = xcalloc(ranges->n * 2 + 8, sizeof(*args));
	struct sbuf err = SBUF_INIT;
	size_t n = 0;
	int rc;

	args[n++] = "git";
	args[n++] = "blame";
	args[n++] = "--porcelain";
	for (size_t i = 0; i < ranges->n; i++) {
		args[n++] = "-L";
		args[n++] = ranges->v[i];
	}
	if (rev)
		args[n++] = rev;
	args[n++] = "--";
	args[n++] = path;
	rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(c->st), .out = out, .err = &err });
	if (rc > 0) {
		char *msg = err.buf ? err.buf : "";

		msg[strcspn(msg, "\n")] = '\0';
		if (!strncmp(msg, "fatal: ", 7))
			msg += 7;
		gs_error("%s", *msg ? msg : "git blame failed");
		rc = GS_EFATAL;
	}
	sbuf_release(&err);
	free(args);
	return rc;
}

/*
 * The commit to blame at for rev: a checkpoint stands for the commit its
 * session was at (its project.head), anything else is git's to resolve.
 * Caller frees.
 */
static char *code_rev(struct cmd_ctx *c, const char *rev)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	const char *head = NULL;
	size_t mark = gs_error_mark();
	char *out;

	if (engine_load_rev(&state, &tip, c->st, rev) == 0)
		head = json_str(cJSON_GetObjectItemCaseSensitive(state, "project"), "head");
	gs_error_rewind(mark);
	out = xstrdup(head && strlen(head) == 40 && is_hex(head, 40) ? head : rev);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	return out;
}

/* Where git's blame argument "<rev> -- <file>" (or any part of it) splits: the revision and the file. */
static int split_args(const char **rev, const char **file, int argc, const char **argv)
{
	int dash = -1;

	for (int i = 0; i < argc && dash < 0; i++)
		if (!strcmp(argv[i], "--"))
			dash = i;
	*rev = NULL;
	*file = NULL;
	if (dash >= 0) {
		if (dash > 1 || argc - dash != 2)
			return -1;
		*rev = dash ? argv[0] : NULL;
		*file = argv[dash + 1];
	} else if (argc == 1 || argc == 2) {
		*rev = argc == 2 ? argv[0] : NULL;
		*file = argv[argc - 1];
	} else {
		return -1;
	}
	return 0;
}

static void who_clear(struct blame_who *w)
{
	free(w->session);
	free(w->agent);
	free(w->phase);
	free(w->filename);
	person_clear(&w->author);
}

/* What the command line asks for, besides the file and revision. */
struct blame_args {
	struct strlist ranges;
	const char *date;
	int json, porcelain;
};

/* Checks the arguments whole before git runs: an exit code, or -1 to go on. */
static int check_args(const char **rev, const char **file, int argc, const char **argv, const struct blame_args *a,
		      const char *const *usage, const struct option *opts)
{
	if (split_args(rev, file, argc, argv) < 0)
		return cmd_exit(cmd_usage_error(usage, opts, argc ? "one file at a time, after the revision" :
								   "which file?"));
	for (size_t i = 0; i < a->ranges.n; i++)
		if (!valid_range(a->ranges.v[i]))
			return cmd_exit(cmd_usage_error(usage, opts, "invalid -L range '%s'", a->ranges.v[i]));
	if (a->json && a->porcelain)
		return cmd_exit(cmd_usage_error(usage, opts, "--json and --porcelain: one or the other"));
	if (blame_date_mode(a->date) < 0)
		return cmd_exit(cmd_usage_error(usage, opts, "unknown --date format '%s'", a->date));
	if (*rev && (!**rev || **rev == '-')) {
		gs_error("bad revision '%s'", *rev);
		return EXIT_FATAL;
	}
	return -1;
}

/* Each line's session, checkpoint, agent, phase and author; *extra the sessions lines not committed went to. */
static int find_records(struct blame *b, struct blame_who **extra, size_t *nextra)
{
	int error = sessions_of_commits(b);

	for (size_t i = 0; i < b->nwho && !error; i++) {
		int seen = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = b->whos[j].session && b->whos[i].session && !strcmp(b->whos[j].session, b->whos[i].session);
		if (b->whos[i].session && !seen)
			error = agents_of_session(b, b->whos[i].session);
	}
	return error ? error : attribute_uncommitted(b, extra, nextra);
}

static void blame_clear(struct blame *b, struct blame_who *extra, size_t nextra)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->lines[i].text);
	for (size_t i = 0; i < b->nwho; i++)
		who_clear(&b->whos[i]);
	for (size_t i = 0; i < nextra; i++)
		who_clear(&extra[i]);
	free(extra);
	free(b->whos);
	free(b->lines);
}

int cmd_blame(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session blame [<options>] [<rev>] [--] <file>", NULL };
	struct blame b = { .c = c };
	struct blame_args a = { .date = "short" };
	struct blame_who *extra = NULL;
	size_t nextra = 0;
	struct sbuf out = SBUF_INIT;
	const char *rev = NULL, *file = NULL;
	char *path = NULL, *at = NULL;
	int error, code;
	const struct option opts[] = {
		{ OPT_LIST, 'L', NULL, &a.ranges, "<start>,<end>", "only these lines (as git blame -L; more than one)" },
		{ OPT_STRING, 0, "date", &a.date, "<format>", "short (the default), iso, iso-strict, relative, unix or raw" },
		{ OPT_BOOL, 0, "porcelain", &a.porcelain, NULL, "a header and keys a line, for programs" },
		{ OPT_BOOL, 0, "line-porcelain", &a.porcelain, NULL, "the same: every line has its keys" },
		{ OPT_BOOL, 0, "json", &a.json, NULL, "print a JSON array, one object a line" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 1)) < 0) {
		code = cmd_exit(error);
		goto cleanup;
	}
	if ((code = check_args(&rev, &file, argc, argv, &a, usage, opts)) >= 0)
		goto cleanup;
	if ((error = store_worktree_relpath(&path, c->st, file)) < 0)
		goto done;
	b.path = path;
	at = rev ? code_rev(c, rev) : NULL;
	if ((error = run_git_blame(&out, c, &a.ranges, at, path)) < 0)
		goto done;
	parse_porcelain(&b, out.buf ? out.buf : "", out.len);
	if ((error = find_records(&b, &extra, &nextra)) == 0) {
		pager_start(c);
		blame_print(&b, a.json ? BLAME_JSON : a.porcelain ? BLAME_PORCELAIN : BLAME_HUMAN,
			    (enum blame_date)blame_date_mode(a.date));
	}
done:
	code = error == GS_EFATAL ? EXIT_FATAL : cmd_exit(error);
cleanup:
	blame_clear(&b, extra, nextra);
	strlist_clear(&a.ranges);
	sbuf_release(&out);
	free(path);
	free(at);
	return code;
}
