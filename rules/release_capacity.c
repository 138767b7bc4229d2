/* release-capacity — the workloads of one release, together, ask more of a resource than the nodes
 * they may use have free.
 *
 * Each workload alone may fit; a release is applied whole. For every resource (the pod count and
 * every resource a template requests) the workloads' pods still to place are a demand, each node's
 * allocatable less what its running pods request a supply, and a workload may draw only on the
 * nodes that pass its node-only filters (NodeUnschedulable, NodeName, TaintToleration,
 * NodeAffinity). If some set of workloads asks for more than the union of their nodes has, no
 * placement fits them all: Hall's condition. It is checked as a maximum flow (linter/base/flow.c) from
 * the workloads to groups of nodes (a node class of the cluster index, whose nodes those filters
 * judge alike; a node on its own where a template names nodes) to the sink; a flow short of the
 * demand is the proof, and the workloads the source still reaches in the residual graph, with the
 * nodes they may use, are the violating set. The bound treats a resource as divisible, so it holds
 * for every placement; packing pods of different sizes may fail earlier, which this does not
 * claim. A workload that does not fit alone keeps its own finding and takes no part here.
 *
 * The release itself (who takes part, the groups, the signatures, one resource's flow) is built
 * in release_common.c, which the other release files share; this file holds the check of the
 * totals, its report and --explain's picture, and runs the other bounds (release_domains.c) and
 * the order-dependent warning (release_order.c) after it. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/base/escape.h"
#include "../linter/base/flow.h"
#include "../linter/model/quantity.h"
#include "release.h"
#include "rules.h"

static void note_demand(struct sl_finding *f, const struct sl_release *r, const struct sl_workload *w, int64_t pods,
			const char *res)
{
	char ref[512], each[48], all[48];
	sl_object_ref(&w->obj, ref, sizeof ref);
	sl_format_amount(res, sl_release_request(r, w, res), each, sizeof each);
	sl_format_amount(res, sl_sat_mul(pods, sl_release_request(r, w, res)), all, sizeof all);
	sl_note(f, "%s: %lld pod%s to place × %s %s = %s", ref, (long long)pods, pods == 1 ? "" : "s", each, res, all);
}

/* The nodes of the violating set: a note and a related location each (SL_RELEASE_NAMED of them). */
static void note_nodes(struct sl_finding *f, const struct sl_release *r, const bool *used, const char *res)
{
	size_t listed = 0;
	for (size_t n = 0; n < r->m->nnodes; n++) {
		if (!used[r->group[n]] || listed++ >= SL_RELEASE_NAMED)
			continue;
		const struct sl_node *nd = r->m->nodes[n];
		char al[48], fr[48];
		sl_format_amount(res, !strcmp(res, "pods") ? nd->max_pods : sl_res_get(&nd->alloc, res), al, sizeof al);
		sl_format_amount(res, sl_release_free_of(r, n, res), fr, sizeof fr);
		if (!strncmp(res, SL_DRA_RES_PREFIX, sizeof SL_DRA_RES_PREFIX - 1))
			sl_note(f, "node %s: %s %s free (reached, and held by no claim)", nd->name, fr, res);
		else
			sl_note(f, "node %s: %s %s allocatable, %s free beside its running pods", nd->name, al, res,
				fr);
		if (nd->name_node)
			sl_add_related(f, &nd->name_node->at, "node %s: %s %s free", nd->name, fr, res);
	}
	if (listed > SL_RELEASE_NAMED)
		sl_note(f, "and %zu more nodes", listed - SL_RELEASE_NAMED);
}

/* A violating set: the workloads of the signatures the source reaches in the residual graph (in),
 * the groups they may use (used), what they ask (demand) and what those groups have free (free)
 * and what running pods of lower priority hold there (evict). */
struct short_set {
	bool *in, *used;
	size_t nin;
	int64_t demand, free, evict;
	bool *pools;      /* with a flow over the pools: the pools the set may use */
	int64_t pool_add; /* what they add of the resource at most; -1: no bound */
};

