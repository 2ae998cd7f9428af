/*
 * report.c - the facts of status, tokens and diff, from states. Pure.
 */
#include "git-session/report.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void copy_keys(cJSON *out, const cJSON *in, const char *const *keys)
{
	for (; *keys; keys++)
		json_set(out, *keys, json_dup_or_null(in, *keys));
}

const char *report_token_level(double used, double max)
{
	if (max > 0 && used / max > 0.95)
		return "critical";
	if (max > 0 && used / max > 0.80)
		return "warning";
	return "ok";
}

static double seconds_since(const char *iso, time_t now)
{
	time_t t;

	return iso && gs_time_parse_iso(&t, iso) == 0 ? difftime(now, t) : 0;
}

static const char *last_seen(const cJSON *e)
{
	return json_str(e, "seen") ? json_str(e, "seen") : json_str(e, "started");
}

int report_stale_since(const char *status, const char *since, time_t now, int64_t stale_after)
{
	time_t t;

	return stale_after > 0 && status && !strcmp(status, ST_IN_PROGRESS) && since &&
	       gs_time_parse_iso(&t, since) == 0 && difftime(now, t) > (double)stale_after;
}

int report_stale(const cJSON *e, time_t now, int64_t stale_after)
{
	return report_stale_since(json_str(e, "status"), last_seen(e), now, stale_after);
}

/* "seen" and "stale" of an agent or phase, as every report shows them. */
static void liveness(cJSON *out, const cJSON *e, const struct report_ctx *ctx)
{
	json_set_str(out, "seen", e ? last_seen(e) : NULL);
	json_set_bool(out, "stale", e && report_stale(e, ctx->now, ctx->stale_after));
}

static int by_total(const void *a, const void *b)
{
	double x = json_num(*(const cJSON *const *)a, "total", 0);
	double y = json_num(*(const cJSON *const *)b, "total", 0);
	return x < y ? 1 : x > y ? -1 : strcmp((*(const cJSON *const *)a)->child->valuestring,
					      (*(const cJSON *const *)b)->child->valuestring);
}

cJSON *report_tokens(const cJSON *state)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(state, "tokens"), *a;
	double used = state_tokens_used(t), max = json_num(t, "max", 0), saved = json_num(t, "saved", 0);
	cJSON *out = cJSON_CreateObject(), *by = cJSON_CreateArray(), **rows;
	int n = 0, i = 0;

	json_set_str(out, "session_id", json_str(state, "session_id"));
	json_set_num(out, "used", used);
	json_set_num(out, "max", max);
	json_set_num(out, "percent", max > 0 ? round(used / max * 1000) / 10 : 0);
	json_set_str(out, "level", report_token_level(used, max));
	json_set_num(out, "remaining", max - used);
	copy_keys(out, t, (const char *const[]){ "input", "output", "cached", "peak", "saved", NULL });
	json_set_num(out, "savings_percent", used + saved > 0 ? round(saved / (used + saved) * 1000) / 10 : 0);
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(t, "by_agent"))
		n++;
	rows = xcalloc((size_t)n, sizeof(*rows));
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(t, "by_agent")) {
		cJSON *r = cJSON_CreateObject();
		json_set_str(r, "agent", a->string);
		copy_keys(r, a, (const char *const[]){ "input", "output", "cached", NULL });
		json_set_num(r, "total", json_num(a, "input", 0) + json_num(a, "output", 0));
		rows[i++] = r;
	}
	qsort(rows, (size_t)n, sizeof(*rows), by_total);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(by, rows[i]);
	free(rows);
	json_set(out, "by_agent", by);
	return out;
}

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

	copy_keys(out, p, (const char *const[]){ "id", "name", "status", "parallel", "blocked_by",
						 "retry_count", "sub_step", "started", "completed", NULL });
	liveness(out, p, ctx);
	cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(p, "agents")) {
		const cJSON *a = cJSON_IsString(id) ? state_agent(state, id->valuestring) : NULL;
		cJSON *v = cJSON_CreateObject();

		json_set_str(v, "id", cJSON_IsString(id) ? id->valuestring : NULL);
		copy_keys(v, a, (const char *const[]){ "type", "status", "progress", NULL });
		liveness(v, a, ctx);
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
			"or mark it failed", json_str(a, "id"), seconds_since(last_seen(a), ctx->now) / 60);
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

