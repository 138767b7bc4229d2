/* release_place.c — a release placed as the scheduler would place it: the workloads one after
 * another, every pod of each with the filters and scores of sequential placement (placement.c),
 * each workload on the cluster as the ones before it left it. The pods placed so far join the
 * running pods (bound to the nodes they went to, charged to those nodes), so every plugin sees
 * them as it sees any other pod: resources, host ports, spread counts and both directions of
 * inter-pod affinity. The placement runs on a model of its own (the original's objects, copies
 * of the nodes, the running pods and the placed ones); the original is never touched.
 *
 * The cluster index is built once and kept up to date cheaply while only resources matter: pods
 * placed are charged to their nodes (the nodes' loads and the index's scoring arrays). It is
 * built again, with the placed pods among the running ones, only before a workload that reads
 * other pods (inter-pod terms, spread, host ports), or when a placed pod carries anti-affinity,
 * which every later pod must respect. */
#include <stdlib.h>
#include <string.h>

#include "../model/quantity.h"
#include "cycle.h"
#include "dra.h"
#include "plugin.h"
#include "preemption.h"

/* The cluster as the placement changes it: the original model but with its own node copies
 * (their load grows) and its own list of running pods (the placed ones appended). */
struct evolving {
	struct sl_model m;
	struct sl_node *nodes; /* copies; their used lists are their own */
	struct sl_pod *placed; /* the placed pods: room for every pod to place, and as many again for
				* pods evicted by preemption and placed anew */
	size_t *owner;         /* per placed pod: its workload */
	size_t *placed_node;   /* per placed pod: its node */
	size_t built;          /* placed pods the index holds: those before this one (rebuild) */
	bool counts_extra;     /* the workload placed counts the others (sl_cycle.extra) */
	size_t nplaced, capplaced;
	int64_t *lost;              /* per workload: pods evicted by preemption, not placed again yet */
	const struct sl_pod **gone; /* the running pods preemption evicted: their claims may go too */
	size_t ngone, capgone;
	int64_t lowest;           /* no pod in m has a priority below it: a pod at most this high has no victim */
	struct sl_labels *labels; /* per workload: its placed pods' labels */
	char (*hash)[32];         /* per workload without a running pod: a pod-template-hash of its own */
	bool *excluded, *ok;      /* per node, for the workload being placed: made once, not per workload */
	struct sl_cycle
	    cycle; /* the workload being placed (finished between workloads): its per-node arrays made once */
	bool has_cycle;
	unsigned flags; /* SL_PLACE_*: ties broken the other way, no default spreading */
};

static void evolving_init(struct evolving *e, const struct sl_model *m, size_t nw, int64_t total)
{
	memset(e, 0, sizeof *e);
	e->m = *m;
	e->nodes = sl_xcalloc(m->nnodes + 1, sizeof *e->nodes);
	e->m.nodes = sl_xcalloc(m->nnodes + 1, sizeof *e->m.nodes);
	for (size_t i = 0; i < m->nnodes; i++) {
		e->nodes[i] = *m->nodes[i];
		e->nodes[i].used = (struct sl_reslist){0};
		const struct sl_reslist *u = &m->nodes[i]->used;
		for (size_t r = 0; r < u->n; r++)
			sl_res_add(&e->nodes[i].used, u->v[r].name, u->v[r].amount, NULL);
		e->m.nodes[i] = &e->nodes[i];
	}
	e->capplaced = 2 * (size_t)total + 1;
	/* Not zeroed here: room for every pod twice, of which a release fills about half (bind sets
	 * each pod it uses). */
	e->placed = sl_xmalloc(e->capplaced * sizeof *e->placed);
	e->owner = sl_xcalloc(e->capplaced, sizeof *e->owner);
	e->placed_node = sl_xcalloc(e->capplaced, sizeof *e->placed_node);
	e->lost = sl_xcalloc(nw + 1, sizeof *e->lost);
	e->m.pods = sl_xcalloc(m->npods + e->capplaced, sizeof *e->m.pods);
	if (m->npods)
		memcpy(e->m.pods, m->pods, m->npods * sizeof *e->m.pods);
	e->lowest = INT64_MAX;
	for (size_t i = 0; i < m->npods; i++)
		e->lowest = m->pods[i]->spec.priority < e->lowest ? m->pods[i]->spec.priority : e->lowest;
	e->labels = sl_xcalloc(nw + 1, sizeof *e->labels);
	e->hash = sl_xcalloc(nw + 1, sizeof *e->hash);
	e->excluded = sl_xcalloc(m->nnodes + 1, sizeof *e->excluded);
	e->ok = sl_xcalloc(m->nnodes + 1, sizeof *e->ok);
}

