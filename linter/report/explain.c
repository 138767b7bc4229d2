/* explain.c — `--explain`: for each workload, every node's verdict for one pod (pass, or the
 * failing filter and the scheduler's reason), how many pods each node takes, and the totals with
 * and without the rollout's surge. Text for people, JSON for tools; both from one analysis. The
 * text's names and reasons are escaped (escape.h): it is read on terminals and in CI logs. */
#include "explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "../model/resources.h"
#include "explain_internal.h"

/* Text, then what the scheduler said (names in it escaped: the text is for a terminal), then the
 * end of the line. */
static void line_end(struct sl_buf *b, const char *text, const char *said)
{
	sl_buf_puts(b, text);
	sl_esc_puts(b, said);
	sl_buf_putc(b, '\n');
}

/* The scheduler's whole message where the placement stops at which: the filters' text, then the
 * PostFilter's sentence as the event prints it. */
static void failed_scheduling(struct sl_buf *b, const char *text, const struct sl_analysis *a, enum sl_stop which)
{
	const char *fe = which == SL_STOP_FIT      ? sl_fit_error(a)
			 : which == SL_STOP_STEADY ? sl_steady_fit_error(a)
						   : sl_rollout_fit_error(a);
	const char *post = sl_postfilter(a, which, NULL);
	sl_buf_puts(b, text);
	sl_esc_puts(b, fe);
	if (post) {
		sl_buf_putc(b, ' ');
		sl_esc_puts(b, post);
	}
	sl_buf_putc(b, '\n');
}

static void victims(const struct sl_preempt_step *s, struct sl_buf *b);

/* One node's preemption verdict: what DefaultPreemption's dry run finds there. */
static void preempt_verdict(const struct sl_preempt_view_node *pn, struct sl_buf *b)
{
	switch (pn->verdict) {
	case SL_PN_NOT_HELPFUL:
		sl_buf_printf(b, "not helpful: %s%s fails, which evicting pods does not change",
			      pn->why.excluded ? "left out by PreFilter; " : "", sl_plugin_name(pn->why.plugin));
		break;
	case SL_PN_NO_VICTIMS:
		sl_buf_puts(b, "no victims: no running pod of lower priority");
		break;
	case SL_PN_FAILS:
		sl_buf_puts(b, "not helpful: with every lower-priority pod evicted, ");
		sl_explain_verdict(&pn->why, b);
		break;
	case SL_PN_UNKNOWN:
		sl_buf_puts(
		    b, "not checked: inter-pod affinity, topology spread or a CSI attach limit decides (not modelled)");
		break;
	case SL_PN_CANDIDATE:
		sl_buf_puts(b, "victims: ");
		victims(&pn->victims, b);
		if (pn->nominated)
			sl_buf_puts(b, pn->victims.tie ? "; nominated, or another as good (at random)" : "; nominated");
		break;
	}
}

/* "ns/name (priority P; breaks PodDisruptionBudget ns/name)" for each victim of s. */
static void victims(const struct sl_preempt_step *s, struct sl_buf *b)
{
	for (size_t v = 0; v < s->nvictims; v++) {
		const struct sl_pod *p = s->victims[v];
		sl_buf_puts(b, v ? ", " : "");
		sl_esc_puts(b, p->obj.namespace);
		sl_buf_putc(b, '/');
		sl_esc_puts(b, p->obj.name);
		sl_buf_printf(b, " (priority %lld", (long long)p->spec.priority);
		if (s->broken[v]) {
			sl_buf_puts(b, "; breaks PodDisruptionBudget ");
			sl_esc_puts(b, s->broken[v]->obj.namespace);
			sl_buf_putc(b, '/');
			sl_esc_puts(b, s->broken[v]->obj.name);
		}
		sl_buf_putc(b, ')');
	}
}

/* The PostFilter node by node for the pod where the placement stops at which, under the line that
 * gives its FailedScheduling text. */
