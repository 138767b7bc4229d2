/* daemonset_fit.c — where the DaemonSet controller places a DaemonSet's pods, why it leaves the
 * other nodes out, and whether each new pod fits on its node (sl_daemon_fit, sched.h).
 *
 * Since 1.12 the controller does not bind its pods: it creates one per node it places the
 * DaemonSet on (NodeShouldRunDaemonPod), with the tolerations it adds and its required node
 * affinity replaced by that node's name (ReplaceDaemonSetPodNodeNameNodeAffinity in
 * pkg/controller/daemon/util), and the default scheduler places it. The NodeAffinity PreFilter
 * then narrows the filtered nodes to that one, so the pod's FailedScheduling message counts that
 * node alone among all of them, and DefaultPreemption may evict pods of lower priority there.
 *
 * The node-only filters pass on the node by construction; what is left is the node's load: the
 * resources and pod count, host ports and inter-pod affinity against its running pods. Hard
 * topology spread is left out: with the default nodeAffinityPolicy Honor it counts only the nodes
 * the pinned affinity admits, that one node, where a pod never skews. */
#include <stdlib.h>
#include <string.h>

#include "cycle.h"
#include "plugin.h"
#include "status.h"

/* The pod as the controller creates it for node `node` (node < m->nnodes), or, with node
 * (size_t)-1, for any node it places the DaemonSet on: its tolerations merged (out->pod.tols
 * owned), no hard spread, and when pinned, one required term naming the node. */
struct pinned {
	struct sl_workload w;
	struct sl_term term;
	struct sl_requirement field;
	const char *name;
};

static void pin(struct pinned *out, const struct sl_workload *w, const struct sl_node *node)
{
	memset(out, 0, sizeof *out);
	out->w = *w;
	sl_daemon_pod(&w->pod, &out->w.pod);
	out->w.obj.kind = "Pod"; /* one pod, no rollout, no DaemonSet view of its own */
	out->w.replicas = 1;
	out->w.replicas_node = NULL;
	out->w.strategy = SL_STRATEGY_NONE;
	out->w.pod.spread = NULL;
	out->w.pod.nspread = 0;
	if (!node)
		return;
	out->name = node->name;
	out->field = (struct sl_requirement){"metadata.name", SL_OP_IN, &out->name, 1, NULL};
	out->term = (struct sl_term){NULL, &out->field, 0, 1, NULL};
	out->w.pod.terms = &out->term;
	out->w.pod.nterms = 1;
	out->w.pod.has_required_affinity = true;
}

static void unpin(void *p_)
{
	struct pinned *p = p_;
	free(p->w.pod.tols);
}

static void fit_free(struct sl_daemon_fit *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nstuck; i++) {
		if (!f->stuck[i].own)
			continue;
		sl_analysis_free(f->stuck[i].own);
		free(f->stuck[i].own);
		unpin(f->stuck[i].pinned);
		free(f->stuck[i].pinned);
	}
	free(f->stuck);
	free(f->placed); /* reasons are the cluster's */
	free(f->placed_text);
	free(f);
}

/* The controller's verdict on every node: the node-only filters, in the profile's order, for its
 * pod (which names no node yet), with the reasons the scheduler words. A cordon never keeps it
 * off: the controller tolerates node.kubernetes.io/unschedulable. */
static void judge_nodes(struct sl_cluster *cl, const struct sl_podspec *p, struct sl_daemon_fit *f)
{
	struct sl_cycle cy;
	memset(&cy, 0, sizeof cy);
	cy.cl = cl;
	cy.m = cl->m;
	cy.p = p;
	cy.n = cl->n;
	cy.pool = &cl->reasons;
	f->placed = sl_xcalloc(cl->n + 1, sizeof *f->placed);
	/* Nodes of a class (the same labels but the hostname, taints and cordon) get the same verdict
	 * unless the pod names nodes: judged once per class. */
	bool by_class = sl_judged_by_class(p);
	size_t *first = by_class ? sl_xcalloc(cl->ncls + 1, sizeof *first) : NULL;
	for (size_t i = 0; i < cl->n; i++) {
		size_t c = by_class ? cl->cls[i] : 0;
		if (by_class && first[c])
			f->placed[i] = f->placed[first[c] - 1];
		else {
			sl_filter_node_only(&cy, i, &f->placed[i]);
			if (by_class)
				first[c] = i + 1;
		}
		f->nplaced += f->placed[i].plugin == SL_FITS;
	}
	free(first);
	if (!f->nplaced && cl->n)
		f->placed_text = sl_fit_error_text(cl->n, f->placed, cl->n);
}

