/* dra_alloc.c — the structured allocator (k8s.io/dynamic-resource-allocation/structured) for one
 * pod on one node: its claims' requests, in order, each given `count` devices (or, with
 * allocationMode All, every matching device, at least one) from those the node reaches that no
 * claim holds, each device matching the class's selectors and the request's; a request with
 * firstAvailable tries its subrequests in order. The allocator searches with backtracking: a
 * choice that leaves a later request short is undone and the next one tried, so allocation fails
 * only when no assignment exists. The search here does the same under a step budget; a search
 * that runs out of steps is taken as fitting (never a failure the allocator might not have).
 *
 * A selector outside the CEL subset (cel.h), or one whose evaluation errs, counts the device as
 * possibly matching: a verdict that no device fits never rests on it. The rules name such
 * selectors in a note. Not modelled, each making allocation easier here than in the cluster,
 * never harder: constraints (matchAttribute, distinctAttribute), device taints, consumable
 * capacity and shared counters, and incomplete pools. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra.h"

/* Search steps for one allocation: far beyond what a pod's few requests on one node take. */
#define ALLOC_BUDGET 200000

static void add_alt(struct sl_dra_need *nd, const struct sl_model *m, const struct sl_dra_request *r,
		    const char *parent)
{
	sl_grow(&nd->alts, &nd->capalts, nd->nalts + 1, sizeof *nd->alts);
	struct sl_dra_alt *a = &nd->alts[nd->nalts++];
	memset(a, 0, sizeof *a);
	a->r = r;
	a->cls = r->class_name ? sl_dra_class(&m->dra, r->class_name) : NULL;
	if (parent)
		snprintf(a->name, sizeof a->name, "%s/%s", parent, r->name ? r->name : "");
	else
		snprintf(a->name, sizeof a->name, "%s", r->name ? r->name : "");
}

/* The requests of spec, of the shared claim `shared` ((size_t)-1: a template's). */
static void add_spec(struct sl_dra_need *nd, const struct sl_model *m, const struct sl_dra_claim_spec *spec,
		     size_t shared, const struct sl_pod_claim *pc)
{
	for (size_t i = 0; i < spec->nrequests; i++) {
		const struct sl_dra_request *r = &spec->requests[i];
		sl_grow(&nd->reqs, &nd->capreqs, nd->nreqs + 1, sizeof *nd->reqs);
		struct sl_dra_req *q = &nd->reqs[nd->nreqs++];
		q->alt0 = nd->nalts;
		q->shared = shared;
		q->pc = pc;
		q->spec = spec;
		if (!r->nsub)
			add_alt(nd, m, r, NULL);
		for (size_t s = 0; s < r->nsub; s++)
			add_alt(nd, m, &r->sub[s], r->name);
		q->nalt = nd->nalts - q->alt0;
	}
}

__attribute__((format(printf, 2, 3))) static void fail_pre(struct sl_dra_need *nd, const char *fmt, ...)
{
	if (nd->prefail)
		return; /* the first failure is the PreFilter's answer */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(nd->prefail_buf, sizeof nd->prefail_buf, fmt, ap);
	va_end(ap);
	nd->prefail = nd->prefail_buf;
}

/* The pod's claims, in the order of spec.resourceClaims, as foreachPodResourceClaim finds them. */
static void resolve_claims(struct sl_dra_need *nd, const struct sl_model *m, const struct sl_podspec *p)
{
	for (size_t j = 0; j < p->nclaims; j++) {
		const struct sl_pod_claim *pc = &p->claims[j];
		if (pc->template_name) {
			const struct sl_claim_template *t = sl_dra_template(&m->dra, p->namespace, pc->template_name);
			if (!t && !nd->missing)
				nd->missing = pc;
			else if (t)
				add_spec(nd, m, &t->spec, (size_t)-1, pc);
		}
	}
	nd->nper_pod = nd->nreqs;
	for (size_t j = 0; j < p->nclaims; j++) {
		const struct sl_pod_claim *pc = &p->claims[j];
		if (!pc->claim_name)
			continue;
		const struct sl_resource_claim *c = sl_dra_claim(&m->dra, p->namespace, pc->claim_name);
		if (!c) {
			if (!nd->missing)
				nd->missing = pc;
			continue;
		}
		if (c->deleting)
			fail_pre(nd, "resourceclaim \"%s\" is being deleted", c->obj.name);
		sl_grow(&nd->shared, &nd->capshared, nd->nshared + 1, sizeof *nd->shared);
		struct sl_dra_shared *s = &nd->shared[nd->nshared++];
		memset(s, 0, sizeof *s);
		s->claim = c;
		s->req0 = nd->nreqs;
		if (!c->allocated)
			add_spec(nd, m, &c->spec, nd->nshared - 1, pc);
		s->nreq = nd->nreqs - s->req0;
	}
}

