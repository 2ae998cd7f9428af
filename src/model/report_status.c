/*
 * report_status.c - the facts `status` shows: where the session stands,
 * its phases and agents, what is unresolved, and the next thing to do.
 * Pure.
 */
#include "report-internal.h"
#include "git-session/agent.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static int count_status(const cJSON *arr, const char *status)
{
	const cJSON *p;
	int n = 0;

	cJSON_ArrayForEach(p, arr)
		n += json_str(p, "status") && !strcmp(json_str(p, "status"), status);
	return n;
}

static cJSON *phase_view(const cJSON *state, const cJSON *p, const struct report_ctx *ctx)
{
	cJSON *out = cJSON_CreateObject(), *agents = cJSON_CreateArray();
	const cJSON *id;

	report_copy_keys(out, p, (const char *const[]){ "id", "name", "status", "parallel", "blocked_by",
							"retry_count", "sub_step", "started", "completed", NULL });
	if (json_str(p, "key"))		/* a step's own name in its format ("3.5"), shown for the number */
		json_set(out, "key", json_dup_or_null(p, "key"));
	report_liveness(out, p, ctx);
	cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(p, "agents")) {
		const cJSON *a = cJSON_IsString(id) ? state_agent(state, id->valuestring) : NULL;
		cJSON *v = cJSON_CreateObject();

		json_set_str(v, "id", cJSON_IsString(id) ? id->valuestring : NULL);
		report_copy_keys(v, a, (const char *const[]){ "type", "status", "progress", NULL });
		report_liveness(v, a, ctx);
		cJSON_AddItemToArray(agents, v);
	}
	json_set(out, "agents", agents);
	return out;
}

static void next_action(cJSON *out, const char *text, const char *command)
{
	cJSON *n = cJSON_CreateObject();

	json_set_str(n, "text", text);
	json_set_str(n, "command", command);
	json_set(out, "next", n);
}

/* The phase's agents at work: 1 when one shows life, -1 when all of them are stale (*dead the first). */
static int agents_running(const cJSON **dead, const cJSON *state, const cJSON *phase, const struct report_ctx *ctx)
{
	const cJSON *id;
	int running = 0;

	*dead = NULL;
	cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(phase, "agents")) {
		const cJSON *a = cJSON_IsString(id) ? state_agent(state, id->valuestring) : NULL;
		if (!a || !json_str(a, "status") || strcmp(json_str(a, "status"), ST_IN_PROGRESS))
			continue;
		if (!report_stale(a, ctx->now, ctx->stale_after))
			return 1;
		running = -1;
		*dead = *dead ? *dead : a;
	}
	return running;
}

/* What to do about an agent that may have died. */
static void stale_agent(char **text, char **cmd, const cJSON *a, const struct report_ctx *ctx)
{
	*text = xstrfmt("agent %s has had no operation for %.0f minutes: check whether it still runs, "
			"or mark it failed", json_str(a, "id"), report_seconds_since(report_last_seen(a), ctx->now) / 60);
	*cmd = xstrfmt("git session agent fail %s --error \"stale\"", json_str(a, "id"));
}

static int blocked(const cJSON *state, const cJSON *p)
{
	const cJSON *b;

	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(p, "blocked_by")) {
		const cJSON *dep = cJSON_IsNumber(b) ? state_phase(state, (int)b->valuedouble) : NULL;
		if (dep && strcmp(json_str(dep, "status"), ST_COMPLETED) && strcmp(json_str(dep, "status"), ST_SKIPPED))
			return 1;
	}
	return 0;
}

/* "phase 5 \"Name\"", or "phase 5" for a phase the source left unnamed. */
static char *phase_ref(const cJSON *p)
{
	const char *name = json_str(p, "name");

	return name && *name ? xstrfmt("phase %d \"%s\"", (int)json_num(p, "id", 0), name)
			     : xstrfmt("phase %d", (int)json_num(p, "id", 0));
}

