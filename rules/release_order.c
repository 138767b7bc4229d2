/* release_order.c — release-capacity's warning: no bound on the totals is broken, yet the release
 * placed as the scheduler would place it leaves pods Pending.
 *
 * The bounds (release_capacity.c, release_domains.c) hold for every placement, but they treat a
 * resource as divisible: two pods of 2 CPU spread over two 4-CPU nodes leave no room for a pod of
 * 4 CPU, though 8 CPU are asked of 8. Whether that happens depends on the order the pods reach
 * the scheduler. So every workload that takes part and is named in no broken bound is placed, pod
 * by pod, with the scheduler's filters and scores (sched/release_place.c), one workload after
 * another in input order, and again in reverse. Pods left Pending in one order only: a warning
 * that says the order decides. Left Pending in both: an exhaustive search over placements
 * (sched/release_search.c) asks whether any placement runs them all; none, from a search that
 * ran to its end, is an error (some pod stays Pending whatever the order); otherwise a warning
 * that says what the search found, or why it did not run. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/escape.h"
#include "../linter/model/quantity.h"
#include "release.h"

/* The workloads placed: those that take part, are named in no broken bound and have pods to
 * place, in input order. */
struct order_set {
	const struct sl_workload **w;
	int64_t *todo;
	size_t *at; /* each one's index among the release's workloads */
	size_t n;
};

static void order_set(const struct sl_release *r, struct order_set *s)
{
	s->w = sl_xcalloc(r->nw + 1, sizeof *s->w);
	s->todo = sl_xcalloc(r->nw + 1, sizeof *s->todo);
	s->at = sl_xcalloc(r->nw + 1, sizeof *s->at);
	s->n = 0;
	for (size_t i = 0; i < r->nw; i++)
		if (!r->broken[i] && r->pods[i] > 0) {
			s->w[s->n] = r->w[i];
			s->todo[s->n] = r->pods[i];
			s->at[s->n++] = i;
		}
}

static void order_set_free(struct order_set *s)
{
	free(s->w);
	free(s->todo);
	free(s->at);
}

static int64_t pending(const struct order_set *s, const struct sl_release_placement *p)
{
	int64_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n = sl_sat_add(n, s->todo[i] - p->placed[i]);
	return n;
}

/* Whether workload j's pods were placed by the time workload i's next pod found no node: the
 * workloads before it in that order, and its own. */
static bool before(size_t j, size_t i, bool reverse)
{
	return reverse ? j >= i : j <= i;
}

/* What node k has free of res when workload i's next pod found no node. */
static int64_t free_before(const struct sl_release *r, const struct order_set *s, const struct sl_release_placement *p,
			   size_t i, bool reverse, size_t k, const char *res)
{
	int64_t v = sl_release_free_of(r, k, res);
	for (size_t b = 0; b < p->nlog; b++)
		if (p->log[b].node == k && before(p->log[b].workload, i, reverse))
			v -= sl_sat_mul(p->log[b].pods, sl_release_request(r, s->w[p->log[b].workload], res));
	return v > 0 ? v : 0;
}

/* The nodes pending workload i may use, as they were when its next pod found none: one note each,
 * for what its pod asks (SL_RELEASE_NAMED of them); the workloads that took room there and the
 * nodes are marked for related locations. */
