/*
 * sync.c - integrating what a fetch brought: each of the remote's
 * sessions created, fast-forwarded or merged into refs/sessions/, or left
 * alone. What gc deleted here is remembered, so that a pull leaves the
 * remote's copy alone as it leaves archived sessions. Engine layer: store
 * and state, no libgit2.
 */
#include "sync-internal.h"
#include "git-session/json.h"
#include "git-session/state.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/*
 * What gc deleted here, kept in the git directory as "<commit> <id>"
 * lines: the tip it deleted and the remote copies that tip already held,
 * so that pull leaves those alone, as it leaves archived sessions.
 */
#define PRUNED_FILE "session-pruned"

/* The record without the lines of id (*dropped: whether it had some); the caller frees it. */
static char *pruned_without(gs_store *st, const char *id, int *dropped)
{
	char *text = NULL;
	size_t len, idlen = strlen(id);
	struct sbuf sb = SBUF_INIT;

	if (store_file_read(&text, &len, st, PRUNED_FILE, (size_t)64 << 20) < 0)
		return sbuf_detach(&sb, NULL);
	for (const char *line = text; *line;) {
		size_t l = strcspn(line, "\n");
		const char *sp = memchr(line, ' ', l);

		if (!(sp && (size_t)(line + l - sp - 1) == idlen && !memcmp(sp + 1, id, idlen)))
			sbuf_addf(&sb, "%.*s\n", (int)l, line);
		else
			*dropped = 1;
		line += l + (line[l] == '\n');
	}
	free(text);
	return sbuf_detach(&sb, NULL);
}

int sync_forget(gs_store *st, const char *id, const char *tip)
{
	int dropped = 0, error;
	char *text = pruned_without(st, id, &dropped), **remote = NULL;
	struct sbuf sb = SBUF_INIT;
	size_t n = 0;

	sbuf_adds(&sb, text);
	sbuf_addf(&sb, "%s %s\n", tip, id);
	if (store_tracking_tips(&remote, &n, st, id) == 0)
		for (size_t i = 0; i < n; i++)
			if (strcmp(remote[i], tip) && store_descends(st, tip, remote[i]) == 1)
				sbuf_addf(&sb, "%s %s\n", remote[i], id);
	if ((error = store_file_write(st, PRUNED_FILE, sb.buf, sb.len)) < 0)
		gs_warning("cannot record that session '%s' was deleted: a pull brings it back", id);
	store_ids_free(remote, n);
	sbuf_release(&sb);
	free(text);
	return error;
}

/* A session pull brought back (the remote went on from what gc deleted): no longer deleted here. */
static void unforget(gs_store *st, const char *id)
{
	int dropped = 0;
	char *text = pruned_without(st, id, &dropped);

	if (dropped)
		store_file_write(st, PRUNED_FILE, text, strlen(text));
	free(text);
}

/* The record's "<tip> <id>" lines as entries sorted by id (an id may have several). */
static void pruned_read(struct sync_refs *r, gs_store *st)
{
	char *text = NULL;
	size_t len, alloc = 0;

	if (store_file_read(&text, &len, st, PRUNED_FILE, (size_t)64 << 20) < 0)
		return;
	for (const char *line = text; *line;) {
		size_t l = strcspn(line, "\n");

		if (l > HEX_SZ && line[HEX_SZ - 1] == ' ') {
			ALLOC_GROW(r->pruned, r->npruned + 1, alloc);
			memcpy(r->pruned[r->npruned].tip, line, HEX_SZ - 1);
			r->pruned[r->npruned].tip[HEX_SZ - 1] = '\0';
			r->pruned[r->npruned++].id = xstrndup(line + HEX_SZ, l - HEX_SZ);
		}
		line += l + (line[l] == '\n');
	}
	free(text);
	if (r->npruned)
		qsort(r->pruned, r->npruned, sizeof(*r->pruned), sync_cmp_entry);
}

int sync_cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct store_ref_entry *)a)->id, ((const struct store_ref_entry *)b)->id);
}

