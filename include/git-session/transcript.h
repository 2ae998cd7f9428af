/*
 * transcript.h - an agent's transcript read as the conversation a person
 * follows: prompts, replies, tool calls with their arguments in one line,
 * tool results summed up, usage, compaction summaries, each with its turn
 * and the line it came from. And the lines a transcript part keeps when
 * stored. Pure C, no I/O: the bytes come from the caller.
 */
#ifndef GIT_SESSION_TRANSCRIPT_H
#define GIT_SESSION_TRANSCRIPT_H

#include <stddef.h>
#include <cjson/cJSON.h>

struct agent_dialect;

/*
 * Bounds against hostile transcripts: the bytes and the values (a bound
 * on what parsing it costs) read of one line, what is kept of one text,
 * the items one line adds.
 */
#define TRANSCRIPT_LINE_MAX (16u << 20)
#define TRANSCRIPT_LINE_VALUES (1u << 20)
#define TRANSCRIPT_TEXT_MAX (64u << 10)
#define TRANSCRIPT_ITEMS_PER_LINE 512

enum transcript_kind {
	TI_PROMPT,	/* what the user asked: it starts a turn */
	TI_REPLY,	/* what the agent answered */
	TI_THINKING,	/* what the agent thought, when the CLI keeps it */
	TI_TOOL,	/* a tool call: name, and text its arguments in one line */
	TI_RESULT,	/* a tool's result: text its first line; lines, bytes, error, exit */
	TI_USAGE,	/* one message's tokens */
	TI_SUMMARY,	/* a compaction's summary of the conversation before it */
	TI_EVENT,	/* what the CLI notes: a compaction, a sub-agent's report, a command's output */
	TI_UNREAD,	/* a line no dialect reads (not JSON), as text: only with transcript.unread */
};

struct transcript_item {
	enum transcript_kind kind;
	int turn;		/* 0 before the first prompt */
	int part;		/* transcript.part when it was read */
	size_t line;		/* 1-based, in the text it was read from */
	char *text;		/* valid UTF-8, at most TRANSCRIPT_TEXT_MAX bytes ("…" when cut) */
	char *name;		/* of a tool call or result; NULL otherwise */
	char *body;		/* a result's whole text (at most TRANSCRIPT_TEXT_MAX bytes), for searching; else NULL */
	int error;		/* a result: the tool failed */
	int exit;		/* a result: the exit status a command gave, or -1 when not said */
	size_t lines, bytes;	/* a result: its size */
	double input, output, cached;	/* usage */
};

/*
 * A conversation read line by line, part after part. part is the caller's
 * to set before each transcript_read (items carry it). The rest is the
 * reader's.
 */
struct transcript {
	const struct agent_dialect *d;
	struct transcript_item *items;
	size_t n, alloc;
	int part;
	int unread;		/* the caller's: lines that are not JSON kept as TI_UNREAD items (to search them) */
	int turn;		/* the turns so far */
	int opened;		/* a turn opened before its prompt (by a compaction): the next prompt is in it */
	unsigned seen;		/* the dialect's: what kinds of lines it has read */
	size_t skipped;		/* lines that are not JSON objects, or too long: passed over */
	/* the reader's: the line being read, and the message a line may write again */
	size_t line, line_items;
	char msg_id[128];
	size_t msg_first;
	int msg_turn;
	char usage_id[128];
	size_t usage_at;
};

void transcript_init(struct transcript *t, const struct agent_dialect *d);
void transcript_clear(struct transcript *t);

/*
 * Reads len bytes of transcript (JSON lines in t's dialect) into t's
 * items, after those it has. A line that is not a JSON object, or is
 * longer than TRANSCRIPT_LINE_MAX or holding more than
 * TRANSCRIPT_LINE_VALUES values, is passed over and counted in
 * t->skipped; what a line holds beyond TRANSCRIPT_ITEMS_PER_LINE items
 * is left out. A whole JSON document (a chat file written at once) is
 * read as its messages.
 */
void transcript_read(struct transcript *t, const char *text, size_t len);

/*
 * The lines of text a transcript part keeps by default: those of the
 * conversation (d->keeps_line), each whole with its newline. *out is
 * NULL when every line is kept (the text is stored as it is); else it
 * holds *outlen bytes the caller frees.
 */
void transcript_filter(char **out, size_t *outlen, const struct agent_dialect *d, const char *text, size_t len);

/*
 * The mark of a transcript's line (its bytes, newline left out): 16 hex
 * digits of its SHA-256, and a NUL. A session keeps the marks of an
 * agent's first line and of the last line read, so that a hook knows
 * whether the file it reads is the one the offsets it has were counted
 * in (another machine's, after a conversation was carried, is not).
 */
#define TRANSCRIPT_MARK_SZ 17
void transcript_line_mark(char out[TRANSCRIPT_MARK_SZ], const char *line, size_t len);
/* The marks of text's first line and of its last whole line; "" when it has none. */
void transcript_edge_marks(char head[TRANSCRIPT_MARK_SZ], char tail[TRANSCRIPT_MARK_SZ], const char *text,
			   size_t len);

/* The one-line summary of a tool call's arguments: the command, the path, the pattern... The caller frees it. */
char *transcript_args_summary(const cJSON *input);

/* What the dialect files' line readers use (agent layer): an item added to the line being read. */
struct transcript_item *transcript_add(struct transcript *t, enum transcript_kind kind, const char *text,
				       size_t len);
/* A prompt: a new turn (unless one was opened for it), then the item. */
void transcript_prompt(struct transcript *t, const char *text, size_t len);
/* A new turn before its prompt: a compaction, which the prompt that asked for it (or the next) joins. */
void transcript_open_turn(struct transcript *t);
/* A tool's result from its text: first line, size, and the exit status "Exit code N" says. */
void transcript_result(struct transcript *t, const char *name, const char *text, size_t len, int error);
/* A message's usage: counted once per id, the last line of it winning. */
void transcript_usage(struct transcript *t, const char *id, double input, double output, double cached);
/* A message written again whole (same id as the last one): what its earlier line added is taken back. */
void transcript_message(struct transcript *t, const char *id);
/*
 * The bytes [*from, *to) of the JSON object line's top-level member key,
 * with a comma beside it, so that the line without them is the object
 * without the member: skimmed, not built. 0 when it is not there.
 */
int transcript_member_span(size_t *from, size_t *to, const char *line, size_t len, const char *key);
/* The top-level string value of key in a JSON object's text, skimmed, not built; the caller frees it. */
char *transcript_top_str(const char *line, size_t len, const char *key);

#endif
