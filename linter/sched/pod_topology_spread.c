/* PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread): for each constraint,
 * the pods its selector matches, counted per domain of its topology key over the eligible nodes
 * (those with every hard constraint's key that pass its node inclusion policies). DoNotSchedule
 * constraints filter on the skew against the global minimum; ScheduleAnyway ones score. A pod
 * with no constraint of its own whose controller is a ReplicaSet (a Deployment's), StatefulSet or
 * ReplicationController gets the plugin's system defaults (defaultingType System), which only
 * score: maxSkew 3 per kubernetes.io/hostname and 5 per topology.kubernetes.io/zone, ScheduleAnyway,
 * selecting by the controller's selector (helper.DefaultSelector; a Deployment's ReplicaSet adds
 * its pod-template-hash, so only pods of the incoming pod's generation count). Services, which DefaultSelector also
 * reads, are not in the model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "plugin.h"
#include "status.h"

/* One constraint of the incoming pod, as the plugin's PreFilter counts it. */
struct constraint {
	const struct sl_spread *c;
	size_t topo;
	int64_t *cnt;          /* matching pods per domain, on eligible nodes */
	bool *present;         /* domains with an eligible node (a hard constraint's only) */
	int64_t min;           /* the global minimum the skew is measured from */
	size_t ndomains;       /* the present domains it is taken over (refresh) */
	bool self;             /* the incoming pod matches its own selector */
	signed char *elig;     /* per node: 0 not known yet, 1 eligible, -1 not */
	signed char *elig_cls; /* per node class: the same for the node-only part, when it is shared */
};

struct sl_spread_state {
	struct constraint *sp;
	size_t nsp;
	int64_t *raw; /* scratch for the scores */
	/* The system defaults, when the pod has them instead of constraints of its own: sp[k].c points
	 * here. Their selector is the workload's (borrowed), their nodes need no key (the plugin's
	 * requireAllTopologies is false for them). */
	struct sl_spread sys[2];
	bool sys_on;
	/* A Deployment's: its selector's requirements after pod-template-hash In [sys_hash], the
	 * incoming generation's hash (set by each PreFilter). Put first, it is what the running pods'
	 * index is asked for: no running pod carries the hash the engine makes up for a workload with
	 * none running, so most visits find nothing at once. */
	struct sl_requirement *sys_reqs;
	const char *sys_hash;
	uint32_t *mark; /* per domain of any constraint: the scoring's last epoch that saw it */
	uint32_t epoch;
	/* The hard constraints' present domains are made: they read the nodes and the pod spec only,
	 * the same for both generations. */
	bool present_made;
};

/* PodTopologySpreadArgs' system defaults (pkg/scheduler/apis/config/v1beta3 and v1: the
 * systemDefaultConstraints of the plugin's args). */
static const struct {
	const char *key;
	int64_t max_skew;
} sys_defaults[2] = {{"kubernetes.io/hostname", 3}, {"topology.kubernetes.io/zone", 5}};

/* Whether w's own selector joins its pods' default selector: DefaultSelector adds the selector of
 * the pod's controller when it is a ReplicaSet (a Deployment's), a StatefulSet or a
 * ReplicationController, and one that selects nothing adds no requirement. */
static bool owner_selects(const struct sl_workload *w)
{
	const char *k = w->obj.kind;
	return !w->sel.nothing && (!strcmp(k, "Deployment") || !strcmp(k, "StatefulSet") || !strcmp(k, "ReplicaSet") ||
				   !strcmp(k, "ReplicationController"));
}

bool sl_spread_defaults(const struct sl_workload *w, bool *own_hash)
{
	bool owner = owner_selects(w), deploy = owner && !strcmp(w->obj.kind, "Deployment");
	if (w->pod.nspread)
		return false;
	if (own_hash)
		*own_hash = deploy;
	/* The Services that select the pod, merged, then the controller's selector (a ReplicaSet of a
	 * Deployment always selects its pod-template-hash): an empty result is Empty() to the plugin,
	 * no constraint. */
	return deploy || (owner && w->sel.nreqs > 0) || w->svc.nreqs > 0;
}

bool sl_spread_defaults_may_select(const struct sl_workload *w, const struct sl_labels *labels)
{
	return owner_selects(w) ? sl_selector_matches(&w->sel, labels) : sl_selector_matches(&w->svc, labels);
}

