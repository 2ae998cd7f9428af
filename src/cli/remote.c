/*
 * remote.c - session.remote: where push and pull go by default, and,
 * once it is set, the only place sessions are pushed to. A destination
 * is the same place when its name is session.remote or its URL is one of
 * that remote's: a second name for the same repository is no leak.
 */
#include "remote-internal.h"
#include "git-session/store_run.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

int remote_sessions(char **out, gs_store *st)
{
	char *name = store_config_str(st, "session.remote"), *key = NULL, *url = NULL;
	int error = 0;

	*out = NULL;
	if (!name)
		return 0;
	if (!store_remote_name_valid(name)) {
		error = gs_error("session.remote is '%s', which is not a valid remote name", name);
		gs_hint("name one of 'git remote' lists: git config session.remote <remote>");
	} else if (!(url = store_config_str(st, (key = xstrfmt("remote.%s.url", name))))) {
		error = gs_error("session.remote is '%s', which names no remote (see git remote -v)", name);
		gs_hint("add it (git remote add %s <url>), or set session.remote to one that is there", name);
	}
	if (!error)
		*out = name;
	else
		free(name);
	free(key);
	free(url);
	return error;
}

/* The URLs git fetches remote from (push: pushes it to), one a line, as git rewrites them. */
static int remote_urls(struct sbuf *out, gs_store *st, const char *remote, int push)
{
	const char *args[] = { "git", "remote", "get-url", "--all", remote, NULL, NULL };
	struct sbuf err = SBUF_INIT;
	int rc;

	if (push) {
		args[4] = "--push";
		args[5] = remote;
	}
	rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .out = out, .err = &err });
	sbuf_release(&err);
	if (rc > 0)
		return gs_error("no such remote: '%s' (see git remote -v)", remote);
	return rc < 0 ? rc : 0;
}

/*
 * A URL as compared (the caller frees it): a local repository is the
 * place its path resolves to from dir, where git runs, whether spelt
 * relative, through a symbolic link or as a file:// URL; any URL loses
 * its trailing slashes.
 */
static char *url_place(const char *url, size_t len, const char *dir)
{
	char *s = xstrndup(url, len), *path = s, *joined = NULL, *real = NULL;
	const char *colon = strchr(s, ':');
	size_t n;

	if (!strncmp(s, "file://", 7))
		path = s + 7;
	else if (strstr(s, "://") || (colon && (!strchr(s, '/') || colon < strchr(s, '/'))))
		path = NULL;	/* a URL, or scp's host:path: as it is */
	if (path && *path && (real = realpath(*path == '/' ? path : (joined = xstrfmt("%s/%s", dir, path)), NULL))) {
		free(s);
		s = real;
	}
	free(joined);
	for (n = strlen(s); n > 1 && s[n - 1] == '/'; n--)
		s[n - 1] = '\0';
	return s;
}

/* Whether url is the place of a line of urls. */
static int has_place(gs_store *st, const char *urls, const char *url, size_t len)
{
	char *want = url_place(url, len, store_run_dir(st));
	int found = 0;

	for (const char *line = urls; !found && line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *place = url_place(line, strcspn(line, "\n"), store_run_dir(st));

		found = !strcmp(place, want);
		free(place);
	}
	free(want);
	return found;
}

/* Every URL of the sessions remote, fetch and push, one a line. */
static int sessions_urls(struct sbuf *out, gs_store *st, const char *sessions)
{
	int error = remote_urls(out, st, sessions, 0);

	return error < 0 ? error : remote_urls(out, st, sessions, 1);
}

int remote_is_sessions_url(int *same, gs_store *st, const char *sessions, const char *url)
{
	struct sbuf urls = SBUF_INIT;
	int error = sessions_urls(&urls, st, sessions);

	*same = !error && has_place(st, urls.buf, url, strlen(url));
	sbuf_release(&urls);
	return error;
}

/* Whether a push to other lands where the sessions remote is: each of its push URLs one of that remote's. */
static int same_place(int *same, gs_store *st, const char *sessions, const char *other)
{
	struct sbuf urls = SBUF_INIT, pushes = SBUF_INIT;
	int error;

	*same = 0;
	if ((error = remote_urls(&pushes, st, other, 1)) < 0 || (error = sessions_urls(&urls, st, sessions)) < 0)
		goto cleanup;
	*same = pushes.len > 0;
	for (const char *line = pushes.buf; *same && line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		*same = has_place(st, urls.buf, line, strcspn(line, "\n"));
cleanup:
	sbuf_release(&urls);
	sbuf_release(&pushes);
	return error;
}

int remote_for_sync(char **out, gs_store *st, const char *named, int push, int allow_other)
{
	char *sessions = NULL;
	int error, same = 1;

	*out = NULL;
	if ((error = remote_sessions(&sessions, st)) < 0)
		return error;
	if (!named) {
		*out = sessions ? sessions : xstrdup("origin");
		return 0;
	}
	if (!store_remote_name_valid(named))
		error = gs_error("invalid remote name '%s'", named);
	else if (push && sessions && !allow_other && strcmp(named, sessions))
		error = same_place(&same, st, sessions, named);
	if (!error && !same) {
		error = gs_error("not pushing sessions to '%s': session.remote is '%s', "
				 "and sessions go there only", named, sessions);
		gs_hint("to push them to '%s' on purpose: git session push --allow-other-remote %s", named, named);
	}
	if (!error)
		*out = xstrdup(named);
	free(sessions);
	return error;
}
