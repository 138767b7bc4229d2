/* release_common.c — the release view the release files share, and nothing that reports: which
 * workloads of a target take part, the node groups and each workload's signature (the groups it
 * may use), one resource's flow over them, what a node has free and a pod asks, and the words the
 * messages share (kinds, names). release-capacity's checks (release_capacity.c, release_domains.c,
 * release_order.c, release_change.c) and rollout-deadlock's (release_rollouts.c) use it; it calls
 * none of them, so no two release files call each other. The release is built once per target
 * and shared through struct sl_shared (sl_release_get). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/base/flow.h"
#include "../linter/model/quantity.h"
#include "release.h"
#include "rules.h"

/* The index of key in pool, interning a copy when it is new (a map borrows its keys, and these
 * are built in a buffer that is reused). */
size_t sl_release_key_index(struct sl_strpool *pool, const char *key)
{
	sl_intern(pool, key);
	return sl_strmap_get(&pool->map, key);
}

/* Long-running workloads and bare Pods; a DaemonSet runs one pod per node, and Jobs finish. */
static bool takes_part(const struct sl_workload *w)
{
	return sl_long_running(w->obj.kind) || !strcmp(w->obj.kind, "Pod");
}

/* Node groups: the cluster's classes, and a group of its own for every node a taking-part
 * template names (its verdicts are per node). */
static void group_nodes(struct sl_release *r)
{
	const struct sl_model *m = r->m;
	struct sl_cluster *cl = r->cx->cluster;
	size_t n = m->nnodes;
	bool *ok = sl_xcalloc(n + 1, sizeof *ok), *own = sl_xcalloc(n + 1, sizeof *own);
	for (size_t i = 0; i < r->nw; i++) {
		/* A volume's node affinity may name nodes too (a local volume's hostname). */
		if (sl_judged_by_class(&r->w[i]->pod) && !r->w[i]->storage)
			continue;
		sl_node_only_verdicts(cl, &r->w[i]->pod, ok);
		sl_volume_admits(cl, r->w[i], ok);
		for (size_t k = 0; k < n; k++)
			own[k] |= ok[k];
	}
	r->group = sl_xcalloc(n + 1, sizeof *r->group);
	r->ngroups = sl_cluster_nclasses(cl);
	for (size_t k = 0; k < n; k++)
		r->group[k] = own[k] ? r->ngroups++ : sl_cluster_class(cl, k);
	r->nodes_in = sl_xcalloc(r->ngroups + 1, sizeof *r->nodes_in);
	for (size_t k = 0; k < n; k++)
		r->nodes_in[r->group[k]]++;
	free(ok);
	free(own);
}

/* The signature of verdicts ok (one per node): its index, a new one added. A signature is the
 * bitset of groups, as a string of hex digits for the map. */
static size_t signature_of(struct sl_release *r, const bool *ok, struct sl_strpool *sigs, unsigned char *bits,
			   char *hex, size_t *cap)
{
	size_t n = r->m->nnodes, len = (r->ngroups + 3) / 4;
	memset(bits, 0, len);
	for (size_t k = 0; k < n; k++)
		if (ok[k])
			bits[r->group[k] / 4] |= (unsigned char)(1u << (r->group[k] % 4));
	for (size_t j = 0; j < len; j++)
		hex[j] = "0123456789abcdef"[bits[j]];
	size_t id = sl_release_key_index(sigs, hex);
	if (id == r->nsigs) {
		sl_grow(&r->adm, cap, (r->nsigs + 1) * r->ngroups, sizeof *r->adm);
		for (size_t g = 0; g < r->ngroups; g++)
			r->adm[r->nsigs * r->ngroups + g] = bits[g / 4] >> (g % 4) & 1;
		r->nsigs++;
	}
	return id;
}

/* Each workload's signature, the set of groups it may use, shared by workloads written alike: the
 * flow has one vertex per signature, so its size is signatures × groups, not workloads × nodes.
 * A template judged by class is looked up by its static key (equal keys, equal verdicts), so
 * only one of each is judged node by node. */
