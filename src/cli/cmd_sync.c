/*
 * cmd_sync.c - `git session push` and `git session pull`: sessions to and
 * from any git remote. The work is in src/engine/sync*.c; this parses
 * and prints.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/state.h"
#include "git-session/sync.h"
#include "git-session/util.h"
#include "git-session/view.h"
#include "remote-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_line(const cJSON *r, int dry_run)
{
	const char *action = json_str(r, "action"), *ours = json_str(r, "ours");
	const char *theirs = json_str(r, "theirs"), *merged = json_str(r, "merged");
	const cJSON *x;

	if (!action)	/* it failed: its error says so */
		return;
	printf(" %s%-12s %s", dry_run ? "would: " : "", action, json_str(r, "id"));
	if (!strcmp(action, "fast-forward") && ours && theirs)
		printf(" (%.7s..%.7s)", ours, theirs);
	else if (merged && strcmp(action, "merge"))	/* a push of a merge */
		printf(" (merged %.7s + %.7s -> %.7s)", ours, theirs, merged);
	else if (merged)
		printf(" (%.7s + %.7s -> %.7s)", ours, theirs, merged);
	else if (json_str(r, "detail") && strcmp(action, "up to date"))
		printf(" (%s)", json_str(r, "detail"));
	putchar('\n');
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "conflicts"))
		printf("   conflict: %s\n", x->valuestring);
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "skipped"))
		printf("   skipped: %s\n", x->valuestring);
}

static int sync_cmd(int argc, const char **argv, struct cmd_ctx *c, int push)
{
	static const char *const pull_usage[] = {
		"git session pull [<remote>] [--session <id>] [--dry-run] [--json]", NULL,
	};
	static const char *const push_usage[] = {
		"git session push [<remote>] [--allow-other-remote] [--session <id>] [--dry-run] [--json]", NULL,
	};
	const char *const *usage = push ? push_usage : pull_usage;
	struct sync_opts o = { NULL, NULL, 0 };
	cJSON *report = cJSON_CreateArray();
	const cJSON *r;
	int json = 0, quiet = 0, allow_other = 0, error;
	char *why = NULL, *remote = NULL;
	const struct option opts[] = {
		{ OPT_STRING, 0, "session", &o.only, "<id>", "only this session" },
		{ OPT_BOOL, 'n', "dry-run", &o.dry_run, NULL, "say what would move, move nothing" },
		{ OPT_BOOL, 0, "json", &json, NULL, "print a JSON array, one object a session" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		/* push only: for pull, the end of the list */
		{ push ? OPT_BOOL : OPT_END, 0, "allow-other-remote", &allow_other, NULL,
		  "push to this remote although session.remote names another" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0)
		goto cleanup;
	if ((error = remote_for_sync(&remote, c->st, argc ? argv[0] : NULL, push, allow_other)) < 0)
		goto cleanup;
	o.remote = remote;
	if (o.only && state_valid_id(o.only, &why) < 0) {
		error = gs_error("invalid session id '%s': %s", o.only, why);
		free(why);
		goto cleanup;
	}
	if (push) {
		setenv("GIT_SESSION_PUSH_TO", o.remote, 1);	/* checked: the pre-push hook lets it by */
		error = sync_push(report, &c->eng, &o);
		unsetenv("GIT_SESSION_PUSH_TO");
	} else if ((error = sync_fetch(&c->eng, o.remote)) == 0) {
		error = sync_integrate(report, &c->eng, &o);
	}
	cmd_print_errors();	/* what failed, before the report of what moved */
	if (json) {
		view_print_json(report);
	} else if (!quiet) {
		cJSON_ArrayForEach(r, report)
			print_line(r, o.dry_run);
	}
cleanup:
	cJSON_Delete(report);
	free(remote);
	return cmd_exit(error);
}

int cmd_pull(int argc, const char **argv, struct cmd_ctx *c)
{
	return sync_cmd(argc, argv, c, 0);
}

int cmd_push(int argc, const char **argv, struct cmd_ctx *c)
{
	return sync_cmd(argc, argv, c, 1);
}
