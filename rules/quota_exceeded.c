/* quota-exceeded — a namespace's ResourceQuota admits fewer pods than a workload asks for, or not
 * the surge pod of its rolling update.
 *
 * The quota admission plugin (plugin/pkg/admission/resourcequota) refuses a pod whose usage, as
 * the pod evaluator counts it (pkg/quota/v1/evaluator/core/pods.go, quota.h), would take a
 * quota's used amount above hard, for every quota of the namespace whose scopes select the pod.
 * A controller's creation then fails ("exceeded quota") and it tries again later, so pods beyond
 * the quota are never created; a Deployment whose maxUnavailable resolves to 0 removes no old
 * pod before a new one is Ready, so with room for exactly its replicas its rollout never
 * finishes (the seed's deadlock, with a quota in place of a node).
 *
 * The workloads of a namespace share its quota: taken in input order, each gets what the ones
 * before it leave, and the one that crosses hard is reported. What already runs is the quota's
 * status.used (the cluster's own copy) less the run's own running pods, or the running pods
 * (--pods) outside the run's workloads; without either, only the run's workloads count (a note).
 * status.used without the running pods may or may not count the run's own pods: the verdict that
 * holds either way is an error, the one that holds only if it does not is a warning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/model/quantity.h"
#include "edits.h"
#include "rules.h"

/* One workload as the quotas see it. */
struct qw {
	const struct sl_workload *w;
	struct sl_qpod pod;
	int64_t pods; /* its pods at once; 0: not judged (a DaemonSet's depend on the nodes) */
	bool reported;
};

/* Where the used amount of one quota entry comes from. */
enum qsrc { Q_NONE, Q_STATUS, Q_STATUS_PODS, Q_PODS };

/* One hard entry of a quota, and what others (not the run's workloads) use of it: lo at least,
 * hi at most (equal unless status.used may or may not count the run's own pods). */
struct qline {
	const struct sl_quota *q;
	const struct sl_qitem *it;
	enum qsrc src;
	int64_t used, own, lo, hi;
};

/* An object's place in an index ordered by namespace, then input order. */
struct nsidx {
	const char *ns;
	size_t i;
};

struct qctx {
	const struct sl_rule *self;
	struct sl_model_check *cx;
	struct qw *v;
	size_t n;
	struct sl_qpod *running; /* per running pod */
	bool *own;               /* per running pod: one of the run's workloads' */
	/* The workloads and the running pods by namespace: a quota reads its namespace's alone (every
	 * quota scanning every workload and pod grew with the square of a monorepo). */
	struct nsidx *wns, *pns;
};

static int by_ns(const void *a, const void *b)
{
	const struct nsidx *x = a, *y = b;
	int d = strcmp(x->ns, y->ns);
	return d ? d : (x->i > y->i) - (x->i < y->i);
}

/* The entries [*lo, *hi) of v (n, ordered by by_ns) in namespace ns. */
static void ns_range(const struct nsidx *v, size_t n, const char *ns, size_t *lo, size_t *hi)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t mid = a + (b - a) / 2;
		if (strcmp(v[mid].ns, ns) < 0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	for (b = a; b < n && !strcmp(v[b].ns, ns); b++)
		;
	*hi = b;
}

/* What one pod (or, for count/<resource>, the object) of x charges to it; -1: nothing it counts. */
static int64_t per_unit(const struct qw *x, const struct sl_qitem *it, bool *object)
{
	*object = sl_quota_counts_object(it->name, x->w);
	if (*object)
		return 1;
	return x->pods ? sl_qpod_usage(&x->pod, it->name) : -1;
}

static int64_t units_of(const struct qw *x, bool object)
{
	return object ? 1 : x->pods;
}

/* Whether quota q applies to x's pods and charges them for it; x is of q's namespace (its
 * callers walk that namespace's range, ns_range). */
static bool charged(const struct qw *x, const struct sl_quota *q, const struct sl_qitem *it, int64_t *per, bool *object)
{
	if (!sl_quota_selects(q, &x->pod))
		return false;
	*per = per_unit(x, it, object);
	/* An object count's evaluator matches no scope: a scoped quota counts pods only. */
	return *per > 0 && !(*object && q->nscopes);
}

/* A quota named twice: the manifests' description holds over the cluster's copy (it is what will
 * be applied), else the later one; the cluster's copy still tells what is used (used_item). */
