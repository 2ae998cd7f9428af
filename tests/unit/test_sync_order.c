/*
 * test_sync_order.c - the replay order of a merge: parents first, then
 * the earliest operation, ties by commit id; the same whatever order the
 * walk found the checkpoints in.
 */
#include "helpers.h"
#include "git-session/sync_order.h"

/* A graph: commit i's parents and time, as the walk would find them. */
struct graph {
	size_t n;
	const char *commit[16];
	const char *at[16];
	size_t parents[16][2];
	size_t nparents[16];
};

/* The commits in replay order, with the nodes given in the order perm says. */
static void order_of(const char **out, const struct graph *g, const size_t *perm)
{
	struct sync_node v[16];
	size_t where[16], order[16], pv[16][2];

	for (size_t i = 0; i < g->n; i++)
		where[perm[i]] = i;
	for (size_t i = 0; i < g->n; i++) {
		size_t from = perm[i];

		v[i].commit = g->commit[from];
		v[i].at = g->at[from];
		v[i].nparents = g->nparents[from];
		for (size_t k = 0; k < g->nparents[from]; k++)
			pv[i][k] = where[g->parents[from][k]];
		v[i].parents = pv[i];
	}
	assert_int_equal(sync_replay_order(order, v, g->n), g->n);
	for (size_t i = 0; i < g->n; i++)
		out[i] = v[order[i]].commit;
}

/*
 *   base(0) -- a1(1) -- a2(2)          ours
 *          \-- b1(3) -- b2(4) -- b3(5) theirs
 * a2 happened before b1 in time, but after a1; b3 and a1 at the same time.
 */
static const struct graph two_sides = {
	6,
	{ "c0", "c5", "c3", "c1", "c4", "c2" },
	{ "2025-01-01T00:00:00Z", "2025-01-01T00:00:03Z", "2025-01-01T00:00:04Z", "2025-01-01T00:00:05Z",
	  "2025-01-01T00:00:06Z", "2025-01-01T00:00:03Z" },
	{ { 0 }, { 0 }, { 1 }, { 0 }, { 3 }, { 4 } },
	{ 0, 1, 1, 1, 1, 1 },
};

static void test_parents_first_then_time_then_commit(void **unused)
{
	const size_t id[] = { 0, 1, 2, 3, 4, 5 };
	const char *got[6];
	const char *want[] = { "c0", "c5", "c3", "c1", "c4", "c2" };

	order_of(got, &two_sides, id);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(got[i], want[i]);
}

static void test_the_same_whatever_the_walk_order(void **unused)
{
	const char *first[6], *got[6];
	size_t perm[6] = { 0, 1, 2, 3, 4, 5 };
	const size_t id[] = { 0, 1, 2, 3, 4, 5 };

	order_of(first, &two_sides, id);
	srand(7);
	for (int round = 0; round < 200; round++) {
		for (size_t i = 5; i > 0; i--) {	/* Fisher-Yates */
			size_t j = (size_t)rand() % (i + 1), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		order_of(got, &two_sides, perm);
		for (size_t i = 0; i < 6; i++)
			assert_string_equal(got[i], first[i]);
	}
}

/* A merge node (two parents, no op time) waits for both; ties at equal times go by commit id. */
static void test_merge_nodes_and_ties(void **unused)
{
	const struct graph g = {
		5,
		{ "e", "d", "c", "b", "a" },
		{ "2025-01-01T00:00:01Z", "2025-01-01T00:00:02Z", "2025-01-01T00:00:02Z", "", "2025-01-01T00:00:09Z" },
		{ { 0 }, { 0 }, { 0 }, { 1, 2 }, { 3 } },
		{ 0, 1, 1, 2, 1 },
	};
	const size_t id[] = { 0, 1, 2, 3, 4 };
	const char *got[5], *want[] = { "e", "c", "d", "b", "a" };

	order_of(got, &g, id);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(got[i], want[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parents_first_then_time_then_commit),
		cmocka_unit_test(test_the_same_whatever_the_walk_order),
		cmocka_unit_test(test_merge_nodes_and_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
