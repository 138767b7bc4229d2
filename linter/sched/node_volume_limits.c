/* NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go, v1.26): on a node
 * whose CSINode gives a driver an allocatable.count, the driver's volumes in use there (the
 * running pods' claims, each volume once) plus those the pod adds must not exceed it. A claim is
 * counted by its bound PersistentVolume's spec.csi driver and volumeHandle, or, not bound, by its
 * class's provisioner under a handle of its own (getCSIDriverInfoFromSC). A pod whose volumes are
 * all attached there already adds nothing and passes. Unschedulable: evicting pods frees volumes.
 * Not modelled (they count nothing here): in-tree volumes translated to CSI (CSI migration),
 * inline and generic ephemeral volumes, and limits from the Node's attachable-volumes-csi-*
 * allocatable, which the CSINode's count replaces where both are given. The scheduler does not
 * read CSIDriver's attachRequired here (v1.26): a driver that attaches nothing is still counted. */
#include <stdlib.h>
#include <string.h>

#include "../model/relate.h"
#include "plugin.h"
#include "status.h"

/* ErrReasonMaxVolumeCountExceeded. */
#define SL_REASON_MAX_VOLUME_COUNT "node(s) exceed max volume count"

/* Per node and driver of the pod: the limit (-1: none), the driver's volumes in use, what the
 * first pod of the workload adds once (volumes all its pods share) and what each pod adds. */
struct sl_attach_state {
	size_t nd;
	const char **drivers;
	int64_t *limit, *used, *once, *each; /* [node * nd + d] */
};

static size_t driver_at(const struct sl_attach_state *st, const char *driver)
{
	for (size_t d = 0; d < st->nd; d++)
		if (!strcmp(st->drivers[d], driver))
			return d;
	return (size_t)-1;
}

/* The unique name filterAttachableVolumes keys a volume by: driver/handle, a claim's own handle
 * made distinct from any volume's. */
static const char *unique_name(struct sl_buf *b, const struct sl_attach *a, const char *ns)
{
	b->len = 0;
	if (a->fresh)
		sl_buf_printf(b, "%s\x1f\x01%s/%s", a->driver, ns, a->handle);
	else
		sl_buf_printf(b, "%s\x1f%s", a->driver, a->handle);
	return sl_buf_str(b);
}

/* The running pods' volumes of the tracked drivers on node, each once, into seen; counts in used. */
static void count_running(struct sl_cycle *cy, struct sl_attach_state *st, size_t node, struct sl_strpool *seen,
			  struct sl_buf *b)
{
	const struct sl_cluster *cl = cy->cl;
	for (size_t k = cl->pod_start[node]; k < cl->pod_start[node + 1]; k++) {
		const struct sl_podspec *q = &cl->pods[k]->spec;
		for (size_t v = 0; v < q->nvolumes; v++) {
			struct sl_attach a;
			/* An existing pod's claim not found is not counted, as the scheduler skips it. */
			if (!sl_claim_attach(&cy->m->storage, sl_model_claim(cy->m, q->namespace, q->volumes[v].claim),
					     q->volumes[v].claim, &a))
				continue;
			size_t d = driver_at(st, a.driver);
			if (d == (size_t)-1)
				continue;
			size_t before = seen->n;
			sl_intern(seen, unique_name(b, &a, q->namespace));
			st->used[node * st->nd + d] += seen->n > before;
		}
	}
}

void sl_node_volume_limits_prefilter(struct sl_cycle *cy)
{
	const struct sl_volset *v = cy->vol;
	if (!v || !v->nattach || !cy->m->storage.ncsinodes)
		return;
	struct sl_attach_state *st = sl_xcalloc(1, sizeof *st);
	st->drivers = sl_xcalloc(v->nattach + 1, sizeof *st->drivers);
	for (size_t i = 0; i < v->nattach; i++)
		if (driver_at(st, v->attach[i].driver) == (size_t)-1)
			st->drivers[st->nd++] = v->attach[i].driver;
	size_t cells = cy->n * st->nd + 1;
	st->limit = sl_xcalloc(4 * cells, sizeof *st->limit);
	st->used = st->limit + cells;
	st->once = st->used + cells;
	st->each = st->once + cells;
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < cy->n; i++) {
		int64_t *lim = &st->limit[i * st->nd];
		bool any = false;
		for (size_t d = 0; d < st->nd; d++)
			lim[d] = -1;
		const struct sl_csinode *cn = sl_storage_csinode(&cy->m->storage, cy->m->nodes[i]->name);
		for (size_t k = 0; cn && k < cn->ndrivers; k++) {
			size_t d = cn->drivers[k].name && cn->drivers[k].has_count ? driver_at(st, cn->drivers[k].name)
										   : (size_t)-1;
			if (d != (size_t)-1) {
				lim[d] = cn->drivers[k].count;
				any = true;
			}
		}
		if (!any)
			continue; /* nothing limits the pod's drivers here: the running pods need not be read */
		struct sl_strpool seen = {0};
		count_running(cy, st, i, &seen, &b);
		for (size_t a = 0; a < v->nattach; a++) {
			const struct sl_attach *at = &v->attach[a];
			size_t d = driver_at(st, at->driver);
			/* Already in use here (a volume, or an unbound claim, a running pod has too): the pod
			 * adds nothing for it. A template's new claim stands for every ordinal's: never. */
			if (!(at->fresh && at->per_pod) &&
			    sl_strmap_get(&seen.map, unique_name(&b, at, cy->p->namespace)) != (size_t)-1)
				continue;
			(at->per_pod ? st->each : st->once)[i * st->nd + d]++;
		}
		sl_strpool_free(&seen);
	}
	sl_buf_free(&b);
	cy->attach = st;
}

void sl_node_volume_limits_release(struct sl_cycle *cy)
{
	struct sl_attach_state *st = cy->attach;
	if (!st)
		return;
	free(st->drivers);
	free(st->limit); /* and used, once, each: one block */
	free(st);
	cy->attach = NULL;
}

bool sl_node_volume_limits_idle(const struct sl_cycle *cy)
{
	return !cy->attach;
}

bool sl_node_volume_limits_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_attach_state *st = cy->attach;
	if (!st)
		return true;
	/* The workload's pods placed here hold what the first added, and each its own. */
	int64_t k = cy->placed ? cy->placed[node] : 0;
	for (size_t d = 0; d < st->nd; d++) {
		size_t at = node * st->nd + d;
		if (st->limit[at] < 0)
			continue;
		int64_t adds = (k ? 0 : st->once[at]) + st->each[at];
		if (adds && st->used[at] + st->once[at] + (k + 1) * st->each[at] > st->limit[at]) {
			if (out)
				sl_nodefit_fail(out, SL_PL_NODE_VOLUME_LIMITS, SL_REASON_MAX_VOLUME_COUNT);
			return false;
		}
	}
	return true;
}