static void evolving_free(struct evolving *e, size_t nw)
{
	if (e->has_cycle)
		sl_cycle_free(&e->cycle);
	for (size_t i = 0; i < e->m.nnodes; i++)
		sl_res_free(&e->nodes[i].used);
	for (size_t i = 0; i < nw; i++)
		free(e->labels[i].v);
	free(e->labels);
	free(e->hash);
	free(e->excluded);
	free(e->ok);
	free(e->nodes);
	free(e->m.nodes);
	free(e->m.pods);
	free(e->placed);
	free(e->owner);
	free(e->placed_node);
	free(e->lost);
	free(e->gone);
}

/* Bind `count` pods of w to node k: running pods of their own (w's template with the labels its
 * pods carry), charged to the node. */
static void bind(struct evolving *e, const struct sl_workload *w, size_t wi, const struct sl_labels *labels, size_t k,
		 int64_t count)
{
	struct sl_node *n = &e->nodes[k];
	for (int64_t c = 0; c < count; c++) {
		e->owner[e->nplaced] = wi;
		e->placed_node[e->nplaced] = k;
		e->lowest = w->pod.priority < e->lowest ? w->pod.priority : e->lowest;
		struct sl_pod *p = &e->placed[e->nplaced++];
		*p = (struct sl_pod){0};
		p->obj = w->obj;
		p->obj.kind = "Pod";
		p->spec = w->pod;
		p->spec.labels = *labels;
		p->spec.node_name = n->name;
		p->phase = "Running";
		e->m.pods[e->m.npods++] = p;
		for (size_t r = 0; r < w->pod.request.n; r++)
			sl_res_add(&n->used, w->pod.request.v[r].name, w->pod.request.v[r].amount, NULL);
		n->npods++;
	}
}

/* Whether placing a pod of p depends on the other pods, not only on the load of the nodes. */
static bool reads_pods(const struct sl_podspec *p)
{
	return p->naffinity || p->nanti || p->nspread || p->nports;
}

/* Whether placing a pod of w depends on pods of other workloads: reads_pods, or the system-default
 * spreading (scores only) with a selector that is not pinned to w's own pod-template-hash (a
 * StatefulSet's, a ReplicaSet's or a ReplicationController's may select others' pods). */
static bool reads_others(const struct sl_workload *w)
{
	bool own;
	return reads_pods(&w->pod) || (sl_spread_defaults(w, &own) && !own);
}

/* Whether a term of `owner` may select a pod of `of` (their template labels; a term that also
 * reads label keys of its own pod is assumed to). */
static bool terms_select(const struct sl_podterm *t, size_t nt, const struct sl_podspec *owner,
			 const struct sl_podspec *of)
{
	for (size_t k = 0; k < nt; k++)
		if (t[k].nmatch_keys || t[k].nmismatch_keys ||
		    sl_podterm_matches(&t[k], owner->namespace, &owner->labels, of->namespace, &of->labels))
			return true;
	return false;
}

/* Whether pods of `placed` bear on placing a pod of `next` (next_defaults: its default spreading
 * may select other workloads' pods, reads_others): next's terms or spread may select
 * them, their anti-affinity may repel it, or they bind a host port next wants (NodePorts judges
 * nothing else of them). */
static bool bears_on(const struct sl_podspec *placed, const struct sl_workload *nextw, bool next_defaults)
{
	const struct sl_podspec *next = &nextw->pod;
	if (next_defaults && sl_streq(next->namespace, placed->namespace) &&
	    sl_spread_defaults_may_select(nextw, &placed->labels))
		return true; /* counted by its default spreading's scores */
	if (terms_select(placed->anti, placed->nanti, placed, next) ||
	    terms_select(next->affinity, next->naffinity, next, placed) ||
	    terms_select(next->anti, next->nanti, next, placed) ||
	    sl_ports_conflict(next->ports, next->nports, placed->ports, placed->nports))
		return true;
	for (size_t k = 0; k < next->nspread; k++)
		if (next->spread[k].nmatch_keys || (sl_streq(next->namespace, placed->namespace) &&
						    sl_selector_matches(&next->spread[k].sel, &placed->labels)))
			return true;
	return false;
}

