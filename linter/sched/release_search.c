/* release_search.c — whether ANY placement runs every pod of a small release at once: an exhaustive
 * search over assignments, every pod passing every Filter given all the others (the running pods
 * and the rest of the release), not only the placements the scheduler reaches in one order.
 *
 * What a pod of a workload may do on a node alone (the node-only filters, and NodePorts,
 * NodeResourcesFit and both directions of required anti-affinity against the running pods) is
 * asked of the engine once per workload and node (with its spread left out: that one changes as
 * pods are placed). What the release's pods do to each other is modelled here: their requests
 * add up against what each node has free; two pods binding the same host port never share a
 * node; required anti-affinity (a term of either pod selecting the other) keeps two pods out of
 * one domain of the term's key; and DoNotSchedule spread is judged on the final counts, each pod
 * against the others (the incoming pod not counted, as the scheduler counts it). Required pod
 * affinity is not modelled (the search says so and does not run). A rollout's surge pod comes
 * once the release runs: it must pass the filters given the release, whose pods fit given each
 * other but not given it; the other filters are symmetric, so only the spread counts of the
 * release's own constraints leave it out.
 *
 * Pods of one workload are alike, and nodes alike for the release (the same verdicts, room,
 * domains and counts) are interchangeable: the search chooses how many pods of each workload go
 * on each node, and of two interchangeable nodes with the same pods so far the later never gets
 * more of the next workload than the earlier. Every step is counted; past SL_RELEASE_SEARCH_STEPS
 * it gives up, and a release with more kinds of pods or nodes than the bounds below is not
 * searched. Only "no placement" from a search that ran to its end is a proof. */
#include <stdlib.h>
#include <string.h>

#include "../model/quantity.h"
#include "cycle.h"
#include "plugin.h"
#include "preemption.h"

struct entry {
	const struct sl_workload *w;
	size_t src; /* its index in the caller's workloads (nw: the surge) */
	int64_t todo;
	struct sl_labels labels; /* its pods' labels, pod-template-hash included */
	char hash[40];
	bool *ok; /* per node: a pod fits there beside the running pods alone */
	size_t nok;
	int64_t *req; /* per resource counted, then the pod count (1) */
};

/* Pods of entries a and b never share a domain of topology topo (a == b: two pods of a). */
struct apart {
	size_t a, b, topo;
};

/* A DoNotSchedule constraint of an entry's pods, counted over the release. */
struct spread {
	size_t owner, topo;
	const struct sl_spread *c;
	bool self;
	bool *elig;    /* per node: counts for it */
	bool *present; /* per domain: has an eligible node */
	size_t ndomains;
	int64_t *cnt; /* per domain: matching pods, running and placed, on eligible nodes */
	bool *sel;    /* per entry: its pods match */
	int64_t left; /* matching pods of the release not placed yet */
};

struct search {
	struct sl_cluster *cl;
	const struct sl_model *m;
	size_t n, ne, nres;
	size_t nw; /* the caller's workloads: an entry whose src is nw is the surge pod */
	struct entry *e;
	size_t *order; /* the entries in the order the search places them */
	const char **res;
	int64_t *free; /* n × (nres + 1): room per node, the pod count last */
	int64_t *at;   /* ne × n: pods of each entry on each node */
	bool *ports;   /* ne × ne: their host ports conflict */
	struct apart *apart;
	size_t napart, capapart;
	int64_t **dom; /* per apart rule: ne × ndomains of its topology, pods per domain */
	struct spread *sp;
	size_t nsp, capsp;
	int64_t **dsize; /* per topology key of the cluster: nodes per domain (for the keys read) */
	size_t *prev;    /* per node: the node before it alike for the release, or SIZE_MAX */
	uint64_t steps;
	bool out_of_steps;
};

#define NONE_BEFORE ((size_t)-1)
#define SL_STR_(x) #x
#define SL_STR(x) SL_STR_(x)

static int64_t *free_row(const struct search *s, size_t k)
{
	return &s->free[k * (s->nres + 1)];
}

