/*
 * cmd_agent_setup.c - `git session hooks (install | uninstall) --agent
 * <agent> [--local | --user]`: our hooks in an agent's own settings, the
 * project's, one person's in the project or the user's for every
 * project. They are added keeping what the file had (--local: and a line
 * of info/exclude that leaves the file out of git), taken out again
 * giving it back, and shown by `hooks status`.
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
	enum agent_scope scope;
	char *rel;		/* as said: from the work tree's top, or the user's file whole */
	char *key;		/* of what install keeps to give the file back */
	char *path;		/* in the work tree */
	char *command;		/* what our hooks run, the event aside */
	char *text;		/* what the file holds, NULL when there is none */
	size_t len;
};

static void settings_release(struct settings_file *f)
{
	free(f->rel);
	free(f->key);
	free(f->path);
	free(f->command);
	free(f->text);
}

char *cmd_agent_folder(const struct agent_dialect *d)
{
	const char *env = d->folder_env ? getenv(d->folder_env) : NULL;
	const char *home = d->home_env ? getenv(d->home_env) : NULL;

	if (env && *env == '/')
		return xstrdup(env);
	if (!home || *home != '/')
		home = getenv("HOME");
	return home && *home == '/' ? xstrfmt("%s/%s", home, d->folder) : NULL;
}

static const char *const scope_keys[] = { "", ".local", ".user" };

/*
 * The file, read when there. Our hooks run the binary itself, not
 * through git's wrapper (a process less). The user's file may be a link
 * (to their dotfiles): what it points to is written, the link kept.
 */
static int settings_read(struct settings_file *f, struct cmd_ctx *c, const struct agent_dialect *d,
			 enum agent_scope scope)
{
	const char *wd = store_workdir(c->st);
	char *dir, *real;
	size_t n = strlen(wd);

	f->d = d;
	f->scope = scope;
	f->key = xstrfmt("%s%s", d->name, scope_keys[scope]);
	f->command = xstrfmt("git-session hook %s", d->name);
	f->text = NULL;
	f->len = 0;
	if (scope == AGENT_SCOPE_USER) {
		if (!(dir = cmd_agent_folder(d)))
			return gs_error("cannot find %s's folder of yours: HOME is not set", d->name);
		f->path = xstrfmt("%s/%s", dir, d->settings_user);
		f->rel = xstrdup(f->path);
		free(dir);
		if ((real = realpath(f->path, NULL))) {
			free(f->path);
			f->path = real;
		}
	} else {
		f->rel = xstrdup(scope == AGENT_SCOPE_LOCAL ? d->settings_local : d->settings);
		f->path = xstrfmt("%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/", f->rel);
	}
	if (access(f->path, F_OK) < 0)
		return 0;
	return gs_read_file(&f->text, &f->len, f->path, 16u << 20);
}

/*
 * As git refuses a path beyond a symbolic link: the agent's folder or
 * its settings file as a link could send our hooks anywhere, the user's
 * own settings for every project included. Nothing is written then.
 */
static int settings_refused(struct cmd_ctx *c, const struct agent_dialect *d, const char *rel)
{
	const char *wd = store_workdir(c->st);
	struct sbuf path = SBUF_INIT;
	struct stat sb;
	int error = 0;

	sbuf_adds(&path, wd);
	if (path.len && path.buf[path.len - 1] != '/')
		sbuf_addch(&path, '/');
	for (const char *p = rel, *end; !error && *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, "/");
		sbuf_add(&path, p, (size_t)(end - p));
		if (lstat(path.buf, &sb) < 0)
			break;	/* not there yet: made as a folder and a file */
		if (S_ISLNK(sb.st_mode)) {
			error = gs_error(*end ? "'%s' is beyond a symbolic link" : "'%s' is a symbolic link", rel);
			gs_hint("git-session writes %s's hooks only into a real '%s' of this work tree", d->name, rel);
		} else if (*end && !S_ISDIR(sb.st_mode)) {
			error = gs_error("'%.*s' is not a folder", (int)(end - rel), rel);
		} else if (!*end && !S_ISREG(sb.st_mode)) {
			error = gs_error("'%s' is not a regular file", rel);
		}
		sbuf_addch(&path, '/');
	}
	sbuf_release(&path);
	return error;
}

