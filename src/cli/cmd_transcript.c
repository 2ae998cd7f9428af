/*
 * cmd_transcript.c - `git session transcript`: the agents' conversations
 * a checkpoint keeps, as a person reads them (view_transcript.c), or the
 * stored bytes (--raw). Each turn the agent hooks recorded is a part,
 * transcripts/<agent>/<nnn>/<nnnnnn>, read once, in order.
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/pager.h"
#include "git-session/state.h"
#include "git-session/util.h"
#include "transcript-internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dialect agent id's transcript is in: its CLI, its type, its parent's, its id's stem; NULL when none says. */
static const struct agent_dialect *dialect_of(const cJSON *state, const char *id)
{
	for (int depth = 0; id && depth < 8; depth++) {
		const cJSON *a = state_agent(state, id);
		const struct agent_dialect *d = NULL;

		if ((json_str(a, "cli") && (d = agent_dialect(json_str(a, "cli")))) ||
		    (json_str(a, "type") && (d = agent_dialect(json_str(a, "type")))))
			return d;
		if (!(id = json_str(a, "parent")) && a) {
			for (size_t i = 0; agent_dialects[i]; i++) {
				size_t n = strlen(agent_dialects[i]->stem);

				if (!strncmp(json_str(a, "id"), agent_dialects[i]->stem, n) && json_str(a, "id")[n] == '-')
					return agent_dialects[i];
			}
		}
	}
	return NULL;
}

/* The dialect that reads the most of text: for an agent no record names. */
static const struct agent_dialect *dialect_guess(const char *text, size_t len)
{
	const struct agent_dialect *best = agent_dialects[0];
	size_t most = 0;

	for (size_t i = 0; agent_dialects[i]; i++) {
		struct transcript t;

		transcript_init(&t, agent_dialects[i]);
		transcript_read(&t, text, len);
		if (t.n > most)
			most = t.n, best = agent_dialects[i];
		transcript_clear(&t);
	}
	return best;
}

static struct agent_talk *talk_of(struct talks *ts, const char *name, size_t n)
{
	struct agent_talk *a;

	for (size_t i = 0; i < ts->n; i++)
		if (strlen(ts->v[i].id) == n && !strncmp(ts->v[i].id, name, n))
			return &ts->v[i];
	ts->v = xrealloc(ts->v, (ts->n + 1) * sizeof(*ts->v));
	a = &ts->v[ts->n++];
	memset(a, 0, sizeof(*a));
	a->id = xstrndup(name, n);
	a->order = ts->n + 100000;
	return a;
}

static int read_part(const char *path, const char *data, size_t len, void *payload)
{
	struct talks *ts = payload;
	const char *name = path + strlen("transcripts/"), *last = strrchr(path, '/');
	size_t n = strcspn(name, "/");
	struct agent_talk *a = talk_of(ts, name, n);

	if (!a->t.d) {
		const struct agent_dialect *d = dialect_of(ts->state, a->id);

		transcript_init(&a->t, d ? d : dialect_guess(data, len));
		a->t.unread = ts->unread;
	}
	a->t.part = last ? atoi(last + 1) : 0;
	transcript_read(&a->t, data, len);
	ts->parts++;
	return 0;
}

static int by_order(const void *x, const void *y)
{
	const struct agent_talk *a = x, *b = y;

	return (a->order > b->order) - (a->order < b->order);
}

int talks_load(struct talks *ts, gs_store *st, const char *commit, const cJSON *state, const char *only,
	       int unread)
{
	char *dir = only && !strchr(only, '/') && strcmp(only, "..") ? xstrfmt("transcripts/%s", only) : NULL;
	const cJSON *a;
	int error, i = 0;

	memset(ts, 0, sizeof(*ts));
	ts->state = state;
	ts->unread = unread;
	if (!dir && only)
		return 0;	/* no agent of that name: nothing kept */
	error = store_walk_blobs(st, commit, dir ? dir : "transcripts", read_part, ts);
	free(dir);
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {	/* the order they started in */
		for (size_t k = 0; k < ts->n; k++)
			if (json_str(a, "id") && !strcmp(ts->v[k].id, json_str(a, "id")))
				ts->v[k].order = i;
		i++;
	}
	if (ts->n)
		qsort(ts->v, ts->n, sizeof(*ts->v), by_order);
	return error;
}

void talks_clear(struct talks *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		free(ts->v[i].id);
		transcript_clear(&ts->v[i].t);
	}
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}

/* --- --raw: the bytes as stored --- */

struct raw_out {
	const char *agent;	/* only this agent's, or NULL */
	char last[256];		/* the agent whose parts are being printed */
	int agents;
};

