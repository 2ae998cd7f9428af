/*
 * cmd_agent_setup.c - `git session hooks (install | uninstall) --agent
 * <agent>`: our hooks in an agent's own project settings. They are added
 * keeping what the file had, taken out again giving it back, and shown
 * by `hooks status`.
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

/* The agent's settings file: read, edited, written back. */
struct settings_file {
	const struct agent_dialect *d;
	char *path;		/* in the work tree */
	char *command;		/* what our hooks run, the event aside */
	char *text;		/* what the file holds, NULL when there is none */
	size_t len;
};

static void settings_release(struct settings_file *f)
{
	free(f->path);
	free(f->command);
	free(f->text);
}

/*
 * The file, read when there. Our hooks run the binary itself, not
 * through git's wrapper (a process less).
 */
static int settings_read(struct settings_file *f, struct cmd_ctx *c, const struct agent_dialect *d)
{
	const char *wd = store_workdir(c->st);
	size_t n = strlen(wd);

	f->d = d;
	f->path = xstrfmt("%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/", d->settings);
	f->command = xstrfmt("git-session hook %s", d->name);
	f->text = NULL;
	f->len = 0;
	if (access(f->path, F_OK) < 0)
		return 0;
	return gs_read_file(&f->text, &f->len, f->path, 16u << 20);
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

/* What install found and wrote, for uninstall to give back while the file is as install left it. */
static int keep_original(struct cmd_ctx *c, const struct settings_file *f, const char *installed, int made_dir)
{
	cJSON *keep = cJSON_CreateObject();
	char *kept;
	size_t len;
	int error;

	json_set_str(keep, "original", f->text);
	json_set_bool(keep, "created", f->text == NULL);
	json_set_bool(keep, "made_dir", made_dir);
	json_set_str(keep, "installed", installed);
	kept = json_print(keep, 1, &len);
	error = store_agent_backup_write(c->st, f->d->name, kept, len);
	cJSON_Delete(keep);
	free(kept);
	return error;
}

/* Adds our hooks to the agent's project settings, keeping what the file had, as it was. */
int cmd_agent_setup_install(struct cmd_ctx *c, const struct agent_dialect *d)
{
	struct settings_file f = { d };
	char *out = NULL, *err = NULL;
	int made_dir = 0, error;

	if ((error = settings_refused(c, d)) < 0 || (error = settings_read(&f, c, d)) < 0)
		goto cleanup;
	if (agent_settings_add(&out, &err, f.text, f.len, d, f.command) < 0) {
		error = gs_error("cannot add the hooks to '%s': %s", d->settings, err);
		gs_hint("fix the file, or add them by hand (see 'git session hooks status')");
		goto cleanup;
	}
	if (!out) {
		printf("The git-session hooks for %s are in '%s' already\n", d->name, d->settings);
		goto cleanup;
	}
	if ((error = write_settings(f.path, out, &made_dir)) < 0 || (error = keep_original(c, &f, out, made_dir)) < 0)
		goto cleanup;
	printf("Installed the git-session hooks for %s in '%s'\n", d->name, d->settings);
cleanup:
	settings_release(&f);
	free(out);
	free(err);
	return error;
}

/*
 * The file as it was before install, when install's is still there:
 * *done 1 when given back (removed, with the folder install made, when
 * install created it).
 */
static int give_back(int *done, struct cmd_ctx *c, const struct settings_file *f)
{
	char *kept = NULL, *err = NULL, *dir;
	cJSON *keep = NULL;
	size_t klen;
	int error = 0, made_dir;

	*done = 0;
	if (store_agent_backup_read(&kept, &klen, c->st, f->d->name) < 0 ||
	    json_parse(&keep, kept, klen, klen + 1, &err) < 0 || !f->text || !json_str(keep, "installed") ||
	    strcmp(json_str(keep, "installed"), f->text))
		goto cleanup;
	*done = 1;
	if (!json_bool(keep, "created", 0)) {
		error = write_settings(f->path, json_str(keep, "original"), &made_dir);
		goto cleanup;
	}
	if (unlink(f->path) < 0) {
		error = gs_error("cannot remove '%s': %s", f->path, strerror(errno));
		goto cleanup;
	}
	dir = xstrndup(f->path, (size_t)(strrchr(f->path, '/') - f->path));
	if (json_bool(keep, "made_dir", 0))
		rmdir(dir);	/* only when empty */
	free(dir);
cleanup:
	cJSON_Delete(keep);
	free(kept);
	free(err);
	return error;
}

/* The file without our hooks, whatever else changed in it since; *done 1 when there were some. */
static int take_out(int *done, const struct settings_file *f)
{
	char *out = NULL, *err = NULL;
	int error = 0, made_dir;

	*done = f->text && agent_settings_remove(&out, &err, f->text, f->len, f->d, f->command) == 0 && out;
	if (*done)
		error = write_settings(f->path, out, &made_dir);
	free(out);
	free(err);
	return error;
}

int cmd_agent_setup_uninstall(struct cmd_ctx *c, const struct agent_dialect *d)
{
	struct settings_file f = { d };
	int error, done;

	if ((error = settings_refused(c, d)) < 0 || (error = settings_read(&f, c, d)) < 0 ||
	    (error = give_back(&done, c, &f)) < 0 || (!done && (error = take_out(&done, &f)) < 0))
		goto cleanup;
	if (!done) {
		printf("No git-session hooks for %s in '%s'\n", d->name, d->settings);
		error = store_agent_backup_drop(c->st, d->name);
		goto cleanup;
	}
	error = store_agent_backup_drop(c->st, d->name);
	printf("Removed the git-session hooks for %s from '%s'\n", d->name, d->settings);
cleanup:
	settings_release(&f);
	return error;
}

void cmd_agent_setup_status(struct cmd_ctx *c)
{
	for (size_t i = 0; agent_dialects[i]; i++) {
		const struct agent_dialect *d = agent_dialects[i];
		struct settings_file f = { d };
		size_t all = agent_event_count(d);
		int n;

		if (settings_read(&f, c, d) < 0)
			f.text = NULL;
		n = agent_settings_count(f.text, f.len, d, f.command);
		printf("  %-20s %s", d->name, n == 0 ? "not installed" : (size_t)n == all ? "installed" : "partly installed");
		if (n)
			printf(" (%d of %zu events, %s)", n, all, d->settings);
		printf("\n");
		settings_release(&f);
	}
}
