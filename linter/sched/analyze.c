/* analyze.c — one workload against the cluster: its pods' verdicts on every node, how many fit
 * at once, and whether its rollout's surge fits beside them (sl_analyze, sched.h). The common case
 * is settled cheaply: node-only verdicts shared by a class of identical nodes and by workloads
 * written alike, capacities summed until the replicas fit. Anything that does not fit is analysed
 * again in full, node by node, for the proof. */
#include <stdlib.h>
#include <string.h>

#include "../model/quantity.h"
#include "cycle.h"
#include "plugin.h"
#include "preemption.h"
#include "status.h"

/* Whether a running pod with required anti-affinity would exclude a pod of w (of either
 * generation) somewhere: then every placement matters, not only resources. */
static bool blocked_by_running(const struct sl_cluster *cl, const struct sl_workload *w, const struct sl_labels *gl)
{
	size_t nq;
	size_t *q = sl_anti_candidates(cl, w->pod.namespace, gl, 2, &nq);
	bool blocked = false;
	for (size_t a = 0; a < nq && !blocked; a++) {
		const struct sl_podspec *o = &cl->pods[q[a]]->spec;
		for (size_t t = 0; t < o->nanti && !blocked; t++)
			for (int g = 0; g < 2 && !blocked; g++)
				blocked =
				    sl_podterm_matches(&o->anti[t], o->namespace, &o->labels, w->pod.namespace, &gl[g]);
	}
	free(q);
	return blocked;
}

/* sl_own_pods (a pod without pod-template-hash is not a ReplicaSet's, cycle.h), or with first
 * only up to the first of them: its hash is all that is asked. */
static int64_t own_pods(const struct sl_cluster *cl, const struct sl_workload *w, const char **hash, int64_t *per_node,
			bool first)
{
	int64_t n = 0;
	*hash = NULL;
	if (w->strategy == SL_STRATEGY_NONE || w->sel.nothing) /* a selector that selects nothing owns nothing */
		return 0;
	struct sl_buf scratch = SL_BUF_INIT;
	size_t nk;
	const size_t *ks = sl_running_for(cl, w->pod.namespace, false, &w->sel, &scratch, &nk);
	sl_buf_free(&scratch);
	for (size_t j = 0; j < nk; j++) {
		const struct sl_podspec *q = &cl->pods[ks[j]]->spec;
		if (!sl_streq(q->namespace, w->pod.namespace) || !sl_selector_matches(&w->sel, &q->labels))
			continue;
		const char *h = sl_labels_get(&q->labels, "pod-template-hash");
		if (!h)
			continue;
		if (!*hash)
			*hash = h;
		if (per_node)
			per_node[cl->pod_node[ks[j]]]++;
		n++;
		if (first)
			break;
	}
	return n;
}

int64_t sl_own_pods(const struct sl_cluster *cl, const struct sl_workload *w, const char **hash, int64_t *per_node)
{
	return own_pods(cl, w, hash, per_node, false);
}

const char *sl_own_hash(const struct sl_cluster *cl, const struct sl_workload *w)
{
	const char *hash;
	own_pods(cl, w, &hash, NULL, true);
	return hash;
}

/* Resources alone limit the pods: each node's capacity is fixed and the count does not depend on
 * the order the scheduler places them in. Without a pool the counts alone: no reason text, and no
 * picture of the nodes where the next pod stops. */