static void sign(struct sl_release *r)
{
	size_t n = r->m->nnodes, len = (r->ngroups + 3) / 4, cap = 0;
	struct sl_strpool sigs = {0}, keys = {0};
	size_t *by_key = sl_xcalloc(r->nw + 1, sizeof *by_key);
	bool *ok = sl_xcalloc(n + 1, sizeof *ok);
	char *hex = sl_xcalloc(len + 1, 1);
	unsigned char *bits = sl_xcalloc(len + 1, 1);
	struct sl_buf key = SL_BUF_INIT;
	r->sig = sl_xcalloc(r->nw + 1, sizeof *r->sig);
	for (size_t i = 0; i < r->nw; i++) {
		const struct sl_podspec *p = &r->w[i]->pod;
		size_t k = (size_t)-1, before = keys.n;
		if (sl_judged_by_class(p) && !r->w[i]->storage) {
			sl_buf_reset(&key);
			sl_static_key(p, &key);
			k = sl_release_key_index(&keys, sl_buf_str(&key));
			if (keys.n == before) {
				r->sig[i] = by_key[k];
				continue;
			}
		}
		sl_node_only_verdicts(r->cx->cluster, p, ok);
		sl_volume_admits(r->cx->cluster, r->w[i], ok);
		r->sig[i] = signature_of(r, ok, &sigs, bits, hex, &cap);
		if (k != (size_t)-1)
			by_key[k] = r->sig[i];
	}
	free(by_key);
	free(ok);
	free(hex);
	free(bits);
	sl_buf_free(&key);
	sl_strpool_free(&sigs);
	sl_strpool_free(&keys);
}

/* The DeviceClass res names as a resource of the release, or NULL. */
/* Asked for every workload and node of a release, per resource: the first byte rules out most
 * names (cpu, memory, a vendor's domain) without a call. */
static const char *device_class(const char *res)
{
	size_t k = sizeof SL_DRA_RES_PREFIX - 1;
	return res[0] != SL_DRA_RES_PREFIX[0] || strncmp(res, SL_DRA_RES_PREFIX, k) ? NULL : res + k;
}

static bool is_pods(const char *res)
{
	return res[0] == 'p' && !strcmp(res, "pods");
}

int64_t sl_release_free_of(const struct sl_release *r, size_t node, const char *res)
{
	const struct sl_node *n = r->m->nodes[node];
	const char *cls = device_class(res);
	int64_t v = cls            ? sl_dra_class_free(r->cx->cluster, node, cls)
		    : is_pods(res) ? n->max_pods - n->npods
				   : sl_res_get(&n->alloc, res) - sl_res_get(&n->used, res);
	return v > 0 ? v : 0;
}

int64_t sl_release_request(const struct sl_release *r, const struct sl_workload *w, const char *res)
{
	const char *cls = device_class(res);
	return cls ? sl_dra_class_request(r->m, &w->pod, cls) : is_pods(res) ? 1 : sl_res_get(&w->pod.request, res);
}

/* "Deployments" when every workload in `in` is one, "workloads" otherwise. */
void sl_release_kinds(const struct sl_release *r, const bool *in, char *out, size_t n)
{
	const char *kind = NULL;
	bool same = true;
	for (size_t i = 0; i < r->nw; i++)
		if (in[i]) {
			same &= !kind || !strcmp(kind, r->w[i]->obj.kind);
			kind = kind ? kind : r->w[i]->obj.kind;
		}
	snprintf(out, n, "%ss", same && kind ? kind : "workload");
}

/* "ns/a, ns/b and ns/c", or the first SL_RELEASE_NAMED and how many more. */
void sl_release_names(const struct sl_release *r, const bool *in, size_t nin, struct sl_buf *b)
{
	for (size_t i = 0, k = 0; i < r->nw && k < SL_RELEASE_NAMED; i++) {
		if (!in[i])
			continue;
		const char *sep = k == 0 ? "" : k + 1 == nin ? " and " : ", ";
		sl_buf_printf(b, "%s%s/%s", sep, r->w[i]->obj.namespace, r->w[i]->obj.name);
		k++;
	}
	if (nin > SL_RELEASE_NAMED)
		sl_buf_printf(b, " and %zu more", nin - SL_RELEASE_NAMED);
}

/* Resource res's demand per signature into out (nsigs). */
static void sum_demand(const struct sl_release *r, const char *res, int64_t *out)
{
	for (size_t i = 0; i < r->nw; i++) {
		int64_t d = sl_sat_mul(r->pods[i], sl_release_request(r, r->w[i], res));
		out[r->sig[i]] = sl_sat_add(out[r->sig[i]], d > 0 ? d : 0);
	}
}

/* Resource res's free room per group into room (ngroups), and, with ev (its id in resources),
 * what evictable pods hold of it per group into evict. */
static void sum_supply(const struct sl_release *r, const char *res, size_t ev, int64_t *room, int64_t *evict)
{
	for (size_t n = 0; n < r->m->nnodes; n++) {
		room[r->group[n]] = sl_sat_add(room[r->group[n]], sl_release_free_of(r, n, res));
		if (ev != (size_t)-1)
			evict[r->group[n]] = sl_sat_add(evict[r->group[n]], r->evictable[n * r->resources.n + ev]);
	}
}

