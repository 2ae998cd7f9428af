/*
 * strlist.h - a growing array of borrowed strings, as git's strvec but
 * without owning them: argv being built, options gathered.
 */
#ifndef GIT_SESSION_STRLIST_H
#define GIT_SESSION_STRLIST_H

#include <stddef.h>

struct strlist {
	const char **v;		/* borrowed: the strings belong to the caller */
	size_t n, alloc;
};
void strlist_push(struct strlist *l, const char *s);
void strlist_clear(struct strlist *l);

#endif
