/*
 * state_ops.c - the operation: its row of ops.h, its object, what it
 * loads and how it is applied. The table gives op_info and the handlers;
 * op_new and op_parse make an operation that carries its row;
 * state_op_needs says what of a large state it loads; state_apply runs
 * its handler, with the helpers the handlers share. Pure: no I/O, no git.
 */
#include "state-internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct op_info infos[OP_COUNT] = {
#define GS_OP_INFO(id, name, fn, flags, needs, tail) [OP_##id] = { OP_##id, name, flags, needs, tail },
	GS_OP_LIST(GS_OP_INFO)
#undef GS_OP_INFO
};

static const apply_fn handlers[OP_COUNT] = {
#define GS_OP_HANDLER(id, name, fn, flags, needs, tail) [OP_##id] = fn,
	GS_OP_LIST(GS_OP_HANDLER)
#undef GS_OP_HANDLER
};

const struct op_info *op_info(enum op_id id)
{
	return id < OP_COUNT ? &infos[id] : NULL;
}

const struct op_info *op_lookup(const char *name)
{
	for (size_t i = 0; name && i < OP_COUNT; i++)
		if (!strcmp(infos[i].name, name))
			return &infos[i];
	return NULL;
}

/* rollback and merge: the engine writes their state itself; replaying one does nothing. */
int state_apply_recorded(struct apply_ctx *c)
{
	return state_fail(c, "recorded by git-session itself, not replayed");
}

struct state_op *op_new(enum op_id id, const char *at)
{
	struct state_op *op = xcalloc(1, sizeof(*op));

	op->info = op_info(id);
	op->json = cJSON_CreateObject();
	json_set_str(op->json, "op", op->info->name);
	json_set_str(op->json, "at", at);
	json_set(op->json, "args", cJSON_CreateObject());
	return op;
}

void op_free(struct state_op *op)
{
	if (!op)
		return;
	cJSON_Delete(op->json);
	free(op);
}

int op_parse(struct state_op *out, cJSON *json)
{
	out->json = json;
	out->info = op_lookup(json_str(json, "op"));
	return out->info ? 0 : GS_ENOTFOUND;
}

cJSON *op_args(const struct state_op *op)
{
	return cJSON_GetObjectItemCaseSensitive(op->json, "args");
}

const char *op_name(const struct state_op *op)
{
	return json_str(op->json, "op");
}

int state_op_shards(struct state_shards *out, const struct state_op *op)
{
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(op_args(op), "files");
	const struct op_info *info = op->info;

	if (!info || !(info->flags & OPF_BY_PATH) || !cJSON_IsObject(files))
		return 0;
	memset(out, 0, sizeof(*out));
	for (const cJSON *f = files->child; f; f = f->next) {
		uint32_t h = 2166136261u;

		/* and the shard (as state_shard() has it) of each folder above: a file there is what the path may not come below */
		for (const unsigned char *p = (const unsigned char *)f->string; *p; p++) {
			if (*p == '/')
				out->want[h & 0xff] = 1;
			h = (h ^ *p) * 16777619u;
		}
		out->want[state_shard(f->string)] = 1;
	}
	return 1;
}

unsigned state_op_needs(const struct state_op *op)
{
	const struct op_info *info = op->info;

	if (!info)
		return STATE_ALL;
	if ((info->flags & OPF_AGENT) && json_str(op_args(op), "agent"))
		return info->needs | NEED(AGENTS);
	return info->needs;
}

unsigned state_op_tail(const struct state_op *op)
{
	const struct op_info *info = op->info;

	return info ? info->tail & info->needs : 0;
}

int state_size(struct apply_ctx *c, enum state_split_index i)
{
	return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c->state, state_split_keys[i])) + c->lim->before[i];
}

int state_fail(struct apply_ctx *c, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(c->err);
	c->err = sbuf_detach(&sb, NULL);
	return GS_ERROR;
}

int state_arg_text(const char **out, struct apply_ctx *c, const char *key, int required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, key);
	size_t len;

	*out = NULL;
	if (!v || cJSON_IsNull(v)) {
		if (required)
			return state_fail(c, "missing %s", key);
		return 0;
	}
	if (!cJSON_IsString(v))
		return state_fail(c, "%s must be a string", key);
	len = strlen(v->valuestring);
	if (len > STATE_TEXT_MAX)
		return state_fail(c, "%s is too long (%zu bytes, at most %d)", key, len, STATE_TEXT_MAX);
	if (!gs_utf8_valid(v->valuestring, len))
		return state_fail(c, "%s is not valid UTF-8", key);
	if (required && !len)
		return state_fail(c, "empty %s", key);
	*out = v->valuestring;
	return 0;
}

