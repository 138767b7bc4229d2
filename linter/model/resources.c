/* resources.c — resource lists (see resources.h): amounts added and maxed by name, and read from
 * a ResourceList as the API server accepts its quantities. */
#include "resources.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model_read.h"
#include "quantity.h"

static struct sl_res *res_slot(struct sl_reslist *l, const char *name, const struct sl_ynode *node)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	if (l->n == l->cap) {
		/* Room for two first (most lists: cpu and memory, a pod's request among them), then twice
		 * as much: sl_grow's four would leave half of every pod's lists empty. */
		l->cap = l->cap ? 2 * l->cap : 2;
		l->v = sl_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	struct sl_res *r = &l->v[l->n++];
	r->name = name;
	r->amount = 0;
	r->node = node;
	return r;
}

void sl_res_add(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node)
{
	struct sl_res *r = res_slot(l, name, node);
	r->amount = sl_sat_add(r->amount, amount);
	if (!r->node)
		r->node = node;
}

void sl_res_max(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node)
{
	struct sl_res *r = res_slot(l, name, node);
	if (amount > r->amount) {
		r->amount = amount;
		r->node = node;
	}
}

void sl_res_free(struct sl_reslist *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

int sl_read_amount(struct sl_read *c, const struct sl_ynode *v, const char *name, const char *path, int64_t *out)
{
	struct sl_qty q;
	const char *why = NULL;
	if (v->kind != SL_YSCALAR) {
		sl_read_error(c, v, "%s.%s must be a quantity, not %s", path, name, sl_ykind_name(v));
		return -1;
	}
	if (sl_qty_parse(v->str, &q, &why) < 0) {
		sl_read_error(c, v, "%s.%s: invalid quantity \"%s\": %s", path, name, v->str, why);
		return -1;
	}
	if (q.neg && q.mant) {
		sl_read_error(c, v, "%s.%s: quantity \"%s\" must not be negative", path, name, v->str);
		return -1;
	}
	/* The API server keeps quantities to the nano-unit; a finer one is not what it stores. */
	if (!q.sticky && !sl_qty_exact_at(&q, 9)) {
		sl_read_error(c, v, "%s.%s: quantity \"%s\" is finer than the API keeps (1n, a billionth)", path, name,
			      v->str);
		return -1;
	}
	*out = sl_qty_scaled(&q, sl_resource_scale(name));
	if (*out == INT64_MAX) { /* saturated: not an amount the scheduler can count */
		sl_read_error(c, v, "%s.%s: quantity \"%s\" is too large: the scheduler counts %s in %s up to 2^63-1",
			      path, name, v->str, name, sl_resource_scale(name) ? "milli-units" : "units");
		return -1;
	}
	return 0;
}

void sl_read_reslist(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_reslist *out)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		const struct sl_ynode *k = m->v[2 * i], *v = m->v[2 * i + 1];
		int64_t amount;
		if (k->kind != SL_YSCALAR) {
			sl_read_error(c, k, "%s: resource names must be strings", path);
			continue;
		}
		if (sl_read_amount(c, v, k->str, path, &amount) == 0)
			sl_res_add(out, k->str, amount, v);
	}
}

void sl_res_describe(struct sl_buf *b, const struct sl_reslist *l)
{
	char v[48];
	for (size_t i = 0; i < l->n; i++) {
		sl_format_amount(l->v[i].name, l->v[i].amount, v, sizeof v);
		sl_buf_printf(b, "%s%s %s", i ? ", " : "", l->v[i].name, v);
	}
}