static void preempt_lines(struct sl_buf *out, const struct sl_analysis *a, enum sl_stop which, char **names,
			  size_t width)
{
	struct sl_preempt_view v;
	sl_preempt_view(a, which, &v);
	if (!v.evaluated)
		return;
	if (!v.eligible)
		sl_buf_printf(out, "    preemption: none, the pod's preemptionPolicy is Never\n");
	else if (!v.lower)
		sl_buf_printf(
		    out,
		    "    preemption: no victims on any node: no running pod's priority is below the pod's (%lld)\n",
		    (long long)a->pod->priority);
	struct sl_buf t = SL_BUF_INIT;
	for (size_t i = 0; v.lower && i < v.n; i++) {
		sl_buf_reset(&t);
		preempt_verdict(&v.nodes[i], &t);
		sl_buf_printf(out, "    preemption on %-*s  %s\n", (int)width, names[i], sl_buf_str(&t));
	}
	sl_buf_free(&t);
	sl_preempt_view_free(&v);
}

static void header(const struct sl_workload *w, const struct sl_analysis *a, struct sl_buf *b)
{
	const struct sl_span *at = &(w->obj.kind_node ? w->obj.kind_node : w->obj.root)->at;
	sl_esc_puts(b, w->obj.kind);
	sl_buf_putc(b, ' ');
	sl_esc_puts(b, w->obj.namespace);
	sl_buf_putc(b, '/');
	sl_esc_puts(b, w->obj.name ? w->obj.name : "");
	sl_buf_puts(b, " (");
	sl_esc_puts(b, at->src ? at->src->path : "-");
	if (!strcmp(w->obj.kind, "DaemonSet")) /* no replicas: explain_daemonset.c */
		sl_buf_printf(b, ":%d): one pod on each node it selects", (int)sl_span_line(at));
	else if (sl_wbatch(w)->is) /* a Job's pods at once are min(parallelism, completions): model/job.h */
		sl_buf_printf(b, ":%d): %lld pod%s at once, %lld in all", (int)sl_span_line(at), (long long)w->replicas,
			      w->replicas == 1 ? "" : "s", (long long)sl_wbatch(w)->total);
	else
		sl_buf_printf(b, ":%d): replicas %lld", (int)sl_span_line(at), (long long)w->replicas);
	if (!a || !strcmp(w->obj.kind, "DaemonSet"))
		return;
	if (a->strategy == SL_STRATEGY_ROLLING)
		sl_buf_printf(b, ", RollingUpdate (maxSurge %lld, maxUnavailable %lld)", (long long)a->max_surge,
			      (long long)a->max_unavailable);
	else if (a->strategy == SL_STRATEGY_RECREATE)
		sl_buf_puts(b, ", Recreate");
}

static void totals(struct sl_buf *out, const struct sl_analysis *a, char **names, size_t width);

/* The pods placed only by evicting others, one line each (counted in the totals). */
static void placed_by_preemption(struct sl_buf *out, const struct sl_analysis *a, char **names)
{
	struct sl_buf t = SL_BUF_INIT;
	for (size_t k = 0; k < a->npreempted && k < 10; k++) {
		const struct sl_preempt_step *st = &a->preempted[k];
		sl_buf_reset(&t);
		victims(st, &t);
		sl_buf_printf(out, "  placed by preemption: %s pod %zu on %s, evicting %s%s\n",
			      st->surge ? "surge" : "replica", k + 1, names[st->node], sl_buf_str(&t),
			      st->tie ? " (or another node as good, at random)" : "");
	}
	if (a->npreempted > 10)
		sl_buf_printf(out, "  placed by preemption: %zu more pods\n", a->npreempted - 10);
	sl_buf_free(&t);
}

/* Each pool's verdict for one pod of the template: whether a new node of it takes the pod. */
static void pools_text(struct sl_buf *out, const struct sl_model *m, const struct sl_workload *w)
{
	if (!m->npools)
		return;
	struct sl_pool_fit *pf = sl_xcalloc(m->npools, sizeof *pf);
	sl_pools_judge(m, &w->pod, pf);
	sl_buf_puts(out, "  pools (a new node, for the first pod):\n");
	for (size_t i = 0; i < m->npools; i++) {
		const struct sl_pool *p = pf[i].pool;
		sl_buf_printf(out, "    %s ", p->kind == SL_POOL_KARPENTER ? "NodePool" : "node group");
		sl_esc_puts(out, p->obj.name);
		if (!pf[i].admits)
			line_end(out, ": refuses: ", pf[i].text);
		else {
			if (pf[i].assumed)
				sl_buf_puts(out, ": admits (what a new node holds is not known: assumed to have room)");
			else
				sl_buf_printf(out, ": admits, %lld pod%s per new node", (long long)pf[i].per_node,
					      pf[i].per_node == 1 ? "" : "s");
			/* What capacity findings count on: the pods it adds at most (sl_pool_fit.pods_max). */
			if (pf[i].pods_max >= 0)
				sl_buf_printf(out, ", %lld at most within its limits", (long long)pf[i].pods_max);
			sl_buf_putc(out, '\n');
		}
	}
	free(pf);
}

