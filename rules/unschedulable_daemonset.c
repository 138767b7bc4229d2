/* unschedulable_daemonset.c — `unschedulable` for a DaemonSet: nodes where its pod must run and
 * never fits.
 *
 * The DaemonSet controller creates a pod for every node it places the DaemonSet on, pinned to
 * that node (its required node affinity replaced by matchFields metadata.name In [node]), and the
 * default scheduler judges it there alone, against the pods that run on the node
 * (sched/daemonset_fit.c). A node whose running pods leave no room, pod slot or host port for it,
 * or whose pods repel it, keeps that pod Pending for good, whatever the other nodes have. Nodes
 * where a pod of the DaemonSet runs already need no new pod; nodes where preemption makes room
 * are preemption-required's. The nodes are grouped by the scheduler's message for their pod. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/model/quantity.h"
#include "rules.h"

#define NAMES 6

/* The pod's stuck nodes that no preemption places (npreempted 0), by their message. */
static bool reported(const struct sl_daemon_stuck *s)
{
	return !s->a->npreempted;
}

static const char *post_text(const struct sl_daemon_stuck *s)
{
	const char *p = sl_postfilter(s->a, SL_STOP_FIT, NULL);
	return p ? p : "";
}

static bool same_group(const struct sl_daemon_stuck *a, const struct sl_daemon_stuck *b)
{
	return a->a->preempt_unknown == b->a->preempt_unknown && !strcmp(sl_fit_error(a->a), sl_fit_error(b->a)) &&
	       !strcmp(post_text(a), post_text(b));
}

/* Where the pod fails on node k: what it asks that is short, the host ports, its anti-affinity. */
static const struct sl_ynode *culprit(const struct sl_podspec *p, const struct sl_nodefit *fit)
{
	const struct sl_ynode *at = NULL;
	if (fit->plugin == SL_PL_NODE_RESOURCES_FIT && fit->nreasons &&
	    !strncmp(fit->reasons[0], "Insufficient ", 13)) {
		const struct sl_res *r = sl_res_find(&p->request, fit->reasons[0] + 13);
		at = r ? r->node : NULL;
	} else if (fit->plugin == SL_PL_NODE_PORTS)
		at = p->containers_node;
	else if (fit->plugin == SL_PL_INTER_POD_AFFINITY)
		at = p->anti_terms_node ? p->anti_terms_node : p->affinity_terms_node;
	return at ? at : p->node && p->node->kind == SL_YMAP && p->node->n ? p->node->v[0] : NULL;
}

/* The node's load against the pod's requests, for each resource it is short of: "cpu: 4
 * allocatable, 3800m requested by its 12 running pods, the pod asks 500m". */
static void note_load(struct sl_finding *f, const struct sl_podspec *p, const struct sl_node *n)
{
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < p->request.n; i++) {
		const struct sl_res *r = &p->request.v[i];
		int64_t alloc = sl_res_get(&n->alloc, r->name), used = sl_res_get(&n->used, r->name);
		if (r->amount <= 0 || alloc - used >= r->amount)
			continue;
		char a[64], u[64], q[64];
		sl_format_amount(r->name, alloc, a, sizeof a);
		sl_format_amount(r->name, used, u, sizeof u);
		sl_format_amount(r->name, r->amount, q, sizeof q);
		sl_buf_printf(&b, "%s%s %s allocatable, %s requested, the pod asks %s", b.len ? "; " : "", r->name, a,
			      u, q);
	}
	if (n->max_pods > 0 && n->npods >= n->max_pods)
		sl_buf_printf(&b, "%spods: %lld allowed, %lld running", b.len ? "; " : "", (long long)n->max_pods,
			      (long long)n->npods);
	if (b.len)
		sl_note(f, "node %s (its %lld running pods): %s", n->name, (long long)n->npods, b.s);
	sl_buf_free(&b);
}

/* One finding for the group of stuck nodes that starts at s[k]. */
static void report_group(const struct sl_rule *self, struct sl_check *cx, const struct sl_daemon_fit *df, size_t k,
			 bool *done)
{
	const struct sl_model *m = cx->model;
	const struct sl_daemon_stuck *s = &df->stuck[k];
	struct sl_buf names = SL_BUF_INIT;
	size_t n = 0;
	for (size_t j = k; j < df->nstuck; j++) {
		if (done[j] || !reported(&df->stuck[j]) || !same_group(s, &df->stuck[j]))
			continue;
		done[j] = true;
		if (n < NAMES)
			sl_buf_printf(&names, "%s%s", n ? ", " : "", m->nodes[df->stuck[j].node]->name);
		n++;
	}
	if (n > NAMES)
		sl_buf_printf(&names, " and %zu more", n - NAMES);
	char ref[512];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	const struct sl_preempt_summary *pre;
	const char *post = sl_postfilter(s->a, SL_STOP_FIT, &pre);
	struct sl_finding *f = sl_rule_report(
	    self, cx, culprit(&cx->w->pod, &s->a->fit[s->at]),
	    "the pod of %s on node%s %s never runs (%zu of the %zu nodes it is placed on): %s%s%s", ref,
	    n == 1 ? "" : "s", names.s, n, df->nplaced, sl_fit_error(s->a), post ? " " : "", post ? post : "");
	sl_note(f,
		"each node's pod is pinned to it (node affinity on metadata.name) and judged against the pods "
		"running there; %zu of its nodes run a pod of it already",
		df->nown);
	for (size_t j = k, shown = 0; j < df->nstuck && shown < 3; j++)
		if (same_group(s, &df->stuck[j]) && reported(&df->stuck[j])) {
			const struct sl_node *nd = m->nodes[df->stuck[j].node];
			note_load(f, &cx->w->pod, nd);
			sl_add_related(f, &nd->name_node->at, "node %s: %s", nd->name,
				       df->stuck[j].a->fit[df->stuck[j].at].nreasons
					   ? df->stuck[j].a->fit[df->stuck[j].at].reasons[0]
					   : "no room");
			shown++;
		}
	sl_note_preemption(f, s->a, pre);
	if (df->unjudged)
		sl_note(f, "%zu more node%s where the pod does not fit as the node is were not analysed", df->unjudged,
			df->unjudged == 1 ? "" : "s");
	sl_note(f, "fix: lower the pod's requests, free room on those nodes, or give the DaemonSet a priority "
		   "above their pods' so that it preempts them (system-node-critical for a node agent)");
	sl_buf_free(&names);
}

void sl_unschedulable_daemonset(const struct sl_rule *self, struct sl_check *cx)
{
	if (!cx->a || !cx->cluster)
		return;
	const struct sl_daemon_fit *df = sl_daemon_fit(cx->cluster, cx->w, cx->a);
	bool *done = sl_xcalloc(df->nstuck + 1, sizeof *done);
	for (size_t k = 0; k < df->nstuck; k++)
		if (!done[k] && reported(&df->stuck[k]))
			report_group(self, cx, df, k, done);
	free(done);
}
