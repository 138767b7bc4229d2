/* pdb-blocks-eviction — a PodDisruptionBudget that never allows a voluntary disruption.
 *
 * The disruption controller (pkg/controller/disruption, getExpectedPodCount) computes
 * desiredHealthy from the budget: minAvailable as an integer, or as a percentage of the
 * controllers' scale rounded up (intstr.GetScaledValueFromIntOrPercent, roundUp = true);
 * maxUnavailable as the scale minus the percentage of it, rounded up as well. disruptionsAllowed
 * is currentHealthy - desiredHealthy, so with every pod healthy it is replicas - desiredHealthy.
 * When that is 0 every eviction gets 429 Too Many Requests: `kubectl drain` retries forever, the
 * descheduler and the cluster-autoscaler leave the node alone. Separately, the eviction
 * subresource refuses outright a pod that more than one budget selects. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "../linter/model/kversion.h"
#include "edits.h"
#include "rules.h"

/* Of the budgets that select the workload's pods (w->pdbs), one the eviction subresource
 * consults. An empty selector is left out: the eviction path and the controller have disagreed
 * on whether it selects everything or nothing across releases. */
static bool consulted(const struct sl_pdb *p)
{
	return p->sel.nreqs > 0;
}

/* The loader refuses what ValidatePodDisruptionBudgetSpec refuses (both set, negatives, signed
 * or over-100% percentages); a budget with neither value set makes no claim checked here. */
static bool valid_budget(const struct sl_pdb *p)
{
	return p->min_available.set != p->max_unavailable.set;
}

/* ceil(pct * total / 100), as GetScaledValueFromIntOrPercent computes it in float64 (exact for
 * these magnitudes). */
static int64_t pct_up(int64_t pct, int64_t total)
{
	int64_t x = pct * total;
	return x <= 0 ? 0 : (x + 99) / 100;
}

/* disruptionsAllowed with `total` pods, all healthy. */
static int64_t allowed(const struct sl_pdb *p, int64_t total)
{
	int64_t desired;
	if (p->max_unavailable.set) {
		const struct sl_intpct *m = &p->max_unavailable;
		int64_t mu = m->percent ? pct_up(m->v, total) : m->v;
		desired = total - mu < 0 ? 0 : total - mu;
	} else {
		const struct sl_intpct *m = &p->min_available;
		desired = m->percent ? pct_up(m->v, total) : m->v;
	}
	int64_t a = total - desired;
	return total <= 0 || a < 0 ? 0 : a;
}

/* The fix that always allows one disruption: maxUnavailable: 1. */
static void offer_max_unavailable_1(struct sl_finding *f, const struct sl_pdb *p)
{
	const struct sl_source *src = p->obj.src;
	const struct sl_intpct *v = p->max_unavailable.set ? &p->max_unavailable : &p->min_available;
	struct sl_fix *fx = sl_fix_new(f, "Use maxUnavailable: 1 (one pod may be evicted at a time)");
	if (p->max_unavailable.set)
		sl_fix_replace(fx, src, v->node, "1");
	else {
		/* Rewrite the whole entry, key included: `minAvailable: 2` becomes `maxUnavailable: 1`. */
		const struct sl_ynode *spec = sl_ymap_get(p->obj.root, "spec");
		const struct sl_ynode *key = sl_ymap_key(spec, "minAvailable");
		const char *d = sl_source_text(src); /* NULL: the fix goes (sl_source_text) */
		bool json = key && d && d[key->at.off] == '"';
		if (key)
			sl_fix_edit(fx, src, key->at.off, v->node->at.end,
				    json ? "\"maxUnavailable\": 1" : "maxUnavailable: 1");
	}
}

/* Whether the budget allows no disruption at any scale: maxUnavailable 0 (or 0%), minAvailable
 * 100%. Judged on the budget alone, with or without its workloads among the inputs. */
