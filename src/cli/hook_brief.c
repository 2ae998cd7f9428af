/*
 * hook_brief.c - the context an agent is given and the one it leaves:
 * the session's brief, handed to it at its start (or its next prompt,
 * AGENT_BRIEF_AT_PROMPT) in its channel for added context, and to the
 * MCP server's session-brief; and the summary it writes when it
 * compacts, kept as the session's context summary for the next brief.
 * For the hook runner (cmd_agent_hook.c).
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/report.h"
#include "git-session/util.h"
#include "git-session/store_worktree.h"
#include "git-session/transcript.h"
#include "hook-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most of a transcript read for a compaction's summary: its end. */
#define SUMMARY_SCAN_MAX (16u << 20)

/* The paths of the manifest changed in the work tree since the checkpoint, as resume finds them. */
static cJSON *changed_files(gs_store *st, const cJSON *state)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(state, "files"), *rec;
	cJSON *scan = NULL, *out;

	if (!store_workdir(st) || !cJSON_GetArraySize(files) || store_worktree_scan(&scan, st, files) < 0)
		return NULL;
	out = cJSON_CreateArray();
	cJSON_ArrayForEach(rec, files) {
		const char *kind = report_file_kind(state, rec, cJSON_GetObjectItemCaseSensitive(scan, rec->string));

		if (!strcmp(kind, "modified") || !strcmp(kind, "deleted") || !strcmp(kind, "recreated"))
			cJSON_AddItemToArray(out, cJSON_CreateString(rec->string));
	}
	cJSON_Delete(scan);
	return out;
}

int hook_brief(char **out, gs_store *st, const char *id, int max_retries)
{
	struct report_ctx ctx = { 0 };
	struct store_tip tip = { 0 };
	cJSON *state = NULL, *changed = NULL;
	char *ref = engine_refname(id), *active = NULL;
	int error;

	*out = NULL;
	if ((error = engine_load_view(&state, &tip, ctx.before, st, ref)) < 0 ||
	    (error = store_active(&active, st)) < 0 || (error = store_now(&ctx.now, st)) < 0 ||
	    (error = store_config_int(&ctx.stale_after, st, "session.staleAfter", REPORT_STALE_AFTER)) < 0)
		goto cleanup;
	ctx.checkpoint = tip.commit;
	ctx.active = active && !strcmp(active, id);
	ctx.max_retries = max_retries;
	changed = changed_files(st, state);
	*out = report_brief(state, &ctx, changed, REPORT_BRIEF_TOKENS);
cleanup:
	cJSON_Delete(state);
	cJSON_Delete(changed);
	store_tip_clear(&tip);
	free(ref);
	free(active);
	return error;
}

/* Whether the agent gets the session's brief: its CLI takes one, and session.agentBrief is not false. */
static int brief_wanted(int *on, struct hook_run *r)
{
	*on = 0;
	if (!r->session || !r->d->context_out)
		return 0;
	return store_config_bool(on, r->c->st, "session.agentBrief", 1);
}

/*
 * The session's brief on stdout, in the agent's channel for added
 * context: the one thing a hook prints there, and only whole, when all
 * went well.
 */
static int print_brief(struct hook_run *r)
{
	char *text = NULL, *out;
	int on, error;

	if ((error = brief_wanted(&on, r)) < 0 || !on ||
	    (error = hook_brief(&text, r->c->st, r->session, r->c->eng.lim.max_retries)) < 0)
		return error;
	out = r->d->context_out(r->event, text);
	if (fputs(out, stdout) == EOF || putchar('\n') == EOF || fflush(stdout) == EOF)
		error = gs_error("cannot print the session's brief: %s", strerror(errno));
	free(text);
	free(out);
	return error;
}

static char *brief_key(const char *agent_session)
{
	return xstrfmt("brief.%s", agent_session);
}

int hook_brief_at_start(struct hook_run *r)
{
	char *key;
	int on, error;

	if (!(r->d->flags & AGENT_BRIEF_AT_PROMPT))
		return print_brief(r);
	/* for the next prompt of this session of the agent */
	if ((error = brief_wanted(&on, r)) < 0 || !on || !*r->ev.session)
		return error;
	key = brief_key(r->ev.session);
	error = store_agent_link(r->c->st, key, "1");
	free(key);
	return error;
}

