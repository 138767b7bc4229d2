#include "k8s.h"

#include <pthread.h>
#include <stdatomic.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "input.h"
#include "manifest.h"
#include "quantity.h"

/* --- small containers -------------------------------------------------------------------- */


const struct sl_res *sl_res_find(const struct sl_reslist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

int64_t sl_res_get(const struct sl_reslist *l, const char *name)
{
	const struct sl_res *r = sl_res_find(l, name);
	return r ? r->amount : 0;
}

static struct sl_res *res_slot(struct sl_reslist *l, const char *name, const struct sl_ynode *node)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	sl_grow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	struct sl_res *r = &l->v[l->n++];
	r->name = name;
	r->amount = 0;
	r->node = node;
	return r;
}

void sl_res_add(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node)
{
	struct sl_res *r = res_slot(l, name, node);
	r->amount = sl_sat_add(r->amount, amount);
	if (!r->node)
		r->node = node;
}

void sl_res_max(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node)
{
	struct sl_res *r = res_slot(l, name, node);
	if (amount > r->amount) {
		r->amount = amount;
		r->node = node;
	}
}

void sl_res_free(struct sl_reslist *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

const char *sl_op_name(enum sl_op op)
{
	static const char *const names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "?"};
	return names[op];
}

/* --- typed access with errors at the offending node ------------------------------------------ */

struct ctx {
	const struct sl_source *src;
	struct sl_findings *errs;
	int failed;
};