static bool superseded(const struct sl_model *m, size_t i)
{
	const struct sl_quota *q = m->quotas[i];
	for (size_t j = 0; j < m->nquotas; j++) {
		const struct sl_quota *o = m->quotas[j];
		if (j == i || strcmp(o->obj.name, q->obj.name) || strcmp(o->obj.namespace, q->obj.namespace))
			continue;
		if (o->inventory != q->inventory ? q->inventory : j > i)
			return true;
	}
	return false;
}

static const struct sl_qitem *used_item(const struct sl_model *m, const struct sl_quota *q, const char *name)
{
	for (size_t i = 0; i < m->nquotas; i++) {
		const struct sl_quota *o = m->quotas[i];
		if (strcmp(o->obj.name, q->obj.name) || strcmp(o->obj.namespace, q->obj.namespace))
			continue;
		for (size_t j = 0; j < o->nitems; j++)
			if (o->items[j].has_used && !strcmp(o->items[j].name, name))
				return &o->items[j];
	}
	return NULL;
}

/* What the running pods of q's namespace that it selects use of it: the run's own, or the others. */
static int64_t running_use(const struct qctx *x, const struct sl_quota *q, const char *name, bool own)
{
	const struct sl_model *m = x->cx->model;
	int64_t sum = 0;
	size_t lo, hi;
	ns_range(x->pns, m->npods, q->obj.namespace, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		size_t i = x->pns[k].i;
		int64_t u;
		if (x->own[i] != own || !sl_quota_selects(q, &x->running[i]) ||
		    (u = sl_qpod_usage(&x->running[i], name)) <= 0)
			continue;
		sum = sl_sat_add(sum, u);
	}
	return sum;
}

static struct qline usage_line(const struct qctx *x, const struct sl_quota *q, const struct sl_qitem *it, int64_t run)
{
	const struct sl_model *m = x->cx->model;
	struct qline l = {.q = q, .it = it};
	const struct sl_qitem *u = used_item(m, q, it->name);
	/* Objects other than pods (count/deployments.apps) are not among the running pods: the run's
	 * own may be in status.used, and without it what others have is not known. */
	bool pods = m->npods && (strncmp(it->name, "count/", 6) || !strcmp(it->name, "count/pods"));
	if (u && pods) {
		l.src = Q_STATUS_PODS;
		l.used = u->used;
		l.own = running_use(x, q, it->name, true);
		l.lo = l.hi = l.used > l.own ? l.used - l.own : 0;
	} else if (u) {
		/* The run's own pods, at most what its workloads ask, may be among the used. */
		l.src = Q_STATUS;
		l.used = l.hi = u->used;
		l.lo = u->used > run ? u->used - run : 0;
	} else if (pods) {
		l.src = Q_PODS;
		l.used = l.lo = l.hi = running_use(x, q, it->name, false);
	}
	return l;
}

static int64_t fit(int64_t room, int64_t per)
{
	return room <= 0 ? 0 : room / per;
}

/* "pods", "requests.cpu 500m" */
static void amount(const struct sl_qitem *it, int64_t v, char *out, unsigned n)
{
	const char *r = strchr(it->name, '.') && strncmp(it->name, "count/", 6) ? strchr(it->name, '.') + 1 : it->name;
	if (!strcmp(it->name, "pods") || !strncmp(it->name, "count/", 6))
		snprintf(out, n, "%lld", (long long)v);
	else
		sl_format_amount(r, v, out, n);
}

/* "spec.hard pods: 3, status.used 1" and where the used amount comes from. */
static void note_usage(struct sl_finding *f, const struct qline *l)
{
	char hard[48], used[48], own[48], lo[48];
	amount(l->it, l->it->hard, hard, sizeof hard);
	amount(l->it, l->used, used, sizeof used);
	amount(l->it, l->own, own, sizeof own);
	amount(l->it, l->lo, lo, sizeof lo);
	switch (l->src) {
	case Q_STATUS_PODS:
		sl_note(f, "%s: hard %s, status.used %s, of which the run's own running pods use %s", l->it->name, hard,
			used, own);
		break;
	case Q_STATUS:
		sl_note(f,
			"%s: hard %s, status.used %s; without the running pods (--pods) it is not known how much of "
			"that is the run's own pods, so at least %s is taken by others",
			l->it->name, hard, used, lo);
		break;
	case Q_PODS:
		sl_note(f, "%s: hard %s; running pods (--pods) outside the run's workloads use %s", l->it->name, hard,
			used);
		break;
	case Q_NONE:
		sl_note(f,
			"%s: hard %s; usage counts only the run's workloads: the quota carries no status.used and no "
			"running pods were given (capture both: kubectl get resourcequota,pods -A -o yaml)",
			l->it->name, hard);
		break;
	}
	if (l->q->nscopes)
		sl_note(f, "the quota's scopes select these pods");
}

