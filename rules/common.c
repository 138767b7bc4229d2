/* common.c — helpers every rule file shares: locating findings, and the proof notes about nodes,
 * slots and preemption that several rules print the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "../linter/model/kversion.h"
#include "../linter/model/quantity.h"
#include "edits.h"
#include "rules.h"

/* Copied rather than printed: every check of every workload names it. Truncated as snprintf
 * would. */
void sl_object_ref(const struct sl_object *o, char *out, unsigned n)
{
	const char *part[] = {o->kind, " ", o->namespace, "/", o->name};
	size_t at = 0;
	for (size_t i = 0; i < 5 && n; i++) {
		size_t len = strlen(part[i]), room = n - 1 - at;
		memcpy(out + at, part[i], len < room ? len : room);
		at += len < room ? len : room;
	}
	if (n)
		out[at] = 0;
}

/* A required pod affinity term whose namespaceSelector reads a namespace label other than
 * kubernetes.io/metadata.name, while a namespace that matters (the workload's own, or a running
 * pod's) has no Namespace object among the inputs: which namespaces the term covers then depends
 * on labels no input shows, and the engine, which knows only that label there, takes it to cover
 * fewer. For affinity (not anti-affinity) that can only make a pod look harder to place, so an
 * engine verdict is not proved. (affinity-contradiction reasons about such selectors soundly on
 * its own.) Returns the first such requirement, or NULL. */
static const struct sl_requirement *unknown_ns_labels(const struct sl_model *m, const struct sl_workload *w)
{
	const struct sl_podspec *p = &w->pod;
	const struct sl_requirement *r = NULL;
	for (size_t i = 0; i < p->naffinity && !r; i++) {
		const struct sl_podterm *t = &p->affinity[i];
		for (size_t k = 0; t->has_ns_selector && k < t->ns_sel.nreqs && !r; k++)
			if (strcmp(t->ns_sel.reqs[k].key, "kubernetes.io/metadata.name"))
				r = &t->ns_sel.reqs[k];
	}
	bool unknown = !m->nnamespaces || !sl_model_knows_namespace(m, w->obj.namespace) || m->pod_namespace_unknown;
	return r && unknown ? r : NULL;
}

/* A finding about object o at `at` (its kind line when NULL), keyed and ordered by o. */
static struct sl_finding *vreport(const struct sl_rule *r, struct sl_findings *out, enum sl_level level,
				  const struct sl_object *o, const struct sl_ynode *at, const char *fmt, va_list ap)
{
	if (!at)
		at = o->kind_node ? o->kind_node : o->root;
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_vprintf(&b, fmt, ap);
	struct sl_finding *f = sl_report(out, r, level, &at->at, "%s", b.s);
	sl_buf_free(&b);
	char ref[512];
	sl_object_ref(o, ref, sizeof ref);
	f->object = sl_xstrdup(ref);
	sl_finding_subject(f, o);
	return f;
}

struct sl_finding *sl_rule_report(const struct sl_rule *r, struct sl_check *cx, const struct sl_ynode *at,
				  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sl_finding *f = vreport(r, cx->out, cx->level, &cx->w->obj, at, fmt, ap);
	va_end(ap);
	const struct sl_requirement *ns = cx->a ? unknown_ns_labels(cx->model, cx->w) : NULL;
	if (ns) {
		if (f->level == SL_ERROR)
			f->level = SL_WARNING;
		sl_note(f,
			"this depends on namespace labels the input does not show: a required pod affinity term "
			"selects namespaces by %s, and without Namespace objects only kubernetes.io/metadata.name is "
			"known (so a warning, not an error)",
			ns->key);
	}
	if (r->needs_nodes)
		sl_note_storage_assumed(f, cx);
	/* Where the pods run is the nodes' rules' question: Kueue's flavors bear on theirs only. */
	if (r->needs_nodes && cx->a && cx->w->kplace != SL_KPLACE_NONE)
		sl_note_kflavors(f, cx->w);
	return f;
}

struct sl_finding *sl_rule_report_object(const struct sl_rule *r, struct sl_model_check *cx, const struct sl_object *o,
					 const struct sl_ynode *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sl_finding *f = vreport(r, cx->out, cx->level, o, at, fmt, ap);
	va_end(ap);
	return f;
}

