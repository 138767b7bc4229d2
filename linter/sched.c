#include "sched.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
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
	for (size_t i = 0; i < f->nreasons; i++)
		free(f->reasons[i]);
	memset(f, 0, sizeof *f);
}

static void fail(struct sl_nodefit *f, enum sl_plugin p, char *reason)
{
	f->plugin = p;
	if (f->nreasons < SL_MAX_REASONS)
		f->reasons[f->nreasons++] = reason;
	else
		free(reason);
}

static void copy_fit(struct sl_nodefit *dst, const struct sl_nodefit *src)
{
	*dst = *src;
	for (size_t r = 0; r < src->nreasons; r++)
		dst->reasons[r] = sl_xstrdup(src->reasons[r]);
}

/* --- label and field matching (component-helpers nodeaffinity) ----------------------------- */

/* strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no spaces. */
static int parse_int64(const char *s, int64_t *out)
{
	if (!*s)
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno || s[0] == ' ' || s[0] == '\t' || s[0] == '\n')
		return -1;
	*out = v;
	return 0;
}

static bool in_values(const struct sl_requirement *r, const char *v)
{
	for (size_t i = 0; i < r->nvals; i++)
		if (!strcmp(r->vals[i], v))
			return true;
	return false;
}

bool sl_requirement_matches(const struct sl_requirement *r, const struct sl_labels *labels)
{
	const char *v = sl_labels_get(labels, r->key);
	switch (r->op) {
	case SL_OP_IN:
		return v && in_values(r, v);
	case SL_OP_NOTIN:
		return !v || !in_values(r, v);
	case SL_OP_EXISTS:
		return v != NULL;
	case SL_OP_DOESNOTEXIST:
		return v == NULL;
	case SL_OP_GT:
	case SL_OP_LT: {
		int64_t lv, rv;
		/* Gt/Lt take exactly one integer value; anything else never matches. */
		if (!v || r->nvals != 1 || parse_int64(v, &lv) < 0 || parse_int64(r->vals[0], &rv) < 0)
			return false;
		return r->op == SL_OP_GT ? lv > rv : lv < rv;
	}
	default:
		return false;
	}
}

