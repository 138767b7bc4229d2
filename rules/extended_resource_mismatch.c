/* extended-resource-mismatch — container resources the API server rejects because they cannot be
 * overcommitted.
 *
 * Follows ValidateContainerResourceRequirements and ValidateResourceQuantityValue in
 * pkg/apis/core/validation with the helpers of pkg/apis/core/helper: a resource is overcommitable
 * only when it is native (no '/' in its name, or a kubernetes.io/ prefix) and not a hugepages-*
 * size. For the others a request needs a limit and must equal it (Quantity.Cmp, exact), and an
 * extended resource (IsExtendedResourceName) must be a whole number: MilliValue() % 1000 == 0.
 * The model keeps only the pod's effective request, so the containers are read from the YAML. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "../linter/model/quantity.h"
#include "edits.h"
#include "rules.h"

static bool is_hugepages(const char *name)
{
	return !strncmp(name, "hugepages-", 10);
}

/* helper.IsExtendedResourceName, less the qualified-name check (a name that fails it is rejected
 * on other grounds, which this rule does not report). */
static bool is_extended(const char *name)
{
	return strchr(name, '/') && !strstr(name, "kubernetes.io/") && strncmp(name, "requests.", 9);
}

/* The resources that cannot be overcommitted (helper.IsOvercommitAllowed is false): those judged here. */
static bool overcommit_forbidden(const char *name)
{
	return is_extended(name) || is_hugepages(name);
}

/* The source text of a scalar node, quotes included. */
static void node_text(const struct sl_source *src, const struct sl_ynode *n, char *out, size_t sz)
{
	const char *d = sl_source_text(src);
	if (!d) { /* the bytes are gone, and the fix with them (sl_source_text) */
		snprintf(out, sz, "%s", n->str);
		return;
	}
	size_t len = n->at.end - n->at.off;
	if (len >= sz)
		len = sz - 1;
	memcpy(out, d + n->at.off, len);
	out[len] = 0;
}

/* A value this rule can judge: a scalar that parses as a non-negative quantity. */
static bool parse(const struct sl_ynode *n, struct sl_qty *q)
{
	const char *why;
	return n && n->kind == SL_YSCALAR && sl_qty_parse(n->str, q, &why) == 0 && !q->neg;
}

/* Quantity.Cmp: quantities hold at most nano precision (parsing rounds finer digits up), so
 * nano units compare exactly below saturation, and whole units above it. */
static int qty_cmp(const struct sl_qty *a, const struct sl_qty *b)
{
	int64_t x = sl_qty_scaled(a, 9), y = sl_qty_scaled(b, 9);
	if (x == INT64_MAX || y == INT64_MAX) {
		x = sl_qty_value(a);
		y = sl_qty_value(b);
	}
	return (x > y) - (x < y);
}

/* What ValidateResourceQuantityValue calls an integer: the milli-value (rounded up) a multiple of 1000. */
static bool whole(const struct sl_qty *q)
{
	return sl_qty_milli(q) % 1000 == 0;
}

/* One container as the fixes need it: its YAML nodes and its words in the messages. */
struct ctr {
	const struct sl_ynode *node, *resources, *requests, *limits;
	const char *name, *where; /* "container" / "init container" */
	bool limits_inserted;     /* a fix of this container already adds the limits mapping */
};

/* What a value becomes in the fix: its own text, or whole units rounded up where an extended
 * resource is fractional. */
static void target_text(const struct sl_source *src, const struct sl_ynode *n, const struct sl_qty *q, bool ext,
			char *out, size_t sz)
{
	if (ext && !whole(q))
		snprintf(out, sz, "%lld", (long long)sl_qty_value(q));
	else
		node_text(src, n, out, sz);
}

/* A `limits` mapping a fix can add an entry to. */
static bool lim_map(const struct ctr *c)
{
	return c->limits && c->limits->kind == SL_YMAP;
}

/* One resource of one container, judged as ValidateContainerResourceRequirements judges it: its
 * request and limit as written and parsed, and which of the rejections applies. */
struct judged {
	const char *name;
	const struct sl_ynode *req, *lim; /* the values as written, NULL when absent */
	struct sl_qty rq, lq;
	bool have_r, have_l;
	bool ext;            /* an extended resource (else hugepages) */
	bool frac_r, frac_l; /* an extended resource's value that is not a whole number */
	bool mismatch;       /* request and limit differ (Quantity.Cmp) */
	bool nolimit;        /* a request without a limit */
};

/* Whether the API server rejects the resource. A value the model cannot parse is not judged: the
 * model reported it (resources.c). */
