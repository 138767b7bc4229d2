/* preemption.c — DefaultPreemption's dry run and nomination (see preemption.h). */
#include "preemption.h"

#include <stdlib.h>
#include <string.h>

#include "../model/model.h"
#include "cycle.h"
#include "plugin.h"
#include "status.h"

/* Whether evicting pods could make node pass, by its first failing filter's status code:
 * nodesWherePreemptionMightHelp skips the UnschedulableAndUnresolvable ones. Pod affinity that
 * finds no pod and a missing topology label are unresolvable although their plugins are not. */
static bool might_help(const struct sl_nodefit *f)
{
	if (f->plugin == SL_FITS || f->excluded)
		return true; /* no status: PreFilter left the node out, and the dry run filters it */
	if (!sl_plugin_preemptible(f->plugin) || f->prefilter)
		return false; /* a PreFilter's failure: the pod stays pending whatever is evicted */
	return !(f->nreasons && (strstr(f->reasons[0], "didn't match pod affinity rules") ||
				 strstr(f->reasons[0], "(missing required label)")));
}

/* Whether some running pod's anti-affinity term selects the pod: only such a term fails it in
 * InterPodAffinity, and evicting its owner would change that. Its labels as given and with a new
 * pod-template-hash, the generation the pod's controller would stamp (an old hash is not known
 * here; a term on one hash value is as rare as it is brittle). */
static bool running_anti_selects(const struct sl_cluster *cl, const struct sl_podspec *p)
{
	if (!cl->anti_by_ns.keys.n && !cl->anti_wild.keys.n)
		return false;
	struct sl_labels gl[2];
	sl_generation_labels(&gl[0], &p->labels, NULL);
	sl_generation_labels(&gl[1], &p->labels, "schedlint-new");
	size_t nq;
	size_t *q = sl_anti_candidates(cl, p->namespace, gl, 2, &nq);
	bool selects = false;
	for (size_t a = 0; a < nq && !selects; a++) {
		const struct sl_podspec *o = &cl->pods[q[a]]->spec;
		for (size_t t = 0; t < o->nanti && !selects; t++)
			for (int g = 0; g < 2 && !selects; g++)
				selects =
				    sl_podterm_matches(&o->anti[t], o->namespace, &o->labels, p->namespace, &gl[g]);
	}
	free(q);
	free(gl[0].v);
	free(gl[1].v);
	return selects;
}

/* Whether the dry run on a node reads filters it does not model: the pod's inter-pod terms or
 * hard spread, running pods' anti-affinity that selects it (what evicting some of them changes
 * there), or CSI attach limits (which victims free an attachment is not counted). */
static bool unmodelled(const struct sl_cluster *cl, const struct sl_podspec *p)
{
	bool hard_spread = false;
	for (size_t k = 0; k < p->nspread; k++)
		hard_spread |= p->spread[k].hard;
	/* Claims where some CSINode limits attachments: NodeVolumeLimits, which the dry run does not
	 * count, may still fail the node once the victims are gone. */
	return p->naffinity || p->nanti || hard_spread || (p->nvolumes && cl->m->storage.ncsinodes) ||
	       running_anti_selects(cl, p);
}

/* Running pod k's priority as the dry run takes it: an unknown one is 0 (as admission gives a pod
 * without a class), or with lowest the least an int32 priority may be. */
static int64_t prio_of(const struct sl_cluster *cl, size_t k, bool lowest)
{
	const struct sl_podspec *q = &cl->pods[k]->spec;
	return lowest && q->prio_from == SL_PRIO_UNKNOWN ? INT32_MIN : q->priority;
}

/* A node's load with the running pods gone[] and out[] (indexes into the node's own pods) taken
 * off: a copy of n the caller frees (sl_res_free of its used). */
