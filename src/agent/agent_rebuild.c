/*
 * agent_rebuild.c - an agent's own session file rebuilt from the transcript a
 * session keeps (agent_rebuild.h). Claude Code's: JSON lines chained by
 * uuid/parentUuid, read back from projects/<cwd encoded>/<id>.jsonl in
 * its folder. What the stored filter left out (attachments, hook
 * summaries) is relinked over; a line redaction left unreadable is refused.
 */
#include "agent-internal.h"
#include "git-session/agent_rebuild.h"
#include "git-session/json.h"
#include "git-session/sha256.h"
#include "git-session/transcript.h"
#include "git-session/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int agent_session_id_ok(const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (!n || n > AGENT_SESSION_ID_MAX || id[0] == '.' || id[n - 1] == '.' || strstr(id, ".."))
		return 0;
	for (const char *p = id; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
	       c == '_' || c == '-' || (unsigned char)c >= 0x80;
}

char *agent_path_move(const char *s, const char *from, const char *to)
{
	size_t n = from ? strlen(from) : 0;
	struct sbuf sb = SBUF_INIT;
	const char *p = s, *hit;
	char *root;
	int moved = 0;

	while (n > 1 && from[n - 1] == '/')
		n--;
	if (n < 2 || !s)
		return NULL;
	root = xstrndup(from, n);
	for (const char *at = s; (hit = strstr(at, root)); at = hit + 1) {
		/* a whole path: not the end of a longer one, nor the start of a sibling (/home/a/proj-old) */
		if (name_char(hit[n]) || (hit > s && (name_char(hit[-1]) || hit[-1] == '/')))
			continue;
		sbuf_add(&sb, p, (size_t)(hit - p));
		sbuf_adds(&sb, to);
		p = hit + n;
		hit = p - 1;
		moved = 1;
	}
	free(root);
	if (!moved) {
		sbuf_release(&sb);
		return NULL;
	}
	sbuf_adds(&sb, p);
	return sbuf_detach(&sb, NULL);
}

/* Each string in v (an object's, an array's, or v) with its paths under each of rb's roots moved. */
static void move_strings(cJSON *v, const struct agent_rebuild *rb)
{
	cJSON *m;
	char *s;

	for (size_t i = 0; cJSON_IsString(v) && rb->from_roots && rb->from_roots[i]; i++)
		if ((s = agent_path_move(v->valuestring, rb->from_roots[i], rb->to_root))) {
			cJSON_SetValuestring(v, s);
			free(s);
		}
	cJSON_ArrayForEach(m, ((cJSON_IsObject(v) || cJSON_IsArray(v)) ? v : NULL))
		move_strings(m, rb);
}

/* The next UTF-8 character of s as UTF-16 code units: *cp its code point; bytes taken. */
static size_t utf8_next(uint32_t *cp, const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;

	*cp = n == 1 ? s[0] : s[0] & (0x3f >> (n - 1));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return *cp = 0xfffd, i;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	return n;
}

/*
 * As Claude Code names a project's folder: each UTF-16 unit of cwd not
 * [A-Za-z0-9] a '-'; past 200 of them, cut, with "-" and the base-36 of
 * the absolute value of cwd's 32-bit string hash (h = h * 31 + unit).
 */
char *agent_claude_project_dir(const char *cwd)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	struct sbuf sb = SBUF_INIT;
	uint32_t h = 0, cp;
	char num[16], *p = num + sizeof(num);
	int64_t v;

	for (const unsigned char *s = (const unsigned char *)cwd; *s;) {
		s += utf8_next(&cp, s);
		if (cp >= 0x10000) {
			h = h * 31 + (0xd800 + ((cp - 0x10000) >> 10));
			h = h * 31 + (0xdc00 + ((cp - 0x10000) & 0x3ff));
			sbuf_adds(&sb, "--");
			continue;
		}
		h = h * 31 + cp;
		sbuf_addch(&sb, cp < 0x80 && ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
					      (cp >= '0' && cp <= '9')) ? (char)cp : '-');
	}
	if (sb.len <= 200)
		return sbuf_detach(&sb, NULL);
	sb.buf[sb.len = 200] = '\0';
	v = (int32_t)h;
	v = v < 0 ? -v : v;
	*--p = '\0';
	do
		*--p = digits[v % 36];
	while ((v /= 36));
	sbuf_addf(&sb, "-%s", p);
	return sbuf_detach(&sb, NULL);
}

/* --- a set of strings: the uuids kept so far --- */

struct idset {
	char **v;
	size_t n, cap;
};