bool sl_field_matches(const struct sl_requirement *r, const char *node_name)
{
	if (strcmp(r->key, "metadata.name"))
		return false; /* the only field selector the scheduler supports */
	if (r->op == SL_OP_IN)
		return in_values(r, node_name);
	if (r->op == SL_OP_NOTIN)
		return !in_values(r, node_name);
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

bool sl_selector_matches(const struct sl_selector *s, const struct sl_labels *l)
{
	if (s->nothing)
		return false;
	for (size_t i = 0; i < s->nreqs; i++)
		if (!sl_requirement_matches(&s->reqs[i], l))
			return false;
	return true;
}

/* Namespaces carry the kubernetes.io/metadata.name label (set by the API server since 1.22);
 * no other namespace label is known to a linter. */
static bool ns_selector_matches(const struct sl_selector *s, const char *ns)
{
	struct sl_kv kv = {"kubernetes.io/metadata.name", ns, NULL, NULL};
	struct sl_labels l = {&kv, 1};
	return sl_selector_matches(s, &l);
}

bool sl_podterm_matches(const struct sl_podterm *t, const char *owner_ns, const struct sl_labels *owner, const char *ns,
			const struct sl_labels *labels)
{
	bool ns_ok = false;
	if (!t->nnamespaces && !t->has_ns_selector)
		ns_ok = !strcmp(owner_ns, ns);
	for (size_t i = 0; i < t->nnamespaces && !ns_ok; i++)
		ns_ok = !strcmp(t->namespaces[i], ns);
	if (!ns_ok && t->has_ns_selector)
		ns_ok = ns_selector_matches(&t->ns_sel, ns);
	if (!ns_ok || !sl_selector_matches(&t->sel, labels))
		return false;
	/* matchLabelKeys: key In (owner's value); mismatchLabelKeys: key NotIn (owner's value).
	 * Keys the owner lacks add nothing. */
	for (size_t i = 0; i < t->nmatch_keys; i++) {
		const char *v = sl_labels_get(owner, t->match_keys[i]);
		const char *lv = sl_labels_get(labels, t->match_keys[i]);
		if (v && (!lv || strcmp(v, lv)))
			return false;
	}
	for (size_t i = 0; i < t->nmismatch_keys; i++) {
		const char *v = sl_labels_get(owner, t->mismatch_keys[i]);
		const char *lv = sl_labels_get(labels, t->mismatch_keys[i]);
		if (v && lv && !strcmp(v, lv))
			return false;
	}
	return true;
}

/* A spread constraint's selector, with matchLabelKeys taken from the incoming pod. */
static bool spread_selects(const struct sl_spread *c, const struct sl_labels *owner, const struct sl_labels *labels)
{
	if (!sl_selector_matches(&c->sel, labels))
		return false;
	for (size_t i = 0; i < c->nmatch_keys; i++) {
		const char *v = sl_labels_get(owner, c->match_keys[i]);
		const char *lv = sl_labels_get(labels, c->match_keys[i]);
		if (v && (!lv || strcmp(v, lv)))
			return false;
	}
	return true;
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
static bool fit_resources(const struct sl_podspec *p, const struct sl_node *n, int64_t placed, struct sl_nodefit *out)
{
	bool short_ = false;
	if (n->npods + placed + 1 > n->max_pods) {
		if (!out)
			return true;
		short_ = true;
		fail(out, SL_PL_NODE_RESOURCES_FIT, sl_xstrdup("Too many pods"));
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
			fail(out, SL_PL_NODE_RESOURCES_FIT, sl_xasprintf("Insufficient %s", nm));
		}
	}
	return short_;
}

/* The filters that look only at the node and the pod spec, never at other pods:
 * NodeUnschedulable, NodeName, TaintToleration, NodeAffinity. Returns whether all pass. */
static bool filter_static(const struct sl_podspec *p, const struct sl_node *n, struct sl_nodefit *out)
{
	static const struct sl_taint unschedulable_taint = {"node.kubernetes.io/unschedulable", "", "NoSchedule", NULL};
	if (n->unschedulable && !tolerated(p, &unschedulable_taint)) {
		fail(out, SL_PL_NODE_UNSCHEDULABLE, sl_xstrdup("node(s) were unschedulable"));
		return false;
	}
	if (p->node_name && strcmp(p->node_name, n->name)) {
		fail(out, SL_PL_NODE_NAME, sl_xstrdup("node(s) didn't match the requested node name"));
		return false;
	}
	const struct sl_taint *t = sl_untolerated_taint(p, n);
	if (t) {
		fail(out, SL_PL_TAINT_TOLERATION,
		     sl_xasprintf("node(s) had untolerated taint {%s: %s}", t->key, t->value));
		return false;
	}
	if (!sl_node_affinity_matches(p, n)) {
		fail(out, SL_PL_NODE_AFFINITY, sl_xstrdup("node(s) didn't match Pod's node affinity/selector"));
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
				    !in_values(r, m->nodes[i]->name))
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
	size_t *anti; /* indexes into pods: those with required anti-affinity terms */
	size_t nanti;
	int64_t *nz_cpu, *nz_mem; /* per node: requests as scoring counts them (0 becomes 100m / 200Mi) */
	struct topo *topos;
	size_t ntopos, captopos;
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
	c->anti = sl_xcalloc(c->npods + 1, sizeof *c->anti);
	c->nz_cpu = sl_xcalloc(c->n + 1, sizeof *c->nz_cpu);
	c->nz_mem = sl_xcalloc(c->n + 1, sizeof *c->nz_mem);
	for (size_t i = 0; i < m->npods; i++) {
		if (where[i] == (size_t)-1)
			continue;
		size_t k = c->pod_start[where[i] + 1]++;
		c->pods[k] = m->pods[i];
		c->pod_node[k] = where[i];
		c->nz_cpu[where[i]] += nonzero(&m->pods[i]->spec, "cpu");
		c->nz_mem[where[i]] += nonzero(&m->pods[i]->spec, "memory");
	}
	for (size_t k = 0; k < c->npods; k++)
		if (c->pods[k]->spec.nanti)
			c->anti[c->nanti++] = k;
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
	free(c->pod_start);
	free(c->pods);
	free(c->pod_node);
	free(c->anti);
	free(c->nz_cpu);
	free(c->nz_mem);
	free(c);
}

/* The domains of a topology key, computed once per key and run. */
static size_t topo_id(struct sl_cluster *c, const char *key)
{
	for (size_t i = 0; i < c->ntopos; i++)
		if (!strcmp(c->topos[i].key, key))
			return i;
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
	return c->ntopos++;
}

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
	int64_t *cnt;  /* matching pods per domain, on eligible nodes */
	bool *present; /* domains with an eligible node */
	int64_t min;   /* the global minimum the skew is measured from */
	bool self;     /* the incoming pod matches its own selector */
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
	bool reverse; /* choose the node the scheduler likes least (the order check) */
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
	const struct sl_node *nd = s->m->nodes[i];
	for (size_t k = 0; k < s->nsp; k++)
		if (s->sp[k].c->hard == st->c->hard && dom_of(s, s->sp[k].topo, i) < 0)
			return false;
	if (st->c->honor_affinity && !sl_node_affinity_matches(s->p, nd))
		return false;
	if (st->c->honor_taints && sl_untolerated_taint(s->p, nd))
		return false;
	return true;
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
	const struct sl_cluster *cl = s->cl;
	if (s->p->naffinity || s->p->nanti || s->nsp)
		for (size_t i = 0; i < s->n; i++)
			for (size_t k = cl->pod_start[i]; k < cl->pod_start[i + 1]; k++)
				count_pod(s, i, cl->pods[k]->spec.namespace, &cl->pods[k]->spec.labels);
	for (size_t a = 0; a < cl->nanti; a++) {
		const struct sl_pod *q = cl->pods[cl->anti[a]];
		count_blocks(s, cl->pod_node[cl->anti[a]], q->spec.anti, q->spec.nanti, q->spec.namespace,
			     &q->spec.labels);
	}
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
			fail(out, SL_PL_NODE_PORTS,
			     sl_xstrdup("node(s) didn't have free ports for the requested pod ports"));
		return SL_PL_NODE_PORTS;
	}
	if (fit_resources(p, nd, s->placed[i], out))
		return SL_PL_NODE_RESOURCES_FIT;
	for (size_t k = 0; k < s->nsp; k++) {
		const struct spread_state *st = &s->sp[k];
		if (!st->c->hard)
			continue;
		int32_t d = dom_of(s, st->topo, i);
		if (d < 0) {
			if (out)
				fail(out, SL_PL_POD_TOPOLOGY_SPREAD,
				     sl_xstrdup("node(s) didn't match pod topology spread "
						"constraints (missing required label)"));
			return SL_PL_POD_TOPOLOGY_SPREAD;
		}
		int64_t match = st->present[d] ? st->cnt[d] : 0;
		if (match + (st->self ? 1 : 0) - st->min > st->c->max_skew) {
			if (out)
				fail(out, SL_PL_POD_TOPOLOGY_SPREAD,
				     sl_xstrdup("node(s) didn't match pod topology spread constraints"));
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
				fail(out, SL_PL_INTER_POD_AFFINITY,
				     sl_xstrdup("node(s) didn't match pod affinity rules"));
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
					     sl_xstrdup("node(s) didn't match pod anti-affinity rules"));
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
				     sl_xstrdup("node(s) didn't satisfy existing pods "
						"anti-affinity rules"));
			return SL_PL_INTER_POD_AFFINITY;
		}
	}
	return SL_FITS;
}