static void node_without(const struct sl_cluster *cl, size_t node, const bool *gone, const bool *out,
			 struct sl_node *copy)
{
	const struct sl_node *n = cl->m->nodes[node];
	*copy = *n;
	memset(&copy->used, 0, sizeof copy->used);
	for (size_t r = 0; r < n->used.n; r++)
		sl_res_add(&copy->used, n->used.v[r].name, n->used.v[r].amount, NULL);
	for (size_t k = cl->pod_start[node]; k < cl->pod_start[node + 1]; k++) {
		if (!(gone && gone[k]) && !(out && out[k - cl->pod_start[node]]))
			continue;
		const struct sl_podspec *q = &cl->pods[k]->spec;
		for (size_t r = 0; r < q->request.n; r++)
			sl_res_add(&copy->used, q->request.v[r].name, -q->request.v[r].amount, NULL);
		copy->npods--;
	}
}

/* The filters evicting pods can change, on node with the pods gone[] and out[] taken off:
 * NodePorts, then NodeResourcesFit. why (may be NULL) gets the first that fails. */
static bool fits_without(struct sl_cluster *cl, const struct sl_podspec *p, size_t node, int64_t placed,
			 const bool *gone, const bool *out, struct sl_nodefit *why)
{
	if (p->nports) {
		bool taken = placed && sl_ports_conflict(p->ports, p->nports, p->ports, p->nports);
		for (size_t k = cl->pod_start[node]; k < cl->pod_start[node + 1] && !taken; k++)
			if (!(gone && gone[k]) && !(out && out[k - cl->pod_start[node]]))
				taken = sl_ports_conflict(p->ports, p->nports, cl->pods[k]->spec.ports,
							  cl->pods[k]->spec.nports);
		if (taken) {
			if (why)
				sl_nodefit_fail(why, SL_PL_NODE_PORTS,
						"node(s) didn't have free ports for the requested pod ports");
			return false;
		}
	}
	struct sl_node copy;
	node_without(cl, node, gone, out, &copy);
	bool short_ = sl_resources_short(&cl->reasons, p, &copy, placed, why);
	sl_res_free(&copy.used);
	return !short_;
}

/* MoreImportantPod: the higher priority first, then the one started earlier (the inventory's order
 * between pods started at the same second, or not at all). */
