/*
 * cmd_mcp.c - `git session mcp`: a Model Context Protocol server on
 * standard input and output. Each tool call runs the command line the
 * tool stands for (mcp_tools.c) in this process, so an agent here and a
 * person at the shell share one code path: what it prints is captured,
 * its messages (errors, warnings, usage) collected as text, and what it
 * wrote comes back as a struct cmd_result. Sessions are resources; a
 * subscribed one is watched for new checkpoints. A session's brief, what
 * an agent gets at its start, is a prompt and a resource.
 */
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/mcp.h"
#include "git-session/opts.h"
#include "git-session/state.h"
#include "git-session/util.h"
#include "hook-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ACTIVE_URI "git-session://active"
#define SESSION_URI "git-session://sessions/"
#define BRIEF_SUFFIX "/brief"	/* of a session's resource: its brief, as text */
#define WATCH_MS 200	/* how often subscribed sessions are looked at */

struct watch {
	char *uri;
	char *seen;	/* "<id> <tip>" when last looked at */
};

struct server {
	gs_store *st;
	int max_retries;
	int in;			/* the client's messages */
	FILE *out;		/* our messages, and nothing else */
	int log;		/* standard error, where fd 1 goes between calls */
	int initialized;
	int closed;		/* the client stopped reading */
	struct watch *watch;
	size_t nwatch, awatch;
	struct sbuf line;
	int too_long;		/* discarding the rest of a line past MCP_MESSAGE_MAX */
};

static void send_line(struct server *s, char *text)
{
	if (!s->closed && (fputs(text, s->out) == EOF || putc('\n', s->out) == EOF || fflush(s->out) == EOF))
		s->closed = 1;
	free(text);
}

/* What a command printed (fd 1 goes to a file while it runs), said, and wrote. */
struct captured {
	int code;
	char *out;
	char *err;
	struct cmd_result wrote;
};

static char *slurp_file(FILE *f)
{
	struct sbuf sb = SBUF_INIT;
	char buf[8192];
	size_t n;

	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sbuf_add(&sb, buf, n);
	fclose(f);
	return sbuf_detach(&sb, NULL);
}

/* Runs argv, as a command: its messages go to a stream of ours, not to fd 2. */
static void run_with(struct captured *r, const struct command *cmd, const struct strlist *argv, FILE *err)
{
	/* commands rearrange their argv as they parse it: give them a copy */
	const char **copy = xcalloc(argv->n + 1, sizeof(*copy));

	memcpy(copy, argv->v, argv->n * sizeof(*copy));
	cmd_print_errors();	/* the server's own, to its log, before the command's */
	cmd_set_stderr(err);
	r->code = command_run(cmd, (int)argv->n, copy, &r->wrote);
	cmd_set_stderr(NULL);
	free(copy);
}

static void run_captured(struct captured *r, struct server *s, const struct strlist *argv)
{
	const struct command *cmd = command_find(argv->v[0]);
	FILE *out = tmpfile(), *err;
	size_t len;

	memset(r, 0, sizeof(*r));
	if (!cmd || !out || !(err = open_memstream(&r->err, &len))) {
		r->code = 1;
		r->out = xstrdup("");
		free(r->err);
		r->err = xstrfmt("error: cannot run '%s'\n", argv->v[0]);
		if (out)
			fclose(out);
		return;
	}
	fflush(stdout);
	dup2(fileno(out), 1);
	run_with(r, cmd, argv, err);
	fflush(stdout);
	clearerr(stdout);
	dup2(s->log, 1);
	r->out = slurp_file(out);
	fclose(err);
}

static void captured_clear(struct captured *r)
{
	free(r->out);
	free(r->err);
}

static cJSON *text_content(const char *text)
{
	cJSON *content = cJSON_CreateArray(), *t = cJSON_CreateObject();

	json_set_str(t, "type", "text");
	json_set_str(t, "text", text);
	cJSON_AddItemToArray(content, t);
	return content;
}

