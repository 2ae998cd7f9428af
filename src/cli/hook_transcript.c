/*
 * hook_transcript.c - the part of the transcript an agent's turn added,
 * read for the hook runner (cmd_agent_hook.c). Where the transcript may
 * be, bounded reads of whole lines, the tokens the part counts, and the
 * part kept, redacted, in the turn's checkpoint.
 */
#include "git-session/agent.h"
#include "git-session/cmd.h"
#include "git-session/json.h"
#include "git-session/redact.h"
#include "git-session/transcript.h"
#include "git-session/util.h"
#include "hook-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define TURN_MAX (64u << 20)			/* read of one turn's part, at most */

/* realpath's of a folder the agent keeps its transcripts in, appended to roots when there. */
static void add_root(char **roots, size_t *n, const char *base, const char *sub)
{
	char *path, *real;

	if (!base || !*base)
		return;
	path = sub ? xstrfmt("%s/%s", base, sub) : xstrdup(base);
	if ((real = realpath(path, NULL)))
		roots[(*n)++] = real;
	free(path);
}

/* Whether a component of the relative path rel is .git, in any case: a git directory's, or a gitfile. */
static int has_dot_git(const char *rel)
{
	for (const char *p = rel; *p; p += strcspn(p, "/"), p += *p == '/')
		if (!strncasecmp(p, ".git", 4) && (p[4] == '/' || !p[4]))
			return 1;
	return 0;
}

static int is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/*
 * Whether the agent may have its transcript at real (symbolic links
 * resolved): in its own folder (the dialect's folder in the home, as
 * ~/.claude, or where its environment moves it), or in the work tree
 * where git would take the file (not in the git directory, not ignored).
 * NULL when it may, else why not.
 */
static const char *transcript_refused(struct hook_run *r, const char *real)
{
	const struct agent_dialect *d = r->d;
	const char *wd = store_workdir(r->c->st);
	char *roots[4], *wreal = wd ? realpath(wd, NULL) : NULL;
	const char *why = "it is outside the work tree and the agent's own folder";
	size_t n = 0;
	int ignored = 0;

	add_root(roots, &n, d->folder_env ? getenv(d->folder_env) : NULL, NULL);
	add_root(roots, &n, getenv("HOME"), d->folder);
	add_root(roots, &n, d->home_env ? getenv(d->home_env) : NULL, d->folder);
	for (size_t i = 0; i < n; i++)
		if (is_under(real, roots[i]))
			why = NULL;
	if (why && wreal && is_under(real, wreal)) {
		if (store_in_gitdir(r->c->st, real) || has_dot_git(real + strlen(wreal) + 1))
			why = "it is in the git directory";
		else if (store_ignored(&ignored, r->c->st, real + strlen(wreal) + 1) < 0 || ignored)
			why = "the repository ignores it";
		else
			why = NULL;
	}
	while (n)
		free(roots[--n]);
	free(wreal);
	return why;
}

/*
 * The transcript at path, opened to read: *fd -1 when there is none yet
 * or it is not one to read (said in a warning). Never waits: a FIFO or
 * a device is refused before a byte is read.
 */
