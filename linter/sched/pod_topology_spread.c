/* PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread): for each constraint,
 * the pods its selector matches, counted per domain of its topology key over the eligible nodes
 * (those with every hard constraint's key that pass its node inclusion policies). DoNotSchedule
 * constraints filter on the skew against the global minimum; ScheduleAnyway ones score. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "status.h"

/* One constraint of the incoming pod, as the plugin's PreFilter counts it. */
struct constraint {
	const struct sl_spread *c;
	size_t topo;
	int64_t *cnt;          /* matching pods per domain, on eligible nodes */
	bool *present;         /* domains with an eligible node */
	int64_t min;           /* the global minimum the skew is measured from */
	bool self;             /* the incoming pod matches its own selector */
	signed char *elig;     /* per node: 0 not known yet, 1 eligible, -1 not */
	signed char *elig_cls; /* per node class: the same for the node-only part, when it is shared */
};

struct sl_spread_state {
	struct constraint *sp;
	size_t nsp;
	int64_t *raw; /* scratch for the scores */
};

/* A constraint's selector, with matchLabelKeys taken from the incoming pod. */
static bool spread_selects(const struct sl_spread *c, const struct sl_labels *owner, const struct sl_labels *labels)
{
	return sl_selector_matches(&c->sel, labels) &&
	       sl_match_label_keys(c->match_keys, c->nmatch_keys, owner, labels);
}

/* Whether node i counts for constraint st: it has the keys of every constraint as hard as st and
 * passes st's node inclusion policies. */
static bool eligible(const struct sl_cycle *cy, const struct constraint *st, size_t i)
{
	if (st->elig[i])
		return st->elig[i] > 0;
	const struct sl_spread_state *ss = cy->spread;
	const struct sl_node *nd = cy->m->nodes[i];
	bool ok = true;
	for (size_t k = 0; k < ss->nsp && ok; k++)
		if (ss->sp[k].c->hard == st->c->hard && sl_topo_dom(cy->cl, ss->sp[k].topo, i) < 0)
			ok = false;
	signed char *cls = st->elig_cls ? &st->elig_cls[cy->cl->cls[i]] : NULL;
	if (ok && cls && *cls)
		ok = *cls > 0;
	else if (ok) {
		bool node_ok = !(st->c->honor_affinity && !sl_node_affinity_matches(cy->p, nd)) &&
			       !(st->c->honor_taints && sl_untolerated_taint(cy->p, nd));
		if (cls)
			*cls = node_ok ? 1 : -1;
		ok = node_ok;
	}
	st->elig[i] = ok ? 1 : -1;
	return ok;
}

/* A pod (of ns with labels) on node i enters the counts of the incoming pod. */
static void count(struct sl_cycle *cy, size_t i, const char *ns, const struct sl_labels *labels)
{
	const struct sl_labels *own = &cy->gl[cy->gen];
	struct sl_spread_state *ss = cy->spread;
	for (size_t k = 0; k < ss->nsp; k++) {
		struct constraint *st = &ss->sp[k];
		if (strcmp(ns, cy->p->namespace) || !spread_selects(st->c, own, labels) || !eligible(cy, st, i))
			continue;
		st->cnt[sl_topo_dom(cy->cl, st->topo, i)]++;
	}
}

static void count_running_pod(void *ctx, size_t k)
{
	struct sl_cycle *cy = ctx;
	count(cy, cy->cl->pod_node[k], cy->cl->pods[k]->spec.namespace, &cy->cl->pods[k]->spec.labels);
}

static void state_new(struct sl_cycle *cy)
{
	const struct sl_podspec *p = cy->p;
	const struct sl_cluster *cl = cy->cl;
	struct sl_spread_state *ss = sl_xcalloc(1, sizeof *ss);
	ss->sp = sl_xcalloc(p->nspread + 1, sizeof *ss->sp);
	ss->raw = sl_xcalloc(cy->n + 1, sizeof *ss->raw);
	bool by_class = sl_judged_by_class(p);
	for (size_t k = 0; k < p->nspread; k++) {
		struct constraint *st = &ss->sp[ss->nsp++];
		st->c = &p->spread[k];
		st->topo = sl_topo_id(cl, st->c->topology_key);
		st->cnt = sl_xcalloc(cl->topos[st->topo].ndom + 1, sizeof *st->cnt);
		st->present = sl_xcalloc(cl->topos[st->topo].ndom + 1, sizeof *st->present);
		st->elig = sl_xcalloc(cy->n + 1, sizeof *st->elig);
		st->elig_cls = by_class ? sl_xcalloc(cl->ncls + 1, sizeof *st->elig_cls) : NULL;
	}
	cy->spread = ss;
}

void sl_pod_topology_spread_prefilter(struct sl_cycle *cy)
{
	if (!cy->p->nspread)
		return; /* nothing to count (most pods): no state, and every hook below has nothing to do */
	if (!cy->spread)
		state_new(cy);
	struct sl_spread_state *ss = cy->spread;
	for (size_t k = 0; k < ss->nsp; k++) {
		struct constraint *st = &ss->sp[k];
		size_t nd = cy->cl->topos[st->topo].ndom + 1;
		memset(st->cnt, 0, nd * sizeof *st->cnt);
		memset(st->present, 0, nd * sizeof *st->present);
		for (size_t i = 0; i < cy->n; i++)
			if (eligible(cy, st, i))
				st->present[sl_topo_dom(cy->cl, st->topo, i)] = true;
		st->self = spread_selects(st->c, &cy->gl[cy->gen], &cy->gl[cy->gen]);
	}
	if (!ss->nsp)
		return;
	/* The running pods of the pod's namespace that a constraint's selector can match. */
	const struct sl_selector **sels = sl_xcalloc(ss->nsp, sizeof *sels);
	for (size_t k = 0; k < ss->nsp; k++)
		sels[k] = &ss->sp[k].c->sel;
	sl_visit_running(cy->cl, cy->p->namespace, false, sels, ss->nsp, &cy->stamp, &cy->epoch, count_running_pod, cy);
	free(sels);
}