static size_t ndom_of(const struct search *s, size_t topo)
{
	return s->cl->topos[topo].ndom + 1;
}

/* The resources the release asks (that NodeResourcesFit checks). */
static void collect_resources(struct search *s)
{
	s->res = sl_xcalloc(64, sizeof *s->res);
	for (size_t i = 0; i < s->ne; i++) {
		const struct sl_reslist *r = &s->e[i].w->pod.request;
		for (size_t q = 0; q < r->n && s->nres < 63; q++) {
			bool seen = false;
			for (size_t j = 0; j < s->nres && !seen; j++)
				seen = !strcmp(s->res[j], r->v[q].name);
			if (!seen && r->v[q].amount > 0 && sl_resource_checked(r->v[q].name))
				s->res[s->nres++] = r->v[q].name;
		}
	}
	s->free = sl_xcalloc(s->n * (s->nres + 1) + 1, sizeof *s->free);
	for (size_t k = 0; k < s->n; k++) {
		const struct sl_node *nd = s->m->nodes[k];
		int64_t *f = free_row(s, k);
		for (size_t r = 0; r < s->nres; r++)
			f[r] = sl_res_get(&nd->alloc, s->res[r]) - sl_res_get(&nd->used, s->res[r]);
		f[s->nres] = nd->max_pods - nd->npods;
	}
	for (size_t i = 0; i < s->ne; i++) {
		s->e[i].req = sl_xcalloc(s->nres + 2, sizeof *s->e[i].req);
		for (size_t r = 0; r < s->nres; r++)
			s->e[i].req[r] = sl_res_get(&s->e[i].w->pod.request, s->res[r]);
		s->e[i].req[s->nres] = 1;
	}
}

/* Where a pod of entry i passes every filter beside the running pods alone, its spread left out
 * (judged here) and a node without a key its DoNotSchedule spread needs left out too. */
static void judge_alone(struct search *s, size_t i)
{
	struct entry *en = &s->e[i];
	struct sl_workload w = *en->w;
	if (w.strategy == SL_STRATEGY_ROLLING)
		w.strategy = SL_STRATEGY_RECREATE;
	w.pod.nspread = 0;
	bool *excluded = sl_xcalloc(s->n + 1, sizeof *excluded);
	en->ok = sl_xcalloc(s->n + 1, sizeof *en->ok);
	sl_node_affinity_prefilter(&w.pod, s->m, excluded);
	sl_node_only_verdicts(s->cl, &w.pod, en->ok);
	struct sl_cycle cy;
	sl_cycle_init(&cy, s->cl, &w, excluded, en->ok, en->hash);
	sl_plugins_prefilter(&cy);
	sl_plugins_refresh(&cy);
	for (size_t k = 0; k < s->n; k++) {
		bool ok = !excluded[k] && en->ok[k] && sl_filter_others(&cy, k, NULL) == SL_FITS;
		for (size_t c = 0; c < en->w->pod.nspread && ok; c++)
			if (en->w->pod.spread[c].hard)
				ok = sl_topo_dom(s->cl, sl_topo_id(s->cl, en->w->pod.spread[c].topology_key), k) >= 0;
		en->ok[k] = ok;
		en->nok += ok;
	}
	sl_cycle_free(&cy);
	free(excluded);
}

