/*
 * report-internal.h - what the report files share (report.c). Not for
 * other folders.
 */
#ifndef GIT_SESSION_REPORT_INTERNAL_H
#define GIT_SESSION_REPORT_INTERNAL_H

#include "git-session/report.h"

/* Copies in[key] (or null) to out[key] for each of keys (NULL-terminated). */
void report_copy_keys(cJSON *out, const cJSON *in, const char *const *keys);
/* Seconds from the ISO time iso to now; 0 when iso is missing or unreadable. */
double report_seconds_since(const char *iso, time_t now);
/* An agent's or phase's last sign of life: its latest operation's time, or its start. */
const char *report_last_seen(const cJSON *e);
/* "seen" and "stale" of an agent or phase, as every report shows them. */
void report_liveness(cJSON *out, const cJSON *e, const struct report_ctx *ctx);
/* The CLI an agent ran in ("claude-code"), NULL for one no CLI's hooks attached. */
const char *report_agent_cli(const cJSON *a);
/* o[key] when a string, else def. */
const char *report_str_or(const cJSON *o, const char *key, const char *def);

#endif