#define MAX_LISTED 6

enum sl_cause sl_blocking_cause(const struct sl_analysis *a, const struct sl_nodefit *fits)
{
	size_t count[SL_CAUSE_RESOURCES + 1] = {0};
	if (!fits)
		return SL_CAUSE_NONE;
	for (size_t i = 0; i < a->nnodes; i++) {
		const struct sl_nodefit *f = &fits[i];
		if (f->excluded || f->plugin < SL_PL_NODE_PORTS)
			continue;
		switch (f->plugin) {
		case SL_PL_POD_TOPOLOGY_SPREAD:
			count[SL_CAUSE_SPREAD]++;
			break;
		case SL_PL_INTER_POD_AFFINITY:
			count[f->nreasons && strstr(f->reasons[0], "anti-affinity") ? SL_CAUSE_ANTI
										    : SL_CAUSE_AFFINITY]++;
			break;
		case SL_PL_NODE_PORTS:
			count[SL_CAUSE_PORTS]++;
			break;
		case SL_PL_VOLUME_BINDING:
		case SL_PL_VOLUME_ZONE:
			break; /* the node, not what runs there: not a placement's cause */
		default:
			count[SL_CAUSE_RESOURCES]++;
		}
	}
	enum sl_cause best = SL_CAUSE_NONE;
	for (int c = SL_CAUSE_SPREAD; c <= SL_CAUSE_RESOURCES; c++)
		if (count[c] > count[best])
			best = (enum sl_cause)c;
	return best;
}

bool sl_note_order(struct sl_finding *f, const struct sl_analysis *a)
{
	if (!a->sequential)
		return false;
	if (a->order_dependent)
		sl_note(f, "this depends on where the scheduler puts each pod: placed in the order its default scoring "
			   "picks they stop short, placed in another order more fit");
	else
		sl_note(f, "pods were placed one after another as the default scheduler scores nodes; placing them in "
			   "the opposite order of preference gives the same counts");
	return a->order_dependent;
}

/* The sequential picture: the pods placed one after another as the scheduler would, and per node
 * how many of them (old, and new ones of a surge) it took. Nodes that took none are left out. */
static void note_slots_placed(struct sl_finding *f, const struct sl_model *m, const struct sl_analysis *a)
{
	struct sl_buf b = SL_BUF_INIT;
	size_t listed = 0, used = 0;
	for (size_t i = 0; i < a->nnodes; i++) {
		if (!a->slots[i] && !a->surge_slots[i])
			continue;
		used++;
		if (listed++ >= MAX_LISTED)
			continue;
		sl_buf_printf(&b, "%s%s: %lld", listed > 1 ? "; " : "", m->nodes[i]->name, (long long)a->slots[i]);
		if (a->surge_slots[i])
			sl_buf_printf(&b, " + %lld new", (long long)a->surge_slots[i]);
	}
	if (listed > MAX_LISTED)
		sl_buf_printf(&b, "; and %zu more", listed - MAX_LISTED);
	int64_t placed = a->steady_placed - (a->own_running < a->replicas ? a->own_running : a->replicas);
	if (a->own_running)
		sl_note(f, "%lld of its pods already run (found among the running pods)", (long long)a->own_running);
	if (used)
		sl_note(f, "placed one after another, as the scheduler would: %s", b.s);
	else if (placed == 0)
		sl_note(f, "not one pod of it can be placed");
	sl_buf_free(&b);
}

/* What bounds node i's slots, in parentheses after its count: the pod count, or the scarce
 * resource with what is allocatable and what running pods (its own among them) use. */
