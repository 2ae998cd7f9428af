/*
 * agent_file_hooks.c - our hooks as a JSON file of their own, wholly
 * ours, for an agent that reads every file of a folder of hooks files.
 * That is Copilot CLI's .github/hooks/git-session.json: {"version": 1,
 * "hooks": {"<event>": [{"type": "command", "bash", "timeoutSec"[,
 * "matcher"]}]}}. Install writes it, uninstall removes it (an empty text
 * out), and a file of that name that runs anything else is not ours to
 * touch. */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/* As agent_json_hooks.c's: a committed file runs nothing, and says nothing, where git-session is not. */
#define GUARD "command -v git-session >/dev/null 2>&1 || exit 0; "

/* The whole file, as install writes it. */
static char *file_text(const struct agent_dialect *d, const char *prefix)
{
	struct sbuf sb = SBUF_INIT;
	const struct agent_hook_event *e;

	sbuf_adds(&sb, "{\n  \"version\": 1,\n  \"hooks\": {\n");
	for (e = d->events; e->event; e++) {
		sbuf_addf(&sb, "    \"%s\": [\n      { \"type\": \"command\", \"bash\": \"" GUARD, e->event);
		json_string_encode(&sb, prefix, strlen(prefix));
		sbuf_addf(&sb, " %s\", \"timeoutSec\": %d", e->event, d->timeout);
		if (e->matcher)
			sbuf_addf(&sb, ", \"matcher\": \"^(%s)$\"", e->matcher);
		sbuf_addf(&sb, " }\n    ]%s\n", e[1].event ? "," : "");
	}
	sbuf_adds(&sb, "  }\n}\n");
	return sbuf_detach(&sb, NULL);
}

/* The command an entry runs ("bash", else "command"), behind the guard or alone. */
static const char *entry_command(const cJSON *entry)
{
	const char *cmd = json_str(entry, "bash") ? json_str(entry, "bash") : json_str(entry, "command");

	return cmd && !strncmp(cmd, GUARD, strlen(GUARD)) ? cmd + strlen(GUARD) : cmd;
}

/*
 * Whether the text is a hooks file of ours, every hook it has running
 * prefix: 1; 0 when it runs anything else or is not such a file; *n how
 * many of d's events run ours.
 */
static int ours(int *n, const char *text, size_t len, const struct agent_dialect *d, const char *prefix)
{
	cJSON *root = NULL;
	const cJSON *hooks, *ev, *entry;
	char *err = NULL;
	size_t plen = strlen(prefix);
	int mine = 0;

	*n = 0;
	if (!text || json_parse(&root, text, len, len + 1, &err) < 0 || !cJSON_IsObject(root) ||
	    !cJSON_IsObject(hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks")))
		goto cleanup;
	mine = 1;
	cJSON_ArrayForEach(ev, hooks) {
		int has = 0;

		cJSON_ArrayForEach(entry, (cJSON_IsArray(ev) ? ev : NULL)) {
			const char *cmd = entry_command(entry);

			if (!cmd || strncmp(cmd, prefix, plen) || cmd[plen] != ' ' || strcmp(cmd + plen + 1, ev->string))
				mine = 0;
			else
				has = 1;
		}
		if (!cJSON_IsArray(ev))
			mine = 0;
		*n += has && agent_event_kind(d, ev->string) != AE_NONE;
	}
cleanup:
	cJSON_Delete(root);
	free(err);
	return mine;
}

static int file_add(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
		    const char *command_prefix)
{
	char *want = file_text(d, command_prefix);
	int n;

	*out = NULL;
	*err = NULL;
	if (text && !ours(&n, text, len, d, command_prefix)) {
		free(want);
		*err = xstrdup("the file is not git-session's: it runs other hooks, or is not a hooks file");
		return GS_ERROR;
	}
	if (text && len == strlen(want) && !memcmp(text, want, len)) {
		free(want);
		return 0;
	}
	*out = want;	/* new, or ours as an older git-session wrote it */
	return 0;
}

static int file_remove(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
		       const char *command_prefix)
{
	int n;

	*out = NULL;
	*err = NULL;
	if (text && ours(&n, text, len, d, command_prefix) && n)
		*out = xstrdup("");	/* no file at all */
	return 0;
}

static int file_count(const char *text, size_t len, const struct agent_dialect *d, const char *command_prefix)
{
	int n;

	return text && ours(&n, text, len, d, command_prefix) ? n : 0;
}

const struct agent_settings_ops agent_file_hooks = {
	.add = file_add,
	.remove = file_remove,
	.count = file_count,
};