/*
 * Writes text to path as the file that was there was (its mode), making
 * its folders when missing: *made the first one made (NULL: none).
 */
static int write_settings(const char *path, const char *text, char **made)
{
	char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path)), *base, *slash;
	struct stat sb;
	int mode = stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : 0644, error = 0;

	*made = NULL;
	if (access(dir, F_OK) < 0) {
		/* the deepest folder there is, and the rest made under it */
		base = xstrdup(dir);
		while ((slash = strrchr(base, '/')) && slash > base && (*slash = '\0', access(base, F_OK) < 0))
			;
		*made = xstrndup(dir, strlen(base) + 1 + strcspn(dir + strlen(base) + 1, "/"));
		error = gs_make_dirs(base, dir + strlen(base));
		free(base);
	}
	if (!error && (error = gs_write_file(path, text, strlen(text), mode)) == 0)
		chmod(path, (mode_t)mode);
	free(dir);
	return error;
}

/*
 * The line of info/exclude (the repository's own, never committed) that
 * leaves a local settings file out of git.
 */
static char *exclude_line(const struct settings_file *f)
{
	return xstrfmt("/%s\n", f->rel);
}

/*
 * Has git leave the local settings file out, unless it does already:
 * *added 1 when the line was added, 2 when a newline had to end the
 * file's last line first.
 */
static int exclude_add(int *added, struct cmd_ctx *c, const struct settings_file *f)
{
	char *text = NULL, *line = exclude_line(f);
	struct sbuf out = SBUF_INIT;
	size_t len = 0;
	int ignored = 0, error;

	*added = 0;
	if ((error = store_ignored(&ignored, c->st, f->rel)) < 0 || ignored)
		goto cleanup;
	if ((error = store_exclude_read(&text, &len, c->st)) < 0 && error != GS_ENOTFOUND)
		goto cleanup;
	sbuf_add(&out, text ? text : "", len);
	*added = out.len && out.buf[out.len - 1] != '\n' ? 2 : 1;
	if (*added == 2)
		sbuf_addch(&out, '\n');
	sbuf_adds(&out, line);
	if ((error = store_exclude_write(c->st, out.buf, out.len)) < 0)
		*added = 0;
cleanup:
	sbuf_release(&out);
	free(text);
	free(line);
	return error;
}

/* Takes out the line exclude_add added (added as it said), when it is still there. */
static int exclude_drop(struct cmd_ctx *c, const struct settings_file *f, int added)
{
	char *text = NULL, *line = exclude_line(f), *at;
	size_t len, n = strlen(line);
	int error;

	if ((error = store_exclude_read(&text, &len, c->st)) < 0) {
		error = error == GS_ENOTFOUND ? 0 : error;
		goto cleanup;
	}
	for (at = text; (at = strstr(at, line)) && at != text && at[-1] != '\n'; at++)
		;
	if (at && added == 2 && at > text && at + n == text + len) {
		at--;	/* and the newline added before it */
		n++;
	}
	if (at) {
		memmove(at, at + n, len - (size_t)(at - text) - n + 1);
		error = store_exclude_write(c->st, text, len - n);
	}
cleanup:
	free(text);
	free(line);
	return error;
}

