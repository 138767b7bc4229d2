/* InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity): the incoming pod's
 * required affinity (every term met by some pod in the node's domain, or the first pod of a group
 * that selects itself), its required anti-affinity (no matching pod in the domain), and the
 * running or placed pods' anti-affinity that excludes it (by symmetry). Counts are kept per
 * (topology key, domain), as the plugin keys them. */
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "status.h"

/* Per topology key that a term or a running pod's anti-affinity uses. */
struct tslot {
	size_t topo;
	int64_t *aff;  /* pods matching all of the incoming pod's affinity terms, per domain */
	int64_t *anti; /* pods matching one of its anti-affinity terms */
	bool *block;   /* domains where a running or placed pod's anti-affinity excludes it */
	bool any_block;
};

struct sl_interpod_state {
	struct tslot *ts;
	size_t nts, capts;
	size_t *aff_ts, *anti_ts; /* per term of the pod: its slot (in term_ts) */
	int64_t aff_sum, anti_sum;
	bool self_aff;    /* the pod matches its own affinity terms */
	size_t term_ts[]; /* one allocation with the state: made per workload */
};

static size_t slot_of(struct sl_interpod_state *st, const struct sl_cluster *cl, const char *key)
{
	size_t t = sl_topo_id(cl, key);
	for (size_t i = 0; i < st->nts; i++)
		if (st->ts[i].topo == t)
			return i;
	sl_grow(&st->ts, &st->capts, st->nts + 1, sizeof *st->ts);
	struct tslot *x = &st->ts[st->nts];
	size_t nd = cl->topos[t].ndom + 1;
	x->topo = t;
	/* One block: the two counts, then the blocked domains. */
	x->aff = sl_xcalloc(nd, 2 * sizeof *x->aff + sizeof *x->block);
	x->anti = x->aff + nd;
	x->block = (bool *)(x->anti + nd);
	x->any_block = false;
	return st->nts++;
}

static bool all_terms_match(const struct sl_podterm *ts, size_t n, const char *owner_ns, const struct sl_labels *owner,
			    const char *ns, const struct sl_labels *labels)
{
	for (size_t i = 0; i < n; i++)
		if (!sl_podterm_matches(&ts[i], owner_ns, owner, ns, labels))
			return false;
	return true;
}

/* A pod (of ns with labels) on node i enters the counts of the incoming pod's terms. */
static void count(struct sl_cycle *cy, size_t i, const char *ns, const struct sl_labels *labels)
{
	const struct sl_podspec *p = cy->p;
	const struct sl_labels *own = &cy->gl[cy->gen];
	struct sl_interpod_state *st = cy->interpod;
	if (p->naffinity && all_terms_match(p->affinity, p->naffinity, p->namespace, own, ns, labels))
		for (size_t t = 0; t < p->naffinity; t++) {
			struct tslot *x = &st->ts[st->aff_ts[t]];
			int32_t d = sl_topo_dom(cy->cl, x->topo, i);
			if (d >= 0) {
				x->aff[d]++;
				st->aff_sum++;
			}
		}
	for (size_t t = 0; t < p->nanti; t++) {
		if (!sl_podterm_matches(&p->anti[t], p->namespace, own, ns, labels))
			continue;
		struct tslot *x = &st->ts[st->anti_ts[t]];
		int32_t d = sl_topo_dom(cy->cl, x->topo, i);
		if (d >= 0) {
			x->anti[d]++;
			st->anti_sum++;
		}
	}
}

/* A pod (owner) on node i whose anti-affinity terms may exclude the incoming pod there. */
static void count_blocks(struct sl_cycle *cy, size_t i, const struct sl_podterm *terms, size_t nterms,
			 const char *owner_ns, const struct sl_labels *owner)
{
	struct sl_interpod_state *st = cy->interpod;
	for (size_t t = 0; t < nterms; t++) {
		if (!sl_podterm_matches(&terms[t], owner_ns, owner, cy->p->namespace, &cy->gl[cy->gen]))
			continue;
		size_t x = slot_of(st, cy->cl, terms[t].topology_key);
		int32_t d = sl_topo_dom(cy->cl, st->ts[x].topo, i);
		if (d >= 0) {
			st->ts[x].block[d] = true;
			st->ts[x].any_block = true;
		}
	}
}

