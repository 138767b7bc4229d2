/* quota.c — reading a ResourceQuota, and what a pod charges to one (see quota.h). */
#include "quota.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/escape.h"
#include "model.h"
#include "model_read.h"
#include "quantity.h"

static const char *const scope_names[] = {
    [SL_QS_TERMINATING] = "Terminating",      [SL_QS_NOT_TERMINATING] = "NotTerminating",
    [SL_QS_BEST_EFFORT] = "BestEffort",       [SL_QS_NOT_BEST_EFFORT] = "NotBestEffort",
    [SL_QS_PRIORITY_CLASS] = "PriorityClass", [SL_QS_CROSS_NAMESPACE_AFFINITY] = "CrossNamespacePodAffinity",
};
#define NSCOPES (sizeof scope_names / sizeof scope_names[0])
static const char *const op_names[] = {[SL_QOP_EXISTS] = "Exists",
				       [SL_QOP_DOES_NOT_EXIST] = "DoesNotExist",
				       [SL_QOP_IN] = "In",
				       [SL_QOP_NOT_IN] = "NotIn"};

/* The resource whose unit a quota entry counts in: "requests.cpu" and "limits.cpu" count cpu. */
static const char *base_resource(const char *name)
{
	if (!strncmp(name, "requests.", 9))
		return name + 9;
	if (!strncmp(name, "limits.", 7))
		return name + 7;
	return name;
}

/* One amount of a quota's ResourceList (spec.hard, status.used) at v, in the unit of its
 * resource; -1 after an input error (reported at v). */
static int read_amount(struct sl_read *c, const struct sl_ynode *v, const char *name, const char *path, int64_t *out)
{
	if (sl_read_amount(c, v, name, path, out) < 0)
		return -1;
	struct sl_qty q;
	const char *why;
	if (sl_qty_parse(v->str, &q, &why) == 0)
		*out = sl_qty_scaled(&q, sl_resource_scale(base_resource(name)));
	return 0;
}

static void read_hard(struct sl_read *c, const struct sl_ynode *spec, struct sl_quota *q)
{
	const struct sl_ynode *hard = sl_read_want(c, spec, "hard", SL_YMAP, "spec.hard");
	size_t cap = 0;
	for (size_t i = 0; hard && i < hard->n; i++) {
		const struct sl_ynode *k = hard->v[2 * i], *v = hard->v[2 * i + 1];
		int64_t amount;
		if (k->kind != SL_YSCALAR) {
			sl_read_error(c, k, "spec.hard: resource names must be strings");
			continue;
		}
		if (read_amount(c, v, k->str, "spec.hard", &amount) < 0)
			continue;
		sl_grow(&q->items, &cap, q->nitems + 1, sizeof *q->items);
		q->items[q->nitems++] = (struct sl_qitem){.name = k->str, .hard = amount, .node = v};
	}
}

/* status.used, matched to the hard entries (the quota controller writes one per hard entry). */
static void read_used(struct sl_read *c, const struct sl_ynode *root, struct sl_quota *q)
{
	const struct sl_ynode *used = sl_read_want(c, sl_ymap_get(root, "status"), "used", SL_YMAP, "status.used");
	for (size_t i = 0; used && i < used->n; i++) {
		const struct sl_ynode *k = used->v[2 * i], *v = used->v[2 * i + 1];
		int64_t amount;
		if (k->kind != SL_YSCALAR || read_amount(c, v, k->str, "status.used", &amount) < 0)
			continue;
		q->has_status = true;
		for (size_t j = 0; j < q->nitems; j++)
			if (!strcmp(q->items[j].name, k->str)) {
				q->items[j].used = amount;
				q->items[j].has_used = true;
			}
	}
}

/* A scope's name at n ("spec.scopes[0]"); -1 after an input error. */
static int scope_of(struct sl_read *c, const struct sl_ynode *n, const char *path)
{
	if (!sl_yscalar(n)) {
		sl_read_error(c, n, "%s must be a scope name, not %s", path, sl_ykind_name(n));
		return -1;
	}
	for (size_t s = 0; s < NSCOPES; s++)
		if (!strcmp(n->str, scope_names[s]))
			return (int)s;
	sl_read_error(c, n,
		      "%s: unknown quota scope \"%s\" (Terminating, NotTerminating, BestEffort, NotBestEffort, "
		      "PriorityClass, CrossNamespacePodAffinity)",
		      path, n->str);
	return -1;
}