/* The sums every flow of resource id starts from, made at its first. */
static void cache_sums(struct sl_release *r, size_t id)
{
	size_t nres = r->resources.n;
	if (!r->demand_of) {
		r->demand_of = sl_xcalloc(nres + 1, sizeof *r->demand_of);
		r->supply_of = sl_xcalloc(nres + 1, sizeof *r->supply_of);
		r->evict_of = sl_xcalloc(nres + 1, sizeof *r->evict_of);
	}
	if (r->demand_of[id])
		return;
	const char *res = r->resources.v[id];
	r->demand_of[id] = sl_xcalloc(r->nsigs + 1, sizeof **r->demand_of);
	r->supply_of[id] = sl_xcalloc(r->ngroups + 1, sizeof **r->supply_of);
	r->evict_of[id] = sl_xcalloc(r->ngroups + 1, sizeof **r->evict_of);
	sum_demand(r, res, r->demand_of[id]);
	sum_supply(r, res, r->evictable ? id : (size_t)-1, r->supply_of[id], r->evict_of[id]);
}

/* One resource: demand against supply through the admissible groups, and the pools when asked.
 * Vertices: the source, one per signature, one per group, one per pool (with pools), the sink.
 * Room and evictable pods sum apart: both are at least 0, so the saturating sums are the same. */
static void flow(struct sl_release *r, const char *res, bool evictions, bool pools, struct sl_release_flow *rf)
{
	size_t np = pools ? r->npools : 0, s = 0, t = 1 + r->nsigs + r->ngroups + np;
	sl_flow_init(&rf->g, t + 1);
	rf->demand = sl_xcalloc(r->nsigs + 1, sizeof *rf->demand);
	rf->supply = sl_xcalloc(r->ngroups + np + 1, sizeof *rf->supply);
	rf->total = 0;
	/* A resource of the release (all that are asked) by its id, its sums made once. */
	size_t id = sl_strmap_get(&r->resources.map, res);
	int64_t *evict = NULL;
	if (id != (size_t)-1) {
		cache_sums(r, id);
		memcpy(rf->demand, r->demand_of[id], r->nsigs * sizeof *rf->demand);
		memcpy(rf->supply, r->supply_of[id], r->ngroups * sizeof *rf->supply);
		evict = evictions && r->evictable ? r->evict_of[id] : NULL;
	} else {
		sum_demand(r, res, rf->demand);
		sum_supply(r, res, (size_t)-1, rf->supply, NULL);
	}
	for (size_t k = 0; evict && k < r->ngroups; k++)
		rf->supply[k] = sl_sat_add(rf->supply[k], evict[k]);
	for (size_t q = 0; q < r->nsigs; q++) {
		if (rf->demand[q] > 0) {
			rf->total = sl_sat_add(rf->total, rf->demand[q]);
			sl_flow_add(&rf->g, s, 1 + q, rf->demand[q]);
		}
		/* Every signature reaches its groups, demand or not: a rollout's surge may start there. */
		for (size_t k = 0; k < r->ngroups; k++)
			if (r->adm[q * r->ngroups + k])
				sl_flow_add(&rf->g, 1 + q, 1 + r->nsigs + k, SL_FLOW_INF);
		for (size_t p = 0; p < np; p++)
			if (r->padm[q * np + p])
				sl_flow_add(&rf->g, 1 + q, 1 + r->nsigs + r->ngroups + p, SL_FLOW_INF);
	}
	for (size_t p = 0; p < np; p++) {
		int64_t add = sl_pool_supply(r->m, r->m->pools[p], res);
		rf->supply[r->ngroups + p] = add < 0 ? SL_FLOW_INF : add;
	}
	for (size_t k = 0; k < r->ngroups + np; k++)
		if (rf->supply[k] > 0)
			sl_flow_add(&rf->g, 1 + r->nsigs + k, t, rf->supply[k]);
	rf->flow = rf->total > 0 ? sl_flow_max(&rf->g, s, t) : 0;
}

void sl_release_flow(struct sl_release *r, const char *res, bool evictions, struct sl_release_flow *rf)
{
	flow(r, res, evictions, false, rf);
}

void sl_release_flow_pools(struct sl_release *r, const char *res, bool evictions, struct sl_release_flow *rf)
{
	flow(r, res, evictions, true, rf);
}

void sl_release_flow_free(struct sl_release_flow *rf)
{
	sl_flow_free(&rf->g);
	free(rf->demand);
	free(rf->supply);
}