static void bad(struct ctx *c, const struct sl_ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void bad(struct ctx *c, const struct sl_ynode *n, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	struct sl_span at;
	if (n)
		at = n->at;
	else
		sl_source_span(c->src, 0, 0, &at);
	sl_input_error(c->errs, &at, "%s", b.s);
	sl_buf_free(&b);
	c->failed = 1;
}

/* The value at key when it is of kind k; NULL when absent or null; an error otherwise. */
static const struct sl_ynode *want(struct ctx *c, const struct sl_ynode *map, const char *key, enum sl_ykind k,
				   const char *path)
{
	const struct sl_ynode *v = sl_ymap_get(map, key);
	if (sl_ynull(v))
		return NULL;
	if (v->kind != k) {
		bad(c, v, "%s must be %s, not %s", path,
		    k == SL_YMAP   ? "a mapping"
		    : k == SL_YSEQ ? "a list"
				   : "a scalar",
		    sl_ykind_name(v));
		return NULL;
	}
	return v;
}

static const char *want_str(struct ctx *c, const struct sl_ynode *map, const char *key, const char *path)
{
	const struct sl_ynode *v = want(c, map, key, SL_YSCALAR, path);
	return v ? v->str : NULL;
}

static int parse_bool(const struct sl_ynode *n, bool *out)
{
	static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
	static const char *const f[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
	for (size_t i = 0; i < 9; i++) {
		if (!strcmp(n->str, t[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(n->str, f[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

static void parse_labels(struct ctx *c, const struct sl_ynode *m, const char *path, struct sl_labels *out)
{
	memset(out, 0, sizeof *out);
	if (!m)
		return;
	out->v = sl_xcalloc(m->n, sizeof *out->v);
	for (size_t i = 0; i < m->n; i++) {
		const struct sl_ynode *k = m->v[2 * i], *v = m->v[2 * i + 1];
		if (k->kind != SL_YSCALAR || (v->kind != SL_YSCALAR)) {
			bad(c, v->kind != SL_YSCALAR ? v : k, "%s: keys and values must be strings, not %s", path,
			    sl_ykind_name(v->kind != SL_YSCALAR ? v : k));
			continue;
		}
		struct sl_kv *kv = &out->v[out->n++];
		kv->key = k->str;
		kv->val = sl_ynull(v) ? "" : v->str;
		kv->knode = k;
		kv->vnode = v;
	}
}

static int parse_amount(struct ctx *c, const struct sl_ynode *v, const char *name, const char *path, int64_t *out)
{
	struct sl_qty q;
	const char *why = NULL;
	if (v->kind != SL_YSCALAR) {
		bad(c, v, "%s.%s must be a quantity, not %s", path, name, sl_ykind_name(v));
		return -1;
	}
	if (sl_qty_parse(v->str, &q, &why) < 0) {
		bad(c, v, "%s.%s: invalid quantity \"%s\": %s", path, name, v->str, why);
		return -1;
	}
	if (q.neg && q.mant) {
		bad(c, v, "%s.%s: quantity \"%s\" must not be negative", path, name, v->str);
		return -1;
	}
	/* The API server keeps quantities to the nano-unit; a finer one is not what it stores. */
	if (!q.sticky && !sl_qty_exact_at(&q, 9)) {
		bad(c, v, "%s.%s: quantity \"%s\" is finer than the API keeps (1n, a billionth)", path, name, v->str);
		return -1;
	}
	*out = sl_qty_scaled(&q, sl_resource_scale(name));
	if (*out == INT64_MAX) { /* saturated: not an amount the scheduler can count */
		bad(c, v, "%s.%s: quantity \"%s\" is too large: the scheduler counts %s in %s up to 2^63-1", path, name,
		    v->str, name, sl_resource_scale(name) ? "milli-units" : "units");
		return -1;
	}
	return 0;
}

static void parse_reslist(struct ctx *c, const struct sl_ynode *m, const char *path, struct sl_reslist *out)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		const struct sl_ynode *k = m->v[2 * i], *v = m->v[2 * i + 1];
		int64_t amount;
		if (k->kind != SL_YSCALAR) {
			bad(c, k, "%s: resource names must be strings", path);
			continue;
		}
		if (parse_amount(c, v, k->str, path, &amount) == 0)
			sl_res_add(out, k->str, amount, v);
	}
}

/* A container's requests, with limits standing in for requests it does not state (the API
 * server's defaulting). */
static void container_requests(struct ctx *c, const struct sl_ynode *ctr, const char *path, struct sl_reslist *out)
{
	const struct sl_ynode *res = want(c, ctr, "resources", SL_YMAP, "resources");
	char p[128];
	snprintf(p, sizeof p, "%s.resources.requests", path);
	parse_reslist(c, want(c, res, "requests", SL_YMAP, p), p, out);
	struct sl_reslist lim = {0};
	snprintf(p, sizeof p, "%s.resources.limits", path);
	parse_reslist(c, want(c, res, "limits", SL_YMAP, p), p, &lim);
	for (size_t i = 0; i < lim.n; i++)
		if (!sl_res_find(out, lim.v[i].name))
			sl_res_add(out, lim.v[i].name, lim.v[i].amount, lim.v[i].node);
	sl_res_free(&lim);
}

/* The pod's effective request as the scheduler computes it: the sum over containers, raised to
 * any init container's request (init containers run one at a time before the others), where
 * restartable (sidecar) init containers keep running and so add to everything after them; plus
 * the RuntimeClass overhead. */
static void pod_request(struct ctx *c, const struct sl_ynode *spec, const struct sl_ynode *ctrs, struct sl_reslist *out)
{
	for (size_t i = 0; ctrs && i < ctrs->n; i++) {
		if (ctrs->v[i]->kind != SL_YMAP) {
			bad(c, ctrs->v[i], "containers[%zu] must be a mapping, not %s", i, sl_ykind_name(ctrs->v[i]));
			continue;
		}
		struct sl_reslist r = {0};
		char p[64];
		snprintf(p, sizeof p, "containers[%zu]", i);
		container_requests(c, ctrs->v[i], p, &r);
		for (size_t j = 0; j < r.n; j++)
			sl_res_add(out, r.v[j].name, r.v[j].amount, r.v[j].node);
		sl_res_free(&r);
	}
	const struct sl_ynode *inits = want(c, spec, "initContainers", SL_YSEQ, "initContainers");
	struct sl_reslist sidecars = {0}, initmax = {0};
	for (size_t i = 0; inits && i < inits->n; i++) {
		const struct sl_ynode *ic = inits->v[i];
		if (ic->kind != SL_YMAP) {
			bad(c, ic, "initContainers[%zu] must be a mapping, not %s", i, sl_ykind_name(ic));
			continue;
		}
		struct sl_reslist r = {0};
		char p[64];
		snprintf(p, sizeof p, "initContainers[%zu]", i);
		container_requests(c, ic, p, &r);
		if (sl_yis(sl_ymap_get(ic, "restartPolicy"), "Always")) {
			for (size_t j = 0; j < r.n; j++) {
				sl_res_add(out, r.v[j].name, r.v[j].amount, r.v[j].node);
				sl_res_add(&sidecars, r.v[j].name, r.v[j].amount, r.v[j].node);
			}
			for (size_t j = 0; j < sidecars.n; j++)
				sl_res_max(&initmax, sidecars.v[j].name, sidecars.v[j].amount, sidecars.v[j].node);
		} else {
			for (size_t j = 0; j < sidecars.n; j++)
				sl_res_add(&r, sidecars.v[j].name, sidecars.v[j].amount, NULL);
			for (size_t j = 0; j < r.n; j++)
				sl_res_max(&initmax, r.v[j].name, r.v[j].amount, r.v[j].node);
		}
		sl_res_free(&r);
	}
	for (size_t j = 0; j < initmax.n; j++)
		sl_res_max(out, initmax.v[j].name, initmax.v[j].amount, initmax.v[j].node);
	sl_res_free(&initmax);
	sl_res_free(&sidecars);
	struct sl_reslist ovh = {0};
	parse_reslist(c, want(c, spec, "overhead", SL_YMAP, "overhead"), "overhead", &ovh);
	for (size_t j = 0; j < ovh.n; j++)
		sl_res_add(out, ovh.v[j].name, ovh.v[j].amount, ovh.v[j].node);
	sl_res_free(&ovh);
}

static enum sl_op parse_op(const char *s)
{
	static const char *const names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
	for (int i = 0; i < 6; i++)
		if (!strcmp(s, names[i]))
			return (enum sl_op)i;
	return SL_OP_BAD;
}

static void parse_requirements(struct ctx *c, const struct sl_ynode *seq, const char *path, struct sl_requirement **out,
			       size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!seq)
		return;
	*out = sl_xcalloc(seq->n, sizeof **out);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		if (e->kind != SL_YMAP) {
			bad(c, e, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(e));
			continue;
		}
		struct sl_requirement *r = &(*out)[(*n)++];
		r->node = e;
		r->key = want_str(c, e, "key", "key");
		const char *op = want_str(c, e, "operator", "operator");
		if (!r->key)
			r->key = "";
		r->op = op ? parse_op(op) : SL_OP_BAD;
		if (r->op == SL_OP_BAD)
			bad(c, sl_ymap_get(e, "operator") ? sl_ymap_get(e, "operator") : e,
			    "%s[%zu].operator must be one of In, NotIn, Exists, DoesNotExist, Gt, "
			    "Lt",
			    path, i);
		const struct sl_ynode *vals = want(c, e, "values", SL_YSEQ, "values");
		if (vals) {
			r->vals = sl_xcalloc(vals->n, sizeof *r->vals);
			for (size_t j = 0; j < vals->n; j++) {
				if (vals->v[j]->kind != SL_YSCALAR) {
					bad(c, vals->v[j], "%s[%zu].values must hold strings", path, i);
					continue;
				}
				r->vals[r->nvals++] = vals->v[j]->str;
			}
		}
	}
}

static void parse_affinity(struct ctx *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *aff = want(c, spec, "affinity", SL_YMAP, "affinity");
	const struct sl_ynode *na = want(c, aff, "nodeAffinity", SL_YMAP, "affinity.nodeAffinity");
	const struct sl_ynode *req = want(c, na, "requiredDuringSchedulingIgnoredDuringExecution", SL_YMAP,
					  "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
	if (!req)
		return;
	p->affinity_node = req;
	const struct sl_ynode *terms = want(c, req, "nodeSelectorTerms", SL_YSEQ, "nodeSelectorTerms");
	p->has_required_affinity = terms != NULL; /* a missing list is rejected by the API server */
	if (!terms)
		return;
	p->terms = sl_xcalloc(terms->n, sizeof *p->terms);
	for (size_t i = 0; i < terms->n; i++) {
		const struct sl_ynode *t = terms->v[i];
		if (t->kind != SL_YMAP && !sl_ynull(t)) {
			bad(c, t, "nodeSelectorTerms[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
			continue;
		}
		struct sl_term *term = &p->terms[p->nterms++];
		term->node = t;
		parse_requirements(c, want(c, t, "matchExpressions", SL_YSEQ, "matchExpressions"), "matchExpressions",
				   &term->exprs, &term->nexprs);
		parse_requirements(c, want(c, t, "matchFields", SL_YSEQ, "matchFields"), "matchFields", &term->fields,
				   &term->nfields);
	}
}

/* A metav1.LabelSelector; matchLabels first, then matchExpressions (ANDed). */
static void parse_selector(struct ctx *c, const struct sl_ynode *v, const char *path, struct sl_selector *out)
{
	memset(out, 0, sizeof *out);
	out->node = v;
	if (sl_ynull(v)) {
		out->nothing = true;
		return;
	}
	if (v->kind != SL_YMAP) {
		bad(c, v, "%s must be a mapping, not %s", path, sl_ykind_name(v));
		out->nothing = true;
		return;
	}
	struct sl_labels ml;
	parse_labels(c, want(c, v, "matchLabels", SL_YMAP, "matchLabels"), "matchLabels", &ml);
	struct sl_requirement *exprs;
	size_t nexprs;
	parse_requirements(c, want(c, v, "matchExpressions", SL_YSEQ, "matchExpressions"), "matchExpressions", &exprs,
			   &nexprs);
	for (size_t i = 0; i < nexprs; i++)
		if (exprs[i].op == SL_OP_GT || exprs[i].op == SL_OP_LT)
			bad(c, exprs[i].node,
			    "%s: a label selector's operator must be In, NotIn, Exists or "
			    "DoesNotExist",
			    path);
	out->reqs = sl_xcalloc(ml.n + nexprs + 1, sizeof *out->reqs);
	for (size_t i = 0; i < ml.n; i++) {
		struct sl_requirement *r = &out->reqs[out->nreqs++];
		r->key = ml.v[i].key;
		r->op = SL_OP_IN;
		r->vals = sl_xcalloc(1, sizeof *r->vals);
		r->vals[0] = ml.v[i].val;
		r->nvals = 1;
		r->node = ml.v[i].knode;
	}
	for (size_t i = 0; i < nexprs; i++)
		out->reqs[out->nreqs++] = exprs[i];
	free(exprs);
	free(ml.v);
}

static void selector_free(struct sl_selector *s)
{
	for (size_t i = 0; i < s->nreqs; i++)
		free(s->reqs[i].vals);
	free(s->reqs);
}

/* A list of strings (namespaces, matchLabelKeys); entries that are not scalars are errors. */
static const char **parse_strings(struct ctx *c, const struct sl_ynode *map, const char *key, size_t *n)
{
	*n = 0;
	const struct sl_ynode *seq = want(c, map, key, SL_YSEQ, key);
	if (!seq)
		return NULL;
	const char **out = sl_xcalloc(seq->n + 1, sizeof *out);
	for (size_t i = 0; i < seq->n; i++) {
		if (seq->v[i]->kind != SL_YSCALAR || sl_ynull(seq->v[i])) {
			bad(c, seq->v[i], "%s[%zu] must be a string", key, i);
			continue;
		}
		out[(*n)++] = seq->v[i]->str;
	}
	return out;
}

static void parse_podterms(struct ctx *c, const struct sl_ynode *aff, const char *which, const struct sl_ynode **at,
			   struct sl_podterm **out, size_t *n)
{
	char path[96];
	snprintf(path, sizeof path, "affinity.%s", which);
	const struct sl_ynode *pa = want(c, aff, which, SL_YMAP, path);
	snprintf(path, sizeof path, "%s.requiredDuringSchedulingIgnoredDuringExecution", which);
	const struct sl_ynode *req = want(c, pa, "requiredDuringSchedulingIgnoredDuringExecution", SL_YSEQ, path);
	*at = req;
	if (!req)
		return;
	*out = sl_xcalloc(req->n, sizeof **out);
	for (size_t i = 0; i < req->n; i++) {
		const struct sl_ynode *e = req->v[i];
		if (e->kind != SL_YMAP) {
			bad(c, e, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(e));
			continue;
		}
		struct sl_podterm *t = &(*out)[(*n)++];
		t->node = e;
		parse_selector(c, sl_ymap_get(e, "labelSelector"), "labelSelector", &t->sel);
		t->namespaces = parse_strings(c, e, "namespaces", &t->nnamespaces);
		const struct sl_ynode *nss = sl_ymap_get(e, "namespaceSelector");
		t->has_ns_selector = !sl_ynull(nss);
		parse_selector(c, nss, "namespaceSelector", &t->ns_sel);
		t->topology_key = want_str(c, e, "topologyKey", "topologyKey");
		if (!t->topology_key || !*t->topology_key) {
			bad(c, sl_ymap_get(e, "topologyKey") ? sl_ymap_get(e, "topologyKey") : e,
			    "%s[%zu].topologyKey is required", path, i);
			t->topology_key = "";
		}
		t->match_keys = parse_strings(c, e, "matchLabelKeys", &t->nmatch_keys);
		t->mismatch_keys = parse_strings(c, e, "mismatchLabelKeys", &t->nmismatch_keys);
	}
}

static void parse_spread(struct ctx *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *seq = want(c, spec, "topologySpreadConstraints", SL_YSEQ, "topologySpreadConstraints");
	p->spread_node = seq;
	if (!seq)
		return;
	p->spread = sl_xcalloc(seq->n, sizeof *p->spread);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		if (e->kind != SL_YMAP) {
			bad(c, e, "topologySpreadConstraints[%zu] must be a mapping, not %s", i, sl_ykind_name(e));
			continue;
		}
		struct sl_spread *t = &p->spread[p->nspread++];
		t->node = e;
		const struct sl_ynode *v = sl_ymap_get(e, "maxSkew");
		if (sl_ynull(v) || sl_yint(v, &t->max_skew) < 0 || t->max_skew < 1) {
			bad(c, v ? v : e,
			    "topologySpreadConstraints[%zu].maxSkew must be an integer of at least "
			    "1",
			    i);
			t->max_skew = 1;
		}
		v = sl_ymap_get(e, "minDomains");
		t->min_domains = 1;
		if (!sl_ynull(v) && (sl_yint(v, &t->min_domains) < 0 || t->min_domains < 1)) {
			bad(c, v,
			    "topologySpreadConstraints[%zu].minDomains must be an integer of at "
			    "least 1",
			    i);
			t->min_domains = 1;
		}
		t->topology_key = want_str(c, e, "topologyKey", "topologyKey");
		if (!t->topology_key || !*t->topology_key) {
			bad(c, sl_ymap_get(e, "topologyKey") ? sl_ymap_get(e, "topologyKey") : e,
			    "topologySpreadConstraints[%zu].topologyKey is required", i);
			t->topology_key = "";
		}
		v = sl_ymap_get(e, "whenUnsatisfiable");
		if (sl_yis(v, "DoNotSchedule"))
			t->hard = true;
		else if (!sl_yis(v, "ScheduleAnyway"))
			bad(c, v ? v : e,
			    "topologySpreadConstraints[%zu].whenUnsatisfiable must be "
			    "DoNotSchedule or ScheduleAnyway",
			    i);
		v = sl_ymap_get(e, "nodeAffinityPolicy");
		t->honor_affinity = sl_ynull(v) || sl_yis(v, "Honor");
		if (!sl_ynull(v) && !sl_yis(v, "Honor") && !sl_yis(v, "Ignore"))
			bad(c, v, "nodeAffinityPolicy must be Honor or Ignore");
		v = sl_ymap_get(e, "nodeTaintsPolicy");
		t->honor_taints = sl_yis(v, "Honor");
		if (!sl_ynull(v) && !sl_yis(v, "Honor") && !sl_yis(v, "Ignore"))
			bad(c, v, "nodeTaintsPolicy must be Honor or Ignore");
		parse_selector(c, sl_ymap_get(e, "labelSelector"), "labelSelector", &t->sel);
		t->match_keys = parse_strings(c, e, "matchLabelKeys", &t->nmatch_keys);
	}
}

static void parse_volumes(struct ctx *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *vols = want(c, spec, "volumes", SL_YSEQ, "volumes");
	for (size_t i = 0; vols && i < vols->n; i++) {
		const struct sl_ynode *v = vols->v[i];
		if (v->kind != SL_YMAP) {
			bad(c, v, "volumes[%zu] must be a mapping, not %s", i, sl_ykind_name(v));
			continue;
		}
		const struct sl_ynode *pvc = want(c, v, "persistentVolumeClaim", SL_YMAP, "persistentVolumeClaim");
		const char *claim = want_str(c, pvc, "claimName", "persistentVolumeClaim.claimName");
		if (!claim)
			continue;
		if (!p->volumes)
			p->volumes = sl_xcalloc(vols->n, sizeof *p->volumes);
		struct sl_volume *vol = &p->volumes[p->nvolumes++];
		vol->name = want_str(c, v, "name", "volumes[].name");
		vol->claim = claim;
		vol->node = pvc;
		const struct sl_ynode *ro = sl_ymap_get(pvc, "readOnly");
		if (!sl_ynull(ro) && (ro->kind != SL_YSCALAR || parse_bool(ro, &vol->read_only) < 0))
			bad(c, ro, "persistentVolumeClaim.readOnly must be true or false");
	}
}

/* Ports the pod binds on its node. Under hostNetwork the API server defaults hostPort to
 * containerPort. Init containers' ports are not reserved by the scheduler. */
static void parse_ports(struct ctx *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *ctrs = p->containers_node;
	bool host_net = false;
	const struct sl_ynode *hn = sl_ymap_get(spec, "hostNetwork");
	if (!sl_ynull(hn) && (hn->kind != SL_YSCALAR || parse_bool(hn, &host_net) < 0))
		bad(c, hn, "hostNetwork must be true or false");
	size_t cap = 0;
	for (size_t i = 0; ctrs && i < ctrs->n; i++) {
		const struct sl_ynode *ports = want(c, ctrs->v[i], "ports", SL_YSEQ, "ports");
		for (size_t j = 0; ports && j < ports->n; j++) {
			const struct sl_ynode *e = ports->v[j];
			if (e->kind != SL_YMAP) {
				bad(c, e, "containers[%zu].ports[%zu] must be a mapping, not %s", i, j,
				    sl_ykind_name(e));
				continue;
			}
			const struct sl_ynode *hp = sl_ymap_get(e, "hostPort");
			if (sl_ynull(hp) && host_net)
				hp = sl_ymap_get(e, "containerPort");
			int64_t port = 0;
			if (sl_ynull(hp))
				continue;
			if (sl_yint(hp, &port) < 0 || port < 0 || port > 65535) {
				bad(c, hp,
				    "containers[%zu].ports[%zu]: a port must be an integer from 1 "
				    "to 65535",
				    i, j);
				continue;
			}
			if (port == 0)
				continue;
			sl_grow(&p->ports, &cap, p->nports + 1, sizeof *p->ports);
			struct sl_hostport *h = &p->ports[p->nports++];
			const char *s;
			h->port = port;
			h->node = hp;
			h->ip = (s = want_str(c, e, "hostIP", "hostIP")) && *s ? s : "0.0.0.0";
			h->proto = (s = want_str(c, e, "protocol", "protocol")) && *s ? s : "TCP";
		}
	}
}

static void parse_tolerations(struct ctx *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *tols = want(c, spec, "tolerations", SL_YSEQ, "tolerations");
	if (!tols)
		return;
	p->tols = sl_xcalloc(tols->n, sizeof *p->tols);
	for (size_t i = 0; i < tols->n; i++) {
		const struct sl_ynode *t = tols->v[i];
		if (t->kind != SL_YMAP) {
			bad(c, t, "tolerations[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
			continue;
		}
		struct sl_toleration *to = &p->tols[p->ntols++];
		const char *s;
		to->node = t;
		to->key = (s = want_str(c, t, "key", "toleration key")) ? s : "";
		to->op = (s = want_str(c, t, "operator", "toleration operator")) ? s : "";
		to->value = (s = want_str(c, t, "value", "toleration value")) ? s : "";
		to->effect = (s = want_str(c, t, "effect", "toleration effect")) ? s : "";
	}
}

void sl_podspec_free(struct sl_podspec *p)
{
	sl_res_free(&p->request);
	free(p->labels.v);
	free(p->node_selector.v);
	for (size_t i = 0; i < p->nterms; i++) {
		for (size_t j = 0; j < p->terms[i].nexprs; j++)
			free(p->terms[i].exprs[j].vals);
		for (size_t j = 0; j < p->terms[i].nfields; j++)
			free(p->terms[i].fields[j].vals);
		free(p->terms[i].exprs);
		free(p->terms[i].fields);
	}
	free(p->terms);
	free(p->tols);
	for (int k = 0; k < 2; k++) {
		struct sl_podterm *ts = k ? p->anti : p->affinity;
		size_t nt = k ? p->nanti : p->naffinity;
		for (size_t i = 0; i < nt; i++) {
			selector_free(&ts[i].sel);
			selector_free(&ts[i].ns_sel);
			free(ts[i].namespaces);
			free(ts[i].match_keys);
			free(ts[i].mismatch_keys);
		}
		free(ts);
	}
	for (size_t i = 0; i < p->nspread; i++) {
		selector_free(&p->spread[i].sel);
		free(p->spread[i].match_keys);
	}
	free(p->spread);
	free(p->ports);
	free(p->volumes);
	memset(p, 0, sizeof *p);
}

int sl_parse_podspec(const struct sl_source *src, const struct sl_ynode *spec, const char *ns,
		     const struct sl_ynode *labels, struct sl_podspec *p, struct sl_findings *errs)
{
	struct ctx c = {src, errs, 0};
	memset(p, 0, sizeof *p);
	p->node = spec;
	p->namespace = ns;
	parse_labels(&c, labels, "labels", &p->labels);
	p->containers_node = want(&c, spec, "containers", SL_YSEQ, "containers");
	pod_request(&c, spec, p->containers_node, &p->request);
	p->node_selector_node = want(&c, spec, "nodeSelector", SL_YMAP, "nodeSelector");
	parse_labels(&c, p->node_selector_node, "nodeSelector", &p->node_selector);
	parse_affinity(&c, spec, p);
	parse_tolerations(&c, spec, p);
	const struct sl_ynode *aff = want(&c, spec, "affinity", SL_YMAP, "affinity");
	parse_podterms(&c, aff, "podAffinity", &p->affinity_terms_node, &p->affinity, &p->naffinity);
	parse_podterms(&c, aff, "podAntiAffinity", &p->anti_terms_node, &p->anti, &p->nanti);
	parse_spread(&c, spec, p);
	parse_ports(&c, spec, p);
	parse_volumes(&c, spec, p);
	p->node_name = want_str(&c, spec, "nodeName", "nodeName");
	if (p->node_name && !*p->node_name)
		p->node_name = NULL;
	return c.failed ? -1 : 0;
}

/* --- rollout parameters ----------------------------------------------------------------------- */

static void parse_intpct(struct ctx *c, const struct sl_ynode *rolling, const char *key, struct sl_intpct *out)
{
	const struct sl_ynode *v = sl_ymap_get(rolling, key);
	out->set = false;
	out->percent = true;
	out->v = 25; /* the API server's default for both */
	out->node = NULL;
	if (sl_ynull(v))
		return;
	out->node = v;
	if (v->kind != SL_YSCALAR) {
		bad(c, v, "rollingUpdate.%s must be an integer or a percentage, not %s", key, sl_ykind_name(v));
		return;
	}
	int64_t i;
	if (sl_yint(v, &i) == 0) {
		if (i > INT32_MAX || i < INT32_MIN) { /* intstr.IntOrString holds an int32 */
			bad(c, v, "rollingUpdate.%s: %s is out of range: an integer value is an int32 (at most %d)",
			    key, v->str, INT32_MAX);
			return;
		}
		out->set = true;
		out->percent = false;
		out->v = i;
	} else if (v->len > 1 && v->str[v->len - 1] == '%') {
		/* Go's strconv.Atoi on what precedes the '%': optional sign, decimal digits. */
		const char *s = v->str;
		int neg = 0;
		if (*s == '+' || *s == '-')
			neg = *s++ == '-';
		int64_t n = 0;
		int ok = s < v->str + v->len - 1;
		for (; s < v->str + v->len - 1 && ok; s++) {
			if (*s < '0' || *s > '9' || n > 100000000)
				ok = 0;
			else
				n = n * 10 + (*s - '0');
		}
		if (!ok) {
			bad(c, v, "rollingUpdate.%s: \"%s\" is not a valid percentage", key, v->str);
			return;
		}
		out->set = true;
		out->percent = true;
		out->v = neg ? -n : n;
	} else {
		bad(c, v,
		    "rollingUpdate.%s: \"%s\" is neither an integer nor a percentage such as "
		    "\"25%%\"%s",
		    key, v->str, v->plain ? "" : " (a quoted number is a string, which the API server rejects)");
		return;
	}
	if (out->v < 0)
		bad(c, v, "rollingUpdate.%s must not be negative (the API server rejects %s)", key, v->str);
}

int64_t sl_intpct_resolve(const struct sl_intpct *p, int64_t total, bool round_up)
{
	if (!p->percent)
		return p->v;
	int64_t x = p->v * total; /* both bounded: percent <= 1e8, replicas <= 2^31 */
	if (x <= 0)
		return x / 100;
	return round_up ? (x + 99) / 100 : x / 100;
}

void sl_fenceposts(const struct sl_workload *w, int64_t *surge, int64_t *unavailable)
{
	*surge = sl_intpct_resolve(&w->max_surge, w->replicas, true);
	*unavailable = sl_intpct_resolve(&w->max_unavailable, w->replicas, false);
	if (*surge == 0 && *unavailable == 0)
		*unavailable = 1;
}

void sl_intpct_format(const struct sl_intpct *p, char *out, unsigned n)
{
	snprintf(out, n, "%lld%s", (long long)p->v, p->percent ? "%" : "");
}

/* --- objects ---------------------------------------------------------------------------------- */

void sl_object_read(const struct sl_source *src, const struct sl_ynode *root, struct sl_object *o)
{
	memset(o, 0, sizeof *o);
	o->src = src;
	o->root = root;
	o->kind_node = sl_ymap_get(root, "kind");
	o->kind = sl_yscalar(o->kind_node) ? o->kind_node->str : NULL;
	o->api_version = sl_yscalar(sl_ymap_get(root, "apiVersion")) ? sl_ymap_get(root, "apiVersion")->str : "";
	const struct sl_ynode *md = sl_ymap_get(root, "metadata");
	o->name_node = sl_ymap_get(md, "name");
	o->name = sl_yscalar(o->name_node) && !sl_ynull(o->name_node) ? o->name_node->str : NULL;
	if (!o->name) {
		const struct sl_ynode *gn = sl_ymap_get(md, "generateName");
		o->name = sl_yscalar(gn) ? gn->str : "(unnamed)";
	}
	const struct sl_ynode *ns = sl_ymap_get(md, "namespace");
	o->namespace = sl_yscalar(ns) && !sl_ynull(ns) && ns->len ? ns->str : SL_DEFAULT_NAMESPACE;
}

static int load_workload(struct sl_model *m, struct ctx *c, const struct sl_object *o)
{
	const struct sl_ynode *root = o->root;
	const char *k = o->kind;
	const struct sl_ynode *spec = NULL, *podspec = NULL, *labels = NULL;
	spec = want(c, root, "spec", SL_YMAP, "spec");
	if (!strcmp(k, "Pod")) {
		podspec = spec;
		labels = want(c, sl_ymap_get(root, "metadata"), "labels", SL_YMAP, "metadata.labels");
	} else {
		const struct sl_ynode *holder = spec;
		if (!strcmp(k, "CronJob")) {
			const struct sl_ynode *jt = want(c, spec, "jobTemplate", SL_YMAP, "spec.jobTemplate");
			holder = want(c, jt, "spec", SL_YMAP, "spec.jobTemplate.spec");
		}
		const struct sl_ynode *tmpl = want(c, holder, "template", SL_YMAP, "spec.template");
		podspec = want(c, tmpl, "spec", SL_YMAP, "spec.template.spec");
		labels = want(c, sl_ymap_get(tmpl, "metadata"), "labels", SL_YMAP, "spec.template.metadata.labels");
	}
	if (!podspec)
		return c->failed ? -1 : 0; /* nothing to schedule: a manifest fragment */
	struct sl_workload *w = sl_xcalloc(1, sizeof *w);
	w->obj = *o;
	w->spec = spec;
	if (sl_parse_podspec(c->src, podspec, o->namespace, labels, &w->pod, c->errs) < 0)
		c->failed = 1;
	w->replicas = 1;
	const char *rkey = !strcmp(k, "Job") || !strcmp(k, "CronJob") ? "parallelism" : "replicas";
	const struct sl_ynode *rholder = spec;
	if (!strcmp(k, "CronJob"))
		rholder = sl_ypath(spec, "jobTemplate.spec");
	const struct sl_ynode *r = !strcmp(k, "Pod") || !strcmp(k, "DaemonSet") ? NULL : sl_ymap_get(rholder, rkey);
	if (!sl_ynull(r)) {
		int64_t v;
		int rc = sl_yint(r, &v);
		if (rc < 0 || v < 0 || v > INT32_MAX)
			bad(c, r, "%s must be an integer from 0 to 2147483647 (an int32), not %s%s%s", rkey,
			    r->kind == SL_YSCALAR ? "\"" : "", r->kind == SL_YSCALAR ? r->str : sl_ykind_name(r),
			    r->kind == SL_YSCALAR ? "\"" : "");
		else {
			w->replicas = v;
			w->replicas_node = r;
		}
	}
	w->selector = sl_ymap_get(spec, "selector");
	parse_selector(c, w->selector, "spec.selector", &w->sel);
	if (!strcmp(k, "Deployment")) {
		w->strategy = SL_STRATEGY_ROLLING;
		w->strategy_node = want(c, spec, "strategy", SL_YMAP, "spec.strategy");
		w->type_node = sl_ymap_get(w->strategy_node, "type");
		if (!sl_ynull(w->type_node)) {
			if (sl_yis(w->type_node, "Recreate"))
				w->strategy = SL_STRATEGY_RECREATE;
			else if (!sl_yis(w->type_node, "RollingUpdate"))
				bad(c, w->type_node, "strategy.type must be RollingUpdate or Recreate");
		}
		w->rolling_node = want(c, w->strategy_node, "rollingUpdate", SL_YMAP, "strategy.rollingUpdate");
		parse_intpct(c, w->rolling_node, "maxSurge", &w->max_surge);
		parse_intpct(c, w->rolling_node, "maxUnavailable", &w->max_unavailable);
	}
	if (c->failed) {
		sl_podspec_free(&w->pod);
		selector_free(&w->sel);
		free(w);
		return -1;
	}
	sl_grow(&m->workloads, &m->capworkloads, m->nworkloads + 1, sizeof *m->workloads);
	m->workloads[m->nworkloads++] = w;
	return 0;
}

static void node_free(struct sl_node *n)
{
	free(n->labels.v);
	free(n->taints);
	sl_res_free(&n->alloc);
	sl_res_free(&n->used);
	free(n);
}

/* The same node named twice (two inventories, or a manifest and an inventory): the later
 * description replaces the earlier one, as a later `kubectl apply` would. */
static void add_node(struct sl_model *m, struct sl_node *n)
{
	size_t at = sl_strmap_put(&m->node_index, n->name, m->nnodes);
	if (at != m->nnodes) {
		node_free(m->nodes[at]);
		m->nodes[at] = n;
		return;
	}
	sl_grow(&m->nodes, &m->capnodes, m->nnodes + 1, sizeof *m->nodes);
	m->nodes[m->nnodes++] = n;
}

static int load_node(struct sl_model *m, struct ctx *c, const struct sl_object *o)
{
	if (!sl_yscalar(o->name_node) || sl_ynull(o->name_node)) {
		/* A creation template (generateName) names its nodes by that prefix; a "kind: Node"
		 * without apiVersion is some tool's own config, not an object. */
		const struct sl_ynode *gn = sl_ypath(o->root, "metadata.generateName");
		if (!*o->api_version)
			return 0;
		if (!sl_yscalar(gn) || sl_ynull(gn)) {
			bad(c, o->kind_node, "Node has no metadata.name");
			return -1;
		}
	}
	struct sl_node *n = sl_xcalloc(1, sizeof *n);
	n->name = o->name;
	n->src = o->src;
	n->root = o->root;
	n->name_node = o->name_node ? o->name_node : sl_ypath(o->root, "metadata.generateName");
	const struct sl_ynode *md = sl_ymap_get(o->root, "metadata");
	parse_labels(c, want(c, md, "labels", SL_YMAP, "metadata.labels"), "metadata.labels", &n->labels);
	if (!sl_labels_get(&n->labels, "kubernetes.io/hostname")) {
		/* The kubelet sets the hostname label to the node name; many hand-written nodes
		 * omit it. */
		n->labels.v = sl_xrealloc(n->labels.v, (n->labels.n + 1) * sizeof *n->labels.v);
		struct sl_kv *kv = &n->labels.v[n->labels.n++];
		memset(kv, 0, sizeof *kv);
		kv->key = "kubernetes.io/hostname";
		kv->val = n->name;
	}
	const struct sl_ynode *spec = want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *us = sl_ymap_get(spec, "unschedulable");
	if (!sl_ynull(us) && (us->kind != SL_YSCALAR || parse_bool(us, &n->unschedulable) < 0))
		bad(c, us, "spec.unschedulable must be true or false");
	const struct sl_ynode *taints = want(c, spec, "taints", SL_YSEQ, "spec.taints");
	if (taints) {
		n->taints = sl_xcalloc(taints->n, sizeof *n->taints);
		for (size_t i = 0; i < taints->n; i++) {
			const struct sl_ynode *t = taints->v[i];
			if (t->kind != SL_YMAP) {
				bad(c, t, "spec.taints[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
				continue;
			}
			struct sl_taint *ta = &n->taints[n->ntaints++];
			const char *s;
			ta->node = t;
			ta->key = (s = want_str(c, t, "key", "taint key")) ? s : "";
			ta->value = (s = want_str(c, t, "value", "taint value")) ? s : "";
			ta->effect = (s = want_str(c, t, "effect", "taint effect")) ? s : "";
		}
	}
	const struct sl_ynode *st = want(c, o->root, "status", SL_YMAP, "status");
	const struct sl_ynode *alloc = want(c, st, "allocatable", SL_YMAP, "status.allocatable");
	if (!alloc)
		alloc = want(c, st, "capacity", SL_YMAP, "status.capacity");
	parse_reslist(c, alloc, alloc == sl_ymap_get(st, "allocatable") ? "status.allocatable" : "status.capacity",
		      &n->alloc);
	n->max_pods = sl_res_find(&n->alloc, "pods") ? sl_res_get(&n->alloc, "pods") : 110;
	if (c->failed) {
		node_free(n);
		return -1;
	}
	add_node(m, n);
	return 0;
}

static int load_pod(struct sl_model *m, struct ctx *c, const struct sl_object *o)
{
	struct sl_pod *p = sl_xcalloc(1, sizeof *p);
	p->obj = *o;
	const struct sl_ynode *spec = want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *labels = want(c, sl_ymap_get(o->root, "metadata"), "labels", SL_YMAP, "metadata.labels");
	if (sl_parse_podspec(c->src, spec, o->namespace, labels, &p->spec, c->errs) < 0)
		c->failed = 1;
	const struct sl_ynode *ph = sl_ypath(o->root, "status.phase");
	p->phase = sl_yscalar(ph) ? ph->str : "";
	if (c->failed) {
		sl_podspec_free(&p->spec);
		free(p);
		return -1;
	}
	sl_grow(&m->pods, &m->cappods, m->npods + 1, sizeof *m->pods);
	m->pods[m->npods++] = p;
	return 0;
}

static int load_pvc(struct sl_model *m, struct ctx *c, const struct sl_object *o)
{
	const struct sl_ynode *spec = want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *modes = want(c, spec, "accessModes", SL_YSEQ, "spec.accessModes");
	struct sl_pvc *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	v->modes_node = modes;
	for (size_t i = 0; modes && i < modes->n; i++) {
		const struct sl_ynode *md = modes->v[i];
		if (sl_yis(md, "ReadWriteOnce"))
			v->rwo = true;
		else if (sl_yis(md, "ReadWriteOncePod"))
			v->rwop = true;
		else if (sl_yis(md, "ReadWriteMany"))
			v->rwx = true;
		else if (sl_yis(md, "ReadOnlyMany"))
			v->rox = true;
		else
			bad(c, md,
			    "spec.accessModes[%zu] must be ReadWriteOnce, ReadOnlyMany, ReadWriteMany or "
			    "ReadWriteOncePod",
			    i);
	}
	if (c->failed) {
		free(v);
		return -1;
	}
	sl_grow(&m->pvcs, &m->cappvcs, m->npvcs + 1, sizeof *m->pvcs);
	m->pvcs[m->npvcs++] = v;
	return 0;
}

/* minAvailable / maxUnavailable of a PodDisruptionBudget: an integer or a percentage. */
static void parse_pdb_value(struct ctx *c, const struct sl_ynode *spec, const char *key, struct sl_intpct *out)
{
	memset(out, 0, sizeof *out);
	const struct sl_ynode *v = sl_ymap_get(spec, key);
	if (sl_ynull(v))
		return;
	out->node = v;
	int64_t i;
	/* As ValidatePodDisruptionBudgetSpec: a non-negative integer, or [0-9]+% up to 100%. */
	if (v->kind == SL_YSCALAR && sl_yint(v, &i) == 0) {
		if (i < 0) {
			bad(c, v, "spec.%s must be greater than or equal to 0", key);
			return;
		}
		out->set = true;
		out->v = i;
		return;
	}
	if (v->kind == SL_YSCALAR && v->len > 1 && v->len <= 10 && v->str[v->len - 1] == '%' &&
	    strspn(v->str, "0123456789") == v->len - 1) {
		long long n = strtoll(v->str, NULL, 10);
		if (n > 100) {
			bad(c, v, "spec.%s must not be greater than 100%%", key);
			return;
		}
		out->set = true;
		out->percent = true;
		out->v = n;
		return;
	}
	bad(c, v, "spec.%s must be a non-negative integer or a percentage such as \"50%%\"", key);
}

static int load_pdb(struct sl_model *m, struct ctx *c, const struct sl_object *o)
{
	const struct sl_ynode *spec = want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_pdb *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	parse_selector(c, sl_ymap_get(spec, "selector"), "spec.selector", &v->sel);
	parse_pdb_value(c, spec, "minAvailable", &v->min_available);
	parse_pdb_value(c, spec, "maxUnavailable", &v->max_unavailable);
	if (v->min_available.set && v->max_unavailable.set)
		bad(c, v->max_unavailable.node, "spec: minAvailable and maxUnavailable cannot be both set");
	if (c->failed) {
		selector_free(&v->sel);
		free(v);
		return -1;
	}
	sl_grow(&m->pdbs, &m->cappdbs, m->npdbs + 1, sizeof *m->pdbs);
	m->pdbs[m->npdbs++] = v;
	return 0;
}

static int load_namespace(struct sl_model *m, struct ctx *c, const struct sl_object *o)
{
	struct sl_namespace *ns = sl_xcalloc(1, sizeof *ns);
	ns->obj = *o;
	struct sl_labels l;
	parse_labels(c, want(c, sl_ymap_get(o->root, "metadata"), "labels", SL_YMAP, "metadata.labels"),
		     "metadata.labels", &l);
	if (c->failed) {
		free(l.v);
		free(ns);
		return -1;
	}
	/* The API server sets kubernetes.io/metadata.name to the name, over whatever was written. */
	ns->labels.v = sl_xcalloc(l.n + 1, sizeof *ns->labels.v);
	for (size_t i = 0; i < l.n; i++)
		if (strcmp(l.v[i].key, "kubernetes.io/metadata.name"))
			ns->labels.v[ns->labels.n++] = l.v[i];
	ns->labels.v[ns->labels.n++] = (struct sl_kv){"kubernetes.io/metadata.name", o->name, NULL, NULL};
	free(l.v);
	sl_grow(&m->namespaces, &m->capnamespaces, m->nnamespaces + 1, sizeof *m->namespaces);
	m->namespaces[m->nnamespaces++] = ns;
	return 0;
}

/* An autoscaler is looked for in every document and in every item of a document's `items`,
 * whatever the document's kind; one whose scaleTargetRef names no kind and name scales nothing the
 * rules could find. */
static void load_hpa(struct sl_model *m, const struct sl_source *src, const struct sl_ynode *n)
{
	if (!n || n->kind != SL_YMAP || !sl_yis(sl_ymap_get(n, "kind"), "HorizontalPodAutoscaler"))
		return;
	const struct sl_ynode *ref = sl_ypath(n, "spec.scaleTargetRef");
	const struct sl_ynode *kind = sl_ymap_get(ref, "kind"), *name = sl_ymap_get(ref, "name");
	if (!sl_yscalar(kind) || !sl_yscalar(name))
		return;
	struct sl_object o;
	sl_object_read(src, n, &o);
	struct sl_hpa *h = sl_xcalloc(1, sizeof *h);
	*h = (struct sl_hpa){ref, o.namespace, kind->str, name->str, 1, INT32_MAX};
	int64_t v;
	if (sl_yint(sl_ypath(n, "spec.minReplicas"), &v) == 0)
		h->min = v;
	if (sl_yint(sl_ypath(n, "spec.maxReplicas"), &v) == 0)
		h->max = v;
	sl_grow(&m->hpas, &m->caphpas, m->nhpas + 1, sizeof *m->hpas);
	m->hpas[m->nhpas++] = h;
}

static void load_hpas(struct sl_model *m, const struct sl_source *src, const struct sl_ynode *root)
{
	load_hpa(m, src, root);
	const struct sl_ynode *items = sl_ymap_get(root, "items");
	for (size_t i = 0; items && items->kind == SL_YSEQ && i < items->n; i++)
		load_hpa(m, src, items->v[i]);
}

static int is_workload_kind(const char *k)
{
	static const char *const kinds[] = {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
					    "Job",        "CronJob",    "Pod",         "ReplicationController"};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(k, kinds[i]))
			return 1;
	return 0;
}

static int load_object(struct sl_model *m, struct ctx *c, const struct sl_ynode *root, enum sl_input_role role,
		       int depth)
{
	if (!root || root->kind != SL_YMAP)
		return 0; /* not an object: values files and fragments are skipped silently */
	struct sl_object o;
	sl_object_read(c->src, root, &o);
	if (!o.kind)
		return 0;
	size_t kl = strlen(o.kind);
	if (kl >= 4 && !strcmp(o.kind + kl - 4, "List") && depth == 0) {
		const struct sl_ynode *items = sl_ymap_get(root, "items");
		if (sl_ynull(items))
			return 0;
		if (items->kind != SL_YSEQ) {
			bad(c, items, "%s.items must be a list, not %s", o.kind, sl_ykind_name(items));
			return -1;
		}
		int rc = 0;
		for (size_t i = 0; i < items->n; i++) {
			struct ctx ic = {c->src, c->errs, 0};
			if (load_object(m, &ic, items->v[i], role, depth + 1) < 0)
				rc = -1;
		}
		return rc;
	}
	struct ctx oc = {c->src, c->errs, 0};
	int rc = 0;
	if (!strcmp(o.kind, "Node")) {
		if (role != SL_ROLE_PODS)
			rc = load_node(m, &oc, &o);
	} else if (!strcmp(o.kind, "Pod") && (role == SL_ROLE_PODS || !sl_ynull(sl_ypath(root, "spec.nodeName")))) {
		/* A Pod bound to a node is running load, not something to schedule. */
		rc = load_pod(m, &oc, &o);
	} else if (role == SL_ROLE_MANIFESTS && is_workload_kind(o.kind)) {
		rc = load_workload(m, &oc, &o);
	} else if (role != SL_ROLE_NODES && !strcmp(o.kind, "Namespace")) {
		rc = load_namespace(m, &oc, &o);
	} else if (role == SL_ROLE_MANIFESTS && !strcmp(o.kind, "PersistentVolumeClaim")) {
		rc = load_pvc(m, &oc, &o);
	} else if (role == SL_ROLE_MANIFESTS && !strcmp(o.kind, "PodDisruptionBudget")) {
		rc = load_pdb(m, &oc, &o);
	}
	return rc;
}

/* Inventories are large (kubectl prints managedFields, status, images…) and little of them is
 * read: keep only what the model reads. Manifests are kept whole, for positions and fixes. */
static const char *const *keep_paths(enum sl_input_role role)
{
	static const char *const node_paths[] = {
	    "apiVersion",      "kind",        "metadata.name",      "metadata.generateName",
	    "metadata.labels", "spec.taints", "spec.unschedulable", "status.allocatable",
	    "status.capacity", NULL};
	static const char *const pod_paths[] = {"apiVersion",
						"kind",
						"metadata.name",
						"metadata.namespace",
						"metadata.labels",
						"spec.nodeName",
						"spec.nodeSelector",
						"spec.affinity",
						"spec.tolerations",
						"spec.topologySpreadConstraints",
						"spec.hostNetwork",
						"spec.overhead",
						"spec.containers[].name",
						"spec.containers[].resources",
						"spec.containers[].ports",
						"spec.initContainers[].name",
						"spec.initContainers[].resources",
						"spec.initContainers[].restartPolicy",
						"status.phase",
						NULL};

	return role == SL_ROLE_NODES ? node_paths : role == SL_ROLE_PODS ? pod_paths : NULL;
}

int sl_model_load(struct sl_model *m, struct sl_source *src, enum sl_input_role role, struct sl_findings *errs)
{
	struct sl_load one = {src, role};
	return sl_model_load_many(m, &one, 1, NULL, errs);
}

/* The kinds load_object reads from manifests, and so points into the trees of. */
static bool model_kind(const char *k)
{
	return is_workload_kind(k) || !strcmp(k, "Node") || !strcmp(k, "Namespace") ||
	       !strcmp(k, "PersistentVolumeClaim") || !strcmp(k, "PodDisruptionBudget");
}

struct tree_need {
	const struct sl_tree_readers *readers;
	bool all; /* every document of the source */
	bool yes;
	bool object; /* some document, kept or not, has apiVersion and kind: the file is a manifest */
};

static void need_object(void *arg, const struct sl_object *o)
{
	struct tree_need *t = arg;
	t->yes = t->yes || model_kind(o->kind) || (t->readers->object && t->readers->object(t->readers->ctx, o));
}

/* Whether a manifest document's tree is kept: it holds an object of the model (load_hpas finds
 * autoscalers in any document's items), or another reader needs it. */
static bool tree_needed(void *arg, const struct sl_ydoc *doc)
{
	struct tree_need *t = arg;
	t->yes = t->all;
	t->object |= sl_manifest_is_object(doc->root);
	sl_doc_objects(doc, need_object, t);
	const struct sl_ynode *items = sl_ymap_get(doc->root, "items");
	for (size_t i = 0; !t->yes && items && items->kind == SL_YSEQ && i < items->n; i++)
		t->yes = sl_yis(sl_ymap_get(items->v[i], "kind"), "HorizontalPodAutoscaler");
	return t->yes || sl_yis(sl_ymap_get(doc->root, "kind"), "HorizontalPodAutoscaler");
}

/* This runs for every key of every manifest: most differ at the first byte. */
static bool is(const char *s, const char *t)
{
	return s && *s == *t && !strcmp(s, t);
}

/* Entries of a manifest neither the model nor a rule or a fix reads (sl_yfilter.unread): in a
 * container all but its name, resources, ports and restartPolicy (env, probes, mounts…); in a
 * volume all but its name and claim; preferred (not required) affinity; an object's managedFields;
 * in an object's status all but a Pod's phase and a Node's allocatable and capacity. A fix that
 * inserts into a mapping reads the indentation of its entries: none of these mappings is one a
 * fix inserts into. */
static bool unread_entry(const char *key, const char *in, const char *in_in)
{
	bool object = !in_in || is(in_in, "[]"); /* in is a key of a document, or of a List's item */
	if (is(in, "[]") &&
	    (is(in_in, "containers") || is(in_in, "initContainers") || is(in_in, "ephemeralContainers")))
		return !is(key, "name") && !is(key, "resources") && !is(key, "ports") && !is(key, "restartPolicy");
	if (is(in, "[]") && is(in_in, "volumes"))
		return !is(key, "name") && !is(key, "persistentVolumeClaim");
	if (is(in, "nodeAffinity") || is(in, "podAffinity") || is(in, "podAntiAffinity"))
		return is(key, "preferredDuringSchedulingIgnoredDuringExecution");
	if (is(in, "metadata") && object)
		return is(key, "managedFields");
	if (is(in, "status") && object)
		return !is(key, "phase") && !is(key, "allocatable") && !is(key, "capacity");
	return false;
}

/* The same, unless another reader looks the key up (a policy's field names it). */
static bool unread_value(void *ctx, const char *key, const char *in, const char *in_in)
{
	const struct tree_need *t = ctx;
	return unread_entry(key, in, in_in) && !(t->readers->key && t->readers->key(t->readers->ctx, key));
}

struct parse_job {
	const struct sl_load *in;
	const struct sl_tree_readers *readers;
	struct sl_ystream *ys;
	struct sl_findings errs; /* the source's input errors: parsing's, then loading's */
	struct sl_model part;    /* what the source holds, merged into the model in source order */
	int rc;
};

struct parse_queue {
	struct parse_job *jobs;
	size_t n;
	atomic_size_t next;
};

/* A parsing thread, with the arena its trees go to. */
struct parse_thread {
	struct parse_queue *q;
	struct sl_yarena *arena;
};

static void *parse_worker(void *arg)
{
	struct parse_thread *t = arg;
	struct parse_queue *q = t->q;
	for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->n;) {
		struct parse_job *j = &q->jobs[i];
		j->ys->shared = t->arena;
		if (sl_source_read(j->in->src, &j->errs) < 0)
			j->rc = -1;
		sl_source_index(j->in->src);
		if (j->in->src->failed || j->in->src->skipped)
			continue;
		struct tree_need need = {j->readers, false, false, false};
		if (j->readers && j->in->role == SL_ROLE_MANIFESTS) {
			/* Values nothing reads are left out unless a tree is read whole (a policy or a
			 * suppression may read any of it, and telling a Go template's "{{" from text in
			 * a string needs every scalar). */
			need.all = (j->readers->source && j->readers->source(j->readers->ctx, j->in->src)) ||
				   sl_manifest_has_braces(j->in->src);
			struct sl_yfilter f = {tree_needed, &need, need.all ? NULL : unread_value,
					       !need.all && !j->readers->all_bytes && !j->in->src->shared};
			j->rc = sl_yaml_parse_some(j->in->src, j->ys, &j->errs, &f);
		} else
			j->rc = sl_yaml_parse_keep(j->in->src, j->ys, &j->errs, keep_paths(j->in->role));
		if (j->in->role == SL_ROLE_MANIFESTS &&
		    sl_manifest_screen(j->in->src, j->ys, need.object, &j->errs, &j->rc))
			continue;
		struct ctx c = {j->in->src, &j->errs, 0};
		for (size_t d = 0; d < j->ys->n; d++) {
			if (load_object(&j->part, &c, j->ys->docs[d].root, j->in->role, 0) < 0)
				j->rc = -1;
			load_hpas(&j->part, j->in->src, j->ys->docs[d].root);
		}
	}
	return NULL;
}

/* Append what part holds to m and leave part empty, as if part's objects had been loaded into m
 * one after another: a node named again replaces the earlier one in its place. */
static void merge_model(struct sl_model *m, struct sl_model *part)
{
/* Append part's array f to m's, and free part's. */
#define APPEND(f, capf, nf)                                                                                            \
	do {                                                                                                           \
		sl_grow(&m->f, &m->capf, m->nf + part->nf, sizeof *m->f);                                              \
		if (part->nf)                                                                                          \
			memcpy(m->f + m->nf, part->f, part->nf * sizeof *m->f);                                        \
		m->nf += part->nf;                                                                                     \
		free(part->f);                                                                                         \
	} while (0)
	APPEND(workloads, capworkloads, nworkloads);
	for (size_t i = 0; i < part->nnodes; i++)
		add_node(m, part->nodes[i]);
	free(part->nodes);
	APPEND(pods, cappods, npods);
	APPEND(pvcs, cappvcs, npvcs);
	APPEND(pdbs, cappdbs, npdbs);
	APPEND(namespaces, capnamespaces, nnamespaces);
	APPEND(hpas, caphpas, nhpas);
#undef APPEND
	sl_strmap_free(&part->node_index);
	memset(part, 0, sizeof *part);
}

int sl_model_load_many(struct sl_model *m, const struct sl_load *v, size_t n, const struct sl_tree_readers *readers,
		       struct sl_findings *errs)
{
	if (!n)
		return 0;
	m->streams = sl_xrealloc(m->streams, (m->nstreams + n) * sizeof *m->streams);
	struct parse_job *jobs = sl_xcalloc(n, sizeof *jobs);
	for (size_t i = 0; i < n; i++) {
		jobs[i].in = &v[i];
		jobs[i].readers = readers;
		jobs[i].ys = &m->streams[m->nstreams + i];
		memset(jobs[i].ys, 0, sizeof *jobs[i].ys);
	}
	m->nstreams += n;
	/* Parsing and loading are most of the time on large inputs and each source is read alone:
	 * a second thread takes the next source while the first is busy, each into a model of its
	 * own, merged here in source order so that the result does not depend on the timing. */
	struct parse_queue q = {jobs, n, 0};
	struct parse_thread th[2];
	sl_grow(&m->arenas, &m->caparenas, m->narenas + 2, sizeof *m->arenas);
	for (int k = 0; k < 2; k++) {
		m->arenas[m->narenas] = sl_xcalloc(1, sizeof **m->arenas);
		th[k] = (struct parse_thread){&q, m->arenas[m->narenas++]};
	}
	pthread_t helper;
	bool threaded = n > 1 && pthread_create(&helper, NULL, parse_worker, &th[1]) == 0;
	parse_worker(&th[0]);
	if (threaded)
		pthread_join(helper, NULL);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		sl_findings_move(errs, &jobs[i].errs); /* none for a source that failed before */
		if (jobs[i].rc < 0)
			rc = -1;
		merge_model(m, &jobs[i].part);
	}
	free(jobs);
	return rc;
}

void sl_finding_subject(struct sl_finding *f, const struct sl_object *o)
{
	f->subject = o->root;
	f->subj_src = o->src;
	f->subj_off = o->root->at.off;
}

void sl_doc_objects(const struct sl_ydoc *doc, void (*fn)(void *ctx, const struct sl_object *o), void *ctx)
{
	const struct sl_ynode *root = doc->root;
	if (!root || root->kind != SL_YMAP)
		return;
	struct sl_object o;
	sl_object_read(doc->src, root, &o);
	if (!o.kind)
		return;
	size_t kl = strlen(o.kind);
	const struct sl_ynode *items = sl_ymap_get(root, "items");
	if (kl >= 4 && !strcmp(o.kind + kl - 4, "List") && items && items->kind == SL_YSEQ) {
		for (size_t i = 0; i < items->n; i++) {
			struct sl_object io;
			if (items->v[i]->kind != SL_YMAP)
				continue;
			sl_object_read(doc->src, items->v[i], &io);
			if (io.kind)
				fn(ctx, &io);
		}
		return;
	}
	fn(ctx, &o);
}

void sl_stream_objects(const struct sl_ystream *ys, void (*fn)(void *ctx, const struct sl_object *o), void *ctx)
{
	for (size_t d = 0; d < ys->n; d++)
		sl_doc_objects(&ys->docs[d], fn, ctx);
}

bool sl_model_knows_namespace(const struct sl_model *m, const char *ns)
{
	return sl_strmap_get(&m->namespace_index, ns) != (size_t)-1;
}

static void bind_terms(const struct sl_model *m, struct sl_podspec *p)
{
	for (int k = 0; k < 2; k++) {
		struct sl_podterm *ts = k ? p->anti : p->affinity;
		size_t nt = k ? p->nanti : p->naffinity;
		for (size_t i = 0; i < nt; i++) {
			if (!ts[i].has_ns_selector)
				continue;
			ts[i].ns_known = m->namespaces;
			ts[i].ns_index = &m->namespace_index;
		}
	}
}

void sl_model_bind_pods(struct sl_model *m)
{
	/* A Namespace named twice: the later description wins, in the earlier one's place. */
	size_t w = 0;
	for (size_t i = 0; i < m->nnamespaces; i++) {
		struct sl_namespace *ns = m->namespaces[i];
		size_t at = sl_strmap_put(&m->namespace_index, ns->obj.name, w);
		if (at != w) {
			free(m->namespaces[at]->labels.v);
			free(m->namespaces[at]);
			m->namespaces[at] = ns;
		} else
			m->namespaces[w++] = ns;
	}
	m->nnamespaces = w;
	if (m->nnamespaces) {
		for (size_t i = 0; i < m->nworkloads; i++)
			bind_terms(m, &m->workloads[i]->pod);
		for (size_t i = 0; i < m->npods; i++)
			bind_terms(m, &m->pods[i]->spec);
	}
	struct sl_strmap names = {0};
	for (size_t j = 0; j < m->nnodes; j++)
		sl_strmap_put(&names, m->nodes[j]->name, j);
	for (size_t i = 0; i < m->npods; i++) {
		const struct sl_pod *p = m->pods[i];
		/* The scheduler's cache leaves out finished pods: they hold no resources. */
		if (!strcmp(p->phase, "Succeeded") || !strcmp(p->phase, "Failed") || !p->spec.node_name)
			continue;
		size_t j = sl_strmap_get(&names, p->spec.node_name);
		if (j == (size_t)-1)
			continue;
		struct sl_node *n = m->nodes[j];
		for (size_t r = 0; r < p->spec.request.n; r++)
			sl_res_add(&n->used, p->spec.request.v[r].name, p->spec.request.v[r].amount, NULL);
		n->npods++;
	}
	sl_strmap_free(&names);
	sl_model_relate(m);
}

void sl_model_free(struct sl_model *m)
{
	for (size_t i = 0; i < m->nworkloads; i++) {
		sl_podspec_free(&m->workloads[i]->pod);
		selector_free(&m->workloads[i]->sel);
		free(m->workloads[i]);
	}
	for (size_t i = 0; i < m->nnodes; i++)
		node_free(m->nodes[i]);
	for (size_t i = 0; i < m->npods; i++) {
		sl_podspec_free(&m->pods[i]->spec);
		free(m->pods[i]);
	}
	for (size_t i = 0; i < m->npvcs; i++)
		free(m->pvcs[i]);
	free(m->pvcs);
	for (size_t i = 0; i < m->npdbs; i++) {
		selector_free(&m->pdbs[i]->sel);
		free(m->pdbs[i]);
	}
	free(m->pdbs);
	for (size_t i = 0; i < m->nnamespaces; i++) {
		free(m->namespaces[i]->labels.v);
		free(m->namespaces[i]);
	}
	free(m->namespaces);
	sl_strmap_free(&m->namespace_index);
	for (size_t i = 0; i < m->nhpas; i++)
		free(m->hpas[i]);
	free(m->hpas);
	sl_group_free(&m->claims);
	free(m->workload_pdbs);
	for (size_t i = 0; i < m->nstreams; i++)
		sl_ystream_free(&m->streams[i]);
	free(m->streams);
	for (size_t i = 0; i < m->narenas; i++) {
		sl_yarena_free(m->arenas[i]);
		free(m->arenas[i]);
	}
	free(m->arenas);
	sl_strmap_free(&m->node_index);
	free(m->workloads);
	free(m->nodes);
	free(m->pods);
	memset(m, 0, sizeof *m);
}
