/*
 * cmd_status.c - the reports: status, tokens, diff. Each builds its
 * object with report.c and prints it as JSON, or renders it for a person.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/report.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a report is shown: colour, glyphs, and the buffer it is built in. */
struct view {
	struct out_color color;
	int utf8;
	struct sbuf out;
};

static const char *c_(struct view *v, const char *code)
{
	return out_c(&v->color, code);
}

static void text(struct view *v, const char *s)
{
	out_escape(&v->out, s ? s : "");
}

static void print_json(const cJSON *obj)
{
	char *s = json_print(obj, 1, NULL);

	fputs(s, stdout);
	free(s);
}

static void mark(struct view *v, const char *status)
{
	const char *color = c_(v, out_status_color(status));

	sbuf_addf(&v->out, "%s%s%s", color, out_mark(status, v->utf8), *color ? C_RESET : "");
}

/* prefix, then s escaped, then suffix. */
static void say(struct view *v, const char *prefix, const char *s, const char *suffix)
{
	sbuf_adds(&v->out, prefix);
	text(v, s);
	sbuf_adds(&v->out, suffix);
}

static void human_status(struct sbuf *sb, const char *status)
{
	sbuf_adds(sb, !strcmp(status, "in_progress") ? "in progress" : status);
}

static void bar(struct view *v, int percent, int width)
{
	int full = percent * width / 100;

	sbuf_addch(&v->out, '[');
	for (int i = 0; i < width; i++)
		sbuf_adds(&v->out, i < full ? (v->utf8 ? "\u2588" : "#") : (v->utf8 ? "\u2591" : "-"));
	sbuf_addch(&v->out, ']');
}

static void render_header(struct view *v, const cJSON *r, time_t now)
{
	const cJSON *prog = cJSON_GetObjectItemCaseSensitive(r, "progress");
	const char *status = json_str(r, "status");
	time_t t;

	sbuf_addf(&v->out, "%sSession %s%s  ", c_(v, C_BOLD), json_str(r, "session_id"), c_(v, C_RESET));
	mark(v, status);
	sbuf_addch(&v->out, ' ');
	human_status(&v->out, status);
	sbuf_adds(&v->out, json_bool(r, "active", 0) ? " (active here)\n" : "\n");
	if (json_str(r, "topic")) {
		sbuf_adds(&v->out, "Topic     ");
		text(v, json_str(r, "topic"));
		sbuf_addch(&v->out, '\n');
	}
	if (json_str(r, "goal")) {
		sbuf_adds(&v->out, "Goal      ");
		text(v, json_str(r, "goal"));
		sbuf_addch(&v->out, '\n');
	}
	sbuf_adds(&v->out, "Started   ");
	if (gs_time_parse_iso(&t, json_str(r, "created") ? json_str(r, "created") : "") == 0)
		out_relative_time(&v->out, t, now);
	sbuf_adds(&v->out, ", last checkpoint ");
	if (gs_time_parse_iso(&t, json_str(r, "updated") ? json_str(r, "updated") : "") == 0)
		out_relative_time(&v->out, t, now);
	sbuf_addf(&v->out, " (%.7s)\n", json_str(r, "checkpoint"));
	if (json_num(prog, "phases", 0)) {
		sbuf_adds(&v->out, "Progress  ");
		bar(v, (int)json_num(prog, "percent", 0), 20);
		sbuf_addf(&v->out, " %d/%d phases done, %d%%\n",
			  (int)(json_num(prog, "completed", 0) + json_num(prog, "skipped", 0)),
			  (int)json_num(prog, "phases", 0), (int)json_num(prog, "percent", 0));
	}
}

static void render_errors(struct view *v, const cJSON *r)
{
	const cJSON *errors = cJSON_GetObjectItemCaseSensitive(r, "unresolved_errors"), *e;

	if (!cJSON_GetArraySize(errors))
		return;
	sbuf_addf(&v->out, "\n%sUnresolved errors%s\n", c_(v, C_BOLD), c_(v, C_RESET));
	cJSON_ArrayForEach(e, errors) {
		sbuf_adds(&v->out, "  ");
		mark(v, "failed");
		sbuf_addf(&v->out, " #%d %s", (int)json_num(e, "number", 0), json_str(e, "type"));
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "phase")))
			sbuf_addf(&v->out, ", phase %d", (int)json_num(e, "phase", 0));
		if (json_str(e, "agent")) {
			sbuf_adds(&v->out, ", agent ");
			text(v, json_str(e, "agent"));
		}
		sbuf_adds(&v->out, ": ");
		text(v, json_str(e, "message"));
		sbuf_addch(&v->out, '\n');
	}
}