static void analyze_by_slots(struct sl_reasons *pool, struct sl_cluster *cl, const struct sl_workload *w,
			     const bool *excluded, const bool *static_ok, struct sl_analysis *a)
{
	const struct sl_model *m = cl->m;
	size_t n = a->nnodes;
	/* The volume filters run after NodeResourcesFit: a node they reject that has room says so. */
	struct sl_nodefit *vol = a->vol && !sl_volset_idle(a->vol) ? sl_xcalloc(n + 1, sizeof *vol) : NULL;
	for (size_t i = 0; vol && i < n; i++)
		if (static_ok[i])
			sl_volume_verdict(cl, a->vol, i, &vol[i]);
	/* The pod's requests read once, not once per node. */
	struct sl_podres r;
	sl_podres_init(&r, &w->pod);
	const char **why = pool ? sl_xcalloc(w->pod.request.n + 1, sizeof *why) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (static_ok[i])
			sl_resources_short_at(pool, why, &r, &w->pod, cl, i, 0, &a->fit[i]);
		if (vol && static_ok[i] && a->fit[i].plugin == SL_FITS)
			a->fit[i] = vol[i];
		if (excluded[i])
			continue;
		a->slots[i] = sl_node_slots_of(&r, &w->pod, m->nodes[i], &a->fit[i], &a->slot_limit[i]);
		a->total_slots = sl_sat_add(a->total_slots, a->slots[i]);
	}
	int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
	int64_t more = a->replicas - own;
	int64_t placed = a->total_slots < more ? a->total_slots : more;
	a->steady_placed = own + placed;
	/* When the placement stops short, every candidate node is full, whatever order was taken.
	 */
	struct sl_nodefit *full = NULL;
	if (pool && (a->steady_placed < a->replicas || w->strategy == SL_STRATEGY_ROLLING)) {
		full = sl_xcalloc(n + 1, sizeof *full);
		for (size_t i = 0; i < n; i++) {
			if (!static_ok[i])
				full[i] = a->fit[i];
			else
				sl_resources_short_at(pool, why, &r, &w->pod, cl, i, a->slots[i], &full[i]);
			if (vol && static_ok[i] && full[i].plugin == SL_FITS)
				full[i] = vol[i];
			full[i].excluded = excluded[i];
		}
	}
	if (full && a->steady_placed < a->replicas)
		a->steady_fit = sl_nodefits_copy(full, n);
	if (w->strategy == SL_STRATEGY_ROLLING) {
		int64_t room = a->total_slots - placed;
		a->surge_placed = room < a->max_surge ? room : a->max_surge;
		if (full && a->surge_placed < a->max_surge)
			a->rollout_fit = sl_nodefits_copy(full, n);
	}
	sl_nodefits_free(full, n);
	free(vol);
	free(why);
}

/* Inter-pod terms, spread or host ports: the count depends on where each pod went, so pods are
 * placed one after another as the scheduler would. When that stops short, the placement is
 * repeated in the opposite order of preference: a different count means the verdict depends on
 * the order, not only on the nodes. Without the cycle's pool the counts alone: neither the picture
 * where it stops nor the order. */
static void analyze_in_sequence(struct sl_cycle *s, const struct sl_workload *w, struct sl_analysis *a,
				const char *old_hash)
{
	size_t n = a->nnodes;
	int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
	bool texts = s->pool != NULL;
	sl_place_all(s, w, a, own, &a->steady_placed, &a->surge_placed, texts ? &a->steady_fit : NULL,
		     texts ? &a->rollout_fit : NULL);
	a->surge_slots = sl_xcalloc(n + 1, sizeof *a->surge_slots);
	for (size_t i = 0; i < n; i++) {
		a->slots[i] = s->placed_gen[0][i];
		a->surge_slots[i] = s->placed_gen[1][i];
	}
	a->total_slots = a->steady_placed - own + a->surge_placed;
	a->not_placed = s->truncated;
	if ((a->steady_fit || a->rollout_fit) && !s->truncated) {
		struct sl_cycle r;
		int64_t steady, surge;
		sl_cycle_take(&r, s->cl, w, s->excluded, s->static_ok, old_hash);
		r.vol = s->vol;
		r.reverse = true;
		sl_place_all(&r, w, NULL, own, &steady, &surge, NULL, NULL);
		a->order_dependent = steady != a->steady_placed || surge != a->surge_placed;
		sl_cycle_free(&r);
	}
}

/* s, then the separator c (the key's fields are split by \x1f, its items ended by \x1e). */
static void field(struct sl_buf *b, const char *s, char c)
{
	sl_buf_puts(b, s);
	sl_buf_putc(b, c);
}

/* Everything the node-only filters read of a pod spec that names no node: tolerations, nodeSelector
 * and required node affinity. Equal keys, equal verdicts. Built with the buffer API, not printf:
 * it is made for every workload analysed. */
