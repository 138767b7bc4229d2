/* limitrange-violation — a LimitRange of the workload's namespace rejects every pod (or claim) it
 * makes at creation.
 *
 * Follows plugin/pkg/admission/limitranger: PodValidateLimitFunc judges each container and init
 * container (after the defaults mergeContainerResources gave it, limitrange.c) against every
 * Container item's min, max and maxLimitRequestRatio, and the pod's requests and limits
 * (resourcehelper's PodRequests / PodLimits without overhead) against every Pod item's;
 * PersistentVolumeClaimValidateLimitFunc judges a claim's storage request against every
 * PersistentVolumeClaim item's min and max (maxRequestConstraint: the request only). The pods
 * of a template are identical, so a violation holds for each: the controller's creates all fail
 * (FailedCreate) and none ever runs. The messages are the plugin's (minConstraint, maxConstraint,
 * limitRequestRatioConstraint), after the quantities' text as written. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/model/quantity.h"
#include "rules.h"

static const char *const type_word[] = {"Container", "Pod", "PersistentVolumeClaim"};

/* A quantity as the plugin prints it (Quantity.String()): as written where it was, else in the
 * resource's unit. */
static const char *qty(const char *name, const struct sl_res *r, char *out, unsigned n)
{
	if (r->node && r->node->kind == SL_YSCALAR)
		return r->node->str;
	sl_format_amount(name, r->amount, out, n);
	return out;
}

/* One judgement: what the plugin says, where it is said, and what decided it. */
struct verdict {
	struct sl_buf msg;
	const struct sl_res *bound;    /* the LimitRange's value */
	const struct sl_res *observed; /* the container's (pod's, claim's) value judged; NULL: none */
	const char *kind;              /* "min", "max", "maxLimitRequestRatio" */
};

/* minConstraint: a request below min, or none; a limit below min. */
static bool min_fails(const struct sl_lr_item *it, const struct sl_res *b, const struct sl_reslist *req,
		      const struct sl_reslist *lim, struct verdict *v)
{
	char t1[32], t2[32];
	const struct sl_res *r = sl_res_find(req, b->name), *l = lim ? sl_res_find(lim, b->name) : NULL;
	const char *e = qty(b->name, b, t1, sizeof t1), *w = type_word[it->type];
	v->bound = b;
	v->kind = "min";
	if (!r)
		sl_buf_printf(&v->msg, "minimum %s usage per %s is %s.  No request is specified", b->name, w, e);
	else if (r->amount < b->amount)
		sl_buf_printf(&v->msg, "minimum %s usage per %s is %s, but request is %s", b->name, w, e,
			      qty(b->name, r, t2, sizeof t2));
	else if (l && l->amount < b->amount)
		sl_buf_printf(&v->msg, "minimum %s usage per %s is %s, but limit is %s", b->name, w, e,
			      qty(b->name, l, t2, sizeof t2));
	else
		return false;
	v->observed = r && r->amount < b->amount ? r : r ? l : NULL;
	return true;
}

/* maxConstraint (a limit above max, or none; a request above it) or, for a claim,
 * maxRequestConstraint (the request only). */
static bool max_fails(const struct sl_lr_item *it, const struct sl_res *b, const struct sl_reslist *req,
		      const struct sl_reslist *lim, struct verdict *v)
{
	char t1[32], t2[32];
	const struct sl_res *r = sl_res_find(req, b->name), *l = lim ? sl_res_find(lim, b->name) : NULL;
	const char *e = qty(b->name, b, t1, sizeof t1), *w = type_word[it->type];
	v->bound = b;
	v->kind = "max";
	if (lim && !l)
		sl_buf_printf(&v->msg, "maximum %s usage per %s is %s.  No limit is specified", b->name, w, e);
	else if (l && l->amount > b->amount)
		sl_buf_printf(&v->msg, "maximum %s usage per %s is %s, but limit is %s", b->name, w, e,
			      qty(b->name, l, t2, sizeof t2));
	else if (!lim && !r)
		sl_buf_printf(&v->msg, "maximum %s usage per %s is %s.  No request is specified", b->name, w, e);
	else if (r && r->amount > b->amount)
		sl_buf_printf(&v->msg, "maximum %s usage per %s is %s, but request is %s", b->name, w, e,
			      qty(b->name, r, t2, sizeof t2));
	else
		return false;
	v->observed = l && l->amount > b->amount ? l : r && r->amount > b->amount ? r : NULL;
	return true;
}