/* Why the next pod of s fits on none of the nodes that pass its node-only filters: per node, the
 * filters' reasons as text (NULL for the other nodes). Copied out: the reason texts belong to the
 * index, which is gone before they are read. */
static char **why_not(const struct sl_cycle *s)
{
	char **why = sl_xcalloc(s->n + 1, sizeof *why);
	struct sl_buf b = SL_BUF_INIT;
	for (size_t k = 0; k < s->n; k++) {
		if (!s->static_ok[k] || s->excluded[k])
			continue;
		struct sl_nodefit f;
		memset(&f, 0, sizeof f);
		sl_filter_others(s, k, &f);
		sl_buf_reset(&b);
		for (size_t r = 0; r < f.nreasons; r++)
			sl_buf_printf(&b, "%s%s", r ? ", " : "", f.reasons[r]);
		why[k] = sl_xstrdup(f.plugin == SL_FITS ? "fits"
				    : f.nreasons        ? sl_buf_str(&b)
							: sl_plugin_name(f.plugin));
	}
	sl_buf_free(&b);
	return why;
}

static void why_free(char **why, size_t n)
{
	for (size_t k = 0; why && k < n; k++)
		free(why[k]);
	free(why);
}

/* cycle.h */
void sl_release_hash(char *h, size_t wi)
{
	char digits[24];
	size_t n = 0;
	do
		digits[n++] = (char)('0' + wi % 10);
	while ((wi /= 10) && n < sizeof digits);
	memcpy(h, "schedlint-", 10);
	for (size_t i = 0; i < n; i++)
		h[10 + i] = digits[n - 1 - i];
	h[10 + n] = '\0';
}

/* w as the placement places it: only the replicas, at most todo of them (a rollout's surge comes
 * later, and is rollout-deadlock's question). */
static struct sl_workload steady_of(const struct sl_workload *w, int64_t todo)
{
	struct sl_workload steady = *w;
	if (steady.strategy == SL_STRATEGY_ROLLING)
		steady.strategy = SL_STRATEGY_RECREATE;
	if (steady.replicas > todo)
		steady.replicas = todo;
	return steady;
}

/* One workload on the cluster cl as it is now: how many of its todo pods the scheduler places, and
 * where (bound into e, and charged to cl's nodes); with why, why its next pod finds no node when
 * it falls short. */