static cJSON *tool_error(const char *text)
{
	cJSON *r = cJSON_CreateObject();

	json_set(r, "content", text_content(text));
	json_set_bool(r, "isError", 1);
	return r;
}

/*
 * {session, checkpoint, subject, output} after a command that writes:
 * the session and checkpoint it said it wrote, else the active session's
 * latest checkpoint.
 */
static cJSON *change_result(struct server *s, const struct captured *run)
{
	cJSON *r = cJSON_CreateObject();
	const struct cmd_result *w = &run->wrote;
	char *id = NULL, *ref;
	struct store_tip tip = { 0 };
	int error = GS_ERROR;

	if (w->id[0])
		id = xstrdup(w->id);
	else if (store_active(&id, s->st) < 0)
		id = NULL;
	ref = id ? xstrfmt("%s%s", SESSIONS_PREFIX, id) : NULL;
	if (ref && w->commit[0])
		error = store_read_commit(&tip, s->st, w->commit, ref);
	else if (ref)
		error = store_read_ref_want(&tip, s->st, ref, &(struct store_want){ 0 });
	json_set_str(r, "session", id ? id : "");
	json_set_str(r, "checkpoint", error ? "" : tip.commit);
	json_set_str(r, "subject", error ? "" : tip.subject);
	json_set_str(r, "output", run->out);
	store_tip_clear(&tip);
	free(ref);
	free(id);
	return r;
}

static cJSON *call_tool(struct server *s, const struct mcp_tool *t, const cJSON *args)
{
	struct strlist argv = { 0 };
	struct captured run;
	cJSON *r = NULL, *structured = NULL;
	char *err = NULL;

	if (mcp_tool_argv(&argv, t, args, &err) < 0) {
		char *msg = xstrfmt("error: %s", err);

		r = tool_error(msg);
		free(msg);
		free(err);
		mcp_argv_clear(&argv);
		return r;
	}
	run_captured(&run, s, &argv);
	mcp_argv_clear(&argv);
	if (run.code) {
		r = tool_error(*run.err ? run.err : "error: the command failed");
	} else if (t->output == MCP_OUT_CHANGE) {
		structured = change_result(s, &run);
	} else if (json_parse(&structured, run.out, strlen(run.out), MCP_MESSAGE_MAX * 4u, &err) < 0) {
		r = tool_error("error: the command's output is not JSON");
		free(err);
	} else if (t->output == MCP_OUT_LIST) {
		cJSON *wrap = cJSON_CreateObject();

		json_set(wrap, "sessions", structured);
		structured = wrap;
	}
	if (!r) {
		r = cJSON_CreateObject();
		json_set(r, "content", text_content(*run.out ? run.out : "done"));
		json_set(r, "structuredContent", structured);
	}
	captured_clear(&run);
	return r;
}

/* The session id a resource names (the active one for ACTIVE_URI), or NULL. */
static char *uri_session(struct server *s, const char *uri)
{
	char *id = NULL, *err = NULL;

	if (!strcmp(uri, ACTIVE_URI)) {
		if (store_active(&id, s->st) < 0)
			return NULL;
		return id;
	}
	if (strncmp(uri, SESSION_URI, strlen(SESSION_URI)) ||
	    state_valid_id(uri + strlen(SESSION_URI), &err) < 0) {
		free(err);
		return NULL;
	}
	return xstrdup(uri + strlen(SESSION_URI));
}

/* The session id a resource names (the active one for ACTIVE_URI), or NULL; *brief when it is its brief. */
static char *uri_session_brief(struct server *s, const char *uri, int *brief)
{
	size_t n = strlen(uri), k = strlen(BRIEF_SUFFIX);
	char *base, *id;

	*brief = n > k && !strcmp(uri + n - k, BRIEF_SUFFIX);
	if (!*brief)
		return uri_session(s, uri);
	base = xstrndup(uri, n - k);
	id = uri_session(s, base);
	free(base);
	return id;
}

/*
 * Session id's brief (the active session's when id is NULL) in *text;
 * else an error's message in *text, and the error.
 */