/* The quota's hard entry, and the other workloads it charges: those before x (all: every other). */
static void relate_quota(struct sl_finding *f, const struct qctx *c, const struct qline *l, const struct qw *x,
			 bool all)
{
	char ref[512];
	sl_quota_ref(l->q, ref, sizeof ref);
	sl_add_related(f, &l->it->node->at, "%s of %s", l->it->name, ref);
	size_t lo, hi;
	ns_range(c->wns, c->n, l->q->obj.namespace, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		const struct qw *o = &c->v[c->wns[k].i];
		int64_t per;
		bool object;
		if (o == x || (!all && o > x) || !charged(o, l->q, l->it, &per, &object))
			continue;
		sl_object_ref(&o->w->obj, ref, sizeof ref);
		const struct sl_ynode *kn = o->w->obj.kind_node ? o->w->obj.kind_node : o->w->obj.root;
		if (object)
			sl_add_related(f, &kn->at, "%s counts first", ref);
		else
			sl_add_related(f, &kn->at, "%s: %lld pod%s in the same quota", ref, (long long)o->pods,
				       o->pods == 1 ? "" : "s");
	}
}

/* A Deployment that rolls by surging only: maxUnavailable resolves to 0. */
static bool surges_only(const struct sl_workload *w)
{
	int64_t surge, unav;
	if (strcmp(w->obj.kind, "Deployment") || w->strategy != SL_STRATEGY_ROLLING || w->replicas < 1)
		return false;
	sl_fenceposts(w, &surge, &unav);
	return unav == 0 && surge >= 1;
}

/* Pods (or the object) of x beyond what the quota leaves. */
static void report_short(struct qctx *c, struct qw *x, const struct qline *l, int64_t before, int64_t fits, bool sure)
{
	char ref[512], qref[512], hard[48], each[80] = "";
	sl_object_ref(&x->w->obj, ref, sizeof ref);
	sl_quota_ref(l->q, qref, sizeof qref);
	bool object;
	int64_t per = per_unit(x, l->it, &object), units = units_of(x, object);
	amount(l->it, l->it->hard, hard, sizeof hard);
	if (per > 1 || strcmp(l->it->name, "pods")) {
		char a[48];
		amount(l->it, per, a, sizeof a);
		snprintf(each, sizeof each, ", %s a pod", a);
	}
	const char *prior = before ? " once the workloads before it in the namespace take their share" : "";
	struct sl_finding *f;
	if (object)
		f = sl_rule_report_object(c->self, c->cx, &x->w->obj, NULL,
					  "%s (%s: %s) admits no more %s%s: %s is never created (exceeded quota)", qref,
					  l->it->name, hard, l->it->name + 6, prior, ref);
	else
		f = sl_rule_report_object(
		    c->self, c->cx, &x->w->obj, x->w->replicas_node,
		    "%s (%s: %s%s) leaves room for %lld of the %lld pod%s of %s%s: the others are "
		    "never created (exceeded quota)",
		    qref, l->it->name, hard, each, (long long)fits, (long long)units, units == 1 ? "" : "s", ref,
		    prior);
	if (!sure && f->level == SL_ERROR)
		f->level = SL_WARNING;
	note_usage(f, l);
	if (!sure)
		sl_note(f, "this holds if status.used does not count the run's own pods; give the running pods "
			   "(--pods) to know (so a warning, not an error)");
	if (!object && fits >= 1 && surges_only(x->w))
		sl_note(
		    f,
		    "fix: lower replicas to %lld and roll with maxSurge: 0, maxUnavailable: 1 (at %lld the quota has "
		    "no room for a surge pod), or raise spec.hard.%s of %s",
		    (long long)fits, (long long)fits, l->it->name, qref);
	else if (!object)
		sl_note(f, "fix: lower replicas to %lld, or raise spec.hard.%s of %s", (long long)fits, l->it->name,
			qref);
	relate_quota(f, c, l, x, false);
	x->reported = true;
}