void sl_static_key(const struct sl_podspec *p, struct sl_buf *b)
{
	for (size_t i = 0; i < p->ntols; i++) {
		sl_buf_putc(b, 't');
		field(b, p->tols[i].key, '\x1f');
		field(b, p->tols[i].op, '\x1f');
		field(b, p->tols[i].value, '\x1f');
		field(b, p->tols[i].effect, '\x1e');
	}
	for (size_t i = 0; i < p->node_selector.n; i++) {
		sl_buf_putc(b, 's');
		field(b, p->node_selector.v[i].key, '\x1f');
		field(b, p->node_selector.v[i].val, '\x1e');
	}
	/* One copy for the three bytes every key has. */
	sl_buf_add(b, p->has_required_affinity ? "a1\x1e" : "a0\x1e", 3);
	for (size_t t = 0; t < p->nterms; t++) {
		sl_buf_puts(b, "T");
		for (int f = 0; f < 2; f++) {
			const struct sl_requirement *r = f ? p->terms[t].fields : p->terms[t].exprs;
			size_t n = f ? p->terms[t].nfields : p->terms[t].nexprs;
			for (size_t e = 0; e < n; e++) {
				sl_buf_putc(b, f ? 'f' : 'e');
				field(b, r[e].key, '\x1f');
				sl_buf_puti(b, (int)r[e].op);
				for (size_t v = 0; v < r[e].nvals; v++) {
					sl_buf_putc(b, '\x1f');
					sl_buf_puts(b, r[e].vals[v]);
				}
				sl_buf_puts(b, "\x1e");
			}
		}
	}
}

/* The common case, decided without per-node detail: resources alone limit the pods, and the
 * nodes have room for every replica and the surge. Returns false when a closer look is needed. */
static bool fits_at_a_glance(const struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
			     const bool *static_ok, struct sl_analysis *a)
{
	struct sl_podres r;
	sl_podres_init(&r, &w->pod);
	int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
	int64_t need = a->replicas - own + a->max_surge;
	if (a->strategy == SL_STRATEGY_ROLLING && a->max_unavailable == 0 && a->max_surge == 0 && a->replicas > 0)
		return false; /* the formula's deadlock; let the full analysis say so */
	if (need < 1)
		need = 1; /* still prove that one pod fits somewhere */
	for (size_t i = 0; i < a->nnodes; i++) {
		if (excluded[i] || !static_ok[i] || (a->vol && !sl_volume_verdict(cl, a->vol, i, NULL)))
			continue;
		a->total_slots = sl_sat_add(a->total_slots, sl_node_capacity(cl, &r, &w->pod, i));
		if (a->total_slots >= need) {
			a->nfeasible = 1; /* at least; the count was not needed */
			a->steady_placed = a->replicas;
			a->surge_placed = a->max_surge;
			return true;
		}
	}
	return false;
}

/* The node-only filters for every node (and, with detail, a->fit): once per class of identical
 * nodes when the pod names no node, and without detail taken from a workload written alike when
 * one was judged before. Returns the per-node verdicts: buf, filled, or the cluster's own copy of
 * a workload's written alike (read only, as long as cl). */
static const bool *judge_node_only(struct sl_cluster *cl, const struct sl_podspec *p, bool detail, bool texts,
				   struct sl_analysis *a, bool *buf)
{
	size_t n = cl->n;
	bool by_class = sl_judged_by_class(p);
	/* By class every node's verdict is copied from its class's below: not zeroed first. */
	if (detail)
		a->fit = by_class ? sl_xmalloc((n + 1) * sizeof *a->fit) : sl_xcalloc(n + 1, sizeof *a->fit);
	if (detail && by_class)
		memset(&a->fit[n], 0, sizeof a->fit[n]);
	struct sl_buf key = SL_BUF_INIT;
	const bool *known = NULL;
	if (by_class && !detail) {
		sl_static_key(p, &key);
		pthread_mutex_lock(&cl->static_lock);
		size_t k = sl_strmap_get(&cl->static_keys.map, sl_buf_str(&key));
		if (k != (size_t)-1)
			known = cl->static_verdicts[k];
		pthread_mutex_unlock(&cl->static_lock);
	}
	if (known) {
		/* A workload written alike was judged before: nothing to allocate, run or copy. */
		sl_buf_free(&key);
		return known;
	}
	struct sl_nodefit *cls_fit = by_class ? sl_xcalloc(cl->ncls + 1, sizeof *cls_fit) : NULL;
	signed char *cls_ok = by_class ? sl_xcalloc(cl->ncls + 1, 1) : NULL; /* 0 unknown, 1 pass, -1 fail */
	struct sl_nodefit scratch;
	/* Without detail (or texts) only the verdicts count: no reason text is formatted. */
	struct sl_cycle cy = {.cl = cl, .m = cl->m, .p = p, .n = n, .pool = detail && texts ? &cl->reasons : NULL};
	for (size_t i = 0; i < n; i++) {
		struct sl_nodefit *out = detail ? &a->fit[i] : &scratch;
		if (!by_class) {
			memset(&scratch, 0, sizeof scratch);
			buf[i] = sl_filter_node_only(&cy, i, out);
			continue;
		}
		size_t c = cl->cls[i];
		if (!cls_ok[c])
			cls_ok[c] = sl_filter_node_only(&cy, i, &cls_fit[c]) ? 1 : -1;
		buf[i] = cls_ok[c] > 0;
		if (detail)
			*out = cls_fit[c];
	}
	if (by_class && !detail) {
		/* Every class has a node, so every class was judged above. Kept per node: a workload
		 * written alike then reads them where they are. */
		pthread_mutex_lock(&cl->static_lock);
		size_t before = cl->static_keys.n;
		sl_intern(&cl->static_keys, sl_buf_str(&key));
		if (cl->static_keys.n > before) {
			sl_grow(&cl->static_verdicts, &cl->capstatic, cl->static_keys.n, sizeof *cl->static_verdicts);
			bool *keep = sl_xmalloc(n + 1);
			memcpy(keep, buf, n);
			cl->static_verdicts[before] = keep;
		}
		pthread_mutex_unlock(&cl->static_lock);
	}
	sl_buf_free(&key);
	free(cls_fit);
	free(cls_ok);
	return buf;
}