static bool judge(const char *name, const struct sl_ynode *req, const struct sl_ynode *lim, struct judged *j)
{
	*j = (struct judged){.name = name, .req = req, .lim = lim};
	j->have_r = parse(req, &j->rq);
	j->have_l = parse(lim, &j->lq);
	if ((req && !j->have_r) || (lim && !j->have_l))
		return false;
	j->ext = is_extended(name);
	j->frac_r = j->ext && j->have_r && !whole(&j->rq);
	j->frac_l = j->ext && j->have_l && !whole(&j->lq);
	j->mismatch = j->have_r && j->have_l && qty_cmp(&j->rq, &j->lq) != 0;
	j->nolimit = j->have_r && !j->have_l;
	return j->frac_r || j->frac_l || j->mismatch || j->nolimit;
}

/* The finding, in the API server's own words for the first rejection that applies (a fraction,
 * then a mismatch, then a missing limit), at the value it is about. */
static struct sl_finding *report_rejection(const struct sl_rule *self, struct sl_check *cx, const struct ctr *c,
					   const struct judged *j)
{
	/* The reference made here, for a finding: not for every workload checked. */
	char ref[512];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	const struct sl_ynode *at;
	struct sl_buf msg = SL_BUF_INIT;
	if (j->frac_l || j->frac_r) {
		at = j->frac_l ? j->lim : j->req;
		sl_buf_printf(&msg, "%s %s of %s \"%s\" must be an integer", j->name, j->frac_l ? "limit" : "request",
			      c->where, c->name);
	} else if (j->mismatch) {
		at = j->req;
		sl_buf_printf(&msg, "%s request %s of %s \"%s\" must be equal to its limit %s", j->name, j->req->str,
			      c->where, c->name, j->lim->str);
	} else {
		at = j->req;
		sl_buf_printf(&msg,
			      "%s of %s \"%s\" is requested (%s) with no limit: Limit must be set for non "
			      "overcommitable resources",
			      j->name, c->where, c->name, j->req->str);
	}
	struct sl_finding *f = sl_rule_report(self, cx, at, "the API server rejects %s: %s", ref, msg.s);
	sl_buf_free(&msg);
	return f;
}

/* Why the rule exists for this resource (whole devices, or pages that cannot be overcommitted),
 * and what the rejected value would have meant. */
static void note_why(struct sl_finding *f, const struct judged *j)
{
	if (j->ext)
		sl_note(f,
			"%s is an extended resource: the node advertises whole devices, which cannot be shared "
			"or overcommitted, so requests must equal limits and both must be whole numbers",
			j->name);
	else
		sl_note(f,
			"%s is a hugepages resource: it cannot be overcommitted, so the request must equal the limit",
			j->name);
	if (j->frac_l || j->frac_r)
		sl_note(f,
			"%s is %s units (ValidateResourceQuantityValue takes the milli-value modulo 1000); "
			"sharing a device takes the device plugin's own mechanism (time-slicing, MIG, MPS), "
			"which advertises whole units of its own resource",
			(j->frac_l ? j->lim : j->req)->str, "a fractional number of");
	else if (j->mismatch)
		sl_note(f,
			"requests %s, limits %s: the scheduler would reserve one amount and the kubelet "
			"assign another",
			j->req->str, j->lim->str);
	else
		sl_note(f, "where only a limit is written the API server copies it into requests; the reverse is "
			   "not done");
}

/* A new `limits` mapping for the container. Every overcommit-free request without a limit goes
 * into it, so the fixes of this container's findings never add two `limits` keys. */
static void insert_limits(struct sl_fix *fx, const struct sl_source *src, struct ctr *c)
{
	enum { MAXK = 16 };
	struct sl_yentry kids[MAXK];
	char vals[MAXK][64];
	size_t nk = 0;
	const struct sl_ynode *rm = c->requests;
	for (size_t i = 0; rm && i < rm->n && nk < MAXK; i++) {
		const struct sl_ynode *k = rm->v[2 * i];
		struct sl_qty q;
		if (k->kind != SL_YSCALAR || !overcommit_forbidden(k->str) || !parse(rm->v[2 * i + 1], &q))
			continue;
		target_text(src, rm->v[2 * i + 1], &q, is_extended(k->str), vals[nk], sizeof vals[nk]);
		kids[nk] = (struct sl_yentry){k->str, vals[nk], NULL, 0};
		nk++;
	}
	const struct sl_yentry limits = {"limits", NULL, kids, nk};
	sl_fix_insert(fx, src, c->resources, NULL, &limits, 1);
	c->limits_inserted = true;
}

/* The fix: the limit (or, without one, the request), raised to whole units, as both request and
 * limit. The note says it; the edit rewrites the values that are wrong and adds the limit where
 * none is written. */
