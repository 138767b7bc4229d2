/* NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources): the pod count and the
 * resources the scheduler tracks, as a filter, as a count of identical pods a node holds, and
 * as the scores LeastAllocated and (its neighbour in the same package)
 * NodeResourcesBalancedAllocation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/quantity.h"
#include "plugin.h"
#include "status.h"

/* The cycle's state: the pod's requests, counted once, and each node's capacity for it. */
struct sl_fit_state {
	struct sl_podres res;
	int64_t pcpu, pmem, nzcpu, nzmem; /* the pod's requests, as filtered and as scored */
};

/* Resources the scheduler tracks as "scalar": extended (domain-qualified, outside
 * kubernetes.io), hugepages and attachable volumes. Anything else a pod names is ignored. */
static bool is_scalar_resource(const char *name)
{
	/* Asked for every resource of every pod on every node: the first letter settles most names
	 * before any prefix is compared. */
	if ((name[0] == 'h' && !strncmp(name, "hugepages-", 10)) ||
	    (name[0] == 'a' && !strncmp(name, "attachable-volumes-", 19)))
		return true;
	return strchr(name, '/') && !strstr(name, "kubernetes.io/");
}

/* cpu, memory or ephemeral-storage. */
static bool is_basic_resource(const char *name)
{
	switch (name[0]) {
	case 'c':
		return !strcmp(name, "cpu");
	case 'm':
		return !strcmp(name, "memory");
	case 'e':
		return !strcmp(name, "ephemeral-storage");
	default:
		return false;
	}
}

bool sl_resource_checked(const char *name)
{
	return is_basic_resource(name) || is_scalar_resource(name);
}

static bool request_all_zero(const struct sl_reslist *req)
{
	for (size_t i = 0; i < req->n; i++) {
		const char *nm = req->v[i].name;
		if (is_scalar_resource(nm))
			return false;
		if (req->v[i].amount && is_basic_resource(nm))
			return false;
	}
	return true;
}

bool sl_resources_short(struct sl_reasons *pool, const struct sl_podspec *p, const struct sl_node *n, int64_t placed,
			struct sl_nodefit *out)
{
	return sl_resources_short_why(pool, NULL, NULL, p, n, placed, out);
}

/* "Insufficient <name>" for p->request.v[k], joined at most once per why. */
static const char *insufficient(struct sl_reasons *pool, const char **why, const struct sl_podspec *p, size_t k)
{
	if (why && why[k])
		return why[k];
	const char *const parts[] = {"Insufficient ", p->request.v[k].name};
	const char *r = sl_reason_join(pool, parts, 2);
	if (why)
		why[k] = r;
	return r;
}

/* Whether n lacks room for one more pod asking req of nm, `placed` of them already there. */
static bool res_short(const struct sl_node *n, const char *nm, int64_t req, int64_t placed)
{
	int64_t need = sl_sat_add(sl_sat_add(req, sl_res_get(&n->used, nm)), sl_sat_mul(req, placed));
	return sl_res_get(&n->alloc, nm) < need;
}

