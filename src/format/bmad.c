/*
 * bmad.c - BMAD's session manager: <session_id>.yaml with token
 * fields that default when missing (and the legacy saved_by_isolation),
 * and active-session.yaml naming the active one. Pure: no I/O.
 */
#include "format-internal.h"

#include <stdlib.h>
#include <string.h>

static const struct word statuses[] = {
	{ "active", ST_IN_PROGRESS }, { "paused", ST_PAUSED }, { "closed", ST_COMPLETED }, { NULL, NULL },
};
static const char *const token_keys[] = { "max", "initial", "current", "peak", "saved", NULL };
/* Other names of token keys: the shipped session-template.yaml's, and older files'. */
static const struct word token_names[] = {
	{ "max_limit", "max" }, { "saved_by_isolation", "saved" }, { NULL, NULL },
};

/* The name the file gives a token key (its own, or ours). */
static const char *token_name(const cJSON *tokens, const char *ours)
{
	for (const struct word *w = token_names; w->theirs; w++)
		if (!strcmp(w->ours, ours) && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(tokens, w->theirs)) &&
		    !cJSON_GetObjectItemCaseSensitive(tokens, ours))
			return w->theirs;
	return ours;
}

/* BMAD's own budget, which its reader assumes when a file names none. */
#define BMAD_DEFAULT_MAX 150000

/* tokens[key] when it is a number, else def. */
static double token(const cJSON *tokens, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(tokens, key);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static int bmad_parse(cJSON **doc, const char *buf, size_t len, char **err)
{
	return fmt_parse_object(doc, buf, len, 1, err);
}

/* An active-session pointer's id: a name and perhaps a time, nothing else. */
static const char *pointer_id(const cJSON *doc)
{
	static const char *const keys[] = { "active_session", "session_id", "id", "active", NULL };
	static const char *const also[] = { "updated", "last_updated", "switched_at", NULL };
	const char *id = NULL;

	for (const cJSON *c = doc ? doc->child : NULL; c; c = c->next) {
		int known = 0;

		for (const char *const *k = keys; *k && !known; k++)
			if (!strcmp(*k, c->string) && cJSON_IsString(c) && !id)
				known = !!(id = c->valuestring);
		for (const char *const *k = also; *k && !known; k++)
			known = !strcmp(*k, c->string);
		if (!known)
			return NULL;
	}
	return id;
}

static int bmad_detect(const cJSON *doc)
{
	static const char *const keys[] = { "tokens", "agents_spawned", "last_updated", "milestones",
					    "client", "context_summary" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (cJSON_GetObjectItemCaseSensitive(doc, keys[i]))
			return 1;
	return 0;	/* an active-session.yaml is known by its name */
}

/* Nothing to change in the document: BMAD's token defaults are the model's (import_tokens). */
static int bmad_upgrade(cJSON *doc, char **err)
{
	(void)doc;
	(void)err;
	return 0;
}

/*
 * The tokens as BMAD's reader takes them: max 150000 and the others 0
 * when the file names none (the model has them; the export writes only
 * what the file had), under whichever name the file uses.
 */
static void import_tokens(cJSON *state, cJSON *doc)
{
	cJSON *in = cJSON_GetObjectItemCaseSensitive(doc, "tokens"), *t = json_obj(state, "tokens");
	cJSON *shape = json_obj(json_obj(state, "extra"), "bmad_shape");

	if (!cJSON_IsObject(in))
		in = NULL;	/* not tokens as BMAD has them: kept as they are */
	for (const struct word *w = token_names; in && w->theirs; w++)
		if (strcmp(token_name(in, w->ours), w->ours)) {	/* kept under the file's name */
			json_set_str(shape, w->ours, w->theirs);
			fmt_take(in, w->ours, in, w->theirs);
		}
	if (!shape->child)
		cJSON_DeleteItemFromObjectCaseSensitive(json_obj(state, "extra"), "bmad_shape");
	/* current is what the main session used: everything less the isolated part */
	json_set_num(t, "input", token(in, "current", 0) + token(in, "saved", 0));
	json_set_num(t, "output", 0);
	for (const char *const *k = token_keys; *k; k++)
		if (strcmp(*k, "current"))
			json_set_num(t, *k, token(in, *k, strcmp(*k, "max") ? 0 : BMAD_DEFAULT_MAX));
	for (const char *const *k = token_keys; in && *k; k++)
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(in, *k)))
			cJSON_DeleteItemFromObjectCaseSensitive(in, *k);
	fmt_move_rest(t, in);
	if (in)
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "tokens");
}

