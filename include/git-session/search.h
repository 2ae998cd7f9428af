/*
 * search.h - the texts of a state that `git session grep` searches:
 * notes (an agent's prompts among them), decisions, errors, tasks,
 * milestones, summaries and what agents and phases were given to do,
 * each with a name for where it is. Pure: no I/O.
 */
#ifndef GIT_SESSION_SEARCH_H
#define GIT_SESSION_SEARCH_H

#include <cjson/cJSON.h>

/*
 * Calls fn on each searched text of state, with where it is ("notes[3]",
 * "decisions[0].rationale", "agents[coder-1].result_summary", "topic")
 * and the entry's agent, if it names one. Stops at, and returns, the
 * first non-zero fn returns.
 */
typedef int (*search_fn)(const char *field, const char *agent, const char *text, void *payload);
int search_state(const cJSON *state, search_fn fn, void *payload);

#endif
