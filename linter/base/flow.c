/* flow.c — Dinic's maximum flow (see flow.h): breadth-first levels, then blocking flows along
 * them by depth-first search with a per-vertex edge cursor, iteratively (no recursion: a deep
 * graph must not exhaust the stack). */
#include "flow.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define NONE ((size_t)-1)

void sl_flow_init(struct sl_flow *g, size_t vertices)
{
	memset(g, 0, sizeof *g);
	g->n = vertices;
	g->head = sl_xcalloc(vertices + 1, sizeof *g->head);
	for (size_t i = 0; i < vertices; i++)
		g->head[i] = NONE;
	g->level = sl_xcalloc(vertices + 1, sizeof *g->level);
	g->it = sl_xcalloc(vertices + 1, sizeof *g->it);
	g->queue = sl_xcalloc(vertices + 1, sizeof *g->queue);
}

size_t sl_flow_add(struct sl_flow *g, size_t u, size_t v, int64_t c)
{
	size_t cap = g->cap;
	sl_grow(&g->e, &g->cap, g->ne + 2, sizeof *g->e);
	if (g->cap != cap)
		g->next = sl_xrealloc(g->next, g->cap * sizeof *g->next);
	size_t k = g->ne;
	g->e[k] = (struct sl_flow_edge){v, c};
	g->e[k + 1] = (struct sl_flow_edge){u, 0};
	g->next[k] = g->head[u];
	g->head[u] = k;
	g->next[k + 1] = g->head[v];
	g->head[v] = k + 1;
	g->ne += 2;
	return k;
}

static bool levels(struct sl_flow *g, size_t s, size_t t)
{
	for (size_t i = 0; i < g->n; i++)
		g->level[i] = NONE;
	size_t qh = 0, qt = 0;
	g->level[s] = 0;
	g->queue[qt++] = s;
	while (qh < qt) {
		size_t u = g->queue[qh++];
		for (size_t k = g->head[u]; k != NONE; k = g->next[k])
			if (g->e[k].cap > 0 && g->level[g->e[k].to] == NONE) {
				g->level[g->e[k].to] = g->level[u] + 1;
				g->queue[qt++] = g->e[k].to;
			}
	}
	return g->level[t] != NONE;
}

/* One augmenting path along the levels, found without recursion: the path's edges are kept in
 * g->queue (free during this phase), the bottleneck pushed, and the search goes on. */
static int64_t augment(struct sl_flow *g, size_t s, size_t t)
{
	size_t depth = 0, u = s;
	size_t *path = g->queue;
	for (;;) {
		if (u == t) {
			int64_t push = SL_FLOW_INF;
			for (size_t i = 0; i < depth; i++)
				if (g->e[path[i]].cap < push)
					push = g->e[path[i]].cap;
			/* SL_FLOW_INF is an ordinary capacity that no finite demand exhausts: every edge is
			 * reduced by the push, its reverse raised, saturating. */
			for (size_t i = 0; i < depth; i++) {
				size_t k = path[i];
				g->e[k].cap -= push;
				g->e[k ^ 1].cap =
				    g->e[k ^ 1].cap > INT64_MAX - push ? INT64_MAX : g->e[k ^ 1].cap + push;
			}
			return push;
		}
		size_t k = g->it[u];
		while (k != NONE && !(g->e[k].cap > 0 && g->level[g->e[k].to] == g->level[u] + 1))
			k = g->it[u] = g->next[k];
		if (k == NONE) {
			if (u == s)
				return 0;
			g->level[u] = NONE; /* a dead end: never again this phase */
			u = g->e[path[--depth] ^ 1].to;
			g->it[u] = g->next[g->it[u]];
			continue;
		}
		path[depth++] = k;
		u = g->e[k].to;
	}
}

int64_t sl_flow_max(struct sl_flow *g, size_t s, size_t t)
{
	int64_t total = 0;
	while (levels(g, s, t)) {
		for (size_t i = 0; i < g->n; i++)
			g->it[i] = g->head[i];
		int64_t f;
		while ((f = augment(g, s, t)) > 0)
			total = total > SL_FLOW_INF - f ? SL_FLOW_INF : total + f;
	}
	return total;
}

void sl_flow_reach(const struct sl_flow *g, size_t s, bool *reach)
{
	memset(reach, 0, g->n * sizeof *reach);
	size_t *q = sl_xcalloc(g->n + 1, sizeof *q), qh = 0, qt = 0;
	reach[s] = true;
	q[qt++] = s;
	while (qh < qt) {
		size_t u = q[qh++];
		for (size_t k = g->head[u]; k != NONE; k = g->next[k])
			if (g->e[k].cap > 0 && !reach[g->e[k].to]) {
				reach[g->e[k].to] = true;
				q[qt++] = g->e[k].to;
			}
	}
	free(q);
}

void sl_flow_free(struct sl_flow *g)
{
	free(g->e);
	free(g->next);
	free(g->head);
	free(g->level);
	free(g->it);
	free(g->queue);
	memset(g, 0, sizeof *g);
}

void sl_flow_copy(struct sl_flow *dst, const struct sl_flow *src)
{
	sl_flow_init(dst, src->n);
	dst->cap = src->ne ? src->ne : 1;
	dst->ne = src->ne;
	dst->e = sl_xcalloc(dst->cap, sizeof *dst->e);
	dst->next = sl_xcalloc(dst->cap, sizeof *dst->next);
	memcpy(dst->e, src->e, src->ne * sizeof *dst->e);
	memcpy(dst->next, src->next, src->ne * sizeof *dst->next);
	memcpy(dst->head, src->head, src->n * sizeof *dst->head);
}