static void import_agents(cJSON *state, cJSON *doc)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "agents_spawned"), *c;

	if (!fmt_all_objects(list))
		return;
	cJSON_ArrayForEach(c, list) {
		cJSON *a = fmt_blank_entry(state_agent_fields);
		const cJSON *done = cJSON_GetObjectItemCaseSensitive(c, "completed");

		for (const char *const *k = (const char *const[]){ "id", "type", "started", "completed", NULL }; *k; k++)
			fmt_take(a, *k, c, *k);
		if (!json_str(a, "id"))
			json_set_str(a, "id", "");
		json_set_str(a, "status", done && !cJSON_IsNull(done) ? ST_COMPLETED : ST_IN_PROGRESS);
		fmt_move_rest(a, c);
		cJSON_AddItemToArray(json_arr(state, "agents"), a);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "agents_spawned");
}

static void import_list(cJSON *state, cJSON *doc, const char *key, const char *const *keys)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, key), *c;

	if (!fmt_all_objects(list))
		return;
	cJSON_ArrayForEach(c, list) {
		cJSON *e = keys ? fmt_blank_entry(keys) : cJSON_CreateObject();

		for (const char *const *k = keys; k && *k; k++)
			fmt_take(e, *k, c, *k);
		fmt_move_rest(e, c);
		cJSON_AddItemToArray(json_arr(state, key), e);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, key);
}

/* decisions: text each, or objects of the model's keys. */
static void import_decisions(cJSON *state, cJSON *doc)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "decisions"), *c;

	if (!fmt_all_strings(list) || !list->child) {
		import_list(state, doc, "decisions", state_decision_fields);
		return;
	}
	cJSON_ArrayForEach(c, list) {
		cJSON *e = fmt_blank_entry(state_decision_fields);
		json_set_str(e, "decision", c->valuestring);
		cJSON_AddItemToArray(json_arr(state, "decisions"), e);
	}
	json_set_str(json_obj(json_obj(state, "extra"), "bmad_shape"), "decisions", "text");
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "decisions");
}

static int bmad_to_state(cJSON *state, cJSON *files, int *active, const cJSON *in, char **err)
{
	cJSON *doc = cJSON_Duplicate(in, 1), *notes = cJSON_GetObjectItemCaseSensitive(doc, "notes"), *c;
	const char *st = fmt_word_in(statuses, json_str(doc, "status"), NULL);

	(void)files;
	if (pointer_id(in)) {
		*err = xstrdup("an active-session pointer, not a session: import the session file it names");
		cJSON_Delete(doc);
		return GS_ERROR;
	}
	for (const char *const *k = (const char *const[]){ "session_id", "created", "context_summary", NULL };
	     *k; k++)
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, *k)))
			fmt_take(state, *k, doc, *k);
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "last_updated")))
		fmt_take(state, "updated", doc, "last_updated");
	if (st)
		json_set_str(state, "status", st);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "status");	/* another word: the patch keeps it */
	import_tokens(state, doc);
	import_agents(state, doc);
	import_list(state, doc, "artifacts", state_artifact_fields);
	import_list(state, doc, "milestones", NULL);
	import_list(state, doc, "tasks", state_task_fields);
	import_decisions(state, doc);
	if (fmt_all_strings(notes)) {
		cJSON_ArrayForEach(c, notes) {
			cJSON *n = cJSON_CreateObject();
			json_set_str(n, "text", c->valuestring);
			json_set_str(n, "agent", NULL);
			json_set_str(n, "timestamp", NULL);
			cJSON_AddItemToArray(json_arr(state, "notes"), n);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "notes");
	}
	fmt_rest_to_extra(state, format_bmad.name, doc);
	*active = st && !strcmp(st, ST_IN_PROGRESS);
	cJSON_Delete(doc);
	return 0;
}