static void add_scope(struct sl_quota *q, size_t *cap, struct sl_qscope_req r)
{
	sl_grow(&q->scopes, cap, q->nscopes + 1, sizeof *q->scopes);
	q->scopes[q->nscopes++] = r;
}

/* One scopeSelector.matchExpressions entry, as ValidateScopedResourceSelectorRequirement takes it:
 * In and NotIn (PriorityClass only) with values, Exists and DoesNotExist without; every scope but
 * PriorityClass only with Exists. */
static void read_scope_expr(struct sl_read *c, const struct sl_ynode *e, size_t i, struct sl_quota *q, size_t *cap)
{
	char path[96];
	snprintf(path, sizeof path, "spec.scopeSelector.matchExpressions[%zu]", i);
	if (e->kind != SL_YMAP) {
		sl_read_error(c, e, "%s must be a mapping, not %s", path, sl_ykind_name(e));
		return;
	}
	char sub[128];
	snprintf(sub, sizeof sub, "%s.scopeName", path);
	const struct sl_ynode *name = sl_ymap_get(e, "scopeName"), *op = sl_ymap_get(e, "operator");
	int s = name ? scope_of(c, name, sub) : (sl_read_error(c, e, "%s needs a scopeName", path), -1);
	if (s < 0)
		return;
	int o = -1;
	for (size_t k = 0; sl_yscalar(op) && k < sizeof op_names / sizeof op_names[0]; k++)
		if (!strcmp(op->str, op_names[k]))
			o = (int)k;
	if (o < 0) {
		sl_read_error(c, op ? op : e, "%s.operator must be In, NotIn, Exists or DoesNotExist", path);
		return;
	}
	if (s != SL_QS_PRIORITY_CLASS && o != SL_QOP_EXISTS) {
		sl_read_error(c, op, "%s.operator must be Exists for scope %s", path, scope_names[s]);
		return;
	}
	snprintf(sub, sizeof sub, "%s.values", path);
	const struct sl_ynode *vals = sl_read_want(c, e, "values", SL_YSEQ, sub);
	bool listed = o == SL_QOP_IN || o == SL_QOP_NOT_IN;
	if (listed != (vals && vals->n > 0)) {
		sl_read_error(c, vals ? vals : op, "%s.values must be %s for operator %s", path,
			      listed ? "a non-empty list" : "empty", op_names[o]);
		return;
	}
	struct sl_qscope_req r = {.scope = (enum sl_qscope)s, .op = (enum sl_qscope_op)o, .node = e};
	if (listed) {
		r.values = sl_xcalloc(vals->n, sizeof *r.values);
		for (size_t k = 0; k < vals->n; k++)
			if (sl_yscalar(vals->v[k]))
				r.values[r.nvalues++] = vals->v[k]->str;
			else
				sl_read_error(c, vals->v[k], "%s[%zu] must be a string", sub, k);
	}
	add_scope(q, cap, r);
}

static void read_scopes(struct sl_read *c, const struct sl_ynode *spec, struct sl_quota *q)
{
	size_t cap = 0;
	const struct sl_ynode *list = sl_read_want(c, spec, "scopes", SL_YSEQ, "spec.scopes");
	for (size_t i = 0; list && i < list->n; i++) {
		char path[48];
		snprintf(path, sizeof path, "spec.scopes[%zu]", i);
		int s = scope_of(c, list->v[i], path);
		if (s >= 0)
			add_scope(q, &cap, (struct sl_qscope_req){.scope = (enum sl_qscope)s, .node = list->v[i]});
	}
	const struct sl_ynode *sel = sl_read_want(c, spec, "scopeSelector", SL_YMAP, "spec.scopeSelector");
	const struct sl_ynode *exprs =
	    sl_read_want(c, sel, "matchExpressions", SL_YSEQ, "spec.scopeSelector.matchExpressions");
	for (size_t i = 0; exprs && i < exprs->n; i++)
		read_scope_expr(c, exprs->v[i], i, q, &cap);
}

int sl_quota_read(struct sl_read *c, const struct sl_object *o, struct sl_quota **out)
{
	*out = NULL;
	struct sl_quota *q = sl_xcalloc(1, sizeof *q);
	q->obj = *o;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	read_hard(c, spec, q);
	read_scopes(c, spec, q);
	read_used(c, o->root, q);
	if (c->failed) {
		sl_quota_free(q);
		return -1;
	}
	*out = q;
	return 0;
}

