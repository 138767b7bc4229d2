/* nodepool.c — reading node pools (see nodepool.h): Karpenter NodePools from the manifests or an
 * inventory, node groups from the config, and what a new node of each carries. */
#include "nodepool.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/diag.h"
#include "model_read.h"

void sl_pool_free(struct sl_pool *p)
{
	if (!p)
		return;
	free(p->labels.v);
	for (size_t i = 0; i < p->nreqs; i++)
		free(p->reqs[i].vals);
	free(p->reqs);
	sl_kreqs_free(&p->kreqs);
	free(p->taints);
	free(p->startup);
	sl_res_free(&p->limits);
	sl_res_free(&p->alloc);
	free(p->class_label);
	free(p->members);
	sl_res_free(&p->members_alloc);
	free(p);
}

static void add_label(struct sl_pool *p, const char *key, const char *val, const struct sl_ynode *at)
{
	if (sl_labels_get(&p->labels, key))
		return;
	p->labels.v = sl_xrealloc(p->labels.v, (p->labels.n + 1) * sizeof *p->labels.v);
	p->labels.v[p->labels.n++] = (struct sl_kv){key, val, at, at};
}

static void read_taints(struct sl_read *c, const struct sl_ynode *seq, const char *path, struct sl_taint **out,
			size_t *n)
{
	if (!seq)
		return;
	*out = sl_xcalloc(seq->n + 1, sizeof **out);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *t = seq->v[i];
		if (t->kind != SL_YMAP) {
			sl_read_error(c, t, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(t));
			continue;
		}
		struct sl_taint *ta = &(*out)[(*n)++];
		const char *s;
		ta->node = t;
		ta->key = (s = sl_read_str(c, t, "key", "taint key")) ? s : "";
		ta->value = (s = sl_read_str(c, t, "value", "taint value")) ? s : "";
		ta->effect = (s = sl_read_str(c, t, "effect", "taint effect")) ? s : "";
		if (strcmp(ta->effect, "NoSchedule") && strcmp(ta->effect, "PreferNoSchedule") &&
		    strcmp(ta->effect, "NoExecute"))
			sl_read_error(c, sl_ymap_get(t, "effect") ? sl_ymap_get(t, "effect") : t,
				      "%s[%zu].effect must be NoSchedule, PreferNoSchedule or NoExecute", path, i);
	}
}

/* A whole number in [lo, hi] at n (absent: keeps *out). */
static void read_int(struct sl_read *c, const struct sl_ynode *n, const char *path, int64_t lo, int64_t hi,
		     int64_t *out)
{
	if (sl_ynull(n))
		return;
	char *end = NULL;
	errno = 0;
	long long v = n->kind == SL_YSCALAR ? strtoll(n->str, &end, 10) : 0;
	if (n->kind != SL_YSCALAR || !*n->str || *end || errno || v < lo || v > hi) {
		sl_read_error(c, n, "%s must be a whole number from %lld to %lld", path, (long long)lo, (long long)hi);
		return;
	}
	*out = v;
}

/* Karpenter's validation of a requirement (the NodePool CRD's rules): In takes at least one value
 * ("requirements with operator 'In' must have a value defined": the API server rejects the pool),
 * Gt and Lt one integer value; minValues, read and otherwise ignored, is a whole number. */
static void check_requirements(struct sl_read *c, struct sl_pool *p, const char *path)
{
	for (size_t i = 0; i < p->nreqs; i++) {
		const struct sl_requirement *r = &p->reqs[i];
		if (r->op == SL_OP_BAD)
			continue; /* reported by sl_read_requirements */
		int64_t mv = 0;
		read_int(c, sl_ymap_get(r->node, "minValues"), "minValues", 1, 50, &mv);
		if (r->op == SL_OP_IN && !r->nvals) {
			const struct sl_ynode *v = sl_ymap_get(r->node, "values");
			sl_read_error(c, v ? v : r->node, "%s[%zu]: operator In takes at least one value", path, i);
			continue;
		}
		if (!sl_kreqs_add_requirement(&p->kreqs, r)) {
			const struct sl_ynode *v = sl_ymap_get(r->node, "values");
			sl_read_error(c, v ? v : r->node, "%s[%zu]: %s takes one integer value, as in values: [\"4\"]",
				      path, i, sl_op_name(r->op));
		}
		if (r->op == SL_OP_IN && r->nvals == 1)
			add_label(p, r->key, r->vals[0], r->node);
	}
}