struct ranked {
	size_t k; /* the running pod */
	int64_t prio, start;
};
static int more_important(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* filterPodsWithPDBViolation over the victims in order: each budget that selects a pod (of its
 * namespace, with labels; an empty selector matches nothing here) is counted down from its
 * status.disruptionsAllowed, and a pod that takes one below 0 violates it. The scheduler reads the
 * allowance from the budget's status alone: a budget without one allows no disruption.
 * violating[k] gets the first budget pod k breaks, or stays NULL. */
static void mark_violating(const struct sl_model *m, const struct sl_cluster *cl, const struct ranked *v, size_t n,
			   const struct sl_pdb **violating)
{
	int64_t *allowed = sl_xcalloc(m->npdbs + 1, sizeof *allowed);
	for (size_t b = 0; b < m->npdbs; b++)
		allowed[b] = m->pdbs[b]->has_status ? m->pdbs[b]->disruptions_allowed : 0;
	for (size_t k = 0; k < n; k++) {
		const struct sl_pod *p = cl->pods[v[k].k];
		if (!p->spec.labels.n)
			continue;
		size_t nb;
		const size_t *in_ns = sl_group_get(&m->pdbs_by_ns, p->obj.namespace, &nb);
		for (size_t j = 0; j < nb; j++) {
			size_t b = in_ns[j];
			const struct sl_pdb *d = m->pdbs[b];
			if (d->sel.nothing || !d->sel.nreqs || !sl_selector_matches(&d->sel, &p->spec.labels))
				continue;
			/* every budget that selects it is counted down, as the scheduler does */
			if (--allowed[b] < 0 && !violating[k])
				violating[k] = d;
		}
	}
	free(allowed);
}

/* SelectVictimsOnNode: every lower-priority pod off, the filters again, then each reprieved when
 * the pod still fits with it back: those that would break a budget first, then the others, each
 * most important first. */
static void dry_run(struct sl_cluster *cl, const struct sl_podspec *p, size_t node, int64_t placed,
		    const struct sl_preempt_state *st, bool unknown_filters, struct sl_preempt_node *out)
{
	const bool *gone = st ? st->gone : NULL;
	bool lowest = st && st->unknown_lowest;
	size_t from = cl->pod_start[node], npods = cl->pod_start[node + 1] - from;
	bool *off = sl_xcalloc(npods + 1, sizeof *off);
	struct ranked *lower = sl_xcalloc(npods + 1, sizeof *lower);
	size_t nlower = 0;
	for (size_t j = 0; j < npods; j++) {
		int64_t q = prio_of(cl, from + j, lowest);
		if ((gone && gone[from + j]) || q >= p->priority)
			continue;
		off[j] = true;
		lower[nlower++] = (struct ranked){from + j, q, cl->pods[from + j]->start};
	}
	if (!nlower)
		out->verdict = SL_PN_NO_VICTIMS;
	else if (unknown_filters)
		out->verdict = SL_PN_UNKNOWN;
	else if (!fits_without(cl, p, node, placed, gone, off, &out->still))
		out->verdict = SL_PN_FAILS;
	else {
		out->verdict = SL_PN_CANDIDATE;
		qsort(lower, nlower, sizeof *lower, more_important);
		const struct sl_pdb **violating = sl_xcalloc(nlower + 1, sizeof *violating);
		mark_violating(cl->m, cl, lower, nlower, violating);
		size_t *order = sl_xcalloc(nlower + 1, sizeof *order), no = 0;
		for (int pass = 0; pass < 2; pass++)
			for (size_t v = 0; v < nlower; v++)
				if (!violating[v] == (bool)pass)
					order[no++] = v;
		out->victims = sl_xcalloc(nlower + 1, sizeof *out->victims);
		out->broken = sl_xcalloc(nlower + 1, sizeof *out->broken);
		out->top = INT64_MIN;
		for (size_t o = 0; o < nlower; o++) {
			size_t v = order[o];
			size_t j = lower[v].k - from;
			off[j] = false;
			if (fits_without(cl, p, node, placed, gone, off, NULL))
				continue; /* reprieved */
			off[j] = true;
			out->broken[out->nvictims] = violating[v];
			out->victims[out->nvictims++] = lower[v].k;
			out->violations += violating[v] != NULL;
			/* GetEarliestPodStartTime: the earliest start among the highest-priority victims */
			if (lower[v].prio > out->top || (lower[v].prio == out->top && lower[v].start < out->earliest))
				out->earliest = lower[v].start;
			out->top = lower[v].prio > out->top ? lower[v].prio : out->top;
			/* pickOneNodeForPreemption's sum: each priority shifted by MaxInt32 + 1 */
			out->sum += lower[v].prio + 2147483648LL;
		}
		free(order);
		free(violating);
	}
	free(off);
	free(lower);
}

/* pickOneNodeForPreemption: the fewest budgets broken, the lowest highest priority, the lowest sum, the fewest victims,
 * then the victims started last. Equal candidates are a tie the scheduler breaks by the order it met the nodes in,
 * which begins at a random offset. */
static int better(const struct sl_preempt_node *a, const struct sl_preempt_node *b)
{
	if (a->violations != b->violations)
		return a->violations < b->violations ? 1 : -1;
	if (a->top != b->top)
		return a->top < b->top ? 1 : -1;
	if (a->sum != b->sum)
		return a->sum < b->sum ? 1 : -1;
	if (a->nvictims != b->nvictims)
		return a->nvictims < b->nvictims ? 1 : -1;
	if (a->earliest != b->earliest) /* the node whose victims started last */
		return a->earliest > b->earliest ? 1 : -1;
	return 0;
}

static void nominate(struct sl_preemption *pr)
{
	pr->chosen = (size_t)-1;
	for (size_t i = 0; i < pr->n; i++) {
		if (pr->nodes[i].verdict != SL_PN_CANDIDATE)
			continue;
		int c = pr->chosen == (size_t)-1 ? 1 : better(&pr->nodes[i], &pr->nodes[pr->chosen]);
		if (c > 0) {
			pr->chosen = i;
			pr->tie = false;
		} else if (c == 0)
			pr->tie = true;
	}
}

/* The FitError the PostFilter returns without a candidate, every node counted. */
static char *no_candidate_text(const struct sl_preemption *pr)
{
	struct sl_nodefit *st = sl_xcalloc(pr->n + 1, sizeof *st);
	for (size_t i = 0; i < pr->n; i++) {
		const struct sl_preempt_node *pn = &pr->nodes[i];
		if (pn->verdict == SL_PN_FAILS)
			st[i] = pn->still;
		else
			sl_nodefit_fail(&st[i], SL_PL_NODE_RESOURCES_FIT,
					pn->verdict == SL_PN_NO_VICTIMS ? "No preemption victims found for incoming pod"
									: "Preemption is not helpful for scheduling");
	}
	char *fe = sl_fit_error_text(pr->n, st, pr->n);
	free(st);
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, "preemption: ");
	sl_buf_puts(&b, fe);
	free(fe);
	return sl_buf_detach(&b);
}

