/*
 * store_agent.c - what the agent hooks keep in the git directory beside
 * the sessions: which git session an agent's own session belongs to
 * (shared by every worktree), and the settings file each worktree had
 * before `hooks install --agent`, to give it back byte for byte.
 */
#include "git-session/store.h"
#include "store-internal.h"
#include "git-session/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AGENTS_DIR "git-session/agents"
#define BACKUP_DIR "git-session/agent-hooks"

/* An agent's session id names a file: the characters of an id, nothing else. */
static int plain_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 200)
		return 0;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

int store_agent_linked(char **id, gs_store *st, const char *agent_session)
{
	char *name, *text = NULL;
	size_t len;
	int error;

	*id = NULL;
	if (!plain_name(agent_session))
		return 0;
	name = xstrfmt(AGENTS_DIR "/%s", agent_session);
	error = store_file_read(&text, &len, st, name, 1024);
	free(name);
	if (error == GS_ENOTFOUND)
		return 0;
	if (error < 0)
		return error;
	text[strcspn(text, "\n")] = '\0';
	*id = text;
	return 0;
}

int store_agent_link(gs_store *st, const char *agent_session, const char *id)
{
	char *name, *line;
	int error;

	if (!plain_name(agent_session))
		return 0;
	if ((error = gs_make_dirs(store_commondir(st), AGENTS_DIR)) < 0)
		return error;
	name = xstrfmt(AGENTS_DIR "/%s", agent_session);
	line = xstrfmt("%s\n", id);
	error = store_file_write(st, name, line, strlen(line));
	free(name);
	free(line);
	return error;
}

static char *backup_path(gs_store *st, const char *agent)
{
	return xstrfmt("%s" BACKUP_DIR "/%s.json", store_gitdir(st), agent);
}

int store_agent_backup_read(char **text, size_t *len, gs_store *st, const char *agent)
{
	char *path = backup_path(st, agent);
	int error = access(path, F_OK) == 0 ? gs_read_file(text, len, path, 64u << 20) : GS_ENOTFOUND;

	free(path);
	return error;
}

int store_agent_backup_write(gs_store *st, const char *agent, const char *text, size_t len)
{
	char *path;
	int error;

	if ((error = gs_make_dirs(store_gitdir(st), BACKUP_DIR)) < 0)
		return error;
	path = backup_path(st, agent);
	error = gs_write_file(path, text, len, 0644);
	free(path);
	return error;
}

int store_agent_backup_drop(gs_store *st, const char *agent)
{
	char *path = backup_path(st, agent);
	int error = unlink(path) < 0 && errno != ENOENT ? gs_error("cannot remove '%s': %s", path, strerror(errno)) : 0;

	free(path);
	return error;
}

int store_exclude_read(char **text, size_t *len, gs_store *st)
{
	char *path = xstrfmt("%sinfo/exclude", store_commondir(st));
	int error = access(path, F_OK) == 0 ? gs_read_file(text, len, path, 16u << 20) : GS_ENOTFOUND;

	free(path);
	return error;
}

int store_exclude_write(gs_store *st, const char *text, size_t len)
{
	char *path = xstrfmt("%sinfo/exclude", store_commondir(st));
	int error;

	if ((error = gs_make_dirs(store_commondir(st), "info")) == 0)
		error = gs_write_file(path, text, len, 0644);
	free(path);
	return error;
}

int store_ignored(int *out, gs_store *st, const char *path)
{
	git_index *index = NULL;
	int ignored = 0;

	*out = 0;
	if (git_ignore_path_is_ignored(&ignored, st->repo, path) < 0)
		return store_git_error("cannot read the ignore rules for '%s'", path);
	if (!ignored)
		return 0;
	/* a tracked file is git's whatever its name: git add takes it */
	if (git_repository_index(&index, st->repo) < 0)
		return store_git_error("cannot read the index");
	*out = git_index_get_bypath(index, path, 0) == NULL;
	git_index_free(index);
	return 0;
}

static int under_dir(const char *real, const char *dir)
{
	char *d = realpath(dir, NULL);
	size_t n = d ? strlen(d) : 0;
	int in = d && !strncmp(real, d, n) && (real[n] == '/' || !real[n]);

	free(d);
	return in;
}

int store_in_gitdir(gs_store *st, const char *real)
{
	return under_dir(real, store_gitdir(st)) || under_dir(real, store_commondir(st));
}
