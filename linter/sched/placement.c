/* placement.c — sequential placement: the pods of a workload placed one after another as the
 * scheduler would (filter every node from where the last attempt stopped, score the feasible
 * ones, bind the best), first the replicas, then a rollout's surge. */
#include <stdlib.h>
#include <string.h>

#include "../model/quantity.h"
#include "cycle.h"
#include "plugin.h"
#include "status.h"

void sl_generation_labels(struct sl_labels *out, const struct sl_labels *in, const char *hash)
{
	out->v = sl_xcalloc(in->n + 1, sizeof *out->v);
	out->n = 0;
	for (size_t i = 0; i < in->n; i++)
		if (!hash || strcmp(in->v[i].key, "pod-template-hash"))
			out->v[out->n++] = in->v[i];
	if (hash)
		out->v[out->n++] = (struct sl_kv){"pod-template-hash", hash, NULL, NULL};
}

/* What a cycle holds of one workload; the per-node arrays are the caller's. */
static void cycle_set(struct sl_cycle *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		      const bool *static_ok, const char *old_hash)
{
	s->cl = cl;
	s->m = cl->m;
	s->w = w;
	s->p = &w->pod;
	s->vol = sl_volset_of(w, NULL);
	s->n = cl->n;
	s->pool = &cl->reasons;
	s->excluded = excluded;
	s->static_ok = static_ok;
	if (excluded == cl->none_excluded) /* the common case, without a walk of every node */
		s->nall = s->n;
	else
		for (size_t i = 0; i < s->n; i++)
			s->nall += !excluded[i];
	bool deploy = w->strategy != SL_STRATEGY_NONE;
	sl_generation_labels(&s->gl[0], &w->pod.labels, deploy ? old_hash : NULL);
	/* The new generation is placed only in a rolling update's surge (sl_place_all). */
	if (w->strategy == SL_STRATEGY_ROLLING)
		sl_generation_labels(&s->gl[1], &w->pod.labels, deploy ? "schedlint-new" : NULL);
}

/* The per-node arrays in the block at s->placed, each n1 long. */
static void carve(struct sl_cycle *s, size_t n1)
{
	s->placed_gen[0] = s->placed + n1;
	s->placed_gen[1] = s->placed + 2 * n1;
	s->res_at = s->placed + 3 * n1;
	s->res_score = s->placed + 4 * n1;
	s->score = s->placed + 5 * n1;
}

void sl_cycle_init(struct sl_cycle *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		   const bool *static_ok, const char *old_hash)
{
	memset(s, 0, sizeof *s);
	/* One block for the per-node counts: placed, each generation's and the attempt's scores.
	 * Only the counts and res_at start at 0 (as sl_cycle_renew clears them): the scores are
	 * written before they are read, and zeroing them cost a large cluster's analysis as much as
	 * a placement. */
	size_t n1 = cl->n + 1;
	s->placed = sl_xmalloc(SL_CYCLE_ARRAYS * n1 * sizeof *s->placed);
	memset(s->placed, 0, SL_CYCLE_ZEROED * n1 * sizeof *s->placed);
	carve(s, n1);
	s->cand = sl_xmalloc(n1 * sizeof *s->cand); /* scratch: written before it is read */
	cycle_set(s, cl, w, excluded, static_ok, old_hash);
}

void sl_cycle_take(struct sl_cycle *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		   const bool *static_ok, const char *old_hash)
{
	pthread_mutex_lock(&cl->spare_lock);
	struct sl_cycle_spare *sp = cl->spare;
	if (sp)
		cl->spare = sp->next;
	pthread_mutex_unlock(&cl->spare_lock);
	if (!sp) {
		sl_cycle_init(s, cl, w, excluded, static_ok, old_hash);
		s->home = cl;
		return;
	}
	memset(s, 0, sizeof *s);
	s->placed = sp->placed;
	carve(s, cl->n + 1);
	s->cand = sp->cand;
	s->log = sp->log;
	s->caplog = sp->caplog;
	s->res_base = sp->res_base;
	s->home = cl;
	free(sp);
	cycle_set(s, cl, w, excluded, static_ok, old_hash);
}