/* nodeClassRef: its name, and the label NodeClaims get from it ("karpenter.k8s.aws/ec2nodeclass"). */
static void read_node_class(struct sl_read *c, const struct sl_ynode *ref, struct sl_pool *p)
{
	if (!ref)
		return;
	p->node_class = sl_read_str(c, ref, "name", "nodeClassRef.name");
	const char *kind = sl_read_str(c, ref, "kind", "nodeClassRef.kind");
	const char *group = sl_read_str(c, ref, "group", "nodeClassRef.group");
	const char *av = group ? NULL : sl_read_str(c, ref, "apiVersion", "nodeClassRef.apiVersion");
	size_t gl = group ? strlen(group) : av ? strcspn(av, "/") : 0;
	if (!p->node_class || !kind || !gl)
		return;
	p->class_label = sl_xasprintf("%.*s/%s", (int)gl, group ? group : av, kind);
	for (char *s = p->class_label + gl + 1; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static void read_template(struct sl_read *c, const struct sl_ynode *spec, struct sl_pool *p)
{
	const struct sl_ynode *tp = sl_read_want(c, spec, "template", SL_YMAP, "spec.template");
	const struct sl_ynode *md = sl_read_want(c, tp, "metadata", SL_YMAP, "spec.template.metadata");
	sl_read_labels(c, sl_read_want(c, md, "labels", SL_YMAP, "spec.template.metadata.labels"),
		       "spec.template.metadata.labels", &p->labels);
	const struct sl_ynode *ts = sl_read_want(c, tp, "spec", SL_YMAP, "spec.template.spec");
	sl_read_requirements(c, sl_read_want(c, ts, "requirements", SL_YSEQ, "spec.template.spec.requirements"),
			     "spec.template.spec.requirements", &p->reqs, &p->nreqs);
	check_requirements(c, p, "spec.template.spec.requirements");
	read_taints(c, sl_read_want(c, ts, "taints", SL_YSEQ, "spec.template.spec.taints"), "spec.template.spec.taints",
		    &p->taints, &p->ntaints);
	read_taints(c, sl_read_want(c, ts, "startupTaints", SL_YSEQ, "spec.template.spec.startupTaints"),
		    "spec.template.spec.startupTaints", &p->startup, &p->nstartup);
	read_node_class(c, sl_read_want(c, ts, "nodeClassRef", SL_YMAP, "spec.template.spec.nodeClassRef"), p);
}

/* The labels as requirements, after the requirements themselves (NewNodeClaimTemplate). */
static void label_requirements(struct sl_pool *p)
{
	for (size_t i = 0; i < p->labels.n; i++)
		sl_kreqs_add_in(&p->kreqs, p->labels.v[i].key, p->labels.v[i].val);
}

int sl_pool_read(struct sl_read *c, const struct sl_object *o, struct sl_pool **out)
{
	*out = NULL;
	if (strcmp(o->api_version, "karpenter.sh/v1") && strcmp(o->api_version, "karpenter.sh/v1beta1"))
		return 0; /* v1alpha5 and other groups' NodePools are not Karpenter's of today */
	if (!sl_yscalar(o->name_node) || sl_ynull(o->name_node)) {
		sl_read_error(c, o->kind_node, "NodePool has no metadata.name");
		return -1;
	}
	struct sl_pool *p = sl_xcalloc(1, sizeof *p);
	p->obj = *o;
	p->kind = SL_POOL_KARPENTER;
	p->max = -1;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	read_template(c, spec, p);
	sl_read_reslist(c, sl_read_want(c, spec, "limits", SL_YMAP, "spec.limits"), "spec.limits", &p->limits);
	read_int(c, sl_ymap_get(spec, "weight"), "spec.weight", 1, 100, &p->weight);
	add_label(p, "karpenter.sh/nodepool", p->obj.name, o->name_node);
	if (p->class_label)
		add_label(p, p->class_label, p->node_class, NULL);
	label_requirements(p);
	if (c->failed) {
		sl_pool_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

/* The keys of a group and of its template, and the template. */
static const struct sl_ynode *group_template(struct sl_read *c, const struct sl_ynode *m)
{
	static const char *const keys[] = {"name", "template", "max", NULL};
	static const char *const tkeys[] = {"labels", "taints", "allocatable", "fromNode", NULL};
	for (size_t i = 0; i < m->n; i++) {
		const struct sl_ynode *k = m->v[2 * i];
		size_t j = 0;
		while (keys[j] && !sl_yis(k, keys[j]))
			j++;
		if (!keys[j])
			sl_read_error(c, k, "unknown key '%s' in a node pool (known: name, template, max)",
				      sl_yscalar(k) ? k->str : "?");
	}
	const struct sl_ynode *t = sl_read_want(c, m, "template", SL_YMAP, "nodePools[].template");
	for (size_t i = 0; t && i < t->n; i++) {
		const struct sl_ynode *k = t->v[2 * i];
		size_t j = 0;
		while (tkeys[j] && !sl_yis(k, tkeys[j]))
			j++;
		if (!tkeys[j])
			sl_read_error(c, k,
				      "unknown key '%s' in a node pool's template (known: labels, taints, allocatable, "
				      "fromNode)",
				      sl_yscalar(k) ? k->str : "?");
	}
	if (!t)
		sl_read_error(c, m, "a node pool needs a 'template' (labels, taints, allocatable, or fromNode)");
	return t;
}

int sl_pool_read_group(const struct sl_source *src, const struct sl_ynode *m, struct sl_findings *errs,
		       struct sl_pool **out)
{
	struct sl_read c = {src, errs, 0};
	*out = NULL;
	if (!m || m->kind != SL_YMAP) {
		sl_read_error(&c, m, "nodePools: each entry must be a mapping (name, template, max)");
		return -1;
	}
	struct sl_pool *p = sl_xcalloc(1, sizeof *p);
	p->kind = SL_POOL_GROUP;
	p->inventory = true;
	p->max = -1;
	p->obj.src = src;
	p->obj.root = m;
	p->obj.kind = "node group";
	p->obj.api_version = p->obj.namespace = "";
	p->obj.kind_node = m;
	p->obj.name = sl_read_str(&c, m, "name", "nodePools[].name");
	p->obj.name_node = sl_ymap_get(m, "name");
	if (!p->obj.name)
		sl_read_error(&c, m, "a node pool needs a 'name'");
	const struct sl_ynode *t = group_template(&c, m);
	p->max_node = sl_ymap_get(m, "max");
	read_int(&c, p->max_node, "max", 0, INT32_MAX, &p->max);
	sl_read_labels(&c, sl_read_want(&c, t, "labels", SL_YMAP, "template.labels"), "template.labels", &p->labels);
	read_taints(&c, sl_read_want(&c, t, "taints", SL_YSEQ, "template.taints"), "template.taints", &p->taints,
		    &p->ntaints);
	const struct sl_ynode *al = sl_read_want(&c, t, "allocatable", SL_YMAP, "template.allocatable");
	sl_read_reslist(&c, al, "template.allocatable", &p->alloc);
	p->alloc_known = al != NULL;
	p->from_node = sl_read_str(&c, t, "fromNode", "template.fromNode");
	p->from_node_node = sl_ymap_get(t, "fromNode");
	if (p->from_node && (p->labels.n || p->ntaints || al))
		sl_read_error(&c, p->from_node_node,
			      "template.fromNode copies a node's labels, taints and allocatable: give it alone");
	label_requirements(p);
	if (c.failed) {
		sl_pool_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

struct sl_pool *sl_pool_copy(const struct sl_pool *p)
{
	struct sl_pool *q = sl_xcalloc(1, sizeof *q);
	*q = *p;
	q->labels.v = sl_xcalloc(p->labels.n + 1, sizeof *q->labels.v);
	if (p->labels.n)
		memcpy(q->labels.v, p->labels.v, p->labels.n * sizeof *q->labels.v);
	q->reqs = NULL;
	q->nreqs = 0; /* a group has none */
	q->kreqs = (struct sl_kreqs){0};
	label_requirements(q);
	q->taints = sl_xcalloc(p->ntaints + 1, sizeof *q->taints);
	if (p->ntaints)
		memcpy(q->taints, p->taints, p->ntaints * sizeof *q->taints);
	q->startup = NULL;
	q->nstartup = 0;
	q->members = NULL; /* the model's inventory's, indexed there */
	q->nmembers = 0;
	q->members_alloc = (struct sl_reslist){0};
	q->limits = (struct sl_reslist){0};
	q->alloc = (struct sl_reslist){0};
	for (size_t i = 0; i < p->alloc.n; i++)
		sl_res_add(&q->alloc, p->alloc.v[i].name, p->alloc.v[i].amount, p->alloc.v[i].node);
	q->class_label = NULL;
	return q;
}

int sl_pool_resolve(struct sl_pool *p, struct sl_node *const *nodes, size_t nnodes, struct sl_findings *errs)
{
	if (!p->from_node)
		return 0;
	const struct sl_node *n = NULL;
	for (size_t i = 0; i < nnodes && !n; i++)
		if (!strcmp(nodes[i]->name, p->from_node))
			n = nodes[i];
	if (!n) {
		struct sl_read c = {p->obj.src, errs, 0};
		sl_read_error(&c, p->from_node_node, "template.fromNode: no node named '%s' in the inventory",
			      p->from_node);
		return -1;
	}
	/* Every label but the hostname: a new node of the group is another host. */
	for (size_t i = 0; i < n->labels.n; i++)
		if (strcmp(n->labels.v[i].key, "kubernetes.io/hostname"))
			add_label(p, n->labels.v[i].key, n->labels.v[i].val, n->labels.v[i].knode);
	label_requirements(p);
	p->taints = sl_xrealloc(p->taints, (p->ntaints + n->ntaints + 1) * sizeof *p->taints);
	for (size_t i = 0; i < n->ntaints; i++)
		p->taints[p->ntaints++] = n->taints[i];
	for (size_t i = 0; i < n->alloc.n; i++)
		sl_res_add(&p->alloc, n->alloc.v[i].name, n->alloc.v[i].amount, n->alloc.v[i].node);
	p->alloc_known = true;
	return 0;
}

bool sl_pool_owns(const struct sl_pool *p, const struct sl_node *n)
{
	if (p->kind == SL_POOL_KARPENTER) {
		const char *v = sl_labels_get(&n->labels, "karpenter.sh/nodepool");
		return v && !strcmp(v, p->obj.name);
	}
	if (!p->labels.n)
		return false; /* a group without labels cannot tell its nodes from the others */
	for (size_t i = 0; i < p->labels.n; i++) {
		const char *v = sl_labels_get(&n->labels, p->labels.v[i].key);
		if (!v || strcmp(v, p->labels.v[i].val))
			return false;
	}
	return true;
}

void sl_pool_index(struct sl_pool *p, struct sl_node *const *nodes, size_t n)
{
	free(p->members);
	sl_res_free(&p->members_alloc);
	p->members = NULL;
	p->nmembers = 0;
	for (size_t i = 0; i < n; i++) {
		if (!sl_pool_owns(p, nodes[i]))
			continue;
		if (!p->members)
			p->members = sl_xcalloc(n - i + 1, sizeof *p->members);
		p->members[p->nmembers++] = nodes[i];
		for (size_t r = 0; r < nodes[i]->alloc.n; r++)
			sl_res_add(&p->members_alloc, nodes[i]->alloc.v[r].name, nodes[i]->alloc.v[r].amount, NULL);
	}
}
