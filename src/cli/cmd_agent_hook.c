/*
 * cmd_agent_hook.c - `git session hook <agent> <event>`: an agent's own
 * hook runs it, and the event becomes operations on the session. The
 * event's JSON comes on stdin and its dialect (agent.h) reads it once:
 * the prompt is a note, a file the agent wrote a file record, a shell
 * command it ran an agent.run, a sub-agent an agent, the end of a turn a
 * checkpoint with the reply, the tokens and the part of the transcript it
 * added (hook_transcript.c reads it), and the files its shell commands
 * changed (hook_files.c); the session and agent it is recorded as are
 * found, or started, by hook_session.c. One event writes one checkpoint, two when its
 * commands changed files. A hook never
 * stands in the agent's way: what fails is said on stderr and the exit
 * is 0, save the budget's refusal (the dialect's block_exit, which the
 * agent reads as "do not run this tool"). Nothing is printed on stdout,
 * which the agents read as instructions, but the session's brief at a
 * start, in the agent's channel for added context (hook_brief.c).
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/report.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"
#include "git-session/transcript.h"
#include "hook-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAYLOAD_MAX (64u << 20)

static int read_stdin(char **out, size_t *len)
{
	struct sbuf sb = SBUF_INIT;
	char buf[8192];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || sb.len + (size_t)n > PAYLOAD_MAX) {
			sbuf_release(&sb);
			return gs_error("cannot read the hook's payload on stdin");
		}
		sbuf_add(&sb, buf, (size_t)n);
	}
	*out = sbuf_detach(&sb, len);
	return 0;
}

/*
 * A known agent's new agent session (a resume, a compaction) waits for
 * its prompt, which resumes it; the agent gets the session's brief now,
 * or with that prompt (AGENT_BRIEF_AT_PROMPT).
 */
static int on_start(struct hook_run *r)
{
	const char *source = r->ev.source;
	const cJSON *a;
	int error;

	if (r->session && !r->linked && (error = hook_attach(r, r->agent, r->d->name, NULL)) < 0)
		return error;
	/* after a compaction: its summary, when the CLI wrote it already, past what was read of the transcript */
	if (r->session && source && !strcmp(source, "compact") && hook_agents(r) &&
	    (a = state_agent(r->state, r->agent)) &&
	    (error = hook_keep_summary(r, r->ev.transcript,
				       json_num(cJSON_GetObjectItemCaseSensitive(a, "transcript"), "offset", 0), -1)) < 0)
		return error;
	return hook_brief_at_start(r);
}

static int on_prompt(struct hook_run *r)
{
	const char *prompt = r->ev.prompt;
	struct state_op *op;
	int error;

	if (!prompt || !*prompt)
		return 0;
	if (!r->session && ((error = hook_start_session(r, prompt)) < 0 || !r->session))
		return error;
	if (!r->linked && (error = hook_attach(r, r->agent, r->d->name, NULL)) < 0)
		return error;
	op = op_new(OP_NOTE, NULL);
	json_set_str(op_args(op), "text", prompt);
	json_set_str(op_args(op), "agent", r->agent);
	json_set_bool(op_args(op), "prompt", 1);
	json_set_num(op_args(op), "at_ms", gs_now_ms());
	if ((error = hook_write_op(r, op)) < 0 || !(r->d->flags & AGENT_BRIEF_AT_PROMPT) || !*r->ev.session)
		return error;
	return hook_brief_at_prompt(r);
}

/*
 * Who made a tool call: the agent, or the sub-agent the payload names
 * (attached first when its start was not seen). *who is NULL when it is
 * neither: nothing is recorded.
 */
static int tool_caller(char **who, struct hook_run *r)
{
	const char *type = r->ev.subagent_type;
	int error;

	*who = NULL;
	if (!r->linked && (error = hook_attach(r, r->agent, r->d->name, NULL)) < 0)
		return error;
	if (!r->ev.subagent_id || !*r->ev.subagent_id) {
		*who = xstrdup(r->agent);
		return 0;
	}
	*who = hook_subagent_id(&r->ev);
	if (hook_agents(r) && !state_agent(r->state, *who) &&
	    (error = hook_attach(r, *who, type && *type ? type : "subagent", r->agent)) < 0) {
		free(*who);
		*who = NULL;
	}
	return error;
}