/* s's per-node arrays back to its cluster: the counts are non-zero only where the log placed a
 * pod, and every res_at it wrote is at most res_base + nlog + 1. */
static void give_back(struct sl_cycle *s)
{
	for (size_t l = 0; l < s->nlog; l++) {
		size_t i = s->log[l].node;
		s->placed[i] = s->placed_gen[0][i] = s->placed_gen[1][i] = 0;
	}
	struct sl_cycle_spare *sp = sl_xmalloc(sizeof *sp);
	*sp = (struct sl_cycle_spare){s->placed, s->cand, s->log, s->caplog, s->res_base + (int64_t)s->nlog + 2, NULL};
	pthread_mutex_lock(&s->home->spare_lock);
	sp->next = s->home->spare;
	s->home->spare = sp;
	pthread_mutex_unlock(&s->home->spare_lock);
}

void sl_cycle_finish(struct sl_cycle *s)
{
	sl_plugins_release(s);
	free(s->gl[0].v);
	free(s->gl[1].v);
	free(s->stamp); /* per running pod: a refresh may add some before the cycle is renewed */
	s->gl[0] = s->gl[1] = (struct sl_labels){0};
	s->stamp = NULL;
}

void sl_cycle_free(struct sl_cycle *s)
{
	sl_cycle_finish(s);
	if (s->home) {
		give_back(s);
		return;
	}
	free(s->placed);
	free(s->cand);
	free(s->log);
}

void sl_cycle_renew(struct sl_cycle *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		    const bool *static_ok, const char *old_hash)
{
	struct sl_cycle keep = *s;
	memset(s, 0, sizeof *s);
	s->placed = keep.placed;
	s->placed_gen[0] = keep.placed_gen[0];
	s->placed_gen[1] = keep.placed_gen[1];
	s->res_at = keep.res_at;
	s->res_score = keep.res_score;
	s->res_base = keep.res_base;
	s->score = keep.score;
	s->cand = keep.cand;
	s->log = keep.log;
	s->caplog = keep.caplog;
	memset(s->placed, 0, SL_CYCLE_ZEROED * (cl->n + 1) * sizeof *s->placed); /* the counts, res_at */
	cycle_set(s, cl, w, excluded, static_ok, old_hash);
}

/* The plugins' counts for an incoming pod of generation gen: from the running pods, then from
 * the pods placed so far. */
static void phase_begin(struct sl_cycle *s, int gen)
{
	s->gen = gen;
	sl_plugins_prefilter(s);
	for (size_t l = 0; l < s->nlog; l++)
		sl_plugins_add_pod(s, s->log[l].node, s->log[l].gen);
	sl_plugins_refresh(s);
	sl_filter_plan(s);
}

/* The same for a proof, which asks the filters alone: PodTopologySpread's system defaults are
 * ScheduleAnyway, so they filter nothing, and their counts (a state over every node, the running
 * pods the workload's selector matches) are left out. A state a pod's own constraints make is
 * the one a placement would make. */
static void proof_begin(struct sl_cycle *s, int gen)
{
	bool keep = s->no_sys_spread;
	s->no_sys_spread = true;
	phase_begin(s, gen);
	s->no_sys_spread = keep;
}

/* last: no attempt follows in this placement, and nothing reads the plugins' counts after it (a
 * caller reads the counts placed, and the reasons only of an attempt that failed): not updated. */
static void place(struct sl_cycle *s, size_t node, int gen, bool last)
{
	s->placed[node]++;
	s->placed_gen[gen][node]++;
	sl_grow(&s->log, &s->caplog, s->nlog + 1, sizeof *s->log);
	s->log[s->nlog++] = (struct sl_placement){node, gen};
	if (last)
		return;
	sl_plugins_add_pod(s, node, gen);
	sl_plugins_refresh(s);
}

/* The scheduler's choice among feasible nodes, by the default profile's scores that can differ
 * here: PodTopologySpread (weight 2), NodeResourcesFit LeastAllocated and
 * NodeResourcesBalancedAllocation (weight 1 each); PodTopologySpread scores the pod's own
 * ScheduleAnyway constraints or, without constraints of its own, the system defaults a
 * controller's pods get. The profile's other scores (TaintToleration's PreferNoSchedule,
 * NodeAffinity's and InterPodAffinity's preferred terms, ImageLocality) are not modelled. Ties go
 * to the node listed first (ties_last: the last), where the scheduler picks among them at random. */