static void suggest_fix(struct sl_finding *f, const struct sl_source *src, struct ctr *c, const struct judged *j)
{
	char target[64];
	const struct sl_ynode *base = j->have_l ? j->lim : j->req;
	target_text(src, base, j->have_l ? &j->lq : &j->rq, j->ext, target, sizeof target);
	const char *tdisp = target[0] == '"' || target[0] == '\'' ? base->str : target;
	if (j->frac_l || j->frac_r)
		sl_note(f, "fix: request %s whole unit%s (rounded up), as both request and limit", tdisp,
			strcmp(tdisp, "1") ? "s" : "");
	else if (j->mismatch)
		sl_note(f, "fix: set the request to the limit, %s", tdisp);
	else
		sl_note(f, "fix: add limits: {%s: %s}", j->name, tdisp);
	if (c->node)
		sl_add_related(f, &c->node->at, "%s \"%s\"", c->where, c->name);

	char desc[256];
	snprintf(desc, sizeof desc, "Set %s to %s in requests and limits", j->name, tdisp);
	bool need_req = j->have_r && (j->frac_r || j->frac_l || j->mismatch), need_lim = j->have_l && j->frac_l;
	/* `limits:` written empty (null) gets no insertion: a second `limits` key would be a duplicate. */
	bool need_insert = !j->have_l && (lim_map(c) || (!c->limits && !c->limits_inserted));
	if (!need_req && !need_lim && !need_insert)
		return;
	struct sl_fix *fx = sl_fix_new(f, desc);
	if (need_req)
		sl_fix_replace(fx, src, j->req, target);
	if (need_lim)
		sl_fix_replace(fx, src, j->lim, target);
	if (!need_insert)
		return;
	if (lim_map(c)) {
		const struct sl_yentry e = {j->name, target, NULL, 0};
		sl_fix_insert(fx, src, c->limits, NULL, &e, 1);
	} else
		insert_limits(fx, src, c);
}

/* One resource that cannot be overcommitted, of one container: judged, reported with why, and
 * fixed. */
static void check_resource(const struct sl_rule *self, struct sl_check *cx, struct ctr *c, const char *name,
			   const struct sl_ynode *req, const struct sl_ynode *lim)
{
	struct judged j;
	if (!judge(name, req, lim, &j))
		return;
	struct sl_finding *f = report_rejection(self, cx, c, &j);
	note_why(f, &j);
	suggest_fix(f, cx->w->obj.src, c, &j);
}

/* Each container of a list (containers or initContainers), each of its resources that cannot be
 * overcommitted once. */
static void check_list(const struct sl_rule *self, struct sl_check *cx, const struct sl_ynode *list, const char *where)
{
	for (size_t i = 0; list && list->kind == SL_YSEQ && i < list->n; i++) {
		const struct sl_ynode *cn = list->v[i];
		if (cn->kind != SL_YMAP)
			continue;
		const struct sl_ynode *res = sl_ymap_get(cn, "resources"), *nm = sl_ymap_get(cn, "name");
		if (!res || res->kind != SL_YMAP)
			continue;
		struct ctr c = {nm ? nm : cn,
				res,
				sl_ymap_get(res, "requests"),
				sl_ymap_get(res, "limits"),
				sl_yscalar(nm) ? nm->str : "(unnamed)",
				where,
				false};
		const struct sl_ynode *rq = c.requests && c.requests->kind == SL_YMAP ? c.requests : NULL;
		const struct sl_ynode *lm = c.limits && c.limits->kind == SL_YMAP ? c.limits : NULL;
		/* Each name once: request-side names first, then those written only as limits. */
		for (size_t k = 0; rq && k < rq->n; k++) {
			const struct sl_ynode *key = rq->v[2 * k];
			if (key->kind == SL_YSCALAR && overcommit_forbidden(key->str))
				check_resource(self, cx, &c, key->str, rq->v[2 * k + 1], sl_ymap_get(lm, key->str));
		}
		for (size_t k = 0; lm && k < lm->n; k++) {
			const struct sl_ynode *key = lm->v[2 * k];
			if (key->kind == SL_YSCALAR && is_extended(key->str) && !sl_ymap_get(rq, key->str))
				check_resource(self, cx, &c, key->str, NULL, lm->v[2 * k + 1]);
		}
	}
}

/* The containers, then the init containers, of the workload's pod template. */
static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	check_list(self, cx, w->pod.containers_node, "container");
	check_list(self, cx, sl_ymap_get(w->pod.node, "initContainers"), "init container");
}

const struct sl_rule sl_rule_extended_resource_mismatch = {
    .id = "extended-resource-mismatch",
    .name = "NonOvercommitableResourceMismatch",
    .summary = "An extended or hugepages resource the API server rejects: request without limit, request "
	       "different from limit, or a fractional device count.",
    .description = "Extended resources (domain-qualified names outside kubernetes.io, such as nvidia.com/gpu) and "
		   "hugepages cannot be overcommitted: core validation requires a limit for every such request and the "
		   "request to equal it, and extended resources must be whole numbers. The API server refuses the pod "
		   "template, so the workload is never created.",
    .help = "Write the same value under `requests` and `limits`, or only under `limits` (the request is "
	    "defaulted to it). Extended resources count whole devices: `nvidia.com/gpu: 1`, not `0.5` or "
	    "`500m`; to share a GPU use the device plugin's time-slicing or MIG resources.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
