/* plugins.c — the filter plugins of kube-scheduler's default profile (v1.26), in the order the
 * profile runs them; the first that fails decides a node's status. Of the volume plugins between
 * NodeResourcesFit and PodTopologySpread (VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
 * VolumeZone), NodeVolumeLimits' CSI limits, VolumeBinding (bound claims and WaitForFirstConsumer
 * ones) and VolumeZone are modelled (node_volume_limits.c, volume_binding.c, volume_zone.c);
 * VolumeRestrictions' ReadWriteOnce side is rwo-volume-rollout's. */
#include "plugin.h"

const struct sl_filter_plugin sl_filter_plugins[] = {
    {SL_PL_NODE_UNSCHEDULABLE, "NodeUnschedulable", true, false, sl_node_unschedulable_filter, NULL, NULL, NULL, NULL,
     NULL},
    {SL_PL_NODE_NAME, "NodeName", true, false, sl_node_name_filter, NULL, NULL, NULL, NULL, NULL},
    {SL_PL_TAINT_TOLERATION, "TaintToleration", true, false, sl_taint_toleration_filter, NULL, NULL, NULL, NULL, NULL},
    {SL_PL_NODE_AFFINITY, "NodeAffinity", true, false, sl_node_affinity_filter, NULL, NULL, NULL, NULL, NULL},
    {SL_PL_NODE_PORTS, "NodePorts", false, true, sl_node_ports_filter, NULL, NULL, NULL, NULL, sl_node_ports_idle},
    {SL_PL_NODE_RESOURCES_FIT, "NodeResourcesFit", false, true, sl_node_resources_fit_filter,
     sl_node_resources_fit_prefilter, NULL, NULL, sl_node_resources_fit_release, NULL},
    {SL_PL_NODE_VOLUME_LIMITS, "NodeVolumeLimits", false, true, sl_node_volume_limits_filter,
     sl_node_volume_limits_prefilter, NULL, NULL, sl_node_volume_limits_release, sl_node_volume_limits_idle},
    {SL_PL_VOLUME_BINDING, "VolumeBinding", false, false, sl_volume_binding_filter, NULL, NULL, NULL, NULL,
     sl_volume_idle},
    {SL_PL_VOLUME_ZONE, "VolumeZone", false, false, sl_volume_zone_filter, NULL, NULL, NULL, NULL, sl_volume_idle},
    {SL_PL_POD_TOPOLOGY_SPREAD, "PodTopologySpread", false, true, sl_pod_topology_spread_filter,
     sl_pod_topology_spread_prefilter, sl_pod_topology_spread_add_pod, sl_pod_topology_spread_refresh,
     sl_pod_topology_spread_release, sl_pod_topology_spread_idle},
    {SL_PL_INTER_POD_AFFINITY, "InterPodAffinity", false, true, sl_inter_pod_affinity_filter,
     sl_inter_pod_affinity_prefilter, sl_inter_pod_affinity_add_pod, NULL, sl_inter_pod_affinity_release,
     sl_inter_pod_affinity_idle},
    {SL_PL_DYNAMIC_RESOURCES, "DynamicResources", false, false, sl_dynamic_resources_filter,
     sl_dynamic_resources_prefilter, sl_dynamic_resources_add_pod, NULL, sl_dynamic_resources_release,
     sl_dynamic_resources_idle},
};
_Static_assert(sizeof sl_filter_plugins / sizeof sl_filter_plugins[0] <= SL_MAX_FILTERS,
	       "a cycle's active list holds every filter");
const size_t sl_nfilter_plugins = sizeof sl_filter_plugins / sizeof sl_filter_plugins[0];

static const struct sl_filter_plugin *find(enum sl_plugin p)
{
	for (size_t i = 0; i < sl_nfilter_plugins; i++)
		if (sl_filter_plugins[i].id == p)
			return &sl_filter_plugins[i];
	return NULL;
}

const char *sl_plugin_name(enum sl_plugin p)
{
	const struct sl_filter_plugin *f = find(p);
	return f ? f->name : "";
}

bool sl_plugin_preemptible(enum sl_plugin p)
{
	const struct sl_filter_plugin *f = find(p);
	return f && f->preemptible;
}

bool sl_filter_node_only(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	for (size_t i = 0; i < sl_nfilter_plugins; i++)
		if (sl_filter_plugins[i].node_only && !sl_filter_plugins[i].filter(cy, node, out))
			return false;
	return true;
}

enum sl_plugin sl_filter_others(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	for (size_t i = 0; i < sl_nfilter_plugins; i++)
		if (!sl_filter_plugins[i].node_only && !sl_filter_plugins[i].filter(cy, node, out))
			return sl_filter_plugins[i].id;
	return SL_FITS;
}

void sl_filter_plan(struct sl_cycle *cy)
{
	cy->nactive = 0;
	for (size_t i = 0; i < sl_nfilter_plugins; i++) {
		const struct sl_filter_plugin *f = &sl_filter_plugins[i];
		if (!f->node_only && !(f->idle && f->idle(cy)))
			cy->active[cy->nactive++] = f->filter;
	}
}

bool sl_filter_fits(const struct sl_cycle *cy, size_t node)
{
	for (size_t i = 0; i < cy->nactive; i++)
		if (!cy->active[i](cy, node, NULL))
			return false;
	return true;
}

void sl_plugins_prefilter(struct sl_cycle *cy)
{
	for (size_t i = 0; i < sl_nfilter_plugins; i++)
		if (sl_filter_plugins[i].prefilter)
			sl_filter_plugins[i].prefilter(cy);
}

void sl_plugins_add_pod(struct sl_cycle *cy, size_t node, int gen)
{
	for (size_t i = 0; i < sl_nfilter_plugins; i++)
		if (sl_filter_plugins[i].add_pod)
			sl_filter_plugins[i].add_pod(cy, node, gen);
}

void sl_plugins_refresh(struct sl_cycle *cy)
{
	for (size_t i = 0; i < sl_nfilter_plugins; i++)
		if (sl_filter_plugins[i].refresh)
			sl_filter_plugins[i].refresh(cy);
}

void sl_plugins_release(struct sl_cycle *cy)
{
	for (size_t i = 0; i < sl_nfilter_plugins; i++)
		if (sl_filter_plugins[i].release)
			sl_filter_plugins[i].release(cy);
}
