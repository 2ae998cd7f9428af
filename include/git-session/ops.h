/*
 * ops.h - every operation, declared once, in the manner of jq's
 * opcode_list.h. A row says all that is known of an operation:
 *
 *   OP(id, name, handler, flags, needs, tail)
 *
 *   id       its C name: OP_<id>, an enum op_id
 *   name     its name in op.json, the Session-Op trailer and doc/json.md
 *   handler  the model's function that applies it (state*.c), named
 *            state_apply_<op>; state_apply_recorded for those the engine
 *            writes itself, which are never replayed
 *   flags    OPF_CLOSED   it may run on a paused or closed session
 *            OPF_BY_PATH  of the manifest it reads and writes only the
 *                         entries of the paths it names (args.files)
 *            OPF_LWW      the last writer wins: when both sides of a merge
 *                         wrote it to the same target, that is a conflict
 *            OPF_AGENT    it reads the agents too when its arguments name
 *                         one (args.agent), to check it
 *            OPF_HOOK     only an agent's own hooks make it (no command,
 *                         no MCP tool)
 *   needs    the collections kept apart (schema.h) that it reads or writes
 *            besides session.json's own keys; STATE_ALL for everything.
 *            Too few here loses data (test_ops checks every row); too many
 *            only costs time.
 *   tail     of those, the lists it only appends to, never reading what is
 *            there: of a large one only the tail session.json keeps beside
 *            the count of the entries in full chunks is loaded, so that the
 *            100,000th note costs what the 10th did. test_ops checks these.
 *            (commit.record looks for a duplicate in that tail only: a
 *            commit recorded twice is HEAD recorded again, the newest.)
 *
 * Adding an operation: a row here and its handler; test_ops fails until the
 * rest (a sample for the load-table property test, doc/json.md) follows.
 * The names below are the only place the names are spelled.
 */
#ifndef GIT_SESSION_OPS_H
#define GIT_SESSION_OPS_H

#include "git-session/schema.h"

#define OPF_CLOSED 1u
#define OPF_BY_PATH 2u
#define OPF_LWW 4u
#define OPF_AGENT 8u
#define OPF_HOOK 16u

