/*
 * maestro.c - Maestro's session file (Gemini CLI, Claude Code):
 * Markdown with a front matter of phases, their files and errors, and token
 * usage; YAML up to 1.5, JSON from 1.6 (written back in the syntax it was
 * read in, JSON for a session from elsewhere). Pure: no I/O.
 */
#include "format-internal.h"
#include "git-session/yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct word statuses[] = {
	{ "in_progress", ST_IN_PROGRESS }, { "completed", ST_COMPLETED }, { "paused", ST_PAUSED },
	{ "aborted", ST_ABORTED }, { NULL, NULL },
};
static const struct word phase_statuses[] = {
	{ "pending", ST_PENDING }, { "in_progress", ST_IN_PROGRESS }, { "completed", ST_COMPLETED },
	{ "failed", ST_FAILED }, { "skipped", ST_SKIPPED }, { NULL, NULL },
};
static const char *const file_lists[] = { "files_created", "files_modified", "files_deleted" };
static const char *const file_status[] = { "created", "modified", "deleted" };

static char first_char(const char *p, const char *end)
{
	while (p < end && strchr(" \t\r\n", *p))
		p++;
	return p < end ? *p : 0;
}

/*
 * s without the quotes an agent wrote into a plain scalar (status:
 * \"pending\" reads as the six characters \"pending\" plus the quotes);
 * the caller frees it. The file's own spelling comes back through the patch.
 */
static char *unwrapped(const char *s)
{
	size_t skip = strspn(s, "\\\"'"), len = strlen(s);

	while (len > skip && strchr("\\\"'", s[len - 1]))
		len--;
	return xstrndup(s + skip, len - skip);
}

/* "---\n<yaml or json>\n---\n<body>": the front matter and the body. */
static int maestro_parse(cJSON **doc, const char *buf, size_t len, char **err)
{
	const char *p = buf, *end = buf + len, *close = NULL;
	cJSON *fm = NULL;
	int json;

	if (len < 4 || strncmp(buf, "---", 3) || (buf[3] != '\n' && buf[3] != '\r')) {
		*err = xstrdup("no front matter: a Maestro session file begins with a '---' line, "
			       "then its state, then '---' and the log");
		return GS_ERROR;
	}
	for (p = memchr(buf, '\n', len); p && p + 1 < end; p = memchr(p + 1, '\n', (size_t)(end - p - 1)))
		if (end - p > 3 && !strncmp(p + 1, "---", 3) &&
		    (p + 4 == end || p[4] == '\n' || p[4] == '\r')) {
			close = p + 1;
			break;
		}
	if (!close) {
		*err = xstrdup("the front matter is not closed by a '---' line");
		return GS_ERROR;
	}
	json = first_char(buf + 3, close) == '{';
	/* YAML from the first '---' (a document start to YAML), so that lines are the file's */
	if (json ? json_parse(&fm, buf + 3, (size_t)(close - buf - 3), FORMAT_MAX_BYTES, err) < 0
		 : yaml_parse(&fm, buf, (size_t)(close - buf), FORMAT_MAX_BYTES, err) < 0) {
		size_t at, line = 1;

		if (json && sscanf(*err, "invalid JSON near byte %zu", &at) == 1) {	/* the file's line */
			for (p = buf; p < buf + 3 + at && p < close; p++)
				line += *p == '\n';
			free(*err);
			*err = xstrfmt("%zu: invalid JSON", line);
		}
		return GS_ERROR;
	}
	if (!cJSON_IsObject(fm)) {
		cJSON_Delete(fm);
		*err = xstrdup("the front matter is not a mapping");
		return GS_ERROR;
	}
	p = memchr(close, '\n', (size_t)(end - close));
	p = p ? p + 1 : end;
	*doc = cJSON_CreateObject();
	json_set(*doc, "front_matter", fm);
	json_set_str(*doc, "syntax", json ? "json" : "yaml");
	{
		char *body = xstrndup(p, (size_t)(end - p));
		json_set_str(*doc, "body", body);
		free(body);
	}
	return 0;
}

