/*
 * state_files.c - the manifest (session.json's "files") and the
 * operations that record into it, checkpoint and restore. Recording is
 * one merge pass, taken as git add takes it: what a path displaces goes,
 * and no path comes below a file or a link. Pure: no I/O, no git.
 */
#include "state-internal.h"
#include "git-session/state_record.h"

#include <stdlib.h>
#include <string.h>

/*
 * Merges entries (sorted by path, each with ->string set) into the
 * manifest (sorted by path) in one pass, replacing entries with the same
 * path. O(manifest + entries), so recording stays cheap on large
 * manifests and session.json diffs stay small.
 */
static void files_merge(cJSON *manifest, cJSON **entries, int n)
{
	cJSON *c = manifest->child;

	for (int i = 0; i < n; i++) {
		cJSON *e = entries[i];
		int cmp = 1;

		while (c && (cmp = strcmp(c->string, e->string)) < 0)
			c = c->next;
		if (!c) {
			cJSON_AddItemToArray(manifest, e);
			continue;
		}
		e->next = cmp ? c : c->next;	/* splice in before c, or in c's place */
		e->prev = c->prev;
		if (c == manifest->child)
			manifest->child = e;
		else
			e->prev->next = e;
		if (!cmp) {
			if (e->next)
				e->next->prev = e;
			else
				manifest->child->prev = e;
			c->next = c->prev = NULL;
			cJSON_Delete(c);
		} else {
			c->prev = e;
		}
		c = e->next;
	}
}

const char *state_file_status(const char *was, const char *now, int told)
{
	if (!was || !now || !strcmp(was, ST_DELETED) || !strcmp(now, ST_DELETED))
		return now;
	/* a file first created in this session stays "created" until deleted, unless told otherwise */
	if (!strcmp(was, ST_CREATED) && !strcmp(now, ST_MODIFIED) && !told)
		return ST_CREATED;
	/* one the session saw before (its own or a teammate's record) was not created now */
	if (!strcmp(was, ST_MODIFIED) && !strcmp(now, ST_CREATED))
		return ST_MODIFIED;
	return now;
}

/* The manifest entry recorded for f; old is what the manifest had. */
static cJSON *file_entry(struct apply_ctx *c, const cJSON *f, const cJSON *old, const char *status,
			 const char *agent, const cJSON *phase)
{
	cJSON *e = cJSON_CreateObject();
	const char *st = status ? status : json_str(f, "status"), *mode = json_str(f, "mode");
	const cJSON *keep = old ? cJSON_GetObjectItemCaseSensitive(old, "phase") : NULL;

	json_set_str(e, "status", state_file_status(json_str(old, "status"), st, status != NULL));
	json_set_str(e, "oid", json_str(f, "oid"));
	if (phase && !cJSON_IsNull(phase))
		json_set(e, "phase", cJSON_Duplicate(phase, 1));
	else
		json_set(e, "phase", cJSON_Duplicate(keep ? keep : cJSON_GetObjectItemCaseSensitive(c->state, "current_phase"), 1));
	json_set_str(e, "agent", agent ? agent : json_str(old, "agent"));
	/* a symbolic link or an executable, as git stores one; a plain file has no mode */
	if (mode && (!strcmp(mode, FILE_MODE_LINK) || !strcmp(mode, FILE_MODE_EXEC)))
		json_set_str(e, "mode", mode);
	/* no stat data: one clone's, kept in its own stat cache (an old operation replayed may carry it) */
	e->string = xstrdup(f->string);
	return e;
}

/*
 * in (n entries, sorted by path) against the manifest (sorted too), in one
 * pass: how many paths it does not hold; known[i], when given, gets the
 * manifest's entry of in[i] or NULL.
 */
static int merge_paths(cJSON **known, cJSON *const *in, int n, const cJSON *manifest)
{
	const cJSON *m = manifest ? manifest->child : NULL;
	int fresh = 0;

	for (int i = 0; i < n; i++) {
		int hit;

		while (m && strcmp(m->string, in[i]->string) < 0)
			m = m->next;
		hit = m && !strcmp(m->string, in[i]->string);
		fresh += !hit;
		if (known)
			known[i] = hit ? (cJSON *)m : NULL;
	}
	return fresh;
}

/* files' entries, sorted by path, in an array the caller frees. */
static cJSON **sorted_entries(int *n, const cJSON *files)
{
	cJSON **in = xcalloc((size_t)cJSON_GetArraySize(files) + 1, sizeof(*in));

	*n = 0;
	for (const cJSON *f = files ? files->child : NULL; f; f = f->next)
		in[(*n)++] = (cJSON *)f;
	qsort(in, (size_t)*n, sizeof(*in), state_cmp_key);
	return in;
}