/* The rules that keep pods apart: host ports on a node, required anti-affinity in a domain. */
static void collect_apart(struct search *s)
{
	s->ports = sl_xcalloc(s->ne * s->ne + 1, sizeof *s->ports);
	for (size_t a = 0; a < s->ne; a++)
		for (size_t b = 0; b < s->ne; b++) {
			const struct sl_podspec *p = &s->e[a].w->pod, *q = &s->e[b].w->pod;
			s->ports[a * s->ne + b] = sl_ports_conflict(p->ports, p->nports, q->ports, q->nports);
			for (size_t t = 0; b >= a && t < p->nanti; t++) {
				bool ab = sl_podterm_matches(&p->anti[t], p->namespace, &s->e[a].labels, q->namespace,
							     &s->e[b].labels);
				if (ab) {
					sl_grow(&s->apart, &s->capapart, s->napart + 1, sizeof *s->apart);
					s->apart[s->napart++] =
					    (struct apart){a, b, sl_topo_id(s->cl, p->anti[t].topology_key)};
				}
			}
			for (size_t t = 0; b > a && t < q->nanti; t++)
				if (sl_podterm_matches(&q->anti[t], q->namespace, &s->e[b].labels, p->namespace,
						       &s->e[a].labels)) {
					sl_grow(&s->apart, &s->capapart, s->napart + 1, sizeof *s->apart);
					s->apart[s->napart++] =
					    (struct apart){a, b, sl_topo_id(s->cl, q->anti[t].topology_key)};
				}
		}
	s->dom = sl_xcalloc(s->napart + 1, sizeof *s->dom);
	for (size_t r = 0; r < s->napart; r++)
		s->dom[r] = sl_xcalloc(s->ne * ndom_of(s, s->apart[r].topo) + 1, sizeof *s->dom[r]);
}

/* Whether node k counts for a constraint of entry i: it has the key of every DoNotSchedule
 * constraint of i and passes the constraint's node inclusion policies. */
static bool spread_eligible(const struct search *s, const struct entry *en, const struct sl_spread *c, size_t k)
{
	const struct sl_podspec *p = &en->w->pod;
	const struct sl_node *nd = s->m->nodes[k];
	for (size_t j = 0; j < p->nspread; j++)
		if (p->spread[j].hard && sl_topo_dom(s->cl, sl_topo_id(s->cl, p->spread[j].topology_key), k) < 0)
			return false;
	return !(c->honor_affinity && !sl_node_affinity_matches(p, nd)) &&
	       !(c->honor_taints && sl_untolerated_taint(p, nd));
}

static bool spread_selects(const struct sl_spread *c, const struct sl_labels *owner, const char *owner_ns,
			   const char *ns, const struct sl_labels *labels)
{
	return !strcmp(owner_ns, ns) && sl_selector_matches(&c->sel, labels) &&
	       sl_match_label_keys(c->match_keys, c->nmatch_keys, owner, labels);
}

static void spread_new(struct search *s, size_t i, const struct sl_spread *c)
{
	sl_grow(&s->sp, &s->capsp, s->nsp + 1, sizeof *s->sp);
	struct spread *sp = &s->sp[s->nsp++];
	const struct entry *en = &s->e[i];
	const char *ns = en->w->pod.namespace;
	memset(sp, 0, sizeof *sp);
	sp->owner = i;
	sp->c = c;
	sp->topo = sl_topo_id(s->cl, c->topology_key);
	sp->elig = sl_xcalloc(s->n + 1, sizeof *sp->elig);
	sp->present = sl_xcalloc(ndom_of(s, sp->topo), sizeof *sp->present);
	sp->cnt = sl_xcalloc(ndom_of(s, sp->topo), sizeof *sp->cnt);
	sp->sel = sl_xcalloc(s->ne + 1, sizeof *sp->sel);
	sp->self = spread_selects(c, &en->labels, ns, ns, &en->labels);
	for (size_t k = 0; k < s->n; k++)
		if ((sp->elig[k] = spread_eligible(s, en, c, k))) {
			int32_t d = sl_topo_dom(s->cl, sp->topo, k);
			sp->ndomains += !sp->present[d];
			sp->present[d] = true;
		}
	for (size_t p = 0; p < s->cl->npods; p++) {
		const struct sl_pod *pod = s->cl->pods[p];
		size_t k = s->cl->pod_node[p];
		if (sp->elig[k] && spread_selects(c, &en->labels, ns, pod->spec.namespace, &pod->spec.labels))
			sp->cnt[sl_topo_dom(s->cl, sp->topo, k)]++;
	}
	/* The release's pods are running when the surge pod comes: their constraints were met without
	 * it (the scheduler judges only the incoming pod), so it enters only its own counts. */
	for (size_t j = 0; j < s->ne; j++)
		if ((sp->sel[j] = (s->e[j].src < s->nw || i == j) &&
				  spread_selects(c, &en->labels, ns, s->e[j].w->pod.namespace, &s->e[j].labels)))
			sp->left += s->e[j].todo;
}