bool sl_spread_defaults_keys_uneven(const struct sl_model *m)
{
	for (size_t k = 0; k < 2; k++) {
		size_t bare = 0;
		for (size_t i = 0; i < m->nnodes; i++)
			bare += !sl_labels_get(&m->nodes[i]->labels, sys_defaults[k].key);
		if (bare && bare < m->nnodes)
			return true;
	}
	return false;
}

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
	for (size_t k = 0; k < ss->nsp && ok && !ss->sys_on; k++)
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

/* A pod (of ns with labels) on node i enters the counts of the incoming pod. same: it is a pod of
 * the incoming pod's own generation, which each constraint selects or not as it does the incoming
 * pod (st->self): no selector to match again for each of the workload's pods placed. */
static void count(struct sl_cycle *cy, size_t i, const char *ns, const struct sl_labels *labels, bool same)
{
	const struct sl_labels *own = &cy->gl[cy->gen];
	struct sl_spread_state *ss = cy->spread;
	if (!sl_streq(ns, cy->p->namespace))
		return;
	/* The system defaults share one selector: matched once for both. */
	bool sys_sel = ss->sys_on && !same && spread_selects(ss->sp[0].c, own, labels);
	for (size_t k = 0; k < ss->nsp; k++) {
		struct constraint *st = &ss->sp[k];
		bool sel = same ? st->self : ss->sys_on ? sys_sel : spread_selects(st->c, own, labels);
		if (!sel || !eligible(cy, st, i))
			continue;
		int32_t d = sl_topo_dom(cy->cl, st->topo, i);
		if (d >= 0) /* a system default's node may lack the key: its pods are in no domain */
			st->cnt[d]++;
	}
}

static void count_running_pod(void *ctx, size_t k)
{
	struct sl_cycle *cy = ctx;
	count(cy, cy->cl->pod_node[k], cy->cl->pods[k]->spec.namespace, &cy->cl->pods[k]->spec.labels, false);
}

/* The bytes of n items of size in the state's block, rounded so that the next array starts
 * aligned as malloc's would. */
static size_t span(size_t n, size_t size)
{
	return (n * size + 15) & ~(size_t)15;
}

static void *carve(char **at, size_t n, size_t size)
{
	void *p = *at;
	*at += span(n, size);
	return p;
}

/* The state is one block (its arrays carved from it), sized first from the constraints'
 * topologies: a release places hundreds of workloads, each with a state of its own, and a dozen
 * allocations each cost more than the counting. Only what is read before it is written starts
 * at 0 (the state, the eligibility caches, the domains' marks): the counts are cleared by each
 * PreFilter, the scores' scratch is written first, and on a large cluster zeroing those cost as
 * much as counting. */