/* Whether pods must be placed one after another: inter-pod terms, hard spread or host ports, CSI
 * volumes a CSINode may limit, devices claimed (each pod's count depends on the pods before it),
 * or a running pod's anti-affinity that may exclude a pod of the workload somewhere. */
static bool needs_sequence(const struct sl_cluster *cl, const struct sl_workload *w, const struct sl_volset *vol,
			   const char *old_hash)
{
	const struct sl_podspec *p = &w->pod;
	bool hard_spread = false;
	for (size_t k = 0; k < p->nspread; k++)
		hard_spread |= p->spread[k].hard;
	if (p->naffinity || p->nanti || hard_spread || p->nports || (vol && vol->nattach && cl->m->storage.ncsinodes) ||
	    sl_dra_judged(cl, p))
		return true;
	/* The generations' labels only for the running pods' terms, made when there are any. */
	if (!cl->anti_by_ns.keys.n && !cl->anti_wild.keys.n)
		return false;
	struct sl_labels gl[2];
	bool deploy = w->strategy != SL_STRATEGY_NONE;
	sl_generation_labels(&gl[0], &p->labels, deploy ? old_hash : NULL);
	sl_generation_labels(&gl[1], &p->labels, deploy ? "schedlint-new" : NULL);
	bool seq = blocked_by_running(cl, w, gl);
	free(gl[0].v);
	free(gl[1].v);
	return seq;
}

/* Without detail: whether every replica and the surge fit, proven cheaply (capacities, or one
 * sequential placement). False when a closer look is needed. */
static bool fits_without_detail(struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
				const bool *static_ok, const char *old_hash, struct sl_analysis *a)
{
	if (!a->sequential)
		return fits_at_a_glance(cl, w, excluded, static_ok, a);
	struct sl_cycle s;
	int64_t steady, surge;
	int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
	sl_cycle_take(&s, cl, w, excluded, static_ok, old_hash);
	s.vol = a->vol;
	bool proven = sl_place_all_fits(&s, w, own);
	/* A replica proven left out: the closer look places them (it says why), this would too. */
	bool short_proven = !proven && sl_place_all_short(&s, w, own);
	sl_cycle_free(&s);
	if (short_proven)
		return false;
	/* Proven: what the placement below ends with, every pod placed within the budget. */
	steady = a->replicas;
	surge = a->max_surge;
	bool truncated = false;
	if (!proven) {
		sl_cycle_take(&s, cl, w, excluded, static_ok, old_hash);
		s.vol = a->vol;
		sl_place_all(&s, w, NULL, own, &steady, &surge, NULL, NULL);
		truncated = s.truncated;
		sl_cycle_free(&s);
	}
	if (truncated) {
		a->not_placed = true;
		a->nfeasible = 1;
		a->steady_placed = a->replicas;
		a->surge_placed = a->max_surge;
		a->total_slots = steady - own + surge;
		return true;
	}
	if (steady == a->replicas && surge == a->max_surge && steady > 0 &&
	    !(a->strategy == SL_STRATEGY_ROLLING && a->max_unavailable == 0 && surge == 0)) {
		a->nfeasible = 1; /* at least */
		a->steady_placed = steady;
		a->surge_placed = surge;
		a->total_slots = steady - own + surge;
		return true;
	}
	return false;
}

