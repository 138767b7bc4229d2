#include "sched.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "index.h"
#include "quantity.h"

const char *sl_plugin_name(enum sl_plugin p)
{
	static const char *const names[] = {
	    "",          "NodeUnschedulable", "NodeName",          "TaintToleration", "NodeAffinity",
	    "NodePorts", "NodeResourcesFit",  "PodTopologySpread", "InterPodAffinity"};
	return names[p];
}

bool sl_plugin_preemptible(enum sl_plugin p)
{
	return p == SL_PL_NODE_RESOURCES_FIT || p == SL_PL_NODE_PORTS || p == SL_PL_INTER_POD_AFFINITY ||
	       p == SL_PL_POD_TOPOLOGY_SPREAD;
}

void sl_nodefit_clear(struct sl_nodefit *f)
{
	memset(f, 0, sizeof *f);
}

static void fail(struct sl_nodefit *f, enum sl_plugin p, const char *reason)
{
	f->plugin = p;
	if (f->nreasons < SL_MAX_REASONS)
		f->reasons[f->nreasons++] = reason;
}

static void copy_fit(struct sl_nodefit *dst, const struct sl_nodefit *src)
{
	*dst = *src;
}

/* --- label and field matching (component-helpers nodeaffinity) ----------------------------- */

bool sl_field_matches(const struct sl_requirement *r, const char *node_name)
{
	if (strcmp(r->key, "metadata.name"))
		return false; /* the only field selector the scheduler supports */
	if (r->op == SL_OP_IN)
		return sl_requirement_has_value(r, node_name);
	if (r->op == SL_OP_NOTIN)
		return !sl_requirement_has_value(r, node_name);
	return false;
}

bool sl_term_matches(const struct sl_term *t, const struct sl_node *n)
{
	/* An empty term selects nothing. */
	if (t->nexprs == 0 && t->nfields == 0)
		return false;
	for (size_t i = 0; i < t->nexprs; i++)
		if (!sl_requirement_matches(&t->exprs[i], &n->labels))
			return false;
	for (size_t i = 0; i < t->nfields; i++)
		if (!sl_field_matches(&t->fields[i], n->name))
			return false;
	return true;
}

bool sl_node_affinity_matches(const struct sl_podspec *p, const struct sl_node *n)
{
	for (size_t i = 0; i < p->node_selector.n; i++) {
		const char *v = sl_labels_get(&n->labels, p->node_selector.v[i].key);
		if (!v || strcmp(v, p->node_selector.v[i].val))
			return false;
	}
	if (!p->has_required_affinity)
		return true;
	for (size_t i = 0; i < p->nterms; i++)
		if (sl_term_matches(&p->terms[i], n))
			return true;
	return false;
}

/* A spread constraint's selector, with matchLabelKeys taken from the incoming pod. */
static bool spread_selects(const struct sl_spread *c, const struct sl_labels *owner, const struct sl_labels *labels)
{
	return sl_selector_matches(&c->sel, labels) &&
	       sl_match_label_keys(c->match_keys, c->nmatch_keys, owner, labels);
}

/* --- taints ------------------------------------------------------------------------------------
 */

bool sl_tolerates(const struct sl_toleration *t, const struct sl_taint *taint)
{
	if (*t->effect && strcmp(t->effect, taint->effect))
		return false;
	if (*t->key && strcmp(t->key, taint->key))
		return false;
	if (!*t->op || !strcmp(t->op, "Equal"))
		return !strcmp(t->value, taint->value);
	return !strcmp(t->op, "Exists");
}

static const struct sl_toleration default_tolerations[] = {
    /* DefaultTolerationSeconds admission adds these to every pod. */
    {"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", NULL},
    {"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", NULL},
};

static bool tolerated(const struct sl_podspec *p, const struct sl_taint *taint)
{
	for (size_t i = 0; i < p->ntols; i++)
		if (sl_tolerates(&p->tols[i], taint))
			return true;
	for (size_t i = 0; i < 2; i++)
		if (sl_tolerates(&default_tolerations[i], taint))
			return true;
	return false;
}

const struct sl_taint *sl_untolerated_taint(const struct sl_podspec *p, const struct sl_node *n)
{
	for (size_t i = 0; i < n->ntaints; i++) {
		const struct sl_taint *t = &n->taints[i];
		if (strcmp(t->effect, "NoSchedule") && strcmp(t->effect, "NoExecute"))
			continue;
		if (!tolerated(p, t))
			return t;
	}
	return NULL;
}

/* Reason texts, shared by the analyses of every workload (which may run on several threads). */
struct reasons {
	struct sl_strpool pool;
	pthread_mutex_t lock;
};

static const char *intern_printf(struct reasons *pool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *intern_printf(struct reasons *pool, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&pool->lock);
	const char *r = sl_intern(&pool->pool, sl_buf_str(&b));
	pthread_mutex_unlock(&pool->lock);
	sl_buf_free(&b);
	return r;
}

/* --- resources ---------------------------------------------------------------------------------
 */

/* Resources the scheduler tracks as "scalar": extended (domain-qualified, outside
 * kubernetes.io), hugepages and attachable volumes. Anything else a pod names is ignored. */
static bool is_scalar_resource(const char *name)
{
	if (!strncmp(name, "hugepages-", 10) || !strncmp(name, "attachable-volumes-", 19))
		return true;
	return strchr(name, '/') && !strstr(name, "kubernetes.io/");
}

static bool is_checked_resource(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "memory") || !strcmp(name, "ephemeral-storage") ||
	       is_scalar_resource(name);
}

static bool request_all_zero(const struct sl_reslist *req)
{
	for (size_t i = 0; i < req->n; i++) {
		const char *nm = req->v[i].name;
		if (is_scalar_resource(nm))
			return false;
		if ((!strcmp(nm, "cpu") || !strcmp(nm, "memory") || !strcmp(nm, "ephemeral-storage")) &&
		    req->v[i].amount)
			return false;
	}
	return true;
}

/* NodeResourcesFit: allocatable < request + requested (+ `placed` more of this pod). cpu, memory
 * and ephemeral-storage are always compared, even at a request of 0; scalar resources when the
 * pod names them. With out NULL, stops at the first shortage. Returns whether anything is short. */
static bool fit_resources(struct reasons *pool, const struct sl_podspec *p, const struct sl_node *n, int64_t placed,
			  struct sl_nodefit *out)
{
	bool short_ = false;
	if (n->npods + placed + 1 > n->max_pods) {
		if (!out)
			return true;
		short_ = true;
		fail(out, SL_PL_NODE_RESOURCES_FIT, "Too many pods");
	}
	if (request_all_zero(&p->request))
		return short_;
	static const char *const basic[] = {"cpu", "memory", "ephemeral-storage"};
	for (size_t i = 0; i < 3 + p->request.n; i++) {
		const char *nm = i < 3 ? basic[i] : p->request.v[i - 3].name;
		if (i >= 3 && !is_scalar_resource(nm))
			continue;
		int64_t req = sl_res_get(&p->request, nm);
		int64_t need = sl_sat_add(sl_sat_add(req, sl_res_get(&n->used, nm)), sl_sat_mul(req, placed));
		if (sl_res_get(&n->alloc, nm) < need) {
			if (!out)
				return true;
			short_ = true;
			fail(out, SL_PL_NODE_RESOURCES_FIT, intern_printf(pool, "Insufficient %s", nm));
		}
	}
	return short_;
}

/* The filters that look only at the node and the pod spec, never at other pods:
 * NodeUnschedulable, NodeName, TaintToleration, NodeAffinity. Returns whether all pass. With
 * pool NULL only the verdict counts (the glance path, which redoes a failure in detail), so
 * no reason text is formatted: that would cost a lock per node class and workload. */
static bool filter_static(struct reasons *pool, const struct sl_podspec *p, const struct sl_node *n,
			  struct sl_nodefit *out)
{
	static const struct sl_taint unschedulable_taint = {"node.kubernetes.io/unschedulable", "", "NoSchedule", NULL};
	if (n->unschedulable && !tolerated(p, &unschedulable_taint)) {
		fail(out, SL_PL_NODE_UNSCHEDULABLE, "node(s) were unschedulable");
		return false;
	}
	if (p->node_name && strcmp(p->node_name, n->name)) {
		fail(out, SL_PL_NODE_NAME, "node(s) didn't match the requested node name");
		return false;
	}
	const struct sl_taint *t = sl_untolerated_taint(p, n);
	if (t) {
		fail(out, SL_PL_TAINT_TOLERATION,
		     pool ? intern_printf(pool, "node(s) had untolerated taint {%s: %s}", t->key, t->value)
			  : "node(s) had untolerated taint");
		return false;
	}
	if (!sl_node_affinity_matches(p, n)) {
		fail(out, SL_PL_NODE_AFFINITY, "node(s) didn't match Pod's node affinity/selector");
		return false;
	}
	return true;
}