static void state_new(struct sl_cycle *cy)
{
	const struct sl_podspec *p = cy->p;
	const struct sl_cluster *cl = cy->cl;
	bool own_hash = false;
	bool sys_on = !p->nspread && !cy->no_sys_spread && sl_spread_defaults(cy->w, &own_hash);
	size_t n = sys_on ? 2 : p->nspread, maxdom = 0, counts = 0;
	/* DefaultSelector: the hash first (the running pods' index is looked up by the first
	 * requirement), the Services' pairs, the controller's selector. */
	const struct sl_selector *own = owner_selects(cy->w) ? &cy->w->sel : NULL, *svc = &cy->w->svc;
	size_t nown = own ? own->nreqs : 0;
	size_t nreqs = sys_on && (own_hash || (own && svc->nreqs)) ? 1 + svc->nreqs + nown : 0;
	bool by_class = sl_judged_by_class(p);
	size_t zeroed = span(1, sizeof(struct sl_spread_state)) + span(n + 1, sizeof(struct constraint)) +
			span(nreqs, sizeof(struct sl_requirement));
	for (size_t k = 0; k < n; k++) {
		size_t nd = cl->topos[sl_topo_id(cl, sys_on ? sys_defaults[k].key : p->spread[k].topology_key)].ndom;
		maxdom = nd > maxdom ? nd : maxdom;
		zeroed += span(cy->n + 1, 1) + (by_class ? span(cl->ncls + 1, 1) : 0);
		counts += span(nd + 1, sizeof(int64_t)) + span(nd + 1, sizeof(bool));
	}
	zeroed += span(maxdom + 1, sizeof(uint32_t));
	char *at = sl_xmalloc(zeroed + span(cy->n + 1, sizeof(int64_t)) + counts);
	memset(at, 0, zeroed);
	struct sl_spread_state *ss = carve(&at, 1, sizeof *ss);
	ss->sys_on = sys_on;
	ss->sp = carve(&at, n + 1, sizeof *ss->sp);
	struct sl_selector sel = own ? *own : *svc;
	if (nreqs) {
		size_t r = 0;
		ss->sys_reqs = carve(&at, nreqs, sizeof *ss->sys_reqs);
		if (own_hash)
			ss->sys_reqs[r++] =
			    (struct sl_requirement){"pod-template-hash", SL_OP_IN, &ss->sys_hash, 1, NULL};
		for (size_t q = 0; q < svc->nreqs; q++)
			ss->sys_reqs[r++] = svc->reqs[q];
		for (size_t q = 0; q < nown; q++)
			ss->sys_reqs[r++] = own->reqs[q];
		sel = (struct sl_selector){.reqs = ss->sys_reqs, .nreqs = r};
	}
	for (size_t k = 0; ss->sys_on && k < 2; k++)
		ss->sys[k] = (struct sl_spread){.max_skew = sys_defaults[k].max_skew,
						.topology_key = sys_defaults[k].key,
						.honor_affinity = true,
						.sel = sel};
	for (size_t k = 0; k < n; k++) {
		struct constraint *st = &ss->sp[ss->nsp++];
		st->c = ss->sys_on ? &ss->sys[k] : &p->spread[k];
		st->topo = sl_topo_id(cl, st->c->topology_key);
		st->elig = carve(&at, cy->n + 1, sizeof *st->elig);
		st->elig_cls = by_class ? carve(&at, cl->ncls + 1, sizeof *st->elig_cls) : NULL;
	}
	ss->mark = carve(&at, maxdom + 1, sizeof *ss->mark);
	/* the rest is not zeroed */
	ss->raw = carve(&at, cy->n + 1, sizeof *ss->raw);
	for (size_t k = 0; k < n; k++) {
		size_t nd = cl->topos[ss->sp[k].topo].ndom;
		ss->sp[k].cnt = carve(&at, nd + 1, sizeof *ss->sp[k].cnt);
		ss->sp[k].present = carve(&at, nd + 1, sizeof *ss->sp[k].present);
	}
	cy->spread = ss;
}

/* Whether the system defaults can tell nodes apart for the pods of this phase: some nodes lack a
 * default's key that others have (Score adds a constraint's maxSkew - 1 only on nodes with its
 * key, so even with nothing counted those without it score better), more than one pod is placed
 * (the second counts the first), or a running pod may match their selector. One pod with nothing
 * to count on nodes labelled alike scores every node alike, so no state is made: most workloads
 * of a large release have one replica. */
static bool sys_matters(struct sl_cycle *cy, bool own_hash)
{
	for (size_t k = 0; k < 2; k++) {
		size_t bare = cy->cl->topos[sl_topo_id(cy->cl, sys_defaults[k].key)].nbare;
		if (bare && bare < cy->cl->n)
			return true;
	}
	int64_t pods = cy->w->replicas, unavailable;
	if (cy->gen == 1)
		sl_fenceposts(cy->w, &pods, &unavailable);
	if (pods > 1)
		return true;
	const char *hash = sl_labels_get(&cy->gl[cy->gen], "pod-template-hash");
	struct sl_requirement r = {"pod-template-hash", SL_OP_IN, &hash, 1, NULL};
	struct sl_selector probe = own_hash && hash       ? (struct sl_selector){.reqs = &r, .nreqs = 1}
				   : owner_selects(cy->w) ? cy->w->sel
							  : cy->w->svc;
	for (size_t k = 0; k < cy->nextra; k++)
		if (sl_streq(cy->extra[k].spec.namespace, cy->p->namespace) &&
		    sl_selector_matches(&probe, &cy->extra[k].spec.labels))
			return true;
	struct sl_buf scratch = SL_BUF_INIT;
	size_t n = 0;
	sl_running_for(cy->cl, cy->p->namespace, false, &probe, &scratch, &n);
	sl_buf_free(&scratch);
	return n > 0;
}

