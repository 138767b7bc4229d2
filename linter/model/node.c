/* node.c — reading Nodes and running Pods (see node.h). */
#include "node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "dra.h"
#include "model_read.h"

void sl_node_free(struct sl_node *n)
{
	free(n->labels.v);
	free(n->taints);
	sl_res_free(&n->alloc);
	sl_res_free(&n->used);
	free(n);
}

static void read_taints(struct sl_read *c, const struct sl_ynode *spec, struct sl_node *n)
{
	const struct sl_ynode *taints = sl_read_want(c, spec, "taints", SL_YSEQ, "spec.taints");
	if (!taints)
		return;
	n->taints = sl_xcalloc(taints->n, sizeof *n->taints);
	for (size_t i = 0; i < taints->n; i++) {
		const struct sl_ynode *t = taints->v[i];
		if (t->kind != SL_YMAP) {
			sl_read_error(c, t, "spec.taints[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
			continue;
		}
		struct sl_taint *ta = &n->taints[n->ntaints++];
		const char *s;
		ta->node = t;
		ta->key = (s = sl_read_str(c, t, "key", "taint key")) ? s : "";
		ta->value = (s = sl_read_str(c, t, "value", "taint value")) ? s : "";
		ta->effect = (s = sl_read_str(c, t, "effect", "taint effect")) ? s : "";
	}
}

int sl_node_read(struct sl_read *c, const struct sl_object *o, struct sl_node **out)
{
	*out = NULL;
	if (!sl_yscalar(o->name_node) || sl_ynull(o->name_node)) {
		/* A creation template (generateName) names its nodes by that prefix; a "kind: Node"
		 * without apiVersion is some tool's own config, not an object. */
		const struct sl_ynode *gn = sl_ypath(o->root, "metadata.generateName");
		if (!*o->api_version)
			return 0;
		if (!sl_yscalar(gn) || sl_ynull(gn)) {
			sl_read_error(c, o->kind_node, "Node has no metadata.name");
			return -1;
		}
	}
	struct sl_node *n = sl_xcalloc(1, sizeof *n);
	n->name = o->name;
	n->src = o->src;
	n->root = o->root;
	n->name_node = o->name_node ? o->name_node : sl_ypath(o->root, "metadata.generateName");
	const struct sl_ynode *md = sl_ymap_get(o->root, "metadata");
	sl_read_labels(c, sl_read_want(c, md, "labels", SL_YMAP, "metadata.labels"), "metadata.labels", &n->labels);
	if (!sl_labels_get(&n->labels, "kubernetes.io/hostname")) {
		/* The kubelet sets the hostname label to the node name; many hand-written nodes
		 * omit it. */
		n->labels.v = sl_xrealloc(n->labels.v, (n->labels.n + 1) * sizeof *n->labels.v);
		struct sl_kv *kv = &n->labels.v[n->labels.n++];
		memset(kv, 0, sizeof *kv);
		kv->key = "kubernetes.io/hostname";
		kv->val = n->name;
	}
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *us = sl_ymap_get(spec, "unschedulable");
	if (!sl_ynull(us) && (us->kind != SL_YSCALAR || sl_read_bool(us, &n->unschedulable) < 0))
		sl_read_error(c, us, "spec.unschedulable must be true or false");
	read_taints(c, spec, n);
	const struct sl_ynode *st = sl_read_want(c, o->root, "status", SL_YMAP, "status");
	const struct sl_ynode *alloc = sl_read_want(c, st, "allocatable", SL_YMAP, "status.allocatable");
	if (!alloc)
		alloc = sl_read_want(c, st, "capacity", SL_YMAP, "status.capacity");
	sl_read_reslist(c, alloc, alloc == sl_ymap_get(st, "allocatable") ? "status.allocatable" : "status.capacity",
			&n->alloc);
	n->max_pods = sl_res_find(&n->alloc, "pods") ? sl_res_get(&n->alloc, "pods") : 110;
	/* The kubelet's release, which the run's Kubernetes version may be inferred from (kversion.h);
	 * a value that is no version is left alone. */
	const struct sl_ynode *kv = sl_ypath(st, "nodeInfo.kubeletVersion");
	if (sl_yscalar(kv) && !sl_ynull(kv))
		n->kubelet_version = kv->str;
	if (c->failed) {
		sl_node_free(n);
		return -1;
	}
	*out = n;
	return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* "2024-04-20T10:00:00" read as sscanf's "%4d-%2d-%2dT%2d:%2d:%2d" would, into f: how many bytes,
 * or -1. Every running pod has a startTime the API server wrote in this form, and sscanf cost
 * 5,000 instructions each; any other form (fewer digits, a sign, a space) is left to sscanf. The
 * form is matched left to right, so nothing past the string's end is read. */
static int datetime(const char *s, int f[6])
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	size_t i = 0;
	while (form[i] && (form[i] == 'd' ? s[i] >= '0' && s[i] <= '9' : s[i] == form[i]))
		i++;
	if (!form[i]) {
		static const unsigned char at[6] = {0, 5, 8, 11, 14, 17}, width[6] = {4, 2, 2, 2, 2, 2};
		for (int k = 0; k < 6; k++) {
			f[k] = 0;
			for (int j = at[k]; j < at[k] + width[k]; j++)
				f[k] = f[k] * 10 + (s[j] - '0');
		}
		return (int)i;
	}
	int n = 0;
	return sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &n) == 6 ? n : -1;
}

bool sl_rfc3339(const char *s, int64_t *out)
{
	int f[6];
	int n = datetime(s, f);
	if (n < 0)
		return false;
	int y = f[0], mo = f[1], d = f[2], h = f[3], mi = f[4], se = f[5];
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return false;
	const char *z = s + n;
	if (*z == '.')
		for (z++; *z >= '0' && *z <= '9'; z++)
			;
	int64_t off = 0;
	if ((*z == '+' || *z == '-') && strlen(z) == 6 && z[3] == ':')
		off = (*z == '-' ? -1 : 1) *
		      ((z[1] - '0') * 36000 + (z[2] - '0') * 3600 + (z[4] - '0') * 600 + (z[5] - '0') * 60);
	else if (strcmp(z, "Z") && strcmp(z, "z"))
		return false;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off;
	return true;
}

int sl_pod_read(struct sl_read *c, const struct sl_object *o, struct sl_pod **out)
{
	*out = NULL;
	struct sl_pod *p = sl_xcalloc(1, sizeof *p);
	p->obj = *o;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *labels =
	    sl_read_want(c, sl_ymap_get(o->root, "metadata"), "labels", SL_YMAP, "metadata.labels");
	if (sl_parse_podspec(c->src, spec, o->namespace, labels, &p->spec, c->errs) < 0)
		c->failed = 1;
	sl_pod_claims_status(c, sl_ymap_get(o->root, "status"), p->spec.claims, p->spec.nclaims);
	const struct sl_ynode *ph = sl_ypath(o->root, "status.phase");
	p->phase = sl_yscalar(ph) ? ph->str : "";
	const struct sl_ynode *st = sl_ypath(o->root, "status.startTime");
	if (!sl_yscalar(st) || !sl_rfc3339(st->str, &p->start))
		p->start = INT64_MAX;
	if (c->failed) {
		sl_pod_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void sl_pod_free(struct sl_pod *p)
{
	sl_podspec_free(&p->spec);
	free(p);
}
