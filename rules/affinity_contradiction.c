/* affinity-contradiction — required pod affinity and required pod anti-affinity that select the
 * same pods in the same topology.
 *
 * InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go) admits a node
 * for an affinity term only when its domain of the term's topologyKey holds a pod matching all of
 * the incoming pod's affinity terms, and rejects it for an anti-affinity term when that domain of
 * the anti term's key holds a pod the anti term selects. With the same key, and an anti term that
 * selects every pod the affinity term selects (in every namespace that term covers), the pod the
 * affinity needs in the domain is the pod the anti-affinity forbids there: no node passes. The
 * one way through is the first-pod exception: when no pod matches the affinity terms anywhere and
 * the pod matches its own terms, affinity passes on any node with the keys. That pod then matches
 * both terms itself, so every later pod meets the wall: at most one pod at a time. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "rules.h"

#define NS_LABEL "kubernetes.io/metadata.name"

/* Labels the controllers add to the pods they create, which a template does not show. */
static bool controller_label(const char *k)
{
	static const char *const keys[] = {"pod-template-hash",
					   "controller-revision-hash",
					   "pod-template-generation",
					   "statefulset.kubernetes.io/pod-name",
					   "apps.kubernetes.io/pod-index",
					   "controller-uid",
					   "job-name",
					   "batch.kubernetes.io/controller-uid",
					   "batch.kubernetes.io/job-name",
					   "batch.kubernetes.io/job-completion-index"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!strcmp(keys[i], k))
			return true;
	return false;
}

static bool in_vals(const struct sl_requirement *r, const char *v)
{
	for (size_t i = 0; i < r->nvals; i++)
		if (!strcmp(r->vals[i], v))
			return true;
	return false;
}

/* A namespace selector whose verdict on ns is certain: every requirement is on the label every
 * namespace carries (its name); other namespace labels are unknown to a linter. */
static bool ns_selector_certain(const struct sl_selector *s)
{
	if (s->nothing)
		return true;
	for (size_t i = 0; i < s->nreqs; i++)
		if (strcmp(s->reqs[i].key, NS_LABEL))
			return false;
	return true;
}

static bool ns_selector_selects(const struct sl_selector *s, const char *ns)
{
	struct sl_kv kv = {NS_LABEL, ns, NULL, NULL};
	struct sl_labels l = {&kv, 1};
	return sl_selector_matches(s, &l);
}

static bool all_namespaces(const struct sl_podterm *t)
{
	return t->has_ns_selector && !t->ns_sel.nothing && t->ns_sel.nreqs == 0;
}

/* Whether term t (of a pod in owner_ns) certainly covers namespace ns. */
static bool covers_ns(const struct sl_podterm *t, const char *owner_ns, const char *ns)
{
	if (!t->nnamespaces && !t->has_ns_selector)
		return !strcmp(owner_ns, ns);
	for (size_t i = 0; i < t->nnamespaces; i++)
		if (!strcmp(t->namespaces[i], ns))
			return true;
	return t->has_ns_selector && ns_selector_certain(&t->ns_sel) && ns_selector_selects(&t->ns_sel, ns);
}

/* Whether b certainly covers every namespace a covers. a's namespaces must be a known list: its
 * `namespaces`, its own namespace by default, and for a namespace selector the names an In on
 * the name label allows (a superset of what it selects). */
static bool ns_contained(const struct sl_podterm *a, const struct sl_podterm *b, const char *owner_ns)
{
	if (all_namespaces(b))
		return true;
	if (!a->nnamespaces && !a->has_ns_selector)
		return covers_ns(b, owner_ns, owner_ns);
	for (size_t i = 0; i < a->nnamespaces; i++)
		if (!covers_ns(b, owner_ns, a->namespaces[i]))
			return false;
	if (!a->has_ns_selector || a->ns_sel.nothing)
		return true;
	const struct sl_requirement *names = NULL;
	for (size_t i = 0; i < a->ns_sel.nreqs && !names; i++)
		if (!strcmp(a->ns_sel.reqs[i].key, NS_LABEL) && a->ns_sel.reqs[i].op == SL_OP_IN)
			names = &a->ns_sel.reqs[i];
	if (!names)
		return false;
	for (size_t i = 0; i < names->nvals; i++)
		if (!covers_ns(b, owner_ns, names->vals[i]))
			return false;
	return true;
}