static size_t id_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static int idset_has(const struct idset *set, const char *s)
{
	for (size_t i = set->cap ? id_hash(s) % set->cap : 0; set->cap && set->v[i]; i = (i + 1) % set->cap)
		if (!strcmp(set->v[i], s))
			return 1;
	return 0;
}

static void idset_add(struct idset *set, const char *s)
{
	size_t i;

	if (2 * (set->n + 1) > set->cap) {
		struct idset bigger = { xcalloc(set->cap ? 2 * set->cap : 64, sizeof(char *)), 0,
					set->cap ? 2 * set->cap : 64 };

		for (i = 0; i < set->cap; i++)
			if (set->v[i])
				idset_add(&bigger, set->v[i]), free(set->v[i]);
		free(set->v);
		*set = bigger;
	}
	for (i = id_hash(s) % set->cap; set->v[i]; i = (i + 1) % set->cap)
		;
	set->v[i] = xstrdup(s);
	set->n++;
}

static void idset_clear(struct idset *set)
{
	for (size_t i = 0; i < set->cap; i++)
		free(set->v[i]);
	free(set->v);
}

/* --- Claude Code --- */

/* What a line needs for Claude Code to read it back: NULL when it has it, else what is missing. */
static const char *claude_unreadable(const cJSON *line)
{
	const char *type = json_str(line, "type");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(line, "message");
	const cJSON *uuid = cJSON_GetObjectItemCaseSensitive(line, "uuid");

	if (!type)
		return "it has no type";
	if (uuid && (!cJSON_IsString(uuid) || !*uuid->valuestring || strlen(uuid->valuestring) > 128))
		return "its uuid is not one";
	if ((!strcmp(type, "user") || !strcmp(type, "assistant")) &&
	    (!cJSON_IsObject(msg) || !json_str(msg, "role") ||
	     !(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(msg, "content")) ||
	       cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(msg, "content")))))
		return "its message has no role or content";
	return NULL;
}

/* A uuid for a line that has none, the same for the same session and line. */
static char *made_uuid(const char *session, size_t no)
{
	uint64_t h[2] = { 14695981039346656037ull, 1099511628211ull ^ no };

	for (int k = 0; k < 2; k++)
		for (const char *p = session; *p; p++)
			h[k] = (h[k] ^ (unsigned char)*p ^ (k ? 0 : no)) * 1099511628211ull;
	return xstrfmt("%08x-%04x-4%03x-8%03x-%012llx", (unsigned)(h[0] >> 32), (unsigned)(h[0] >> 16) & 0xffff,
		       (unsigned)h[0] & 0xfff, (unsigned)(h[1] >> 52) & 0xfff,
		       (unsigned long long)(h[1] & 0xffffffffffffull));
}

/*
 * What the CLI reads of a line and the stored one may lack (a transcript
 * written by another tool, or before the CLI wrote it): its uuid, its
 * session, its folder, its time (the line before's).
 */
static void claude_fill(cJSON *o, struct agent_rebuild *rb, const char *prev_time, size_t no)
{
	static const char *const chained[] = { "user", "assistant", "system", "attachment" };
	const char *type = json_str(o, "type");
	size_t i = 0;
	char *uuid;

	/* the CLI's records of its own (a summary, a queue, the last prompt) are in no chain */
	while (i < ARRAY_SIZE(chained) && strcmp(type, chained[i]))
		i++;
	if (i == ARRAY_SIZE(chained))
		return;
	if (!cJSON_GetObjectItemCaseSensitive(o, "uuid")) {
		uuid = made_uuid(rb->session, no);
		json_set_str(o, "uuid", uuid);
		free(uuid);
	}
	if (!cJSON_GetObjectItemCaseSensitive(o, "parentUuid"))
		json_set_str(o, "parentUuid", "");	/* relinked below */
	if (!json_str(o, "cwd") && rb->cwd)
		json_set_str(o, "cwd", rb->cwd);
	if (!json_str(o, "timestamp"))
		json_set_str(o, "timestamp", prev_time ? prev_time : "1970-01-01T00:00:00.000Z");
	if (!cJSON_GetObjectItemCaseSensitive(o, "isSidechain"))
		json_set_bool(o, "isSidechain", 0);
}