bool sl_release_evictable(const struct sl_release *r, const struct sl_pod *p)
{
	if (r->evict_below == INT64_MIN)
		return false;
	return p->spec.prio_from == SL_PRIO_UNKNOWN || p->spec.priority < r->evict_below;
}

int64_t sl_release_evictable_of(const struct sl_release *r, size_t k, const char *res)
{
	size_t id = r->evictable ? sl_strmap_get(&r->resources.map, res) : (size_t)-1;
	return id == (size_t)-1 ? 0 : r->evictable[k * r->resources.n + id];
}

static void add_evictable(void *ctx, const struct sl_pod *p, size_t node)
{
	struct sl_release *r = ctx;
	if (!sl_release_evictable(r, p))
		return;
	size_t nres = r->resources.n;
	if (!r->evictable)
		r->evictable = sl_xcalloc(r->m->nnodes * nres + 1, sizeof *r->evictable);
	int64_t *at = &r->evictable[node * nres];
	for (size_t k = 0; k < nres; k++) {
		const char *res = r->resources.v[k];
		at[k] = sl_sat_add(at[k], !strcmp(res, "pods") ? 1 : sl_res_get(&p->spec.request, res));
	}
}

/* The priority below which a running pod may be a victim of some pod of the release, and what
 * such pods hold, node by node. */
static void find_evictable(struct sl_release *r)
{
	r->evict_below = INT64_MIN;
	for (size_t i = 0; i < r->nw; i++) {
		const struct sl_podspec *p = &r->w[i]->pod;
		if (!p->preempts)
			continue;
		int64_t v = p->prio_from == SL_PRIO_UNKNOWN ? INT64_MAX : p->priority;
		r->evict_below = v > r->evict_below ? v : r->evict_below;
	}
	if (r->evict_below != INT64_MIN)
		sl_each_running_pod(r->cx->cluster, add_evictable, r);
}

/* Which pools admit a pod of which signature: a signature takes a pool when one of its workloads
 * does (its workloads pass the same node filters, not always the same pools). */
static void pool_admission(struct sl_release *r)
{
	size_t np = r->m->npools;
	if (!np)
		return;
	r->npools = np;
	r->padm = sl_xcalloc(r->nsigs * np + 1, sizeof *r->padm);
	struct sl_pool_fit *pf = sl_xcalloc(np, sizeof *pf);
	for (size_t i = 0; i < r->nw; i++) {
		sl_pools_judge(r->m, &r->w[i]->pod, pf);
		for (size_t p = 0; p < np; p++)
			if (pf[p].admits) {
				r->padm[r->sig[i] * np + p] = true;
				r->pools_admit = true;
			}
	}
	free(pf);
}

void sl_release_pools_weaken(const struct sl_release *r, struct sl_finding *f, const size_t *members, size_t n,
			     enum sl_level to)
{
	for (size_t p = 0; p < r->npools; p++)
		for (size_t k = 0; k < n; k++) {
			if (!r->padm[r->sig[members[k]] * r->npools + p])
				continue;
			const struct sl_pool *pool = r->m->pools[p];
			if (f->level > to)
				f->level = to;
			sl_note(
			    f,
			    "%s %s admits pods of %s/%s: this holds only while it adds no node for them (a new node "
			    "is another host, with room of its own)",
			    sl_pool_kind(pool), pool->obj.name, r->w[members[k]]->obj.namespace,
			    r->w[members[k]]->obj.name);
			sl_add_related(f, &pool->obj.name_node->at, "%s %s may add nodes for them", sl_pool_kind(pool),
				       pool->obj.name);
			return;
		}
}

/* The DeviceClasses w's pods take devices of through their claim templates, as resources of the
 * release (when the run judges devices at all). */
static void intern_device_classes(struct sl_release *r, const struct sl_workload *w)
{
	if (!sl_dra_indexed(r->cx->cluster))
		return;
	struct sl_buf b = SL_BUF_INIT;
	for (size_t j = 0; j < w->pod.nclaims; j++) {
		const struct sl_pod_claim *pc = &w->pod.claims[j];
		const struct sl_claim_template *t =
		    pc->template_name ? sl_dra_template(&r->m->dra, w->pod.namespace, pc->template_name) : NULL;
		for (size_t k = 0; t && k < t->spec.nrequests; k++) {
			const struct sl_dra_request *q = &t->spec.requests[k];
			if (q->nsub || q->all || !q->class_name)
				continue;
			b.len = 0;
			sl_buf_puts(&b, SL_DRA_RES_PREFIX);
			sl_buf_puts(&b, q->class_name);
			sl_intern(&r->resources, sl_buf_str(&b));
		}
	}
	sl_buf_free(&b);
}