void sl_quota_free(struct sl_quota *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nscopes; i++)
		free(q->scopes[i].values);
	free(q->scopes);
	free(q->items);
	free(q);
}

/* An amount of a ResourceList the pod spec reader has read already (its errors are reported
 * there): unit as the scheduler's; 0 when it is no quantity. */
static int64_t amount_of(const char *name, const struct sl_ynode *v)
{
	struct sl_qty q;
	const char *why;
	if (!sl_yscalar(v) || sl_qty_parse(v->str, &q, &why) < 0 || q.neg)
		return 0;
	return sl_qty_scaled(&q, sl_resource_scale(name));
}

/* A container's limits into out; sets *qos when it asks for cpu or memory (requests or limits
 * above 0: not BestEffort, as qos.GetPodQOS has it). */
static void container_limits(const struct sl_ynode *ctr, struct sl_reslist *out, bool *qos)
{
	const struct sl_ynode *res = sl_ymap_get(ctr, "resources");
	const char *lists[] = {"requests", "limits"};
	for (size_t l = 0; l < 2; l++) {
		const struct sl_ynode *m = sl_ymap_get(res, lists[l]);
		for (size_t i = 0; m && m->kind == SL_YMAP && i < m->n; i++) {
			const struct sl_ynode *k = m->v[2 * i];
			if (!sl_yscalar(k))
				continue;
			int64_t v = amount_of(k->str, m->v[2 * i + 1]);
			if (v > 0 && (!strcmp(k->str, "cpu") || !strcmp(k->str, "memory")))
				*qos = true;
			if (l == 1)
				sl_res_add(out, k->str, v, m->v[2 * i + 1]);
		}
	}
}

/* PodLimits: the containers' limits summed with the sidecars' (restartable init containers),
 * raised to each other init container's plus the sidecars started before it; plus overhead. */
static void pod_limits(const struct sl_ynode *spec, struct sl_qpod *out)
{
	bool qos = false;
	const struct sl_ynode *ctrs = sl_ymap_get(spec, "containers"), *inits = sl_ymap_get(spec, "initContainers");
	for (size_t i = 0; ctrs && ctrs->kind == SL_YSEQ && i < ctrs->n; i++)
		container_limits(ctrs->v[i], &out->limits, &qos);
	struct sl_reslist side = {0}, initmax = {0};
	for (size_t i = 0; inits && inits->kind == SL_YSEQ && i < inits->n; i++) {
		struct sl_reslist one = {0};
		container_limits(inits->v[i], &one, &qos);
		if (sl_yis(sl_ymap_get(inits->v[i], "restartPolicy"), "Always")) {
			for (size_t j = 0; j < one.n; j++)
				sl_res_add(&side, one.v[j].name, one.v[j].amount, one.v[j].node);
		} else {
			for (size_t j = 0; j < side.n; j++)
				sl_res_add(&one, side.v[j].name, side.v[j].amount, side.v[j].node);
			for (size_t j = 0; j < one.n; j++)
				sl_res_max(&initmax, one.v[j].name, one.v[j].amount, one.v[j].node);
		}
		sl_res_free(&one);
	}
	for (size_t j = 0; j < side.n; j++)
		sl_res_add(&out->limits, side.v[j].name, side.v[j].amount, side.v[j].node);
	for (size_t j = 0; j < initmax.n; j++)
		sl_res_max(&out->limits, initmax.v[j].name, initmax.v[j].amount, initmax.v[j].node);
	sl_res_free(&side);
	sl_res_free(&initmax);
	const struct sl_ynode *oh = sl_ymap_get(spec, "overhead");
	for (size_t i = 0; oh && oh->kind == SL_YMAP && i < oh->n; i++)
		if (sl_yscalar(oh->v[2 * i]) && sl_res_find(&out->limits, oh->v[2 * i]->str))
			sl_res_add(&out->limits, oh->v[2 * i]->str, amount_of(oh->v[2 * i]->str, oh->v[2 * i + 1]),
				   oh->v[2 * i + 1]);
	out->best_effort = !qos;
}

