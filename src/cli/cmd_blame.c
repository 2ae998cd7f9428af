/*
 * cmd_blame.c - `git session blame <file>`: git blame, with each line's
 * session, agent and phase beside it. A committed line's session is its
 * commit's Session-Id trailer; its agent and phase are what the file's
 * record said in the checkpoint that recorded the commit. A line not
 * committed yet belongs to the session whose recorded blob of the file
 * holds it (the active session first).
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/store_run.h"
#include "git-session/store_worktree.h"
#include "git-session/util.h"

#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_COMMITTED "0000000000000000000000000000000000000000"

struct line {
	char commit[HEX_SZ];
	char *text;	/* len bytes, NULs among them, as in the file */
	size_t len;
	const struct who *who;
};

/* What blame says of a commit's lines (or of the lines not committed). */
struct who {
	char commit[HEX_SZ];
	char *session, *agent, *phase;
	int found;	/* the checkpoint that recorded the commit was read */
};

struct blame {
	struct cmd_ctx *c;
	const char *path;
	struct line *lines;
	size_t n, alloc;
	struct who *whos;	/* one per distinct commit */
	size_t nwho;
};

/* `git blame --porcelain` (len bytes: a line of a binary file may hold a NUL): each line's commit and text. */
static void parse_porcelain(struct blame *b, const char *out, size_t size)
{
	const char *p = out, *end = out + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len > 40 && p[40] == ' ' && strspn(p, "0123456789abcdef") == 40) {
			ALLOC_GROW(b->lines, b->n + 1, b->alloc);
			memset(&b->lines[b->n], 0, sizeof(b->lines[b->n]));
			memcpy(b->lines[b->n].commit, p, 40);
		} else if (*p == '\t' && b->n < b->alloc && !b->lines[b->n].text && b->lines[b->n].commit[0]) {
			char *text = xmalloc(len);

			memcpy(text, p + 1, len - 1);
			text[len - 1] = '\0';
			b->lines[b->n].len = len - 1;
			b->lines[b->n++].text = text;
		}
		p += len + 1;
	}
}

/* A line's bytes as git blame prints them, NULs and tabs included; terminal controls made visible. */
static void print_text(const struct line *l)
{
	for (const char *p = l->text, *end = p + l->len; p <= end; p += strlen(p) + 1) {
		out_text(stdout, p);
		if (p + strlen(p) < end)
			putchar('\0');
	}
}

static struct who *who_of(struct blame *b, const char *commit)
{
	for (size_t i = 0; i < b->nwho; i++)
		if (!strcmp(b->whos[i].commit, commit))
			return &b->whos[i];
	return NULL;
}

/* Each distinct commit, with its Session-Id trailer, asked of git once for all. */
static int sessions_of_commits(struct blame *b)
{
	const char **args = xcalloc(b->n + 8, sizeof(*args));
	struct sbuf out = SBUF_INIT;
	size_t n = 0;
	int error = 0;

	b->whos = xcalloc(b->n + 1, sizeof(*b->whos));
	args[n++] = "git";
	args[n++] = "show";
	args[n++] = "-s";
	args[n++] = "--format=%H %(trailers:key=Session-Id,valueonly,separator=%x20)";
	for (size_t i = 0; i < b->n; i++) {
		if (who_of(b, b->lines[i].commit))
			continue;
		memcpy(b->whos[b->nwho++].commit, b->lines[i].commit, HEX_SZ);
		if (strcmp(b->lines[i].commit, NOT_COMMITTED))
			args[n++] = b->lines[i].commit;
	}
	if (n > 4 && (error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(b->c->st), .out = &out,
							 .must_succeed = 1 })) == 0) {
		for (char *p = out.buf, *nl; p && *p; p = nl ? nl + 1 : NULL) {
			struct who *w;

			nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			if (strlen(p) > 41 && (w = who_of(b, (p[40] = '\0', p))) && p[41])
				w->session = xstrndup(p + 41, strcspn(p + 41, " "));
		}
	}
	for (size_t i = 0; i < b->n; i++)
		b->lines[i].who = who_of(b, b->lines[i].commit);
	sbuf_release(&out);
	free(args);
	return error;
}

/* The agent and phase of path's record in a state, the phase by its name when it has one. */
static void record_of(struct who *w, const cJSON *state, const char *path)
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