void hook_open_transcript(int *fd, struct hook_run *r, const char *path)
{
	char *real = realpath(path, NULL);
	const char *why = NULL;
	struct stat sb;

	*fd = -1;
	if (!real) {
		if (errno != ENOENT)	/* none yet: nothing to read */
			gs_warning("cannot read the transcript '%s': %s", path, strerror(errno));
		return;
	}
	if (!(why = transcript_refused(r, real))) {
		if (stat(real, &sb) < 0 || !S_ISREG(sb.st_mode))
			why = "it is not a regular file";	/* a socket cannot even be opened */
		else if ((*fd = open(real, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)) < 0)
			why = strerror(errno);
		else if (fstat(*fd, &sb) < 0 || !S_ISREG(sb.st_mode))
			why = "it is not a regular file";
	}
	if (why) {
		gs_warning("the transcript '%s' is not read: %s", path, why);
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	free(real);
}

/* The part, redacted, as the blob transcripts/<agent>/<nnn>/<nnnnnn> of the turn's checkpoint. */
static int keep_part(struct state_op *op, struct cmd_ctx *c, const char *agent, const char *text, size_t len,
		     double seq)
{
	char oid[HEX_SZ], *clean = NULL, *path;
	size_t n = len;
	int error;

	if (redact_jsonl(&clean, &n, text, len) > 0)
		text = clean;
	else
		n = len;
	if ((error = store_blob_write(oid, c->st, text, n)) == 0) {
		path = xstrfmt("transcripts/%s/%03d/%06d", agent, (int)seq / 1000, (int)seq);
		json_set_str(json_obj(op_args(op), "tree"), path, oid);
		json_set_num(op_args(op), "bytes", (double)n);
		free(path);
	}
	free(clean);
	return error;
}

/* The bytes from at to the end of its line, newline included; 0 when the line has no end yet. */
static ssize_t line_length(int fd, off_t at, off_t size)
{
	char buf[65536], *nl;
	ssize_t got;

	for (off_t pos = at; pos < size; pos += got) {
		if ((got = pread(fd, buf, sizeof(buf), pos)) <= 0)
			return 0;
		if ((nl = memchr(buf, '\n', (size_t)got)))
			return (ssize_t)(pos - at + (nl - buf) + 1);
	}
	return 0;
}

/* What a turn adds to the transcript, whole lines only. */
struct turn_part {
	char *text;
	size_t len;		/* the bytes the turn takes */
	int long_line;		/* the one line it takes is longer than a turn reads: passed over, text unread */
};

/*
 * The part of the transcript at fd (size bytes) from `from` on; len 0
 * when it has no whole line yet: a line still being written waits for
 * the next turn.
 */
static int read_part(struct turn_part *p, int fd, off_t size, double from, const char *path, const char *agent)
{
	size_t want = (size_t)size - (size_t)from > TURN_MAX ? TURN_MAX : (size_t)size - (size_t)from;
	ssize_t got;

	p->text = xmalloc(want + 1);
	if ((got = pread(fd, p->text, want, (off_t)from)) < 0)
		return gs_error("cannot read '%s': %s", path, strerror(errno));
	while (got > 0 && p->text[got - 1] != '\n')
		got--;
	if (!got && want == TURN_MAX && (got = line_length(fd, (off_t)from + TURN_MAX, size)) > 0) {
		got += TURN_MAX;	/* passed over, or no turn is recorded again */
		gs_warning("a line of the transcript of agent '%s' is longer than %u MiB: it is not read", agent,
			   TURN_MAX >> 20);
		p->long_line = 1;
	}
	if (got && !p->long_line)
		p->text[got] = '\0';
	p->len = (size_t)got;
	return 0;
}

static const char *const running_keys[] = { "input", "output", "cached", "since_input", "since_output", "since_cached" };

/* The CLI's running total as t's "running" kept it: {input, output, cached, since_*, pending}. */
static void running_from(struct agent_usage *u, const cJSON *t)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(t, "running");

	if (!cJSON_IsObject(r))
		return;
	/* a compaction may be pending with no total read yet: no baseline then */
	u->has_total = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, running_keys[0]));
	for (size_t i = 0; u->has_total && i < 3; i++) {
		u->total[i] = json_num(r, running_keys[i], 0);
		u->since[i] = json_num(r, running_keys[i + 3], 0);
	}
	u->pending = json_bool(r, "pending", 0);
}

static void running_to(cJSON *args, const struct agent_usage *u)
{
	cJSON *r;

	if (!u->has_total && !u->pending)
		return;
	r = json_obj(args, "running");
	for (size_t i = 0; u->has_total && i < 3; i++) {
		json_set_num(r, running_keys[i], u->total[i]);
		json_set_num(r, running_keys[i + 3], u->since[i]);
	}
	json_set_bool(r, "pending", u->pending);
}

/*
 * The part's tokens into the turn's op, counted on from the last message
 * the agent's transcript record t has, and that message's usage now, and
 * from the CLI's running total it has (for a compaction's tokens); how
 * many new messages and compactions it counts.
 */
static int turn_usage(struct state_op *op, const struct agent_dialect *d, const cJSON *t, const char *agent,
		      const struct turn_part *p)
{
	struct agent_usage u = { 0 };
	const cJSON *was = cJSON_GetObjectItemCaseSensitive(t, "last");
	cJSON *last;

	if (was) {
		snprintf(u.last_id, sizeof(u.last_id), "%s", json_str(was, "id") ? json_str(was, "id") : "");
		u.last_input = json_num(was, "input", 0);
		u.last_output = json_num(was, "output", 0);
		u.last_cached = json_num(was, "cached", 0);
	}
	running_from(&u, t);
	agent_usage_scan(&u, d, p->text, p->long_line ? 0 : p->len);
	if (u.skipped)
		gs_warning("%d line%s of the transcript of agent '%s' gave token counts that are not whole numbers "
			   "from 0 to 10^12: %s not counted", u.skipped, u.skipped > 1 ? "s" : "", agent,
			   u.skipped > 1 ? "their tokens are" : "its tokens are");
	json_set_num(op_args(op), "input", u.input > 0 ? u.input : 0);
	json_set_num(op_args(op), "output", u.output > 0 ? u.output : 0);
	json_set_num(op_args(op), "cached", u.cached > 0 ? u.cached : 0);
	if (*u.last_id) {
		last = json_obj(op_args(op), "last");
		json_set_str(last, "id", u.last_id);
		json_set_num(last, "input", u.last_input);
		json_set_num(last, "output", u.last_output);
		json_set_num(last, "cached", u.last_cached);
	}
	running_to(op_args(op), &u);
	if (*u.reply)	/* the reply as the transcript says it, for the runner to redact and cut */
		json_set_str(op_args(op), "reply", u.reply);
	return u.messages + u.compactions;
}