void sl_pod_topology_spread_prefilter(struct sl_cycle *cy)
{
	bool own_hash = false;
	if (!cy->p->nspread && !cy->spread &&
	    (cy->no_sys_spread || !sl_spread_defaults(cy->w, &own_hash) || !sys_matters(cy, own_hash)))
		return; /* nothing to count: no state, and every hook below has nothing to do */
	if (!cy->spread)
		state_new(cy);
	struct sl_spread_state *ss = cy->spread;
	ss->sys_hash = sl_labels_get(&cy->gl[cy->gen], "pod-template-hash");
	if (!ss->sys_hash)
		ss->sys_hash = ""; /* not a Deployment's pod: the requirement is not read */
	for (size_t k = 0; k < ss->nsp; k++) {
		struct constraint *st = &ss->sp[k];
		size_t nd = cy->cl->topos[st->topo].ndom + 1;
		memset(st->cnt, 0, nd * sizeof *st->cnt);
		st->self = spread_selects(st->c, &cy->gl[cy->gen], &cy->gl[cy->gen]);
		/* Only a hard constraint reads which domains have an eligible node (its skew's global
		 * minimum): a soft one's scores read its counts, 0 in such a domain anyway (a pod is
		 * counted only on an eligible node). Not walking every node for them keeps a large
		 * cluster's system defaults cheap. */
		if (!st->c->hard || ss->present_made)
			continue;
		memset(st->present, 0, nd * sizeof *st->present);
		/* A domain found present is not asked again: a zone's first eligible node settles it
		 * for the thousands beside it (eligible is the same whenever it is asked). Nor is a node
		 * of a class found not to pass the policies: the zones the pod's node affinity leaves out
		 * hold thousands of those. */
		const int32_t *dom = cy->cl->topos[st->topo].dom;
		const size_t *cls = cy->cl->cls;
		const signed char *no = st->elig_cls;
		for (size_t i = 0; i < cy->n; i++)
			if (dom[i] >= 0 && !st->present[dom[i]] && !(no && no[cls[i]] < 0) && eligible(cy, st, i))
				st->present[dom[i]] = true;
	}
	ss->present_made = true;
	if (!ss->nsp)
		return;
	/* The running pods of the pod's namespace that a constraint's selector can match. */
	/* On the stack for the usual few constraints: made for every workload a release places. */
	const struct sl_selector *few[8];
	const struct sl_selector **sels = ss->nsp <= 8 ? few : sl_xcalloc(ss->nsp, sizeof *sels);
	for (size_t k = 0; k < ss->nsp; k++)
		sels[k] = &ss->sp[k].c->sel;
	/* The system defaults share one selector: one visit counts a pod for both (count). */
	size_t nsels = ss->sys_on ? 1 : ss->nsp;
	sl_visit_running(cy->cl, cy->p->namespace, false, sels, nsels, &cy->stamp, &cy->epoch, count_running_pod, cy);
	if (sels != few)
		free(sels);
	for (size_t k = 0; k < cy->nextra; k++)
		count(cy, cy->extra_node[k], cy->extra[k].spec.namespace, &cy->extra[k].spec.labels, false);
}

void sl_pod_topology_spread_add_pod(struct sl_cycle *cy, size_t node, int gen)
{
	if (cy->spread)
		count(cy, node, cy->p->namespace, &cy->gl[gen], gen == cy->gen);
}

/* The global minimum each skew is measured from: the fewest matching pods in an eligible domain,
 * or 0 while fewer domains than minDomains are eligible. */
void sl_pod_topology_spread_refresh(struct sl_cycle *cy)
{
	struct sl_spread_state *ss = cy->spread;
	for (size_t k = 0; ss && k < ss->nsp; k++) {
		struct constraint *st = &ss->sp[k];
		if (!st->c->hard)
			continue; /* no skew filtered on: its present domains are not known (prefilter) */
		size_t nd = cy->cl->topos[st->topo].ndom, ndomains = 0;
		st->min = INT32_MAX; /* no eligible domain: every skew is negative */
		for (size_t d = 0; d < nd; d++)
			if (st->present[d]) {
				ndomains++;
				if (st->cnt[d] < st->min)
					st->min = st->cnt[d];
			}
		st->ndomains = ndomains;
		if ((int64_t)ndomains < st->c->min_domains)
			st->min = 0;
	}
}

