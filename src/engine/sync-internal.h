/*
 * sync-internal.h - what the files of sync share: the replay merge that
 * integrating calls. Not for other folders.
 */
#ifndef GIT_SESSION_SYNC_INTERNAL_H
#define GIT_SESSION_SYNC_INTERNAL_H

#include <cjson/cJSON.h>

#include "git-session/engine.h"
#include "git-session/sync.h"

/*
 * Merges theirs into ours, both tips of session id, by replaying the
 * operations of both sides since their merge base in one deterministic
 * order; from names their side in the message ("<remote>/<id>"). *merged
 * is the merge checkpoint, not yet on any ref; report gets its
 * "conflicts" and "skipped".
 */
int sync_merge(char merged[HEX_SZ], struct engine *e, const char *id, const char *ours,
	       const char *theirs, const char *from, cJSON *report);

#endif
