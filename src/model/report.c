/*
 * report.c - what the reports share (copying keys, staleness, liveness)
 * and the tokens report. Each other report has its report_<name>.c. Pure.
 */
#include "report-internal.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void report_copy_keys(cJSON *out, const cJSON *in, const char *const *keys)
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

double report_seconds_since(const char *iso, time_t now)
{
	time_t t;

	return iso && gs_time_parse_iso(&t, iso) == 0 ? difftime(now, t) : 0;
}

const char *report_last_seen(const cJSON *e)
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
	return report_stale_since(json_str(e, "status"), report_last_seen(e), now, stale_after);
}

/* "seen" and "stale" of an agent or phase, as every report shows them. */
void report_liveness(cJSON *out, const cJSON *e, const struct report_ctx *ctx)
{
	json_set_str(out, "seen", e ? report_last_seen(e) : NULL);
	json_set_bool(out, "stale", e && report_stale(e, ctx->now, ctx->stale_after));
}

const char *report_str_or(const cJSON *o, const char *key, const char *def)
{
	const char *s = json_str(o, key);
	return s ? s : def;
}

const char *report_agent_cli(const cJSON *a)
{
	if (json_str(a, "cli"))
		return json_str(a, "cli");
	/* attached by its own hooks before "cli" was kept: its type is the CLI's */
	return json_str(a, "session") ? json_str(a, "type") : NULL;
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
	if (max > 0)
		json_set_num(out, "remaining", max - used);
	else
		json_set(out, "remaining", cJSON_CreateNull());	/* no budget */
	report_copy_keys(out, t, (const char *const[]){ "input", "output", "cached", "peak", "saved", NULL });
	json_set_num(out, "savings_percent", used + saved > 0 ? round(saved / (used + saved) * 1000) / 10 : 0);
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(t, "by_agent"))
		n++;
	rows = xcalloc((size_t)n, sizeof(*rows));
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(t, "by_agent")) {
		cJSON *r = cJSON_CreateObject();
		json_set_str(r, "agent", a->string);
		report_copy_keys(r, a, (const char *const[]){ "input", "output", "cached", NULL });
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
