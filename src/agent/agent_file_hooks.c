/*
 * agent_file_hooks.c - our hooks in a file wholly ours (a plugin, a hooks
 * file of our own in the agent's folder of them): the dialect's
 * hooks_file writes its whole text. Install writes it, or writes it
 * again when an older install's differs; uninstall removes it. A file of
 * the same name that is not ours (it never runs our command) is left alone.
 */
#include "agent-internal.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static int ours(const char *text, size_t len, const char *prefix)
{
	return text && memmem(text, len, prefix, strlen(prefix)) != NULL;
}

static int file_hooks_add(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			  const char *prefix)
{
	char *want = d->hooks_file(d, prefix);

	*out = NULL;
	*err = NULL;
	if (text && !ours(text, len, prefix)) {
		free(want);
		*err = xstrdup("the file is not git-session's: move it away first");
		return GS_ERROR;
	}
	if (text && strlen(want) == len && !memcmp(want, text, len))
		free(want);	/* there already */
	else
		*out = want;
	return 0;
}

/* *out "" (the file goes) when it is ours. */
static int file_hooks_remove(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			     const char *prefix)
{
	(void)d;
	*err = NULL;
	*out = ours(text, len, prefix) ? xstrdup("") : NULL;
	return 0;
}

/* Every event when the file is the one install writes now; one when it is an older install's. */
static int file_hooks_count(const char *text, size_t len, const struct agent_dialect *d, const char *prefix)
{
	char *want;
	int n;

	if (!ours(text, len, prefix))
		return 0;
	want = d->hooks_file(d, prefix);
	n = strlen(want) == len && !memcmp(want, text, len) ? (int)agent_event_count(d) : 1;
	free(want);
	return n;
}

const struct agent_settings_ops agent_file_hooks = { file_hooks_add, file_hooks_remove, file_hooks_count };