static void short_set(struct sl_release *r, const char *res, const struct sl_release_flow *rf, struct short_set *v)
{
	bool *reach = sl_xcalloc(rf->g.n + 1, sizeof *reach);
	sl_flow_reach(&rf->g, 0, reach);
	*v = (struct short_set){
	    sl_xcalloc(r->nw + 1, sizeof *v->in), sl_xcalloc(r->ngroups + 1, sizeof *v->used), 0, 0, 0, 0, NULL, 0};
	for (size_t i = 0; i < r->nw; i++)
		if (reach[1 + r->sig[i]] && r->pods[i] > 0 && sl_release_request(r, r->w[i], res) > 0) {
			v->in[i] = true;
			v->demand = sl_sat_add(v->demand, sl_sat_mul(r->pods[i], sl_release_request(r, r->w[i], res)));
			v->nin++;
		}
	for (size_t k = 0; k < r->ngroups; k++)
		v->used[k] = reach[1 + r->nsigs + k];
	if (rf->g.n > 2 + r->nsigs + r->ngroups) { /* the flow over the pools */
		v->pools = sl_xcalloc(r->npools + 1, sizeof *v->pools);
		for (size_t p = 0; p < r->npools; p++)
			if ((v->pools[p] = reach[1 + r->nsigs + r->ngroups + p])) {
				int64_t add = rf->supply[r->ngroups + p];
				v->pool_add = v->pool_add < 0 || add == SL_FLOW_INF ? -1 : sl_sat_add(v->pool_add, add);
			}
	}
	for (size_t n = 0; n < r->m->nnodes; n++)
		if (v->used[r->group[n]]) {
			v->free = sl_sat_add(v->free, sl_release_free_of(r, n, res));
			v->evict = sl_sat_add(v->evict, sl_release_evictable_of(r, n, res));
		}
	free(reach);
}

static void short_set_free(struct short_set *v)
{
	free(v->in);
	free(v->used);
	free(v->pools);
}

/* The headline: short in any placement (an error: even what preemption could evict would not
 * make the room), or only unless preemption evicts running pods of lower priority (a warning). */
static struct sl_finding *report_head(struct sl_release *r, const char *res, const struct short_set *v,
				      bool by_preemption, size_t nnodes, size_t first)
{
	char kinds[64], dem[48], sup[48], ev[48];
	sl_release_kinds(r, v->in, kinds, sizeof kinds);
	sl_format_amount(res, v->demand, dem, sizeof dem);
	sl_format_amount(res, v->free, sup, sizeof sup);
	sl_format_amount(res, v->evict, ev, sizeof ev);
	struct sl_buf who = SL_BUF_INIT, held = SL_BUF_INIT;
	sl_release_names(r, v->in, v->nin, &who);
	if (v->evict > 0)
		sl_buf_printf(&held, " (and %s more held by running pods of lower priority)", ev);
	if (v->pools) {
		char add[48];
		sl_format_amount(res, v->pool_add, add, sizeof add);
		sl_buf_printf(&held, ", and the node pools that admit them add at most %s %s on new nodes", add, res);
	}
	const struct sl_workload *w0 = r->w[first];
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, w0->replicas_node,
	    "%s %s need %s %s together on the %zu node%s they may use, which %s %s free%s: %s", kinds, who.s, dem, res,
	    nnodes, nnodes == 1 ? "" : "s", nnodes == 1 ? "has" : "have", sup, sl_buf_str(&held),
	    by_preemption  ? "all of their pods run only if the scheduler's preemption evicts some of those"
	    : v->evict > 0 ? "not all of their pods can run at once, in any placement, even with every such pod evicted"
			   : "not all of their pods can run at once, in any placement");
	if (by_preemption && f->level > SL_WARNING)
		f->level = SL_WARNING;
	sl_buf_free(&who);
	sl_buf_free(&held);
	return f;
}

/* The running pods of lower priority that hold res on the nodes of a violating set: the victims
 * preemption may choose among, named (SL_RELEASE_NAMED of them). */
struct victims {
	const struct sl_release *r;
	const bool *used;
	const char *res;
	struct sl_buf b;
	size_t n;
};

