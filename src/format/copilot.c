/*
 * copilot.c - the state apex's Copilot workflow keeps in
 * 00-session-state.json (schema 3.0) and 00-handoff.md beside it. 1.0 and
 * 2.0 files are migrated as its apex-recall tool migrates them. Pure: no
 * I/O.
 */
#include "format-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The workflow's numbered steps, 1 to 7: a phase for any other step keeps the step's "key". */
#define LAST_STEP 7

/* The skill writes "complete"; some runs write "completed" or "done". */
static const struct word step_statuses[] = {
	{ "pending", ST_PENDING }, { "in_progress", ST_IN_PROGRESS }, { "complete", ST_COMPLETED },
	{ "skipped", ST_SKIPPED }, { "failed", ST_FAILED }, { "completed", ST_COMPLETED },
	{ "done", ST_COMPLETED }, { "not_started", ST_PENDING }, { NULL, NULL },
};

static int copilot_parse(cJSON **doc, const char *buf, size_t len, char **err)
{
	cJSON *v;

	if (json_parse(&v, buf, len, FORMAT_MAX_BYTES, err) < 0)
		return GS_ERROR;
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		*err = xstrdup("not a JSON object");
		return GS_ERROR;
	}
	*doc = cJSON_CreateObject();
	json_set(*doc, "state", v);
	return 0;
}

static int copilot_detect(const cJSON *doc)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "state");

	return cJSON_GetObjectItemCaseSensitive(st, "steps") ||
	       cJSON_GetObjectItemCaseSensitive(st, "current_step");
}

static void migrate(cJSON *st);

/*
 * Refuses a schema this does not read, and migrates a file below 3.0 as
 * apex-recall does before its next write: the export is the file upstream
 * would write next.
 */
static int copilot_upgrade(cJSON *doc, char **err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "state"),
							   "schema_version");
	const char *s = cJSON_GetStringValue(v);

	if (v && (!s || (strcmp(s, "1.0") && strcmp(s, "2.0") && strcmp(s, "3.0")))) {
		char *p = json_print(v, 0, NULL);
		*err = xstrfmt("unsupported schema_version %s (this reads 1.0, 2.0 and 3.0)", p);
		free(p);
		return GS_ERROR;
	}
	migrate(cJSON_GetObjectItemCaseSensitive(doc, "state"));
	return 0;
}

/* The steps of a 3.0 file, as apex-recall's template (state_writer.py) has them. */
static const struct { const char *key, *name, *agent; } template_steps[] = {
	{ "1", "Requirements", "02-Requirements" }, { "2", "Architecture", "03-Architect" },
	{ "3", "Design", "04-Design" }, { "3_5", "Governance", "04g-Governance" }, { "4", "IaC Plan", "" },
	{ "5", "IaC Code", "" }, { "6", "Deploy", "" }, { "7", "As-Built", "08-As-Built" },
};
/* The steps a template's review_audit has an entry for. */
static const char *const audited[] = { "1", "2", "3_5", "4", "5", "6" };

static cJSON *template_step(const char *name, const char *agent)
{
	cJSON *s = cJSON_CreateObject();

	json_set_str(s, "name", name);
	json_set_str(s, "agent", agent);
	json_set_str(s, "status", "pending");
	for (const char *const *k = (const char *const[]){ "sub_step", "started", "completed", NULL }; *k; k++)
		json_set(s, *k, cJSON_CreateNull());
	json_arr(s, "artifacts");
	json_arr(s, "context_files_used");
	return s;
}

static cJSON *template_audit(void)
{
	cJSON *a = cJSON_CreateObject();

	for (size_t i = 0; i < ARRAY_SIZE(audited); i++) {
		char key[16];
		cJSON *e;

		snprintf(key, sizeof(key), "step_%s", audited[i]);
		e = json_obj(a, key);
		json_set_str(e, "complexity", "");
		json_set_num(e, "passes_planned", 0);
		json_set_num(e, "passes_executed", 0);
		json_arr(e, "skipped");
		json_arr(e, "skip_reasons");
		json_arr(e, "models_used");
	}
	return a;
}

/*
 * A file below 3.0 (no label reads as 1.0), as apex-recall's migrate_to_v3
 * migrates it: what is missing of decision_log, review_audit,
 * open_findings, decisions and the template's steps is added, what is
 * there stays (a "3.5" step is the template's "3_5"), and the label is
 * 3.0. A file labelled 1.0 that is already shaped like 3.0 gains only
 * the label.
 */
