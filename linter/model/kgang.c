/* kgang.c — reading scheduling.k8s.io Workloads and binding workloads to their gangs (kgang.h).
 * The API types name the fields (staging/src/k8s.io/api/scheduling/v1alpha1/types.go of 1.35:
 * WorkloadSpec.podGroups, PodGroup.name and policy, PodGroupPolicy.basic or gang,
 * GangSchedulingPolicy.minCount; core/v1 WorkloadReference); the checks are those of its
 * validation (at most 8 pod groups, names unique, exactly one policy, minCount positive). The
 * scheduler's side is pkg/scheduler/framework/plugins/gangscheduling: a pod's group is the key
 * (namespace, workloadRef.name, podGroup, podGroupReplicaKey). */
#include "kgang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model.h"
#include "model_read.h"

#define MAX_POD_GROUPS 8 /* WorkloadMaxPodGroups */

bool sl_kgang_kind(const struct sl_object *o)
{
	return !strcmp(o->kind, "Workload") && o->api_version && !strncmp(o->api_version, "scheduling.k8s.io/", 18);
}

static void read_group(struct sl_read *c, struct sl_kworkload *k, const struct sl_ynode *it)
{
	if (it->kind != SL_YMAP) {
		sl_read_error(c, it, "spec.podGroups[] must be a mapping, not %s", sl_ykind_name(it));
		return;
	}
	struct sl_kpodgroup *g = &k->groups[k->ngroups];
	g->node = it;
	g->name = sl_read_str(c, it, "name", "spec.podGroups[].name");
	if (!g->name && !c->failed)
		sl_read_error(c, it, "spec.podGroups[] needs a name");
	for (size_t j = 0; g->name && j < k->ngroups; j++)
		if (k->groups[j].name && !strcmp(k->groups[j].name, g->name))
			sl_read_error(c, sl_ymap_get(it, "name"), "pod group %s is named twice in spec.podGroups",
				      g->name);
	const struct sl_ynode *pol = sl_read_want(c, it, "policy", SL_YMAP, "spec.podGroups[].policy");
	const struct sl_ynode *basic = sl_ymap_get(pol, "basic"), *gang = sl_ymap_get(pol, "gang");
	if (!pol || !basic == !gang) {
		if (!c->failed)
			sl_read_error(c, pol ? pol : it, "spec.podGroups[].policy takes exactly one of basic and gang");
		return;
	}
	g->gang = gang != NULL;
	if (g->gang) {
		if (gang->kind != SL_YMAP) {
			sl_read_error(c, gang, "policy.gang must be a mapping, not %s", sl_ykind_name(gang));
			return;
		}
		g->min_node = sl_ymap_get(gang, "minCount");
		int64_t v;
		if (sl_ynull(g->min_node))
			sl_read_error(c, gang, "policy.gang needs minCount");
		else if (sl_yint(g->min_node, &v) < 0 || v < 1 || v > INT32_MAX)
			sl_read_error(c, g->min_node,
				      "policy.gang.minCount must be an integer from 1 to 2147483647, not %s%s%s",
				      sl_yscalar(g->min_node) ? "\"" : "",
				      sl_yscalar(g->min_node) ? g->min_node->str : sl_ykind_name(g->min_node),
				      sl_yscalar(g->min_node) ? "\"" : "");
		else
			g->min_count = v;
	}
	k->ngroups++;
}