void sl_pod_topology_spread_release(struct sl_cycle *cy)
{
	struct sl_spread_state *ss = cy->spread;
	if (!ss)
		return;
	free(ss); /* and every array of it: one block (state_new) */
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

bool sl_pod_topology_spread_one_hard(const struct sl_cycle *cy, struct sl_spread_view *v)
{
	const struct sl_spread_state *ss = cy->spread;
	const struct constraint *one = NULL;
	for (size_t k = 0; ss && !ss->sys_on && k < ss->nsp; k++) {
		if (!ss->sp[k].c->hard)
			continue;
		if (one)
			return false;
		one = &ss->sp[k];
	}
	if (!one || !one->self || one->c->max_skew < 1)
		return false;
	if (!one->ndomains) /* as the refresh after PreFilter counted them */
		return false;
	/* Fewer domains than minDomains: the minimum is 0 whatever is counted (refresh). */
	*v = (struct sl_spread_view){one->topo,
				     one->cnt,
				     one->present,
				     one->c->max_skew,
				     one->min,
				     (int64_t)one->ndomains >= one->c->min_domains,
				     cy->w->strategy == SL_STRATEGY_ROLLING &&
					 spread_selects(one->c, &cy->gl[cy->gen], &cy->gl[1 - cy->gen])};
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

/* The weight of a ScheduleAnyway constraint (topologyNormalizingWeight): log(size + 2), size the
 * number of its key's values among the scored nodes, all of them for the hostname, and a node
 * without the key counting as the value "" (possible only for the system defaults, whose nodes
 * need no key). */
static double soft_weight(struct sl_spread_state *ss, const struct sl_cycle *cy, const struct constraint *st,
			  const size_t *cand, size_t ncand, size_t nscored)
{
	if (!strcmp(st->c->topology_key, "kubernetes.io/hostname"))
		return log((double)nscored + 2);
	size_t size = 0;
	bool blank = false;
	ss->epoch++;
	for (size_t c = 0; c < ncand; c++) {
		if (ss->raw[c] < 0)
			continue;
		int32_t d = sl_topo_dom(cy->cl, st->topo, cand[c]);
		if (d < 0)
			blank = true;
		else if (ss->mark[d] != ss->epoch) {
			ss->mark[d] = ss->epoch;
			size++;
		}
	}
	return log((double)(size + blank) + 2);
}

/* llround of a score, without the library call for every node scored: a score is never
 * negative, and below 2^52 taking the whole part off a double is exact, so the half is compared
 * exactly too. */
static int64_t round_half_away(double sc)
{
	if (!(sc >= 0 && sc < 4503599627370496.0))
		return llround(sc);
	int64_t whole = (int64_t)sc;
	return sc - (double)whole >= 0.5 ? whole + 1 : whole;
}

/* ScheduleAnyway constraints, scored as the plugin's PreScore, Score and NormalizeScore do: a
 * node missing a key of a constraint of the pod's own is ignored (scores 0); otherwise, for each
 * constraint whose key the node has, the matching pods in its domain times the constraint's
 * weight, plus maxSkew - 1, summed and rounded; normalized so that the fewest score 100. */
bool sl_pod_topology_spread_scores(const struct sl_cycle *cy, const size_t *cand, size_t ncand, int64_t *score)
{
	struct sl_spread_state *ss = cy->spread;
	if (!ss)
		return false;
	const struct constraint *soft[16];
	double weight[16];
	size_t nsoft = 0, nscored = ncand;
	for (size_t k = 0; k < ss->nsp && nsoft < 16; k++)
		if (!ss->sp[k].c->hard)
			soft[nsoft++] = &ss->sp[k];
	if (!nsoft)
		return false;
	int64_t *raw = ss->raw;
	for (size_t c = 0; c < ncand; c++) {
		raw[c] = 0;
		for (size_t k = 0; k < nsoft && !ss->sys_on && !raw[c]; k++)
			if (sl_topo_dom(cy->cl, soft[k]->topo, cand[c]) < 0) {
				raw[c] = -1; /* ignored */
				nscored--;
			}
	}
	for (size_t k = 0; k < nsoft; k++)
		weight[k] = soft_weight(ss, cy, soft[k], cand, ncand, nscored);
	int64_t rmin = INT64_MAX, rmax = 0;
	for (size_t c = 0; c < ncand; c++) {
		if (raw[c] < 0)
			continue;
		double sc = 0;
		for (size_t k = 0; k < nsoft; k++) {
			int32_t d = sl_topo_dom(cy->cl, soft[k]->topo, cand[c]);
			if (d >= 0)
				sc += (double)soft[k]->cnt[d] * weight[k] + (double)(soft[k]->c->max_skew - 1);
		}
		raw[c] = round_half_away(sc);
		rmin = raw[c] < rmin ? raw[c] : rmin;
		rmax = raw[c] > rmax ? raw[c] : rmax;
	}
	for (size_t c = 0; c < ncand; c++)
		score[c] = raw[c] < 0 ? 0 : rmax == 0 ? 100 : 100 * (rmax + rmin - raw[c]) / rmax;
	return true;
}