/* Room for exactly replicas pods and a Deployment whose maxUnavailable resolves to 0: the surge
 * pod is refused and no old pod goes. fits_hi: the pods the quota holds at most, for the fix. */
static void report_rollout(struct qctx *c, struct qw *x, const struct qline *l, bool sure, int64_t fits_hi)
{
	const struct sl_workload *w = x->w;
	char ref[512], qref[512], unavail[32];
	int64_t surge, unav;
	sl_fenceposts(w, &surge, &unav);
	sl_object_ref(&w->obj, ref, sizeof ref);
	sl_quota_ref(l->q, qref, sizeof qref);
	sl_intpct_format(&w->max_unavailable, unavail, sizeof unavail);
	char hard[48];
	amount(l->it, l->it->hard, hard, sizeof hard);
	/* At maxUnavailable (what makes the surge pod necessary), else the strategy, else spec. */
	const struct sl_ynode *at = w->max_unavailable.node;
	if (!at)
		at = sl_ymap_key(w->spec, "strategy");
	if (!at)
		at = sl_ymap_key(w->obj.root, "spec");
	struct sl_finding *f = sl_rule_report_object(
	    c->self, c->cx, &w->obj, at,
	    "rollout of %s can never finish: %s (%s: %s) holds its %lld pod%s but not the surge pod, and "
	    "maxUnavailable %s%s, so no old pod goes before a new one is Ready",
	    ref, qref, l->it->name, hard, (long long)w->replicas, w->replicas == 1 ? "" : "s", unavail,
	    w->max_unavailable.percent ? " resolves to 0" : "");
	if (!sure && f->level == SL_ERROR)
		f->level = SL_WARNING;
	sl_note_rollout(f, w, w->replicas, surge, unav);
	note_usage(f, l);
	sl_note(f, "the ReplicaSet controller's creation of the surge pod fails (exceeded quota) on every retry");
	if (!sure)
		sl_note(f, "this holds if status.used does not count the run's own pods; give the running pods "
			   "(--pods) to know (so a warning, not an error)");
	/* maxSurge 0 needs room for the replicas alone, which the quota has even at its fullest. */
	if (w->replicas >= 1 && fits_hi >= w->replicas) {
		sl_note(f,
			"fix: set strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (an old pod goes first, "
			"then its replacement takes its place within the quota), or raise spec.hard.%s",
			l->it->name);
		sl_fix_rolling_params(sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace one pod at a "
						    "time within the quota)"),
				      w, "0", "1");
	} else
		sl_note(f, "fix: raise spec.hard.%s of %s", l->it->name, qref);
	sl_relate_strategy(f, w);
	relate_quota(f, c, l, x, true);
	x->reported = true;
}

/* Every workload of q's namespace that q charges, in input order, against one hard entry: the
 * first that crosses it, else a rollout that needs one pod more than it leaves. */
static void judge_item(struct qctx *c, const struct sl_quota *q, const struct sl_qitem *it)
{
	int64_t run = 0, before = 0, per;
	bool object;
	size_t lo, hi;
	ns_range(c->wns, c->n, q->obj.namespace, &lo, &hi);
	for (size_t k = lo; k < hi; k++)
		if (charged(&c->v[c->wns[k].i], q, it, &per, &object))
			run = sl_sat_add(run, sl_sat_mul(per, units_of(&c->v[c->wns[k].i], object)));
	struct qline l = usage_line(c, q, it, run);
	for (size_t k = lo; k < hi; k++) {
		struct qw *x = &c->v[c->wns[k].i];
		if (!charged(x, q, it, &per, &object))
			continue;
		int64_t units = units_of(x, object), mine = sl_sat_mul(per, units);
		int64_t lo = fit(it->hard - l.lo - before, per), hi = fit(it->hard - l.hi - before, per);
		if (!x->reported && hi < units) {
			report_short(c, x, &l, before, hi, lo < units);
			return; /* the ones after it find the quota full: this is where it crosses */
		}
		/* During its rollout every other workload keeps its pods. */
		int64_t others = sl_sat_add(run - mine, 0);
		int64_t all_lo = fit(it->hard - l.lo - others, per), all_hi = fit(it->hard - l.hi - others, per);
		if (!x->reported && !object && surges_only(x->w) && all_hi == units && all_lo >= units)
			report_rollout(c, x, &l, all_lo == units, all_hi);
		before = sl_sat_add(before, mine);
	}
}