static void add_victim(void *ctx, const struct sl_pod *p, size_t node)
{
	struct victims *v = ctx;
	bool holds = !strcmp(v->res, "pods") || sl_res_get(&p->spec.request, v->res) > 0;
	if (!v->used[v->r->group[node]] || !holds || !sl_release_evictable(v->r, p))
		return;
	if (v->n++ < SL_RELEASE_NAMED) {
		sl_buf_printf(&v->b, "%s%s/%s on %s (priority ", v->n > 1 ? ", " : "", p->obj.namespace, p->obj.name,
			      v->r->m->nodes[node]->name);
		if (p->spec.prio_from == SL_PRIO_UNKNOWN)
			sl_buf_printf(&v->b, "not known: class %s is not among the inputs)", p->spec.priority_class);
		else
			sl_buf_printf(&v->b, "%lld)", (long long)p->spec.priority);
	}
}

static void note_victims(struct sl_finding *f, const struct sl_release *r, const bool *used, const char *res)
{
	struct victims v = {r, used, res, SL_BUF_INIT, 0};
	sl_each_running_pod(r->cx->cluster, add_victim, &v);
	if (v.n > SL_RELEASE_NAMED)
		sl_buf_printf(&v.b, " and %zu more", v.n - SL_RELEASE_NAMED);
	if (v.n)
		sl_note(f, "running pods of lower priority than a workload here, which its pods may preempt: %s",
			v.b.s);
	sl_buf_free(&v.b);
}

/* Each pool the set may use: what it adds at most and why no more (its limits, its maximum size);
 * each other pool: why it refuses the first of them; with a related location on the pool. */
static void note_pools_short(struct sl_finding *f, const struct sl_release *r, const struct short_set *v,
			     const char *res)
{
	size_t first = 0;
	while (first < r->nw && !v->in[first])
		first++;
	struct sl_pool_fit *pf = r->npools && first < r->nw ? sl_xcalloc(r->npools, sizeof *pf) : NULL;
	if (pf)
		sl_pools_judge(r->m, &r->w[first]->pod, pf);
	for (size_t p = 0; p < r->npools; p++) {
		if (!v->pools || !v->pools[p]) {
			/* A pool none of them may use: why, for the first of them. */
			if (pf && !pf[p].admits) {
				const struct sl_pool *pool = pf[p].pool;
				sl_note(f, "%s %s: %s", sl_pool_kind(pool), pool->obj.name, pf[p].text);
				sl_add_related(f, &pool->obj.name_node->at, "%s %s: %s", sl_pool_kind(pool),
					       pool->obj.name, pf[p].text);
			}
			continue;
		}
		const struct sl_pool *pool = r->m->pools[p];
		int64_t add = sl_pool_supply(r->m, pool, res);
		char amt[48], lim[48] = "";
		sl_format_amount(res, add, amt, sizeof amt);
		const struct sl_res *l = sl_res_find(&pool->limits, res);
		if (l)
			sl_format_amount(res, l->amount, lim, sizeof lim);
		char why[160];
		if (l)
			snprintf(why, sizeof why,
				 "its limits allow %s %s, its nodes of the inventory count against them", lim, res);
		else if (pool->kind == SL_POOL_GROUP && pool->max >= 0)
			snprintf(why, sizeof why, "max node group size %lld, %lld in the inventory",
				 (long long)pool->max, (long long)sl_pool_members(r->m, pool));
		else
			snprintf(why, sizeof why, "its node limit");
		sl_note(f, "%s %s adds at most %s %s on new nodes (%s)", sl_pool_kind(pool), pool->obj.name, amt, res,
			why);
		sl_add_related(f, &pool->obj.name_node->at, "%s %s: at most %s %s more", sl_pool_kind(pool),
			       pool->obj.name, amt, res);
	}
	free(pf);
}

/* What a new node of the pool holds: its template's allocatable, or one of its nodes' (*like);
 * NULL when not known. */