/* The first phase in flight that needs something: a retry, an escalation, completing. */
static int phase_in_flight(char **text, char **cmd, const cJSON *state, const struct report_ctx *ctx)
{
	const cJSON *p, *dead;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		int n = (int)json_num(p, "id", 0), retries = (int)json_num(p, "retry_count", 0);
		int running = 0;
		const char *ps = json_str(p, "status"), *name = json_str(p, "name");

		if (!strcmp(ps, ST_FAILED) && retries < ctx->max_retries) {
			*text = xstrfmt("retry phase %d \"%s\" (retry %d of %d)", n, name, retries + 1,
					ctx->max_retries);
			*cmd = xstrfmt("git session phase retry %d", n);
		} else if (!strcmp(ps, ST_FAILED)) {
			*text = xstrfmt("escalate: phase %d \"%s\" failed after %d retries; fix the cause or skip it",
					n, name, retries);
		} else if (!strcmp(ps, ST_IN_PROGRESS) && (running = agents_running(&dead, state, p, ctx)) < 0) {
			stale_agent(text, cmd, dead, ctx);
		} else if (running) {
			*text = xstrfmt("wait for the agents of phase %d \"%s\"", n, name);
		} else if (!strcmp(ps, ST_IN_PROGRESS)) {
			*text = xstrfmt("complete phase %d \"%s\"", n, name);
			*cmd = xstrfmt("git session phase complete %d", n);
		}
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
			*text = xstrfmt("start phase %d \"%s\"", (int)json_num(p, "id", 0), json_str(p, "name"));
			*cmd = xstrfmt("git session phase start %d", (int)json_num(p, "id", 0));
			return 1;
		}
	return 0;
}

/* With no phases: the agents at work, then the first pending task, then a plan. */
static void without_phases(char **text, char **cmd, const cJSON *state, const struct report_ctx *ctx)
{
	const cJSON *a, *t, *dead = NULL;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		if (!json_str(a, "status") || strcmp(json_str(a, "status"), ST_IN_PROGRESS))
			continue;
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
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(state, "tasks"))
		if (json_str(t, "status") && !strcmp(json_str(t, "status"), ST_PENDING)) {
			*text = xstrfmt("do task #%d \"%s\"", (int)json_num(t, "id", 0),
					json_str(t, "title") ? json_str(t, "title") : "");
			*cmd = xstrfmt("git session task done %d", (int)json_num(t, "id", 0));
			return;
		}
	*text = xstrdup("plan the work in phases");
	*cmd = xstrdup("git session phase add <name>...");
}

/* The agents, each as status and resume show it. */
static cJSON *agents_view(const cJSON *state, const struct report_ctx *ctx)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		cJSON *v = cJSON_CreateObject();

		copy_keys(v, a, (const char *const[]){ "id", "type", "task", "phase", "status", "progress", "started",
						       "completed", "result_summary", NULL });
		liveness(v, a, ctx);
		cJSON_AddItemToArray(out, v);
	}
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
			copy_keys(v, t, (const char *const[]){ "id", "title", "created", NULL });
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