/* The brief a start left for this prompt (AGENT_BRIEF_AT_PROMPT), given once. */
int hook_brief_at_prompt(struct hook_run *r)
{
	char *key = brief_key(r->ev.session), *pending = NULL;
	int error;

	if ((error = store_agent_linked(&pending, r->c->st, key)) == 0 && pending && *pending &&
	    (error = store_agent_link(r->c->st, key, "")) == 0)
		error = print_brief(r);
	free(pending);
	free(key);
	return error;
}

/* The last compaction summary of text (lines holding the dialect's summary_mark), NULL when none. */
static char *last_summary(const struct agent_dialect *d, const char *text, size_t len)
{
	struct transcript t;
	char *found = NULL;

	transcript_init(&t, d);
	transcript_read(&t, text, len);
	for (size_t i = t.n; i-- > 0 && !found;) {
		const char *line = text, *end = text + len, *nl = NULL;
		size_t n = t.items[i].line;

		if (t.items[i].kind != TI_SUMMARY)
			continue;
		while (n-- > 1 && (nl = memchr(line, '\n', (size_t)(end - line))))
			line = nl + 1;
		nl = memchr(line, '\n', (size_t)(end - line));
		/* not a title the CLI keeps for its list of sessions */
		if (memmem(line, nl ? (size_t)(nl - line) : (size_t)(end - line), d->summary_mark, strlen(d->summary_mark))) {
			char *own = d->summary_of ? d->summary_of(t.items[i].text) : NULL;

			found = hook_clip(own ? own : t.items[i].text, REPORT_SUMMARY_MAX);
			free(own);
		}
	}
	transcript_clear(&t);
	return found;
}

/*
 * The summary the agent made when it compacted, kept as the session's
 * context summary (OP_SUMMARY, as `git session summary` writes it): the
 * last one in bytes [from, to) of its transcript at path (to -1: its
 * end; at most SUMMARY_SCAN_MAX of them, the last), when it is not the
 * session's already. Its CLI writes it after the compaction: at the
 * start that follows, or in the next turn.
 */
int hook_keep_summary(struct hook_run *r, const char *path, double from, double to)
{
	static const char *const keys[] = { "session_id", "context_summary" };
	struct store_tip tip = { 0 };
	char *text = NULL, *summary = NULL, *ref = NULL, *now[2] = { NULL, NULL };
	struct state_op *op;
	struct stat sb;
	ssize_t got;
	size_t want;
	int fd = -1, error = 0;

	if (!r->session || !r->d->summary_mark || !path)
		return 0;
	hook_open_transcript(&fd, r, path);
	if (fd < 0 || fstat(fd, &sb) < 0)
		goto cleanup;
	if (to < 0 || to > (double)sb.st_size)
		to = (double)sb.st_size;
	if (to - from > SUMMARY_SCAN_MAX)
		from = to - SUMMARY_SCAN_MAX;
	if (from < 0 || to <= from)
		goto cleanup;
	want = (size_t)(to - from);
	text = xmalloc(want + 1);
	if ((got = pread(fd, text, want, (off_t)from)) < 0) {
		error = gs_error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	text[got] = '\0';
	if (!memmem(text, (size_t)got, r->d->summary_mark, strlen(r->d->summary_mark)) ||
	    !(summary = last_summary(r->d, text, (size_t)got)) || !*summary)
		goto cleanup;
	ref = engine_refname(r->session);
	if ((error = engine_peek(now, &tip, r->c->st, ref, NULL, keys, 2)) < 0 || (now[1] && !strcmp(now[1], summary)))
		goto cleanup;
	op = op_new(OP_SUMMARY, NULL);
	json_set_str(op_args(op), "text", summary);
	error = hook_write_op(r, op);
cleanup:
	if (fd >= 0)
		close(fd);
	store_tip_clear(&tip);
	free(now[0]);
	free(now[1]);
	free(ref);
	free(text);
	free(summary);
	return error;
}