/* A PodAffinityTerm that reaches other namespaces: namespaces listed, or a namespaceSelector. */
static bool cross_term(const struct sl_ynode *t)
{
	const struct sl_ynode *ns = sl_ymap_get(t, "namespaces");
	return (ns && ns->kind == SL_YSEQ && ns->n > 0) || !sl_ynull(sl_ymap_get(t, "namespaceSelector"));
}

/* usesCrossNamespacePodAffinity: any required or preferred pod (anti-)affinity term. */
static bool cross_namespace(const struct sl_ynode *spec)
{
	const char *kinds[] = {"affinity.podAffinity", "affinity.podAntiAffinity"};
	for (size_t k = 0; k < 2; k++) {
		const struct sl_ynode *a = sl_ypath(spec, kinds[k]);
		const struct sl_ynode *req = sl_ymap_get(a, "requiredDuringSchedulingIgnoredDuringExecution");
		const struct sl_ynode *pref = sl_ymap_get(a, "preferredDuringSchedulingIgnoredDuringExecution");
		for (size_t i = 0; req && req->kind == SL_YSEQ && i < req->n; i++)
			if (cross_term(req->v[i]))
				return true;
		for (size_t i = 0; pref && pref->kind == SL_YSEQ && i < pref->n; i++)
			if (cross_term(sl_ymap_get(pref->v[i], "podAffinityTerm")))
				return true;
	}
	return false;
}

void sl_qpod_of(const struct sl_model *m, const struct sl_podspec *p, const char *phase, struct sl_qpod *out)
{
	memset(out, 0, sizeof *out);
	out->request = &p->request;
	pod_limits(p->node, out);
	int64_t ads;
	out->terminating = sl_yint(sl_ymap_get(p->node, "activeDeadlineSeconds"), &ads) == 0 && ads >= 0;
	out->cross_namespace = cross_namespace(p->node);
	out->terminal = phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
	/* The Priority admission plugin runs before the quota's and writes the globalDefault class's
	 * name into a pod that names none (the lowest value wins between two defaults); a running
	 * pod shows what it wrote then. */
	out->priority_class = p->priority_class;
	const struct sl_priority_class *d = NULL;
	for (size_t i = 0; !phase && !p->priority_class && i < m->nprioclasses; i++)
		if (m->prioclasses[i]->global_default && (!d || m->prioclasses[i]->value < d->value))
			d = m->prioclasses[i];
	if (d)
		out->priority_class = d->obj.name;
}

void sl_qpod_free(struct sl_qpod *p)
{
	sl_res_free(&p->limits);
}

static bool scope_selects(const struct sl_qscope_req *r, const struct sl_qpod *p)
{
	const char *pc = p->priority_class && *p->priority_class ? p->priority_class : NULL;
	switch (r->scope) {
	case SL_QS_TERMINATING:
		return p->terminating;
	case SL_QS_NOT_TERMINATING:
		return !p->terminating;
	case SL_QS_BEST_EFFORT:
		return p->best_effort;
	case SL_QS_NOT_BEST_EFFORT:
		return !p->best_effort;
	case SL_QS_CROSS_NAMESPACE_AFFINITY:
		return p->cross_namespace;
	case SL_QS_PRIORITY_CLASS:
		break;
	}
	bool listed = false;
	for (size_t i = 0; pc && i < r->nvalues; i++)
		listed |= !strcmp(r->values[i], pc);
	switch (r->op) {
	case SL_QOP_EXISTS:
		return pc != NULL;
	case SL_QOP_DOES_NOT_EXIST:
		return pc == NULL;
	case SL_QOP_IN:
		return listed;
	case SL_QOP_NOT_IN: /* a label selector's NotIn: a pod without the label matches too */
		return !listed;
	}
	return false;
}

bool sl_quota_selects(const struct sl_quota *q, const struct sl_qpod *p)
{
	for (size_t i = 0; i < q->nscopes; i++)
		if (!scope_selects(&q->scopes[i], p))
			return false;
	return true;
}

/* An extended resource a quota counts as requests.<name> (helper.IsExtendedResourceName): a
 * domain-qualified name outside kubernetes.io, not itself requests.-prefixed. */
static bool extended(const char *name)
{
	const char *slash = strchr(name, '/');
	if (!slash || !strncmp(name, "requests.", 9))
		return false;
	size_t dl = (size_t)(slash - name);
	return !(dl >= 13 && !strncmp(slash - 13, "kubernetes.io", 13) && (dl == 13 || slash[-14] == '.'));
}

