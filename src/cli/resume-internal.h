/*
 * resume-internal.h - `resume --agent` (agent_resume.c), which cmd_resume.c
 * hands the option to. Not for other folders.
 */
#ifndef GIT_SESSION_RESUME_INTERNAL_H
#define GIT_SESSION_RESUME_INTERNAL_H

struct cmd_ctx;

/*
 * The session of agent spec ("<cli>" or "<cli>:<agent id or its CLI's
 * session id>") in session given (or the active one) rebuilt in the
 * agent's own folder, and the command that continues it printed; an
 * existing file of that id replaced only with force.
 */
int agent_resume(struct cmd_ctx *c, const char *spec, const char *given, int force, int json, int quiet);

#endif
