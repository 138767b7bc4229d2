/* flow.h — maximum flow (Dinic) on a small graph with int64 capacities, and the side of the
 * minimum cut the source reaches: the release rule's Hall condition (rules/release_capacity.c).
 * A graph owns its arrays (sl_flow_free). */
#ifndef SL_FLOW_H
#define SL_FLOW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SL_FLOW_INF INT64_MAX

struct sl_flow_edge {
	size_t to;
	int64_t cap; /* residual */
};

struct sl_flow {
	size_t n;
	struct sl_flow_edge *e; /* edge 2k and its reverse 2k + 1 */
	size_t ne, cap;
	size_t *head, *next; /* adjacency lists through edge indexes */
	size_t *level, *it, *queue;
};

void sl_flow_init(struct sl_flow *g, size_t vertices);
/* An edge u → v with capacity c; returns its index (its flow is the reverse edge's capacity). */
size_t sl_flow_add(struct sl_flow *g, size_t u, size_t v, int64_t c);
/* The maximum flow from s to t (saturating at INT64_MAX). */
int64_t sl_flow_max(struct sl_flow *g, size_t s, size_t t);
/* After sl_flow_max: whether v is reachable from s in the residual graph (the source side of a
 * minimum cut). reach has g->n entries. */
void sl_flow_reach(const struct sl_flow *g, size_t s, bool *reach);
/* dst becomes a copy of src, residual capacities included. */
void sl_flow_copy(struct sl_flow *dst, const struct sl_flow *src);
void sl_flow_free(struct sl_flow *g);

#endif