/* An earlier stuck node whose analysis holds for node i: no pod runs on either (no load, no
 * victim, no pod to repel or attract it) and their allocatable is the same; or (size_t)-1. */
static size_t alike(const struct sl_model *m, const struct sl_daemon_fit *f, size_t i)
{
	const struct sl_node *n = m->nodes[i];
	if (n->npods)
		return (size_t)-1;
	for (size_t k = 0; k < f->nstuck; k++) {
		const struct sl_node *o = m->nodes[f->stuck[k].node];
		if (!f->stuck[k].own || o->npods || o->max_pods != n->max_pods || o->alloc.n != n->alloc.n)
			continue;
		bool same = true;
		for (size_t r = 0; r < n->alloc.n && same; r++)
			same = sl_res_get(&o->alloc, n->alloc.v[r].name) == n->alloc.v[r].amount &&
			       sl_res_find(&o->alloc, n->alloc.v[r].name);
		if (same)
			return k;
	}
	return (size_t)-1;
}

/* Nodes where the controller places a pod and none of the DaemonSet runs whose pod does not pass
 * the filters that read the node's load: one cycle for the unpinned pod (the pinned one differs
 * only in which nodes are filtered), then each such node's pod analysed in full, pinned. */
static void judge_pods(struct sl_cluster *cl, const struct sl_workload *w, bool sequential, struct sl_daemon_fit *f)
{
	size_t n = cl->n;
	int64_t *own = sl_xcalloc(n + 1, sizeof *own);
	sl_daemon_own_pods(cl, w, own);
	bool *excluded = sl_xcalloc(n + 1, sizeof *excluded);
	bool *ok = sl_xcalloc(n + 1, sizeof *ok);
	for (size_t i = 0; i < n; i++) {
		ok[i] = f->placed[i].plugin == SL_FITS && !own[i];
		f->nown += f->placed[i].plugin == SL_FITS && own[i];
	}
	struct pinned any;
	pin(&any, w, NULL);
	/* Where resources alone decide (no host port, inter-pod term or running pod's anti-affinity
	 * that reaches it: the analysis places it by slots), the node's room says it; else a cycle. */
	struct sl_cycle cy;
	struct sl_nodefit pass;
	sl_nodefit_clear(&pass);
	if (sequential) {
		sl_cycle_init(&cy, cl, &any.w, excluded, ok, NULL);
		sl_plugins_prefilter(&cy); /* the running pods' counts: nothing of it is placed */
		sl_plugins_refresh(&cy);
	}
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		const char *limit;
		if (!ok[i] || (sequential ? sl_filter_others(&cy, i, NULL) == SL_FITS
					  : sl_node_slots(&any.w.pod, cl->m->nodes[i], &pass, &limit) >= 1))
			continue;
		if (f->nstuck >= SL_DAEMON_FIT_BUDGET) {
			f->unjudged++;
			continue;
		}
		sl_grow(&f->stuck, &cap, f->nstuck + 1, sizeof *f->stuck);
		size_t like = alike(cl->m, f, i);
		if (like != (size_t)-1) {
			const struct sl_daemon_stuck *l = &f->stuck[like];
			f->stuck[f->nstuck++] = (struct sl_daemon_stuck){i, l->a, l->at, NULL, NULL};
			continue;
		}
		/* Kept with the analysis, which points at its pod spec for the texts it makes later. */
		struct pinned *one = sl_xcalloc(1, sizeof *one);
		pin(one, w, cl->m->nodes[i]);
		struct sl_analysis *a = sl_xcalloc(1, sizeof *a);
		sl_analyze(cl, &one->w, true, a);
		if (a->nfeasible) {
			sl_analysis_free(a);
			free(a);
			unpin(one);
			free(one);
			continue;
		}
		f->stuck[f->nstuck++] = (struct sl_daemon_stuck){i, a, i, a, one};
	}
	if (sequential)
		sl_cycle_free(&cy);
	unpin(&any);
	free(own);
	free(excluded);
	free(ok);
}

const struct sl_daemon_fit *sl_daemon_fit(struct sl_cluster *cl, const struct sl_workload *w,
					  const struct sl_analysis *a)
{
	struct sl_daemon_view *v = (struct sl_daemon_view *)&a->daemon; /* the memo only (sched.h) */
	if (v->fit)
		return v->fit;
	struct sl_daemon_fit *f = sl_xcalloc(1, sizeof *f);
	struct sl_podspec p;
	sl_daemon_pod(&w->pod, &p);
	judge_nodes(cl, &p, f);
	free(p.tols);
	if (f->nplaced)
		judge_pods(cl, w, a->sequential, f);
	v->fit = f;
	v->free_fit = fit_free;
	return f;
}