static bool any_scale(const struct sl_pdb *p)
{
	const struct sl_intpct *v = p->max_unavailable.set ? &p->max_unavailable : &p->min_available;
	return p->max_unavailable.set ? v->v == 0 : v->percent && v->v >= 100;
}

/* A blocking budget is unmet as soon as one pod is not Ready, and under the default policy
 * (IfHealthyBudget) a pod that is not Ready may be evicted only while the budget is met
 * (pkg/registry/core/pod/storage/eviction.go): the drain then waits on the broken pods too. */
static void note_unhealthy_policy(struct sl_finding *f, const struct sl_pdb *p, int minor)
{
	if (minor < SL_KUBE_PDB_UNHEALTHY_POLICY)
		return; /* the field is dropped (a warning at it says so) */
	if (p->unhealthy_policy && sl_yis(p->unhealthy_policy, "AlwaysAllow"))
		return;
	sl_note(f,
		"unhealthyPodEvictionPolicy is %s: with a pod not Ready the budget is unmet, and then not even "
		"the pods that are not Ready may be evicted; AlwaysAllow lets a drain evict those (policy/v1, on by "
		"default since Kubernetes 1.27)",
		p->unhealthy_policy ? "IfHealthyBudget" : "unset (IfHealthyBudget)");
}

/* Every blocking finding says so: the budget bites on drains, not on rollouts, which is why it goes
 * unnoticed until the first drain. */
static void note_rollout(struct sl_finding *f)
{
	sl_note(f, "a rollout is not slowed by the budget (controllers delete pods directly, not through the eviction "
		   "API); node drains, descheduling and scale-down are");
}

/* The workload a budget's finding is about, as a related location. */
static void relate_selected(struct sl_finding *f, const struct sl_workload *w, const char *ref)
{
	sl_add_related(f, &(w->obj.kind_node ? w->obj.kind_node : w->obj.root)->at, "%s, selected by the budget", ref);
}

/* A budget judged against the workloads it selects: at which pod count, and — when the manifest
 * does not fix that count — why the verdict depends on it (the finding is then a warning). */
struct blocking {
	const struct sl_hpa *h; /* the autoscaler that sets replicas, or NULL */
	int64_t total;          /* the pods judged: the input's, or the autoscaler's smallest size */
	const char *depends;    /* why the verdict depends on the count, or NULL */
	char dep[256];          /* depends, when written here */
	char sizes[160];        /* "with all 2 pods healthy", "at 2 replicas (…)" */
};

/* spec.replicas is the autoscaler's to set: judge every size it may choose. Blocked at none: no
 * finding. Blocked at every size: judged at its minimum. Blocked at the smaller sizes only: the
 * verdict depends on the size, and the first one that allows an eviction is named. */
static bool judge_autoscaled(const struct sl_pdb *p, struct blocking *b)
{
	const struct sl_hpa *h = b->h;
	int64_t lo = h->min < 1 ? 1 : h->min, hi = h->max < lo + 100000 ? h->max : lo + 100000;
	int64_t blocked = 0, first_free = -1;
	for (int64_t r = lo; r <= hi; r++) {
		if (allowed(p, r) == 0)
			blocked++;
		else if (first_free < 0)
			first_free = r;
	}
	if (!blocked)
		return false;
	b->total = lo;
	if (first_free >= 0) {
		snprintf(b->dep, sizeof b->dep,
			 "its %s scales it between %lld and %lld replicas: evictions are blocked while it runs "
			 "fewer than %lld",
			 h->what, (long long)h->min, (long long)h->max, (long long)first_free);
		b->depends = b->dep;
		snprintf(b->sizes, sizeof b->sizes, "at %lld replica%s (its %s's minimum%s)", (long long)lo,
			 lo == 1 ? "" : "s", h->what, h->min < lo ? " above 0" : "");
	} else
		snprintf(b->sizes, sizeof b->sizes, "at every size its %s allows (%lld to %lld)", h->what,
			 (long long)h->min, (long long)h->max);
	return true;
}