static const char *name_of(const cJSON *shape, const char *ours)
{
	return json_str(shape, ours) ? json_str(shape, ours) : ours;
}

/* A list of the model's, when it has entries: objects, or one key's text each. */
static void export_list(cJSON *doc, const char *key, const cJSON *state, const char *const *keys, const char *text)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(state, key), *c;
	cJSON *out;

	if (!cJSON_GetArraySize(list))
		return;
	if (!text) {
		json_set(doc, key, fmt_entries(list, keys));
		return;
	}
	out = json_arr(doc, key);
	cJSON_ArrayForEach(c, list)
		cJSON_AddItemToArray(out, json_dup_or_null(c, text));
}

static cJSON *bmad_from_state(const cJSON *state)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(state, "tokens"), *c;
	const cJSON *extra = fmt_from_extra(state, format_bmad.name), *shape = fmt_from_extra(state, "bmad_shape");
	cJSON *doc = cJSON_CreateObject(), *tok, *list;

	fmt_copy(doc, "session_id", state, "session_id");
	fmt_copy(doc, "created", state, "created");
	fmt_copy(doc, "last_updated", state, "updated");
	json_set_str(doc, "status", fmt_word_out(statuses, json_str(state, "status")));
	fmt_copy_rest(doc, extra, (const char *const[]){ NULL });	/* never over what the model says */
	tok = json_obj(doc, "tokens");
	/* a session with no budget (0) gets the one BMAD would assume */
	json_set_num(tok, name_of(shape, "max"), json_num(t, "max", 0) > 0 ? json_num(t, "max", 0) : BMAD_DEFAULT_MAX);
	json_set_num(tok, "initial", json_num(t, "initial", 0));
	json_set_num(tok, "current", state_tokens_used(t));
	json_set_num(tok, "peak", json_num(t, "peak", 0));
	json_set_num(tok, name_of(shape, "saved"), json_num(t, "saved", 0));
	fmt_copy_rest(tok, t, (const char *const[]){ "input", "output", "cached", "by_agent", NULL });
	list = json_arr(doc, "agents_spawned");
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(state, "agents")) {
		cJSON *a = cJSON_CreateObject();

		for (const char *const *k = (const char *const[]){ "id", "type", "started", "completed", NULL }; *k; k++)
			json_set(a, *k, json_dup_or_null(c, *k));
		fmt_copy_rest(a, c, state_agent_fields);
		cJSON_AddItemToArray(list, a);
	}
	list = json_arr(doc, "artifacts");
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(state, "artifacts")) {
		cJSON *a = cJSON_CreateObject();

		for (const char *const *k = (const char *const[]){ "path", "created", "agent", NULL }; *k; k++)
			json_set(a, *k, json_dup_or_null(c, *k));
		fmt_copy_rest(a, c, state_artifact_fields);
		cJSON_AddItemToArray(list, a);
	}
	json_set(doc, "milestones", json_dup_or_null(state, "milestones"));
	json_set(doc, "context_summary", json_dup_or_null(state, "context_summary"));
	list = json_arr(doc, "notes");
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(state, "notes"))
		cJSON_AddItemToArray(list, json_dup_or_null(c, "text"));
	export_list(doc, "decisions", state, state_decision_fields, json_str(shape, "decisions") ? "decision" : NULL);
	export_list(doc, "tasks", state, state_task_fields, NULL);
	return doc;
}

static int bmad_print(char **out, size_t *len, const cJSON *doc, const char *part)
{
	return part ? 0 : fmt_print_yaml(out, len, doc);
}

/* The parts of the session the export writes (format_lost names the others). */
static const char bmad_holds[] = "tokens agents artifacts milestones context_summary notes decisions tasks";

/* active-session.yaml names the active session: <session_id>.yaml beside it. */
static char *bmad_pointer(const cJSON *doc)
{
	const char *id = pointer_id(doc);

	return id ? xstrfmt("%s.yaml", id) : NULL;
}

static const char *const pointer_names[] = { "active-session.yaml", "active-session.yml", NULL };

FORMAT_DEFINE(BMAD, bmad, .layout = { .pointer_names = pointer_names }, .pointer = bmad_pointer);
