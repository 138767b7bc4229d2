/* release_rollouts.c — rollout-deadlock across the release: a rolling update that keeps every old
 * pod until a new one is Ready (maxUnavailable resolving to 0) needs room for its surge pod beside
 * all the pods of the release, not only its own. When the release fits (release_capacity.c's flow
 * meets every demand), the room left for a workload is the most that still flows from its
 * signature to the sink in the residual graph, never through the source (that would move pods
 * the release has placed). A surge asking for more than that fits in no placement of the release:
 * the divisible bound again, so it holds for every placement. A rollout that cannot start even
 * alone is rollout-deadlock's per-workload finding, and is not reported again.
 *
 * The room asked is for ONE surge pod, whatever maxSurge is: the Deployment controller scales the
 * old ReplicaSets down as soon as more pods are available than replicas - maxUnavailable
 * (scaleDownOldReplicaSetsForRollingUpdate in pkg/controller/deployment/rolling.go), so with
 * maxUnavailable 0 a single new pod that becomes Ready lets an old pod go, and its room takes the
 * next new pod (NewRSNewReplicas in pkg/controller/deployment/util/deployment_util.go only caps
 * the pods at replicas + maxSurge). A surge of 2 where only 1 fits is slower, not stuck: asking
 * room for every surge pod at once would be a false error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/model/quantity.h"
#include "edits.h"
#include "release.h"

/* What still flows from signature q to the sink once the release is placed. */
static int64_t room_left(const struct sl_release *r, const struct sl_release_flow *rf, size_t q)
{
	struct sl_flow g;
	sl_flow_copy(&g, &rf->g);
	for (size_t k = 0; k < g.ne; k++)
		if (g.e[k].to == 0)
			g.e[k].cap = 0; /* no way back through the source */
	int64_t room = sl_flow_max(&g, 1 + q, 1 + r->nsigs + r->ngroups);
	sl_flow_free(&g);
	return room;
}

/* The other workloads that may use a node w may use and ask for res. */
static void note_rivals(struct sl_finding *f, const struct sl_release *r, size_t self, const char *res)
{
	size_t q = r->sig[self], listed = 0;
	for (size_t i = 0; i < r->nw; i++) {
		if (i == self || sl_release_request(r, r->w[i], res) <= 0)
			continue;
		bool shares = false;
		for (size_t k = 0; k < r->ngroups && !shares; k++)
			shares = r->adm[q * r->ngroups + k] && r->adm[r->sig[i] * r->ngroups + k];
		if (!shares || listed++ >= SL_RELEASE_NAMED)
			continue;
		char ref[512], each[48];
		sl_object_ref(&r->w[i]->obj, ref, sizeof ref);
		sl_format_amount(res, sl_release_request(r, r->w[i], res), each, sizeof each);
		sl_note(f, "%s holds room there: %lld pod%s × %s %s", ref, (long long)r->pods[i],
			r->pods[i] == 1 ? "" : "s", each, res);
		sl_add_related(f, &(r->w[i]->obj.kind_node ? r->w[i]->obj.kind_node : r->w[i]->obj.root)->at,
			       "%s holds room on the same nodes", ref);
	}
	if (listed > SL_RELEASE_NAMED)
		sl_note(f, "and %zu more workloads", listed - SL_RELEASE_NAMED);
}

static void report(struct sl_release *r, size_t i, const char *res, int64_t surge, int64_t need, int64_t room)
{
	const struct sl_workload *w = r->w[i];
	char ref[512], n[48], left[48];
	sl_object_ref(&w->obj, ref, sizeof ref);
	sl_format_amount(res, need, n, sizeof n);
	sl_format_amount(res, room, left, sizeof left);
	const struct sl_ynode *at = w->max_unavailable.node ? w->max_unavailable.node : w->strategy_node;
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w->obj, at,
	    "rollout of %s can never finish beside the rest of the release: one surge pod needs %s %s, and once "
	    "the release's pods are placed the nodes it may use have %s left, in any placement; maxUnavailable 0 "
	    "keeps its old pods until a new one is Ready",
	    ref, n, res, left);
	if (surge > 1)
		sl_note(f,
			"maxSurge allows %lld surge pods at once, but one is enough for the rollout to go on (once it "
			"is Ready an old pod goes and frees its room); here not even one fits",
			(long long)surge);
	sl_note(f, "alone it would roll: the surge fits when the workload has the nodes to itself");
	note_rivals(f, r, i, res);
	sl_release_pools_weaken(r, f, &i, 1, SL_WARNING);
	sl_note(f, "fix: set strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (an old pod goes first, then its "
		   "replacement takes its place), or make room for the surge beside the release");
	sl_fix_rolling_params(sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace one pod at a time)"), w,
			      "0", "1");
}