static const struct sl_reslist *pool_node_size(const struct sl_pool *pool, const struct sl_node **like)
{
	if (pool->alloc_known)
		return &pool->alloc;
	if (!pool->nmembers)
		return NULL;
	*like = pool->members[0];
	return &pool->members[0]->alloc;
}

/* The nodes fall short and the pools cover it (flow pf, every demand met): a note on the set short
 * on the nodes (rf), naming what each pool takes on new nodes. */
static void report_scale_up(struct sl_release *r, const char *res, const struct sl_release_flow *rf,
			    const struct sl_release_flow *pf)
{
	struct short_set v;
	short_set(r, res, rf, &v);
	size_t first = (size_t)-1;
	for (size_t i = 0; i < r->nw && first == (size_t)-1; i++)
		if (v.in[i])
			first = i;
	if (v.nin < 2) { /* one workload alone short is its own rule's finding */
		short_set_free(&v);
		return;
	}
	char kinds[64], dem[48], sup[48];
	sl_release_kinds(r, v.in, kinds, sizeof kinds);
	sl_format_amount(res, v.demand, dem, sizeof dem);
	sl_format_amount(res, v.free, sup, sizeof sup);
	struct sl_buf who = SL_BUF_INIT;
	sl_release_names(r, v.in, v.nin, &who);
	const struct sl_workload *w0 = r->w[first];
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, w0->replicas_node,
	    "%s %s need %s %s together and the nodes they may use have %s free: the rest would be placed on new "
	    "nodes of the node pools that admit them",
	    kinds, who.s, dem, res, sup);
	f->level = SL_NOTE;
	sl_buf_free(&who);
	size_t t = 1 + r->nsigs + r->ngroups + r->npools;
	for (size_t e = 0; e < pf->g.ne; e += 2) {
		size_t to = pf->g.e[e].to, from = pf->g.e[e + 1].to;
		if (to != t || from < 1 + r->nsigs + r->ngroups || pf->g.e[e + 1].cap <= 0)
			continue;
		const struct sl_pool *pool = r->m->pools[from - 1 - r->nsigs - r->ngroups];
		char amt[48], size[400] = "";
		int64_t got = pf->g.e[e + 1].cap;
		sl_format_amount(res, got, amt, sizeof amt);
		const struct sl_node *like = NULL;
		const struct sl_reslist *alloc = pool_node_size(pool, &like);
		int64_t per = !alloc ? 0 : !strcmp(res, "pods") ? sl_res_get(alloc, "pods") : sl_res_get(alloc, res);
		if (per > 0) {
			char each[48];
			int64_t k = got / per + (got % per != 0);
			sl_format_amount(res, per, each, sizeof each);
			snprintf(size, sizeof size, " (%lld new node%s at least, of %s %s each, as %s%.200s%s)",
				 (long long)k, k == 1 ? "" : "s", each, res, like ? "node " : "its template",
				 like ? like->name : "", like ? " of the pool" : "");
		}
		sl_note(f, "%s %s: %s %s of it on new nodes%s", sl_pool_kind(pool), pool->obj.name, amt, res, size);
		sl_add_related(f, &pool->obj.name_node->at, "%s %s would add nodes for them", sl_pool_kind(pool),
			       pool->obj.name);
	}
	short_set_free(&v);
}