int state_manifest_new(const cJSON *state, const cJSON *files)
{
	int n, fresh;
	cJSON **in = sorted_entries(&n, files);

	fresh = merge_paths(NULL, in, n, cJSON_GetObjectItemCaseSensitive(state, "files"));
	free(in);
	return fresh;
}

/* Whether the entries of v (n) that are not fresh, the manifest as it was, hold no nesting. */
static int manifest_was_sound(struct state_path_entry *v, size_t n)
{
	struct state_path_entry *old = xcalloc(n + 1, sizeof(*old));
	size_t k = 0;
	char *err = NULL;
	int ok;

	for (size_t i = 0; i < n; i++)
		if (!v[i].fresh)
			old[k++] = v[i];
	ok = state_paths_check(&err, old, k) == 0;
	free(err);
	free(old);
	return ok;
}

/* Manifest entry e displaced (state_paths_supersede): out of the manifest below a link, else deleted. */
static void supersede(cJSON *manifest, cJSON *e, int below_link)
{
	if (below_link) {
		cJSON_Delete(cJSON_DetachItemViaPointer(manifest, e));
		return;
	}
	json_set_str(e, "status", ST_DELETED);
	json_set(e, "oid", cJSON_CreateNull());
	for (const char *const *k = (const char *const[]){ "mode", "size", "mtime", "ino", NULL }; *k; k++)
		cJSON_DeleteItemFromObjectCaseSensitive(e, *k);
}

static struct state_path_entry path_entry(const cJSON *f, const char *status, int fresh)
{
	const char *st = status ? status : json_str(f, "status"), *mode = json_str(f, "mode");

	return (struct state_path_entry){ f->string, NULL, st && !strcmp(st, ST_DELETED),
					  mode && !strcmp(mode, FILE_MODE_LINK), fresh, 0, 0 };
}

/*
 * Whether the manifest's entries and the fresh ones (v, k entries, in
 * path order) may stand together once what the fresh ones displace is
 * gone (state_paths_supersede marks it in v): GS_ERROR and *err when not
 * (caller frees), unless the manifest already was so.
 */
static int nesting_check(char **err, struct state_path_entry *v, size_t k)
{
	struct state_path_entry *after = xcalloc(k + 1, sizeof(*after));
	size_t kept = 0;
	int error;

	if ((error = state_paths_supersede(err, v, k)) == 0) {
		for (size_t j = 0; j < k; j++)
			if (!(v[j].superseded && v[j].below_link)) {
				after[kept] = v[j];
				after[kept].deleted |= v[j].superseded;
				after[kept++].link &= !v[j].superseded;
			}
		error = state_paths_check(err, after, kept);
	}
	free(after);
	if (error && !manifest_was_sound(v, k)) {
		free(*err);	/* the manifest was already so (an earlier version wrote it): restore judges it */
		*err = NULL;
		error = 0;
	}
	return error;
}

/*
 * The manifest as it would be with in (*n entries, sorted by path, with
 * known[i] the manifest's entry of in[i]) recorded, in one pass. What a
 * fresh entry displaces, as git add does (a file that became a folder, a
 * folder that became a file or a link), goes: deleted, or out of the
 * manifest below a link, through which restore would never delete; then
 * nothing may come below a file or a link. Only when that holds is the
 * manifest changed (and in and known lose what a link displaced).
 */
static int record_nesting(struct apply_ctx *c, cJSON *manifest, cJSON **in, cJSON **known, int *n,
			  const char *status)
{
	size_t size = (size_t)cJSON_GetArraySize(manifest) + (size_t)*n + 1, k = 0, out = 0;
	struct state_path_entry *v = xcalloc(size, sizeof(*v));
	cJSON **at = xcalloc(size, sizeof(*at)), *m = manifest ? manifest->child : NULL;
	int i = 0, error;
	char *err = NULL;

	while (m || i < *n) {
		int cmp = !m ? 1 : i == *n ? -1 : strcmp(m->string, in[i]->string);

		at[k] = cmp < 0 ? m : NULL;
		v[k++] = cmp < 0 ? path_entry(m, NULL, 0) : path_entry(in[i++], status, 1);
		if (cmp <= 0)
			m = m->next;
	}
	if ((error = nesting_check(&err, v, k)) < 0) {
		error = state_fail(c, "%s", err);
		goto cleanup;
	}
	for (size_t j = 0, fi = 0; j < k; j++) {
		int gone = v[j].superseded && v[j].below_link;

		if (at[j]) {
			if (v[j].superseded)
				supersede(manifest, at[j], gone);
			continue;
		}
		if (gone && known[fi])
			cJSON_Delete(cJSON_DetachItemViaPointer(manifest, known[fi]));
		if (!gone) {
			in[out] = in[fi];
			known[out++] = known[fi];
		}
		fi++;
	}
	*n = (int)out;
cleanup:
	free(err);
	free(at);
	free(v);
	return error;
}

