/*
 * sync_remote.c - talking to a remote through git fetch and git push, and
 * pushing again when another pusher won a race. git carries the objects,
 * so every transport, credential helper and server-side hook works as it
 * does for git. Engine layer: store and git, no libgit2.
 */
#include "git-session/sync.h"
#include "git-session/json.h"
#include "git-session/util.h"
#include "git-session/store_run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char *sync_tracking_prefix(const char *remote)
{
	return xstrfmt("refs/remotes/%s/sessions/", remote);
}

int sync_fetch(struct engine *e, const char *remote)
{
	char *url_key = xstrfmt("remote.%s.url", remote), *url = store_config_str(e->st, url_key);
	char *spec = xstrfmt("+refs/sessions/*:refs/remotes/%s/sessions/*", remote);
	/* --no-filter: in a partial clone too, a session arrives whole, readable offline */
	const char *args[] = { "git", "fetch", "--quiet", "--prune", "--no-write-fetch-head", "--no-filter", remote,
			       spec, NULL };
	struct sbuf out = SBUF_INIT;
	int error = 0;

	if (!url)
		error = gs_error("no such remote: '%s' (see git remote -v)", remote);
	else if (store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(e->st), .out = &out }) != 0)
		error = gs_error("cannot fetch sessions from '%s'", remote);
	sbuf_release(&out);
	free(url_key);
	free(url);
	free(spec);
	return error;
}

/*
 * A rejection that says the ref moved on the remote while we pushed (a
 * lost race with another pusher), which a fetch, merge and push again
 * mends: git's receive-pack says "failed to update ref" or "cannot lock
 * ref ... is at X but expected Y".
 */
static int remote_moved(const char *summary)
{
	return strstr(summary, "failed to update ref") || strstr(summary, "cannot lock ref") ||
	       strstr(summary, "but expected") || strstr(summary, "failed to lock");
}

/* Parses `git push --porcelain`: "<flag>\t<src>:<dst>\t<summary>" per ref. */
static int push_result(cJSON *report, const char *out, int *retry)
{
	int error = 0;

	*retry = 0;
	for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *tab = strchr(line, '\t'), *dst, *sum, *end = strchrnul(line, '\n');
		char *id, *summary;
		cJSON *r;

		if (!tab || tab != line + 1 || !(dst = memchr(tab, ':', (size_t)(end - tab))) ||
		    !(sum = memchr(dst, '\t', (size_t)(end - dst))))
			continue;
		id = xstrndup(dst + 1, (size_t)(sum - dst - 1));
		summary = xstrndup(sum + 1, (size_t)(end - sum - 1));
		r = cJSON_CreateObject();
		json_set_str(r, "id", !strncmp(id, SESSIONS_PREFIX, strlen(SESSIONS_PREFIX)) ?
			     id + strlen(SESSIONS_PREFIX) : id);
		json_set_str(r, "action", *line == '=' ? "up to date" : *line == '*' ? "new" :
			     *line == '!' ? "rejected" : "pushed");
		json_set_str(r, "detail", summary);
		if (*line == '!' && strstr(summary, "[remote rejected]") && !remote_moved(summary))
			error = gs_error("the remote refused %s: %s", id, summary);
		else if (*line == '!')
			*retry = 1;	/* it moved on meanwhile: fetch, merge, push again */
		cJSON_AddItemToArray(report, r);
		free(id);
		free(summary);
	}
	return error;
}

/* git push's arguments; the refspecs, from args[*fixed] on, are allocated. */
static const char **push_args(size_t *fixed, gs_store *st, const struct sync_opts *o, char ***ids, size_t *n)
{
	const char **args;
	size_t k = 0;

	*ids = NULL;
	*n = 0;
	if (o->only) {
		*ids = xcalloc(2, sizeof(**ids));
		(*ids)[0] = xstrdup(o->only);
		*n = 1;
	} else if (store_list(ids, n, st, SESSIONS_PREFIX) < 0) {
		return NULL;
	}
	args = xcalloc(*n + 8, sizeof(*args));
	args[k++] = "git";
	args[k++] = "push";
	args[k++] = "--porcelain";
	if (o->dry_run)
		args[k++] = "--dry-run";
	args[k++] = o->remote;
	*fixed = k;
	for (size_t i = 0; i < *n; i++)
		args[k++] = xstrfmt("%s%s:%s%s", SESSIONS_PREFIX, (*ids)[i], SESSIONS_PREFIX, (*ids)[i]);
	return args;
}