static int maestro_detect(const cJSON *doc)
{
	const cJSON *fm = cJSON_GetObjectItemCaseSensitive(doc, "front_matter");

	return cJSON_GetObjectItemCaseSensitive(fm, "session_id") ||
	       cJSON_GetObjectItemCaseSensitive(fm, "phases") ||
	       cJSON_GetObjectItemCaseSensitive(fm, "token_usage");
}

static int maestro_upgrade(cJSON *doc, char **err)
{
	(void)doc;
	(void)err;
	return 0;
}

static void add_plan(cJSON *plans, cJSON *fm, const char *key, const char *role)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(fm, key);
	cJSON *p;

	if (!cJSON_IsString(v))
		return;
	p = cJSON_CreateObject();
	json_set_str(p, "path", v->valuestring);
	json_set_str(p, "oid", NULL);
	json_set_str(p, "role", role);
	cJSON_AddItemToArray(plans, p);
	cJSON_DeleteItemFromObjectCaseSensitive(fm, key);
}

static void import_tokens(cJSON *state, cJSON *fm)
{
	cJSON *tu = cJSON_GetObjectItemCaseSensitive(fm, "token_usage"), *t;

	if (!cJSON_IsObject(tu))
		return;
	t = json_obj(state, "tokens");
	fmt_take(t, "input", tu, "total_input");
	fmt_take(t, "output", tu, "total_output");
	fmt_take(t, "cached", tu, "total_cached");
	fmt_take(t, "by_agent", tu, "by_agent");
	if (!tu->child)
		cJSON_DeleteItemFromObjectCaseSensitive(fm, "token_usage");
}

#define PHASE_ID_MAX (STATE_PHASES_MAX * 100)	/* an id a phase keeps as its own */

/*
 * The phases' ids in the model, which must be unique: a phase's own when it
 * is a whole number from 1 that no phase before it took; else (two "id: 3"
 * written by hand, an id that is no number, none) the next free one, the
 * source's id then kept as "key" for the export.
 */
static int *phase_ids(const cJSON *phases)
{
	int n = cJSON_GetArraySize(phases), *ids = xcalloc((size_t)n + 1, sizeof(*ids)), i = 0, max = 0;
	char *taken = xcalloc(PHASE_ID_MAX + 1, 1);
	const cJSON *c;

	cJSON_ArrayForEach(c, phases) {
		double id = json_num(c, "id", 0);

		if (json_is_int(id) && id >= 1 && id <= PHASE_ID_MAX && !taken[(int)id]) {
			ids[i] = (int)id;
			taken[ids[i]] = 1;
			max = ids[i] > max ? ids[i] : max;
		}
		i++;
	}
	for (i = 0; i < n; i++)
		if (!ids[i])
			ids[i] = ++max;
	free(taken);
	return ids;
}