/* Whether the budget leaves disruptionsAllowed at 0 for the workload's pods, all healthy: at the
 * input's count, or at the sizes its autoscaler may choose (docs: "Error or warning"). */
static bool judge_blocking(const struct sl_workload *w, const struct sl_pdb *p, struct blocking *b)
{
	b->h = p->nselected == 1 ? w->hpa : NULL;
	b->total = p->total;
	b->depends = NULL;
	b->sizes[0] = '\0';
	if (b->h) {
		if (!judge_autoscaled(p, b))
			return false;
	} else {
		if (allowed(p, b->total) > 0)
			return false;
		if (!w->replicas_node && p->nselected == 1 && !p->bare)
			b->depends =
			    "replicas is not written: the API server defaults it to 1, unless an autoscaler sets it";
	}
	if (!*b->sizes)
		snprintf(b->sizes, sizeof b->sizes,
			 b->total == 1 ? "with its one pod healthy" : "with all %lld pods healthy",
			 (long long)b->total);
	return true;
}

/* The finding, at the budget's value: what blocks, for which workload, at which count. A verdict
 * that depends on the replica count is a warning, and its first note says on what. */
static struct sl_finding *report_verdict(const struct sl_rule *self, struct sl_check *cx, const struct sl_pdb *p,
					 const char *ref, const struct blocking *b)
{
	const struct sl_intpct *v = p->max_unavailable.set ? &p->max_unavailable : &p->min_available;
	const char *field = p->max_unavailable.set ? "maxUnavailable" : "minAvailable";
	char vs[32], pref[512];
	sl_intpct_format(v, vs, sizeof vs);
	sl_object_ref(&p->obj, pref, sizeof pref);
	struct sl_finding *f =
	    sl_rule_report(self, cx, v->node,
			   "%s %s %s allows no disruption of %s: disruptionsAllowed is 0 %s, so `kubectl drain`, the "
			   "descheduler and the cluster-autoscaler can never evict its pods",
			   pref, field, vs, ref, b->sizes);
	if (b->depends && f->level == SL_ERROR)
		f->level = SL_WARNING;
	if (b->depends)
		sl_note(f, "this depends on the replica count: %s", b->depends);
	return f;
}

/* Where the pod count comes from: every workload the budget selects, the autoscaler, the bare
 * Pod, or replicas (written or defaulted). */
static void note_count(struct sl_finding *f, const struct sl_workload *w, const struct sl_pdb *p,
		       const struct blocking *b, const char *ref)
{
	const struct sl_hpa *h = b->h;
	if (p->nselected > 1)
		sl_note(f,
			"the budget selects %zu workloads of the input, %lld pods in all (pods outside the input "
			"would count too)",
			p->nselected, (long long)b->total);
	else if (h && w->replicas_node)
		sl_note(f, "its %s sets replicas between %lld and %lld (spec.replicas %lld is overridden)", h->what,
			(long long)h->min, (long long)h->max, (long long)w->replicas);
	else if (h)
		sl_note(f, "its %s sets replicas between %lld and %lld", h->what, (long long)h->min, (long long)h->max);
	else if (p->bare)
		sl_note(f, "%s is a bare Pod: one pod", ref);
	else
		sl_note(f, "replicas %lld%s", (long long)w->replicas, w->replicas_node ? "" : " (defaulted)");
}

/* desiredHealthy worked out at the judged count, one row of the docs' table: the reader checks
 * the rounding of a percentage here. */
