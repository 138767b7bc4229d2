/* cluster.c — the cluster index (see cluster.h): running pods by node, namespace and label,
 * the running pods with anti-affinity, node classes and topology domains. */
#include "cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/quantity.h"
#include "dra.h"
#include "plugin.h"

static bool pod_running(const struct sl_pod *p)
{
	/* The scheduler's cache leaves out finished pods. */
	return strcmp(p->phase, "Succeeded") && strcmp(p->phase, "Failed") && p->spec.node_name;
}

static bool terms_keep_namespace(const struct sl_podspec *p)
{
	for (size_t t = 0; t < p->nanti; t++)
		if (p->anti[t].nnamespaces || p->anti[t].has_ns_selector)
			return false;
	return true;
}

/* Labels by key: a label set's keys are unique (the YAML map resolved duplicates), so the
 * order is total. */
static int cmp_label(const void *a, const void *b)
{
	return strcmp((*(const struct sl_kv *const *)a)->key, (*(const struct sl_kv *const *)b)->key);
}

/* The class key of a node: cordon, taints, and its labels but the hostname, sorted. Built with
 * the buffer API, not printf: it runs for every node each time a cluster index is made. The
 * labels are sorted as entries, key and value together, so no value is looked up by its key. */
static void class_key(const struct sl_node *nd, struct sl_buf *b)
{
	sl_buf_reset(b);
	sl_buf_puti(b, nd->unschedulable);
	for (size_t t = 0; t < nd->ntaints; t++) {
		sl_buf_putc(b, '\x1e');
		sl_buf_puts(b, nd->taints[t].key);
		sl_buf_putc(b, '\x1f');
		sl_buf_puts(b, nd->taints[t].value);
		sl_buf_putc(b, '\x1f');
		sl_buf_puts(b, nd->taints[t].effect);
	}
	/* A node's few labels fit on the stack; more take the heap. */
	const struct sl_kv *few[32], **kv = nd->labels.n <= 32 ? few : sl_xcalloc(nd->labels.n, sizeof *kv);
	size_t nkv = 0;
	for (size_t l = 0; l < nd->labels.n; l++)
		if (strcmp(nd->labels.v[l].key, "kubernetes.io/hostname"))
			kv[nkv++] = &nd->labels.v[l];
	qsort(kv, nkv, sizeof *kv, cmp_label);
	sl_buf_puts(b, "\x1d");
	for (size_t l = 0; l < nkv; l++) {
		sl_buf_putc(b, '\x1e');
		sl_buf_puts(b, kv[l]->key);
		sl_buf_putc(b, '\x1f');
		sl_buf_puts(b, kv[l]->val);
	}
	if (kv != few)
		free(kv);
}

static void topo_add(struct sl_cluster *c, const char *key);

/* The one value an In requirement of sel requires, as "key\x1fvalue" in b (with ns, after it, as
 * "ns\x1fkey\x1fvalue"); NULL when none does. */
static const char *required_pair(const struct sl_selector *sel, struct sl_buf *b, const char *ns)
{
	for (size_t r = 0; sel && !sel->nothing && r < sel->nreqs; r++)
		if (sel->reqs[r].op == SL_OP_IN && sel->reqs[r].nvals == 1)
			return ns ? sl_group_key(b, ns, sel->reqs[r].key, sel->reqs[r].vals[0])
				  : sl_group_key(b, sel->reqs[r].key, sel->reqs[r].vals[0], NULL);
	return NULL;
}

/* The groups the running pods went under, by template: pods made from one template (a
 * release's pods, placed where they fit) share labels, namespace and terms by address, and
 * the next pod of a template goes under its groups again without a key built or looked up.
 * Kept from the first sl_cluster_refresh while the cluster lives: the group indexes keep their
 * keys when the pods are indexed again, so a group's number stays good. Open addressing on the
 * template's addresses; cap is a power of two. */