bool sl_preempt_has_victims(const struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_preempt_state *st)
{
	/* Every running pod's priority at least p's (an unknown one taken as its 0): none below it. */
	if (cl->min_prio >= p->priority && !(st && st->unknown_lowest && cl->unknown_prio))
		return false;
	for (size_t k = 0; k < cl->npods; k++)
		if (!(st && st->gone && st->gone[k]) && prio_of(cl, k, st && st->unknown_lowest) < p->priority)
			return true;
	return false;
}

/* no_candidate_text for a preemption without per-node verdicts: its two counts, sorted as
 * FitError.Error() sorts "<count> <reason>" strings. */
static char *two_counts_text(const struct sl_preemption *pr)
{
	struct sl_buf part[2] = {SL_BUF_INIT, SL_BUF_INIT};
	size_t np = 0;
	if (pr->no_victims)
		sl_buf_printf(&part[np++], "%zu No preemption victims found for incoming pod", pr->no_victims);
	if (pr->not_helpful)
		sl_buf_printf(&part[np++], "%zu Preemption is not helpful for scheduling", pr->not_helpful);
	if (np == 2 && strcmp(part[0].s, part[1].s) > 0) {
		struct sl_buf t = part[0];
		part[0] = part[1];
		part[1] = t;
	}
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_printf(&b, "preemption: 0/%zu nodes are available: ", pr->n);
	for (size_t k = 0; k < np; k++)
		sl_buf_printf(&b, "%s%s", k ? ", " : "", part[k].s);
	sl_buf_putc(&b, '.');
	sl_buf_free(&part[0]);
	sl_buf_free(&part[1]);
	return sl_buf_detach(&b);
}

/* DefaultPreemption itself: out->message is its status ("preemption: …") when it nominates none. */
static void default_preemption(struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_nodefit *fits,
			       const struct sl_preempt_state *st, struct sl_preemption *out)
{
	memset(out, 0, sizeof *out);
	out->n = cl->n;
	out->chosen = (size_t)-1;
	out->eligible = p->preempts;
	if (!out->eligible) {
		out->message = sl_xstrdup("preemption: not eligible due to preemptionPolicy=Never.");
		return;
	}
	if (!sl_preempt_has_victims(cl, p, st)) {
		/* No running pod of lower priority, as where no priorities are given at all: every
		 * node the dry run would try has no victim, and nothing per node need be kept. */
		for (size_t i = 0; i < out->n; i++)
			*(might_help(&fits[i]) ? &out->no_victims : &out->not_helpful) += 1;
		out->message = two_counts_text(out);
		return;
	}
	out->nodes = sl_xcalloc(out->n + 1, sizeof *out->nodes);
	bool unknown_filters = unmodelled(cl, p);
	for (size_t i = 0; i < out->n; i++) {
		struct sl_preempt_node *pn = &out->nodes[i];
		if (!might_help(&fits[i])) {
			pn->verdict = SL_PN_NOT_HELPFUL;
			continue;
		}
		/* A node PreFilter left out fails NodeAffinity again in the dry run, whatever goes. */
		dry_run(cl, p, i, st && st->placed ? st->placed[i] : 0, st,
			unknown_filters || fits[i].plugin == SL_PL_INTER_POD_AFFINITY ||
			    fits[i].plugin == SL_PL_POD_TOPOLOGY_SPREAD,
			pn);
		if (fits[i].excluded && pn->verdict != SL_PN_NO_VICTIMS) {
			free(pn->victims);
			free(pn->broken);
			memset(pn, 0, sizeof *pn);
			pn->verdict = SL_PN_FAILS;
			pn->still = fits[i];
			pn->still.excluded = false;
		}
		out->unknown |= pn->verdict == SL_PN_UNKNOWN;
	}
	nominate(out);
	if (out->chosen == (size_t)-1 && !out->unknown)
		out->message = no_candidate_text(out);
}

