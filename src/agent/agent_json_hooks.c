/*
 * agent_json_hooks.c - our hooks in an agent's JSON settings file, shaped
 * as Claude Code's. That is "hooks": {"<Event>": [{"matcher", "hooks":
 * [{"type", "command", "timeout"}]}]}, edited in place as text, so that
 * what the user wrote stays byte for byte. With AGENT_HOOKS_FLAT (Cursor)
 * the file is {"version": 1, "hooks": {"<event>": [{"command", "matcher",
 * "timeout"}]}}: each entry is one hook.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/* An object's or array's members: where each starts, its value, its end. */
struct item {
	size_t start, value, end;
};

/* The items of the object or array at b[open]; *close the index of its end. */
static int items(struct item **out, size_t *n, size_t *close, const char *b, size_t len, size_t open)
{
	char end = b[open] == '{' ? '}' : ']';
	size_t i = json_skip_ws(b, open + 1, len), cap = 0;

	*out = NULL;
	*n = 0;
	while (i < len && b[i] != end) {
		struct item it = { i, i, 0 };

		if (end == '}') {
			size_t k = b[i] == '"' ? json_string_end(b, i, len) : 0;
			i = k ? json_skip_ws(b, k, len) : len;
			if (i >= len || b[i] != ':')
				goto bad;
			it.value = i = json_skip_ws(b, i + 1, len);
		}
		if (!(it.end = json_value_end(b, i, len)))
			goto bad;
		ALLOC_GROW(*out, *n + 1, cap);
		(*out)[(*n)++] = it;
		i = json_skip_ws(b, it.end, len);
		if (i < len && b[i] == ',')
			i = json_skip_ws(b, i + 1, len);
		else if (i >= len || b[i] != end)
			goto bad;
	}
	if (i >= len)
		goto bad;
	*close = i;
	return 0;
bad:
	free(*out);
	*out = NULL;
	return GS_ERROR;
}

/* The member key of the object at b[open]: its item's index, or -1. */
static int member(const struct item *it, size_t n, const char *b, const char *key)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i < n; i++)
		if (b[it[i].start] == '"' && !strncmp(b + it[i].start + 1, key, klen) && b[it[i].start + 1 + klen] == '"')
			return (int)i;
	return -1;
}

/* The file's indentation unit: the blanks the first indented line starts with. */
static void indent_unit(char unit[16], const char *b, size_t len)
{
	const char *nl = b ? memchr(b, '\n', len) : NULL;
	size_t n = 0;

	if (nl)
		while ((size_t)(nl + 1 + n - b) < len && n < 15 && (nl[1 + n] == ' ' || nl[1 + n] == '\t'))
			n++;
	if (!n) {
		strcpy(unit, "  ");
		return;
	}
	memcpy(unit, nl + 1, n);
	unit[n] = '\0';
}

static void add_indent(struct sbuf *sb, const char *unit, int depth)
{
	sbuf_addch(sb, '\n');
	while (depth-- > 0)
		sbuf_adds(sb, unit);
}

/* v as JSON at depth, in the file's indentation (pretty), or on one line. */
static void render(struct sbuf *sb, const cJSON *v, const char *unit, int depth, int pretty)
{
	char *s = json_print(v, pretty ? JSON_PRETTY_JS : 0, NULL);
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[--n] = '\0';
	for (char *line = s, *nl; line; line = nl ? nl + 1 : NULL) {
		int g = 0;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (line != s) {
			while (line[0] == ' ' && line[1] == ' ') {
				line += 2;
				g++;
			}
			add_indent(sb, unit, depth + g);
		}
		sbuf_adds(sb, line);
	}
	free(s);
}

/*
 * Puts "key": v (or, for an array, v) last into the container at
 * b[open], whose members sit at depth.
 */
static char *insert(const char *b, size_t len, size_t open, const char *key, const cJSON *v, const char *unit,
		    int depth)
{
	struct sbuf sb = SBUF_INIT;
	struct item *it;
	size_t n, close, at;
	int pretty;

	if (items(&it, &n, &close, b, len, open) < 0)
		return NULL;
	pretty = memchr(b + open, '\n', close - open) != NULL || (!n && memchr(b, '\n', len));
	at = n ? it[n - 1].end : open + 1;
	sbuf_add(&sb, b, at);
	if (n)
		sbuf_addch(&sb, ',');
	if (pretty)
		add_indent(&sb, unit, depth);
	else if (n)
		sbuf_addch(&sb, ' ');
	if (key)
		sbuf_addf(&sb, "\"%s\": ", key);
	render(&sb, v, unit, depth, pretty);
	if (!n && pretty)
		add_indent(&sb, unit, depth - 1);
	/* an empty container's blanks go: they were all it held */
	sbuf_add(&sb, b + (n ? at : close), len - (n ? at : close));
	free(it);
	return sbuf_detach(&sb, NULL);
}