/* A Deployment whose rollout waits for a surge pod: maxUnavailable 0, maxSurge at least 1. */
static int64_t surging(const struct sl_workload *w)
{
	int64_t surge, unavail;
	if (strcmp(w->obj.kind, "Deployment") || w->strategy != SL_STRATEGY_ROLLING || w->replicas <= 0)
		return 0;
	sl_fenceposts(w, &surge, &unavail);
	return unavail == 0 ? surge : 0;
}

/* What each group can still take: the residual capacity of its edge to the sink. */
static int64_t *residual_to_sink(const struct sl_release *r, const struct sl_release_flow *rf)
{
	size_t t = 1 + r->nsigs + r->ngroups;
	int64_t *left = sl_xcalloc(r->ngroups + 1, sizeof *left);
	for (size_t k = 0; k < rf->g.ne; k += 2) {
		size_t from = rf->g.e[k + 1].to;
		if (rf->g.e[k].to == t && from > r->nsigs && from < t)
			left[from - 1 - r->nsigs] = rf->g.e[k].cap;
	}
	return left;
}

/* The room left for a surge from signature q, at least `need` or exactly: what its groups can
 * still take directly answers at once when it is enough (the usual case); only short of it does
 * the flow run again, rerouting other workloads' pods to other nodes. direct: per signature, the
 * sum over its groups once summed (-1 before): the workloads of a signature share it, and summing
 * it again for each was most of this rule's own work on a large release. */
static int64_t room_for(const struct sl_release *r, const struct sl_release_flow *rf, const int64_t *left, size_t q,
			int64_t need, int64_t *direct)
{
	if (direct[q] < 0) {
		direct[q] = 0; /* a sum of residual capacities: never negative */
		for (size_t k = 0; k < r->ngroups; k++)
			if (r->adm[q * r->ngroups + k])
				direct[q] = sl_sat_add(direct[q], left[k]);
	}
	return direct[q] >= need ? direct[q] : room_left(r, rf, q);
}

/* A surge the bound leaves room for, but that the release placed as the scheduler would leaves no
 * node for, in input order and in reverse: a warning that says what blocks it, or an error when a
 * search over every placement of the release finds none that leaves it room. */
