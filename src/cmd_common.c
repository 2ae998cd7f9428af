/*
 * cmd_common.c - what every command does alike: finding the session it
 * acts on, publishing an operation and saying what happened.
 */
#include "git-session/cmd.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_exit(int error)
{
	if (error == GS_EUSAGE)
		return 129;
	return error < 0 ? 1 : 0;
}

int cmd_target(char **id, struct cmd_ctx *c, const char *given)
{
	char *refname = NULL;
	int error;

	*id = NULL;
	if (given)
		*id = xstrdup(given);
	else if ((error = engine_active(id, c->st)) < 0)
		return error;
	error = engine_find(&refname, c->st, *id);
	free(refname);
	if (error < 0) {
		free(*id);
		*id = NULL;
	}
	return error;
}

int cmd_write(struct engine_result *res, struct cmd_ctx *c, const char *id, cJSON *op,
	      const char *body, int quiet)
{
	struct engine_result r = { 0 };
	int error = engine_commit(&r, &c->eng, id, op, body, 0);

	if (error < 0)
		return error;
	if (!quiet) {
		printf("[%s %.7s] ", id, r.commit);
		out_text(stdout, r.subject);
		putchar('\n');
	}
	if (res)
		*res = r;
	else
		engine_result_clear(&r);
	return 0;
}

int cmd_no_more_args(int argc, int max, const char *const *usage)
{
	if (argc <= max)
		return 0;
	gs_error("too many arguments");
	usage_with_options(usage, NULL, 0);
	return GS_EUSAGE;
}
