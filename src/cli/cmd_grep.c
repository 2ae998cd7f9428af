/*
 * cmd_grep.c - `git session grep`: a regular expression, as git grep
 * takes one, over what every session says in words: notes and prompts,
 * decisions, errors, tasks, summaries, and what its agents said (replies,
 * tool calls and their results, compaction summaries), not the records
 * their CLIs keep for themselves. Each hit names where it is and the
 * checkpoint it first appeared in.
 */
#include "git-session/cmd.h"
#include "git-session/engine.h"
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/search.h"
#include "git-session/util.h"
#include "transcript-internal.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* as grep(1) when a file could not be read: whatever matched in the others, which are printed */
#define EXIT_DAMAGED 2
/* a line longer than this is shown around its match */
#define LINE_SHOWN 160

/* A matching line, until the checkpoint where it first appeared is known. */
struct hit {
	char *field;		/* "decisions[0]", "transcript[claude-1a2b3c4d]" */
	char *agent;
	char *text;		/* the line, cut around the match */
	char *needle;		/* what the checkpoint's op.json holds: the line as JSON, or the part's path */
	const struct transcript_item *item;	/* a transcript's, else NULL */
};

struct grep {
	regex_t re, re_at;	/* re_at: the same, to say where a line matches */
	const char *session, *commit;
	int archived, count_only;
	long hits, damaged;	/* damaged: the sessions that could not be read */
	cJSON *json;	/* --json: the array of matches, else NULL */
	struct hit *v;	/* the session's */
	size_t n;
};

/* The line (valid UTF-8) cut to about LINE_SHOWN bytes around the match at [from, to). */
static char *shown(const char *line, size_t len, size_t from, size_t to)
{
	size_t a = from > LINE_SHOWN / 3 ? from - LINE_SHOWN / 3 : 0, b = to + LINE_SHOWN / 2;

	if (len <= LINE_SHOWN)
		return xstrdup(line);
	if (b > len)
		b = len;
	while (a && ((unsigned char)line[a] & 0xC0) == 0x80)
		a--;
	while (b < len && ((unsigned char)line[b] & 0xC0) == 0x80)
		b++;
	return xstrfmt("%s%.*s%s", a ? "…" : "", (int)(b - a), line + a, b < len ? "…" : "");
}

/*
 * Each line of text that matches, as git grep shows lines. Each line is
 * copied for regexec as text (json_add_text): a NUL or a byte that is not
 * UTF-8 becomes U+FFFD, so that what follows it is searched and shown too.
 */
static void grep_text(struct grep *g, const char *field, const char *agent, const char *text, size_t len,
		      const struct transcript_item *item, const char *path)
{
	const char *end = text + len;
	struct sbuf one = SBUF_INIT, enc = SBUF_INIT;
	regmatch_t m[1];

	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
		struct hit *h;

		sbuf_reset(&one);
		json_add_text(&one, line, n);
		sbuf_addch(&one, '\0');
		line += n + 1;
		if (regexec(&g->re, one.buf, 0, NULL, 0) != 0)
			continue;
		g->hits++;
		if (g->count_only && !g->json)
			continue;
		g->v = xrealloc(g->v, (g->n + 1) * sizeof(*g->v));
		h = &g->v[g->n++];
		h->field = xstrdup(field);
		h->agent = agent ? xstrdup(agent) : NULL;
		if (one.len - 1 <= LINE_SHOWN || regexec(&g->re_at, one.buf, 1, m, 0) != 0)
			m[0].rm_so = m[0].rm_eo = 0;
		h->text = shown(one.buf, one.len - 1, (size_t)m[0].rm_so, (size_t)m[0].rm_eo);
		h->item = item;
		sbuf_reset(&enc);
		json_string_encode(&enc, one.buf, one.len - 1);
		h->needle = path ? xstrdup(path) : sbuf_detach(&enc, NULL);
	}
	sbuf_release(&one);
	sbuf_release(&enc);
}

static int grep_field(const char *field, const char *agent, const char *text, void *payload)
{
	grep_text(payload, field, agent, text, strlen(text), NULL, NULL);
	return 0;
}

/*
 * What was said in the agents' conversations: not their thinking, not the
 * CLI's own records; and the lines no dialect reads, as text.
 */
static void grep_talks(struct grep *g, const struct talks *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		const struct agent_talk *a = &ts->v[i];
		char *field = xstrfmt("transcript[%s]", a->id);

		for (size_t k = 0; k < a->t.n; k++) {
			const struct transcript_item *it = &a->t.items[k];
			char *path = xstrfmt("transcripts/%s/%03d/%06d", a->id, it->part / 1000, it->part);
			char *tool = NULL;

			if (it->kind == TI_TOOL)
				tool = xstrfmt("%s: %s", it->name ? it->name : "?", it->text);
			if (it->kind != TI_THINKING && it->kind != TI_USAGE) {
				const char *s = tool ? tool : it->body ? it->body : it->text;

				grep_text(g, field, a->id, s, strlen(s), it, path);
			}
			free(tool);
			free(path);
		}
		free(field);
	}
}