static void describe_slot_limit(struct sl_buf *b, const struct sl_node *n, const struct sl_analysis *a, size_t i)
{
	const char *lim = a->slot_limit[i];
	if (lim && !strcmp(lim, "pods"))
		sl_buf_printf(b, " (pod count %lld of %lld used)", (long long)n->npods, (long long)n->max_pods);
	else if (lim) {
		char al[48], us[48];
		sl_format_amount(lim, sl_res_get(&n->alloc, lim), al, sizeof al);
		sl_format_amount(lim, sl_res_get(&n->used, lim), us, sizeof us);
		int64_t own = a->own_on ? a->own_on[i] : 0;
		if (own)
			sl_buf_printf(b, " (%s: %s allocatable, %s used by running pods, %lld of its own among them)",
				      lim, al, us, (long long)own);
		else
			sl_buf_printf(b, " (%s: %s allocatable, %s used by other pods)", lim, al, us);
	}
}

/* The all-at-once picture: how many pods fit on each node that passes every filter but the
 * resource fit, and what bounds it. */
static void note_slots_at_once(struct sl_finding *f, const struct sl_model *m, const struct sl_analysis *a)
{
	struct sl_buf b = SL_BUF_INIT;
	size_t listed = 0, candidates = 0;
	for (size_t i = 0; i < a->nnodes; i++) {
		if (a->fit[i].excluded || (a->fit[i].plugin != SL_FITS && a->fit[i].plugin != SL_PL_NODE_RESOURCES_FIT))
			continue;
		candidates++;
		if (listed++ >= MAX_LISTED)
			continue;
		sl_buf_printf(&b, "%s%s: %lld", listed > 1 ? "; " : "", m->nodes[i]->name, (long long)a->slots[i]);
		describe_slot_limit(&b, m->nodes[i], a, i);
	}
	if (listed > MAX_LISTED)
		sl_buf_printf(&b, "; and %zu more", listed - MAX_LISTED);
	if (a->own_running)
		sl_note(f,
			"%lld of its pods already run (found among the running pods); they are its replicas, and "
			"their requests are in the nodes' use below",
			(long long)a->own_running);
	if (candidates == 0)
		sl_note(f, "no node passes the filters other than resources, so no pod of it fits anywhere");
	else
		sl_note(f, "%lld pod%s fit%s at once on the %zu node%s that pass%s the other filters: %s",
			(long long)a->total_slots, a->total_slots == 1 ? "" : "s", a->total_slots == 1 ? "s" : "",
			candidates, candidates == 1 ? "" : "s", candidates == 1 ? "es" : "", b.s);
	sl_buf_free(&b);
}

/* A sequential analysis (pods placed one by one) is described by where they went; otherwise by
 * how many fit at once where. */
void sl_note_slots(struct sl_finding *f, const struct sl_model *m, const struct sl_analysis *a)
{
	if (a->sequential)
		note_slots_placed(f, m, a);
	else
		note_slots_at_once(f, m, a);
}

void sl_relate_nodes(struct sl_finding *f, const struct sl_model *m, const struct sl_analysis *a, bool feasible_only)
{
	size_t listed = 0;
	for (size_t i = 0; i < a->nnodes && listed < MAX_LISTED; i++) {
		const struct sl_nodefit *fit = &a->fit[i];
		bool candidate = !fit->excluded && (fit->plugin == SL_FITS || fit->plugin == SL_PL_NODE_RESOURCES_FIT);
		if (feasible_only && !candidate)
			continue;
		const struct sl_node *n = m->nodes[i];
		if (!n->name_node)
			continue;
		if (candidate && a->sequential)
			sl_add_related(f, &n->name_node->at, "node %s takes %lld pod%s of the template", n->name,
				       (long long)a->slots[i], a->slots[i] == 1 ? "" : "s");
		else if (candidate)
			sl_add_related(f, &n->name_node->at, "node %s has room for %lld pod%s of the template", n->name,
				       (long long)a->slots[i], a->slots[i] == 1 ? "" : "s");
		else {
			const char *why = fit->nreasons ? fit->reasons[0] : sl_plugin_name(fit->plugin);
			if (!strncmp(why, "node(s) ", 8))
				why += 8;
			sl_add_related(f, &n->name_node->at, "node %s %s", n->name, why);
		}
		listed++;
	}
}