/* A shell command the agent ran, as its payload says it ended: redacted, cut, its status and time when known. */
static int record_run(struct hook_run *r, const char *who)
{
	struct state_op *op = op_new(OP_AGENT_RUN, NULL);
	char *command = hook_clip(r->ev.command, STATE_AGENT_TEXT_MAX);

	json_set_str(op_args(op), "agent", who);
	json_set_str(op_args(op), "command", command);
	json_set(op_args(op), "exit", r->ev.has_exit ? cJSON_CreateNumber(r->ev.exit) : cJSON_CreateNull());
	json_set(op_args(op), "ms", r->ev.has_ms ? cJSON_CreateNumber(r->ev.ms) : cJSON_CreateNull());
	json_set_bool(op_args(op), "failed", r->ev.failed || r->kind == AE_TOOL_FAILED);
	free(command);
	return hook_write_op(r, op);
}

/*
 * A path a tool wrote (absolute, or from dir when given, else from here)
 * as the work tree's, in *rel; NULL when git ignores it: it is where
 * secrets live (.env), and what is recorded is pushed. *outside when it
 * is not in the work tree at all (nothing in *rel).
 */
static int write_path(char **rel, int *outside, struct hook_run *r, const char *path, const char *dir)
{
	const char *wd = store_workdir(r->c->st);
	char *abs = path[0] != '/' && dir && dir[0] == '/' ? xstrfmt("%s/%s", dir, path) : xstrdup(path);
	size_t n = strlen(wd);
	int ignored = 0, error = 0;

	*rel = NULL;
	*outside = abs[0] == '/' && (strncmp(abs, wd, n) || (n && wd[n - 1] != '/' && abs[n] != '/'));
	if (!*outside && ((error = store_worktree_relpath(rel, r->c->st, abs)) < 0 ||
			  (error = store_ignored(&ignored, r->c->st, *rel)) < 0 || ignored)) {
		free(*rel);
		*rel = NULL;
	}
	free(abs);
	return error;
}

/*
 * The work-tree file rel into files, with its blob, as the CLI would
 * record it, refused for the same reasons (a submodule's, beyond a link);
 * deleted when it is gone. *status what it is recorded as.
 */
static int add_written(cJSON *files, const char **status, struct hook_run *r, const char *rel, int created)
{
	const char *wd = store_workdir(r->c->st);
	size_t n = strlen(wd);
	char *full = xstrfmt("%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/", rel);
	struct stat sb;
	int gone = lstat(full, &sb) < 0;

	free(full);
	*status = gone ? ST_DELETED : created ? ST_CREATED : ST_MODIFIED;
	return engine_record_file(files, r->c->st, rel, *status, gone);
}

/* The file a tool wrote, by whoever called it: not recorded when outside the work tree (not the project's) or ignored. */
static int record_write(struct hook_run *r, const char *who)
{
	struct state_op *op = NULL;
	const char *status;
	char *rel = NULL;
	cJSON *files = cJSON_CreateObject();
	int outside, error;

	if ((error = write_path(&rel, &outside, r, r->ev.path, NULL)) < 0 || !rel ||
	    (error = add_written(files, &status, r, rel, r->ev.created)) < 0)
		goto cleanup;
	op = op_new(!strcmp(status, ST_DELETED) ? OP_FILE_DELETED : r->ev.created ? OP_FILE_CREATED : OP_FILE_MODIFIED,
		    NULL);
	json_set_str(op_args(op), "agent", who);
	json_set(op_args(op), "files", files);
	files = NULL;
	error = hook_write_op(r, op);
cleanup:
	cJSON_Delete(files);
	free(rel);
	return error;
}

/*
 * The files a patch names, as the work tree holds them after it ran:
 * each created, modified or deleted (a move deletes its old path and
 * writes its new one), in one checkpoint by whoever applied it. The
 * patch is the agent's: a path outside the work tree or in .git refuses
 * it whole; ignored files are left out.
 */