/* One phase: the model's keys, its errors into the session's, its files. */
static void import_phase(cJSON *state, cJSON *files, cJSON *in, int id)
{
	cJSON *p = state_new_phase(id, NULL), *errs = cJSON_DetachItemFromObjectCaseSensitive(in, "errors");
	const cJSON *agent = cJSON_GetObjectItemCaseSensitive(in, "agent");

	if (json_num(in, "id", 0) == id)
		cJSON_DeleteItemFromObjectCaseSensitive(in, "id");
	else if (cJSON_GetObjectItemCaseSensitive(in, "id"))
		json_set(in, "key", cJSON_DetachItemFromObjectCaseSensitive(in, "id"));
	/* one agent, as some write it: the phase's agents, and "agent" stays to be written back */
	if (cJSON_IsString(agent) && !cJSON_GetObjectItemCaseSensitive(in, "agents"))
		cJSON_AddItemToArray(json_arr(p, "agents"), cJSON_CreateString(agent->valuestring));
	for (const char *const *k = state_phase_fields; *k; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(in, *k);
		const cJSON *def = cJSON_GetObjectItemCaseSensitive(p, *k);

		/* a value of another kind than the model's stays for the patch */
		if (v && (cJSON_IsNull(def) || (v->type & 0xff) == (def->type & 0xff) ||
			  (cJSON_IsBool(v) && cJSON_IsBool(def))))
			fmt_take(p, *k, in, *k);
	}
	if (!fmt_word_in(phase_statuses, json_str(p, "status"), NULL)) {
		char *bare = json_str(p, "status") ? unwrapped(json_str(p, "status")) : NULL;

		json_set_str(p, "status", bare && fmt_word_in(phase_statuses, bare, NULL) ? bare : ST_PENDING);
		free(bare);
	}
	if (!json_str(p, "name"))
		json_set(p, "name", cJSON_CreateString(""));
	for (size_t i = 0; i < ARRAY_SIZE(file_lists); i++) {
		const cJSON *c;

		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(in, file_lists[i])) {
			cJSON *f;

			if (!cJSON_IsString(c))
				continue;
			f = json_set(files, c->valuestring, cJSON_CreateObject());
			json_set_str(f, "status", file_status[i]);
			fmt_copy(f, "phase", p, "id");
		}
	}
	if (fmt_all_objects(errs)) {
		cJSON *c;
		cJSON_ArrayForEach(c, errs) {
			cJSON *e = fmt_blank_entry(state_error_fields);

			for (const char *const *k = state_error_fields; *k; k++)
				fmt_copy(e, *k, c, *k);
			fmt_copy(e, "phase", p, "id");
			fmt_copy_rest(e, c, state_error_fields);
			cJSON_AddItemToArray(json_arr(state, "errors"), e);
		}
		cJSON_Delete(errs);
	} else if (errs) {
		cJSON_AddItemToObject(in, "errors", errs);
	}
	fmt_move_rest(p, in);
	cJSON_AddItemToArray(json_arr(state, "phases"), p);
}

/* The session id, unwrapped when it is no id as written; any other stays as it is, to be judged. */
static void take_id(cJSON *state, cJSON *fm)
{
	const char *id = json_str(fm, "session_id");
	char *err = NULL, *bare;

	if (!id || state_valid_id(id, &err) == 0) {
		fmt_take(state, "session_id", fm, "session_id");
		return;
	}
	free(err);
	err = NULL;
	bare = unwrapped(id);
	if (strcmp(bare, id) && state_valid_id(bare, &err) == 0) {
		json_set_str(state, "session_id", bare);
		cJSON_DeleteItemFromObjectCaseSensitive(fm, "session_id");
	} else {
		fmt_take(state, "session_id", fm, "session_id");
	}
	free(err);
	free(bare);
}

static int maestro_to_state(cJSON *state, cJSON *files, int *active, const cJSON *doc, char **err)
{
	const cJSON *doc_fm = cJSON_GetObjectItemCaseSensitive(doc, "front_matter");
	cJSON *fm = cJSON_Duplicate(doc_fm, 1);
	cJSON *phases = cJSON_GetObjectItemCaseSensitive(fm, "phases");
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(fm, "status");
	int n = 0;

	(void)err;
	take_id(state, fm);
	if (json_str(fm, "task"))
		fmt_take(state, "topic", fm, "task");
	for (const char *const *k = (const char *const[]){ "created", "updated", NULL }; *k; k++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(fm, *k);

		if (cJSON_IsString(t)) {	/* a time, whatever quotes were written into it */
			char *bare = unwrapped(t->valuestring);

			json_set_str(state, *k, bare);
			free(bare);
			cJSON_DeleteItemFromObjectCaseSensitive(fm, *k);
		} else {
			fmt_take(state, *k, fm, *k);
		}
	}
	if (cJSON_IsString(status)) {
		char *bare = unwrapped(status->valuestring);

		if (fmt_word_in(statuses, bare, NULL))
			json_set_str(state, "status", bare);
		free(bare);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(fm, "status");	/* another word: the patch keeps it */
	add_plan(json_arr(state, "plans"), fm, "design_document", "design");
	add_plan(json_arr(state, "plans"), fm, "implementation_plan", "implementation");
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(fm, "current_phase")))
		fmt_take(state, "current_phase", fm, "current_phase");
	import_tokens(state, fm);
	cJSON_DeleteItemFromObjectCaseSensitive(fm, "total_phases");	/* the phases' count; else the patch */
	if (fmt_all_objects(phases)) {
		int *ids = phase_ids(phases);
		cJSON *c;

		cJSON_ArrayForEach(c, phases)
			import_phase(state, files, c, ids[n++]);
		free(ids);
		cJSON_DeleteItemFromObjectCaseSensitive(fm, "phases");
	}
	fmt_rest_to_extra(state, format_maestro.name, fm);
	fmt_copy(json_obj(state, "extra"), "maestro_log", doc, "body");
	/* in progress, or (written by hand) no status but "active: true" */
	*active = json_str(state, "status") ? !strcmp(json_str(state, "status"), ST_IN_PROGRESS)
					    : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc_fm, "active"));
	cJSON_Delete(fm);
	return 0;
}