/*
 * What a committed settings file runs on a machine with no git-session:
 * nothing, and no error on each event (git alone would say "'session' is
 * not a git command"). The CLIs run a hook's command through the shell.
 */
#define GUARD AGENT_HOOK_GUARD

/*
 * The command of our hook for event, in the project's folder first when
 * the agent runs hooks elsewhere (d->project_env names it); the caller
 * frees it.
 */
static char *hook_cmd(const struct agent_dialect *d, const char *prefix, const char *event)
{
	if (d->project_env)
		return xstrfmt(GUARD "cd \"${%s:-.}\" && %s %s", d->project_env, prefix, event);
	return xstrfmt(GUARD "%s %s", prefix, event);
}

/* Whether command runs our hooks: prefix, behind the guard (and a cd) or (an older install) alone. */
int agent_json_hooks_ours(const char *command, const char *prefix)
{
	const char *and;

	if (command && !strncmp(command, GUARD, strlen(GUARD)))
		command += strlen(GUARD);
	if (command && !strncmp(command, "cd \"", 4) && (and = strstr(command, "\" && ")))
		command = and + 5;
	return command && !strncmp(command, prefix, strlen(prefix));
}

/* The hooks of a group, a copy: its "hooks", or the entry itself in a flat file. The caller frees it. */
static cJSON *group_hooks(const cJSON *g, const struct agent_dialect *d)
{
	cJSON *all = cJSON_CreateArray();

	if (!(d->flags & AGENT_HOOKS_FLAT))
		cJSON_Delete(all), all = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(g, "hooks"), 1);
	else if (cJSON_IsObject(g))
		cJSON_AddItemToArray(all, cJSON_Duplicate(g, 1));
	return all;
}

/* Our group for one event: {"matcher", "hooks": [{"type", "command", "timeout"}]}, or flat {"command", "matcher", "timeout"} */
static cJSON *group(const struct agent_dialect *d, const struct agent_hook_event *e, const char *prefix)
{
	cJSON *g = cJSON_CreateObject(), *h = cJSON_CreateObject();
	char *cmd = hook_cmd(d, prefix, e->event);

	if (d->flags & AGENT_HOOKS_FLAT) {
		cJSON_Delete(h);
		json_set_str(g, "command", cmd);
		if (e->matcher)
			json_set_str(g, "matcher", e->matcher);
		json_set_num(g, "timeout", d->timeout);
		free(cmd);
		return g;
	}
	if (e->matcher)
		json_set_str(g, "matcher", e->matcher);
	json_set_str(h, "type", "command");
	json_set_str(h, "command", cmd);
	json_set_num(h, "timeout", d->timeout);
	cJSON_AddItemToArray(json_arr(g, "hooks"), h);
	free(cmd);
	return g;
}

/* Whether matchers a (a group's, NULL when it has none) and b (an event's) are the same. */
static int same_matcher(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * Whether a group (parsed from the text b[from..to)) runs our hooks
 * (prefix); *stale too when its matcher is not matcher or its command is
 * not cmd (an older install's: the group is written again).
 */
static int ours(const struct agent_dialect *d, const char *b, size_t from, size_t to, const char *prefix,
		const char *cmd, const char *matcher, int *stale)
{
	cJSON *g = cJSON_ParseWithLength(b + from, to - from), *h, *hs = group_hooks(g, d);
	int found = 0, same = 0;

	cJSON_ArrayForEach(h, hs)
		if (agent_json_hooks_ours(json_str(h, "command"), prefix)) {
			found = 1;
			same |= cmd && !strcmp(json_str(h, "command"), cmd);
		}
	if (stale)
		*stale = found && (!same_matcher(json_str(g, "matcher"), matcher) || !same);
	cJSON_Delete(hs);
	cJSON_Delete(g);
	return found;
}

/* The text with item it (at depth) replaced by v. */
static char *replace(const char *b, size_t len, const struct item *it, const cJSON *v, const char *unit, int depth)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_add(&sb, b, it->start);
	render(&sb, v, unit, depth, memchr(b + it->start, '\n', it->end - it->start) != NULL);
	sbuf_add(&sb, b + it->end, len - it->end);
	return sbuf_detach(&sb, NULL);
}

static int root_object(size_t *open, char **err, const char *b, size_t len)
{
	cJSON *v = NULL;

	if (json_parse(&v, b, len, len + 1, err) < 0)
		return GS_ERROR;
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		*err = xstrdup("it is not a JSON object");
		return GS_ERROR;
	}
	cJSON_Delete(v);
	*open = json_skip_ws(b, 0, len);
	return 0;
}

