/* gang.c — reading PodGroups and Kueue queues, and binding workloads to them (see gang.h).
 * Volcano's, scheduler-plugins' and Kueue's own API types name the fields: PodGroupSpec
 * (minMember, minResources; scheduler-plugins' also scheduleTimeoutSeconds), ClusterQueueSpec
 * (cohort, resourceGroups[].flavors[].resources[]: nominalQuota, borrowingLimit, lendingLimit),
 * LocalQueueSpec (clusterQueue). */
#include "gang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/index.h"
#include "kflavor.h"
#include "model.h"
#include "model_read.h"
#include "quantity.h"

/* The annotations by which a pod names its PodGroup (Volcano's KubeGroupNameAnnotationKey and
 * VolcanoGroupNameAnnotationKey), the label by which it names a coscheduling one
 * (scheduler-plugins' v1alpha1.PodGroupLabel), and Kueue's queue label. */
#define GROUP_KEY "scheduling.k8s.io/group-name"
#define VOLCANO_GROUP_KEY "scheduling.volcano.sh/group-name"
#define COSCHED_LABEL "scheduling.x-k8s.io/pod-group"
#define QUEUE_LABEL "kueue.x-k8s.io/queue-name"

bool sl_gang_kind(const struct sl_object *o)
{
	if (!strcmp(o->kind, "PodGroup"))
		return sl_object_in_group(o, "scheduling.volcano.sh") || sl_object_in_group(o, "scheduling.x-k8s.io");
	return (!strcmp(o->kind, "ClusterQueue") || !strcmp(o->kind, "LocalQueue") ||
		!strcmp(o->kind, "ResourceFlavor")) &&
	       sl_object_in_group(o, "kueue.x-k8s.io");
}

void sl_gang_name(const struct sl_podgroup *g, char *out, unsigned n)
{
	if (g->flavor == SL_GANG_KUBE)
		snprintf(out, n, "Workload %s, pod group %s%s%s", g->obj.name, g->group,
			 *g->replica ? ", replica key " : "", g->replica);
	else
		snprintf(out, n, "%s %s", g->flavor == SL_GANG_VCJOB ? "Job" : "PodGroup", g->obj.name);
}

const char *sl_gang_min_key(const struct sl_podgroup *g)
{
	return g->flavor == SL_GANG_VCJOB ? "minAvailable" : g->flavor == SL_GANG_KUBE ? "minCount" : "minMember";
}

const char *sl_gang_holder(const struct sl_podgroup *g)
{
	return g->flavor == SL_GANG_VCJOB ? "Job" : g->flavor == SL_GANG_KUBE ? "pod group" : "PodGroup";
}

/* A non-negative int32 at n (absent: dflt); an input error otherwise. */
static int64_t read_count(struct sl_read *c, const struct sl_ynode *n, const char *path, int64_t dflt)
{
	int64_t v;
	if (sl_ynull(n))
		return dflt;
	if (sl_yint(n, &v) < 0 || v < 0 || v > INT32_MAX) {
		sl_read_error(c, n, "%s must be an integer from 0 to 2147483647 (an int32), not %s%s%s", path,
			      sl_yscalar(n) ? "\"" : "", sl_yscalar(n) ? n->str : sl_ykind_name(n),
			      sl_yscalar(n) ? "\"" : "");
		return dflt;
	}
	return v;
}

static int read_podgroup(struct sl_read *c, const struct sl_object *o, struct sl_model *m)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_podgroup *g = sl_xcalloc(1, sizeof *g);
	g->obj = *o;
	g->flavor = sl_object_in_group(o, "scheduling.volcano.sh") ? SL_GANG_VOLCANO : SL_GANG_COSCHED;
	g->min_node = sl_ymap_get(spec, "minMember");
	/* Volcano defaults minMember to 1; scheduler-plugins leaves it 0 (no quorum) and its CRD
	 * refuses a written value below 1. */
	g->min_member = read_count(c, g->min_node, "spec.minMember", g->flavor == SL_GANG_VOLCANO);
	if (g->flavor == SL_GANG_COSCHED) {
		if (!sl_ynull(g->min_node) && g->min_member == 0)
			sl_read_error(c, g->min_node, "spec.minMember must be at least 1 (the PodGroup CRD's minimum)");
		read_count(c, sl_ymap_get(spec, "scheduleTimeoutSeconds"), "spec.scheduleTimeoutSeconds", 0);
	}
	g->min_res_node = sl_read_want(c, spec, "minResources", SL_YMAP, "spec.minResources");
	sl_read_reslist(c, g->min_res_node, "spec.minResources", &g->min_res);
	if (c->failed) {
		sl_podgroup_free(g);
		return -1;
	}
	sl_grow(&m->podgroups, &m->cappodgroups, m->npodgroups + 1, sizeof *m->podgroups);
	m->podgroups[m->npodgroups++] = g;
	return 0;
}

