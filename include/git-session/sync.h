/*
 * sync.h - sessions across machines through any git remote: git fetch
 * brings the remote's sessions into refs/remotes/<remote>/sessions/,
 * never over local refs; each is then created, fast-forwarded or merged
 * into refs/sessions/. A merge replays both sides' operations in one
 * deterministic order, so every machine computes the same state.
 */
#ifndef GIT_SESSION_SYNC_H
#define GIT_SESSION_SYNC_H

#include <cjson/cJSON.h>

#include "git-session/engine.h"

#define SYNC_PUSH_TRIES 12

struct sync_opts {
	const char *remote;
	const char *only;	/* one session id, or NULL for all */
	int dry_run;
};

/* "refs/remotes/<remote>/sessions/"; the caller frees it. */
char *sync_tracking_prefix(const char *remote);
/* git fetch of the remote's sessions into the tracking namespace. */
int sync_fetch(struct engine *e, const char *remote);
/*
 * Brings each fetched session into refs/sessions/; report gets one
 * {id, action, ours, theirs, merged, conflicts, skipped} per session,
 * action being "new", "up to date", "fast-forward", "merge",
 * "archived here, left alone", "deleted here, left alone" or "refused".
 */
int sync_integrate(cJSON *report, struct engine *e, const struct sync_opts *o);
/*
 * Records that gc deleted session id at tip, so that pull leaves the
 * remote's copy alone ("deleted here, left alone") while it holds
 * nothing past tip.
 */
int sync_forget(gs_store *st, const char *id, const char *tip);
/*
 * Fetches and integrates, then pushes every session under
 * refs/sessions/ (never forced); when the remote moved meanwhile (a lost
 * race with another pusher), again, up to SYNC_PUSH_TRIES times with a
 * random backoff that grows.
 * report gets one {id, action} per session pushed.
 */
int sync_push(cJSON *report, struct engine *e, const struct sync_opts *o);

#endif