/* The first phase in flight that needs something: a retry, an escalation, completing. */
static int phase_in_flight(char **text, char **cmd, const cJSON *state, const struct report_ctx *ctx)
{
	const cJSON *p, *dead;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		int n = (int)json_num(p, "id", 0), retries = (int)json_num(p, "retry_count", 0);
		int running = 0;
		const char *ps = json_str(p, "status");
		char *ref = phase_ref(p);

		if (!strcmp(ps, ST_FAILED) && retries < ctx->max_retries) {
			*text = xstrfmt("retry %s (retry %d of %d)", ref, retries + 1,
					ctx->max_retries);
			*cmd = xstrfmt("git session phase retry %d", n);
		} else if (!strcmp(ps, ST_FAILED)) {
			*text = xstrfmt("escalate: %s failed after %d retries; fix the cause or skip it",
					ref, retries);
		} else if (!strcmp(ps, ST_IN_PROGRESS) && (running = agents_running(&dead, state, p, ctx)) < 0) {
			stale_agent(text, cmd, dead, ctx);
		} else if (running) {
			*text = xstrfmt("wait for the agents of %s", ref);
		} else if (!strcmp(ps, ST_IN_PROGRESS)) {
			*text = xstrfmt("complete %s", ref);
			*cmd = xstrfmt("git session phase complete %d", n);
		}
		free(ref);
		if (*text)
			return 1;
	}
	return 0;
}

/* The first pending phase nothing blocks. */
static int phase_to_start(char **text, char **cmd, const cJSON *state)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases"))
		if (!strcmp(json_str(p, "status"), ST_PENDING) && !blocked(state, p)) {
			char *ref = phase_ref(p);

			*text = xstrfmt("start %s", ref);
			free(ref);
			*cmd = xstrfmt("git session phase start %d", (int)json_num(p, "id", 0));
			return 1;
		}
	return 0;
}

/* Whether s, from a session a remote may have written, can be a word of a suggested shell command as it is. */
static int plain_word(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= 128 && *s != '-' &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

/* The shell command that resumes the agent's own session: when its CLI says how, and the id is plain. */
static char *resume_command(const cJSON *a)
{
	const char *cli = report_agent_cli(a), *sid = json_str(a, "session");
	const struct agent_dialect *d = cli ? agent_dialect(cli) : NULL;

	if (!d || !d->resume || !plain_word(sid))
		return NULL;
	return xstrfmt("%s %s", d->resume, sid);
}

/* Of the agents their CLI's hooks attached, not sub-agents, the one seen last. */
static const cJSON *hooked_agent(const cJSON *state)
{
	const cJSON *a, *best = NULL;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents"))
		if (report_agent_cli(a) && !json_str(a, "parent") &&
		    (!best || strcmp(report_str_or(a, "seen", report_str_or(a, "started", "")),
				     report_str_or(best, "seen", report_str_or(best, "started", ""))) >= 0))
			best = a;
	return best;
}

/*
 * An agent session: go on in the agent, whose hooks record what it does;
 * one whose conversation is not on this machine (a teammate's) is
 * carried here first.
 */
static void with_hooked_agent(char **text, char **cmd, const cJSON *a, const struct report_ctx *ctx)
{
	const char *id = json_str(a, "id") ? json_str(a, "id") : "";

	for (const char *const *e = ctx->elsewhere; e && *e; e++)
		if (!strcmp(*e, id)) {
			if (plain_word(id) && plain_word(report_agent_cli(a)))
				*cmd = xstrfmt("git session resume --agent %s:%s", report_agent_cli(a), id);
			*text = xstrfmt("carry the conversation of agent %s to this machine, then resume it", id);
			return;
		}
	if (!strcmp(report_str_or(a, "status", ""), ST_IN_PROGRESS) && !report_stale(a, ctx->now, ctx->stale_after)) {
		*text = xstrfmt("continue with your agent %s: its hooks record the next prompt", id);
		return;
	}
	*cmd = resume_command(a);
	*text = xstrfmt("resume the agent %s%s: its hooks record the next prompt", id,
			*cmd ? "" : " in its CLI");
}

/*
 * With no phases: the agents at work, then the agent a CLI runs, then the
 * first pending task, then closing once agents are done, then a plan.
 */
static void without_phases(char **text, char **cmd, const cJSON *state, const struct report_ctx *ctx)
{
	const cJSON *a, *t, *dead = NULL, *agents = cJSON_GetObjectItemCaseSensitive(state, "agents");

	cJSON_ArrayForEach(a, agents) {
		if (!json_str(a, "status") || strcmp(json_str(a, "status"), ST_IN_PROGRESS) || report_agent_cli(a))
			continue;	/* one a CLI runs is not waited for: the user works in it */
		if (report_stale(a, ctx->now, ctx->stale_after)) {
			dead = dead ? dead : a;
			continue;
		}
		*text = xstrfmt("wait for agent %s (%d%%): %s", json_str(a, "id"), (int)json_num(a, "progress", 0),
				json_str(a, "task") ? json_str(a, "task") : "");
		return;
	}
	if (dead) {
		stale_agent(text, cmd, dead, ctx);
		return;
	}
	if ((a = hooked_agent(state))) {
		with_hooked_agent(text, cmd, a, ctx);
		return;
	}
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(state, "tasks"))
		if (json_str(t, "status") && !strcmp(json_str(t, "status"), ST_PENDING)) {
			*text = xstrfmt("do task #%d \"%s\"", (int)json_num(t, "id", 0),
					json_str(t, "title") ? json_str(t, "title") : "");
			*cmd = xstrfmt("git session task done %d", (int)json_num(t, "id", 0));
			return;
		}
	if (cJSON_GetArraySize(agents)) {
		*text = xstrdup("the agents are done: close the session, or start an agent on what comes next");
		*cmd = xstrdup("git session close");
		return;
	}
	*text = xstrdup("plan the work in phases");
	*cmd = xstrdup("git session phase add <name>...");
}

