/*
 * store_ident.c - who and when, as git decides it: GIT_AUTHOR_* and
 * GIT_COMMITTER_* (names, emails, dates), then user.name and user.email.
 * libgit2 1.5's git_signature_default() ignores the environment, so the
 * signature is built here. Store layer: uses libgit2.
 */
#include "store-internal.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Minutes east of UTC of the local zone at t. */
static int local_offset(time_t t)
{
	struct tm tm;

	localtime_r(&t, &tm);
	return (int)(tm.tm_gmtoff / 60);
}

static int parse_tz(int *out, const char *s)
{
	int v;

	if ((s[0] != '+' && s[0] != '-') || strlen(s) != 5 ||
	    sscanf(s + 1, "%4d", &v) != 1)
		return -1;
	*out = (s[0] == '-' ? -1 : 1) * (v / 100 * 60 + v % 100);
	return 0;
}

/*
 * The date formats git documents for GIT_*_DATE: "<epoch> <tz>" (also
 * with a leading '@'), RFC 2822, and ISO 8601.
 */
int store_ident_parse_date(time_t *t, int *offset, const char *s)
{
	char tz[8] = "", rest[64];
	long long epoch;
	struct tm tm = { 0 };
	const char *end;

	if (*s == '@')
		s++;
	if (sscanf(s, "%lld %7s", &epoch, tz) >= 1 && strspn(s, "0123456789") > 8) {
		*t = (time_t)epoch;
		if (!*tz)
			*offset = 0;
		else if (parse_tz(offset, tz) < 0)
			return -1;
		return 0;
	}
	end = strptime(s, "%a, %d %b %Y %H:%M:%S", &tm);
	if (end && sscanf(end, " %7s", tz) == 1 && parse_tz(offset, tz) == 0) {
		*t = timegm(&tm) - *offset * 60;
		return 0;
	}
	if (strlen(s) < sizeof(rest) && gs_time_parse_iso(t, s) == 0) {
		const char *z = s + strlen(s) - 1;

		*offset = 0;
		if (*z != 'Z' && (z - s) > 5 && (z[-4] == '+' || z[-4] == '-'))
			parse_tz(offset, z - 4);
		else if (*z != 'Z' && (z - s) > 6 && (z[-5] == '+' || z[-5] == '-')) {
			int h = atoi(z - 4), m = atoi(z - 1);
			*offset = (z[-5] == '-' ? -1 : 1) * (h * 60 + m);
		} else if (*z != 'Z')
			*offset = local_offset(*t);
		return 0;
	}
	return -1;
}

static int ident_date(time_t *t, int *offset, const char *who)
{
	char var[32];
	const char *s;

	snprintf(var, sizeof(var), "GIT_%s_DATE", who);
	if (!(s = getenv(var)) || !*s) {
		*t = time(NULL);
		*offset = local_offset(*t);
		return 0;
	}
	if (store_ident_parse_date(t, offset, s) < 0)
		return gs_error("invalid date format: %s", s);
	return 0;
}

int store_now(time_t *out, gs_store *st)
{
	int offset;

	(void)st;
	return ident_date(out, &offset, "COMMITTER");
}

static char *ident_field(gs_store *st, const char *who, const char *field, const char *key)
{
	char var[32];
	const char *s;

	snprintf(var, sizeof(var), "GIT_%s_%s", who, field);
	if ((s = getenv(var)) && *s)
		return xstrdup(s);
	return store_config_str(st, key);
}

int store_signature(git_signature **out, gs_store *st, const char *who)
{
	char *name = ident_field(st, who, "NAME", "user.name");
	char *email = ident_field(st, who, "EMAIL", "user.email");
	time_t t;
	int offset, error = GS_ERROR;

	if (!email && getenv("EMAIL") && *getenv("EMAIL"))
		email = xstrdup(getenv("EMAIL"));
	if (!name) {
		struct passwd *pw = getpwuid(getuid());
		if (pw && pw->pw_name)
			name = xstrdup(pw->pw_name);
	}
	if (!name || !email) {
		gs_error("%s identity unknown", !strcmp(who, "AUTHOR") ? "author" : "committer");
		gs_hint("set it with: git config user.name \"Your Name\"; git config user.email you@example.com");
		gs_hint("an MCP client starts its servers with a reduced environment: GIT_AUTHOR_NAME and the like "
			"reach 'git session mcp' only through the \"env\" of its configuration block");
		goto cleanup;
	}
	if (ident_date(&t, &offset, who) < 0)
		goto cleanup;
	if (git_signature_new(out, name, email, t, offset) < 0) {
		store_git_error("invalid identity");
		goto cleanup;
	}
	error = 0;
cleanup:
	free(name);
	free(email);
	return error;
}

int store_ident(char **out, gs_store *st)
{
	git_signature *sig = NULL;
	size_t mark = gs_error_mark();	/* none known is no error here */

	*out = NULL;
	if (store_signature(&sig, st, "AUTHOR") == 0) {
		*out = xstrfmt("%s <%s>", sig->name, sig->email);
		git_signature_free(sig);
	}
	gs_error_rewind(mark);
	return 0;
}