/* The paths of a message's tool calls and tool results moved, and its working folder. */
static void claude_move_paths(cJSON *line, const struct agent_rebuild *rb)
{
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(line, "message"),
								"content");
	cJSON *block;

	if (!rb->from_roots || !rb->to_root)
		return;
	move_strings(cJSON_GetObjectItemCaseSensitive(line, "cwd"), rb);
	cJSON_ArrayForEach(block, (cJSON_IsArray(content) ? content : NULL)) {
		const char *type = json_str(block, "type");

		if (type && !strcmp(type, "tool_use"))
			move_strings(cJSON_GetObjectItemCaseSensitive(block, "input"), rb);
		else if (type && !strcmp(type, "tool_result"))
			move_strings(cJSON_GetObjectItemCaseSensitive(block, "content"), rb);
	}
}

/* Whether s is a signature as the API gave it (base64): redaction's "[REDACTED:...]" is not. */
static int sealed(const char *s)
{
	return s && !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")];
}

/*
 * A message's thinking blocks whose signature, or the text it seals,
 * redaction changed, left out: the API refuses them. How many; *emptied
 * when no block is left.
 */
static size_t claude_unseal(cJSON *line, int *emptied)
{
	cJSON *content = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(line, "message"),
							  "content");
	cJSON *block, *next;
	size_t n = 0;

	*emptied = 0;
	for (block = cJSON_IsArray(content) ? content->child : NULL; block; block = next) {
		const char *type = json_str(block, "type"), *text;

		next = block->next;
		if (!type)
			continue;
		if (!strcmp(type, "thinking"))
			text = json_str(block, "thinking");
		else if (!strcmp(type, "redacted_thinking"))
			text = NULL;
		else
			continue;
		if (sealed(json_str(block, !strcmp(type, "thinking") ? "signature" : "data")) &&
		    !(text && strstr(text, "[REDACTED:")))
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(content, block));
		n++;
	}
	*emptied = n && !cJSON_GetArraySize(content);
	return n;
}

/* One line into sb: 0 kept, 1 passed over (a message written again, or left empty), GS_ERROR with *err. */
static int claude_line(struct sbuf *sb, char **err, struct agent_rebuild *rb, struct idset *seen, char *prevs[2],
		       char **prev_time, const char *line, size_t len, size_t no)
{
	cJSON *o = NULL, *parent;
	char *perr = NULL, *text, **prev;
	const char *why, *uuid;
	int emptied;

	if (json_parse(&o, line, len, TRANSCRIPT_LINE_MAX, &perr) < 0 || !cJSON_IsObject(o)) {
		*err = xstrfmt("line %zu of the stored transcript is not a JSON object%s%s", no, perr ? ": " : "",
			       perr ? perr : "");
		free(perr);
		cJSON_Delete(o);
		return GS_ERROR;
	}
	if ((why = claude_unreadable(o))) {
		*err = xstrfmt("line %zu of the stored transcript cannot be read back: %s", no, why);
		cJSON_Delete(o);
		return GS_ERROR;
	}
	if ((uuid = json_str(o, "uuid")) && idset_has(seen, uuid)) {
		cJSON_Delete(o);
		return 1;
	}
	/* a message with nothing left is left out: the lines after it are relinked over it */
	rb->unsealed += claude_unseal(o, &emptied);
	if (emptied) {
		cJSON_Delete(o);
		return 1;
	}
	claude_move_paths(o, rb);
	claude_fill(o, rb, *prev_time, no);
	uuid = json_str(o, "uuid");
	/* a sub-agent's lines (older CLIs kept them here) chain apart from the conversation's */
	prev = &prevs[cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "isSidechain"))];
	/* the CLI walks back from the newest line by parentUuid: a parent left out would end the walk */
	parent = cJSON_GetObjectItemCaseSensitive(o, "parentUuid");
	if (cJSON_IsString(parent) && !idset_has(seen, parent->valuestring)) {
		json_set(o, "parentUuid", *prev ? cJSON_CreateString(*prev) : cJSON_CreateNull());
		rb->relinked++;
	}
	if (cJSON_GetObjectItemCaseSensitive(o, "sessionId"))
		json_set_str(o, "sessionId", rb->session);
	if (uuid) {
		idset_add(seen, uuid);
		free(*prev);
		*prev = xstrdup(uuid);
	}
	if (json_str(o, "timestamp")) {
		free(*prev_time);
		*prev_time = xstrdup(json_str(o, "timestamp"));
	}
	text = cJSON_PrintUnformatted(o);
	sbuf_adds(sb, text);
	sbuf_addch(sb, '\n');
	rb->lines++;
	free(text);
	cJSON_Delete(o);
	return 0;
}