/* sl_resources_score of node i, computed once per count of the workload's pods on it: between
 * two attempts only the chosen node's count changes, and nothing else the score reads. */
static int64_t resources_score(struct sl_cycle *s, size_t i)
{
	if (s->res_at[i] != s->res_base + s->placed[i] + 1) {
		s->res_score[i] = sl_resources_score(s, i);
		s->res_at[i] = s->res_base + s->placed[i] + 1;
	}
	return s->res_score[i];
}

static size_t choose(struct sl_cycle *s, const size_t *cand, size_t ncand, int64_t *spread)
{
	bool soft = sl_pod_topology_spread_scores(s, cand, ncand, spread);
	int64_t best = INT64_MIN;
	size_t pick = cand[0];
	for (size_t c = 0; c < ncand; c++) {
		int64_t score = (soft ? 2 * spread[c] : 0) + resources_score(s, cand[c]);
		if (s->reverse)
			score = -score;
		if (score > best || ((s->reverse || s->ties_last) && score == best)) {
			best = score;
			pick = cand[c];
		}
	}
	return pick;
}

/* How many feasible nodes the scheduler looks for before it stops filtering
 * (numFeasibleNodesToFind, percentageOfNodesToScore left at its adaptive default). */
static size_t feasible_to_find(size_t nall)
{
	if (nall < 100)
		return nall;
	int64_t pct = 50 - (int64_t)nall / 125;
	if (pct < 5)
		pct = 5;
	size_t want = nall * (size_t)pct / 100;
	return want < 100 ? 100 : want;
}

/* Whether node i may take the pod: not excluded by the PreFilter, passing the node-only filters,
 * and the cycle's filters, PodTopologySpread's too unless !spread (a proof that bounds the spread
 * itself asks the rest). */
static inline bool may_take(const struct sl_cycle *s, size_t i, bool spread)
{
	if (s->excluded[i] || !s->static_ok[i])
		return false;
	if (spread)
		return sl_filter_fits(s, i);
	for (size_t f = 0; f < s->nactive; f++)
		if (s->active[f] != sl_pod_topology_spread_filter && !s->active[f](s, i, NULL))
			return false;
	return true;
}

/* One scheduling attempt for the next pod: the chosen node, or (size_t)-1 when none fits. */
static size_t step(struct sl_cycle *s)
{
	size_t *cand = s->cand;
	/* Like the scheduler, filter from where the previous attempt stopped, and stop once enough
	 * feasible nodes are found: placement follows, and large inventories stay cheap. */
	size_t ncand = 0, k, i = s->next_start;
	size_t want = feasible_to_find(s->nall);
	for (k = 0; k < s->n && ncand < want; k++, i = i + 1 == s->n ? 0 : i + 1) /* no division per node */
		if (may_take(s, i, true))
			cand[ncand++] = i;
	s->next_start = i;
	s->work += k + 1;
	return ncand ? choose(s, cand, ncand, s->score) : (size_t)-1;
}

/* Every node's verdict for the next pod, with the reasons (for the FailedScheduling text). */
static struct sl_nodefit *explain_step(struct sl_cycle *s, const struct sl_nodefit *static_fit)
{
	struct sl_nodefit *f = sl_xcalloc(s->n + 1, sizeof *f);
	for (size_t i = 0; i < s->n; i++) {
		if (!s->static_ok[i])
			f[i] = static_fit[i];
		else
			sl_filter_others(s, i, &f[i]);
		f[i].excluded = s->excluded[i];
	}
	return f;
}

