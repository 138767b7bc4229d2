/* limitrange.c — LimitRanges and the LimitRanger admission plugin's defaults (see limitrange.h).
 * Follows plugin/pkg/admission/limitranger (defaultContainerResourceRequirements,
 * mergeContainerResources) and, for what the API server keeps of a LimitRange,
 * SetDefaults_LimitRangeItem and ValidateLimitRange. */
#include "limitrange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "kversion.h"
#include "model.h"
#include "model_read.h"
#include "quantity.h"

/* maxLimitRequestRatio's values: plain numbers, kept in thousandths (the plugin compares them
 * at milli precision) whatever resource they name. */
static void read_ratios(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_reslist *out)
{
	for (size_t i = 0; m && i < m->n; i++) {
		const struct sl_ynode *k = m->v[2 * i], *v = m->v[2 * i + 1];
		struct sl_qty q;
		const char *why = NULL;
		if (k->kind != SL_YSCALAR)
			sl_read_error(c, k, "%s: resource names must be strings", path);
		else if (v->kind != SL_YSCALAR)
			sl_read_error(c, v, "%s.%s must be a quantity, not %s", path, k->str, sl_ykind_name(v));
		else if (sl_qty_parse(v->str, &q, &why) < 0)
			sl_read_error(c, v, "%s.%s: invalid quantity \"%s\": %s", path, k->str, v->str, why);
		else if (q.neg && q.mant)
			sl_read_error(c, v, "%s.%s: quantity \"%s\" must not be negative", path, k->str, v->str);
		else if (sl_qty_milli(&q) < 1000)
			sl_read_error(c, v, "%s.%s: ratio %s is less than 1", path, k->str, v->str);
		else
			sl_res_add(out, k->str, sl_qty_milli(&q), v);
	}
}

/* The bounds of one item that contradict each other, as ValidateLimitRange refuses them. */
static void check_order(struct sl_read *c, const struct sl_lr_item *it, const char *path)
{
	static const char *const key[4] = {"min", "max", "default", "defaultRequest"};
	static const struct {
		size_t lo, hi;
		const char *what;
	} pairs[] = {{0, 1, "min value %s is greater than max value %s"},
		     {0, 3, "min value %s is greater than default request value %s"},
		     {3, 1, "default request value %s is greater than max value %s"},
		     {3, 2, "default request value %s is greater than default limit value %s"},
		     {0, 2, "min value %s is greater than default value %s"},
		     {2, 1, "default value %s is greater than max value %s"}};
	const struct sl_reslist *l[4] = {&it->min, &it->max, &it->dflt, &it->dflt_req};
	for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++)
		for (size_t j = 0; j < l[pairs[p].lo]->n; j++) {
			const struct sl_res *lo = &l[pairs[p].lo]->v[j], *hi = sl_res_find(l[pairs[p].hi], lo->name);
			if (!hi || lo->amount <= hi->amount || !lo->node || !hi->node)
				continue;
			struct sl_buf b = SL_BUF_INIT;
			sl_buf_printf(&b, pairs[p].what, lo->node->str, hi->node->str);
			sl_read_error(c, lo->node, "%s.%s.%s: %s", path, key[pairs[p].lo], lo->name, b.s);
			sl_buf_free(&b);
		}
}

/* Fill in what SetDefaults_LimitRangeItem gives a Container item: default from max, then
 * defaultRequest from default, then from min. */
static void fill_defaults(struct sl_lr_item *it)
{
	const struct sl_reslist *from[3] = {&it->max, &it->dflt, &it->min};
	struct sl_reslist *to[3] = {&it->dflt, &it->dflt_req, &it->dflt_req};
	for (int k = 0; k < 3; k++)
		for (size_t j = 0; j < from[k]->n; j++)
			if (!sl_res_find(to[k], from[k]->v[j].name))
				sl_res_add(to[k], from[k]->v[j].name, from[k]->v[j].amount, from[k]->v[j].node);
}

