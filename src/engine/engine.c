/*
 * engine.c - read, apply, write, compare-and-swap, retry. The single path
 * every change to a session takes.
 */
#include "git-session/engine.h"
#include "git-session/redact.h"
#include "git-session/json.h"
#include "git-session/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int engine_init(struct engine *e, gs_store *st)
{
	int64_t v;

	e->st = st;
	e->lim.max_retries = STATE_DEFAULT_MAX_RETRIES;
	if (store_config_int(&v, st, "session.maxRetries", STATE_DEFAULT_MAX_RETRIES) < 0 ||
	    store_config_int(&e->lock_timeout_ms, st, "session.lockTimeout", 20000) < 0 ||
	    store_config_int(&e->stale_lock_age, st, "session.staleLockAge", 10) < 0)
		return GS_ERROR;
	if (v < 0 || v > 1000)
		return gs_error("session.maxRetries must be between 0 and 1000");
	e->lim.max_retries = (int)v;
	return 0;
}

char *engine_refname(const char *id)
{
	return xstrfmt("%s%s", SESSIONS_PREFIX, id);
}

/* What of state/ a load reads: a struct store_want and the lists it points into. */
struct load_want {
	struct store_want want;
	const char *folders[SPLIT_COUNT + 1], *tails[SPLIT_COUNT + 1], *shards[256 + 1];
	char names[256][sizeof("ff.json")];
};

/*
 * Fills w with the folders of the collections in mask, of those in tail
 * only the last tail_chunks chunks (none for 0), and of the manifest only
 * the shards given ("3a.json"). Returns its want, or NULL when all of
 * state/ is to be read.
 */
static const struct store_want *want_init(struct load_want *w, unsigned mask, unsigned tail, int tail_chunks,
					  const struct state_shards *shards)
{
	size_t nf = 0, nt = 0, ns = 0;
	int some_files = shards && !shards->count_rest;

	if (mask == STATE_ALL && !tail && !shards)
		return NULL;
	memset(w, 0, sizeof(*w));
	for (unsigned i = 0; i < ARRAY_SIZE(state_split_keys); i++)
		if ((mask & tail & (1u << i)) && i != SPLIT_FILES) {
			if (tail_chunks)
				w->tails[nt++] = state_split_keys[i];
		} else if ((mask & (1u << i)) && !(some_files && i == SPLIT_FILES)) {
			w->folders[nf++] = state_split_keys[i];
		}
	for (unsigned i = 0; some_files && (mask & NEED(FILES)) && i < 256; i++)
		if (shards->want[i]) {
			snprintf(w->names[ns], sizeof(w->names[ns]), "%02x.json", i);
			w->shards[ns] = w->names[ns];
			ns++;
		}
	w->want.folders = w->folders;
	w->want.tails = w->tails;
	w->want.tail_chunks = tail_chunks;
	w->want.sharded = state_split_keys[SPLIT_FILES];
	w->want.shards = w->shards;
	return &w->want;
}

static int load_tip(cJSON **state, struct state_loaded *loaded, struct store_tip *tip,
		    unsigned wanted, unsigned tail, const struct state_shards *shards, const char *what)
{
	char *err = NULL;

	if (state_load(state, loaded, tip->json, tip->len, wanted, tail, shards, tip->parts, tip->nparts,
		       &err) < 0) {
		gs_error("checkpoint %.12s of '%s' is damaged: session.json: %s", tip->commit, what, err);
		gs_hint("run 'git session fsck --repair' to go back to the last good checkpoint");
		free(err);
		return GS_ERROR;
	}
	return 0;
}

/*
 * A session's ref must point at a checkpoint of that session: one pointed
 * at another's (by hand) would have its state shown, and written on, as
 * this session's.
 */