static const char *plan_path(const cJSON *state, const char *role)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "plans"))
		if (json_str(p, "role") && !strcmp(json_str(p, "role"), role))
			return json_str(p, "path");
	return NULL;
}

/* files_<status> of a phase: its own list, then what the manifest added for it. */
static cJSON *phase_files(const cJSON *state, const cJSON *phase, size_t which)
{
	const cJSON *own = cJSON_GetObjectItemCaseSensitive(phase, file_lists[which]), *f;
	cJSON *out = cJSON_IsArray(own) ? cJSON_Duplicate(own, 1) : cJSON_CreateArray();
	double id = json_num(phase, "id", -1);

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(state, "files")) {
		int listed = 0;

		if (json_num(f, "phase", -2) != id || strcmp(json_str(f, "status"), file_status[which]))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(file_lists) && !listed; i++) {
			const cJSON *c;
			cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(phase, file_lists[i]))
				if (cJSON_IsString(c) && !strcmp(c->valuestring, f->string))
					listed = 1;
		}
		if (!listed)
			cJSON_AddItemToArray(out, cJSON_CreateString(f->string));
	}
	return out;
}

static cJSON *export_phase(const cJSON *state, const cJSON *in)
{
	static const char *const skip[] = { "id", "key", "name", "status", "agent", "agents", "parallel",
					    "blocked_by", "started", "completed", "retry_count", "sub_step",
					    "downstream_context", "files_created", "files_modified",
					    "files_deleted", "errors", NULL };
	const cJSON *agents = cJSON_GetObjectItemCaseSensitive(in, "agents");
	cJSON *p = cJSON_CreateObject(), *errs;
	const cJSON *e;

	/* the id the source gave it, when the model had to give it another */
	json_set(p, "id", json_dup_or_null(in, cJSON_GetObjectItemCaseSensitive(in, "key") ? "key" : "id"));
	if (json_str(in, "name") && *json_str(in, "name"))	/* no name where the source had none */
		fmt_copy(p, "name", in, "name");
	fmt_copy(p, "status", in, "status");
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(in, "agent")) && cJSON_GetArraySize(agents) == 1)
		json_set(p, "agent", cJSON_Duplicate(agents->child, 1));	/* spelt as the source did */
	else
		json_set(p, "agents", json_dup_or_null(in, "agents"));
	for (const char *const *k = (const char *const[]){ "parallel", "started", "completed", "blocked_by",
							   NULL }; *k; k++)
		json_set(p, *k, json_dup_or_null(in, *k));
	for (size_t i = 0; i < ARRAY_SIZE(file_lists); i++)
		json_set(p, file_lists[i], phase_files(state, in, i));
	errs = json_arr(p, "errors");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(state, "errors")) {
		cJSON *o;

		if (json_num(e, "phase", -2) != json_num(in, "id", -1))
			continue;
		o = cJSON_CreateObject();
		for (const char *const *k = (const char *const[]){ "agent", "timestamp", "type", "message",
								   "resolution", "resolved", NULL }; *k; k++)
			json_set(o, *k, json_dup_or_null(e, *k));
		fmt_copy_rest(o, e, state_error_fields);
		cJSON_AddItemToArray(errs, o);
	}
	json_set(p, "retry_count", json_dup_or_null(in, "retry_count"));
	for (const char *const *k = (const char *const[]){ "sub_step", "downstream_context", NULL }; *k; k++)
		if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(in, *k)))	/* not Maestro's: only when set */
			fmt_copy(p, *k, in, *k);
	fmt_copy_rest(p, in, skip);
	return p;
}

