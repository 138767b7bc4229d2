/* podlevel.c — pod-level resources and scheduling gates (see podlevel.h). Pod-level requests are
 * read as the API server keeps them: defaulted as pkg/apis/core/v1 defaultPodRequests does (a
 * resource with a pod-level limit and no pod-level request takes the limit, a hugepage size the
 * containers request their aggregate), checked as validatePodResources and
 * validatePodResourceConsistency do, then applied as resourcehelper.PodRequests does: each
 * supported resource they set replaces the containers' aggregate, and the overhead is added on
 * top. */
#include "podlevel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model.h"
#include "model_read.h"
#include "quantity.h"

/* The resources a pod spec's own requests and limits may name: cpu and memory from the start,
 * hugepages from 1.34 (IsSupportedPodLevelResource). */
static bool supported(const char *name, int minor)
{
	return !strcmp(name, "cpu") || !strcmp(name, "memory") || (minor >= 34 && !strncmp(name, "hugepages-", 10));
}

static bool hugepages(const char *name)
{
	return !strncmp(name, "hugepages-", 10);
}

static void set_amount(struct sl_reslist *l, const char *name, int64_t amount, const struct sl_ynode *node)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name)) {
			l->v[i].amount = amount;
			l->v[i].node = node;
			return;
		}
	sl_res_add(l, name, amount, node);
}

/* What validatePodResourceConsistency checks of requests req and limits lim against the
 * containers' aggregate request agg: a request below it, a request above the limit, a container's
 * limit above the pod's. Input errors at the values; false after any. */
static bool consistent(struct sl_read *c, const struct sl_podspec *p, const struct sl_reslist *req,
		       const struct sl_reslist *lim, const struct sl_reslist *agg)
{
	char a[48], b[48];
	for (size_t i = 0; i < req->n; i++) {
		const struct sl_res *r = &req->v[i], *l = sl_res_find(lim, r->name);
		int64_t sum = sl_res_get(agg, r->name);
		if (sum > r->amount) {
			sl_format_amount(r->name, r->amount, a, sizeof a);
			sl_format_amount(r->name, sum, b, sizeof b);
			sl_read_error(
			    c, r->node,
			    "spec.resources.requests[%s]: %s%s must be greater than or equal to the containers' "
			    "aggregate request of %s: the API server rejects the pod",
			    r->name, a, l && l->node == r->node ? " (defaulted to the pod-level limit)" : "", b);
		} else if (l && r->amount > l->amount) {
			sl_format_amount(r->name, r->amount, a, sizeof a);
			sl_format_amount(r->name, l->amount, b, sizeof b);
			sl_read_error(
			    c, r->node,
			    "spec.resources.requests[%s]: %s must be less than or equal to the pod-level limit of "
			    "%s: the API server rejects the pod",
			    r->name, a, b);
		}
	}
	const struct sl_ynode *ctrs = p->containers_node;
	for (size_t i = 0; ctrs && lim->n && i < ctrs->n; i++) {
		const struct sl_ynode *cl = sl_ypath(ctrs->v[i], "resources.limits");
		if (!cl || cl->kind != SL_YMAP)
			continue;
		struct sl_reslist climits = {0};
		struct sl_findings scratch = {0}; /* read once already, with its errors */
		struct sl_read quiet = {c->src, &scratch, 0};
		sl_read_reslist(&quiet, cl, "resources.limits", &climits);
		for (size_t j = 0; j < climits.n; j++) {
			const struct sl_res *l = sl_res_find(lim, climits.v[j].name);
			if (!l || climits.v[j].amount <= l->amount)
				continue;
			sl_format_amount(l->name, climits.v[j].amount, a, sizeof a);
			sl_format_amount(l->name, l->amount, b, sizeof b);
			sl_read_error(
			    c, climits.v[j].node,
			    "containers[%zu].resources.limits[%s]: %s must be less than or equal to the pod-level "
			    "limit of %s: the API server rejects the pod",
			    i, l->name, a, b);
		}
		sl_res_free(&climits);
		sl_findings_free(&scratch);
	}
	return !c->failed;
}