/* A "hooks" member with all of d's groups, put last into the object at b[open]; 1, or GS_ERROR. */
static int add_all(char **out, const char *b, size_t len, size_t open, const struct agent_dialect *d,
		   const char *prefix, const char *unit)
{
	cJSON *hooks = cJSON_CreateObject();

	for (const struct agent_hook_event *x = d->events; x->event; x++)
		cJSON_AddItemToArray(json_arr(hooks, x->event), group(d, x, prefix));
	*out = insert(b, len, open, "hooks", hooks, unit, 1);
	cJSON_Delete(hooks);
	return *out ? 1 : GS_ERROR;
}

/* One step: adds the first of d's groups missing (or writes a stale one again); 1 when it did. */
static int add_one(char **out, const char *b, size_t len, size_t open, const struct agent_dialect *d,
		   const char *prefix, const char *unit)
{
	struct item *top = NULL, *ev = NULL;
	size_t ntop, nev, close;
	int h, e, added = 0;

	if (items(&top, &ntop, &close, b, len, open) < 0)
		return GS_ERROR;
	if ((h = member(top, ntop, b, "hooks")) < 0) {
		free(top);
		return add_all(out, b, len, open, d, prefix, unit);
	}
	if (b[top[h].value] != '{' || items(&ev, &nev, &close, b, len, top[h].value) < 0) {
		free(top);
		return GS_ERROR;
	}
	for (const struct agent_hook_event *x = d->events; x->event && !added; x++) {
		cJSON *g = group(d, x, prefix), *arr;
		char *cmd = hook_cmd(d, prefix, x->event);
		size_t nel, aclose;
		struct item *el = NULL;
		int have = 0, stale = 0;

		if ((e = member(ev, nev, b, x->event)) < 0) {
			arr = cJSON_CreateArray();
			cJSON_AddItemToArray(arr, g);
			*out = insert(b, len, top[h].value, x->event, arr, unit, 2);
			cJSON_Delete(arr);
			free(cmd);
			added = *out ? 1 : GS_ERROR;
			continue;
		}
		if (b[ev[e].value] != '[' || items(&el, &nel, &aclose, b, len, ev[e].value) < 0) {
			cJSON_Delete(g);
			free(cmd);
			added = GS_ERROR;
			break;
		}
		for (size_t i = 0; i < nel && !have; i++)
			if ((have = ours(d, b, el[i].start, el[i].end, prefix, cmd, x->matcher, &stale)) && stale) {
				*out = replace(b, len, &el[i], g, unit, 3);
				added = 1;
			}
		if (!have) {
			*out = insert(b, len, ev[e].value, NULL, g, unit, 3);
			added = *out ? 1 : GS_ERROR;
		}
		cJSON_Delete(g);
		free(cmd);
		free(el);
	}
	free(top);
	free(ev);
	return added;
}

static int json_hooks_add(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			  const char *prefix)
{
	/* a new flat file says its version */
	const char *empty = d->flags & AGENT_HOOKS_FLAT ? "{\n  \"version\": 1\n}\n" : "{}\n";
	char unit[16], *cur = xstrdup(text ? text : empty), *next = NULL;
	size_t open;
	int r = 0, changed = 0;

	*out = NULL;
	*err = NULL;
	len = text ? len : strlen(empty);
	indent_unit(unit, text, len);
	while (!(r = root_object(&open, err, cur, len)) && (r = add_one(&next, cur, len, open, d, prefix, unit)) > 0) {
		free(cur);
		cur = next;
		len = strlen(cur);
		changed = 1;
	}
	if (r < 0 && !*err)
		*err = xstrdup("its \"hooks\" is not an object of lists");
	if (r < 0 || !changed) {
		free(cur);
		return r < 0 ? GS_ERROR : 0;
	}
	*out = cur;
	return 0;
}

