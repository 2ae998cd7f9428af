/*
 * agent.h - the agents whose own hooks run git-session, one dialect each:
 * which of their events means what to a session, what their payloads
 * say, the token usage their transcripts hold, and how our hooks go into
 * (and come out of) their own configuration. Pure C, no I/O.
 */
#ifndef GIT_SESSION_AGENT_H
#define GIT_SESSION_AGENT_H

/* session.transcriptLimit's default: the bytes of transcript kept per agent. */
#define AGENT_TRANSCRIPT_LIMIT (64 << 20)
/* The most tokens one count of a transcript, or one turn's total, may say: as `tokens add` takes. */
#define AGENT_TOKENS_MAX 1e12

/* The exit statuses and durations a payload may say; anything else is not known. */
#define AGENT_EXIT_MIN -2147483648.0
#define AGENT_EXIT_MAX 4294967295.0
#define AGENT_MS_MAX 1e12

#include <stddef.h>
#include <cjson/cJSON.h>

/*
 * The agents, each listed once, in the order help and `hooks status`
 * list them: X(file). Each has its file src/agent/<file>.c defining
 * agent_<file>, its struct agent_dialect. Nothing outside that file
 * tells one agent from another: what differs is in the dialect.
 */
#define GS_AGENTS(X) X(claude_code) X(gemini_cli) X(qwen_code) X(copilot_cli) X(codex) X(opencode) X(cursor) X(generic)

enum agent_event_kind {
	AE_NONE,
	AE_START,		/* a session of the agent starts or resumes */
	AE_PROMPT,		/* the user's prompt: a note */
	AE_TOOL_BEFORE,		/* a tool call is about to run: the budget */
	AE_TOOL_AFTER,		/* a tool ran: the file it wrote, the shell command it ran */
	AE_TOOL_FAILED,		/* a tool failed: a shell command that did not succeed */
	AE_SUBAGENT_START,
	AE_SUBAGENT_STOP,
	AE_TURN_END,		/* a checkpoint, with the turn's usage and transcript */
	AE_COMPACT,		/* the agent compacts its context */
	AE_END,			/* the agent's session ends */
};

struct agent_hook_event {
	const char *event;	/* the agent's name for it */
	enum agent_event_kind kind;
	const char *matcher;	/* the tools it fires for, or NULL for all */
};

/*
 * What a hook's payload says, read once by the agent's read_event. The
 * strings are the payload's (it must outlive them); NULL when it says
 * nothing of the kind.
 */
struct agent_event {
	const char *session;		/* the agent's own session id; "" when none */
	const char *prompt;		/* the user's prompt */
	const char *tool;		/* the tool a call runs or ran */
	const char *path;		/* the file it wrote, absolute or relative; NULL unless a writer */
	int created;			/* the tool says it created path */
	const char *transcript;		/* the agent's transcript */
	const char *subagent_id;
	const char *subagent_type;
	const char *subagent_transcript;
	const char *said;		/* the (sub-)agent's last message, at the end of its turn */
	const char *command;		/* the command line a shell tool ran; NULL for other tools */
	int failed;			/* the tool says it failed */
	int has_exit, has_ms;		/* whether exit and ms are known */
	double exit;			/* the command's exit status, AGENT_EXIT_MIN to AGENT_EXIT_MAX */
	double ms;			/* how long it ran, 0 to AGENT_MS_MAX */
	const char *trigger;		/* of a compaction: "manual", "auto" */
	const char *reason;		/* why the agent's session ended */
	const char *cwd;		/* the directory the agent ran in, which a patch's relative paths are from */
	const char *call;		/* the tool call's id, which its transcript may name */
	const char *source;		/* why a session starts: "startup", "resume", "clear", "compact" */
	const char *summary;		/* of a compaction: the summary the agent made, when the payload says it */
	int skip;			/* not the event its name says (a sub-agent's own prompt or turn): nothing recorded */
	const char *patch;		/* an apply_patch patch: the files it names were written */
	const char *agent;		/* the agent's name, when the payload gives it (the generic dialect) */
	const char *refused;		/* why the payload is not read at all (an unknown version), or NULL */
	int has_usage;			/* the payload carries the turn's tokens, as agent_dialect.scan_usage's */
	double usage[3];
};