static void note_arithmetic(struct sl_finding *f, const struct sl_pdb *p, int64_t total)
{
	const struct sl_intpct *v = p->max_unavailable.set ? &p->max_unavailable : &p->min_available;
	char vs[32];
	sl_intpct_format(v, vs, sizeof vs);
	if (p->max_unavailable.set)
		sl_note(f, "maxUnavailable %s: desiredHealthy = %lld - %s = %lld, so no pod may be down", vs,
			(long long)total, vs, (long long)total);
	else if (v->percent)
		sl_note(f,
			"minAvailable %s of %lld pod%s is %lld, rounded up as the disruption controller rounds it: "
			"disruptionsAllowed = max(0, %lld - %lld) = 0",
			vs, (long long)total, total == 1 ? "" : "s", (long long)pct_up(v->v, total), (long long)total,
			(long long)pct_up(v->v, total));
	else
		sl_note(f, "minAvailable %s >= %lld pod%s: disruptionsAllowed = max(0, %lld - %s) = 0", vs,
			(long long)total, total == 1 ? "" : "s", (long long)total, vs);
}

/* maxUnavailable and percentages take the controllers' scale, and a bare Pod has none: the
 * controller expects 0 pods and allows 0 disruptions, so neither is a fix, and none is offered. */
static void note_bare_pod_fix(struct sl_finding *f, const struct sl_workload *w, const char *ref)
{
	sl_note(f, "fix: run the pod under a controller (a Deployment, with replicas >= 2 to stay up during a "
		   "drain) and budget that, or delete the budget; for a bare Pod maxUnavailable and percentages "
		   "block too (the disruption controller expects 0 pods without a controller's scale)");
	relate_selected(f, w, ref);
}

/* The fix note, the places a reader follows (workload, replicas, selector, autoscaler), and the
 * fixes: maxUnavailable: 1 always; an integer minAvailable lowered to r - 1 from two pods up. With
 * one replica a drain means downtime, and the note says what to raise to keep the pod up. */
static void suggest_fixes(struct sl_finding *f, const struct sl_workload *w, const struct sl_pdb *p,
			  const struct blocking *b, const char *ref)
{
	const struct sl_hpa *h = b->h;
	int64_t total = b->total;
	const char *keep_up =
	    total != 1 ? ""
	    : h        ? "; with one replica that means downtime during a drain, so raise the autoscaler's "
			 "minimum to keep it up"
		       : "; with one replica that means downtime during a drain, so raise replicas to keep it up";
	sl_note(f, "fix: maxUnavailable: 1 (one pod may be evicted at a time)%s", keep_up);
	relate_selected(f, w, ref);
	if (w->replicas_node)
		sl_add_related(f, &w->replicas_node->at, "replicas %lld", (long long)w->replicas);
	if (p->sel.node)
		sl_add_related(f, &p->sel.node->at, "the budget's selector");
	if (h)
		sl_add_related(f, &h->ref->at, "the %s that scales it", h->what);

	offer_max_unavailable_1(f, p);
	if (!p->max_unavailable.set && !p->min_available.percent && total >= 2) {
		char n[32], d[96];
		snprintf(n, sizeof n, "%lld", (long long)(total - 1));
		snprintf(d, sizeof d, "Lower minAvailable to %lld (one pod may be evicted at a time)",
			 (long long)(total - 1));
		sl_fix_replace(sl_fix_new(f, d), p->obj.src, p->min_available.node, n);
	}
}

/* A budget that leaves disruptionsAllowed at 0 for this workload's pods at the count they run at.
 * A budget that blocks at every scale is reported once, on itself (check_budgets). */
static void report_blocking(const struct sl_rule *self, struct sl_check *cx, const struct sl_pdb *p, const char *ref)
{
	if (!p->countable || p->total <= 0 || any_scale(p))
		return;
	struct blocking b;
	if (!judge_blocking(cx->w, p, &b))
		return;
	struct sl_finding *f = report_verdict(self, cx, p, ref, &b);
	note_count(f, cx->w, p, &b, ref);
	note_arithmetic(f, p, b.total);
	note_rollout(f);
	if (p->bare) {
		note_bare_pod_fix(f, cx->w, ref);
		return;
	}
	note_unhealthy_policy(f, p, cx->model->kube.minor);
	suggest_fixes(f, cx->w, p, &b, ref);
}

/* Two or more budgets select the same pods: the eviction subresource refuses every eviction,
 * whatever their values. Reported at the first budget, with every one of them related. */