/* DynamicResources' PostFilter reason, which runs before DefaultPreemption where the release has
 * the plugin in its profile (DynamicResourceAllocation on: 1.34 by default, 1.32/1.33 with the
 * gate; the alpha plugin of 1.26 to 1.31 is not modelled), or NULL for none. *error: it returns an
 * Error instead, whose text ends the message alone. fits: the stop's verdicts, a PreFilter's
 * failure in fits[0]. */
static const char *dra_postfilter(const struct sl_model *m, const struct sl_podspec *p, const struct sl_nodefit *fits,
				  bool *error)
{
	int minor = m->kube.minor;
	*error = false;
	if (minor < SL_KUBE_DRA_POSTFILTER || !sl_gate_on(&m->gates, SL_GATE_DYNAMIC_RESOURCE_ALLOCATION, minor))
		return NULL;
	/* 1.33 returns Unschedulable without a reason for a pod without spec.resourceClaims, before it
	 * reads its state; 1.32, and 1.34 on (the check moved after the read), say the reason below. */
	if (minor == SL_KUBE_DRA_NO_CLAIMS_SILENT && !p->nclaims)
		return NULL;
	/* VolumeBinding's PreFilter rejects UnschedulableAndUnresolvable, and RunPreFilterPlugins
	 * stops there: DynamicResources' PreFilter never wrote its state, its PostFilter's read fails
	 * (CycleState's ErrNotFound) and RunPostFilterPlugins returns that Error before
	 * DefaultPreemption runs: real events read "… pod has unbound immediate
	 * PersistentVolumeClaims. not found". */
	if (fits && fits[0].prefilter && fits[0].plugin == SL_PL_VOLUME_BINDING) {
		*error = true;
		return "not found";
	}
	/* Its PreFilter stores the pod's claims last: a pod without claims, or one it rejected, has
	 * none to deallocate. An allocated claim unavailable on a node and reserved for no other pod
	 * would be deallocated ("deallocation of ResourceClaim completed"): not modelled. */
	if (!p->nclaims || (fits && fits[0].prefilter && fits[0].plugin == SL_PL_DYNAMIC_RESOURCES))
		return "no new claims to deallocate";
	return "still not schedulable";
}

char *sl_postfilter_text(const struct sl_model *m, const struct sl_podspec *p, const struct sl_nodefit *fits,
			 char *preemption)
{
	int minor = m->kube.minor;
	bool error;
	const char *dra = dra_postfilter(m, p, fits, &error);
	if (error) {
		free(preemption);
		return sl_xstrdup(dra);
	}
	/* A nomination is a success: the statuses before it are dropped, nothing is printed. Before
	 * 1.24 FitError printed no PostFilter message at all. */
	if (!preemption || minor < SL_KUBE_POSTFILTER_MSG) {
		free(preemption);
		return NULL;
	}
	/* 1.26 to 1.29 format it " %v." although DefaultPreemption's status ends with one already. */
	bool period = minor >= SL_KUBE_POSTFILTER_PERIOD && minor < SL_KUBE_POSTFILTER_ONE_PERIOD;
	if (!dra && !period)
		return preemption;
	/* RunPostFilterPlugins joins the Unschedulable plugins' reasons with ", ". */
	struct sl_buf b = SL_BUF_INIT;
	if (dra) {
		sl_buf_puts(&b, dra);
		sl_buf_puts(&b, ", ");
	}
	sl_buf_puts(&b, preemption);
	if (period)
		sl_buf_putc(&b, '.');
	free(preemption);
	return sl_buf_detach(&b);
}

void sl_preempt(struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_nodefit *fits,
		const struct sl_preempt_state *st, struct sl_preemption *out)
{
	default_preemption(cl, p, fits, st, out);
	out->message = sl_postfilter_text(cl->m, p, cl->n ? fits : NULL, out->message);
}