/* requests and limits at res, the names checked; defaulted as the API server does. */
static void read_pod_level(struct sl_read *c, const struct sl_ynode *res, int minor, const struct sl_reslist *agg,
			   struct sl_reslist *req, struct sl_reslist *lim)
{
	const struct sl_ynode *rq = sl_read_want(c, res, "requests", SL_YMAP, "spec.resources.requests");
	const struct sl_ynode *li = sl_read_want(c, res, "limits", SL_YMAP, "spec.resources.limits");
	sl_read_reslist(c, rq, "spec.resources.requests", req);
	sl_read_reslist(c, li, "spec.resources.limits", lim);
	for (int k = 0; k < 2; k++) {
		const struct sl_ynode *m = k ? li : rq;
		for (size_t i = 0; m && i < m->n; i++) {
			const struct sl_ynode *key = m->v[2 * i];
			if (key->kind == SL_YSCALAR && !supported(key->str, minor))
				sl_read_error(
				    c, key,
				    "spec.resources.%s[%s]: pod-level resources support cpu and memory%s only: "
				    "the API server rejects the pod",
				    k ? "limits" : "requests", key->str, minor >= 34 ? " (and hugepages-<size>)" : "");
		}
	}
	for (size_t i = 0; i < lim->n; i++) {
		const struct sl_res *l = &lim->v[i];
		if (sl_res_find(req, l->name))
			continue;
		const struct sl_res *a = hugepages(l->name) ? sl_res_find(agg, l->name) : NULL;
		sl_res_add(req, l->name, a ? a->amount : l->amount, l->node);
	}
}

/* The single place a pod spec's own resources change its request: each supported resource its
 * (defaulted) requests set replaces the containers' aggregate, the overhead it writes added on
 * top. errs NULL: a running pod's, which the cluster has accepted already. */
static void apply_resources(const struct sl_source *src, struct sl_podspec *p, int minor, struct sl_findings *errs)
{
	const struct sl_ynode *res = sl_ymap_get(p->node, "resources");
	if (sl_ynull(res))
		return;
	struct sl_findings scratch = {0};
	struct sl_read c = {src, errs ? errs : &scratch, 0};
	struct sl_reslist ovh = {0}, agg = {0}, req = {0}, lim = {0};
	if (res->kind != SL_YMAP)
		sl_read_error(&c, res, "spec.resources must be a mapping, not %s", sl_ykind_name(res));
	else {
		struct sl_findings none = {0}; /* the overhead's errors were reported with the spec */
		struct sl_read quiet = {src, &none, 0};
		sl_read_reslist(&quiet, sl_ymap_get(p->node, "overhead"), "overhead", &ovh);
		sl_findings_free(&none);
		for (size_t i = 0; i < p->request.n; i++)
			sl_res_add(&agg, p->request.v[i].name,
				   p->request.v[i].amount - sl_res_get(&ovh, p->request.v[i].name), NULL);
		read_pod_level(&c, res, minor, &agg, &req, &lim);
	}
	if (!c.failed && (errs == NULL || consistent(&c, p, &req, &lim, &agg)))
		for (size_t i = 0; i < req.n; i++) {
			const struct sl_res *r = &req.v[i];
			set_amount(&p->request, r->name, sl_sat_add(r->amount, sl_res_get(&ovh, r->name)), r->node);
			sl_res_add(&p->pod_level, r->name, r->amount, r->node);
		}
	sl_res_free(&ovh);
	sl_res_free(&agg);
	sl_res_free(&req);
	sl_res_free(&lim);
	sl_findings_free(&scratch);
}

