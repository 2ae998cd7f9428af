/*
 * view_status.c - `status` drawn for a person: the header, unresolved
 * errors, phases with their agents, tokens, decisions and the next
 * thing to do. resume draws its report with the same parts.
 */
#include "git-session/json.h"
#include "git-session/output.h"
#include "git-session/util.h"
#include "git-session/view.h"

#include <stdlib.h>
#include <string.h>

/* "Remote    origin: 2 checkpoints not pushed, 1 not pulled (as of the last fetch)" */
static void view_remote(struct view *v, const cJSON *remote)
{
	int ahead = (int)json_num(remote, "ahead", 0), behind = (int)json_num(remote, "behind", 0);

	if (!json_str(remote, "name"))
		return;
	sbuf_adds(&v->out, "Remote    ");
	view_text(v, json_str(remote, "name"));
	if (!json_bool(remote, "pushed", 1))
		sbuf_adds(&v->out, ": not there as of the last fetch (git session push sends it)\n");
	else if (!ahead && !behind)
		sbuf_adds(&v->out, ": up to date, as of the last fetch\n");
	else if (!behind)
		sbuf_addf(&v->out, ": %d checkpoint%s not pushed\n", ahead, ahead == 1 ? "" : "s");
	else
		sbuf_addf(&v->out, ": %d checkpoint%s not pushed, %d on the remote not pulled, as of the last fetch\n",
			  ahead, ahead == 1 ? "" : "s", behind);
}

void view_header(struct view *v, const cJSON *r, time_t now)
{
	const cJSON *prog = cJSON_GetObjectItemCaseSensitive(r, "progress");
	const char *status = json_str(r, "status");
	time_t t;

	sbuf_addf(&v->out, "%sSession %s%s  ", view_c(v, C_BOLD), json_str(r, "session_id"), view_c(v, C_RESET));
	view_mark(v, status);
	sbuf_addch(&v->out, ' ');
	view_status_word(&v->out, status);
	sbuf_adds(&v->out, json_bool(r, "active", 0) ? " (active here)\n" : "\n");
	if (json_str(r, "topic")) {
		sbuf_adds(&v->out, "Topic     ");
		view_text(v, json_str(r, "topic"));
		sbuf_addch(&v->out, '\n');
	}
	if (json_str(r, "goal")) {
		sbuf_adds(&v->out, "Goal      ");
		view_text(v, json_str(r, "goal"));
		sbuf_addch(&v->out, '\n');
	}
	sbuf_adds(&v->out, "Started   ");
	if (gs_time_parse_iso(&t, json_str(r, "created") ? json_str(r, "created") : "") == 0)
		out_relative_time(&v->out, t, now);
	sbuf_adds(&v->out, ", last checkpoint ");
	if (gs_time_parse_iso(&t, json_str(r, "updated") ? json_str(r, "updated") : "") == 0)
		out_relative_time(&v->out, t, now);
	sbuf_addf(&v->out, " (%.7s)\n", json_str(r, "checkpoint"));
	if (json_num(prog, "phases", 0)) {
		sbuf_adds(&v->out, "Progress  ");
		view_bar(v, (int)json_num(prog, "percent", 0), 20);
		sbuf_addf(&v->out, " %d/%d phases done, %d%%",
			  (int)(json_num(prog, "completed", 0) + json_num(prog, "skipped", 0)),
			  (int)json_num(prog, "phases", 0), (int)json_num(prog, "percent", 0));
		if (json_num(prog, "failed", 0))
			sbuf_addf(&v->out, ", %s%d failed%s", view_c(v, C_RED), (int)json_num(prog, "failed", 0),
				  view_c(v, C_RESET));
		sbuf_addch(&v->out, '\n');
	}
	view_remote(v, cJSON_GetObjectItemCaseSensitive(r, "remote"));
}


void view_errors(struct view *v, const cJSON *r)
{
	const cJSON *errors = cJSON_GetObjectItemCaseSensitive(r, "unresolved_errors"), *e;

	if (!cJSON_GetArraySize(errors))
		return;
	view_section(v, "Unresolved errors");
	cJSON_ArrayForEach(e, errors) {
		sbuf_adds(&v->out, "  ");
		view_mark(v, ST_FAILED);
		sbuf_addf(&v->out, " #%d %s", (int)json_num(e, "number", 0), json_str(e, "type"));
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "phase")))
			sbuf_addf(&v->out, ", phase %d", (int)json_num(e, "phase", 0));
		if (json_str(e, "agent")) {
			sbuf_adds(&v->out, ", agent ");
			view_text(v, json_str(e, "agent"));
		}
		sbuf_adds(&v->out, ": ");
		view_text(v, json_str(e, "message"));
		sbuf_addch(&v->out, '\n');
	}
}

