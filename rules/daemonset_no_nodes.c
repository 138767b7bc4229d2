/* daemonset-no-nodes — a DaemonSet that no node of the inventory admits: DESIRED 0.
 *
 * The DaemonSet controller places a pod on each node that passes the template's nodeName,
 * nodeSelector and required node affinity, and whose NoSchedule / NoExecute taints the pod
 * tolerates with the tolerations the controller adds (sched/daemonset.c). When no node does, it
 * creates nothing: no pod is Pending, no event is written, `kubectl get ds` shows DESIRED 0. The
 * finding groups the nodes by the filter that keeps the DaemonSet off, as the scheduler's
 * "0/N nodes are available" does, and for a nodeSelector entry no node carries says which label of
 * the nodes is nearest (a typo).
 *
 * Where the DaemonSet does run, a note names the nodes of an evident role it leaves out: a role is
 * the nodes with an extended resource allocatable (nvidia.com/gpu), the nodes with one
 * node-role.kubernetes.io/ label, or one instance type. It is evident for the DaemonSet when every
 * node it runs on has the role, some nodes lack the role, and it misses no more of the role's
 * nodes than it runs on; a template that names a zone, region or node picks its nodes by place,
 * and gets no such note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../linter/base/buf.h"
#include "../linter/base/similar.h"
#include "edits.h"
#include "rules.h"

/* At most this many nodes named in a note. */
#define NAMES 5

/* The first reason of a verdict, or the plugin's name. */
static const char *reason(const struct sl_nodefit *f)
{
	return f->nreasons ? f->reasons[0] : sl_plugin_name(f->plugin);
}

/* Whether two verdicts are alike: the same filter and reason (interned: mostly the same pointer). */
static bool alike(const struct sl_nodefit *a, const struct sl_nodefit *b)
{
	const char *ra = reason(a), *rb = reason(b);
	return a->plugin == b->plugin && (ra == rb || !strcmp(ra, rb));
}

/* Nodes of m whose verdict in fits is the same as node k's, named ("a, b and 3 more") into b;
 * returns how many. With mask, only the nodes it marks. */
static size_t group_names(const struct sl_model *m, const struct sl_nodefit *fits, size_t k, const bool *mask,
			  struct sl_buf *b)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		if ((mask && !mask[i]) || !alike(&fits[i], &fits[k]))
			continue;
		if (n < NAMES)
			sl_buf_printf(b, "%s%s", n ? ", " : "", m->nodes[i]->name);
		n++;
	}
	if (n > NAMES)
		sl_buf_printf(b, " and %zu more", n - NAMES);
	return n;
}

/* Whether node k is the first of its group (the same verdict). */
static bool first_of_group(const struct sl_nodefit *fits, size_t k, const bool *mask)
{
	for (size_t i = 0; i < k; i++)
		if ((!mask || mask[i]) && alike(&fits[i], &fits[k]))
			return false;
	return true;
}

/* How many nodes carry key (with val, when val is not NULL). */
static size_t nodes_with(const struct sl_model *m, const char *key, const char *val)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		const char *v = sl_labels_get(&m->nodes[i]->labels, key);
		n += v && (!val || !strcmp(v, val));
	}
	return n;
}

/* Whether have is too long or too short to be nearer to want than best: the distance is at least
 * the difference in length, and it rules out most names without computing it. */
static bool far_by_length(const char *want, const char *have, unsigned best)
{
	size_t len = strnlen(want, SL_EDIT_DISTANCE_MAX), hl = strnlen(have, SL_EDIT_DISTANCE_MAX);
	size_t diff = len > hl ? len - hl : hl - len;
	return diff > 3 || diff >= best;
}

/* A name near enough to be a typo of want: a few edits, and no more than half its length ("ture"
 * for "true"); 0 is a difference of case. No name equals want: no node carries it. */
static bool near(const char *want, const char *have, unsigned *best)
{
	if (far_by_length(want, have, *best))
		return false;
	size_t len = strnlen(want, SL_EDIT_DISTANCE_MAX);
	unsigned d = sl_edit_distance_within(want, have, SL_EDIT_DISTANCE_MAX, 3);
	if (d > 3 || 2 * d > len || d >= *best)
		return false;
	*best = d;
	return true;
}