void sl_preempt_view_of(struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_nodefit *fits,
			const struct sl_preempt_state *st, struct sl_preempt_view *v)
{
	struct sl_preemption pr;
	sl_preempt(cl, p, fits, st, &pr);
	memset(v, 0, sizeof *v);
	v->evaluated = true;
	v->eligible = pr.eligible;
	v->n = pr.n;
	if (!pr.eligible) {
		sl_preemption_free(&pr);
		return;
	}
	v->lower = pr.nodes != NULL;
	v->nodes = sl_xcalloc(pr.n + 1, sizeof *v->nodes);
	for (size_t i = 0; i < pr.n; i++) {
		struct sl_preempt_view_node *vn = &v->nodes[i];
		/* Without per-node verdicts (no lower-priority pod anywhere) they are might_help's. */
		const struct sl_preempt_node *pn = pr.nodes ? &pr.nodes[i] : NULL;
		vn->verdict = pn ? pn->verdict : might_help(&fits[i]) ? SL_PN_NO_VICTIMS : SL_PN_NOT_HELPFUL;
		if (vn->verdict == SL_PN_NOT_HELPFUL)
			vn->why = fits[i];
		else if (vn->verdict == SL_PN_FAILS)
			vn->why = pn->still;
		if (vn->verdict != SL_PN_CANDIDATE)
			continue;
		vn->nominated = i == pr.chosen || (pr.tie && !better(pn, &pr.nodes[pr.chosen]));
		struct sl_preempt_step *s = &vn->victims;
		s->node = i;
		s->nvictims = pn->nvictims;
		s->victims = sl_xcalloc(pn->nvictims + 1, sizeof *s->victims);
		s->broken = sl_xcalloc(pn->nvictims + 1, sizeof *s->broken);
		for (size_t k = 0; k < pn->nvictims; k++) {
			s->victims[k] = cl->pods[pn->victims[k]];
			s->broken[k] = pn->broken[k];
		}
		s->tie = pr.tie && vn->nominated;
	}
	sl_preemption_free(&pr);
}

void sl_preempt_view_free(struct sl_preempt_view *v)
{
	for (size_t i = 0; v->nodes && i < v->n; i++) {
		free((void *)v->nodes[i].victims.victims);
		free((void *)v->nodes[i].victims.broken);
	}
	free(v->nodes);
	memset(v, 0, sizeof *v);
}

void sl_preempt_summarize(const struct sl_preemption *pr, struct sl_preempt_summary *s)
{
	memset(s, 0, sizeof *s);
	s->evaluated = true;
	s->eligible = pr->eligible;
	s->not_helpful = pr->not_helpful; /* counted alone when there are no per-node verdicts */
	s->no_victims = pr->no_victims;
	for (size_t i = 0; pr->nodes && i < pr->n; i++) {
		enum sl_preempt_verdict v = pr->nodes[i].verdict;
		s->not_helpful += v == SL_PN_NOT_HELPFUL;
		s->no_victims += v == SL_PN_NO_VICTIMS;
		s->fails += v == SL_PN_FAILS;
		s->unknown += v == SL_PN_UNKNOWN;
	}
}

void sl_preemption_free(struct sl_preemption *pr)
{
	for (size_t i = 0; pr->nodes && i < pr->n; i++) {
		free(pr->nodes[i].victims);
		free(pr->nodes[i].broken);
	}
	free(pr->nodes);
	free(pr->message);
	memset(pr, 0, sizeof *pr);
}

void sl_preempt_run_init(struct sl_preempt_run *r, const struct sl_cluster *cl, const int64_t *placed)
{
	memset(r, 0, sizeof *r);
	r->gone = sl_xcalloc(cl->npods + 1, sizeof *r->gone);
	r->placed = sl_xcalloc(cl->n + 1, sizeof *r->placed);
	for (size_t i = 0; placed && i < cl->n; i++)
		r->placed[i] = placed[i];
}

void sl_preempt_run_free(struct sl_preempt_run *r, size_t nnodes)
{
	for (size_t s = 0; s < r->nsteps; s++) {
		free((void *)r->steps[s].victims);
		free((void *)r->steps[s].broken);
	}
	free(r->steps);
	free(r->gone);
	free(r->placed);
	sl_nodefits_free(r->fits, nnodes);
	free(r->post);
	memset(r, 0, sizeof *r);
}

