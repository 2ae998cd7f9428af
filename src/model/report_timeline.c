/*
 * report_timeline.c - the facts `timeline` draws: the session's span, a
 * row per phase followed by the rows of its agents, failures and retries
 * on the row they belong to, and the commits. Pure.
 */
#include "git-session/report.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/* The later of two ISO times (either may be NULL). */
static const char *later(const char *a, const char *b)
{
	time_t ta, tb;

	if (!a || gs_time_parse_iso(&ta, a) < 0)
		return b;
	if (!b || gs_time_parse_iso(&tb, b) < 0)
		return a;
	return tb > ta ? b : a;
}

static cJSON *row(const char *kind, const cJSON *item, const char *status, const char *from,
		  const char *to)
{
	cJSON *r = cJSON_CreateObject();

	json_set_str(r, "kind", kind);
	json_set(r, "id", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(item, "id"), 1));
	json_set_str(r, "status", status);
	json_set_str(r, "from", from);
	json_set_str(r, "to", to);
	return r;
}

static void add_mark(cJSON *marks, const cJSON *e)
{
	const char *res = json_str(e, "resolution");
	cJSON *m = cJSON_CreateObject();

	json_set_str(m, "at", json_str(e, "timestamp"));
	json_set_str(m, "kind", res && !strncmp(res, "retried", 7) ? "retried" : "failure");
	json_set_bool(m, "resolved", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "resolved")));
	json_set_str(m, "type", json_str(e, "type"));
	cJSON_AddItemToArray(marks, m);
}

/* The errors that name an agent, by agent then in their order: each agent's row finds its own. */
struct owned {
	const char *agent;
	const cJSON *e;
	size_t at;
};
struct agent_errors {
	struct owned *v;
	size_t n;
};

static int by_agent(const void *x, const void *y)
{
	const struct owned *a = x, *b = y;
	int c = strcmp(a->agent, b->agent);

	return c ? c : (a->at > b->at) - (a->at < b->at);
}

static void agent_errors_init(struct agent_errors *ae, const cJSON *state)
{
	const cJSON *e, *errors = cJSON_GetObjectItemCaseSensitive(state, "errors");
	size_t i = 0;

	ae->v = xcalloc((size_t)cJSON_GetArraySize(errors) + 1, sizeof(*ae->v));
	ae->n = 0;
	cJSON_ArrayForEach(e, errors) {
		if (json_str(e, "agent") && json_str(e, "timestamp"))
			ae->v[ae->n++] = (struct owned){ json_str(e, "agent"), e, i };
		i++;
	}
	qsort(ae->v, ae->n, sizeof(*ae->v), by_agent);
}

/* Each error on its phase's or agent's row; a retried one also marks the retry. */
static void add_marks(cJSON *r, const cJSON *state, const char *key, const cJSON *id, const struct agent_errors *ae)
{
	cJSON *marks = json_arr(r, "marks");
	const cJSON *e;

	if (!strcmp(key, "agent") && cJSON_IsString(id)) {
		size_t lo = 0, hi = ae->n;

		while (lo < hi) {	/* the first of this agent's */
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(ae->v[mid].agent, id->valuestring) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ae->n && !strcmp(ae->v[lo].agent, id->valuestring); lo++)
			add_mark(marks, ae->v[lo].e);
		return;
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(state, "errors")) {
		const cJSON *owner = cJSON_GetObjectItemCaseSensitive(e, key);

		if (!owner || !id || !json_equal(owner, id) || !json_str(e, "timestamp"))
			continue;
		if (!strcmp(key, "phase") && json_str(e, "agent"))
			continue;	/* drawn on the agent's row */
		add_mark(marks, e);
	}
}

static void agent_rows(cJSON *rows, const cJSON *state, const cJSON *phase_id, const struct agent_errors *ae)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(a, "phase");
		cJSON *r;

		if (phase_id ? !p || !json_equal(p, phase_id) : p && !cJSON_IsNull(p))
			continue;
		r = row("agent", a, json_str(a, "status"), json_str(a, "started"), json_str(a, "completed"));
		json_set_str(r, "label", json_str(a, "id"));
		json_set_str(r, "type", json_str(a, "type"));
		add_marks(r, state, "agent", cJSON_GetObjectItemCaseSensitive(a, "id"), ae);
		cJSON_AddItemToArray(rows, r);
	}
}

static const char *span_end(const cJSON *state)
{
	static const char *const lists[] = { "phases", "agents", "errors", "commits", "notes", NULL };
	static const char *const keys[] = { "started", "completed", "timestamp", NULL };
	const char *end = json_str(state, "updated");
	const cJSON *x;

	for (const char *const *l = lists; *l; l++)
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(state, *l))
			for (const char *const *k = keys; *k; k++)
				end = later(end, json_str(x, *k));
	return end;
}

cJSON *report_timeline(const cJSON *state)
{
	cJSON *out = cJSON_CreateObject(), *rows, *commits;
	const char *start = json_str(state, "created"), *end = span_end(state);
	const cJSON *p, *c;
	struct agent_errors ae;
	time_t t0 = 0, t1 = 0;

	json_set_str(out, "session_id", json_str(state, "session_id"));
	json_set_str(out, "status", json_str(state, "status"));
	json_set_str(out, "start", start);
	json_set_str(out, "end", end);
	if (start && end && gs_time_parse_iso(&t0, start) == 0 && gs_time_parse_iso(&t1, end) == 0)
		json_set_num(out, "seconds", t1 > t0 ? (double)(t1 - t0) : 0);
	else
		json_set_num(out, "seconds", 0);
	rows = json_arr(out, "rows");
	agent_errors_init(&ae, state);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		const char *status = json_str(p, "status");
		cJSON *r = row("phase", p, status, json_str(p, "started"), json_str(p, "completed"));

		json_set_str(r, "label", json_str(p, "name"));
		json_set_num(r, "retry_count", json_num(p, "retry_count", 0));
		add_marks(r, state, "phase", cJSON_GetObjectItemCaseSensitive(p, "id"), &ae);
		cJSON_AddItemToArray(rows, r);
		agent_rows(rows, state, cJSON_GetObjectItemCaseSensitive(p, "id"), &ae);
	}
	agent_rows(rows, state, NULL, &ae);
	free(ae.v);
	commits = json_arr(out, "commits");
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(state, "commits")) {
		cJSON *m = cJSON_CreateObject();

		json_set_str(m, "id", json_str(c, "id"));
		json_set_str(m, "subject", json_str(c, "subject"));
		json_set_str(m, "at", json_str(c, "timestamp"));
		cJSON_AddItemToArray(commits, m);
	}
	return out;
}