/* The violating set v, reported at the first of its workloads. */
static void report(struct sl_release *r, const char *res, const struct short_set *v, bool by_preemption)
{
	size_t first = (size_t)-1, nnodes = 0;
	for (size_t i = 0; i < r->nw; i++)
		if (v->in[i]) {
			first = first == (size_t)-1 ? i : first;
			r->broken[i] = true;
		}
	for (size_t g = 0; g < r->ngroups; g++)
		nnodes += v->used[g] ? r->nodes_in[g] : 0;
	struct sl_finding *f = report_head(r, res, v, by_preemption, nnodes, first);
	for (size_t i = 0, k = 0; i < r->nw && k < SL_RELEASE_NAMED; i++)
		if (v->in[i] && ++k)
			note_demand(f, r, r->w[i], r->pods[i], res);
	note_nodes(f, r, v->used, res);
	bool vols = false;
	for (size_t i = 0, k = 0; i < r->nw && k < SL_RELEASE_NAMED; i++)
		if (v->in[i] && ++k && r->w[i]->storage)
			vols |= sl_note_reach(f, r->w[i]);
	const char *also = vols ? ", and the volume filters of their claims" : "";
	if (v->evict > 0)
		note_victims(f, r, v->used, res);
	note_pools_short(f, r, v, res);
	if (by_preemption)
		sl_note(
		    f,
		    "each workload fits alone; together they ask for more than the nodes they may use have free, "
		    "and the scheduler's DefaultPreemption evicts running pods of lower priority for them: real "
		    "work lost on every release (Hall's condition, checked as a flow from the workloads to the node "
		    "classes they pass the node-only filters of%s, once with what those pods hold counted free)",
		    also);
	else
		sl_note(
		    f,
		    "each workload fits alone; together they ask for more than the nodes they may use have, so "
		    "some pods stay Pending whichever order they are placed in (Hall's condition, checked as a flow "
		    "from the workloads to the node classes they pass the node-only filters of%s)",
		    also);
	sl_note(f, "fix: lower the replicas or the requests so that the total fits, add capacity on those nodes, or "
		   "let some of these workloads use other nodes");
	int64_t room = by_preemption ? v->free : sl_sat_add(v->free, v->evict);
	sl_release_offer_copies(r, f, v->in, res, sl_release_copies_for(r, v->in, res, v->demand - room));
	for (size_t i = first + 1, k = 0; i < r->nw && k < SL_RELEASE_NAMED; i++)
		if (v->in[i] && ++k) {
			char ref[512];
			sl_object_ref(&r->w[i]->obj, ref, sizeof ref);
			const struct sl_ynode *at = r->w[i]->obj.kind_node ? r->w[i]->obj.kind_node : r->w[i]->obj.root;
			sl_add_related(f, &at->at, "%s competes for the same nodes", ref);
		}
}

/* One resource: demand against supply through the admissible groups; where a set is short, again
 * with what running pods of lower priority hold counted free (preemption's most): short even so,
 * an error; not, a warning that the release runs only by evicting them. */
static void check_resource(struct sl_release *r, const char *res)
{
	struct sl_release_flow rf, all;
	sl_release_flow(r, res, false, &rf);
	/* With pools that admit some of the workloads, the bound is the flow over the nodes and the
	 * pools; short on the nodes alone but not with them, the pools take the rest: a note. */
	if (rf.flow < rf.total && r->pools_admit) {
		r->pools_take = true;
		struct sl_release_flow pf;
		sl_release_flow_pools(r, res, false, &pf);
		bool covered = pf.flow >= pf.total;
		if (covered)
			report_scale_up(r, res, &rf, &pf);
		sl_release_flow_free(&rf);
		rf = pf;
	}
	if (rf.flow < rf.total) {
		bool by_preemption = false;
		struct short_set v;
		if (r->evictable) {
			if (r->pools_admit)
				sl_release_flow_pools(r, res, true, &all);
			else
				sl_release_flow(r, res, true, &all);
			by_preemption = all.flow >= all.total;
			short_set(r, res, by_preemption ? &rf : &all, &v);
			sl_release_flow_free(&all);
		} else
			short_set(r, res, &rf, &v);
		/* One workload alone short is its own rule's finding (it took no part unless it fit). */
		if (v.nin > 1)
			report(r, res, &v, by_preemption);
		short_set_free(&v);
	}
	sl_release_flow_free(&rf);
}

/* --explain: what flows from signature `from` into group k, for each such edge with flow: fn. */
static void each_take(const struct sl_release *r, const struct sl_release_flow *rf, size_t k,
		      void (*fn)(void *ctx, size_t sig, int64_t flow), void *ctx)
{
	for (size_t e = 0; e < rf->g.ne; e += 2) {
		size_t to = rf->g.e[e].to, from = rf->g.e[e + 1].to;
		/* The reverse edge's capacity is the flow. */
		if (to == 1 + r->nsigs + k && from >= 1 && from <= r->nsigs && rf->g.e[e + 1].cap > 0)
			fn(ctx, from - 1, rf->g.e[e + 1].cap);
	}
}