void sl_place_all(struct sl_cycle *s, const struct sl_workload *w, struct sl_analysis *a, int64_t own, int64_t *steady,
		  int64_t *surge, struct sl_nodefit **steady_fit, struct sl_nodefit **rollout_fit)
{
	phase_begin(s, 0);
	if (a)
		for (size_t i = 0; i < s->n; i++)
			if (s->static_ok[i])
				sl_filter_others(s, i, &a->fit[i]);
	*steady = own;
	*surge = 0;
	while (*steady < w->replicas && !(s->truncated = s->work > SL_PLACEMENT_BUDGET)) {
		size_t i = step(s);
		if (i == (size_t)-1) {
			if (a && steady_fit)
				*steady_fit = explain_step(s, a->fit);
			break;
		}
		place(s, i, 0, *steady + 1 >= w->replicas && w->strategy != SL_STRATEGY_ROLLING);
		(*steady)++;
	}
	if (w->strategy == SL_STRATEGY_ROLLING) {
		int64_t max_surge, max_unavailable;
		sl_fenceposts(w, &max_surge, &max_unavailable);
		phase_begin(s, 1);
		while (*surge < max_surge && !(s->truncated = s->work > SL_PLACEMENT_BUDGET)) {
			size_t i = step(s);
			if (i == (size_t)-1) {
				if (a && rollout_fit)
					*rollout_fit = explain_step(s, a->fit);
				break;
			}
			place(s, i, 1, *surge + 1 >= max_surge);
			(*surge)++;
		}
	}
}

/* Whether the filters a placement asks of this cycle are only NodePorts, NodeResourcesFit,
 * InterPodAffinity and PodTopologySpread (*spread: that one among them): what a placed pod changes
 * for the next is then on its node, for its own anti-affinity on its domain, and for the spread
 * the counts. */
static bool known_filters(const struct sl_cycle *s, bool *spread)
{
	*spread = false;
	for (size_t f = 0; f < s->nactive; f++) {
		*spread |= s->active[f] == sl_pod_topology_spread_filter;
		if (s->active[f] != sl_node_ports_filter && s->active[f] != sl_node_resources_fit_filter &&
		    s->active[f] != sl_inter_pod_affinity_filter && s->active[f] != sl_pod_topology_spread_filter)
			return false;
	}
	return true;
}

/* Whether node i is of a unit not counted yet, which it then marks: a unit is a domain of topo
 * (seen: a mark per domain), or with by_node (or for a node without topo's key) a node. */
static bool new_unit(const struct sl_cycle *s, size_t topo, bool by_node, bool *seen, size_t i)
{
	int32_t d = by_node ? -1 : sl_topo_dom(s->cl, topo, i);
	if (d < 0)
		return true;
	if (seen[d])
		return false;
	seen[d] = true;
	return true;
}

/* For a pod with none of the workload's placed: how many units have a node it fits (counted up to
 * need). */
static int64_t fitting_units(struct sl_cycle *s, size_t topo, bool by_node, int64_t need, bool *seen)
{
	if (!by_node)
		memset(seen, 0, s->cl->topos[topo].ndom + 1);
	int64_t units = 0;
	for (size_t i = 0; i < s->n && units < need; i++)
		units += may_take(s, i, true) && new_unit(s, topo, by_node, seen, i);
	return units;
}

/* Whether every domain of topo a lies within one domain of topo b (a node with a's key has b's). */
static bool nests(const struct sl_cluster *cl, size_t a, size_t b)
{
	if (a == b)
		return true;
	size_t na = cl->topos[a].ndom;
	int32_t *in = sl_xmalloc((na + 1) * sizeof *in);
	for (size_t d = 0; d < na; d++)
		in[d] = -2; /* none seen yet */
	bool ok = true;
	for (size_t i = 0; i < cl->n && ok; i++) {
		int32_t da = sl_topo_dom(cl, a, i), db = sl_topo_dom(cl, b, i);
		if (da >= 0) {
			ok = db >= 0 && (in[da] == -2 || in[da] == db);
			in[da] = db;
		}
	}
	free(in);
	return ok;
}

