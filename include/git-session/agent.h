/*
 * agent.h - the agents' own hook systems, as data: which of their events
 * means what to a session, which of their tools write files, where their
 * payloads keep what is read, the token usage their transcripts hold, and
 * how our hooks go into (and come out of) their settings files, edited
 * in place. Pure C, no I/O.
 */
#ifndef GIT_SESSION_AGENT_H
#define GIT_SESSION_AGENT_H

/* session.transcriptLimit's default: the bytes of transcript kept per agent. */
#define AGENT_TRANSCRIPT_LIMIT (64 << 20)
/* The most tokens one count of a transcript, or one turn's total, may say: as `tokens add` takes. */
#define AGENT_TOKENS_MAX 1e12

#include <stddef.h>
#include <cjson/cJSON.h>

enum agent_event {
	AE_NONE,
	AE_START,		/* a session of the agent starts or resumes */
	AE_PROMPT,		/* the user's prompt: a note */
	AE_TOOL_BEFORE,		/* a tool call is about to run: the budget */
	AE_TOOL_AFTER,		/* a tool ran: the file it wrote */
	AE_SUBAGENT_START,
	AE_SUBAGENT_STOP,
	AE_TURN_END,		/* a checkpoint, with the turn's usage and transcript */
	AE_COMPACT,		/* the agent compacts its context */
	AE_END,			/* the agent's session ends */
};

struct agent_hook_event {
	const char *event;	/* the agent's name for it */
	enum agent_event kind;
	const char *matcher;	/* the tools it fires for, or NULL for all */
};

struct agent_dialect {
	const char *name;		/* as given to --agent and `hook` */
	const char *stem;		/* of the agent ids it records: claude-1a2b3c4d */
	const char *settings;		/* the project's settings file */
	int timeout;			/* a hook's timeout, in the unit the agent counts */
	const struct agent_hook_event *events;
	const char *const *write_tools;	/* tools whose file is recorded */
	const char *const *agent_tools;	/* tools that run a sub-agent */
	/* where the agent keeps its transcripts: folder in the home, or in $home_env, or $folder_env itself */
	const char *folder;
	const char *folder_env;
	const char *home_env;
};

/* The dialect of an agent by name, NULL when unknown; agent_dialects lists them all. */
const struct agent_dialect *agent_dialect(const char *name);
extern const struct agent_dialect *const agent_dialects[];

enum agent_event agent_event_kind(const struct agent_dialect *d, const char *event);

/*
 * The file a tool call wrote (payload's tool_name and tool_input), and
 * whether the tool says it created it: 1 when it wrote one, 0 when the
 * tool writes none. *path is the payload's, absolute or relative.
 */
int agent_tool_file(const char **path, int *created, const struct agent_dialect *d, const cJSON *payload);
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
};
void agent_usage_scan(struct agent_usage *u, const char *text, size_t len);

/*
 * The settings text with our hooks added, each event's group running
 * command_prefix + " " + event (*out NULL when they are there already);
 * text may be NULL (no file yet). GS_ERROR with *err when the text is
 * not a JSON object to add to. What was there stays byte for byte; what
 * is added follows the file's indentation.
 */
int agent_settings_add(char **out, char **err, const char *text, size_t len, const struct agent_dialect *d,
		       const char *command_prefix);
/* The settings text with every group that runs command_prefix taken out; *out NULL when none was there. */
int agent_settings_remove(char **out, char **err, const char *text, size_t len, const char *command_prefix);
/* How many of d's events run command_prefix in the settings text. */
int agent_settings_count(const char *text, size_t len, const struct agent_dialect *d, const char *command_prefix);

#endif
