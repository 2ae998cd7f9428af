/*
 * cmd_session.c - the session's life: start, switch, pause, resume,
 * close, reopen, archive, unarchive.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/opts.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const start_usage[] = {
	"git session start [<topic>] [--id <id>] [--goal <text>] [--plan <path>]... [--phase <name>]... [--budget <tokens>]",
	NULL,
};

/* The session this worktree has in progress, if any; the caller frees it. */
static int in_progress_here(char **id, struct cmd_ctx *c)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	char *ref;
	int error;

	if ((error = store_active(id, c->st)) < 0 || !*id)
		return error;
	ref = engine_refname(*id);
	error = engine_load_ref(&state, &tip, c->st, ref);
	free(ref);
	if (error == GS_ENOTFOUND || (!error && strcmp(json_str(state, "status"), ST_IN_PROGRESS))) {
		free(*id);
		*id = NULL;
		error = 0;
	}
	cJSON_Delete(state);
	store_tip_clear(&tip);
	return error;
}

#define DEFAULT_ID_FORMAT "%Y-%m-%d-{slug}"

/*
 * The id "start" gives a session when none is named: session.idFormat,
 * an strftime(3) pattern in which "{slug}" stands for the topic's slug.
 */
static int default_id(char **out, gs_store *st, const char *topic)
{
	char *fmt = store_config_str(st, "session.idFormat"), *slug = state_slug(topic ? topic : "");
	char *err = NULL, buf[STATE_ID_MAX + 2];
	struct sbuf pat = SBUF_INIT;
	const char *p, *hit;
	time_t now;
	struct tm tm;
	size_t len;
	int error = 0;

	for (p = fmt ? fmt : DEFAULT_ID_FORMAT; (hit = strstr(p, "{slug}")); p = hit + 6) {
		sbuf_add(&pat, p, (size_t)(hit - p));
		sbuf_adds(&pat, *slug ? slug : "session");
	}
	sbuf_adds(&pat, p);
	if (store_now(&now, st) < 0)
		now = time(NULL);
	localtime_r(&now, &tm);
	len = pat.len ? strftime(buf, sizeof(buf), pat.buf, &tm) : 0;
	buf[len] = '\0';
	if (state_valid_id(buf, &err) < 0) {
		error = gs_error("session.idFormat '%s' gives no valid session id: %s",
				 fmt ? fmt : DEFAULT_ID_FORMAT, len ? err : "empty or too long");
		gs_hint("pass --id, or set session.idFormat to a pattern such as '%s'", DEFAULT_ID_FORMAT);
	} else {
		*out = xstrdup(buf);
	}
	free(err);
	sbuf_release(&pat);
	free(slug);
	free(fmt);
	return error;
}

/* Whether a session, live or archived, has the id. */
static int id_taken(gs_store *st, const char *id)
{
	char *live = engine_refname(id), *archived = xstrfmt("%s%s", ARCHIVE_PREFIX, id);
	int taken = store_ref_exists(st, live) || store_ref_exists(st, archived);

	free(live);
	free(archived);
	return taken;
}

int cmd_session_new_id(char **out, struct cmd_ctx *c, const char *topic)
{
	char *base = NULL;
	int error = default_id(&base, c->st, topic);

	*out = NULL;
	for (int n = 1; !error && !*out && n < 1000; n++) {
		char *id = n == 1 ? xstrdup(base) : xstrfmt("%.*s-%d", STATE_ID_MAX - 5, base, n);

		if (!id_taken(c->st, id))
			*out = id;
		else
			free(id);
	}
	free(base);
	return error ? error : *out ? 0 : gs_error("no free session id for '%s'", topic);
}

