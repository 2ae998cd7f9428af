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
 * which the agents read as instructions.
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"
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

/* A known agent's new agent session (a resume, a compaction) waits for its prompt, which resumes it. */
static int on_start(struct hook_run *r)
{
	if (!r->session || r->linked)
		return 0;
	return hook_attach(r, r->agent, r->d->name, NULL);
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
	return hook_write_op(r, op);
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
 * The file a tool wrote, with its blob, by whoever called it. A file git
 * ignores is not recorded at all: it is where secrets live (.env), and
 * what is recorded is pushed.
 */
static int record_write(struct hook_run *r, const char *who)
{
	const char *path = r->ev.path, *wd = store_workdir(r->c->st);
	char *rel = NULL, *full = NULL;
	struct state_op *op = NULL;
	cJSON *files;
	int ignored, gone, error;
	size_t n = strlen(wd);
	struct stat sb;

	if (path[0] == '/' && (strncmp(path, wd, n) || (n && wd[n - 1] != '/' && path[n] != '/')))
		return 0;	/* outside the work tree: not the project's */
	if ((error = store_worktree_relpath(&rel, r->c->st, path)) < 0 ||
	    (error = store_ignored(&ignored, r->c->st, rel)) < 0 || ignored)
		goto cleanup;
	full = xstrfmt("%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/", rel);
	gone = lstat(full, &sb) < 0;
	op = op_new(gone ? OP_FILE_DELETED : r->ev.created ? OP_FILE_CREATED : OP_FILE_MODIFIED, NULL);
	files = json_obj(op_args(op), "files");
	json_set_str(op_args(op), "agent", who);
	/* a file there is recorded as the CLI would, refused for the same reasons (a submodule's, beyond a link) */
	if ((error = engine_record_file(files, r->c->st, rel, NULL, gone)) < 0)
		goto cleanup;
	error = hook_write_op(r, op);
	op = NULL;
cleanup:
	op_free(op);
	free(rel);
	free(full);
	return error;
}

/* Each file an apply_patch patch names, added, updated, deleted or moved: a record each. */
static int record_patch(struct hook_run *r, const char *who)
{
	struct agent_patch_file *files = NULL;
	size_t n = 0;
	int error = 0;

	if (agent_patch_files(&files, &n, r->ev.patch) < 0)
		return 0;	/* not a patch: nothing it names is known */
	for (size_t i = 0; i < n && !error; i++) {
		r->ev.path = files[i].path;
		r->ev.created = files[i].kind == AGENT_PATCH_ADD || files[i].kind == AGENT_PATCH_MOVE_TO;
		error = record_write(r, who);
	}
	r->ev.path = NULL;
	agent_patch_files_free(files, n);
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

static int record_turn(struct hook_run *r, const cJSON *a, const char *path, const char *said)
{
	struct state_op *op;
	int error = read_turn(&op, r, a, path, said, 0);

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

static int on_turn_end(struct hook_run *r)
{
	struct state_op *op;
	const cJSON *a = NULL;
	int error = turn_end(&op, &a, r, 0);

	return error < 0 || !op ? error : hook_write_op(r, op);
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
	int error;

	if ((error = turn_end(&turn, &a, r, 1)) < 0 || !a)
		return error;
	/* a session of the agent that had no prompt (a compaction) leaves it as it was */
	status = json_str(a, "status");
	if (!status || strcmp(status, ST_IN_PROGRESS))
		return turn ? hook_write_op(r, turn) : 0;
	summary = xstrfmt("session ended (%s)", reason && *reason ? reason : "exit");
	error = write_done(r, r->agent, turn, summary);
	free(summary);
	return error;
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

/*
 * A payload through Claude Code's hooks from another agent that runs
 * them too (its via_claude says so) is that agent's, under its own name
 * for the event; once only: not when that agent's own hooks are
 * installed, which record it. 1 to go on, 0 to record nothing.
 */
static int via_claude(struct hook_run *r, const char **event, const cJSON *payload)
{
	const char *own;

	if (r->d != agent_dialect("claude-code"))
		return 1;
	for (size_t i = 0; agent_dialects[i]; i++) {
		const struct agent_dialect *d = agent_dialects[i];

		if (!d->via_claude || !d->via_claude(&own, payload))
			continue;
		if (cmd_agent_setup_installed(r->c, d))
			return 0;
		r->d = d;
		r->kind = agent_event_kind(d, own);
		*event = own;
		return r->kind != AE_NONE;
	}
	return 1;
}

int cmd_agent_hook(const struct agent_dialect *d, const char *event, struct cmd_ctx *c)
{
	struct hook_run r = { c, d, agent_event_kind(d, event) };
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
	if ((error = via_claude(&r, &event, payload)) <= 0)
		goto cleanup;
	d = r.d;
	agent_read_event(&r.ev, d, payload);
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
