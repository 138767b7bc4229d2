/* never-admitted — Kueue never admits the workload: its pods at once ask more than its
 * ClusterQueue can ever give.
 *
 * Kueue admits a workload as a whole (pkg/scheduler/flavorassigner): for every resource group of
 * the workload's ClusterQueue, each podset's total request (count × per-pod request) must fit in
 * ONE flavor of that group, within the flavor's nominalQuota plus what it may borrow from its
 * cohort (the other ClusterQueues' unused quota, at most borrowingLimit). A total above that in
 * every flavor stays Pending however idle the nodes are. The count is Kueue's podset count: a
 * Job's parallelism capped by completions, a StatefulSet's replicas (one pod group), one for a
 * bare Pod and for a Deployment (Kueue admits its pods one by one).
 *
 * Borrowing without a borrowingLimit depends on every ClusterQueue of the cohort, and the inputs
 * may not hold them all: a total that only the cohort's unknown members could cover is a warning,
 * and so is a resource no group covers (Kueue's configuration may leave it out of admission).
 *
 * With ResourceFlavors among the inputs only the flavors the pods can take count (sl_gang_bind
 * judged them, kflavor.h): one whose nodeTaints they do not tolerate or whose nodeLabels their
 * nodeSelector or node affinity excludes gives them no quota, and a ClusterQueue naming a
 * flavor no input defines is inactive (its Active condition: FlavorNotFound). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/model/quantity.h"
#include "rules.h"

#define UNBOUNDED INT64_MAX
#define MIN_PARALLELISM "kueue.x-k8s.io/job-min-parallelism"

/* Kueue's podset count for w, the fewest it may admit (*partial: fewer than it asks for); 0 when
 * Kueue does not manage its kind. */
static int64_t podset_count(const struct sl_workload *w, bool *partial)
{
	const char *k = w->obj.kind;
	if (!strcmp(k, "Pod") || !strcmp(k, "Deployment"))
		return 1;
	if (!strcmp(k, "StatefulSet"))
		return w->replicas;
	if ((strcmp(k, "Job") && strcmp(k, "CronJob")) || !sl_wbatch(w)->is) /* a Volcano Job's task: not Kueue's */
		return 0;
	int64_t n = w->replicas; /* parallelism capped by completions already (job.c) */
	/* Partial admission: Kueue may admit the Job with as few as job-min-parallelism pods. */
	const struct sl_ynode *ann =
	    sl_ypath(!strcmp(k, "CronJob") ? sl_ypath(w->spec, "jobTemplate") : w->obj.root, "metadata.annotations");
	const struct sl_ynode *v = sl_ymap_get(ann, MIN_PARALLELISM);
	char *end = NULL;
	long long min = sl_yscalar(v) ? strtoll(v->str, &end, 10) : 0; /* an annotation: a string */
	if (end && end != v->str && !*end && min >= 1 && min < n) {
		*partial = true;
		n = min;
	}
	return n;
}

/* What a ClusterQueue's flavor may take of a resource: nominal plus borrowable, as far as the
 * inputs show (known) and at most in any cluster (bound; UNBOUNDED without a borrowingLimit). */
struct ceiling {
	const struct sl_kquota *q;
	int64_t known, bound, lendable;
};

static struct ceiling ceiling_of(const struct sl_model *m, const struct sl_kqueue *cq, const char *flavor,
				 const char *res)
{
	struct ceiling c = {0};
	for (size_t i = 0; i < cq->nq; i++)
		if (!strcmp(cq->q[i].flavor, flavor) && !strcmp(cq->q[i].resource, res))
			c.q = &cq->q[i];
	if (!c.q)
		return c; /* the flavor gives none of it */
	c.known = c.bound = c.q->nominal;
	if (!cq->cohort)
		return c;
	for (size_t j = 0; j < m->nkqueues; j++) {
		const struct sl_kqueue *o = m->kqueues[j];
		if (o == cq || !o->cluster || !o->cohort || strcmp(o->cohort, cq->cohort))
			continue;
		for (size_t i = 0; i < o->nq; i++)
			if (!strcmp(o->q[i].flavor, flavor) && !strcmp(o->q[i].resource, res))
				c.lendable = sl_sat_add(c.lendable, o->q[i].lend >= 0 && o->q[i].lend < o->q[i].nominal
									? o->q[i].lend
									: o->q[i].nominal);
	}
	int64_t b = c.q->borrow;
	c.known = sl_sat_add(c.known, b >= 0 && b < c.lendable ? b : c.lendable);
	c.bound = b >= 0 ? sl_sat_add(c.bound, b) : UNBOUNDED;
	return c;
}