/* Where the pod's priority comes from, for the note. */
static void priority_origin(struct sl_buf *b, const struct sl_podspec *p)
{
	sl_buf_printf(b, "priority %lld", (long long)p->priority);
	if (p->prio_from == SL_PRIO_CLASS || p->prio_from == SL_PRIO_RUNNING)
		sl_buf_printf(b, " from PriorityClass %s%s", p->priority_class,
			      p->prio_from == SL_PRIO_RUNNING ? " (as running pods of it show)" : "");
	else if (p->prio_from == SL_PRIO_GLOBAL)
		sl_buf_puts(b, " from the globalDefault PriorityClass");
	else if (p->prio_from == SL_PRIO_NONE)
		sl_buf_puts(b, ": no priorityClassName, and no globalDefault PriorityClass among the inputs");
}

void sl_note_preemption(struct sl_finding *f, const struct sl_analysis *a, const struct sl_preempt_summary *s)
{
	const struct sl_podspec *p = a->pod;
	if (a->preempt_unknown) {
		if (f->level == SL_ERROR)
			f->level = SL_WARNING;
		const struct sl_pod *u = a->preempt_unknown_pod;
		if (u && p->prio_from != SL_PRIO_UNKNOWN)
			sl_note(
			    f,
			    "preemption may make room: running pod %s/%s names PriorityClass %s, which is not among "
			    "the inputs, and shows no spec.priority; taken as 0, it is no victim of a pod at "
			    "priority %lld, but were its priority lower, evicting it would make room; not checked",
			    u->obj.namespace, u->obj.name, u->spec.priority_class, (long long)p->priority);
		else if (p->prio_from == SL_PRIO_UNKNOWN)
			sl_note(f,
				"preemption may make room: PriorityClass %s is not among the inputs (give the "
				"cluster's: kubectl get priorityclasses -o yaml), and lower-priority pods may run "
				"where the pod fails; not checked",
				p->priority_class);
		else
			sl_note(f, "preemption may make room: pods of lower priority run where the pod fails, and "
				   "evicting them where inter-pod affinity, topology spread or a CSI attach limit "
				   "decides is not modelled; not checked");
		return;
	}
	if (!s->evaluated)
		return;
	if (!s->eligible) {
		sl_note(f, "preemption cannot help: the pod's preemptionPolicy is Never%s%s",
			p->priority_class ? ", from PriorityClass " : "", p->priority_class ? p->priority_class : "");
		return;
	}
	struct sl_buf b = SL_BUF_INIT;
	priority_origin(&b, p);
	sl_buf_puts(&b, "): ");
	size_t len0 = b.len;
	if (s->not_helpful)
		sl_buf_printf(&b, "%zu node%s fail%s filters that evicting pods does not change", s->not_helpful,
			      s->not_helpful == 1 ? "" : "s", s->not_helpful == 1 ? "s" : "");
	if (s->no_victims)
		sl_buf_printf(&b, "%s%zu node%s run%s no pod of lower priority", b.len > len0 ? "; " : "",
			      s->no_victims, s->no_victims == 1 ? "" : "s", s->no_victims == 1 ? "s" : "");
	if (s->fails)
		sl_buf_printf(&b, "%s%zu node%s lack%s room even with every lower-priority pod evicted",
			      b.len > len0 ? "; " : "", s->fails, s->fails == 1 ? "" : "s", s->fails == 1 ? "s" : "");
	sl_note(f, "preemption cannot help (%s", b.s);
	sl_buf_free(&b);
}

bool sl_shortfall_is(const struct sl_check *cx, enum sl_cause cause)
{
	const struct sl_analysis *a = cx->a;
	/* No pod placed at all is `unschedulable`; running replicas with no room for more is a
	 * shortfall. */
	if (!a || a->steady_placed >= a->replicas || a->steady_placed == 0 || !strcmp(cx->w->obj.kind, "DaemonSet"))
		return false;
	enum sl_cause c = sl_blocking_cause(a, a->steady_fit);
	return c == cause || (cause == SL_CAUSE_RESOURCES && (c == SL_CAUSE_AFFINITY || c == SL_CAUSE_NONE));
}

/* Gangs (gang.c has the rest): asked by every shortfall's message. */
const struct sl_podgroup *sl_gang_of(const struct sl_workload *w)
{
	const struct sl_wgang *wg = sl_wgang(w);
	return wg->podgroup && wg->gang_need > 1 ? wg->podgroup : NULL;
}

