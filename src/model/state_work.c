/*
 * state_work.c - the rest of the work a session tracks: files, errors,
 * decisions, tasks, milestones and artifacts. Also the fields of each
 * kind of entry. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <string.h>

static const char *const error_types[] = GS_WORD_ARRAY(GS_ERROR_TYPES);

#define GS_FIELD_NAME(f) #f,
const char *const state_phase_fields[] = { GS_PHASE_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_agent_fields[] = { GS_AGENT_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_error_fields[] = { GS_ERROR_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_decision_fields[] = { GS_DECISION_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_task_fields[] = { GS_TASK_FIELDS(GS_FIELD_NAME) NULL };
const char *const state_artifact_fields[] = { GS_ARTIFACT_FIELDS(GS_FIELD_NAME) NULL };
#undef GS_FIELD_NAME

cJSON *state_new_error(struct apply_ctx *c, const char *type, const char *message,
		       const char *agent, const cJSON *phase)
{
	cJSON *e = cJSON_CreateObject();

	json_set_str(e, "agent", agent);
	if (phase)
		json_set_num(e, "phase", json_num(phase, "id", 0));
	else
		json_set_str(e, "phase", NULL);
	json_set_str(e, "timestamp", c->at);
	json_set_str(e, "type", type);
	json_set_str(e, "message", message);
	json_set_str(e, "resolution", ST_PENDING);
	json_set_bool(e, "resolved", 0);
	cJSON_AddItemToArray(json_arr(c->state, "errors"), e);
	return e;
}

int state_arg_error_type(const char **out, struct apply_ctx *c, const char *def)
{
	if (state_arg_text(out, c, "type", 0) < 0)
		return GS_ERROR;
	if (!*out && !(*out = def))
		return state_fail(c, "missing type (one of %s)", GS_WORDS_COMMA(GS_ERROR_TYPES));
	for (size_t i = 0; error_types[i]; i++)
		if (!strcmp(*out, error_types[i]))
			return 0;
	return state_fail(c, "unknown error type '%s' (one of %s)", *out, GS_WORDS_COMMA(GS_ERROR_TYPES));
}

static int apply_file_op(struct apply_ctx *c, const char *status)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(c->args, "files");
	cJSON *agent, *phase;
	int n;

	if (state_arg_agent(&agent, c, 0) < 0 || state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	if (!phase && agent && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(agent, "phase")))
		phase = state_phase(c->state, (int)json_num(agent, "phase", 0));
	{
		cJSON *id = phase ? cJSON_CreateNumber(json_num(phase, "id", 0)) : NULL;
		n = state_record_files(c, files, status, agent ? json_str(agent, "id") : NULL, id);
		cJSON_Delete(id);
	}
	if (n < 0)
		return n;
	if (n == 1)
		sbuf_addf(&c->subject, "file %s: %s", status, cJSON_IsObject(files) ? files->child->string : "");
	else
		sbuf_addf(&c->subject, "%d files %s", n, status);
	if (agent)
		sbuf_addf(&c->subject, " by %s", json_str(agent, "id"));
	return 0;
}

int state_apply_file_created(struct apply_ctx *c)
{
	return apply_file_op(c, ST_CREATED);
}

int state_apply_file_modified(struct apply_ctx *c)
{
	return apply_file_op(c, ST_MODIFIED);
}

int state_apply_file_deleted(struct apply_ctx *c)
{
	return apply_file_op(c, ST_DELETED);
}

int state_apply_error_add(struct apply_ctx *c)
{
	const char *message, *type;
	cJSON *agent, *phase;

	if (state_arg_text(&message, c, "message", 1) < 0 || state_arg_error_type(&type, c, NULL) < 0 ||
	    state_arg_agent(&agent, c, 0) < 0 || state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	state_new_error(c, type, message, agent ? json_str(agent, "id") : NULL, phase);
	sbuf_addf(&c->subject, "error #%d (%s): ", state_size(c, SPLIT_ERRORS), type);
	state_subject_quote(&c->subject, message, 50);
	return 0;
}

int state_apply_error_resolve(struct apply_ctx *c)
{
	double n = json_num(c->args, "error", 0);
	const char *resolution;
	cJSON *e;

	if (state_arg_text(&resolution, c, "resolution", 1) < 0)
		return GS_ERROR;
	if (!json_is_int(n) || !(e = cJSON_GetArrayItem(json_arr(c->state, "errors"), (int)n - 1)) || n < 1)
		return state_fail(c, "no error #%g (the session has %d)", n,
				  cJSON_GetArraySize(json_arr(c->state, "errors")));
	if (json_bool(e, "resolved", 0))
		return state_fail(c, "error #%d is already resolved", (int)n);
	json_set_str(e, "resolution", resolution);
	json_set_bool(e, "resolved", 1);
	sbuf_addf(&c->subject, "error #%d resolved: ", (int)n);
	state_subject_quote(&c->subject, resolution, 50);
	return 0;
}

int state_apply_decide(struct apply_ctx *c)
{
	const char *decision, *rationale;
	cJSON *d, *agent;

	if (state_arg_text(&decision, c, "decision", 1) < 0 || state_arg_text(&rationale, c, "rationale", 0) < 0 ||
	    state_arg_agent(&agent, c, 0) < 0)
		return GS_ERROR;
	d = cJSON_CreateObject();
	json_set_str(d, "decision", decision);
	json_set_str(d, "rationale", rationale);
	json_set_str(d, "timestamp", c->at);
	json_set_str(d, "agent", agent ? json_str(agent, "id") : NULL);
	cJSON_AddItemToArray(json_arr(c->state, "decisions"), d);
	sbuf_adds(&c->subject, "decide: ");
	state_subject_quote(&c->subject, decision, 60);
	return 0;
}

int state_apply_task_add(struct apply_ctx *c)
{
	cJSON *tasks = json_arr(c->state, "tasks"), *t;
	const char *title;

	if (state_arg_text(&title, c, "title", 1) < 0)
		return GS_ERROR;
	t = cJSON_CreateObject();
	json_set_num(t, "id", cJSON_GetArraySize(tasks) + 1);
	json_set_str(t, "title", title);
	json_set_str(t, "status", ST_PENDING);
	json_set_str(t, "created", c->at);
	json_set_str(t, "completed", NULL);
	cJSON_AddItemToArray(tasks, t);
	sbuf_addf(&c->subject, "task #%d: ", cJSON_GetArraySize(tasks));
	state_subject_quote(&c->subject, title, 60);
	return 0;
}

int state_apply_task_done(struct apply_ctx *c)
{
	double n = json_num(c->args, "task", 0);
	cJSON *t = json_is_int(n) && n >= 1 ? cJSON_GetArrayItem(json_arr(c->state, "tasks"), (int)n - 1) : NULL;

	if (!t)
		return state_fail(c, "no task #%g", n);
	if (!strcmp(json_str(t, "status"), ST_DONE))
		return state_fail(c, "task #%d is already done", (int)n);
	json_set_str(t, "status", ST_DONE);
	json_set_str(t, "completed", c->at);
	sbuf_addf(&c->subject, "task #%d done: ", (int)n);
	state_subject_quote(&c->subject, json_str(t, "title"), 60);
	return 0;
}

static cJSON *milestone(const cJSON *state, const char *name)
{
	cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(state, "milestones"))
		if (json_str(m, "name") && !strcmp(json_str(m, "name"), name))
			return m;
	return NULL;
}

int state_apply_milestone_add(struct apply_ctx *c)
{
	const char *name;
	cJSON *m;

	if (state_arg_text(&name, c, "name", 1) < 0)
		return GS_ERROR;
	if (milestone(c->state, name))
		return state_fail(c, "milestone \"%s\" already exists", name);
	m = cJSON_CreateObject();
	json_set_str(m, "name", name);
	json_set_str(m, "completed", NULL);
	cJSON_AddItemToArray(json_arr(c->state, "milestones"), m);
	sbuf_adds(&c->subject, "milestone ");
	state_subject_quote(&c->subject, name, 60);
	return 0;
}

int state_apply_milestone_done(struct apply_ctx *c)
{
	const char *name;
	cJSON *m;

	if (state_arg_text(&name, c, "name", 1) < 0)
		return GS_ERROR;
	if (!(m = milestone(c->state, name)))
		return state_fail(c, "no milestone \"%s\"", name);
	if (json_str(m, "completed"))
		return state_fail(c, "milestone \"%s\" is already done", name);
	json_set_str(m, "completed", c->at);
	sbuf_adds(&c->subject, "milestone reached: ");
	state_subject_quote(&c->subject, name, 60);
	return 0;
}

int state_apply_artifact(struct apply_ctx *c)
{
	const char *path;
	cJSON *agent, *phase, *a;

	if (state_arg_text(&path, c, "path", 1) < 0 || state_arg_agent(&agent, c, 0) < 0 ||
	    state_arg_phase(&phase, c, "phase", 0) < 0)
		return GS_ERROR;
	if (!state_valid_path(path))
		return state_fail(c, "invalid path '%s'", path);
	a = cJSON_CreateObject();
	json_set_str(a, "path", path);
	json_set_str(a, "created", c->at);
	json_set_str(a, "agent", agent ? json_str(agent, "id") : NULL);
	if (phase)
		json_set_num(a, "phase", json_num(phase, "id", 0));
	else
		json_set_str(a, "phase", NULL);
	cJSON_AddItemToArray(json_arr(c->state, "artifacts"), a);
	sbuf_addf(&c->subject, "artifact %s", path);
	return 0;
}