static bool compute(const char *r)
{
	return !strcmp(r, "cpu") || !strcmp(r, "memory") || !strcmp(r, "ephemeral-storage");
}

int64_t sl_qpod_usage(const struct sl_qpod *p, const char *name)
{
	if (!strcmp(name, "count/pods"))
		return 1; /* every pod in storage, finished or not */
	bool req = !strncmp(name, "requests.", 9), lim = !strncmp(name, "limits.", 7);
	const char *r = base_resource(name);
	bool counted = !strcmp(name, "pods") || (!req && !lim && (compute(r) || !strncmp(r, "hugepages-", 10))) ||
		       (req && (compute(r) || !strncmp(r, "hugepages-", 10) || extended(r))) || (lim && compute(r));
	if (!counted)
		return -1;
	if (p->terminal)
		return 0;
	if (!strcmp(name, "pods"))
		return 1;
	return sl_res_get(lim ? &p->limits : p->request, r);
}

bool sl_quota_counts_object(const char *name, const struct sl_workload *w)
{
	static const char *const kinds[][2] = {
	    {"Deployment", "count/deployments.apps"},
	    {"StatefulSet", "count/statefulsets.apps"},
	    {"DaemonSet", "count/daemonsets.apps"},
	    {"ReplicaSet", "count/replicasets.apps"},
	    {"Job", "count/jobs.batch"},
	    {"CronJob", "count/cronjobs.batch"},
	    {"ReplicationController", "count/replicationcontrollers"},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(w->obj.kind, kinds[i][0]))
			return !strcmp(name, kinds[i][1]) && !w->owned_name;
	return false;
}

void sl_quota_ref(const struct sl_quota *q, char *out, unsigned n)
{
	snprintf(out, n, "ResourceQuota %s/%s", q->obj.namespace, q->obj.name);
}

/* An amount of quota entry name as written: "3" pods, "500m" of requests.cpu, "1Gi" of memory. */
static void amount_text(const char *name, int64_t v, char *out, unsigned n)
{
	if (!strcmp(name, "pods") || !strncmp(name, "count/", 6))
		snprintf(out, n, "%lld", (long long)v);
	else
		sl_format_amount(base_resource(name), v, out, n);
}

/* The entry of q that leaves room for the fewest pods of p (*fits), or NULL when none charges it. */
static const struct sl_qitem *tightest(const struct sl_quota *q, const struct sl_qpod *p, int64_t *fits)
{
	const struct sl_qitem *best = NULL;
	for (size_t i = 0; i < q->nitems; i++) {
		const struct sl_qitem *it = &q->items[i];
		int64_t per = sl_qpod_usage(p, it->name), room = it->hard - (it->has_used ? it->used : 0);
		if (per <= 0)
			continue;
		int64_t n = room <= 0 ? 0 : room / per;
		if (!best || n < *fits) {
			best = it;
			*fits = n;
		}
	}
	return best;
}

void sl_quota_explain(const struct sl_model *m, const struct sl_workload *w, struct sl_buf *out)
{
	struct sl_qpod p;
	sl_qpod_of(m, &w->pod, NULL, &p);
	for (size_t i = 0; i < m->nquotas; i++) {
		const struct sl_quota *q = m->quotas[i];
		int64_t fits = 0;
		const struct sl_qitem *it;
		if (strcmp(q->obj.namespace, w->obj.namespace) || !sl_quota_selects(q, &p) ||
		    !(it = tightest(q, &p, &fits)))
			continue;
		char ref[512], hard[48], used[48] = "";
		sl_quota_ref(q, ref, sizeof ref);
		amount_text(it->name, it->hard, hard, sizeof hard);
		if (it->has_used)
			amount_text(it->name, it->used, used, sizeof used);
		sl_buf_puts(out, "  quota ");
		sl_esc_puts(out, ref);
		sl_buf_puts(out, " (");
		sl_esc_puts(out, it->name);
		sl_buf_printf(out, ": hard %s%s%s): room for %lld %spod%s of this template%s\n", hard,
			      it->has_used ? ", status.used " : "", it->has_used ? used : "", (long long)fits,
			      it->has_used ? "more " : "", fits == 1 ? "" : "s",
			      it->has_used ? " beside what it counts" : ", before anything else of the namespace");
	}
	sl_qpod_free(&p);
}