/* Of the values a's In list `in` allows, those that pass every other In and NotIn of a on the same
 * key: how many there are, whether all of them are among rb's values, and whether one is. */
static size_t narrow_in(const struct sl_selector *a, const struct sl_requirement *in, const struct sl_requirement *rb,
			bool *all_in_b, bool *one_in_b)
{
	size_t nallowed = 0;
	*all_in_b = true;
	*one_in_b = false;
	for (size_t v = 0; v < in->nvals; v++) {
		bool ok = true;
		for (size_t i = 0; i < a->nreqs && ok; i++) {
			const struct sl_requirement *r = &a->reqs[i];
			if (r == in || strcmp(r->key, rb->key))
				continue;
			if (r->op == SL_OP_IN)
				ok = in_vals(r, in->vals[v]);
			else if (r->op == SL_OP_NOTIN)
				ok = !in_vals(r, in->vals[v]);
		}
		if (!ok)
			continue;
		nallowed++;
		if (in_vals(rb, in->vals[v]))
			*one_in_b = true;
		else
			*all_in_b = false;
	}
	return nallowed;
}

/* Whether a's NotIn lists on rb's key exclude every value that NotIn requirement rb excludes. */
static bool excludes_all(const struct sl_selector *a, const struct sl_requirement *rb)
{
	for (size_t v = 0; v < rb->nvals; v++) {
		bool excluded = false;
		for (size_t i = 0; i < a->nreqs && !excluded; i++)
			excluded = a->reqs[i].op == SL_OP_NOTIN && !strcmp(a->reqs[i].key, rb->key) &&
				   in_vals(&a->reqs[i], rb->vals[v]);
		if (!excluded)
			return false;
	}
	return true;
}

/* Whether every label set selector a matches also matches requirement rb. a's requirements on
 * rb's key are combined: an In list narrowed by the other In and NotIn lists, NotIn values,
 * presence and absence. A selector that matches nothing proves nothing here. */
static bool implies(const struct sl_selector *a, const struct sl_requirement *rb, bool *empty)
{
	const struct sl_requirement *in = NULL;
	bool exists = false, absent = false;
	for (size_t i = 0; i < a->nreqs; i++) {
		const struct sl_requirement *r = &a->reqs[i];
		if (strcmp(r->key, rb->key))
			continue;
		if (r->op == SL_OP_IN && !in)
			in = r;
		exists |= r->op == SL_OP_IN || r->op == SL_OP_EXISTS;
		absent |= r->op == SL_OP_DOESNOTEXIST;
	}
	/* the values a allows: in's values that pass every other requirement on the key */
	bool allowed_in_b = true, allowed_meets_b = false;
	if ((exists && absent) || (in && !narrow_in(a, in, rb, &allowed_in_b, &allowed_meets_b))) {
		*empty = true;
		return false;
	}
	switch (rb->op) {
	case SL_OP_IN:
		return in && allowed_in_b;
	case SL_OP_NOTIN:
		return absent || (in && !allowed_meets_b) || excludes_all(a, rb);
	case SL_OP_EXISTS:
		return exists;
	case SL_OP_DOESNOTEXIST:
		return absent;
	default:
		return false;
	}
}

static bool key_listed(const char *const *keys, size_t n, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(keys[i], k))
			return true;
	return false;
}

/* Whether anti term b selects every pod affinity term a selects, in the same topology. The
 * matchLabelKeys / mismatchLabelKeys of b must be among a's: they add the same requirement (the
 * owner's value) to both selectors. */
static bool covers(const struct sl_podterm *a, const struct sl_podterm *b, const char *owner_ns)
{
	if (strcmp(a->topology_key, b->topology_key) || a->sel.nothing || b->sel.nothing)
		return false;
	for (size_t i = 0; i < b->nmatch_keys; i++)
		if (!key_listed(a->match_keys, a->nmatch_keys, b->match_keys[i]))
			return false;
	for (size_t i = 0; i < b->nmismatch_keys; i++)
		if (!key_listed(a->mismatch_keys, a->nmismatch_keys, b->mismatch_keys[i]))
			return false;
	if (!ns_contained(a, b, owner_ns))
		return false;
	bool empty = false;
	for (size_t i = 0; i < b->sel.nreqs; i++)
		if (!implies(&a->sel, &b->sel.reqs[i], &empty))
			return false;
	return !empty;
}