/* How many nodes each domain of topo holds (made once per key the release reads). */
static const int64_t *dom_sizes(struct search *s, size_t topo)
{
	if (!s->dsize[topo]) {
		s->dsize[topo] = sl_xcalloc(ndom_of(s, topo), sizeof **s->dsize);
		for (size_t k = 0; k < s->n; k++)
			if (sl_topo_dom(s->cl, topo, k) >= 0)
				s->dsize[topo][sl_topo_dom(s->cl, topo, k)]++;
	}
	return s->dsize[topo];
}

/* Whether, for a key the release reads, nodes j and k are in the same domain or each in one of
 * its own (a swap of the two then maps domains to domains). */
static bool same_place(struct search *s, size_t topo, size_t j, size_t k)
{
	int32_t dj = sl_topo_dom(s->cl, topo, j), dk = sl_topo_dom(s->cl, topo, k);
	if (dj == dk)
		return true;
	const int64_t *size = dom_sizes(s, topo);
	return dj >= 0 && dk >= 0 && size[dj] == 1 && size[dk] == 1;
}

/* Whether nodes j and k are alike for the release: the same verdicts and room, the same places
 * for every key it reads, and the same spread eligibility and running pods counted. */
static bool alike(struct search *s, size_t j, size_t k)
{
	if (memcmp(free_row(s, j), free_row(s, k), (s->nres + 1) * sizeof *s->free))
		return false;
	for (size_t i = 0; i < s->ne; i++)
		if (s->e[i].ok[j] != s->e[i].ok[k])
			return false;
	for (size_t r = 0; r < s->napart; r++)
		if (!same_place(s, s->apart[r].topo, j, k))
			return false;
	for (size_t r = 0; r < s->nsp; r++) {
		const struct spread *sp = &s->sp[r];
		int32_t dj = sl_topo_dom(s->cl, sp->topo, j), dk = sl_topo_dom(s->cl, sp->topo, k);
		if (!same_place(s, sp->topo, j, k) || sp->elig[j] != sp->elig[k] ||
		    (dj >= 0 && (sp->cnt[dj] != sp->cnt[dk] || sp->present[dj] != sp->present[dk])))
			return false;
	}
	return true;
}

/* The node before each alike for the release; how many kinds of node there are. */
static size_t link_alike(struct search *s)
{
	s->prev = sl_xcalloc(s->n + 1, sizeof *s->prev);
	size_t kinds = 0;
	for (size_t k = 0; k < s->n; k++) {
		s->prev[k] = NONE_BEFORE;
		for (size_t j = k; j-- > 0 && s->prev[k] == NONE_BEFORE;)
			if (alike(s, j, k))
				s->prev[k] = j;
		kinds += s->prev[k] == NONE_BEFORE;
	}
	return kinds;
}

/* How many more pods of entry i node k takes as the release is now placed, at most want: its
 * verdict alone, the room left, host ports and anti-affinity against the pods placed. */
static int64_t room(const struct search *s, size_t i, size_t k, int64_t want)
{
	const struct entry *en = &s->e[i];
	if (!en->ok[k])
		return 0;
	const int64_t *f = free_row(s, k);
	int64_t c = want;
	for (size_t r = 0; r <= s->nres && c > 0; r++)
		if (en->req[r] > 0 && f[r] / en->req[r] < c)
			c = f[r] / en->req[r];
	for (size_t j = 0; j < s->ne && c > 0; j++) {
		if (!s->ports[i * s->ne + j])
			continue;
		if (s->at[j * s->n + k] > 0)
			c = 0;
		else if (j == i && c > 1)
			c = 1;
	}
	for (size_t r = 0; r < s->napart && c > 0; r++) {
		const struct apart *a = &s->apart[r];
		int32_t d = sl_topo_dom(s->cl, a->topo, k);
		if ((a->a != i && a->b != i) || d < 0)
			continue;
		size_t other = a->a == i ? a->b : a->a;
		if (s->dom[r][other * ndom_of(s, a->topo) + (size_t)d] > 0)
			c = 0;
		else if (other == i && c > 1)
			c = 1;
	}
	return c > 0 ? c : 0;
}