bool sl_gang_short(const struct sl_workload *w, const struct sl_analysis *a)
{
	return sl_gang_of(w) && a && a->steady_placed < sl_wgang(w)->gang_need;
}

/* A gang that is this workload alone reads as before: "a gang of minMember 3 (PodGroup trainer)";
 * one of several workloads says what it needs of this one. */
void sl_gang_phrase(const struct sl_workload *w, char *out, unsigned n)
{
	const struct sl_wgang *wg = sl_wgang(w);
	const struct sl_podgroup *g = wg->podgroup;
	char name[300];
	sl_gang_name(g, name, sizeof name);
	if (g->nworkloads == 1 && wg->gang_need == g->min_member)
		snprintf(out, n, "a gang of %s %lld (%s)", sl_gang_min_key(g), (long long)g->min_member, name);
	else
		snprintf(out, n, "its gang (%s, %s %lld) needs %lld of its pods%s", name, sl_gang_min_key(g),
			 (long long)g->min_member, (long long)wg->gang_need,
			 wg->task_min == wg->gang_need ? " (the task's minAvailable)" : "");
}

void sl_relate_gang(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_wgang *wg = sl_wgang(w);
	const struct sl_podgroup *g = wg->podgroup;
	char name[300];
	sl_gang_name(g, name, sizeof name);
	sl_add_related(f, g->min_node ? &g->min_node->at : &g->obj.name_node->at, "%s: %s %lld%s", name,
		       sl_gang_min_key(g), (long long)g->min_member, g->min_node ? "" : " (defaulted)");
	if (wg->task_min_node && wg->task_min == wg->gang_need)
		sl_add_related(f, &wg->task_min_node->at, "task %s: minAvailable %lld", w->obj.name,
			       (long long)wg->task_min);
}

/* A Volcano Job's task whose gang runs: with restartPolicy Never or OnFailure its pods complete,
 * and a pod left out starts once others have (Volcano keeps scheduling a running Job's pods), so
 * the shortfall delays the work rather than stopping it. The default, Always, never completes. */
static void note_task_completes(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_ynode *rp = sl_ypath(w->spec, "template.spec.restartPolicy");
	if (!sl_object_in_group(&w->obj, "batch.volcano.sh") || !sl_yscalar(rp) || sl_yis(rp, "Always"))
		return;
	if (f->level > SL_WARNING)
		f->level = SL_WARNING;
	sl_note(f, "its pods run to completion (restartPolicy %s): the pods left out start as others finish", rp->str);
}

