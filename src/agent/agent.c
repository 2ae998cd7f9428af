/*
 * agent.c - the table of agents (GS_AGENTS) and what their dialects
 * share: events, the payload read once, the usage in transcripts. Each
 * dialect is a file of its own (claude_code.c, gemini_cli.c); our hooks
 * in a JSON settings file are in agent_json_hooks.c.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct agent_dialect *const agent_dialects[] = {
#define GS_AGENT_ROW(file) &agent_##file,
	GS_AGENTS(GS_AGENT_ROW)
#undef GS_AGENT_ROW
	NULL
};

const struct agent_dialect *agent_dialect(const char *name)
{
	for (size_t i = 0; agent_dialects[i]; i++)
		if (!strcmp(agent_dialects[i]->name, name))
			return agent_dialects[i];
	return NULL;
}

char *agent_names(const char *sep, const char *last)
{
	struct sbuf sb = SBUF_INIT;

	for (size_t i = 0; agent_dialects[i]; i++) {
		if (i)
			sbuf_adds(&sb, agent_dialects[i + 1] ? sep : last);
		sbuf_adds(&sb, agent_dialects[i]->name);
	}
	return sbuf_detach(&sb, NULL);
}

const struct agent_dialect *agent_guest(const struct agent_dialect *host, const cJSON *payload,
					const char *(*env)(const char *name))
{
	for (size_t i = 0; agent_dialects[i]; i++) {
		const struct agent_dialect *g = agent_dialects[i];

		if (g->guest_of && g->claims && !strcmp(g->guest_of, host->name) && g->claims(payload, env))
			return g;
	}
	return NULL;
}

enum agent_event_kind agent_event_kind(const struct agent_dialect *d, const char *event)
{
	for (const struct agent_hook_event *e = d->events; e->event; e++)
		if (!strcmp(e->event, event))
			return e->kind;
	return AE_NONE;
}

size_t agent_event_count(const struct agent_dialect *d)
{
	size_t n = 0;

	while (d->events[n].event)
		n++;
	return n;
}

static int listed(const char *const *list, const char *s)
{
	for (; s && list && *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

int agent_is_agent_tool(const struct agent_dialect *d, const char *tool)
{
	return listed(d->agent_tools, tool);
}

void agent_read_event(struct agent_event *out, const struct agent_dialect *d, const cJSON *payload)
{
	memset(out, 0, sizeof(*out));
	d->read_event(out, payload);
	if (!out->session)
		out->session = "";
	if (out->agent && !agent_name_valid(out->agent))
		out->refused = "its agent name is not letters, digits, '-', '_' or '.' (a letter first, at most 32)";
	/* a file is recorded for the tools that write one */
	if ((!(d->flags & AGENT_TOOLS_ANY) && !listed(d->write_tools, out->tool)) || (out->path && !*out->path)) {
		out->path = NULL;
		out->created = 0;
	}
	if ((!(d->flags & AGENT_TOOLS_ANY) && !listed(d->write_tools, out->tool)) || (out->patch && !*out->patch))
		out->patch = NULL;
	for (const char *const *p = d->own_prompts; p && *p && out->prompt; p++)
		if (!strncmp(out->prompt, *p, strlen(*p)))
			out->prompt = NULL;
	/* a command for the tools that run one */
	if ((!(d->flags & AGENT_TOOLS_ANY) && !listed(d->shell_tools, out->tool)) || (out->command && !*out->command)) {
		out->command = NULL;
		out->has_exit = out->has_ms = 0;
	}
}

int agent_name_valid(const char *name)
{
	size_t n = 0;

	if (!name || !(('a' <= *name && *name <= 'z') || ('A' <= *name && *name <= 'Z')))
		return 0;
	for (; name[n]; n++)
		if (!(('a' <= name[n] && name[n] <= 'z') || ('A' <= name[n] && name[n] <= 'Z') ||
		      ('0' <= name[n] && name[n] <= '9') || name[n] == '-' || name[n] == '_' || name[n] == '.'))
			return 0;
	return n <= AGENT_NAME_MAX && name[n - 1] != '.';
}

/* A payload's turn usage {input, output, cached} (keys as named) into ev: all three whole, 0 to AGENT_TOKENS_MAX. */
void agent_payload_usage(struct agent_event *ev, const cJSON *usage, const char *const keys[3])
{
	double v[3];

	if (!cJSON_IsObject(usage))
		return;
	for (int i = 0; i < 3; i++)
		if (agent_usage_number(&v[i], usage, keys[i]) < 0)
			return;
	memcpy(ev->usage, v, sizeof(v));
	ev->has_usage = 1;
}

int agent_number(double *out, const cJSON *v, double min, double max)
{
	if (!cJSON_IsNumber(v) || !json_is_int(v->valuedouble) || v->valuedouble < min || v->valuedouble > max)
		return 0;
	*out = v->valuedouble;
	return 1;
}

/* The status at s: an optional '-' and at most 10 digits, then the line's end or a blank. */
static int exit_at(double *out, const char *s)
{
	double v = 0;
	int neg = *s == '-', n = 0;

	for (s += neg; '0' <= *s && *s <= '9' && n < 11; s++, n++)
		v = v * 10 + (*s - '0');
	if (!n || n > 10 || (*s && *s != '\n' && *s != '\r' && *s != ' ' && *s != '\t'))
		return 0;
	v = neg ? -v : v;
	if (v < AGENT_EXIT_MIN || v > AGENT_EXIT_MAX)
		return 0;
	*out = v;
	return 1;
}