/* The longest agent name a payload may give: letters, digits, '-', '_', '.', a letter first. */
#define AGENT_NAME_MAX 32
/* Whether name is one a payload may give its agent (it becomes the agent's CLI and its ids' stem). */
int agent_name_valid(const char *name);

struct agent_dialect;
struct transcript;

/*
 * An agent's own gate on the hooks it reads, beyond the file: entries of
 * the user's config file (in the agent's folder) that the agent needs
 * before it runs them (Codex: a trusted project, each hook's trusted hash).
 */
struct agent_trust_ops {
	const char *file;	/* the user's config file, in the agent's folder */
	/*
	 * The entries that open the hooks running command_prefix in settings
	 * (the hooks file's text, at path) for project (NULL: every project,
	 * the user's own hooks); NULL when there are none. The caller frees it.
	 */
	char *(*entries)(const char *settings, size_t len, const char *path, const char *project,
			 const char *command_prefix);
	/*
	 * Of entries, *add those config (len bytes, NULL: none) lacks, to append
	 * (NULL: none), and *conflict the first it holds otherwise (NULL: none),
	 * which only the user can change. The caller frees both.
	 */
	void (*plan)(char **add, char **conflict, const char *config, size_t len, const char *entries);
};
struct agent_rebuilder;

/*
 * Our hooks in an agent's own configuration, edited in place: what was
 * there stays byte for byte. agent_json_hooks (agent_json_hooks.c) does it
 * for a JSON file shaped as Claude Code's; an agent configured otherwise
 * (TOML, a plugin file) brings its own. agent_settings_add and the
 * others below say what each does.
 */
struct agent_settings_ops {
	int (*add)(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
		   const char *command_prefix);
	int (*remove)(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
		      const char *command_prefix);
	int (*count)(const char *text, size_t len, const struct agent_dialect *d, const char *command_prefix);
};

/* agent_dialect.flags */
#define AGENT_COMPACT_MANUAL_ONLY 1u	/* only a compaction the user asked for is recorded */
/*
 * The session's brief goes with the first prompt after a start, not the
 * start: the CLI puts a start's context before the prompt of a headless
 * run, where a slash command is one no more.
 */
#define AGENT_BRIEF_AT_PROMPT 2u
#define AGENT_TRANSCRIPT_LATE 4u	/* its transcript is whole only once it exits: a turn is read then */
#define AGENT_TOOLS_ANY 8u		/* the payload says which tool wrote a file or ran a command */
#define AGENT_HOOKS_FLAT 16u		/* agent_json_hooks: {"version": 1, "hooks": {"<event>": [{"command"}]}} */
#define AGENT_HOOKS_EACH_FILE 32u	/* the same hook in two of its settings files runs twice */