int sl_kgang_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *pgs = sl_read_want(c, spec, "podGroups", SL_YSEQ, "spec.podGroups");
	if (!pgs && !c->failed)
		sl_read_error(c, spec ? spec : o->kind_node, "a Workload needs spec.podGroups");
	else if (pgs && !pgs->n)
		sl_read_error(c, pgs, "a Workload needs at least one pod group in spec.podGroups");
	else if (pgs && pgs->n > MAX_POD_GROUPS)
		sl_read_error(c, pgs, "a Workload has at most %d pod groups, not %u", MAX_POD_GROUPS, (unsigned)pgs->n);
	struct sl_kworkload *k = sl_xcalloc(1, sizeof *k);
	k->obj = *o;
	k->groups = sl_xcalloc(pgs && pgs->n ? pgs->n : 1, sizeof *k->groups);
	for (size_t i = 0; !c->failed && i < pgs->n; i++)
		read_group(c, k, pgs->v[i]);
	if (c->failed) {
		sl_kworkload_free(k);
		return -1;
	}
	sl_grow(&m->kworkloads, &m->capkworkloads, m->nkworkloads + 1, sizeof *m->kworkloads);
	m->kworkloads[m->nkworkloads++] = k;
	return 0;
}

static const struct sl_kworkload *find_workload(const struct sl_model *m, const char *ns, const char *name)
{
	for (size_t i = m->nkworkloads; i-- > 0;) /* the later of two with one name: as kubectl apply */
		if (m->kworkloads[i]->obj.name && !strcmp(m->kworkloads[i]->obj.name, name) &&
		    !strcmp(m->kworkloads[i]->obj.namespace, ns))
			return m->kworkloads[i];
	return NULL;
}

static const struct sl_kpodgroup *find_group(const struct sl_kworkload *k, const char *name)
{
	for (size_t i = 0; k && i < k->ngroups; i++)
		if (!strcmp(k->groups[i].name, name))
			return &k->groups[i];
	return NULL;
}

/* The workloadRef of a pod template, when the default scheduler schedules its pods (another
 * scheduler reads no workloadRef: its gangs are its own). */
static const struct sl_ynode *workload_ref(const struct sl_ynode *tmpl)
{
	/* Asked of every workload, twice a run: the spec is found once, and the scheduler's name
	 * only for a template that has a reference at all (most have none). */
	const struct sl_ynode *spec = sl_ymap_get(tmpl, "spec"), *ref = sl_ymap_get(spec, "workloadRef");
	if (!ref || ref->kind != SL_YMAP)
		return NULL;
	const struct sl_ynode *sched = sl_ymap_get(spec, "schedulerName");
	return sl_ynull(sched) || sl_yis(sched, "default-scheduler") ? ref : NULL;
}

/* Why the cluster would not hold gangs on this release with these gates (empty: it would). */
static bool gangs_off(const struct sl_model *m, char *why, size_t n, bool *served)
{
	int minor = m->kube.minor;
	sl_gate_why_off(&m->gates, SL_GATE_GENERIC_WORKLOAD, minor, why, n);
	*served = !*why;
	if (!*served)
		return true;
	sl_gate_why_off(&m->gates, SL_GATE_GANG_SCHEDULING, minor, why, n);
	return *why != 0;
}

static void note_ref(const struct sl_model *m, const struct sl_workload *w, const struct sl_ynode *ref, bool served,
		     const char *why, struct sl_findings *errs)
{
	const struct sl_ynode *at = sl_ymap_key(sl_ypath(sl_gang_template(w), "spec"), "workloadRef");
	const char *name = sl_ymap_get(ref, "name") ? sl_ymap_get(ref, "name")->str : NULL;
	const char *group = sl_ymap_get(ref, "podGroup") ? sl_ymap_get(ref, "podGroup")->str : NULL;
	const struct sl_kworkload *k = name ? find_workload(m, w->obj.namespace, name) : NULL;
	if (!served) {
		/* Before 1.35 the field is unknown: dropped too, with a warning (kubectl's default strict
		 * field validation refuses the object instead). */
		sl_input_note(errs, &at->at,
			      "spec.workloadRef has no effect: %s, so the API server drops it%s and the scheduler "
			      "places these pods one by one, not as a gang",
			      why,
			      m->kube.minor < sl_gate_infos[SL_GATE_GENERIC_WORKLOAD].since
				  ? " as an unknown field (kubectl's strict field validation refuses the object)"
				  : "");
		return;
	}
	if (name && !k && !*why) {
		sl_input_note(errs, &at->at,
			      "Workload %s is not among the inputs: the gang of its pod group%s%s was not judged (the "
			      "scheduler holds these pods until the Workload exists)",
			      name, group ? " " : "", group ? group : "");
		return;
	}
	const struct sl_kpodgroup *g = k && group ? find_group(k, group) : NULL;
	if (k && group && !g) {
		sl_input_warning(errs, &sl_ymap_get(ref, "podGroup")->at,
				 "Workload %s has no pod group %s: the scheduler keeps these pods Pending (pod group "
				 "\"%s\" doesn't exist for a workload \"%s\")",
				 name, group, group, name);
		return;
	}
	if (*why && g && g->gang)
		sl_input_note(errs, &at->at,
			      "the gang of pod group %s (Workload %s, minCount %lld) is not held together: %s, so "
			      "the scheduler places these pods one by one",
			      group, name, (long long)g->min_count, why);
}

