/*
 * ccw.c - Claude Code Workflow sessions: .workflow/WFS-<slug>/
 * workflow-session.json (phases as named checkpoints) and the registry
 * .workflow/session_status.jsonl, one session per line. Pure: no I/O.
 */
#include "format-internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The registry's words, then those of the session files of each version. */
static const struct word statuses[] = {
	{ "active", ST_IN_PROGRESS }, { "paused", ST_PAUSED }, { "completed", ST_COMPLETED },
	{ "planning", ST_IN_PROGRESS }, { "initialized", ST_IN_PROGRESS }, { "in_progress", ST_IN_PROGRESS },
	{ "executing", ST_IN_PROGRESS }, { "archived", ST_COMPLETED }, { NULL, NULL },
};
static const struct word phase_statuses[] = {
	{ "pending", ST_PENDING }, { "in_progress", ST_IN_PROGRESS }, { "completed", ST_COMPLETED },
	{ "failed", ST_FAILED }, { "skipped", ST_SKIPPED }, { NULL, NULL },
};

/* Non-zero when [p, end) holds only blanks (the buffer has no NUL to stop at). */
static int blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			return 0;
	return 1;
}

/* One JSON object per line: the registry. */
static int parse_lines(cJSON **doc, const char *buf, size_t len, char **err)
{
	const char *p = buf, *end = buf + len;
	cJSON *list = cJSON_CreateArray();
	int line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		cJSON *v = NULL;
		char *e = NULL;

		line++;
		if (!blank(p, p + n)) {
			if (json_parse(&v, p, n, FORMAT_MAX_BYTES, &e) < 0 || !cJSON_IsObject(v) ||
			    !json_str(v, "id")) {
				*err = xstrfmt("line %d: %s", line, e ? e : "not a session entry");
				free(e);
				cJSON_Delete(v);
				cJSON_Delete(list);
				return GS_ERROR;
			}
			cJSON_AddItemToArray(list, v);
		}
		p += n + 1;
	}
	*doc = cJSON_CreateObject();
	json_set(*doc, "registry", list);
	return 0;
}

static int ccw_parse(cJSON **doc, const char *buf, size_t len, char **err)
{
	cJSON *v;
	const char *nl = memchr(buf, '\n', len);

	/* two objects on two lines: the registry, not one JSON document */
	if (nl && json_parse(&v, buf, (size_t)(nl - buf), FORMAT_MAX_BYTES, err) == 0) {
		cJSON_Delete(v);
		if (!blank(nl, buf + len))
			return parse_lines(doc, buf, len, err);
	}
	free(*err);
	*err = NULL;
	if (fmt_parse_json(&v, buf, len, err) < 0)
		return GS_ERROR;
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		*err = xstrdup("not a JSON object");
		return GS_ERROR;
	}
	if (json_str(v, "id") && json_str(v, "directory")) {	/* a registry of one */
		*doc = cJSON_CreateObject();
		cJSON_AddItemToArray(json_arr(*doc, "registry"), v);
		return 0;
	}
	*doc = cJSON_CreateObject();
	json_set(*doc, "session", v);
	return 0;
}

static int ccw_detect(const cJSON *doc)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "session");
	const char *id = json_str(s, "session_id");

	if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "registry")))
		return 1;
	if (json_str(s, "schema_version") && strchr(json_str(s, "schema_version"), '/'))
		return 0;	/* "session/3.0": maestro-flow's, which also lives under .workflow/ */
	return cJSON_GetObjectItemCaseSensitive(s, "session_version") ||
	       cJSON_GetObjectItemCaseSensitive(s, "checkpoints") || (id && !strncmp(id, "WFS-", 4));
}

static int ccw_upgrade(cJSON *doc, char **err)
{
	if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "registry"))) {
		*err = xstrdup("a registry of sessions: import it as a whole");
		return GS_ERROR;
	}
	return 0;
}

