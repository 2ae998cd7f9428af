/*
 * cmd_grep.c - `git session grep`: a regular expression, as git grep
 * takes one, over what every session says in words (notes and prompts,
 * decisions, errors, tasks, summaries) and the transcripts its tip keeps.
 */
#include "git-session/cmd.h"
#include "git-session/engine.h"
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/search.h"
#include "git-session/util.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* as grep(1) when a file could not be read: whatever matched in the others, which are printed */
#define EXIT_DAMAGED 2

struct grep {
	regex_t re;
	const char *session, *commit;
	int archived, count_only;
	long hits, damaged;	/* damaged: the sessions that could not be read */
	cJSON *json;	/* --json: the array of matches, else NULL */
};

/* One matching line (valid UTF-8): "<session> <checkpoint> <field>: <line>", or an object of --json. */
static void emit(struct grep *g, const char *field, const char *agent, const char *text)
{
	g->hits++;
	if (!g->json && g->count_only)
		return;
	if (g->json) {
		cJSON *o = cJSON_CreateObject();

		json_set_str(o, "session", g->session);
		json_set_bool(o, "archived", g->archived);
		json_set_str(o, "checkpoint", g->commit);
		json_set_str(o, "field", field);
		json_set_str(o, "agent", agent);
		json_set_str(o, "text", text);
		cJSON_AddItemToArray(g->json, o);
	} else {
		printf("%s %.7s %s: ", g->session, g->commit, field);
		out_line(stdout, text);
		putchar('\n');
	}
}

/*
 * Each line of text that matches, as git grep shows lines. Each line is
 * copied for regexec as text (json_add_text): a NUL or a byte that is not
 * UTF-8 becomes U+FFFD, so that what follows it is searched and shown too.
 */
static void grep_text(struct grep *g, const char *field, const char *agent, const char *text, size_t len)
{
	const char *end = text + len;
	struct sbuf one = SBUF_INIT;

	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		sbuf_reset(&one);
		json_add_text(&one, line, n);
		sbuf_addch(&one, '\0');
		if (regexec(&g->re, one.buf, 0, NULL, 0) == 0)
			emit(g, field, agent, one.buf);
		line += n + 1;
	}
	sbuf_release(&one);
}

static int grep_field(const char *field, const char *agent, const char *text, void *payload)
{
	grep_text(payload, field, agent, text, strlen(text));
	return 0;
}

static int grep_part(const char *path, const char *data, size_t len, void *payload)
{
	const char *name = path + strlen("transcripts/");
	char *field = xstrfmt("transcript[%.*s]", (int)strcspn(name, "/"), name);

	grep_text(payload, field, NULL, data, len);
	free(field);
	return 0;
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
	cJSON *state = NULL;
	char *ref = xstrfmt("%s%s", prefix, id);
	int error;

	if ((error = engine_load_ref(&state, &tip, c->st, ref)) == 0) {
		g->session = id;
		g->commit = tip.commit;
		search_state(state, grep_field, g);
		error = store_walk_blobs(c->st, tip.commit, "transcripts", grep_part, g);
	}
	if (error < 0) {	/* said why; the other sessions are searched all the same */
		gs_error("session '%s' is damaged: %s", id, tip.commit[0] ? "its transcripts were not all searched" :
			 "not searched");
		g->damaged++;
	}
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
		{ OPT_BOOL, 'c', "count", &g.count_only, NULL, "print only how many lines matched" },
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
	flags = REG_NOSUB | (ext || fixed ? REG_EXTENDED : 0) | (icase ? REG_ICASE : 0);
	if ((error = regcomp(&g.re, pattern, flags)) != 0) {
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
	} else if (!error && g.count_only) {
		printf("%ld\n", g.hits);
	}
cleanup:
	if (compiled)
		regfree(&g.re);
	cJSON_Delete(g.json);
	free(pattern);
	if (!error && g.damaged) {
		gs_hint("'git session fsck --all' says what is damaged; 'fsck --repair <id>' mends it");
		return EXIT_DAMAGED;
	}
	return error ? cmd_exit(error) : g.hits ? EXIT_OK : EXIT_FAILED;	/* as git grep: 1 when nothing matched */
}