/* The same for --format json: "pools": [{name, kind, admits, assumed, per_node, reason}]. */
static void pools_json(cJSON *o, const struct sl_model *m, const struct sl_workload *w)
{
	if (!m->npools)
		return;
	struct sl_pool_fit *pf = sl_xcalloc(m->npools, sizeof *pf);
	sl_pools_judge(m, &w->pod, pf);
	cJSON *arr = cJSON_AddArrayToObject(o, "pools");
	for (size_t i = 0; i < m->npools; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", pf[i].pool->obj.name);
		cJSON_AddStringToObject(e, "kind", pf[i].pool->kind == SL_POOL_KARPENTER ? "NodePool" : "nodeGroup");
		cJSON_AddBoolToObject(e, "admits", pf[i].admits);
		if (pf[i].admits) {
			cJSON_AddBoolToObject(e, "assumed", pf[i].assumed);
			if (!pf[i].assumed)
				cJSON_AddNumberToObject(e, "per_node", (double)pf[i].per_node);
			if (pf[i].pods_max >= 0)
				cJSON_AddNumberToObject(e, "pods_max", (double)pf[i].pods_max);
		} else
			cJSON_AddStringToObject(e, "reason", pf[i].text);
		cJSON_AddItemToArray(arr, e);
	}
	free(pf);
}

/* Where the pod's request comes from when not from its containers alone: one line. */
static void request_origin(struct sl_buf *out, const struct sl_podspec *p)
{
	const struct sl_runtimeclass *rc = p->runtime_class;
	bool ovh = rc && rc->overhead.n && !p->rc_conflict;
	if (!p->pod_level.n && !ovh)
		return;
	struct sl_buf t = SL_BUF_INIT;
	sl_res_describe(&t, &p->request);
	sl_buf_puts(&t, " (");
	if (p->pod_level.n) {
		sl_buf_puts(&t, "pod-level spec.resources: ");
		sl_res_describe(&t, &p->pod_level);
		sl_buf_puts(&t, ovh ? "; " : "");
	}
	if (ovh) {
		sl_buf_printf(&t, "overhead of RuntimeClass %s: ", rc->obj.name);
		sl_res_describe(&t, &rc->overhead);
	}
	sl_buf_puts(&t, p->pod_level.n < p->request.n ? "; the containers give the rest)" : ")");
	line_end(out, "  request ", sl_buf_str(&t));
	sl_buf_free(&t);
}

