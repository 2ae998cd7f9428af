/*
 * sync_order.c - the replay order of a merge (sync_order.h): Kahn's
 * topological sort with a binary heap of the ready nodes, keyed by
 * (operation time, commit id). Pure: no I/O.
 */
#include "git-session/sync_order.h"
#include "git-session/util.h"

#include <stdlib.h>
#include <string.h>

static int before(const struct sync_node *a, const struct sync_node *b)
{
	int c = strcmp(a->at, b->at);
	return c ? c < 0 : strcmp(a->commit, b->commit) < 0;
}

struct heap {
	size_t *v, n;
	const struct sync_node *nodes;
};

static void heap_push(struct heap *h, size_t x)
{
	size_t i = h->n++;

	for (; i && before(&h->nodes[x], &h->nodes[h->v[(i - 1) / 2]]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = x;
}

static size_t heap_pop(struct heap *h)
{
	size_t top = h->v[0], last = h->v[--h->n], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(&h->nodes[h->v[c + 1]], &h->nodes[h->v[c]]))
			c++;
		if (!before(&h->nodes[h->v[c]], &h->nodes[last]))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

size_t sync_replay_order(size_t *order, const struct sync_node *nodes, size_t n)
{
	size_t *waiting = xcalloc(n + 1, sizeof(*waiting)), *first = xcalloc(n + 2, sizeof(*first));
	size_t *children, edges = 0, placed = 0;
	struct heap h = { xcalloc(n + 1, sizeof(size_t)), 0, nodes };

	/* the children of each node, as one array cut at first[i] (counting sort) */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nodes[i].nparents; k++, edges++)
			first[nodes[i].parents[k] + 2]++;
	for (size_t i = 2; i < n + 2; i++)
		first[i] += first[i - 1];
	children = xcalloc(edges + 1, sizeof(*children));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nodes[i].nparents; k++)
			children[first[nodes[i].parents[k] + 1]++] = i;
	for (size_t i = 0; i < n; i++)
		if (!(waiting[i] = nodes[i].nparents))
			heap_push(&h, i);
	while (h.n) {
		size_t x = heap_pop(&h);

		order[placed++] = x;
		for (size_t k = first[x]; k < first[x + 1]; k++)
			if (!--waiting[children[k]])
				heap_push(&h, children[k]);
	}
	free(waiting);
	free(first);
	free(children);
	free(h.v);
	return placed;
}