static int64_t place_one(struct evolving *e, struct sl_cluster *cl, const struct sl_workload *w, size_t wi,
			 int64_t todo, bool why, struct sl_release_placement *out, uint64_t *work, bool *truncated)
{
	size_t n = e->m.nnodes;
	const char *hash = sl_own_hash(cl, w);
	/* A hash of the placement's own making is another workload's pods placed in this release (one
	 * of the same name): not the cluster's, so not this workload's generation. */
	if (hash && !strncmp(hash, "schedlint-", 10))
		hash = NULL;
	struct sl_workload steady = steady_of(w, todo);
	bool *excluded = e->excluded, *ok = e->ok;
	memset(excluded, 0, n * sizeof *excluded);
	memset(ok, 0, n * sizeof *ok);
	sl_node_affinity_prefilter(&w->pod, &e->m, excluded);
	sl_node_only_verdicts(cl, &w->pod, ok);
	int64_t placed, surge;
	/* Two Deployments are two ReplicaSets: their pods never share a hash (matchLabelKeys). */
	sl_release_hash(e->hash[wi], wi);
	struct sl_cycle *s = &e->cycle;
	if (e->has_cycle)
		sl_cycle_renew(s, cl, &steady, excluded, ok, hash ? hash : e->hash[wi]);
	else
		sl_cycle_init(s, cl, &steady, excluded, ok, hash ? hash : e->hash[wi]);
	e->has_cycle = true;
	s->ties_last = e->flags & SL_PLACE_TIES_LAST;
	s->no_sys_spread = e->flags & SL_PLACE_NO_DEFAULT_SPREAD;
	s->extra = e->placed + e->built;
	s->extra_node = e->placed_node + e->built;
	s->nextra = e->counts_extra ? e->nplaced - e->built : 0;
	sl_place_all(s, &steady, NULL, 0, &placed, &surge, NULL, NULL);
	*work += s->work;
	*truncated |= s->truncated || *work > SL_RELEASE_PLACE_BUDGET;
	/* The placed pods keep them (placed again after a preemption: the same labels, kept once). */
	if (e->labels[wi].v)
		free(s->gl[0].v);
	else
		e->labels[wi] = s->gl[0];
	s->gl[0] = (struct sl_labels){0};
	if (why && placed < steady.replicas && !s->truncated) {
		why_free(out->why[wi], n);
		out->why[wi] = why_not(s);
	}
	sl_grow(&out->seq, &out->capseq, out->nseq + s->nlog, sizeof *out->seq);
	for (size_t l = 0; l < s->nlog; l++)
		out->seq[out->nseq++] = (struct sl_release_binding){wi, s->log[l].node, 1};
	for (size_t k = 0; k < n; k++)
		if (s->placed_gen[0][k] > 0) {
			bind(e, w, wi, &e->labels[wi], k, s->placed_gen[0][k]);
			sl_cluster_charge(cl, k, &w->pod, s->placed_gen[0][k]);
			sl_grow(&out->log, &out->caplog, out->nlog + 1, sizeof *out->log);
			out->log[out->nlog++] = (struct sl_release_binding){wi, k, s->placed_gen[0][k]};
		}
	sl_cycle_finish(s); /* nothing of it points at steady, w or cl once placed */
	return placed;
}

/* The index built, or its running pods indexed again with every pod placed so far among them. */
static struct sl_cluster *rebuild(struct sl_cluster *cl, struct evolving *e, uint64_t *work)
{
	const struct sl_model *m = &e->m;
	*work += (uint64_t)m->nnodes + m->npods + 1;
	e->built = e->nplaced;
	if (cl) {
		sl_cluster_refresh(cl);
		return cl;
	}
	/* Built from the model, the index knows the devices the running pods' claims hold, not those
	 * the release's placed pods took (sl_cluster_charge's): those are taken again, in the order
	 * they were placed, for the pods still placed (not evicted), once the devices of the claims
	 * that went with evicted running pods are free. (Placed before an eviction, a pod may take
	 * again a device its victim held rather than the one it took: the same count per node where
	 * the devices are alike.) */
	cl = sl_cluster_new(m);
	sl_dra_release_evicted(cl, e->gone, e->ngone);
	for (size_t i = 0; i < m->npods; i++)
		if (m->pods[i] >= e->placed && m->pods[i] < e->placed + e->nplaced)
			sl_dra_charge(cl, e->placed_node[m->pods[i] - e->placed], &m->pods[i]->spec, 1);
	return cl;
}

/* Preemption inside the release. A pod that finds no node runs DefaultPreemption (PostFilter,
 * sched/preemption.c): pods of lower priority are evicted on the node the scheduler nominates,
 * running pods or the release's own placed earlier, and the pod binds there; a pod of the release
 * evicted so is created again by its controller and placed anew after the workload that evicted
 * it. Modelled where resources alone decide (the pod reads no other pods and no pod in the cluster
 * carries anti-affinity), as sl_preempt_place is; elsewhere the placement says it evicted nothing
 * where preemption may have made room (preempt_unmodelled). */

/* Evict running pod v from node k of e (its load goes); a pod of the release is lost to its
 * workload, to be placed again. */