/* A template that writes spec.resources on a release whose API server drops it: a warning. */
static void dropped_resources(const struct sl_model *m, const struct sl_ynode *res, struct sl_findings *errs)
{
	const struct sl_gates *g = &m->gates;
	int minor = m->kube.minor;
	char why[160];
	if (g->v[SL_GATE_POD_LEVEL_RESOURCES] < 0 && minor >= 32)
		snprintf(why, sizeof why, "PodLevelResources=false, %s",
			 g->from[SL_GATE_POD_LEVEL_RESOURCES] ? g->from[SL_GATE_POD_LEVEL_RESOURCES]
							      : "--feature-gates");
	else if (minor < 32)
		snprintf(why, sizeof why, "PodLevelResources comes with 1.32 and is on by default from 1.34");
	else
		snprintf(why, sizeof why,
			 "PodLevelResources is alpha in 1.%d, off by default; --feature-gates PodLevelResources=true "
			 "turns it on",
			 minor);
	sl_input_warning(errs, &res->at,
			 "spec.resources (pod-level resources) has no effect on Kubernetes 1.%d: its API server drops "
			 "it (%s); the pod's request is its containers'",
			 minor, why);
}

/* spec.schedulingGates: the names, for the note; a gate without a name is the API's rejection. */
static void read_gates(const struct sl_model *m, struct sl_workload *w, struct sl_findings *errs)
{
	struct sl_podspec *p = &w->pod;
	const struct sl_ynode *gates = sl_ymap_get(p->node, "schedulingGates");
	if (sl_ynull(gates))
		return;
	struct sl_read c = {w->obj.src, errs, 0};
	if (gates->kind != SL_YSEQ) {
		sl_read_error(&c, gates, "schedulingGates must be a list, not %s", sl_ykind_name(gates));
		return;
	}
	if (!gates->n)
		return;
	if (m->kube.minor < SL_KUBE_SCHEDULING_GATES) {
		sl_input_warning(errs, &gates->at,
				 "schedulingGates has no effect on Kubernetes 1.%d: its API server drops it "
				 "(PodSchedulingReadiness is on by default from 1.%d)",
				 m->kube.minor, SL_KUBE_SCHEDULING_GATES);
		return;
	}
	struct sl_buf names = SL_BUF_INIT;
	for (size_t i = 0; i < gates->n; i++) {
		const char *name = sl_read_str(&c, gates->v[i], "name", "schedulingGates[].name");
		if (gates->v[i]->kind != SL_YMAP)
			sl_read_error(&c, gates->v[i], "schedulingGates[%zu] must be a mapping, not %s", i,
				      sl_ykind_name(gates->v[i]));
		else if (!name || !*name)
			sl_read_error(&c, gates->v[i], "schedulingGates[%zu] has no name (it is required)", i);
		else {
			sl_buf_puts(&names, names.len ? ", " : "");
			sl_buf_puts(&names, name);
		}
	}
	if (!c.failed) {
		p->gates = gates;
		sl_input_note(errs, &gates->at,
			      "the pods of %s %s/%s are created with scheduling gates (%s): the scheduler leaves them "
			      "Pending (SchedulingGated) until a controller removes every gate; what is said of their "
			      "placement holds once the gates are removed",
			      w->obj.kind, w->obj.namespace, w->obj.name ? w->obj.name : "", sl_buf_str(&names));
	}
	sl_buf_free(&names);
}

void sl_podlevel_apply(struct sl_model *m, struct sl_findings *errs)
{
	int minor = m->kube.minor;
	bool on = sl_gate_on(&m->gates, SL_GATE_POD_LEVEL_RESOURCES, minor);
	for (size_t i = 0; i < m->nworkloads; i++) {
		struct sl_workload *w = m->workloads[i];
		const struct sl_ynode *res = sl_ymap_get(w->pod.node, "resources");
		if (on)
			apply_resources(w->obj.src, &w->pod, minor, errs);
		else if (!sl_ynull(res))
			dropped_resources(m, res, errs);
		read_gates(m, w, errs);
	}
	for (size_t i = 0; on && i < m->npods; i++)
		apply_resources(NULL, &m->pods[i]->spec, minor, NULL);
}