/* Where the placement now stops, after the preemption run r (the same place when nothing was
 * evicted): its verdicts, and the PostFilter's sentence and counts; the filters' text is made again
 * from the new verdicts when asked. */
static void take_stop(struct sl_analysis *a, struct sl_preempt_run *r, enum sl_stop which, struct sl_nodefit **fit,
		      char **text)
{
	sl_nodefits_free(*fit, a->nnodes);
	free(*text);
	*text = NULL;
	*fit = r->fits ? sl_nodefits_copy(r->fits, a->nnodes) : NULL;
	a->post[which] = r->post;
	a->pre[which] = r->summary;
	a->post_made[which] = true;
	r->post = NULL;
}

/* The pods that did not fit, placed again as the scheduler's PostFilter does: by evicting
 * lower-priority pods, one pod after another (preemption.c). Where resources alone decide the
 * state is known; where placement is sequential, preemption finding room is only said. */
static void preempt_in_detail(struct sl_cluster *cl, const struct sl_workload *w, bool texts, struct sl_analysis *a)
{
	int64_t short_steady = a->replicas - a->steady_placed;
	int64_t short_surge = a->strategy == SL_STRATEGY_ROLLING ? a->max_surge - a->surge_placed : 0;
	if ((short_steady <= 0 && short_surge <= 0) || !w->pod.preempts)
		return;
	size_t n = a->nnodes;
	if (w->pod.prio_from == SL_PRIO_UNKNOWN) {
		/* A class the inputs do not describe: were it as high as a user's class may be, would
		 * evicting pods make room? Then nothing is proven either way. */
		struct sl_podspec high = w->pod;
		high.priority = SL_HIGHEST_USER_PRIORITY;
		const struct sl_nodefit *f = a->steady_fit ? a->steady_fit : a->rollout_fit ? a->rollout_fit : a->fit;
		struct sl_preemption pr;
		sl_preempt(cl, &high, f, NULL, &pr);
		a->preempt_unknown = pr.unknown || pr.chosen != (size_t)-1;
		sl_preemption_free(&pr);
		return;
	}
	if (!sl_preempt_has_victims(cl, &w->pod, NULL))
		return;
	if (a->sequential) {
		/* The pods placed before the one that stops, as the cycle left them. */
		int64_t *placed = sl_xcalloc(n + 1, sizeof *placed);
		for (size_t i = 0; i < n; i++)
			placed[i] = (a->slots ? a->slots[i] : 0) + (a->surge_slots ? a->surge_slots[i] : 0);
		const struct sl_nodefit *f = a->steady_fit ? a->steady_fit : a->rollout_fit;
		struct sl_preemption pr;
		struct sl_preempt_state st = {NULL, placed, false};
		sl_preempt(cl, &w->pod, f ? f : a->fit, &st, &pr);
		a->preempt_unknown = pr.unknown || pr.chosen != (size_t)-1;
		sl_preemption_free(&pr);
		free(placed);
		return;
	}
	struct sl_preempt_run r;
	sl_preempt_run_init(&r, cl, a->slots);
	if (short_steady > 0) {
		int64_t more = sl_preempt_place(cl, &w->pod, a->fit, &r, short_steady, false);
		a->steady_placed += more;
		if (texts)
			take_stop(a, &r, SL_STOP_STEADY, &a->steady_fit, &a->steady_fit_error_text);
	}
	if (a->steady_placed >= a->replicas && a->strategy == SL_STRATEGY_ROLLING && a->surge_placed < a->max_surge) {
		int64_t more = sl_preempt_place(cl, &w->pod, a->fit, &r, a->max_surge - a->surge_placed, true);
		a->surge_placed += more;
		if (texts)
			take_stop(a, &r, SL_STOP_ROLLOUT, &a->rollout_fit, &a->rollout_fit_error_text);
	}
	a->preempt_unknown = r.unknown;
	a->preempted = r.steps;
	a->npreempted = r.nsteps;
	a->preempt_gone = r.gone;
	a->preempt_placed = r.placed;
	r.steps = NULL;
	r.nsteps = 0;
	r.gone = NULL;
	r.placed = NULL;
	sl_preempt_run_free(&r, n);
}