/*
 * Whether the turn's part p is kept, and then it is, in op: unless
 * session.transcripts is false, its one line is too long to read, or
 * the agent's kept transcript (t's bytes) would pass
 * session.transcriptLimit. By default (true) only the conversation's
 * lines are kept (transcript_filter); `all` keeps every line. A part
 * left out says so ("dropped"): the transcript kept is not whole.
 */
static int keep_turn(struct state_op *op, struct cmd_ctx *c, const struct agent_dialect *d, const char *agent,
		     const cJSON *t, const struct turn_part *p)
{
	char *mode = store_config_str(c->st, "session.transcripts"), *kept = NULL;
	int64_t limit;
	int keep = 1, all = mode && !strcasecmp(mode, "all"), error;
	size_t n = p->len;

	free(mode);
	if ((!all && (error = store_config_bool(&keep, c->st, "session.transcripts", 1)) < 0) ||
	    (error = store_config_int(&limit, c->st, "session.transcriptLimit", AGENT_TRANSCRIPT_LIMIT)) < 0)
		return error;
	/* a part left out: the kept transcript cannot give the agent its conversation back */
	if (!keep || p->long_line) {
		json_set_bool(op_args(op), "dropped", 1);
		return 0;
	}
	if (!all)
		transcript_filter(&kept, &n, d, p->text, p->len);
	if (!n)
		error = 0;	/* nothing of the conversation in this part */
	else if (json_num(t, "bytes", 0) + (double)n > (double)limit) {
		gs_warning("the transcript of agent '%s' passed session.transcriptLimit (%lld bytes): its later parts are not kept",
			   agent, (long long)limit);
		json_set_bool(op_args(op), "dropped", 1);
		error = 0;
	} else {
		error = keep_part(op, c, agent, kept ? kept : p->text, n, json_num(t, "parts", 0) + 1);
	}
	free(kept);
	return error;
}

/* The mark of the line of the file at fd that ends at `end` (0: the first line); 0 when it cannot be read. */
static int line_mark_at(char mark[TRANSCRIPT_MARK_SZ], int fd, off_t end)
{
	char buf[65536], *nl;
	off_t from = end > (off_t)sizeof(buf) ? end - (off_t)sizeof(buf) : 0;
	ssize_t got;

	if (!end) {	/* the first line */
		if ((got = pread(fd, buf, sizeof(buf), 0)) <= 0 || !(nl = memchr(buf, '\n', (size_t)got)))
			return 0;
		transcript_line_mark(mark, buf, (size_t)(nl - buf));
		return 1;
	}
	if ((got = pread(fd, buf, (size_t)(end - from), from)) != end - from || buf[got - 1] != '\n')
		return 0;
	for (nl = buf + got - 1; nl > buf && nl[-1] != '\n'; nl--)
		;
	if (nl == buf && from > 0)
		return 0;	/* longer than a look back reads */
	transcript_line_mark(mark, nl, (size_t)(buf + got - nl));
	return 1;
}

/*
 * Whether the file at fd (size bytes) is the one the agent's transcript
 * record t was counted in: its first line, and the line that ends at its
 * offset, what the record's marks say. Not when the conversation was
 * carried to another machine, which goes on from there: this machine's
 * file is another, and reading it from that offset would keep a wrong part.
 */
static int same_file(int fd, off_t size, const cJSON *t)
{
	const char *head = json_str(t, "head"), *tail = json_str(t, "tail");
	double offset = json_num(t, "offset", 0);
	char mark[TRANSCRIPT_MARK_SZ];

	if (head && (!line_mark_at(mark, fd, 0) || strcmp(mark, head)))
		return 0;
	if (tail && offset > 0 && offset <= (double)size && line_mark_at(mark, fd, (off_t)offset) &&
	    strcmp(mark, tail))
		return 0;
	return 1;
}