static void migrate(cJSON *st)
{
	const char *label = json_str(st, "schema_version");
	cJSON *steps;

	if (!cJSON_IsObject(st) || (label && strtod(label, NULL) >= 3.0))
		return;
	json_set_str(st, "schema_version", "3.0");
	if (!cJSON_GetObjectItemCaseSensitive(st, "decision_log"))
		json_arr(st, "decision_log");
	if (!cJSON_GetObjectItemCaseSensitive(st, "review_audit"))
		json_set(st, "review_audit", template_audit());
	if (!cJSON_GetObjectItemCaseSensitive(st, "open_findings"))
		json_arr(st, "open_findings");
	if (!cJSON_GetObjectItemCaseSensitive(st, "decisions"))
		json_obj(st, "decisions");
	if (!(steps = cJSON_GetObjectItemCaseSensitive(st, "steps")))
		steps = json_obj(st, "steps");
	if (!cJSON_IsObject(steps))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(template_steps); i++) {
		const char *k = template_steps[i].key;

		if (!cJSON_GetObjectItemCaseSensitive(steps, k) &&
		    !(!strcmp(k, "3_5") && cJSON_GetObjectItemCaseSensitive(steps, "3.5")))
			json_set(steps, k, template_step(template_steps[i].name, template_steps[i].agent));
	}
}

/* A step's number: its key when that is a whole number from 1, else 0. */
static int step_id(const char *key)
{
	char *end;
	long n = strtol(key, &end, 10);

	return *key && !*end && n > 0 && n < 100000 && key[0] != '0' ? (int)n : 0;
}

/* Where a step key sorts: "3_5" and "3.5" between 3 and 4; a key that is no number last. */
static double step_rank(const char *key)
{
	char buf[32], *end;
	double v;

	if (strlen(key) >= sizeof(buf))
		return 1e9;
	strcpy(buf, key);
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = '.';
	v = strtod(buf, &end);
	return *buf && !*end && v > 0 && v < 1e6 ? v : 1e9;
}

static void import_step(cJSON *state, int id, cJSON *in, const char *key)
{
	cJSON *p = state_new_phase(id, NULL), *arts = cJSON_GetObjectItemCaseSensitive(in, "artifacts"), *c;
	const char *agent = json_str(in, "agent");
	char name[48];

	json_set_num(p, "id", id);
	snprintf(name, sizeof(name), "step %s", key);
	if (json_str(in, "name"))
		fmt_take(p, "name", in, "name");
	else
		json_set_str(p, "name", name);
	if (!step_id(key) || step_id(key) > LAST_STEP)
		json_set_str(p, "key", key);	/* the step's own key, for the export */
	json_set_str(p, "status", fmt_word_in(step_statuses, json_str(in, "status"), ST_PENDING));
	if (fmt_word_in(step_statuses, json_str(in, "status"), NULL))
		cJSON_DeleteItemFromObjectCaseSensitive(in, "status");
	if (agent) {
		if (*agent)
			cJSON_AddItemToArray(json_arr(p, "agents"), cJSON_CreateString(agent));
		cJSON_DeleteItemFromObjectCaseSensitive(in, "agent");
	}
	for (const char *const *k = (const char *const[]){ "started", "completed", "sub_step", NULL }; *k; k++)
		fmt_take(p, *k, in, *k);
	if (fmt_all_strings(arts)) {
		cJSON_ArrayForEach(c, arts) {
			cJSON *a = fmt_blank_entry(state_artifact_fields);
			json_set_str(a, "path", c->valuestring);
			json_set_num(a, "phase", id);
			cJSON_AddItemToArray(json_arr(state, "artifacts"), a);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(in, "artifacts");
	}
	fmt_move_rest(p, in);
	cJSON_AddItemToArray(json_arr(state, "phases"), p);
}

struct step { cJSON *v; double rank; int id, at; };

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->at - y->at;
}

/*
 * Every step a phase, in step order: a whole-number key keeps its number
 * as the phase's id; any other key ("3_5", "3.5", "review") gets the next
 * free id and is kept as the phase's "key".
 */
static void import_steps(cJSON *state, cJSON *doc)
{
	cJSON *steps = cJSON_GetObjectItemCaseSensitive(doc, "steps"), *c;
	int n = cJSON_GetArraySize(steps), i = 0, next = 0;
	struct step *v;
	cJSON *read;

	if (!cJSON_IsObject(steps) || !n)
		return;
	cJSON_ArrayForEach(c, steps)
		if (!cJSON_IsObject(c))
			return;		/* not steps as the skill writes them: kept as they are, in extra */
	v = xcalloc((size_t)n, sizeof(*v));
	cJSON_ArrayForEach(c, steps) {
		v[i] = (struct step){ c, step_rank(c->string), step_id(c->string), i };
		if (v[i].id > next)
			next = v[i].id;
		i++;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_step);
	read = json_arr(json_obj(state, "extra"), "copilot_steps");
	for (i = 0; i < n; i++) {
		import_step(state, v[i].id ? v[i].id : ++next, v[i].v, v[i].v->string);
		if (v[i].id)
			cJSON_AddItemToArray(read, cJSON_CreateNumber(v[i].id));
	}
	free(v);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "steps");
}

