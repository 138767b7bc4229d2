/* dra_index.c — the devices of the run's ResourceSlices, once per cluster: which nodes reach
 * each (a slice's nodeName, its nodeSelector, allNodes) and which are taken, by the allocations
 * in the claims' status (every device of status.allocation.devices.results is in use, whichever
 * pod holds the claim). The scheduler gets the same from its claim cache
 * (ListAllAllocatedDevices) at each PreFilter. */
#include <stdlib.h>
#include <string.h>

#include "../model/model_read.h"
#include "cluster.h"
#include "dra.h"

static void key_of(struct sl_buf *b, const char *driver, const char *pool, const char *device)
{
	b->len = 0;
	sl_buf_puts(b, driver ? driver : "");
	sl_buf_putc(b, '\x1f');
	sl_buf_puts(b, pool ? pool : "");
	sl_buf_putc(b, '\x1f');
	sl_buf_puts(b, device ? device : "");
}

static bool slice_reaches(const struct sl_model *m, const struct sl_resource_slice *s, size_t node)
{
	const struct sl_node *n = m->nodes[node];
	if (s->all_nodes || s->per_device_nodes)
		return true; /* per-device selection is not modelled: reachable, so never a false "none" */
	if (s->node_name)
		return !strcmp(s->node_name, n->name);
	return s->has_node_selector && sl_terms_match(s->node_terms, s->nnode_terms, n);
}

/* Per driver and pool only the slices of the highest generation count (GatherPools): per slice,
 * whether it is one of them. The caller frees the array. */
static bool *newest_slices(const struct sl_dra *d)
{
	struct sl_strpool pools = {0};
	struct sl_buf key = SL_BUF_INIT;
	size_t *id = sl_xcalloc(d->nslices + 1, sizeof *id);
	int64_t *top = sl_xcalloc(d->nslices + 1, sizeof *top);
	for (size_t s = 0; s < d->nslices; s++) {
		key_of(&key, d->slices[s]->driver, d->slices[s]->pool, "");
		size_t before = pools.n;
		id[s] = sl_intern_id(&pools, sl_buf_str(&key));
		if (pools.n > before || d->slices[s]->pool_generation > top[id[s]])
			top[id[s]] = d->slices[s]->pool_generation;
	}
	bool *ok = sl_xcalloc(d->nslices + 1, sizeof *ok);
	for (size_t s = 0; s < d->nslices; s++)
		ok[s] = d->slices[s]->pool_generation == top[id[s]];
	sl_buf_free(&key);
	sl_strpool_free(&pools);
	free(id);
	free(top);
	return ok;
}

static bool device_shareable(const struct sl_dra_device *dv)
{
	bool multi = false;
	const struct sl_ynode *v = dv->node ? sl_ymap_get(dv->node, "allowMultipleAllocations") : NULL;
	return v && sl_read_bool(v, &multi) == 0 && multi;
}

static void index_devices(struct sl_dra_index *x, const struct sl_dra *d)
{
	bool *ok = newest_slices(d);
	for (size_t s = 0; s < d->nslices; s++)
		x->ndev += ok[s] ? d->slices[s]->ndevices : 0;
	x->dev = sl_xcalloc(x->ndev + 1, sizeof *x->dev);
	x->taken = sl_xcalloc(x->ndev + 1, 1);
	x->shareable = sl_xcalloc(x->ndev + 1, 1);
	x->key_dev = sl_xcalloc(x->ndev + 1, sizeof *x->key_dev);
	struct sl_buf key = SL_BUF_INIT;
	size_t k = 0;
	for (size_t s = 0; s < d->nslices; s++) {
		const struct sl_resource_slice *sl = d->slices[s];
		for (size_t j = 0; ok[s] && j < sl->ndevices; j++, k++) {
			x->dev[k].slice = sl;
			x->dev[k].d = &sl->devices[j];
			x->shareable[k] = device_shareable(&sl->devices[j]);
			key_of(&key, sl->driver, sl->pool, sl->devices[j].name);
			/* A device named twice in a pool: the first is the one an allocation names. */
			size_t before = x->keys.n, id = sl_intern_id(&x->keys, sl_buf_str(&key));
			if (x->keys.n > before)
				x->key_dev[id] = k;
		}
	}
	sl_buf_free(&key);
	free(ok);
}

