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

/* Whether the pull before this push refused session id, or failed to bring it: git rejects it as it is. */
static int pull_refused(const cJSON *pulled, const char *id)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, pulled)
		if (json_str(p, "id") && !strcmp(json_str(p, "id"), id) &&
		    (!json_str(p, "action") || !strcmp(json_str(p, "action"), "refused")))
			return 1;
	return 0;
}

/*
 * Parses `git push --porcelain`: "<flag>\t<src>:<dst>\t<summary>" per ref.
 * What was already there is reported only when named (--session); a
 * rejection because the remote has what this clone lacks asks for a pull
 * and another try, unless that pull refused the session already.
 */
static int push_result(cJSON *report, const char *out, int named, const cJSON *pulled, int *retry, int *lines)
{
	size_t plen = strlen(SESSIONS_PREFIX);
	int error = 0;

	*retry = *lines = 0;
	for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *tab = strchr(line, '\t'), *dst, *sum, *end = strchrnul(line, '\n');
		char *ref, *summary;
		const char *id;
		cJSON *r;

		if (!tab || tab != line + 1 || !(dst = memchr(tab, ':', (size_t)(end - tab))) ||
		    !(sum = memchr(dst, '\t', (size_t)(end - dst))))
			continue;
		ref = xstrndup(dst + 1, (size_t)(sum - dst - 1));
		id = strncmp(ref, SESSIONS_PREFIX, plen) ? ref : ref + plen;
		++*lines;
		if (*line == '=' && !named) {
			free(ref);
			continue;
		}
		summary = xstrndup(sum + 1, (size_t)(end - sum - 1));
		r = cJSON_CreateObject();
		json_set_str(r, "id", id);
		json_set_str(r, "action", *line == '=' ? "up to date" : *line == '*' ? "new" :
			     *line == '!' ? "rejected" : "pushed");
		json_set_str(r, "detail", summary);
		if (*line == '!' && strstr(summary, "[remote rejected]") && !remote_moved(summary))
			error = gs_error("the remote refused %s: %s", ref, summary);
		else if (*line == '!' && !pull_refused(pulled, id))
			*retry = 1;	/* it has what this clone lacks: fetch, merge, push again */
		cJSON_AddItemToArray(report, r);
		free(ref);
		free(summary);
	}
	return error;
}

/*
 * git push's arguments; the refspec, args[*fixed], is allocated. Every
 * session goes as one glob, which git matches once and which moves just
 * those that differ from what the remote has (not what this clone last
 * fetched, which may be stale); a session named goes alone.
 */
static const char **push_args(size_t *fixed, const struct sync_opts *o)
{
	const char **args = xcalloc(8, sizeof(*args));
	size_t k = 0;

	args[k++] = "git";
	args[k++] = "push";
	args[k++] = "--porcelain";
	if (o->dry_run)
		args[k++] = "--dry-run";
	args[k++] = o->remote;
	*fixed = k;
	if (o->only)
		args[k] = xstrfmt("%s%s:%s%s", SESSIONS_PREFIX, o->only, SESSIONS_PREFIX, o->only);
	else
		args[k] = xstrfmt("%s*:%s*", SESSIONS_PREFIX, SESSIONS_PREFIX);
	return args;
}

/*
 * The remote's tips as this push left them, so that status knows what is
 * pushed before the next fetch. Of many, only the sessions active in a
 * worktree: a ref is a file or two, and the next fetch writes them all.
 */
static void track_pushed(gs_store *st, const struct sync_opts *o, const cJSON *report, const struct sync_refs *r)
{
	char *prefix = sync_tracking_prefix(o->remote), **active = NULL;
	size_t nactive = 0, pushed = (size_t)cJSON_GetArraySize(report);
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

/* Appends to arr the strings of add it lacks. */
static void add_new_strings(cJSON *arr, const cJSON *add)
{
	const cJSON *x, *y;

	cJSON_ArrayForEach(x, add) {
		cJSON_ArrayForEach(y, arr)
			if (cJSON_IsString(x) && cJSON_IsString(y) && !strcmp(x->valuestring, y->valuestring))
				break;
		if (!y && cJSON_IsString(x))
			cJSON_AddItemToArray(arr, cJSON_CreateString(x->valuestring));
	}
}

/*
 * What the pulls of a push did, kept for its report: {id: {action, ours,
 * theirs, merged, conflicts, skipped}} of each session they moved.
 */
static void keep_pulled(cJSON *moved, const cJSON *pulled)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, pulled) {
		const char *id = json_str(r, "id"), *action = json_str(r, "action");
		cJSON *m;

		if (!id || !action || (strcmp(action, "new") && strcmp(action, "fast-forward") && strcmp(action, "merge")))
			continue;
		if (!(m = cJSON_GetObjectItemCaseSensitive(moved, id)))
			json_set_str((m = json_obj(moved, id)), "ours", json_str(r, "ours"));
		json_set_str(m, "action", json_str(m, "merged") ? "merge" : action);
		json_set_str(m, "theirs", json_str(r, "theirs"));
		if (json_str(r, "merged"))
			json_set_str(m, "merged", json_str(r, "merged"));
		add_new_strings(json_arr(m, "conflicts"), cJSON_GetObjectItemCaseSensitive(r, "conflicts"));
		add_new_strings(json_arr(m, "skipped"), cJSON_GetObjectItemCaseSensitive(r, "skipped"));
	}
}