int sync_refs_read(struct sync_refs *r, gs_store *st, const char *remote)
{
	char *prefix = sync_tracking_prefix(remote);
	int error;

	memset(r, 0, sizeof(*r));
	if ((error = store_list_refs(&r->tracking, &r->ntracking, st, prefix)) == 0 &&
	    (error = store_list_refs(&r->local, &r->nlocal, st, SESSIONS_PREFIX)) == 0 &&
	    (error = store_list_refs(&r->archived, &r->narchived, st, ARCHIVE_PREFIX)) == 0)
		pruned_read(r, st);
	free(prefix);
	return error;
}

void sync_refs_clear(struct sync_refs *r)
{
	store_ref_entries_free(r->local, r->nlocal);
	store_ref_entries_free(r->tracking, r->ntracking);
	store_ref_entries_free(r->archived, r->narchived);
	store_ref_entries_free(r->pruned, r->npruned);
	memset(r, 0, sizeof(*r));
}

/* Whether gc deleted id here at theirs, or past it. */
static int pruned_here(const struct sync_refs *r, gs_store *st, const char *id, const char *theirs)
{
	const struct store_ref_entry *hit = store_ref_entry_find(r->pruned, r->npruned, id);
	const struct store_ref_entry *p, *end = r->pruned + r->npruned;

	if (!hit)
		return 0;
	while (hit > r->pruned && !strcmp(hit[-1].id, id))
		hit--;
	for (p = hit; p < end && !strcmp(p->id, id); p++)
		if (!strcmp(p->tip, theirs) || (store_object_exists(st, p->tip) && store_descends(st, p->tip, theirs) == 1))
			return 1;
	return 0;
}

/*
 * Whether the remote's session id at theirs may come in as it is (a new
 * session, a fast-forward): its tip must read as a state of that session.
 * NULL when it may; else why not (the caller frees it).
 */
static char *refusal(struct engine *e, const char *id, const char *theirs)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *why = NULL;

	if (engine_load_rev(&state, &tip, e->st, theirs) < 0)
		why = xstrfmt("its checkpoint %.7s cannot be read", theirs);
	else if (!json_str(state, "session_id") || strcmp(json_str(state, "session_id"), id))
		why = xstrfmt("its checkpoint %.7s is not one of session '%s'", theirs, id);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	return why;
}

/*
 * What integrating the remote's session id at theirs does: "archived here,
 * left alone", "deleted here, left alone", "new", "up to date",
 * "fast-forward" or "merge". *have says whether the session is here, at
 * ours, which report gets once the session is not left alone.
 */
static int integrate_action(const char **action, char ours[HEX_SZ], int *have, const struct sync_refs *r,
			    gs_store *st, const char *id, const char *theirs, cJSON *report)
{
	char *ref = engine_refname(id);
	int error = 0;

	*have = 0;
	if (store_ref_entry_find(r->archived, r->narchived, id)) {
		*action = "archived here, left alone";
		goto cleanup;
	}
	*have = store_ref_value(ours, st, ref) == 0;
	if (!*have && pruned_here(r, st, id, theirs)) {
		*action = "deleted here, left alone";
		goto cleanup;
	}
	json_set_str(report, "ours", *have ? ours : NULL);
	if (!*have)
		*action = "new";
	else if (!strcmp(ours, theirs) || (error = store_descends(st, ours, theirs)) == 1)
		*action = "up to date";
	else if (error == 0 && (error = store_descends(st, theirs, ours)) == 1)
		*action = "fast-forward";
	else if (error == 0)
		*action = "merge";
	if (error > 0)
		error = 0;
cleanup:
	free(ref);
	return error;
}

/* Whether action moves the local ref: to their tip or to a merge of both. */
static int moves(const char *action)
{
	return !strcmp(action, "new") || !strcmp(action, "fast-forward") || !strcmp(action, "merge");
}

/* Moves session id's ref from ours (NULL: not here) to tip, for action; GS_ERACE when it moved meanwhile. */
static int take(const struct sync_refs *r, gs_store *st, const char *id, const char *tip, const char *ours,
		const char *action, const char *remote)
{
	char *ref = engine_refname(id), *logmsg = xstrfmt("session: %s from %s", action, remote);
	int error = store_cas(st, ref, tip, ours, logmsg);

	if (!error && !ours && store_ref_entry_find(r->pruned, r->npruned, id))
		unforget(st, id);
	free(ref);
	free(logmsg);
	return error;
}