/* Running pods whose priority is not known are taken as 0, as a pod without a class. Where the
 * placement still stops, would evicting them make room were their priorities below the pod's?
 * Then no shortfall is proven: a->preempt_unknown, and the pod it depends on. (Pods placed by
 * evicting one of them say so in their own finding.) */
static void unknown_victims(struct sl_cluster *cl, const struct sl_workload *w, struct sl_analysis *a)
{
	bool short_ =
	    a->steady_placed < a->replicas || (a->strategy == SL_STRATEGY_ROLLING && a->surge_placed < a->max_surge);
	if (!short_ || a->preempt_unknown || !w->pod.preempts || !cl->unknown_prio)
		return;
	/* Only then the walk over every running pod (each a pod read from memory). */
	bool some = false;
	for (size_t k = 0; k < cl->npods && !some; k++)
		some = cl->pods[k]->spec.prio_from == SL_PRIO_UNKNOWN && !(a->preempt_gone && a->preempt_gone[k]);
	if (!some)
		return;
	int64_t *placed = sl_xcalloc(a->nnodes + 1, sizeof *placed);
	for (size_t i = 0; i < a->nnodes; i++)
		placed[i] = a->preempt_placed ? a->preempt_placed[i]
					      : (a->slots ? a->slots[i] : 0) + (a->surge_slots ? a->surge_slots[i] : 0);
	const struct sl_nodefit *f = a->steady_fit ? a->steady_fit : a->rollout_fit;
	struct sl_preemption pr;
	struct sl_preempt_state st = {a->preempt_gone, placed, true};
	sl_preempt(cl, &w->pod, f ? f : a->fit, &st, &pr);
	if (pr.chosen != (size_t)-1) {
		a->preempt_unknown = true;
		const struct sl_preempt_node *pn = &pr.nodes[pr.chosen];
		for (size_t v = 0; v < pn->nvictims && !a->preempt_unknown_pod; v++)
			if (cl->pods[pn->victims[v]]->spec.prio_from == SL_PRIO_UNKNOWN)
				a->preempt_unknown_pod = cl->pods[pn->victims[v]];
	}
	sl_preemption_free(&pr);
	free(placed);
}

/* With detail, after the node-only verdicts: every node's picture, for the proof. */
static void analyze_in_detail(struct sl_cluster *cl, const struct sl_workload *w, const char *old_hash, bool texts,
			      struct sl_analysis *a)
{
	size_t n = cl->n;
	const char *hash;
	a->slots = sl_xcalloc(n + 1, sizeof *a->slots);
	a->slot_limit = sl_xcalloc(n + 1, sizeof *a->slot_limit);
	a->own_on = sl_xcalloc(n + 1, sizeof *a->own_on);
	sl_own_pods(cl, w, &hash, a->own_on);
	/* Not zeroed: the PreFilter writes every node or none (then nothing is excluded), and
	 * static_ok is written below. */
	bool *own_excluded = sl_xmalloc(n + 1), *static_ok = sl_xmalloc(n + 1);
	const bool *excluded =
	    sl_node_affinity_prefilter(&w->pod, cl->m, own_excluded) ? own_excluded : cl->none_excluded;
	for (size_t i = 0; i < n; i++)
		static_ok[i] = a->fit[i].plugin == SL_FITS;
	if (a->sequential) {
		struct sl_cycle s;
		sl_cycle_take(&s, cl, w, excluded, static_ok, old_hash);
		s.vol = a->vol;
		if (!texts)
			s.pool = NULL;
		analyze_in_sequence(&s, w, a, old_hash);
		sl_cycle_free(&s);
	} else
		analyze_by_slots(texts ? &cl->reasons : NULL, cl, w, excluded, static_ok, a);
	for (size_t i = 0; i < n; i++) {
		/* Never filtered by the scheduler, and so absent from its message; the first filter
		 * that would fail is still worth showing. */
		a->fit[i].excluded = excluded[i];
		if (excluded[i])
			a->nexcluded++;
		else if (a->fit[i].plugin == SL_FITS)
			a->nfeasible++;
	}
	a->texts = texts;
	a->cl = texts ? cl : NULL;
	preempt_in_detail(cl, w, texts, a);
	unknown_victims(cl, w, a);
	a->detailed = true;
	free(own_excluded);
	free(static_ok);
}