enum { BY_NS, BY_LABEL, BY_PAIR, ANTI_BY_NS, ANTI_WILD, NGROUPINGS };
struct pod_group {
	unsigned char by; /* which index: BY_NS .. ANTI_WILD */
	size_t g;
};
struct pod_template {
	const struct sl_podspec *of;
	size_t from, to; /* its groups: gs[from .. to) */
};
struct sl_pod_templates {
	size_t *slot; /* template index + 1; 0: empty */
	size_t cap;
	struct pod_template *v;
	size_t n, capv;
	struct pod_group *gs;
	size_t ngs, capgs;
	/* Kept for grow_pods: the nodes by name, how many of the model's pods are indexed, and per
	 * node the nonzero requests of those (the index's own arrays count the charged ones too). */
	struct sl_strmap names;
	size_t mpods;
	int64_t *nz_cpu, *nz_mem;
};

static bool same_template(const struct sl_podspec *p, const struct sl_podspec *q)
{
	return p->labels.v == q->labels.v && p->labels.n == q->labels.n && p->namespace == q->namespace &&
	       p->anti == q->anti && p->nanti == q->nanti;
}

static size_t template_hash(const struct sl_podspec *p, size_t cap)
{
	/* Every address same_template compares, so that pods without labels spread too. */
	uint64_t x = (uint64_t)(uintptr_t)p->labels.v ^ ((uint64_t)(uintptr_t)p->namespace * 31) ^
		     ((uint64_t)(uintptr_t)p->anti * 961) ^ p->labels.n ^ ((uint64_t)p->nanti << 32);
	return (size_t)((x ^ (x >> 29)) * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}

/* The slot of p's template: its own, or the empty one where it goes (room made first). */
static size_t *template_slot(struct sl_pod_templates *t, const struct sl_podspec *p)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		free(t->slot);
		t->slot = sl_xcalloc(cap, sizeof *t->slot);
		t->cap = cap;
		for (size_t i = 0; i < t->n; i++) {
			size_t h = template_hash(t->v[i].of, cap);
			while (t->slot[h])
				h = (h + 1) & (cap - 1);
			t->slot[h] = i + 1;
		}
	}
	size_t h = template_hash(p, t->cap);
	while (t->slot[h] && !same_template(p, t->v[t->slot[h] - 1].of))
		h = (h + 1) & (t->cap - 1);
	return &t->slot[h];
}

static void templates_free(struct sl_pod_templates *t)
{
	if (!t)
		return;
	free(t->slot);
	free(t->v);
	free(t->gs);
	sl_strmap_free(&t->names);
	free(t->nz_cpu);
	free(t->nz_mem);
	free(t);
}

static void pod_group(struct sl_pod_templates *t, unsigned by, size_t g)
{
	if (!t)
		return;
	sl_grow(&t->gs, &t->capgs, t->ngs + 1, sizeof *t->gs);
	t->gs[t->ngs++] = (struct pod_group){(unsigned char)by, g};
}

static void group_builders(struct sl_cluster *c, struct sl_group_builder *b)
{
	struct sl_group_index *gi[NGROUPINGS] = {&c->by_ns, &c->by_label, &c->by_pair, &c->anti_by_ns, &c->anti_wild};
	for (unsigned i = 0; i < NGROUPINGS; i++)
		b[i] = (struct sl_group_builder){gi[i], NULL, 0, 0};
}