static int add_plans(cJSON *args, struct cmd_ctx *c, const struct strlist *plans)
{
	cJSON *arr = json_arr(args, "plans"), *scratch = cJSON_CreateObject();
	int error = 0;

	for (size_t i = 0; i < plans->n && !error; i++) {
		char *path = NULL;
		cJSON *p;

		if ((error = store_worktree_relpath(&path, c->st, plans->v[i])) < 0 ||
		    (error = engine_record_file(scratch, c->st, path, NULL, 0)) < 0) {
			free(path);
			break;
		}
		p = cJSON_CreateObject();
		json_set_str(p, "path", path);
		json_set_str(p, "oid", json_str(cJSON_GetObjectItemCaseSensitive(scratch, path), "oid"));
		cJSON_AddItemToArray(arr, p);
		free(path);
	}
	cJSON_Delete(scratch);
	return error;
}

/*
 * Pauses the session in progress here. One another start paused (or
 * closed) meanwhile is left as it is: the goal, none in progress, holds.
 */
static int pause_session(struct cmd_ctx *c, const char *id, int quiet)
{
	struct state_op *op = op_new(OP_SESSION_PAUSE, NULL);
	struct engine_result r = { 0 };
	int error = engine_commit(&r, &c->eng, id, op, NULL, ENGINE_IN_PROGRESS);

	if (!error && !quiet) {
		printf("[%s %.7s] ", id, r.commit);
		out_text(stdout, r.subject);
		putchar('\n');
	}
	engine_result_clear(&r);
	op_free(op);
	return error == GS_ESKIPPED ? 0 : error;
}

/*
 * Checks that a start would be taken before anything changes (the session
 * in progress is paused only then): the operation applied to nothing, and
 * no session of that id, live or archived.
 */
static int start_would_work(struct cmd_ctx *c, const struct state_op *op, const char *id)
{
	struct state_op probe = { op->info, cJSON_Duplicate(op->json, 1) };
	cJSON *scratch = cJSON_CreateObject();
	char *subject = NULL, *err = NULL;
	int error = 0;

	json_set_str(probe.json, "at", "1970-01-01T00:00:00Z");
	if (state_apply(scratch, &probe, &c->eng.lim, &subject, &err) < 0)
		error = gs_error("%s", err);
	else if (id_taken(c->st, id))
		error = gs_error("session '%s' already exists", id);
	cJSON_Delete(probe.json);
	cJSON_Delete(scratch);
	free(subject);
	free(err);
	return error;
}

/* The start's project, phases and plans. */
static int start_args(cJSON *args, struct cmd_ctx *c, const struct strlist *phases, struct strlist *plans)
{
	json_set(args, "project", store_project(c->st));
	for (size_t i = 0; i < phases->n; i++)
		cJSON_AddItemToArray(json_arr(args, "phases"), cJSON_CreateString(phases->v[i]));
	return add_plans(args, c, plans);
}