void view_stale(struct view *v, const cJSON *e)
{
	if (json_bool(e, "stale", 0))
		sbuf_addf(&v->out, " %s(stale: no operation since %s)%s", view_c(v, C_YELLOW),
			  json_str(e, "seen") ? json_str(e, "seen") : "its start", view_c(v, C_RESET));
}

void view_phase_label(struct view *v, const cJSON *p)
{
	const char *key = json_str(p, "key");
	char *label;

	if (!key) {
		sbuf_addf(&v->out, " %d ", (int)json_num(p, "id", 0));
		return;
	}
	label = xstrdup(key);
	if (strspn(label, "0123456789_") == strlen(label))	/* a step numbered 3_5 reads 3.5 */
		for (char *c = strchr(label, '_'); c; c = strchr(c, '_'))
			*c = '.';
	sbuf_adds(&v->out, " ");
	view_text(v, label);
	sbuf_adds(&v->out, " ");
	free(label);
}

void view_phase(struct view *v, const cJSON *p, int max_retries)
{
	const cJSON *a, *b;
	int first = 1;

	sbuf_adds(&v->out, "  ");
	view_mark(v, json_str(p, "status"));
	view_phase_label(v, p);
	if (json_str(p, "name") && *json_str(p, "name")) {	/* a source may leave phases unnamed */
		view_text(v, json_str(p, "name"));
		sbuf_adds(&v->out, " ");
	}
	sbuf_adds(&v->out, " ");
	sbuf_addf(&v->out, "%s", view_c(v, C_DIM));
	view_status_word(&v->out, json_str(p, "status"));
	if (json_num(p, "retry_count", 0))
		sbuf_addf(&v->out, ", retry %d of %d", (int)json_num(p, "retry_count", 0), max_retries);
	if (json_bool(p, "parallel", 0))
		sbuf_adds(&v->out, ", parallel");
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(p, "blocked_by"))
		sbuf_addf(&v->out, "%s%d", first ? ", after phase " : ", ", (int)b->valuedouble), first = 0;
	if (json_str(p, "sub_step")) {
		sbuf_adds(&v->out, ", at ");
		view_text(v, json_str(p, "sub_step"));
	}
	sbuf_adds(&v->out, view_c(v, C_RESET));
	view_stale(v, p);
	sbuf_addch(&v->out, '\n');
	first = 1;
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(p, "agents")) {
		sbuf_adds(&v->out, first ? "      " : "  ");
		first = 0;
		view_mark(v, json_str(a, "status"));
		sbuf_addch(&v->out, ' ');
		view_text(v, json_str(a, "id"));
		if (json_str(a, "status") && !strcmp(json_str(a, "status"), ST_IN_PROGRESS))
			sbuf_addf(&v->out, " %d%%", (int)json_num(a, "progress", 0));
		view_stale(v, a);
	}
	if (!first)
		sbuf_addch(&v->out, '\n');
}

/* The note is an agent's prompt its hooks wrote, which the agent's own lines show. */
static int prompt_shown(const cJSON *r, const cJSON *note)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(r, "agents"))
		if (json_str(note, "agent") && json_str(a, "id") && !strcmp(json_str(note, "agent"), json_str(a, "id")))
			return json_str(a, "last_prompt") && json_str(note, "text") &&
			       !strcmp(json_str(a, "last_prompt"), json_str(note, "text")) && view_is_agent_session(r);
	return 0;
}

void view_decisions_summary(struct view *v, const cJSON *r)
{
	const cJSON *p, *notes;
	const cJSON *decisions = cJSON_GetObjectItemCaseSensitive(r, "recent_decisions");
	int n;

	cJSON_ArrayForEach(p, decisions) {
		view_say(v, p == decisions->child ? "Decided   " : "          ", json_str(p, "decision"), "");
		if (json_str(p, "rationale"))
			view_say(v, v->utf8 ? " \u2014 " : " -- ", json_str(p, "rationale"), "");
		sbuf_addch(&v->out, '\n');
	}
	notes = cJSON_GetObjectItemCaseSensitive(r, "recent_notes");
	n = (int)json_num(cJSON_GetObjectItemCaseSensitive(r, "counts"), "notes", 0);
	if (n && cJSON_GetArraySize(notes) && !prompt_shown(r, cJSON_GetArrayItem(notes, cJSON_GetArraySize(notes) - 1))) {
		view_say(v, "Noted     ", json_str(cJSON_GetArrayItem(notes, cJSON_GetArraySize(notes) - 1), "text"), "");
		sbuf_addf(&v->out, n > 1 ? " (the latest of %d notes)\n" : "\n", n);
	}
	if (json_str(r, "context_summary"))
		view_say(v, "Summary   ", json_str(r, "context_summary"), "\n");
}