/* A phase's status in the model: its own word, or a word that ends in one ("synthesis_completed"). */
static const char *phase_status_in(const char *w)
{
	static const struct word ends[] = {
		{ "completed", ST_COMPLETED }, { "complete", ST_COMPLETED }, { "done", ST_COMPLETED },
		{ "failed", ST_FAILED }, { "error", ST_FAILED }, { "in_progress", ST_IN_PROGRESS },
		{ "active", ST_IN_PROGRESS }, { "running", ST_IN_PROGRESS }, { "skipped", ST_SKIPPED },
		{ "pending", ST_PENDING }, { NULL, NULL },
	};
	const char *st = fmt_word_in(phase_statuses, w, NULL);
	size_t n = w ? strlen(w) : 0;

	for (const struct word *e = ends; !st && w && e->theirs; e++) {
		size_t m = strlen(e->theirs);
		if (n >= m && !strcasecmp(w + n - m, e->theirs))
			st = e->ours;
	}
	return st;
}

/* Whether s has capitals and no small letters ("IMPLEMENT"). */
static int upper(const char *s)
{
	int caps = 0;

	for (; *s; s++) {
		if (islower((unsigned char)*s))
			return 0;
		caps |= isupper((unsigned char)*s);
	}
	return caps;
}

/* The phase current_phase names: by name (any case) or by number (phases count from 1). */
static int current_of(const cJSON *cur, const cJSON *phases)
{
	const cJSON *p;

	if (cJSON_IsNumber(cur) && cur->valuedouble == (int)cur->valuedouble && cur->valuedouble >= 1 &&
	    cur->valuedouble <= cJSON_GetArraySize(phases))
		return (int)cur->valuedouble;
	cJSON_ArrayForEach(p, phases)
		if (cJSON_IsString(cur) && json_str(p, "name") && !strcasecmp(cur->valuestring, json_str(p, "name")))
			return (int)json_num(p, "id", 0);
	return 0;
}

/* One phase more: c, its status word or its object (whose "name" the caller took as name). */
static void add_phase(cJSON *phases, const char *name, const cJSON *c)
{
	int n = cJSON_GetArraySize(phases) + 1;
	cJSON *p = state_new_phase(n, NULL), *in = cJSON_IsObject(c) ? cJSON_Duplicate(c, 1) : NULL;
	const char *st = phase_status_in(in ? json_str(in, "status") : c->valuestring);

	json_set_num(p, "id", n);
	json_set_str(p, "name", name);
	json_set_str(p, "status", st ? st : ST_PENDING);
	if (st)
		cJSON_DeleteItemFromObjectCaseSensitive(in, "status");	/* another word: the patch keeps it */
	fmt_move_rest(p, in);
	cJSON_Delete(in);
	cJSON_AddItemToArray(phases, p);
}

/* How a document holds its phases: "map" (of objects or words), "list" (of named objects), NULL for neither. */
static const char *phases_shape(const cJSON *cps)
{
	const cJSON *c;

	if (!cJSON_IsObject(cps) && !cJSON_IsArray(cps))
		return NULL;
	cJSON_ArrayForEach(c, cps)
		if (cJSON_IsArray(cps) ? !json_str(c, "name") : !cJSON_IsObject(c) && !cJSON_IsString(c))
			return NULL;
	return cJSON_IsObject(cps) ? "map" : cJSON_IsArray(cps) && cps->child ? "list" : NULL;
}

/*
 * The phases as named checkpoints, or as a map "phases": {"INIT": {...}}
 * whose values may also be bare status words ({"session_discovery": "completed"}),
 * or as a list of phases with a name each.
 */