#define GS_OP_LIST(OP) \
	OP(SESSION_START, "session.start", state_apply_session_start, 0, STATE_ALL, NEED_NONE) \
	OP(SESSION_PAUSE, "session.pause", state_apply_session_pause, OPF_LWW, NEED_NONE, NEED_NONE) \
	OP(SESSION_RESUME, "session.resume", state_apply_session_resume, OPF_CLOSED | OPF_LWW, STATE_ALL, NEED_NONE) \
	OP(SESSION_CLOSE, "session.close", state_apply_session_close, OPF_CLOSED | OPF_LWW, NEED_NONE, NEED_NONE) \
	OP(SESSION_REOPEN, "session.reopen", state_apply_session_reopen, OPF_CLOSED | OPF_LWW, NEED_NONE, NEED_NONE) \
	OP(SESSION_IMPORT, "session.import", state_apply_session_import, OPF_CLOSED, STATE_ALL, NEED_NONE) \
	OP(NOTE, "note", state_apply_note, OPF_AGENT, NEED(NOTES), NEED(NOTES)) \
	OP(SUMMARY, "summary", state_apply_summary, OPF_LWW, NEED_NONE, NEED_NONE) \
	OP(SET, "set", state_apply_set, OPF_LWW, NEED_NONE, NEED_NONE) \
	OP(CHECKPOINT, "checkpoint", state_apply_checkpoint, OPF_BY_PATH | OPF_AGENT, NEED(FILES), NEED_NONE) \
	OP(RESTORE, "restore", state_apply_restore, OPF_BY_PATH, NEED(FILES), NEED_NONE) \
	OP(PHASE_ADD, "phase.add", state_apply_phase_add, 0, NEED_NONE, NEED_NONE) \
	OP(PHASE_START, "phase.start", state_apply_phase_start, 0, NEED_NONE, NEED_NONE) \
	OP(PHASE_COMPLETE, "phase.complete", state_apply_phase_complete, 0, NEED(ERRORS), NEED_NONE) \
	OP(PHASE_FAIL, "phase.fail", state_apply_phase_fail, 0, NEED(ERRORS), NEED(ERRORS)) \
	OP(PHASE_SKIP, "phase.skip", state_apply_phase_skip, 0, NEED_NONE, NEED_NONE) \
	OP(PHASE_RETRY, "phase.retry", state_apply_phase_retry, 0, NEED(ERRORS), NEED_NONE) \
	OP(PHASE_STEP, "phase.step", state_apply_phase_step, OPF_LWW, NEED_NONE, NEED_NONE) \
	OP(AGENT_START, "agent.start", state_apply_agent_start, 0, NEED(AGENTS), NEED_NONE) \
	OP(AGENT_PROGRESS, "agent.progress", state_apply_agent_progress, OPF_LWW, NEED(AGENTS), NEED_NONE) \
	OP(AGENT_DONE, "agent.done", state_apply_agent_done, 0, NEED(AGENTS), NEED_NONE) \
	OP(AGENT_FAIL, "agent.fail", state_apply_agent_fail, 0, NEED(AGENTS) | NEED(ERRORS), NEED(ERRORS)) \
	OP(AGENT_ATTACH, "agent.attach", state_apply_agent_attach, OPF_HOOK, NEED(AGENTS), NEED_NONE) \
	OP(AGENT_TURN, "agent.turn", state_apply_agent_turn, OPF_HOOK | OPF_BY_PATH, NEED(AGENTS) | NEED(FILES), NEED_NONE) \
	OP(AGENT_COMPACT, "agent.compact", state_apply_agent_compact, OPF_HOOK, NEED(AGENTS), NEED_NONE) \
	OP(AGENT_RUN, "agent.run", state_apply_agent_run, OPF_HOOK, NEED(AGENTS), NEED_NONE) \
	OP(FILE_CREATED, "file.created", state_apply_file_created, OPF_BY_PATH | OPF_AGENT, NEED(FILES), NEED_NONE) \
	OP(FILE_MODIFIED, "file.modified", state_apply_file_modified, OPF_BY_PATH | OPF_AGENT, NEED(FILES), NEED_NONE) \
	OP(FILE_DELETED, "file.deleted", state_apply_file_deleted, OPF_BY_PATH | OPF_AGENT, NEED(FILES), NEED_NONE) \
	OP(ERROR_ADD, "error.add", state_apply_error_add, OPF_AGENT, NEED(ERRORS), NEED(ERRORS)) \
	OP(ERROR_RESOLVE, "error.resolve", state_apply_error_resolve, 0, NEED(ERRORS), NEED_NONE) \
	OP(TOKENS_ADD, "tokens.add", state_apply_tokens_add, 0, NEED(AGENTS), NEED_NONE) \
	OP(TOKENS_BUDGET, "tokens.budget", state_apply_tokens_budget, OPF_LWW, NEED_NONE, NEED_NONE) \
	OP(DECIDE, "decide", state_apply_decide, OPF_AGENT, NEED(DECISIONS), NEED(DECISIONS)) \
	OP(TASK_ADD, "task.add", state_apply_task_add, 0, NEED(TASKS), NEED_NONE) \
	OP(TASK_DONE, "task.done", state_apply_task_done, 0, NEED(TASKS), NEED_NONE) \
	OP(MILESTONE_ADD, "milestone.add", state_apply_milestone_add, 0, NEED(MILESTONES), NEED_NONE) \
	OP(MILESTONE_DONE, "milestone.done", state_apply_milestone_done, 0, NEED(MILESTONES), NEED_NONE) \
	OP(ARTIFACT, "artifact", state_apply_artifact, OPF_AGENT, NEED(ARTIFACTS), NEED(ARTIFACTS)) \
	OP(HOOK_PRE_COMMIT, "hook.pre-commit", state_apply_hook_pre_commit, OPF_BY_PATH, NEED(FILES), NEED_NONE) \
	OP(COMMIT_RECORD, "commit.record", state_apply_commit_record, OPF_BY_PATH, NEED(FILES) | NEED(COMMITS), NEED(COMMITS)) \
	OP(COMMIT_REWRITE, "commit.rewrite", state_apply_commit_rewrite, 0, NEED(COMMITS), NEED_NONE) \
	OP(CHECKOUT, "checkout", state_apply_checkout, 0, NEED_NONE, NEED_NONE) \
	OP(ROLLBACK, "rollback", state_apply_recorded, OPF_CLOSED, STATE_ALL, NEED_NONE) \
	OP(MERGE, "merge", state_apply_recorded, OPF_CLOSED, STATE_ALL, NEED_NONE)

enum op_id {
#define GS_OP_ENUM(id, name, fn, flags, needs, tail) OP_##id,
	GS_OP_LIST(GS_OP_ENUM)
#undef GS_OP_ENUM
	OP_COUNT
};

/* What the table says of one operation. */
struct op_info {
	enum op_id id;
	const char *name;
	unsigned flags;
	unsigned needs;
	unsigned tail;
};

/* The row of an operation by id, or by name (NULL for an unknown name). */
const struct op_info *op_info(enum op_id id);
const struct op_info *op_lookup(const char *name);

#endif