/* In session id's history, the checkpoint that recorded commit: its subject starts "commit <abbrev>:". */
static int agents_of_session(struct blame *b, const char *id)
{
	struct sbuf out = SBUF_INIT;
	char *ref = NULL;
	size_t mark = gs_error_mark();
	int error;

	error = engine_find(&ref, b->c->st, id);
	gs_error_rewind(mark);
	if (error < 0)	/* gone, or archived: the session's name alone */
		return 0;
	{
		const char *args[] = { "git", "log", "--format=%H %s", ref, NULL };
		error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(b->c->st), .out = &out,
						  .must_succeed = 1 });
	}
	for (char *p = out.buf, *nl; !error && p && *p; p = nl ? nl + 1 : NULL) {
		struct who *w = NULL;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (strlen(p) < 50 || strncmp(p + 41, "commit ", 7))
			continue;
		for (size_t i = 0; i < b->nwho && !w; i++)
			if (b->whos[i].session && !strcmp(b->whos[i].session, id) &&
			    !strncmp(b->whos[i].commit, p + 48, 7) && !b->whos[i].found)
				w = &b->whos[i];
		if (w) {
			struct store_tip tip = { 0 };
			cJSON *state = NULL;

			p[40] = '\0';
			w->found = 1;
			if ((error = engine_load_rev(&state, &tip, b->c->st, p)) == 0)
				record_of(w, state, b->path);
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
 * The lines not committed yet that session id's recorded blob of the
 * file holds, and no session before it took: to it, with the agent and
 * phase of that record. Returns how many it took.
 */
static size_t attribute_to(struct blame *b, const char *id, struct who **extra, size_t *nextra)
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
		struct who *w = &(*extra)[(*nextra)++];

		w->session = xstrdup(id);
		record_of(w, state, b->path);
		for (size_t i = 0; i < b->n; i++) {
			struct span line = { b->lines[i].text, b->lines[i].len };

			if (!strcmp(b->lines[i].commit, NOT_COMMITTED) && !b->lines[i].who->session &&
			    b->lines[i].who != w && tfind(&line, &set, span_cmp)) {
				b->lines[i].who = w;
				took++;
			}
		}
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
static int attribute_uncommitted(struct blame *b, struct who **extra, size_t *nextra)
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

static void print_lines(const struct blame *b, int json)
{
	cJSON *arr = json ? cJSON_CreateArray() : NULL;

	for (size_t i = 0; i < b->n; i++) {
		const struct line *l = &b->lines[i];
		const struct who *w = l->who;

		if (arr) {
			cJSON *o = cJSON_CreateObject();
			struct sbuf text = SBUF_INIT;

			json_set_num(o, "line", (double)(i + 1));
			json_set_str(o, "commit", strcmp(l->commit, NOT_COMMITTED) ? l->commit : NULL);
			json_set_str(o, "session", w->session);
			json_set_str(o, "agent", w->agent);
			json_set_str(o, "phase", w->phase);
			json_add_text(&text, l->text, l->len);	/* a NUL as U+FFFD: JSON text holds none */
			json_set_str(o, "text", text.buf ? text.buf : "");
			sbuf_release(&text);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%.8s (%-20.20s %-14.14s %-12.12s %5zu) ", l->commit, w->session ? w->session : "-",
			       w->agent ? w->agent : "-", w->phase ? w->phase : "-", i + 1);
			print_text(l);
			putchar('\n');
		}
	}
	if (arr) {
		char *text = json_print(arr, 1, NULL);

		fputs(text, stdout);
		free(text);
		cJSON_Delete(arr);
	}
}

static void who_clear(struct who *w)
{
	free(w->session);
	free(w->agent);
	free(w->phase);
}

int cmd_blame(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session blame [--json] [--] <file>", NULL };
	struct blame b = { .c = c };
	struct who *extra = NULL;
	size_t nextra = 0;
	struct sbuf out = SBUF_INIT;
	char *path = NULL;
	int json = 0, error;
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &json, NULL, "print a JSON array, one object a line" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		goto cleanup;
	if (argc != 1) {
		error = cmd_usage_error(usage, opts, argc ? "one file at a time" : "which file?");
		goto cleanup;
	}
	if ((error = store_worktree_relpath(&path, c->st, argv[0])) < 0)
		goto cleanup;
	b.path = path;
	{
		const char *args[] = { "git", "blame", "--porcelain", "--", path, NULL };
		if ((error = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(c->st), .out = &out,
						       .must_succeed = 1 })) < 0)
			goto cleanup;
	}
	parse_porcelain(&b, out.buf ? out.buf : "", out.len);
	if ((error = sessions_of_commits(&b)) < 0)
		goto cleanup;
	for (size_t i = 0; i < b.nwho && !error; i++) {
		int seen = 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = b.whos[j].session && b.whos[i].session && !strcmp(b.whos[j].session, b.whos[i].session);
		if (b.whos[i].session && !seen)
			error = agents_of_session(&b, b.whos[i].session);
	}
	if (!error && (error = attribute_uncommitted(&b, &extra, &nextra)) == 0)
		print_lines(&b, json);
cleanup:
	for (size_t i = 0; i < b.n; i++)
		free(b.lines[i].text);
	for (size_t i = 0; i < b.nwho; i++)
		who_clear(&b.whos[i]);
	for (size_t i = 0; i < nextra; i++)
		who_clear(&extra[i]);
	free(extra);
	free(b.whos);
	free(b.lines);
	sbuf_release(&out);
	free(path);
	return cmd_exit(error);
}