/*
 * Each pushed session that was merged first says so, with its conflicts;
 * a session the push's pull moved and that needed no push is reported as
 * the pull moved it.
 */
static void report_pulled(cJSON *report, const cJSON *moved)
{
	cJSON *r;

	for (const cJSON *m = moved ? moved->child : NULL; m; m = m->next) {
		cJSON_ArrayForEach(r, report)
			if (json_str(r, "id") && !strcmp(json_str(r, "id"), m->string))
				break;
		if (!r) {
			json_set_str((r = cJSON_CreateObject()), "id", m->string);
			cJSON_AddItemToArray(report, r);
		} else if (!json_str(m, "merged")) {
			continue;	/* pushed after a fast-forward: the push says it */
		}
		for (const cJSON *x = m->child; x; x = x->next)
			if (strcmp(x->string, "action") || !json_str(r, "action"))
				json_set(r, x->string, cJSON_Duplicate(x, 1));
	}
}


/* Whether session id can be pushed: it is here; else why not, as an error. */
static int pushable(const struct sync_refs *r, const char *id)
{
	if (store_ref_entry_find(r->local, r->nlocal, id))
		return 0;
	if (store_ref_entry_find(r->archived, r->narchived, id))
		return gs_error("session '%s' is archived here: not pushed (git session unarchive %s)", id, id);
	return gs_error("no such session: '%s'", id);
}

/*
 * One try: push every session that differs from what the remote has (a
 * glob, so a stale remote-tracking ref hides nothing), after a pull
 * when pull is set. *retry when the remote had what this clone lacked.
 */
static int push_once(cJSON *report, cJSON *moved, struct engine *e, const struct sync_opts *o, int pull,
		     struct sbuf *err, int *retry, int *git_failed)
{
	cJSON *pulled = cJSON_CreateArray();
	struct sync_refs r = { 0 };
	struct sbuf out = SBUF_INIT;
	const char **args = NULL;
	size_t fixed = 0;
	int error = 0, rc, lines;

	*retry = 0;
	cJSON_Delete(report->child);	/* only the last try's outcome is reported */
	report->child = NULL;
	if (pull) {
		if ((error = sync_fetch(e, o->remote)) < 0 || (error = sync_refs_read(&r, e->st, o->remote)) < 0 ||
		    (error = sync_integrate_refs(pulled, e, o, &r)) < 0)
			goto cleanup;
		keep_pulled(moved, pulled);
		sync_refs_clear(&r);	/* integrating moved some: read again */
	}
	if ((error = sync_refs_read(&r, e->st, o->remote)) < 0 || (o->only && (error = pushable(&r, o->only)) < 0))
		goto cleanup;
	args = push_args(&fixed, o);
	rc = store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(e->st), .out = &out, .err = err });
	error = push_result(report, out.buf ? out.buf : "", o->only != NULL, pulled, retry, &lines);
	/* a glob's sessions that pull refused are rejected too: git fails, the others went */
	if (!error && rc != 0 && !*retry && !lines)
		error = *git_failed = GS_ERROR;
	if (o->dry_run)
		*retry = 0;
	else if (!error)
		track_pushed(e->st, o, report, &r);
cleanup:
	if (args)
		free((void *)args[fixed]);
	free(args);
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
	cJSON *moved = cJSON_CreateObject();

	for (int tries = 0; retry && tries < SYNC_PUSH_TRIES && !error; tries++) {
		if (tries > 1)	/* the first retry is a pull; racing pushers part from the next */
			push_backoff(&seed, tries);
		sbuf_release(&err);
		/* the first try pulls only when asked what a push would do */
		error = push_once(report, moved, e, o, tries > 0 || o->dry_run, &err, &retry, &git_failed);
	}
	if ((error || retry) && err.len)
		gs_error_quote(err.buf, err.len);
	if (git_failed)
		gs_error("cannot push sessions to '%s'", o->remote);
	else if (!error && retry)
		error = gs_error("'%s' kept moving while we pushed; try again", o->remote);
	report_pulled(report, moved);
	cJSON_Delete(moved);
	sbuf_release(&err);
	return error;
}