/* Whether op (op.json's text) holds needle as a whole string, or a whole line of one. */
static int holds(const char *op, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = op; (p = strstr(p, needle)); p++) {
		int before = p > op && (p[-1] == '"' || (p - op >= 2 && p[-2] == '\\' && p[-1] == 'n'));
		int after = p[n] == '"' || (p[n] == '\\' && p[n + 1] == 'n');

		if (before && after)
			return 1;
	}
	return 0;
}

static int by_needle(const void *a, const void *b)
{
	return strcmp((*(const struct hit *const *)a)->needle, (*(const struct hit *const *)b)->needle);
}

/*
 * The checkpoint each hit first appeared in: the oldest whose operation
 * holds its text or wrote its part. Each text is looked for once, however
 * many hits share it (the lines of one part).
 */
static int first_checkpoints(char **at, struct grep *g, struct cmd_ctx *c)
{
	const char *tip = g->commit;
	const struct hit **by = xcalloc(g->n, sizeof(*by));
	size_t *first = xcalloc(g->n, sizeof(*first)), u = 0;
	char **found = xcalloc(g->n, sizeof(*found));
	cJSON *nodes = NULL, *node;
	int error;

	for (size_t i = 0; i < g->n; i++)
		by[i] = &g->v[i];
	qsort(by, g->n, sizeof(*by), by_needle);
	for (size_t i = 0; i < g->n; i++)	/* the first of each needle */
		if (!i || strcmp(by[i]->needle, by[i - 1]->needle))
			first[u++] = i;
	if ((error = store_walk(&nodes, c->st, &tip, 1, NULL, 0)) < 0)
		goto cleanup;
	cJSON_ArrayForEach(node, nodes) {	/* newest first: the last that holds it is the oldest */
		const char *op = json_str(node, "op"), *id = json_str(node, "commit");

		for (size_t k = 0; op && id && k < u; k++)
			if (*by[first[k]]->needle && holds(op, by[first[k]]->needle)) {
				free(found[k]);
				found[k] = xstrdup(id);
			}
	}
	for (size_t k = 0, i = 0; k < u; k++)
		for (; i < g->n && (k + 1 == u || i < first[k + 1]); i++)
			if (found[k])
				at[by[i] - g->v] = xstrdup(found[k]);
cleanup:
	for (size_t k = 0; k < u; k++)
		free(found[k]);
	free(found);
	free(first);
	free(by);
	cJSON_Delete(nodes);
	return error;
}

static void emit(struct grep *g, const struct hit *h, const char *commit)
{
	const struct transcript_item *it = h->item;

	if (g->json) {
		cJSON *o = cJSON_CreateObject();

		json_set_str(o, "session", g->session);
		json_set_bool(o, "archived", g->archived);
		json_set_str(o, "checkpoint", commit);
		json_set_str(o, "field", h->field);
		json_set_str(o, "agent", h->agent);
		if (it) {
			json_set_num(o, "turn", it->turn);
			json_set_str(o, "kind", view_item_kinds[it->kind]);
			if (it->name)
				json_set_str(o, "tool", it->name);
		}
		json_set_str(o, "text", h->text);
		cJSON_AddItemToArray(g->json, o);
		return;
	}
	printf("%s %.7s %s", g->session, commit, h->field);
	if (it && it->turn)
		printf(" turn %d", it->turn);
	if (it)
		printf(" %s", view_item_kinds[it->kind]);
	fputs(": ", stdout);
	out_line(stdout, h->text);
	putchar('\n');
}

/* The session's hits, each with the checkpoint it first appeared in (the tip when none is found). */
static int flush(struct grep *g, struct cmd_ctx *c, long count)
{
	char **at = xcalloc(g->n + 1, sizeof(*at));
	int error = 0;

	if (g->count_only && !g->json) {
		if (count)
			printf("%s:%ld\n", g->session, count);
	} else if (g->n && (error = first_checkpoints(at, g, c)) == 0) {
		for (size_t i = 0; i < g->n; i++)
			emit(g, &g->v[i], at[i] ? at[i] : g->commit);
	}
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].field);
		free(g->v[i].agent);
		free(g->v[i].text);
		free(g->v[i].needle);
		free(at[i]);
	}
	free(at);
	free(g->v);
	g->v = NULL;
	g->n = 0;
	return error;
}

/* -F: the string as an extended regular expression that matches it alone. */
static char *quote_ere(const char *s)
{
	struct sbuf sb = SBUF_INIT;

	for (; *s; s++) {
		if (strchr("\\.[]()*+?{}|^$", *s))
			sbuf_addch(&sb, '\\');
		sbuf_addch(&sb, *s);
	}
	return sbuf_detach(&sb, NULL);
}