static void render_phase(struct view *v, const cJSON *p, int max_retries)
{
	const cJSON *a, *b;
	int first = 1;

	sbuf_adds(&v->out, "  ");
	mark(v, json_str(p, "status"));
	sbuf_addf(&v->out, " %d ", (int)json_num(p, "id", 0));
	text(v, json_str(p, "name"));
	sbuf_adds(&v->out, "  ");
	sbuf_addf(&v->out, "%s", c_(v, C_DIM));
	human_status(&v->out, json_str(p, "status"));
	if (json_num(p, "retry_count", 0))
		sbuf_addf(&v->out, ", retry %d of %d", (int)json_num(p, "retry_count", 0), max_retries);
	if (json_bool(p, "parallel", 0))
		sbuf_adds(&v->out, ", parallel");
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(p, "blocked_by"))
		sbuf_addf(&v->out, "%s%d", first ? ", after phase " : ", ", (int)b->valuedouble), first = 0;
	if (json_str(p, "sub_step")) {
		sbuf_adds(&v->out, ", at ");
		text(v, json_str(p, "sub_step"));
	}
	sbuf_addf(&v->out, "%s\n", c_(v, C_RESET));
	first = 1;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(p, "agents")) {
		sbuf_adds(&v->out, first ? "      " : "  ");
		first = 0;
		mark(v, json_str(a, "status"));
		sbuf_addch(&v->out, ' ');
		text(v, json_str(a, "id"));
		if (json_str(a, "status") && !strcmp(json_str(a, "status"), "in_progress"))
			sbuf_addf(&v->out, " %d%%", (int)json_num(a, "progress", 0));
	}
	if (!first)
		sbuf_addch(&v->out, '\n');
}

static void render_tokens_line(struct view *v, const cJSON *t)
{
	const char *level = json_str(t, "level");

	sbuf_adds(&v->out, "Tokens    ");
	out_human_count(&v->out, json_num(t, "used", 0));
	sbuf_adds(&v->out, " / ");
	out_human_count(&v->out, json_num(t, "max", 0));
	sbuf_addf(&v->out, " (%.1f%%)\n", json_num(t, "percent", 0));
	if (strcmp(level, "ok"))
		sbuf_addf(&v->out, "          %s%s %s: over %s of the budget used%s\n",
			  c_(v, !strcmp(level, "critical") ? C_RED : C_YELLOW),
			  !strcmp(level, "critical") ? (v->utf8 ? "\u2717" : "!!") : (v->utf8 ? "\u26a0" : "!"),
			  level, !strcmp(level, "critical") ? "95%" : "80%", c_(v, C_RESET));
}

static void render_status(struct view *v, const cJSON *r, time_t now, int max_retries)
{
	const cJSON *p, *next = cJSON_GetObjectItemCaseSensitive(r, "next");

	render_header(v, r, now);
	render_errors(v, r);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "phases")))
		sbuf_addf(&v->out, "\n%sPhases%s\n", c_(v, C_BOLD), c_(v, C_RESET));
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "phases"))
		render_phase(v, p, max_retries);
	sbuf_addch(&v->out, '\n');
	render_tokens_line(v, cJSON_GetObjectItemCaseSensitive(r, "tokens"));
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "recent_decisions")) {
		sbuf_adds(&v->out, p == cJSON_GetObjectItemCaseSensitive(r, "recent_decisions")->child ?
			  "Decided   " : "          ");
		text(v, json_str(p, "decision"));
		if (json_str(p, "rationale")) {
			sbuf_adds(&v->out, v->utf8 ? " \u2014 " : " -- ");
			text(v, json_str(p, "rationale"));
		}
		sbuf_addch(&v->out, '\n');
	}
	if (json_str(r, "context_summary")) {
		sbuf_adds(&v->out, "Summary   ");
		text(v, json_str(r, "context_summary"));
		sbuf_addch(&v->out, '\n');
	}
	sbuf_addf(&v->out, "\n%sNext:%s ", c_(v, C_BOLD), c_(v, C_RESET));
	text(v, json_str(next, "text"));
	if (json_str(next, "command"))
		sbuf_addf(&v->out, "\n      %s", json_str(next, "command"));
	sbuf_addch(&v->out, '\n');
}