/* Waits before another try, longer each time and by a random amount, so that racing pushers part. */
static void push_backoff(unsigned *seed, int tries)
{
	unsigned cap = 50u << (tries < 5 ? tries : 5);	/* ms: 50, 100, ... 1600 */
	struct timespec ts;

	cap = cap / 2 + (unsigned)rand_r(seed) % cap;
	ts.tv_sec = cap / 1000;
	ts.tv_nsec = (long)(cap % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

/* The merges integration made, kept for the push's report: {id: {ours, theirs, merged, conflicts, skipped}}. */
static void keep_merges(cJSON *merges, const cJSON *pulled)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, pulled) {
		const char *id = json_str(r, "id");
		cJSON *m;

		if (!id || !json_str(r, "merged"))
			continue;
		if (!(m = cJSON_GetObjectItemCaseSensitive(merges, id)))
			json_set_str((m = json_obj(merges, id)), "ours", json_str(r, "ours"));
		json_set_str(m, "theirs", json_str(r, "theirs"));
		json_set_str(m, "merged", json_str(r, "merged"));
		for (const char *const *k = (const char *const[]){ "conflicts", "skipped", NULL }; *k; k++) {
			const cJSON *x;

			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, *k))
				cJSON_AddItemToArray(json_arr(m, *k), cJSON_Duplicate(x, 1));
		}
	}
}

/* Each pushed session that was merged first says so, with its conflicts. */
static void report_merges(cJSON *report, const cJSON *merges)
{
	cJSON *r;

	cJSON_ArrayForEach(r, report) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(merges, json_str(r, "id"));

		for (const cJSON *x = m ? m->child : NULL; x; x = x->next)
			json_set(r, x->string, cJSON_Duplicate(x, 1));
	}
}

int sync_push(cJSON *report, struct engine *e, const struct sync_opts *o)
{
	int error = 0, retry = 1, git_failed = 0;
	unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	struct sbuf err = SBUF_INIT;	/* git's messages of the last try: shown only when it failed */
	cJSON *merges = cJSON_CreateObject();

	for (int tries = 0; retry && tries < SYNC_PUSH_TRIES && !error; tries++) {
		if (tries)
			push_backoff(&seed, tries);
		cJSON *pulled = cJSON_CreateArray();
		struct sbuf out = SBUF_INIT;
		char **ids = NULL;
		size_t n = 0, fixed = 0;
		const char **args;
		int rc;

		sbuf_release(&err);
		if ((error = sync_fetch(e, o->remote)) < 0 || (error = sync_integrate(pulled, e, o)) < 0 ||
		    !(args = push_args(&fixed, e->st, o, &ids, &n))) {
			cJSON_Delete(pulled);
			error = error < 0 ? error : GS_ERROR;
			break;
		}
		keep_merges(merges, pulled);
		cJSON_Delete(pulled);
		if (n == 0) {
			retry = 0;
		} else {
			/* only the last attempt's outcome is reported */
			cJSON_Delete(report->child);
			report->child = NULL;
			rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(e->st), .out = &out, .err = &err });
			error = push_result(report, out.buf ? out.buf : "", &retry);
			if (!error && rc != 0 && !retry)
				error = git_failed = GS_ERROR;
			if (o->dry_run)
				retry = 0;
		}
		for (size_t i = 0; i < n; i++)
			free((void *)args[fixed + i]);
		free(args);
		store_ids_free(ids, n);
		sbuf_release(&out);
	}
	if ((error || retry) && err.len)
		gs_error_quote(err.buf, err.len);
	if (git_failed)
		gs_error("cannot push sessions to '%s'", o->remote);
	else if (!error && retry)
		error = gs_error("'%s' kept moving while we pushed; try again", o->remote);
	report_merges(report, merges);
	cJSON_Delete(merges);
	sbuf_release(&err);
	return error;
}