/* Another of the nodes' label values of key (or label keys, key NULL) as near to want as name,
 * at distance d, or NULL: a typo's fix is certain only without one. Called once per finding. */
static const char *as_near(const struct sl_model *m, const char *key, const char *want, const char *name, unsigned d)
{
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct sl_labels *l = &m->nodes[i]->labels;
		for (size_t j = 0; j < l->n; j++) {
			const char *other = key ? l->v[j].val : l->v[j].key;
			if ((key && strcmp(l->v[j].key, key)) || !strcmp(other, name))
				continue;
			if (sl_edit_distance_within(want, other, SL_EDIT_DISTANCE_MAX, d) <= d)
				return other;
		}
	}
	return NULL;
}

/* Whether name, written plain, is read back as the same string: it starts with a letter (no
 * number) and is none of the words YAML 1.1 reads as a boolean or null. */
static bool plain_string(const char *name)
{
	static const char *const typed[] = {"y", "n", "yes", "no", "true", "false", "on", "off", "null"};
	if (!((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z')))
		return false;
	for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++)
		if (!strcasecmp(name, typed[i]))
			return false;
	return true;
}

/* The typo's fix: the entry's key or value replaced by the name the nodes carry, when the name
 * needs no escape — label names and values are letters, digits, '-', '_', '.' and one '/' in a
 * key. Plain where the entry was plain and the name stays a string so; else double-quoted (a
 * value such as "true" must stay a string, and the quotes are JSON too). */
static void fix_typo(struct sl_finding *f, const struct sl_source *src, const struct sl_ynode *at, const char *name,
		     bool key)
{
	/* An entry admission merged in (a RuntimeClass's, a ResourceFlavor's) is written in another
	 * file: not the template's to fix. */
	if (!at || !src || at->at.src != src ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./") != strlen(name))
		return;
	char *title = sl_xasprintf("Use the label %s the nodes carry: %s", key ? "key" : "value", name);
	char *text = at->plain && plain_string(name) ? sl_xasprintf("%s", name) : sl_xasprintf("\"%s\"", name);
	sl_fix_replace(sl_fix_new(f, title), src, at, text);
	free(title);
	free(text);
}

/* For a nodeSelector entry no node carries: the nodes' value of its key nearest to its value, or
 * the nodes' label key nearest to its key ("did you mean"), with a fix when it is the only one
 * that near. */
static void note_nearest(struct sl_finding *f, const struct sl_model *m, const struct sl_source *src,
			 const struct sl_kv *e)
{
	const char *key = NULL, *val = NULL;
	unsigned best = ~0u;
	bool key_known = nodes_with(m, e->key, NULL) > 0;
	const char *want = key_known ? e->val : e->key;
	/* Each name compared once: nodes share their labels. Only names of a length near enough are
	 * remembered: best only falls, so a name ruled out by its length stays ruled out. */
	struct sl_strmap seen = {0};
	for (size_t i = 0; i < m->nnodes; i++) {
		const struct sl_labels *l = &m->nodes[i]->labels;
		for (size_t j = 0; j < l->n; j++) {
			const char *name = key_known ? l->v[j].val : l->v[j].key;
			if ((key_known && strcmp(l->v[j].key, e->key)) || far_by_length(want, name, best) ||
			    sl_strmap_get(&seen, name) != (size_t)-1)
				continue;
			sl_strmap_put(&seen, name, 0);
			if (!near(want, name, &best))
				continue;
			key = l->v[j].key;
			val = l->v[j].val;
		}
	}
	sl_strmap_free(&seen);
	if (!key) {
		if (key_known)
			sl_note(f, "nodeSelector %s: \"%s\": no node has that value of the label", e->key, e->val);
		else
			sl_note(f, "nodeSelector %s: \"%s\": no node has that label", e->key, e->val);
		return;
	}
	size_t n = nodes_with(m, key, val);
	const char *name = key_known ? val : key;
	const char *other = as_near(m, key_known ? e->key : NULL, want, name, best);
	char also[320] = "";
	if (other)
		snprintf(also, sizeof also, " (or %s%s%s, as near)", key_known ? "\"" : "", other,
			 key_known ? "\"" : "");
	if (key_known)
		sl_note(
		    f, "nodeSelector %s: \"%s\": no node has that value; %zu node%s ha%s %s=%s: did you mean \"%s\"%s?",
		    e->key, e->val, n, n == 1 ? "" : "s", n == 1 ? "s" : "ve", key, val, val, also);
	else
		sl_note(f, "nodeSelector %s: \"%s\": no node has that label; %zu node%s ha%s %s=%s: did you mean %s%s?",
			e->key, e->val, n, n == 1 ? "" : "s", n == 1 ? "s" : "ve", key, val, key, also);
	if (!other)
		fix_typo(f, src, key_known ? e->vnode : e->knode, name, !key_known);
}

/* What of the template's node selection the nodes in mask fail (they fail NodeAffinity): each
 * nodeSelector entry none of them carries, or the required node affinity. Returns the entry that
 * fails most of them (NULL: the affinity). */
static const struct sl_kv *explain_affinity(struct sl_finding *f, const struct sl_model *m, const struct sl_source *src,
					    const struct sl_podspec *p, const bool *mask, size_t count)
{
	const struct sl_kv *worst = NULL;
	size_t most = 0;
	for (size_t e = 0; e < p->node_selector.n; e++) {
		const struct sl_kv *kv = &p->node_selector.v[e];
		size_t miss = 0;
		for (size_t i = 0; i < m->nnodes; i++) {
			const char *v = mask[i] ? sl_labels_get(&m->nodes[i]->labels, kv->key) : NULL;
			miss += mask[i] && (!v || strcmp(v, kv->val));
		}
		if (miss > most)
			most = miss, worst = kv;
		if (miss && !nodes_with(m, kv->key, kv->val))
			note_nearest(f, m, src, kv);
	}
	if (most < count && p->has_required_affinity)
		sl_note(f, "the required node affinity (%zu nodeSelectorTerm%s, OR'd) matches %s", (size_t)p->nterms,
			p->nterms == 1 ? "" : "s", most ? "none of the others" : "none of them");
	return worst;
}

/* Where a filter's group points: the nodeSelector entry, the affinity, the tolerations, nodeName. */
static const struct sl_ynode *group_at(const struct sl_podspec *p, enum sl_plugin pl, const struct sl_kv *entry)
{
	const struct sl_ynode *at = NULL;
	if (pl == SL_PL_NODE_AFFINITY)
		at = entry              ? entry->vnode ? entry->vnode : entry->knode
		     : p->affinity_node ? p->affinity_node
					: p->node_selector_node;
	else if (pl == SL_PL_TAINT_TOLERATION)
		at = sl_ymap_key(p->node, "tolerations");
	else if (pl == SL_PL_NODE_NAME)
		at = sl_ymap_get(p->node, "nodeName");
	return at ? at : p->node && p->node->kind == SL_YMAP && p->node->n ? p->node->v[0] : NULL;
}

/* One note per group of nodes kept off alike, with a related location on its first node; returns
 * the location of the largest group's filter. mask: the nodes to group (NULL: all). */
static const struct sl_ynode *note_groups(struct sl_finding *f, const struct sl_check *cx,
					  const struct sl_daemon_fit *df, const bool *mask)
{
	const struct sl_model *m = cx->model;
	const struct sl_podspec *p = &cx->w->pod;
	const struct sl_ynode *at = NULL;
	size_t largest = 0;
	bool *in = sl_xcalloc(m->nnodes + 1, sizeof *in);
	struct sl_buf b = SL_BUF_INIT;
	for (size_t k = 0; k < m->nnodes; k++) {
		if (df->placed[k].plugin == SL_FITS || (mask && !mask[k]) || !first_of_group(df->placed, k, mask))
			continue;
		b.len = 0;
		size_t n = group_names(m, df->placed, k, mask, &b);
		sl_note(f, "%zu node%s (%s): %s: %s", n, n == 1 ? "" : "s", sl_buf_str(&b),
			sl_plugin_name(df->placed[k].plugin), reason(&df->placed[k]));
		sl_add_related(f, &m->nodes[k]->name_node->at, "node %s: %s", m->nodes[k]->name,
			       reason(&df->placed[k]));
		const struct sl_kv *entry = NULL;
		if (df->placed[k].plugin == SL_PL_NODE_AFFINITY) {
			for (size_t i = 0; i < m->nnodes; i++)
				in[i] = (!mask || mask[i]) && df->placed[i].plugin == SL_PL_NODE_AFFINITY;
			entry = explain_affinity(f, m, cx->w->obj.src, p, in, n);
		}
		if (n > largest)
			largest = n, at = group_at(p, df->placed[k].plugin, entry);
		/* A key no node carries is the typo itself: point at the key, not its value. */
		if (entry && at == entry->vnode && entry->knode && !nodes_with(m, entry->key, NULL))
			at = entry->knode;
	}
	sl_buf_free(&b);
	free(in);
	return at;
}

/* The pools whose new nodes would run it: they add nodes for Pending pods, which a DaemonSet that
 * places nothing never has. */
static void note_pools(struct sl_finding *f, const struct sl_check *cx)
{
	size_t np = cx->model->npools;
	if (!np)
		return;
	struct sl_podspec p;
	sl_daemon_pod(&cx->w->pod, &p);
	struct sl_pool_fit *pf = sl_xcalloc(np, sizeof *pf);
	sl_pools_judge(cx->model, &p, pf);
	for (size_t i = 0; i < np; i++)
		if (pf[i].admits)
			sl_note(f,
				"%s %s: a new node of it would run the DaemonSet's pod, but a pool adds nodes for "
				"Pending pods, and the DaemonSet has none",
				sl_pool_kind(pf[i].pool), pf[i].pool->obj.name);
	free(pf);
	free(p.tols);
}

static void report_nowhere(const struct sl_rule *self, struct sl_check *cx, const struct sl_daemon_fit *df)
{
	char ref[512];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	struct sl_finding *f = sl_rule_report(self, cx, NULL, "no node runs a pod of %s (DESIRED 0): %s", ref,
					      df->placed_text ? df->placed_text : "no node");
	const struct sl_ynode *at = note_groups(f, cx, df, NULL);
	if (at)
		f->at = at->at;
	note_pools(f, cx);
	sl_note(f, "fix: correct the nodeSelector / node affinity to the nodes' labels, or tolerate their taints "
		   "(the controller adds only not-ready, unreachable, the pressures, unschedulable and, for "
		   "hostNetwork, network-unavailable)");
}

/* A role: the nodes with an extended resource allocatable, a node-role.kubernetes.io/ label, or an
 * instance type; whether node i has it. */
struct role {
	const char *res, *key, *val; /* one of them */
};
static bool has_role(const struct sl_node *n, const struct role *r)
{
	if (r->res)
		return sl_res_get(&n->alloc, r->res) > 0;
	const char *v = sl_labels_get(&n->labels, r->key);
	return v && (!r->val || !strcmp(v, r->val));
}

/* Whether the template chooses its nodes by place (zone, region, hostname, node names): then the
 * nodes of a role it leaves out are left out on purpose. */
static bool by_place(const struct sl_podspec *p)
{
	static const char *const keys[] = {"topology.kubernetes.io/zone", "topology.kubernetes.io/region",
					   "kubernetes.io/hostname", "failure-domain.beta.kubernetes.io/zone"};
	if (p->node_name && *p->node_name)
		return true;
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		if (sl_labels_get(&p->node_selector, keys[k]))
			return true;
		for (size_t t = 0; t < p->nterms; t++)
			for (size_t e = 0; e < p->terms[t].nexprs; e++)
				if (!strcmp(p->terms[t].exprs[e].key, keys[k]))
					return true;
	}
	for (size_t t = 0; t < p->nterms; t++)
		if (p->terms[t].nfields)
			return true;
	return false;
}

/* The role's verdict: every node the DaemonSet runs on has it, some node lacks it, and it misses
 * at least one and no more of its nodes than it runs on. *missed: how many. */
static bool role_evident(const struct sl_model *m, const struct sl_daemon_fit *df, const struct role *r, size_t *missed)
{
	size_t in = 0, runs = 0, miss = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		bool has = has_role(m->nodes[i], r), on = df->placed[i].plugin == SL_FITS;
		if (on && !has)
			return false;
		in += has;
		runs += on;
		miss += has && !on;
	}
	*missed = miss;
	return in < m->nnodes && miss >= 1 && miss <= runs;
}

/* The first evident role, in the order: extended resources, node roles, instance types. */
static bool find_role(const struct sl_model *m, const struct sl_daemon_fit *df, struct role *out, size_t *missed)
{
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < m->nnodes; i++) {
			const struct sl_node *n = m->nodes[i];
			if (df->placed[i].plugin != SL_FITS)
				continue; /* a role of a node it runs on */
			if (pass == 0)
				for (size_t k = 0; k < n->alloc.n; k++) {
					*out = (struct role){n->alloc.v[k].name, NULL, NULL};
					if (strchr(out->res, '/') && n->alloc.v[k].amount > 0 &&
					    role_evident(m, df, out, missed))
						return true;
				}
			for (size_t k = 0; pass > 0 && k < n->labels.n; k++) {
				const char *key = n->labels.v[k].key;
				if (pass == 1 && !strncmp(key, "node-role.kubernetes.io/", 24))
					*out = (struct role){NULL, key, NULL};
				else if (pass == 2 && (!strcmp(key, "node.kubernetes.io/instance-type") ||
						       !strcmp(key, "beta.kubernetes.io/instance-type")))
					*out = (struct role){NULL, key, n->labels.v[k].val};
				else
					continue;
				if (role_evident(m, df, out, missed))
					return true;
			}
		}
	return false;
}

