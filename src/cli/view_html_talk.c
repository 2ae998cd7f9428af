/*
 * view_html_talk.c - the page's conversations, as `transcript` shows
 * them. Per agent, turn by turn, from the same transcripts read by the
 * same code, paths shown from the work tree as it shows them; each tool
 * call folded with its result, long texts folded and cut. Command layer.
 */
#include "git-session/view_html.h"
#include "git-session/agent.h"
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/state.h"
#include "git-session/util.h"
#include "transcript-internal.h"

#include <stdlib.h>
#include <string.h>

#define TEXT_SHOWN (16u << 10)	/* of a prompt, reply or summary */
#define RESULT_SHOWN (8u << 10)	/* of a tool's result */
#define FOLD_BYTES 1200		/* longer than that, or FOLD_LINES lines: folded */
#define FOLD_LINES 16
#define RESULTS_SHOWN (512u << 10)	/* of all the tools' results of a page: past it, each says only its size */

/* What the conversation's parts share: the work tree, and what is left of the results' room. */
struct talk_ctx {
	const char *top;
	size_t room;
	const struct agent_dialect *d;	/* of the transcript being drawn */
};

/* s escaped, cut at max bytes with a note saying how much was left out. */
static void cut_text(struct sbuf *out, const char *s, size_t max)
{
	size_t len = strlen(s), n = len > max ? gs_utf8_cut(s, max) : len;

	view_html_escape(out, s, n);
	if (n < len)
		sbuf_addf(out, "\n<span class=\"dim\">[%zu bytes more not shown: 'git session transcript --raw' "
			  "shows them]</span>", len - n);
}

