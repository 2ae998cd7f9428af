/*
 * blame-internal.h - what `git session blame` finds (cmd_blame.c) and
 * its printing (view_blame.c) share. Not for other folders.
 */
#ifndef GIT_SESSION_BLAME_INTERNAL_H
#define GIT_SESSION_BLAME_INTERNAL_H

#include "git-session/cmd.h"
#include "git-session/util.h"

#include <stddef.h>

#define NOT_COMMITTED "0000000000000000000000000000000000000000"

/* A git identity and time, as git blame --porcelain gives them; mail without its <>. */
struct blame_person {
	char *name, *mail;
	long long time;
	char tz[6];		/* "+0100" */
};

/* What blame says of a commit's lines (or of lines not committed, or those a session holds). */
struct blame_who {
	char commit[HEX_SZ];
	char checkpoint[HEX_SZ];	/* the checkpoint that recorded them; "" when none did */
	char *session, *agent, *phase;
	char *filename;			/* the file's name in the commit, when git blame followed a rename */
	struct blame_person author;	/* the checkpoint's author, else the commit's */
	int found;			/* the checkpoint that recorded the commit was read */
};

struct blame_line {
	char commit[HEX_SZ];
	size_t orig, final;	/* its number in the commit, and in the file shown */
	char *text;		/* len bytes, NULs among them, as in the file */
	size_t len;
	const struct blame_who *who;
};

struct blame {
	struct cmd_ctx *c;
	const char *path;
	struct blame_line *lines;
	size_t n, alloc;
	struct blame_who *whos;	/* one per distinct commit */
	size_t nwho;
};

enum blame_format { BLAME_HUMAN, BLAME_PORCELAIN, BLAME_JSON };

/* How the columns for people show a date: git's --date formats. */
enum blame_date { DATE_SHORT, DATE_ISO, DATE_ISO_STRICT, DATE_RELATIVE, DATE_UNIX, DATE_RAW };
/* The format a --date value names; -1 for none. */
int blame_date_mode(const char *name);

/* Prints every line of b as format says, dates as date says (view_blame.c). */
void blame_print(const struct blame *b, enum blame_format format, enum blame_date date);

#endif