static void note_nodes(struct sl_finding *f, const struct sl_release *r, const struct order_set *s,
		       const struct sl_release_placement *p, size_t i, bool reverse, bool *related, bool *nodes)
{
	const struct sl_workload *w = s->w[i];
	size_t sig = r->sig[s->at[i]], listed = 0;
	for (size_t k = 0; k < r->m->nnodes; k++) {
		if (!r->adm[sig * r->ngroups + r->group[k]] || listed++ >= SL_RELEASE_NAMED)
			continue;
		struct sl_buf b = SL_BUF_INIT;
		for (size_t q = 0; q < r->resources.n; q++) {
			const char *res = r->resources.v[q];
			/* The pod count only when it is what is missing: a count of free slots reads oddly. */
			if (sl_release_request(r, w, res) <= 0 ||
			    (!strcmp(res, "pods") && free_before(r, s, p, i, reverse, k, res) > 0))
				continue;
			char a[48];
			sl_format_amount(res, free_before(r, s, p, i, reverse, k, res), a, sizeof a);
			sl_buf_printf(&b, "%s%s %s", b.len ? ", " : "", a, res);
		}
		sl_buf_puts(&b, " free");
		const char *sep = "; taken by ";
		for (size_t e = 0; e < p->nlog; e++) {
			size_t j = p->log[e].workload;
			if (p->log[e].node != k || !before(j, i, reverse))
				continue;
			sl_buf_printf(&b, "%s%s/%s (%lld pod%s)", sep, s->w[j]->obj.namespace, s->w[j]->obj.name,
				      (long long)p->log[e].pods, p->log[e].pods == 1 ? "" : "s");
			sep = ", ";
			related[j] |= j != i;
		}
		if (p->why[i] && p->why[i][k])
			sl_buf_printf(&b, "; its pod: %s", p->why[i][k]);
		sl_note(f, "node %s: %s", r->m->nodes[k]->name, sl_buf_str(&b));
		nodes[k] = true;
		sl_buf_free(&b);
	}
	if (listed > SL_RELEASE_NAMED)
		sl_note(f, "and %zu more nodes", listed - SL_RELEASE_NAMED);
}

/* "Deployment ml/b (0 of 1 placed)" for every workload left short in p, into b. */
static void short_words(const struct order_set *s, const struct sl_release_placement *p, struct sl_buf *b)
{
	size_t nshort = 0, k = 0;
	for (size_t i = 0; i < s->n; i++)
		nshort += p->placed[i] < s->todo[i];
	for (size_t i = 0; i < s->n && k < SL_RELEASE_NAMED; i++) {
		if (p->placed[i] >= s->todo[i])
			continue;
		char ref[512];
		sl_object_ref(&s->w[i]->obj, ref, sizeof ref);
		k++;
		sl_buf_printf(b, "%s%s (%lld of %lld placed)",
			      k == 1        ? ""
			      : k == nshort ? " and "
					    : ", ",
			      ref, (long long)p->placed[i], (long long)s->todo[i]);
	}
	if (nshort > SL_RELEASE_NAMED)
		sl_buf_printf(b, " and %zu more", nshort - SL_RELEASE_NAMED);
}

/* The first workload left short in p, with its nodes as the ones before left them. */
static void note_short(struct sl_finding *f, const struct sl_release *r, const struct order_set *s,
		       const struct sl_release_placement *p, bool reverse, bool *related, bool *nodes)
{
	for (size_t k = 0; k < s->n; k++) {
		size_t i = reverse ? s->n - 1 - k : k;
		if (p->placed[i] >= s->todo[i])
			continue;
		char ref[512];
		sl_object_ref(&s->w[i]->obj, ref, sizeof ref);
		int64_t left = s->todo[i] - p->placed[i];
		sl_note(
		    f,
		    "%s: in %s order %lld of its %lld pod%s find%s no node; the nodes it may use, as they were then:",
		    ref, reverse ? "reverse" : "input", (long long)left, (long long)s->todo[i],
		    s->todo[i] == 1 ? "" : "s", left == 1 ? "s" : "");
		note_nodes(f, r, s, p, i, reverse, related, nodes);
		return;
	}
}

/* The largest release (in sl_release_place_cost units) placed again to tell what decided its
 * warning: a few dozen workloads on a few hundred nodes. A larger one is placed in each order once,
 * and its warning says nothing of ties or spreading (four more placements would triple the work). */
#define SL_RELEASE_DECIDE_BUDGET 100000u

/* The pods left Pending in each order when the release is placed otherwise (flags, SL_PLACE_*):
 * whether that differs from nf and nr. Placed only for a warning about to be given, on a release
 * within SL_RELEASE_DECIDE_BUDGET. */