void sl_kgang_apply(struct sl_model *m, struct sl_findings *errs)
{
	char why[256];
	bool served;
	bool off = gangs_off(m, why, sizeof why, &served);
	for (size_t i = 0; !served && i < m->nkworkloads; i++) {
		const struct sl_kworkload *k = m->kworkloads[i];
		sl_input_note(errs, &k->obj.kind_node->at,
			      "Workload %s is not served: %s, so the scheduler holds none of its pod groups",
			      k->obj.name, why);
	}
	for (size_t i = 0; i < m->nworkloads; i++) {
		const struct sl_workload *w = m->workloads[i];
		const struct sl_ynode *ref = workload_ref(sl_gang_template(w));
		if (ref)
			note_ref(m, w, ref, served, off ? why : "", errs);
	}
}

static void bind_one(struct sl_model *m, struct sl_workload *w)
{
	const struct sl_ynode *ref = workload_ref(sl_gang_template(w));
	if (!ref)
		return;
	const struct sl_ynode *name = sl_ymap_get(ref, "name"), *group = sl_ymap_get(ref, "podGroup"),
			      *key = sl_ymap_get(ref, "podGroupReplicaKey");
	const struct sl_kworkload *k = sl_yscalar(name) ? find_workload(m, w->obj.namespace, name->str) : NULL;
	const struct sl_kpodgroup *g = k && sl_yscalar(group) ? find_group(k, group->str) : NULL;
	if (!g || !g->gang)
		return; /* policy.basic: pod by pod, as without a Workload */
	const char *replica = sl_yscalar(key) ? key->str : "";
	struct sl_podgroup *pg = NULL;
	for (size_t i = 0; i < m->npodgroups && !pg; i++) {
		struct sl_podgroup *p = m->podgroups[i];
		if (p->flavor == SL_GANG_KUBE && p->obj.root == k->obj.root && !strcmp(p->group, g->name) &&
		    !strcmp(p->replica, replica))
			pg = p;
	}
	if (!pg) {
		pg = sl_xcalloc(1, sizeof *pg);
		pg->obj = k->obj;
		pg->flavor = SL_GANG_KUBE;
		pg->group = g->name;
		pg->replica = replica;
		pg->min_member = g->min_count;
		pg->min_node = g->min_node;
		sl_grow(&m->podgroups, &m->cappodgroups, m->npodgroups + 1, sizeof *m->podgroups);
		m->podgroups[m->npodgroups++] = pg;
	}
	struct sl_wgang *wg = sl_wgang_mut(w);
	wg->podgroup = pg;
	wg->gang_at = group;
	sl_gang_join(pg, w);
}

void sl_kgang_bind(struct sl_model *m)
{
	char why[256];
	bool served;
	if (!m->nkworkloads || gangs_off(m, why, sizeof why, &served))
		return;
	for (size_t i = 0; i < m->nworkloads; i++)
		bind_one(m, m->workloads[i]);
}

void sl_kworkload_free(struct sl_kworkload *k)
{
	free(k->groups);
	free(k);
}
