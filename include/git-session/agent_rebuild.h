/*
 * agent_rebuild.h - an agent's own session file rebuilt from the
 * transcript a session keeps of it (the parts its hooks stored, joined),
 * so that the agent CLI resumes the conversation in another clone: the
 * lines checked, relinked where the stored filter left one out, paths
 * under the recorded project root moved to this clone's. Pure C, no I/O.
 */
#ifndef GIT_SESSION_AGENT_REBUILD_H
#define GIT_SESSION_AGENT_REBUILD_H

#include <stddef.h>

struct agent_dialect;

/* The longest agent session id taken as a file name. */
#define AGENT_SESSION_ID_MAX 128

struct agent_rebuild {
	/* in */
	const char *session;	/* the agent's own session id: the file's name, each line's session */
	/* the project roots the lines were written under (NULL-terminated; a conversation carried between clones has several), or NULL */
	const char *const *from_roots;
	const char *to_root;	/* this clone's work tree */
	const char *cwd;	/* the working folder of a line that says none */
	/* out, the caller frees */
	char *text;		/* the file's bytes */
	size_t len;
	char *started;		/* the time of its first message, or NULL */
	size_t lines;		/* the lines it holds */
	size_t relinked;	/* lines whose parent the stored transcript did not keep */
	size_t unsealed;	/* thinking blocks left out: redaction changed what their signature seals */
};

/*
 * How an agent's session file is rebuilt (agent_dialect.rebuilder); an
 * agent without one cannot be, and why_not says why.
 */
struct agent_rebuilder {
	/* rb->text from the stored text; GS_ERROR with *err (the caller frees) when a line cannot be read */
	int (*rebuild)(struct agent_rebuild *rb, char **err, const char *text, size_t len);
	/*
	 * The working folders the transcript's lines say, each once, the
	 * latest last (*n 0 when none does); the caller frees each and *out.
	 */
	void (*cwds)(char ***out, size_t *n, const char *text, size_t len);
	/*
	 * Where the file rebuilt as rb goes, relative to the agent's own
	 * folder, for a session run in cwd: project is what the agent's
	 * registry (below) names cwd, or NULL. The caller frees it.
	 */
	char *(*path)(const struct agent_rebuild *rb, const char *cwd, const char *project);
	/* A JSON file in the agent's folder whose "projects" names each project's folder, or NULL. */
	const char *registry;
	/*
	 * Where a session of the agent is, in any project: the glob(7)
	 * pattern find_before, its session id (a safe one; its first
	 * find_id_len characters when not 0), find_after, in the agent's
	 * folder; none when find_before is NULL.
	 */
	const char *find_before, *find_after;
	int find_id_len;
	const char *why_not;	/* when rebuild is NULL */
};

/* Whether id is an agent session id safe as a file name: [A-Za-z0-9_-], not too long, "." inside only. */
int agent_session_id_ok(const char *id);

/*
 * s with each occurrence of the path from (a whole path: not followed by
 * a name character) replaced by to; NULL when none is there. The caller
 * frees it.
 */
char *agent_path_move(const char *s, const char *from, const char *to);

/* Claude Code's folder name for a project at cwd: its projects/<this>/. The caller frees it. */
char *agent_claude_project_dir(const char *cwd);

/*
 * The folder the absolute path that ends in /rel is in, as a whole JSON
 * string of text (a tool's argument): what the path of a recorded file
 * was under; NULL when text holds none. The caller frees it.
 */
char *agent_root_of(const char *text, size_t len, const char *rel);

#endif
