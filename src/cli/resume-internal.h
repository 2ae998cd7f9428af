/*
 * resume-internal.h - `resume --agent` (agent_resume.c), which cmd_resume.c
 * hands the option to. Not for other folders.
 */
#ifndef GIT_SESSION_RESUME_INTERNAL_H
#define GIT_SESSION_RESUME_INTERNAL_H

struct cmd_ctx;
#include <cjson/cJSON.h>

/*
 * The session of agent spec ("<cli>" or "<cli>:<agent id or its CLI's
 * session id>") in session given (or the active one) rebuilt in the
 * agent's own folder, and the command that continues it printed; an
 * existing file of that id replaced only with force.
 */
int agent_resume(struct cmd_ctx *c, const char *spec, const char *given, int force, int json, int quiet);

/*
 * The ids of the session's agents, run by a CLI whose session resume
 * --agent rebuilds, whose CLI's own session is not on this machine: a
 * teammate's, or one from another clone (NULL-terminated; the caller
 * frees the array, not the ids, which are state's).
 */
const char **agent_resume_elsewhere(const cJSON *state);

#endif
