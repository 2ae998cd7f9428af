/*
 * cmd_gc.c - `git session gc`: retention. Archives the finished
 * sessions (completed or aborted) whose last operation is older than
 * --archive-after (session.archiveAfter), deletes the archived ones older
 * than --prune-archived-after (session.pruneArchivedAfter), ages counted
 * from a session's last operation, and keeps archived sessions'
 * transcripts within session.transcriptLimit; git gc then frees their
 * objects. A session in progress or paused is never touched, nor one
 * that any worktree of the repository has active (its SESSION_HEAD).
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/engine.h"
#include "git-session/json.h"
#include "git-session/sync.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gc {
	struct cmd_ctx *c;
	time_t now;
	int dry_run, quiet;
	char **active;	/* the sessions SESSION_HEAD names, in every worktree */
	size_t nactive;
	char **touched;	/* the ids this run archived or deleted (or would): left for the next run */
	size_t ntouched;
	int64_t transcript_limit;	/* session.transcriptLimit */
	int trimmed;
	cJSON *json;		/* --json: {archived, deleted, trimmed, dry_run} */
};

/* An age from the command line, else the configuration; -1 is never. */
static int age_of(int64_t *out, struct gc *g, const char *arg, const char *key, const char *opt)
{
	char *conf = arg ? NULL : store_config_str(g->c->st, key);
	const char *s = arg ? arg : conf;
	int error = 0;

	*out = -1;
	if (s && gs_parse_age(out, s) < 0)
		error = gs_error("%s%s: cannot read '%s' as an age (say \"30.days\", \"2.weeks.ago\", \"never\")",
				 arg ? "--" : "", arg ? opt : key, s);
	free(conf);
	return error;
}

/* The status of a session's tip and how many seconds since its last operation. */
static int session_age(char **status, double *age, struct gc *g, const char *ref, const char *hex)
{
	static const char *const keys[] = { "status", "updated" };
	struct store_tip tip = { 0 };
	char *v[2] = { NULL, NULL };
	time_t t;
	int error = engine_peek(v, &tip, g->c->st, ref, hex, keys, 2);

	*status = v[0];
	*age = !error && v[1] && gs_time_parse_iso(&t, v[1]) == 0 ? difftime(g->now, t) : 0;
	free(v[1]);
	store_tip_clear(&tip);
	return error;
}

static void say(struct gc *g, const char *list, const char *verb, const char *id, const char *status, double age)
{
	if (g->json)
		cJSON_AddItemToArray(json_arr(g->json, list), cJSON_CreateString(id));
	else if (!g->quiet)
		printf("%s%s %s (%s, last operation %.0f days ago)\n", g->dry_run ? "Would " : "",
		       g->dry_run ? verb : (!strcmp(verb, "archive") ? "Archived" : "Deleted archived session"),
		       id, status, age / 86400);
	g->touched = xrealloc(g->touched, (g->ntouched + 1) * sizeof(*g->touched));
	g->touched[g->ntouched++] = xstrdup(id);
}

/* One session gc looks at: its ref, where it points, its status and the age of its last operation. */
struct gc_one {
	const char *id, *ref, *tip, *status;
	double age;
};
typedef int (*gc_fn)(struct gc *g, const struct gc_one *s);

/* Calls fn on each session under prefix whose last operation is older than after. */
static int each_older(struct gc *g, const char *prefix, int64_t after, gc_fn fn)
{
	struct store_ref_entry *refs = NULL;
	size_t n = 0;
	int error;

	if ((error = store_list_refs(&refs, &n, g->c->st, prefix)) < 0)
		return error;
	for (size_t i = 0; i < n && !error; i++) {
		struct gc_one s = { refs[i].id, NULL, refs[i].tip, NULL, 0 };
		char *ref = xstrfmt("%s%s", prefix, refs[i].id), *status = NULL;

		s.ref = ref;
		if ((error = session_age(&status, &s.age, g, ref, refs[i].tip)) == 0 && s.age > (double)after) {
			s.status = status;
			error = fn(g, &s);
		}
		free(status);
		free(ref);
	}
	store_ref_entries_free(refs, n);
	return error;
}

