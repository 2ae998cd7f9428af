/*
 * fsck.c - checking and repairing a session's chain of checkpoints.
 */
#include "git-session/fsck.h"
#include "git-session/agent.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void fsck_report_clear(struct fsck_report *r)
{
	free(r->refname);
	free(r->problem);
	for (size_t i = 0; i < r->nbad_objects; i++)
		free(r->bad_objects[i]);
	free(r->bad_objects);
	for (size_t i = 0; i < r->nbad_commits; i++)
		free(r->bad_commits[i]);
	free(r->bad_commits);
	free(r->problem_below);
	free(r->counts);
	memset(r, 0, sizeof(*r));
}

static void push(char ***v, size_t *n, size_t *alloc, const char *s)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = xstrdup(s);
}

static int cmp_hex(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * Adds hex to the checkpoints a walk has been through (libc's balanced
 * tree, so a walk of n costs O(n log n)); returns 1 when it was there.
 */
static int seen_add(void **seen, const char *hex)
{
	char *key = xstrdup(hex), **at = tsearch(key, seen, cmp_hex);

	if (!at)
		abort();	/* out of memory, as xmalloc */
	if (*at == key)
		return 0;
	free(key);
	return 1;
}

/* The problem with one checkpoint, or NULL when it is good; caller frees. */
static char *check_one(struct store_verify *v, gs_store *st, const char *commit, const char *id)
{
	cJSON *state = NULL;
	char *err = NULL, *problem = NULL;
	struct state_loaded loaded;

	if (store_verify(v, st, commit) < 0)
		return xstrdup("cannot be read");
	if (v->problem)
		return xstrdup(v->problem);
	if (state_load(&state, &loaded, v->json, v->len, STATE_ALL, 0, NULL, v->parts, v->nparts, &err) < 0) {
		problem = xstrfmt("session.json: %s", err);
		free(err);
		return problem;
	}
	/* a checkpoint of another session (a ref pointed at it by hand) is not this session's */
	if (json_str(state, "session_id") && strcmp(json_str(state, "session_id"), id))
		problem = xstrfmt("it is a checkpoint of session '%s', not of '%s'", json_str(state, "session_id"), id);
	cJSON_Delete(state);
	return problem;
}

/*
 * How an agent's transcript parts in the tree disagree with its count in
 * session.json (NULL: they agree). The tree holds parts 1..parts, each as
 * transcripts/<agent>/<n / 1000>/<n>; fewer, the last ones missing, is
 * what gc leaves of a transcript that passed the limit.
 */
static char *agent_parts_problem(const cJSON *a, const cJSON *seen, int64_t limit)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "transcript");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(seen, json_str(a, "id"));
	double parts = json_num(t, "parts", 0), held = json_num(s, "n", 0), last = json_num(s, "max", 0);

	if (held == parts && last == parts)
		return NULL;
	if (held == last && held < parts && json_num(t, "bytes", 0) > (double)limit)
		return NULL;	/* trimmed by gc */
	return xstrfmt("agent '%s': session.json counts %.0f transcript parts, the tree holds %.0f%s",
		       json_str(a, "id"), parts, held, held == last ? "" : " (numbered with gaps)");
}

/* The transcript parts of the tree by agent: {agent: {n, max}}; a name out of shape is *bad. */
static cJSON *parts_by_agent(const cJSON *tree, char **bad)
{
	cJSON *seen = cJSON_CreateObject();
	const cJSON *f;

	cJSON_ArrayForEach(f, tree) {
		const char *name = f->string + strlen("transcripts/"), *slash = strchr(name, '/');
		char *agent = slash ? xstrndup(name, (size_t)(slash - name)) : NULL;
		unsigned dir, seq;
		char end;
		cJSON *s;

		if (!agent || sscanf(slash + 1, "%3u/%6u%c", &dir, &seq, &end) != 2 || !seq || dir != seq / 1000 ||
		    strlen(slash + 1) != 10) {
			if (!*bad)
				*bad = xstrfmt("'%s' is not a transcript part's name", f->string);
			free(agent);
			continue;
		}
		if (!(s = cJSON_GetObjectItemCaseSensitive(seen, agent)))
			s = json_obj(seen, agent);
		json_set_num(s, "n", json_num(s, "n", 0) + 1);
		if (seq > json_num(s, "max", 0))
			json_set_num(s, "max", seq);
		free(agent);
	}
	return seen;
}

