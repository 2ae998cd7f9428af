/*
 * search.c - the texts of a state a search looks at, and where each is.
 * Pure.
 */
#include "git-session/search.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>

/* Of each entry of list, the text under each key, named "<list>[<i>].<key>" ("<list>[<i>]" for the first). */
static int search_list(const cJSON *state, const char *list, const char *by, const char *const *keys,
		       search_fn fn, void *payload)
{
	const cJSON *e;
	int i = 0, r = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(state, list)) {
		char at[64];

		if (by && json_str(e, by))
			snprintf(at, sizeof(at), "%.40s", json_str(e, by));
		else
			snprintf(at, sizeof(at), "%d", i);
		for (size_t k = 0; keys[k] && !r; k++) {
			const char *text = json_str(e, keys[k]);
			char *field;

			if (!text)
				continue;
			field = k ? xstrfmt("%s[%s].%s", list, at, keys[k]) : xstrfmt("%s[%s]", list, at);
			r = fn(field, json_str(e, "agent"), text, payload);
			free(field);
		}
		if (r)
			return r;
		i++;
	}
	return 0;
}

int search_state(const cJSON *state, search_fn fn, void *payload)
{
	static const char *const top[] = { "topic", "goal", "context_summary" };
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(top) && !r; i++)
		if (json_str(state, top[i]))
			r = fn(top[i], NULL, json_str(state, top[i]), payload);
	if (!r)
		r = search_list(state, "notes", NULL, (const char *const[]){ "text", NULL }, fn, payload);
	if (!r)
		r = search_list(state, "decisions", NULL, (const char *const[]){ "decision", "rationale", NULL },
				fn, payload);
	if (!r)
		r = search_list(state, "errors", NULL, (const char *const[]){ "message", "resolution", NULL }, fn,
				payload);
	if (!r)
		r = search_list(state, "tasks", NULL, (const char *const[]){ "title", NULL }, fn, payload);
	if (!r)
		r = search_list(state, "milestones", NULL, (const char *const[]){ "name", NULL }, fn, payload);
	if (!r)
		r = search_list(state, "phases", "name", (const char *const[]){ "name", "sub_step",
			"downstream_context", NULL }, fn, payload);
	if (!r)
		r = search_list(state, "agents", "id", (const char *const[]){ "id", "task", "result_summary", NULL }, fn,
				payload);
	return r;
}