static int own_checkpoint(const cJSON *state, const struct store_tip *tip, const char *refname)
{
	const char *sid = json_str(state, "session_id"), *id = strrchr(refname, '/');

	if (!id || !sid || !strcmp(sid, id + 1) ||
	    (strncmp(refname, SESSIONS_PREFIX, strlen(SESSIONS_PREFIX)) &&
	     strncmp(refname, ARCHIVE_PREFIX, strlen(ARCHIVE_PREFIX))))
		return 0;
	gs_error("the ref of session '%s' points at %.12s, a checkpoint of session '%s'", id + 1, tip->commit, sid);
	gs_hint("run 'git session fsck --repair %s' to bring back its own last checkpoint", id + 1);
	return GS_ERROR;
}

/*
 * Loads the session.json of refname with the collections in wanted; with
 * shards, only those shards of the manifest are parsed.
 */
static int load_want(cJSON **state, struct state_loaded *loaded, struct store_tip *tip, gs_store *st,
		     const char *refname, unsigned wanted, unsigned tail, int tail_chunks,
		     const struct state_shards *shards)
{
	struct load_want w;
	int error;

	*state = NULL;
	error = store_read_ref_want(tip, st, refname, want_init(&w, wanted, tail, tail_chunks, shards));
	if (error < 0)
		return error;
	if ((error = load_tip(state, loaded, tip, wanted, tail, shards, refname)) < 0 ||
	    (error = own_checkpoint(*state, tip, refname)) < 0) {
		cJSON_Delete(*state);
		*state = NULL;
		store_tip_clear(tip);
	}
	return error;
}

int engine_load_ref(cJSON **state, struct store_tip *tip, gs_store *st, const char *refname)
{
	return engine_load_some(state, tip, st, refname, STATE_ALL);
}

int engine_load_some(cJSON **state, struct store_tip *tip, gs_store *st, const char *refname,
		     unsigned wanted)
{
	struct state_loaded loaded;

	return load_want(state, &loaded, tip, st, refname, wanted, 0, 0, NULL);
}

int engine_load_view(cJSON **state, struct store_tip *tip, int before[SPLIT_COUNT], gs_store *st,
		     const char *refname)
{
	struct state_loaded loaded;
	int error = load_want(state, &loaded, tip, st, refname, STATE_ALL, ENGINE_VIEW_TAIL, 1, NULL);

	for (unsigned i = 0; i < SPLIT_COUNT; i++)
		before[i] = error ? 0 : state_tail_before(&loaded, i);
	return error;
}

int engine_load_rev(cJSON **state, struct store_tip *tip, gs_store *st, const char *rev)
{
	struct state_loaded loaded;
	int error;

	*state = NULL;
	if ((error = store_read_rev(tip, st, rev)) < 0)
		return error;
	if ((error = load_tip(state, &loaded, tip, STATE_ALL, 0, NULL, rev)) < 0)
		store_tip_clear(tip);
	return error;
}

int engine_peek(char **vals, struct store_tip *tip, gs_store *st, const char *refname, const char *hex,
		const char *const *keys, size_t n)
{
	cJSON *state = NULL;
	int error = hex ? store_read_commit(tip, st, hex, refname)
			: store_read_ref_want(tip, st, refname, &(struct store_want){ 0 });

	if (error < 0)
		return error;
	if (json_scan_top(vals, tip->json, tip->len, keys, n) == 0 && vals[0])
		return 0;
	for (size_t i = 0; i < n; i++)
		free(vals[i]);
	store_tip_clear(tip);
	if ((error = engine_load_ref(&state, tip, st, refname)) < 0)
		return error;	/* it says what is wrong */
	for (size_t i = 0; i < n; i++)
		vals[i] = json_str(state, keys[i]) ? xstrdup(json_str(state, keys[i])) : NULL;
	cJSON_Delete(state);
	return 0;
}

