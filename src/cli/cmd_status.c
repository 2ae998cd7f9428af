/*
 * cmd_status.c - the reports: status, tokens, diff, timeline. Each builds its
 * object with report_<name>.c and prints it as JSON, or draws it for a
 * person with view_<name>.c.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/pager.h"
#include "git-session/report.h"
#include "git-session/util.h"
#include "resume-internal.h"
#include "git-session/view.h"
#include "remote-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How one report of one session is made and drawn. */
struct one_report {
	cJSON *(*build)(const cJSON *state, const struct report_ctx *ctx);
	void (*draw)(struct view *v, const cJSON *r, const struct report_ctx *ctx, long long arg);
	long long arg;
	int remote;	/* says where the session stands against its remote */
};

/*
 * The session against its copy on the sessions remote (session.remote,
 * else origin) as last fetched or pushed: {name, ahead, behind}, or
 * {name, pushed: false} when that remote has never had it and
 * session.remote names it. NULL when there is nothing to say.
 */
static cJSON *remote_standing(struct cmd_ctx *c, const char *id, const char *tip)
{
	char *configured = NULL, *ref, theirs[HEX_SZ];
	const char *name;
	size_t ahead, behind, mark = gs_error_mark();
	cJSON *out = NULL;

	if (remote_sessions(&configured, c->st) < 0) {	/* push and pull say what is wrong with it */
		gs_error_rewind(mark);
		return NULL;
	}
	name = configured ? configured : "origin";
	ref = xstrfmt("refs/remotes/%s/sessions/%s", name, id);
	if (store_ref_value(theirs, c->st, ref) == 0) {
		if (store_ahead_behind(&ahead, &behind, c->st, tip, theirs) == 0) {
			json_set_str((out = cJSON_CreateObject()), "name", name);
			json_set_num(out, "ahead", (double)ahead);
			json_set_num(out, "behind", (double)behind);
		}
	} else if (configured) {
		json_set_str((out = cJSON_CreateObject()), "name", name);
		json_set_bool(out, "pushed", 0);
	}
	gs_error_rewind(mark);	/* a ref that cannot be read: nothing to say, not an error of status */
	free(ref);
	free(configured);
	return out;
}

/*
 * A report command: [<id>] (the active session by default), --json for
 * programs, else drawn for a person, in colour when asked or on a
 * terminal. opts holds REPORT_OPTIONS(*o) and any of the command's own.
 */
static int run_report(int argc, const char **argv, struct cmd_ctx *c, const char *const *usage,
		      const struct option *opts, const struct report_opts *o, const struct one_report *rep)
{
	struct report_ctx ctx = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *r = NULL, *remote = NULL;
	const char **elsewhere = NULL;
	char *id = NULL;
	struct view v;
	int error;

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0 ||
	    (error = cmd_load_target(&state, &tip, &ctx, &id, c, argc ? argv[0] : NULL)) < 0 ||
	    (error = view_start(&v, c, o)) < 0)
		goto cleanup;
	if (rep->remote)
		ctx.remote = remote = remote_standing(c, id, tip.commit);
	ctx.elsewhere = elsewhere = agent_resume_elsewhere(state);
	r = rep->build(state, &ctx);
	if (o->json) {
		view_print_json(r);
	} else {
		rep->draw(&v, r, &ctx, rep->arg);
		view_finish(&v);
	}
cleanup:
	free(elsewhere);
	cJSON_Delete(r);
	cJSON_Delete(remote);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(id);
	return cmd_exit(error);
}

static void draw_status(struct view *v, const cJSON *r, const struct report_ctx *ctx, long long arg)
{
	view_status(v, r, ctx->now, ctx->max_retries);
}

int cmd_status(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session status [<id>] [--json]", NULL };
	static const struct one_report rep = { report_status, draw_status, 0, 1 };
	struct report_opts o = { 0 };
	const struct option opts[] = { REPORT_OPTIONS(o), OPT_END_MARK };

	return run_report(argc, argv, c, usage, opts, &o, &rep);
}


static void draw_tokens(struct view *v, const cJSON *t, const struct report_ctx *ctx, long long arg)
{
	view_tokens(v, t);
}

static cJSON *build_tokens(const cJSON *state, const struct report_ctx *ctx)
{
	return report_tokens(state);
}

int cmd_tokens(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = {
		"git session tokens [<id>] [--json]",
		"git session tokens add --agent <id> --input <n> --output <n> [--cached <n>] [--isolated]",
		"git session tokens budget <tokens>",
		NULL,
	};
	static const struct one_report rep = { build_tokens, draw_tokens, 0 };
	struct report_opts o = { 0 };
	const struct option opts[] = { REPORT_OPTIONS(o), OPT_END_MARK };

	if (argc > 1 && !strcmp(argv[1], "add"))
		return cmd_tokens_add(argc - 1, argv + 1, c);
	if (argc > 1 && !strcmp(argv[1], "budget"))
		return cmd_tokens_budget(argc - 1, argv + 1, c);
	return run_report(argc, argv, c, usage, opts, &o, &rep);
}

/* Loads the checkpoint rev names (NULL: the active session's tip). */
static int load_rev(cJSON **state, struct store_tip *tip, struct cmd_ctx *c, const char *rev)
{
	char *spec = NULL;
	int error;

	if ((error = cmd_resolve_rev(&spec, c, rev)) < 0)
		return error;
	error = engine_load_rev(state, tip, c->st, spec);
	if (error == GS_ENOTFOUND)
		error = gs_error("unknown revision or session '%s'", rev ? rev : SESSION_HEAD);
	free(spec);
	return error;
}

int cmd_diff(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session diff <rev> [<rev>] [--json]", NULL };
	struct store_tip ta = { 0 }, tb = { 0 };
	cJSON *a = NULL, *b = NULL, *d = NULL;
	struct report_opts o = { 0 };
	struct view v;
	int error;
	const struct option opts[] = { REPORT_OPTIONS(o), OPT_END_MARK };

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 2, usage)) < 0)
		goto cleanup;
	if (!argc) {
		gs_error("which checkpoints? (git session diff <id>~1 <id>)");
		usage_with_options(usage, opts, 0);
		error = GS_EUSAGE;
		goto cleanup;
	}
	if ((error = load_rev(&a, &ta, c, argv[0])) < 0 ||
	    (error = load_rev(&b, &tb, c, argc > 1 ? argv[1] : NULL)) < 0 ||
	    (error = view_start(&v, c, &o)) < 0)
		goto cleanup;
	d = report_diff(a, b, ta.commit, tb.commit);
	pager_start(c);
	if (o.json) {
		view_print_json(d);
	} else {
		view_diff(&v, d);
		view_finish(&v);
	}
cleanup:
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(d);
	store_tip_clear(&ta);
	store_tip_clear(&tb);
	return cmd_exit(error);
}

static cJSON *build_timeline(const cJSON *state, const struct report_ctx *ctx)
{
	return report_timeline(state);
}

static void draw_timeline(struct view *v, const cJSON *r, const struct report_ctx *ctx, long long width)
{
	view_timeline(v, r, view_columns(width));
}

int cmd_timeline(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session timeline [<id>] [--width=<columns>] [--json]", NULL };
	struct one_report rep = { build_timeline, draw_timeline, 0 };
	struct report_opts o = { 0 };
	const struct option opts[] = {
		REPORT_OPTIONS(o),
		/* OPT_INT stores a long long */
		{ OPT_INT, 0, "width", &rep.arg, "<columns>", "draw this wide (default: the terminal's, or 80)" },
		OPT_END_MARK,
	};

	return run_report(argc, argv, c, usage, opts, &o, &rep);
}