/* What install found and wrote, for uninstall to give back while the file is as install left it. */
static int keep_original(struct cmd_ctx *c, const struct settings_file *f, const char *installed, const char *made,
			 int excluded)
{
	cJSON *keep = cJSON_CreateObject();
	char *kept;
	size_t len;
	int error;

	json_set_str(keep, "original", f->text);
	json_set_bool(keep, "created", f->text == NULL);
	json_set_bool(keep, "made_dir", made != NULL);
	if (made)
		json_set_str(keep, "made", made);
	json_set_num(keep, "excluded", excluded);
	json_set_str(keep, "installed", installed);
	kept = json_print(keep, 1, &len);
	error = store_agent_backup_write(c->st, f->key, kept, len);
	cJSON_Delete(keep);
	free(kept);
	return error;
}

/*
 * Which file: --local asks for the agent's settings of one person's,
 * which not every agent has. The user's are theirs to link where they
 * like; the project's are not followed beyond a link.
 */
static int settings_choose(struct cmd_ctx *c, const struct agent_dialect *d, enum agent_scope scope)
{
	if (!d->settings) {
		gs_error("%s has no settings of its own to install hooks into", d->name);
		gs_hint("have the agent's plugin or hook run 'git session hook %s <event>' (see doc/agent-hooks.md)",
			d->name);
		return GS_ERROR;
	}
	if (scope == AGENT_SCOPE_USER)
		return d->settings_user ? 0 : gs_error("%s has no settings of the user's", d->name);
	if (scope == AGENT_SCOPE_PROJECT || d->settings_local)
		return settings_refused(c, d, scope == AGENT_SCOPE_LOCAL ? d->settings_local : d->settings);
	gs_error("%s has no settings of one person's in the project", d->name);
	gs_hint("install with --user, or without --local and keep '%s' out of git: echo /%s >>.git/info/exclude",
		d->settings, d->settings);
	return GS_ERROR;
}

/* --- the agent's own gate on the hooks (agent_dialect.trust) --- */

/* The user's config file the agent's gate reads; NULL with no home. */
static char *trust_path(const struct agent_dialect *d)
{
	char *dir = cmd_agent_folder(d), *path = dir ? xstrfmt("%s/%s", dir, d->trust->file) : NULL;

	free(dir);
	return path;
}

static char *trust_key(const struct settings_file *f)
{
	return xstrfmt("%s.trust", f->key);
}

/*
 * What the agent's gate lacks for the hooks in text (the file f): *add
 * the entries to append to the user's config (*config its path, *cur its
 * text), *conflict one the user must change. 0, or an error.
 */
static int trust_plan(char **add, char **conflict, char **config, char **cur, size_t *len, struct cmd_ctx *c,
		      const struct settings_file *f, const char *text)
{
	const struct agent_trust_ops *t = f->d->trust;
	char *project = NULL, *entries, *real;
	const char *wd = store_workdir(c->st);
	size_t n = strlen(wd);

	*add = *conflict = *cur = NULL;
	*len = 0;
	if (!(*config = trust_path(f->d)))
		return gs_error("cannot find %s's folder of yours: HOME is not set", f->d->name);
	if ((real = realpath(*config, NULL))) {	/* a link (to dotfiles) is written through */
		free(*config);
		*config = real;
	}
	if (f->scope != AGENT_SCOPE_USER)
		project = xstrndup(wd, n > 1 && wd[n - 1] == '/' ? n - 1 : n);
	/* the hooks are keyed by the file's path as the agent finds it: the user's as its folder says */
	entries = t->entries(text, strlen(text), f->scope == AGENT_SCOPE_USER ? f->rel : f->path, project,
			     f->command);
	free(project);
	if (!entries)
		return 0;
	if (access(*config, F_OK) == 0 && gs_read_file(cur, len, *config, 16u << 20) < 0) {
		free(entries);
		return GS_ERROR;
	}
	t->plan(add, conflict, *cur, *len, entries);
	free(entries);
	return 0;
}