/* A command an agent ran failed: its status not 0, or the agent said so. */
static int command_failed(const cJSON *e)
{
	const cJSON *exit = cJSON_GetObjectItemCaseSensitive(e, "exit");

	return json_bool(e, "failed", 0) || (cJSON_IsNumber(exit) && exit->valuedouble != 0);
}

/* The agent's shell commands: how many ran and failed, the newest, the newest that failed. */
static cJSON *commands_view(const cJSON *a)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "commands"), *e, *last = NULL, *failed = NULL;
	cJSON *out;

	if (!cJSON_IsObject(c))
		return cJSON_CreateNull();
	out = cJSON_CreateObject();
	json_set_num(out, "run", json_num(c, "run", 0));
	json_set_num(out, "failed", json_num(c, "failed", 0));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(c, "last")) {
		if (!json_str(e, "command"))
			continue;
		last = e;	/* kept oldest first */
		failed = command_failed(e) ? e : failed;
	}
	json_set(out, "last", last ? cJSON_Duplicate(last, 1) : cJSON_CreateNull());
	json_set(out, "last_failed", failed ? cJSON_Duplicate(failed, 1) : cJSON_CreateNull());
	return out;
}

/* An agent's files: how many, and the first few paths. */
struct agent_files {
	const char *id;
	cJSON *paths;
	int n;
};

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct agent_files *)a)->id, ((const struct agent_files *)b)->id);
}

#define REPORT_PATHS 3

/* Each agent's files, from the records that name it: one pass over the manifest. */
static void agents_files(cJSON *views, const cJSON *state)
{
	int n = cJSON_GetArraySize(views), i = 0;
	struct agent_files *f = xcalloc((size_t)n + 1, sizeof(*f)), key = { 0 }, *hit;
	const cJSON *rec;
	cJSON *v;

	cJSON_ArrayForEach(v, views)
		if (json_str(v, "id"))
			f[i++] = (struct agent_files){ json_str(v, "id"), cJSON_CreateArray(), 0 };
	qsort(f, (size_t)i, sizeof(*f), by_id);
	cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(state, "files")) {
		if (!(key.id = json_str(rec, "agent")) ||
		    !(hit = bsearch(&key, f, (size_t)i, sizeof(*f), by_id)))
			continue;
		if (hit->n++ < REPORT_PATHS)
			cJSON_AddItemToArray(hit->paths, cJSON_CreateString(rec->string));
	}
	cJSON_ArrayForEach(v, views) {
		cJSON *o = cJSON_CreateObject();

		key.id = json_str(v, "id");
		hit = key.id ? bsearch(&key, f, (size_t)i, sizeof(*f), by_id) : NULL;
		json_set_num(o, "count", hit ? hit->n : 0);
		json_set(o, "paths", hit ? cJSON_Duplicate(hit->paths, 1) : cJSON_CreateArray());
		json_set(v, "files", o);
	}
	while (i--)
		cJSON_Delete(f[i].paths);
	free(f);
}

