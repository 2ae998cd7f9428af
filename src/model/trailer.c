/*
 * trailer.c - one trailer added to a commit message, the way
 * `git interpret-trailers` places it. Pure.
 */
#include "git-session/trailer.h"
#include "git-session/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct line {
	const char *p;
	size_t len;	/* without the newline */
};

static int is_blank(const struct line *l)
{
	for (size_t i = 0; i < l->len; i++)
		if (!isspace((unsigned char)l->p[i]))
			return 0;
	return 1;
}

/* "Token: value", as git recognises a trailer line. */
static int is_trailer(const struct line *l)
{
	size_t i = 0;

	while (i < l->len && (isalnum((unsigned char)l->p[i]) || l->p[i] == '-'))
		i++;
	return i > 0 && i < l->len && l->p[i] == ':';
}

static struct line *split(const char *msg, size_t *n)
{
	size_t alloc = 16;
	struct line *v = xmalloc(alloc * sizeof(*v));
	const char *p = msg;

	*n = 0;
	while (*p) {
		const char *nl = strchrnul(p, '\n');

		ALLOC_GROW(v, *n + 1, alloc);
		v[*n].p = p;
		v[(*n)++].len = (size_t)(nl - p);
		p = *nl ? nl + 1 : nl;
	}
	return v;
}

enum trailer_result trailer_add(char **out, const char *msg, const char *key, const char *value,
				char comment)
{
	size_t n, end = 0, last = 0, klen = strlen(key), i;
	struct line *v = split(msg, &n);
	enum trailer_result r = TRAILER_EMPTY;
	int has_content = 0, block = 1, present = 0;
	struct sbuf sb = SBUF_INIT;

	*out = NULL;
	/* the message ends at the scissors line; comment lines are not part of it */
	for (end = 0; end < n; end++)
		if (v[end].len && v[end].p[0] == comment && strstr(v[end].p, " >8 ") &&
		    (size_t)(strstr(v[end].p, " >8 ") - v[end].p) < v[end].len)
			break;
	for (i = 0; i < end; i++) {
		if ((v[i].len && v[i].p[0] == comment) || is_blank(&v[i]))
			continue;
		has_content = 1;
		last = i;
	}
	if (!has_content)
		goto cleanup;
	/* does the last paragraph (not the subject) consist of trailers? */
	for (i = last + 1; i-- > 0;) {
		if (v[i].len && v[i].p[0] == comment)
			continue;
		if (is_blank(&v[i]))
			break;
		if (!is_trailer(&v[i]) || i == 0)
			block = 0;
		present |= v[i].len > klen && !strncasecmp(v[i].p, key, klen) && v[i].p[klen] == ':';
	}
	if (i == (size_t)-1)
		block = 0;	/* only a subject paragraph */
	if (block && present) {	/* one in the body (a quoted message) does not count */
		r = TRAILER_PRESENT;
		goto cleanup;
	}
	sbuf_add(&sb, msg, (size_t)(v[last].p + v[last].len - msg));
	sbuf_addf(&sb, "%s%s: %s", block ? "\n" : "\n\n", key, value);
	sbuf_adds(&sb, v[last].p + v[last].len);
	if (!sb.len || sb.buf[sb.len - 1] != '\n')
		sbuf_addch(&sb, '\n');
	*out = sbuf_detach(&sb, NULL);
	r = TRAILER_ADDED;
cleanup:
	free(v);
	return r;
}