static void report_shared_pods(const struct sl_rule *self, struct sl_check *cx, const struct sl_pdb *first, size_t n,
			       const char *ref)
{
	const struct sl_workload *w = cx->w;
	char fref[512];
	sl_object_ref(&first->obj, fref, sizeof fref);
	struct sl_finding *f = sl_rule_report(
	    self, cx, first->sel.node ? first->sel.node : first->obj.kind_node,
	    "%zu PodDisruptionBudgets select the pods of %s: the eviction API refuses every eviction of them "
	    "(\"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.\")",
	    n, ref);
	sl_note(f, "the refusal does not depend on the budgets' values: `kubectl drain`, the descheduler and the "
		   "cluster-autoscaler can never evict these pods");
	sl_note(f, "fix: keep one budget for these pods; narrow or delete the others");
	sl_related_reserve(f, n + 1); /* each budget and the workload: hundreds, in some charts */
	for (size_t i = 0; i < w->npdbs; i++) {
		const struct sl_pdb *p = w->pdbs[i];
		if (!consulted(p))
			continue;
		char pr[512];
		sl_object_ref(&p->obj, pr, sizeof pr);
		sl_add_related(f, &(p->sel.node ? p->sel.node : p->obj.kind_node)->at, "%s selects them", pr);
	}
	sl_add_related(f, &(w->obj.kind_node ? w->obj.kind_node : w->obj.root)->at, "%s", ref);
}

/* Per workload: each budget the eviction API consults that blocks it, then whether more than one
 * budget selects its pods. */
static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	if (!sl_scaled_kind(w->obj.kind) && strcmp(w->obj.kind, "Pod"))
		return;
	if (w->replicas <= 0 || !w->npdbs)
		return;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	const struct sl_pdb *first = NULL;
	size_t n = 0;
	for (size_t i = 0; i < w->npdbs; i++) {
		const struct sl_pdb *p = w->pdbs[i];
		if (!consulted(p))
			continue;
		n++;
		if (!first)
			first = p;
		/* Neither field (a budget that only reports) is left alone here. */
		if (valid_budget(p))
			report_blocking(self, cx, p, ref);
	}
	if (n >= 2)
		report_shared_pods(self, cx, first, n, ref);
}

/* A budget's place in the model's list, found by its address. */
struct pdb_slot {
	const struct sl_pdb *p;
	size_t i;
};

static int cmp_slot(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct pdb_slot *)a)->p, y = (uintptr_t)((const struct pdb_slot *)b)->p;
	return x < y ? -1 : x > y;
}

/* A budget that allows no disruption at any scale, on the budget itself. Returns the finding's
 * index in cx->out. */
static size_t report_any_scale(const struct sl_rule *self, struct sl_model_check *cx, const struct sl_pdb *p)
{
	const struct sl_intpct *v = p->max_unavailable.set ? &p->max_unavailable : &p->min_available;
	const char *field = p->max_unavailable.set ? "maxUnavailable" : "minAvailable";
	char vs[32], pref[512];
	sl_intpct_format(v, vs, sizeof vs);
	sl_object_ref(&p->obj, pref, sizeof pref);
	struct sl_finding *f = sl_rule_report_object(
	    self, cx, &p->obj, v->node,
	    "%s %s %s allows no disruption at any scale: disruptionsAllowed stays 0 however many pods it selects, so "
	    "`kubectl drain`, the descheduler and the cluster-autoscaler can never evict them",
	    pref, field, vs);
	if (p->max_unavailable.set)
		sl_note(f, "maxUnavailable %s: desiredHealthy is every pod the budget selects, so no pod may be down",
			vs);
	else
		sl_note(f, "minAvailable %s: desiredHealthy is all of the pods (rounded up), so no pod may be down",
			vs);
	if (p->nselected)
		sl_note(f, "it selects %zu workload%s of the input, %lld pod%s in all", p->nselected,
			p->nselected == 1 ? "" : "s", (long long)p->total, p->total == 1 ? "" : "s");
	else
		sl_note(f, "it selects no workload of the input: it blocks whatever pods it selects in the cluster");
	note_rollout(f);
	note_unhealthy_policy(f, p, cx->model->kube.minor);
	sl_note(f, "fix: maxUnavailable: 1 (one pod may be evicted at a time)");
	if (p->sel.node)
		sl_add_related(f, &p->sel.node->at, "the budget's selector");
	offer_max_unavailable_1(f, p);
	return (size_t)(f - cx->out->v);
}