/* With one DoNotSchedule spread constraint sv: whether the pods of a generation fit, `ahead` pods
 * of the generation before it placed (whose units they may have taken: each its own), `counted`
 * whether sv counts those, k pods of its own to come. Units are fitting_units's, each within one
 * of sv's domains; a unit a pod took is the only one that pod changes (the other filters as in
 * fitting_units), and the minimum never falls. Either of two bounds proves it:
 * - slots: a domain d takes pods while its count is below min + maxSkew and it has a unit left,
 *   so while fewer than the sum over d of min(units, min + maxSkew - count) pods are placed
 *   (ahead ones included) some domain takes the next one; with the minimum held down by a domain
 *   no pod can go to (spread per node, most nodes full), this is the bound that holds.
 * - levels (the minimum being the fewest counted): the j-th pod finds a domain at the minimum,
 *   whose count is at most floor((E + j - 1) / D), E what the D domains count now, ahead pods
 *   included when counted; its skew is 1. The pods in it took at most that count less its count
 *   now of its units (plus the ahead ones, when not counted), so one is left when it had
 *   floor((E + k - 1) / D) + 1 less its count now: asked of every domain. Spread per zone with
 *   room in each: more pods than the slots of the first bound. */
static bool spread_fits(struct sl_cycle *s, const struct sl_spread_view *sv, size_t topo, bool by_node, bool *seen,
			int64_t ahead, bool counted, int64_t k)
{
	size_t nd = s->cl->topos[sv->topo].ndom, nshort = 0;
	int64_t total = 0, ndom = 0, slots = 0;
	for (size_t d = 0; d < nd; d++)
		if (sv->present[d]) {
			total += sv->cnt[d];
			ndom++;
		}
	int64_t level = (total + (counted ? ahead : 0) + k - 1) / ndom + 1 + (counted ? 0 : ahead);
	/* per domain: units wanted for the levels (unless short of a true minimum), and slots */
	int64_t *want = sl_xmalloc(2 * (nd + 1) * sizeof *want), *cap = want + nd + 1;
	for (size_t d = 0; d < nd; d++) {
		want[d] = sv->present[d] && sv->true_min ? level - sv->cnt[d] : 0;
		cap[d] =
		    sv->present[d] && sv->min + sv->max_skew > sv->cnt[d] ? sv->min + sv->max_skew - sv->cnt[d] : 0;
		nshort += want[d] > 0;
	}
	bool levels = sv->true_min;
	if (!by_node)
		memset(seen, 0, s->cl->topos[topo].ndom + 1);
	for (size_t i = 0; i < s->n && !(levels && !nshort) && slots < ahead + k; i++) {
		int32_t sd = sl_topo_dom(s->cl, sv->topo, i);
		if (sd < 0 || (want[sd] <= 0 && cap[sd] <= 0) || !may_take(s, i, false) ||
		    !new_unit(s, topo, by_node, seen, i))
			continue;
		nshort -= --want[sd] == 0;
		slots += cap[sd]-- > 0;
	}
	free(want);
	return (levels && !nshort) || slots >= ahead + k;
}

/* Whether the pods of generation gen fit: the k0 replicas, or after them the k1 surge pods. Each
 * pod placed takes at most one unit from those after it (its node; with its own terms, all on
 * topo, its domain), so without a spread constraint the replicas fit when k0 units fit one, and
 * the surge pods when k0 + k1 units fit one of theirs. */
static bool generation_fits(struct sl_cycle *s, int gen, size_t topo, bool by_node, bool *seen, int64_t k0, int64_t k1)
{
	bool spread;
	proof_begin(s, gen);
	if (!known_filters(s, &spread))
		return false;
	int64_t need = gen ? k0 + k1 : k0;
	if (!spread)
		return fitting_units(s, topo, by_node, need, seen) >= need;
	struct sl_spread_view sv;
	if (!sl_pod_topology_spread_one_hard(s, &sv) || (!by_node && !nests(s->cl, topo, sv.topo)))
		return false;
	return gen ? spread_fits(s, &sv, topo, by_node, seen, k0, sv.other_gen_counts, k1)
		   : spread_fits(s, &sv, topo, by_node, seen, 0, true, k0);
}

/* The replicas and the surge pods of w a placement places, after own running (*k0, *k1), when
 * those are what a proof may judge: the pod has no affinity, its anti-affinity terms share a key,
 * and no attempt can start past the budget (every attempt before the last adds at most n + 1). */