static void read_item(struct sl_read *c, const struct sl_ynode *e, size_t i, struct sl_lr_item *it)
{
	char path[64];
	snprintf(path, sizeof path, "spec.limits[%zu]", i);
	it->node = e;
	const struct sl_ynode *t = sl_ymap_get(e, "type");
	if (sl_yis(t, "Container"))
		it->type = SL_LR_CONTAINER;
	else if (sl_yis(t, "Pod"))
		it->type = SL_LR_POD;
	else if (sl_yis(t, "PersistentVolumeClaim"))
		it->type = SL_LR_PVC;
	else
		sl_read_error(c, sl_ynull(t) ? e : t,
			      "%s.type must be Container, Pod or PersistentVolumeClaim (the types the LimitRanger "
			      "admission plugin applies)",
			      path);
	static const char *const keys[4] = {"min", "max", "default", "defaultRequest"};
	struct sl_reslist *lists[4] = {&it->min, &it->max, &it->dflt, &it->dflt_req};
	struct sl_buf p = SL_BUF_INIT;
	for (int k = 0; k < 4; k++) {
		sl_buf_reset(&p);
		sl_buf_printf(&p, "%s.%s", path, keys[k]);
		sl_read_reslist(c, sl_read_want(c, e, keys[k], SL_YMAP, p.s), p.s, lists[k]);
		if (k >= 2 && it->type == SL_LR_POD && lists[k]->n)
			sl_read_error(c, sl_ymap_get(e, keys[k]), "%s may not be specified when type is 'Pod'", p.s);
	}
	check_order(c, it, path);
	sl_buf_reset(&p);
	sl_buf_printf(&p, "%s.maxLimitRequestRatio", path);
	read_ratios(c, sl_read_want(c, e, "maxLimitRequestRatio", SL_YMAP, p.s), p.s, &it->ratio);
	sl_buf_free(&p);
	if (it->type == SL_LR_CONTAINER)
		fill_defaults(it);
}

static void free_items(struct sl_lr_item *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sl_res_free(&v[i].min);
		sl_res_free(&v[i].max);
		sl_res_free(&v[i].dflt);
		sl_res_free(&v[i].dflt_req);
		sl_res_free(&v[i].ratio);
	}
	free(v);
}

int sl_limitrange_read(struct sl_read *c, const struct sl_object *o, struct sl_limitrange **out)
{
	*out = NULL;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *limits = sl_read_want(c, spec, "limits", SL_YSEQ, "spec.limits");
	struct sl_limitrange l = {.obj = *o};
	l.items = sl_xcalloc(limits ? limits->n + 1 : 1, sizeof *l.items);
	for (size_t i = 0; limits && i < limits->n; i++) {
		if (limits->v[i]->kind != SL_YMAP) {
			sl_read_error(c, limits->v[i], "spec.limits[%zu] must be a mapping, not %s", i,
				      sl_ykind_name(limits->v[i]));
			continue;
		}
		read_item(c, limits->v[i], i, &l.items[l.nitems++]);
	}
	if (c->failed) {
		free_items(l.items, l.nitems);
		return -1;
	}
	*out = sl_xmalloc(sizeof **out);
	**out = l;
	return 0;
}

void sl_limitrange_free(struct sl_limitrange *l)
{
	free_items(l->items, l->nitems);
	sl_res_free(&l->give_req);
	sl_res_free(&l->give_lim);
	free(l);
}

/* What one LimitRange gives every container that states none: its Container items' defaults,
 * a later item's over an earlier one's (defaultContainerResourceRequirements). */
static void item_defaults(const struct sl_limitrange *l, struct sl_reslist *req, struct sl_reslist *lim)
{
	for (size_t i = 0; i < l->nitems; i++) {
		const struct sl_lr_item *it = &l->items[i];
		if (it->type != SL_LR_CONTAINER)
			continue;
		for (int k = 0; k < 2; k++) {
			const struct sl_reslist *from = k ? &it->dflt : &it->dflt_req;
			struct sl_reslist *to = k ? lim : req;
			for (size_t j = 0; j < from->n; j++) {
				struct sl_res *r = (struct sl_res *)sl_res_find(to, from->v[j].name);
				if (r) {
					r->amount = from->v[j].amount;
					r->node = from->v[j].node;
				} else
					sl_res_add(to, from->v[j].name, from->v[j].amount, from->v[j].node);
			}
		}
	}
}

static void record(struct sl_podspec *p, const char *resource, const struct sl_limitrange *l,
		   const struct sl_ynode *node)
{
	for (size_t i = 0; i < p->ndefaulted; i++)
		if (!strcmp(p->defaulted[i].resource, resource))
			return;
	p->defaulted = sl_xrealloc(p->defaulted, (p->ndefaulted + 1) * sizeof *p->defaulted);
	p->defaulted[p->ndefaulted++] = (struct sl_req_default){resource, &l->obj, node};
}

/* mergeContainerResources for every container, each LimitRange of the namespace in turn (its
 * defaults made once, as it was applied); with rec, the requests given are recorded in rec.
 * Returns how many requests were given. */
static size_t admit(const struct sl_limitrange *const *lrs, size_t nl, struct sl_ctr_res *v, size_t n,
		    struct sl_podspec *rec)
{
	size_t given = 0;
	for (size_t k = 0; k < nl; k++) {
		const struct sl_reslist *req = &lrs[k]->give_req, *lim = &lrs[k]->give_lim;
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < lim->n; j++)
				if (!sl_res_find(&v[i].lim, lim->v[j].name))
					sl_res_add(&v[i].lim, lim->v[j].name, lim->v[j].amount, lim->v[j].node);
			for (size_t j = 0; j < req->n; j++) {
				if (sl_res_find(&v[i].req, req->v[j].name))
					continue;
				/* The model's request points at no node for it (a fix that edits a request
				 * must not edit the LimitRange); the rule's view points at the default. */
				sl_res_add(&v[i].req, req->v[j].name, req->v[j].amount, rec ? NULL : req->v[j].node);
				given++;
				if (rec)
					record(rec, req->v[j].name, lrs[k], req->v[j].node);
			}
		}
	}
	return given;
}