static void import_checkpoints(cJSON *state, cJSON *doc)
{
	const char *key = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "checkpoints")) ? "checkpoints" : "phases";
	cJSON *cps = cJSON_GetObjectItemCaseSensitive(doc, key), *c, *shape, *phases;
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(doc, "current_phase");
	const char *how = phases_shape(cps);
	int words = 0, at;

	shape = json_obj(json_obj(state, "extra"), "ccw_shape");
	if (!cps)	/* none yet: phases added here go where CCW's commands write them today */
		json_set_str(shape, "phases", key);
	if (!how)
		goto done;
	phases = json_arr(state, "phases");
	cJSON_ArrayForEach(c, cps) {
		words += cJSON_IsString(c);
		add_phase(phases, !strcmp(how, "map") ? c->string : json_str(c, "name"), c);
	}
	if ((at = current_of(cur, phases))) {
		json_set_num(state, "current_phase", at);
		if (cJSON_IsNumber(cur))
			json_set_str(shape, "current_phase", "number");
		else if (strcmp(cur->valuestring, json_str(state_phase(state, at), "name")) && upper(cur->valuestring))
			json_set_str(shape, "current_phase", "upper");
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "current_phase");
	}
	if (words && words == cJSON_GetArraySize(phases))
		json_set_str(shape, "phase_values", "status");
	if (!strcmp(key, "phases"))
		json_set_str(shape, "phases", !strcmp(how, "list") ? "list" : key);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
done:
	if (!shape->child)
		cJSON_DeleteItemFromObjectCaseSensitive(json_obj(state, "extra"), "ccw_shape");
}

/* The text doc[key] (or doc[key][sub]), or NULL. */
static const char *str_at(const cJSON *doc, const char *key, const char *sub)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);

	if (sub)
		v = cJSON_GetObjectItemCaseSensitive(v, sub);
	return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

/*
 * The session's goal: "goal" or "project" (taken: the export writes the
 * key back), else what sessions of other commands say it in (copied: it
 * stays where the file has it): a task description, a brainstorm topic,
 * the scope.
 */
static void import_goal(cJSON *state, cJSON *doc)
{
	static const char *const also[][2] = {
		{ "task_description", NULL }, { "task_description", "goal" }, { "description", "GOAL" },
		{ "description", "goal" }, { "summary", "goal" }, { "description", NULL }, { "topic", NULL },
		{ "scope", NULL },
	};

	if (json_str(doc, "goal")) {
		fmt_take(state, "goal", doc, "goal");
		json_set_str(json_obj(json_obj(state, "extra"), "ccw_shape"), "goal", "goal");
		return;
	}
	if (json_str(doc, "project")) {
		fmt_take(state, "goal", doc, "project");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(also); i++)
		if (str_at(doc, also[i][0], also[i][1])) {
			json_set_str(state, "goal", str_at(doc, also[i][0], also[i][1]));
			return;
		}
}

/* The file's last date, when it has no updated_at: when it was created, started, completed or archived. */
static void import_updated(cJSON *state, const cJSON *doc)
{
	const char *latest = NULL;
	time_t t, last = 0;

	if (json_str(state, "created") && gs_time_parse_iso(&last, json_str(state, "created")) == 0)
		latest = json_str(state, "created");
	for (const char *const *k = (const char *const[]){ "execution_started_at", "completed_at", "archived_at",
							   NULL }; *k; k++)
		if (json_str(doc, *k) && gs_time_parse_iso(&t, json_str(doc, *k)) == 0 && (!latest || t >= last)) {
			latest = json_str(doc, *k);
			last = t;
		}
	if (latest)
		json_set_str(state, "updated", latest);
}

static void import_session(cJSON *state, cJSON *doc)
{
	const char *st = fmt_word_in(statuses, json_str(doc, "status"), NULL);

	if (json_str(doc, "session_id"))
		fmt_take(state, "session_id", doc, "session_id");
	import_goal(state, doc);
	if (json_str(doc, "created_at"))
		fmt_take(state, "created", doc, "created_at");
	else if (json_str(doc, "created"))
		fmt_take(state, "created", doc, "created");
	if (json_str(doc, "updated_at"))
		fmt_take(state, "updated", doc, "updated_at");
	else
		import_updated(state, doc);
	if (st)
		json_set_str(state, "status", st);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "status");	/* another word: the patch keeps it */
	import_checkpoints(state, doc);
	fmt_rest_to_extra(state, format_ccw.name, doc);
}