bool sl_dra_need_init(struct sl_dra_need *nd, const struct sl_dra_index *x, const struct sl_model *m,
		      const struct sl_podspec *p)
{
	memset(nd, 0, sizeof *nd);
	if (!x || !p->nclaims)
		return false;
	nd->x = x;
	nd->p = p;
	nd->all_none_ok = m->kube.minor == 32;
	resolve_claims(nd, m, p);
	/* A class that does not exist: PreFilter's validateDeviceClass, for every claim to allocate. */
	for (size_t a = 0; a < nd->nalts; a++) {
		const struct sl_dra_alt *alt = &nd->alts[a];
		if (!alt->r->class_name)
			fail_pre(nd, "request %s: unsupported request type", alt->name);
		else if (!alt->cls && m->dra.nclasses)
			fail_pre(nd, "request %s: device class %s does not exist", alt->name, alt->r->class_name);
		else if (!alt->cls)
			nd->no_classes = true; /* the inventory holds none: not captured, not missing */
	}
	size_t nd_dev = x->ndev + 1;
	nd->match = sl_xcalloc(nd->nalts * nd_dev + 1, 1);
	nd->taken = sl_xmalloc(nd_dev);
	memcpy(nd->taken, x->taken, nd_dev);
	nd->chosen = sl_xcalloc(nd_dev, 1);
	nd->pick = sl_xcalloc(nd_dev, sizeof *nd->pick);
	nd->pick_req = sl_xcalloc(nd_dev, sizeof *nd->pick_req);
	return true;
}

void sl_dra_need_free(struct sl_dra_need *nd)
{
	for (size_t s = 0; s < nd->nshared; s++)
		free(nd->shared[s].devs);
	free(nd->shared);
	free(nd->alts);
	free(nd->reqs);
	free(nd->match);
	free(nd->taken);
	free(nd->chosen);
	free(nd->pick);
	free(nd->pick_req);
	memset(nd, 0, sizeof *nd);
}

/* Whether every selector in sels may hold for the device (false only on a definite false). */
static bool selectors_hold(const struct sl_dra_selector *sels, size_t n, const struct sl_cel_device *d)
{
	for (size_t i = 0; i < n; i++)
		if (sels[i].cel && sl_cel_eval(sels[i].cel, d, NULL, 0) == SL_CEL_FALSE)
			return false;
	return true;
}

bool sl_dra_matches(struct sl_dra_need *nd, size_t alt, size_t dev)
{
	signed char *m = &nd->match[alt * (nd->x->ndev + 1) + dev];
	if (!*m) {
		const struct sl_dra_alt *a = &nd->alts[alt];
		const struct sl_cel_device *d = &nd->x->dev[dev].d->cel;
		bool ok = a->cls && selectors_hold(a->cls->selectors, a->cls->nselectors, d) &&
			  selectors_hold(a->r->selectors, a->r->nselectors, d);
		*m = ok ? 1 : -1;
	}
	return *m > 0;
}

/* Whether the device may go to the alternative now (free, not chosen yet, matching). */
static bool usable(struct sl_dra_need *nd, size_t alt, size_t dev)
{
	bool admin = nd->alts[alt].r->admin_access; /* admin access may use a device in use */
	return !nd->chosen[dev] && (admin || !nd->taken[dev] || nd->x->shareable[dev]) && sl_dra_matches(nd, alt, dev);
}

static void push(struct sl_dra_need *nd, size_t dev, size_t req)
{
	nd->chosen[dev] = 1;
	nd->pick[nd->npick] = dev;
	nd->pick_req[nd->npick++] = req;
}

static void undo_to(struct sl_dra_need *nd, size_t mark)
{
	while (nd->npick > mark)
		nd->chosen[nd->pick[--nd->npick]] = 0;
}

static bool from_request(struct sl_dra_need *nd, size_t node, size_t r);