/* sl_analyze, or with texts false sl_analyze_counts. */
static void analyze(struct sl_cluster *cl, const struct sl_workload *w, bool detail, bool texts, struct sl_analysis *a)
{
	memset(a, 0, sizeof *a);
	size_t n = cl->n;
	a->pod = &w->pod;
	a->nnodes = n;
	a->replicas = w->replicas;
	a->strategy = w->strategy;
	a->is_rollout = w->strategy != SL_STRATEGY_NONE;
	if (w->strategy == SL_STRATEGY_ROLLING)
		sl_fenceposts(w, &a->max_surge, &a->max_unavailable);
	const char *hash;
	a->own_running = sl_own_pods(cl, w, &hash, NULL);
	const char *old_hash = hash ? hash : "schedlint-old";

	/* On the stack for a cluster of the usual size: made for every workload analysed. Not
	 * zeroed: the PreFilter writes every node or none (then the cluster's all-false array
	 * serves), and judge_node_only writes every node of ok or gives verdicts of its own. */
	bool small[2][64];
	bool big = n >= 64;
	bool *own_excluded = big ? sl_xmalloc(n + 1) : small[0];
	bool *ok = big ? sl_xmalloc(n + 1) : small[1];
	const bool *excluded =
	    sl_node_affinity_prefilter(&w->pod, cl->m, own_excluded) ? own_excluded : cl->none_excluded;
	const bool *static_ok = judge_node_only(cl, &w->pod, detail, texts, a, ok);
	a->vol = sl_volumes_choose(cl, w, excluded, static_ok);
	/* PreFilters in the profile's order: VolumeBinding's, then DynamicResources'. */
	if (a->vol && a->vol->prefilter) {
		if (static_ok != ok) /* the shared verdicts are read only */
			memcpy(ok, static_ok, n);
		sl_volume_prefilter_fails(a->vol, n, detail ? a->fit : NULL, ok);
		static_ok = ok;
	} else if (sl_dra_judged(cl, &w->pod)) {
		if (static_ok != ok)
			memcpy(ok, static_ok, n);
		if (sl_dra_prefilter_fails(cl, &w->pod, n, detail ? a->fit : NULL, ok))
			static_ok = ok;
	}
	a->sequential = needs_sequence(cl, w, a->vol, old_hash);
	bool done = !detail && fits_without_detail(cl, w, excluded, static_ok, old_hash, a);
	if (big) {
		free(own_excluded);
		free(ok);
	}
	if (!done && !detail) {
		/* Something does not fit: the full picture, node by node, for the proof. */
		struct sl_analysis full;
		analyze(cl, w, true, texts, &full);
		*a = full;
		return;
	}
	if (!done)
		analyze_in_detail(cl, w, old_hash, texts, a);
	if (!strcmp(w->obj.kind, "DaemonSet"))
		sl_daemon_view(cl, w, &a->daemon);
	a->rollout_deadlock = sl_rollout_never_starts(w, a->max_unavailable, a->surge_placed);
}

void sl_analyze(struct sl_cluster *cl, const struct sl_workload *w, bool detail, struct sl_analysis *a)
{
	analyze(cl, w, detail, true, a);
}

void sl_analyze_counts(struct sl_cluster *cl, const struct sl_workload *w, struct sl_analysis *a)
{
	analyze(cl, w, false, false, a);
}

void sl_analysis_free(struct sl_analysis *a)
{
	sl_nodefits_free(a->fit, a->nnodes);
	sl_nodefits_free(a->steady_fit, a->nnodes);
	sl_nodefits_free(a->rollout_fit, a->nnodes);
	free(a->slots);
	free(a->surge_slots);
	free(a->own_on);
	free(a->slot_limit);
	free(a->fit_error_text);
	free(a->steady_fit_error_text);
	free(a->rollout_fit_error_text);
	for (size_t s = 0; s < a->npreempted; s++) {
		free((void *)a->preempted[s].victims);
		free((void *)a->preempted[s].broken);
	}
	free(a->preempted);
	free(a->preempt_gone);
	free(a->preempt_placed);
	for (int k = 0; k < 3; k++)
		free(a->post[k]);
	sl_daemon_view_free(&a->daemon);
	free(a->pools);
	memset(a, 0, sizeof *a);
}