int agent_exit_after(double *out, const char *text, const char *tag)
{
	size_t n = strlen(tag);
	const char *last = NULL;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, tag, n))
			last = p + n;
	if (!last)
		return 0;
	return exit_at(out, last) ? 1 : -1;
}

/* --- usage in transcripts --- */

int agent_usage_number(double *out, const cJSON *usage, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(usage, key);

	*out = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || !json_is_int(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > AGENT_TOKENS_MAX)
		return -1;
	*out = v->valuedouble;
	return 0;
}

/* Counts a message's usage; -1 (and nothing counted) when a turn's total would pass AGENT_TOKENS_MAX. */
static int count_message(struct agent_usage *u, const char *id, const double v[3])
{
	int again = !strcmp(u->last_id, id);	/* a message seen before: its last usage counts */
	double in = u->input + v[0] - (again ? u->last_input : 0);
	double out = u->output + v[1] - (again ? u->last_output : 0);
	double cached = u->cached + v[2] - (again ? u->last_cached : 0);

	if (in > AGENT_TOKENS_MAX || out > AGENT_TOKENS_MAX || cached > AGENT_TOKENS_MAX)
		return -1;
	u->since[0] += in - u->input;
	u->since[1] += out - u->output;
	u->since[2] += cached - u->cached;
	if (!again) {
		u->messages++;
		snprintf(u->last_id, sizeof(u->last_id), "%s", id);
	}
	u->input = in;
	u->output = out;
	u->cached = cached;
	u->last_input = v[0];
	u->last_output = v[1];
	u->last_cached = v[2];
	return 0;
}

static void keep_reply(struct agent_usage *u, const char *text)
{
	size_t n;

	if (!text || !*text)
		return;
	n = gs_utf8_cut(text, sizeof(u->reply) - 1);
	memcpy(u->reply, text, n);
	u->reply[n] = '\0';
}

static int has_mark(const char *const *marks, const char *p, size_t n)
{
	for (; marks && *marks; marks++)
		if (memmem(p, n, *marks, strlen(*marks)))
			return 1;
	return 0;
}

/* A running total: past a compaction, its growth less the messages counted since is the compaction's. */
static void count_total(struct agent_usage *u, const double total[3])
{
	double add[3];

	if (u->pending && u->has_total) {
		for (int i = 0; i < 3; i++) {
			add[i] = total[i] - u->total[i] - u->since[i];
			add[i] = add[i] > 0 ? add[i] : 0;	/* a total that went back (a new process) says nothing */
		}
		if (u->input + add[0] <= AGENT_TOKENS_MAX && u->output + add[1] <= AGENT_TOKENS_MAX &&
		    u->cached + add[2] <= AGENT_TOKENS_MAX) {
			u->input += add[0];
			u->output += add[1];
			u->cached += add[2];
			u->compactions++;
		}
		u->pending = 0;
	}
	memcpy(u->total, total, sizeof(u->total));
	memset(u->since, 0, sizeof(u->since));
	u->has_total = 1;
}

/* A line that may be the CLI's running total, or mark a compaction. */
static void scan_total_line(struct agent_usage *u, const struct agent_dialect *d, const cJSON *line)
{
	double total[3];
	int r = d->scan_total(total, line);

	if (r == 2)
		u->pending = 1;
	else if (r == 1 && total[0] <= AGENT_TOKENS_MAX && total[1] <= AGENT_TOKENS_MAX && total[2] <= AGENT_TOKENS_MAX)
		count_total(u, total);
}

void agent_usage_scan(struct agent_usage *u, const struct agent_dialect *d, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t mark;

	if (!d->usage_mark)
		return;	/* its transcripts say no usage (Cursor's), or it has none (generic) */
	mark = strlen(d->usage_mark);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
		size_t n = (size_t)(stop - p);
		const char *id;
		double v[3];

		if (d->scan_total && has_mark(d->total_marks, p, n)) {
			cJSON *line = cJSON_ParseWithLength(p, n);

			if (line)
				scan_total_line(u, d, line);
			cJSON_Delete(line);
		}
		/* only lines that can hold a usage are parsed */
		if (memmem(p, n, d->usage_mark, mark)) {
			cJSON *line = cJSON_ParseWithLength(p, n);
			int r = line ? d->scan_usage(&id, v, line) : 0;

			if (r > 0 && (v[0] > AGENT_TOKENS_MAX || v[1] > AGENT_TOKENS_MAX))
				r = -1;
			if (r > 0 && d->scan_reply)
				keep_reply(u, d->scan_reply(line));
			if (r < 0 || (r > 0 && count_message(u, id, v) < 0))
				u->skipped++;
			cJSON_Delete(line);
		}
		p = stop + 1;
	}
}

/* --- our hooks in the agent's own configuration --- */

int agent_settings_add(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
		       const char *command_prefix)
{
	return d->settings_ops->add(out, err, text, len, d, command_prefix);
}

int agent_settings_remove(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			  const char *command_prefix)
{
	return d->settings_ops->remove(out, err, text, len, d, command_prefix);
}

int agent_settings_count(const char *text, size_t len, const struct agent_dialect *d, const char *command_prefix)
{
	return d->settings_ops->count(text, len, d, command_prefix);
}

char *agent_context_json(const char *event, const char *text)
{
	cJSON *out = cJSON_CreateObject(), *hso = json_obj(out, "hookSpecificOutput");
	char *s;

	json_set_str(hso, "hookEventName", event);
	json_set_str(hso, "additionalContext", text);
	s = cJSON_PrintUnformatted(out);
	cJSON_Delete(out);
	return s;
}