cJSON *report_status(const cJSON *state, const struct report_ctx *ctx)
{
	const cJSON *phases = cJSON_GetObjectItemCaseSensitive(state, "phases");
	const cJSON *errors = cJSON_GetObjectItemCaseSensitive(state, "errors");
	const cJSON *decisions = cJSON_GetObjectItemCaseSensitive(state, "decisions"), *p;
	cJSON *out = cJSON_CreateObject(), *progress = cJSON_CreateObject(), *arr;
	int total = cJSON_GetArraySize(phases), done, skipped, i = 0;

	copy_keys(out, state, (const char *const[]){ "session_id", "status", NULL });
	json_set_bool(out, "active", ctx->active);
	copy_keys(out, state, (const char *const[]){ "topic", "goal", "mode", NULL });
	json_set_str(out, "checkpoint", ctx->checkpoint);
	copy_keys(out, state, (const char *const[]){ "created", "updated", NULL });
	json_set_num(out, "elapsed_seconds", seconds_since(json_str(state, "created"), ctx->now));
	json_set_num(out, "idle_seconds", seconds_since(json_str(state, "updated"), ctx->now));
	json_set(out, "project", json_dup_or_null(state, "project"));
	done = count_status(phases, ST_COMPLETED);
	skipped = count_status(phases, ST_SKIPPED);
	json_set_num(progress, "phases", total);
	json_set_num(progress, "completed", done);
	json_set_num(progress, "in_progress", count_status(phases, ST_IN_PROGRESS));
	json_set_num(progress, "failed", count_status(phases, ST_FAILED));
	json_set_num(progress, "skipped", skipped);
	json_set_num(progress, "pending", count_status(phases, ST_PENDING));
	json_set_num(progress, "percent", total ? (done + skipped) * 100 / total : 0);
	json_set(out, "progress", progress);
	json_set(out, "current_phase", json_dup_or_null(state, "current_phase"));
	arr = json_set(out, "phases", cJSON_CreateArray());
	cJSON_ArrayForEach(p, phases)
		cJSON_AddItemToArray(arr, phase_view(state, p, ctx));
	arr = json_set(out, "unresolved_errors", cJSON_CreateArray());
	cJSON_ArrayForEach(p, errors) {
		i++;
		if (!json_bool(p, "resolved", 0)) {
			cJSON *e = cJSON_CreateObject();
			json_set_num(e, "number", i);
			copy_keys(e, p, (const char *const[]){ "type", "message", "agent", "phase", "timestamp",
							       "resolution", NULL });
			cJSON_AddItemToArray(arr, e);
		}
	}
	json_set_num(out, "errors_total", i);
	json_set(out, "agents", agents_view(state, ctx));
	json_set(out, "pending_tasks", pending_tasks(state));
	json_set(out, "tokens", report_tokens(state));
	json_set(out, "recent_decisions", last_entries(decisions, 3));
	json_set(out, "recent_notes", last_entries(cJSON_GetObjectItemCaseSensitive(state, "notes"), 3));
	json_set(out, "counts", counts(state, ctx));
	json_set(out, "context_summary", json_dup_or_null(state, "context_summary"));
	suggest(out, state, ctx);
	return out;
}

static const char *str_or(const cJSON *o, const char *key, const char *def)
{
	const char *s = json_str(o, key);
	return s ? s : def;
}

/* A move of something keyed by id: {"<key>": id, ..., "from": a, "to": b}. */
static cJSON *move(const char *const *keys, const cJSON *item, const char *from, const char *to)
{
	cJSON *m = cJSON_CreateObject();

	copy_keys(m, item, keys);
	json_set_str(m, "from", from);
	json_set_str(m, "to", to);
	return m;
}

static void diff_phases(cJSON *out, const cJSON *a, const cJSON *b)
{
	cJSON *arr = json_set(out, "phases", cJSON_CreateArray());
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(b, "phases")) {
		const cJSON *old = state_phase(a, (int)json_num(p, "id", 0));
		const char *from = old ? str_or(old, "status", "") : NULL, *to = str_or(p, "status", "");

		if (!from || strcmp(from, to) || json_num(old, "retry_count", 0) != json_num(p, "retry_count", 0)) {
			cJSON *m = move((const char *const[]){ "id", "name", NULL }, p, from, to);
			json_set(m, "retry_count", json_dup_or_null(p, "retry_count"));
			cJSON_AddItemToArray(arr, m);
		}
	}
}

static void diff_agents(cJSON *out, const cJSON *a, const cJSON *b)
{
	cJSON *arr = json_set(out, "agents", cJSON_CreateArray());
	const cJSON *ag;

	cJSON_ArrayForEach(ag, cJSON_GetObjectItemCaseSensitive(b, "agents")) {
		const cJSON *old = state_agent(a, str_or(ag, "id", ""));
		const char *from = old ? str_or(old, "status", "") : NULL, *to = str_or(ag, "status", "");

		if (!from || strcmp(from, to) || json_num(old, "progress", 0) != json_num(ag, "progress", 0)) {
			cJSON *m = move((const char *const[]){ "id", "type", "phase", NULL }, ag, from, to);
			json_set(m, "progress", json_dup_or_null(ag, "progress"));
			json_set(m, "result_summary", json_dup_or_null(ag, "result_summary"));
			cJSON_AddItemToArray(arr, m);
		}
	}
}