static void evict(struct evolving *e, const struct sl_pod *v, size_t k, struct sl_release_placement *out)
{
	for (size_t i = 0; i < e->m.npods; i++)
		if (e->m.pods[i] == v) {
			memmove(&e->m.pods[i], &e->m.pods[i + 1], (e->m.npods - i - 1) * sizeof *e->m.pods);
			e->m.npods--;
			break;
		}
	struct sl_node *n = &e->nodes[k];
	for (size_t r = 0; r < v->spec.request.n; r++)
		sl_res_add(&n->used, v->spec.request.v[r].name, -v->spec.request.v[r].amount, NULL);
	n->npods--;
	if (v < e->placed || v >= e->placed + e->nplaced) {
		out->evicted_running++;
		sl_grow(&e->gone, &e->capgone, e->ngone + 1, sizeof *e->gone);
		e->gone[e->ngone++] = v;
		return;
	}
	size_t j = e->owner[v - e->placed];
	e->lost[j]++;
	out->placed[j]--;
	out->evicted_own++;
	/* The log sums pods per node: the evicted one no longer counts where it was. */
	for (size_t b = out->nlog; b-- > 0;)
		if (out->log[b].workload == j && out->log[b].node == k && out->log[b].pods > 0) {
			out->log[b].pods--;
			break;
		}
}

/* One pod of ws[wi] placed by preemption on cl (built with every pod placed so far): the victims
 * evicted and the pod bound where the scheduler nominates. False when no candidate exists. */
static bool preempt_one(struct evolving *e, struct sl_cluster *cl, const struct sl_workload *w, size_t wi,
			struct sl_release_placement *out)
{
	size_t n = cl->n;
	struct sl_nodefit *node_only = sl_xcalloc(n + 1, sizeof *node_only);
	struct sl_cycle cy = {.cl = cl, .m = cl->m, .p = &w->pod, .n = n};
	for (size_t k = 0; k < n; k++)
		sl_filter_node_only(&cy, k, &node_only[k]);
	struct sl_preempt_run r;
	sl_preempt_run_init(&r, cl, NULL);
	bool done = sl_preempt_place(cl, &w->pod, node_only, &r, 1, false) == 1 && r.nsteps == 1 && !r.unknown;
	if (done) {
		const struct sl_preempt_step *st = &r.steps[0];
		for (size_t v = 0; v < st->nvictims; v++)
			evict(e, st->victims[v], st->node, out);
		bind(e, w, wi, &e->labels[wi], st->node, 1);
		sl_grow(&out->log, &out->caplog, out->nlog + 1, sizeof *out->log);
		out->log[out->nlog++] = (struct sl_release_binding){wi, st->node, 1};
		sl_grow(&out->seq, &out->capseq, out->nseq + 1, sizeof *out->seq);
		out->seq[out->nseq++] = (struct sl_release_binding){wi, st->node, 1};
		out->by_preemption++;
	}
	out->preempt_unmodelled |= r.unknown;
	sl_preempt_run_free(&r, n);
	free(node_only);
	return done;
}

/* ws[wi]'s todo pods placed as place_one places them, and those that find no node by preemption,
 * where it is modelled: how many run. *cl is built again after each eviction. */
static int64_t place_preempting(struct evolving *e, struct sl_cluster **cl, const struct sl_workload *w, size_t wi,
				int64_t todo, bool why, struct sl_release_placement *out, uint64_t *work,
				bool *truncated)
{
	if (e->nplaced + (size_t)todo > e->capplaced) {
		*truncated = true; /* evictions and placements again past every pod twice: not followed */
		return 0;
	}
	int64_t placed = place_one(e, *cl, w, wi, todo, why, out, work, truncated);
	/* No pod of lower priority anywhere (known without building the index again): no victim. */
	while (placed < todo && !*truncated && w->pod.preempts && w->pod.priority > e->lowest) {
		*cl = rebuild(*cl, e, work);
		if (!sl_preempt_has_victims(*cl, &w->pod, NULL))
			break;
		if (reads_pods(&w->pod) || (*cl)->anti_by_ns.keys.n || (*cl)->anti_wild.keys.n) {
			out->preempt_unmodelled = true;
			break;
		}
		if (e->nplaced + (size_t)(todo - placed) > e->capplaced || !preempt_one(e, *cl, w, wi, out))
			break;
		placed++;
		/* Built anew: refreshing only adds the pods bound since (sl_cluster_refresh), and the
		 * evicted ones must leave the index. */
		sl_cluster_free(*cl);
		*cl = rebuild(NULL, e, work);
		if (placed < todo)
			placed += place_one(e, *cl, w, wi, todo - placed, why, out, work, truncated);
	}
	return placed;
}

/* The pods of the release that preemption evicted, placed again (their controllers create them
 * anew) once the workload that evicted them is placed: in input order of their workloads, each
 * able to preempt pods of lower priority still. */