/* Running pod k under its groups, in b. */
static void index_pod(struct sl_cluster *c, struct sl_group_builder *b, struct sl_buf *key, size_t k)
{
	const struct sl_podspec *p = &c->pods[k]->spec;
	struct sl_pod_templates *t = c->templates;
	size_t *slot = t ? template_slot(t, p) : NULL;
	if (slot && *slot) {
		const struct pod_template *tp = &t->v[*slot - 1];
		for (size_t i = tp->from; i < tp->to; i++)
			sl_group_add_to(&b[t->gs[i].by], t->gs[i].g, k);
		return;
	}
	size_t from = t ? t->ngs : 0;
	pod_group(t, BY_NS, sl_group_add(&b[BY_NS], p->namespace, k));
	for (size_t l = 0; l < p->labels.n; l++) {
		const struct sl_kv *lb = &p->labels.v[l];
		pod_group(t, BY_PAIR, sl_group_add(&b[BY_PAIR], sl_group_key(key, lb->key, lb->val, NULL), k));
		pod_group(t, BY_LABEL,
			  sl_group_add(&b[BY_LABEL], sl_group_key(key, p->namespace, lb->key, lb->val), k));
	}
	/* Its terms under the pairs they require (cluster.h): a pod meets only those that may select it. */
	bool keep_ns = terms_keep_namespace(p);
	for (size_t a = 0; a < p->nanti && keep_ns; a++) {
		const char *req = required_pair(&p->anti[a].sel, key, p->namespace);
		pod_group(t, ANTI_BY_NS, sl_group_add(&b[ANTI_BY_NS], req ? req : p->namespace, k));
	}
	for (size_t a = 0; a < p->nanti && !keep_ns; a++) {
		const char *req = required_pair(&p->anti[a].sel, key, NULL);
		if (!p->anti[a].sel.nothing) /* a term that selects nothing excludes nothing */
			pod_group(t, ANTI_WILD, sl_group_add(&b[ANTI_WILD], req ? req : "", k));
	}
	if (t) {
		sl_grow(&t->v, &t->capv, t->n + 1, sizeof *t->v);
		t->v[t->n++] = (struct pod_template){p, from, t->ngs};
		*slot = t->n;
	}
}

/* The running pods by namespace and label, and those with anti-affinity. */
static void index_running(struct sl_cluster *c)
{
	struct sl_group_builder b[NGROUPINGS];
	group_builders(c, b);
	struct sl_buf key = SL_BUF_INIT;
	for (size_t k = 0; k < c->npods; k++) {
		c->all[k] = k;
		index_pod(c, b, &key, k);
	}
	for (unsigned i = 0; i < NGROUPINGS; i++)
		sl_group_finish(&b[i]);
	sl_buf_free(&key);
}

/* Per node, the load scoring reads, from the nodes (a refresh: their allocatable is as it was). */
static void node_used(struct sl_cluster *c)
{
	const struct sl_model *m = c->m;
	for (size_t i = 0; i < c->n; i++) {
		c->used_eph[i] = sl_res_get(&m->nodes[i]->used, "ephemeral-storage");
		c->used_cpu[i] = sl_res_get(&m->nodes[i]->used, "cpu");
		c->used_mem[i] = sl_res_get(&m->nodes[i]->used, "memory");
		c->room[i] = m->nodes[i]->max_pods - m->nodes[i]->npods;
	}
}

/* Per node, the allocatable and the load scoring reads, from the nodes. */
static void node_loads(struct sl_cluster *c)
{
	const struct sl_model *m = c->m;
	for (size_t i = 0; i < c->n; i++) {
		c->alloc_eph[i] = sl_res_get(&m->nodes[i]->alloc, "ephemeral-storage");
		c->alloc_cpu[i] = sl_res_get(&m->nodes[i]->alloc, "cpu");
		c->alloc_mem[i] = sl_res_get(&m->nodes[i]->alloc, "memory");
	}
	node_used(c);
}

/* Per node, the resources scoring and NodeResourcesFit read, as flat arrays: one block, nz_cpu's
 * (free_node_arrays). */
static void node_resources(struct sl_cluster *c)
{
	int64_t **arrays[] = {&c->nz_cpu,   &c->nz_mem,    &c->alloc_cpu, &c->alloc_mem, &c->used_cpu,
			      &c->used_mem, &c->alloc_eph, &c->used_eph,  &c->room,      &c->port_pods};
	size_t na = sizeof arrays / sizeof arrays[0], n1 = c->n + 1;
	int64_t *block = sl_xcalloc(na * n1, sizeof *block);
	for (size_t a = 0; a < na; a++)
		*arrays[a] = block + a * n1;
	node_loads(c);
}

/* Nodes with the same class key share the node-only filters' verdicts. */
static void classify_nodes(struct sl_cluster *c)
{
	struct sl_buf key = SL_BUF_INIT;
	c->cls = sl_xcalloc(c->n + 1, sizeof *c->cls);
	for (size_t i = 0; i < c->n; i++) {
		class_key(c->m->nodes[i], &key);
		c->cls[i] = sl_intern_id(&c->classes, sl_buf_str(&key));
	}
	c->ncls = c->classes.n;
	sl_buf_free(&key);
}

