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
	int has_stat;		/* size, mtime and ino hold (the stat cache) */
	double size, mtime, ino;	/* mtime in milliseconds */
};

/*
 * The manifest entry for seen: {"status", "oid", "mode" (a link's or an
 * executable's), "size", "mtime", "ino"}; status NULL is "modified", and
 * a file gone is {"status": "deleted"}.
 */
cJSON *state_record_entry(const struct state_file_seen *seen, const char *status);

/*
 * What entry recorded: its oid, mode and stat (-1 for a number it lacks),
 * borrowed from entry. -1 when it names no blob: nothing to trust.
 */
int state_record_known(struct state_file_seen *out, const cJSON *entry);

#endif