enum self { SELF_NO, SELF_YES, SELF_UNKNOWN };

/* Whether the pod matches all its own affinity terms (the first-pod exception's condition), as
 * far as the template tells: labels the controller adds and namespace labels other than the
 * name leave it open. */
static enum self self_match(const struct sl_workload *w)
{
	const struct sl_podspec *p = &w->pod;
	bool pod = !strcmp(w->obj.kind, "Pod");
	enum self out = SELF_YES;
	for (size_t t = 0; t < p->naffinity; t++) {
		const struct sl_podterm *a = &p->affinity[t];
		if (sl_podterm_matches(a, p->namespace, &p->labels, p->namespace, &p->labels))
			continue;
		bool open =
		    a->has_ns_selector && !ns_selector_certain(&a->ns_sel) && !covers_ns(a, p->namespace, p->namespace);
		for (size_t i = 0; i < a->sel.nreqs && !pod; i++)
			open |= controller_label(a->sel.reqs[i].key) && !sl_labels_get(&p->labels, a->sel.reqs[i].key);
		for (size_t i = 0; i < a->nmismatch_keys && !pod; i++)
			open |= controller_label(a->mismatch_keys[i]);
		if (!open)
			return SELF_NO;
		out = SELF_UNKNOWN;
	}
	return out;
}

/* A selector in the messages' words: "app=cache, tier In [a, b]", or "every pod". */
static void describe_sel(struct sl_buf *b, const struct sl_selector *s)
{
	if (s->nreqs == 0)
		sl_buf_puts(b, "every pod");
	for (size_t i = 0; i < s->nreqs; i++) {
		const struct sl_requirement *r = &s->reqs[i];
		if (i)
			sl_buf_puts(b, ", ");
		if (r->op == SL_OP_IN && r->nvals == 1) {
			sl_buf_printf(b, "%s=%s", r->key, r->vals[0]);
			continue;
		}
		sl_buf_printf(b, "%s %s", r->key, sl_op_name(r->op));
		if (r->op == SL_OP_EXISTS || r->op == SL_OP_DOESNOTEXIST)
			continue;
		sl_buf_puts(b, " [");
		for (size_t v = 0; v < r->nvals; v++)
			sl_buf_printf(b, "%s%s", v ? ", " : "", r->vals[v]);
		sl_buf_putc(b, ']');
	}
}

/* The namespaces a term covers, in the messages' words. */
static void describe_ns(struct sl_buf *b, const struct sl_podterm *t, const char *owner_ns)
{
	if (all_namespaces(t)) {
		sl_buf_puts(b, "every namespace");
		return;
	}
	if (!t->nnamespaces && !t->has_ns_selector) {
		sl_buf_printf(b, "namespace %s (its own, by default)", owner_ns);
		return;
	}
	sl_buf_puts(b, "namespaces ");
	for (size_t i = 0; i < t->nnamespaces; i++)
		sl_buf_printf(b, "%s%s", i ? ", " : "", t->namespaces[i]);
	if (t->has_ns_selector) {
		sl_buf_printf(b, "%sthose selected by ", t->nnamespaces ? " and " : "");
		describe_sel(b, &t->ns_sel);
	}
}

/* An affinity term and an anti-affinity term of the same pod that contradict each other. */
struct contradiction {
	const struct sl_podterm *a, *b; /* the affinity term, the anti-affinity term that covers it */
	size_t ai, bi;                  /* their indexes, for the messages */
};

/* The first pair (in the order the terms are written) where the anti term covers the affinity
 * term: same topology key, every pod and namespace of the one selected by the other. */
static bool find_contradiction(const struct sl_podspec *p, struct contradiction *c)
{
	for (size_t i = 0; i < p->naffinity; i++)
		for (size_t j = 0; j < p->nanti; j++)
			if (covers(&p->affinity[i], &p->anti[j], p->namespace)) {
				*c = (struct contradiction){&p->affinity[i], &p->anti[j], i, j};
				return true;
			}
	return false;
}

/* The workload as the verdict needs it: its kind, whether its pods pass the first-pod exception,
 * and a Deployment's rollout resolved (surge 0, unavailable 1 for anything else). */
struct shape {
	bool pod, ds, job;
	enum self sm;
	int64_t surge, unavail;
};