/* The registry's line: its status wins over the session file's. */
static void import_entry(cJSON *state, cJSON *e, int *active)
{
	const char *st = fmt_word_in(statuses, json_str(e, "status"), NULL);

	*active = st && !strcmp(st, ST_IN_PROGRESS);
	if (!json_str(state, "session_id"))
		fmt_take(state, "session_id", e, "id");
	else
		cJSON_DeleteItemFromObjectCaseSensitive(e, "id");
	if (st) {
		json_set_str(state, "status", st);
		cJSON_DeleteItemFromObjectCaseSensitive(e, "status");
	}
	if (json_str(e, "description"))
		fmt_take(state, "topic", e, "description");
	if (!json_str(state, "created") && json_str(e, "created"))
		fmt_take(state, "created", e, "created");
	if (json_str(e, "directory"))
		fmt_take(json_obj(json_obj(state, "extra"), format_ccw.name), "directory", e, "directory");
	fmt_rest_to_extra(state, "ccw_registry", e);
}

static int ccw_to_state(cJSON *state, cJSON *files, int *active, const cJSON *in, char **err)
{
	cJSON *doc = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(in, "session"), 1);
	cJSON *entry = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(in, "registry"), 1);

	(void)files;
	(void)err;
	*active = 0;
	if (doc) {
		import_session(state, doc);
		*active = json_str(state, "status") && !strcmp(json_str(state, "status"), ST_IN_PROGRESS);
	}
	if (cJSON_IsObject(entry))
		import_entry(state, entry, active);
	cJSON_Delete(doc);
	cJSON_Delete(entry);
	return 0;
}

/* current_phase as the file spells it, of phase p under key: its number, its key, or (version 2) its key in capitals. */
static cJSON *export_current(const cJSON *p, const char *key, const cJSON *shape)
{
	const char *how = json_str(shape, "current_phase");
	char *up;
	cJSON *v;

	if (how && !strcmp(how, "number"))
		return cJSON_CreateNumber(json_num(p, "id", 0));
	if (!how || strcmp(how, "upper"))
		return cJSON_CreateString(key);
	up = xstrdup(key);
	for (char *s = up; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	v = cJSON_CreateString(up);
	free(up);
	return v;
}

/* A phase's key in the map: its name; "phase <id>" for one without; its id added to a name already there. */
static char *phase_key(const cJSON *map, const cJSON *p)
{
	const char *name = json_str(p, "name");

	if (!name || !*name)
		return xstrfmt("phase %d", (int)json_num(p, "id", 0));
	if (cJSON_GetObjectItemCaseSensitive(map, name))
		return xstrfmt("%s (%d)", name, (int)json_num(p, "id", 0));
	return xstrdup(name);
}

static cJSON *export_session(const cJSON *state)
{
	const cJSON *extra = fmt_from_extra(state, format_ccw.name), *p;
	const cJSON *shape = fmt_from_extra(state, "ccw_shape");
	const char *values = json_str(shape, "phase_values");
	cJSON *doc = cJSON_CreateObject(), *cps;
	int list;

	fmt_copy(doc, "session_id", state, "session_id");
	json_set_str(doc, "session_version", "2.0");
	json_set(doc, json_str(shape, "goal") ? "goal" : "project", json_dup_or_null(state, "goal"));
	json_set(doc, "type", cJSON_CreateNull());
	json_set(doc, "current_phase", cJSON_CreateNull());
	json_set_str(doc, "status", fmt_word_out(statuses, json_str(state, "status")));
	fmt_copy(doc, "created_at", state, "created");
	fmt_copy(doc, "updated_at", state, "updated");
	list = json_str(shape, "phases") && !strcmp(json_str(shape, "phases"), "list");
	cps = list ? json_arr(doc, "phases") : json_obj(doc, json_str(shape, "phases") ? "phases" : "checkpoints");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		const char *st = fmt_word_out(phase_statuses, json_str(p, "status"));
		char *name = list ? xstrdup(json_str(p, "name") ? json_str(p, "name") : "") : phase_key(cps, p);
		cJSON *c;

		if (json_num(p, "id", -1) == json_num(state, "current_phase", -2))
			json_set(doc, "current_phase", export_current(p, name, shape));
		if (values && !strcmp(values, "status") && !list) {
			json_set_str(cps, name, st);
		} else {
			c = cJSON_CreateObject();
			if (list)
				json_set_str(c, "name", name);
			json_set_str(c, "status", st);
			fmt_copy_rest(c, p, state_phase_fields);
			if (list)
				cJSON_AddItemToArray(cps, c);
			else
				json_set(cps, name, c);
		}
		free(name);
	}
	json_set(doc, "context_chain", cJSON_CreateArray());
	json_set(doc, "state_transitions", cJSON_CreateArray());
	fmt_copy_rest(doc, extra, (const char *const[]){ "directory", NULL });
	return doc;
}