static const char *const basic[] = {"cpu", "memory", "ephemeral-storage"};
/* The basic resources' reasons are static texts: no text built, no lock taken for them. */
static const char *const basic_reason[] = {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"};

/* Node i's allocatable and requested amount of the basic resource b (0 cpu, 1 memory, 2
 * ephemeral-storage) from cl's arrays, which hold what the node's lists do (node_loads), charged
 * alike; without cl (or for a scalar resource) looked up in the node's lists by name. */
static void amounts(const struct sl_cluster *cl, size_t i, const struct sl_node *n, size_t b, const char *nm,
		    int64_t *alloc, int64_t *used)
{
	if (cl && b < 3) {
		*alloc = b == 0 ? cl->alloc_cpu[i] : b == 1 ? cl->alloc_mem[i] : cl->alloc_eph[i];
		*used = b == 0 ? cl->used_cpu[i] : b == 1 ? cl->used_mem[i] : cl->used_eph[i];
		return;
	}
	*alloc = sl_res_get(&n->alloc, nm);
	*used = sl_res_get(&n->used, nm);
}

/* sl_resources_short_why from the requests r read once: the basic resources, then the scalar
 * ones in the pod's order, as the general loop takes them. With cl, n is its node i. */
static bool short_of(struct sl_reasons *pool, const char **why, const struct sl_podres *r, const struct sl_podspec *p,
		     const struct sl_node *n, const struct sl_cluster *cl, size_t node, int64_t placed,
		     struct sl_nodefit *out)
{
	bool short_ = false;
	const int64_t req[3] = {r->cpu, r->mem, r->eph};
	for (size_t i = 0; i < 3 + r->nscalar; i++) {
		const struct sl_res *e = i < 3 ? NULL : r->scalar[i - 3];
		int64_t q = e ? e->amount : req[i], alloc, used;
		amounts(cl, node, n, i, e ? e->name : basic[i], &alloc, &used);
		/* allocatable < request + requested + `placed` more */
		if (alloc >= sl_sat_add(sl_sat_add(q, used), sl_sat_mul(q, placed)))
			continue;
		if (!out)
			return true;
		short_ = true;
		/* Without a pool only the verdict counts (a what-if's): no text is built. */
		sl_nodefit_fail(out, SL_PL_NODE_RESOURCES_FIT,
				!e     ? basic_reason[i]
				: pool ? insufficient(pool, why, p, (size_t)(e - p->request.v))
				       : "Insufficient resources");
	}
	return short_;
}

/* sl_resources_short_why, and with cl of its node i (n) from its arrays: no name looked up. */
static bool short_why(struct sl_reasons *pool, const char **why, const struct sl_podres *r, const struct sl_podspec *p,
		      const struct sl_node *n, const struct sl_cluster *cl, size_t node, int64_t placed,
		      struct sl_nodefit *out)
{
	bool short_ = false;
	if (cl ? placed + 1 > cl->room[node] : n->npods + placed + 1 > n->max_pods) {
		if (!out)
			return true;
		short_ = true;
		sl_nodefit_fail(out, SL_PL_NODE_RESOURCES_FIT, "Too many pods");
	}
	if (r && !r->many)
		return r->all_zero ? short_ : short_of(pool, why, r, p, n, cl, node, placed, out) || short_;
	if (request_all_zero(&p->request))
		return short_;
	for (size_t i = 0; i < 3 + p->request.n; i++) {
		const char *nm = i < 3 ? basic[i] : p->request.v[i - 3].name;
		if (i >= 3 && !is_scalar_resource(nm))
			continue;
		/* The pod's names are unique (resources.c adds by name): its own entry is the amount. */
		if (!res_short(n, nm, i < 3 ? sl_res_get(&p->request, nm) : p->request.v[i - 3].amount, placed))
			continue;
		if (!out)
			return true;
		short_ = true;
		sl_nodefit_fail(out, SL_PL_NODE_RESOURCES_FIT,
				i < 3  ? basic_reason[i]
				: pool ? insufficient(pool, why, p, i - 3)
				       : "Insufficient resources");
	}
	return short_;
}

bool sl_resources_short_why(struct sl_reasons *pool, const char **why, const struct sl_podres *r,
			    const struct sl_podspec *p, const struct sl_node *n, int64_t placed, struct sl_nodefit *out)
{
	return short_why(pool, why, r, p, n, NULL, 0, placed, out);
}

bool sl_resources_short_at(struct sl_reasons *pool, const char **why, const struct sl_podres *r,
			   const struct sl_podspec *p, const struct sl_cluster *cl, size_t i, int64_t placed,
			   struct sl_nodefit *out)
{
	return short_why(pool, why, r, p, cl->m->nodes[i], cl, i, placed, out);
}

int64_t sl_node_slots_of(const struct sl_podres *r, const struct sl_podspec *p, const struct sl_node *n,
			 const struct sl_nodefit *fit, const char **limit)
{
	if (r->many)
		return sl_node_slots(p, n, fit, limit);
	*limit = NULL;
	if (fit->plugin != SL_FITS && fit->plugin != SL_PL_NODE_RESOURCES_FIT)
		return 0;
	int64_t slots = n->max_pods - n->npods;
	if (slots < 0)
		slots = 0;
	*limit = "pods";
	if (r->all_zero)
		return slots;
	/* The general loop's order; a basic resource the pod names again among its entries gives
	 * the same count a second time, which never lowers the minimum. */
	const int64_t req[3] = {r->cpu, r->mem, r->eph};
	for (size_t i = 0; i < 3 + r->nscalar; i++) {
		const struct sl_res *e = i < 3 ? NULL : r->scalar[i - 3];
		const char *nm = e ? e->name : basic[i];
		int64_t q = e ? e->amount : req[i];
		int64_t free_ = sl_res_get(&n->alloc, nm) - sl_res_get(&n->used, nm);
		/* A zero request still fails on an overcommitted node (allocatable < requested). */
		int64_t s = q <= 0 ? (free_ < 0 ? 0 : INT64_MAX) : free_ <= 0 ? 0 : free_ / q;
		if (s < slots) {
			slots = s;
			*limit = nm;
		}
	}
	return slots;
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
	for (size_t i = 0; i < 3 + p->request.n; i++) {
		const char *nm = i < 3 ? basic[i] : p->request.v[i - 3].name;
		if (i >= 3 && !sl_resource_checked(nm))
			continue;
		const struct sl_res *own = i < 3 ? sl_res_find(&p->request, nm) : &p->request.v[i - 3];
		int64_t req = own ? own->amount : 0;
		int64_t free_ = sl_res_get(&n->alloc, nm) - sl_res_get(&n->used, nm);
		/* A zero request still fails on an overcommitted node (allocatable < requested). */
		int64_t s = req <= 0 ? (free_ < 0 ? 0 : INT64_MAX) : free_ <= 0 ? 0 : free_ / req;
		if (s < slots) {
			slots = s;
			*limit = own ? own->name : nm;
		}
	}
	return slots;
}

void sl_podres_init(struct sl_podres *r, const struct sl_podspec *p)
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

int64_t sl_node_capacity(const struct sl_cluster *c, const struct sl_podres *r, const struct sl_podspec *p, size_t i)
{
	const struct sl_node *nd = c->m->nodes[i];
	if (r->many) {
		struct sl_nodefit pass = {0};
		const char *limit;
		return sl_node_slots(p, nd, &pass, &limit);
	}
	int64_t slots = c->room[i] < 0 ? 0 : c->room[i];
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

#define NONZERO_CPU 100
#define NONZERO_MEM (200LL * 1024 * 1024)

int64_t sl_nonzero_request(const struct sl_podspec *p, const char *res)
{
	int64_t v = sl_res_get(&p->request, res);
	/* res is "cpu" or "memory": its first letter tells which. */
	return v ? v : res[0] == 'c' ? NONZERO_CPU : NONZERO_MEM;
}

void sl_node_resources_fit_prefilter(struct sl_cycle *cy)
{
	if (cy->fit)
		return; /* capacities do not change between generations */
	struct sl_fit_state *st = sl_xcalloc(1, sizeof *st);
	sl_podres_init(&st->res, cy->p);
	st->pcpu = sl_res_get(&cy->p->request, "cpu");
	st->pmem = sl_res_get(&cy->p->request, "memory");
	st->nzcpu = sl_nonzero_request(cy->p, "cpu");
	st->nzmem = sl_nonzero_request(cy->p, "memory");
	cy->fit = st;
}

void sl_node_resources_fit_release(struct sl_cycle *cy)
{
	if (!cy->fit)
		return;
	free(cy->fit);
	cy->fit = NULL;
}

/* Whether fit_count(req, free_) exceeds placed (placed >= 0): for a positive request, whether
 * placed + 1 of them fit in free_, compared by a product rather than a division per resource. */
static bool fits_more(int64_t req, int64_t free_, int64_t placed)
{
	int64_t need;
	if (req <= 0)
		return free_ >= 0 && placed < INT64_MAX;
	return free_ > 0 && !__builtin_mul_overflow(placed + 1, req, &need) && need <= free_;
}

/* placed < sl_node_capacity(c, r, p, i), for placed >= 0, without the capacity's divisions: the
 * filter asks it of every node a placement step looks at, once for each. */
static bool room_for_one_more(const struct sl_cluster *c, const struct sl_podres *r, const struct sl_podspec *p,
			      size_t i, int64_t placed)
{
	if (r->many)
		return placed < sl_node_capacity(c, r, p, i);
	if (placed >= c->room[i])
		return false;
	if (r->all_zero)
		return true;
	if (!fits_more(r->cpu, c->alloc_cpu[i] - c->used_cpu[i], placed) ||
	    !fits_more(r->mem, c->alloc_mem[i] - c->used_mem[i], placed) ||
	    !fits_more(r->eph, c->alloc_eph[i] - c->used_eph[i], placed))
		return false;
	const struct sl_node *nd = c->m->nodes[i];
	for (size_t k = 0; k < r->nscalar; k++) {
		const char *nm = r->scalar[k]->name;
		if (!fits_more(r->scalar[k]->amount, sl_res_get(&nd->alloc, nm) - sl_res_get(&nd->used, nm), placed))
			return false;
	}
	return true;
}

/* The filter with its reasons: the requests as the PreFilter read them, when it ran, not looked
 * up again per node. Kept out of line: the verdict alone, asked of every node a placement step
 * looks at, then saves no registers for it. */
__attribute__((noinline)) static bool fit_why(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	return !sl_resources_short_at(cy->pool, NULL, cy->fit ? &cy->fit->res : NULL, cy->p, cy->cl, node,
				      cy->placed[node], out);
}

bool sl_node_resources_fit_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	if (out)
		return fit_why(cy, node, out);
	/* Identical pods: the node holds as many as its capacity for them, whatever else is decided. */
	return room_for_one_more(cy->cl, &cy->fit->res, cy->p, node, cy->placed[node]);
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
	uint64_t left = (uint64_t)(alloc - req);
	/* 64 bits hold the product for any real node (the 128-bit division is a library call,
	 * taken for every node scored); the same quotient either way. */
	if (left <= UINT64_MAX / 100)
		return (int64_t)(left * 100 / (uint64_t)alloc);
	return (int64_t)((unsigned __int128)left * 100 / (uint64_t)alloc);
}

int64_t sl_resources_score(const struct sl_cycle *cy, size_t i)
{
	const struct sl_cluster *cl = cy->cl;
	const struct sl_fit_state *st = cy->fit;
	/* LeastAllocated over cpu and memory, with scoring's non-zero requests */
	int64_t acpu = cl->alloc_cpu[i], amem = cl->alloc_mem[i];
	int64_t next = (int64_t)cy->placed[i] + 1;
	int64_t rcpu = sl_sat_add(cl->nz_cpu[i], sl_sat_mul(next, st->nzcpu));
	int64_t rmem = sl_sat_add(cl->nz_mem[i], sl_sat_mul(next, st->nzmem));
	int64_t score = (sl_free_share(acpu, rcpu) + sl_free_share(amem, rmem)) / 2;
	/* NodeResourcesBalancedAllocation: 1 - the spread of the two fractions */
	double fc = acpu > 0 ? (double)sl_sat_add(cl->used_cpu[i], sl_sat_mul(next, st->pcpu)) / (double)acpu : 1;
	double fm = amem > 0 ? (double)sl_sat_add(cl->used_mem[i], sl_sat_mul(next, st->pmem)) / (double)amem : 1;
	if (fc > 1)
		fc = 1;
	if (fm > 1)
		fm = 1;
	return score + (int64_t)((1 - fabs(fc - fm) / 2) * 100);
}