/* The keys of the running pods' anti-affinity (a pod's term may name a key no workload does). */
static void prepare_pod_topologies(struct sl_cluster *c)
{
	for (size_t k = 0; k < c->npods; k++)
		for (size_t t = 0; t < c->pods[k]->spec.nanti; t++)
			topo_add(c, c->pods[k]->spec.anti[t].topology_key);
}

/* Every topology key the analyses ask about, now: they run on threads, the table must not move. */
static void prepare_topologies(struct sl_cluster *c)
{
	const struct sl_model *m = c->m;
	for (size_t w = 0; w < m->nworkloads; w++) {
		const struct sl_podspec *p = &m->workloads[w]->pod;
		for (size_t t = 0; t < p->naffinity; t++)
			topo_add(c, p->affinity[t].topology_key);
		for (size_t t = 0; t < p->nanti; t++)
			topo_add(c, p->anti[t].topology_key);
		for (size_t t = 0; t < p->nspread; t++)
			topo_add(c, p->spread[t].topology_key);
	}
	/* The keys of PodTopologySpread's system defaults, which score most controllers' pods. */
	topo_add(c, "kubernetes.io/hostname");
	topo_add(c, "topology.kubernetes.io/zone");
	prepare_pod_topologies(c);
}

/* Running pod p among those that may be preemption victims: the lowest priority, and whether one
 * is unknown. */
static void note_prio(struct sl_cluster *c, const struct sl_podspec *p)
{
	c->min_prio = p->priority < c->min_prio ? p->priority : c->min_prio;
	c->unknown_prio |= p->prio_from == SL_PRIO_UNKNOWN;
}

/* The running pods by node (each node's in the model's order), the scoring arrays, their load. */
static void place_pods(struct sl_cluster *c)
{
	const struct sl_model *m = c->m;
	struct sl_pod_templates *t = c->templates;
	struct sl_strmap names = {0};
	for (size_t i = 0; i < m->nnodes; i++)
		sl_strmap_put(&names, m->nodes[i]->name, i);
	size_t *where = sl_xcalloc(m->npods + 1, sizeof *where);
	c->pod_start = sl_xcalloc(c->n + 2, sizeof *c->pod_start);
	for (size_t i = 0; i < m->npods; i++) {
		where[i] = pod_running(m->pods[i]) ? sl_strmap_get(&names, m->pods[i]->spec.node_name) : (size_t)-1;
		if (where[i] != (size_t)-1)
			c->pod_start[where[i] + 2]++;
	}
	for (size_t i = 2; i < c->n + 2; i++)
		c->pod_start[i] += c->pod_start[i - 1];
	c->npods = c->pod_start[c->n + 1];
	c->min_prio = INT64_MAX;
	c->unknown_prio = false;
	c->pods = sl_xcalloc(c->npods + 1, sizeof *c->pods);
	c->pod_node = sl_xcalloc(c->npods + 1, sizeof *c->pod_node);
	c->all = sl_xcalloc(c->npods + 1, sizeof *c->all);
	node_resources(c);
	for (size_t i = 0; i < m->npods; i++) {
		if (where[i] == (size_t)-1)
			continue;
		size_t k = c->pod_start[where[i] + 1]++;
		c->pods[k] = m->pods[i];
		note_prio(c, &m->pods[i]->spec);
		c->pod_node[k] = where[i];
		c->nz_cpu[where[i]] += sl_nonzero_request(&m->pods[i]->spec, "cpu");
		c->nz_mem[where[i]] += sl_nonzero_request(&m->pods[i]->spec, "memory");
		c->port_pods[where[i]] += m->pods[i]->spec.nports > 0;
	}
	free(where);
	if (!t) {
		sl_strmap_free(&names);
		return;
	}
	t->names = names; /* the first refresh: t is new */
	t->mpods = m->npods;
	t->nz_cpu = sl_xcalloc(c->n + 1, sizeof *t->nz_cpu);
	t->nz_mem = sl_xcalloc(c->n + 1, sizeof *t->nz_mem);
	memcpy(t->nz_cpu, c->nz_cpu, c->n * sizeof *t->nz_cpu);
	memcpy(t->nz_mem, c->nz_mem, c->n * sizeof *t->nz_mem);
}

