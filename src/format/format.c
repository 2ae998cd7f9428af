/*
 * format.c - the table of formats and the entry points every format goes
 * through: detection, import (with its round-trip patch, format_patch.c),
 * export, what an export loses, printing. Pure: no I/O.
 */
#include "format-internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const struct format *const formats[FORMAT_COUNT] = {
#define GS_FORMAT_ROW(id, name, title) [FORMAT_##id] = &format_##name,
	GS_FORMATS(GS_FORMAT_ROW)
#undef GS_FORMAT_ROW
};

/* The name users type: the C name with '-' for '_'. */
static const char *user_name(enum format_id id)
{
	static char *made[FORMAT_COUNT];

	if (!made[id]) {
		made[id] = xstrdup(formats[id]->name);
		for (char *p = made[id]; *p; p++)
			if (*p == '_')
				*p = '-';
	}
	return made[id];
}

const struct format *format_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(user_name(i), name))
			return formats[i];
	return NULL;
}

const struct format *format_get(enum format_id id)
{
	return formats[id];
}

const char *format_name(const struct format *f)
{
	return user_name(f->id);
}

const char *format_names(void)
{
	static char *made;
	struct sbuf sb = SBUF_INIT;

	if (made)
		return made;
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "", user_name(i));
	return made = sbuf_detach(&sb, NULL);
}

static const char *const title_of[FORMAT_COUNT] = {
#define GS_FORMAT_TITLE(id, name, title) [FORMAT_##id] = title,
	GS_FORMATS(GS_FORMAT_TITLE)
#undef GS_FORMAT_TITLE
};

const char *format_choices(int titles)
{
	static char *made[2];
	struct sbuf sb = SBUF_INIT;

	if (made[!!titles])
		return made[!!titles];
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		sbuf_addf(&sb, "%s%s", !i ? "" : i + 1 < FORMAT_COUNT ? ", " : " or ",
			  titles ? title_of[i] : user_name(i));
	return made[!!titles] = sbuf_detach(&sb, NULL);
}

/* Markdown without front matter: a '#' heading first, and no line a YAML "key:" could be. */
static int markdown_only(const char *buf, size_t len, size_t i)
{
	const char *p = buf, *end = buf + len;

	if (i >= len || buf[i] != '#')
		return 0;
	for (; p && p < end; p = memchr(p, '\n', (size_t)(end - p)), p = p ? p + 1 : NULL) {
		const char *k = p;

		while (k < end && (isalnum((unsigned char)*k) || (*k && strchr("_-\"'", *k))))
			k++;
		if (k > p && k < end && *k == ':')
			return 0;
	}
	return 1;
}

/* The format whose reader's complaint to show when none could read buf. */
static const struct format *claimed(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if ((len >= 3 && !strncmp(buf, "---", 3)) || markdown_only(buf, len, i))
		return &format_maestro;
	if (i < len && (buf[i] == '{' || buf[i] == '['))
		return &format_claude;
	return &format_bmad;
}

int format_parse(cJSON **doc, const struct format **f, const char *buf, size_t len, char **err)
{
	const struct format *mine;
	char *why = NULL;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {	/* a UTF-8 byte order mark, as editors on Windows write */
		buf += 3;
		len -= 3;
	}
	mine = claimed(buf, len);

	*doc = NULL;
	*err = NULL;
	if (len > FORMAT_MAX_BYTES) {
		*err = xstrfmt("larger than %u bytes", FORMAT_MAX_BYTES);
		return GS_ERROR;
	}
	if (*f)
		return (*f)->parse(doc, buf, len, err);
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		char *e = NULL;

		if (formats[i]->parse(doc, buf, len, &e) == 0 && formats[i]->detect(*doc)) {
			*f = formats[i];
			free(why);
			return 0;
		}
		cJSON_Delete(*doc);
		*doc = NULL;
		if (formats[i] == mine && e) {
			why = e;
			e = NULL;
		}
		free(e);
	}
	*err = why ? why : xstrfmt("not a session file of a known format (%s)", format_names());
	return GS_ERROR;
}

/* Whether every phase of st is done (and it has one): an archive of it is a finished session. */
static int all_phases_done(const cJSON *st)
{
	const cJSON *p, *phases = cJSON_GetObjectItemCaseSensitive(st, "phases");

	cJSON_ArrayForEach(p, phases)
		if (!json_str(p, "status") ||
		    (strcmp(json_str(p, "status"), ST_COMPLETED) && strcmp(json_str(p, "status"), ST_SKIPPED)))
			return 0;
	return cJSON_GetArraySize(phases) > 0;
}