static int session_brief(char **text, char **sid, struct server *s, const char *id)
{
	char *err = NULL;
	size_t mark = gs_error_mark();
	int error;

	*text = NULL;
	*sid = NULL;
	if (id && state_valid_id(id, &err) < 0) {
		*text = xstrfmt("invalid session id: %s", err);
		free(err);
		return GS_ERROR;
	}
	if (!id && (store_active(sid, s->st) < 0 || !*sid)) {
		*text = xstrdup("there is no active session in this worktree: name one");
		gs_error_rewind(mark);
		return GS_ERROR;
	}
	if (id)
		*sid = xstrdup(id);
	if ((error = hook_brief(text, s->st, *sid, s->max_retries)) < 0)
		*text = error == GS_ENOTFOUND ? xstrfmt("no session '%s'", *sid)
					      : xstrdup(gs_error_first(mark) ? gs_error_first(mark) : "cannot read it");
	gs_error_rewind(mark);
	return error;
}

/* prompts/get of the session brief: for the session the argument names, else the active one. */
static char *get_prompt(struct server *s, const cJSON *id, const cJSON *params)
{
	const char *name = json_str(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments"), *given;
	char *text, *sid, *reply;

	if (!name || strcmp(name, MCP_BRIEF_PROMPT))
		return mcp_error(id, MCP_INVALID_PARAMS, "unknown prompt");
	given = cJSON_GetObjectItemCaseSensitive(args, "session");
	if (given && !cJSON_IsString(given) && !cJSON_IsNull(given))
		return mcp_error(id, MCP_INVALID_PARAMS, "invalid params: session is a session id");
	if (session_brief(&text, &sid, s, cJSON_IsString(given) && *given->valuestring ? given->valuestring : NULL) < 0)
		reply = mcp_error(id, MCP_INVALID_PARAMS, text);
	else
		reply = mcp_response(id, mcp_prompt_result(sid, text));
	free(text);
	free(sid);
	return reply;
}

/* resources/read of a session's brief, as Markdown. */
static char *read_brief(struct server *s, const cJSON *id, const char *uri, const char *sid)
{
	char *text, *name, *reply;
	cJSON *result, *c;

	if (session_brief(&text, &name, s, sid) < 0) {
		reply = mcp_error(id, MCP_RESOURCE_NOT_FOUND, text);
	} else {
		result = cJSON_CreateObject();
		c = cJSON_CreateObject();
		json_set_str(c, "uri", uri);
		json_set_str(c, "mimeType", "text/markdown");
		json_set_str(c, "text", text);
		cJSON_AddItemToArray(json_arr(result, "contents"), c);
		reply = mcp_response(id, result);
	}
	free(text);
	free(name);
	return reply;
}

static cJSON *resource(const char *uri, const char *name, const char *description)
{
	cJSON *r = cJSON_CreateObject();

	json_set_str(r, "uri", uri);
	json_set_str(r, "name", name);
	json_set_str(r, "description", description);
	json_set_str(r, "mimeType", "application/json");
	return r;
}

static cJSON *list_resources(struct server *s)
{
	cJSON *result = cJSON_CreateObject(), *list = json_arr(result, "resources");
	char **ids = NULL;
	size_t n = 0;

	cJSON_AddItemToArray(list, resource(ACTIVE_URI, "active session",
					    "The whole state of this worktree's active session"));
	if (store_list(&ids, &n, s->st, SESSIONS_PREFIX) == 0)
		for (size_t i = 0; i < n; i++) {
			char *uri = xstrfmt("%s%s", SESSION_URI, ids[i]), *what = xstrfmt("The whole state of session %s", ids[i]);

			cJSON_AddItemToArray(list, resource(uri, ids[i], what));
			free(uri);
			free(what);
		}
	store_ids_free(ids, n);
	return result;
}

static cJSON *list_templates(void)
{
	cJSON *result = cJSON_CreateObject(), *t = cJSON_CreateObject();

	json_set_str(t, "uriTemplate", SESSION_URI "{id}");
	json_set_str(t, "name", "session");
	json_set_str(t, "description", "The whole state of a session, by id");
	json_set_str(t, "mimeType", "application/json");
	cJSON_AddItemToArray(json_arr(result, "resourceTemplates"), t);
	t = cJSON_CreateObject();
	json_set_str(t, "uriTemplate", SESSION_URI "{id}" BRIEF_SUFFIX);
	json_set_str(t, "name", "session brief");
	json_set_str(t, "description", "Where a session stands, for an agent that picks it up, by id (Markdown)");
	json_set_str(t, "mimeType", "text/markdown");
	cJSON_AddItemToArray(json_arr(result, "resourceTemplates"), t);
	return result;
}

/* resources/read: the session's state as `show --json` prints it. */
static char *read_resource(struct server *s, const cJSON *id, const char *uri)
{
	const char *words[] = { "show", "--json", "--", NULL };
	struct strlist argv = { words, 4 };
	int brief = 0;
	char *sid = uri ? uri_session_brief(s, uri, &brief) : NULL, *reply;
	struct captured run;
	cJSON *result, *c;

	if (!sid)
		return mcp_error(id, MCP_RESOURCE_NOT_FOUND, "resource not found");
	if (brief) {
		reply = read_brief(s, id, uri, sid);
		free(sid);
		return reply;
	}
	words[3] = sid;
	run_captured(&run, s, &argv);
	if (run.code) {
		/* the command's first line, as a protocol error's message */
		const char *why = !strncmp(run.err, "error: ", 7) ? run.err + 7 : run.err;
		char *msg = xstrndup(why, strcspn(why, "\n"));

		reply = mcp_error(id, MCP_RESOURCE_NOT_FOUND, *msg ? msg : "resource not found");
		free(msg);
	} else {
		result = cJSON_CreateObject();
		c = cJSON_CreateObject();
		json_set_str(c, "uri", uri);
		json_set_str(c, "mimeType", "application/json");
		json_set_str(c, "text", run.out);
		cJSON_AddItemToArray(json_arr(result, "contents"), c);
		reply = mcp_response(id, result);
	}
	captured_clear(&run);
	free(sid);
	return reply;
}

/* What a watched resource is now: "<id> <tip>", or "" when it names nothing. */
static char *looked_at(struct server *s, const char *uri)
{
	int brief;
	char *sid = uri_session_brief(s, uri, &brief), *ref, tip[HEX_SZ] = "", *seen;

	if (!sid)
		return xstrdup("");
	ref = xstrfmt("%s%s", SESSIONS_PREFIX, sid);
	if (store_ref_value(tip, s->st, ref) < 0)
		tip[0] = '\0';
	seen = xstrfmt("%s %s", sid, tip);
	free(ref);
	free(sid);
	return seen;
}

static void watch_all(struct server *s)
{
	for (size_t i = 0; i < s->nwatch; i++) {
		char *now = looked_at(s, s->watch[i].uri);
		cJSON *params;

		if (!strcmp(now, s->watch[i].seen)) {
			free(now);
			continue;
		}
		free(s->watch[i].seen);
		s->watch[i].seen = now;
		params = cJSON_CreateObject();
		json_set_str(params, "uri", s->watch[i].uri);
		send_line(s, mcp_notification("notifications/resources/updated", params));
	}
}

static char *subscribe(struct server *s, const cJSON *id, const char *uri, int on)
{
	int brief;
	char *sid = uri ? uri_session_brief(s, uri, &brief) : NULL;
	size_t i;

	if (!sid && (!uri || (strcmp(uri, ACTIVE_URI) && strcmp(uri, ACTIVE_URI BRIEF_SUFFIX))))
		return mcp_error(id, MCP_RESOURCE_NOT_FOUND, "resource not found");
	free(sid);
	for (i = 0; i < s->nwatch && strcmp(s->watch[i].uri, uri); i++)
		;
	if (on && i == s->nwatch) {
		ALLOC_GROW(s->watch, s->nwatch + 1, s->awatch);
		s->watch[s->nwatch].uri = xstrdup(uri);
		s->watch[s->nwatch++].seen = looked_at(s, uri);
	} else if (!on && i < s->nwatch) {
		free(s->watch[i].uri);
		free(s->watch[i].seen);
		s->watch[i] = s->watch[--s->nwatch];
	}
	return mcp_response(id, NULL);
}

static char *initialize(struct server *s, const cJSON *id, const cJSON *params)
{
	cJSON *r = cJSON_CreateObject(), *caps = json_obj(r, "capabilities"), *info;

	json_set_str(r, "protocolVersion", mcp_negotiate(json_str(params, "protocolVersion")));
	json_set_bool(json_obj(caps, "tools"), "listChanged", 0);
	json_set_bool(json_obj(caps, "resources"), "subscribe", 1);
	json_set_bool(json_obj(caps, "resources"), "listChanged", 0);
	json_set_bool(json_obj(caps, "prompts"), "listChanged", 0);
	info = json_obj(r, "serverInfo");
	json_set_str(info, "name", "git-session");
	json_set_str(info, "title", "git-session");
	json_set_str(info, "version", MCP_SERVER_VERSION);
	json_set_str(r, "instructions",
		     "Session state for multi-step, multi-agent work, kept in this git repository: each change "
		     "is a checkpoint commit on refs/sessions/<id>. Start or resume a session first; the other "
		     "write tools act on the active session. Read the state with session_status or the "
		     "session resources; the session-brief prompt tells where a session stands.");
	s->initialized = 1;
	return mcp_response(id, r);
}

/* The reply to one request; NULL for none. */
static char *answer(struct server *s, const struct mcp_msg *m)
{
	const char *method = m->method, *uri = json_str(m->params, "uri");
	size_t n;

	if (!strcmp(method, "initialize"))
		return initialize(s, m->id, m->params);
	if (!strcmp(method, "ping"))
		return mcp_response(m->id, NULL);
	if (!s->initialized)
		return mcp_error(m->id, MCP_INVALID_REQUEST, "the server is not initialized: send 'initialize' first");
	if (!strcmp(method, "tools/list")) {
		const struct mcp_tool *t = mcp_tools(&n);
		cJSON *r = cJSON_CreateObject(), *list = json_arr(r, "tools");

		for (size_t i = 0; i < n; i++)
			cJSON_AddItemToArray(list, mcp_tool_describe(&t[i]));
		return mcp_response(m->id, r);
	}
	if (!strcmp(method, "tools/call")) {
		const char *name = json_str(m->params, "name");
		const struct mcp_tool *t = mcp_tool_find(name);
		char *msg, *reply;

		if (t)
			return mcp_response(m->id, call_tool(s, t, cJSON_GetObjectItemCaseSensitive(m->params, "arguments")));
		msg = xstrfmt("unknown tool '%s'", name ? name : "");
		reply = mcp_error(m->id, MCP_INVALID_PARAMS, msg);
		free(msg);
		return reply;
	}
	if (!strcmp(method, "prompts/list"))
		return mcp_response(m->id, mcp_prompts_list());
	if (!strcmp(method, "prompts/get"))
		return get_prompt(s, m->id, m->params);
	if (!strcmp(method, "resources/list"))
		return mcp_response(m->id, list_resources(s));
	if (!strcmp(method, "resources/templates/list"))
		return mcp_response(m->id, list_templates());
	if (!strncmp(method, "resources/", 10) && strcmp(method, "resources/list") &&
	    strcmp(method, "resources/templates/list") && !uri)
		return mcp_error(m->id, MCP_INVALID_PARAMS, "invalid params: no uri");
	if (!strcmp(method, "resources/read"))
		return read_resource(s, m->id, uri);
	if (!strcmp(method, "resources/subscribe") || !strcmp(method, "resources/unsubscribe"))
		return subscribe(s, m->id, uri, !strcmp(method, "resources/subscribe"));
	return mcp_error(m->id, MCP_METHOD_NOT_FOUND, "method not found");
}

static void handle_line(struct server *s, const char *line, size_t len)
{
	struct mcp_msg m;
	char *reply = NULL;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return;
	if (mcp_parse(&m, line, len, &reply) < 0) {
		if (reply)
			send_line(s, reply);
		return;
	}
	if (m.method && m.id)	/* notifications and responses get no answer */
		reply = answer(s, &m);
	cmd_print_errors();	/* what went wrong in the server itself, to its log */
	if (reply)
		send_line(s, reply);
	mcp_msg_clear(&m);
}

/* Splits what was read into lines; a line past MCP_MESSAGE_MAX is refused, not kept. */
static void take(struct server *s, const char *buf, size_t n)
{
	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t part = nl ? (size_t)(nl - buf) : n;

		if (!s->too_long && s->line.len + part > MCP_MESSAGE_MAX) {
			s->too_long = 1;
			sbuf_reset(&s->line);
		}
		if (!s->too_long)
			sbuf_add(&s->line, buf, part);
		if (nl) {
			if (s->too_long) {
				char *msg = xstrfmt("invalid request: a message is at most %u bytes", MCP_MESSAGE_MAX);

				send_line(s, mcp_error(NULL, MCP_INVALID_REQUEST, msg));
				free(msg);
			} else {
				handle_line(s, s->line.buf, s->line.len);
			}
			s->too_long = 0;
			sbuf_reset(&s->line);
			part++;
		}
		buf += part;
		n -= part;
	}
}