/* The devices of every allocation in the claims' status (but the claims skip says, when given). */
static void mark_allocated(struct sl_dra_index *x, const struct sl_dra *d, const bool *skip)
{
	struct sl_buf key = SL_BUF_INIT;
	for (size_t c = 0; c < d->nclaims; c++) {
		const struct sl_resource_claim *cl = d->claims[c];
		for (size_t r = 0; cl->allocated && !(skip && skip[c]) && r < cl->nresults; r++) {
			const struct sl_dra_result *res = &cl->results[r];
			key_of(&key, res->driver, res->pool, res->device);
			size_t id = sl_strmap_get(&x->keys.map, sl_buf_str(&key));
			if (id != (size_t)-1)
				x->taken[x->key_dev[id]] = 1;
		}
	}
	sl_buf_free(&key);
}

/* Running pods naming a claim the inventory does not hold: a template's claim without its
 * generated name or object, or a shared claim not found. */
static size_t count_unknown(const struct sl_cluster *c, const struct sl_dra *d)
{
	size_t unknown = 0;
	for (size_t k = 0; k < c->npods; k++) {
		const struct sl_podspec *q = &c->pods[k]->spec;
		for (size_t j = 0; j < q->nclaims; j++) {
			const struct sl_pod_claim *pc = &q->claims[j];
			const char *name = pc->claim_name ? pc->claim_name : pc->generated;
			if (!name || !sl_dra_claim(d, q->namespace, name)) {
				unknown++;
				break;
			}
		}
	}
	return unknown;
}

/* The devices of slices named for one node, grouped by that node (counting sort: each node's
 * increasing): bstart[i] .. bstart[i + 1] in bdev. The others (allNodes, a nodeSelector,
 * per-device selection) into *multi, increasing. */
static void group_by_node(const struct sl_dra_index *x, const struct sl_cluster *c, size_t **bstart, size_t **bdev,
			  size_t **multi, size_t *nmulti)
{
	struct sl_strmap names = {0};
	for (size_t i = 0; i < c->n; i++)
		sl_strmap_put(&names, c->m->nodes[i]->name, i);
	size_t *own = sl_xcalloc(x->ndev + 1, sizeof *own);
	*bstart = sl_xcalloc(c->n + 2, sizeof **bstart);
	*multi = sl_xcalloc(x->ndev + 1, sizeof **multi);
	*nmulti = 0;
	for (size_t k = 0; k < x->ndev; k++) {
		const struct sl_resource_slice *s = x->dev[k].slice;
		own[k] = (size_t)-1;
		if (s->all_nodes || s->per_device_nodes || !s->node_name)
			(*multi)[(*nmulti)++] = k;
		else if ((own[k] = sl_strmap_get(&names, s->node_name)) != (size_t)-1)
			(*bstart)[own[k] + 1]++;
	}
	for (size_t i = 0; i < c->n; i++)
		(*bstart)[i + 1] += (*bstart)[i];
	*bdev = sl_xcalloc((*bstart)[c->n] + 1, sizeof **bdev);
	size_t *fill = sl_xcalloc(c->n + 1, sizeof *fill);
	for (size_t k = 0; k < x->ndev; k++)
		if (own[k] != (size_t)-1)
			(*bdev)[(*bstart)[own[k]] + fill[own[k]]++] = k;
	free(fill);
	free(own);
	sl_strmap_free(&names);
}

/* Per node, the devices it reaches, increasing (sl_dra_reaches searches them): a slice named for a
 * node (a kubelet plugin publishes its own node's devices) reaches that node alone, found by name;
 * only the slices for several nodes are judged node by node, once per slice. */