/* c pods of entry i onto node k (c < 0: taken off again). */
static void apply(struct search *s, size_t i, size_t k, int64_t c)
{
	int64_t *f = free_row(s, k);
	for (size_t r = 0; r <= s->nres; r++)
		f[r] -= c * s->e[i].req[r];
	s->at[i * s->n + k] += c;
	for (size_t r = 0; r < s->napart; r++) {
		int32_t d = sl_topo_dom(s->cl, s->apart[r].topo, k);
		if ((s->apart[r].a == i || s->apart[r].b == i) && d >= 0)
			s->dom[r][i * ndom_of(s, s->apart[r].topo) + (size_t)d] += c;
	}
	for (size_t r = 0; r < s->nsp; r++) {
		struct spread *sp = &s->sp[r];
		if (!sp->sel[i])
			continue;
		sp->left -= c;
		if (sp->elig[k])
			sp->cnt[sl_topo_dom(s->cl, sp->topo, k)] += c;
	}
}

/* Whether every pod of sp's owner placed so far can still pass the constraint: its domain's count
 * now (it only grows) against the most the global minimum can reach once the `left` matching pods
 * are placed. Exact once none is left. */
static bool spread_ok(const struct search *s, const struct spread *sp)
{
	size_t nd = ndom_of(s, sp->topo), arg = nd;
	int64_t min1 = INT64_MAX, min2 = INT64_MAX;
	for (size_t d = 0; d < nd; d++) {
		if (!sp->present[d])
			continue;
		int64_t v = sp->cnt[d] + sp->left;
		if (v < min1) {
			min2 = min1;
			min1 = v;
			arg = d;
		} else if (v < min2)
			min2 = v;
	}
	if (arg == nd)
		return true; /* no eligible domain: every skew is negative */
	for (size_t k = 0; k < s->n; k++) {
		if (!s->at[sp->owner * s->n + k])
			continue;
		size_t d = (size_t)sl_topo_dom(s->cl, sp->topo, k);
		int64_t own = sp->self && sp->elig[k] ? 1 : 0;
		int64_t match = sp->present[d] ? sp->cnt[d] - own : 0;
		/* the fewest of the others in a domain: the pod itself is not counted in its own */
		int64_t least = d == arg ? min2 : min1;
		if (sp->present[d] && sp->cnt[d] + sp->left - own < least)
			least = sp->cnt[d] + sp->left - own;
		if ((int64_t)sp->ndomains < sp->c->min_domains)
			least = 0;
		if (match + (sp->self ? 1 : 0) - least > sp->c->max_skew)
			return false;
	}
	return true;
}

/* The constraints entry i's pods bear on, after they were placed. */
static bool spreads_ok(const struct search *s, size_t i)
{
	for (size_t r = 0; r < s->nsp; r++)
		if ((s->sp[r].owner == i || s->sp[r].sel[i]) && !spread_ok(s, &s->sp[r]))
			return false;
	return true;
}

/* Whether nodes j and k hold the same pods of the entries placed before position p. */
static bool same_state(const struct search *s, size_t p, size_t j, size_t k)
{
	for (size_t q = 0; q < p; q++) {
		const int64_t *at = &s->at[s->order[q] * s->n];
		if (at[j] != at[k])
			return false;
	}
	return true;
}

/* Place the `left` pods of the entry at position p still to place on nodes k.., then the entries
 * after it: whether every pod found a node. */