struct agent_dialect {
	const char *name;		/* as given to --agent and `hook` */
	const char *stem;		/* of the agent ids it records: claude-1a2b3c4d */
	const char *resume;		/* the shell command that resumes one of its sessions, given its id */
	const char *settings;		/* the project's settings file, from the work tree's top */
	const char *settings_local;	/* one person's, which the agent reads too (NULL: none) */
	const char *settings_user;	/* the user's, for every project: in the agent's folder (below) */
	/* the variable naming the project's folder, where the agent runs its hooks elsewhere (NULL: in it) */
	const char *project_env;
	const struct agent_settings_ops *settings_ops;
	int timeout;			/* a hook's timeout, in the unit the agent counts */
	const struct agent_hook_event *events;
	const char *const *write_tools;	/* tools whose file is recorded */
	const char *const *agent_tools;	/* tools that run a sub-agent */
	const char *const *shell_tools;	/* tools that run a shell command: recorded as agent.run */
	/* how prompts the CLI sends itself start (a sub-agent's notice, a command): not the user's */
	const char *const *own_prompts;
	/* where the agent keeps its transcripts: folder in the home, or in $home_env, or $folder_env itself */
	const char *folder;
	const char *folder_env;
	const char *home_env;
	unsigned flags;			/* AGENT_* */
	int block_exit;			/* the exit code the agent reads as "do not run this tool" */
	/* Fills what the payload says (out is zeroed); agent_read_event calls it. */
	void (*read_event)(struct agent_event *out, const cJSON *payload);
	/* Only the transcript lines holding usage_mark are parsed for usage. */
	const char *usage_mark;
	/*
	 * One transcript line's usage: *id its message's id, usage[] its
	 * input tokens not read from the cache (writes to it included),
	 * its output tokens and those read from the cache.
	 * 1 when the line has a usage, 0 when not, -1 when a count is not a
	 * whole number from 0 to AGENT_TOKENS_MAX.
	 */
	int (*scan_usage)(const char **id, double usage[3], const cJSON *line);
	/*
	 * Lines holding one of total_marks (NULL: none) are read by
	 * scan_total: 1 when the line is the CLI's running total of the
	 * session's usage (total[] as usage[] above), 2 when it marks a
	 * compaction, 0 otherwise. A compaction's own call is in no message:
	 * the running total's growth past it, less the messages, is its tokens.
	 */
	const char *const *total_marks;
	int (*scan_total)(double total[3], const cJSON *line);
	/* The text a line with a usage says to the user, or NULL: the reply when the payload says none. */
	const char *(*scan_reply)(const cJSON *line);
	/* One transcript line, a JSON object, read into t's conversation (transcript.h). */
	void (*read_line)(struct transcript *t, const cJSON *line);
	/*
	 * Whether a transcript line is the conversation, kept when stored, or
	 * a record the CLI keeps for itself; cut[] (0, 0 when called) the
	 * bytes of a kept line to leave out, a member the CLI adds for itself.
	 */
	int (*keeps_line)(const char *line, size_t len, size_t cut[2]);
	/*
	 * What the hook of event prints on stdout to hand the agent text as
	 * added context, in the agent's documented channel; NULL when it
	 * takes none. The caller frees it.
	 */
	char *(*context_out)(const char *event, const char *text);
	/* What a transcript line holding a compaction's summary holds (NULL: its transcript keeps none). */
	const char *summary_mark;
	/*
	 * The summary proper in the text of such a line, without what the
	 * CLI wraps it in for its own model (NULL: the text is it); the
	 * caller frees it.
	 */
	char *(*summary_of)(const char *text);
	/* How its own session file is rebuilt from the stored transcript (agent_rebuild.h). */
	const struct agent_rebuilder *rebuilder;
	/*
	 * When its payload says no shell command's outcome, its transcript may
	 * (NULL: not): of the lines holding exit_mark, the one scan_exit finds
	 * ev->call's outcome in (1), which it fills in ev (exit, ms, failed).
	 */
	const char *exit_mark;
	int (*scan_exit)(struct agent_event *ev, const cJSON *line);
	/* Its gate on our hooks (NULL: none): what install records, with the user's consent. */
	const struct agent_trust_ops *trust;
	/*
	 * Another agent whose hooks this one runs too (Copilot CLI runs
	 * Claude Code's .claude/settings.json): guest_of names it, claims
	 * says whether a payload that came through them is this agent's,
	 * given the hook's environment (env: getenv or a stand-in). The
	 * runner then records it as this agent's, read by read_event, under
	 * the event's name in the payload (hook_event_name) when that is one
	 * of this agent's (Cursor names its own), and not at all when this
	 * agent's own hooks are installed too.
	 */
	const char *guest_of;
	int (*claims)(const cJSON *payload, const char *(*env)(const char *name));
	/*
	 * What install says of a gate that keeps the project's hooks from
	 * running until the user opens it (NULL: none): hint lines, '\n'
	 * between them, %s the work tree.
	 */
	const char *gate;
	/*
	 * A hooks file wholly ours (agent_file_hooks): its whole text, our
	 * hooks running command_prefix + " " + event; the caller frees it.
	 */
	char *(*hooks_file)(const struct agent_dialect *d, const char *command_prefix);
	/*
	 * What install puts beside the settings file, {path from its folder,
	 * text}, NULL-terminated: each written only when none of them is
	 * there (a text NULL: a file that must not be there; a path ending in
	 * '/': a folder), taken back by uninstall while as written. OpenCode
	 * installs packages into a folder with a plugin unless it looks
	 * installed already.
	 */
	const char *const (*aside)[2];
};