/* The agents, each as status and resume show it: what it is, who ran it, what it did. */
static cJSON *agents_view(const cJSON *state, const struct report_ctx *ctx)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		cJSON *v = cJSON_CreateObject();
		char *resume = resume_command(a);

		report_copy_keys(v, a, (const char *const[]){ "id", "type", "task", "phase", "status", "progress",
							      "started", "completed", "result_summary", NULL });
		report_liveness(v, a, ctx);
		report_copy_keys(v, a, (const char *const[]){ "by", "parent", "session", NULL });
		json_set_str(v, "cli", report_agent_cli(a));
		json_set_num(v, "prompts", json_num(a, "prompts", 0));
		report_copy_keys(v, a, (const char *const[]){ "last_prompt", "last_reply", "tokens", NULL });
		json_set(v, "commands", commands_view(a));
		json_set_str(v, "resume", resume);
		free(resume);
		cJSON_AddItemToArray(out, v);
	}
	agents_files(out, state);
	return out;
}

/* The files the session recorded: how many, and the first few paths. */
static cJSON *files_view(const cJSON *state, const struct report_ctx *ctx)
{
	cJSON *out = cJSON_CreateObject(), *paths = cJSON_CreateArray();
	const cJSON *rec;
	int n = 0;

	cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(state, "files"))
		if (n++ < REPORT_PATHS)
			cJSON_AddItemToArray(paths, cJSON_CreateString(rec->string));
	json_set_num(out, "count", n + ctx->before[SPLIT_FILES]);
	json_set(out, "paths", paths);
	return out;
}

/* The tasks not done yet. */
static cJSON *pending_tasks(const cJSON *state)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *t;

	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(state, "tasks"))
		if (json_str(t, "status") && !strcmp(json_str(t, "status"), ST_PENDING)) {
			cJSON *v = cJSON_CreateObject();
			report_copy_keys(v, t, (const char *const[]){ "id", "title", "created", NULL });
			cJSON_AddItemToArray(out, v);
		}
	return out;
}

/* What to do next, in words and as the command that does it. */
static void suggest(cJSON *out, const cJSON *state, const struct report_ctx *ctx)
{
	const char *st = json_str(state, "status"), *id = json_str(state, "session_id");
	char *text = NULL, *cmd = NULL;

	if (!strcmp(st, ST_PAUSED)) {
		text = xstrdup("resume the session");
		cmd = xstrfmt("git session resume %s", id);
	} else if (strcmp(st, ST_IN_PROGRESS)) {
		text = xstrfmt("nothing: the session is %s", st);
	} else if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(state, "phases"))) {
		without_phases(&text, &cmd, state, ctx);
	} else if (!phase_in_flight(&text, &cmd, state, ctx) && !phase_to_start(&text, &cmd, state)) {
		text = xstrdup("every phase is done: close the session");
		cmd = xstrdup("git session close");
	}
	next_action(out, text, cmd);
	free(text);
	free(cmd);
}

/* Copies of the last n entries of list: the end of a tail is the end of the list. */
static cJSON *last_entries(const cJSON *list, int n)
{
	cJSON *arr = cJSON_CreateArray();
	const cJSON *e = list ? list->child : NULL;

	for (int skip = cJSON_GetArraySize(list) - n; e && skip > 0; skip--)
		e = e->next;
	for (; e; e = e->next)
		cJSON_AddItemToArray(arr, cJSON_Duplicate(e, 1));
	return arr;
}

/* How many entries each list holds, those not loaded included. */
static cJSON *counts(const cJSON *state, const struct report_ctx *ctx)
{
	cJSON *out = cJSON_CreateObject();

	for (unsigned i = 0; i < SPLIT_COUNT; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(state, state_split_keys[i]);

		json_set_num(out, state_split_keys[i], cJSON_GetArraySize(v) + ctx->before[i]);
	}
	return out;
}