static int print_part(const char *path, const char *data, size_t len, void *payload)
{
	struct raw_out *o = payload;
	const char *name = path + strlen("transcripts/");
	size_t n = strcspn(name, "/");

	if (o->agent && (strlen(o->agent) != n || strncmp(name, o->agent, n)))
		return 0;
	if (n >= sizeof(o->last) || strncmp(o->last, name, n) || o->last[n]) {
		if (!o->agent)
			printf("%s==> transcript of %.*s <==\n", o->agents ? "\n" : "", (int)n, name);
		snprintf(o->last, sizeof(o->last), "%.*s", (int)n, name);
		o->agents++;
	}
	return fwrite(data, 1, len, stdout) == len ? 0 : gs_error("cannot write the transcript");
}

/* --- the conversation --- */

static int print_talks(struct cmd_ctx *c, const struct talks *ts, int turn, int json, struct report_opts *o)
{
	struct view v;
	int error, shown = 0;

	if ((error = view_start(&v, c, o)) < 0)
		return error;
	for (size_t i = 0; i < ts->n; i++) {
		const struct agent_talk *a = &ts->v[i];

		for (size_t k = 0; k < a->t.n; k++) {
			if (turn && a->t.items[k].turn != turn)
				continue;
			shown++;
			if (json) {
				cJSON *item = view_transcript_item_json(a->id, &a->t.items[k]);
				char *text = json_print(item, 0, NULL);

				sbuf_addf(&v.out, "%s\n", text);
				free(text);
				cJSON_Delete(item);
			}
		}
		if (!json)
			view_transcript(&v, a->id, &a->t, turn, store_workdir(c->st));
		/* what the strict reading refused is not lost silently */
		if (a->t.skipped)
			gs_warning("%zu line%s of the transcript of agent '%s' did not read as JSON and %s not shown; "
				   "'git session transcript --raw' shows the stored bytes", a->t.skipped,
				   a->t.skipped == 1 ? "" : "s", a->id, a->t.skipped == 1 ? "is" : "are");
	}
	if (shown) {
		pager_start(c);
		view_finish(&v);
	}
	sbuf_release(&v.out);
	return shown;
}

int cmd_transcript(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session transcript [<rev>] [--agent <id>] [--turn <n>] [--json]",
		"git session transcript [<rev>] [--agent <id>] --raw", NULL,
	};
	struct report_opts ro = { 0 };
	struct raw_out raw_out = { 0 };
	struct talks ts = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *spec = NULL;
	const char *agent = NULL;
	long long turn = 0;	/* as OPT_INT stores it */
	int raw = 0, error, shown;
	const struct option opts[] = {
		{ OPT_STRING, 0, "agent", &agent, "<id>", "only this agent's transcript" },
		{ OPT_INT, 0, "turn", &turn, "<n>", "only the n-th turn (from the n-th prompt to the next)" },
		{ OPT_BOOL, 0, "raw", &raw, NULL, "the bytes as stored, JSON lines in the agent's format" },
		REPORT_OPTIONS(ro),
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0)
		goto cleanup;
	if (raw && (turn || ro.json)) {
		error = cmd_usage_error(usage, opts, turn ? "--raw prints whole parts: no --turn" : "--raw and --json exclude each other");
		goto cleanup;
	}
	if (turn < 0 || turn > INT_MAX) {
		error = cmd_usage_error(usage, opts, "--turn counts from 1");
		goto cleanup;
	}
	if ((error = cmd_resolve_rev(&spec, c, argc ? argv[0] : NULL)) < 0)
		goto cleanup;
	if ((error = engine_load_rev(&state, &tip, c->st, spec)) == GS_ENOTFOUND)
		error = gs_error("unknown revision or session '%s'", argc ? argv[0] : SESSION_HEAD);
	if (error < 0)
		goto cleanup;
	if (raw) {
		raw_out.agent = agent;
		if ((error = store_walk_blobs(c->st, tip.commit, "transcripts", print_part, &raw_out)) < 0)
			goto cleanup;
		shown = raw_out.agents;
	} else {
		if ((error = talks_load(&ts, c->st, tip.commit, state, agent, 0)) < 0 ||
		    (error = print_talks(c, &ts, (int)turn, ro.json, &ro)) < 0)
			goto cleanup;
		shown = error;
		error = 0;
		if (!shown && ts.parts && turn) {
			error = gs_error("no turn %lld in the transcript%s%s", turn, agent ? " of agent " : "", agent ? agent : "");
			goto cleanup;
		}
		shown = ts.parts;
	}
	if (!shown)
		error = gs_error(agent ? "checkpoint %.7s keeps no transcript of agent '%s'" :
				 "checkpoint %.7s keeps no transcript%s", tip.commit, agent ? agent : "");
cleanup:
	talks_clear(&ts);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(spec);
	return cmd_exit(error);
}