static void note_role(const struct sl_rule *self, struct sl_check *cx, const struct sl_daemon_fit *df)
{
	const struct sl_model *m = cx->model;
	struct role r;
	size_t missed;
	if (by_place(&cx->w->pod) || !find_role(m, df, &r, &missed))
		return;
	char ref[512], role[400];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	if (r.res)
		snprintf(role, sizeof role, "with %s allocatable", r.res);
	else if (!r.val)
		snprintf(role, sizeof role, "labelled %s", r.key);
	else
		snprintf(role, sizeof role, "of instance type %s", r.val);
	bool *mask = sl_xcalloc(m->nnodes + 1, sizeof *mask);
	size_t in = 0;
	for (size_t i = 0; i < m->nnodes; i++) {
		mask[i] = has_role(m->nodes[i], &r) && df->placed[i].plugin != SL_FITS;
		in += has_role(m->nodes[i], &r);
	}
	struct sl_finding *f =
	    sl_rule_report(self, cx, NULL, "%s runs on %zu of the %zu nodes %s, but not on %zu of them", ref,
			   in - missed, in, role, missed);
	f->level = SL_NOTE;
	const struct sl_ynode *at = note_groups(f, cx, df, mask);
	if (at)
		f->at = at->at;
	free(mask);
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	if (strcmp(cx->w->obj.kind, "DaemonSet") || !cx->a || !cx->cluster || !cx->model->nnodes)
		return;
	const struct sl_daemon_fit *df = sl_daemon_fit(cx->cluster, cx->w, cx->a);
	if (!df->nplaced)
		report_nowhere(self, cx, df);
	else
		note_role(self, cx, df);
}

const struct sl_rule sl_rule_daemonset_no_nodes = {
    .id = "daemonset-no-nodes",
    .name = "DaemonSetPlacedNowhere",
    .summary = "No node of the inventory admits the DaemonSet (DESIRED 0).",
    .description = "The DaemonSet controller places a pod on every node that matches the template's nodeName, "
		   "nodeSelector and required node affinity and whose NoSchedule / NoExecute taints it tolerates "
		   "(with the tolerations the controller adds). When no node of the inventory does, it creates no "
		   "pod at all: nothing is Pending and nothing reports an error.",
    .help = "Read the groups of nodes and the filter that keeps each off: correct the `nodeSelector` or node "
	    "affinity to the labels the nodes carry (a typo in a label is the common case), or add tolerations "
	    "for their taints.",
    .level = SL_WARNING,
    .needs_nodes = true,
    .check = check,
};