static void diff_files(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *fa = cJSON_GetObjectItemCaseSensitive(a, "files"), *f;
	cJSON *arr = json_set(out, "files", cJSON_CreateArray());

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(b, "files")) {
		const cJSON *old = cJSON_GetObjectItemCaseSensitive(fa, f->string);
		const char *from = old ? str_or(old, "status", "") : NULL, *to = str_or(f, "status", "");

		if (!from || strcmp(from, to) || strcmp(str_or(old, "oid", ""), str_or(f, "oid", ""))) {
			cJSON *m = cJSON_CreateObject();
			json_set_str(m, "path", f->string);
			json_set_str(m, "from", from);
			json_set_str(m, "to", to);
			json_set(m, "oid", json_dup_or_null(f, "oid"));
			json_set(m, "agent", json_dup_or_null(f, "agent"));
			cJSON_AddItemToArray(arr, m);
		}
	}
}

static void diff_errors(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *ea = cJSON_GetObjectItemCaseSensitive(a, "errors"), *e;
	cJSON *errs = json_set(out, "errors", cJSON_CreateObject());
	cJSON *opened = json_set(errs, "opened", cJSON_CreateArray());
	cJSON *resolved = json_set(errs, "resolved", cJSON_CreateArray());
	int i = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, "errors")) {
		const cJSON *old = cJSON_GetArrayItem(ea, i++);
		cJSON *m;

		if (!old) {
			cJSON_AddItemToArray(opened, m = cJSON_CreateObject());
			json_set_num(m, "number", i);
			copy_keys(m, e, (const char *const[]){ "type", "message", "agent", "phase", NULL });
		}
		if (json_bool(e, "resolved", 0) && !json_bool(old, "resolved", 0)) {
			cJSON_AddItemToArray(resolved, m = cJSON_CreateObject());
			json_set_num(m, "number", i);
			json_set(m, "resolution", json_dup_or_null(e, "resolution"));
		}
	}
}

/* Entries appended to a list since the older state. */
static cJSON *appended(const cJSON *a, const cJSON *b, const char *key)
{
	int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, key)), i = 0;
	cJSON *arr = cJSON_CreateArray();
	const cJSON *v;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(b, key))
		if (i++ >= n)
			cJSON_AddItemToArray(arr, cJSON_Duplicate(v, 1));
	return arr;
}

static void diff_tokens(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(a, "tokens");
	const cJSON *tb = cJSON_GetObjectItemCaseSensitive(b, "tokens");
	cJSON *t = json_set(out, "tokens", cJSON_CreateObject());

	for (const char *const *k = (const char *const[]){ "input", "output", "cached", "saved", NULL }; *k; k++)
		json_set_num(t, *k, json_num(tb, *k, 0) - json_num(ta, *k, 0));
	json_set_num(t, "used", state_tokens_used(tb) - state_tokens_used(ta));
}

static void diff_tasks(cJSON *out, const cJSON *a, const cJSON *b)
{
	const cJSON *ta = cJSON_GetObjectItemCaseSensitive(a, "tasks"), *t;
	cJSON *arr = json_set(out, "tasks", cJSON_CreateArray());
	int i = 0;

	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(b, "tasks")) {
		const cJSON *old = cJSON_GetArrayItem(ta, i++);
		const char *from = old ? str_or(old, "status", "") : NULL;

		if (!from || strcmp(from, str_or(t, "status", "")))
			cJSON_AddItemToArray(arr, move((const char *const[]){ "id", "title", NULL }, t, from,
						       str_or(t, "status", "")));
	}
}

cJSON *report_diff(const cJSON *from, const cJSON *to, const char *from_commit, const char *to_commit)
{
	cJSON *out = cJSON_CreateObject();
	const char *sa = str_or(from, "status", ""), *sb = str_or(to, "status", "");

	json_set_str(out, "from", from_commit);
	json_set_str(out, "to", to_commit);
	if (strcmp(sa, sb)) {
		cJSON *s = json_set(out, "status", cJSON_CreateObject());
		json_set_str(s, "from", sa);
		json_set_str(s, "to", sb);
	} else {
		json_set_str(out, "status", NULL);
	}
	diff_phases(out, from, to);
	diff_agents(out, from, to);
	diff_files(out, from, to);
	diff_errors(out, from, to);
	diff_tokens(out, from, to);
	json_set(out, "decisions", appended(from, to, "decisions"));
	json_set(out, "notes", appended(from, to, "notes"));
	diff_tasks(out, from, to);
	json_set(out, "milestones", appended(from, to, "milestones"));
	json_set(out, "artifacts", appended(from, to, "artifacts"));
	return out;
}