static int active_somewhere(const struct gc *g, const char *id)
{
	for (size_t i = 0; i < g->nactive; i++)
		if (!strcmp(g->active[i], id))
			return 1;
	return 0;
}

static int archive_one(struct gc *g, const struct gc_one *s)
{
	char *to;
	int error = 0;

	if ((strcmp(s->status, ST_COMPLETED) && strcmp(s->status, ST_ABORTED)) || active_somewhere(g, s->id))
		return 0;
	to = xstrfmt("%s%s", ARCHIVE_PREFIX, s->id);
	if (!g->dry_run)
		error = engine_move(&g->c->eng, s->ref, to, "session: gc: archive");
	if (!error)
		say(g, "archived", "archive", s->id, s->status, s->age);
	free(to);
	return error;
}

/* What this run archived or deleted (or would) waits for the next run. */
static int touched(struct gc *g, const char *id)
{
	for (size_t i = 0; i < g->ntouched; i++)
		if (!strcmp(g->touched[i], id))
			return 1;
	return 0;
}

static int delete_one(struct gc *g, const struct gc_one *s)
{
	int error = 0;

	if (!strcmp(s->status, ST_IN_PROGRESS) || !strcmp(s->status, ST_PAUSED) || touched(g, s->id))
		return 0;
	if (!g->dry_run && (error = engine_delete_ref(&g->c->eng, s->ref, s->tip)) == 0)
		sync_forget(g->c->st, s->id, s->tip);	/* a pull does not bring it back */
	if (!error)
		say(g, "deleted", "delete archived session", s->id, s->status, s->age);
	return error;
}

/* The parts of each agent's transcript past the limit, in order: those gc takes out. */
struct trim {
	int64_t limit, kept, bytes;
	char agent[256];
	int over;
	char **drop;
	size_t ndrop, adrop;
};

static int weigh_part(const char *path, const char *data, size_t len, void *payload)
{
	struct trim *t = payload;
	const char *name = path + strlen("transcripts/");
	size_t n = strcspn(name, "/");

	if (n >= sizeof(t->agent) || strncmp(t->agent, name, n) || t->agent[n]) {
		snprintf(t->agent, sizeof(t->agent), "%.*s", (int)n, name);
		t->kept = 0;
		t->over = 0;
	}
	if (t->over || t->kept + (int64_t)len > t->limit) {	/* as the hook stops keeping them */
		t->over = 1;
		t->bytes += (int64_t)len;
		ALLOC_GROW(t->drop, t->ndrop + 1, t->adrop);
		t->drop[t->ndrop++] = xstrdup(path);
	} else {
		t->kept += (int64_t)len;
	}
	return 0;
}

/* Whether an agent of the state kept more transcript than the limit: only then are its parts read. */
static int kept_over(struct gc *g, const struct gc_one *s, int64_t limit)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	const cJSON *a;
	int over = 0;

	if (engine_load_some(&state, &tip, g->c->st, s->ref, NEED(AGENTS)) == 0)
		cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents"))
			over |= json_num(cJSON_GetObjectItemCaseSensitive(a, "transcript"), "bytes", 0) > (double)limit;
	else
		cmd_print_errors();	/* said; gc goes on with the others */
	cJSON_Delete(state);
	store_tip_clear(&tip);
	return over;
}

/* The trimmed history in place, once more after removing a dead writer's lock. */
static int trim_cas(struct gc *g, const struct gc_one *s, const char *tip)
{
	const char *msg = "session: gc: transcripts past session.transcriptLimit";
	int error = store_cas(g->c->st, s->ref, tip, s->tip, msg);

	if (error == GS_ERACE && store_break_stale_lock(g->c->st, s->ref, (int)g->c->eng.stale_lock_age))
		error = store_cas(g->c->st, s->ref, tip, s->tip, msg);
	return error;
}

/*
 * An archived session whose kept transcripts pass session.transcriptLimit
 * (lowered since, say): its history written again without the parts past
 * it, so that git gc can free them.
 */