int engine_write(char out[HEX_SZ], gs_store *st, struct store_checkpoint *cp, const cJSON *state,
		 const struct state_loaded *loaded, const struct gs_part *old, size_t nold, int old_known)
{
	struct gs_part *parts = NULL;
	char *core = NULL;
	size_t nparts = 0;
	int error;

	if ((error = state_split(&core, &cp->len, &parts, &nparts, state, loaded, old, nold)) < 0)
		return error;
	if (!old_known) {	/* what the base tree keeps under state/ is unknown: start afresh */
		parts = xrealloc(parts, (nparts + 1) * sizeof(*parts));
		memmove(parts + 1, parts, nparts * sizeof(*parts));
		parts[0].path = xstrdup("state");
		parts[0].text = NULL;
		parts[0].len = 0;
		nparts++;
	}
	cp->json = core;
	cp->parts = parts;
	cp->nparts = nparts;
	error = store_write_checkpoint(out, st, cp);
	cp->json = NULL;
	cp->parts = NULL;
	cp->nparts = 0;
	free(core);
	gs_parts_free(parts, nparts);
	return error;
}

int engine_find(char **refname, gs_store *st, const char *id)
{
	char *err = NULL, *archived;

	*refname = NULL;
	if (state_valid_id(id, &err) < 0) {
		gs_error("invalid session id '%s': %s", id, err);
		free(err);
		return GS_ERROR;
	}
	*refname = engine_refname(id);
	if (store_ref_exists(st, *refname))
		return 0;
	if (store_ref_damaged(st, *refname)) {	/* there, but unreadable: not "no such session" */
		gs_error("the ref of session '%s' is damaged", id);
		gs_hint("run 'git session fsck --repair %s' to recover it from its reflog", id);
		free(*refname);
		*refname = NULL;
		return GS_ERROR;
	}
	free(*refname);
	*refname = NULL;
	archived = xstrfmt("%s%s", ARCHIVE_PREFIX, id);
	if (store_ref_exists(st, archived))
		gs_error("session '%s' is archived (run 'git session unarchive %s')", id, id);
	else
		gs_error("no such session: '%s'", id);
	free(archived);
	return GS_ENOTFOUND;
}

int engine_active(char **id, gs_store *st)
{
	if (store_active(id, st) < 0)
		return GS_ERROR;
	if (!*id) {
		gs_error("no active session");
		gs_hint("start one with 'git session start <topic>' or pick one with 'git session switch <id>';");
		gs_hint("an agent's hooks start one at its first prompt ('git session hooks install --agent <cli>'),");
		gs_hint("and 'git session pull' brings your team's");
		return GS_ENOTFOUND;
	}
	return 0;
}

/*
 * files/<path> updates from the operation's "files" argument, and the
 * blobs its "tree" argument puts under transcripts/ (an agent's turn).
 */
static struct store_file *op_files(size_t *n, const struct state_op *op)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(op_args(op), "files"), *f;
	const cJSON *tree = cJSON_GetObjectItemCaseSensitive(op_args(op), "tree");
	struct store_file *out;

	*n = 0;
	if (!cJSON_IsObject(files) && !cJSON_IsObject(tree))
		return NULL;
	out = xcalloc((size_t)(cJSON_GetArraySize(files) + cJSON_GetArraySize(tree)), sizeof(*out));
	for (f = cJSON_IsObject(files) ? files->child : NULL; f; f = f->next) {
		out[*n].path = f->string;
		out[*n].link = json_str(f, "mode") && !strcmp(json_str(f, "mode"), FILE_MODE_LINK);
		out[(*n)++].oid = json_str(f, "oid");
	}
	for (f = cJSON_IsObject(tree) ? tree->child : NULL; f; f = f->next)
		if (cJSON_IsString(f) && !strncmp(f->string, "transcripts/", 12) && !strstr(f->string, "..")) {
			out[*n].path = f->string;
			out[*n].raw = 1;
			out[(*n)++].oid = f->valuestring;
		}
	return out;
}

char *engine_message(const char *subject, const char *body, const char *id, const struct state_op *op)
{
	const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(op->json, "context");
	struct sbuf sb = SBUF_INIT;

	sbuf_adds(&sb, subject);
	sbuf_adds(&sb, "\n\n");
	if (body && *body) {
		sbuf_adds(&sb, body);
		sbuf_adds(&sb, body[strlen(body) - 1] == '\n' ? "\n" : "\n\n");
	}
	sbuf_addf(&sb, "Session-Id: %s\nSession-Op: %s\nBranch: %s\nHead: %s\n", id,
		  op_name(op), json_str(ctx, "branch"), json_str(ctx, "head"));
	return sbuf_detach(&sb, NULL);
}