/* The total the workload asks of resource r (the pods resource: one per pod). */
static int64_t total_of(const struct sl_workload *w, const char *r, int64_t count)
{
	return !strcmp(r, "pods") ? count : sl_sat_mul(sl_res_get(&w->pod.request, r), count);
}

/* How Kueue judged flavor of group g for w's pods (SL_KFIT_OK when no ResourceFlavor is known). */
static const struct sl_kchoice *choice_of(const struct sl_workload *w, size_t g, const char *flavor)
{
	const struct sl_wgang *wg = sl_wgang(w);
	for (size_t i = 0; i < wg->nkchoice; i++)
		if (wg->kchoice[i].group == g && !strcmp(wg->kchoice[i].name, flavor))
			return &wg->kchoice[i];
	return NULL;
}

static bool takes_pods(const struct sl_workload *w, size_t g, const char *flavor)
{
	const struct sl_kchoice *k = choice_of(w, g, flavor);
	return !k || k->fit == SL_KFIT_OK;
}

struct verdict {
	enum sl_level level; /* SL_NOTE: admissible */
	size_t group;
	const char *res; /* the resource of the first flavor's failure, or the uncovered one */
	bool uncovered;
};

/* Whether some flavor of group g holds every resource of g the workload asks for: with what the
 * inputs show (SL_NOTE), only with unknown lenders (SL_WARNING), in no cluster (SL_ERROR); res is
 * what the best flavor falls short of. */
static struct verdict judge_group(const struct sl_model *m, const struct sl_kqueue *cq, const struct sl_workload *w,
				  size_t g, int64_t count)
{
	struct verdict v = {SL_ERROR, g, NULL, false};
	for (size_t i = 0; i < cq->nq; i++) {
		const struct sl_kquota *fq = &cq->q[i];
		bool first = true; /* the flavor's first entry: judge each flavor once */
		for (size_t j = 0; j < i && first; j++)
			first = cq->q[j].group != g || strcmp(cq->q[j].flavor, fq->flavor);
		if (fq->group != g || !first || !takes_pods(w, g, fq->flavor))
			continue;
		enum sl_level lv = SL_NOTE;
		const char *short_of = NULL;
		for (size_t j = 0; j < cq->nq; j++) {
			const struct sl_kquota *rq = &cq->q[j];
			int64_t need = total_of(w, rq->resource, count);
			if (rq->group != g || strcmp(rq->flavor, fq->flavor) || need == 0)
				continue;
			struct ceiling c = ceiling_of(m, cq, fq->flavor, rq->resource);
			enum sl_level here = need <= c.known ? SL_NOTE : need <= c.bound ? SL_WARNING : SL_ERROR;
			if (here > lv) {
				lv = here;
				short_of = rq->resource;
			}
		}
		if (lv < v.level || (lv == v.level && !v.res)) {
			v.level = lv;
			v.res = short_of;
		}
	}
	return v;
}

/* The first resource the pods ask for that no group of cq covers. */
static const char *uncovered(const struct sl_kqueue *cq, const struct sl_workload *w)
{
	for (size_t r = 0; r < w->pod.request.n; r++) {
		const struct sl_res *x = &w->pod.request.v[r];
		bool covered = x->amount <= 0;
		for (size_t i = 0; i < cq->nq && !covered; i++)
			covered = !strcmp(cq->q[i].resource, x->name);
		if (!covered)
			return x->name;
	}
	return NULL;
}

/* Each flavor of the group with what it gives of res, as related locations and one note. */
static void note_flavors(struct sl_finding *f, const struct sl_model *m, const struct sl_workload *w, size_t g,
			 const char *res, int64_t per_pod, const char *what)
{
	const struct sl_kqueue *cq = sl_wgang(w)->kqueue;
	int64_t most = 0;
	for (size_t i = 0; i < cq->nq; i++) {
		const struct sl_kquota *q = &cq->q[i];
		if (q->group != g || strcmp(q->resource, res) || !takes_pods(w, g, q->flavor))
			continue;
		struct ceiling c = ceiling_of(m, cq, q->flavor, res);
		char nom[32], bor[48];
		sl_format_amount(res, q->nominal, nom, sizeof nom);
		if (!cq->cohort)
			snprintf(bor, sizeof bor, "0 (no cohort)");
		else
			sl_format_amount(res, c.known - q->nominal, bor, sizeof bor);
		sl_add_related(f, &q->node->at, "ClusterQueue %s, flavor %s: nominalQuota %s of %s, borrowable %s",
			       cq->obj.name, q->flavor, nom, res, bor);
		int64_t fit = per_pod > 0 ? c.known / per_pod : 0;
		if (fit > most)
			most = fit;
	}
	if (per_pod > 0 && most == 0)
		sl_note(f,
			"fix: not one pod of this size fits its quota: lower the requests, or raise nominalQuota (or "
			"borrowingLimit in a cohort)");
	else if (per_pod > 0)
		sl_note(f,
			"fix: at most %lld pod%s of this size fit its quota at once: lower %s to that, lower the "
			"requests, or raise nominalQuota (or borrowingLimit in a cohort)",
			(long long)most, most == 1 ? "" : "s", what);
}

