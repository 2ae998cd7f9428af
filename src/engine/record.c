/*
 * record.c - files of the working tree and of commits as manifest entries.
 * The store says what it found (a file recorded, the files the index
 * stages, the files a commit changed); the model makes the manifest's
 * entries of it (state_record_entry). A file's stat data stays with the
 * store, in this clone's stat cache: the manifest is shared.
 */
#include "git-session/engine.h"
#include "git-session/json.h"
#include "git-session/schema.h"
#include "git-session/state_record.h"
#include "git-session/store_worktree.h"

#include <string.h>

/* What the manifest's entry known recorded, as the store takes it; NULL when it names no blob. */
static const struct store_file_fact *known_fact(struct store_file_fact *out, const cJSON *known)
{
	struct state_file_seen seen;

	if (!known || state_record_known(&seen, known) < 0 || strlen(seen.oid) != HEX_SZ - 1)
		return NULL;	/* a longer id would be cut to one that reads: trust none */
	memset(out, 0, sizeof(*out));
	out->found = STORE_FOUND_FILE;
	memcpy(out->oid, seen.oid, HEX_SZ);
	out->mode = seen.mode;
	return out;
}

static int record(cJSON *files, gs_store *st, const char *path, const char *status, int allow_missing,
		  int fresh, const cJSON *known)
{
	struct store_file_fact fact, was;
	struct state_file_seen seen = { 0 };
	cJSON *e;
	int error = store_worktree_record(&fact, st, path, allow_missing, known_fact(&was, known));

	if (error < 0 || fact.found == STORE_FOUND_SPARSE)
		return error;
	seen.gone = fact.found == STORE_FOUND_GONE;
	seen.oid = fact.oid;
	seen.mode = fact.mode;
	e = state_record_entry(&seen, status);
	if (fresh)	/* no lookup: recording a whole manifest stays linear */
		cJSON_AddItemToObject(files, path, e);
	else
		json_set(files, path, e);
	return 0;
}

int engine_record_file(cJSON *files, gs_store *st, const char *path, const char *status, int allow_missing)
{
	return record(files, st, path, status, allow_missing, 0, NULL);
}

int engine_record_file_new(cJSON *files, gs_store *st, const char *path, const char *status, const cJSON *known)
{
	return record(files, st, path, status, 1, 1, known);
}

/* files for the manifest from changes: path -> {"status": created|modified|deleted, "oid": the new blob}. */
static cJSON *changed_files(const struct store_changes *changes)
{
	static const char *const status[] = { [STORE_ADDED] = ST_CREATED, [STORE_MODIFIED] = ST_MODIFIED,
					      [STORE_DELETED] = ST_DELETED };
	cJSON *files = cJSON_CreateObject();

	for (size_t i = 0; i < changes->n; i++) {
		const struct store_changed_file *f = &changes->v[i];
		struct state_file_seen seen = { .gone = f->change == STORE_DELETED, .oid = f->oid };

		/* paths git lists once each: appended, no lookup */
		cJSON_AddItemToObject(files, f->path, state_record_entry(&seen, status[f->change]));
	}
	return files;
}

int engine_staged_files(cJSON **out, gs_store *st)
{
	struct store_changes changes = { 0 };
	int error = store_worktree_staged(&changes, st);

	*out = error < 0 ? NULL : changed_files(&changes);
	store_changes_clear(&changes);
	return error;
}

int engine_commit_files(char **subject, cJSON **files, gs_store *st, const char *oid)
{
	struct store_changes changes = { 0 };
	int error = store_worktree_commit(subject, &changes, st, oid);

	*files = error < 0 ? NULL : changed_files(&changes);
	store_changes_clear(&changes);
	return error;
}