static int serve(struct server *s)
{
	char buf[65536];

	while (!s->closed) {
		struct pollfd p = { s->in, POLLIN, 0 };
		int ready = poll(&p, 1, s->nwatch ? WATCH_MS : -1);
		ssize_t n = 0;

		if (ready < 0 && errno != EINTR)
			return gs_error("cannot read the client's messages: %s", strerror(errno));
		if (ready > 0 && (n = read(s->in, buf, sizeof(buf))) < 0 && errno != EINTR)
			return gs_error("cannot read the client's messages: %s", strerror(errno));
		if (ready > 0 && n == 0) {	/* the client closed its end: the last line, then stop */
			if (s->line.len && !s->too_long)
				handle_line(s, s->line.buf, s->line.len);
			return 0;
		}
		if (n > 0)
			take(s, buf, (size_t)n);
		watch_all(s);
	}
	return 0;
}

int cmd_mcp(int argc, const char **argv, struct cmd_ctx *c)
{
	static const char *const usage[] = { "git session mcp", NULL };
	const struct option opts[] = { OPT_END_MARK };
	struct server s = { 0 };
	int error, devnull;

	if ((error = parse_options(&argc, argv, opts, usage, 0)) < 0 ||
	    (error = cmd_no_more_args(argc, 0, usage)) < 0)
		return cmd_exit(error);
	signal(SIGPIPE, SIG_IGN);
	/* the protocol gets private copies of fds 0 and 1; commands get /dev/null and a file */
	fflush(stdout);
	s.st = c->st;
	s.max_retries = c->eng.lim.max_retries;
	s.in = dup(0);
	s.log = dup(2);
	s.out = fdopen(dup(1), "w");
	devnull = open("/dev/null", O_RDONLY);
	if (s.in < 0 || s.log < 0 || !s.out || devnull < 0 || dup2(devnull, 0) < 0 || dup2(s.log, 1) < 0) {
		gs_error("cannot set up standard input and output: %s", strerror(errno));
		return EXIT_FAILED;
	}
	close(devnull);
	s.line = (struct sbuf)SBUF_INIT;
	error = serve(&s);
	for (size_t i = 0; i < s.nwatch; i++) {
		free(s.watch[i].uri);
		free(s.watch[i].seen);
	}
	free(s.watch);
	sbuf_release(&s.line);
	fclose(s.out);
	close(s.in);
	close(s.log);
	return error < 0 ? 1 : 0;
}