static bool skips_some(const struct sl_workload *w, size_t g)
{
	const struct sl_wgang *wg = sl_wgang(w);
	for (size_t i = 0; i < wg->nkchoice; i++)
		if (wg->kchoice[i].group == g && wg->kchoice[i].fit != SL_KFIT_OK)
			return true;
	return false;
}

/* The flavors of group g Kueue skips for these pods, each with why, as related locations; false
 * when it skips none. */
static bool note_skipped(struct sl_finding *f, const struct sl_workload *w, size_t g)
{
	bool any = false;
	for (size_t i = 0; i < sl_wgang(w)->nkchoice; i++) {
		const struct sl_kchoice *k = &sl_wgang(w)->kchoice[i];
		if (k->group != g || (k->fit != SL_KFIT_TAINT && k->fit != SL_KFIT_LABELS))
			continue;
		any = true;
		sl_add_related(
		    f, &(k->f->obj.name_node ? k->f->obj.name_node : k->f->obj.root)->at,
		    k->fit == SL_KFIT_TAINT
			? "ResourceFlavor %s: the pods do not tolerate its nodeTaint %s, so Kueue skips it"
			: "ResourceFlavor %s: its nodeLabel %s conflicts with the pods' nodeSelector or node "
			  "affinity, so Kueue skips it",
		    k->name, k->why ? k->why : "");
	}
	return any;
}

/* A ClusterQueue naming a ResourceFlavor that no input defines, while others are defined: Kueue
 * keeps it inactive (Active=False, reason FlavorNotFound) and admits nothing through it. A
 * warning: the flavor may exist in the cluster without being among the inputs. */
static bool inactive(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_wgang *wg = sl_wgang(w);
	for (size_t i = 0; i < wg->nkchoice; i++) {
		if (wg->kchoice[i].fit != SL_KFIT_MISSING)
			continue;
		char ref[512];
		sl_object_ref(&w->obj, ref, sizeof ref);
		struct sl_finding *f = sl_rule_report(
		    self, cx, wg->queue_at,
		    "%s is never admitted by Kueue: ClusterQueue %s names ResourceFlavor %s, which no input "
		    "defines, so the ClusterQueue is inactive (Active=False, reason FlavorNotFound) and admits nothing",
		    ref, wg->kqueue->obj.name, wg->kchoice[i].name);
		if (f->level == SL_ERROR)
			f->level = SL_WARNING;
		for (size_t j = 0; j < wg->kqueue->nq; j++)
			if (!strcmp(wg->kqueue->q[j].flavor, wg->kchoice[i].name)) {
				sl_add_related(f, &wg->kqueue->q[j].node->at, "ClusterQueue %s, flavor %s",
					       wg->kqueue->obj.name, wg->kchoice[i].name);
				break;
			}
		sl_note(f,
			"unless ResourceFlavor %s exists in the cluster: add it to the inputs (kubectl get "
			"resourceflavors -o yaml), or create it",
			wg->kchoice[i].name);
		return true;
	}
	return false;
}