/* The scheduler's choice among feasible nodes, by the default profile's scores that can differ
 * here: PodTopologySpread (weight 2, fewer matching pods in the node's domains is better),
 * NodeResourcesFit LeastAllocated and NodeResourcesBalancedAllocation (weight 1 each). Ties
 * go to the node listed first (the scheduler picks among them at random). */
static size_t choose(const struct sim *s, const size_t *cand, size_t ncand)
{
	int64_t *raw = sl_xcalloc(ncand, sizeof *raw);
	bool *ignored = sl_xcalloc(ncand, sizeof *ignored);
	int64_t rmin = INT64_MAX, rmax = 0;
	for (size_t c = 0; c < ncand; c++) {
		double sc = 0;
		for (size_t k = 0; k < s->nsp; k++) {
			const struct spread_state *st = &s->sp[k];
			int32_t d = dom_of(s, st->topo, cand[c]);
			if (d < 0) {
				ignored[c] = true;
				break;
			}
			size_t ndomains = 0;
			for (size_t x = 0; x < s->cl->topos[st->topo].ndom; x++)
				ndomains += st->present[x];
			sc += (double)(st->present[d] ? st->cnt[d] : 0) * log((double)ndomains + 2);
		}
		raw[c] = (int64_t)(sc + 0.5);
		if (!ignored[c]) {
			if (raw[c] < rmin)
				rmin = raw[c];
			if (raw[c] > rmax)
				rmax = raw[c];
		}
	}
	int64_t best = INT64_MIN;
	size_t pick = cand[0];
	int64_t pcpu = nonzero(s->p, "cpu"), pmem = nonzero(s->p, "memory");
	for (size_t c = 0; c < ncand; c++) {
		size_t i = cand[c];
		const struct sl_node *nd = s->m->nodes[i];
		int64_t score = 0;
		if (s->nsp)
			score += 2 * (ignored[c] ? 0 : rmax == 0 ? 100 : 100 * (rmax + rmin - raw[c]) / rmax);
		int64_t acpu = sl_res_get(&nd->alloc, "cpu"), amem = sl_res_get(&nd->alloc, "memory");
		int64_t rcpu = s->cl->nz_cpu[i] + (s->placed[i] + 1) * pcpu;
		int64_t rmem = s->cl->nz_mem[i] + (s->placed[i] + 1) * pmem;
		int64_t la = 0;
		if (acpu > 0 && rcpu <= acpu)
			la += (acpu - rcpu) * 100 / acpu;
		if (amem > 0 && rmem <= amem)
			la += (amem - rmem) * 100 / amem;
		score += la / 2;
		double fc = acpu > 0 ? (double)(sl_res_get(&nd->used, "cpu") +
						(s->placed[i] + 1) * sl_res_get(&s->p->request, "cpu")) /
					   (double)acpu
				     : 1;
		double fm = amem > 0 ? (double)(sl_res_get(&nd->used, "memory") +
						(s->placed[i] + 1) * sl_res_get(&s->p->request, "memory")) /
					   (double)amem
				     : 1;
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
	free(raw);
	free(ignored);
	return pick;
}

/* One scheduling attempt for the next pod: the chosen node, or (size_t)-1 when none fits. */
static size_t step(struct sim *s, size_t *cand)
{
	size_t ncand = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!s->excluded[i] && s->static_ok[i] && filter_dynamic(s, i, NULL) == SL_FITS)
			cand[ncand++] = i;
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
	bool deploy = w->strategy != SL_STRATEGY_NONE;
	labels_with_hash(&s->gl[0], &w->pod.labels, deploy ? old_hash : NULL);
	labels_with_hash(&s->gl[1], &w->pod.labels, deploy ? "schedlint-new" : NULL);
	s->placed = sl_xcalloc(s->n + 1, sizeof *s->placed);
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
		if (!p->spread[k].hard)
			continue; /* ScheduleAnyway constraints only score */
		struct spread_state *st = &s->sp[s->nsp++];
		st->c = &p->spread[k];
		st->topo = topo_id(cl, st->c->topology_key);
		st->cnt = sl_xcalloc(cl->topos[st->topo].ndom + 1, sizeof *st->cnt);
		st->present = sl_xcalloc(cl->topos[st->topo].ndom + 1, sizeof *st->present);
	}
}

