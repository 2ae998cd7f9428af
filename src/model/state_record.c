/*
 * state_record.c - a manifest entry from what recording a file found,
 * and the blob and stat cache an entry holds. Pure: no I/O, no git.
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
	if (seen->has_stat) {
		json_set_num(e, "size", seen->size);
		json_set_num(e, "mtime", seen->mtime);
		json_set_num(e, "ino", seen->ino);
	}
	return e;
}

int state_record_known(struct state_file_seen *out, const cJSON *entry)
{
	memset(out, 0, sizeof(*out));
	if (!(out->oid = json_str(entry, "oid")))
		return -1;
	out->mode = json_str(entry, "mode");
	out->has_stat = 1;
	out->size = json_num(entry, "size", -1);
	out->mtime = json_num(entry, "mtime", -1);
	out->ino = json_num(entry, "ino", -1);
	return 0;
}