int cmd_start(int argc, const char **argv, struct cmd_ctx *c)
{
	const char *id = NULL, *goal = NULL, *mode = NULL, *topic;
	struct strlist plans = { 0 }, phases = { 0 };
	long long budget = LLONG_MIN;	/* not given */
	int pause_current = 0, quiet = 0, error;
	char *active = NULL, *gen = NULL;
	int64_t cfg_budget;
	struct state_op *op = NULL;
	cJSON *args;
	const struct option opts[] = {
		{ OPT_STRING, 0, "id", &id, "<id>", "session id (default: session.idFormat, YYYY-MM-DD-<topic-slug>)" },
		{ OPT_STRING, 0, "goal", &goal, "<text>", "what the session is to achieve" },
		{ OPT_LIST, 0, "plan", &plans, "<path>", "a design or implementation document" },
		{ OPT_LIST, 0, "phase", &phases, "<name>", "add a phase (repeatable, in order)" },
		{ OPT_INT, 0, "budget", &budget, "<tokens>", "token budget (default: session.budget, else none)" },
		{ OPT_STRING, 0, "mode", &mode, "<mode>", "orchestration mode (default: default)" },
		{ OPT_BOOL, 0, "pause-current", &pause_current, NULL, "pause the session in progress here first" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, start_usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, start_usage)) < 0)
		goto cleanup;
	topic = argc ? argv[0] : NULL;
	if (budget == LLONG_MIN) {
		if ((error = store_config_int(&cfg_budget, c->st, "session.budget", STATE_DEFAULT_BUDGET)) < 0)
			goto cleanup;
		budget = cfg_budget ? cfg_budget : LLONG_MIN;
	}
	if ((error = in_progress_here(&active, c)) < 0)
		goto cleanup;
	if (active && !pause_current) {
		error = gs_error("session '%s' is in progress in this worktree", active);
		gs_hint("pause or close it first, or pass --pause-current");
		goto cleanup;
	}
	if (!id) {
		if ((error = cmd_session_new_id(&gen, c, topic)) < 0)
			goto cleanup;
		id = gen;
	}
	op = op_new(OP_SESSION_START, NULL);
	args = op_args(op);
	json_set_str(args, "id", id);
	json_set_str(args, "topic", topic);
	json_set_str(args, "goal", goal);
	json_set_str(args, "mode", mode);
	if (budget != LLONG_MIN)	/* none given, none configured: no budget */
		json_set_num(args, "budget", (double)budget);
	if ((error = start_args(args, c, &phases, &plans)) < 0 || (error = start_would_work(c, op, id)) < 0)
		goto cleanup;
	if (active && (error = pause_session(c, active, quiet)) < 0)
		goto cleanup;
	if ((error = engine_commit(NULL, &c->eng, id, op, NULL, ENGINE_CREATE)) < 0 ||
	    (error = store_set_active(c->st, id)) < 0)
		goto cleanup;
	if (!quiet) {
		printf("Started session %s\n", id);
		cmd_said_write(c, id, NULL);
	}
cleanup:
	op_free(op);
	strlist_clear(&plans);
	strlist_clear(&phases);
	free(active);
	free(gen);
	return cmd_exit(error);
}

static const char *const switch_usage[] = { "git session switch <id>", NULL };

int cmd_switch(int argc, const char **argv, struct cmd_ctx *c)
{
	int quiet = 0, error;
	char *id = NULL;
	const struct option opts[] = {
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, switch_usage, 0)) < 0)
		return cmd_exit(error);
	if (argc != 1)
		return cmd_exit(cmd_usage_error(switch_usage, opts, "%s",
						argc ? "too many arguments" : "which session? (git session list shows them)"));
	if ((error = cmd_target(&id, c, argv[0])) == 0 &&
	    (error = store_set_active(c->st, id)) == 0 && !quiet)
		printf("Switched to session %s\n", id);
	free(id);
	return cmd_exit(error);
}

/* pause and close: one status operation on the session. */
static int status_command(int argc, const char **argv, struct cmd_ctx *c,
			  const char *const *usage, enum op_id opid)
{
	int quiet = 0, abort_ = 0, error;
	char *id = NULL;
	struct state_op *op = NULL;
	struct option opts[] = {
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		{ OPT_BOOL, 0, "abort", &abort_, NULL, "mark the session aborted, not completed" },
		OPT_END_MARK,
	};

	if (opid != OP_SESSION_CLOSE)
		opts[1] = (struct option)OPT_END_MARK;
	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 0, usage)) < 0 ||
	    (error = cmd_target(&id, c, NULL)) < 0)
		goto cleanup;
	op = op_new(opid, NULL);
	if (abort_)
		json_set_bool(op_args(op), "abort", 1);
	if ((error = cmd_write(NULL, c, id, op, NULL, quiet)) < 0)
		goto cleanup;
	if (opid == OP_SESSION_CLOSE) {
		char *active = NULL;
		if ((error = store_active(&active, c->st)) == 0 && active && !strcmp(active, id))
			error = store_clear_active(c->st);
		free(active);
	}
cleanup:
	op_free(op);
	free(id);
	return cmd_exit(error);
}

int cmd_pause(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session pause", NULL };
	return status_command(argc, argv, c, usage, OP_SESSION_PAUSE);
}

int cmd_close(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session close [--abort]", NULL };
	return status_command(argc, argv, c, usage, OP_SESSION_CLOSE);
}