bool sl_release_build(struct sl_release *r, const struct sl_rule *self, struct sl_model_check *cx)
{
	const struct sl_model *m = cx->model;
	memset(r, 0, sizeof *r);
	*r = (struct sl_release){.self = self, .cx = cx, .m = m, .change_left = SL_RELEASE_CHANGE_BUDGET};
	if (!cx->cluster || !m->nnodes)
		return false;
	r->w = sl_xcalloc(m->nworkloads + 1, sizeof *r->w);
	r->pods = sl_xcalloc(m->nworkloads + 1, sizeof *r->pods);
	r->index = sl_xcalloc(m->nworkloads + 1, sizeof *r->index);
	r->broken = sl_xcalloc(m->nworkloads + 1, sizeof *r->broken);
	sl_intern(&r->resources, "pods");
	for (size_t i = 0; i < m->nworkloads; i++) {
		const struct sl_workload *w = m->workloads[i];
		if (!takes_part(w) || (cx->alone[i] & SL_ALONE_SHORT) || w->replicas <= 0)
			continue;
		/* A workload whose pods all run asks for nothing more, but its rollout still needs room. */
		int64_t left = w->replicas - sl_own_running(cx->cluster, w);
		r->w[r->nw] = w;
		r->index[r->nw] = i;
		r->pods[r->nw++] = left > 0 ? left : 0;
		for (size_t k = 0; k < w->pod.request.n; k++)
			if (w->pod.request.v[k].amount > 0)
				sl_intern(&r->resources, w->pod.request.v[k].name);
		intern_device_classes(r, w);
	}
	if (r->nw < 2)
		return false;
	group_nodes(r);
	sign(r);
	find_evictable(r);
	pool_admission(r);
	return true;
}

void sl_release_free(struct sl_release *r)
{
	for (size_t k = 0; r->demand_of && k < r->resources.n; k++) {
		free(r->demand_of[k]);
		free(r->supply_of[k]);
		free(r->evict_of[k]);
	}
	free(r->demand_of);
	free(r->supply_of);
	free(r->evict_of);
	sl_strpool_free(&r->resources);
	free(r->w);
	free(r->pods);
	free(r->index);
	free(r->broken);
	free(r->evictable);
	free(r->group);
	free(r->adm);
	free(r->padm);
	free(r->nodes_in);
	free(r->sig);
}

static void release_destroy(void *p)
{
	sl_release_free(p);
	free(p);
}

struct sl_release *sl_release_get(const struct sl_rule *self, struct sl_model_check *cx)
{
	struct sl_release *r = cx->shared->release;
	if (!r) {
		r = sl_xcalloc(1, sizeof *r);
		if (!sl_release_build(r, self, cx))
			r->nw = 0; /* none: fewer than two take part */
		cx->shared->release = r;
		cx->shared->free_release = release_destroy;
	}
	/* Whoever reports now reports as itself, into its own findings. */
	r->self = self;
	r->cx = cx;
	return r->nw > 1 ? r : NULL;
}

void sl_release_note_found(struct sl_finding *f, const struct sl_model *m, const struct sl_workload *const *ws,
			   size_t nw, const struct sl_release_search *rs, const char *what)
{
	struct sl_buf b = SL_BUF_INIT;
	size_t listed = 0, more = 0;
	for (size_t k = 0; rs->at && k < rs->nnodes; k++) {
		size_t before = b.len;
		const char *sep = "";
		for (size_t i = 0; i < rs->nw && i <= nw; i++) {
			int64_t c = rs->at[i * rs->nnodes + k];
			if (c <= 0)
				continue;
			if (listed >= SL_RELEASE_NAMED) {
				more++;
				break;
			}
			if (!*sep)
				sl_buf_printf(&b, "%snode %s: ", before ? "; " : "", m->nodes[k]->name);
			const struct sl_workload *w = i < nw ? ws[i] : NULL;
			if (w)
				sl_buf_printf(&b, "%s%s/%s", sep, w->obj.namespace, w->obj.name);
			else
				sl_buf_printf(&b, "%sthe surge pod", sep);
			if (c > 1)
				sl_buf_printf(&b, " (%lld pods)", (long long)c);
			sep = ", ";
		}
		listed += b.len > before;
	}
	if (more)
		sl_buf_printf(&b, "; and %zu more nodes", more);
	sl_note(f, "%s (found by the search): %s", what, b.len ? sl_buf_str(&b) : "none");
	sl_buf_free(&b);
}