/* A budget whose selector selects no workload of the input: not a defect, but worth a word. */
static void note_selects_nothing(const struct sl_rule *self, struct sl_model_check *cx, const struct sl_pdb *p)
{
	char pref[512];
	sl_object_ref(&p->obj, pref, sizeof pref);
	struct sl_finding *f =
	    sl_rule_report_object(self, cx, &p->obj, p->sel.node,
				  "%s selects no workload of the input; it may select pods created elsewhere", pref);
	f->level = SL_NOTE;
	sl_note(f, "its selector is matched against the pod templates of the workloads in namespace %s",
		p->obj.namespace);
}

/* Budgets judged on themselves, once per target: those that block at every scale (with or
 * without their workloads among the inputs) and those that select nothing. Related locations point at the workloads
 * each selects (an index by address, built once: no scan of the workloads per budget). */
static void check_budgets(const struct sl_rule *self, struct sl_model_check *cx)
{
	const struct sl_model *m = cx->model;
	size_t *at = sl_xcalloc(m->npdbs + 1, sizeof *at);
	struct pdb_slot *slots = sl_xcalloc(m->npdbs + 1, sizeof *slots);
	for (size_t i = 0; i < m->npdbs; i++) {
		const struct sl_pdb *p = m->pdbs[i];
		slots[i] = (struct pdb_slot){p, i};
		at[i] = (size_t)-1;
		if (!consulted(p) || !valid_budget(p))
			continue;
		if (any_scale(p))
			at[i] = report_any_scale(self, cx, p);
		else if (!p->nselected)
			note_selects_nothing(self, cx, p);
	}
	qsort(slots, m->npdbs, sizeof *slots, cmp_slot);
	for (size_t k = 0; k < m->nworkloads; k++) {
		const struct sl_workload *w = m->workloads[k];
		for (size_t j = 0; j < w->npdbs; j++) {
			struct pdb_slot key = {w->pdbs[j], 0};
			const struct pdb_slot *s = bsearch(&key, slots, m->npdbs, sizeof *slots, cmp_slot);
			if (!s || at[s->i] == (size_t)-1)
				continue;
			char ref[512];
			sl_object_ref(&w->obj, ref, sizeof ref);
			relate_selected(&cx->out->v[at[s->i]], w, ref);
		}
	}
	free(slots);
	free(at);
}

const struct sl_rule sl_rule_pdb_blocks_eviction = {
    .id = "pdb-blocks-eviction",
    .name = "DisruptionBudgetBlocksEviction",
    .summary = "A PodDisruptionBudget that allows 0 disruptions for its workload: drains and descheduling hang.",
    .description =
	"A PodDisruptionBudget in the workload's namespace selects its pods, and resolved as the disruption "
	"controller resolves it (percentages of the replica count rounded up) it leaves disruptionsAllowed at 0 "
	"even when every pod is healthy: minAvailable at or above replicas, minAvailable 100%, or maxUnavailable "
	"0. Every eviction is refused, so `kubectl drain` never finishes and the cluster-autoscaler and "
	"descheduler cannot move the pods. Two or more budgets selecting the same pods make the eviction API "
	"refuse every eviction of them.",
    .help = "Allow at least one disruption: `maxUnavailable: 1`, or `minAvailable` below `replicas` (for a "
	    "percentage, low enough that rounding up stays below `replicas`). Keep one budget per set of pods.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
    .check_model = check_budgets,
};