/* A resource group the pods use in which Kueue skips every flavor: never admitted. */
static bool no_flavor_takes(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_wgang *wg = sl_wgang(w);
	for (size_t i = 0; i < wg->nkchoice; i++) {
		const struct sl_kchoice *k = &wg->kchoice[i];
		bool ok = false;
		for (size_t j = 0; j < wg->nkchoice && !ok; j++)
			ok = wg->kchoice[j].group == k->group && wg->kchoice[j].fit == SL_KFIT_OK;
		if (!k->used || ok)
			continue;
		char ref[512];
		sl_object_ref(&w->obj, ref, sizeof ref);
		struct sl_finding *f = sl_rule_report(
		    self, cx, wg->queue_at,
		    "%s is never admitted by Kueue: its pods can take no flavor of resource group %zu of "
		    "ClusterQueue %s (Kueue skips a flavor whose nodeTaints they do not tolerate or whose "
		    "nodeLabels their nodeSelector or node affinity excludes)",
		    ref, k->group + 1, wg->kqueue->obj.name);
		note_skipped(f, w, k->group);
		sl_note(f, "fix: give the pods a toleration for the flavor's nodeTaints (or the flavor a toleration), "
			   "or correct the nodeSelector or node affinity that excludes its nodeLabels");
		return true;
	}
	return false;
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_wgang *wg = sl_wgang(w);
	const struct sl_kqueue *cq = wg->kqueue;
	bool partial = false;
	int64_t count = cq ? podset_count(w, &partial) : 0;
	if (count <= 0 || inactive(self, cx) || no_flavor_takes(self, cx))
		return;
	struct verdict worst = {SL_NOTE, 0, NULL, false};
	size_t ngroups = 0;
	for (size_t i = 0; i < cq->nq; i++)
		if (cq->q[i].group + 1 > ngroups)
			ngroups = cq->q[i].group + 1;
	for (size_t g = 0; g < ngroups && worst.level != SL_ERROR; g++) {
		struct verdict v = judge_group(cx->model, cq, w, g, count);
		if (v.res && v.level > worst.level)
			worst = v;
	}
	const char *un = worst.level == SL_NOTE ? uncovered(cq, w) : NULL;
	if (un)
		worst = (struct verdict){SL_WARNING, 0, un, true};
	if (worst.level == SL_NOTE)
		return;
	char ref[512], need[32], per[32];
	sl_object_ref(&w->obj, ref, sizeof ref);
	int64_t per_pod = !strcmp(worst.res, "pods") ? 1 : sl_res_get(&w->pod.request, worst.res);
	sl_format_amount(worst.res, total_of(w, worst.res, count), need, sizeof need);
	sl_format_amount(worst.res, per_pod, per, sizeof per);
	struct sl_finding *f;
	if (worst.uncovered) {
		f = sl_rule_report(
		    self, cx, wg->queue_at,
		    "%s asks for %s %s, which no resource group of ClusterQueue %s covers: Kueue does not "
		    "admit it",
		    ref, need, worst.res, cq->obj.name);
		if (f->level == SL_ERROR)
			f->level = SL_WARNING;
		sl_note(f,
			"unless Kueue's configuration leaves %s out of admission (resources.excludeResourcePrefixes)",
			worst.res);
		sl_add_related(f, &cq->obj.name_node->at, "ClusterQueue %s", cq->obj.name);
		return;
	}
	bool unknown = worst.level == SL_WARNING;
	f = sl_rule_report(
	    self, cx, wg->queue_at,
	    "%s is never admitted by Kueue%s: it asks for %s %s at once (%lld pod%s × %s each), more than any "
	    "flavor%s of ClusterQueue %s can give%s",
	    ref, unknown ? " with the quota the inputs show" : "", need, worst.res, (long long)count,
	    count == 1 ? "" : "s", per, skips_some(w, worst.group) ? " its pods can take" : "", cq->obj.name,
	    unknown ? " with what its cohort lends" : "");
	if (unknown) {
		f->level = f->level == SL_ERROR ? SL_WARNING : f->level;
		sl_note(f,
			"unless ClusterQueues of cohort %s that are not among the inputs lend it more (it has no "
			"borrowingLimit)",
			cq->cohort);
	}
	if (partial)
		sl_note(f, "%lld pods: the fewest partial admission takes (%s)", (long long)count, MIN_PARALLELISM);
	note_skipped(f, w, worst.group);
	note_flavors(f, cx->model, w, worst.group, worst.res, per_pod,
		     !strcmp(w->obj.kind, "Job") || !strcmp(w->obj.kind, "CronJob") ? "parallelism" : "replicas");
}

const struct sl_rule sl_rule_never_admitted = {
    .id = "never-admitted",
    .name = "QuotaNeverAdmits",
    .summary = "Kueue never admits the workload: its pods at once ask more than its ClusterQueue can give.",
    .description = "The workload carries the kueue.x-k8s.io/queue-name label. Kueue admits it as a whole: the "
		   "requests of all its pods at once must fit in one flavor of each resource group of the "
		   "ClusterQueue behind that LocalQueue, within nominalQuota plus what the cohort may lend up to "
		   "borrowingLimit. A total above that in every flavor stays Pending for good, however idle the "
		   "nodes are.",
    .help = "Lower the pods at once (parallelism, replicas) or the requests, or raise the ClusterQueue's "
	    "nominalQuota, or its borrowingLimit in a cohort that has the quota to lend.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