/* Options every report takes. */
struct report_opts {
	int json, no_color;
	const char *color;
};
#define REPORT_OPTIONS(o) \
	{ OPT_BOOL, 0, "json", &(o).json, NULL, "print a JSON object (see doc/json.md)" }, \
	{ OPT_OPTARG, 0, "color", &(o).color, "<when>", "colour: always, never or auto" }, \
	{ OPT_BOOL, 0, "no-color", &(o).no_color, NULL, "no colour" }

/* The target session's state and where it stands; fills ctx. */
static int load_target(cJSON **state, struct store_tip *tip, struct report_ctx *ctx, char **id,
		       struct cmd_ctx *c, const char *given)
{
	char *ref = NULL, *active = NULL;
	int error;

	if ((error = cmd_target(id, c, given)) < 0)
		return error;
	ref = engine_refname(*id);
	error = engine_load_ref(state, tip, c->st, ref);
	free(ref);
	if (error < 0 || (error = store_active(&active, c->st)) < 0 || (error = store_now(&ctx->now, c->st)) < 0)
		return error;
	ctx->checkpoint = tip->commit;
	ctx->active = active && !strcmp(active, *id);
	ctx->max_retries = c->eng.lim.max_retries;
	free(active);
	return 0;
}

static int start_view(struct view *v, struct cmd_ctx *c, const struct report_opts *o)
{
	memset(v, 0, sizeof(*v));
	v->utf8 = out_utf8();
	return cmd_color(&v->color.on, c, o->color, o->no_color);
}

static void finish_view(struct view *v)
{
	fwrite(v->out.buf, 1, v->out.len, stdout);
	sbuf_release(&v->out);
}

CMD(status)
{
	static const char *const usage[] = { "git session status [<id>] [--json]", NULL };
	struct report_opts o = { 0 };
	struct report_ctx ctx = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *r = NULL;
	char *id = NULL;
	struct view v;
	int error;
	const struct option opts[] = { REPORT_OPTIONS(o), OPT_END_MARK };

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0 ||
	    (error = load_target(&state, &tip, &ctx, &id, c, argc ? argv[0] : NULL)) < 0 ||
	    (error = start_view(&v, c, &o)) < 0)
		goto cleanup;
	r = report_status(state, &ctx);
	if (o.json) {
		print_json(r);
	} else {
		render_status(&v, r, ctx.now, ctx.max_retries);
		finish_view(&v);
	}
cleanup:
	cJSON_Delete(r);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(id);
	return cmd_exit(error);
}

static void render_tokens(struct view *v, const cJSON *t)
{
	const cJSON *a;

	sbuf_addf(&v->out, "%sToken use: %s%s\n\n", c_(v, C_BOLD), json_str(t, "session_id"), c_(v, C_RESET));
	render_tokens_line(v, t);
	sbuf_addf(&v->out, "Remaining %.0f\n", json_num(t, "remaining", 0));
	sbuf_addf(&v->out, "Totals    %.0f input, %.0f output, %.0f cached; peak %.0f\n",
		  json_num(t, "input", 0), json_num(t, "output", 0), json_num(t, "cached", 0),
		  json_num(t, "peak", 0));
	if (json_num(t, "saved", 0))
		sbuf_addf(&v->out, "Saved     %.0f in isolated agent contexts (%.1f%% of all use)\n",
			  json_num(t, "saved", 0), json_num(t, "savings_percent", 0));
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(t, "by_agent")))
		sbuf_adds(&v->out, "\nBy agent                   input     output     cached\n");
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(t, "by_agent")) {
		struct sbuf name = SBUF_INIT;

		out_escape(&name, json_str(a, "agent"));
		sbuf_addf(&v->out, "  %-20s %10.0f %10.0f %10.0f\n", name.buf, json_num(a, "input", 0),
			  json_num(a, "output", 0), json_num(a, "cached", 0));
		sbuf_release(&name);
	}
}

CMD(tokens)
{
	static const char *const usage[] = {
		"git session tokens [<id>] [--json]",
		"git session tokens add --agent <id> --input <n> --output <n> [--cached <n>] [--isolated]",
		NULL,
	};
	struct report_opts o = { 0 };
	struct report_ctx ctx = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *r = NULL;
	char *id = NULL;
	struct view v;
	int error;
	const struct option opts[] = { REPORT_OPTIONS(o), OPT_END_MARK };

	if (argc > 1 && !strcmp(argv[1], "add"))
		return cmd_tokens_add(argc - 1, argv + 1, c);
	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0 ||
	    (error = load_target(&state, &tip, &ctx, &id, c, argc ? argv[0] : NULL)) < 0 ||
	    (error = start_view(&v, c, &o)) < 0)
		goto cleanup;
	r = report_tokens(state);
	if (o.json) {
		print_json(r);
	} else {
		render_tokens(&v, r);
		finish_view(&v);
	}
