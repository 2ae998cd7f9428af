/*
 * cmd_sync.c - `git session push` and `git session pull`: sessions to and
 * from any git remote. The work is in src/engine/sync*.c; this parses
 * and prints.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/state.h"
#include "git-session/sync.h"
#include "git-session/util.h"
#include "git-session/view.h"
#include "remote-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line of the report's text: escaped, what came from a remote may hold anything. */
static void print_safe(const char *fmt, const char *s)
{
	struct sbuf sb = SBUF_INIT;

	out_escape(&sb, s ? s : "");
	printf(fmt, sb.buf ? sb.buf : "");
	sbuf_release(&sb);
}

static void print_line(const cJSON *r, int dry_run)
{
	const char *action = json_str(r, "action"), *ours = json_str(r, "ours");
	const char *theirs = json_str(r, "theirs"), *merged = json_str(r, "merged");
	const cJSON *x;

	if (!action)	/* it failed: its error says so */
		return;
	printf(" %s%-12s", dry_run ? "would: " : "", action);
	print_safe(" %s", json_str(r, "id"));	/* a name a remote chose */
	if (!strcmp(action, "fast-forward") && ours && theirs)
		printf(" (%.7s..%.7s)", ours, theirs);
	else if (merged && strcmp(action, "merge"))	/* a push of a merge */
		printf(" (merged %.7s + %.7s -> %.7s)", ours, theirs, merged);
	else if (merged)
		printf(" (%.7s + %.7s -> %.7s)", ours, theirs, merged);
	else if (json_str(r, "detail") && strcmp(action, "up to date"))
		print_safe(" (%s)", json_str(r, "detail"));
	putchar('\n');
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "conflicts"))
		print_safe("   conflict: %s\n", x->valuestring);
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, "skipped"))
		print_safe("   skipped: %s\n", x->valuestring);
}

#define LEFT_ALONE_SHOWN 10	/* sessions left alone named one a line; the rest counted */

/* What moved, as git says it: the remote first, then a line a session; or that nothing did. */
static void print_report(const cJSON *report, const struct sync_opts *o, int push)
{
	const cJSON *r;
	int left = 0;

	if (!cJSON_GetArraySize(report)) {
		puts(push ? "Everything up-to-date" : "Already up to date.");
		return;
	}
	printf("%s %s\n", push ? "To" : "From", o->remote);
	cJSON_ArrayForEach(r, report) {
		const char *action = json_str(r, "action");

		if (action && strstr(action, "left alone") && ++left > LEFT_ALONE_SHOWN)
			continue;
		print_line(r, o->dry_run);
	}
	if (left > LEFT_ALONE_SHOWN)
		printf(" ... and %d more sessions archived or deleted here, left alone (--json lists them)\n",
		       left - LEFT_ALONE_SHOWN);
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
	} else if (!quiet && (error == 0 || cJSON_GetArraySize(report))) {
		print_report(report, &o, push);
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