static int record_patch(struct hook_run *r, const char *who)
{
	struct agent_patch_file *v = NULL;
	const char *status = NULL, *one = NULL;
	struct state_op *op = NULL;
	cJSON *files = cJSON_CreateObject();
	size_t n = 0, kinds = 0;
	int error = 0;

	if (agent_patch_files(&v, &n, r->ev.patch) < 0) {
		error = gs_error("its patch is not one in the apply_patch format");
		goto cleanup;
	}
	for (size_t i = 0; i < n && !error; i++) {
		int outside;
		char *rel = NULL;

		if ((error = write_path(&rel, &outside, r, v[i].path, r->ev.cwd)) == 0 && outside)
			error = gs_error("its patch names '%s', outside the work tree: none of its files is recorded",
					 v[i].path);
		if (!error && rel && !cJSON_GetObjectItemCaseSensitive(files, rel) &&
		    (error = add_written(files, &status, r, rel, v[i].kind == AGENT_PATCH_ADD ||
						 v[i].kind == AGENT_PATCH_MOVE_TO)) == 0) {
			kinds += !one || strcmp(one, status);
			one = status;
		}
		free(rel);
	}
	if (error || !files->child)
		goto cleanup;
	/* one kind: a file op of it, as a tool that writes one file; else a checkpoint of them all */
	op = op_new(kinds > 1 ? OP_CHECKPOINT : !strcmp(one, ST_DELETED) ? OP_FILE_DELETED :
		    !strcmp(one, ST_CREATED) ? OP_FILE_CREATED : OP_FILE_MODIFIED, NULL);
	json_set_str(op_args(op), "agent", who);
	json_set(op_args(op), "files", files);
	files = NULL;
	error = hook_write_op(r, op);
cleanup:
	cJSON_Delete(files);
	agent_patch_files_free(v, n);
	return error;
}

static int on_tool_after(struct hook_run *r)
{
	char *who = NULL;
	int error;

	if (!r->session || (!r->ev.command && ((!r->ev.path && !r->ev.patch) || !store_workdir(r->c->st))))
		return 0;
	if ((error = tool_caller(&who, r)) < 0 || !who)
		return error;
	if (r->ev.command)
		hook_transcript_exit(r);
	error = r->ev.command ? record_run(r, who) : r->ev.path ? record_write(r, who) : record_patch(r, who);
	free(who);
	return error;
}

/*
 * Agent a's turn in *out, to write: the part of its transcript at path
 * with the reply said (else the transcript's), and the files its shell
 * commands changed; those alone are a checkpoint of their own, written
 * here, when the transcript has nothing new. At the end of a session a
 * part with no new message (what the agent writes for itself after its
 * last turn) waits for the next turn.
 */
static int read_turn(struct state_op **out, struct hook_run *r, const cJSON *a, const char *path, const char *said,
		     int at_end)
{
	struct state_op *files = NULL;
	double runs = 0;
	int messages = 0, error;
	size_t mark;
	char *reply;

	*out = NULL;
	/* the files help the turn, they are no condition of it: a git status that fails loses no turn */
	mark = gs_error_mark();
	if (hook_shell_files(&files, &runs, r, a) < 0) {
		gs_warning("the files the shell commands of agent '%s' changed are not recorded: %s", json_str(a, "id"),
			   gs_error_first(mark) ? gs_error_first(mark) : "unknown error");
		files = NULL;
	}
	gs_error_rewind(mark);
	if ((error = path ? hook_read_turn(out, &messages, r, a, path) : hook_payload_turn(out, &messages, r, a)) < 0)
		goto cleanup;
	if (*out && at_end && !messages && !files) {
		op_free(*out);
		*out = NULL;
	}
	if (!*out) {
		error = files ? hook_write_op(r, files) : 0;
		files = NULL;
		goto cleanup;
	}
	/* the manifest is read only at the paths it names: none when no file changed */
	json_set(op_args(*out), "files", files ? cJSON_DetachItemFromObjectCaseSensitive(op_args(files), "files")
					       : cJSON_CreateObject());
	json_set_num(op_args(*out), "runs", runs);
	/* what the payload says the agent answered, else its transcript's last text */
	if ((said && *said) || (said = json_str(op_args(*out), "reply"))) {
		reply = hook_clip(said, STATE_AGENT_TEXT_MAX);
		json_set_str(op_args(*out), "reply", reply);
		free(reply);
	}
cleanup:
	op_free(files);
	return error;
}

