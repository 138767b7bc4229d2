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

static void note_demand(struct sl_finding *f, const struct sl_workload *w, int64_t pods, const char *res)
{
	char ref[512], each[48], all[48];
	sl_object_ref(&w->obj, ref, sizeof ref);
	sl_format_amount(res, sl_release_request(w, res), each, sizeof each);
	sl_format_amount(res, sl_sat_mul(pods, sl_release_request(w, res)), all, sizeof all);
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
		sl_format_amount(res, sl_release_free_of(nd, res), fr, sizeof fr);
		sl_note(f, "node %s: %s %s allocatable, %s free beside its running pods", nd->name, al, res, fr);
		if (nd->name_node)
			sl_add_related(f, &nd->name_node->at, "node %s: %s %s free", nd->name, fr, res);
	}
	if (listed > SL_RELEASE_NAMED)
		sl_note(f, "and %zu more nodes", listed - SL_RELEASE_NAMED);
}

/* The violating set: the workloads of the signatures the source reaches in the residual graph
 * (in) and the groups they may use (used); reported at the first of them. */
static void report(struct sl_release *r, const char *res, const bool *in, const bool *used, int64_t demand,
		   int64_t supply)
{
	size_t nin = 0, first = (size_t)-1, nnodes = 0;
	for (size_t i = 0; i < r->nw; i++)
		if (in[i]) {
			first = first == (size_t)-1 ? i : first;
			nin++;
			r->broken[i] = true;
		}
	char kinds[64];
	sl_release_kinds(r, in, kinds, sizeof kinds);
	for (size_t g = 0; g < r->ngroups; g++)
		nnodes += used[g] ? r->nodes_in[g] : 0;
	const struct sl_workload *w0 = r->w[first];
	char dem[48], sup[48];
	sl_format_amount(res, demand, dem, sizeof dem);
	sl_format_amount(res, supply, sup, sizeof sup);
	struct sl_buf who = SL_BUF_INIT;
	sl_release_names(r, in, nin, &who);
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, w0->replicas_node,
	    "%s %s need %s %s together on the %zu node%s they may use, which %s %s free: not all of their pods "
	    "can run at once, in any placement",
	    kinds, who.s, dem, res, nnodes, nnodes == 1 ? "" : "s", nnodes == 1 ? "has" : "have", sup);
	sl_buf_free(&who);
	for (size_t i = 0, k = 0; i < r->nw && k < SL_RELEASE_NAMED; i++)
		if (in[i] && ++k)
			note_demand(f, r->w[i], r->pods[i], res);
	note_nodes(f, r, used, res);
	sl_note(f, "each workload fits alone; together they ask for more than the nodes they may use have, so some "
		   "pods stay Pending whichever order they are placed in (Hall's condition, checked as a flow from the "
		   "workloads to the node classes they pass the node-only filters of)");
	sl_note(f, "fix: lower the replicas or the requests so that the total fits, add capacity on those nodes, or "
		   "let some of these workloads use other nodes");
	sl_release_offer_copies(r, f, in, res, sl_release_copies_for(r, in, res, demand - supply));
	for (size_t i = first + 1, k = 0; i < r->nw && k < SL_RELEASE_NAMED; i++)
		if (in[i] && ++k) {
			char ref[512];
			sl_object_ref(&r->w[i]->obj, ref, sizeof ref);
			const struct sl_ynode *at = r->w[i]->obj.kind_node ? r->w[i]->obj.kind_node : r->w[i]->obj.root;
			sl_add_related(f, &at->at, "%s competes for the same nodes", ref);
		}
}

/* One resource: demand against supply through the admissible groups. */
static void check_resource(struct sl_release *r, const char *res)
{
	struct sl_release_flow rf;
	sl_release_flow(r, res, &rf);
	if (rf.flow < rf.total) {
		bool *reach = sl_xcalloc(rf.g.n + 1, sizeof *reach);
		sl_flow_reach(&rf.g, 0, reach);
		bool *in = sl_xcalloc(r->nw + 1, sizeof *in), *used = sl_xcalloc(r->ngroups + 1, sizeof *used);
		int64_t d = 0, sup = 0;
		size_t nin = 0;
		for (size_t i = 0; i < r->nw; i++)
			if (reach[1 + r->sig[i]] && r->pods[i] > 0 && sl_release_request(r->w[i], res) > 0) {
				in[i] = true;
				d = sl_sat_add(d, sl_sat_mul(r->pods[i], sl_release_request(r->w[i], res)));
				nin++;
			}
		for (size_t k = 0; k < r->ngroups; k++)
			if ((used[k] = reach[1 + r->nsigs + k]))
				sup = sl_sat_add(sup, rf.supply[k]);
		/* One workload alone short is its own rule's finding (it took no part unless it fit). */
		if (nin > 1)
			report(r, res, in, used, d, sup);
		free(in);
		free(used);
		free(reach);
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
	sl_release_flow(r, res, &rf);
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
