/*
 * cmd_agent_setup.c - `git session hooks (install | uninstall) --agent
 * <agent>`: our hooks in an agent's own project settings, added and
 * taken out again with what the file had kept, and their state for
 * `hooks status`.
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What an agent's settings run: the binary itself, not through git's wrapper (a process less). */
static char *agent_command(const struct agent_dialect *d)
{
	return xstrfmt("git-session hook %s", d->name);
}

static char *settings_path(struct cmd_ctx *c, const struct agent_dialect *d)
{
	const char *wd = store_workdir(c->st);
	size_t n = strlen(wd);

	return xstrfmt("%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/", d->settings);
}

/*
 * As git refuses a path beyond a symbolic link: the agent's folder or
 * its settings file as a link could send our hooks anywhere, the user's
 * own settings for every project included. Nothing is written then.
 */
static int settings_refused(struct cmd_ctx *c, const struct agent_dialect *d)
{
	const char *wd = store_workdir(c->st);
	struct sbuf path = SBUF_INIT;
	struct stat sb;
	int error = 0;

	sbuf_adds(&path, wd);
	if (path.len && path.buf[path.len - 1] != '/')
		sbuf_addch(&path, '/');
	for (const char *p = d->settings, *end; !error && *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "/");
		sbuf_add(&path, p, (size_t)(end - p));
		if (lstat(path.buf, &sb) < 0)
			break;	/* not there yet: made as a folder and a file */
		if (S_ISLNK(sb.st_mode)) {
			error = gs_error(*end ? "'%s' is beyond a symbolic link" : "'%s' is a symbolic link", d->settings);
			gs_hint("git-session writes %s's hooks only into a real '%s' of this work tree", d->name, d->settings);
		} else if (*end && !S_ISDIR(sb.st_mode)) {
			error = gs_error("'%.*s' is not a folder", (int)(end - d->settings), d->settings);
		} else if (!*end && !S_ISREG(sb.st_mode)) {
			error = gs_error("'%s' is not a regular file", d->settings);
		}
		sbuf_addch(&path, '/');
	}
	sbuf_release(&path);
	return error;
}

static int read_if_there(char **text, size_t *len, const char *path)
{
	*text = NULL;
	*len = 0;
	if (access(path, F_OK) < 0)
		return 0;
	return gs_read_file(text, len, path, 16u << 20);
}

/* Writes text to path as the file that was there was (its mode), making its folder when missing. */
static int write_settings(const char *path, const char *text, int *made_dir)
{
	char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
	struct stat sb;
	int mode = stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : 0644, error = 0;

	*made_dir = 0;
	if (access(dir, F_OK) < 0) {
		if (mkdir(dir, 0777) < 0)
			error = gs_error("cannot make '%s': %s", dir, strerror(errno));
		*made_dir = !error;
	}
	if (!error && (error = gs_write_file(path, text, strlen(text), mode)) == 0)
		chmod(path, (mode_t)mode);
	free(dir);
	return error;
}

/*
 * Adds our hooks to the agent's project settings, keeping what the file
 * had, as it was, for uninstall to give back when the file is still as
 * install left it.
 */
int cmd_agent_setup_install(struct cmd_ctx *c, const struct agent_dialect *d)
{
	char *path = settings_path(c, d), *cmd = agent_command(d), *text = NULL, *out = NULL, *err = NULL;
	cJSON *keep = NULL;
	char *kept = NULL;
	size_t len;
	int made_dir = 0, error;

	if ((error = settings_refused(c, d)) < 0 || (error = read_if_there(&text, &len, path)) < 0)
		goto cleanup;
	if (agent_settings_add(&out, &err, text, len, d, cmd) < 0) {
		error = gs_error("cannot add the hooks to '%s': %s", d->settings, err);
		gs_hint("fix the file, or add them by hand (see 'git session hooks status')");
		goto cleanup;
	}
	if (!out) {
		printf("The git-session hooks for %s are in '%s' already\n", d->name, d->settings);
		goto cleanup;
	}
	if ((error = write_settings(path, out, &made_dir)) < 0)
		goto cleanup;
	keep = cJSON_CreateObject();
	json_set_str(keep, "original", text);
	json_set_bool(keep, "created", text == NULL);
	json_set_bool(keep, "made_dir", made_dir);
	json_set_str(keep, "installed", out);
	kept = json_print(keep, 1, &len);
	if ((error = store_agent_backup_write(c->st, d->name, kept, len)) < 0)
		goto cleanup;
	printf("Installed the git-session hooks for %s in '%s'\n", d->name, d->settings);
cleanup:
	cJSON_Delete(keep);
	free(kept);
	free(path);
	free(cmd);
	free(text);
	free(out);
	free(err);
	return error;
}

/* The file as it was before install when install's is still there, else without our hooks. */
int cmd_agent_setup_uninstall(struct cmd_ctx *c, const struct agent_dialect *d)
{
	char *path = settings_path(c, d), *cmd = agent_command(d), *text = NULL, *out = NULL, *err = NULL;
	char *kept = NULL, *dir;
	cJSON *keep = NULL;
	size_t len, klen;
	int error, made_dir;

	if ((error = settings_refused(c, d)) < 0 || (error = read_if_there(&text, &len, path)) < 0)
		goto cleanup;
	if (store_agent_backup_read(&kept, &klen, c->st, d->name) == 0 && json_parse(&keep, kept, klen, klen + 1, &err) == 0 &&
	    text && json_str(keep, "installed") && !strcmp(json_str(keep, "installed"), text)) {
		if (json_bool(keep, "created", 0)) {
			if (unlink(path) < 0) {
				error = gs_error("cannot remove '%s': %s", path, strerror(errno));
				goto cleanup;
			}
			dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
			if (json_bool(keep, "made_dir", 0))
				rmdir(dir);	/* only when empty */
			free(dir);
		} else if ((error = write_settings(path, json_str(keep, "original"), &made_dir)) < 0) {
			goto cleanup;
		}
	} else if (text && agent_settings_remove(&out, &err, text, len, d, cmd) == 0 && out) {
		if ((error = write_settings(path, out, &made_dir)) < 0)
			goto cleanup;
	} else {
		printf("No git-session hooks for %s in '%s'\n", d->name, d->settings);
		error = store_agent_backup_drop(c->st, d->name);
		goto cleanup;
	}
	error = store_agent_backup_drop(c->st, d->name);
	printf("Removed the git-session hooks for %s from '%s'\n", d->name, d->settings);
cleanup:
	cJSON_Delete(keep);
	free(kept);
	free(path);
	free(cmd);
	free(text);
	free(out);
	free(err);
	return error;
}

void cmd_agent_setup_status(struct cmd_ctx *c)
{
	for (size_t i = 0; agent_dialects[i]; i++) {
		const struct agent_dialect *d = agent_dialects[i];
		char *path = settings_path(c, d), *cmd = agent_command(d), *text = NULL;
		size_t len, all = 0;
		int n;

		for (const struct agent_hook_event *e = d->events; e->event; e++)
			all++;
		if (read_if_there(&text, &len, path) < 0)
			text = NULL;
		n = agent_settings_count(text, len, d, cmd);
		printf("  %-20s %s", d->name, n == 0 ? "not installed" : (size_t)n == all ? "installed" : "partly installed");
		if (n)
			printf(" (%d of %zu events, %s)", n, all, d->settings);
		printf("\n");
		free(path);
		free(cmd);
		free(text);
	}
}