static void sim_free(struct sim *s)
{
	free(s->gl[0].v);
	free(s->gl[1].v);
	free(s->placed);
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
	}
	free(s->sp);
}

/* Whether a running pod with required anti-affinity would exclude a pod of w (of either
 * generation) somewhere: then every placement matters, not only resources. */
static bool blocked_by_running(const struct sl_cluster *cl, const struct sl_workload *w, const struct sl_labels *gl)
{
	for (size_t a = 0; a < cl->nanti; a++) {
		const struct sl_pod *q = cl->pods[cl->anti[a]];
		for (size_t t = 0; t < q->spec.nanti; t++)
			for (int g = 0; g < 2; g++)
				if (sl_podterm_matches(&q->spec.anti[t], q->spec.namespace, &q->spec.labels,
						       w->pod.namespace, &gl[g]))
					return true;
	}
	return false;
}

/* The workload's own pods among the running ones: same namespace, selected by its selector and,
 * for a Deployment, stamped with a pod-template-hash (a pod without one is not a ReplicaSet's).
 * Returns their count and the hash of the first. */
static int64_t own_pods(const struct sl_cluster *cl, const struct sl_workload *w, const char **hash)
{
	int64_t n = 0;
	*hash = NULL;
	if (w->strategy == SL_STRATEGY_NONE)
		return 0;
	for (size_t k = 0; k < cl->npods; k++) {
		const struct sl_podspec *q = &cl->pods[k]->spec;
		const char *h = sl_labels_get(&q->labels, "pod-template-hash");
		if (!h || strcmp(q->namespace, w->pod.namespace) || !sl_selector_matches(&w->sel, &q->labels))
			continue;
		if (!*hash)
			*hash = h;
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
static void analyze_by_slots(const struct sl_model *m, const struct sl_workload *w, const bool *excluded,
			     const bool *static_ok, struct sl_analysis *a)
{
	size_t n = a->nnodes;
	for (size_t i = 0; i < n; i++) {
		if (static_ok[i])
			fit_resources(&w->pod, m->nodes[i], 0, &a->fit[i]);
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
				fit_resources(&w->pod, m->nodes[i], a->slots[i], &full[i]);
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

void sl_analyze(struct sl_cluster *cl, const struct sl_workload *w, struct sl_analysis *a)
{
	const struct sl_model *m = cl->m;
	memset(a, 0, sizeof *a);
	size_t n = cl->n;
	a->pod = &w->pod;
	a->nnodes = n;
	a->fit = sl_xcalloc(n + 1, sizeof *a->fit);
	a->slots = sl_xcalloc(n + 1, sizeof *a->slots);
	a->slot_limit = sl_xcalloc(n + 1, sizeof *a->slot_limit);
	bool *excluded = sl_xcalloc(n + 1, sizeof *excluded);
	bool *static_ok = sl_xcalloc(n + 1, sizeof *static_ok);
	prefilter(&w->pod, m, excluded);
	for (size_t i = 0; i < n; i++)
		static_ok[i] = filter_static(&w->pod, m->nodes[i], &a->fit[i]);
	const char *hash;
	a->own_running = own_pods(cl, w, &hash);
	a->replicas = w->replicas;
	a->strategy = w->strategy;
	a->is_rollout = w->strategy != SL_STRATEGY_NONE;
	if (w->strategy == SL_STRATEGY_ROLLING)
		sl_fenceposts(w, &a->max_surge, &a->max_unavailable);

	struct sim s;
	const char *old_hash = hash ? hash : "schedlint-old";
	sim_init(&s, cl, w, excluded, static_ok, old_hash);
	const struct sl_podspec *p = &w->pod;
	a->sequential = p->naffinity || p->nanti || s.nsp || p->nports || blocked_by_running(cl, w, s.gl);
	if (a->sequential)
		analyze_in_sequence(&s, w, a, old_hash);
	else
		analyze_by_slots(m, w, excluded, static_ok, a);
	sim_free(&s);

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
	free(a->slot_limit);
	free(a->fit_error);
	free(a->steady_fit_error);
	free(a->rollout_fit_error);
	memset(a, 0, sizeof *a);
}
