/* VolumeZone (pkg/scheduler/framework/plugins/volumezone): a bound claim's PersistentVolume
 * labelled with a zone or region (topology.kubernetes.io/zone|region and the deprecated
 * failure-domain.beta.kubernetes.io/zone|region) fits only a node whose label of that key is one
 * of the values the volume's label lists, split on "__" (LabelZonesToSet). A node with none of the
 * four labels takes any volume (a cluster of one zone); a volume label that does not parse is
 * ignored, as the scheduler logs and skips it. From 1.28 a volume's beta label the node lacks is
 * matched against the node's GA label of the same meaning (translateToGALabel); before, the node
 * must carry the beta label itself. UnschedulableAndUnresolvable. */
#include <string.h>

#include "plugin.h"
#include "status.h"

/* ErrReasonConflict. */
#define SL_REASON_VOLUME_ZONE "node(s) had no available volume zone"

static const char *const zone_keys[] = {"failure-domain.beta.kubernetes.io/zone",
					"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/zone",
					"topology.kubernetes.io/region"};

static bool zone_key(const char *k)
{
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(k, zone_keys[i]))
			return true;
	return false;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Whether the "__"-separated list v names want (each entry trimmed); -1 when an entry is empty,
 * which makes the scheduler ignore the label. */
static int zones_have(const char *v, const char *want)
{
	size_t wl = strlen(want);
	int found = 0;
	for (const char *p = v;;) {
		const char *end = strstr(p, "__");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *a = p, *b = p + len;
		while (a < b && space(*a))
			a++;
		while (b > a && space(b[-1]))
			b--;
		if (a == b)
			return -1;
		if ((size_t)(b - a) == wl && !memcmp(a, want, wl))
			found = 1;
		if (!end)
			return found;
		p = end + 2;
	}
}

bool sl_volume_zone_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	const struct sl_volset *v = cy->vol;
	if (!v)
		return true;
	const struct sl_node *n = cy->m->nodes[node];
	bool constrained = false;
	for (size_t i = 0; i < 4 && !constrained; i++)
		constrained = sl_labels_get(&n->labels, zone_keys[i]) != NULL;
	if (!constrained)
		return true;
	for (size_t i = 0; i < v->npvs; i++) {
		const struct sl_labels *l = &v->pvs[i]->labels;
		for (size_t k = 0; k < l->n; k++) {
			if (!zone_key(l->v[k].key))
				continue;
			const char *nv = sl_labels_get(&n->labels, l->v[k].key);
			if (!nv && cy->m->kube.minor >= SL_KUBE_VOLUME_ZONE_GA &&
			    !strncmp(l->v[k].key, "failure-domain.", 15))
				nv = sl_labels_get(&n->labels,
						   !strcmp(l->v[k].key, zone_keys[0]) ? zone_keys[2] : zone_keys[3]);
			if (zones_have(l->v[k].val, nv ? nv : "") == 0) {
				if (out)
					sl_nodefit_fail(out, SL_PL_VOLUME_ZONE, SL_REASON_VOLUME_ZONE);
				return false;
			}
		}
	}
	return true;
}