/* The step key of a phase: its own key, or its id. */
static void phase_key(char *buf, size_t n, const cJSON *p)
{
	if (json_str(p, "key"))
		snprintf(buf, n, "%s", json_str(p, "key"));
	else
		snprintf(buf, n, "%d", (int)json_num(p, "id", 0));
}

/*
 * Whether the export has a step for phase p: one read from a step; in a
 * session from elsewhere, one of steps 1 to 7. A phase added to a session
 * read from a file has none: the template's step of its number is another.
 */
static int placed(const cJSON *state, const cJSON *p)
{
	const cJSON *read = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(state, "extra"), "copilot_steps"), *c;
	double id = json_num(p, "id", 0);

	if (json_str(p, "key"))
		return 1;
	if (!cJSON_IsArray(read))
		return json_is_int(id) && id >= 1 && id <= LAST_STEP;
	cJSON_ArrayForEach(c, read)
		if (cJSON_IsNumber(c) && c->valuedouble == id)
			return 1;
	return 0;
}

/* current_step, a number (3, 3.5) or a key ("3_5"): the phase it names. */
static void import_current(cJSON *state, cJSON *doc)
{
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(doc, "current_step"), *p;
	char want[48], key[48];

	if (cJSON_IsNumber(cur))
		snprintf(want, sizeof(want), "%.15g", cur->valuedouble);
	else if (cJSON_IsString(cur) && strlen(cur->valuestring) < sizeof(want))
		snprintf(want, sizeof(want), "%s", cur->valuestring);
	else
		return;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		phase_key(key, sizeof(key), p);
		if (!strcmp(key, want) || (step_rank(key) < 1e9 && step_rank(key) == step_rank(want))) {
			json_set_num(state, "current_phase", json_num(p, "id", 0));
			cJSON_DeleteItemFromObjectCaseSensitive(doc, "current_step");
			return;
		}
	}
	if (cJSON_IsNumber(cur) && json_is_int(cur->valuedouble))	/* 0: not started yet */
		fmt_take(state, "current_phase", doc, "current_step");
}

/*
 * decisions {key: value}: a text is a decision with its key; an empty one
 * (not decided yet, as the template has them) and any other value (a
 * revision number, sku_overrides[]) stay the file's.
 */
static void import_keyed(cJSON *state, cJSON *doc)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "decisions"), *c, *next;

	if (!cJSON_IsObject(d))
		return;
	for (c = d->child; c; c = next) {
		cJSON *e;

		next = c->next;
		if (!cJSON_IsString(c) || !*c->valuestring)
			continue;
		e = fmt_blank_entry(state_decision_fields);
		json_set_str(e, "decision", c->valuestring);
		json_set_str(e, "key", c->string);
		cJSON_AddItemToArray(json_arr(state, "decisions"), e);
		cJSON_Delete(cJSON_DetachItemViaPointer(d, c));
	}
	if (!d->child)
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "decisions");
}

/* The text of a decision_log entry: "choice" as the skill wrote it, "decision" as apex-recall does. */
static const char *logged_text(const cJSON *c)
{
	return json_str(c, "choice") ? "choice" : json_str(c, "decision") ? "decision" : NULL;
}

/* decisions, then decision_log [{id, step, agent, title, choice, rationale} or {decision, step, ...}]. */
static void import_decisions(cJSON *state, cJSON *doc)
{
	cJSON *log = cJSON_GetObjectItemCaseSensitive(doc, "decision_log"), *c;

	import_keyed(state, doc);
	if (!fmt_all_objects(log))
		return;
	cJSON_ArrayForEach(c, log)
		if (!logged_text(c))
			return;		/* not a log as upstream writes it: kept as it is */
	cJSON_ArrayForEach(c, log) {
		cJSON *e = fmt_blank_entry(state_decision_fields);

		fmt_take(e, "decision", c, logged_text(c));
		for (const char *const *k = (const char *const[]){ "rationale", "timestamp", "agent", NULL }; *k; k++)
			fmt_take(e, *k, c, *k);
		fmt_move_rest(e, c);
		cJSON_AddItemToArray(json_arr(state, "decisions"), e);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "decision_log");
}