void sl_pod_topology_spread_add_pod(struct sl_cycle *cy, size_t node, int gen)
{
	if (cy->spread)
		count(cy, node, cy->p->namespace, &cy->gl[gen]);
}

/* The global minimum each skew is measured from: the fewest matching pods in an eligible domain,
 * or 0 while fewer domains than minDomains are eligible. */
void sl_pod_topology_spread_refresh(struct sl_cycle *cy)
{
	struct sl_spread_state *ss = cy->spread;
	for (size_t k = 0; ss && k < ss->nsp; k++) {
		struct constraint *st = &ss->sp[k];
		size_t nd = cy->cl->topos[st->topo].ndom, ndomains = 0;
		st->min = INT32_MAX; /* no eligible domain: every skew is negative */
		for (size_t d = 0; d < nd; d++)
			if (st->present[d]) {
				ndomains++;
				if (st->cnt[d] < st->min)
					st->min = st->cnt[d];
			}
		if ((int64_t)ndomains < st->c->min_domains)
			st->min = 0;
	}
}

void sl_pod_topology_spread_release(struct sl_cycle *cy)
{
	struct sl_spread_state *ss = cy->spread;
	if (!ss)
		return;
	for (size_t k = 0; k < ss->nsp; k++) {
		free(ss->sp[k].cnt);
		free(ss->sp[k].present);
		free(ss->sp[k].elig);
		free(ss->sp[k].elig_cls);
	}
	free(ss->sp);
	free(ss->raw);
	free(ss);
	cy->spread = NULL;
}

/* Only DoNotSchedule constraints filter. */
bool sl_pod_topology_spread_idle(const struct sl_cycle *cy)
{
	for (size_t k = 0; cy->spread && k < cy->spread->nsp; k++)
		if (cy->spread->sp[k].c->hard)
			return false;
	return true;
}

bool sl_pod_topology_spread_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_spread_state *ss = cy->spread;
	for (size_t k = 0; ss && k < ss->nsp; k++) {
		const struct constraint *st = &ss->sp[k];
		if (!st->c->hard)
			continue;
		int32_t d = sl_topo_dom(cy->cl, st->topo, node);
		if (d < 0) {
			if (out)
				sl_nodefit_fail(
				    out, SL_PL_POD_TOPOLOGY_SPREAD,
				    "node(s) didn't match pod topology spread constraints (missing required label)");
			return false;
		}
		int64_t match = st->present[d] ? st->cnt[d] : 0;
		if (match + (st->self ? 1 : 0) - st->min > st->c->max_skew) {
			if (out)
				sl_nodefit_fail(out, SL_PL_POD_TOPOLOGY_SPREAD,
						"node(s) didn't match pod topology spread constraints");
			return false;
		}
	}
	return true;
}

/* ScheduleAnyway constraints: matching pods in the node's domain, weighted by log(domains + 2);
 * a node without a constraint's key is ignored (scores 0). Normalized as the plugin does: the
 * fewest matching pods score 100. */
bool sl_pod_topology_spread_scores(const struct sl_cycle *cy, const size_t *cand, size_t ncand, int64_t *score)
{
	const struct sl_spread_state *ss = cy->spread;
	if (!ss)
		return false;
	int64_t *raw = ss->raw;
	int64_t rmin = INT64_MAX, rmax = 0;
	double weight[16];
	size_t nw = 0;
	for (size_t k = 0; k < ss->nsp && nw < 16; k++) {
		const struct constraint *st = &ss->sp[k];
		size_t ndomains = 0;
		if (st->c->hard)
			continue;
		for (size_t x = 0; x < cy->cl->topos[st->topo].ndom; x++)
			ndomains += st->present[x];
		weight[nw++] = log((double)ndomains + 2);
	}
	if (!nw)
		return false;
	for (size_t c = 0; c < ncand; c++) {
		double sc = 0;
		size_t w = 0;
		raw[c] = -1;
		for (size_t k = 0; k < ss->nsp && w < nw; k++) {
			const struct constraint *st = &ss->sp[k];
			if (st->c->hard)
				continue;
			int32_t d = sl_topo_dom(cy->cl, st->topo, cand[c]);
			if (d < 0)
				break;
			sc += (double)(st->present[d] ? st->cnt[d] : 0) * weight[w++];
		}
		if (w < nw)
			continue; /* ignored */
		raw[c] = (int64_t)(sc + 0.5);
		if (raw[c] < rmin)
			rmin = raw[c];
		if (raw[c] > rmax)
			rmax = raw[c];
	}
	for (size_t c = 0; c < ncand; c++)
		score[c] = raw[c] < 0 ? 0 : rmax == 0 ? 100 : 100 * (rmax + rmin - raw[c]) / rmax;
	return true;
}
