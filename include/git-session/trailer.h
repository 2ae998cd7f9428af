/*
 * trailer.h - adding a trailer ("Session-Id: <id>") to a commit message
 * as git does: after the message, joining a trailer block that ends it,
 * before the comment lines and the scissors line. Pure: works on text.
 */
#ifndef GIT_SESSION_TRAILER_H
#define GIT_SESSION_TRAILER_H

enum trailer_result {
	TRAILER_ADDED,
	TRAILER_PRESENT,	/* a "<key>:" trailer is there already */
	TRAILER_EMPTY,		/* no message yet: adding one would defeat git's empty-message abort */
};

/* *out is the new message when TRAILER_ADDED (the caller frees it), else NULL. */
enum trailer_result trailer_add(char **out, const char *msg, const char *key, const char *value,
				char comment);

#endif