cleanup:
	cJSON_Delete(r);
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(id);
	return cmd_exit(error);
}

static void render_moves(struct view *v, const cJSON *arr, const char *kind)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, arr) {
		const char *from = json_str(m, "from"), *to = json_str(m, "to");

		if (!strcmp(kind, "phase")) {
			sbuf_addf(&v->out, "phase %d ", (int)json_num(m, "id", 0));
			say(v, "\"", json_str(m, "name"), "\"");
		} else if (!strcmp(kind, "task")) {
			sbuf_addf(&v->out, "task #%d ", (int)json_num(m, "id", 0));
			say(v, "\"", json_str(m, "title"), "\"");
		} else {
			say(v, !strcmp(kind, "agent") ? "agent " : "file ",
			    json_str(m, !strcmp(kind, "agent") ? "id" : "path"), "");
		}
		if (!from)
			sbuf_addf(&v->out, ": %s%s%s", c_(v, C_GREEN), !strcmp(kind, "agent") ? "started" :
				  !strcmp(kind, "file") ? to : "added", c_(v, C_RESET));
		else if (strcmp(from, to))
			sbuf_addf(&v->out, ": %s -> %s%s%s", from, c_(v, out_status_color(to)), to, c_(v, C_RESET));
		if (!strcmp(kind, "agent") && to && !strcmp(to, "in_progress"))
			sbuf_addf(&v->out, " (%d%%)", (int)json_num(m, "progress", 0));
		if (!strcmp(kind, "phase") && from && !strcmp(from, "failed"))
			sbuf_addf(&v->out, " (retry %d)", (int)json_num(m, "retry_count", 0));
		sbuf_addch(&v->out, '\n');
	}
}

static void render_diff(struct view *v, const cJSON *d)
{
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(d, "status"), *e;
	const cJSON *errors = cJSON_GetObjectItemCaseSensitive(d, "errors");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "tokens");

	sbuf_addf(&v->out, "%sdiff %.7s..%.7s%s\n", c_(v, C_BOLD), json_str(d, "from"), json_str(d, "to"),
		  c_(v, C_RESET));
	if (cJSON_IsObject(status))
		sbuf_addf(&v->out, "session: %s -> %s\n", json_str(status, "from"), json_str(status, "to"));
	render_moves(v, cJSON_GetObjectItemCaseSensitive(d, "phases"), "phase");
	render_moves(v, cJSON_GetObjectItemCaseSensitive(d, "agents"), "agent");
	render_moves(v, cJSON_GetObjectItemCaseSensitive(d, "files"), "file");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(errors, "opened")) {
		sbuf_addf(&v->out, "error #%d opened: %s%s%s ", (int)json_num(e, "number", 0), c_(v, C_RED),
			  json_str(e, "type"), c_(v, C_RESET));
		text(v, json_str(e, "message"));
		sbuf_addch(&v->out, '\n');
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(errors, "resolved")) {
		sbuf_addf(&v->out, "error #%d resolved: ", (int)json_num(e, "number", 0));
		say(v, "", json_str(e, "resolution"), "\n");
	}
	if (json_num(t, "input", 0) || json_num(t, "output", 0) || json_num(t, "cached", 0) || json_num(t, "saved", 0))
		sbuf_addf(&v->out, "tokens: %+.0f input, %+.0f output, %+.0f cached, %+.0f saved (used %+.0f)\n",
			  json_num(t, "input", 0), json_num(t, "output", 0), json_num(t, "cached", 0),
			  json_num(t, "saved", 0), json_num(t, "used", 0));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "decisions"))
		say(v, "decision: ", json_str(e, "decision"), "\n");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "notes"))
		say(v, "note: ", json_str(e, "text"), "\n");
	render_moves(v, cJSON_GetObjectItemCaseSensitive(d, "tasks"), "task");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "milestones"))
		say(v, "milestone: ", json_str(e, "name"), "\n");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "artifacts"))
		say(v, "artifact: ", json_str(e, "path"), "\n");
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

CMD(diff)
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
	    (error = start_view(&v, c, &o)) < 0)
		goto cleanup;
	d = report_diff(a, b, ta.commit, tb.commit);
	if (o.json) {
		print_json(d);
	} else {
		render_diff(&v, d);
		finish_view(&v);
	}
cleanup:
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(d);
	store_tip_clear(&ta);
	store_tip_clear(&tb);
	return cmd_exit(error);
}