/* ExactCount: `left` more devices for alternative alt of request r, from reach index j on. */
static bool choose(struct sl_dra_need *nd, size_t node, size_t r, size_t alt, int64_t left, size_t j)
{
	if (left == 0)
		return from_request(nd, node, r + 1);
	const struct sl_dra_index *x = nd->x;
	for (; j < x->start[node + 1]; j++) {
		size_t dev = x->reach[j];
		if (!usable(nd, alt, dev))
			continue;
		if (!nd->budget--) {
			nd->over = true;
			return true;
		}
		size_t mark = nd->npick;
		push(nd, dev, r);
		if (choose(nd, node, r, alt, left - 1, j + 1) || nd->over)
			return true;
		undo_to(nd, mark);
	}
	return false;
}

/* allocationMode All: every matching device the node reaches, each free, at least one. */
static bool take_all(struct sl_dra_need *nd, size_t node, size_t r, size_t alt)
{
	const struct sl_dra_index *x = nd->x;
	size_t mark = nd->npick;
	for (size_t j = x->start[node]; j < x->start[node + 1]; j++) {
		size_t dev = x->reach[j];
		if (!sl_dra_matches(nd, alt, dev))
			continue;
		if (!usable(nd, alt, dev)) {
			undo_to(nd, mark);
			return false;
		}
		push(nd, dev, r);
	}
	if (nd->npick == mark && !nd->all_none_ok)
		return false;
	if (from_request(nd, node, r + 1) || nd->over)
		return true;
	undo_to(nd, mark);
	return false;
}

/* Requests r and after: those of a shared claim pinned already are allocated. */
static bool from_request(struct sl_dra_need *nd, size_t node, size_t r)
{
	while (r < nd->nreqs && nd->reqs[r].shared != (size_t)-1 && nd->shared[nd->reqs[r].shared].pinned)
		r++;
	if (r == nd->nreqs)
		return true;
	const struct sl_dra_req *q = &nd->reqs[r];
	for (size_t a = q->alt0; a < q->alt0 + q->nalt; a++) {
		const struct sl_dra_request *req = nd->alts[a].r;
		if (!nd->alts[a].cls)
			continue;
		bool ok = req->all ? take_all(nd, node, r, a) : choose(nd, node, r, a, req->count, nd->x->start[node]);
		if (ok || nd->over)
			return true;
	}
	return false;
}

/* Whether the shared claims allocated already may be used on node. */
static bool shared_available(const struct sl_dra_need *nd, const struct sl_model *m, size_t node)
{
	for (size_t s = 0; s < nd->nshared; s++) {
		const struct sl_dra_shared *sh = &nd->shared[s];
		const struct sl_resource_claim *c = sh->claim;
		if (c->allocated && c->has_node_selector &&
		    !sl_terms_match(c->node_terms, c->nnode_terms, m->nodes[node]))
			return false;
		for (size_t k = 0; sh->pinned && k < sh->ndevs; k++)
			if (!sl_dra_reaches(nd->x, node, sh->devs[k]))
				return false;
	}
	return true;
}

/* The pod is bound: what it was given is taken, and a shared claim allocated now is pinned. */
static void take(struct sl_dra_need *nd)
{
	for (size_t k = 0; k < nd->npick; k++) {
		size_t r = nd->pick_req[k];
		size_t alt0 = nd->reqs[r].alt0;
		if (!nd->alts[alt0].r->admin_access)
			nd->taken[nd->pick[k]] = 1;
		size_t s = nd->reqs[r].shared;
		if (s == (size_t)-1 || nd->shared[s].pinned)
			continue;
		struct sl_dra_shared *sh = &nd->shared[s];
		sl_grow(&sh->devs, &sh->capdevs, sh->ndevs + 1, sizeof *sh->devs);
		sh->devs[sh->ndevs++] = nd->pick[k];
	}
	for (size_t s = 0; s < nd->nshared; s++)
		if (nd->shared[s].nreq)
			nd->shared[s].pinned = true;
}

bool sl_dra_allocate(struct sl_dra_need *nd, const struct sl_model *m, size_t node, bool bind, bool *unavailable)
{
	*unavailable = !shared_available(nd, m, node);
	nd->npick = 0;
	nd->budget = ALLOC_BUDGET;
	nd->over = false;
	bool ok = from_request(nd, node, 0);
	if (ok && bind)
		take(nd);
	undo_to(nd, 0);
	return ok;
}