static int claude_rebuild(struct agent_rebuild *rb, char **err, const char *text, size_t len)
{
	struct sbuf sb = SBUF_INIT;
	struct idset seen = { 0 };
	char *prev[2] = { NULL, NULL }, *prev_time = NULL;
	size_t no = 0;
	int error = 0;

	*err = NULL;
	for (size_t at = 0, n; at < len && error >= 0; at += n + (at + n < len)) {
		const char *nl = memchr(text + at, '\n', len - at);

		n = nl ? (size_t)(nl - (text + at)) : len - at;
		no++;
		if (json_skip_ws(text, at, at + n) < at + n)
			error = claude_line(&sb, err, rb, &seen, prev, &prev_time, text + at, n, no);
	}
	if (error >= 0 && !rb->lines) {
		*err = xstrdup("the stored transcript holds no line of the conversation");
		error = GS_ERROR;
	}
	idset_clear(&seen);
	free(prev[0]);
	free(prev[1]);
	free(prev_time);
	if (error < 0) {
		sbuf_release(&sb);
		return GS_ERROR;
	}
	rb->text = sbuf_detach(&sb, &rb->len);
	return 0;
}

static void claude_cwds(char ***out, size_t *n, const char *text, size_t len)
{
	static const char *const key = "cwd";
	char *last = NULL;

	*out = NULL;
	*n = 0;
	for (size_t at = 0, k; at < len; at += k + 1) {
		const char *nl = memchr(text + at, '\n', len - at);
		char *v = NULL;
		size_t i = 0;

		k = nl ? (size_t)(nl - (text + at)) : len - at;
		if (json_scan_top(&v, text + at, k, &key, 1) < 0 || !v || *v != '/' || (last && !strcmp(v, last))) {
			free(v);
			continue;
		}
		while (i < *n && strcmp((*out)[i], v))
			i++;
		if (i < *n) {	/* seen before: now the latest */
			free((*out)[i]);
			memmove(*out + i, *out + i + 1, (*n - i - 1) * sizeof(**out));
			(*n)--;
		} else if (*n == 64) {
			free(v);
			continue;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = last = v;
	}
}

static char *claude_path(const struct agent_rebuild *rb, const char *cwd, const char *project)
{
	char *dir = agent_claude_project_dir(cwd), *path = xstrfmt("projects/%s/%s.jsonl", dir, rb->session);

	free(dir);
	return path;
}

const struct agent_rebuilder agent_claude_code_rebuilder = {
	.rebuild = claude_rebuild,
	.cwds = claude_cwds,
	.path = claude_path,
	.find_before = "projects/*/",
	.find_after = ".jsonl",
};

char *agent_root_of(const char *text, size_t len, const char *rel)
{
	char *tail = xstrfmt("/%s\"", rel), *root = NULL;
	size_t n = strlen(tail);

	for (const char *p = text, *end = text + len, *hit; !root && (hit = memmem(p, (size_t)(end - p), tail, n));
	     p = hit + 1) {
		const char *q = hit;

		while (q > text && q[-1] != '"' && q[-1] != '\\' && q[-1] != '\n')
			q--;
		if (q > text && q[-1] == '"' && *q == '/' && q < hit)
			root = xstrndup(q, (size_t)(hit - q));
	}
	free(tail);
	return root;
}

/* --- Gemini CLI --- */

/*
 * Its chats are in ~/.gemini/tmp/<project>/chats, <project> the name its
 * registry (projects.json) gives the folder it ran in; a folder it has
 * not named yet has its chats in tmp/<SHA-256 of the folder>, which the
 * CLI moves to the name it gives at its next start there. A chat file is
 * a header (session id, project hash, times), then its messages, one a
 * line, a message written again as it grows (the last one counts); the
 * stored transcript keeps the messages.
 */
static const char *gemini_unreadable(const cJSON *line)
{
	const char *type = json_str(line, "type");

	if (!type || !json_str(line, "id"))
		return "it has no type or id";
	if ((!strcmp(type, "user") || !strcmp(type, "gemini")) &&
	    !cJSON_GetObjectItemCaseSensitive(line, "content"))
		return "its content is gone";
	return NULL;
}

/* The paths in a message's tool calls, and in the function calls and responses of its content. */
static void gemini_move_paths(cJSON *line, const struct agent_rebuild *rb)
{
	cJSON *part;

	if (!rb->from_roots || !rb->to_root)
		return;
	move_strings(cJSON_GetObjectItemCaseSensitive(line, "toolCalls"), rb);
	cJSON_ArrayForEach(part, (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(line, "content")) ?
				  cJSON_GetObjectItemCaseSensitive(line, "content") : NULL)) {
		move_strings(cJSON_GetObjectItemCaseSensitive(part, "functionCall"), rb);
		move_strings(cJSON_GetObjectItemCaseSensitive(part, "functionResponse"), rb);
	}
}