/* A sub-agent's transcript read again: what its CLI wrote after its stop is a turn when it holds a message. */
static int record_turn(struct hook_run *r, const cJSON *a, const char *path, const char *said)
{
	struct state_op *op;
	int error = read_turn(&op, r, a, path, said, 1);

	return error < 0 || !op ? error : hook_write_op(r, op);
}

/* Where a sub-agent's transcript is, kept beside the agent links until its parent's next turn has read it. */
static char *subagent_key(const char *subagent_session)
{
	return xstrfmt("subagent.%s", subagent_session);
}

/*
 * The sub-agents of the agent that ended its turn, whose transcripts the
 * agent's CLI may have completed after their stop: read again past their
 * offsets, once. Only the latest entries are looked at.
 */
static int reread_subagents(struct hook_run *r)
{
	const cJSON *a, *agents = cJSON_GetObjectItemCaseSensitive(hook_agents(r), "agents");
	int n = cJSON_GetArraySize(agents), error = 0;

	for (int i = n > 20 ? n - 20 : 0; i < n && !error; i++) {
		const char *parent, *sub;
		char *key, *path = NULL;

		a = cJSON_GetArrayItem(agents, i);
		if (!(parent = json_str(a, "parent")) || strcmp(parent, r->agent) || !(sub = json_str(a, "session")))
			continue;
		key = subagent_key(sub);
		if ((error = store_agent_linked(&path, r->c->st, key)) == 0 && path && *path &&
		    (error = record_turn(r, a, path, NULL)) == 0)
			error = store_agent_link(r->c->st, key, "");
		free(key);
		free(path);
	}
	return error;
}

static int on_subagent_start(struct hook_run *r)
{
	const char *type = r->ev.subagent_type;
	char *id;
	int error;

	/* a sub-agent with no type never seen started is the CLI's own (Claude's compaction) */
	if (!r->session || !type || !*type)
		return 0;
	id = hook_subagent_id(&r->ev);
	error = hook_attach(r, id, type, r->agent);
	free(id);
	return error;
}

/*
 * Agent id done with summary, and with the arguments of its turn (NULL:
 * none) when that changed no file: one checkpoint where there would be
 * two. Files go with a turn of their own first: done reads no manifest.
 * Takes turn.
 */
static int write_done(struct hook_run *r, const char *id, struct state_op *turn, const char *summary)
{
	const cJSON *files = turn ? cJSON_GetObjectItemCaseSensitive(op_args(turn), "files") : NULL;
	struct state_op *op;
	int error;

	if (files && files->child) {
		if ((error = hook_write_op(r, turn)) < 0)
			return error;
		turn = NULL;
	}
	op = op_new(OP_AGENT_DONE, NULL);
	if (turn) {	/* the turn's arguments, done's too */
		cJSON_DeleteItemFromObjectCaseSensitive(op_args(turn), "files");
		json_set(op->json, "args", cJSON_DetachItemFromObjectCaseSensitive(turn->json, "args"));
		op_free(turn);
	}
	json_set_str(op_args(op), "agent", id);
	if (summary)
		json_set_str(op_args(op), "summary", summary);
	return hook_write_op(r, op);
}