/* What place_pods made per node. */
static void free_node_arrays(struct sl_cluster *c)
{
	free(c->pod_start);
	free(c->nz_cpu); /* and the other arrays of node_resources' block */
}

/* What place_pods and index_running made, to be made again. */
static void free_pods(struct sl_cluster *c)
{
	struct sl_group_builder b[NGROUPINGS];
	group_builders(c, b);
	for (unsigned i = 0; i < NGROUPINGS; i++)
		sl_group_clear(b[i].gi);
	free(c->all);
	free(c->pods);
	free(c->pod_node);
	free_node_arrays(c);
}

struct sl_cluster *sl_cluster_new(const struct sl_model *m)
{
	struct sl_cluster *c = sl_xcalloc(1, sizeof *c);
	c->m = m;
	c->n = m->nnodes;
	place_pods(c);
	index_running(c);
	classify_nodes(c);
	prepare_topologies(c);
	c->dra = sl_dra_index_new(c);
	pthread_mutex_init(&c->reasons.lock, NULL);
	pthread_mutex_init(&c->static_lock, NULL);
	pthread_mutex_init(&c->spare_lock, NULL);
	c->none_excluded = sl_xcalloc(c->n + 1, sizeof *c->none_excluded);
	return c;
}

/* Whether a running pod that base left out (its node unknown there) names a node m adds: it
 * would run there. */
static bool runs_on_added(const struct sl_cluster *base, const struct sl_model *m)
{
	size_t running = 0;
	for (size_t i = 0; i < m->npods; i++)
		running += pod_running(m->pods[i]);
	if (running == base->npods)
		return false;
	struct sl_strmap added = {0};
	for (size_t i = base->n; i < m->nnodes; i++)
		sl_strmap_put(&added, m->nodes[i]->name, i);
	bool on = false;
	for (size_t i = 0; i < m->npods && !on; i++)
		on = pod_running(m->pods[i]) && sl_strmap_get(&added, m->pods[i]->spec.node_name) != (size_t)-1;
	sl_strmap_free(&added);
	return on;
}

/* Whether m is a change of base's model that sl_cluster_derive can index from base alone. */
static bool derivable(const struct sl_cluster *base, const struct sl_model *m)
{
	const struct sl_model *b = base->m;
	if (base->base || base->templates || base->charged || m->pods != b->pods || m->npods != b->npods ||
	    m->workloads != b->workloads || m->nworkloads != b->nworkloads || m->nnodes < base->n)
		return false;
	for (size_t i = 0; i < base->n; i++) {
		const struct sl_node *x = m->nodes[i], *y = b->nodes[i];
		/* What the class key, the topologies and the running pods' places read. */
		if (x != y &&
		    (strcmp(x->name, y->name) || x->labels.v != y->labels.v || x->labels.n != y->labels.n ||
		     x->taints != y->taints || x->ntaints != y->ntaints || x->unschedulable != y->unschedulable))
			return false;
	}
	return !runs_on_added(base, m);
}

/* The nodes' classes: the first ones' as in base, an added node's by its key among base's;
 * false when an added node is of a class base does not have. */
static bool derive_classes(struct sl_cluster *c, const struct sl_cluster *base)
{
	struct sl_buf key = SL_BUF_INIT;
	c->cls = sl_xcalloc(c->n + 1, sizeof *c->cls);
	memcpy(c->cls, base->cls, base->n * sizeof *c->cls);
	c->ncls = base->ncls;
	bool ok = true;
	for (size_t i = base->n; i < c->n && ok; i++) {
		class_key(c->m->nodes[i], &key);
		c->cls[i] = sl_strmap_get(&base->classes.map, sl_buf_str(&key));
		ok = c->cls[i] != (size_t)-1;
	}
	sl_buf_free(&key);
	return ok;
}

/* The domains of base's keys (the same keys: the same workloads and running pods), an added
 * node's value numbered as topo_add would number it, after base's. */
