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
/* A push of more sessions sets the remote-tracking refs of the active ones only; the next fetch, all. */
#define SYNC_TRACK_MAX 64

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
 * Brings each fetched session whose tip differs from the local one into
 * refs/sessions/ (the others are not looked at: the work follows what
 * changed); report gets one {id, action, ours, theirs, merged, conflicts,
 * skipped} per session that moved, was left alone or was refused, action
 * being "new", "fast-forward", "merge", "archived here, left alone",
 * "deleted here, left alone" or "refused"; with o->only, that session's
 * also when it is "up to date".
 */
int sync_integrate(cJSON *report, struct engine *e, const struct sync_opts *o);
/*
 * Records that gc deleted session id at tip, so that pull leaves the
 * remote's copy alone ("deleted here, left alone") while it holds
 * nothing past tip.
 */
int sync_forget(gs_store *st, const char *id, const char *tip);
/*
 * Pushes the sessions whose tip here is not the remote's as last fetched
 * (never forced); when the remote moved on (a teammate's push, a lost
 * race), fetches, integrates and pushes again, up to SYNC_PUSH_TRIES
 * times, with a random backoff that grows from the third. report gets one {id, action} per session
 * pushed, with what a merge before it did; none when nothing differed.
 */
int sync_push(cJSON *report, struct engine *e, const struct sync_opts *o);

#endif