/* A finished session in progress again, active here unless another is in progress here. */
int cmd_reopen(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session reopen [<id>]", NULL };
	struct engine_result r = { 0 };
	struct state_op *op = NULL;
	char *id = NULL, *busy = NULL;
	int quiet = 0, json = 0, error;
	const struct option opts[] = {
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		{ OPT_BOOL, 0, "json", &json, NULL, "print {session, status, checkpoint, active}" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 1, usage)) < 0 ||
	    (error = cmd_target(&id, c, argc ? argv[0] : NULL)) < 0)
		goto cleanup;
	op = op_new(OP_SESSION_REOPEN, NULL);
	if ((error = cmd_write(&r, c, id, op, NULL, quiet || json)) < 0 || (error = in_progress_here(&busy, c)) < 0)
		goto cleanup;
	if ((!busy || !strcmp(busy, id)) && (error = store_set_active(c->st, id)) < 0)
		goto cleanup;
	if (json) {
		cJSON *out = cJSON_CreateObject();
		char *text;

		json_set_str(out, "session", id);
		json_set_str(out, "status", ST_IN_PROGRESS);
		json_set_str(out, "checkpoint", r.commit);
		json_set_bool(out, "active", !busy || !strcmp(busy, id));
		text = json_print(out, 1, NULL);
		puts(text);
		free(text);
		cJSON_Delete(out);
	} else if (!quiet && busy && strcmp(busy, id)) {
		printf("Session %s is in progress again; '%s' stays active here: git session switch %s\n", id, busy, id);
	}
cleanup:
	engine_result_clear(&r);
	op_free(op);
	free(id);
	free(busy);
	return cmd_exit(error);
}

static int move_session(int argc, const char **argv, struct cmd_ctx *c, int archive)
{
	static const char *const a_usage[] = { "git session archive <id>", NULL };
	static const char *const u_usage[] = { "git session unarchive <id>", NULL };
	const char *const *usage = archive ? a_usage : u_usage;
	char *from = NULL, *to = NULL, *msg = NULL, *err = NULL, *here = NULL;
	int quiet = 0, active = 0, error;
	const struct option opts[] = {
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "print nothing" },
		OPT_END_MARK,
	};

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0)
		return cmd_exit(error);
	if (argc != 1)
		return cmd_exit(cmd_usage_error(usage, opts, "%s", argc ? "too many arguments" : "which session?"));
	if (state_valid_id(argv[0], &err) < 0) {
		error = gs_error("invalid session id '%s': %s", argv[0], err);
		goto cleanup;
	}
	from = xstrfmt("%s%s", archive ? SESSIONS_PREFIX : ARCHIVE_PREFIX, argv[0]);
	to = xstrfmt("%s%s", archive ? ARCHIVE_PREFIX : SESSIONS_PREFIX, argv[0]);
	if (archive && ((error = store_active(&here, c->st)) < 0 ||
			(error = engine_active_anywhere(&active, c->st, argv[0])) < 0 || active)) {
		if (active)
			error = gs_error("session '%s' is active in %s", argv[0],
					 here && !strcmp(here, argv[0]) ? "this worktree" : "another worktree of this repository");
		gs_hint("close it there first: git session close");
		goto cleanup;
	}
	msg = xstrfmt("session: %s %s", archive ? "archive" : "unarchive", argv[0]);
	error = engine_move(&c->eng, from, to, msg);
	if (error == GS_ENOTFOUND)
		error = gs_error("no %s session '%s'", archive ? "live" : "archived", argv[0]);
	if (!error && !quiet)
		printf("%s session %s\n", archive ? "Archived" : "Unarchived", argv[0]);
cleanup:
	free(from);
	free(to);
	free(msg);
	free(err);
	free(here);
	return cmd_exit(error);
}

int cmd_archive(int argc, const char **argv, struct cmd_ctx *c)
{
	return move_session(argc, argv, c, 1);
}

int cmd_unarchive(int argc, const char **argv, struct cmd_ctx *c)
{
	return move_session(argc, argv, c, 0);
}