static bool place_from(struct search *s, size_t p, size_t k, int64_t left)
{
	if (++s->steps > SL_RELEASE_SEARCH_STEPS) {
		s->out_of_steps = true;
		return false;
	}
	if (!left)
		return p + 1 == s->ne || place_from(s, p + 1, 0, s->e[s->order[p + 1]].todo);
	size_t i = s->order[p];
	int64_t cap = 0;
	for (size_t j = k; j < s->n && cap < left; j++)
		cap += room(s, i, j, left);
	if (cap < left)
		return false; /* the nodes left cannot take them, however the rest goes */
	int64_t c = room(s, i, k, left);
	size_t j = s->prev[k];
	if (j != NONE_BEFORE && same_state(s, p, j, k) && c > s->at[i * s->n + j])
		c = s->at[i * s->n + j]; /* alike nodes: the later never takes more */
	for (; c > 0; c--) {
		apply(s, i, k, c);
		bool ok = spreads_ok(s, i) && place_from(s, p, k + 1, left - c);
		if (ok)
			return true;
		apply(s, i, k, -c);
		if (s->out_of_steps)
			return false;
	}
	return place_from(s, p, k + 1, left);
}

static double size_of(const struct search *s, size_t i)
{
	double most = 0;
	for (size_t r = 0; r < s->nres; r++) {
		int64_t cap = 0;
		for (size_t k = 0; k < s->n; k++)
			if (free_row(s, k)[r] > cap)
				cap = free_row(s, k)[r];
		if (cap > 0 && (double)s->e[i].req[r] / (double)cap > most)
			most = (double)s->e[i].req[r] / (double)cap;
	}
	return most;
}

/* Larger pods first (they are the hard ones to pack), then those with fewer nodes. */
static void order_entries(struct search *s)
{
	s->order = sl_xcalloc(s->ne + 1, sizeof *s->order);
	double *key = sl_xcalloc(s->ne + 1, sizeof *key);
	for (size_t i = 0; i < s->ne; i++) {
		key[i] = size_of(s, i) - (double)s->e[i].nok * 1e-6;
		s->order[i] = i;
	}
	for (size_t a = 1; a < s->ne; a++) /* insertion sort: a dozen entries at most */
		for (size_t b = a; b > 0 && key[s->order[b]] > key[s->order[b - 1]]; b--) {
			size_t t = s->order[b];
			s->order[b] = s->order[b - 1];
			s->order[b - 1] = t;
		}
	free(key);
}

/* Why the release is not searched (NULL: it is): what the search does not model, or more than its
 * bounds. */
static const char *unsearchable(const struct search *s)
{
	if (s->ne > SL_RELEASE_SEARCH_PODS)
		return "more than " SL_STR(SL_RELEASE_SEARCH_PODS) " kinds of pod";
	if (s->n > SL_RELEASE_SEARCH_NODES)
		return "more than " SL_STR(SL_RELEASE_SEARCH_NODES) " nodes";
	for (size_t i = 0; i < s->ne; i++) {
		const struct sl_podspec *p = &s->e[i].w->pod;
		if (p->naffinity)
			return "required pod affinity, which the search does not model";
		if (p->preempts && sl_preempt_has_victims(s->cl, p, NULL))
			return "preemption could make room (running pods of lower priority)";
	}
	return NULL;
}

/* hash into h (cap bytes), cut short as snprintf would cut it: once per workload, no printf. */
static void set_hash(char *h, size_t cap, const char *hash)
{
	size_t n = strnlen(hash, cap - 1);
	memcpy(h, hash, n);
	h[n] = '\0';
}