static void report_placed(struct sl_release *r, size_t i, int64_t surge, const char *blocks, const char *orders,
			  const struct sl_release_search *rs)
{
	const struct sl_workload *w = r->w[i];
	char ref[512], words[256];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (rs->verdict == SL_SEARCH_NONE)
		snprintf(words, sizeof words,
			 "and no placement of the release leaves it room: a search over every placement (%llu steps) "
			 "finds none",
			 (unsigned long long)rs->steps);
	else if (rs->verdict == SL_SEARCH_FOUND)
		snprintf(words, sizeof words,
			 "though some placement of the release leaves it room (a search over placements found one)");
	else if (rs->verdict == SL_SEARCH_GAVE_UP)
		snprintf(words, sizeof words,
			 "and no placement that leaves it room was found: the search over placements stopped after "
			 "%llu steps",
			 (unsigned long long)rs->steps);
	else
		snprintf(words, sizeof words,
			 "and no placement that leaves it room was found: placements were not searched (%s)", rs->why);
	const struct sl_ynode *at = w->max_unavailable.node ? w->max_unavailable.node : w->strategy_node;
	struct sl_finding *f;
	if (orders)
		f = sl_rule_report_object(
		    r->self, r->cx, &w->obj, at,
		    "rollout of %s %s finish beside the rest of the release: placed as the scheduler would, %s, the "
		    "release leaves no node for its surge pod (what blocks: %s), %s; maxUnavailable 0 keeps its old "
		    "pods "
		    "until a new one is Ready",
		    ref, rs->verdict == SL_SEARCH_NONE ? "can never" : "may never", orders, blocks, words);
	else /* placed as the scheduler would, the release itself leaves pods Pending in both orders */
		f = sl_rule_report_object(
		    r->self, r->cx, &w->obj, at,
		    "rollout of %s can never finish beside the rest of the release: no placement of "
		    "the release leaves room for its surge pod (a search over every placement, %llu "
		    "steps, finds none); maxUnavailable 0 keeps its old pods until a new one is Ready",
		    ref, (unsigned long long)rs->steps);
	if (rs->verdict != SL_SEARCH_NONE && f->level > SL_WARNING)
		f->level = SL_WARNING;
	if (surge > 1)
		sl_note(f,
			"maxSurge allows %lld surge pods at once, but one is enough for the rollout to go on; here "
			"not even one finds a node",
			(long long)surge);
	sl_note(f, "alone it would roll, and the release's totals leave room for the surge (the bound treats each "
		   "resource as divisible); pods do not come in pieces: room left in pieces by pods of different "
		   "sizes, or nodes and domains closed by anti-affinity, spread or host ports");
	if (rs->verdict == SL_SEARCH_FOUND)
		sl_release_note_found(f, r->m, r->w, r->nw, rs,
				      "a placement of the release that leaves the surge pod room");
	sl_release_pools_weaken(r, f, &i, 1, SL_WARNING);
	sl_note(f, "fix: set strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1 (an old pod goes first, then its "
		   "replacement takes its place), or make room for the surge beside the release");
	sl_fix_rolling_params(sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (replace one pod at a time)"), w,
			      "0", "1");
}

/* Whether some placement may run the release itself: not when a search proves none does. */
static bool release_may_fit(struct sl_release *r)
{
	struct sl_release_search rs;
	sl_release_search(r->cx->cluster, r->w, r->pods, r->nw, NULL, &rs);
	sl_release_search_free(&rs);
	return rs.verdict != SL_SEARCH_NONE;
}

/* The surging rollouts the bound found room for (cand), placed as the scheduler would place the
 * release: each surge pod after the whole release, in input order and in reverse. */
static void placed_surges(struct sl_release *r, const size_t *cand, size_t ncand)
{
	struct sl_release_placement p[2];
	signed char *fits = sl_xcalloc(2 * ncand + 1, sizeof *fits);
	struct sl_buf *why = sl_xcalloc(2 * ncand + 1, sizeof *why);
	memset(fits, -1, 2 * ncand);
	for (int o = 0; o < 2; o++) {
		struct sl_release_surges su = {cand, ncand, fits + o * ncand, why + o * ncand};
		sl_release_place_surges(r->m, r->w, r->pods, r->nw, o == 1, &su, &p[o]);
		sl_release_placement_free(&p[o]);
	}
	for (size_t j = 0; j < ncand; j++) {
		signed char in = fits[j], rev = fits[ncand + j];
		if (in == 1 || rev == 1)
			continue; /* room in some order */
		struct sl_release_search rs;
		if (in < 0 && rev < 0 && !release_may_fit(r))
			continue; /* no placement runs the release itself: release-capacity's error */
		sl_release_search(r->cx->cluster, r->w, r->pods, r->nw, r->w[cand[j]], &rs);
		/* The release itself left pods Pending in both orders (release-capacity's warning): only a
		 * proof that no placement leaves the surge room is news. */
		if (in >= 0 || rev >= 0 || rs.verdict == SL_SEARCH_NONE)
			report_placed(
			    r, cand[j], surging(r->w[cand[j]]), sl_buf_str(&why[in == 0 ? j : ncand + j]),
			    in < 0 && rev < 0 ? NULL
			    : in < 0  ? "in reverse order (in input order the release itself leaves pods Pending)"
			    : rev < 0 ? "in input order (in reverse order the release itself leaves pods Pending)"
				      : "in input order and in reverse",
			    &rs);
		sl_release_search_free(&rs);
	}
	for (size_t j = 0; j < 2 * ncand; j++)
		sl_buf_free(&why[j]);
	free(why);
	free(fits);
}

