/*
 * apply_patch.c - the files a patch in the apply_patch format names
 * (Codex's, and the agents that took it up): "*** Add File: <path>",
 * "*** Update File: <path>" (with "*** Move to: <path>"), "*** Delete
 * File: <path>", between "*** Begin Patch" and "*** End Patch". Only the
 * headers are read: what the patch did is read from the work tree after
 * it ran. Pure C, no I/O.
 */
#include "git-session/agent.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *mark;
	enum agent_patch_kind kind;
} patch_marks[] = {
	{ "*** Add File:", AGENT_PATCH_ADD },
	{ "*** Update File:", AGENT_PATCH_UPDATE },
	{ "*** Delete File:", AGENT_PATCH_DELETE },
	{ "*** Move to:", AGENT_PATCH_MOVE_TO },
};

/* The line from s to its end, blanks around it left out, as [*from, *to); the next line's start. */
static const char *trimmed_line(const char **from, const char **to, const char *s)
{
	const char *end = s + strcspn(s, "\n");

	*from = s;
	*to = end;
	while (*from < *to && strchr(" \t\r", **from))
		(*from)++;
	while (*to > *from && strchr(" \t\r", (*to)[-1]))
		(*to)--;
	return *end ? end + 1 : end;
}

/* The file a header line names, kept in *f; 0 when the line is no header, -1 when it names no path. */
static int header(struct agent_patch_file *f, const char *from, const char *to)
{
	for (size_t i = 0; i < sizeof(patch_marks) / sizeof(patch_marks[0]); i++) {
		size_t n = strlen(patch_marks[i].mark);

		if ((size_t)(to - from) < n || memcmp(from, patch_marks[i].mark, n))
			continue;
		for (from += n; from < to && (*from == ' ' || *from == '\t'); from++)
			;
		if (from == to)
			return -1;
		f->kind = patch_marks[i].kind;
		f->path = xstrndup(from, (size_t)(to - from));
		return 1;
	}
	return 0;
}

int agent_patch_files(struct agent_patch_file **out, size_t *n, const char *patch)
{
	struct agent_patch_file *v = NULL, f;
	const char *from, *to, *s = patch;
	size_t alloc = 0;
	int r, began = 0;

	*out = NULL;
	*n = 0;
	while (s && *s) {
		s = trimmed_line(&from, &to, s);
		if (!began) {	/* what comes before: a heredoc's "apply_patch <<'EOF'", blank lines */
			began = to - from == 15 && !memcmp(from, "*** Begin Patch", 15);
			continue;
		}
		if (to - from == 13 && !memcmp(from, "*** End Patch", 13))
			break;
		if ((r = header(&f, from, to)) == 0)
			continue;
		if (r < 0 || *n == AGENT_PATCH_FILES_MAX ||
		    (f.kind == AGENT_PATCH_MOVE_TO && (!*n || v[*n - 1].kind != AGENT_PATCH_UPDATE))) {
			if (r > 0)
				free(f.path);
			agent_patch_files_free(v, *n);
			*n = 0;
			return -1;
		}
		ALLOC_GROW(v, *n + 1, alloc);
		v[(*n)++] = f;
	}
	*out = v;
	return began ? 0 : -1;
}

void agent_patch_files_free(struct agent_patch_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}