static int by_namespace(const void *a, const void *b)
{
	const struct sl_limitrange *x = *(struct sl_limitrange *const *)a, *y = *(struct sl_limitrange *const *)b;
	int d = strcmp(x->obj.namespace, y->obj.namespace);
	return d ? d : (x->order > y->order) - (x->order < y->order);
}

void sl_model_apply_limitranges(struct sl_model *m)
{
	if (!m->nlimitranges)
		return;
	/* One LimitRange per namespace and name: the later description in the earlier's place, but
	 * the manifests' over the inventory's (what is applied replaces what runs). */
	size_t kept = 0;
	for (size_t i = 0; i < m->nlimitranges; i++) {
		struct sl_limitrange *l = m->limitranges[i];
		size_t j = 0;
		while (j < kept && (strcmp(m->limitranges[j]->obj.name, l->obj.name) ||
				    strcmp(m->limitranges[j]->obj.namespace, l->obj.namespace)))
			j++;
		if (j < kept && l->inventory && !m->limitranges[j]->inventory) {
			sl_limitrange_free(l);
			continue;
		}
		if (j < kept)
			sl_limitrange_free(m->limitranges[j]);
		m->limitranges[j] = l;
		kept += j == kept;
	}
	m->nlimitranges = kept;
	for (size_t i = 0; i < kept; i++) {
		m->limitranges[i]->order = i;
		item_defaults(m->limitranges[i], &m->limitranges[i]->give_req, &m->limitranges[i]->give_lim);
	}
	qsort(m->limitranges, kept, sizeof *m->limitranges, by_namespace);
	for (size_t i = 0; i < m->nworkloads; i++) {
		struct sl_podspec *p = &m->workloads[i]->pod;
		size_t nl;
		const struct sl_limitrange *const *lrs = sl_model_limitranges(m, p->namespace, &nl);
		if (!nl)
			continue;
		struct sl_ctr_res *v;
		size_t n = sl_podspec_containers(p, &v);
		if (admit(lrs, nl, v, n, p)) {
			sl_podspec_set_request(p, v, n);
			if (p->sidecar && m->kube.minor < SL_KUBE_SIDECARS) { /* as sl_model_apply_version has it */
				struct sl_reslist r = p->request;
				p->request = p->request_legacy;
				p->request_legacy = r;
			}
		}
		sl_ctrs_free(v, n);
	}
}

const struct sl_limitrange *const *sl_model_limitranges(const struct sl_model *m, const char *ns, size_t *n)
{
	/* Ordered by namespace (sl_model_apply_limitranges): found by bisection, as every workload
	 * asks (a scan per workload grew with the square of a monorepo's namespaces). */
	size_t i = 0, hi = m->nlimitranges;
	while (i < hi) {
		size_t mid = i + (hi - i) / 2;
		if (strcmp(m->limitranges[mid]->obj.namespace, ns) < 0)
			i = mid + 1;
		else
			hi = mid;
	}
	size_t j = i;
	while (j < m->nlimitranges && !strcmp(m->limitranges[j]->obj.namespace, ns))
		j++;
	*n = j - i;
	/* No LimitRange at all: no array to point into (an offset on NULL is undefined). */
	return *n ? (const struct sl_limitrange *const *)m->limitranges + i : NULL;
}

size_t sl_limitrange_admit(const struct sl_model *m, const struct sl_podspec *p, struct sl_ctr_res **out)
{
	size_t nl;
	const struct sl_limitrange *const *lrs = sl_model_limitranges(m, p->namespace, &nl);
	size_t n = sl_podspec_containers(p, out);
	admit(lrs, nl, *out, n, NULL);
	return n;
}

const struct sl_limitrange *sl_limitrange_holding(const struct sl_model *m, const char *ns, const struct sl_ynode *n)
{
	size_t nl;
	const struct sl_limitrange *const *lrs = sl_model_limitranges(m, ns, &nl);
	for (size_t k = 0; k < nl && n; k++)
		for (size_t i = 0; i < lrs[k]->nitems; i++) {
			const struct sl_lr_item *it = &lrs[k]->items[i];
			const struct sl_reslist *l[4] = {&it->min, &it->max, &it->dflt, &it->dflt_req};
			for (int x = 0; x < 4; x++)
				for (size_t j = 0; j < l[x]->n; j++)
					if (l[x]->v[j].node == n)
						return lrs[k];
		}
	return NULL;
}
