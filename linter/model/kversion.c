/* kversion.c — choosing the Kubernetes release of a run and making the model what that release's
 * API server keeps (see kversion.h). The gates and the releases that turned them on are those of
 * pkg/features/kube_features.go; docs/kubernetes-versions.md lists them with their sources. */
#include "kversion.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "limitrange.h"
#include "podlevel.h"

int sl_kube_parse(const char *s, int *minor)
{
	if (!s)
		return -1;
	if (*s == 'v')
		s++;
	if (strncmp(s, "1.", 2) || s[2] < '0' || s[2] > '9')
		return -1;
	char *end;
	long v = strtol(s + 2, &end, 10);
	/* 1.30, 1.30.2, 1.30.4-eks-4f2c, 1.30+ (some providers' kubectl version) */
	if (v > 999 || (*end && *end != '.' && *end != '-' && *end != '+'))
		return -1;
	*minor = (int)v;
	return 0;
}

void sl_kube_describe(const struct sl_kube_version *v, char *out, unsigned n)
{
	char asked[96] = "";
	if (v->asked != v->minor)
		snprintf(asked, sizeof asked, "; judged as 1.%d, the %s release schedlint knows", v->minor,
			 v->asked < v->minor ? "oldest" : "newest");
	switch (v->from) {
	case SL_KUBE_FROM_OPTION:
		snprintf(out, n, "1.%d (--kube-version %s%s)", v->asked, v->written, asked);
		break;
	case SL_KUBE_FROM_CONFIG:
		snprintf(out, n, "1.%d (kubernetesVersion %s in the config%s)", v->asked, v->written, asked);
		break;
	case SL_KUBE_FROM_NODES:
		snprintf(out, n, "1.%d (the lowest kubeletVersion of the nodes: %s on node %s%s)", v->asked, v->written,
			 v->node, asked);
		break;
	default:
		snprintf(out, n, "1.%d (the default: no --kube-version, kubernetesVersion or kubeletVersion)",
			 v->minor);
	}
}

/* The release: asked for, else the nodes' lowest kubelet, else the default; within what
 * schedlint knows (an older kubelet is judged as the oldest release it knows, a newer release
 * as the newest). */
static void choose(struct sl_model *m, int option, const char *option_text, int config, const char *config_text)
{
	struct sl_kube_version *v = &m->kube;
	*v = (struct sl_kube_version){SL_KUBE_DEFAULT, SL_KUBE_DEFAULT, SL_KUBE_FROM_DEFAULT, NULL, NULL};
	if (option > 0)
		*v = (struct sl_kube_version){option, option, SL_KUBE_FROM_OPTION, option_text, NULL};
	else if (config > 0)
		*v = (struct sl_kube_version){config, config, SL_KUBE_FROM_CONFIG, config_text, NULL};
	else
		for (size_t i = 0; i < m->nnodes; i++) {
			int minor;
			const struct sl_node *n = m->nodes[i];
			if (sl_kube_parse(n->kubelet_version, &minor) == 0 &&
			    (v->from != SL_KUBE_FROM_NODES || minor < v->asked))
				*v = (struct sl_kube_version){minor, minor, SL_KUBE_FROM_NODES, n->kubelet_version,
							      n->name};
		}
	if (v->minor < SL_KUBE_MIN)
		v->minor = SL_KUBE_MIN;
	if (v->minor > SL_KUBE_MAX)
		v->minor = SL_KUBE_MAX;
}

struct dropper {
	struct sl_findings *errs; /* NULL: clear silently (running pods come from the cluster as it is) */
	int minor;
};

/* A field the release's API server drops: a warning at it, once it is written. */
static bool dropped(const struct dropper *d, const struct sl_ynode *at, const char *field, int since, const char *gate)
{
	if (d->minor >= since || sl_ynull(at))
		return false;
	if (d->errs)
		sl_input_warning(d->errs, &at->at,
				 "%s has no effect on Kubernetes 1.%d: its API server drops it (%s is on by default "
				 "from 1.%d)",
				 field, d->minor, gate, since);
	return true;
}

