/*
 * transcript-internal.h - the conversation view (view_transcript.c) that
 * `transcript` and `grep` share. Not for other folders.
 */
#ifndef GIT_SESSION_TRANSCRIPT_INTERNAL_H
#define GIT_SESSION_TRANSCRIPT_INTERNAL_H

#include "git-session/transcript.h"
#include "git-session/view.h"

/* One agent's conversation, as a checkpoint keeps it. */
struct agent_talk {
	char *id;
	struct transcript t;	/* t.d: its dialect, from the state or guessed from its first part */
	size_t order;		/* its place in the state's agents */
};
struct talks {
	struct agent_talk *v;
	size_t n;
	const cJSON *state;
	int unread;
	int parts;		/* parts read */
};

/*
 * The conversations of commit's transcripts (only agent only's, unless
 * NULL), each part read once, agents in the order state lists them; with
 * unread, the lines that are not JSON too (transcript.unread). Free with
 * talks_clear.
 */
int talks_load(struct talks *ts, gs_store *st, const char *commit, const cJSON *state, const char *only,
	       int unread);
void talks_clear(struct talks *ts);

/* Each item's kind as --json names it. */
extern const char *const view_item_kinds[];

/* "── turn 3 · claude-1a2b3c4d ──" (turn 0: the agent alone). */
void view_transcript_heading(struct view *v, const char *agent, int turn);
/*
 * agent's conversation t (only turn, unless 0), turn by turn, each
 * ending with its tokens; paths under top (the work tree) shown from it.
 */
void view_transcript(struct view *v, const char *agent, const struct transcript *t, int turn, const char *top);
/* One item as --json prints it, one object a line; the caller frees it. */
cJSON *view_transcript_item_json(const char *agent, const struct transcript_item *it);

#endif