/* The entries: each workload's pods still to place, and the surge pod (one, of a new ReplicaSet). */
static void entries(struct search *s, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
		    const struct sl_workload *surge)
{
	s->e = sl_xcalloc(nw + 2, sizeof *s->e);
	for (size_t i = 0; i <= nw; i++) {
		const struct sl_workload *w = i < nw ? ws[i] : surge;
		if (!w || (i < nw && todo[i] <= 0))
			continue;
		struct entry *en = &s->e[s->ne++];
		en->w = w;
		en->src = i;
		en->todo = i < nw ? todo[i] : 1;
		/* the surge's ReplicaSet as placement.c names it, or the running pods' hash */
		const char *hash = i == nw ? "schedlint-new" : sl_own_hash(s->cl, w);
		if (hash)
			set_hash(en->hash, sizeof en->hash, hash);
		else
			sl_release_hash(en->hash, i);
		sl_generation_labels(&en->labels, &w->pod.labels, w->strategy != SL_STRATEGY_NONE ? en->hash : NULL);
	}
}

static void search_free(struct search *s)
{
	for (size_t i = 0; i < s->ne; i++) {
		free(s->e[i].labels.v);
		free(s->e[i].ok);
		free(s->e[i].req);
	}
	for (size_t r = 0; r < s->napart; r++)
		free(s->dom[r]);
	for (size_t r = 0; r < s->nsp; r++) {
		free(s->sp[r].elig);
		free(s->sp[r].present);
		free(s->sp[r].cnt);
		free(s->sp[r].sel);
	}
	for (size_t t = 0; s->dsize && t < s->cl->ntopos; t++)
		free(s->dsize[t]);
	free(s->dsize);
	free(s->e);
	free(s->order);
	free(s->res);
	free(s->free);
	free(s->at);
	free(s->ports);
	free(s->apart);
	free(s->dom);
	free(s->sp);
	free(s->prev);
}

void sl_release_search(struct sl_cluster *cl, const struct sl_workload *const *ws, const int64_t *todo, size_t nw,
		       const struct sl_workload *surge, struct sl_release_search *out)
{
	memset(out, 0, sizeof *out);
	struct search s;
	memset(&s, 0, sizeof s);
	s.cl = cl;
	s.m = cl->m;
	s.n = cl->n;
	s.nw = nw;
	entries(&s, ws, todo, nw, surge);
	out->verdict = SL_SEARCH_NOT_SEARCHED;
	if ((out->why = unsearchable(&s)) || !s.ne) {
		search_free(&s);
		return;
	}
	collect_resources(&s);
	for (size_t i = 0; i < s.ne; i++)
		judge_alone(&s, i);
	collect_apart(&s);
	for (size_t i = 0; i < s.ne; i++)
		for (size_t c = 0; c < s.e[i].w->pod.nspread; c++)
			if (s.e[i].w->pod.spread[c].hard)
				spread_new(&s, i, &s.e[i].w->pod.spread[c]);
	s.dsize = sl_xcalloc(cl->ntopos + 1, sizeof *s.dsize);
	if (link_alike(&s) > SL_RELEASE_SEARCH_NODE_KINDS) {
		out->why = "more than " SL_STR(SL_RELEASE_SEARCH_NODE_KINDS) " kinds of node";
		search_free(&s);
		return;
	}
	s.at = sl_xcalloc(s.ne * s.n + 1, sizeof *s.at);
	order_entries(&s);
	bool found = place_from(&s, 0, 0, s.e[s.order[0]].todo);
	out->steps = s.steps > SL_RELEASE_SEARCH_STEPS ? SL_RELEASE_SEARCH_STEPS : s.steps;
	if (found) { /* the placement found, for the message */
		out->nw = nw + 1;
		out->nnodes = s.n;
		out->at = sl_xcalloc(out->nw * s.n + 1, sizeof *out->at);
		for (size_t i = 0; i < s.ne; i++)
			memcpy(&out->at[s.e[i].src * s.n], &s.at[i * s.n], s.n * sizeof *s.at);
	}
	out->verdict = found ? SL_SEARCH_FOUND : s.out_of_steps ? SL_SEARCH_GAVE_UP : SL_SEARCH_NONE;
	search_free(&s);
}

void sl_release_search_free(struct sl_release_search *out)
{
	free(out->at);
	out->at = NULL;
}
