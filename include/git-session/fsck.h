/*
 * fsck.h - checking a session's checkpoints and bringing a damaged one
 * back: every object read with its hash checked, session.json validated,
 * the reflog compared with the ref; repair and rollback write a new
 * checkpoint holding a good state and move damaged objects into a
 * quarantine folder, losing nothing. Uses store, model and engine.
 */
#ifndef GIT_SESSION_FSCK_H
#define GIT_SESSION_FSCK_H

#include "git-session/engine.h"
#include "git-session/store_fsck.h"

struct fsck_report {
	char *refname;
	int checked;		/* checkpoints read */
	int ok;
	int ref_damaged;	/* the ref file is garbage: tip taken from the reflog */
	int reflog_disagrees;
	int history_damaged;	/* damaged checkpoints below the last good one */
	char first_damaged_below[HEX_SZ];	/* the newest of them */
	char *problem_below;	/* what is wrong with it */
	char tip[HEX_SZ];
	char last_good[HEX_SZ];	/* empty when none was found */
	int bad;		/* damaged checkpoints above the last good one */
	char first_bad[HEX_SZ];	/* the oldest of them */
	char *problem;		/* what is wrong with the newest */
	char **bad_objects;	/* to move into the quarantine */
	size_t nbad_objects, abad_objects;
	char **bad_commits;	/* damaged checkpoints above the last good one */
	size_t nbad_commits, abad_commits;
	char *counts;		/* a count of session.json at the tip its tree disagrees with */
};
void fsck_report_clear(struct fsck_report *r);

/* Checks every checkpoint of refname; r->ok says whether all is well. */
int fsck_session(struct fsck_report *r, gs_store *st, const char *refname);

/*
 * Moves the session to checkpoint `to` (a commit id; NULL: the last good
 * one) with a new checkpoint that says so, quarantines what fsck found
 * damaged, and drops reflog entries of damaged checkpoints. The new
 * commit id comes back in out.
 */
int fsck_rollback(char out[HEX_SZ], struct engine *e, struct fsck_report *r, const char *to,
		  const char *why);

#endif