static void derive_topologies(struct sl_cluster *c, const struct sl_cluster *base)
{
	c->topos = sl_xcalloc(base->ntopos + 1, sizeof *c->topos);
	c->ntopos = c->captopos = base->ntopos;
	for (size_t k = 0; k < base->ntopos; k++) {
		const struct sl_topo *b = &base->topos[k];
		struct sl_topo *t = &c->topos[k];
		struct sl_strmap added = {0};
		t->key = b->key;
		t->ndom = b->ndom;
		t->nbare = b->nbare;
		t->dom = sl_xcalloc(c->n + 1, sizeof *t->dom);
		memcpy(t->dom, b->dom, base->n * sizeof *t->dom);
		for (size_t i = base->n; i < c->n; i++) {
			const char *v = sl_labels_get(&c->m->nodes[i]->labels, t->key);
			size_t d = v ? sl_strmap_get(&b->vals, v) : (size_t)-1;
			if (v && d == (size_t)-1 && (d = sl_strmap_put(&added, v, t->ndom)) == t->ndom)
				t->ndom++;
			t->dom[i] = v ? (int32_t)d : -1;
			t->nbare += !v;
		}
		sl_strmap_free(&added);
	}
}

struct sl_cluster *sl_cluster_derive(const struct sl_cluster *base, const struct sl_model *m)
{
	if (!derivable(base, m))
		return sl_cluster_new(m);
	struct sl_cluster *c = sl_xcalloc(1, sizeof *c);
	c->m = m;
	c->n = m->nnodes;
	c->base = base;
	pthread_mutex_init(&c->reasons.lock, NULL);
	pthread_mutex_init(&c->static_lock, NULL);
	pthread_mutex_init(&c->spare_lock, NULL);
	c->none_excluded = sl_xcalloc(c->n + 1, sizeof *c->none_excluded);
	if (!derive_classes(c, base)) {
		sl_cluster_free(c);
		return sl_cluster_new(m);
	}
	c->pods = base->pods;
	c->npods = base->npods;
	c->min_prio = base->min_prio;
	c->unknown_prio = base->unknown_prio;
	c->pod_node = base->pod_node;
	c->all = base->all;
	c->by_ns = base->by_ns;
	c->by_label = base->by_label;
	c->by_pair = base->by_pair;
	c->anti_by_ns = base->anti_by_ns;
	c->anti_wild = base->anti_wild;
	/* The same pods on the same first nodes; none on an added one. */
	c->pod_start = sl_xcalloc(c->n + 2, sizeof *c->pod_start);
	memcpy(c->pod_start, base->pod_start, (base->n + 1) * sizeof *c->pod_start);
	for (size_t i = base->n + 1; i < c->n + 2; i++)
		c->pod_start[i] = c->npods;
	node_resources(c);
	memcpy(c->nz_cpu, base->nz_cpu, base->n * sizeof *c->nz_cpu);
	memcpy(c->nz_mem, base->nz_mem, base->n * sizeof *c->nz_mem);
	memcpy(c->port_pods, base->port_pods, base->n * sizeof *c->port_pods);
	derive_topologies(c, base);
	c->dra = sl_dra_index_new(c);
	return c;
}

/* The pods the model gained since it was indexed that run on a known node: their model indexes
 * into *v, their nodes into *at; how many. */
static size_t gained_pods(struct sl_cluster *c, size_t **v, size_t **at)
{
	const struct sl_model *m = c->m;
	struct sl_pod_templates *t = c->templates;
	size_t n = 0, from = t->mpods < m->npods ? t->mpods : m->npods;
	/* Only the first n of each are read: no zeroing. */
	*v = sl_xmalloc((m->npods - from + 1) * sizeof **v);
	*at = sl_xmalloc((m->npods - from + 1) * sizeof **at);
	for (size_t i = from; i < m->npods; i++) {
		size_t w = pod_running(m->pods[i]) ? sl_strmap_get(&t->names, m->pods[i]->spec.node_name) : (size_t)-1;
		if (w != (size_t)-1) {
			(*v)[n] = i;
			(*at)[n++] = w;
		}
	}
	t->mpods = m->npods;
	return n;
}