/* limitRequestRatioConstraint: limit / request above the ratio, or either missing or 0. */
static bool ratio_fails(const struct sl_lr_item *it, const struct sl_res *b, const struct sl_reslist *req,
			const struct sl_reslist *lim, struct verdict *v)
{
	const struct sl_res *r = sl_res_find(req, b->name), *l = sl_res_find(lim, b->name);
	const char *w = type_word[it->type], *e = b->node->str;
	v->bound = b;
	v->kind = "maxLimitRequestRatio";
	v->observed = l;
	if (!r || !r->amount)
		sl_buf_printf(&v->msg,
			      "%s max limit to request ratio per %s is %s, but no request is specified or request is 0",
			      b->name, w, e);
	else if (!l || !l->amount)
		sl_buf_printf(&v->msg,
			      "%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0",
			      b->name, w, e);
	else if ((double)l->amount * 1000.0 / (double)r->amount > (double)b->amount)
		sl_buf_printf(&v->msg, "%s max limit to request ratio per %s is %s, but provided ratio is %f", b->name,
			      w, e, (double)l->amount / (double)r->amount);
	else
		return false;
	return true;
}

/* Every violation of one LimitRange item by (req, lim), each handed to emit. */
typedef void (*emit_fn)(void *ctx, const struct sl_limitrange *lr, struct verdict *v);
static void judge(const struct sl_limitrange *lr, const struct sl_lr_item *it, const struct sl_reslist *req,
		  const struct sl_reslist *lim, emit_fn emit, void *ctx)
{
	for (int k = 0; k < 3; k++) {
		const struct sl_reslist *bounds = k == 0 ? &it->min : k == 1 ? &it->max : &it->ratio;
		if (k == 2 && it->type == SL_LR_PVC)
			break; /* a claim's ratio is not judged */
		for (size_t j = 0; j < bounds->n; j++) {
			struct verdict v = {SL_BUF_INIT, NULL, NULL, NULL};
			bool bad = k == 0   ? min_fails(it, &bounds->v[j], req, lim, &v)
				   : k == 1 ? max_fails(it, &bounds->v[j], req, it->type == SL_LR_PVC ? NULL : lim, &v)
					    : ratio_fails(it, &bounds->v[j], req, lim, &v);
			if (bad)
				emit(ctx, lr, &v);
			sl_buf_free(&v.msg);
		}
	}
}

struct pod_ctx {
	const struct sl_rule *self;
	struct sl_check *cx;
	const struct sl_ctr_res *ctr; /* NULL: the pod as a whole */
};

static void relate_bound(struct sl_finding *f, const struct sl_limitrange *lr, const struct verdict *v,
			 enum sl_lr_type t)
{
	sl_add_related(f, &v->bound->node->at, "LimitRange %s/%s: %s %s per %s", lr->obj.namespace, lr->obj.name,
		       v->kind, v->bound->name, type_word[t]);
}