/* Whether files/ in the tree holds each file of the manifest, as recorded, and nothing else. */
static char *files_problem(const cJSON *state, const cJSON *tree)
{
	const cJSON *f;
	int n = 0;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(state, "files")) {
		char *path;
		const char *have;

		if (!json_str(f, "oid"))
			continue;
		n++;
		path = xstrfmt("files/%s", f->string);
		have = json_str(tree, path);
		free(path);
		if (!have || strcmp(have, json_str(f, "oid")))
			return xstrfmt("file '%s' is in the manifest but %s", f->string,
				       have ? "files/ holds another blob" : "not under files/");
	}
	if (cJSON_GetArraySize(tree) != n)
		return xstrfmt("session.json records %d files, files/ holds %d", n, cJSON_GetArraySize(tree));
	return NULL;
}

/* What the counts of session.json at commit say that its tree does not hold (NULL: nothing). */
static char *counts_problem(gs_store *st, const char *commit)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *transcripts = NULL, *files = NULL, *seen = NULL;
	const cJSON *a;
	char *problem = NULL;
	int64_t limit;

	if (engine_load_rev(&state, &tip, st, commit) < 0 ||
	    store_tree_paths(&transcripts, st, commit, "transcripts") < 0 ||
	    store_tree_paths(&files, st, commit, "files") < 0 ||
	    store_config_int(&limit, st, "session.transcriptLimit", AGENT_TRANSCRIPT_LIMIT) < 0) {
		problem = xstrdup("its tree cannot be read");
		goto cleanup;
	}
	seen = parts_by_agent(transcripts, &problem);
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		if (!problem)
			problem = agent_parts_problem(a, seen, limit);
		cJSON_DeleteItemFromObjectCaseSensitive(seen, json_str(a, "id"));
	}
	if (!problem && seen->child)
		problem = xstrfmt("the tree holds transcript parts of '%s', an agent session.json does not know",
				  seen->child->string);
	if (!problem)
		problem = files_problem(state, files);
cleanup:
	cJSON_Delete(state);
	cJSON_Delete(transcripts);
	cJSON_Delete(files);
	cJSON_Delete(seen);
	store_tip_clear(&tip);
	return problem;
}

/* The ref and its reflog: a damaged ref is read back from the reflog's newest entry. */
static int check_ref(struct fsck_report *r, gs_store *st, const char *refname)
{
	char logged[HEX_SZ] = "";

	if (store_ref_value(r->tip, st, refname) < 0) {
		r->ref_damaged = 1;
		r->problem = xstrdup("the ref file is damaged");
		if (store_reflog_newest(r->tip, st, refname) < 0)
			return gs_error("'%s' is damaged and has no reflog to recover it from", refname);
	} else if (store_reflog_newest(logged, st, refname) == 0 && strcmp(logged, r->tip) &&
		   !store_reflog_has(st, refname, r->tip)) {
		/*
		 * libgit2 appends the reflog entry, then moves the ref: a writer
		 * killed between the two leaves an entry for a checkpoint that
		 * never became the tip. Harmless; a tip missing from the reflog
		 * is not.
		 */
		r->reflog_disagrees = 1;
	}
	return 0;
}

