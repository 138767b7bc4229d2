#include "sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "quantity.h"

const char *sl_plugin_name(enum sl_plugin p)
{
	static const char *const names[] = {"",
					    "NodeUnschedulable",
					    "NodeName",
					    "TaintToleration",
					    "NodeAffinity",
					    "NodePorts",
					    "NodeResourcesFit",
					    "PodTopologySpread",
					    "InterPodAffinity"};
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

/* --- taints ------------------------------------------------------------------------------------ */

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

/* --- resources --------------------------------------------------------------------------------- */

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
		if ((!strcmp(nm, "cpu") || !strcmp(nm, "memory") || !strcmp(nm, "ephemeral-storage")) && req->v[i].amount)
			return false;
	}
	return true;
}

/* NodeResourcesFit: allocatable < request + requested (+ `placed` more of this pod). cpu, memory
 * and ephemeral-storage are always compared, even at a request of 0; scalar resources when the
 * pod names them. */
static void fit_resources(const struct sl_podspec *p, const struct sl_node *n, int64_t placed, struct sl_nodefit *out)
{
	if (n->npods + placed + 1 > n->max_pods)
		fail(out, SL_PL_NODE_RESOURCES_FIT, sl_xstrdup("Too many pods"));
	if (request_all_zero(&p->request))
		return;
	static const char *const basic[] = {"cpu", "memory", "ephemeral-storage"};
	for (size_t i = 0; i < 3 + p->request.n; i++) {
		const char *nm = i < 3 ? basic[i] : p->request.v[i - 3].name;
		if (i >= 3 && !is_scalar_resource(nm))
			continue;
		int64_t req = sl_res_get(&p->request, nm);
		int64_t need = sl_sat_add(sl_sat_add(req, sl_res_get(&n->used, nm)), sl_sat_mul(req, placed));
		if (sl_res_get(&n->alloc, nm) < need)
			fail(out, SL_PL_NODE_RESOURCES_FIT, sl_xasprintf("Insufficient %s", nm));
	}
}

void sl_filter_node(const struct sl_podspec *p, const struct sl_node *n, int64_t placed, struct sl_nodefit *out)
{
	static const struct sl_taint unschedulable_taint = {"node.kubernetes.io/unschedulable", "", "NoSchedule", NULL};
	memset(out, 0, sizeof *out);
	if (n->unschedulable && !tolerated(p, &unschedulable_taint)) {
		fail(out, SL_PL_NODE_UNSCHEDULABLE, sl_xstrdup("node(s) were unschedulable"));
		return;
	}
	if (p->node_name && strcmp(p->node_name, n->name)) {
		fail(out, SL_PL_NODE_NAME, sl_xstrdup("node(s) didn't match the requested node name"));
		return;
	}
	const struct sl_taint *t = sl_untolerated_taint(p, n);
	if (t) {
		fail(out, SL_PL_TAINT_TOLERATION, sl_xasprintf("node(s) had untolerated taint {%s: %s}", t->key, t->value));
		return;
	}
	if (!sl_node_affinity_matches(p, n)) {
		fail(out, SL_PL_NODE_AFFINITY, sl_xstrdup("node(s) didn't match Pod's node affinity/selector"));
		return;
	}
	fit_resources(p, n, placed, out);
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

/* --- the FailedScheduling message ----------------------------------------------------------------- */

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
			return false; /* this term admits nodes by labels: every node is a candidate */
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		bool in_union = false;
		for (size_t t = 0; t < p->nterms && !in_union; t++) {
			bool in_all = true; /* the term's name sets intersect */
			for (size_t f = 0; f < p->terms[t].nfields; f++) {
				const struct sl_requirement *r = &p->terms[t].fields[f];
				if (!strcmp(r->key, "metadata.name") && r->op == SL_OP_IN && !in_values(r, m->nodes[i]->name))
					in_all = false;
			}
			in_union = in_all;
		}
		excluded[i] = !in_union;
	}
	return true;
}

void sl_analyze(const struct sl_model *m, const struct sl_workload *w, struct sl_analysis *a)
{
	memset(a, 0, sizeof *a);
	size_t n = m->nnodes;
	a->pod = &w->pod;
	a->nnodes = n;
	a->fit = sl_xcalloc(n, sizeof *a->fit);
	a->slots = sl_xcalloc(n, sizeof *a->slots);
	a->slot_limit = sl_xcalloc(n, sizeof *a->slot_limit);
	bool *excluded = sl_xcalloc(n, sizeof *excluded);
	prefilter(&w->pod, m, excluded);
	for (size_t i = 0; i < n; i++) {
		sl_filter_node(&w->pod, m->nodes[i], 0, &a->fit[i]);
		if (excluded[i]) {
			/* Never filtered by the scheduler, and so absent from its message; the first
			 * filter that would fail is still worth showing. */
			a->fit[i].excluded = true;
			a->nexcluded++;
			continue;
		}
		if (a->fit[i].plugin == SL_FITS)
			a->nfeasible++;
		a->slots[i] = sl_node_slots(&w->pod, m->nodes[i], &a->fit[i], &a->slot_limit[i]);
		a->total_slots = sl_sat_add(a->total_slots, a->slots[i]);
	}
	if (a->nfeasible == 0)
		a->fit_error = fit_error_text(n, a->fit, n);

	a->replicas = w->replicas;
	a->steady_placed = a->total_slots < a->replicas ? a->total_slots : a->replicas;
	/* Identical pods and filters that only count resources: when the placement stops short, every
	 * candidate node is full, whatever order the scheduler chose. */
	struct sl_nodefit *full = NULL;
	if (a->steady_placed < a->replicas || w->strategy == SL_STRATEGY_ROLLING) {
		full = sl_xcalloc(n, sizeof *full);
		for (size_t i = 0; i < n; i++) {
			if (excluded[i]) {
				full[i].excluded = true;
				continue;
			}
			sl_filter_node(&w->pod, m->nodes[i], a->slots[i], &full[i]);
		}
	}
	if (a->steady_placed < a->replicas)
		a->steady_fit_error = fit_error_text(n, full, n);
	a->strategy = w->strategy;
	a->is_rollout = w->strategy != SL_STRATEGY_NONE;
	if (w->strategy == SL_STRATEGY_ROLLING) {
		sl_fenceposts(w, &a->max_surge, &a->max_unavailable);
		int64_t room = a->total_slots - a->steady_placed;
		a->surge_placed = room < a->max_surge ? room : a->max_surge;
		if (a->surge_placed < a->max_surge)
			a->rollout_fit_error = fit_error_text(n, full, n);
		a->rollout_deadlock = a->max_unavailable == 0 && a->surge_placed == 0 && a->replicas > 0;
	}
	if (full) {
		for (size_t i = 0; i < n; i++)
			sl_nodefit_clear(&full[i]);
		free(full);
	}
	free(excluded);
}

void sl_analysis_free(struct sl_analysis *a)
{
	for (size_t i = 0; i < a->nnodes; i++)
		sl_nodefit_clear(&a->fit[i]);
	free(a->fit);
	free(a->slots);
	free(a->slot_limit);
	free(a->fit_error);
	free(a->steady_fit_error);
	free(a->rollout_fit_error);
	memset(a, 0, sizeof *a);
}