/* An optional quota limit of resource r (borrowingLimit, lendingLimit); -1 when unset. */
static int64_t read_limit(struct sl_read *c, const struct sl_ynode *r, const char *key, const char *name,
			  const char *path)
{
	const struct sl_ynode *v = sl_ymap_get(r, key);
	int64_t x;
	if (sl_ynull(v) || !name)
		return -1;
	return sl_read_amount(c, v, name, path, &x) == 0 ? x : -1;
}

/* One flavor of resource group g: its resources' quotas appended to q. */
static void read_flavor(struct sl_read *c, struct sl_kqueue *q, size_t g, const struct sl_ynode *fl, size_t *cap)
{
	const char *flavor = sl_read_str(c, fl, "name", "flavors[].name");
	const struct sl_ynode *res = sl_read_want(c, fl, "resources", SL_YSEQ, "flavors[].resources");
	for (size_t i = 0; res && i < res->n; i++) {
		const struct sl_ynode *r = res->v[i];
		if (r->kind != SL_YMAP) {
			sl_read_error(c, r, "flavors[].resources[] must be a mapping, not %s", sl_ykind_name(r));
			continue;
		}
		const char *name = sl_read_str(c, r, "name", "resources[].name");
		const struct sl_ynode *nq = sl_ymap_get(r, "nominalQuota");
		int64_t nominal = 0;
		if (!name || sl_ynull(nq) ||
		    sl_read_amount(c, nq, name, "flavors[].resources[].nominalQuota", &nominal) < 0) {
			if (name && sl_ynull(nq))
				sl_read_error(c, r, "resources[] entry %s has no nominalQuota", name);
			continue;
		}
		sl_grow(&q->q, cap, q->nq + 1, sizeof *q->q);
		q->q[q->nq++] =
		    (struct sl_kquota){g,
				       flavor ? flavor : "",
				       name,
				       nominal,
				       read_limit(c, r, "borrowingLimit", name, "flavors[].resources[].borrowingLimit"),
				       read_limit(c, r, "lendingLimit", name, "flavors[].resources[].lendingLimit"),
				       nq};
	}
}

static int read_kqueue(struct sl_read *c, const struct sl_object *o, struct sl_model *m)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_kqueue *q = sl_xcalloc(1, sizeof *q);
	q->obj = *o;
	q->cluster = !strcmp(o->kind, "ClusterQueue");
	size_t cap = 0;
	if (q->cluster) {
		/* v1beta1 names it cohort, v1beta2 cohortName. */
		q->cohort = sl_read_str(c, spec, "cohort", "spec.cohort");
		if (!q->cohort)
			q->cohort = sl_read_str(c, spec, "cohortName", "spec.cohortName");
		const struct sl_ynode *rgs = sl_read_want(c, spec, "resourceGroups", SL_YSEQ, "spec.resourceGroups");
		for (size_t g = 0; rgs && g < rgs->n; g++) {
			const struct sl_ynode *fls =
			    sl_read_want(c, rgs->v[g], "flavors", SL_YSEQ, "spec.resourceGroups[].flavors");
			for (size_t f = 0; fls && f < fls->n; f++)
				read_flavor(c, q, g, fls->v[f], &cap);
		}
	} else {
		q->cluster_queue = sl_read_str(c, spec, "clusterQueue", "spec.clusterQueue");
	}
	if (c->failed) {
		sl_kqueue_free(q);
		return -1;
	}
	sl_grow(&m->kqueues, &m->capkqueues, m->nkqueues + 1, sizeof *m->kqueues);
	m->kqueues[m->nkqueues++] = q;
	return 0;
}