void sl_explain_text(struct sl_buf *out, const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w,
		     const struct sl_analysis *a)
{
	if (out->len)
		sl_buf_putc(out, '\n');
	header(w, a, out);
	char kv[192];
	sl_kube_describe(&m->kube, kv, sizeof kv);
	line_end(out, "\n  Kubernetes ", kv); /* it names a node, and quotes its kubeletVersion */
	/* The requests admission gave containers that state none (limitrange.h). */
	for (size_t i = 0; i < w->pod.ndefaulted; i++) {
		const struct sl_req_default *d = &w->pod.defaulted[i];
		sl_buf_puts(out, "  request ");
		sl_esc_puts(out, d->resource);
		sl_buf_puts(out, " ");
		sl_esc_puts(out, d->node->str);
		sl_buf_puts(out, " for each container without one: the default of LimitRange ");
		sl_esc_puts(out, d->from->namespace);
		sl_buf_putc(out, '/');
		sl_esc_puts(out, d->from->name);
		sl_buf_putc(out, '\n');
	}
	sl_quota_explain(m, w, out);
	request_origin(out, &w->pod);
	if (!a) {
		sl_buf_puts(out, "  no nodes known: give an inventory with --nodes (kubectl get nodes -o yaml)\n");
		return;
	}
	/* Names as shown, escaped: the column is as wide as the widest. */
	char **names = sl_xcalloc(a->nnodes, sizeof *names);
	size_t width = 4;
	for (size_t i = 0; i < a->nnodes; i++) {
		names[i] = sl_esc_dup(m->nodes[i]->name);
		if (strlen(names[i]) > width)
			width = strlen(names[i]);
	}
	if (!strcmp(w->obj.kind, "DaemonSet")) {
		sl_explain_daemonset_text(out, cl, w, a, names, width);
		goto done;
	}
	const char *col = a->sequential ? "placed" : "room";
	sl_buf_printf(out, "  %-*s  %6s  %5s  %s\n", (int)width, "node", col, "surge", "verdict for the first pod");
	struct sl_buf v = SL_BUF_INIT;
	for (size_t i = 0; i < a->nnodes; i++) {
		sl_buf_reset(&v);
		sl_explain_verdict(&a->fit[i], &v);
		char surge[24] = "-";
		if (a->sequential)
			snprintf(surge, sizeof surge, "%lld", (long long)a->surge_slots[i]);
		sl_buf_printf(out, "  %-*s  %6lld  %5s  %s\n", (int)width, names[i], (long long)a->slots[i], surge,
			      sl_buf_str(&v));
	}
	sl_buf_free(&v);
	totals(out, a, names, width);
	sl_explain_volumes_text(out, m, w);
	sl_explain_dra_text(out, m, cl, w);
	pools_text(out, m, w);
done:
	for (size_t i = 0; i < a->nnodes; i++)
		free(names[i]);
	free(names);
}

/* The totals under the table, each FailedScheduling text with the PostFilter's sentence and its
 * verdict node by node. */
