/*
 * codex_trust.c - Codex's gates on the hooks it reads: a project's
 * .codex/ is read only when $CODEX_HOME/config.toml trusts the project
 * ([projects."<dir>"] trust_level = "trusted"), and a hook runs only when
 * the same file holds its hash, by where it is ([hooks.state."<file>:
 * <event>:<group>:<handler>"] trusted_hash = "sha256:..."). An untrusted
 * hook is skipped without a word. The hash is of the hook's identity,
 * {"event_name", "hooks": [the handler], "matcher"}, as compact JSON with
 * its keys sorted: what Codex's /hooks records when the user trusts it.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/sha256.h"
#include "git-session/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "PreToolUse" -> "pre_tool_use": the label Codex keys an event by. */
static void event_label(struct sbuf *sb, const char *event)
{
	for (const char *p = event; *p; p++) {
		if (isupper((unsigned char)*p) && p != event)
			sbuf_addch(sb, '_');
		sbuf_addch(sb, (char)tolower((unsigned char)*p));
	}
}

/* UserPromptSubmit and Stop take no matcher: it is left out of their hooks' identity. */
static int uses_matcher(const char *event)
{
	return strcmp(event, "UserPromptSubmit") && strcmp(event, "Stop");
}

/* s as a TOML basic string's inside; NULL when it holds a control character. */
static char *toml_escape(const char *s)
{
	struct sbuf sb = SBUF_INIT;

	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			sbuf_release(&sb);
			return NULL;
		}
		if (*s == '"' || *s == '\\')
			sbuf_addch(&sb, '\\');
		sbuf_addch(&sb, *s);
	}
	return sbuf_detach(&sb, NULL);
}

/* The hash Codex trusts a command handler h of event (its group's matcher m) by. */
static void hook_hash(char out[65], const char *label, const char *event, const cJSON *h, const cJSON *m)
{
	cJSON *id = cJSON_CreateObject(), *hs = cJSON_CreateObject();
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(h, "timeout");
	double timeout = cJSON_IsNumber(t) ? t->valuedouble : 600;
	char *text;
	size_t len;

	/* keys in order: the identity is written sorted */
	json_set_bool(hs, "async", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "async")));
	json_set_str(hs, "command", json_str(h, "command"));
	if (json_str(h, "statusMessage"))
		json_set_str(hs, "statusMessage", json_str(h, "statusMessage"));
	json_set_num(hs, "timeout", timeout < 1 ? 1 : (double)(long long)timeout);
	json_set_str(hs, "type", "command");
	json_set_str(id, "event_name", label);
	cJSON_AddItemToArray(json_arr(id, "hooks"), hs);
	if (uses_matcher(event) && cJSON_IsString(m))
		json_set_str(id, "matcher", m->valuestring);
	text = json_print(id, 0, &len);
	sha256_hex(out, text, len);
	free(text);
	cJSON_Delete(id);
}

/* The blocks for each handler of ours in the hooks (at file) by its place, which keys it. */
static int hook_blocks(struct sbuf *sb, const cJSON *hooks, const char *file, const char *prefix)
{
	const cJSON *ev, *g, *h;

	cJSON_ArrayForEach(ev, hooks) {
		struct sbuf label = SBUF_INIT;
		int gi = 0;

		event_label(&label, ev->string);
		cJSON_ArrayForEach(g, ev) {
			int hi = 0;

			cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(g, "hooks")) {
				const char *cmd = json_str(h, "command"), *type = json_str(h, "type");
				char hash[65];

				if (type && !strcmp(type, "command") && agent_json_hooks_ours(cmd, prefix)) {
					hook_hash(hash, label.buf, ev->string, h, cJSON_GetObjectItemCaseSensitive(g, "matcher"));
					sbuf_addf(sb, "[hooks.state.\"%s:%s:%d:%d\"]\ntrusted_hash = \"sha256:%s\"\n\n", file,
						  label.buf, gi, hi, hash);
				}
				hi++;
			}
			gi++;
		}
		sbuf_release(&label);
	}
	return 0;
}

static char *codex_trust_entries(const char *settings, size_t len, const char *path, const char *project,
				 const char *prefix)
{
	struct sbuf sb = SBUF_INIT;
	cJSON *doc = cJSON_ParseWithLength(settings, len);
	char *file = toml_escape(path), *dir = project ? toml_escape(project) : NULL;

	if (doc && file && (!project || dir)) {
		if (dir)
			sbuf_addf(&sb, "[projects.\"%s\"]\ntrust_level = \"trusted\"\n\n", dir);
		hook_blocks(&sb, cJSON_GetObjectItemCaseSensitive(doc, "hooks"), file, prefix);
	}
	cJSON_Delete(doc);
	free(file);
	free(dir);
	return sb.len ? sbuf_detach(&sb, NULL) : (sbuf_release(&sb), NULL);
}

/* The line at p without its blanks around, as [*a, *b); the next line's start. */
static const char *line_at(const char **a, const char **b, const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	*a = p;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*b = e;
	return nl ? nl + 1 : end;
}

/*
 * Whether config holds the table header with the line: 1 when it does,
 * -1 when it has the table otherwise, 0 when not at all. Tables as Codex
 * writes them; a key written another way is not seen.
 */
static int holds(const char *config, size_t len, const char *header, const char *want)
{
	const char *p = config, *end = config + len, *a, *b;
	int in = 0, found = 0;

	while (config && p < end) {
		p = line_at(&a, &b, p, end);
		if (a < b && *a == '[') {
			in = (size_t)(b - a) == strlen(header) && !memcmp(a, header, (size_t)(b - a));
			found |= in;
		} else if (in && (size_t)(b - a) == strlen(want) && !memcmp(a, want, (size_t)(b - a))) {
			return 1;
		}
	}
	return found ? -1 : 0;
}

static void codex_trust_plan(char **add, char **conflict, const char *config, size_t len, const char *entries)
{
	struct sbuf out = SBUF_INIT;
	const char *p = entries;

	*add = *conflict = NULL;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *nl2 = nl ? strchr(nl + 1, '\n') : NULL;
		char *header, *want;
		int r;

		if (!nl2)
			break;
		header = xstrndup(p, (size_t)(nl - p));
		want = xstrndup(nl + 1, (size_t)(nl2 - nl - 1));
		if ((r = holds(config, len, header, want)) == 0)
			sbuf_addf(&out, "%s\n%s\n\n", header, want);
		else if (r < 0 && !*conflict)
			*conflict = xstrdup(header);
		free(header);
		free(want);
		p = nl2 + 1 + (nl2[1] == '\n');
	}
	*add = out.len ? sbuf_detach(&out, NULL) : (sbuf_release(&out), NULL);
}

const struct agent_trust_ops agent_codex_trust = {
	.file = "config.toml",
	.entries = codex_trust_entries,
	.plan = codex_trust_plan,
};