struct sl_finding *sl_report_shortfall(const struct sl_rule *r, struct sl_check *cx, enum sl_cause cause,
				       const struct sl_ynode *at, const char *why)
{
	const struct sl_analysis *a = cx->a;
	const struct sl_workload *w = cx->w;
	if (!sl_shortfall_is(cx, cause))
		return NULL;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (!at) /* what bounds the count; else the spec, or a JobSet's entry (its kind_node) */
		at = w->replicas_node       ? w->replicas_node
		     : sl_wbatch(w)->member ? w->obj.kind_node
					    : sl_ymap_key(w->obj.root, "spec");
	bool waves = sl_in_waves(w);
	char wv[640], gang[512] = "";
	if (sl_gang_short(w, a))
		sl_gang_phrase(w, gang, sizeof gang);
	if (waves)
		sl_waves_format(w, ref, a->steady_placed, wv, sizeof wv);
	/* With pools (but for resources, which insufficient-capacity weighs itself): what new nodes
	 * change (sl_shortfall_pools). */
	struct sl_pool_fit *pf = NULL;
	enum sl_pool_shortfall pv = SL_POOLS_NONE;
	if (cause != SL_CAUSE_RESOURCES && cx->model->npools)
		pv = sl_shortfall_pools(cx, cause, &pf);
	struct sl_finding *f =
	    pv == SL_POOLS_TAKE
		? sl_rule_report(
		      r, cx, at,
		      "only %lld of the %lld replicas of %s fit on the nodes of the inventory (%s); the other "
		      "%lld would be placed on new nodes of the pools that admit its pods",
		      (long long)a->steady_placed, (long long)a->replicas, ref, why,
		      (long long)(a->replicas - a->steady_placed))
	    : sl_gang_short(w, a) ? sl_rule_report(r, cx, at, "%s runs nothing: %s, room for %lld at once: %s", ref,
						   gang, (long long)a->steady_placed, why)
	    : waves ? sl_rule_report(r, cx, at, "%s: only %lld of the %lld pods it starts at once can run; %s", wv,
				     (long long)a->steady_placed, (long long)a->replicas, why)
		    : sl_rule_report(r, cx, at, "only %lld of the %lld replicas of %s can run at once: %s",
				     (long long)a->steady_placed, (long long)a->replicas, ref, why);
	if (waves && f->level > SL_WARNING)
		f->level = SL_WARNING; /* it completes, later: waves.c */
	if (sl_gang_short(w, a))
		sl_relate_gang(f, w);
	else
		note_task_completes(f, w);
	if (cx->model->npools && cause != SL_CAUSE_RESOURCES)
		sl_note_shortfall_pools(f, cx, pv, pf);
	free(pf);
	if (waves)
		sl_note_batch(f, w);
	else
		sl_note(f, "%s %lld%s", sl_wbatch(w)->is ? "pods at once (parallelism)" : "replicas",
			(long long)a->replicas, w->replicas_node ? "" : " (defaulted)");
	sl_note_slots(f, cx->model, a);
	sl_note_request_defaults(f, w);
	sl_note_dra(f, cx);
	const struct sl_preempt_summary *pre;
	const char *post = sl_postfilter(a, SL_STOP_STEADY, &pre);
	sl_note(f, "the next pod: %s%s%s", sl_steady_fit_error(a), post ? " " : "", post ? post : "");
	if (sl_note_order(f, a) && f->level == SL_ERROR)
		f->level = SL_WARNING;
	sl_note_preemption(f, a, pre);
	return f;
}

#define HOSTNAME_KEY "kubernetes.io/hostname"

void sl_note_rollout(struct sl_finding *f, const struct sl_workload *w, int64_t replicas, int64_t surge,
		     int64_t unavail)
{
	char s[32], u[32], rs[64] = "", ru[64] = "";
	sl_intpct_format(&w->max_surge, s, sizeof s);
	sl_intpct_format(&w->max_unavailable, u, sizeof u);
	/* "resolves" only where a percentage was turned into a count */
	if (w->max_surge.percent)
		snprintf(rs, sizeof rs, " resolves to %lld (rounded up)", (long long)surge);
	if (w->max_unavailable.percent)
		snprintf(ru, sizeof ru, " resolves to %lld (rounded down)", (long long)unavail);
	sl_note(f, "replicas %lld%s; strategy RollingUpdate%s", (long long)replicas,
		w->replicas_node ? "" : " (defaulted)", w->type_node ? "" : " (defaulted)");
	sl_note(f, "maxSurge %s%s%s, maxUnavailable %s%s%s, of %lld replica%s", s,
		w->max_surge.set ? "" : " (defaulted)", rs, u, w->max_unavailable.set ? "" : " (defaulted)", ru,
		(long long)replicas, replicas == 1 ? "" : "s");
}

void sl_relate_strategy(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_ynode *st =
	    w->max_unavailable.node ? w->max_unavailable.node : sl_ymap_key(w->spec, "strategy");
	if (st)
		sl_add_related(f, &st->at, "the rollout strategy that keeps every old pod until a new one is Ready");
}

void sl_fix_lower_replicas(struct sl_finding *f, const struct sl_workload *w, int64_t n, const char *what,
			   bool deadlocks, const char *room)
{
	if (!w->replicas_node)
		return;
	char v[32], desc[256];
	snprintf(v, sizeof v, "%lld", (long long)n);
	if (deadlocks)
		snprintf(desc, sizeof desc,
			 "Lower replicas to %s, %s, and roll with maxSurge: 0, maxUnavailable: 1 (%s)", v, what, room);
	else
		snprintf(desc, sizeof desc, "Lower replicas to %s, %s", v, what);
	struct sl_fix *fx = sl_fix_new(f, desc);
	sl_fix_replace(fx, w->obj.src, w->replicas_node, v);
	if (deadlocks)
		sl_fix_rolling_params(fx, w, "0", "1");
}