void state_subject_quote(struct sbuf *sb, const char *s, size_t n)
{
	size_t i = 0;

	sbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xc0) != 0x80 && i++ == n) {
			sbuf_adds(sb, "...");
			break;
		}
		sbuf_addch(sb, *p < 0x20 ? ' ' : (char)*p);
	}
	sbuf_addch(sb, '"');
}

/*
 * An operation is a sign of life (session.staleAfter) of the agent it
 * names, when it reads the agents (so a state kept in parts gets the
 * same as a whole one), and of the phase it works in: the one it names,
 * else its agent's, else the current one.
 */
static void mark_seen(cJSON *state, const struct state_op *op, const char *at)
{
	const char *name = json_str(op_args(op), "agent");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(op_args(op), "phase");
	cJSON *a = NULL, *p = NULL;

	if (name && (state_op_needs(op) & NEED(AGENTS)) && (a = state_agent(state, name)))
		json_set_str(a, "seen", at);
	if (cJSON_IsNumber(v))
		p = state_phase(state, (int)v->valuedouble);
	else if (a && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "phase")))
		p = state_phase(state, (int)json_num(a, "phase", 0));
	else
		p = state_phase(state, (int)json_num(state, "current_phase", -1));
	if (p && !strcmp(json_str(p, "status") ? json_str(p, "status") : "", ST_IN_PROGRESS))
		json_set_str(p, "seen", at);
}

/*
 * What an applied operation leaves besides its handler's work, or GS_ERROR
 * with *err: tokens a reader takes back, the time, the signs of life, and
 * where the project stands (its "context").
 */
static int finish(cJSON *state, const struct state_op *op, const char *at, char **err)
{
	const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(op->json, "context");
	const char *bad;

	/* what is written must read back: the reader takes only whole token counts below 2^53 */
	if ((bad = state_token_not_whole(cJSON_GetObjectItemCaseSensitive(state, "tokens")))) {
		*err = xstrfmt("%s would leave tokens.%s at %.0f, past what a session counts exactly: nothing written",
			       op_name(op), bad, json_num(cJSON_GetObjectItemCaseSensitive(state, "tokens"), bad, 0));
		return GS_ERROR;
	}
	if (op->info->id != OP_SESSION_IMPORT) {	/* an import keeps the source's time */
		json_set_str(state, "updated", at);
		mark_seen(state, op, at);
	}
	/* an older version's: one clone's path, not the session's */
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(state, "project"), "path");
	if (cJSON_IsObject(ctx)) {
		cJSON *project = json_obj(state, "project");
		if (json_str(ctx, "branch"))
			json_set_str(project, "branch", json_str(ctx, "branch"));
		if (json_str(ctx, "head"))
			json_set_str(project, "head", json_str(ctx, "head"));
	}
	return 0;
}

int state_apply(cJSON *state, const struct state_op *op, const struct state_limits *lim,
		char **subject, char **err)
{
	struct state_limits deflim = STATE_LIMITS_INIT;
	struct apply_ctx c = { state, op_args(op), json_str(op->json, "at"), lim ? lim : &deflim, SBUF_INIT, NULL };
	const char *name = op_name(op), *status;
	int error;

	*subject = *err = NULL;
	if (!op->info) {
		*err = xstrfmt("unknown operation '%s'", name ? name : "");
		return GS_ERROR;
	}
	if (!c.at || !cJSON_IsObject(c.args)) {
		*err = xstrfmt("malformed operation '%s'", name);
		return GS_ERROR;
	}
	status = json_str(state, "status");
	if (status && strcmp(status, ST_IN_PROGRESS) && !(op->info->flags & OPF_CLOSED)) {
		*err = xstrfmt("session '%s' is %s", json_str(state, "session_id"), status);
		return GS_ERROR;
	}
	if ((error = handlers[op->info->id](&c)) < 0) {
		sbuf_release(&c.subject);
		if (error == GS_EPARTIAL) {	/* it needs more of the state than was loaded */
			free(c.err);
			return GS_EPARTIAL;
		}
		*err = c.err ? c.err : xstrfmt("%s failed", name);
		return GS_ERROR;
	}
	if (finish(state, op, c.at, err) < 0) {
		sbuf_release(&c.subject);
		return GS_ERROR;
	}
	*subject = sbuf_detach(&c.subject, NULL);
	return 0;
}