int view_is_agent_session(const cJSON *r)
{
	return !cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "phases")) &&
	       cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "agents"));
}

/* label, then the text in line, cut to the width: one line of an agent's card. */
static void view_fact(struct view *v, int indent, const char *label, struct sbuf *line)
{
	int room = v->width - indent - 10;

	sbuf_addf(&v->out, "%*s%-10s", indent, "", label);
	out_line_cut(&v->out, line->buf ? line->buf : "", room > 10 ? (size_t)room : 10, v->utf8 ? "\u2026" : "...");
	sbuf_addch(&v->out, '\n');
	sbuf_reset(line);
}

/* "3: a, b, c and 2 more": a count and the paths a report names of them. */
static void view_paths(struct sbuf *sb, const cJSON *files, const char *what)
{
	const cJSON *p;
	int n = (int)json_num(files, "count", 0), shown = 0;

	sbuf_addf(sb, "%d%s", n, what);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(files, "paths"))
		if (cJSON_IsString(p))
			sbuf_addf(sb, "%s%s", shown++ ? ", " : ": ", p->valuestring);
	if (shown && n > shown)
		sbuf_addf(sb, " and %d more", n - shown);
}

/* The shell commands an agent ran: how many, how many failed, the last that failed. */
static void view_commands(struct sbuf *sb, const cJSON *c)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "last_failed");
	const cJSON *exit = cJSON_GetObjectItemCaseSensitive(f, "exit");

	sbuf_addf(sb, "%.0f run, %.0f failed", json_num(c, "run", 0), json_num(c, "failed", 0));
	if (!json_str(f, "command"))
		return;
	if (cJSON_IsNumber(exit))
		sbuf_addf(sb, "; exit %.0f: ", exit->valuedouble);
	else
		sbuf_adds(sb, "; failed: ");
	sbuf_adds(sb, json_str(f, "command"));
}

/* An agent's first line: its id, what it is (its CLI, or its type), who ran it, how it stands. */
static void view_agent_head(struct view *v, const cJSON *a, int indent)
{
	const char *cli = json_str(a, "cli"), *type = json_str(a, "type"), *task = json_str(a, "task");
	const char *status = json_str(a, "status");
	/* a sub-agent runs in its parent's CLI: its type says more */
	const char *what = json_str(a, "parent") && type ? type : cli ? cli : type;

	sbuf_addf(&v->out, "%*s", indent, "");
	view_mark(v, status);
	view_say(v, " ", json_str(a, "id"), "");
	if (!cli && status && !strcmp(status, ST_IN_PROGRESS))
		sbuf_addf(&v->out, " %d%%", (int)json_num(a, "progress", 0));	/* what an orchestrator reports */
	if (task && strcmp(task, cli ? cli : "") && strcmp(task, type ? type : ""))
		view_say(v, ": ", task, "");	/* a hook's agent has its CLI for a task */
	sbuf_adds(&v->out, view_c(v, C_DIM));
	if (what)
		view_say(v, "  ", what, json_str(a, "parent") ? " sub-agent" : "");
	if (json_str(a, "by"))
		view_say(v, what ? ", run by " : "  run by ", json_str(a, "by"), "");
	if (status && strcmp(status, ST_IN_PROGRESS)) {
		sbuf_adds(&v->out, ", ");
		view_status_word(&v->out, status);
	}
	sbuf_adds(&v->out, view_c(v, C_RESET));
	view_stale(v, a);
	sbuf_addch(&v->out, '\n');
}

/* "73.8k (70k in, 3.8k out)" */
static void view_agent_tokens(struct sbuf *sb, const cJSON *t)
{
	out_human_count(sb, json_num(t, "input", 0) + json_num(t, "output", 0));
	sbuf_adds(sb, " (");
	out_human_count(sb, json_num(t, "input", 0));
	sbuf_adds(sb, " in, ");
	out_human_count(sb, json_num(t, "output", 0));
	sbuf_adds(sb, " out)");
}

/* One agent: its head line, then a line for each thing it did that the report knows. */
static void view_agent_card(struct view *v, const cJSON *a, int depth)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "tokens");
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(a, "files");
	const cJSON *cmds = cJSON_GetObjectItemCaseSensitive(a, "commands");
	const char *prompt = json_str(a, "last_prompt"), *reply = json_str(a, "last_reply");
	int indent = 2 + 4 * depth + 4, prompts = (int)json_num(a, "prompts", 0);
	struct sbuf line = SBUF_INIT;

	view_agent_head(v, a, indent - 4);
	if (prompts > 0 || prompt) {
		if (prompts > 0)
			sbuf_addf(&line, "%d%s", prompts, prompt ? ", the last: " : "");
		if (prompt)
			sbuf_addf(&line, "\"%s\"", prompt);
		view_fact(v, indent, "Prompts", &line);
	}
	if ((reply = reply ? reply : json_str(a, "result_summary"))) {
		sbuf_addf(&line, "\"%s\"", reply);
		view_fact(v, indent, "Replied", &line);
	}
	if (json_num(files, "count", 0) > 0) {
		view_paths(&line, files, "");
		view_fact(v, indent, "Files", &line);
	}
	if (json_num(cmds, "run", 0) > 0) {
		view_commands(&line, cmds);
		view_fact(v, indent, "Commands", &line);
	}
	if (json_num(t, "input", 0) + json_num(t, "output", 0) > 0) {
		view_agent_tokens(&line, t);
		view_fact(v, indent, "Tokens", &line);
	}
	sbuf_release(&line);
}