static cJSON *registry_entry(const cJSON *state)
{
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(fmt_from_extra(state, format_ccw.name), "directory");
	cJSON *e = cJSON_CreateObject();
	const char *st = json_str(state, "status");

	fmt_copy(e, "id", state, "session_id");
	json_set_str(e, "status", !strcmp(st, ST_ABORTED) ? "completed" : fmt_word_out(statuses, st));
	json_set(e, "description", json_str(state, "topic") ? json_dup_or_null(state, "topic")
							    : json_dup_or_null(state, "goal"));
	fmt_copy(e, "created", state, "created");
	if (dir) {
		json_set(e, "directory", cJSON_Duplicate(dir, 1));
	} else {
		char *d = xstrfmt(".workflow/%s", json_str(state, "session_id"));
		json_set_str(e, "directory", d);
		free(d);
	}
	fmt_copy_rest(e, fmt_from_extra(state, "ccw_registry"), (const char *const[]){ NULL });
	return e;
}

static cJSON *ccw_from_state(const cJSON *state)
{
	cJSON *doc = cJSON_CreateObject();

	json_set(doc, "session", export_session(state));
	json_set(doc, "registry", registry_entry(state));
	return doc;
}

static int ccw_registry_line(char **out, const cJSON *state)
{
	cJSON *doc = NULL, *e;
	char *err = NULL;

	/* as exported (the import's patch applied), or made up for a session that had none */
	if (format_export(&doc, &format_ccw, state, &err) < 0) {
		free(err);
		return GS_ERROR;
	}
	e = cJSON_GetObjectItemCaseSensitive(doc, "registry");
	if (cJSON_IsObject(e)) {
		*out = json_print(e, 0, NULL);
	} else {
		e = registry_entry(state);
		*out = json_print(e, 0, NULL);
		cJSON_Delete(e);
	}
	cJSON_Delete(doc);
	return 0;
}

static int ccw_print(char **out, size_t *len, const cJSON *doc, const char *part)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, part ? part : "session");

	if (!v)
		return 0;
	if (part && !strcmp(part, "registry")) {
		*out = json_print(v, 0, len);
		return 0;
	}
	return fmt_print_json(out, len, v);
}

/* The parts of the session the export writes (format_lost names the others). */
static const char ccw_holds[] = "phases";

static const cJSON *ccw_registry(const cJSON *doc)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(doc, "registry");

	return cJSON_IsArray(r) ? r : NULL;
}

static const char *ccw_registry_dir(const cJSON *entry)
{
	return json_str(entry, "directory");
}

/* {"session": the workflow-session.json's (when there is one), "registry": entry}. */
static int ccw_registry_doc(cJSON **doc, const cJSON *entry, const cJSON *session, char **err)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(session, "session");

	if (session && !cJSON_IsObject(s)) {
		*err = xstrdup("not a workflow session");
		return GS_ERROR;
	}
	*doc = cJSON_CreateObject();
	if (session)
		json_set(*doc, "session", cJSON_Duplicate(s, 1));
	json_set(*doc, "registry", cJSON_Duplicate(entry, 1));
	return 0;
}

/*
 * .workflow/active/<id>/ and .workflow/archives/<id>/, each with its
 * workflow-session.json, and the registry .workflow/session_status.jsonl.
 */
static const char *const session_dirs[] = { "active", "archives", NULL };

FORMAT_DEFINE(CCW, ccw,
	      .layout = { .session_file = "workflow-session.json", .session_dirs = session_dirs,
			  .registry_file = "session_status.jsonl" },
	      .registry = ccw_registry, .registry_dir = ccw_registry_dir, .registry_doc = ccw_registry_doc,
	      .registry_line = ccw_registry_line);