/* The pods each workload keeps at once, and what they charge. */
static void build(struct qctx *c)
{
	const struct sl_model *m = c->cx->model;
	c->n = m->nworkloads;
	c->v = sl_xcalloc(c->n ? c->n : 1, sizeof *c->v);
	c->wns = sl_xcalloc(c->n ? c->n : 1, sizeof *c->wns);
	for (size_t i = 0; i < c->n; i++) {
		struct qw *x = &c->v[i];
		x->w = m->workloads[i];
		sl_qpod_of(m, &x->w->pod, NULL, &x->pod);
		bool daemon = !strcmp(x->w->obj.kind, "DaemonSet");
		x->pods = daemon || sl_wbatch(x->w)->suspend_node || x->w->replicas < 0 ? 0 : x->w->replicas;
		c->wns[i] = (struct nsidx){x->w->obj.namespace, i};
	}
	qsort(c->wns, c->n, sizeof *c->wns, by_ns);
	c->running = sl_xcalloc(m->npods ? m->npods : 1, sizeof *c->running);
	c->own = sl_xcalloc(m->npods ? m->npods : 1, sizeof *c->own);
	c->pns = sl_xcalloc(m->npods ? m->npods : 1, sizeof *c->pns);
	for (size_t i = 0; i < m->npods; i++) {
		const struct sl_pod *p = m->pods[i];
		sl_qpod_of(m, &p->spec, p->phase ? p->phase : "", &c->running[i]);
		c->pns[i] = (struct nsidx){p->obj.namespace, i};
		size_t lo, hi;
		ns_range(c->wns, c->n, p->obj.namespace, &lo, &hi);
		for (size_t k = lo; k < hi && !c->own[i]; k++) {
			const struct sl_workload *w = c->v[c->wns[k].i].w;
			c->own[i] = strcmp(w->obj.kind, "Pod") && sl_selector_matches(&w->sel, &p->spec.labels);
		}
	}
	qsort(c->pns, m->npods, sizeof *c->pns, by_ns);
}

static void check_model(const struct sl_rule *self, struct sl_model_check *cx)
{
	const struct sl_model *m = cx->model;
	if (!m->nquotas || !m->nworkloads)
		return;
	struct qctx c = {.self = self, .cx = cx};
	build(&c);
	for (size_t i = 0; i < m->nquotas; i++) {
		if (superseded(m, i))
			continue;
		for (size_t j = 0; j < m->quotas[i]->nitems; j++)
			judge_item(&c, m->quotas[i], &m->quotas[i]->items[j]);
	}
	for (size_t i = 0; i < c.n; i++)
		sl_qpod_free(&c.v[i].pod);
	for (size_t i = 0; i < m->npods; i++)
		sl_qpod_free(&c.running[i]);
	free(c.v);
	free(c.running);
	free(c.own);
	free(c.wns);
	free(c.pns);
}

const struct sl_rule sl_rule_quota_exceeded = {
    .id = "quota-exceeded",
    .name = "ResourceQuotaExceeded",
    .summary = "A namespace's ResourceQuota admits fewer pods than the workload asks for, or not its surge pod.",
    .description =
	"The quota admission plugin refuses a pod that would take a ResourceQuota of its namespace (one whose "
	"scopes select the pod) above `spec.hard`, counting pods, requests, limits, extended resources and "
	"object counts as the pod evaluator does. The controller's creations fail with \"exceeded quota\" on "
	"every retry: pods beyond the quota are never created, and a RollingUpdate whose maxUnavailable "
	"resolves to 0 needs room for one pod more than its replicas, so with room for exactly its replicas "
	"the rollout never finishes. The workloads of a namespace share its quota and are judged together, in "
	"input order; what already runs is the quota's `status.used` (or the running pods).",
    .help = "Lower `replicas` to what the quota leaves, or raise the quota's `spec.hard` entry. For a rollout "
	    "that needs the surge pod, set `strategy.rollingUpdate` to `maxSurge: 0` and `maxUnavailable: 1` "
	    "so an old pod goes before its replacement is created, or use `strategy.type: Recreate`.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check_model = check_model,
};