static int trim_one(struct gc *g, const struct gc_one *s)
{
	struct trim t = { .limit = g->transcript_limit };
	char tip[HEX_SZ];
	int error = 0;

	if (!strcmp(s->status, ST_IN_PROGRESS) || !strcmp(s->status, ST_PAUSED) || touched(g, s->id) ||
	    !kept_over(g, s, t.limit) || (error = store_walk_blobs(g->c->st, s->tip, "transcripts", weigh_part, &t)) < 0 ||
	    !t.ndrop)
		goto cleanup;
	if (!g->dry_run && (error = store_rewrite_without(tip, g->c->st, s->tip, (const char *const *)t.drop, t.ndrop)) == 0)
		error = trim_cas(g, s, tip);
	if (error == GS_ERACE) {
		gs_warning("archived session %s changed or is locked; its transcripts are left for the next gc", s->id);
		error = 0;
		goto cleanup;
	}
	if (error < 0)
		goto cleanup;
	if (g->json) {
		cJSON *o = cJSON_CreateObject();

		json_set_str(o, "session", s->id);
		json_set_num(o, "parts", (double)t.ndrop);
		json_set_num(o, "bytes", (double)t.bytes);
		cJSON_AddItemToArray(json_arr(g->json, "trimmed"), o);
	} else if (!g->quiet) {
		printf("%s the transcripts of archived session %s: %zu parts, %lld bytes past session.transcriptLimit\n",
		       g->dry_run ? "Would trim" : "Trimmed", s->id, t.ndrop, (long long)t.bytes);
	}
	g->trimmed++;
cleanup:
	store_ids_free(t.drop, t.ndrop);
	return error;
}

int cmd_gc(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session gc [--archive-after <age>] [--prune-archived-after <age>] [--dry-run] [--json] [-q]", NULL,
	};
	struct gc g = { .c = c };
	const char *archive_arg = NULL, *prune_arg = NULL;
	int64_t archive_after, prune_after;
	int json = 0, error;
	const struct option opts[] = {
		{ OPT_STRING, 0, "archive-after", &archive_arg, "<age>", "archive finished sessions older than this" },
		{ OPT_STRING, 0, "prune-archived-after", &prune_arg, "<age>", "delete archived sessions older than this" },
		{ OPT_BOOL, 'n', "dry-run", &g.dry_run, NULL, "say what would be done, do nothing" },
		{ OPT_BOOL, 0, "json", &json, NULL, "print {archived, deleted, trimmed, dry_run}" },
		{ OPT_BOOL, 'q', "quiet", &g.quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 0, usage)) < 0 ||
	    (error = age_of(&archive_after, &g, archive_arg, "session.archiveAfter", "archive-after")) < 0 ||
	    (error = age_of(&prune_after, &g, prune_arg, "session.pruneArchivedAfter", "prune-archived-after")) < 0 ||
	    (error = store_config_int(&g.transcript_limit, c->st, "session.transcriptLimit", AGENT_TRANSCRIPT_LIMIT)) < 0 ||
	    (error = store_now(&g.now, c->st)) < 0 || (error = store_active_all(&g.active, &g.nactive, c->st)) < 0)
		goto cleanup;
	if (json) {
		g.json = cJSON_CreateObject();
		json_arr(g.json, "archived");
		json_arr(g.json, "deleted");
		json_arr(g.json, "trimmed");
		json_set_bool(g.json, "dry_run", g.dry_run);
	}
	if (archive_after >= 0 && (error = each_older(&g, SESSIONS_PREFIX, archive_after, archive_one)) < 0)
		goto cleanup;
	if (prune_after >= 0 && (error = each_older(&g, ARCHIVE_PREFIX, prune_after, delete_one)) < 0)
		goto cleanup;
	if ((error = each_older(&g, ARCHIVE_PREFIX, -1, trim_one)) < 0)
		goto cleanup;
	if (archive_after < 0 && prune_after < 0 && !g.trimmed && !g.quiet && !json)
		printf("Nothing to do: neither --archive-after nor session.archiveAfter, nor "
		       "--prune-archived-after nor session.pruneArchivedAfter is set.\n");
	if (g.json) {
		char *text = json_print(g.json, 1, NULL);
		fputs(text, stdout);
		free(text);
	}
cleanup:
	cJSON_Delete(g.json);
	store_ids_free(g.touched, g.ntouched);
	store_ids_free(g.active, g.nactive);
	return cmd_exit(error);
}