static void emit_pod(void *arg, const struct sl_limitrange *lr, struct verdict *v)
{
	struct pod_ctx *pc = arg;
	const struct sl_workload *w = pc->cx->w;
	const struct sl_model *m = pc->cx->model;
	const struct sl_ctr_res *c = pc->ctr;
	/* At the value judged, in the workload; at the container (the pod's containers) when it
	 * has none or a LimitRange gave it. */
	const struct sl_limitrange *gave =
	    v->observed ? sl_limitrange_holding(m, w->obj.namespace, v->observed->node) : NULL;
	const struct sl_ynode *at = c ? c->node : w->pod.containers_node;
	if (c && v->observed && v->observed->node && !gave)
		at = v->observed->node;
	else if (c && sl_ymap_get(c->node, "name"))
		at = sl_ymap_get(c->node, "name");
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	bool bare = !strcmp(w->obj.kind, "Pod");
	struct sl_finding *f = sl_rule_report(pc->self, pc->cx, at, "%s%s is rejected at creation by LimitRange %s: %s",
					      bare ? "" : "every pod of ", ref, lr->obj.name, sl_buf_str(&v->msg));
	relate_bound(f, lr, v, c ? SL_LR_CONTAINER : SL_LR_POD);
	if (c) {
		const struct sl_ynode *name = sl_ymap_get(c->node, "name");
		sl_note(f, "in %s %s", c->init ? "init container" : "container",
			sl_yscalar(name) ? name->str : "(unnamed)");
	}
	if (gave) {
		sl_note(f, "that value is LimitRange %s's default, given to a container that states none",
			gave->obj.name);
		sl_add_related(f, &v->observed->node->at, "LimitRange %s/%s: default %s", gave->obj.namespace,
			       gave->obj.name, v->observed->name);
	}
	if (bare)
		sl_note(f, "the API server refuses to create it (pods \"%s\" is forbidden)", w->obj.name);
	else
		sl_note(f,
			"the controller's creates fail (FailedCreate: pods \"...\" is forbidden), so none of its pods "
			"ever runs");
}

/* A claim's storage request, as written in a StatefulSet's template or a claim. */
struct claim_ctx {
	const struct sl_rule *self;
	struct sl_check *cx;       /* a template's: the StatefulSet */
	struct sl_model_check *mx; /* a claim's */
	const struct sl_object *o;
	const struct sl_ynode *at; /* the storage request, or the claim spec */
	const char *what;          /* "every claim of StatefulSet ns/db (volumeClaimTemplates data)" */
};

static void emit_claim(void *arg, const struct sl_limitrange *lr, struct verdict *v)
{
	struct claim_ctx *cc = arg;
	struct sl_finding *f =
	    cc->cx ? sl_rule_report(cc->self, cc->cx, cc->at, "%s is rejected at creation by LimitRange %s: %s",
				    cc->what, lr->obj.name, sl_buf_str(&v->msg))
		   : sl_rule_report_object(cc->self, cc->mx, cc->o, cc->at,
					   "%s is rejected at creation by LimitRange %s: %s", cc->what, lr->obj.name,
					   sl_buf_str(&v->msg));
	relate_bound(f, lr, v, SL_LR_PVC);
	if (cc->cx)
		sl_note(f, "the StatefulSet controller creates no pod whose claim it cannot create, so none ever runs");
}

/* Every claim item of ns against a claim spec (its storage request at spec.resources.requests). */
static void judge_claim(const struct sl_model *m, const char *ns, const struct sl_ynode *spec, struct claim_ctx *cc)
{
	size_t nl;
	const struct sl_limitrange *const *lrs = sl_model_limitranges(m, ns, &nl);
	const struct sl_ynode *st = sl_ypath(spec, "resources.requests.storage");
	struct sl_reslist req = {0};
	int64_t bytes;
	struct sl_qty q;
	const char *why;
	if (sl_yscalar(st) && sl_qty_parse(st->str, &q, &why) == 0 && (bytes = sl_qty_value(&q)) >= 0)
		sl_res_add(&req, "storage", bytes, st);
	cc->at = st ? st : spec;
	for (size_t k = 0; k < nl; k++)
		for (size_t i = 0; i < lrs[k]->nitems; i++)
			if (lrs[k]->items[i].type == SL_LR_PVC)
				judge(lrs[k], &lrs[k]->items[i], &req, NULL, emit_claim, cc);
	sl_res_free(&req);
}

static void check_templates(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const struct sl_ynode *seq = sl_ymap_get(w->spec, "volumeClaimTemplates");
	char ref[512], what[700];
	sl_object_ref(&w->obj, ref, sizeof ref);
	for (size_t i = 0; seq && seq->kind == SL_YSEQ && i < seq->n; i++) {
		const struct sl_ynode *name = sl_ypath(seq->v[i], "metadata.name");
		snprintf(what, sizeof what, "every claim of %s (volumeClaimTemplates %s)", ref,
			 sl_yscalar(name) ? name->str : "");
		struct claim_ctx cc = {self, cx, NULL, &w->obj, NULL, what};
		judge_claim(cx->model, w->obj.namespace, sl_ymap_get(seq->v[i], "spec"), &cc);
	}
}