int sl_gang_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m)
{
	if (!strcmp(o->kind, "ResourceFlavor"))
		return sl_kflavor_read(c, o, m);
	return !strcmp(o->kind, "PodGroup") ? read_podgroup(c, o, m) : read_kqueue(c, o, m);
}

const struct sl_ynode *sl_gang_template(const struct sl_workload *w)
{
	const char *k = w->obj.kind;
	if (!strcmp(k, "Pod"))
		return w->obj.root;
	if (!strcmp(k, "CronJob"))
		return sl_ypath(w->spec, "jobTemplate.spec.template");
	return sl_ymap_get(w->spec, "template");
}

/* The queues and PodGroups by namespace and name, built once per bind: a lookup per workload that
 * names one, not a scan of every queue or group. The later of two with one name wins, as kubectl
 * apply's does: the last item of its group. */
struct gang_index {
	struct sl_group_index queues, groups;
	struct sl_buf b;
};

/* A queue's key: a ClusterQueue's has no namespace. */
static const char *queue_key(struct sl_buf *b, bool cluster, const char *ns, const char *name)
{
	return sl_group_key(b, cluster ? "" : ns, name, cluster ? "c" : "n");
}

static const char *group_key(struct sl_buf *b, enum sl_gang_flavor fl, const char *ns, const char *name)
{
	const char flavor[2] = {(char)('0' + (int)fl), 0};
	return sl_group_key(b, ns, name, flavor);
}

static void index_gangs(const struct sl_model *m, struct gang_index *gx)
{
	struct sl_group_builder qb = {&gx->queues, NULL, 0, 0}, gb = {&gx->groups, NULL, 0, 0};
	for (size_t i = 0; i < m->nkqueues; i++) {
		const struct sl_kqueue *q = m->kqueues[i];
		sl_group_add(&qb, queue_key(&gx->b, q->cluster, q->obj.namespace, q->obj.name ? q->obj.name : ""), i);
	}
	for (size_t i = 0; i < m->npodgroups; i++) {
		const struct sl_podgroup *g = m->podgroups[i];
		if (g->obj.name)
			sl_group_add(&gb, group_key(&gx->b, g->flavor, g->obj.namespace, g->obj.name), i);
	}
	sl_group_finish(&qb);
	sl_group_finish(&gb);
}

static const struct sl_kqueue *find_queue(const struct sl_model *m, struct gang_index *gx, bool cluster, const char *ns,
					  const char *name)
{
	size_t n;
	const size_t *at = sl_group_get(&gx->queues, queue_key(&gx->b, cluster, ns, name), &n);
	return n ? m->kqueues[at[n - 1]] : NULL;
}

/* The PodGroup of flavor fl named v in w's namespace. */
static struct sl_podgroup *find_group(struct sl_model *m, struct gang_index *gx, enum sl_gang_flavor fl,
				      const struct sl_workload *w, const struct sl_ynode *v)
{
	size_t n;
	const size_t *at = sl_group_get(&gx->groups, group_key(&gx->b, fl, w->obj.namespace, v->str), &n);
	return n ? m->podgroups[at[n - 1]] : NULL;
}

void sl_gang_join(struct sl_podgroup *g, struct sl_workload *w)
{
	g->nworkloads++;
	g->members = sl_sat_add(g->members, w->replicas);
	if (!g->first && sl_wgang(w)->podgroup == g)
		g->first = w;
}

/* Volcano schedules as a gang only the pods it schedules: schedulerName volcano, naming the group.
 * The Coscheduling plugin holds the pods its label names a group for, when their scheduler runs
 * it: not default-scheduler (kube-scheduler's profile has no such plugin), nor Volcano. A Volcano
 * Job's tasks come bound by their reader (vcjob.c). */
