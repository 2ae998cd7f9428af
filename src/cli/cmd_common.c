/*
 * cmd_common.c - what every command does alike: finding the session it
 * acts on, publishing an operation and saying what happened.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/report.h"
#include "git-session/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int cmd_exit(int error)
{
	if (error == GS_EUSAGE)
		return EXIT_USAGE;
	return error < 0 ? EXIT_FAILED : EXIT_OK;
}

void cmd_said_write(struct cmd_ctx *c, const char *id, const char *commit)
{
	if (!c->result || c->result->id[0])
		return;
	snprintf(c->result->id, sizeof(c->result->id), "%s", id);
	snprintf(c->result->commit, sizeof(c->result->commit), "%s", commit ? commit : "");
}

int cmd_usage_error(const char *const *usage, const struct option *opts, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_verror(fmt, ap);
	va_end(ap);
	usage_with_options(usage, opts, 0);
	return GS_EUSAGE;
}

int cmd_need_work_tree(struct cmd_ctx *c)
{
	if (store_workdir(c->st))
		return 0;
	return gs_error("this operation must be run in a work tree");
}

int cmd_subcommand(int argc, const char **argv, struct cmd_ctx *c, const struct subcommand *subs,
		   const char *const *usage)
{
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help-usage"))) {
		usage_with_options(usage, NULL, 1);
		return EXIT_USAGE;
	}
	if (argc < 2)
		return cmd_exit(cmd_usage_error(usage, NULL, "which subcommand?"));
	for (; subs->name; subs++)
		if (!strcmp(argv[1], subs->name))
			return subs->fn(argc - 1, argv + 1, c);
	return cmd_exit(cmd_usage_error(usage, NULL, "unknown subcommand '%s'", argv[1]));
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

int cmd_write(struct engine_result *res, struct cmd_ctx *c, const char *id, struct state_op *op,
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
		cmd_said_write(c, id, r.commit);
	}
	if (res)
		*res = r;
	else
		engine_result_clear(&r);
	return 0;
}

int cmd_resolve_rev(char **out, struct cmd_ctx *c, const char *rev)
{
	size_t n = 0;
	char *id = NULL, *ref;
	int error;

	*out = NULL;
	if (!rev || !strncmp(rev, SESSION_HEAD, strlen(SESSION_HEAD))) {
		if ((error = engine_active(&id, c->st)) < 0)
			return error;
		*out = xstrfmt("%s%s%s", SESSIONS_PREFIX, id, rev ? rev + strlen(SESSION_HEAD) : "");
		free(id);
		return 0;
	}
	while (rev[n] && (isalnum((unsigned char)rev[n]) || strchr("._-", rev[n])))
		n++;
	id = xstrndup(rev, n);
	for (const char *const *p = (const char *const[]){ SESSIONS_PREFIX, ARCHIVE_PREFIX, NULL }; *p; p++) {
		ref = xstrfmt("%s%s", *p, id);
		if (n && store_ref_exists(c->st, ref)) {
			*out = xstrfmt("%s%s", ref, rev + n);
			free(ref);
			break;
		}
		free(ref);
	}
	free(id);
	if (!*out)
		*out = xstrdup(rev);
	return 0;
}

int cmd_no_more_args(int argc, int max, const char *const *usage)
{
	if (argc <= max)
		return 0;
	return cmd_usage_error(usage, NULL, "too many arguments");
}

/* Parses a colour setting: 1 on, 0 off, -1 auto, -2 not understood. */
static int color_value(const char *v)
{
	if (!strcasecmp(v, "always") || !*v)
		return 1;
	if (!strcasecmp(v, "never") || !strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcasecmp(v, "no"))
		return 0;
	if (!strcasecmp(v, "auto") || !strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcasecmp(v, "yes"))
		return -1;
	return -2;
}

int cmd_color(int *on, struct cmd_ctx *c, const char *when, int no_color)
{
	int v = -1;

	if (no_color) {
		v = 0;
	} else if (when) {
		if ((v = color_value(when)) == -2)
			return gs_error("invalid --color value '%s' (always, never or auto)", when);
	} else if (getenv("NO_COLOR") && *getenv("NO_COLOR")) {
		v = 0;
	} else {
		const char *const keys[] = { "color.session", "color.ui" };
		for (size_t i = 0; i < 2 && v == -1; i++) {
			char *s = store_config_str(c->st, keys[i]);
			if (s && (v = color_value(s)) == -2)
				v = -1;
			free(s);
			if (s)
				break;
		}
	}
	*on = v == -1 ? isatty(1) : v;
	return 0;
}

int cmd_refuse_ignored(struct cmd_ctx *c, const char *path)
{
	int ignored, error;

	if ((error = store_ignored(&ignored, c->st, path)) < 0 || !ignored)
		return error;
	error = gs_error("'%s' is ignored by the repository (.gitignore, info/exclude or core.excludesFile)", path);
	gs_hint("use -f if you really want to record it: what is recorded is pushed");
	return error;
}

/* The target session's state and where it stands; fills ctx. */
int cmd_load_target(cJSON **state, struct store_tip *tip, struct report_ctx *ctx, char **id,
		       struct cmd_ctx *c, const char *given)
{
	char *ref = NULL, *active = NULL;
	int error;

	if ((error = cmd_target(id, c, given)) < 0)
		return error;
	ref = engine_refname(*id);
	error = engine_load_view(state, tip, ctx->before, c->st, ref);
	free(ref);
	if (error < 0 || (error = store_active(&active, c->st)) < 0 || (error = store_now(&ctx->now, c->st)) < 0 ||
	    (error = store_config_int(&ctx->stale_after, c->st, "session.staleAfter", REPORT_STALE_AFTER)) < 0) {
		free(active);
		return error;
	}
	ctx->checkpoint = tip->commit;
	ctx->active = active && !strcmp(active, *id);
	ctx->max_retries = c->eng.lim.max_retries;
	free(active);
	return 0;
}