/* What checkpoint cur's check found, counted into the report. */
static void note_checkpoint(struct fsck_report *r, const char *cur, const struct store_verify *v,
			    const char *problem)
{
	r->checked++;
	if (problem && !r->last_good[0]) {
		r->bad++;
		memcpy(r->first_bad, cur, HEX_SZ);
		/*
		 * Moved aside with its damaged objects, so that git fsck is clean after:
		 * a commit whose objects cannot all be read. Never a sound commit that
		 * is only not this session's (another's, HEAD's: nothing of it is damaged).
		 */
		if (v->nbad)
			push(&r->bad_commits, &r->nbad_commits, &r->abad_commits, cur);
		for (size_t i = 0; i < v->nbad; i++)
			push(&r->bad_objects, &r->nbad_objects, &r->abad_objects, v->bad[i]);
		if (!r->problem)
			r->problem = xstrdup(problem);
	} else if (problem) {
		if (!r->history_damaged++) {	/* below the last good one: reported, not repaired */
			memcpy(r->first_damaged_below, cur, HEX_SZ);
			r->problem_below = xstrdup(problem);
		}
		for (size_t i = 0; i < v->nbad; i++)
			push(&r->bad_objects, &r->nbad_objects, &r->abad_objects, v->bad[i]);
	} else if (!r->last_good[0]) {
		memcpy(r->last_good, cur, HEX_SZ);
	}
}

/*
 * The checkpoint before cur, into v->parent: 1 when there is one. A damaged
 * commit does not say its parent: the reflog does. A tip the reflog never
 * recorded (the ref edited by hand, to a missing object, a blob, another
 * session's commit) goes on from the newest entry.
 */
static int next_checkpoint(struct store_verify *v, gs_store *st, const char *refname,
			   const char *tip, const char *cur, int damaged)
{
	if (damaged && !strcmp(cur, tip) && !store_reflog_has(st, refname, cur))
		return store_reflog_newest(v->parent, st, refname) == 0;	/* not its parents: not ours */
	return v->has_parent || store_reflog_before(v->parent, st, refname, cur) == 0;
}

int fsck_session(struct fsck_report *r, gs_store *st, const char *refname)
{
	const char *id = strrchr(refname, '/') + 1;
	char cur[HEX_SZ];
	void *visited = NULL;
	int have = 1;

	memset(r, 0, sizeof(*r));
	r->refname = xstrdup(refname);
	if (check_ref(r, st, refname) < 0)
		return GS_ERROR;
	memcpy(cur, r->tip, HEX_SZ);
	seen_add(&visited, cur);
	while (have) {
		struct store_verify v;
		char *problem = check_one(&v, st, cur, id);

		if (v.unfetched) {	/* a partial clone's: not damage, so nothing to repair */
			gs_error("%s: checkpoint %.12s cannot be checked: %s", id, cur, problem);
			free(problem);
			store_verify_clear(&v);
			tdestroy(visited, free);
			fsck_report_clear(r);
			return GS_ERROR;
		}
		note_checkpoint(r, cur, &v, problem);
		have = next_checkpoint(&v, st, refname, r->tip, cur, problem != NULL);
		free(problem);
		if (have && seen_add(&visited, v.parent))
			have = 0;	/* the reflog led back to where we were */
		if (have)
			memcpy(cur, v.parent, HEX_SZ);
		store_verify_clear(&v);
	}
	tdestroy(visited, free);
	if (!r->bad && !r->ref_damaged)
		r->counts = counts_problem(st, r->tip);
	r->ok = !r->bad && !r->ref_damaged && !r->reflog_disagrees && !r->history_damaged && !r->counts;
	return 0;
}

/* Where damaged objects go, in the git directory: session-quarantine/<time>-<id>; caller frees. */
static char *quarantine_dir(const char *refname)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	return xstrfmt("session-quarantine/%s-%s", stamp, strrchr(refname, '/') + 1);
}

/* Moves what fsck found damaged into the quarantine, and out of the reflog. */
static int quarantine(struct fsck_report *r, gs_store *st, const char *dir)
{
	int error;

	for (size_t i = 0; i < r->nbad_objects; i++)
		if ((error = store_quarantine(st, r->bad_objects[i], dir)) == GS_ENOTFOUND &&
		    store_object_packed(st, r->bad_objects[i]))
			gs_warning("object %.12s is in a pack, not loose: git fsck will still report it",
				   r->bad_objects[i]);
		else if (error < 0 && error != GS_ENOTFOUND)
			return error;
	for (size_t i = 0; i < r->nbad_commits; i++)
		if ((error = store_quarantine(st, r->bad_commits[i], dir)) < 0 && error != GS_ENOTFOUND)
			return error;
	return r->nbad_commits ? store_reflog_drop(st, r->refname, r->bad_commits, r->nbad_commits) : 0;
}

