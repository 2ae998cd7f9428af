/*
 * sync_remote.c - talking to a remote through git fetch and git push, and
 * pushing again when another pusher won a race. git carries the objects,
 * so every transport, credential helper and server-side hook works as it
 * does for git. Engine layer: store and git, no libgit2.
 */
#include "sync-internal.h"
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

/* Whether id is in the sorted list of ids. */
static int listed(char *const *ids, size_t n, const char *id)
{
	return n && bsearch(&id, ids, n, sizeof(*ids), gs_cmp_str);
}

/*
 * Parses `git push --porcelain`: "<flag>\t<src>:<dst>\t<summary>" per ref.
 * Only the sessions meant to move (ids) are reported and retried: a glob
 * push also lists the ones that are the same, and the ones pull refused.
 */
static int push_result(cJSON *report, const char *out, char *const *ids, size_t n, int *retry)
{
	size_t plen = strlen(SESSIONS_PREFIX);
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
		if (!listed(ids, n, strncmp(id, SESSIONS_PREFIX, plen) ? id : id + plen)) {
			free(id);
			continue;
		}
		summary = xstrndup(sum + 1, (size_t)(end - sum - 1));
		r = cJSON_CreateObject();
		json_set_str(r, "id", !strncmp(id, SESSIONS_PREFIX, plen) ? id + plen : id);
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

/*
 * The sessions a push moves: those whose tip here is not the remote's as
 * last fetched, and that pull did not just refuse or fail to merge (they
 * would be refused as not a fast-forward). Sorted, as r->local is.
 */
static char **push_set(size_t *n, const struct sync_refs *r, const struct sync_opts *o, const cJSON *pulled)
{
	char **ids = xcalloc(r->nlocal + 1, sizeof(*ids));
	const cJSON *p;

	*n = 0;
	for (size_t i = 0; i < r->nlocal; i++) {
		const struct store_ref_entry *l = &r->local[i];
		const struct store_ref_entry *t = store_ref_entry_find(r->tracking, r->ntracking, l->id);

		if ((o->only && strcmp(o->only, l->id)) || (t && !strcmp(t->tip, l->tip) && !o->only))
			continue;
		cJSON_ArrayForEach(p, pulled)
			if (!strcmp(json_str(p, "id") ? json_str(p, "id") : "", l->id) &&
			    (!json_str(p, "action") || !strcmp(json_str(p, "action"), "refused")))
				break;
		if (!p)
			ids[(*n)++] = xstrdup(l->id);
	}
	return ids;
}

/*
 * git push's arguments; the refspecs, from args[*fixed] on, are allocated.
 * git matches each refspec against every ref, so many sessions go as one
 * glob, which moves just those that differ.
 */
static const char **push_args(size_t *fixed, const struct sync_opts *o, char *const *ids, size_t n)
{
	const char **args = xcalloc(n + 8, sizeof(*args));
	size_t k = 0;

	args[k++] = "git";
	args[k++] = "push";
	args[k++] = "--porcelain";
	if (o->dry_run)
		args[k++] = "--dry-run";
	args[k++] = o->remote;
	*fixed = k;
	if (n > SYNC_PUSH_EXPLICIT)
		args[k++] = xstrfmt("%s*:%s*", SESSIONS_PREFIX, SESSIONS_PREFIX);
	else
		for (size_t i = 0; i < n; i++)
			args[k++] = xstrfmt("%s%s:%s%s", SESSIONS_PREFIX, ids[i], SESSIONS_PREFIX, ids[i]);
	return args;
}

/*
 * The remote's tips as this push left them, so that status knows what is
 * pushed before the next fetch. Of many, only the sessions active in a
 * worktree: a ref is a file or two, and the next fetch writes them all.
 */
static void track_pushed(gs_store *st, const struct sync_opts *o, const cJSON *report, const struct sync_refs *r,
			 size_t pushed)
{
	char *prefix = sync_tracking_prefix(o->remote), **active = NULL;
	size_t nactive = 0;
	const cJSON *x;

	if (pushed > SYNC_TRACK_MAX && store_active_all(&active, &nactive, st) < 0)
		nactive = 0;
	if (nactive)
		qsort(active, nactive, sizeof(*active), gs_cmp_str);

	cJSON_ArrayForEach(x, report) {
		const char *id = json_str(x, "id"), *action = json_str(x, "action");
		const struct store_ref_entry *l = id ? store_ref_entry_find(r->local, r->nlocal, id) : NULL;
		const struct store_ref_entry *t = id ? store_ref_entry_find(r->tracking, r->ntracking, id) : NULL;
		size_t mark;
		char *ref;

		if (!l || !action || (strcmp(action, "new") && strcmp(action, "pushed")) ||
		    (pushed > SYNC_TRACK_MAX && !listed(active, nactive, id)))
			continue;
		ref = xstrfmt("%s%s", prefix, id);
		mark = gs_error_mark();
		store_cas(st, ref, l->tip, t ? t->tip : NULL, "session: push");
		gs_error_rewind(mark);	/* not set: the next fetch sets it */
		free(ref);
	}
	store_ids_free(active, nactive);
	free(prefix);
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

/* One try: fetch, integrate, push what differs. *retry when the remote moved meanwhile. */
static int push_once(cJSON *report, cJSON *merges, struct engine *e, const struct sync_opts *o, struct sbuf *err,
		     int *retry, int *git_failed)
{
	cJSON *pulled = cJSON_CreateArray();
	struct sync_refs r = { 0 };
	struct sbuf out = SBUF_INIT;
	char **ids = NULL;
	const char **args = NULL;
	size_t n = 0, fixed = 0;
	int error, rc;

	*retry = 0;
	if ((error = sync_fetch(e, o->remote)) < 0 || (error = sync_refs_read(&r, e->st, o->remote)) < 0 ||
	    (error = sync_integrate_refs(pulled, e, o, &r)) < 0)
		goto cleanup;
	keep_merges(merges, pulled);
	sync_refs_clear(&r);	/* integrating moved some: read again */
	if ((error = sync_refs_read(&r, e->st, o->remote)) < 0)
		goto cleanup;
	ids = push_set(&n, &r, o, pulled);
	if (n == 0)
		goto cleanup;
	args = push_args(&fixed, o, ids, n);
	/* only the last attempt's outcome is reported */
	cJSON_Delete(report->child);
	report->child = NULL;
	rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(e->st), .out = &out, .err = err });
	error = push_result(report, out.buf ? out.buf : "", ids, n, retry);
	if (!error && rc != 0 && !*retry)
		error = *git_failed = GS_ERROR;
	if (o->dry_run)
		*retry = 0;
	else if (!error)
		track_pushed(e->st, o, report, &r, n);
cleanup:
	for (size_t i = fixed; args && args[i]; i++)
		free((void *)args[i]);
	free(args);
	store_ids_free(ids, n);
	sync_refs_clear(&r);
	sbuf_release(&out);
	cJSON_Delete(pulled);
	return error;
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
		sbuf_release(&err);
		error = push_once(report, merges, e, o, &err, &retry, &git_failed);
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
