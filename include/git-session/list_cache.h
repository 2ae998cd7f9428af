/*
 * list_cache.h - what `list` shows of each checkpoint, remembered by
 * commit id in $GIT_DIR/session-list-cache: a commit never changes, so
 * an entry is never stale, and `list` reads no object for a session
 * whose tip it has seen before. Pure: parsing and printing the file.
 *
 * The file: a header line, then one line per commit, sorted:
 *   <commit> <time> ["<status>", "<created>", "<updated>", "<topic>", "<session>"]
 * as a JSON array, null for a missing one (the status never is); the
 * session id (of the checkpoint, to be checked against the ref's) may be
 * absent, in a file an older list wrote.
 */
#ifndef GIT_SESSION_LIST_CACHE_H
#define GIT_SESSION_LIST_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define LIST_CACHE_HEADER "git-session list cache 2"

struct list_entry {
	char commit[41];
	int64_t time;		/* the commit's time */
	char *status;
	char *created;		/* NULL when the state has none */
	char *updated;
	char *topic;
	char *session;		/* the checkpoint's session_id; NULL when not known */
};

struct list_cache {
	struct list_entry *v;
	size_t n, alloc;
};

/* Reads the file's text; GS_ERROR (and an empty cache) when any of it is not as written. */
int list_cache_parse(struct list_cache *out, const char *text, size_t len);
/* The entry of commit, or NULL. The cache must be sorted (list_cache_sort). */
const struct list_entry *list_cache_find(const struct list_cache *c, const char *commit);
/* Adds an entry; the cache takes the strings. */
void list_cache_add(struct list_cache *c, const char *commit, int64_t time, char *status,
		    char *created, char *updated, char *topic, char *session);
void list_cache_sort(struct list_cache *c);
/* The file's text; the caller frees it. */
char *list_cache_format(const struct list_cache *c, size_t *len);
void list_cache_clear(struct list_cache *c);

#endif