int64_t sl_node_slots(const struct sl_podspec *p, const struct sl_node *n, const struct sl_nodefit *fit,
		      const char **limit)
{
	*limit = NULL;
	if (fit->plugin != SL_FITS && fit->plugin != SL_PL_NODE_RESOURCES_FIT)
		return 0;
	int64_t slots = n->max_pods - n->npods;
	if (slots < 0)
		slots = 0;
	*limit = "pods";
	if (request_all_zero(&p->request))
		return slots;
	static const char *const basic[] = {"cpu", "memory", "ephemeral-storage"};
	for (size_t i = 0; i < 3 + p->request.n; i++) {
		const char *nm = i < 3 ? basic[i] : p->request.v[i - 3].name;
		if (i >= 3 && !is_checked_resource(nm))
			continue;
		int64_t req = sl_res_get(&p->request, nm);
		int64_t free_ = sl_res_get(&n->alloc, nm) - sl_res_get(&n->used, nm);
		/* A zero request still fails on an overcommitted node (allocatable < requested). */
		int64_t s = req <= 0 ? (free_ < 0 ? 0 : INT64_MAX) : free_ <= 0 ? 0 : free_ / req;
		if (s < slots) {
			slots = s;
			*limit = sl_res_find(&p->request, nm) ? sl_res_find(&p->request, nm)->name : nm;
		}
	}
	return slots;
}

/* --- the FailedScheduling message
 * ----------------------------------------------------------------- */

struct reason_count {
	const char *reason;
	size_t count;
};

static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "0/N nodes are available: <count> <reason>, …." with the entries sorted as strings, as
 * FitError.Error() does (so "10 …" sorts before "9 …"). */
static char *fit_error_text(size_t nall, const struct sl_nodefit *fits, size_t n)
{
	struct reason_count *rc = NULL;
	size_t nrc = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		if (fits[i].excluded)
			continue;
		for (size_t j = 0; j < fits[i].nreasons; j++) {
			size_t k;
			for (k = 0; k < nrc; k++)
				if (!strcmp(rc[k].reason, fits[i].reasons[j]))
					break;
			if (k == nrc) {
				sl_grow(&rc, &cap, nrc + 1, sizeof *rc);
				rc[nrc].reason = fits[i].reasons[j];
				rc[nrc++].count = 0;
			}
			rc[k].count++;
		}
	}
	char **parts = sl_xcalloc(nrc, sizeof *parts);
	for (size_t k = 0; k < nrc; k++)
		parts[k] = sl_xasprintf("%zu %s", rc[k].count, rc[k].reason);
	qsort(parts, nrc, sizeof *parts, cmp_text);
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_printf(&b, "0/%zu nodes are available: ", nall);
	for (size_t k = 0; k < nrc; k++) {
		sl_buf_printf(&b, "%s%s", k ? ", " : "", parts[k]);
		free(parts[k]);
	}
	sl_buf_putc(&b, '.');
	free(parts);
	free(rc);
	return sl_buf_detach(&b);
}

/* NodeAffinity's PreFilter: when every required term names nodes with matchFields
 * metadata.name In, only the union of those names is filtered at all. Returns true and marks
 * the others excluded when it narrows. */
static bool prefilter(const struct sl_podspec *p, const struct sl_model *m, bool *excluded)
{
	if (!p->has_required_affinity || p->nterms == 0)
		return false;
	for (size_t t = 0; t < p->nterms; t++) {
		bool any = false;
		for (size_t f = 0; f < p->terms[t].nfields; f++) {
			const struct sl_requirement *r = &p->terms[t].fields[f];
			if (!strcmp(r->key, "metadata.name") && r->op == SL_OP_IN)
				any = true;
		}
		if (!any)
			return false; /* this term admits nodes by labels: every node is a candidate
				       */
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		bool in_union = false;
		for (size_t t = 0; t < p->nterms && !in_union; t++) {
			bool in_all = true; /* the term's name sets intersect */
			for (size_t f = 0; f < p->terms[t].nfields; f++) {
				const struct sl_requirement *r = &p->terms[t].fields[f];
				if (!strcmp(r->key, "metadata.name") && r->op == SL_OP_IN &&
				    !sl_requirement_has_value(r, m->nodes[i]->name))
					in_all = false;
			}
			in_union = in_all;
		}
		excluded[i] = !in_union;
	}
	return true;
}

/* --- the cluster index ----------------------------------------------------------------------- */

struct topo {
	const char *key;
	int32_t *dom; /* per node: the domain (an id for the node's value of key), -1 without the
			 label */
	size_t ndom;
};

struct sl_cluster {
	const struct sl_model *m;
	size_t n;
	/* Running pods (bound to a known node, not finished), grouped by node: node i holds
	 * pods[pod_start[i]] .. pods[pod_start[i + 1] - 1]. */
	size_t *pod_start;
	const struct sl_pod **pods;
	size_t npods;
	size_t *pod_node;
	size_t *all;                    /* 0 .. npods - 1 */
	struct sl_group_index by_ns;    /* running pods by namespace */
	struct sl_group_index by_label; /* running pods by "namespace\x1fkey\x1fvalue" of each label */
	struct sl_group_index by_pair;  /* running pods by "key\x1fvalue" of each label, any namespace */
	/* Running pods with required anti-affinity: by namespace when every term keeps to the pod's
	 * own namespace, else in anti_wild under "key\x1fvalue" of the label a term requires (one
	 * value of an In), or "" for a term that requires none. */
	struct sl_group_index anti_by_ns, anti_wild;
	/* Nodes with the same labels (but the hostname), taints and cordon form a class: the filters
	 * that look only at the node give them one verdict. */
	size_t *cls;
	size_t ncls;
	int64_t *nz_cpu, *nz_mem; /* per node: requests as scoring counts them (0 becomes 100m / 200Mi) */
	int64_t *alloc_cpu, *alloc_mem, *used_cpu, *used_mem; /* per node, for scoring */
	int64_t *alloc_eph, *used_eph;
	struct topo *topos;
	size_t ntopos, captopos;
	struct reasons reasons; /* the reason texts of every analysis */
	/* Per-class verdicts of the node-only filters, by what of a pod spec they read (see
	 * static_key): workloads written alike share them. Guarded by static_lock. */
	struct sl_strpool static_keys;
	signed char **static_verdicts; /* indexed like static_keys.v; ncls entries each */
	size_t capstatic;
	pthread_mutex_t static_lock;
	uint32_t *stamp; /* per running pod: the last visit's epoch (so each is counted once) */
	uint32_t epoch;
};

#define NONZERO_CPU 100
#define NONZERO_MEM (200LL * 1024 * 1024)

static int64_t nonzero(const struct sl_podspec *p, const char *res)
{
	int64_t v = sl_res_get(&p->request, res);
	return v ? v : !strcmp(res, "cpu") ? NONZERO_CPU : NONZERO_MEM;
}

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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The class key of a node: cordon, taints, and its labels but the hostname, sorted. */
static void class_key(const struct sl_node *nd, struct sl_buf *b)
{
	sl_buf_reset(b);
	sl_buf_printf(b, "%d", nd->unschedulable);
	for (size_t t = 0; t < nd->ntaints; t++)
		sl_buf_printf(b, "\x1e%s\x1f%s\x1f%s", nd->taints[t].key, nd->taints[t].value, nd->taints[t].effect);
	const char **kv = sl_xcalloc(nd->labels.n + 1, sizeof *kv);
	size_t nkv = 0;
	for (size_t l = 0; l < nd->labels.n; l++)
		if (strcmp(nd->labels.v[l].key, "kubernetes.io/hostname"))
			kv[nkv++] = nd->labels.v[l].key;
	qsort(kv, nkv, sizeof *kv, cmp_str);
	sl_buf_puts(b, "\x1d");
	for (size_t l = 0; l < nkv; l++)
		sl_buf_printf(b, "\x1e%s\x1f%s", kv[l], sl_labels_get(&nd->labels, kv[l]));
	free(kv);
}

static void topo_add(struct sl_cluster *c, const char *key);

/* The one value an In requirement of sel requires, as "key\x1fvalue" in b; NULL when none does. */
static const char *required_pair(const struct sl_selector *sel, struct sl_buf *b)
{
	for (size_t r = 0; sel && !sel->nothing && r < sel->nreqs; r++)
		if (sel->reqs[r].op == SL_OP_IN && sel->reqs[r].nvals == 1) {
			sl_buf_reset(b);
			sl_buf_printf(b, "%s\x1f%s", sel->reqs[r].key, sel->reqs[r].vals[0]);
			return b->s;
		}
	return NULL;
}

static void index_running(struct sl_cluster *c)
{
	struct sl_group_builder ns = {&c->by_ns, NULL, 0, 0}, lab = {&c->by_label, NULL, 0, 0},
				pair = {&c->by_pair, NULL, 0, 0}, anti = {&c->anti_by_ns, NULL, 0, 0},
				wild = {&c->anti_wild, NULL, 0, 0};
	struct sl_buf key = SL_BUF_INIT;
	for (size_t k = 0; k < c->npods; k++) {
		const struct sl_podspec *p = &c->pods[k]->spec;
		c->all[k] = k;
		sl_group_add(&ns, p->namespace, k);
		for (size_t l = 0; l < p->labels.n; l++) {
			sl_buf_reset(&key);
			sl_buf_printf(&key, "%s\x1f%s", p->labels.v[l].key, p->labels.v[l].val);
			sl_group_add(&pair, key.s, k);
			sl_buf_reset(&key);
			sl_buf_printf(&key, "%s\x1f%s\x1f%s", p->namespace, p->labels.v[l].key, p->labels.v[l].val);
			sl_group_add(&lab, key.s, k);
		}
		bool keep_ns = terms_keep_namespace(p);
		if (p->nanti && keep_ns)
			sl_group_add(&anti, p->namespace, k);
		for (size_t t = 0; t < p->nanti && !keep_ns; t++) {
			const char *req = required_pair(&p->anti[t].sel, &key);
			if (!p->anti[t].sel.nothing) /* a term that selects nothing excludes nothing */
				sl_group_add(&wild, req ? req : "", k);
		}
	}
	sl_group_finish(&ns);
	sl_group_finish(&lab);
	sl_group_finish(&pair);
	sl_group_finish(&anti);
	sl_group_finish(&wild);
	sl_buf_free(&key);
}