#define VIEW_AGENT_DEPTH 4	/* sub-agents of sub-agents...: drawn no deeper */

/* a, then the agents whose parent it is, under it; each drawn once (parents may loop). */
static void view_agent_tree(struct view *v, const cJSON *agents, const cJSON *a, char *drawn, int depth)
{
	const cJSON *b;
	const char *id = json_str(a, "id");
	int i = 0;

	view_agent_card(v, a, depth);
	cJSON_ArrayForEach(b, agents) {
		const char *parent = json_str(b, "parent");

		if (!drawn[i] && id && parent && !strcmp(parent, id) && depth + 1 < VIEW_AGENT_DEPTH) {
			drawn[i] = 1;
			view_agent_tree(v, agents, b, drawn, depth + 1);
		}
		i++;
	}
}

/* Whether a names a parent among agents. */
static int has_parent(const cJSON *agents, const cJSON *a)
{
	const cJSON *b;
	const char *parent = json_str(a, "parent");

	cJSON_ArrayForEach(b, agents)
		if (parent && b != a && json_str(b, "id") && !strcmp(json_str(b, "id"), parent))
			return 1;
	return 0;
}

void view_agent_session(struct view *v, const cJSON *r)
{
	const cJSON *agents = cJSON_GetObjectItemCaseSensitive(r, "agents"), *a;
	const cJSON *commits = cJSON_GetObjectItemCaseSensitive(r, "recent_commits");
	const cJSON *c = cJSON_GetArrayItem(commits, cJSON_GetArraySize(commits) - 1);
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(r, "files_touched");
	char *drawn = xcalloc((size_t)cJSON_GetArraySize(agents) + 1, 1);
	struct sbuf line = SBUF_INIT;
	int i, pass, n = (int)json_num(cJSON_GetObjectItemCaseSensitive(r, "counts"), "commits", 0);

	view_section(v, "Agents");
	/* those with no parent here first, each with its own; then any a loop of parents hid */
	for (pass = 0; pass < 2; pass++) {
		i = 0;
		cJSON_ArrayForEach(a, agents) {
			if (!drawn[i] && (pass || !has_parent(agents, a))) {
				drawn[i] = 1;
				view_agent_tree(v, agents, a, drawn, 0);
			}
			i++;
		}
	}
	free(drawn);
	sbuf_addch(&v->out, '\n');
	if (json_num(files, "count", 0) > 0) {
		view_paths(&line, files, " touched");
		view_fact(v, 0, "Files", &line);
	}
	if (n > 0 && json_str(c, "id")) {
		sbuf_addf(&line, "%d, the latest: %.7s %s", n, json_str(c, "id"), json_str(c, "subject") ? json_str(c, "subject") : "");
		view_fact(v, 0, "Commits", &line);
	}
	if (json_num(files, "count", 0) > 0 || n > 0)
		sbuf_addch(&v->out, '\n');
	sbuf_release(&line);
}

void view_next(struct view *v, const cJSON *r)
{
	const cJSON *next = cJSON_GetObjectItemCaseSensitive(r, "next");

	sbuf_addf(&v->out, "\n%sNext:%s ", view_c(v, C_BOLD), view_c(v, C_RESET));
	view_text(v, json_str(next, "text"));
	if (json_str(next, "command"))
		sbuf_addf(&v->out, "\n      %s", json_str(next, "command"));
	sbuf_addch(&v->out, '\n');
}

void view_status(struct view *v, const cJSON *r, time_t now, int max_retries)
{
	const cJSON *p;

	view_header(v, r, now);
	view_errors(v, r);
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "phases")))
		view_section(v, "Phases");
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(r, "phases"))
		view_phase(v, p, max_retries);
	if (view_is_agent_session(r))
		view_agent_session(v, r);
	else
		sbuf_addch(&v->out, '\n');
	view_tokens_line(v, cJSON_GetObjectItemCaseSensitive(r, "tokens"));
	view_decisions_summary(v, r);
	view_next(v, r);
}