/* One session: what the remote has, brought into the local ref. */
static int integrate(struct engine *e, const struct sync_opts *o, const struct sync_refs *r, const char *id,
		     const char *theirs, cJSON *report)
{
	char ours[HEX_SZ], merged[HEX_SZ], *why = NULL, *from = NULL;
	const char *action = NULL, *tip = theirs;
	int error, have;

	json_set_str(report, "id", id);
	json_set_str(report, "theirs", theirs);
	if ((error = integrate_action(&action, ours, &have, r, e->st, id, theirs, report)) < 0)
		goto cleanup;
	if ((!strcmp(action, "new") || !strcmp(action, "fast-forward")) && (why = refusal(e, id, theirs))) {
		gs_warning("not taking session '%s' from '%s': %s", id, o->remote, why);
		json_set_str(report, "detail", why);
		action = "refused";
	} else if (!o->dry_run && moves(action)) {
		if (!strcmp(action, "merge")) {
			from = xstrfmt("%s/%s", o->remote, id);
			if ((error = sync_merge(merged, e, id, ours, theirs, from, report)) < 0)
				goto cleanup;	/* nothing moved */
			json_set_str(report, "merged", merged);
			tip = merged;
		}
		error = take(r, e->st, id, tip, have ? ours : NULL, action, o->remote);
	}
	json_set_str(report, "action", action);
cleanup:
	free(why);
	free(from);
	return error;
}

/* A tracking ref whose name no command could use (HEAD, -x, ...): refused, said once a pull. */
static cJSON *refuse_name(const char *id, const char *remote, char *why)
{
	cJSON *r = cJSON_CreateObject();

	gs_warning("not taking session '%s' from '%s': %s", id, remote, why);
	json_set_str(r, "id", id);
	json_set_str(r, "action", "refused");
	json_set_str(r, "detail", why);
	free(why);
	return r;
}

/* One fetched session brought in, again (bounded) when it lost a race with a local writer. */
static int integrate_retried(cJSON *out, struct engine *e, const struct sync_opts *o, const struct sync_refs *r,
			     const struct store_ref_entry *t)
{
	int error = 0;

	for (int tries = 0; tries < 5; tries++)
		if ((error = integrate(e, o, r, t->id, t->tip, out)) != GS_ERACE)
			break;
	if (error == GS_ERACE)
		gs_error("session '%s' kept changing here; pull again", t->id);
	return error;
}

int sync_integrate_refs(cJSON *report, struct engine *e, const struct sync_opts *o, const struct sync_refs *r)
{
	int failed = 0;

	for (size_t i = 0; i < r->ntracking; i++) {
		const struct store_ref_entry *t = &r->tracking[i];
		const struct store_ref_entry *l = store_ref_entry_find(r->local, r->nlocal, t->id);
		char *why = NULL;
		cJSON *one;
		int error;

		if (o->only ? strcmp(o->only, t->id) != 0 : l && !strcmp(l->tip, t->tip))
			continue;	/* the same on both sides: nothing to look at */
		if (state_valid_id(t->id, &why) < 0) {
			cJSON_AddItemToArray(report, refuse_name(t->id, o->remote, why));
			continue;
		}
		one = cJSON_CreateObject();
		error = integrate_retried(one, e, o, r, t);
		failed |= error < 0;
		/* a session ahead here is the push's business, not the pull's */
		if (!o->only && error == 0 && !strcmp(json_str(one, "action"), "up to date"))
			cJSON_Delete(one);
		else
			cJSON_AddItemToArray(report, one);
	}
	return failed ? GS_ERROR : 0;
}

int sync_integrate(cJSON *report, struct engine *e, const struct sync_opts *o)
{
	struct sync_refs r;
	int error;

	if ((error = sync_refs_read(&r, e->st, o->remote)) < 0)
		goto cleanup;
	if (o->only && !store_ref_entry_find(r.tracking, r.ntracking, o->only))
		error = gs_error("'%s' has no session '%s'", o->remote, o->only);
	else
		error = sync_integrate_refs(report, e, o, &r);
cleanup:
	sync_refs_clear(&r);
	return error;
}