/* Appends add to the config file (cur its text), kept to take out again at uninstall. */
static int trust_write(struct cmd_ctx *c, const struct settings_file *f, const char *config, const char *cur,
		       size_t len, const char *add)
{
	struct sbuf out = SBUF_INIT;
	cJSON *keep = cJSON_CreateObject();
	char *kept, *key = trust_key(f), *made = NULL;
	int error;
	size_t klen;

	sbuf_add(&out, cur ? cur : "", len);
	if (out.len && out.buf[out.len - 1] != '\n')
		sbuf_addch(&out, '\n');
	if (out.len)
		sbuf_addch(&out, '\n');
	sbuf_adds(&out, add);
	/* what was added, the blank line before it too: uninstall takes out exactly that */
	json_set_str(keep, "config", config);
	json_set_str(keep, "appended", out.buf + len);
	kept = json_print(keep, 1, &klen);
	if ((error = write_settings(config, out.buf, &made)) == 0)
		error = store_agent_backup_write(c->st, key, kept, klen);
	cJSON_Delete(keep);
	sbuf_release(&out);
	free(kept);
	free(key);
	free(made);
	return error;
}

/*
 * The agent's gate on the hooks just written (text): with trust, the
 * entries its config lacks appended; without, what to do said. Hooks the
 * agent would skip without a word are never left unsaid.
 */
static int trust_install(struct cmd_ctx *c, const struct settings_file *f, const char *text, int trust)
{
	char *add = NULL, *conflict = NULL, *config = NULL, *cur = NULL;
	size_t len;
	int error;

	if ((error = trust_plan(&add, &conflict, &config, &cur, &len, c, f, text)) < 0)
		goto cleanup;
	if (conflict) {
		gs_warning("%s will not run these hooks: '%s' has %s otherwise than trusted", f->d->name, config,
			   conflict);
		gs_hint("run '%s' in this project and trust it and the hooks (/hooks)", f->d->name);
	} else if (add && trust) {
		if ((error = trust_write(c, f, config, cur, len, add)) == 0)
			printf("Trusted them for %s in '%s'\n", f->d->name, config);
	} else if (add) {
		gs_warning("%s runs these hooks only once you trust them, and skips them without a word until then", f->d->name);
		gs_hint("run '%s' in this project, trust the project and approve the hooks in /hooks,", f->d->name);
		gs_hint("or let git-session record that trust in '%s':", config);
		gs_hint("  git session hooks install --agent %s%s --trust", f->d->name,
			f->scope == AGENT_SCOPE_USER ? " --user" : "");
	}
cleanup:
	free(add);
	free(conflict);
	free(config);
	free(cur);
	return error;
}

/* Takes out of the agent's config what install appended to it, when it is still there as it was. */
static int trust_uninstall(struct cmd_ctx *c, const struct settings_file *f)
{
	char *key = trust_key(f), *kept = NULL, *err = NULL, *cur = NULL, *made = NULL, *at;
	const char *config, *appended;
	cJSON *keep = NULL;
	size_t klen, len, n;
	int error = 0;

	if (store_agent_backup_read(&kept, &klen, c->st, key) < 0 ||
	    json_parse(&keep, kept, klen, klen + 1, &err) < 0 || !(config = json_str(keep, "config")) ||
	    !(appended = json_str(keep, "appended")) || !*appended)
		goto cleanup;
	n = strlen(appended);
	if (access(config, F_OK) == 0 && (error = gs_read_file(&cur, &len, config, 16u << 20)) == 0 &&
	    (at = memmem(cur, len, appended, n))) {
		memmove(at, at + n, len - (size_t)(at - cur) - n + 1);
		if ((error = write_settings(config, cur, &made)) == 0)
			printf("Took the trust of them out of '%s'\n", config);
	}
	if (!error)
		error = store_agent_backup_drop(c->st, key);
cleanup:
	cJSON_Delete(keep);
	free(kept);
	free(err);
	free(cur);
	free(made);
	free(key);
	return error;
}

