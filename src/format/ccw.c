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
	if (json_parse(&v, buf, len, FORMAT_MAX_BYTES, err) < 0)
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

/* The phases as named checkpoints, or (an older shape) as a map "phases": {"INIT": {...}}. */
static void import_checkpoints(cJSON *state, cJSON *doc)
{
	const char *key = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "checkpoints")) ? "checkpoints" : "phases";
	cJSON *cps = cJSON_GetObjectItemCaseSensitive(doc, key), *c;
	const char *cur = json_str(doc, "current_phase");
	int n = 0;

	if (!cJSON_IsObject(cps))
		return;
	cJSON_ArrayForEach(c, cps)
		if (!cJSON_IsObject(c))
			return;
	cJSON_ArrayForEach(c, cps) {
		cJSON *p = state_new_phase(n + 1, NULL), *in = cJSON_Duplicate(c, 1);
		const char *st = fmt_word_in(phase_statuses, json_str(in, "status"), NULL);

		json_set_num(p, "id", ++n);
		json_set_str(p, "name", c->string);
		json_set_str(p, "status", st ? st : ST_PENDING);
		if (st)
			cJSON_DeleteItemFromObjectCaseSensitive(in, "status");
		fmt_move_rest(p, in);
		cJSON_Delete(in);
		if (cur && !strcasecmp(cur, c->string)) {
			json_set_num(state, "current_phase", n);
			cJSON_DeleteItemFromObjectCaseSensitive(doc, "current_phase");
			cur = NULL;
		}
		cJSON_AddItemToArray(json_arr(state, "phases"), p);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
	if (!strcmp(key, "phases"))
		json_set_str(json_obj(json_obj(state, "extra"), "ccw_shape"), "phases", key);
}

static void import_session(cJSON *state, cJSON *doc)
{
	const char *st = fmt_word_in(statuses, json_str(doc, "status"), NULL);

	if (json_str(doc, "session_id"))
		fmt_take(state, "session_id", doc, "session_id");
	if (json_str(doc, "project"))
		fmt_take(state, "goal", doc, "project");
	if (json_str(doc, "created_at"))
		fmt_take(state, "created", doc, "created_at");
	else if (json_str(doc, "created"))
		fmt_take(state, "created", doc, "created");
	if (json_str(doc, "updated_at"))
		fmt_take(state, "updated", doc, "updated_at");
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

static cJSON *export_session(const cJSON *state)
{
	const cJSON *extra = fmt_from_extra(state, format_ccw.name), *p;
	cJSON *doc = cJSON_CreateObject(), *cps;
	double cur = json_num(state, "current_phase", -1);

	fmt_copy(doc, "session_id", state, "session_id");
	json_set_str(doc, "session_version", "2.0");
	json_set(doc, "project", json_dup_or_null(state, "goal"));
	json_set(doc, "type", cJSON_CreateNull());
	json_set(doc, "current_phase", cJSON_CreateNull());
	json_set_str(doc, "status", fmt_word_out(statuses, json_str(state, "status")));
	fmt_copy(doc, "created_at", state, "created");
	fmt_copy(doc, "updated_at", state, "updated");
	cps = json_obj(doc, json_str(fmt_from_extra(state, "ccw_shape"), "phases") ? "phases" : "checkpoints");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		cJSON *c = json_set(cps, json_str(p, "name"), cJSON_CreateObject());

		json_set_str(c, "status", fmt_word_out(phase_statuses, json_str(p, "status")));
		fmt_copy_rest(c, p, state_phase_fields);
		if (json_num(p, "id", -2) == cur) {
			char *up = xstrdup(json_str(p, "name"));
			for (char *s = up; *s; s++)
				*s = (char)toupper((unsigned char)*s);
			json_set_str(doc, "current_phase", up);
			free(up);
		}
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