static void place_lost(struct evolving *e, struct sl_cluster **cl, const struct sl_workload *const *ws, size_t nw,
		       struct sl_release_placement *out, uint64_t *work, bool *truncated)
{
	for (bool again = true; again && !*truncated;) {
		again = false;
		for (size_t j = 0; j < nw && !*truncated; j++) {
			if (e->lost[j] <= 0)
				continue;
			int64_t lost = e->lost[j];
			e->lost[j] = 0;
			*cl = rebuild(*cl, e, work);
			out->placed[j] += place_preempting(e, cl, ws[j], j, lost, false, out, work, truncated);
			again = true; /* that may have evicted others in turn */
		}
	}
}

uint64_t sl_release_place_cost(const struct sl_model *m, const struct sl_workload *const *ws, size_t nw, int64_t total)
{
	/* At most two builds per workload that reads or marks other pods, and every pod filtering
	 * every node. */
	uint64_t builds = 1;
	for (size_t i = 0; i < nw; i++)
		builds += reads_others(ws[i]) ? 2 : 0;
	uint64_t pods = (uint64_t)(total > 0 ? total : 0);
	/* and each of those workloads asking about every workload placed before it */
	return builds * ((uint64_t)m->nnodes + m->npods + pods + 1) + pods * ((uint64_t)m->nnodes + 1) + builds * nw;
}

/* Whether one more pod of w, of a new ReplicaSet (a rollout's surge), passes every filter on some
 * node of cl as the release left it; when not, what blocks it into why (each reason once). */
static bool surge_fits(struct sl_cluster *cl, const struct sl_workload *w, struct sl_buf *why)
{
	size_t n = cl->n;
	const char *hash = sl_own_hash(cl, w);
	bool *excluded = sl_xcalloc(n + 1, sizeof *excluded), *ok = sl_xcalloc(n + 1, sizeof *ok), fits = false;
	sl_node_affinity_prefilter(&w->pod, cl->m, excluded);
	sl_node_only_verdicts(cl, &w->pod, ok);
	struct sl_cycle s;
	sl_cycle_init(&s, cl, w, excluded, ok, hash);
	s.gen = 1; /* the new ReplicaSet's pod: its own pod-template-hash */
	sl_plugins_prefilter(&s);
	sl_plugins_refresh(&s);
	struct sl_strpool seen = {0};
	for (size_t k = 0; k < n && !fits; k++) {
		if (excluded[k] || !ok[k])
			continue;
		struct sl_nodefit f;
		memset(&f, 0, sizeof f);
		fits = sl_filter_others(&s, k, &f) == SL_FITS;
		for (size_t r = 0; !fits && r < f.nreasons; r++) {
			size_t before = seen.n;
			sl_intern(&seen, f.reasons[r]);
			if (seen.n > before)
				sl_buf_printf(why, "%s%s", before ? "; " : "", f.reasons[r]);
		}
	}
	if (fits)
		sl_buf_reset(why);
	sl_strpool_free(&seen);
	sl_cycle_free(&s);
	free(excluded);
	free(ok);
	return fits;
}

static bool place_release(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
			  bool reverse, unsigned flags, struct sl_release_surges *surges,
			  struct sl_release_placement *out);

bool sl_release_place(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
		      bool reverse, struct sl_release_placement *out)
{
	return place_release(m, ws, todo, nw, reverse, 0, NULL, out);
}

bool sl_release_place_as(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
			 bool reverse, unsigned flags, struct sl_release_placement *out)
{
	return place_release(m, ws, todo, nw, reverse, flags, NULL, out);
}

bool sl_release_place_surges(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo,
			     size_t nw, bool reverse, struct sl_release_surges *surges,
			     struct sl_release_placement *out)
{
	return place_release(m, ws, todo, nw, reverse, 0, surges, out);
}