static void totals(struct sl_buf *out, const struct sl_analysis *a, char **names, size_t width)
{
	sl_buf_printf(out, "  one pod: %zu of %zu node%s pass every filter", a->nfeasible, a->nnodes,
		      a->nnodes == 1 ? "" : "s");
	if (a->nexcluded)
		sl_buf_printf(out, " (%zu left out by PreFilter)", a->nexcluded);
	if (a->own_running)
		sl_buf_printf(out, " beside the %lld of its pods that run", (long long)a->own_running);
	sl_buf_puts(out, sl_fit_error(a) ? ": " : "\n");
	if (sl_fit_error(a)) {
		failed_scheduling(out, "", a, SL_STOP_FIT);
		preempt_lines(out, a, SL_STOP_FIT, names, width);
	}
	if (a->own_running)
		sl_buf_printf(out, "  already running: %lld of its pods\n", (long long)a->own_running);
	if (a->sequential)
		sl_buf_printf(out,
			      "  at once: %lld of %lld replicas, placed one after another as the scheduler would%s\n",
			      (long long)a->steady_placed, (long long)a->replicas,
			      a->order_dependent ? " (another order places more)" : "");
	else
		sl_buf_printf(out, "  at once: room for %lld pod%s; %lld of %lld replicas placed\n",
			      (long long)a->total_slots, a->total_slots == 1 ? "" : "s", (long long)a->steady_placed,
			      (long long)a->replicas);
	if (sl_steady_fit_error(a)) {
		failed_scheduling(out, "  the next pod: ", a, SL_STOP_STEADY);
		/* no pod placed: the next pod is the first, whose verdicts are above */
		if (a->steady_placed || !sl_fit_error(a))
			preempt_lines(out, a, SL_STOP_STEADY, names, width);
	}
	placed_by_preemption(out, a, names);
	if (a->strategy == SL_STRATEGY_ROLLING && a->max_surge == 0)
		sl_buf_printf(out, "  with the surge: none (maxSurge 0)%s\n",
			      a->rollout_deadlock ? "; the rollout can never finish" : "");
	else if (a->strategy == SL_STRATEGY_ROLLING) {
		sl_buf_printf(out, "  with the surge: %lld of %lld new pod%s fit beside them (%lld at once)%s\n",
			      (long long)a->surge_placed, (long long)a->max_surge, a->max_surge == 1 ? "" : "s",
			      (long long)(a->steady_placed + a->surge_placed),
			      a->rollout_deadlock ? "; the rollout can never finish" : "");
		/* Some surge pods fit but not all: the one that does not is the next one, and the rollout
		 * goes on with fewer at once (the Deployment controller scales an old pod down as soon as
		 * a new one is Ready, rolling.go scaleDownOldReplicaSetsForRollingUpdate). */
		bool some = a->surge_placed > 0 && a->surge_placed < a->max_surge;
		if (sl_rollout_fit_error(a)) {
			failed_scheduling(out, some ? "  the next surge pod: " : "  the surge pod: ", a,
					  SL_STOP_ROLLOUT);
			preempt_lines(out, a, SL_STOP_ROLLOUT, names, width);
		}
		if (some && !a->rollout_deadlock)
			sl_buf_puts(out,
				    "  the rollout goes on: each new pod that is Ready lets an old one go, and its "
				    "room takes the next\n");
	}
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static const char *const verdict_word[] = {
    [SL_PN_NOT_HELPFUL] = "not_helpful", [SL_PN_NO_VICTIMS] = "no_victims", [SL_PN_FAILS] = "fails",
    [SL_PN_CANDIDATE] = "victims",       [SL_PN_UNKNOWN] = "not_checked",
};

/* The PostFilter where the placement stops at which: its sentence and its verdict node by node
 * (null where there is no such stop). */
static cJSON *preemption_json(const struct sl_model *m, const struct sl_analysis *a, enum sl_stop which)
{
	struct sl_preempt_view v;
	sl_preempt_view(a, which, &v);
	if (!v.evaluated)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "eligible", v.eligible);
	cJSON_AddItemToObject(o, "message", str_or_null(sl_postfilter(a, which, NULL)));
	cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
	for (size_t i = 0; v.nodes && i < v.n; i++) {
		const struct sl_preempt_view_node *pn = &v.nodes[i];
		cJSON *n = cJSON_CreateObject();
		cJSON_AddStringToObject(n, "name", m->nodes[i]->name);
		cJSON_AddStringToObject(n, "verdict", verdict_word[pn->verdict]);
		if (pn->verdict == SL_PN_NOT_HELPFUL || pn->verdict == SL_PN_FAILS) {
			cJSON_AddStringToObject(n, "plugin", sl_plugin_name(pn->why.plugin));
			cJSON *rs = cJSON_AddArrayToObject(n, "reasons");
			for (size_t r = 0; r < pn->why.nreasons; r++)
				cJSON_AddItemToArray(rs, cJSON_CreateString(pn->why.reasons[r]));
		}
		if (pn->verdict == SL_PN_CANDIDATE) {
			cJSON *vs = cJSON_AddArrayToObject(n, "victims");
			for (size_t k = 0; k < pn->victims.nvictims; k++) {
				const struct sl_pod *p = pn->victims.victims[k];
				const struct sl_pdb *d = pn->victims.broken[k];
				cJSON *vo = cJSON_CreateObject();
				cJSON_AddStringToObject(vo, "namespace", p->obj.namespace);
				cJSON_AddStringToObject(vo, "name", p->obj.name);
				cJSON_AddNumberToObject(vo, "priority", (double)p->spec.priority);
				if (d) {
					char ref[512];
					snprintf(ref, sizeof ref, "%s/%s", d->obj.namespace, d->obj.name);
					cJSON_AddStringToObject(vo, "breaks_budget", ref);
				}
				cJSON_AddItemToArray(vs, vo);
			}
			cJSON_AddBoolToObject(n, "nominated", pn->nominated);
		}
		cJSON_AddItemToArray(nodes, n);
	}
	sl_preempt_view_free(&v);
	return o;
}

