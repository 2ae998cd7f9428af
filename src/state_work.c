/*
 * state_work.c - the work a session tracks: phases and their
 * transitions, agents, files, errors, tokens, decisions, tasks,
 * milestones. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdlib.h>
#include <string.h>

cJSON *state_new_phase(int id, const char *name)
{
	cJSON *p = cJSON_CreateObject();

	json_set_num(p, "id", id);
	json_set_str(p, "name", name);
	json_set_str(p, "status", "pending");
	json_set(p, "agents", cJSON_CreateArray());
	json_set_bool(p, "parallel", 0);
	json_set(p, "blocked_by", cJSON_CreateArray());
	json_set_str(p, "started", NULL);
	json_set_str(p, "completed", NULL);
	json_set_num(p, "retry_count", 0);
	json_set_str(p, "sub_step", NULL);
	json_set_str(p, "downstream_context", NULL);
	return p;
}

const char *state_phase_moves(const char *from)
{
	if (!strcmp(from, "pending"))
		return "start, skip";
	if (!strcmp(from, "in_progress"))
		return "complete, fail";
	if (!strcmp(from, "failed"))
		return "retry";
	return "none";
}

static const struct op_handler work_handlers[] = {
	{ NULL, NULL, 0 },
};

const struct op_handler *state_work_handlers(size_t *n)
{
	*n = 0;
	return work_handlers;
}