struct take_text {
	const struct sl_release *r;
	const char *res;
	struct sl_buf *who;
	int64_t in;
};

static void take_text(void *ctx, size_t sig, int64_t flow)
{
	struct take_text *t = ctx;
	char a[48];
	sl_format_amount(t->res, flow, a, sizeof a);
	t->in = sl_sat_add(t->in, flow);
	size_t listed = 0;
	for (size_t i = 0; i < t->r->nw; i++)
		if (t->r->sig[i] == sig && listed++ < 3)
			sl_buf_printf(t->who, "%s%s/%s", listed == 1 ? (t->who->len ? "; " : "") : "+",
				      t->r->w[i]->obj.namespace, t->r->w[i]->obj.name);
	sl_buf_printf(t->who, "%s %s", listed > 3 ? "+…" : "", a);
}

struct take_json {
	const struct sl_release *r;
	cJSON *takes;
	int64_t in;
};

static void take_json(void *ctx, size_t sig, int64_t flow)
{
	struct take_json *t = ctx;
	t->in = sl_sat_add(t->in, flow);
	cJSON *o = cJSON_CreateObject(), *ws = cJSON_AddArrayToObject(o, "workloads");
	for (size_t i = 0; i < t->r->nw; i++)
		if (t->r->sig[i] == sig) {
			char ref[512];
			sl_object_ref(&t->r->w[i]->obj, ref, sizeof ref);
			cJSON_AddItemToArray(ws, cJSON_CreateString(ref));
		}
	cJSON_AddNumberToObject(o, "amount", (double)flow);
	cJSON_AddItemToArray(t->takes, o);
}

/* One node of each group, to name it by. */
static size_t *representatives(const struct sl_release *r)
{
	size_t *rep = sl_xcalloc(r->ngroups + 1, sizeof *rep);
	for (size_t n = r->m->nnodes; n-- > 0;)
		rep[r->group[n]] = n;
	return rep;
}

/* One resource's picture, per node group: what it has free, what flows into it from each set of
 * workloads (those written alike share their flow), and what is left; text into out, or JSON
 * into arr. */
static void explain_resource(struct sl_release *r, const char *res, struct sl_buf *out, cJSON *arr)
{
	struct sl_release_flow rf;
	sl_release_flow(r, res, false, &rf);
	size_t *rep = representatives(r);
	char dem[48], got[48];
	sl_format_amount(res, rf.total, dem, sizeof dem);
	sl_format_amount(res, rf.flow, got, sizeof got);
	cJSON *jr = NULL, *groups = NULL;
	if (rf.total > 0 && arr) {
		jr = cJSON_CreateObject();
		cJSON_AddStringToObject(jr, "resource", res);
		cJSON_AddNumberToObject(jr, "asked", (double)rf.total);
		cJSON_AddNumberToObject(jr, "fits", (double)rf.flow);
		groups = cJSON_AddArrayToObject(jr, "groups");
		cJSON_AddItemToArray(arr, jr);
	} else if (rf.total > 0) {
		sl_buf_puts(out, "  ");
		sl_esc_puts(out, res); /* --explain's text: names escaped for a terminal (escape.h) */
		sl_buf_printf(out, ": the workloads ask %s, at most %s fits%s\n", dem, got,
			      rf.flow < rf.total ? " (see release-capacity)" : "");
	}
	for (size_t k = 0; rf.total > 0 && k < r->ngroups; k++) {
		const char *name = r->m->nodes[rep[k]]->name;
		if (groups) {
			struct take_json tj = {r, cJSON_CreateArray(), 0};
			each_take(r, &rf, k, take_json, &tj);
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "node", name);
			cJSON_AddNumberToObject(o, "nodes", (double)r->nodes_in[k]);
			cJSON_AddNumberToObject(o, "free", (double)rf.supply[k]);
			cJSON_AddItemToObject(o, "takes", tj.takes);
			cJSON_AddNumberToObject(o, "left", (double)(rf.supply[k] - tj.in));
			cJSON_AddItemToArray(groups, o);
			continue;
		}
		struct sl_buf who = SL_BUF_INIT;
		struct take_text tt = {r, res, &who, 0};
		each_take(r, &rf, k, take_text, &tt);
		if (rf.supply[k] || tt.in) {
			char fr[48], left[48];
			sl_format_amount(res, rf.supply[k], fr, sizeof fr);
			sl_format_amount(res, rf.supply[k] - tt.in, left, sizeof left);
			sl_buf_puts(out, "    ");
			sl_esc_puts(out, name);
			sl_buf_printf(out, "%s (%zu node%s): %s free; takes ",
				      r->nodes_in[k] > 1 ? " and nodes like it" : "", r->nodes_in[k],
				      r->nodes_in[k] == 1 ? "" : "s", fr);
			sl_esc_puts(out, who.len ? sl_buf_str(&who) : "nothing");
			sl_buf_printf(out, "; left %s\n", left);
		}
		sl_buf_free(&who);
	}
	free(rep);
	sl_release_flow_free(&rf);
}