static void index_reach(struct sl_dra_index *x, const struct sl_cluster *c)
{
	size_t *bstart, *bdev, *multi, nmulti, cap = 0, len = 0;
	group_by_node(x, c, &bstart, &bdev, &multi, &nmulti);
	x->start = sl_xcalloc(c->n + 2, sizeof *x->start);
	for (size_t i = 0; i < c->n; i++) {
		x->start[i] = len;
		size_t a = bstart[i], b = 0;
		bool in = false;
		const struct sl_resource_slice *judged = NULL;
		while (a < bstart[i + 1] || b < nmulti) {
			size_t k;
			if (b == nmulti || (a < bstart[i + 1] && bdev[a] < multi[b]))
				k = bdev[a++];
			else {
				k = multi[b++];
				if (x->dev[k].slice != judged) /* a slice's devices share its reach */
					in = slice_reaches(c->m, judged = x->dev[k].slice, i);
				if (!in)
					continue;
			}
			sl_grow(&x->reach, &cap, len + 1, sizeof *x->reach);
			x->reach[len++] = k;
		}
	}
	x->start[c->n] = len;
	free(bstart);
	free(bdev);
	free(multi);
}

struct sl_dra_index *sl_dra_index_new(const struct sl_cluster *c)
{
	const struct sl_model *m = c->m;
	const struct sl_dra *d = &m->dra;
	if (!d->nslices)
		return NULL;
	struct sl_dra_index *x = sl_xcalloc(1, sizeof *x);
	index_devices(x, d);
	mark_allocated(x, d, NULL);
	x->unknown_running = count_unknown(c, d);
	index_reach(x, c);
	return x;
}

/* Whether the pod named name in namespace ns is among gone. */
static bool among(const struct sl_pod *const *gone, size_t n, const char *ns, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (gone[i]->obj.name && !strcmp(gone[i]->obj.name, name) && !strcmp(gone[i]->obj.namespace, ns))
			return true;
	return false;
}

/* Whether a pod of c (running or placed) names claim cl of namespace ns. */
static bool named(const struct sl_cluster *c, const char *ns, const char *cl)
{
	for (size_t k = 0; k < c->npods; k++) {
		const struct sl_podspec *q = &c->pods[k]->spec;
		for (size_t j = 0; j < q->nclaims && !strcmp(c->pods[k]->obj.namespace, ns); j++) {
			const char *name = q->claims[j].claim_name ? q->claims[j].claim_name : q->claims[j].generated;
			if (name && !strcmp(name, cl))
				return true;
		}
	}
	return false;
}

/* Whether the resourceclaim controller deallocates cl once gone's pods are deleted: a claim made
 * for one of them from a template goes with its pod, and a claim reserved for none but them is
 * deallocated when their reservations go (syncClaim: an allocated claim no pod reserves) — unless
 * a pod still there names it. */
static bool released(const struct sl_cluster *c, const struct sl_resource_claim *cl, const struct sl_pod *const *gone,
		     size_t n)
{
	const char *ns = cl->obj.namespace;
	bool freed = cl->owner_pod && among(gone, n, ns, cl->owner_pod);
	if (!freed && cl->nreserved) {
		freed = true;
		for (size_t r = 0; r < cl->nreserved && freed; r++)
			freed = among(gone, n, ns, cl->reserved[r]);
	}
	return freed && !named(c, ns, cl->obj.name);
}

void sl_dra_release_evicted(struct sl_cluster *c, const struct sl_pod *const *gone, size_t n)
{
	const struct sl_dra *d = &c->m->dra;
	if (!c->dra || !n)
		return;
	bool *skip = sl_xcalloc(d->nclaims + 1, sizeof *skip), any = false;
	for (size_t i = 0; i < d->nclaims; i++)
		any |= skip[i] = d->claims[i]->allocated && released(c, d->claims[i], gone, n);
	if (any) {
		memset(c->dra->taken, 0, c->dra->ndev);
		mark_allocated(c->dra, d, skip);
	}
	free(skip);
}

bool sl_dra_reaches(const struct sl_dra_index *x, size_t node, size_t dev)
{
	size_t lo = x->start[node], hi = x->start[node + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->reach[mid] == dev)
			return true;
		if (x->reach[mid] < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void sl_dra_index_free(struct sl_dra_index *x)
{
	if (!x)
		return;
	free(x->dev);
	free(x->taken);
	free(x->shareable);
	free(x->start);
	free(x->reach);
	sl_strpool_free(&x->keys);
	free(x->key_dev);
	free(x);
}