/* The running pods laid out by node again, each node's gained pods (v, on nodes at) after its
 * own, as place_pods lays them out (the model's order within a node). Returns the old indexes'
 * new ones; *first: per node, the index of its first gained pod. */
static size_t *relayout(struct sl_cluster *c, const size_t *v, const size_t *at, size_t nv, size_t **first)
{
	struct sl_pod_templates *t = c->templates;
	size_t n = c->n, old = c->npods, *ps = c->pod_start;
	/* Only start counts; every element of the others is written before it is read. */
	size_t *start = sl_xcalloc(n + 2, sizeof *start), *fill = sl_xmalloc((n + 1) * sizeof *fill);
	for (size_t g = 0; g < nv; g++)
		start[at[g] + 1]++;
	for (size_t k = 0; k < n; k++)
		start[k + 1] += start[k] + (ps[k + 1] - ps[k]);
	start[n + 1] = start[n];
	const struct sl_pod **pods = sl_xmalloc((old + nv + 1) * sizeof *pods);
	size_t *node = sl_xmalloc((old + nv + 1) * sizeof *node), *all = sl_xmalloc((old + nv + 1) * sizeof *all);
	size_t *remap = sl_xmalloc((old + 1) * sizeof *remap);
	for (size_t k = 0; k < n; k++) {
		for (size_t j = ps[k]; j < ps[k + 1]; j++) {
			remap[j] = start[k] + (j - ps[k]);
			pods[remap[j]] = c->pods[j];
			node[remap[j]] = k;
		}
		fill[k] = start[k] + (ps[k + 1] - ps[k]);
	}
	*first = sl_xmalloc((n + 1) * sizeof **first);
	memcpy(*first, fill, n * sizeof *fill);
	for (size_t g = 0; g < nv; g++) {
		size_t k = fill[at[g]]++;
		pods[k] = c->m->pods[v[g]];
		note_prio(c, &pods[k]->spec);
		node[k] = at[g];
		t->nz_cpu[at[g]] += sl_nonzero_request(&pods[k]->spec, "cpu");
		t->nz_mem[at[g]] += sl_nonzero_request(&pods[k]->spec, "memory");
		c->port_pods[at[g]] += pods[k]->spec.nports > 0;
	}
	for (size_t k = 0; k < old + nv; k++)
		all[k] = k;
	free(c->pods);
	free(c->pod_node);
	free(c->all);
	free(ps);
	free(fill);
	c->pods = pods;
	c->pod_node = node;
	c->all = all;
	c->pod_start = start;
	c->npods = old + nv;
	return remap;
}

/* The pods the model gained since the last refresh indexed among those indexed then: what
 * place_pods, index_running and prepare_pod_topologies would make of all of them again, at the
 * cost of the gained ones and a pass over the groups. */
static void grow_pods(struct sl_cluster *c)
{
	struct sl_pod_templates *t = c->templates;
	size_t *v, *at, nv = gained_pods(c, &v, &at);
	node_used(c);
	if (nv) {
		size_t *first, *remap = relayout(c, v, at, nv, &first);
		struct sl_group_builder b[NGROUPINGS];
		group_builders(c, b);
		struct sl_buf key = SL_BUF_INIT;
		/* In index order, as a full pass meets them: each group's items come increasing, and
		 * the topology keys new to the index are added in the same order. */
		for (size_t k = 0; k < c->n; k++)
			for (size_t j = first[k]; j < c->pod_start[k + 1]; j++) {
				index_pod(c, b, &key, j);
				for (size_t a = 0; a < c->pods[j]->spec.nanti; a++)
					topo_add(c, c->pods[j]->spec.anti[a].topology_key);
			}
		for (unsigned i = 0; i < NGROUPINGS; i++)
			sl_group_merge(&b[i], remap);
		sl_buf_free(&key);
		free(first);
		free(remap);
	}
	memcpy(c->nz_cpu, t->nz_cpu, c->n * sizeof *c->nz_cpu);
	memcpy(c->nz_mem, t->nz_mem, c->n * sizeof *c->nz_mem);
	free(v);
	free(at);
}

