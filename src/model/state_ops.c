/*
 * state_ops.c - the operation table of ops.h made into C: what each
 * operation is (op_info) and which handler applies it (state_apply).
 * Pure: no I/O, no git.
 */
#include "state-internal.h"

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

apply_fn state_handler(enum op_id id)
{
	return handlers[id];
}

/* rollback and merge: the engine writes their state itself; replaying one does nothing. */
int op_recorded(struct apply_ctx *c)
{
	return state_fail(c, "recorded by git-session itself, not replayed");
}
