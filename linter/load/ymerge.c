/* ymerge.c — a mapping's pairs as the API server decodes them (see ymerge.h). */
#include "ymerge.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/diag.h"
#include "source.h"

static int key_eq(const struct sl_ynode *a, const struct sl_ynode *b)
{
	return a->kind == SL_YSCALAR && b->kind == SL_YSCALAR && a->len == b->len && !memcmp(a->str, b->str, a->len);
}

static int is_merge_key(const struct sl_ynode *k)
{
	return k->kind == SL_YSCALAR && k->plain && k->len == 2 && !memcmp(k->str, "<<", 2);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct sl_ypair *x = a, *y = b;
	int xs = x->k->kind == SL_YSCALAR, ys = y->k->kind == SL_YSCALAR;
	if (xs != ys)
		return xs - ys;
	if (xs) {
		size_t n = x->k->len < y->k->len ? x->k->len : y->k->len;
		int c = memcmp(x->k->str, y->k->str, n);
		if (c)
			return c;
		if (x->k->len != y->k->len)
			return x->k->len < y->k->len ? -1 : 1;
	}
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_order(const void *a, const void *b)
{
	const struct sl_ypair *x = a, *y = b;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void add_pair(struct sl_ypair **ps, size_t *n, size_t *cap, struct sl_ynode *k, struct sl_ynode *v, size_t order)
{
	sl_grow(ps, cap, *n + 1, sizeof **ps);
	(*ps)[*n].k = k;
	(*ps)[*n].v = v;
	(*ps)[*n].order = order;
	(*n)++;
}

bool sl_ymap_plain(struct sl_ynode *const *items, size_t nitems)
{
	if (nitems > 32)
		return false;
	for (size_t i = 0; i < nitems; i += 2) {
		if (is_merge_key(items[i]))
			return false;
		for (size_t j = 0; j < i; j += 2)
			if (key_eq(items[i], items[j]))
				return false;
	}
	return true;
}

size_t sl_ymap_pairs(struct sl_ynode *const *items, size_t nitems, struct sl_findings *errs, bool *merged,
		     struct sl_ypair **out)
{
	struct sl_ypair *ps = NULL;
	size_t n = 0, cap = 0, order = 0;
	struct sl_ynode **merges = NULL;
	size_t nm = 0, capm = 0;
	for (size_t i = 0; i + 1 < nitems; i += 2) {
		if (is_merge_key(items[i])) {
			struct sl_ynode *v = items[i + 1];
			if (v->kind == SL_YMAP) {
				sl_grow(&merges, &capm, nm + 1, sizeof *merges);
				merges[nm++] = v;
			} else if (v->kind == SL_YSEQ) {
				for (size_t j = 0; j < v->n; j++)
					if (v->v[j]->kind == SL_YMAP) {
						sl_grow(&merges, &capm, nm + 1, sizeof *merges);
						merges[nm++] = v->v[j];
					}
			}
			continue;
		}
		add_pair(&ps, &n, &cap, items[i], items[i + 1], order++);
	}
	/* Merged keys rank below every explicit key, and earlier merge sources win: give them
	 * "orders" that sort before explicit ones in the last-wins pass below, in reverse. */
	size_t explicit_n = n;
	*merged = nm > 0;
	for (size_t m = nm; m-- > 0;)
		for (size_t j = 0; j < merges[m]->n; j++)
			add_pair(&ps, &n, &cap, merges[m]->v[2 * j], merges[m]->v[2 * j + 1], 0);
	/* Renumber: merged pairs first (lowest), explicit after, so "last wins" = explicit wins. */
	for (size_t i = explicit_n; i < n; i++)
		ps[i].order = i - explicit_n;
	for (size_t i = 0; i < explicit_n; i++)
		ps[i].order += n - explicit_n;
	free(merges);
	if (n > 1) {
		qsort(ps, n, sizeof *ps, cmp_pair);
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (i + 1 < n && key_eq(ps[i].k, ps[i + 1].k)) {
				/* A later pair with the same key wins, as in the API server, which warns
				 * of duplicate fields; merged keys are meant to be overridden. */
				if (ps[i].order >= n - explicit_n) {
					unsigned line, col;
					sl_span_start(&ps[i].k->at, &line, &col);
					sl_input_warning(errs, &ps[i + 1].k->at,
							 "duplicate key '%s' (also at %u:%u): the last one is kept",
							 ps[i].k->str, line, col);
				}
				continue;
			}
			ps[w++] = ps[i];
		}
		n = w;
		qsort(ps, n, sizeof *ps, cmp_order);
	}
	*out = ps;
	return n;
}
