/*
 * agent_file_hooks.c - our hooks in a file wholly ours (a plugin, a hooks
 * file of our own in the agent's folder of them, as Copilot CLI's
 * .github/hooks/git-session.json): the dialect's hooks_file writes its
 * whole text. Install writes it, or writes it again when an older
 * install's differs; uninstall removes it (an empty text out). A file of
 * that name that is not ours is not touched: one that never runs our
 * command, or a JSON hooks file with a hook of someone else's in it.
 */
#include "agent-internal.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

/* The command a JSON hooks file's entry runs ("bash", else "command"), the guard left out. */
static const char *entry_command(const cJSON *entry)
{
	const char *cmd = json_str(entry, "bash") ? json_str(entry, "bash") : json_str(entry, "command");

	return cmd && !strncmp(cmd, AGENT_HOOK_GUARD, strlen(AGENT_HOOK_GUARD)) ? cmd + strlen(AGENT_HOOK_GUARD) : cmd;
}

/*
 * A JSON hooks file ({"hooks": {"<event>": [{"bash" | "command"}]}}):
 * 1 when each of its hooks runs prefix with its event, 0 when one runs
 * anything else; *n how many of d's events run ours. -1 when the text is
 * no such file.
 */
static int json_ours(int *n, const char *text, size_t len, const struct agent_dialect *d, const char *prefix)
{
	cJSON *root = NULL;
	const cJSON *hooks, *ev, *entry;
	char *err = NULL;
	size_t plen = strlen(prefix);
	int mine = -1;

	*n = 0;
	if (json_parse(&root, text, len, len + 1, &err) < 0 || !cJSON_IsObject(root) ||
	    !cJSON_IsObject(hooks = cJSON_GetObjectItemCaseSensitive(root, "hooks")))
		goto cleanup;
	mine = 1;
	cJSON_ArrayForEach(ev, hooks) {
		int has = 0;

		mine = mine && cJSON_IsArray(ev);
		cJSON_ArrayForEach(entry, (cJSON_IsArray(ev) ? ev : NULL)) {
			const char *cmd = entry_command(entry);

			if (!cmd || strncmp(cmd, prefix, plen) || cmd[plen] != ' ' || strcmp(cmd + plen + 1, ev->string))
				mine = 0;
			else
				has = 1;
		}
		*n += has && agent_event_kind(d, ev->string) != AE_NONE;
	}
cleanup:
	cJSON_Delete(root);
	free(err);
	return mine;
}

/* Whether the file is ours; *n how many of d's events it runs ours for. */
static int ours(int *n, const char *text, size_t len, const struct agent_dialect *d, const char *prefix)
{
	char *want;
	int r;

	*n = 0;
	if (!text || !memmem(text, len, prefix, strlen(prefix)))
		return 0;
	want = d->hooks_file(d, prefix);
	if (strlen(want) == len && !memcmp(want, text, len))
		*n = (int)agent_event_count(d);
	free(want);
	if (*n)
		return 1;
	if ((r = json_ours(n, text, len, d, prefix)) >= 0)
		return r;
	*n = 1;		/* an older install's plugin */
	return 1;
}

static int file_hooks_add(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			  const char *prefix)
{
	char *want = d->hooks_file(d, prefix);
	int n;

	*out = NULL;
	*err = NULL;
	if (text && !ours(&n, text, len, d, prefix)) {
		free(want);
		*err = xstrdup("the file is not git-session's: it runs other hooks, or none of ours; move it away first");
		return GS_ERROR;
	}
	if (text && strlen(want) == len && !memcmp(want, text, len))
		free(want);	/* there already */
	else
		*out = want;	/* new, or ours as an older git-session wrote it */
	return 0;
}

static int file_hooks_remove(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			     const char *prefix)
{
	int n;

	*err = NULL;
	*out = ours(&n, text, len, d, prefix) && n ? xstrdup("") : NULL;	/* "": no file at all */
	return 0;
}

static int file_hooks_count(const char *text, size_t len, const struct agent_dialect *d, const char *prefix)
{
	int n;

	return ours(&n, text, len, d, prefix) ? n : 0;
}

const struct agent_settings_ops agent_file_hooks = { file_hooks_add, file_hooks_remove, file_hooks_count };
