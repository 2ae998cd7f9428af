/*
 * state_record.h - a manifest entry made from what recording a file
 * found, and what an entry recorded, for the next recording to trust.
 * Pure (src/model/state_record.c): the engine asks the store and hands
 * the answer over.
 */
#ifndef GIT_SESSION_STATE_RECORD_H
#define GIT_SESSION_STATE_RECORD_H

#include <cjson/cJSON.h>

/* A file as recording saw it. */
struct state_file_seen {
	int gone;		/* no longer in the working tree: recorded deleted */
	const char *oid;	/* its blob, when not gone */
	const char *mode;	/* FILE_MODE_*; NULL or FILE_MODE_FILE for a regular file */
};

/*
 * The manifest entry for seen: {"status", "oid", "mode" (a link's or an
 * executable's)}; status NULL is "modified", and a file gone is
 * {"status": "deleted"}. No stat data: that is one clone's, not the
 * session's (the store keeps it, per clone).
 */
cJSON *state_record_entry(const struct state_file_seen *seen, const char *status);

/*
 * What entry recorded: its oid and mode, borrowed from entry; the stat
 * data an older entry holds is not read (another clone's, maybe). -1
 * when it names no blob: nothing to trust.
 */
int state_record_known(struct state_file_seen *out, const cJSON *entry);

/*
 * The status a manifest entry gets when a file recorded now (now: created,
 * modified or deleted; told: a user named it) meets the entry the
 * manifest had (was, NULL when none). A file created in the session stays
 * created until deleted, unless told otherwise; one the session saw
 * before never becomes created again but after a deletion: a merge,
 * which replays one side's records after the other's, does not turn a
 * file a teammate modified back into one created.
 */
const char *state_file_status(const char *was, const char *now, int told);

#endif