/* Fills in the time and where the project stands, once for all attempts. */
int engine_complete_op(cJSON *op, gs_store *st)
{
	char at[32], head[HEX_SZ], *branch = NULL;
	cJSON *ctx;
	time_t now;

	if (!json_str(op, "at")) {
		if (store_now(&now, st) < 0)
			return GS_ERROR;
		gs_time_iso(at, sizeof(at), now);
		json_set_str(op, "at", at);
	}
	if (store_head(&branch, head, st) < 0)
		return GS_ERROR;
	ctx = json_obj(op, "context");
	json_set_str(ctx, "branch", branch);
	json_set_str(ctx, "head", head);
	free(branch);
	return 0;
}

static void backoff(unsigned *seed, unsigned *delay_us)
{
	struct timespec ts;
	unsigned d = *delay_us / 2 + (unsigned)rand_r(seed) % (*delay_us + 1);

	ts.tv_sec = d / 1000000;
	ts.tv_nsec = (long)(d % 1000000) * 1000;
	nanosleep(&ts, NULL);
	if (*delay_us < 50000)
		*delay_us *= 2;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void engine_result_clear(struct engine_result *r)
{
	free(r->subject);
	cJSON_Delete(r->state);
	memset(r, 0, sizeof(*r));
}

/*
 * How much of a large state an attempt loads: what the operation needs,
 * of the manifest only its paths' shards (LOAD_SHARDS), those and a
 * count of the others (LOAD_COUNTED, for new paths), or all (LOAD_ALL).
 * An attempt that reached further says GS_EPARTIAL; the next loads more.
 */
enum { LOAD_SHARDS, LOAD_COUNTED, LOAD_ALL };

/*
 * One attempt: read the tip as level says, apply, write. The ref does
 * not move here. GS_EPARTIAL when the operation reached what was not
 * loaded.
 */
/* The state an attempt applies op to, read as far as level says (a new one to create). */
static int attempt_load(struct engine_result *r, struct state_loaded *loaded, struct store_tip *tip,
			struct engine *e, const char *id, const char *refname, const struct state_op *op,
			int flags, int level, struct state_shards *shards)
{
	int error;

	if (shards)
		shards->count_rest = level == LOAD_COUNTED;
	if (flags & ENGINE_CREATE) {
		memset(tip, 0, sizeof(*tip));
		r->state = cJSON_CreateObject();
		return 0;
	}
	if ((error = load_want(&r->state, loaded, tip, e->st, refname,
			       level == LOAD_ALL ? STATE_ALL : state_op_needs(op),
			       level == LOAD_ALL ? 0 : state_op_tail(op), 0,
			       level == LOAD_ALL ? NULL : shards)) < 0) {
		if (error == GS_ENOTFOUND)
			gs_error("no such session: '%s'", id);
		return GS_ERROR;
	}
	return 0;
}

/* A refusal, with the way on when it is the session's status that refuses. */
static void refused(const cJSON *state, const struct state_op *op, const char *id, const char *err)
{
	const char *st = json_str(state, "status");
	int finished = st && (!strcmp(st, ST_COMPLETED) || !strcmp(st, ST_ABORTED));

	gs_error("%s", err);
	if (finished && !(op->info->flags & OPF_CLOSED))
		gs_hint("reopen it first: git session reopen %s", id);
	else if (st && !strcmp(st, ST_PAUSED) && op->info->id != OP_SESSION_PAUSE &&
		 (op->info->id == OP_SESSION_REOPEN || !(op->info->flags & OPF_CLOSED)))
		gs_hint("resume it first: git session resume %s", id);
}

static int attempt(struct engine_result *r, struct store_tip *tip, struct engine *e,
		   const char *id, const char *refname, struct state_op *op, const char *body, int flags,
		   int level, struct state_shards *shards)
{
	struct store_checkpoint cp = { 0 };
	char *err = NULL, *opjson = NULL, *msg = NULL;
	struct store_file *files = NULL;
	struct state_loaded loaded = { 0 };
	struct state_limits lim = e->lim;
	int error;

	if ((error = attempt_load(r, &loaded, tip, e, id, refname, op, flags, level, shards)) < 0)
		return error;
	/* checked on the state this attempt writes on: no second read */
	if ((flags & ENGINE_IN_PROGRESS) && strcmp(json_str(r->state, "status"), ST_IN_PROGRESS))
		return GS_ESKIPPED;
	lim.files_elsewhere = loaded.files_elsewhere;
	for (unsigned i = 0; i < SPLIT_COUNT; i++)
		lim.before[i] = state_tail_before(&loaded, i);
	if ((error = state_apply(r->state, op, &lim, &r->subject, &err)) < 0) {
		if (error != GS_EPARTIAL)	/* else: load more, and apply again */
			refused(r->state, op, id, err);
		goto cleanup;
	}
	/* what is written must read back: a reader refuses what nests deeper */
	if (json_depth_over(r->state, JSON_MAX_DEPTH) || json_depth_over(op->json, JSON_MAX_DEPTH)) {
		error = gs_error("the state or operation would nest deeper than the %d levels a checkpoint may have: "
				 "nothing written", JSON_MAX_DEPTH);
		goto cleanup;
	}
	opjson = json_print(op->json, 1, &cp.oplen);
	msg = engine_message(r->subject, body, id, op);
	files = op_files(&cp.nfiles, op);
	cp.parent = tip;
	cp.op = opjson;
	cp.files = files;
	cp.message = msg;
	cp.author_at = flags & ENGINE_AUTHOR_AT ? json_str(op->json, "at") : NULL;
	error = engine_write(r->commit, e->st, &cp, r->state, &loaded, tip->parts, tip->nparts, 1);
cleanup:
	free(err);
	free(opjson);
	free(msg);
	free(files);
	return error;
}

/* How long a ref update waits on locks: session.lockTimeout, session.staleLockAge. */
struct lock_wait {
	int64_t deadline;
	unsigned seed, delay;
	int broken;
};

static void lock_wait_init(struct lock_wait *w, const struct engine *e)
{
	w->deadline = now_ms() + e->lock_timeout_ms;
	w->seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	w->delay = 500;
	w->broken = 0;
}

/*
 * After the compare-and-swap on refname lost: 0 to try again, once a dead
 * writer's lock is removed or after a wait; an error when the session to
 * create exists or session.lockTimeout is spent.
 */
static int commit_lost(struct lock_wait *w, const struct engine *e, const char *id,
		       const char *refname, int create)
{
	/* a dead writer's lock: try again at once (a few times: never loop on it) */
	if (w->broken < 3 && (!create || !store_ref_exists(e->st, refname)) &&
	    store_break_stale_lock(e->st, refname, (int)e->stale_lock_age)) {
		w->broken++;
		return 0;
	}
	if (create)
		return gs_error("session '%s' already exists", id);
	if (now_ms() > w->deadline) {
		gs_error("cannot update '%s': other writers kept it busy for %lld ms",
			 refname, (long long)e->lock_timeout_ms);
		gs_hint("if no other git session is running, a stale '%s.lock' may be left in the git directory",
			refname);
		return GS_ERROR;
	}
	backoff(&w->seed, &w->delay);
	return 0;
}

/* The checkpoint r made, published on refname if the tip is still the one it read. */
static int publish(const struct engine *e, const char *refname, const struct engine_result *r,
		   struct store_tip *tip)
{
	char *logmsg = xstrfmt("session: %s", r->subject);
	int error = store_cas(e->st, refname, r->commit, tip->exists ? tip->commit : NULL, logmsg);

	free(logmsg);
	store_tip_clear(tip);
	return error;
}

int engine_commit(struct engine_result *out, struct engine *e, const char *id, struct state_op *op,
		  const char *body, int flags)
{
	struct engine_result r = { 0 };
	char *refname = engine_refname(id), *clean_body = NULL;
	size_t n;
	struct store_tip tip = { 0 };
	struct lock_wait w;
	struct state_shards shards;
	int error, level = LOAD_SHARDS, by_path = state_op_shards(&shards, op);

	if ((error = engine_complete_op(op->json, e->st)) < 0)
		goto cleanup;
	/* no secret reaches git: the arguments are stored (op.json), and so is the body */
	redact_json(op_args(op));
	if (body && redact_text(&clean_body, &n, body, strlen(body)) > 0)
		body = clean_body;
	lock_wait_init(&w, e);
	for (;;) {
		if ((error = attempt(&r, &tip, e, id, refname, op, body, flags, level,
				     by_path ? &shards : NULL)) == GS_EPARTIAL && level != LOAD_ALL) {
			engine_result_clear(&r);
			store_tip_clear(&tip);
			level = level == LOAD_SHARDS && by_path ? LOAD_COUNTED : LOAD_ALL;
			continue;
		}
		if (error < 0 || (error = publish(e, refname, &r, &tip)) == 0)
			break;
		engine_result_clear(&r);
		if (error != GS_ERACE || (error = commit_lost(&w, e, id, refname, flags & ENGINE_CREATE)) < 0)
			break;
	}
	if (!error && out) {
		*out = r;
		memset(&r, 0, sizeof(r));
	}
cleanup:
	engine_result_clear(&r);
	store_tip_clear(&tip);
	free(refname);
	free(clean_body);
	return error;
}

/*
 * After an update lost to a lock on a or b: 0 to try again, once a dead
 * writer's lock is removed or after a wait; an error when
 * session.lockTimeout is spent.
 */
static int lock_wait(struct lock_wait *w, const struct engine *e, const char *a, const char *b)
{
	/* a few times at most: never loop on a lock that comes back */
	if (w->broken < 3 && (store_break_stale_lock(e->st, a, (int)e->stale_lock_age) |
			      store_break_stale_lock(e->st, b, (int)e->stale_lock_age) |
			      (strcmp(a, b) && store_break_stale_lock(e->st, STORE_MOVE_LOCK, (int)e->stale_lock_age)))) {
		w->broken++;
		return 0;
	}
	if (now_ms() > w->deadline) {
		if (strcmp(a, b))
			gs_error("cannot move '%s' to '%s': one of them, or %s, stayed locked for %lld ms; nothing was changed",
				 a, b, STORE_MOVE_LOCK, (long long)e->lock_timeout_ms);
		else
			gs_error("cannot update '%s': it stayed locked for %lld ms; nothing was changed", a,
				 (long long)e->lock_timeout_ms);
		gs_hint("if no other git session is running, a stale '.lock' file may be left in the git directory; "
			"it is removed once older than session.staleLockAge (%llds)", (long long)e->stale_lock_age);
		return GS_ERROR;
	}
	backoff(&w->seed, &w->delay);
	return 0;
}

int engine_move(struct engine *e, const char *from, const char *to, const char *logmsg)
{
	struct lock_wait w;
	int error;

	lock_wait_init(&w, e);
	while ((error = store_rename(e->st, from, to, logmsg)) == GS_ERACE)
		if ((error = lock_wait(&w, e, from, to)) < 0)
			break;
	return error;
}

int engine_delete_ref(struct engine *e, const char *refname, const char *expect)
{
	struct lock_wait w;
	int error;

	lock_wait_init(&w, e);
	while ((error = store_delete_ref(e->st, refname, expect)) == GS_ERACE)
		if ((error = lock_wait(&w, e, refname, refname)) < 0)
			break;
	return error;
}

int engine_active_anywhere(int *out, gs_store *st, const char *id)
{
	char **ids = NULL;
	size_t n = 0;
	int error = store_active_all(&ids, &n, st);

	*out = 0;
	for (size_t i = 0; i < n; i++)
		*out |= !strcmp(ids[i], id);
	store_ids_free(ids, n);
	return error;
}
