/*
 * report.h - what status, tokens, diff, resume and timeline tell, as JSON
 * objects built from states, each in its src/model/report_<name>.c (tokens
 * and what they share in report.c). Pure: no I/O. The commands print them
 * as JSON for programs, or draw them for people with view_<name>.c, so
 * both carry the same facts. The fields are documented in doc/json.md.
 */
#ifndef GIT_SESSION_REPORT_H
#define GIT_SESSION_REPORT_H

#include <stdint.h>
#include <time.h>
#include <cjson/cJSON.h>

#include "git-session/schema.h"

struct report_ctx {
	const char *checkpoint;	/* commit id of the state */
	int active;		/* the session is SESSION_HEAD here */
	time_t now;
	int max_retries;
	int before[SPLIT_COUNT];	/* of lists loaded as their tail, the entries not loaded */
	int64_t stale_after;	/* session.staleAfter: seconds with no operation before an agent or phase is stale */
	const cJSON *remote;	/* where the session stands against its remote, or NULL (cmd_status.c) */
	/* agents whose CLI's own session is not on this machine (NULL-terminated, or NULL): resumed by resume --agent */
	const char *const *elsewhere;
};

#define REPORT_STALE_AFTER 1800

/*
 * Whether something of this status, whose last sign of life was at since
 * (ISO 8601), is in progress with no operation for longer than
 * stale_after seconds (0 turns staleness off).
 */
int report_stale_since(const char *status, const char *since, time_t now, int64_t stale_after);
/* The same of an agent or phase: its last sign of life is its latest operation's time, or its start. */
int report_stale(const cJSON *entry, time_t now, int64_t stale_after);

/* The caller frees what these return. */
cJSON *report_status(const cJSON *state, const struct report_ctx *ctx);
cJSON *report_tokens(const cJSON *state);
cJSON *report_diff(const cJSON *from, const cJSON *to, const char *from_commit, const char *to_commit);
/* What timeline draws: the span, a row per phase and agent, the commits. */
cJSON *report_timeline(const cJSON *state);

/*
 * The resume brief: the status report, plus what is done, in progress and
 * pending, and what changed behind the session's back. scan is
 * store_worktree_scan()'s facts for the manifest (with "in_history",
 * store_worktree_in_history()'s, where it was asked), project store_worktree_project()'s,
 * plans_now maps each plan path to its blob id now (or null).
 */
cJSON *report_resume(const cJSON *state, const cJSON *scan, const cJSON *project,
		     const cJSON *plans_now, const struct report_ctx *ctx);

/*
 * What happened to one manifest entry: "clean", "modified", "deleted",
 * "recreated", "committed", "reverted", "partial" or "unreadable". A file
 * that holds what HEAD holds is never "modified": it is "committed" when
 * the content recorded is in HEAD's history (the fact's "in_history": a
 * later commit changed it), else "reverted" (what was recorded is in no
 * commit of HEAD's: put back to HEAD's, or never committed by whoever
 * recorded it).
 */
const char *report_file_kind(const cJSON *state, const cJSON *rec, const cJSON *fact);

/*
 * The brief an agent gets when it starts, resumes or compacts in the
 * session (and the MCP server's session-brief): Markdown, the session's
 * goal and status, who worked on it last and what comes next, the
 * context summary, the last prompts and the last reply, errors and
 * failed commands not resolved, open tasks, decisions, files (changed:
 * an array of paths changed in the work tree since the last checkpoint,
 * or NULL). Every text redacted and made one line. At most max_tokens
 * tokens, counted as REPORT_BYTES_PER_TOKEN bytes each: the sections
 * that matter least are clipped, then dropped, never cutting a
 * character. The caller frees it.
 */
#define REPORT_BRIEF_TOKENS 1500
#define REPORT_BYTES_PER_TOKEN 4
/* The most bytes of a context summary the brief shows, and a compaction's summary keeps. */
#define REPORT_SUMMARY_MAX 4000
char *report_brief(const cJSON *state, const struct report_ctx *ctx, const cJSON *changed, size_t max_tokens);

/* "ok", "warning" (over 80% of the budget) or "critical" (over 95%). */
const char *report_token_level(double used, double max);

#endif