static void bind_podgroup(struct sl_model *m, struct gang_index *gx, struct sl_workload *w, const struct sl_ynode *tmpl)
{
	struct sl_podgroup *g;
	const struct sl_ynode *ann = sl_ypath(tmpl, "metadata.annotations");
	const struct sl_ynode *v = sl_ymap_get(ann, GROUP_KEY);
	const struct sl_ynode *sched = sl_ypath(tmpl, "spec.schedulerName");
	if (!sl_yscalar(v))
		v = sl_ymap_get(ann, VOLCANO_GROUP_KEY);
	if (sl_yscalar(v) && sl_yis(sched, "volcano") && (g = find_group(m, gx, SL_GANG_VOLCANO, w, v))) {
		struct sl_wgang *wg = sl_wgang_mut(w);
		wg->podgroup = g;
		wg->gang_at = v;
		sl_gang_join(g, w);
		return;
	}
	v = sl_ymap_get(sl_ypath(tmpl, "metadata.labels"), COSCHED_LABEL);
	if (!sl_yscalar(v) || !(g = find_group(m, gx, SL_GANG_COSCHED, w, v)))
		return;
	struct sl_wgang *wg = sl_wgang_mut(w);
	wg->gang_at = v;
	/* Pods the plugin does not hold still count for the group's quorum once bound (the plugin
	 * counts the pods that carry the label): they join it, but are no gang themselves. */
	if (sl_ynull(sched) || sl_yis(sched, "default-scheduler") || sl_yis(sched, "volcano")) {
		wg->unheld = g;
		wg->unheld_by = sl_ynull(sched) ? "default-scheduler" : sched->str;
	} else {
		wg->podgroup = g;
	}
	sl_gang_join(g, w);
}

/* Kueue reads the queue label from the job object; for pods and pod groups, from the pod. */
static void bind_queue(struct sl_model *m, struct gang_index *gx, struct sl_workload *w, const struct sl_ynode *tmpl)
{
	const struct sl_ynode *v = sl_ymap_get(sl_ypath(w->obj.root, "metadata.labels"), QUEUE_LABEL);
	if (!sl_yscalar(v))
		v = sl_ymap_get(sl_ypath(tmpl, "metadata.labels"), QUEUE_LABEL);
	if (!sl_yscalar(v))
		return;
	struct sl_wgang *wg = sl_wgang_mut(w);
	wg->queue_at = v;
	const struct sl_kqueue *lq = find_queue(m, gx, false, w->obj.namespace, v->str);
	wg->kqueue = lq && lq->cluster_queue ? find_queue(m, gx, true, NULL, lq->cluster_queue) : NULL;
	if (wg->kqueue && m->nkflavors)
		sl_kflavor_bind(m, w);
}

void sl_gang_bind(struct sl_model *m)
{
	if (!m->npodgroups && !m->nkqueues)
		return;
	struct gang_index gx = {.b = SL_BUF_INIT};
	index_gangs(m, &gx);
	for (size_t i = 0; i < m->nworkloads; i++) {
		struct sl_workload *w = m->workloads[i];
		const struct sl_ynode *tmpl = sl_gang_template(w);
		if (m->npodgroups && !sl_wgang(w)->podgroup) /* not bound to a gang of Kubernetes' own (kgang.c) */
			bind_podgroup(m, &gx, w, tmpl);
		if (m->nkqueues)
			bind_queue(m, &gx, w, tmpl);
	}
	sl_group_free(&gx.queues);
	sl_group_free(&gx.groups);
	sl_buf_free(&gx.b);
	/* Whatever placement the gang gets, the other workloads add at most all their pods: the rest
	 * of minMember must be this workload's (and a Volcano task's own minAvailable at least). A
	 * workload that must have more than one pod at once is a gang (rules/common.c sl_gang_of):
	 * its pods are useful all at once, not in waves. */
	for (size_t i = 0; i < m->nworkloads; i++) {
		struct sl_workload *w = m->workloads[i];
		struct sl_wgang *wg = w->gang;
		const struct sl_podgroup *g = wg ? wg->podgroup : NULL;
		if (!g)
			continue;
		int64_t need = g->min_member - (g->members - w->replicas);
		wg->gang_need = need > wg->task_min ? need : wg->task_min;
		if (wg->gang_need > 1)
			w->all_at_once = true;
	}
}

void sl_podgroup_free(struct sl_podgroup *g)
{
	sl_res_free(&g->min_res);
	free(g);
}

void sl_kqueue_free(struct sl_kqueue *q)
{
	free(q->q);
	free(q);
}
