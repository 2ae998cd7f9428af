/*
 * strlist.c - a growing array of borrowed strings (strlist.h).
 */
#include "git-session/strlist.h"
#include "git-session/util.h"

#include <stdlib.h>

void strlist_push(struct strlist *l, const char *s)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = s;
}

void strlist_clear(struct strlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