/* The new checkpoint: to's state and tree, on top of parent. */
static int write_rollback(char out[HEX_SZ], struct engine *e, const struct fsck_report *r,
			  const char *to, const char *parent, const char *why)
{
	struct store_checkpoint cp = { 0 };
	struct store_tip tip = { 0 }, base = { 0 };
	char *opjson = NULL, *msg = NULL, at[32], *branch = NULL, head[HEX_SZ];
	cJSON *state = NULL;
	struct state_op *op = NULL;
	time_t now;
	int error;

	if ((error = engine_load_rev(&state, &tip, e->st, to)) < 0 ||
	    (error = store_now(&now, e->st)) < 0 || (error = store_head(&branch, head, e->st)) < 0)
		goto cleanup;
	gs_time_iso(at, sizeof(at), now);
	json_set_str(state, "updated", at);
	op = op_new(OP_ROLLBACK, at);
	json_set_str(op_args(op), "to", to);
	json_set_str(op_args(op), "from", r->tip);
	json_set_str(op_args(op), "reason", why);
	opjson = json_print(op->json, 1, &cp.oplen);
	msg = xstrfmt("rollback to %.7s: %s\n\nThe tip was %s.\n\nSession-Id: %s\nSession-Op: %s\n"
		      "Branch: %s\nHead: %s\n", to, why, r->tip, json_str(state, "session_id"),
		      op_info(OP_ROLLBACK)->name, branch, head);
	base.exists = 1;
	memcpy(base.commit, parent, HEX_SZ);
	cp.parent = &base;
	cp.op = opjson;
	cp.message = msg;
	cp.tree_from = to;	/* to's tree, not parent's: the files/ of the good checkpoint come back too */
	error = engine_write(out, e->st, &cp, state, NULL, tip.parts, tip.nparts, 1);
cleanup:
	cJSON_Delete(state);
	op_free(op);
	store_tip_clear(&tip);
	free(opjson);
	free(msg);
	free(branch);
	return error;
}

int fsck_rollback(char out[HEX_SZ], struct engine *e, struct fsck_report *r, const char *to,
		  const char *why)
{
	const char *target = to ? to : r->last_good;
	/* keep the history when the tip can be read; build on the target when it cannot */
	const char *parent = r->bad ? target : r->tip;
	char *dir = quarantine_dir(r->refname), *logmsg;
	/* a tip the reflog never had (the ref set by hand): the rollback's entry continues the reflog */
	int relink = r->bad && !r->ref_damaged && !store_reflog_has(e->st, r->refname, r->tip);
	int error;

	if (!*target) {
		free(dir);
		return gs_error("no good checkpoint left to go back to in '%s'", r->refname);
	}
	if ((error = write_rollback(out, e, r, target, parent, why)) < 0)
		goto cleanup;
	/* a repair follows a crash: a lock its writer left must not stop it */
	store_break_stale_lock(e->st, r->refname, (int)e->stale_lock_age);
	logmsg = xstrfmt("session: rollback to %.7s", target);
	if (r->ref_damaged)
		error = store_force_ref(e->st, r->refname, out, logmsg, dir);
	else if ((error = store_cas(e->st, r->refname, out, r->tip, logmsg)) == GS_ERACE)
		error = gs_error("'%s' moved while it was being repaired; run the repair again", r->refname);
	free(logmsg);
	if (!error && relink)
		error = store_reflog_relink_newest(e->st, r->refname);
	/* after the move, so that dropping the damaged entries re-links the new one */
	if (!error)
		error = quarantine(r, e->st, dir);
cleanup:
	free(dir);
	return error;
}