struct sl_cluster *sl_cluster_new(const struct sl_model *m)
{
	struct sl_cluster *c = sl_xcalloc(1, sizeof *c);
	c->m = m;
	c->n = m->nnodes;
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
	c->pods = sl_xcalloc(c->npods + 1, sizeof *c->pods);
	c->pod_node = sl_xcalloc(c->npods + 1, sizeof *c->pod_node);
	c->all = sl_xcalloc(c->npods + 1, sizeof *c->all);
	c->nz_cpu = sl_xcalloc(c->n + 1, sizeof *c->nz_cpu);
	c->nz_mem = sl_xcalloc(c->n + 1, sizeof *c->nz_mem);
	c->alloc_cpu = sl_xcalloc(c->n + 1, sizeof *c->alloc_cpu);
	c->alloc_mem = sl_xcalloc(c->n + 1, sizeof *c->alloc_mem);
	c->used_cpu = sl_xcalloc(c->n + 1, sizeof *c->used_cpu);
	c->used_mem = sl_xcalloc(c->n + 1, sizeof *c->used_mem);
	c->alloc_eph = sl_xcalloc(c->n + 1, sizeof *c->alloc_eph);
	c->used_eph = sl_xcalloc(c->n + 1, sizeof *c->used_eph);
	for (size_t i = 0; i < c->n; i++) {
		c->alloc_eph[i] = sl_res_get(&m->nodes[i]->alloc, "ephemeral-storage");
		c->used_eph[i] = sl_res_get(&m->nodes[i]->used, "ephemeral-storage");
		c->alloc_cpu[i] = sl_res_get(&m->nodes[i]->alloc, "cpu");
		c->alloc_mem[i] = sl_res_get(&m->nodes[i]->alloc, "memory");
		c->used_cpu[i] = sl_res_get(&m->nodes[i]->used, "cpu");
		c->used_mem[i] = sl_res_get(&m->nodes[i]->used, "memory");
	}
	for (size_t i = 0; i < m->npods; i++) {
		if (where[i] == (size_t)-1)
			continue;
		size_t k = c->pod_start[where[i] + 1]++;
		c->pods[k] = m->pods[i];
		c->pod_node[k] = where[i];
		c->nz_cpu[where[i]] += nonzero(&m->pods[i]->spec, "cpu");
		c->nz_mem[where[i]] += nonzero(&m->pods[i]->spec, "memory");
	}
	index_running(c);
	struct sl_buf key = SL_BUF_INIT;
	struct sl_strpool classes = {0};
	c->cls = sl_xcalloc(c->n + 1, sizeof *c->cls);
	for (size_t i = 0; i < c->n; i++) {
		class_key(m->nodes[i], &key);
		sl_intern(&classes, sl_buf_str(&key));
		c->cls[i] = sl_strmap_get(&classes.map, sl_buf_str(&key));
	}
	c->ncls = classes.n;
	/* Every topology key the analyses will ask about, now: they may run on several threads,
	 * and the table must not move under them. */
	for (size_t w = 0; w < m->nworkloads; w++) {
		const struct sl_podspec *p = &m->workloads[w]->pod;
		for (size_t t = 0; t < p->naffinity; t++)
			topo_add(c, p->affinity[t].topology_key);
		for (size_t t = 0; t < p->nanti; t++)
			topo_add(c, p->anti[t].topology_key);
		for (size_t t = 0; t < p->nspread; t++)
			topo_add(c, p->spread[t].topology_key);
	}
	for (size_t k = 0; k < c->npods; k++)
		for (size_t t = 0; t < c->pods[k]->spec.nanti; t++)
			topo_add(c, c->pods[k]->spec.anti[t].topology_key);
	pthread_mutex_init(&c->reasons.lock, NULL);
	pthread_mutex_init(&c->static_lock, NULL);
	sl_strpool_free(&classes);
	sl_buf_free(&key);
	free(where);
	sl_strmap_free(&names);
	return c;
}

void sl_cluster_free(struct sl_cluster *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntopos; i++)
		free(c->topos[i].dom);
	free(c->topos);
	sl_strpool_free(&c->reasons.pool);
	pthread_mutex_destroy(&c->reasons.lock);
	for (size_t i = 0; i < c->static_keys.n; i++)
		free(c->static_verdicts[i]);
	free(c->static_verdicts);
	sl_strpool_free(&c->static_keys);
	pthread_mutex_destroy(&c->static_lock);
	sl_group_free(&c->by_ns);
	sl_group_free(&c->by_label);
	sl_group_free(&c->anti_by_ns);
	sl_group_free(&c->anti_wild);
	sl_group_free(&c->by_pair);
	free(c->all);
	free(c->cls);
	free(c->pod_start);
	free(c->pods);
	free(c->pod_node);
	free(c->nz_cpu);
	free(c->nz_mem);
	free(c->alloc_cpu);
	free(c->alloc_mem);
	free(c->used_cpu);
	free(c->used_mem);
	free(c->alloc_eph);
	free(c->used_eph);
	free(c);
}

/* A pod's requests in the form the capacity count wants: the three resources every node has,
 * and the scalar (extended) ones it names. */
struct podres {
	bool all_zero;
	int64_t cpu, mem, eph;
	const struct sl_res *scalar[8];
	size_t nscalar;
	bool many; /* more scalar resources than fit above: use the general count */
};

static void podres_init(struct podres *r, const struct sl_podspec *p)
{
	memset(r, 0, sizeof *r);
	r->all_zero = request_all_zero(&p->request);
	r->cpu = sl_res_get(&p->request, "cpu");
	r->mem = sl_res_get(&p->request, "memory");
	r->eph = sl_res_get(&p->request, "ephemeral-storage");
	for (size_t k = 0; k < p->request.n; k++)
		if (is_scalar_resource(p->request.v[k].name)) {
			if (r->nscalar == 8)
				r->many = true;
			else
				r->scalar[r->nscalar++] = &p->request.v[k];
		}
}

static int64_t fit_count(int64_t req, int64_t free_)
{
	/* A zero request still fails on an overcommitted node (allocatable < requested). */
	return req <= 0 ? (free_ < 0 ? 0 : INT64_MAX) : free_ <= 0 ? 0 : free_ / req;
}

/* sl_node_slots for a node that passes the other filters, from the cluster's arrays. */
static int64_t node_capacity(const struct sl_cluster *c, const struct podres *r, const struct sl_podspec *p, size_t i)
{
	const struct sl_node *nd = c->m->nodes[i];
	if (r->many) {
		struct sl_nodefit pass = {0};
		const char *limit;
		return sl_node_slots(p, nd, &pass, &limit);
	}
	int64_t slots = nd->max_pods - nd->npods;
	if (slots < 0)
		slots = 0;
	if (r->all_zero)
		return slots;
	int64_t v;
	if ((v = fit_count(r->cpu, c->alloc_cpu[i] - c->used_cpu[i])) < slots)
		slots = v;
	if ((v = fit_count(r->mem, c->alloc_mem[i] - c->used_mem[i])) < slots)
		slots = v;
	if ((v = fit_count(r->eph, c->alloc_eph[i] - c->used_eph[i])) < slots)
		slots = v;
	for (size_t k = 0; k < r->nscalar; k++) {
		const char *nm = r->scalar[k]->name;
		if ((v = fit_count(r->scalar[k]->amount, sl_res_get(&nd->alloc, nm) - sl_res_get(&nd->used, nm))) <
		    slots)
			slots = v;
	}
	return slots;
}

/* Running pods that a selector (of pods in namespace ns) can select: those carrying the value of
 * one of its single-valued In requirements, else every pod of the namespace. */
static const size_t *pods_for(const struct sl_cluster *c, const char *ns, const struct sl_selector *sel,
			      struct sl_buf *scratch, size_t *n)
{
	for (size_t r = 0; sel && !sel->nothing && r < sel->nreqs; r++)
		if (sel->reqs[r].op == SL_OP_IN && sel->reqs[r].nvals == 1) {
			sl_buf_reset(scratch);
			sl_buf_printf(scratch, "%s\x1f%s\x1f%s", ns, sel->reqs[r].key, sel->reqs[r].vals[0]);
			return sl_group_get(&c->by_label, scratch->s, n);
		}
	return sl_group_get(&c->by_ns, ns, n);
}

/* The same for a selector of a term that names other namespaces: the pods carrying that value in
 * any namespace, else every running pod. */