/* How far the phases are: how many of each status, and the percent done or skipped. */
static cJSON *progress(const cJSON *phases)
{
	cJSON *out = cJSON_CreateObject();
	int total = cJSON_GetArraySize(phases), done = count_status(phases, ST_COMPLETED);
	int skipped = count_status(phases, ST_SKIPPED);

	json_set_num(out, "phases", total);
	json_set_num(out, "completed", done);
	json_set_num(out, "in_progress", count_status(phases, ST_IN_PROGRESS));
	json_set_num(out, "failed", count_status(phases, ST_FAILED));
	json_set_num(out, "skipped", skipped);
	json_set_num(out, "pending", count_status(phases, ST_PENDING));
	json_set_num(out, "percent", total ? (done + skipped) * 100 / total : 0);
	return out;
}

/* The errors not resolved, each with its number; and how many errors there are in all. */
static void unresolved_errors(cJSON *out, const cJSON *errors)
{
	cJSON *arr = json_set(out, "unresolved_errors", cJSON_CreateArray());
	const cJSON *p;
	int i = 0;

	cJSON_ArrayForEach(p, errors) {
		i++;
		if (!json_bool(p, "resolved", 0)) {
			cJSON *e = cJSON_CreateObject();
			json_set_num(e, "number", i);
			report_copy_keys(e, p, (const char *const[]){ "type", "message", "agent", "phase",
								      "timestamp", "resolution", NULL });
			cJSON_AddItemToArray(arr, e);
		}
	}
	json_set_num(out, "errors_total", i);
}

/* A time of the session; one imported from a file that gave none: when the import is dated. */
static void dated(cJSON *out, const cJSON *state, const char *key)
{
	const char *t = json_str(state, key);

	json_set_str(out, key, t ? t : json_str(state_extra_get(state, "import"), "at"));
}

cJSON *report_status(const cJSON *state, const struct report_ctx *ctx)
{
	const cJSON *phases = cJSON_GetObjectItemCaseSensitive(state, "phases"), *p;
	cJSON *out = cJSON_CreateObject(), *arr;

	report_copy_keys(out, state, (const char *const[]){ "session_id", "status", NULL });
	json_set_bool(out, "active", ctx->active);
	report_copy_keys(out, state, (const char *const[]){ "topic", "goal", "mode", NULL });
	json_set_str(out, "checkpoint", ctx->checkpoint);
	dated(out, state, "created");
	dated(out, state, "updated");
	json_set_num(out, "elapsed_seconds", report_seconds_since(json_str(out, "created"), ctx->now));
	json_set_num(out, "idle_seconds", report_seconds_since(json_str(out, "updated"), ctx->now));
	cJSON_DeleteItemFromObjectCaseSensitive(json_set(out, "project", json_dup_or_null(state, "project")),
						"path");	/* an older session's: one clone's, not a teammate's to see */
	json_set(out, "progress", progress(phases));
	json_set(out, "current_phase", json_dup_or_null(state, "current_phase"));
	arr = json_set(out, "phases", cJSON_CreateArray());
	cJSON_ArrayForEach(p, phases)
		cJSON_AddItemToArray(arr, phase_view(state, p, ctx));
	unresolved_errors(out, cJSON_GetObjectItemCaseSensitive(state, "errors"));
	json_set(out, "agents", agents_view(state, ctx));
	json_set(out, "files_touched", files_view(state, ctx));
	json_set(out, "recent_commits", last_entries(cJSON_GetObjectItemCaseSensitive(state, "commits"), 3));
	if (ctx->remote)
		json_set(out, "remote", cJSON_Duplicate(ctx->remote, 1));
	json_set(out, "pending_tasks", pending_tasks(state));
	json_set(out, "tokens", report_tokens(state));
	json_set(out, "recent_decisions", last_entries(cJSON_GetObjectItemCaseSensitive(state, "decisions"), 3));
	json_set(out, "recent_notes", last_entries(cJSON_GetObjectItemCaseSensitive(state, "notes"), 3));
	json_set(out, "counts", counts(state, ctx));
	json_set(out, "context_summary", json_dup_or_null(state, "context_summary"));
	suggest(out, state, ctx);
	return out;
}