/*
 * What git-session keeps for itself on a phase or an agent: when it was
 * last seen working (the staleness of session.staleAfter), and what an
 * agent's own hooks record of it. No format has a place for them: an
 * export never writes them, and an import keeps a source's field of the
 * same name in the round-trip patch, never as ours.
 */
static const char *const own_keys[] = { "seen", "session", "by", "cli", "parent", "prompts", "last_prompt",
					 "prompted_ms", "commands", "transcript", "compactions", "compacted", NULL };

static void drop_own(cJSON *list, int phases)
{
	cJSON *e;

	cJSON_ArrayForEach(e, list)
		for (const char *const *k = own_keys; *k && (!phases || k == own_keys); k++)
			cJSON_DeleteItemFromObjectCaseSensitive(e, *k);
}

/* state as the formats see it: the same, but its phases' and agents' own keys (a copy of those only). */
static cJSON *shared_view(const cJSON *state)
{
	cJSON *out = cJSON_CreateObject();

	for (const cJSON *c = state ? state->child : NULL; c; c = c->next) {
		int phases = !strcmp(c->string, "phases");

		if (cJSON_IsArray(c) && (phases || !strcmp(c->string, "agents"))) {
			cJSON *copy = cJSON_Duplicate(c, 1);

			drop_own(copy, phases);
			cJSON_AddItemToObject(out, c->string, copy);
		} else {
			cJSON_AddItemReferenceToObject(out, c->string, (cJSON *)c);
		}
	}
	return out;
}

/*
 * The source's id as it is when it is one here (its case too); else its
 * slug (a name with blanks in it), or none. One shaped like a path is
 * left as it is, for the import to refuse: it is no name.
 */
static void own_id(cJSON *st)
{
	const char *id = json_str(st, "session_id");
	char *err = NULL, *slug;

	if (!id || state_valid_id(id, &err) == 0 || strpbrk(id, "/\\") || strstr(id, "..")) {
		free(err);
		return;
	}
	free(err);
	slug = state_slug(id);
	json_set_str(st, "session_id", *slug ? slug : NULL);
	free(slug);
}

int format_import(cJSON **state, cJSON **files, int *active, const struct format *f,
		  const cJSON *in, const cJSON *project, int archived, char **err)
{
	cJSON *doc = cJSON_Duplicate(in, 1), *st = cJSON_CreateObject(), *fl = cJSON_CreateObject();
	cJSON *norm = NULL, *exp = NULL, *patch = NULL, *imp;
	int error = GS_ERROR;

	*state = *files = NULL;
	*active = 0;
	*err = NULL;
	if (f->upgrade(doc, err) < 0 || f->to_state(st, fl, active, doc, err) < 0)
		goto cleanup;
	own_id(st);
	if (project)
		json_set(st, "project", cJSON_Duplicate(project, 1));
	/* an archive left saying "in progress" when all is done; the patch keeps its word */
	if (archived && (!json_str(st, "status") || !strcmp(json_str(st, "status"), ST_IN_PROGRESS)) &&
	    all_phases_done(st))
		json_set_str(st, "status", ST_COMPLETED);
	if (state_normalize(&norm, st, err) < 0) {
		st = NULL;
		goto cleanup;
	}
	st = NULL;
	drop_own(cJSON_GetObjectItemCaseSensitive(norm, "phases"), 1);
	drop_own(cJSON_GetObjectItemCaseSensitive(norm, "agents"), 0);
	exp = f->from_state(norm);
	patch = cJSON_CreateArray();
	format_patch_diff(patch, exp, doc);
	format_patch_apply(exp, patch);
	if (!json_equal(exp, doc)) {	/* cannot happen: the patch is a full diff */
		*err = xstrdup("cannot hold this document faithfully");
		goto cleanup;
	}
	imp = json_obj(json_obj(norm, "extra"), "import");
	json_set_str(imp, "format", format_name(f));
	json_set(imp, "patch", patch);
	patch = NULL;
	*state = norm;
	*files = fl;
	norm = fl = NULL;
	error = 0;
cleanup:
	cJSON_Delete(doc);
	cJSON_Delete(st);
	cJSON_Delete(fl);
	cJSON_Delete(norm);
	cJSON_Delete(exp);
	cJSON_Delete(patch);
	return error;
}

