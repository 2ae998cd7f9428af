/*
 * state_record.c - a manifest entry from what recording a file found,
 * and the blob an entry holds. A file's stat data is one clone's fact:
 * it stays in that clone's stat cache (store_cache.c), never in an entry.
 * Pure: no I/O, no git.
 */
#include "git-session/state_record.h"
#include "git-session/json.h"
#include "git-session/schema.h"

#include <string.h>

cJSON *state_record_entry(const struct state_file_seen *seen, const char *status)
{
	cJSON *e = cJSON_CreateObject();

	if (seen->gone) {
		json_set_str(e, "status", ST_DELETED);
		return e;
	}
	json_set_str(e, "status", status ? status : ST_MODIFIED);
	json_set_str(e, "oid", seen->oid);
	if (seen->mode && strcmp(seen->mode, FILE_MODE_FILE))
		json_set_str(e, "mode", seen->mode);
	return e;
}

int state_record_known(struct state_file_seen *out, const cJSON *entry)
{
	memset(out, 0, sizeof(*out));
	if (!(out->oid = json_str(entry, "oid")))
		return -1;
	out->mode = json_str(entry, "mode");
	return 0;
}