static int copilot_to_state(cJSON *state, cJSON *files, int *active, const cJSON *in, char **err)
{
	cJSON *doc = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(in, "state"), 1);
	const cJSON *project = cJSON_GetObjectItemCaseSensitive(doc, "project");

	(void)files;
	(void)err;
	if (cJSON_IsString(project)) {
		json_set_str(state, "session_id", project->valuestring);	/* format_import slugs it if it must */
		fmt_take(state, "topic", doc, "project");
	}
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "updated"))) {
		fmt_copy(state, "created", doc, "updated");
		fmt_take(state, "updated", doc, "updated");
	}
	import_steps(state, doc);
	import_current(state, doc);
	import_decisions(state, doc);
	if (json_str(in, "handoff"))
		fmt_copy(state, "context_summary", in, "handoff");
	fmt_rest_to_extra(state, format_copilot.name, doc);
	*active = 1;
	cJSON_Delete(doc);
	return 0;
}

static cJSON *export_step(const cJSON *state, const cJSON *p)
{
	static const char *const skip[] = { "id", "key", "name", "status", "agents", "parallel", "blocked_by",
					    "started", "completed", "retry_count", "sub_step",
					    "downstream_context", NULL };
	const cJSON *agents = cJSON_GetObjectItemCaseSensitive(p, "agents"), *a;
	cJSON *s = cJSON_CreateObject(), *arts;

	fmt_copy(s, "name", p, "name");
	json_set_str(s, "agent", fmt_all_strings(agents) && agents->child ? agents->child->valuestring : "");
	json_set_str(s, "status", fmt_word_out(step_statuses, json_str(p, "status")));
	json_set(s, "sub_step", json_dup_or_null(p, "sub_step"));
	arts = json_arr(s, "artifacts");
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(state, "artifacts"))
		if (json_num(a, "phase", -1) == json_num(p, "id", -2))
			cJSON_AddItemToArray(arts, json_dup_or_null(a, "path"));
	json_set(s, "started", json_dup_or_null(p, "started"));
	json_set(s, "completed", json_dup_or_null(p, "completed"));
	fmt_copy_rest(s, p, skip);
	if (!cJSON_GetObjectItemCaseSensitive(s, "context_files_used"))
		json_arr(s, "context_files_used");
	return s;
}

/* The current_step a placed phase stands for: apex-recall's number for "3_5" (3), "3.5" as written. */
static cJSON *step_value(const cJSON *p)
{
	const char *key = json_str(p, "key");

	if (!key)
		return cJSON_CreateNumber(json_num(p, "id", 0));
	if (step_rank(key) >= 1e9)
		return cJSON_CreateString(key);
	return cJSON_CreateNumber(strchr(key, '_') ? (double)(long)step_rank(key) : step_rank(key));
}

/*
 * current_step: the current phase's step. A current phase the format has
 * no step for stands at the step before it; a current phase that names
 * none (0: not started) is written as it is.
 */
static cJSON *export_current(const cJSON *state)
{
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(state, "current_phase"), *p, *last = NULL;

	if (!cJSON_IsNumber(cur))
		return cJSON_CreateNumber(0);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		if (json_num(p, "id", -1) == cur->valuedouble)
			return placed(state, p) ? step_value(p) : last ? step_value(last) : cJSON_CreateNumber(0);
		if (placed(state, p))
			last = p;
	}
	return cJSON_CreateNumber(cur->valuedouble);
}

/* The step of a new decision_log entry: the current step, 1 to 7 (what bmit-2026's validator wants). */
static double logged_step(const cJSON *state)
{
	cJSON *v = export_current(state);
	double n = cJSON_IsNumber(v) ? (double)(long)v->valuedouble : 1;

	cJSON_Delete(v);
	return n >= 1 && n <= LAST_STEP ? n : 1;
}

/*
 * A decision with no key: one decision_log entry, with what both of
 * upstream's readers want: bmit-2026's validator id, step, agent, title,
 * choice and rationale; apex-recall decision and timestamp. An entry read
 * from the file is written as it was (the import's patch).
 */