/* The dialect of an agent by name, NULL when unknown; agent_dialects lists them all, NULL-terminated. */
const struct agent_dialect *agent_dialect(const char *name);
extern const struct agent_dialect *const agent_dialects[];
/* The agents' names for help and messages, sep between two, last before the last ("a, b or c"); the caller frees it. */
char *agent_names(const char *sep, const char *last);

/*
 * The agent whose payload came through host's hooks (agent_dialect.claims),
 * NULL when it is host's own.
 */
const struct agent_dialect *agent_guest(const struct agent_dialect *host, const cJSON *payload,
					const char *(*env)(const char *name));

enum agent_event_kind agent_event_kind(const struct agent_dialect *d, const char *event);
/* How many events d's hooks are installed for. */
size_t agent_event_count(const struct agent_dialect *d);

/*
 * What payload says, in d's dialect; path only for one of d's
 * write_tools, prompt only for
 * the user's (not one of its own_prompts). A number out of its range (an
 * exit status, a duration) is not known.
 */
void agent_read_event(struct agent_event *out, const struct agent_dialect *d, const cJSON *payload);
int agent_is_agent_tool(const struct agent_dialect *d, const char *tool);

/*
 * Token usage read from transcript lines. Each message counts once, by
 * its id, with its last line's usage (Claude repeats a message's usage
 * on each content block, Gemini writes a message again as it grows).
 * last_* is the last message counted: when a later part of the transcript
 * repeats it, its new usage replaces the old.
 */
struct agent_usage {
	double input, output, cached;
	int messages;
	char last_id[128];
	double last_input, last_output, last_cached;
	int skipped;
	/*
	 * The CLI's running total at its last line read (has_total), what the
	 * messages counted since, and whether a compaction came since: carried
	 * from one part to the next. compactions counts those whose tokens
	 * this scan added to input, output and cached.
	 */
	int has_total, pending, compactions;
	double total[3], since[3];
	char reply[4096];	/* the last text a message of the scan said, cut at a character; "" when none */
};
void agent_usage_scan(struct agent_usage *u, const struct agent_dialect *d, const char *text, size_t len);

/*
 * The files a patch in the apply_patch format names, in its order: each
 * added, updated, deleted, or the new name of the update before it
 * (AGENT_PATCH_MOVE_TO). Paths are as the patch says them, unchecked.
 * -1 (nothing in *out) when there is no "*** Begin Patch", a header
 * names no path, a move follows no update, or it names more than
 * AGENT_PATCH_FILES_MAX files. agent_patch_files_free frees *out.
 */
#define AGENT_PATCH_FILES_MAX 1000
enum agent_patch_kind { AGENT_PATCH_ADD, AGENT_PATCH_UPDATE, AGENT_PATCH_DELETE, AGENT_PATCH_MOVE_TO };
struct agent_patch_file {
	char *path;
	enum agent_patch_kind kind;
};
int agent_patch_files(struct agent_patch_file **out, size_t *n, const char *patch);
void agent_patch_files_free(struct agent_patch_file *v, size_t n);

/*
 * The settings text with our hooks added, each event's group running
 * command_prefix + " " + event (*out NULL when they are there already);
 * text may be NULL (no file yet). GS_ERROR with *err when the text is
 * not one to add to. What was there stays byte for byte; what is added
 * follows the file's indentation.
 */
int agent_settings_add(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
		       const char *command_prefix);
/*
 * The settings text with every group that runs command_prefix taken out;
 * *out NULL when none was there, "" when the file, wholly ours, goes.
 */
int agent_settings_remove(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
			  const char *command_prefix);
/* How many of d's events run command_prefix in the settings text. */
int agent_settings_count(const char *text, size_t len, const struct agent_dialect *d, const char *command_prefix);

#endif