static int grep_session(struct grep *g, struct cmd_ctx *c, const char *prefix, const char *id)
{
	struct store_tip tip = { 0 };
	struct talks ts = { 0 };
	cJSON *state = NULL;
	char *ref = xstrfmt("%s%s", prefix, id);
	long before = g->hits;
	int error;

	if ((error = engine_load_ref(&state, &tip, c->st, ref)) == 0) {
		g->session = id;
		g->commit = tip.commit;
		search_state(state, grep_field, g);
		if ((error = talks_load(&ts, c->st, tip.commit, state, NULL, 1)) == 0)
			grep_talks(g, &ts);
		if (flush(g, c, g->hits - before) < 0 && !error)
			error = GS_ERROR;
	}
	if (error < 0) {	/* said why; the other sessions are searched all the same */
		gs_error("session '%s' is damaged: %s", id, tip.commit[0] ? "its transcripts were not all searched" :
			 "not searched");
		g->damaged++;
	}
	talks_clear(&ts);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(ref);
	return error;
}

/* The sessions named on the command line, live ones only, in the order given. */
static int grep_named(struct grep *g, struct cmd_ctx *c, int n, const char **ids)
{
	int error = 0;

	for (int i = 0; i < n && !error; i++) {
		char *ref = NULL;

		if ((error = engine_find(&ref, c->st, ids[i])) == 0)
			grep_session(g, c, SESSIONS_PREFIX, ids[i]);
		free(ref);
	}
	return error;
}

/* Every live session, then (with --all) every archived one. */
static int grep_all(struct grep *g, struct cmd_ctx *c, int all)
{
	struct store_ref_entry *refs[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	int error;

	if ((error = store_list_refs(&refs[0], &n[0], c->st, SESSIONS_PREFIX)) == 0 &&
	    (!all || (error = store_list_refs(&refs[1], &n[1], c->st, ARCHIVE_PREFIX)) == 0)) {
		for (int k = 0; k < 2 && !error; k++)
			for (size_t i = 0; i < n[k] && !error; i++) {
				g->archived = k;
				grep_session(g, c, k ? ARCHIVE_PREFIX : SESSIONS_PREFIX, refs[k][i].id);
			}
	}
	for (int k = 0; k < 2; k++)
		store_ref_entries_free(refs[k], n[k]);
	return error;
}

int cmd_grep(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session grep [-E | -F] [-i] [-c] [--all] [--json] <pattern> [<id>...]", NULL,
	};
	struct grep g = { .json = NULL };
	int all = 0, json = 0, ext = 0, fixed = 0, icase = 0, error, compiled = 0, flags;
	char *pattern = NULL;
	const struct option opts[] = {
		{ OPT_BOOL, 'E', "extended-regexp", &ext, NULL, "POSIX extended regular expressions" },
		{ OPT_BOOL, 'F', "fixed-strings", &fixed, NULL, "the pattern is a plain string" },
		{ OPT_BOOL, 'i', "ignore-case", &icase, NULL, "ignore case" },
		{ OPT_BOOL, 'c', "count", &g.count_only, NULL, "print how many lines matched in each session" },
		{ OPT_BOOL, 'a', "all", &all, NULL, "archived sessions too" },
		{ OPT_BOOL, 0, "json", &json, NULL, "print a JSON array of the matches" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		goto cleanup;
	if (argc < 1 || (ext && fixed)) {
		error = cmd_usage_error(usage, opts, argc < 1 ? "which pattern?" : "-E and -F exclude each other");
		goto cleanup;
	}
	pattern = fixed ? quote_ere(argv[0]) : xstrdup(argv[0]);
	flags = (ext || fixed ? REG_EXTENDED : 0) | (icase ? REG_ICASE : 0);
	if ((error = regcomp(&g.re, pattern, flags | REG_NOSUB)) != 0 ||
	    (error = regcomp(&g.re_at, pattern, flags)) != 0) {
		char why[256];

		regerror(error, &g.re, why, sizeof(why));
		error = gs_error("invalid regular expression '%s': %s", argv[0], why);
		goto cleanup;
	}
	compiled = 1;
	if (json)
		g.json = cJSON_CreateArray();
	if (argc > 1)
		error = grep_named(&g, c, argc - 1, argv + 1);
	else
		error = grep_all(&g, c, all);
	if (!error && g.json) {
		char *text = json_print(g.json, 1, NULL);
		fputs(text, stdout);
		free(text);
	}
cleanup:
	if (compiled) {
		regfree(&g.re);
		regfree(&g.re_at);
	}
	cJSON_Delete(g.json);
	free(pattern);
	if (!error && g.damaged) {
		gs_hint("'git session fsck --all' says what is damaged; 'fsck --repair <id>' mends it");
		return EXIT_DAMAGED;
	}
	return error ? cmd_exit(error) : g.hits ? EXIT_OK : EXIT_FAILED;	/* as git grep: 1 when nothing matched */
}