int64_t sl_own_running(const struct sl_cluster *cl, const struct sl_workload *w)
{
	const char *hash;
	return sl_own_pods(cl, w, &hash, NULL);
}

void sl_node_only_verdicts(struct sl_cluster *cl, const struct sl_podspec *p, bool *ok)
{
	struct sl_analysis a;
	memset(&a, 0, sizeof a);
	const bool *known = judge_node_only(cl, p, false, false, &a, ok);
	if (known != ok)
		memcpy(ok, known, cl->n);
}

/* The text of fits into *memo, made once. */
static const char *memo_text(char **memo, const struct sl_nodefit *fits, size_t n)
{
	if (!*memo)
		*memo = sl_fit_error_text(n, fits, n);
	return *memo;
}

const char *sl_fit_error(const struct sl_analysis *a)
{
	struct sl_analysis *w = (struct sl_analysis *)a; /* the memo only (sched.h) */
	return a->detailed && a->texts && a->nfeasible == 0 ? memo_text(&w->fit_error_text, a->fit, a->nnodes) : NULL;
}

const char *sl_steady_fit_error(const struct sl_analysis *a)
{
	struct sl_analysis *w = (struct sl_analysis *)a;
	return a->steady_fit ? memo_text(&w->steady_fit_error_text, a->steady_fit, a->nnodes) : NULL;
}

const char *sl_rollout_fit_error(const struct sl_analysis *a)
{
	struct sl_analysis *w = (struct sl_analysis *)a;
	return a->rollout_fit ? memo_text(&w->rollout_fit_error_text, a->rollout_fit, a->nnodes) : NULL;
}

/* The fits of the pod where the placement stops at which (NULL: no such stop) and the state it
 * meets there: the pods placed before it (none, the replicas, and the surge too), and those a
 * preemption run evicted and placed. *placed is the caller's to free. */
static const struct sl_nodefit *stop_state(const struct sl_analysis *a, enum sl_stop which, struct sl_preempt_state *st,
					   int64_t **placed)
{
	const struct sl_nodefit *fits = which == SL_STOP_FIT      ? (a->nfeasible == 0 ? a->fit : NULL)
					: which == SL_STOP_STEADY ? a->steady_fit
								  : a->rollout_fit;
	*placed = NULL;
	*st = (struct sl_preempt_state){NULL, NULL, false};
	if (!fits || which == SL_STOP_FIT)
		return fits;
	*placed = sl_xcalloc(a->nnodes + 1, sizeof **placed);
	for (size_t i = 0; i < a->nnodes; i++)
		(*placed)[i] = a->preempt_placed
				   ? a->preempt_placed[i]
				   : (a->slots ? a->slots[i] : 0) +
					 (which == SL_STOP_ROLLOUT && a->surge_slots ? a->surge_slots[i] : 0);
	*st = (struct sl_preempt_state){a->preempt_gone, *placed, false};
	return fits;
}

const char *sl_postfilter(const struct sl_analysis *a, enum sl_stop which, const struct sl_preempt_summary **sum)
{
	struct sl_analysis *w = (struct sl_analysis *)a; /* the memo only, as the texts above */
	if (!a->post_made[which] && a->cl) {
		w->post_made[which] = true;
		int64_t *placed;
		struct sl_preempt_state st;
		const struct sl_nodefit *fits = stop_state(a, which, &st, &placed);
		if (fits) {
			struct sl_preemption pr;
			sl_preempt(a->cl, a->pod, fits, &st, &pr);
			sl_preempt_summarize(&pr, &w->pre[which]);
			w->post[which] = pr.message;
			pr.message = NULL;
			sl_preemption_free(&pr);
		}
		free(placed);
	}
	if (sum)
		*sum = &a->pre[which];
	return a->post[which];
}

void sl_preempt_view(const struct sl_analysis *a, enum sl_stop which, struct sl_preempt_view *v)
{
	memset(v, 0, sizeof *v);
	int64_t *placed;
	struct sl_preempt_state st;
	const struct sl_nodefit *fits = a->cl ? stop_state(a, which, &st, &placed) : NULL;
	if (!fits)
		return;
	sl_preempt_view_of(a->cl, a->pod, fits, &st, v);
	free(placed);
}