static bool decides(const struct sl_release *r, const struct order_set *s, unsigned flags, int64_t nf, int64_t nr,
		    int64_t *af, int64_t *ar)
{
	int64_t total = 0;
	for (size_t i = 0; i < s->n; i++)
		total = sl_sat_add(total, s->todo[i]);
	*af = nf;
	*ar = nr;
	if (sl_release_place_cost(r->m, s->w, s->n, total) > SL_RELEASE_DECIDE_BUDGET)
		return false;
	struct sl_release_placement f = {0}, v = {0};
	bool done = sl_release_place_as(r->m, s->w, s->todo, s->n, false, flags, &f) &&
		    sl_release_place_as(r->m, s->w, s->todo, s->n, true, flags, &v);
	*af = done ? pending(s, &f) : nf;
	*ar = done ? pending(s, &v) : nr;
	sl_release_placement_free(&f);
	sl_release_placement_free(&v);
	return *af != nf || *ar != nr;
}

/* Whether the placement, not only the room, decides the outcome (not when a search proved that no
 * placement runs every pod), and whether a tie between nodes scored alike does: broken the other
 * way, tf and tr pods stay Pending. */
struct deciders {
	bool look, tie;
	int64_t tf, tr;
};

/* What decided the outcome, when it is not only the room left: the system-default spreading of
 * the workloads placed first (scored without it, other counts), and a tie between nodes scored
 * alike (broken the other way, other counts). */
static void note_deciders(struct sl_finding *f, const struct sl_release *r, const struct order_set *s, int64_t nf,
			  int64_t nr, const struct deciders *d)
{
	int64_t af, ar;
	struct sl_buf b = SL_BUF_INIT;
	size_t k = 0;
	bool uneven = sl_spread_defaults_keys_uneven(r->m);
	for (size_t j = 0; j < s->n; j++)
		if (sl_spread_defaults(s->w[j], NULL) && (s->todo[j] > 1 || uneven) && k++ < SL_RELEASE_NAMED)
			sl_buf_printf(&b, "%s%s/%s", k > 1 ? ", " : "", s->w[j]->obj.namespace, s->w[j]->obj.name);
	if (k && decides(r, s, SL_PLACE_NO_DEFAULT_SPREAD, nf, nr, &af, &ar))
		sl_note(f,
			"the scheduler spreads the pods of %s over nodes and zones (a controller's pods without spread "
			"constraints of their own get its system defaults: ScheduleAnyway, maxSkew 3 per "
			"kubernetes.io/hostname and 5 per topology.kubernetes.io/zone); scored by the room left alone, "
			"%lld pod%s would stay Pending in input order and %lld in reverse order",
			sl_buf_str(&b), (long long)af, af == 1 ? "" : "s", (long long)ar);
	sl_buf_free(&b);
	if (d->tie)
		sl_note(f,
			"with ties between nodes scored alike broken the other way, %lld pod%s stay Pending in "
			"input order and %lld in reverse order: the scheduler picks among such nodes at random",
			(long long)d->tf, d->tf == 1 ? "" : "s", (long long)d->tr);
}

/* What preemption did in one order's placement, or that it was not modelled there. */
static void note_preemption(struct sl_finding *f, const struct sl_release_placement *p, const char *order)
{
	if (p->by_preemption) {
		struct sl_buf b = SL_BUF_INIT;
		if (p->evicted_running)
			sl_buf_printf(&b, "%lld running pod%s", (long long)p->evicted_running,
				      p->evicted_running == 1 ? "" : "s");
		if (p->evicted_own)
			sl_buf_printf(&b,
				      "%s%lld of the release's own placed earlier (created again and placed where "
				      "room was left)",
				      b.len ? " and " : "", (long long)p->evicted_own);
		sl_note(f,
			"in %s order %lld pod%s found a node only by preemption, evicting pods of lower priority: %s",
			order, (long long)p->by_preemption, p->by_preemption == 1 ? "" : "s", sl_buf_str(&b));
		sl_buf_free(&b);
	}
	if (p->preempt_unmodelled)
		sl_note(f,
			"in %s order a pod that found no node may have made room by preemption, which is not modelled "
			"where pods read other pods (inter-pod terms, spread, host ports): this placement evicts "
			"nothing there",
			order);
}