/* The surging rollouts the bound leaves room for, and that the placement may yet find none for:
 * placed unless the release with the surge pod places surely (sl_release_places_surely). */
static void check_placed(struct sl_release *r, const bool *reported, const unsigned char *alone)
{
	int64_t total = 1; /* the release and one surge pod */
	for (size_t i = 0; i < r->nw; i++)
		total = sl_sat_add(total, r->pods[i] > 0 ? r->pods[i] : 0);
	/* Larger than one placement places (sl_release_place would refuse it): nothing to ask, and
	 * asking sl_release_places_surely per rollout would cost the release's size each time. */
	if (sl_release_place_cost(r->m, r->w, r->nw, total) > SL_RELEASE_PLACE_BUDGET)
		return;
	size_t *cand = sl_xcalloc(r->nw + 1, sizeof *cand), ncand = 0;
	const struct sl_workload **ws = sl_xcalloc(r->nw + 2, sizeof *ws);
	int64_t *todo = sl_xcalloc(r->nw + 2, sizeof *todo);
	memcpy(ws, r->w, r->nw * sizeof *ws);
	memcpy(todo, r->pods, r->nw * sizeof *todo);
	for (size_t i = 0; i < r->nw; i++) {
		if (reported[i] || surging(r->w[i]) <= 0 || (alone[r->index[i]] & SL_ALONE_DEADLOCK))
			continue;
		ws[r->nw] = r->w[i];
		todo[r->nw] = 1;
		if (!sl_release_places_surely(r->cx->cluster, ws, todo, r->nw + 1))
			cand[ncand++] = i;
	}
	if (ncand)
		placed_surges(r, cand, ncand);
	free(ws);
	free(todo);
	free(cand);
}

void sl_release_rollouts(const struct sl_rule *self, struct sl_model_check *cx)
{
	struct sl_release *r = sl_release_get(self, cx);
	if (!r)
		return;
	bool *reported = sl_xcalloc(r->nw + 1, sizeof *reported);
	int64_t *room = sl_xcalloc(r->nsigs + 1, sizeof *room);
	bool *known = sl_xcalloc(r->nsigs + 1, sizeof *known), fits_all = true;
	int64_t *direct = sl_xcalloc(r->nsigs + 1, sizeof *direct);
	for (size_t k = 0; k < r->resources.n; k++) {
		const char *res = r->resources.v[k];
		struct sl_release_flow rf;
		sl_release_flow(r, res, true, &rf);
		int64_t *left = residual_to_sink(r, &rf);
		memset(known, 0, r->nsigs * sizeof *known);
		for (size_t q = 0; q < r->nsigs; q++)
			direct[q] = -1;
		for (size_t i = 0; rf.flow >= rf.total && i < r->nw; i++) {
			/* Room for one surge pod, not maxSurge of them (see the head of this file). */
			int64_t surge = surging(r->w[i]), need = surge > 0 ? sl_release_request(r, r->w[i], res) : 0;
			if (reported[i] || need <= 0 || (cx->alone[r->index[i]] & SL_ALONE_DEADLOCK))
				continue;
			size_t q = r->sig[i];
			/* A room found by the full flow is exact; a direct one only says "enough". */
			int64_t here = known[q] ? room[q] : room_for(r, &rf, left, q, need, direct);
			if (here < need && !known[q]) {
				room[q] = here;
				known[q] = true;
			}
			if (need > here) {
				report(r, i, res, surge, need, here);
				reported[i] = true;
			}
		}
		fits_all &= rf.flow >= rf.total;
		free(left);
		sl_release_flow_free(&rf);
	}
	if (fits_all)
		check_placed(r, reported, cx->alone);
	free(known);
	free(direct);
	free(room);
	free(reported);
}