/* The marks of the part's first line (when it is the file's) and of its last, for the next turn to check. */
static void mark_part(struct state_op *op, const struct turn_part *p, int first)
{
	char head[TRANSCRIPT_MARK_SZ], tail[TRANSCRIPT_MARK_SZ];

	transcript_edge_marks(head, tail, p->text, p->len);
	if (first && *head)
		json_set_str(op_args(op), "head", head);
	if (*tail)
		json_set_str(op_args(op), "tail", tail);
}

int hook_read_turn(struct state_op **out, int *messages, struct hook_run *r, const cJSON *a, const char *path)
{
	struct turn_part part = { 0 };
	struct state_op *op = NULL;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "transcript");
	const char *agent = json_str(a, "id");
	double from = json_num(t, "offset", 0);
	int fd = -1, error = 0;
	struct stat sb;

	*out = NULL;
	*messages = 0;
	hook_open_transcript(&fd, r, path);
	if (fd < 0 || fstat(fd, &sb) < 0)
		goto cleanup;
	if (!same_file(fd, sb.st_size, t)) {
		gs_warning("the conversation of agent '%s' goes on in another file than '%s' (carried to another "
			   "machine): this turn is not recorded; to carry it here: git session resume --agent %s:%s --force",
			   agent, path, r->d->name, agent);
		goto cleanup;
	}
	op = op_new(OP_AGENT_TURN, NULL);
	if ((double)sb.st_size < from) {	/* rewritten from the start */
		json_set_bool(op_args(op), "restart", 1);
		from = 0;
	}
	if ((error = read_part(&part, fd, sb.st_size, from, path, agent)) < 0 || !part.len)
		goto cleanup;
	json_set_str(op_args(op), "agent", agent);
	json_set_num(op_args(op), "from", from);
	json_set_num(op_args(op), "to", from + (double)part.len);
	if (!part.long_line)
		mark_part(op, &part, from == 0);
	*messages = turn_usage(op, r->d, t, agent, &part);
	if ((error = keep_turn(op, r->c, r->d, agent, t, &part)) < 0)
		goto cleanup;
	*out = op;
	op = NULL;
cleanup:
	if (fd >= 0)
		close(fd);
	op_free(op);
	free(part.text);
	return error;
}

/* How far back from its end a transcript is read for a shell call's outcome: it is written just before the hook runs. */
#define EXIT_TAIL (256u << 10)

void hook_transcript_exit(struct hook_run *r)
{
	const struct agent_dialect *d = r->d;
	struct stat sb;
	off_t from;
	char *buf;
	ssize_t n;
	int fd;

	if (!d->scan_exit || !r->ev.call || !*r->ev.call || !r->ev.transcript || r->ev.has_exit)
		return;
	hook_open_transcript(&fd, r, r->ev.transcript);
	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0) {
		from = sb.st_size > (off_t)EXIT_TAIL ? sb.st_size - (off_t)EXIT_TAIL : 0;
		buf = xmalloc((size_t)(sb.st_size - from) + 1);
		if ((n = pread(fd, buf, (size_t)(sb.st_size - from), from)) > 0) {
			const char *end = buf + n, *p = buf, *nl;
			size_t mark = strlen(d->exit_mark);

			/* the last line of the call's wins: lines after the first newline only, when not read from the start */
			if (from && (nl = memchr(p, '\n', (size_t)(end - p))))
				p = nl + 1;
			for (; p < end; p = nl + 1) {
				cJSON *line;

				nl = memchr(p, '\n', (size_t)(end - p));
				nl = nl ? nl : end;
				if (!memmem(p, (size_t)(nl - p), d->exit_mark, mark) ||
				    !memmem(p, (size_t)(nl - p), r->ev.call, strlen(r->ev.call)))
					continue;
				if ((line = cJSON_ParseWithLength(p, (size_t)(nl - p))))
					d->scan_exit(&r->ev, line);
				cJSON_Delete(line);
			}
		}
		free(buf);
	}
	close(fd);
}

int hook_payload_turn(struct state_op **out, int *messages, struct hook_run *r, const cJSON *a)
{
	double at = json_num(cJSON_GetObjectItemCaseSensitive(a, "transcript"), "offset", 0);
	struct state_op *op;

	*out = NULL;
	*messages = 0;
	if (!r->ev.has_usage)
		return 0;
	op = op_new(OP_AGENT_TURN, NULL);
	json_set_str(op_args(op), "agent", json_str(a, "id"));
	json_set_num(op_args(op), "from", at);
	json_set_num(op_args(op), "to", at);
	json_set_num(op_args(op), "input", r->ev.usage[0]);
	json_set_num(op_args(op), "output", r->ev.usage[1]);
	json_set_num(op_args(op), "cached", r->ev.usage[2]);
	*messages = 1;
	*out = op;
	return 0;
}