/* The entry's phase or agent was still at work when it was recorded. */
static int in_flight(const cJSON *state, const cJSON *rec)
{
	const cJSON *p = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "phase")) ?
		state_phase(state, (int)json_num(rec, "phase", 0)) : NULL;
	const cJSON *a = json_str(rec, "agent") ? state_agent(state, json_str(rec, "agent")) : NULL;

	return (p && !strcmp(str_or(p, "status", ""), ST_IN_PROGRESS)) ||
	       (a && !strcmp(str_or(a, "status", ""), ST_IN_PROGRESS));
}

const char *report_file_kind(const cJSON *state, const cJSON *rec, const cJSON *fact)
{
	const char *fs = str_or(fact, "fs", "missing"), *oid = json_str(rec, "oid");

	if (!strcmp(fs, "sparse"))
		return "clean";	/* outside a sparse checkout: git keeps it, not the working tree */
	if (!strcmp(str_or(rec, "status", ""), ST_DELETED))
		return strcmp(fs, "missing") ? "recreated" : "clean";
	if (!strcmp(fs, "missing") || !strcmp(fs, "dir"))
		return "deleted";
	if (!strcmp(fs, "unreadable"))
		return "unreadable";
	if (!json_bool(fact, "same_stat", 0) && strcmp(str_or(fact, "oid", ""), oid ? oid : ""))
		return "modified";
	if (in_flight(state, rec))
		return "partial";
	if (oid && !strcmp(str_or(fact, "head_oid", ""), oid))
		return "committed";
	return "clean";
}

static int is_conflict(const char *kind)
{
	return strcmp(kind, "clean") && strcmp(kind, "committed");
}

static void resume_files(cJSON *out, const cJSON *state, const cJSON *scan)
{
	static const char *const kinds[] = { "clean", "committed", "modified", "deleted", "recreated",
					     "partial", "unreadable" };
	cJSON *files = json_set(out, "files", cJSON_CreateArray());
	cJSON *conflicts = json_set(out, "conflicts", cJSON_CreateArray());
	cJSON *summary = cJSON_CreateObject();
	const cJSON *rec, *fact = NULL;
	int n = 0, hashed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		json_set_num(summary, kinds[i], 0);
	cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(state, "files")) {
		/* the scan follows the manifest's order: walk both together */
		fact = fact ? fact->next : (scan ? scan->child : NULL);
		if (!fact || strcmp(fact->string, rec->string))
			fact = cJSON_GetObjectItemCaseSensitive(scan, rec->string);
		const char *kind = report_file_kind(state, rec, fact);
		cJSON *f = cJSON_CreateObject();

		json_set_str(f, "path", rec->string);
		json_set_str(f, "kind", kind);
		json_set(f, "recorded_status", json_dup_or_null(rec, "status"));
		json_set(f, "recorded_oid", json_dup_or_null(rec, "oid"));
		json_set(f, "current_oid", json_bool(fact, "same_stat", 0) ? json_dup_or_null(rec, "oid") : json_dup_or_null(fact, "oid"));
		json_set(f, "head_oid", json_dup_or_null(fact, "head_oid"));
		json_set(f, "phase", json_dup_or_null(rec, "phase"));
		json_set(f, "agent", json_dup_or_null(rec, "agent"));
		json_set_str(f, "detail", !strcmp(str_or(fact, "fs", ""), "dir") ? "now a directory" :
			     !strcmp(str_or(fact, "fs", ""), "sparse") ? "outside the sparse checkout" :
			     json_str(fact, "error"));
		if (is_conflict(kind))
			cJSON_AddItemToArray(conflicts, cJSON_Duplicate(f, 1));
		cJSON_AddItemToArray(files, f);
		json_set_num(summary, kind, json_num(summary, kind, 0) + 1);
		n++;
		hashed += json_str(fact, "oid") != NULL;
	}
	json_set_num(summary, "files", n);
	json_set_num(summary, "hashed", hashed);
	json_set(out, "manifest", summary);
}