static size_t count_lines(const char *s)
{
	size_t n = 1;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The first line of s, at most 120 bytes, escaped; "…" when there is more. */
static void first_line(struct sbuf *out, const char *s)
{
	size_t n = strcspn(s, "\n"), cut = n > 120 ? gs_utf8_cut(s, 120) : n;

	view_html_escape(out, s, cut);
	if (s[cut])
		sbuf_adds(out, "…");
}

/* <div class="turn cls">text</div>, a long text folded under its first line. */
static void turn_text(struct sbuf *out, const char *cls, const char *s)
{
	sbuf_addf(out, "<div class=\"turn %s\">", cls);
	if (strlen(s) > FOLD_BYTES || count_lines(s) > FOLD_LINES) {
		sbuf_adds(out, "<details><summary>");
		first_line(out, s);
		sbuf_adds(out, "</summary>");
		cut_text(out, s, TEXT_SHOWN);
		sbuf_adds(out, "</details>");
	} else {
		view_html_escapes(out, s);
	}
	sbuf_adds(out, "</div>\n");
}

static int listed(const char *const *list, const char *name)
{
	for (size_t i = 0; list && name && list[i]; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

/*
 * Whether tool name runs a shell command: as the dialect's hooks name it,
 * or as transcripts do (Codex's payloads say Bash, its transcripts shell).
 */
static int is_shell(const struct agent_dialect *d, const char *name)
{
	static const char *const shells[] = { "Bash", "bash", "run_shell_command", "shell", "exec_command",
					      "local_shell", NULL };

	return listed(shells, name) || listed(d ? d->shell_tools : NULL, name);
}

/* The result of the tool call at i: the first result after it in its turn, of its name, not taken yet. */
static const struct transcript_item *result_of(const struct transcript *t, size_t i, unsigned char *taken)
{
	for (size_t k = i + 1; k < t->n && t->items[k].turn == t->items[i].turn; k++) {
		const struct transcript_item *r = &t->items[k];

		if (r->kind != TI_RESULT || taken[k])
			continue;
		if (r->name && t->items[i].name && strcmp(r->name, t->items[i].name))
			continue;
		taken[k] = 1;
		return r;
	}
	return NULL;
}

static void result_body(struct sbuf *out, const struct transcript_item *r, struct talk_ctx *ctx)
{
	char *text;
	size_t len, max;

	if (!ctx->room) {
		sbuf_addf(out, "<p class=\"dim\">[%zu bytes not shown, to keep the page small: 'git session transcript "
			  "--raw' shows them]</p>", r->bytes);
		return;
	}
	text = out_paths_from(r->body ? r->body : r->text, ctx->top);
	len = strlen(text);
	max = ctx->room < RESULT_SHOWN ? ctx->room : RESULT_SHOWN;
	ctx->room -= len < max ? len : max;
	sbuf_adds(out, "<pre class=\"result\">");
	cut_text(out, text, max);
	sbuf_adds(out, "</pre>");
	free(text);
}

/* A tool call (tool, or NULL for a result with no call) folded with its result. */
static void tool(struct sbuf *out, const struct transcript_item *tool, const struct transcript_item *res,
		 struct talk_ctx *ctx)
{
	const char *name = tool ? tool->name : res->name;
	char *args = tool ? out_paths_from(tool->text, ctx->top) : NULL;

	sbuf_addf(out, "<details class=\"tool%s\"", is_shell(ctx->d, name) ? " shell" : "");
	if (res && res->exit >= 0)
		sbuf_addf(out, " data-exit=\"%d\"", res->exit);
	else if (res && !res->error && is_shell(ctx->d, name))	/* a command that did not fail, its status not said */
		sbuf_adds(out, " data-exit=\"0\"");
	if (res && res->error)
		sbuf_adds(out, " data-error=\"1\"");
	sbuf_adds(out, "><summary>");
	view_html_escapes(out, name ? name : "?");
	if (args && *args) {
		sbuf_adds(out, ": ");
		first_line(out, args);
	}
	if (res) {
		sbuf_addf(out, " <span class=\"dim\">%s", res->error ? "✗" : "✓");
		if (res->error && res->exit >= 0)
			sbuf_addf(out, " exit %d", res->exit);
		if (res->lines > 1)
			sbuf_addf(out, " · %zu lines", res->lines);
		sbuf_adds(out, "</span>");
	}
	sbuf_adds(out, "</summary>");
	if (args && *args) {
		sbuf_adds(out, "<pre class=\"input\">");
		cut_text(out, args, RESULT_SHOWN);
		sbuf_adds(out, "</pre>");
	}
	if (res)
		result_body(out, res, ctx);
	sbuf_adds(out, "</details>\n");
	free(args);
}

static void usage(struct sbuf *out, const double u[3])
{
	if (!u[0] && !u[1] && !u[2])
		return;
	sbuf_addf(out, "<p class=\"dim usage\">tokens: %.0f in, %.0f out", u[0], u[1]);
	if (u[2])
		sbuf_addf(out, ", %.0f cached", u[2]);
	sbuf_adds(out, "</p>\n");
}

static void item(struct sbuf *out, const struct transcript *t, size_t i, unsigned char *taken, struct talk_ctx *ctx)
{
	const struct transcript_item *it = &t->items[i];

	switch (it->kind) {
	case TI_PROMPT:	/* never folded: what was asked is read first */
		sbuf_adds(out, "<div class=\"turn prompt\">");
		cut_text(out, it->text, TEXT_SHOWN);
		sbuf_adds(out, "</div>\n");
		break;
	case TI_REPLY:
		turn_text(out, "reply", it->text);
		break;
	case TI_THINKING:
	case TI_SUMMARY:
		sbuf_addf(out, "<details class=\"%s\"><summary>%s</summary><pre>", it->kind == TI_SUMMARY ? "summary" :
			  "thinking", it->kind == TI_SUMMARY ? "summary of the conversation so far" : "thinking");
		cut_text(out, it->text, TEXT_SHOWN);
		sbuf_adds(out, "</pre></details>\n");
		break;
	case TI_TOOL:
		tool(out, it, result_of(t, i, taken), ctx);
		break;
	case TI_RESULT:
		if (!taken[i])
			tool(out, NULL, it, ctx);
		break;
	case TI_EVENT:
		turn_text(out, it->error ? "note error" : "note", it->text);
		break;
	case TI_USAGE:
	case TI_UNREAD:
		break;
	}
}

/* agent's conversation t, turn by turn, each ending with its tokens. */
static void talk(struct sbuf *out, const char *agent, const struct transcript *t, struct talk_ctx *ctx)
{
	unsigned char *taken = xcalloc(t->n + 1, 1);

	ctx->d = t->d;
	double u[3] = { 0, 0, 0 };
	int shown = -1;

	for (size_t i = 0; i < t->n; i++) {
		const struct transcript_item *it = &t->items[i];

		if (it->turn != shown) {
			if (shown >= 0)
				usage(out, u);
			sbuf_addf(out, "<h4 id=\"turn-%d-", it->turn);	/* no other id starts so: none the same */
			view_html_anchor(out, "agent-", agent);
			sbuf_addf(out, "\">%s %d</h4>\n", it->turn ? "turn" : "before turn", it->turn ? it->turn : 1);
			shown = it->turn;
			u[0] = u[1] = u[2] = 0;
		}
		if (it->kind == TI_USAGE) {
			u[0] += it->input;
			u[1] += it->output;
			u[2] += it->cached;
		}
		item(out, t, i, taken, ctx);
	}
	if (shown >= 0)
		usage(out, u);
	free(taken);
}

/* What the state says of the agent: what it is, who ran it, its task, how it stands. */
static void facts(struct sbuf *out, const cJSON *a)
{
	static const char *const keys[][2] = {
		{ "cli", "cli" }, { "type", "type" }, { "by", "run by" }, { "parent", "sub-agent of" },
		{ "status", "status" }, { "started", "started" }, { "completed", "completed" },
	};
	const cJSON *tokens = cJSON_GetObjectItemCaseSensitive(a, "tokens");
	const cJSON *commands = cJSON_GetObjectItemCaseSensitive(a, "commands");
	int n = 0;

	if (!a)
		return;
	sbuf_adds(out, "<p class=\"dim\">");
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!json_str(a, keys[i][0]))
			continue;
		sbuf_addf(out, "%s%s ", n++ ? ", " : "", keys[i][1]);
		view_html_escapes(out, json_str(a, keys[i][0]));
	}
	if (cJSON_IsObject(tokens))
		sbuf_addf(out, "%stokens %.0f in, %.0f out", n++ ? ", " : "", json_num(tokens, "input", 0),
			  json_num(tokens, "output", 0));
	if (cJSON_IsObject(commands))
		sbuf_addf(out, "%s%.0f commands run, %.0f failed", n++ ? ", " : "", json_num(commands, "run", 0),
			  json_num(commands, "failed", 0));
	sbuf_adds(out, "</p>\n");
	if (json_str(a, "task") && !json_str(a, "session"))	/* an attached agent's task is its CLI's name */
		turn_text(out, "note", json_str(a, "task"));
	if (json_str(a, "result_summary"))
		turn_text(out, "note", json_str(a, "result_summary"));
}

/*
 * The article of agent id. A later entry of the same id (a file that
 * says it twice) has no anchor and no transcript: the first has them.
 */
static void article(struct sbuf *out, const char *id, const cJSON *a, const struct agent_talk *tk, int again,
		    struct talk_ctx *ctx)
{
	sbuf_adds(out, "<article class=\"agent\"");
	if (!again) {
		sbuf_adds(out, " id=\"");
		view_html_anchor(out, "agent-", id);
		sbuf_adds(out, "\"");
	}
	sbuf_adds(out, ">\n<h3>");
	view_html_escapes(out, id);
	sbuf_adds(out, "</h3>\n");
	facts(out, a);
	if (again)
		sbuf_adds(out, "<p class=\"dim\">listed twice: its transcript is shown with its first entry</p>\n");
	else if (tk && tk->t.n)
		talk(out, id, &tk->t, ctx);
	else
		sbuf_adds(out, "<p class=\"empty\">no transcript kept</p>\n");
	if (!again && tk && tk->t.skipped)
		sbuf_addf(out, "<p class=\"dim\">%zu line%s of the transcript did not read as JSON and %s not shown; "
			  "'git session transcript --raw' shows the stored bytes</p>\n", tk->t.skipped,
			  tk->t.skipped == 1 ? "" : "s", tk->t.skipped == 1 ? "is" : "are");
	sbuf_adds(out, "</article>\n");
}

static const struct agent_talk *talk_of(const struct talks *ts, const char *id)
{
	for (size_t i = 0; ts && id && i < ts->n; i++)
		if (!strcmp(ts->v[i].id, id))
			return &ts->v[i];
	return NULL;
}

void view_html_conversation(struct sbuf *out, const struct view_html_page *p)
{
	const cJSON *agents = cJSON_GetObjectItemCaseSensitive(p->state, "agents"), *a;
	struct talk_ctx ctx = { p->top, RESULTS_SHOWN };
	int n = 0;

	cJSON_ArrayForEach(a, agents)
		if (json_str(a, "id")) {
			article(out, json_str(a, "id"), a, talk_of(p->talks, json_str(a, "id")),
				state_agent(p->state, json_str(a, "id")) != a, &ctx);
			n++;
		}
	for (size_t i = 0; p->talks && i < p->talks->n; i++)	/* a transcript of an agent the state no longer lists */
		if (!state_agent(p->state, p->talks->v[i].id)) {
			article(out, p->talks->v[i].id, NULL, &p->talks->v[i], 0, &ctx);
			n++;
		}
	if (!n)
		sbuf_adds(out, "<p class=\"empty\">none</p>\n");
}