static int on_subagent_stop(struct hook_run *r)
{
	const char *path = r->ev.subagent_transcript, *said = r->ev.said, *status;
	struct state_op *turn = NULL;
	const cJSON *a;
	char *id, *key = NULL, *summary = NULL;
	int error = 0;

	if (!r->session)
		return 0;
	id = hook_subagent_id(&r->ev);
	/* an agent whose start was not seen (hooks installed meanwhile, the CLI's own) is left alone */
	if (!hook_agents(r) || !(a = state_agent(r->state, id)))
		goto cleanup;
	if ((error = read_turn(&turn, r, a, path, said, 0)) < 0)
		goto cleanup;
	if (path && r->ev.subagent_id && *r->ev.subagent_id) {
		key = subagent_key(r->ev.subagent_id);
		if ((error = store_agent_link(r->c->st, key, path)) < 0)
			goto cleanup;
	}
	/* one that is done already (a stop seen twice) only gains its turn */
	status = json_str(a, "status");
	if (!status || strcmp(status, ST_IN_PROGRESS)) {
		error = turn ? hook_write_op(r, turn) : 0;
		turn = NULL;
		goto cleanup;
	}
	if (said && *said)
		summary = hook_clip(said, 200);
	error = write_done(r, id, turn, summary);
	turn = NULL;
cleanup:
	op_free(turn);
	free(summary);
	free(key);
	free(id);
	return error;
}

/* The end of the agent's turn, or of its session (at_end): *a its entry, NULL when it has none. */
static int turn_end(struct state_op **out, const cJSON **a, struct hook_run *r, int at_end)
{
	int error;

	*out = NULL;
	if (!r->session || !r->linked || !hook_agents(r) || !(*a = state_agent(r->state, r->agent)))
		return 0;
	if ((error = reread_subagents(r)) < 0)
		return error;
	return read_turn(out, r, *a, r->ev.transcript, r->ev.said, at_end);
}

/* Where a turn's part of the transcript is, span[0] -1 when it has none. */
static void turn_span(double span[2], const struct state_op *op)
{
	span[0] = op ? json_num(op_args(op), "from", -1) : -1;
	span[1] = op ? json_num(op_args(op), "to", -1) : -1;
}

static int on_turn_end(struct hook_run *r)
{
	struct state_op *op;
	const cJSON *a = NULL;
	double span[2];
	int error;

	if ((r->d->flags & AGENT_TRANSCRIPT_LATE) && r->ev.transcript && !r->late)
		return hook_turn_later(r, on_turn_end);
	error = turn_end(&op, &a, r, 0);

	turn_span(span, op);
	if (error < 0 || !op || (error = hook_write_op(r, op)) < 0)
		return error;
	return span[0] >= 0 ? hook_keep_summary(r, r->ev.transcript, span[0], span[1]) : 0;
}

static int on_compact(struct hook_run *r)
{
	const char *trigger = r->ev.trigger;
	struct state_op *op;

	if (!r->session || !r->linked ||
	    ((r->d->flags & AGENT_COMPACT_MANUAL_ONLY) && (!trigger || strcmp(trigger, "manual"))))
		return 0;
	op = op_new(OP_AGENT_COMPACT, NULL);
	json_set_str(op_args(op), "agent", r->agent);
	json_set_str(op_args(op), "trigger", trigger);
	return hook_write_op(r, op);
}

/*
 * The agent done, with what its transcript gained since its turn when
 * that holds a new message (its CLI wrote it late): one checkpoint.
 */
static int on_end(struct hook_run *r)
{
	const char *reason = r->ev.reason, *status;
	struct state_op *turn = NULL;
	const cJSON *a = NULL;
	char *summary;
	double span[2];
	int error;

	if ((error = turn_end(&turn, &a, r, 1)) < 0 || !a)
		return error;
	turn_span(span, turn);
	/* a session of the agent that had no prompt (a compaction) leaves it as it was */
	status = json_str(a, "status");
	if (!status || strcmp(status, ST_IN_PROGRESS)) {
		error = turn ? hook_write_op(r, turn) : 0;
	} else {
		summary = xstrfmt("session ended (%s)", reason && *reason ? reason : "exit");
		error = write_done(r, r->agent, turn, summary);
		free(summary);
	}
	return error < 0 || span[0] < 0 ? error : hook_keep_summary(r, r->ev.transcript, span[0], span[1]);
}

/*
 * With session.enforceBudget, a tool call once the session's tokens
 * reached its budget is refused: the dialect's block_exit, the reason on
 * stderr, which the agent hands to the model. Reads session.json's top
 * only.
 */