void sl_release_explain(const struct sl_model *m, struct sl_cluster *cl, const unsigned char *alone, const char *target,
			struct sl_buf *out, cJSON **json)
{
	struct sl_model_check cx = {m, NULL, SL_ERROR, cl, alone, NULL};
	struct sl_release r;
	if (sl_release_build(&r, &sl_rule_release_capacity, &cx)) {
		cJSON *arr = NULL, *o = NULL;
		if (json) {
			*json = cJSON_CreateObject();
			o = cJSON_AddObjectToObject(*json, "release");
			if (target)
				cJSON_AddStringToObject(o, "target", target);
			else
				cJSON_AddNullToObject(o, "target");
			cJSON_AddNumberToObject(o, "workloads", (double)r.nw);
			arr = cJSON_AddArrayToObject(o, "resources");
		} else {
			sl_buf_puts(out, target ? "Release of target " : "Release");
			sl_esc_puts(out, target ? target : "");
			sl_buf_printf(out,
				      ": %zu workloads together, on %zu node group%s (node classes, and nodes a "
				      "template names)\n",
				      r.nw, r.ngroups, r.ngroups == 1 ? "" : "s");
		}
		for (size_t k = 0; k < r.resources.n; k++)
			explain_resource(&r, r.resources.v[k], out, arr);
		sl_release_order_explain(&r, out, o);
	}
	sl_release_free(&r);
}

static void check_release(const struct sl_rule *self, struct sl_model_check *cx)
{
	struct sl_release *r = sl_release_get(self, cx);
	if (!r)
		return;
	for (size_t k = 0; k < r->resources.n; k++)
		check_resource(r, r->resources.v[k]);
	sl_release_domains(r);
	sl_release_ports(r);
	/* With a pool that admits some of the workloads, the order's finding is a note (it holds only
	 * while the pool adds no node): sl_release_order lowers it. When the nodes alone are short and
	 * the pools take the rest, new nodes come whatever the order, and that was said above. */
	if (!r->pools_take)
		sl_release_order(r);
}

const struct sl_rule sl_rule_release_capacity = {
    .id = "release-capacity",
    .name = "ReleaseExceedsCapacity",
    .summary = "Workloads that each fit alone ask together for more than the nodes they may use have.",
    .description = "All workloads of one target are taken together with the running pods: for the pod count and each "
		   "requested resource, a set of workloads whose admissible nodes (those that pass the node-only "
		   "filters for their pod) have less free than the set asks for cannot all run, in any placement "
		   "(Hall's condition, checked as a maximum flow over node classes); and workloads whose shared "
		   "required anti-affinity repels all of their pods (or that bind the same host port) cannot have "
		   "more pods than the topology domains (nodes) their nodes offer. The message names every competing "
		   "workload and the numbers.",
    .help = "Lower the replicas or the requests so that the total fits, add capacity on the nodes they share, or let "
	    "some of the workloads use other nodes.",
    .level = SL_ERROR,
    .needs_nodes = true,
    .check_model = check_release,
};