static cJSON *maestro_from_state(const cJSON *state)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(state, "tokens"), *ph;
	const cJSON *extra = fmt_from_extra(state, format_maestro.name), *log = fmt_from_extra(state, "maestro_log");
	cJSON *doc = cJSON_CreateObject(), *fm = json_obj(doc, "front_matter"), *tu, *phases;

	json_set_str(doc, "syntax", "json");	/* what Maestro reads since 1.6 */
	fmt_copy(fm, "session_id", state, "session_id");
	fmt_copy(fm, "task", state, "topic");
	fmt_copy(fm, "created", state, "created");
	fmt_copy(fm, "updated", state, "updated");
	fmt_copy(fm, "status", state, "status");
	json_set_str(fm, "design_document", plan_path(state, "design"));
	json_set_str(fm, "implementation_plan", plan_path(state, "implementation"));
	fmt_copy(fm, "current_phase", state, "current_phase");
	json_set_num(fm, "total_phases", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(state, "phases")));
	tu = json_obj(fm, "token_usage");
	json_set_num(tu, "total_input", json_num(t, "input", 0));
	json_set_num(tu, "total_output", json_num(t, "output", 0));
	json_set_num(tu, "total_cached", json_num(t, "cached", 0));
	json_set(tu, "by_agent", json_dup_or_null(t, "by_agent"));
	phases = json_arr(fm, "phases");
	cJSON_ArrayForEach(ph, cJSON_GetObjectItemCaseSensitive(state, "phases"))
		cJSON_AddItemToArray(phases, export_phase(state, ph));
	fmt_copy_rest(fm, extra, (const char *const[]){ "token_usage", NULL });
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(extra, "token_usage")))
		fmt_copy_rest(tu, cJSON_GetObjectItemCaseSensitive(extra, "token_usage"),
			  (const char *const[]){ NULL });
	if (cJSON_IsString(log)) {
		fmt_copy(doc, "body", cJSON_GetObjectItemCaseSensitive(state, "extra"), "maestro_log");
	} else {
		char *b = xstrfmt("# %s Orchestration Log\n", json_str(state, "topic") ? json_str(state, "topic")
										 : json_str(state, "session_id"));
		json_set_str(doc, "body", b);
		free(b);
	}
	return doc;
}

static int maestro_print(char **out, size_t *len, const cJSON *doc, const char *part)
{
	struct sbuf sb = SBUF_INIT;
	char *fm = NULL, *err = NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "front_matter");
	int json = !json_str(doc, "syntax") || strcmp(json_str(doc, "syntax"), "yaml");
	size_t n;

	if (part)
		return 0;
	if (json) {	/* as Maestro's serialize() writes it */
		fm = json_print(v, JSON_PRETTY_JS, &n);
	} else if (yaml_emit(&fm, &n, v, &err) < 0) {
		free(err);
		return GS_ERROR;
	}
	sbuf_adds(&sb, "---\n");
	sbuf_add(&sb, fm, n);
	sbuf_adds(&sb, "---\n");
	sbuf_adds(&sb, json_str(doc, "body") ? json_str(doc, "body") : "");
	free(fm);
	*out = sbuf_detach(&sb, len);
	return 0;
}

/* The parts of the session the export writes (format_lost names the others). */
static const char maestro_holds[] = "phases phase-agents errors tokens plans";

FORMAT_DEFINE(MAESTRO, maestro);