/* The anti-affinity terms of a running pod that select the incoming pod, remembered per
 * template: a workload's placed replicas share their terms, labels and namespace (the same
 * memory), and are met again and again among the candidates of a pass. */
struct template_terms {
	const struct sl_podterm *terms;
	const struct sl_kv *labels;
	size_t nlabels;
	const char *ns;
	uint64_t hits; /* bit t: terms[t] selects the incoming pod */
};
enum { TEMPLATES_KEPT = 8 };

/* count_blocks for owner o on node i, with its terms' matches looked up in memo first. */
static void count_blocks_of(struct sl_cycle *cy, size_t i, const struct sl_podspec *o, struct template_terms *memo,
			    size_t *nmemo)
{
	if (o->nanti > 64) {
		count_blocks(cy, i, o->anti, o->nanti, o->namespace, &o->labels);
		return;
	}
	const struct template_terms *tt = NULL;
	for (size_t k = 0; k < *nmemo && !tt; k++)
		if (memo[k].terms == o->anti && memo[k].labels == o->labels.v && memo[k].nlabels == o->labels.n &&
		    memo[k].ns == o->namespace)
			tt = &memo[k];
	struct template_terms fresh = {o->anti, o->labels.v, o->labels.n, o->namespace, 0};
	if (!tt) {
		for (size_t t = 0; t < o->nanti; t++)
			if (sl_podterm_matches(&o->anti[t], o->namespace, &o->labels, cy->p->namespace,
					       &cy->gl[cy->gen]))
				fresh.hits |= (uint64_t)1 << t;
		if (*nmemo < TEMPLATES_KEPT)
			memo[(*nmemo)++] = fresh;
		tt = &fresh;
	}
	struct sl_interpod_state *st = cy->interpod;
	for (size_t t = 0; t < o->nanti; t++) {
		if (!(tt->hits >> t & 1))
			continue;
		size_t x = slot_of(st, cy->cl, o->anti[t].topology_key);
		int32_t d = sl_topo_dom(cy->cl, st->ts[x].topo, i);
		if (d >= 0) {
			st->ts[x].block[d] = true;
			st->ts[x].any_block = true;
		}
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
	struct sl_interpod_state *st =
	    sl_xcalloc(1, sizeof *st + (p->naffinity + p->nanti + 1) * sizeof st->term_ts[0]);
	st->aff_ts = st->term_ts;
	st->anti_ts = st->term_ts + p->naffinity;
	for (size_t t = 0; t < p->naffinity; t++)
		st->aff_ts[t] = slot_of(st, cy->cl, p->affinity[t].topology_key);
	for (size_t t = 0; t < p->nanti; t++)
		st->anti_ts[t] = slot_of(st, cy->cl, p->anti[t].topology_key);
	cy->interpod = st;
}

/* The running pods the nterms terms' selectors can match, counted. */
static void visit_running(struct sl_cycle *cy, size_t nterms)
{
	const struct sl_podspec *p = cy->p;
	bool wild = false;
	const struct sl_selector **sels = sl_xcalloc(nterms, sizeof *sels);
	for (size_t t = 0; t < nterms; t++) {
		const struct sl_podterm *term = t < p->naffinity ? &p->affinity[t] : &p->anti[t - p->naffinity];
		wild |= term->nnamespaces || term->has_ns_selector;
		sels[t] = &term->sel;
	}
	sl_visit_running(cy->cl, p->namespace, wild, sels, nterms, &cy->stamp, &cy->epoch, count_running_pod, cy);
	free(sels);
}

/* The counts for an incoming pod of the cycle's generation, from the running pods: those its
 * terms' selectors can match (of its own namespace, or of any when a term names others), each
 * once, and those whose anti-affinity may exclude it. */
void sl_inter_pod_affinity_prefilter(struct sl_cycle *cy)
{
	const struct sl_podspec *p = cy->p;
	const struct sl_labels *own = &cy->gl[cy->gen];
	size_t nterms = p->naffinity + p->nanti, nq;
	size_t *q = sl_anti_candidates(cy->cl, p->namespace, own, 1, &nq);
	if (!nterms && !nq) {
		/* Nothing to count, and nothing the workload's pods add (they carry no terms): no state,
		 * and the filter is idle. */
		sl_inter_pod_affinity_release(cy);
		free(q);
		return;
	}
	/* A state just made has its counts at 0 (slot_of): cleared only for the next generation. */
	bool made = !cy->interpod;
	if (made)
		state_new(cy);
	struct sl_interpod_state *st = cy->interpod;
	st->aff_sum = st->anti_sum = 0;
	for (size_t x = 0; x < st->nts && !made; x++) {
		size_t nd = cy->cl->topos[st->ts[x].topo].ndom + 1;
		memset(st->ts[x].aff, 0, nd * sizeof *st->ts[x].aff);
		memset(st->ts[x].anti, 0, nd * sizeof *st->ts[x].anti);
		memset(st->ts[x].block, 0, nd * sizeof *st->ts[x].block);
		st->ts[x].any_block = false;
	}
	st->self_aff = all_terms_match(p->affinity, p->naffinity, p->namespace, own, p->namespace, own);
	if (nterms)
		visit_running(cy, nterms);
	struct template_terms memo[TEMPLATES_KEPT];
	size_t nmemo = 0;
	for (size_t a = 0; a < nq; a++)
		count_blocks_of(cy, cy->cl->pod_node[q[a]], &cy->cl->pods[q[a]]->spec, memo, &nmemo);
	free(q);
}

void sl_inter_pod_affinity_add_pod(struct sl_cycle *cy, size_t node, int gen)
{
	count(cy, node, cy->p->namespace, &cy->gl[gen]);
	count_blocks(cy, node, cy->p->anti, cy->p->nanti, cy->p->namespace, &cy->gl[gen]);
}

void sl_inter_pod_affinity_release(struct sl_cycle *cy)
{
	struct sl_interpod_state *st = cy->interpod;
	if (!st)
		return;
	for (size_t x = 0; x < st->nts; x++)
		free(st->ts[x].aff); /* and anti, block: the same block */
	free(st->ts);
	free(st);
	cy->interpod = NULL;
}

static bool fail(struct sl_nodefit *out, const char *reason)
{
	if (out)
		sl_nodefit_fail(out, SL_PL_INTER_POD_AFFINITY, reason);
	return false;
}

/* Without terms of its own or a running pod's anti-affinity that selects it, the pod is refused
 * nowhere. */
bool sl_inter_pod_affinity_idle(const struct sl_cycle *cy)
{
	const struct sl_interpod_state *st = cy->interpod;
	return !st || (!cy->p->naffinity && !cy->p->nanti && !st->nts);
}

bool sl_inter_pod_affinity_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_podspec *p = cy->p;
	const struct sl_interpod_state *st = cy->interpod;
	if (!st)
		return true; /* no state: nothing to judge (see the prefilter) */
	if (p->naffinity) {
		bool exist = true, missing = false;
		for (size_t t = 0; t < p->naffinity; t++) {
			const struct tslot *x = &st->ts[st->aff_ts[t]];
			int32_t d = sl_topo_dom(cy->cl, x->topo, node);
			if (d < 0)
				missing = true;
			else if (x->aff[d] <= 0)
				exist = false;
		}
		/* The first pod of a group with affinity to itself may go anywhere that has the keys. */
		if (missing || (!exist && !(st->aff_sum == 0 && st->self_aff)))
			return fail(out, "node(s) didn't match pod affinity rules");
	}
	if (st->anti_sum > 0)
		for (size_t t = 0; t < p->nanti; t++) {
			const struct tslot *x = &st->ts[st->anti_ts[t]];
			int32_t d = sl_topo_dom(cy->cl, x->topo, node);
			if (d >= 0 && x->anti[d] > 0)
				return fail(out, "node(s) didn't match pod anti-affinity rules");
		}
	for (size_t x = 0; x < st->nts; x++) {
		if (!st->ts[x].any_block)
			continue;
		int32_t d = sl_topo_dom(cy->cl, st->ts[x].topo, node);
		if (d >= 0 && st->ts[x].block[d])
			return fail(out, "node(s) didn't satisfy existing pods anti-affinity rules");
	}
	return true;
}