static const size_t *pods_anywhere(const struct sl_cluster *c, const struct sl_selector *sel, struct sl_buf *scratch,
				   size_t *n)
{
	const char *pair = required_pair(sel, scratch);
	if (pair)
		return sl_group_get(&c->by_pair, pair, n);
	*n = c->npods;
	return c->all;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The running pods whose anti-affinity may exclude a pod of namespace ns with labels gl[0 ..
 * ngl): those of ns whose terms keep to it, then, of those whose terms name namespaces, the ones
 * with a term that requires a label the pod has, or no single value; each once, in the running
 * pods' order. The caller frees the list. */
static void add_group(size_t **v, size_t *cap, size_t *n, const struct sl_group_index *gi, const char *key)
{
	size_t ng;
	const size_t *g = sl_group_get(gi, key, &ng);
	sl_grow(v, cap, *n + ng + 1, sizeof **v);
	for (size_t j = 0; j < ng; j++)
		(*v)[(*n)++] = g[j];
}

static size_t *anti_candidates(const struct sl_cluster *cl, const char *ns, const struct sl_labels *gl, size_t ngl,
			       size_t *n)
{
	size_t cap = 0, *v = NULL;
	*n = 0;
	add_group(&v, &cap, n, &cl->anti_by_ns, ns);
	size_t from = *n;
	add_group(&v, &cap, n, &cl->anti_wild, "");
	struct sl_buf key = SL_BUF_INIT;
	for (size_t g = 0; g < ngl && cl->anti_wild.keys.n; g++)
		for (size_t l = 0; l < gl[g].n; l++) {
			sl_buf_reset(&key);
			sl_buf_puts(&key, gl[g].v[l].key);
			sl_buf_putc(&key, '\x1f');
			sl_buf_puts(&key, gl[g].v[l].val);
			add_group(&v, &cap, n, &cl->anti_wild, key.s);
		}
	sl_buf_free(&key);
	qsort(v + from, *n - from, sizeof *v, cmp_size);
	size_t u = from;
	for (size_t j = from; j < *n; j++)
		if (j == from || v[j] != v[j - 1])
			v[u++] = v[j];
	*n = u;
	return v;
}

/* The domains of a topology key, computed once per key and run. */
static void topo_add(struct sl_cluster *c, const char *key)
{
	for (size_t i = 0; i < c->ntopos; i++)
		if (!strcmp(c->topos[i].key, key))
			return;
	sl_grow(&c->topos, &c->captopos, c->ntopos + 1, sizeof *c->topos);
	struct topo *t = &c->topos[c->ntopos];
	t->key = key;
	t->dom = sl_xcalloc(c->n + 1, sizeof *t->dom);
	t->ndom = 0;
	struct sl_strmap vals = {0};
	for (size_t i = 0; i < c->n; i++) {
		const char *v = sl_labels_get(&c->m->nodes[i]->labels, key);
		if (!v) {
			t->dom[i] = -1;
			continue;
		}
		size_t d = sl_strmap_put(&vals, v, t->ndom);
		if (d == t->ndom)
			t->ndom++;
		t->dom[i] = (int32_t)d;
	}
	sl_strmap_free(&vals);
	c->ntopos++;
}

/* The domains of a key that sl_cluster_new prepared (every key in the model). */
static size_t topo_id(const struct sl_cluster *c, const char *key)
{
	for (size_t i = 0; i < c->ntopos; i++)
		if (!strcmp(c->topos[i].key, key))
			return i;
	fprintf(stderr, "schedlint: internal error: topology key %s was not prepared\n", key);
	abort();
}

static bool judged_by_class(const struct sl_podspec *p);

/* --- sequential placement ------------------------------------------------------------------------
 */

/* Per topology key that a term or a running pod's anti-affinity uses: InterPodAffinity's
 * counts, keyed by (key, value) as the plugin keys them. */
struct tslot {
	size_t topo;
	int64_t *aff;  /* pods matching all of the incoming pod's affinity terms, per domain */
	int64_t *anti; /* pods matching one of its anti-affinity terms */
	bool *block;   /* domains where a running or placed pod's anti-affinity excludes it */
	bool any_block;
};

/* A topologySpreadConstraint of the incoming pod, as PodTopologySpread's PreFilter counts it. */
struct spread_state {
	const struct sl_spread *c;
	size_t topo;
	int64_t *cnt;          /* matching pods per domain, on eligible nodes */
	bool *present;         /* domains with an eligible node */
	int64_t min;           /* the global minimum the skew is measured from */
	bool self;             /* the incoming pod matches its own selector */
	signed char *elig;     /* per node: 0 not known yet, 1 eligible, -1 not */
	signed char *elig_cls; /* per node class: the same for the node-only part, when it is shared */
};

struct placement {
	size_t node;
	int gen;
};

/* Generations: 0 = the pods of the running ReplicaSet, 1 = the new one a rollout creates. They
 * share the template's labels but not pod-template-hash. */
struct sim {
	struct sl_cluster *cl;
	const struct sl_model *m;
	const struct sl_workload *w;
	const struct sl_podspec *p;
	size_t n;
	const bool *excluded;
	const bool *static_ok;
	struct sl_labels gl[2];
	int64_t *placed;
	int64_t *placed_gen[2];
	struct placement *log;
	size_t nlog, caplog;
	int gen;
	struct tslot *ts;
	size_t nts, capts;
	size_t *aff_ts, *anti_ts; /* per term of p: its slot */
	int64_t aff_sum, anti_sum;
	bool self_aff;
	struct spread_state *sp;
	size_t nsp;
	bool reverse;                     /* choose the node the scheduler likes least (the order check) */
	int64_t *cap;                     /* per node: pods of the template its free resources hold; -1 not known yet */
	int64_t pcpu, pmem, nzcpu, nzmem; /* the pod's requests, as filtered and as scored */
	int64_t *raw;                     /* scratch for choose() */
	struct podres res;
	uint32_t *stamp; /* per running pod: the last visit's epoch (so each is counted once) */
	uint32_t epoch;
	size_t nall; /* nodes the scheduler filters at all (PreFilter may narrow them) */
	size_t next_start;
};

static size_t slot_of(struct sim *s, const char *key)
{
	size_t t = topo_id(s->cl, key);
	for (size_t i = 0; i < s->nts; i++)
		if (s->ts[i].topo == t)
			return i;
	sl_grow(&s->ts, &s->capts, s->nts + 1, sizeof *s->ts);
	struct tslot *x = &s->ts[s->nts];
	size_t nd = s->cl->topos[t].ndom + 1;
	x->topo = t;
	x->aff = sl_xcalloc(nd, sizeof *x->aff);
	x->anti = sl_xcalloc(nd, sizeof *x->anti);
	x->block = sl_xcalloc(nd, sizeof *x->block);
	x->any_block = false;
	return s->nts++;
}

static int32_t dom_of(const struct sim *s, size_t topo, size_t node)
{
	return s->cl->topos[topo].dom[node];
}

static bool all_terms_match(const struct sl_podterm *ts, size_t n, const char *owner_ns, const struct sl_labels *owner,
			    const char *ns, const struct sl_labels *labels)
{
	for (size_t i = 0; i < n; i++)
		if (!sl_podterm_matches(&ts[i], owner_ns, owner, ns, labels))
			return false;
	return true;
}

/* Whether node i counts for spread constraint c: it has the keys of every hard constraint and
 * passes the constraint's node inclusion policies. */
static bool spread_eligible(const struct sim *s, const struct spread_state *st, size_t i)
{
	if (st->elig[i])
		return st->elig[i] > 0;
	const struct sl_node *nd = s->m->nodes[i];
	bool ok = true;
	for (size_t k = 0; k < s->nsp && ok; k++)
		if (s->sp[k].c->hard == st->c->hard && dom_of(s, s->sp[k].topo, i) < 0)
			ok = false;
	signed char *cls = st->elig_cls ? &st->elig_cls[s->cl->cls[i]] : NULL;
	if (ok && cls && *cls)
		ok = *cls > 0;
	else if (ok) {
		bool node_ok = !(st->c->honor_affinity && !sl_node_affinity_matches(s->p, nd)) &&
			       !(st->c->honor_taints && sl_untolerated_taint(s->p, nd));
		if (cls)
			*cls = node_ok ? 1 : -1;
		ok = node_ok;
	}
	st->elig[i] = ok ? 1 : -1;
	return ok;
}

/* A pod (of ns with labels) on node i enters the counts of the incoming pod. */
static void count_pod(struct sim *s, size_t i, const char *ns, const struct sl_labels *labels)
{
	const struct sl_podspec *p = s->p;
	const struct sl_labels *own = &s->gl[s->gen];
	if (p->naffinity && all_terms_match(p->affinity, p->naffinity, p->namespace, own, ns, labels))
		for (size_t t = 0; t < p->naffinity; t++) {
			struct tslot *x = &s->ts[s->aff_ts[t]];
			int32_t d = dom_of(s, x->topo, i);
			if (d >= 0) {
				x->aff[d]++;
				s->aff_sum++;
			}
		}
	for (size_t t = 0; t < p->nanti; t++) {
		if (!sl_podterm_matches(&p->anti[t], p->namespace, own, ns, labels))
			continue;
		struct tslot *x = &s->ts[s->anti_ts[t]];
		int32_t d = dom_of(s, x->topo, i);
		if (d >= 0) {
			x->anti[d]++;
			s->anti_sum++;
		}
	}
	for (size_t k = 0; k < s->nsp; k++) {
		struct spread_state *st = &s->sp[k];
		if (strcmp(ns, p->namespace) || !spread_selects(st->c, own, labels) || !spread_eligible(s, st, i))
			continue;
		st->cnt[dom_of(s, st->topo, i)]++;
	}
}

/* A pod (owner) on node i whose anti-affinity terms may exclude the incoming pod there. */
static void count_blocks(struct sim *s, size_t i, const struct sl_podterm *terms, size_t nterms, const char *owner_ns,
			 const struct sl_labels *owner)
{
	for (size_t t = 0; t < nterms; t++) {
		if (!sl_podterm_matches(&terms[t], owner_ns, owner, s->p->namespace, &s->gl[s->gen]))
			continue;
		size_t x = slot_of(s, terms[t].topology_key);
		int32_t d = dom_of(s, s->ts[x].topo, i);
		if (d >= 0) {
			s->ts[x].block[d] = true;
			s->ts[x].any_block = true;
		}
	}
}

static void spread_minimums(struct sim *s)
{
	for (size_t k = 0; k < s->nsp; k++) {
		struct spread_state *st = &s->sp[k];
		size_t nd = s->cl->topos[st->topo].ndom, ndomains = 0;
		st->min = INT32_MAX; /* no eligible domain: every skew is negative */
		for (size_t d = 0; d < nd; d++)
			if (st->present[d]) {
				ndomains++;
				if (st->cnt[d] < st->min)
					st->min = st->cnt[d];
			}
		if ((int64_t)ndomains < st->c->min_domains)
			st->min = 0;
	}
}

static void place_contrib(struct sim *s, size_t node, int gen)
{
	count_pod(s, node, s->p->namespace, &s->gl[gen]);
	count_blocks(s, node, s->p->anti, s->p->nanti, s->p->namespace, &s->gl[gen]);
}

/* The running pods enter the counts, each once. Only the pods their selectors can match are
 * visited: of the pod's own namespace, or of any when a term names other namespaces. */
static void count_running(struct sim *s)
{
	struct sl_cluster *cl = s->cl;
	const struct sl_podspec *p = s->p;
	if (!p->naffinity && !p->nanti && !s->nsp)
		return;
	bool wild = false;
	for (size_t t = 0; t < p->naffinity + p->nanti; t++) {
		const struct sl_podterm *term = t < p->naffinity ? &p->affinity[t] : &p->anti[t - p->naffinity];
		wild |= term->nnamespaces || term->has_ns_selector;
	}
	s->epoch++;
	if (!s->stamp)
		s->stamp = sl_xcalloc(cl->npods + 1, sizeof *s->stamp);
	struct sl_buf scratch = SL_BUF_INIT;
	for (size_t t = 0; t < p->naffinity + p->nanti + s->nsp; t++) {
		const struct sl_selector *sel = t < p->naffinity ? &p->affinity[t].sel
						: t < p->naffinity + p->nanti
						    ? &p->anti[t - p->naffinity].sel
						    : &s->sp[t - p->naffinity - p->nanti].c->sel;
		size_t n;
		const size_t *ks =
		    wild ? pods_anywhere(cl, sel, &scratch, &n) : pods_for(cl, p->namespace, sel, &scratch, &n);
		for (size_t j = 0; j < n; j++) {
			size_t k = ks[j];
			if (s->stamp[k] == s->epoch)
				continue;
			s->stamp[k] = s->epoch;
			count_pod(s, cl->pod_node[k], cl->pods[k]->spec.namespace, &cl->pods[k]->spec.labels);
		}
	}
	sl_buf_free(&scratch);
}

/* Counts for an incoming pod of generation gen, from the running pods and the pods placed so
 * far. */
static void phase_begin(struct sim *s, int gen)
{
	s->gen = gen;
	s->aff_sum = s->anti_sum = 0;
	for (size_t x = 0; x < s->nts; x++) {
		size_t nd = s->cl->topos[s->ts[x].topo].ndom + 1;
		memset(s->ts[x].aff, 0, nd * sizeof *s->ts[x].aff);
		memset(s->ts[x].anti, 0, nd * sizeof *s->ts[x].anti);
		memset(s->ts[x].block, 0, nd * sizeof *s->ts[x].block);
		s->ts[x].any_block = false;
	}
	for (size_t k = 0; k < s->nsp; k++) {
		struct spread_state *st = &s->sp[k];
		size_t nd = s->cl->topos[st->topo].ndom + 1;
		memset(st->cnt, 0, nd * sizeof *st->cnt);
		memset(st->present, 0, nd * sizeof *st->present);
		for (size_t i = 0; i < s->n; i++)
			if (spread_eligible(s, st, i))
				st->present[dom_of(s, st->topo, i)] = true;
		st->self = spread_selects(st->c, &s->gl[gen], &s->gl[gen]);
	}
	s->self_aff = all_terms_match(s->p->affinity, s->p->naffinity, s->p->namespace, &s->gl[gen], s->p->namespace,
				      &s->gl[gen]);
	count_running(s);
	const struct sl_cluster *cl = s->cl;
	size_t nq;
	size_t *q = anti_candidates(cl, s->p->namespace, &s->gl[gen], 1, &nq);
	for (size_t a = 0; a < nq; a++) {
		const struct sl_podspec *o = &cl->pods[q[a]]->spec;
		count_blocks(s, cl->pod_node[q[a]], o->anti, o->nanti, o->namespace, &o->labels);
	}
	free(q);
	for (size_t l = 0; l < s->nlog; l++)
		place_contrib(s, s->log[l].node, s->log[l].gen);
	spread_minimums(s);
}

static void place(struct sim *s, size_t node, int gen)
{
	s->placed[node]++;
	s->placed_gen[gen][node]++;
	sl_grow(&s->log, &s->caplog, s->nlog + 1, sizeof *s->log);
	s->log[s->nlog++] = (struct placement){node, gen};
	place_contrib(s, node, gen);
	if (s->nsp)
		spread_minimums(s);
}

/* NodePorts: a wanted port conflicts with one in use for the same protocol and port when either
 * address is the wildcard or both are the same. */
static bool ports_conflict(const struct sl_hostport *want, const struct sl_hostport *used)
{
	if (want->port != used->port || strcmp(want->proto, used->proto))
		return false;
	return !strcmp(want->ip, "0.0.0.0") || !strcmp(used->ip, "0.0.0.0") || !strcmp(want->ip, used->ip);
}

static bool node_ports_free(const struct sim *s, size_t i)
{
	const struct sl_podspec *p = s->p;
	if (!p->nports)
		return true;
	/* Every placed pod of the workload binds the same ports. */
	if (s->placed[i])
		for (size_t a = 0; a < p->nports; a++)
			for (size_t b = 0; b < p->nports; b++)
				if (ports_conflict(&p->ports[a], &p->ports[b]))
					return false;
	const struct sl_cluster *cl = s->cl;
	for (size_t k = cl->pod_start[i]; k < cl->pod_start[i + 1]; k++) {
		const struct sl_podspec *q = &cl->pods[k]->spec;
		for (size_t a = 0; a < p->nports; a++)
			for (size_t b = 0; b < q->nports; b++)
				if (ports_conflict(&p->ports[a], &q->ports[b]))
					return false;
	}
	return true;
}

/* The filters that look at other pods, in the default profile's order: NodePorts,
 * NodeResourcesFit, PodTopologySpread, InterPodAffinity. out may be NULL (verdict only). */
static enum sl_plugin filter_dynamic(const struct sim *s, size_t i, struct sl_nodefit *out)
{
	const struct sl_podspec *p = s->p;
	const struct sl_node *nd = s->m->nodes[i];
	if (!node_ports_free(s, i)) {
		if (out)
			fail(out, SL_PL_NODE_PORTS, "node(s) didn't have free ports for the requested pod ports");
		return SL_PL_NODE_PORTS;
	}
	if (!out) {
		/* Identical pods: the node holds cap of them, whatever else is decided. */
		if (s->cap[i] < 0)
			s->cap[i] = node_capacity(s->cl, &s->res, p, i);
		if (s->placed[i] >= s->cap[i])
			return SL_PL_NODE_RESOURCES_FIT;
	} else if (fit_resources(&s->cl->reasons, p, nd, s->placed[i], out))
		return SL_PL_NODE_RESOURCES_FIT;
	for (size_t k = 0; k < s->nsp; k++) {
		const struct spread_state *st = &s->sp[k];
		if (!st->c->hard)
			continue;
		int32_t d = dom_of(s, st->topo, i);
		if (d < 0) {
			if (out)
				fail(out, SL_PL_POD_TOPOLOGY_SPREAD,
				     "node(s) didn't match pod topology spread "
				     "constraints (missing required label)");
			return SL_PL_POD_TOPOLOGY_SPREAD;
		}
		int64_t match = st->present[d] ? st->cnt[d] : 0;
		if (match + (st->self ? 1 : 0) - st->min > st->c->max_skew) {
			if (out)
				fail(out, SL_PL_POD_TOPOLOGY_SPREAD,
				     "node(s) didn't match pod topology spread constraints");
			return SL_PL_POD_TOPOLOGY_SPREAD;
		}
	}
	if (p->naffinity) {
		bool exist = true, missing = false;
		for (size_t t = 0; t < p->naffinity; t++) {
			const struct tslot *x = &s->ts[s->aff_ts[t]];
			int32_t d = dom_of(s, x->topo, i);
			if (d < 0)
				missing = true;
			else if (x->aff[d] <= 0)
				exist = false;
		}
		/* The first pod of a group with affinity to itself may go anywhere that has the
		 * keys. */
		if (missing || (!exist && !(s->aff_sum == 0 && s->self_aff))) {
			if (out)
				fail(out, SL_PL_INTER_POD_AFFINITY, "node(s) didn't match pod affinity rules");
			return SL_PL_INTER_POD_AFFINITY;
		}
	}
	if (s->anti_sum > 0)
		for (size_t t = 0; t < p->nanti; t++) {
			const struct tslot *x = &s->ts[s->anti_ts[t]];
			int32_t d = dom_of(s, x->topo, i);
			if (d >= 0 && x->anti[d] > 0) {
				if (out)
					fail(out, SL_PL_INTER_POD_AFFINITY,
					     "node(s) didn't match pod anti-affinity rules");
				return SL_PL_INTER_POD_AFFINITY;
			}
		}
	for (size_t x = 0; x < s->nts; x++) {
		if (!s->ts[x].any_block)
			continue;
		int32_t d = dom_of(s, s->ts[x].topo, i);
		if (d >= 0 && s->ts[x].block[d]) {
			if (out)
				fail(out, SL_PL_INTER_POD_AFFINITY,
				     "node(s) didn't satisfy existing pods "
				     "anti-affinity rules");
			return SL_PL_INTER_POD_AFFINITY;
		}
	}
	return SL_FITS;
}

/* LeastAllocated's share of one resource, (allocatable - requested) * 100 / allocatable, 0 when
 * nothing is left. The product is taken in 128 bits: allocatable may be anything up to
 * INT64_MAX (quantities saturate), where 64 would overflow. */
int64_t sl_free_share(int64_t alloc, int64_t req)
{
	if (alloc <= 0 || req > alloc)
		return 0;
	if (req < 0)
		req = 0;
	return (int64_t)((unsigned __int128)(uint64_t)(alloc - req) * 100 / (uint64_t)alloc);
}

/* The scheduler's choice among feasible nodes, by the default profile's scores that can differ
 * here: PodTopologySpread (weight 2, fewer matching pods in the node's domains is better),
 * NodeResourcesFit LeastAllocated and NodeResourcesBalancedAllocation (weight 1 each). Ties
 * go to the node listed first (the scheduler picks among them at random). */
static size_t choose(const struct sim *s, const size_t *cand, size_t ncand)
{
	/* PodTopologySpread scores ScheduleAnyway constraints only: matching pods in the node's
	 * domain, weighted by log(domains + 2); nodes without a key are ignored (score 0). */
	int64_t *raw = s->raw;
	int64_t rmin = INT64_MAX, rmax = 0;
	bool soft = false;
	double weight[16];
	size_t nw = 0;
	for (size_t k = 0; k < s->nsp && nw < 16; k++) {
		const struct spread_state *st = &s->sp[k];
		size_t ndomains = 0;
		if (st->c->hard)
			continue;
		soft = true;
		for (size_t x = 0; x < s->cl->topos[st->topo].ndom; x++)
			ndomains += st->present[x];
		weight[nw++] = log((double)ndomains + 2);
	}
	for (size_t c = 0; soft && c < ncand; c++) {
		double sc = 0;
		size_t w = 0;
		raw[c] = -1;
		for (size_t k = 0; k < s->nsp && w < nw; k++) {
			const struct spread_state *st = &s->sp[k];
			if (st->c->hard)
				continue;
			int32_t d = dom_of(s, st->topo, cand[c]);
			if (d < 0)
				break;
			sc += (double)(st->present[d] ? st->cnt[d] : 0) * weight[w++];
		}
		if (w < nw)
			continue; /* ignored */
		raw[c] = (int64_t)(sc + 0.5);
		if (raw[c] < rmin)
			rmin = raw[c];
		if (raw[c] > rmax)
			rmax = raw[c];
	}
	int64_t best = INT64_MIN;
	size_t pick = cand[0];
	const struct sl_cluster *cl = s->cl;
	for (size_t c = 0; c < ncand; c++) {
		size_t i = cand[c];
		int64_t score = 0;
		if (soft)
			score += 2 * (raw[c] < 0 ? 0 : rmax == 0 ? 100 : 100 * (rmax + rmin - raw[c]) / rmax);
		/* NodeResourcesFit LeastAllocated over cpu and memory, with scoring's non-zero requests */
		int64_t acpu = cl->alloc_cpu[i], amem = cl->alloc_mem[i];
		int64_t next = (int64_t)s->placed[i] + 1;
		int64_t rcpu = sl_sat_add(cl->nz_cpu[i], sl_sat_mul(next, s->nzcpu));
		int64_t rmem = sl_sat_add(cl->nz_mem[i], sl_sat_mul(next, s->nzmem));
		score += (sl_free_share(acpu, rcpu) + sl_free_share(amem, rmem)) / 2;
		/* NodeResourcesBalancedAllocation: 1 - the spread of the two fractions */
		double fc =
		    acpu > 0 ? (double)sl_sat_add(cl->used_cpu[i], sl_sat_mul(next, s->pcpu)) / (double)acpu : 1;
		double fm =
		    amem > 0 ? (double)sl_sat_add(cl->used_mem[i], sl_sat_mul(next, s->pmem)) / (double)amem : 1;
		if (fc > 1)
			fc = 1;
		if (fm > 1)
			fm = 1;
		score += (int64_t)((1 - fabs(fc - fm) / 2) * 100);
		if (s->reverse)
			score = -score;
		if (score > best || (s->reverse && score == best)) {
			best = score;
			pick = i;
		}
	}
	return pick;
}

/* One scheduling attempt for the next pod: the chosen node, or (size_t)-1 when none fits. */
/* How many feasible nodes the scheduler looks for before it stops filtering
 * (numFeasibleNodesToFind, percentageOfNodesToScore left at its adaptive default). */
static size_t feasible_to_find(size_t nall)
{
	if (nall < 100)
		return nall;
	int64_t pct = 50 - (int64_t)nall / 125;
	if (pct < 5)
		pct = 5;
	size_t want = nall * (size_t)pct / 100;
	return want < 100 ? 100 : want;
}

static size_t step(struct sim *s, size_t *cand)
{
	/* Like the scheduler, filter from where the previous attempt stopped, and stop once enough
	 * feasible nodes are found: placement follows, and large inventories stay cheap. */
	size_t ncand = 0, k;
	size_t want = feasible_to_find(s->nall);
	for (k = 0; k < s->n && ncand < want; k++) {
		size_t i = (s->next_start + k) % s->n;
		if (!s->excluded[i] && s->static_ok[i] && filter_dynamic(s, i, NULL) == SL_FITS)
			cand[ncand++] = i;
	}
	s->next_start = (s->next_start + k) % s->n;
	return ncand ? choose(s, cand, ncand) : (size_t)-1;
}

/* Every node's verdict for the next pod, with the reasons (for the FailedScheduling text). */
static struct sl_nodefit *explain_step(struct sim *s, const struct sl_nodefit *static_fit)
{
	struct sl_nodefit *f = sl_xcalloc(s->n + 1, sizeof *f);
	for (size_t i = 0; i < s->n; i++) {
		if (!s->static_ok[i])
			copy_fit(&f[i], &static_fit[i]);
		else
			filter_dynamic(s, i, &f[i]);
		f[i].excluded = s->excluded[i];
	}
	return f;
}

static void labels_with_hash(struct sl_labels *out, const struct sl_labels *in, const char *hash)
{
	out->v = sl_xcalloc(in->n + 1, sizeof *out->v);
	out->n = 0;
	for (size_t i = 0; i < in->n; i++)
		if (!hash || strcmp(in->v[i].key, "pod-template-hash"))
			out->v[out->n++] = in->v[i];
	if (hash)
		out->v[out->n++] = (struct sl_kv){"pod-template-hash", hash, NULL, NULL};
}

static void sim_init(struct sim *s, struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
		     const bool *static_ok, const char *old_hash)
{
	memset(s, 0, sizeof *s);
	s->cl = cl;
	s->m = cl->m;
	s->w = w;
	s->p = &w->pod;
	s->n = cl->n;
	s->excluded = excluded;
	s->static_ok = static_ok;
	for (size_t i = 0; i < s->n; i++)
		s->nall += !excluded[i];
	bool deploy = w->strategy != SL_STRATEGY_NONE;
	labels_with_hash(&s->gl[0], &w->pod.labels, deploy ? old_hash : NULL);
	labels_with_hash(&s->gl[1], &w->pod.labels, deploy ? "schedlint-new" : NULL);
	s->placed = sl_xcalloc(s->n + 1, sizeof *s->placed);
	s->cap = sl_xcalloc(s->n + 1, sizeof *s->cap);
	for (size_t i = 0; i < s->n; i++)
		s->cap[i] = -1;
	s->raw = sl_xcalloc(s->n + 1, sizeof *s->raw);
	podres_init(&s->res, &w->pod);
	s->pcpu = sl_res_get(&w->pod.request, "cpu");
	s->pmem = sl_res_get(&w->pod.request, "memory");
	s->nzcpu = nonzero(&w->pod, "cpu");
	s->nzmem = nonzero(&w->pod, "memory");
	s->placed_gen[0] = sl_xcalloc(s->n + 1, sizeof *s->placed_gen[0]);
	s->placed_gen[1] = sl_xcalloc(s->n + 1, sizeof *s->placed_gen[1]);
	const struct sl_podspec *p = s->p;
	s->aff_ts = sl_xcalloc(p->naffinity + 1, sizeof *s->aff_ts);
	s->anti_ts = sl_xcalloc(p->nanti + 1, sizeof *s->anti_ts);
	for (size_t t = 0; t < p->naffinity; t++)
		s->aff_ts[t] = slot_of(s, p->affinity[t].topology_key);
	for (size_t t = 0; t < p->nanti; t++)
		s->anti_ts[t] = slot_of(s, p->anti[t].topology_key);
	s->sp = sl_xcalloc(p->nspread + 1, sizeof *s->sp);
	for (size_t k = 0; k < p->nspread; k++) {
		/* DoNotSchedule constraints filter; ScheduleAnyway ones only score. */
		struct spread_state *st = &s->sp[s->nsp++];
		st->c = &p->spread[k];
		st->topo = topo_id(cl, st->c->topology_key);
		st->cnt = sl_xcalloc(cl->topos[st->topo].ndom + 1, sizeof *st->cnt);
		st->present = sl_xcalloc(cl->topos[st->topo].ndom + 1, sizeof *st->present);
		st->elig = sl_xcalloc(s->n + 1, sizeof *st->elig);
		st->elig_cls = judged_by_class(p) ? sl_xcalloc(cl->ncls + 1, sizeof *st->elig_cls) : NULL;
	}
}

static void sim_free(struct sim *s)
{
	free(s->gl[0].v);
	free(s->gl[1].v);
	free(s->placed);
	free(s->cap);
	free(s->raw);
	free(s->stamp);
	free(s->placed_gen[0]);
	free(s->placed_gen[1]);
	free(s->log);
	for (size_t x = 0; x < s->nts; x++) {
		free(s->ts[x].aff);
		free(s->ts[x].anti);
		free(s->ts[x].block);
	}
	free(s->ts);
	free(s->aff_ts);
	free(s->anti_ts);
	for (size_t k = 0; k < s->nsp; k++) {
		free(s->sp[k].cnt);
		free(s->sp[k].present);
		free(s->sp[k].elig);
		free(s->sp[k].elig_cls);
	}
	free(s->sp);
}

/* Whether a running pod with required anti-affinity would exclude a pod of w (of either
 * generation) somewhere: then every placement matters, not only resources. */
static bool blocked_by_running(const struct sl_cluster *cl, const struct sl_workload *w, const struct sl_labels *gl)
{
	size_t nq;
	size_t *q = anti_candidates(cl, w->pod.namespace, gl, 2, &nq);
	bool blocked = false;
	for (size_t a = 0; a < nq && !blocked; a++) {
		const struct sl_podspec *o = &cl->pods[q[a]]->spec;
		for (size_t t = 0; t < o->nanti && !blocked; t++)
			for (int g = 0; g < 2 && !blocked; g++)
				blocked =
				    sl_podterm_matches(&o->anti[t], o->namespace, &o->labels, w->pod.namespace, &gl[g]);
	}
	free(q);
	return blocked;
}

/* The workload's own pods among the running ones: same namespace, selected by its selector and,
 * for a Deployment, stamped with a pod-template-hash (a pod without one is not a ReplicaSet's).
 * Returns their count and the hash of the first. */
static int64_t own_pods(const struct sl_cluster *cl, const struct sl_workload *w, const char **hash, int64_t *per_node)
{
	int64_t n = 0;
	*hash = NULL;
	if (w->strategy == SL_STRATEGY_NONE)
		return 0;
	struct sl_buf scratch = SL_BUF_INIT;
	size_t nk;
	const size_t *ks = pods_for(cl, w->pod.namespace, &w->sel, &scratch, &nk);
	sl_buf_free(&scratch);
	for (size_t j = 0; j < nk; j++) {
		const struct sl_podspec *q = &cl->pods[ks[j]]->spec;
		const char *h = sl_labels_get(&q->labels, "pod-template-hash");
		if (!h || strcmp(q->namespace, w->pod.namespace) || !sl_selector_matches(&w->sel, &q->labels))
			continue;
		if (!*hash)
			*hash = h;
		if (per_node)
			per_node[cl->pod_node[ks[j]]]++;
		n++;
	}
	return n;
}

static struct sl_nodefit *copy_fits(const struct sl_nodefit *f, size_t n)
{
	struct sl_nodefit *c = sl_xcalloc(n + 1, sizeof *c);
	for (size_t i = 0; i < n; i++)
		copy_fit(&c[i], &f[i]);
	return c;
}

static void free_fits(struct sl_nodefit *f, size_t n)
{
	if (!f)
		return;
	for (size_t i = 0; i < n; i++)
		sl_nodefit_clear(&f[i]);
	free(f);
}

/* Resources alone limit the pods: each node's capacity is fixed and the count does not depend on
 * the order the scheduler places them in. */
static void analyze_by_slots(struct reasons *pool, const struct sl_model *m, const struct sl_workload *w,
			     const bool *excluded, const bool *static_ok, struct sl_analysis *a)
{
	size_t n = a->nnodes;
	for (size_t i = 0; i < n; i++) {
		if (static_ok[i])
			fit_resources(pool, &w->pod, m->nodes[i], 0, &a->fit[i]);
		if (excluded[i])
			continue;
		a->slots[i] = sl_node_slots(&w->pod, m->nodes[i], &a->fit[i], &a->slot_limit[i]);
		a->total_slots = sl_sat_add(a->total_slots, a->slots[i]);
	}
	int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
	int64_t more = a->replicas - own;
	int64_t placed = a->total_slots < more ? a->total_slots : more;
	a->steady_placed = own + placed;
	/* When the placement stops short, every candidate node is full, whatever order was taken.
	 */
	struct sl_nodefit *full = NULL;
	if (a->steady_placed < a->replicas || w->strategy == SL_STRATEGY_ROLLING) {
		full = sl_xcalloc(n + 1, sizeof *full);
		for (size_t i = 0; i < n; i++) {
			if (!static_ok[i])
				copy_fit(&full[i], &a->fit[i]);
			else
				fit_resources(pool, &w->pod, m->nodes[i], a->slots[i], &full[i]);
			full[i].excluded = excluded[i];
		}
	}
	if (a->steady_placed < a->replicas) {
		a->steady_fit = copy_fits(full, n);
		a->steady_fit_error = fit_error_text(n, full, n);
	}
	if (w->strategy == SL_STRATEGY_ROLLING) {
		int64_t room = a->total_slots - placed;
		a->surge_placed = room < a->max_surge ? room : a->max_surge;
		if (a->surge_placed < a->max_surge) {
			a->rollout_fit = copy_fits(full, n);
			a->rollout_fit_error = fit_error_text(n, full, n);
		}
	}
	free_fits(full, n);
}

/* Place the replicas (generation 0) after the workload's own running pods, then the surge
 * (generation 1). With a, records the verdicts for the first pod and why placement stopped. */
static void place_all(struct sim *s, const struct sl_workload *w, struct sl_analysis *a, int64_t own, int64_t *steady,
		      int64_t *surge, struct sl_nodefit **steady_fit, struct sl_nodefit **rollout_fit)
{
	size_t *cand = sl_xcalloc(s->n + 1, sizeof *cand);
	phase_begin(s, 0);
	if (a)
		for (size_t i = 0; i < s->n; i++)
			if (s->static_ok[i])
				filter_dynamic(s, i, &a->fit[i]);
	*steady = own;
	*surge = 0;
	while (*steady < w->replicas) {
		size_t i = step(s, cand);
		if (i == (size_t)-1) {
			if (a)
				*steady_fit = explain_step(s, a->fit);
			break;
		}
		place(s, i, 0);
		(*steady)++;
	}
	if (w->strategy == SL_STRATEGY_ROLLING) {
		int64_t max_surge, max_unavailable;
		sl_fenceposts(w, &max_surge, &max_unavailable);
		phase_begin(s, 1);
		while (*surge < max_surge) {
			size_t i = step(s, cand);
			if (i == (size_t)-1) {
				if (a)
					*rollout_fit = explain_step(s, a->fit);
				break;
			}
			place(s, i, 1);
			(*surge)++;
		}
	}
	free(cand);
}

/* Inter-pod terms, spread or host ports: the count depends on where each pod went, so pods are
 * placed one after another as the scheduler would. When that stops short, the placement is
 * repeated in the opposite order of preference: a different count means the verdict depends on
 * the order, not only on the nodes. */
static void analyze_in_sequence(struct sim *s, const struct sl_workload *w, struct sl_analysis *a, const char *old_hash)
{
	size_t n = a->nnodes;
	int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
	place_all(s, w, a, own, &a->steady_placed, &a->surge_placed, &a->steady_fit, &a->rollout_fit);
	if (a->steady_fit)
		a->steady_fit_error = fit_error_text(n, a->steady_fit, n);
	if (a->rollout_fit)
		a->rollout_fit_error = fit_error_text(n, a->rollout_fit, n);
	a->surge_slots = sl_xcalloc(n + 1, sizeof *a->surge_slots);
	for (size_t i = 0; i < n; i++) {
		a->slots[i] = s->placed_gen[0][i];
		a->surge_slots[i] = s->placed_gen[1][i];
	}
	a->total_slots = a->steady_placed - own + a->surge_placed;
	if (a->steady_fit || a->rollout_fit) {
		struct sim r;
		int64_t steady, surge;
		sim_init(&r, s->cl, w, s->excluded, s->static_ok, old_hash);
		r.reverse = true;
		place_all(&r, w, NULL, own, &steady, &surge, NULL, NULL);
		a->order_dependent = steady != a->steady_placed || surge != a->surge_placed;
		sim_free(&r);
	}
}

/* Whether the filters that look only at the node give every node of a class the same verdict:
 * not when the pod names nodes (nodeName, metadata.name fields, the hostname label). */
static bool judged_by_class(const struct sl_podspec *p)
{
	if (p->node_name || sl_labels_get(&p->node_selector, "kubernetes.io/hostname"))
		return false;
	for (size_t t = 0; t < p->nterms; t++) {
		if (p->terms[t].nfields)
			return false;
		for (size_t e = 0; e < p->terms[t].nexprs; e++)
			if (!strcmp(p->terms[t].exprs[e].key, "kubernetes.io/hostname"))
				return false;
	}
	return true;
}

/* Everything filter_static reads of a pod spec that names no node: tolerations, nodeSelector
 * and required node affinity. Equal keys, equal verdicts. */
static void static_key(const struct sl_podspec *p, struct sl_buf *b)
{
	for (size_t i = 0; i < p->ntols; i++)
		sl_buf_printf(b, "t%s\x1f%s\x1f%s\x1f%s\x1e", p->tols[i].key, p->tols[i].op, p->tols[i].value,
			      p->tols[i].effect);
	for (size_t i = 0; i < p->node_selector.n; i++)
		sl_buf_printf(b, "s%s\x1f%s\x1e", p->node_selector.v[i].key, p->node_selector.v[i].val);
	sl_buf_printf(b, "a%d\x1e", p->has_required_affinity);
	for (size_t t = 0; t < p->nterms; t++) {
		sl_buf_puts(b, "T");
		for (int f = 0; f < 2; f++) {
			const struct sl_requirement *r = f ? p->terms[t].fields : p->terms[t].exprs;
			size_t n = f ? p->terms[t].nfields : p->terms[t].nexprs;
			for (size_t e = 0; e < n; e++) {
				sl_buf_printf(b, "%c%s\x1f%d", f ? 'f' : 'e', r[e].key, (int)r[e].op);
				for (size_t v = 0; v < r[e].nvals; v++)
					sl_buf_printf(b, "\x1f%s", r[e].vals[v]);
				sl_buf_puts(b, "\x1e");
			}
		}
	}
}

/* The common case, decided without per-node detail: resources alone limit the pods, and the
 * nodes have room for every replica and the surge. Returns false when a closer look is needed. */
static bool fits_at_a_glance(const struct sl_cluster *cl, const struct sl_workload *w, const bool *excluded,
			     const bool *static_ok, struct sl_analysis *a)
{
	struct podres r;
	podres_init(&r, &w->pod);
	int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
	int64_t need = a->replicas - own + a->max_surge;
	if (a->strategy == SL_STRATEGY_ROLLING && a->max_unavailable == 0 && a->max_surge == 0 && a->replicas > 0)
		return false; /* the formula's deadlock; let the full analysis say so */
	if (need < 1)
		need = 1; /* still prove that one pod fits somewhere */
	for (size_t i = 0; i < a->nnodes; i++) {
		if (excluded[i] || !static_ok[i])
			continue;
		a->total_slots = sl_sat_add(a->total_slots, node_capacity(cl, &r, &w->pod, i));
		if (a->total_slots >= need) {
			a->nfeasible = 1; /* at least; the count was not needed */
			a->steady_placed = a->replicas;
			a->surge_placed = a->max_surge;
			return true;
		}
	}
	return false;
}

void sl_analyze(struct sl_cluster *cl, const struct sl_workload *w, bool detail, struct sl_analysis *a)
{
	const struct sl_model *m = cl->m;
	memset(a, 0, sizeof *a);
	size_t n = cl->n;
	const struct sl_podspec *p = &w->pod;
	a->pod = p;
	a->nnodes = n;
	a->replicas = w->replicas;
	a->strategy = w->strategy;
	a->is_rollout = w->strategy != SL_STRATEGY_NONE;
	if (w->strategy == SL_STRATEGY_ROLLING)
		sl_fenceposts(w, &a->max_surge, &a->max_unavailable);
	const char *hash;
	a->own_running = own_pods(cl, w, &hash, NULL);
	const char *old_hash = hash ? hash : "schedlint-old";

	bool *excluded = sl_xcalloc(n + 1, sizeof *excluded);
	bool *static_ok = sl_xcalloc(n + 1, sizeof *static_ok);
	prefilter(p, m, excluded);
	/* The node-only filters, once per class of identical nodes when the pod names no node. */
	bool by_class = judged_by_class(p);
	struct sl_nodefit *cls_fit = by_class ? sl_xcalloc(cl->ncls + 1, sizeof *cls_fit) : NULL;
	signed char *cls_ok = by_class ? sl_xcalloc(cl->ncls + 1, 1) : NULL; /* 0 unknown, 1 pass, -1 fail */
	struct sl_nodefit scratch;
	struct reasons *pool = detail ? &cl->reasons : NULL;
	if (detail)
		a->fit = sl_xcalloc(n + 1, sizeof *a->fit);
	/* Without detail only the verdicts count: take them from a workload written alike. */
	struct sl_buf key = SL_BUF_INIT;
	const signed char *known = NULL;
	if (by_class && !detail) {
		static_key(p, &key);
		pthread_mutex_lock(&cl->static_lock);
		size_t k = sl_strmap_get(&cl->static_keys.map, sl_buf_str(&key));
		if (k != (size_t)-1)
			known = cl->static_verdicts[k];
		pthread_mutex_unlock(&cl->static_lock);
	}
	for (size_t i = 0; i < n && known; i++)
		static_ok[i] = known[cl->cls[i]] > 0;
	for (size_t i = 0; i < n && !known; i++) {
		struct sl_nodefit *out = detail ? &a->fit[i] : &scratch;
		if (!by_class) {
			memset(&scratch, 0, sizeof scratch);
			static_ok[i] = filter_static(pool, p, m->nodes[i], out);
			continue;
		}
		size_t c = cl->cls[i];
		if (!cls_ok[c])
			cls_ok[c] = filter_static(pool, p, m->nodes[i], &cls_fit[c]) ? 1 : -1;
		static_ok[i] = cls_ok[c] > 0;
		if (detail)
			*out = cls_fit[c];
	}
	if (by_class && !detail && !known) {
		/* Every class has a node, so every class was judged above. */
		pthread_mutex_lock(&cl->static_lock);
		size_t before = cl->static_keys.n;
		sl_intern(&cl->static_keys, sl_buf_str(&key));
		if (cl->static_keys.n > before) {
			sl_grow(&cl->static_verdicts, &cl->capstatic, cl->static_keys.n, sizeof *cl->static_verdicts);
			cl->static_verdicts[before] = cls_ok;
			cls_ok = NULL;
		}
		pthread_mutex_unlock(&cl->static_lock);
	}
	sl_buf_free(&key);
	free(cls_fit);
	free(cls_ok);

	struct sl_labels gl[2];
	bool deploy = w->strategy != SL_STRATEGY_NONE;
	labels_with_hash(&gl[0], &p->labels, deploy ? old_hash : NULL);
	labels_with_hash(&gl[1], &p->labels, deploy ? "schedlint-new" : NULL);
	bool hard_spread = false;
	for (size_t k = 0; k < p->nspread; k++)
		hard_spread |= p->spread[k].hard;
	a->sequential = p->naffinity || p->nanti || hard_spread || p->nports || blocked_by_running(cl, w, gl);
	free(gl[0].v);
	free(gl[1].v);

	bool done = false;
	if (!detail && !a->sequential)
		done = fits_at_a_glance(cl, w, excluded, static_ok, a);
	if (!detail && a->sequential) {
		struct sim s;
		int64_t steady, surge;
		int64_t own = a->own_running < a->replicas ? a->own_running : a->replicas;
		sim_init(&s, cl, w, excluded, static_ok, old_hash);
		place_all(&s, w, NULL, own, &steady, &surge, NULL, NULL);
		sim_free(&s);
		if (steady == a->replicas && surge == a->max_surge && steady > 0 &&
		    !(a->strategy == SL_STRATEGY_ROLLING && a->max_unavailable == 0 && surge == 0)) {
			a->nfeasible = 1; /* at least */
			a->steady_placed = steady;
			a->surge_placed = surge;
			a->total_slots = steady - own + surge;
			done = true;
		}
	}
	if (!done) {
		/* Something does not fit: the full picture, node by node, for the proof. */
		struct sl_analysis full;
		free(excluded);
		free(static_ok);
		if (!detail) {
			sl_analyze(cl, w, true, &full);
			*a = full;
			return;
		}
		a->slots = sl_xcalloc(n + 1, sizeof *a->slots);
		a->slot_limit = sl_xcalloc(n + 1, sizeof *a->slot_limit);
		a->own_on = sl_xcalloc(n + 1, sizeof *a->own_on);
		own_pods(cl, w, &hash, a->own_on);
		excluded = sl_xcalloc(n + 1, sizeof *excluded);
		static_ok = sl_xcalloc(n + 1, sizeof *static_ok);
		prefilter(p, m, excluded);
		for (size_t i = 0; i < n; i++)
			static_ok[i] = a->fit[i].plugin == SL_FITS;
		if (a->sequential) {
			struct sim s;
			sim_init(&s, cl, w, excluded, static_ok, old_hash);
			analyze_in_sequence(&s, w, a, old_hash);
			sim_free(&s);
		} else
			analyze_by_slots(&cl->reasons, m, w, excluded, static_ok, a);
		for (size_t i = 0; i < n; i++) {
			/* Never filtered by the scheduler, and so absent from its message; the first filter
			 * that would fail is still worth showing. */
			a->fit[i].excluded = excluded[i];
			if (excluded[i])
				a->nexcluded++;
			else if (a->fit[i].plugin == SL_FITS)
				a->nfeasible++;
		}
		if (a->nfeasible == 0)
			a->fit_error = fit_error_text(n, a->fit, n);
		a->detailed = true;
	}
	a->rollout_deadlock =
	    w->strategy == SL_STRATEGY_ROLLING && a->max_unavailable == 0 && a->surge_placed == 0 && a->replicas > 0;
	free(excluded);
	free(static_ok);
}

void sl_analysis_free(struct sl_analysis *a)
{
	free_fits(a->fit, a->nnodes);
	free_fits(a->steady_fit, a->nnodes);
	free_fits(a->rollout_fit, a->nnodes);
	free(a->slots);
	free(a->surge_slots);
	free(a->own_on);
	free(a->slot_limit);
	free(a->fit_error);
	free(a->steady_fit_error);
	free(a->rollout_fit_error);
	memset(a, 0, sizeof *a);
}