/* The shape of w, as struct shape says. */
static void shape_of(const struct sl_workload *w, struct shape *s)
{
	const char *kind = w->obj.kind;
	s->pod = !strcmp(kind, "Pod");
	s->ds = !strcmp(kind, "DaemonSet");
	s->job = sl_wbatch(w)->is; /* a Job, a CronJob, a JobSet's replicatedJob: its pods run to completion */
	s->sm = self_match(w);
	s->surge = 0;
	s->unavail = 1;
	if (!strcmp(kind, "Deployment") && w->strategy == SL_STRATEGY_ROLLING)
		sl_fenceposts(w, &s->surge, &s->unavail);
}

/* The finding, at the anti term, worded by what the contradiction does to this workload (docs:
 * "What it proves"): no pod ever, one node of a DaemonSet, one pod of a Job or of the replicas at a
 * time, or a one-replica rollout that keeps the old pod. NULL when one pod at a time is all the
 * workload asks for. A verdict that rests on the first-pod exception and on the cluster or the
 * pods' lifetimes is a warning. */
static struct sl_finding *report_wall(const struct sl_rule *self, struct sl_check *cx, const struct contradiction *c,
				      const struct shape *s)
{
	const struct sl_workload *w = cx->w;
	const char *key = c->a->topology_key;
	size_t ai = c->ai + 1, bi = c->bi + 1;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	struct sl_finding *f = NULL;
	if (s->sm == SELF_NO)
		f = sl_rule_report(self, cx, c->b->node,
				   "%s%s can %s be scheduled: its required pod anti-affinity term %zu forbids every "
				   "%s domain that its pod affinity term %zu requires",
				   s->pod ? "" : "no pod of ", ref, s->pod ? "never" : "ever", bi, key, ai);
	else if (s->pod || w->replicas == 0)
		; /* one pod: the first-pod exception lets it through */
	else if (s->ds)
		f = sl_rule_report(
		    self, cx, c->b->node,
		    "at most one node can ever run a pod of %s: its required pod anti-affinity term %zu "
		    "forbids every %s domain that its pod affinity term %zu requires, once its first pod "
		    "runs",
		    ref, bi, key, ai);
	else if (s->job && w->replicas > 1)
		f = sl_rule_report(
		    self, cx, c->b->node,
		    "at most one pod of %s can run at a time, not parallelism %lld: its required pod "
		    "anti-affinity term %zu forbids every %s domain that its pod affinity term %zu requires",
		    ref, (long long)w->replicas, bi, key, ai);
	else if (!s->job && w->replicas > 1)
		f = sl_rule_report(
		    self, cx, c->b->node,
		    "at most one of the %lld replicas of %s can ever run: its required pod anti-affinity "
		    "term %zu forbids every %s domain that its pod affinity term %zu requires",
		    (long long)w->replicas, ref, bi, key, ai);
	else if (s->surge > 0 && s->unavail == 0)
		f = sl_rule_report(
		    self, cx, c->b->node,
		    "the rollout of %s can never finish while its old pod runs: the new pod's required pod "
		    "anti-affinity term %zu forbids the %s domain that its pod affinity term %zu requires",
		    ref, bi, key, ai);
	if (f && s->sm != SELF_NO && (s->ds || s->job || w->replicas <= 1) && f->level > SL_WARNING)
		f->level = SL_WARNING;
	return f;
}

/* The proof in two notes: what each term asks for, and why no node passes both. */
static void note_wall(struct sl_finding *f, const struct contradiction *c, const char *sa, const char *sb,
		      const char *ns)
{
	const char *key = c->a->topology_key;
	sl_note(f,
		"pod affinity term %zu needs a %s domain holding a pod with %s in %s; anti-affinity term %zu "
		"rejects every %s domain holding a pod with %s, and every pod the first selects (in every namespace "
		"it covers) the second selects too",
		c->ai + 1, key, sa, ns, c->bi + 1, key, sb);
	sl_note(f,
		"InterPodAffinity admits a node only if both hold (a node without the %s label fails the "
		"affinity term), so no node passes while such a pod runs anywhere",
		key);
}

/* The first-pod exception: why it does not apply (the pods stay Pending everywhere), or why it lets
 * one pod through and what else the verdict then depends on. */
