/*
 * hook_files.c - the files an agent's shell commands changed, found at
 * the end of its turn for the hook runner (cmd_agent_hook.c). Only when
 * the agent ran a command since its last look, and then from what git
 * status lists (git's index, untracked cache and fsmonitor make that the
 * cheap question); of those only the files changed since its prompt
 * and not recorded at their content now are hashed and kept; the others
 * are not read.
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/store_run.h"
#include "git-session/util.h"
#include "hook-internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SHELL_FILES_MAX 1000	/* a command that changed more (a build, an install) is left to git add */

/* What git status lists: "XY path\0", untracked files one by one, ignored ones not. */
static int status_list(struct sbuf *raw, gs_store *st)
{
	static const char *const args[] = { "git", "status", "--porcelain=v1", "-z", "--no-renames",
					     "--untracked-files=all", "--ignore-submodules=all", NULL };
	/* a look only: git takes no lock on the index to refresh it */
	static const char *const env[] = { "GIT_OPTIONAL_LOCKS=0", NULL };

	return store_run(&(struct store_run){ .argv = args, .dir = store_run_dir(st), .env = env, .out = raw,
					      .timeout_ms = 5000, .must_succeed = 1 });
}

/* When the file at path (from the work tree's top) last changed, in ms; -1 when it cannot be read. */
static double mtime_ms(struct hook_run *r, const char *path)
{
	char *full = xstrfmt("%s/%s", store_workdir(r->c->st), path);
	struct stat sb;
	double ms = -1;

	if (!lstat(full, &sb))
		ms = (double)sb.st_mtim.tv_sec * 1000 + (double)(sb.st_mtim.tv_nsec / 1000000);
	free(full);
	return ms;
}

/* Whether the file just recorded as e (known: the manifest's entry) is one the agent's commands changed. */
static int changed_by_agent(const cJSON *e, const cJSON *known, const char *xy)
{
	const char *st = json_str(e, "status"), *was = json_str(known, "status");
	int was_there = known && was && strcmp(was, ST_DELETED);

	if (st && !strcmp(st, ST_DELETED))	/* no time to go by: what was recorded, or what git has */
		return was_there || (!known && (xy[0] == 'D' || xy[1] == 'D'));
	if (was_there && json_str(known, "oid") && json_str(e, "oid") && !strcmp(json_str(known, "oid"), json_str(e, "oid")))
		return 0;
	return 1;
}

/* The files of git status's raw list that agent's commands changed, into files. */
static int pick(cJSON *files, struct hook_run *r, const char *agent, const char *raw, size_t len,
		const cJSON *manifest, double since_ms)
{
	size_t n = 0;

	for (const char *p = raw, *end = raw + len; p + 3 < end && n <= SHELL_FILES_MAX; p += strlen(p) + 1) {
		const char *path = p + 3;
		const cJSON *known = cJSON_GetObjectItemCaseSensitive(manifest, path);
		size_t mark = gs_error_mark();
		double changed;
		cJSON *e;

		if (p[2] != ' ')
			return gs_error("cannot read what git status says");
		/* a file changed before the turn is not its commands', and is not read (gone: -1, judged below) */
		if ((changed = mtime_ms(r, path)) >= 0 && changed < since_ms)
			continue;
		/* a file that cannot be recorded (beyond a link, unreadable) is passed over */
		if (engine_record_file_new(files, r->c->st, path, known || (p[0] != '?' && p[0] != 'A') ? NULL : ST_CREATED,
					   known) < 0) {
			gs_error_rewind(mark);
			continue;
		}
		gs_error_rewind(mark);
		if (!(e = cJSON_GetObjectItemCaseSensitive(files, path)))
			continue;
		if (!changed_by_agent(e, known, p))
			cJSON_Delete(cJSON_DetachItemViaPointer(files, e));
		else
			n++;
	}
	if (n > SHELL_FILES_MAX) {
		gs_warning("the shell commands of agent '%s' changed more than %d files: none is recorded; "
			   "'git session checkpoint <path>...' records the ones that matter", agent, SHELL_FILES_MAX);
		while (files->child)
			cJSON_Delete(cJSON_DetachItemViaPointer(files, files->child));
	}
	return 0;
}

/*
 * When agent a's turn began: its prompt, to the millisecond, else its
 * last turn (or its start). What its commands changed is newer, in ms.
 */
static double turn_start_ms(const cJSON *a)
{
	const char *at = json_str(cJSON_GetObjectItemCaseSensitive(a, "transcript"), "at");
	double prompted = json_num(a, "prompted_ms", 0);
	time_t t;

	if (prompted > 0)
		return prompted;
	if (!at)
		at = json_str(a, "started");
	if (!at || gs_time_parse_iso(&t, at) < 0)
		return 0;
	return ((double)t - 1) * 1000;	/* the second it names, and one for the clocks of the file system */
}

int hook_shell_files(struct state_op **out, double *runs, struct hook_run *r, const cJSON *a)
{
	const cJSON *cmds = cJSON_GetObjectItemCaseSensitive(a, "commands");
	struct store_tip tip = { 0 };
	struct sbuf raw = SBUF_INIT;
	cJSON *state = NULL, *files;
	char *ref = NULL;
	int error;

	*out = NULL;
	*runs = json_num(cmds, "run", 0);
	if (*runs <= json_num(cJSON_GetObjectItemCaseSensitive(a, "transcript"), "runs", 0) || !store_workdir(r->c->st))
		return 0;
	ref = engine_refname(r->session);
	if ((error = status_list(&raw, r->c->st)) < 0 || !raw.len ||
	    (error = engine_load_some(&state, &tip, r->c->st, ref, NEED(FILES))) < 0)
		goto cleanup;
	*out = op_new(OP_CHECKPOINT, NULL);
	json_set_str(op_args(*out), "agent", json_str(a, "id"));
	files = json_obj(op_args(*out), "files");
	if ((error = pick(files, r, json_str(a, "id"), raw.buf, raw.len, cJSON_GetObjectItemCaseSensitive(state, "files"),
			  turn_start_ms(a))) < 0 || !files->child) {
		op_free(*out);
		*out = NULL;
	}
cleanup:
	cJSON_Delete(state);
	store_tip_clear(&tip);
	sbuf_release(&raw);
	free(ref);
	return error;
}