/* Whether a Container or Pod item of lrs bounds anything (min, max, maxLimitRequestRatio): most
 * LimitRanges only give defaults, and then no pod is judged (nor its containers made again). */
static bool bounds_pods(const struct sl_limitrange *const *lrs, size_t nl)
{
	for (size_t k = 0; k < nl; k++)
		for (size_t i = 0; i < lrs[k]->nitems; i++) {
			const struct sl_lr_item *it = &lrs[k]->items[i];
			if (it->type != SL_LR_PVC && (it->min.n || it->max.n || it->ratio.n))
				return true;
		}
	return false;
}

/* The workload's containers, and its pod, as admission leaves them, against every Container and
 * Pod item. */
static void check_pods(const struct sl_rule *self, struct sl_check *cx, const struct sl_limitrange *const *lrs,
		       size_t nl)
{
	const struct sl_workload *w = cx->w;
	struct sl_ctr_res *v;
	size_t n = sl_limitrange_admit(cx->model, &w->pod, &v);
	struct sl_reslist preq = {0}, plim = {0};
	sl_ctrs_aggregate(v, n, false, false, &preq);
	sl_ctrs_aggregate(v, n, true, false, &plim);
	for (size_t j = 0; j < preq.n || j < plim.n; j++) { /* sums: printed from their amounts */
		if (j < preq.n)
			preq.v[j].node = NULL;
		if (j < plim.n)
			plim.v[j].node = NULL;
	}
	for (size_t k = 0; k < nl; k++)
		for (size_t i = 0; i < lrs[k]->nitems; i++) {
			const struct sl_lr_item *it = &lrs[k]->items[i];
			struct pod_ctx pc = {self, cx, NULL};
			if (it->type == SL_LR_POD)
				judge(lrs[k], it, &preq, &plim, emit_pod, &pc);
			for (size_t j = 0; it->type == SL_LR_CONTAINER && j < n; j++) {
				pc.ctr = &v[j];
				judge(lrs[k], it, &v[j].req, &v[j].lim, emit_pod, &pc);
			}
		}
	sl_res_free(&preq);
	sl_res_free(&plim);
	sl_ctrs_free(v, n);
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	size_t nl;
	const struct sl_limitrange *const *lrs = sl_model_limitranges(cx->model, w->obj.namespace, &nl);
	if (!nl)
		return;
	if (bounds_pods(lrs, nl))
		check_pods(self, cx, lrs, nl);
	if (!strcmp(w->obj.kind, "StatefulSet"))
		check_templates(self, cx);
}

/* The manifests' claims (the cluster's own were admitted already). */
static void check_model(const struct sl_rule *self, struct sl_model_check *mx)
{
	const struct sl_model *m = mx->model;
	for (size_t i = 0; i < m->npvcs && m->nlimitranges; i++) {
		const struct sl_pvc *p = m->pvcs[i];
		if (p->inventory)
			continue;
		char ref[512];
		sl_object_ref(&p->obj, ref, sizeof ref);
		struct claim_ctx cc = {self, NULL, mx, &p->obj, NULL, ref};
		judge_claim(m, p->obj.namespace, sl_ymap_get(p->obj.root, "spec"), &cc);
	}
}

const struct sl_rule sl_rule_limitrange_violation = {
    .id = "limitrange-violation",
    .name = "LimitRangeRejects",
    .summary = "A LimitRange of the namespace rejects every pod (or claim) of the workload at creation.",
    .description = "The LimitRanger admission plugin gives a container without a request or limit its "
		   "namespace's LimitRange defaults, then judges each container against the Container items' "
		   "min, max and maxLimitRequestRatio, the pod's summed requests and limits against the Pod "
		   "items', and a claim's storage request against the PersistentVolumeClaim items' min and max. "
		   "The pods of a template are identical: one that is refused is refused every time, the "
		   "controller's creates fail (FailedCreate) and no pod ever runs.",
    .help = "Bring the value within the LimitRange's bound (the request, the limit, or their ratio), or set "
	    "it on the container where the LimitRange's default is what breaks it; or change the LimitRange.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
    .check_model = check_model,
};