/* An agent that runs a hook of each file: said when ours are in another of its files too. */
static void twice_warning(struct cmd_ctx *c, const struct agent_dialect *d, enum agent_scope scope)
{
	for (enum agent_scope o = AGENT_SCOPE_PROJECT; o <= AGENT_SCOPE_USER; o++) {
		struct settings_file other = { d };

		if (o == scope || (o == AGENT_SCOPE_LOCAL && !d->settings_local) || (o == AGENT_SCOPE_USER && !d->settings_user))
			continue;
		if (settings_read(&other, c, d, o) == 0 && other.text &&
		    agent_settings_count(other.text, other.len, d, other.command) > 0) {
			gs_warning("%s runs the hooks of '%s' too: each event would be recorded twice", d->name, other.rel);
			gs_hint("keep one: git session hooks uninstall --agent %s%s", d->name,
				o == AGENT_SCOPE_USER ? " --user" : o == AGENT_SCOPE_LOCAL ? " --local" : "");
		}
		settings_release(&other);
	}
}

/* The agent's gate before a project's hooks run, and what opens it: hint lines. */
static void say_gate(struct cmd_ctx *c, const struct agent_dialect *d)
{
	const char *wd = store_workdir(c->st);
	char *top = xstrndup(wd, strlen(wd) - (strlen(wd) > 1 && wd[strlen(wd) - 1] == '/'));
	char *text = xstrfmt(d->gate, top), *line, *next;

	for (line = text; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		gs_hint("%s", line);
	}
	free(text);
	free(top);
}

/* The path of what the dialect puts beside the settings file at path. */
static char *aside_path(const char *path, const char *rel)
{
	return xstrfmt("%.*s/%s", (int)(strrchr(path, '/') - path), path, rel);
}

/* What the dialect puts beside the settings file, when none of it is there. */
static int aside_add(const struct settings_file *f)
{
	const char *const (*a)[2] = f->d->aside;
	int error = 0;

	for (size_t i = 0; a && a[i][0] && !error; i++) {
		char *p = aside_path(f->path, a[i][0]);

		error = access(p, F_OK) == 0;	/* something there: the folder is the user's to manage */
		free(p);
	}
	for (size_t i = 0; a && a[i][0] && !error; i++) {
		char *p = aside_path(f->path, a[i][0]);
		size_t n = strlen(p);

		if (p[n - 1] == '/' && mkdir(p, 0777) < 0)
			error = gs_error("cannot make '%s': %s", p, strerror(errno));
		else if (p[n - 1] != '/' && a[i][1])
			error = gs_write_file(p, a[i][1], strlen(a[i][1]), 0644);
		free(p);
	}
	return error < 0 ? error : 0;
}

/* Takes back what aside_add wrote, while as written (a folder while empty). */
static void aside_drop(const struct settings_file *f)
{
	const char *const (*a)[2] = f->d->aside;

	for (size_t i = 0; a && a[i][0]; i++) {
		char *p = aside_path(f->path, a[i][0]), *text = NULL;
		size_t len = 0;

		if (p[strlen(p) - 1] == '/')
			rmdir(p);
		else if (a[i][1] && gs_read_file(&text, &len, p, 1 << 20) == 0 && len == strlen(a[i][1]) &&
			 !memcmp(text, a[i][1], len))
			unlink(p);
		free(text);
		free(p);
	}
}