int format_export(cJSON **doc, const struct format *f, const cJSON *state, char **err)
{
	const cJSON *imp = state_extra_get(state, "import");
	const char *from = json_str(imp, "format");
	cJSON *view = shared_view(state);

	*err = NULL;
	*doc = f->from_state(view);
	cJSON_Delete(view);
	if (!*doc) {
		*err = xstrfmt("cannot write this session as %s", format_name(f));
		return GS_ERROR;
	}
	if (from && !strcmp(from, format_name(f)))
		format_patch_apply(*doc, cJSON_GetObjectItemCaseSensitive(imp, "patch"));
	return 0;
}

/* The parts format_lost looks at: collections, and what "tokens" and "plans" hold. */
static const char *const parts[] = { "phases", "agents", "errors", "decisions", "tasks", "milestones",
				     "artifacts", "notes", "plans", "context_summary", "tokens", NULL };

static int held(const char *holds, const char *part)
{
	size_t n = strlen(part);

	for (const char *p = strstr(holds, part); p; p = strstr(p + 1, part))
		if ((p == holds || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* How many entries of part the format would drop. */
static int dropped(const struct format *f, const cJSON *state, const char *part)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(state, part), *c;
	int n = 0;

	if (held(f->holds, part))
		return 0;
	if (!strcmp(part, "tokens"))
		return state_tokens_used(v) > 0;
	if (cJSON_IsString(v))
		return *v->valuestring != 0;
	cJSON_ArrayForEach(c, v) {
		/* an agent its phase names is kept where the format keeps phase agents */
		if (!strcmp(part, "agents") && held(f->holds, "phase-agents") &&
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "phase")))
			continue;
		n++;
	}
	return n;
}

char *format_lost(const struct format *f, const cJSON *state)
{
	struct sbuf sb = SBUF_INIT;

	for (const char *const *p = parts; *p; p++) {
		int n = dropped(f, state, *p);

		if (!n)
			continue;
		sbuf_adds(&sb, sb.len ? ", " : "");
		if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(state, *p)))
			sbuf_addf(&sb, "%s (%d)", *p, n);
		else
			sbuf_adds(&sb, *p);
	}
	if (!sb.len) {
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_detach(&sb, NULL);
}

char *format_unplaced(int *n, const struct format *f, const cJSON *state)
{
	struct sbuf sb = SBUF_INIT;
	const cJSON *p;

	*n = 0;
	if (!f->placed)
		return NULL;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		if (f->placed(state, p))
			continue;
		sbuf_addf(&sb, "%s%d \"%s\"", (*n)++ ? ", " : "", (int)json_num(p, "id", 0),
			  json_str(p, "name") ? json_str(p, "name") : "");
	}
	if (!*n) {
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_detach(&sb, NULL);
}

int format_print(char **out, size_t *len, const struct format *f, const cJSON *doc, const char *part)
{
	*out = NULL;
	*len = 0;
	return f->print(out, len, doc, part);
}

const struct format_layout *format_layout(const struct format *f)
{
	return &f->layout;
}

static int named(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return 1;
	return 0;
}

const struct format *format_by_pointer_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (named(formats[i]->layout.pointer_names, name))
			return formats[i];
	return NULL;
}

int format_session_dir(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (named(formats[i]->layout.session_dirs, name))
			return 1;
	return 0;
}

const struct format *format_with_registry(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i]->layout.registry_file)
			return formats[i];
	return NULL;
}

char *format_pointer(const struct format *f, const cJSON *doc)
{
	return f->pointer ? f->pointer(doc) : NULL;
}

const cJSON *format_registry(const struct format *f, const cJSON *doc)
{
	return f->registry ? f->registry(doc) : NULL;
}

const char *format_registry_dir(const struct format *f, const cJSON *entry)
{
	return f->registry_dir ? f->registry_dir(entry) : NULL;
}

int format_registry_doc(cJSON **doc, const struct format *f, const cJSON *entry, const cJSON *session,
			char **err)
{
	*doc = NULL;
	*err = NULL;
	if (!f->registry_doc) {
		*err = xstrfmt("%s has no registry", format_name(f));
		return GS_ERROR;
	}
	return f->registry_doc(doc, entry, session, err);
}

int format_registry_line(char **out, const struct format *f, const cJSON *state)
{
	*out = NULL;
	return f->registry_line ? f->registry_line(out, state) : GS_ERROR;
}

cJSON *format_side_files(const struct format *f, const cJSON *doc)
{
	return f->side_files ? f->side_files(doc) : NULL;
}

int format_plain_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > 128 || name[0] == '.')
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\')
			return 0;
	return 1;
}