static void resume_project(cJSON *out, const cJSON *project)
{
	const cJSON *pb = cJSON_GetObjectItemCaseSensitive(project, "branch");
	const cJSON *ph = cJSON_GetObjectItemCaseSensitive(project, "head");
	cJSON *b = json_set(out, "branch", cJSON_CreateObject());
	cJSON *h = json_set(out, "head", cJSON_CreateObject());
	const char *rec = json_str(ph, "recorded");
	int unborn_then = !rec || strspn(rec, "0") == strlen(rec);	/* no commit to descend from */

	copy_keys(b, pb, (const char *const[]){ "recorded", "current", NULL });
	json_set_bool(b, "changed", strcmp(str_or(pb, "recorded", ""), str_or(pb, "current", "")) != 0);
	json_set_bool(b, "recorded_exists", json_bool(pb, "recorded_exists", 0));
	copy_keys(h, ph, (const char *const[]){ "recorded", "current", "new_commits", "commits", NULL });
	json_set_bool(h, "moved", strcmp(str_or(ph, "recorded", ""), str_or(ph, "current", "")) != 0);
	json_set_bool(h, "rewritten", !unborn_then && !json_bool(ph, "descends", 0));
}

static void resume_plans(cJSON *out, const cJSON *state, const cJSON *plans_now)
{
	cJSON *arr = json_set(out, "plans", cJSON_CreateArray());
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "plans")) {
		const char *path = str_or(p, "path", ""), *now = json_str(plans_now, path);
		cJSON *o = cJSON_CreateObject();

		json_set_str(o, "path", path);
		json_set(o, "recorded_oid", json_dup_or_null(p, "oid"));
		json_set_str(o, "current_oid", now);
		json_set_bool(o, "changed", strcmp(now ? now : "", str_or(p, "oid", "")) != 0);
		cJSON_AddItemToArray(arr, o);
	}
}

/* Phases by where they stand: done, in progress, pending. */
static void resume_work(cJSON *out, const cJSON *state, const struct report_ctx *ctx)
{
	cJSON *done = json_set(out, "done", cJSON_CreateArray());
	cJSON *doing = json_set(out, "in_progress", cJSON_CreateArray());
	cJSON *pending = json_set(out, "pending", cJSON_CreateArray());
	const cJSON *p, *a;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		const char *st = str_or(p, "status", "");
		cJSON *o = cJSON_CreateObject(), *agents;

		copy_keys(o, p, (const char *const[]){ "id", "name", "status", NULL });
		if (!strcmp(st, ST_COMPLETED) || !strcmp(st, ST_SKIPPED)) {
			json_set(o, "downstream_context", json_dup_or_null(p, "downstream_context"));
			cJSON_AddItemToArray(done, o);
		} else if (!strcmp(st, ST_PENDING)) {
			json_set(o, "blocked_by", json_dup_or_null(p, "blocked_by"));
			cJSON_AddItemToArray(pending, o);
		} else {
			json_set(o, "sub_step", json_dup_or_null(p, "sub_step"));
			json_set(o, "retry_count", json_dup_or_null(p, "retry_count"));
			liveness(o, p, ctx);
			agents = json_set(o, "agents", cJSON_CreateArray());
			cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents"))
				if ((int)json_num(a, "phase", -1) == (int)json_num(p, "id", 0) &&
				    !strcmp(str_or(a, "status", ""), ST_IN_PROGRESS)) {
					cJSON *v = cJSON_Duplicate(a, 1);

					liveness(v, a, ctx);
					cJSON_AddItemToArray(agents, v);
				}
			cJSON_AddItemToArray(doing, o);
		}
	}
}

cJSON *report_resume(const cJSON *state, const cJSON *scan, const cJSON *project,
		     const cJSON *plans_now, const struct report_ctx *ctx)
{
	cJSON *out = report_status(state, ctx), *next = cJSON_DetachItemFromObjectCaseSensitive(out, "next");

	resume_work(out, state, ctx);
	resume_files(out, state, scan);
	resume_project(out, project);
	resume_plans(out, state, plans_now);
	json_set(out, "next", next);	/* last, as in status */
	return out;
}