void sl_cluster_refresh(struct sl_cluster *c)
{
	/* Kept from the first refresh on: a cluster built once has no use for them. */
	if (c->templates) {
		grow_pods(c);
		return;
	}
	c->templates = sl_xcalloc(1, sizeof *c->templates);
	free_pods(c);
	place_pods(c);
	index_running(c);
	prepare_pod_topologies(c);
}

void sl_cluster_charge(struct sl_cluster *c, size_t i, const struct sl_podspec *p, int64_t count)
{
	c->charged = true;
	c->used_cpu[i] = sl_sat_add(c->used_cpu[i], sl_sat_mul(count, sl_res_get(&p->request, "cpu")));
	c->used_mem[i] = sl_sat_add(c->used_mem[i], sl_sat_mul(count, sl_res_get(&p->request, "memory")));
	c->used_eph[i] = sl_sat_add(c->used_eph[i], sl_sat_mul(count, sl_res_get(&p->request, "ephemeral-storage")));
	c->nz_cpu[i] = sl_sat_add(c->nz_cpu[i], sl_sat_mul(count, sl_nonzero_request(p, "cpu")));
	c->nz_mem[i] = sl_sat_add(c->nz_mem[i], sl_sat_mul(count, sl_nonzero_request(p, "memory")));
	c->room[i] = sl_sat_add(c->room[i], -count); /* the pods bound with the charge (the node's own count) */
	sl_dra_charge(c, i, p, count);
}

void sl_cluster_free(struct sl_cluster *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntopos; i++) {
		free(c->topos[i].dom);
		sl_strmap_free(&c->topos[i].vals);
	}
	free(c->topos);
	sl_strpool_free(&c->reasons.pool);
	sl_dra_index_free(c->dra);
	pthread_mutex_destroy(&c->reasons.lock);
	for (size_t i = 0; i < c->static_keys.n; i++)
		free(c->static_verdicts[i]);
	free(c->static_verdicts);
	sl_strpool_free(&c->static_keys);
	pthread_mutex_destroy(&c->static_lock);
	for (struct sl_cycle_spare *sp = c->spare, *next; sp; sp = next) {
		next = sp->next;
		free(sp->placed);
		free(sp->cand);
		free(sp->log);
		free(sp);
	}
	pthread_mutex_destroy(&c->spare_lock);
	free(c->none_excluded);
	free(c->cls);
	if (c->base) { /* the running pods' arrays and indexes are the base's */
		free_node_arrays(c);
		free(c);
		return;
	}
	free_pods(c);
	struct sl_group_builder b[NGROUPINGS];
	group_builders(c, b);
	for (unsigned i = 0; i < NGROUPINGS; i++)
		sl_strpool_free(&b[i].gi->keys);
	templates_free(c->templates);
	sl_strpool_free(&c->classes);
	free(c);
}

/* The domains of a topology key, computed once per key and run. */
static void topo_add(struct sl_cluster *c, const char *key)
{
	for (size_t i = 0; i < c->ntopos; i++)
		if (!strcmp(c->topos[i].key, key))
			return;
	sl_grow(&c->topos, &c->captopos, c->ntopos + 1, sizeof *c->topos);
	struct sl_topo *t = &c->topos[c->ntopos];
	*t = (struct sl_topo){.key = key, .dom = sl_xcalloc(c->n + 1, sizeof *t->dom)};
	for (size_t i = 0; i < c->n; i++) {
		const char *v = sl_labels_get(&c->m->nodes[i]->labels, key);
		if (!v) {
			t->dom[i] = -1;
			t->nbare++;
			continue;
		}
		size_t d = sl_strmap_put(&t->vals, v, t->ndom);
		if (d == t->ndom)
			t->ndom++;
		t->dom[i] = (int32_t)d;
	}
	c->ntopos++;
}

size_t sl_topo_id(const struct sl_cluster *c, const char *key)
{
	for (size_t i = 0; i < c->ntopos; i++)
		if (!strcmp(c->topos[i].key, key))
			return i;
	fprintf(stderr, "schedlint: internal error: topology key %s was not prepared\n", key);
	abort();
}