/* Adds our hooks to the agent's settings, keeping what the file had, as it was. */
int cmd_agent_setup_install(struct cmd_ctx *c, const struct agent_dialect *d, enum agent_scope scope, int trust)
{
	struct settings_file f = { d };
	char *out = NULL, *err = NULL, *made = NULL;
	int excluded = 0, auto_start, error;

	if ((error = settings_choose(c, d, scope)) < 0 || (error = settings_read(&f, c, d, scope)) < 0)
		goto cleanup;
	if (agent_settings_add(&out, &err, f.text, f.len, d, f.command) < 0) {
		error = gs_error("cannot add the hooks to '%s': %s", f.rel, err);
		gs_hint("fix the file, or add them by hand (see 'git session hooks status')");
		goto cleanup;
	}
	if (!out) {
		printf("The git-session hooks for %s are in '%s' already\n", d->name, f.rel);
		error = d->trust ? trust_install(c, &f, f.text, trust) : 0;
		goto cleanup;
	}
	if ((error = write_settings(f.path, out, &made)) < 0 || (error = aside_add(&f)) < 0 ||
	    (scope == AGENT_SCOPE_LOCAL && (error = exclude_add(&excluded, c, &f)) < 0) ||
	    (error = keep_original(c, &f, out, made, excluded)) < 0)
		goto cleanup;
	printf("Installed the git-session hooks for %s in '%s'%s\n", d->name, f.rel,
	       excluded ? ", which .git/info/exclude leaves out of git" : "");
	if (d->trust && (error = trust_install(c, &f, out, trust)) < 0)
		goto cleanup;
	if (d->flags & AGENT_HOOKS_EACH_FILE)
		twice_warning(c, d, scope);
	if (scope == AGENT_SCOPE_USER && store_config_bool(&auto_start, c->st, "session.agentAutoStart", 1) == 0 &&
	    auto_start) {
		gs_hint("%s now starts a session in every repository it works in; to record only", d->name);
		gs_hint("where one is active: git config --global session.agentAutoStart false");
	}
	if (scope != AGENT_SCOPE_USER && d->gate)
		say_gate(c, d);
cleanup:
	settings_release(&f);
	free(made);
	free(out);
	free(err);
	return error;
}

/*
 * The file as it was before install, when install's is still there:
 * *done 1 when given back (removed, with the folder install made, when
 * install created it), and the line install added to info/exclude taken out.
 */
static int give_back(int *done, struct cmd_ctx *c, const struct settings_file *f)
{
	char *kept = NULL, *err = NULL, *dir, *made = NULL, *slash;
	const char *top;
	cJSON *keep = NULL;
	size_t klen;
	int error = 0;

	*done = 0;
	if (store_agent_backup_read(&kept, &klen, c->st, f->key) < 0 ||
	    json_parse(&keep, kept, klen, klen + 1, &err) < 0 || !f->text || !json_str(keep, "installed") ||
	    strcmp(json_str(keep, "installed"), f->text))
		goto cleanup;
	*done = 1;
	if (json_num(keep, "excluded", 0) > 0 && (error = exclude_drop(c, f, (int)json_num(keep, "excluded", 0))) < 0)
		goto cleanup;
	if (!json_bool(keep, "created", 0)) {
		error = write_settings(f->path, json_str(keep, "original"), &made);
		free(made);
		goto cleanup;
	}
	if (unlink(f->path) < 0) {
		error = gs_error("cannot remove '%s': %s", f->path, strerror(errno));
		goto cleanup;
	}
	dir = xstrndup(f->path, (size_t)(strrchr(f->path, '/') - f->path));
	/* the folders install made, each only when empty */
	top = json_str(keep, "made") ? json_str(keep, "made") : json_bool(keep, "made_dir", 0) ? dir : NULL;
	while (top && strlen(dir) >= strlen(top) && !rmdir(dir) && strcmp(dir, top) && (slash = strrchr(dir, '/')))
		*slash = '\0';
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
	char *out = NULL, *err = NULL, *made = NULL;
	int error = 0;

	*done = f->text && agent_settings_remove(&out, &err, f->text, f->len, f->d, f->command) == 0 && out;
	if (*done && !*out && unlink(f->path) < 0)	/* a file wholly ours */
		error = gs_error("cannot remove '%s': %s", f->path, strerror(errno));
	else if (*done && *out)
		error = write_settings(f->path, out, &made);
	free(made);
	free(out);
	free(err);
	return error;
}