/* The notes of the finding: the nodes of the first workload left short in each order, what the
 * bounds say, the fix, and the nodes and workloads that took the room. */
static void report_notes(struct sl_release *r, const struct order_set *s, const struct sl_release_placement *fwd,
			 const struct sl_release_placement *rev, struct sl_finding *f, bool both,
			 const struct deciders *d)
{
	int64_t nf = pending(s, fwd), nr = pending(s, rev);
	const struct sl_release_placement *p = nf ? fwd : rev;
	size_t first = 0;
	while (p->placed[first] >= s->todo[first])
		first++;
	bool *related = sl_xcalloc(s->n + 1, sizeof *related);
	bool *nodes = sl_xcalloc(r->m->nnodes + 1, sizeof *nodes);
	if (nf)
		note_short(f, r, s, fwd, false, related, nodes);
	if (nr)
		note_short(f, r, s, rev, true, related, nodes);
	if (both)
		sl_note(f,
			"each workload fits alone and the release's totals fit its nodes (Hall's condition holds for "
			"every resource), but pods do not come in pieces: room left in pieces by pods of different "
			"sizes, or nodes and domains closed by their anti-affinity, spread or host ports");
	else
		sl_note(f,
			"each workload fits alone and the release's totals fit its nodes (Hall's condition holds for "
			"every resource), but where the first pods go decides what is left for the later ones: room "
			"left in pieces by pods of different sizes, or nodes and domains closed by their "
			"anti-affinity, spread or host ports");
	if (d->look)
		note_deciders(f, r, s, nf, nr, d);
	note_preemption(f, fwd, "input");
	note_preemption(f, rev, "reverse");
	sl_note(f,
		"fix: leave room to spare on the nodes these workloads share (lower the requests or replicas, or add "
		"capacity), or give the workloads whose pods are larger nodes of their own");
	for (size_t k = 0; k < r->m->nnodes; k++)
		if (nodes[k] && r->m->nodes[k]->name_node)
			sl_add_related(f, &r->m->nodes[k]->name_node->at, "node %s", r->m->nodes[k]->name);
	free(nodes);
	for (size_t j = 0; j < s->n; j++)
		if (related[j] && j != first) {
			char ref[512];
			sl_object_ref(&s->w[j]->obj, ref, sizeof ref);
			const struct sl_ynode *at = s->w[j]->obj.kind_node ? s->w[j]->obj.kind_node : s->w[j]->obj.root;
			sl_add_related(f, &at->at, "%s took room on those nodes first", ref);
		}
	free(related);
}

/* The filters' reasons for workload i's next pod on the nodes it may use, each once: what
 * blocks it, into b. */
static void blocks(const struct sl_release_placement *p, size_t i, size_t nnodes, struct sl_buf *b)
{
	struct sl_strpool seen = {0};
	for (size_t k = 0; p->why[i] && k < nnodes; k++) {
		const char *w = p->why[i][k];
		while (w && *w) {
			const char *end = strstr(w, ", ");
			size_t len = end ? (size_t)(end - w) : strlen(w);
			char one[256];
			snprintf(one, sizeof one, "%.*s", (int)len, w);
			size_t before = seen.n;
			if (strcmp(one, "fits") && (sl_intern(&seen, one), seen.n > before))
				sl_buf_printf(b, "%s%s", before ? "; " : "", one);
			w = end ? end + 2 : NULL;
		}
	}
	sl_strpool_free(&seen);
}

/* Why the pods stay Pending, after the counts: the order, or what the search over placements
 * said when neither order places them all. */