/* Whether the node-only filters pass node (PreFilter kept it and they did not fail it). */
static bool node_passes(const struct sl_nodefit *f)
{
	return !f->excluded && (f->plugin == SL_FITS || sl_plugin_preemptible(f->plugin));
}

/* Pods of p that fit on node beside those placed, with the evicted pods gone. */
static int64_t room_on(const struct sl_cluster *cl, const struct sl_podspec *p, size_t node,
		       const struct sl_preempt_run *r)
{
	struct sl_node copy;
	node_without(cl, node, r->gone, NULL, &copy);
	struct sl_podres res;
	sl_podres_init(&res, p);
	struct sl_nodefit fit = {0};
	const char *limit;
	int64_t slots = sl_node_slots_of(&res, p, &copy, &fit, &limit);
	sl_res_free(&copy.used);
	return slots > r->placed[node] ? slots - r->placed[node] : 0;
}

/* The verdicts for the next pod, every node full: the node-only ones, else why it is short. */
static struct sl_nodefit *next_fits(struct sl_cluster *cl, const struct sl_podspec *p,
				    const struct sl_nodefit *node_only, const struct sl_preempt_run *r)
{
	struct sl_nodefit *f = sl_xcalloc(cl->n + 1, sizeof *f);
	for (size_t i = 0; i < cl->n; i++) {
		if (!node_passes(&node_only[i])) {
			f[i] = node_only[i];
			continue;
		}
		fits_without(cl, p, i, r->placed[i], r->gone, NULL, &f[i]);
	}
	return f;
}

static void record(const struct sl_cluster *cl, struct sl_preempt_run *r, const struct sl_preempt_node *pn, size_t node,
		   bool tie, bool surge)
{
	const struct sl_pod **v = sl_xcalloc(pn->nvictims + 1, sizeof *v);
	const struct sl_pdb **broken = sl_xcalloc(pn->nvictims + 1, sizeof *broken);
	for (size_t k = 0; k < pn->nvictims; k++) {
		r->gone[pn->victims[k]] = true;
		v[k] = cl->pods[pn->victims[k]];
		broken[k] = pn->broken[k];
	}
	sl_grow(&r->steps, &r->capsteps, r->nsteps + 1, sizeof *r->steps);
	r->steps[r->nsteps++] = (struct sl_preempt_step){node, v, broken, pn->nvictims, tie, surge};
	r->placed[node]++;
}

int64_t sl_preempt_place(struct sl_cluster *cl, const struct sl_podspec *p, const struct sl_nodefit *node_only,
			 struct sl_preempt_run *r, int64_t want, bool surge)
{
	int64_t done = 0;
	memset(&r->summary, 0, sizeof r->summary);
	free(r->post);
	r->post = NULL;
	while (done < want) {
		/* Evictions may have left room for more than the pod that made them. */
		int64_t took = 0;
		for (size_t i = 0; i < cl->n && done < want; i++) {
			if (!node_passes(&node_only[i]))
				continue;
			int64_t room = room_on(cl, p, i, r), k = room < want - done ? room : want - done;
			r->placed[i] += k;
			done += k;
			took += k;
		}
		if (took)
			continue;
		sl_nodefits_free(r->fits, cl->n);
		free(r->post);
		r->post = NULL;
		r->fits = next_fits(cl, p, node_only, r);
		struct sl_preemption pr;
		struct sl_preempt_state st = {r->gone, r->placed, false};
		sl_preempt(cl, p, r->fits, &st, &pr);
		r->unknown |= pr.unknown;
		if (pr.chosen == (size_t)-1) {
			sl_preempt_summarize(&pr, &r->summary);
			r->post = pr.message;
			pr.message = NULL;
			sl_preemption_free(&pr);
			return done;
		}
		record(cl, r, &pr.nodes[pr.chosen], pr.chosen, pr.tie, surge);
		sl_preemption_free(&pr);
		done++;
	}
	sl_nodefits_free(r->fits, cl->n);
	r->fits = NULL;
	return done;
}