int cmd_agent_setup_uninstall(struct cmd_ctx *c, const struct agent_dialect *d, enum agent_scope scope)
{
	struct settings_file f = { d };
	int error, done;

	if ((error = settings_choose(c, d, scope)) < 0 || (error = settings_read(&f, c, d, scope)) < 0)
		goto cleanup;
	if (f.text && agent_settings_count(f.text, f.len, d, f.command) > 0)
		aside_drop(&f);
	if ((error = give_back(&done, c, &f)) < 0 || (!done && (error = take_out(&done, &f)) < 0))
		goto cleanup;
	error = store_agent_backup_drop(c->st, f.key);
	if (!error && d->trust)
		error = trust_uninstall(c, &f);
	if (!done)
		printf("No git-session hooks for %s in '%s'\n", d->name, f.rel);
	else
		printf("Removed the git-session hooks for %s from '%s'\n", d->name, f.rel);
cleanup:
	settings_release(&f);
	return error;
}

/* Whether the agent's gate lets the hooks in f run. */
static int trusted(struct cmd_ctx *c, const struct settings_file *f)
{
	char *add = NULL, *conflict = NULL, *config = NULL, *cur = NULL;
	size_t len;
	int ok = trust_plan(&add, &conflict, &config, &cur, &len, c, f, f->text) == 0 && !add && !conflict;

	free(add);
	free(conflict);
	free(config);
	free(cur);
	return ok;
}

int cmd_agent_setup_installed(struct cmd_ctx *c, const struct agent_dialect *d)
{
	static const enum agent_scope scopes[] = { AGENT_SCOPE_PROJECT, AGENT_SCOPE_LOCAL, AGENT_SCOPE_USER };
	size_t mark = gs_error_mark();	/* a file that cannot be read has none */
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(scopes) && !n; i++) {
		struct settings_file f = { d };

		if (!d->settings || (scopes[i] == AGENT_SCOPE_LOCAL && !d->settings_local) ||
		    (scopes[i] == AGENT_SCOPE_USER && !d->settings_user) ||
		    (scopes[i] != AGENT_SCOPE_USER && !store_workdir(c->st)))
			continue;
		if (settings_read(&f, c, d, scopes[i]) == 0)
			n = agent_settings_count(f.text, f.len, d, f.command);
		settings_release(&f);
	}
	gs_error_rewind(mark);
	return n > 0;
}

/* One line of `hooks status`: where the agent's hooks are, if anywhere; a file of one person's only when it has them. */
static void status_line(struct cmd_ctx *c, const struct agent_dialect *d, enum agent_scope scope)
{
	struct settings_file f = { d };
	size_t all = agent_event_count(d);
	int n;

	if (settings_read(&f, c, d, scope) < 0) {
		free(f.text);
		f.text = NULL;
	}
	n = agent_settings_count(f.text, f.len, d, f.command);
	if (n || scope == AGENT_SCOPE_PROJECT) {
		printf("  %-20s %s", d->name, n == 0 ? "not installed" : (size_t)n == all ? "installed" : "partly installed");
		if (n)
			printf(" (%d of %zu events, %s)", n, all, f.rel);
		if (n && d->trust)
			printf("%s", trusted(c, &f) ? ", trusted" : ", NOT trusted: it will not run them");
		printf("\n");
	}
	settings_release(&f);
}

void cmd_agent_setup_status(struct cmd_ctx *c)
{
	for (size_t i = 0; agent_dialects[i]; i++) {
		if (!agent_dialects[i]->settings)
			continue;
		status_line(c, agent_dialects[i], AGENT_SCOPE_PROJECT);
		if (agent_dialects[i]->settings_local)
			status_line(c, agent_dialects[i], AGENT_SCOPE_LOCAL);
		if (agent_dialects[i]->settings_user)
			status_line(c, agent_dialects[i], AGENT_SCOPE_USER);
	}
}
