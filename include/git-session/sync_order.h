/*
 * sync_order.h - the order in which a merge replays the checkpoints of
 * two histories: parents first, and among those ready the earliest
 * operation first, ties by commit id. A function of the graph alone, so
 * every machine that merges replays the same sequence. Pure: no I/O.
 */
#ifndef GIT_SESSION_SYNC_ORDER_H
#define GIT_SESSION_SYNC_ORDER_H

#include <stddef.h>

struct sync_node {
	const char *commit;	/* hex id; borrowed */
	const char *at;		/* the operation's time, "" for none; borrowed */
	const size_t *parents;	/* indexes of its parents among the nodes; borrowed */
	size_t nparents;
};

/*
 * Fills order[0..n) with the indexes of nodes in replay order; returns
 * how many it placed (fewer than n only for a graph with a cycle, which
 * a commit graph never has). O(n log n + edges).
 */
size_t sync_replay_order(size_t *order, const struct sync_node *nodes, size_t n);

#endif