bool sl_long_running(const char *kind)
{
	return !strcmp(kind, "Deployment") || !strcmp(kind, "ReplicaSet") || !strcmp(kind, "ReplicationController") ||
	       !strcmp(kind, "StatefulSet");
}

bool sl_term_per_replicaset(const struct sl_podterm *t)
{
	for (size_t i = 0; i < t->nmatch_keys; i++)
		if (!strcmp(t->match_keys[i], "pod-template-hash"))
			return true;
	return false;
}

bool sl_self_hostname_term(const struct sl_podspec *p, const struct sl_podterm *v, size_t n, bool across_sets)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].topology_key && !strcmp(v[i].topology_key, HOSTNAME_KEY) &&
		    !(across_sets && sl_term_per_replicaset(&v[i])) &&
		    sl_podterm_matches(&v[i], p->namespace, &p->labels, p->namespace, &p->labels))
			return true;
	return false;
}

bool sl_surge_only_at(const struct sl_workload *w, int64_t n)
{
	return w->strategy == SL_STRATEGY_ROLLING && sl_intpct_resolve(&w->max_unavailable, n, false) == 0 &&
	       sl_intpct_resolve(&w->max_surge, n, true) > 0;
}

/* --- hand-written inventories -------------------------------------------------------------- */

static const char *const kubelet_resources[SL_KUBELET_RESOURCES] = {"cpu", "memory", "ephemeral-storage"};
static const char *const kubelet_labels[SL_KUBELET_LABELS] = {"kubernetes.io/os", "kubernetes.io/arch",
							      "beta.kubernetes.io/os", "beta.kubernetes.io/arch"};

void sl_inventory_gaps(const struct sl_model *m, struct sl_inventory_gaps *out)
{
	size_t missing = 0;
	for (size_t i = 0; i < SL_KUBELET_RESOURCES; i++)
		missing += out->resource[i] = m->nnodes > 0;
	for (size_t i = 0; i < SL_KUBELET_LABELS; i++)
		missing += out->label[i] = m->nnodes > 0;
	/* Stops at the first nodes of a real inventory, which list everything. */
	for (size_t n = 0; n < m->nnodes && missing; n++) {
		const struct sl_node *node = m->nodes[n];
		for (size_t i = 0; i < SL_KUBELET_RESOURCES; i++)
			if (out->resource[i] && sl_res_find(&node->alloc, kubelet_resources[i])) {
				out->resource[i] = false;
				missing--;
			}
		for (size_t i = 0; i < SL_KUBELET_LABELS; i++)
			if (out->label[i] && sl_labels_get(&node->labels, kubelet_labels[i])) {
				out->label[i] = false;
				missing--;
			}
	}
}

static bool says(const struct sl_finding *f, const char *what)
{
	if (strstr(f->message, what))
		return true;
	for (size_t i = 0; i < f->nnotes; i++)
		if (strstr(f->notes[i], what))
			return true;
	return false;
}

/* Whether the pod's nodeSelector or required node affinity reads the label. */
static bool selects_on(const struct sl_podspec *p, const char *key)
{
	if (sl_labels_get(&p->node_selector, key))
		return true;
	for (size_t t = 0; t < p->nterms; t++)
		for (size_t e = 0; e < p->terms[t].nexprs; e++)
			if (!strcmp(p->terms[t].exprs[e].key, key))
				return true;
	return false;
}