static void note_first_pod(struct sl_finding *f, const struct sl_workload *w, const struct shape *s)
{
	if (s->sm == SELF_NO) {
		sl_note(f, "the first-pod exception (no pod matches the affinity terms yet, and the pod matches them "
			   "itself) does not apply: its own labels do not match its affinity terms, so it waits for a "
			   "pod it can never stand next to; it stays Pending on every cluster");
		return;
	}
	sl_note(f,
		"its first pod can schedule through the first-pod exception, if no other pod matches the "
		"affinity terms%s; it then matches both terms itself, so every later pod needs the domain it "
		"runs in and is kept out of it",
		s->sm == SELF_UNKNOWN ? " and its labels match them (they may: the term uses labels the "
					"controller sets)"
				      : " (its own labels do match them)");
	if (s->ds)
		sl_note(f, "this depends on the cluster: with more than one node that admits the DaemonSet, "
			   "the daemon pods of the other nodes stay Pending");
	else if (s->job)
		sl_note(f, "this depends on the pods' lifetimes: pods run one after another at best, each "
			   "waiting for the one before to finish");
	else if (w->replicas <= 1)
		sl_note(f,
			"this depends on the old pod matching the affinity term, which it does unless the "
			"rollout changes the labels the term selects; maxSurge resolves to %lld and "
			"maxUnavailable to 0, so the old pod stays until a new one is Ready",
			(long long)s->surge);
}

/* Both terms as related locations, and the fix: no mechanical one (which term is wrong is the
 * author's call), so a note on dropping one, making one preferred, or narrowing the anti term. */
static void suggest_fix(struct sl_finding *f, const struct contradiction *c, const char *sa, const char *sb)
{
	const struct sl_podterm *a = c->a, *b = c->b;
	sl_add_related(f, &a->node->at, "pod affinity term %zu: %s per %s", c->ai + 1, sa, a->topology_key);
	sl_add_related(f, &b->node->at, "pod anti-affinity term %zu: %s per %s", c->bi + 1, sb, b->topology_key);
	sl_note(f,
		"fix: the terms ask for opposite things; drop one, or make one preferred "
		"(preferredDuringSchedulingIgnoredDuringExecution); to keep the pods near %s but apart from each "
		"other, let the anti-affinity term select only this workload's pods%s",
		sa,
		strcmp(b->topology_key, "kubernetes.io/hostname") ? ", or give it a finer topology key "
								    "(kubernetes.io/hostname)"
								  : "");
}

/* A required anti-affinity term that covers a required affinity term of the same pod, and what
 * that does to the workload; the terms are described once for the notes. */
static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	/* nodeName bypasses the scheduler, and the kubelet does not check inter-pod terms */
	if (!p->naffinity || !p->nanti || p->node_name)
		return;
	struct contradiction c;
	if (!find_contradiction(p, &c))
		return;
	struct shape s;
	shape_of(w, &s);
	struct sl_finding *f = report_wall(self, cx, &c, &s);
	if (!f)
		return;
	struct sl_buf sa = SL_BUF_INIT, sb = SL_BUF_INIT, ns = SL_BUF_INIT;
	describe_sel(&sa, &c.a->sel);
	describe_sel(&sb, &c.b->sel);
	describe_ns(&ns, c.a, p->namespace);
	note_wall(f, &c, sa.s, sb.s, ns.s);
	note_first_pod(f, w, &s);
	suggest_fix(f, &c, sa.s, sb.s);
	sl_buf_free(&sa);
	sl_buf_free(&sb);
	sl_buf_free(&ns);
}

const struct sl_rule sl_rule_affinity_contradiction = {
    .id = "affinity-contradiction",
    .name = "PodAffinityContradictsAntiAffinity",
    .summary = "Required pod affinity and anti-affinity that select the same pods in the same topology.",
    .description = "A required pod anti-affinity term has the same topologyKey as a required pod affinity term and "
		   "selects every pod that term selects, in every namespace it covers. The domain the affinity needs "
		   "is the domain the anti-affinity forbids. Unless the pod matches its own affinity terms it never "
		   "schedules; if it does, only its first pod does (the scheduler's first-pod exception), and no "
		   "second pod ever joins it.",
    .help = "Drop one of the two terms or make it preferred. To keep pods near a service but apart from each other, "
	    "let the anti-affinity select only the workload's own pods, or give it a finer topology key.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