int state_record_files(struct apply_ctx *c, const cJSON *files, const char *status,
		       const char *agent, const cJSON *phase)
{
	cJSON *manifest = json_obj(c->state, "files"), **in, **out, **known;
	const cJSON *f;
	int n = 0, fresh, error = 0;

	if (!cJSON_IsObject(files))
		return state_fail(c, "files must be an object");
	for (f = files->child; f; f = f->next) {
		const char *oid = json_str(f, "oid"), *st = status ? status : json_str(f, "status");
		const char *mode = json_str(f, "mode"), *why;

		if ((why = state_path_problem(f->string, mode && !strcmp(mode, FILE_MODE_LINK))))
			return state_fail(c, "invalid path '%s': %s", f->string, why);
		if (!st || (strcmp(st, ST_CREATED) && strcmp(st, ST_MODIFIED) && strcmp(st, ST_DELETED)))
			return state_fail(c, "'%s': status must be created, modified or deleted", f->string);
		if (!!oid == !strcmp(st, ST_DELETED))
			return state_fail(c, "'%s': a deleted file has no blob, others need one", f->string);
		if (oid && !state_is_oid(oid))
			return state_fail(c, "'%s': oid must be 40 lower-case hexadecimal digits", f->string);
	}
	in = sorted_entries(&n, files);
	known = xcalloc((size_t)n + 1, sizeof(*known));
	fresh = merge_paths(known, in, n, manifest);
	if (fresh && c->lim->files_elsewhere < 0)
		error = GS_EPARTIAL;	/* new paths: the whole manifest must be counted */
	else if (cJSON_GetArraySize(manifest) + c->lim->files_elsewhere + fresh > STATE_MANIFEST_MAX)
		error = state_fail(c, "a session's manifest holds at most %d files", STATE_MANIFEST_MAX);
	if (!error)
		error = record_nesting(c, manifest, in, known, &n, status);
	if (!error) {
		out = xcalloc((size_t)n + 1, sizeof(*out));
		for (int i = 0; i < n; i++)
			out[i] = file_entry(c, in[i], known[i], status, agent, phase);
		files_merge(manifest, out, n);
		free(out);
	}
	free(in);
	free(known);
	return error ? error : n;
}

int state_apply_checkpoint(struct apply_ctx *c)
{
	const char *msg;
	cJSON *agent;
	int n;

	if (state_arg_text(&msg, c, "message", 0) || state_arg_agent(&agent, c, 0) < 0)
		return GS_ERROR;
	/* an agent's: what its shell commands changed */
	if ((n = state_record_files(c, cJSON_GetObjectItemCaseSensitive(c->args, "files"),
				    NULL, agent ? json_str(agent, "id") : NULL, NULL)) < 0)
		return n;
	sbuf_adds(&c->subject, "checkpoint");
	if (msg && *msg) {
		sbuf_adds(&c->subject, ": ");
		state_subject_quote(&c->subject, msg, 60);
	} else {
		sbuf_addf(&c->subject, ": %d file%s", n, n == 1 ? "" : "s");
	}
	if (agent)
		sbuf_addf(&c->subject, " by %s", json_str(agent, "id"));
	return 0;
}

/* The files a restore wrote, as it wrote them from checkpoint "from". */
int state_apply_restore(struct apply_ctx *c)
{
	const cJSON *files;
	const char *from;
	int n;

	if (state_arg_text(&from, c, "from", 1))
		return GS_ERROR;
	if ((n = state_record_files(c, cJSON_GetObjectItemCaseSensitive(c->args, "files"), NULL, NULL, NULL)) < 0)
		return n;
	files = cJSON_GetObjectItemCaseSensitive(c->args, "files");
	if (n == 1 && cJSON_GetArraySize(files) == 1) {	/* the one file by name, for git log --grep */
		sbuf_adds(&c->subject, "restore ");
		state_subject_quote(&c->subject, files->child->string, 60);
		sbuf_addf(&c->subject, " from %.7s", from);
	} else {
		sbuf_addf(&c->subject, "restore %d files from %.7s", n, from);
	}
	return 0;
}