/* sl_release_place's work: placed as flags say (SL_PLACE_*), then the surges (may be NULL). */
static bool place_release(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
			  bool reverse, unsigned flags, struct sl_release_surges *surges,
			  struct sl_release_placement *out)
{
	memset(out, 0, sizeof *out);
	int64_t total = 0;
	for (size_t i = 0; i < nw; i++)
		total = sl_sat_add(total, todo[i] > 0 ? todo[i] : 0);
	out->placed = sl_xcalloc(nw + 1, sizeof *out->placed);
	out->why = sl_xcalloc(nw + 1, sizeof *out->why);
	out->nw = nw;
	out->nnodes = m->nnodes;
	if (sl_release_place_cost(m, ws, nw, total) > SL_RELEASE_PLACE_BUDGET)
		return false;
	struct evolving e;
	evolving_init(&e, m, nw, total);
	e.flags = flags;
	uint64_t work = 0;
	bool truncated = false;
	struct sl_cluster *cl = rebuild(NULL, &e, &work);
	/* The workloads with pods placed since the index was built: only their pods are missing
	 * from it, and they matter only to a workload they bear on. */
	size_t *unbuilt = sl_xcalloc(nw + 1, sizeof *unbuilt), nunbuilt = 0;
	/* those of them that carry anti-affinity: all that can bear on a workload that reads no pods */
	size_t *anti = sl_xcalloc(nw + 1, sizeof *anti), nanti = 0;
	/* Only the first workload left short has its nodes shown (release_order.c): the reasons are
	 * formatted for it alone. */
	bool short_seen = false;
	for (size_t k = 0; k < nw && !truncated; k++) {
		size_t i = reverse ? nw - 1 - k : k;
		if (todo[i] <= 0)
			continue;
		/* Without terms, spread or ports of its own only a placed pod's anti-affinity matters: the
		 * pods placed since the index was built that its default spreading may count are counted
		 * from the placement's own list (sl_cycle.extra), not by building the index again. */
		bool own, defaults = sl_spread_defaults(ws[i], &own) && !own;
		bool reads = reads_pods(&ws[i]->pod), stale = false;
		const size_t *scan = reads ? unbuilt : anti;
		for (size_t u = 0, nscan = reads ? nunbuilt : nanti; u < nscan && !stale; u++)
			stale = bears_on(&ws[scan[u]]->pod, ws[i], false);
		e.counts_extra = false;
		for (size_t u = 0; defaults && !stale && u < nunbuilt && !e.counts_extra; u++)
			e.counts_extra = bears_on(&ws[unbuilt[u]]->pod, ws[i], true);
		if (stale) {
			cl = rebuild(cl, &e, &work);
			nunbuilt = nanti = 0;
		}
		int64_t evicted = out->evicted_own;
		out->placed[i] += place_preempting(&e, &cl, ws[i], i, todo[i], !short_seen, out, &work, &truncated);
		if (out->evicted_own > evicted) {
			place_lost(&e, &cl, ws, nw, out, &work, &truncated);
			nunbuilt = nanti = 0; /* built again */
		}
		short_seen |= out->placed[i] < todo[i];
		if (out->placed[i] > 0) {
			unbuilt[nunbuilt++] = i;
			if (ws[i]->pod.nanti)
				anti[nanti++] = i;
		}
	}
	free(unbuilt);
	free(anti);
	bool all = !truncated;
	for (size_t i = 0; i < nw && all; i++)
		all = out->placed[i] >= todo[i] || todo[i] <= 0;
	/* The surges, once every pod of the release has found a node: its pods indexed as running. */
	for (size_t j = 0; surges && all && j < surges->n; j++) {
		if (!j)
			cl = rebuild(cl, &e, &work);
		surges->fits[j] = surge_fits(cl, ws[surges->of[j]], &surges->why[j]) ? 1 : 0;
	}
	sl_cluster_free(cl);
	evolving_free(&e, nw);
	out->complete = !truncated;
	return out->complete;
}

/* Proving, without placing, that no pod is left Pending (sl_release_places_surely). */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* How many of n nodes, node k full once t[k] (at least 1) more lands on it, a load of budget
 * spread at will can fill at once: the most of the smallest t whose sum fits. Sorts t. */
static size_t fillable(int64_t *t, size_t n, int64_t budget)
{
	qsort(t, n, sizeof *t, cmp_i64);
	size_t k = 0;
	for (int64_t sum = 0; k < n && (sum = sl_sat_add(sum, t[k])) <= budget; k++)
		;
	return k;
}

/* The nodes where a pod of ws[wi] passes every filter with no pod of the release placed yet, into
 * fits; how many. The cycle is the one place_one sets up for it on the index as it is first built. */