static void why_words(struct sl_buf *b, bool both, const struct sl_release_search *rs)
{
	if (!both) {
		sl_buf_puts(
		    b,
		    "no bound on the totals is broken, so whether the release fits depends on the order its pods are "
		    "scheduled in");
		return;
	}
	sl_buf_puts(b, "in neither order does every pod find a node, ");
	if (rs->verdict == SL_SEARCH_NONE)
		sl_buf_printf(b,
			      "and no placement of all of them exists: a search over every placement (%llu steps) "
			      "finds none, so some pod stays Pending whatever the order",
			      (unsigned long long)rs->steps);
	else if (rs->verdict == SL_SEARCH_FOUND)
		sl_buf_puts(b, "though a placement of all of them exists (a search over placements found one): the "
			       "scheduler, placing pod by pod, does not reach it in these orders");
	else if (rs->verdict == SL_SEARCH_GAVE_UP)
		sl_buf_printf(
		    b,
		    "and no placement of all of them was found: the search over placements stopped after %llu "
		    "steps, so it is not proven that none exists",
		    (unsigned long long)rs->steps);
	else
		sl_buf_printf(
		    b,
		    "and no placement of all of them was found: placements were not searched (%s), so it is not "
		    "proven that none exists",
		    rs->why);
}

static void report(struct sl_release *r, const struct order_set *s, const struct sl_release_placement *fwd,
		   const struct sl_release_placement *rev, const struct sl_release_search *rs)
{
	int64_t nf = pending(s, fwd), nr = pending(s, rev);
	const struct sl_release_placement *p = nf ? fwd : rev;
	size_t first = 0;
	while (p->placed[first] >= s->todo[first])
		first++;
	const struct sl_workload *w0 = s->w[first];
	struct sl_buf who = SL_BUF_INIT, other = SL_BUF_INIT, why = SL_BUF_INIT, what = SL_BUF_INIT;
	short_words(s, p, &who);
	if (nf && nr) {
		sl_buf_puts(&other, "in reverse order too, ");
		short_words(s, rev, &other);
	} else
		sl_buf_printf(&other, "in %s order every pod is placed", nf ? "reverse" : "input");
	int64_t n = nf ? nf : nr;
	why_words(&why, nf && nr, rs);
	/* proven that no placement runs every pod: neither a tie nor the spreading decided that */
	struct deciders d = {!(nf && nr && rs->verdict == SL_SEARCH_NONE), false, nf, nr};
	if (d.look)
		d.tie = decides(r, s, SL_PLACE_TIES_LAST, nf, nr, &d.tf, &d.tr);
	/* short in both orders: what blocks the first workload left short, in input order */
	for (size_t k = 0; nf && nr && k < s->n && !what.len; k++)
		blocks(p, nf ? k : s->n - 1 - k, r->m->nnodes, &what);
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, w0->replicas_node,
	    "%lld pod%s of %s stay%s Pending when the release is placed in %s order as the scheduler would place it "
	    "(%s); %s%s%s%s%s",
	    (long long)n, n == 1 ? "" : "s", who.s, n == 1 ? "s" : "", nf ? "input" : "reverse", other.s, why.s,
	    what.len ? " (what blocks: " : "", what.len ? what.s : "", what.len ? ")" : "",
	    d.tie ? "; the scheduler picks at random among nodes it scores alike, and which one it picked decides "
		    "this: the outcome may differ from run to run"
		  : "");
	if (f->level > SL_WARNING && !(nf && nr && rs->verdict == SL_SEARCH_NONE))
		f->level = SL_WARNING;
	sl_buf_free(&who);
	sl_buf_free(&other);
	sl_buf_free(&why);
	sl_buf_free(&what);
	report_notes(r, s, fwd, rev, f, nf && nr, &d);
	/* The pods the order leaves Pending would make a pool that admits them add a node: that the
	 * order decides anything holds only on the cluster as it is now. */
	sl_release_pools_weaken(r, f, s->at, s->n, SL_NOTE);
	if (rs->verdict == SL_SEARCH_FOUND)
		sl_release_note_found(f, r->m, s->w, s->n, rs, "a placement that runs every pod");
}