cJSON *sl_explain_json(const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w,
		       const struct sl_analysis *a)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *id = cJSON_AddObjectToObject(o, "workload");
	cJSON_AddStringToObject(id, "kind", w->obj.kind);
	cJSON_AddStringToObject(id, "namespace", w->obj.namespace);
	cJSON_AddStringToObject(id, "name", w->obj.name ? w->obj.name : "");
	cJSON_AddStringToObject(id, "file", w->obj.src ? w->obj.src->path : "-");
	char kv[192];
	sl_kube_describe(&m->kube, kv, sizeof kv);
	cJSON *k = cJSON_AddObjectToObject(o, "kubernetes");
	char minor[16];
	snprintf(minor, sizeof minor, "1.%d", m->kube.minor);
	cJSON_AddStringToObject(k, "version", minor);
	static const char *const from[] = {"default", "option", "config", "nodes"};
	cJSON_AddStringToObject(k, "from", from[m->kube.from]);
	cJSON_AddStringToObject(k, "text", kv);
	if (!a) {
		cJSON_AddNullToObject(o, "nodes");
		return o;
	}
	cJSON_AddNumberToObject(o, "replicas", (double)a->replicas); /* a Job's: its pods at once */
	if (sl_wbatch(w)->is) {
		cJSON *b = cJSON_AddObjectToObject(o, "batch");
		cJSON_AddNumberToObject(b, "parallelism", (double)sl_wbatch(w)->parallelism);
		if (sl_wbatch(w)->completions < 0) /* a work queue */
			cJSON_AddNullToObject(b, "completions");
		else
			cJSON_AddNumberToObject(b, "completions", (double)sl_wbatch(w)->completions);
		cJSON_AddNumberToObject(b, "pods_at_once", (double)a->replicas);
		cJSON_AddNumberToObject(b, "pods_in_all", (double)sl_wbatch(w)->total);
	}
	if (!strcmp(w->obj.kind, "DaemonSet"))
		sl_explain_daemonset_json(o, m, cl, w, a);
	cJSON_AddBoolToObject(o, "sequential", a->sequential);
	cJSON *nodes = cJSON_AddArrayToObject(o, "nodes");
	for (size_t i = 0; i < a->nnodes; i++) {
		const struct sl_nodefit *f = &a->fit[i];
		cJSON *n = cJSON_CreateObject();
		cJSON_AddStringToObject(n, "name", m->nodes[i]->name);
		cJSON_AddBoolToObject(n, "passes", f->plugin == SL_FITS);
		if (f->plugin != SL_FITS)
			cJSON_AddStringToObject(n, "plugin", sl_plugin_name(f->plugin));
		cJSON *rs = cJSON_AddArrayToObject(n, "reasons");
		for (size_t r = 0; r < f->nreasons; r++)
			cJSON_AddItemToArray(rs, cJSON_CreateString(f->reasons[r]));
		cJSON_AddBoolToObject(n, "excluded_by_prefilter", f->excluded);
		cJSON_AddNumberToObject(n, a->sequential ? "placed" : "room", (double)a->slots[i]);
		if (a->sequential)
			cJSON_AddNumberToObject(n, "surge_placed", (double)a->surge_slots[i]);
		if (a->slot_limit[i])
			cJSON_AddStringToObject(n, "limited_by", a->slot_limit[i]);
		cJSON_AddItemToArray(nodes, n);
	}
	cJSON_AddNumberToObject(o, "feasible_nodes", (double)a->nfeasible);
	cJSON_AddItemToObject(o, "fit_error", str_or_null(sl_fit_error(a)));
	cJSON_AddItemToObject(o, "preemption", preemption_json(m, a, SL_STOP_FIT));
	cJSON_AddNumberToObject(o, "own_running", (double)a->own_running);
	if (!a->sequential)
		cJSON_AddNumberToObject(o, "room", (double)a->total_slots);
	cJSON_AddNumberToObject(o, "steady_state_placed", (double)a->steady_placed);
	cJSON_AddItemToObject(o, "steady_state_fit_error", str_or_null(sl_steady_fit_error(a)));
	cJSON_AddItemToObject(o, "steady_state_preemption", preemption_json(m, a, SL_STOP_STEADY));
	cJSON_AddBoolToObject(o, "order_dependent", a->order_dependent);
	if (a->strategy == SL_STRATEGY_ROLLING) {
		cJSON_AddNumberToObject(o, "max_surge", (double)a->max_surge);
		cJSON_AddNumberToObject(o, "max_unavailable", (double)a->max_unavailable);
		cJSON_AddNumberToObject(o, "surge_placed", (double)a->surge_placed);
		cJSON_AddNumberToObject(o, "with_surge", (double)(a->steady_placed + a->surge_placed));
		cJSON_AddItemToObject(o, "rollout_fit_error", str_or_null(sl_rollout_fit_error(a)));
		cJSON_AddItemToObject(o, "rollout_preemption", preemption_json(m, a, SL_STOP_ROLLOUT));
		cJSON_AddBoolToObject(o, "rollout_deadlock", a->rollout_deadlock);
	}
	sl_explain_volumes_json(o, m, w);
	sl_explain_dra_json(o, m, cl, w);
	pools_json(o, m, w);
	return o;
}