static size_t fits_alone(struct sl_cluster *cl, const struct sl_workload *w, size_t wi, int64_t todo, bool *fits)
{
	size_t n = cl->n, count = 0;
	const char *hash = sl_own_hash(cl, w);
	struct sl_workload steady = steady_of(w, todo);
	bool *excluded = sl_xcalloc(n + 1, sizeof *excluded), *ok = sl_xcalloc(n + 1, sizeof *ok);
	sl_node_affinity_prefilter(&w->pod, cl->m, excluded);
	sl_node_only_verdicts(cl, &w->pod, ok);
	char own[32];
	sl_release_hash(own, wi);
	struct sl_cycle s;
	sl_cycle_init(&s, cl, &steady, excluded, ok, hash ? hash : own);
	sl_plugins_prefilter(&s);
	sl_plugins_refresh(&s);
	for (size_t k = 0; k < n; k++)
		count += fits[k] = !excluded[k] && ok[k] && sl_filter_others(&s, k, NULL) == SL_FITS;
	sl_cycle_free(&s);
	free(excluded);
	free(ok);
	return count;
}

/* Whether a pod of ws[i] always finds one of the nfits nodes where it fits alone, whatever the
 * rest of the release took before it: only the load changes (no pod of the release reads or repels
 * other pods), and for the pod count and each resource it asks, the rest of the release (all of it
 * but this pod) can fill fewer of those nodes, all resources together, than there are. */
static bool never_short(const struct sl_model *m, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
			size_t i, const bool *fits, size_t nfits)
{
	const struct sl_reslist *req = &ws[i]->pod.request;
	int64_t *t = sl_xcalloc(nfits + 1, sizeof *t);
	size_t full = 0;
	for (size_t r = 0; r <= req->n && full < nfits; r++) {
		/* r == req->n: the pod count; a resource the filter does not check, or asks none of, never
		 * fills a node where the pod fits alone (what the others place there fits beside it). */
		const char *res = r < req->n ? req->v[r].name : NULL;
		int64_t need = res ? sl_res_get(req, res) : 1, total = 0;
		if (res && (need <= 0 || !sl_resource_checked(res)))
			continue;
		for (size_t j = 0; j < nw; j++)
			total = sl_sat_add(total, sl_sat_mul(todo[j] > 0 ? todo[j] : 0,
							     res ? sl_res_get(&ws[j]->pod.request, res) : 1));
		size_t nt = 0;
		for (size_t k = 0; k < m->nnodes; k++) {
			const struct sl_node *nd = m->nodes[k];
			if (fits[k])
				t[nt++] = (res ? sl_res_get(&nd->alloc, res) - sl_res_get(&nd->used, res)
					       : nd->max_pods - nd->npods) -
					  need + 1;
		}
		full += fillable(t, nt, total - need);
	}
	free(t);
	return full < nfits;
}

bool sl_release_places_surely(struct sl_cluster *cl, const struct sl_workload *const *ws, const int64_t *todo,
			      size_t nw)
{
	int64_t total = 0;
	/* Scores (default spreading among them) only choose among the nodes where a pod fits; the
	 * proof below holds whichever they choose. */
	for (size_t i = 0; i < nw; i++) {
		if (reads_pods(&ws[i]->pod))
			return false;
		total = sl_sat_add(total, todo[i] > 0 ? todo[i] : 0);
	}
	if (sl_release_place_cost(cl->m, ws, nw, total) > SL_RELEASE_PLACE_BUDGET)
		return false; /* not placed either */
	bool *fits = sl_xcalloc(cl->n + 1, sizeof *fits), sure = true;
	for (size_t i = 0; i < nw && sure; i++) {
		if (todo[i] <= 0)
			continue;
		size_t nfits = fits_alone(cl, ws[i], i, todo[i], fits);
		sure = nfits > 0 && never_short(cl->m, ws, todo, nw, i, fits, nfits);
	}
	free(fits);
	return sure;
}

void sl_release_placement_free(struct sl_release_placement *p)
{
	for (size_t i = 0; p->why && i < p->nw; i++)
		why_free(p->why[i], p->nnodes);
	free(p->why);
	free(p->placed);
	free(p->log);
	free(p->seq);
	memset(p, 0, sizeof *p);
}