void sl_release_order(struct sl_release *r)
{
	struct order_set s;
	order_set(r, &s);
	struct sl_release_placement fwd = {0}, rev = {0};
	/* Placed only when the order may leave pods Pending: a release with room to spare for every
	 * workload, whatever the others took, has no warning to give. */
	if (s.n > 1 && !sl_release_places_surely(r->cx->cluster, s.w, s.todo, s.n) &&
	    sl_release_place(r->m, s.w, s.todo, s.n, false, &fwd) &&
	    sl_release_place(r->m, s.w, s.todo, s.n, true, &rev) && (pending(&s, &fwd) || pending(&s, &rev))) {
		/* Short in both orders: does any placement run them all? */
		struct sl_release_search rs = {SL_SEARCH_NOT_SEARCHED, 0, "one order places every pod", NULL, 0, 0};
		if (pending(&s, &fwd) && pending(&s, &rev))
			sl_release_search(r->cx->cluster, s.w, s.todo, s.n, NULL, &rs);
		report(r, &s, &fwd, &rev, &rs);
		sl_release_search_free(&rs);
	}
	sl_release_placement_free(&fwd);
	sl_release_placement_free(&rev);
	order_set_free(&s);
}

/* One order's outcome, as text. */
static void explain_order(const struct order_set *s, const struct sl_release_placement *p, const char *order,
			  struct sl_buf *out)
{
	int64_t n = pending(s, p);
	char by[96] = "";
	if (p->by_preemption)
		snprintf(by, sizeof by, " (%lld by preemption, evicting %lld pod%s of lower priority)",
			 (long long)p->by_preemption, (long long)(p->evicted_running + p->evicted_own),
			 p->evicted_running + p->evicted_own == 1 ? "" : "s");
	if (!n) {
		sl_buf_printf(out, "  placed in %s order as the scheduler would: every pod finds a node%s\n", order,
			      by);
		return;
	}
	struct sl_buf who = SL_BUF_INIT;
	short_words(s, p, &who);
	sl_buf_printf(out, "  placed in %s order as the scheduler would%s: %lld pod%s stay%s Pending: ", order, by,
		      (long long)n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	sl_esc_puts(out, sl_buf_str(&who)); /* --explain's text: names escaped for a terminal (escape.h) */
	sl_buf_putc(out, '\n');
	sl_buf_free(&who);
}

static cJSON *order_json(const struct order_set *s, const struct sl_release_placement *p)
{
	cJSON *o = cJSON_CreateObject(), *ws = cJSON_AddArrayToObject(o, "pending");
	cJSON_AddNumberToObject(o, "pendingPods", (double)pending(s, p));
	cJSON_AddNumberToObject(o, "byPreemption", (double)p->by_preemption);
	cJSON_AddNumberToObject(o, "evictedRunning", (double)p->evicted_running);
	cJSON_AddNumberToObject(o, "evictedOwn", (double)p->evicted_own);
	for (size_t i = 0; i < s->n; i++)
		if (p->placed[i] < s->todo[i]) {
			char ref[512];
			sl_object_ref(&s->w[i]->obj, ref, sizeof ref);
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "workload", ref);
			cJSON_AddNumberToObject(e, "placed", (double)p->placed[i]);
			cJSON_AddNumberToObject(e, "pods", (double)s->todo[i]);
			cJSON_AddItemToArray(ws, e);
		}
	return o;
}

void sl_release_order_explain(struct sl_release *r, struct sl_buf *out, cJSON *json)
{
	struct order_set s;
	order_set(r, &s);
	struct sl_release_placement fwd = {0}, rev = {0};
	bool done = s.n > 1 && sl_release_place(r->m, s.w, s.todo, s.n, false, &fwd) &&
		    sl_release_place(r->m, s.w, s.todo, s.n, true, &rev);
	if (json && done) {
		cJSON *o = cJSON_AddObjectToObject(json, "placement");
		cJSON_AddItemToObject(o, "inputOrder", order_json(&s, &fwd));
		cJSON_AddItemToObject(o, "reverseOrder", order_json(&s, &rev));
	} else if (json)
		cJSON_AddNullToObject(json, "placement");
	else if (done) {
		explain_order(&s, &fwd, "input", out);
		explain_order(&s, &rev, "reverse", out);
	} else if (s.n > 1)
		sl_buf_printf(
		    out,
		    "  placement in either order not checked: %zu workloads on %zu nodes with %zu running pods "
		    "is more than one run places (see docs/rules/release-capacity.md)\n",
		    s.n, r->m->nnodes, r->m->npods);
	sl_release_placement_free(&fwd);
	sl_release_placement_free(&rev);
	order_set_free(&s);
}
