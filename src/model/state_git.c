/*
 * state_git.c - what the git hooks record: the files a commit stages,
 * the commit itself, commits rewritten by amend or rebase, branch
 * switches. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdlib.h>
#include <string.h>

static int valid_oid(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

int state_apply_hook_pre_commit(struct apply_ctx *c)
{
	int n = state_record_files(c, cJSON_GetObjectItemCaseSensitive(c->args, "files"), NULL, NULL, NULL);

	if (n < 0)
		return n;
	sbuf_addf(&c->subject, "pre-commit: %d staged file%s", n, n == 1 ? "" : "s");
	return 0;
}

static cJSON *find_commit(const cJSON *state, const char *id)
{
	cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(state, "commits"))
		if (json_str(m, "id") && !strcmp(json_str(m, "id"), id))
			return m;
	return NULL;
}

/* args: {"id", "subject", "branch", "files"?: path -> {status, oid}} */
int state_apply_commit_record(struct apply_ctx *c)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(c->args, "files");
	const char *id, *subject, *branch;
	int n = cJSON_GetArraySize(files), overflow, fresh, error;
	cJSON *m;

	if (state_arg_text(&id, c, "id", 1) < 0 || state_arg_text(&subject, c, "subject", 0) < 0 ||
	    state_arg_text(&branch, c, "branch", 0) < 0)
		return GS_ERROR;
	if (!valid_oid(id))
		return state_fail(c, "'%s' is not a commit id", id);
	if (find_commit(c->state, id))
		return state_fail(c, "commit %.7s is already recorded", id);
	/* a commit that adds a whole tree may not fit: it is still recorded */
	fresh = files ? state_manifest_new(c->state, files) : 0;
	if (fresh && c->lim->files_elsewhere < 0)
		return GS_EPARTIAL;	/* new paths: the whole manifest must be counted */
	overflow = fresh > STATE_MANIFEST_MAX - c->lim->files_elsewhere -
		cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c->state, "files"));
	if (files && !overflow && (error = state_record_files(c, files, NULL, NULL, NULL)) < 0)
		return error;
	m = cJSON_CreateObject();
	json_set_str(m, "id", id);
	json_set_str(m, "subject", subject);
	json_set_str(m, "branch", branch);
	json_set_str(m, "timestamp", c->at);
	if (files)
		cJSON_AddItemToObject(m, "files", cJSON_CreateNumber(n));
	cJSON_AddItemToArray(json_arr(c->state, "commits"), m);
	sbuf_addf(&c->subject, "commit %.7s", id);
	if (subject) {
		sbuf_adds(&c->subject, ": ");
		state_subject_quote(&c->subject, subject, 60);
	}
	if (files)
		sbuf_addf(&c->subject, " (%d file%s%s)", n, n == 1 ? "" : "s",
			  overflow ? ", too many for the manifest" : "");
	return 0;
}

/* args: {"kind": "amend"|"rebase", "map": [[old, new], ...]} */
int state_apply_commit_rewrite(struct apply_ctx *c)
{
	const cJSON *map = cJSON_GetObjectItemCaseSensitive(c->args, "map"), *pair;
	const char *kind;
	int n = 0;

	if (state_arg_text(&kind, c, "kind", 1) < 0)
		return GS_ERROR;
	if (!cJSON_IsArray(map))
		return state_fail(c, "map must be a list of [old, new] pairs");
	cJSON_ArrayForEach(pair, map)
		if (cJSON_GetArraySize(pair) != 2 || !valid_oid(cJSON_GetStringValue(pair->child)) ||
		    !valid_oid(cJSON_GetStringValue(pair->child->next)))
			return state_fail(c, "map must be a list of [old, new] commit id pairs");
	cJSON_ArrayForEach(pair, map) {
		cJSON *m = find_commit(c->state, pair->child->valuestring);
		cJSON *now = find_commit(c->state, pair->child->next->valuestring);

		if (!m)
			continue;
		if (now) {
			/* post-commit recorded the new commit already (amend, rebase): fold the old one in */
			cJSON_AddItemToArray(json_arr(now, "rewritten_from"),
					     cJSON_CreateString(pair->child->valuestring));
			cJSON_Delete(cJSON_DetachItemViaPointer(json_arr(c->state, "commits"), m));
		} else {
			cJSON_AddItemToArray(json_arr(m, "rewritten_from"),
					     cJSON_CreateString(pair->child->valuestring));
			json_set_str(m, "id", pair->child->next->valuestring);
		}
		n++;
	}
	sbuf_addf(&c->subject, "%s: %d recorded commit%s rewritten", kind, n, n == 1 ? "" : "s");
	return 0;
}

int state_apply_checkout(struct apply_ctx *c)
{
	const char *from, *to, *head;
	cJSON *m;

	if (state_arg_text(&from, c, "from", 0) < 0 || state_arg_text(&to, c, "to", 1) < 0 ||
	    state_arg_text(&head, c, "head", 0) < 0)
		return GS_ERROR;
	m = cJSON_CreateObject();
	json_set_str(m, "from", from);
	json_set_str(m, "to", to);
	json_set_str(m, "head", head);
	json_set_str(m, "timestamp", c->at);
	cJSON_AddItemToArray(json_arr(json_obj(c->state, "project"), "checkouts"), m);
	sbuf_addf(&c->subject, "checkout %s -> %s", from ? from : "?", to);
	return 0;
}