static int gemini_line(struct sbuf *sb, char **err, struct agent_rebuild *rb, char **last, const char *line,
		       size_t len, size_t no)
{
	cJSON *o = NULL;
	char *perr = NULL, *text;
	const char *why;

	if (json_parse(&o, line, len, TRANSCRIPT_LINE_MAX, &perr) < 0 || !cJSON_IsObject(o)) {
		*err = xstrfmt("line %zu of the stored transcript is not a JSON object%s%s", no, perr ? ": " : "",
			       perr ? perr : "");
		free(perr);
		cJSON_Delete(o);
		return GS_ERROR;
	}
	if ((why = gemini_unreadable(o))) {
		*err = xstrfmt("line %zu of the stored transcript cannot be read back: %s", no, why);
		cJSON_Delete(o);
		return GS_ERROR;
	}
	gemini_move_paths(o, rb);
	if (json_str(o, "timestamp")) {
		if (!rb->started)
			rb->started = xstrdup(json_str(o, "timestamp"));
		free(*last);
		*last = xstrdup(json_str(o, "timestamp"));
	}
	text = cJSON_PrintUnformatted(o);
	sbuf_adds(sb, text);
	sbuf_addch(sb, '\n');
	rb->lines++;
	free(text);
	cJSON_Delete(o);
	return 0;
}

static int gemini_rebuild(struct agent_rebuild *rb, char **err, const char *text, size_t len)
{
	struct sbuf body = SBUF_INIT, sb = SBUF_INIT;
	char *last = NULL, hash[65], *head;
	const char *cwd = rb->cwd ? rb->cwd : rb->to_root;
	size_t no = 0;
	int error = 0;
	cJSON *h;

	*err = NULL;
	for (size_t at = 0, n; at < len && error >= 0; at += n + (at + n < len)) {
		const char *nl = memchr(text + at, '\n', len - at);

		n = nl ? (size_t)(nl - (text + at)) : len - at;
		no++;
		if (json_skip_ws(text, at, at + n) < at + n)
			error = gemini_line(&body, err, rb, &last, text + at, n, no);
	}
	if (error >= 0 && !rb->lines) {
		*err = xstrdup("the stored transcript holds no message");
		error = GS_ERROR;
	}
	if (error < 0) {
		sbuf_release(&body);
		free(last);
		return GS_ERROR;
	}
	sha256_hex(hash, cwd, strlen(cwd));
	h = cJSON_CreateObject();
	json_set_str(h, "sessionId", rb->session);
	json_set_str(h, "projectHash", hash);
	json_set_str(h, "startTime", rb->started ? rb->started : "1970-01-01T00:00:00.000Z");
	json_set_str(h, "lastUpdated", last ? last : "1970-01-01T00:00:00.000Z");
	json_set_str(h, "kind", "main");
	head = cJSON_PrintUnformatted(h);
	sbuf_adds(&sb, head);
	sbuf_addch(&sb, '\n');
	sbuf_add(&sb, body.buf, body.len);
	rb->lines++;
	rb->text = sbuf_detach(&sb, &rb->len);
	free(head);
	cJSON_Delete(h);
	sbuf_release(&body);
	free(last);
	return 0;
}

/* session-<YYYY-MM-DDTHH-MM of its start>-<its id's first 8>.jsonl, as the CLI names a chat */
static char *gemini_path(const struct agent_rebuild *rb, const char *cwd, const char *project)
{
	char stamp[17] = "1970-01-01T00-00", hash[65];
	const char *t = rb->started;

	if (t && strlen(t) >= 16 && strspn(t, "0123456789-T:") >= 16)
		for (int i = 0; i < 16; i++)
			stamp[i] = t[i] == ':' ? '-' : t[i];
	if (!project) {
		sha256_hex(hash, cwd, strlen(cwd));
		project = hash;
	}
	return xstrfmt("tmp/%s/chats/session-%s-%.8s.jsonl", project, stamp, rb->session);
}

const struct agent_rebuilder agent_gemini_cli_rebuilder = {
	.rebuild = gemini_rebuild,
	.path = gemini_path,
	.registry = "projects.json",
	.find_before = "tmp/*/chats/session-*-",
	.find_id_len = 8,
	.find_after = ".json*",
};