static bool provable(const struct sl_cycle *s, const struct sl_workload *w, int64_t own, int64_t *k0, int64_t *k1)
{
	const struct sl_podspec *p = s->p;
	int64_t unavailable;
	*k0 = w->replicas - own;
	*k1 = 0;
	if (w->strategy == SL_STRATEGY_ROLLING)
		sl_fenceposts(w, k1, &unavailable);
	*k0 = *k0 < 0 ? 0 : *k0;
	*k1 = *k1 < 0 ? 0 : *k1;
	if (*k0 + *k1 == 0 || p->naffinity || (uint64_t)(*k0 + *k1 - 1) > SL_PLACEMENT_BUDGET / (s->n + 1))
		return false;
	for (size_t t = 1; t < p->nanti; t++)
		if (strcmp(p->anti[t].topology_key, p->anti[0].topology_key))
			return false;
	return true;
}

bool sl_place_all_fits(struct sl_cycle *s, const struct sl_workload *w, int64_t own)
{
	const struct sl_podspec *p = s->p;
	int64_t k0, k1;
	if (!provable(s, w, own, &k0, &k1))
		return false;
	bool by_node = !p->nanti;
	size_t topo = by_node ? 0 : sl_topo_id(s->cl, p->anti[0].topology_key);
	bool *seen = by_node ? NULL : sl_xmalloc(s->cl->topos[topo].ndom + 1);
	bool fits = k0 == 0 || generation_fits(s, 0, topo, by_node, seen, k0, k1);
	if (fits && k1 > 0)
		fits = generation_fits(s, 1, topo, by_node, seen, k0, k1);
	free(seen);
	return fits;
}

/* Whether a term of p's anti-affinity, on a pod with labels own, selects a pod with labels of. */
static bool anti_selects(const struct sl_podspec *p, const struct sl_labels *own, const struct sl_labels *of)
{
	for (size_t t = 0; t < p->nanti; t++)
		if (sl_podterm_matches(&p->anti[t], p->namespace, own, p->namespace, of))
			return true;
	return false;
}

/* The domains of topo with a node that fits a pod of generation gen before any is placed, marked
 * in seen (the spread not asked: it may open a node later); how many, or -1 when a node that fits
 * has no domain (it takes pods while it has room: nothing is bounded) or a filter asked is not
 * one known_filters knows. */
static int64_t fitting_domains(struct sl_cycle *s, int gen, size_t topo, bool *seen)
{
	int64_t units = 0;
	bool spread;
	proof_begin(s, gen);
	if (!known_filters(s, &spread))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		if (!may_take(s, i, false))
			continue;
		int32_t d = sl_topo_dom(s->cl, topo, i);
		if (d < 0)
			return -1;
		units += !seen[d];
		seen[d] = true;
	}
	return units;
}

/* A pod goes to a node that passes the filters then, so that fitted it before any was placed
 * (resources and host ports only fill): to one of fitting_domains's, where the pod's own
 * anti-affinity lets one pod at most. So fewer of gen 0's than replicas leave a replica out. The
 * surge pods after the replicas go where neither a replica nor another surge pod is, when the
 * terms select both: U1 less the domains the k0 replicas hold, which are in U0, so at most
 * |U1| - k0 + |U0 \ U1| of them. */
bool sl_place_all_short(struct sl_cycle *s, const struct sl_workload *w, int64_t own)
{
	const struct sl_podspec *p = s->p;
	int64_t k0, k1;
	if (!provable(s, w, own, &k0, &k1) || !k0 || !p->nanti || !anti_selects(p, &s->gl[0], &s->gl[0]))
		return false;
	size_t topo = sl_topo_id(s->cl, p->anti[0].topology_key), nd = s->cl->topos[topo].ndom;
	bool *seen = sl_xcalloc(2 * (nd + 1), sizeof *seen), *seen1 = seen + nd + 1;
	int64_t u0 = fitting_domains(s, 0, topo, seen), u1 = -1, only0 = 0;
	bool short_of = u0 >= 0 && u0 < k0;
	if (!short_of && u0 >= 0 && k1 > 0 && anti_selects(p, &s->gl[1], &s->gl[0]) &&
	    anti_selects(p, &s->gl[1], &s->gl[1]) && (u1 = fitting_domains(s, 1, topo, seen1)) >= 0) {
		for (size_t d = 0; d < nd; d++)
			only0 += seen[d] && !seen1[d];
		short_of = u1 - k0 + only0 < k1;
	}
	free(seen);
	return short_of;
}