void sl_note_inventory_gaps(struct sl_finding *f, const struct sl_inventory_gaps *g, const struct sl_workload *w)
{
	static const char hint[] = "is the inventory hand-written? kubectl get nodes -o yaml includes it";
	for (size_t i = 0; i < SL_KUBELET_RESOURCES; i++) {
		if (!g->resource[i] || sl_res_get(&w->pod.request, kubelet_resources[i]) <= 0)
			continue;
		char reason[64];
		snprintf(reason, sizeof reason, "Insufficient %s", kubelet_resources[i]);
		if (says(f, reason))
			sl_note(f, "no node lists %s in status.allocatable: %s", kubelet_resources[i], hint);
	}
	if (!says(f, "didn't match Pod's node affinity/selector"))
		return;
	for (size_t i = 0; i < SL_KUBELET_LABELS; i++)
		if (g->label[i] && selects_on(&w->pod, kubelet_labels[i]))
			sl_note(f, "no node has the label %s, which the kubelet sets: %s", kubelet_labels[i], hint);
}

/* An int-or-percent of a DaemonSet's rollingUpdate as the API server accepts it (a non-negative
 * integer or [0-9]+%): whether it is written and not zero. *ok is false for anything else, which
 * invalid-rollout-params reports. */
static bool nonzero_intpct(const struct sl_ynode *n, bool *ok)
{
	int64_t v;
	*ok = true;
	if (sl_ynull(n))
		return false;
	if (sl_yint(n, &v) == 0) {
		*ok = v >= 0;
		return v > 0;
	}
	*ok = n->kind == SL_YSCALAR && n->len >= 2 && n->str[n->len - 1] == '%' &&
	      strspn(n->str, "0123456789") == n->len - 1;
	return *ok && strspn(n->str, "0") != n->len - 1;
}

bool sl_daemonset_surges(const struct sl_workload *w, int minor, const struct sl_ynode **su, const struct sl_ynode **un,
			 const struct sl_ynode **type)
{
	const struct sl_ynode *us = sl_ymap_get(w->spec, "updateStrategy");
	const struct sl_ynode *ru = sl_ymap_get(us, "rollingUpdate");
	*type = sl_ymap_get(us, "type");
	*su = sl_ymap_get(ru, "maxSurge");
	*un = sl_ymap_get(ru, "maxUnavailable");
	/* Before DaemonSetUpdateSurge the API server drops maxSurge. */
	if (strcmp(w->obj.kind, "DaemonSet") || (!sl_ynull(*type) && !sl_yis(*type, "RollingUpdate")) || !ru ||
	    ru->kind != SL_YMAP || minor < SL_KUBE_DAEMONSET_SURGE)
		return false;
	bool su_ok, un_ok;
	/* maxUnavailable defaults to 1, which beside a surge the API server refuses */
	return nonzero_intpct(*su, &su_ok) && !sl_ynull(*un) && !nonzero_intpct(*un, &un_ok) && su_ok && un_ok;
}

bool sl_note_match_label_keys(struct sl_finding *f, const struct sl_podterm *t, int minor)
{
	bool written = t->node && sl_ymap_get(t->node, "matchLabelKeys");
	if (minor < SL_KUBE_AFFINITY_MATCH_LABEL_KEYS) {
		sl_note(
		    f,
		    "matchLabelKeys: [pod-template-hash] on the anti-affinity term would keep old and new pods apart "
		    "only from Kubernetes 1.%d (MatchLabelKeysInPodAffinity); the API server of 1.%d drops it%s",
		    SL_KUBE_AFFINITY_MATCH_LABEL_KEYS, minor, written ? ", as it drops the one written here" : "");
		return false;
	}
	sl_note(f,
		"with matchLabelKeys: [pod-template-hash] on the anti-affinity term (Kubernetes 1.%d and later) old "
		"and new pods no longer repel each other; the rollout that adds it still meets the old pods' terms, "
		"so roll that one with maxUnavailable: 1",
		SL_KUBE_AFFINITY_MATCH_LABEL_KEYS);
	return t->node && !t->node->flow && !written;
}

void sl_note_request_defaults(struct sl_finding *f, const struct sl_workload *w)
{
	for (const struct sl_req_default *d = w->pod.defaulted; d < w->pod.defaulted + w->pod.ndefaulted; d++) {
		sl_note(f, "containers that state no %s request get %s, the default of LimitRange %s (LimitRanger)",
			d->resource, d->node->str, d->from->name);
		sl_add_related(f, &d->node->at, "LimitRange %s/%s: default %s request", d->from->namespace,
			       d->from->name, d->resource);
	}
}
