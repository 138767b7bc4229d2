/* config_targets.c — which files form one cluster, and its inventory: the config's `targets:`
 * (a name, a pattern on file paths, their own nodes, pods and Kubernetes release) and the
 * top-level defaults (`nodes:`, `pods:`, `kubernetesVersion:`). A file of its own because these
 * sections say what a cluster is made of, and resolve their paths against the config's
 * directory; config.c only asks which target a file belongs to. */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../load/source.h"
#include "../load/path.h"
#include "../model/kversion.h"
#include "../model/nodepool.h"

/* A path from the config, resolved against its directory. */
static char *resolve(const struct sl_config *c, const char *p)
{
	if (p[0] == '/')
		return sl_xstrdup(p);
	/* Relative to the working directory when that is where the config is: what the user typed
	 * and what messages then show. */
	if (!strcmp(c->dir, c->cwd))
		return sl_path_normalize(p);
	char *abs = sl_xasprintf("%s/%s", c->dir, p);
	char *n = sl_path_normalize(abs);
	free(abs);
	return n;
}

void sl_cfg_read_paths(struct sl_cfg_reader *r, const struct sl_ynode *v, const char *what, char ***out, size_t *n)
{
	const struct sl_ynode **items;
	long k = sl_cfg_scalars(r, v, what, &items);
	for (long i = 0; i < k; i++) {
		*out = sl_xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = resolve(r->c, items[i]->str);
	}
	free(items);
}

/* kubernetesVersion: "1.30" (kversion.h), at the top level or in a target. */
void sl_cfg_read_kube_version(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *what, int *minor,
			      const char **text)
{
	const char *s = sl_cfg_string(r, map, "kubernetesVersion", what, false);
	if (!s)
		return;
	if (sl_kube_parse(s, minor) < 0 || *minor < SL_KUBE_MIN) {
		sl_cfg_fail(r, sl_ymap_get(map, "kubernetesVersion"),
			    "kubernetesVersion is a Kubernetes release from 1.%d, such as \"1.%d\", not '%s'",
			    SL_KUBE_MIN, SL_KUBE_DEFAULT, s);
		*minor = 0;
		return;
	}
	*text = s;
}

void sl_cfg_read_gates(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *what, struct sl_gates *g)
{
	const struct sl_ynode *v = sl_ymap_get(map, "featureGates");
	sl_gates_init(g);
	if (sl_ynull(v))
		return;
	if (v->kind != SL_YMAP) {
		sl_cfg_fail(r, v, "featureGates of %s is a mapping of gate names to true or false, not %s", what,
			    sl_ykind_name(v));
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct sl_ynode *k = v->v[2 * i], *b = v->v[2 * i + 1];
		int on = sl_yscalar(b) && b->plain ? sl_gate_bool(b->str, b->len) : -1;
		if (on < 0) {
			sl_cfg_fail(r, b, "featureGates: %s is true or false, not %s%s%s", k->str ? k->str : "a gate",
				    sl_yscalar(b) ? "'" : "", sl_yscalar(b) ? b->str : sl_ykind_name(b),
				    sl_yscalar(b) ? "'" : "");
			continue;
		}
		int gi = k->str ? sl_gate_find(k->str, k->len) : -1;
		if (gi < 0) {
			const char *near = k->str ? sl_gate_closest(k->str, k->len) : NULL;
			sl_input_warning(r->errs, &k->at,
					 "featureGates: %s is not a feature gate schedlint models%s%s%s; it is ignored",
					 k->str ? k->str : "the key", near ? " (did you mean " : "", near ? near : "",
					 near ? "?)" : "");
			continue;
		}
		g->v[gi] = on ? 1 : -1;
		g->from[gi] = "featureGates in the config";
	}
}

void sl_cfg_read_targets(struct sl_cfg_reader *r, const struct sl_ynode *v)
{
	static const char *const keys[] = {"name",         "paths", "nodes", "pods", "nodePools", "kubernetesVersion",
					   "featureGates", NULL};
	if (!sl_cfg_map_list(r, v, "targets", "a target"))
		return;
	struct sl_config *c = r->c;
	c->targets = sl_xcalloc(v->n + 1, sizeof *c->targets);
	for (size_t i = 0; i < v->n; i++) {
		const struct sl_ynode *m = v->v[i];
		if (m->kind != SL_YMAP)
			continue;
		sl_cfg_known_keys(r, m, "a target", keys);
		struct sl_target *t = &c->targets[c->ntargets++];
		t->node = m;
		t->name = sl_cfg_string(r, m, "name", "a target", true);
		for (size_t j = 0; t->name && j + 1 < c->ntargets; j++)
			if (c->targets[j].name && !strcmp(c->targets[j].name, t->name))
				sl_cfg_fail(r, sl_ymap_get(m, "name"), "target name '%s' is already used at line %u",
					    t->name, sl_span_line(&c->targets[j].node->at));
		if (t->name && !strcmp(t->name, "default"))
			sl_cfg_fail(r, sl_ymap_get(m, "name"),
				    "target name 'default' is reserved for the files under no target");
		const struct sl_ynode *pv = sl_ymap_get(m, "paths");
		if (!pv)
			sl_cfg_fail(r, m, "a target needs 'paths' (a pattern on file paths)");
		else
			sl_cfg_compile(r, pv, &t->paths);
		sl_cfg_read_paths(r, sl_ymap_get(m, "nodes"), "nodes", &t->nodes, &t->nnodes);
		sl_cfg_read_paths(r, sl_ymap_get(m, "pods"), "pods", &t->pods, &t->npods);
		sl_cfg_read_kube_version(r, m, "a target", &t->kube_minor, &t->kube_text);
		sl_cfg_read_gates(r, m, "a target", &t->gates);
		sl_cfg_read_pools(r, sl_ymap_get(m, "nodePools"), &t->pools, &t->npools);
	}
}

/* nodePools: [{name, template: {labels, taints, allocatable} | {fromNode}, max}], the node groups
 * of cluster-autoscaler and managed node groups, whose definitions live in the cloud. A name is
 * given once per cluster. */
void sl_cfg_read_pools(struct sl_cfg_reader *r, const struct sl_ynode *v, struct sl_pool ***out, size_t *n)
{
	if (!sl_cfg_map_list(r, v, "nodePools", "a node pool"))
		return;
	for (size_t i = 0; i < v->n; i++) {
		if (v->v[i]->kind != SL_YMAP)
			continue;
		struct sl_pool *p;
		if (sl_pool_read_group(r->c->src, v->v[i], r->errs, &p) < 0) {
			r->bad = 1;
			continue;
		}
		for (size_t j = 0; j < *n; j++)
			if (!strcmp((*out)[j]->obj.name, p->obj.name))
				sl_cfg_fail(r, p->obj.name_node, "node pool name '%s' is already used at line %u",
					    p->obj.name, sl_span_line(&(*out)[j]->obj.name_node->at));
		*out = sl_xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = p;
	}
}