/* The span to cut to take out item i of n: with the comma before it, or after it. */
static void cut_span(size_t *from, size_t *to, const struct item *it, size_t n, size_t i)
{
	if (i > 0) {
		*from = it[i - 1].end;
		*to = it[i].end;
	} else {
		*from = it[0].start;
		*to = n > 1 ? it[1].start : it[0].end;
	}
}

static char *cut(const char *b, size_t len, size_t from, size_t to)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_add(&sb, b, from);
	sbuf_add(&sb, b + to, len - to);
	return sbuf_detach(&sb, NULL);
}

/* One step: takes out the first of our groups (or what it leaves empty); 1 when it took one. */
static int remove_one(char **out, const char *b, size_t len, size_t open, const struct agent_dialect *d,
		      const char *prefix)
{
	struct item *top = NULL, *ev = NULL, *el = NULL;
	size_t ntop, nev = 0, nel, tclose, close, from = 0, to = 0;
	int h, found = 0;

	if (items(&top, &ntop, &tclose, b, len, open) < 0)
		return GS_ERROR;
	if ((h = member(top, ntop, b, "hooks")) < 0 || b[top[h].value] != '{' ||
	    items(&ev, &nev, &close, b, len, top[h].value) < 0)
		goto done;
	for (size_t e = 0; e < nev && !found; e++) {
		if (b[ev[e].value] != '[' || items(&el, &nel, &close, b, len, ev[e].value) < 0)
			continue;
		for (size_t i = 0; i < nel && !found; i++) {
			if (!ours(d, b, el[i].start, el[i].end, prefix, NULL, NULL, NULL))
				continue;
			found = 1;
			if (nel > 1)
				cut_span(&from, &to, el, nel, i);
			else if (nev > 1)	/* the event's only group: the event goes */
				cut_span(&from, &to, ev, nev, e);
			else			/* the only event: "hooks" goes */
				cut_span(&from, &to, top, ntop, (size_t)h);
		}
		free(el);
		el = NULL;
	}
	if (found && ntop == 1 && nev == 1 && to == top[0].end) {
		from = open + 1;	/* "hooks" was all: {} again */
		to = tclose;
	}
done:
	if (found)
		*out = cut(b, len, from, to);
	free(top);
	free(ev);
	return found;
}

static int json_hooks_remove(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			     const char *prefix)
{
	char *cur = xstrdup(text), *next = NULL;
	size_t open;
	int r, changed = 0;

	*out = NULL;
	*err = NULL;
	while (!(r = root_object(&open, err, cur, len)) && (r = remove_one(&next, cur, len, open, d, prefix)) > 0) {
		free(cur);
		cur = next;
		len = strlen(cur);
		changed = 1;
	}
	if (r < 0 || !changed) {
		free(cur);
		return r < 0 ? GS_ERROR : 0;
	}
	*out = cur;
	return 0;
}

static int json_hooks_count(const char *text, size_t len, const struct agent_dialect *d, const char *prefix)
{
	cJSON *v = NULL, *groups, *g, *h;
	char *err = NULL;
	int n = 0;

	if (!text || json_parse(&v, text, len, len + 1, &err) < 0) {
		free(err);
		return 0;
	}
	for (const struct agent_hook_event *x = d->events; x->event; x++) {
		char *cmd = hook_cmd(d, prefix, x->event);
		int found = 0;

		groups = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, "hooks"), x->event);
		/* a group of an older install, for other tools, is not this one */
		cJSON_ArrayForEach(g, groups) {
			cJSON *hs = group_hooks(g, d);

			cJSON_ArrayForEach(h, hs)
				found |= json_str(h, "command") && !strcmp(json_str(h, "command"), cmd) &&
					  same_matcher(json_str(g, "matcher"), x->matcher);
			cJSON_Delete(hs);
		}
		n += found;
		free(cmd);
	}
	cJSON_Delete(v);
	return n;
}

const struct agent_settings_ops agent_json_hooks = { json_hooks_add, json_hooks_remove, json_hooks_count };