static cJSON *export_logged(const cJSON *state, const cJSON *d, int n)
{
	cJSON *e = cJSON_CreateObject();
	const char *text = json_str(d, "decision") ? json_str(d, "decision") : "";
	char id[16];

	snprintf(id, sizeof(id), "D%03d", n);
	json_set(e, "id", json_str(d, "id") ? json_dup_or_null(d, "id") : cJSON_CreateString(id));
	json_set(e, "timestamp", json_dup_or_null(d, "timestamp"));
	if (cJSON_GetObjectItemCaseSensitive(d, "step"))
		fmt_copy(e, "step", d, "step");
	else
		json_set_num(e, "step", logged_step(state));
	json_set_str(e, "agent", json_str(d, "agent") ? json_str(d, "agent") : "");
	json_set(e, "title", json_dup_or_null(d, json_str(d, "title") ? "title" : "decision"));
	json_set_str(e, "choice", text);
	json_set_str(e, "decision", text);
	json_set_str(e, "rationale", json_str(d, "rationale") ? json_str(d, "rationale") : "");
	fmt_copy_rest(e, d, (const char *const[]){ "key", NULL });
	return e;
}

/* decisions: the model's keyed ones, then the file's values that are no text; decision_log. */
static void export_decisions(cJSON *st, const cJSON *state, const cJSON *extra)
{
	static const char *const required[] = { "region", "compliance", "budget", "architecture_pattern",
						"deployment_strategy", NULL };
	cJSON *dec = json_obj(st, "decisions"), *log = NULL;
	const cJSON *d;
	int n = 0;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(state, "decisions")) {
		if (json_str(d, "key")) {
			json_set(dec, json_str(d, "key"), json_dup_or_null(d, "decision"));
			continue;
		}
		if (!log)
			log = json_arr(st, "decision_log");
		cJSON_AddItemToArray(log, export_logged(state, d, ++n));
	}
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(extra, "decisions")))
		fmt_copy_rest(dec, cJSON_GetObjectItemCaseSensitive(extra, "decisions"), (const char *const[]){ NULL });
	for (const char *const *k = required; *k; k++)
		if (!cJSON_GetObjectItemCaseSensitive(dec, *k))
			json_set_str(dec, *k, "");
}

static cJSON *copilot_from_state(const cJSON *state)
{
	const cJSON *extra = fmt_from_extra(state, format_copilot.name), *p;
	const cJSON *project = cJSON_GetObjectItemCaseSensitive(state, "project");
	cJSON *doc = cJSON_CreateObject(), *st = json_obj(doc, "state"), *steps;
	const char *label;

	/* the file's own label (a 1.0 file stays 1.0), else 3.0 */
	label = json_str(extra, "schema_version");
	json_set_str(st, "schema_version", label ? label : "3.0");
	json_set(st, "project", json_str(state, "topic") ? json_dup_or_null(state, "topic")
							   : json_dup_or_null(state, "session_id"));
	json_set(st, "current_step", export_current(state));
	fmt_copy(st, "updated", state, "updated");
	steps = json_obj(st, "steps");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(state, "phases")) {
		char key[48];

		if (!placed(state, p))
			continue;	/* named by the export's warning (format_unplaced) */
		phase_key(key, sizeof(key), p);
		json_set(steps, key, export_step(state, p));
	}
	export_decisions(st, state, extra);
	fmt_copy_rest(st, extra, (const char *const[]){ NULL });	/* never over what the model says */
	/* what the skill's validator requires of every file */
	if (!cJSON_GetObjectItemCaseSensitive(st, "branch"))
		json_set_str(st, "branch", json_str(project, "branch") ? json_str(project, "branch") : "");
	for (const char *const *k = (const char *const[]){ "iac_tool", "region", NULL }; *k; k++)
		if (!cJSON_GetObjectItemCaseSensitive(st, *k))
			json_set_str(st, *k, "");
	if (!cJSON_GetObjectItemCaseSensitive(st, "updated"))
		json_set_str(st, "updated", json_str(state, "created") ? json_str(state, "created") : "");
	if (!cJSON_GetObjectItemCaseSensitive(st, "open_findings"))
		json_arr(st, "open_findings");
	if (json_str(state, "context_summary"))
		fmt_copy(doc, "handoff", state, "context_summary");
	return doc;
}

static int copilot_print(char **out, size_t *len, const cJSON *doc, const char *part)
{
	const char *h;

	if (!part)
		return fmt_print_json(out, len, cJSON_GetObjectItemCaseSensitive(doc, "state"));
	if (strcmp(part, "handoff") || !(h = json_str(doc, "handoff")))
		return 0;
	*out = xstrdup(h);
	*len = strlen(h);
	return 0;
}

/* The parts of the session the export writes (format_lost names the others). */
static const char copilot_holds[] = "phases phase-agents decisions artifacts context_summary";

/* The handoff, for people, beside the state: 00-handoff.md. */
FORMAT_DEFINE(COPILOT, copilot, .layout = { .part = "handoff", .part_file = "00-handoff.md" }, .placed = placed);