static void apply_spread(const struct dropper *d, struct sl_spread *t)
{
	if (dropped(d, sl_ymap_get(t->node, "minDomains"), "minDomains", SL_KUBE_MIN_DOMAINS,
		    "MinDomainsInPodTopologySpread"))
		t->min_domains = 1;
	if (dropped(d, sl_ymap_get(t->node, "nodeAffinityPolicy"), "nodeAffinityPolicy", SL_KUBE_NODE_INCLUSION_POLICY,
		    "NodeInclusionPolicyInPodTopologySpread"))
		t->honor_affinity = true;
	if (dropped(d, sl_ymap_get(t->node, "nodeTaintsPolicy"), "nodeTaintsPolicy", SL_KUBE_NODE_INCLUSION_POLICY,
		    "NodeInclusionPolicyInPodTopologySpread"))
		t->honor_taints = false;
	if (dropped(d, sl_ymap_get(t->node, "matchLabelKeys"), "matchLabelKeys", SL_KUBE_SPREAD_MATCH_LABEL_KEYS,
		    "MatchLabelKeysInPodTopologySpread"))
		t->nmatch_keys = 0;
}

static void apply_terms(const struct dropper *d, struct sl_podterm *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (dropped(d, sl_ymap_get(v[i].node, "matchLabelKeys"), "matchLabelKeys",
			    SL_KUBE_AFFINITY_MATCH_LABEL_KEYS, "MatchLabelKeysInPodAffinity"))
			v[i].nmatch_keys = 0;
		if (dropped(d, sl_ymap_get(v[i].node, "mismatchLabelKeys"), "mismatchLabelKeys",
			    SL_KUBE_AFFINITY_MATCH_LABEL_KEYS, "MatchLabelKeysInPodAffinity"))
			v[i].nmismatch_keys = 0;
	}
}

static void apply_pod(const struct dropper *d, struct sl_podspec *p)
{
	for (size_t i = 0; i < p->nspread; i++)
		apply_spread(d, &p->spread[i]);
	apply_terms(d, p->affinity, p->naffinity);
	apply_terms(d, p->anti, p->nanti);
	if (p->sidecar && d->minor < SL_KUBE_SIDECARS) {
		if (d->errs)
			sl_input_warning(
			    d->errs, &p->sidecar->at,
			    "restartPolicy: Always on an init container needs Kubernetes 1.%d "
			    "(SidecarContainers): on 1.%d it is dropped, the container is an init container "
			    "like the others, and one that keeps running keeps the pod from starting",
			    SL_KUBE_SIDECARS, d->minor);
		struct sl_reslist r = p->request;
		p->request = p->request_legacy;
		p->request_legacy = r;
	}
}

void sl_model_apply_version(struct sl_model *m, int option, const char *option_text, int config,
			    const char *config_text, struct sl_findings *errs)
{
	choose(m, option, option_text, config, config_text);
	struct dropper manifest = {errs, m->kube.minor}, running = {NULL, m->kube.minor};
	for (size_t i = 0; i < m->nworkloads; i++) {
		struct sl_workload *w = m->workloads[i];
		apply_pod(&manifest, &w->pod);
		if (!strcmp(w->obj.kind, "StatefulSet"))
			dropped(&manifest, sl_ypath(w->spec, "updateStrategy.rollingUpdate.maxUnavailable"),
				"maxUnavailable", SL_KUBE_STATEFULSET_MAX_UNAVAILABLE, "MaxUnavailableStatefulSet");
		else if (!strcmp(w->obj.kind, "DaemonSet")) {
			/* maxSurge: 0 is dropped too, to no effect */
			const struct sl_ynode *su = sl_ypath(w->spec, "updateStrategy.rollingUpdate.maxSurge");
			int64_t v;
			if (!(sl_yint(su, &v) == 0 && v == 0))
				dropped(&manifest, su, "maxSurge", SL_KUBE_DAEMONSET_SURGE, "DaemonSetUpdateSurge");
		}
	}
	for (size_t i = 0; i < m->npods; i++)
		apply_pod(&running, &m->pods[i]->spec);
	for (size_t i = 0; i < m->npdbs; i++)
		if (dropped(&manifest, m->pdbs[i]->unhealthy_policy, "unhealthyPodEvictionPolicy",
			    SL_KUBE_PDB_UNHEALTHY_POLICY, "PDBUnhealthyPodEvictionPolicy"))
			m->pdbs[i]->unhealthy_policy = NULL;
	sl_kgang_apply(m, errs); /* the Workload API: its gates, and the release that has them */
	/* Admission, once the release is known, in the API server's order: LimitRanger's defaults
	 * for containers that state no request, the pod's own resources over the containers', then
	 * a RuntimeClass's overhead on top of the request they make. */
	sl_model_apply_limitranges(m);
	sl_podlevel_apply(m, errs);
	sl_runtimeclass_apply(m, errs);
	sl_dra_apply_version(m, errs); /* the versions served, DynamicResourceAllocation, then bound */
}
