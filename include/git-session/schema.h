/*
 * schema.h - the words of session.json, each listed once: its top-level
 * keys in the order they are written, the collections a large state keeps
 * apart, the status words and the error types. Code uses the names below,
 * never the words themselves; doc/json.md describes the same lists.
 *
 * Each list is an X-macro: LIST(X) calls X once per entry, and the word
 * lists for help and the MCP tools are made from the same rows with
 * GS_WORDS(LIST, "|"), a string constant.
 */
#ifndef GIT_SESSION_SCHEMA_H
#define GIT_SESSION_SCHEMA_H

/*
 * The keys of session.json, in order, with the value each takes when
 * absent: TEXT (a string, or null), LIST, OBJECT, or SPECIAL (the key's
 * own rule, in state.c).
 */
#define GS_STATE_KEYS(X) \
	X(schema_version, SPECIAL) \
	X(session_id, TEXT) \
	X(topic, TEXT) \
	X(goal, TEXT) \
	X(mode, TEXT) \
	X(status, SPECIAL) \
	X(created, TEXT) \
	X(updated, TEXT) \
	X(project, OBJECT) \
	X(plans, LIST) \
	X(current_phase, SPECIAL) \
	X(phases, LIST) \
	X(agents, LIST) \
	X(files, OBJECT) \
	X(errors, LIST) \
	X(tokens, SPECIAL) \
	X(decisions, LIST) \
	X(tasks, LIST) \
	X(milestones, LIST) \
	X(artifacts, LIST) \
	X(notes, LIST) \
	X(commits, LIST) \
	X(context_summary, TEXT) \
	X(extra, OBJECT)

/*
 * The collections a large state keeps beside session.json (state_split.c),
 * in the order of their bits: NEED(NOTES) is the bit of "notes".
 */
#define GS_SPLIT_KEYS(X) \
	X(AGENTS, "agents") \
	X(FILES, "files") \
	X(ERRORS, "errors") \
	X(DECISIONS, "decisions") \
	X(TASKS, "tasks") \
	X(MILESTONES, "milestones") \
	X(ARTIFACTS, "artifacts") \
	X(NOTES, "notes") \
	X(COMMITS, "commits")

enum state_split_index {
#define GS_SPLIT_INDEX(id, key) SPLIT_##id,
	GS_SPLIT_KEYS(GS_SPLIT_INDEX)
#undef GS_SPLIT_INDEX
	SPLIT_COUNT
};
#define NEED(id) (1u << SPLIT_##id)
#define NEED_NONE 0u
#define STATE_ALL ((1u << SPLIT_COUNT) - 1)

/* The fields of each kind of entry, in the order a new entry has them. */
#define GS_PHASE_FIELDS(X) X(id) X(name) X(status) X(agents) X(parallel) X(blocked_by) \
	X(started) X(completed) X(retry_count) X(sub_step) X(downstream_context)
#define GS_AGENT_FIELDS(X) X(id) X(type) X(task) X(phase) X(status) X(progress) X(started) \
	X(completed) X(result_summary) X(tokens)
#define GS_ERROR_FIELDS(X) X(agent) X(phase) X(timestamp) X(type) X(message) X(resolution) X(resolved)
#define GS_DECISION_FIELDS(X) X(decision) X(rationale) X(timestamp) X(agent)
#define GS_TASK_FIELDS(X) X(id) X(title) X(status) X(created) X(completed)
#define GS_ARTIFACT_FIELDS(X) X(path) X(created) X(agent) X(phase)

/* A manifest entry's "mode" when the file is a symbolic link (git's mode for one). */
#define FILE_MODE_LINK "120000"
/* An executable file's; a regular file's (100644) is the default, not written. */
#define FILE_MODE_EXEC "100755"
#define FILE_MODE_FILE "100644"

/* The token totals, each a whole number; max defaults to the budget. */
#define GS_TOKEN_KEYS(X) X(input) X(output) X(cached) X(max) X(peak) X(saved)

/* Status words. The C name of each is ST_<WORD>, its text the word. */
#define ST_PENDING "pending"
#define ST_IN_PROGRESS "in_progress"
#define ST_PAUSED "paused"
#define ST_COMPLETED "completed"
#define ST_ABORTED "aborted"
#define ST_FAILED "failed"
#define ST_SKIPPED "skipped"
#define ST_DONE "done"
#define ST_CREATED "created"
#define ST_MODIFIED "modified"
#define ST_DELETED "deleted"

/* Which words each kind of entry's status may be; the first is the default. */
#define GS_SESSION_STATUSES(X) X(ST_IN_PROGRESS) X(ST_PAUSED) X(ST_COMPLETED) X(ST_ABORTED)
#define GS_PHASE_STATUSES(X) X(ST_PENDING) X(ST_IN_PROGRESS) X(ST_COMPLETED) X(ST_FAILED) X(ST_SKIPPED)
#define GS_AGENT_STATUSES(X) X(ST_IN_PROGRESS) X(ST_COMPLETED) X(ST_FAILED)
#define GS_TASK_STATUSES(X) X(ST_PENDING) X(ST_DONE)
#define GS_FILE_STATUSES(X) X(ST_CREATED) X(ST_MODIFIED) X(ST_DELETED)

/* The kinds of error an error entry or a failed phase or agent records. */
#define ERR_VALIDATION "validation"
#define ERR_TIMEOUT "timeout"
#define ERR_FILE_CONFLICT "file_conflict"
#define ERR_RUNTIME "runtime"
#define ERR_DEPENDENCY "dependency"
#define GS_ERROR_TYPES(X) X(ERR_VALIDATION) X(ERR_TIMEOUT) X(ERR_FILE_CONFLICT) X(ERR_RUNTIME) X(ERR_DEPENDENCY)
#define ERR_DEFAULT ERR_RUNTIME

/*
 * A list's words as one string constant, for help and schemas:
 * GS_WORDS_PIPE(GS_ERROR_TYPES) is "validation|timeout|...|dependency",
 * GS_WORDS_COMMA the same with ", " between them.
 */
#define GS_PIPE_WORD_(w) "|" w
#define GS_COMMA_WORD_(w) ", " w
#define GS_WORDS_PIPE(list) (&(list(GS_PIPE_WORD_))[1])
#define GS_WORDS_COMMA(list) (&(list(GS_COMMA_WORD_))[2])
/* An array of a list's words, ending with NULL. */
#define GS_WORD_ITEM_(w) w,
#define GS_WORD_ARRAY(list) { list(GS_WORD_ITEM_) NULL }

#endif