static int over_budget(struct hook_run *r)
{
	struct store_tip tip = { 0 };
	cJSON *state = NULL;
	const cJSON *tokens;
	char *ref;
	int on, over = 0;
	double used, max;

	if (store_config_bool(&on, r->c->st, "session.enforceBudget", 0) < 0 || !on || !r->session)
		return 0;
	ref = engine_refname(r->session);
	if (engine_load_some(&state, &tip, r->c->st, ref, NEED_NONE) == 0) {
		tokens = cJSON_GetObjectItemCaseSensitive(state, "tokens");
		used = state_tokens_used(tokens);
		max = json_num(tokens, "max", 0);
		if (max > 0 && used >= max) {
			fprintf(stderr, "git-session: session '%s' has used %.0f of its budget of %.0f tokens, "
				"and session.enforceBudget is set: no more tool calls. Raise the budget with "
				"'git session tokens budget <tokens>', or turn enforcement off with "
				"'git config session.enforceBudget false'.\n", r->session, used, max);
			over = 1;
		}
	}
	cJSON_Delete(state);
	store_tip_clear(&tip);
	free(ref);
	return over;
}

static int run_event(struct hook_run *r)
{
	switch (r->kind) {
	case AE_START: return on_start(r);
	case AE_PROMPT: return on_prompt(r);
	case AE_TOOL_AFTER:
	case AE_TOOL_FAILED: return on_tool_after(r);
	case AE_SUBAGENT_START: return on_subagent_start(r);
	case AE_SUBAGENT_STOP: return on_subagent_stop(r);
	case AE_TURN_END: return on_turn_end(r);
	case AE_COMPACT: return on_compact(r);
	case AE_END: return on_end(r);
	default: return 0;
	}
}

static const char *hook_env(const char *name)
{
	return getenv(name);
}

int cmd_agent_hook(const struct agent_dialect *d, const char *event, struct cmd_ctx *c)
{
	const struct agent_dialect *guest;
	struct hook_run r = { c, d, agent_event_kind(d, event), event };
	char *text = NULL, *err = NULL, *why;
	cJSON *payload = NULL;
	size_t len = 0, mark;
	int error, code = EXIT_OK;

	store_set_sign_limit(c->st, 5);	/* well within the 10 s the agents give a hook */
	mark = gs_error_mark();	/* its errors become one line, below */
	if ((error = read_stdin(&text, &len)) < 0 || r.kind == AE_NONE)
		goto cleanup;
	if ((error = json_parse(&payload, text, len, PAYLOAD_MAX, &err)) < 0) {
		error = gs_error("its payload is not JSON: %s", err);
		goto cleanup;
	}
	/* another agent running these hooks is recorded as itself, and once: not when its own hooks run too */
	if ((guest = agent_guest(d, payload, hook_env))) {
		const char *own = json_str(payload, "hook_event_name");

		if (cmd_agent_setup_installed(c, guest))
			goto cleanup;
		if (own && agent_event_kind(guest, own) != AE_NONE) {	/* it names the event as it does */
			r.kind = agent_event_kind(guest, own);
			event = r.event = own;
		}
		r.d = d = guest;
	}
	agent_read_event(&r.ev, d, payload);
	if (r.ev.skip)
		goto cleanup;
	if (r.ev.refused) {
		error = gs_error("its payload is refused: %s", r.ev.refused);
		goto cleanup;
	}
	r.agent = hook_agent_id(r.ev.agent ? r.ev.agent : d->stem, r.ev.session);
	if ((error = hook_find_session(&r)) < 0)
		goto cleanup;
	if (r.kind == AE_TOOL_BEFORE)
		code = over_budget(&r) ? d->block_exit : EXIT_OK;
	else
		error = run_event(&r);
cleanup:
	why = gs_error_first(mark) ? xstrdup(gs_error_first(mark)) : NULL;
	gs_error_rewind(mark);
	if (error < 0)
		gs_warning("git-session could not record the %s %s hook: %s; the agent goes on", d->name, event,
			   why && *why ? why : "unknown error");
	free(why);
	cJSON_Delete(payload);
	free(text);
	free(err);
	free(r.session);
	free(r.agent);
	cJSON_Delete(r.state);
	return code;
}
