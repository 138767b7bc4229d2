/* release_domains.c — release-capacity's bounds on pods that may not share a domain: workloads
 * whose identical required anti-affinity term repels all of their pods, and workloads that bind
 * the same host port on every address, which NodePorts admits once per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/model/quantity.h"
#include "release.h"

/* What running pods hold of the domains (or nodes) a set may use: a domain held by a pod that
 * preemption may not evict is gone (hard); one held only by pods it may evict (sl_release_evictable)
 * is room the release gets only by evicting them (soft). */
enum { SL_HELD = 1, SL_HELD_EVICTABLE = 2 };
struct held {
	size_t have, hard, soft;
};

static void count_held(struct held *h, unsigned char by)
{
	h->hard += (by & SL_HELD) != 0;
	h->soft += by == SL_HELD_EVICTABLE;
}

/* More pods than domains free even with every evictable pod gone (an error), or than those free
 * of running pods (a warning: they run only by preemption). */
static bool held_short(const struct held *h, int64_t pods)
{
	return pods > (int64_t)(h->have - h->hard - h->soft);
}

/* The headline's end and the notes on what running pods hold: short even with the evictable pods
 * gone, "in any placement"; short only of what they hold, a warning, and said so. */
static void held_words(struct sl_finding *f, const struct held *h, int64_t pods, const char *hard, const char *soft)
{
	bool by_preemption = pods <= (int64_t)(h->have - h->hard);
	if (h->hard)
		sl_note(f, "%zu of them hold a running pod %s", h->hard, hard);
	if (h->soft)
		sl_note(
		    f,
		    "%zu more of them hold%s only running pods of lower priority than a workload here (%s), which its "
		    "pods may preempt%s",
		    h->soft, h->soft == 1 ? "s" : "", soft,
		    by_preemption ? ": they all run only if the scheduler evicts those pods"
				  : "; counted free, they are still too few");
	if (by_preemption && f->level > SL_WARNING)
		f->level = SL_WARNING;
}

/* Workloads whose pods may not share a domain (or a node), and how many pods they have. */
struct member_set {
	size_t *members, n;
	int64_t pods;
};

static void add_member(struct member_set *s, size_t i, int64_t replicas)
{
	if (s->n && s->members[s->n - 1] == i)
		return; /* the same term or port twice in one template */
	s->members = sl_xrealloc(s->members, (s->n + 1) * sizeof *s->members);
	s->members[s->n++] = i;
	s->pods = sl_sat_add(s->pods, replicas);
}

/* "Deployments ns/a and ns/b" for a set. */
static void set_words(const struct sl_release *r, const struct member_set *s, struct sl_buf *b)
{
	bool *in = sl_xcalloc(r->nw + 1, sizeof *in);
	for (size_t i = 0; i < s->n; i++)
		in[s->members[i]] = true;
	char kinds[64];
	sl_release_kinds(r, in, kinds, sizeof kinds);
	sl_buf_printf(b, "%s ", kinds);
	sl_release_names(r, in, s->n, b);
	free(in);
}

/* The smallest change in nodes for a set short of `out` nodes or domains: a node each. */
static void offer_copies(struct sl_release *r, struct sl_finding *f, const struct member_set *s, int64_t out)
{
	bool *in = sl_xcalloc(r->nw + 1, sizeof *in);
	for (size_t i = 0; i < s->n; i++)
		in[s->members[i]] = true;
	sl_release_offer_copies(r, f, in, "pods", out);
	free(in);
}

/* Each member's pods (a note), and the members but the first as related locations. */
static void note_members(struct sl_finding *f, const struct sl_release *r, const struct member_set *s,
			 const char *related)
{
	for (size_t i = 0; i < s->n && i < SL_RELEASE_NAMED; i++) {
		char ref[512];
		sl_object_ref(&r->w[s->members[i]]->obj, ref, sizeof ref);
		int64_t n = r->w[s->members[i]]->replicas;
		sl_note(f, "%s: %lld pod%s", ref, (long long)n, n == 1 ? "" : "s");
	}
	for (size_t i = 1; i < s->n && i < SL_RELEASE_NAMED; i++) {
		const struct sl_workload *w = r->w[s->members[i]];
		char ref[512];
		sl_object_ref(&w->obj, ref, sizeof ref);
		sl_add_related(f, &(w->obj.kind_node ? w->obj.kind_node : w->obj.root)->at, "%s %s", ref, related);
	}
}

/* Pods that must each sit in a topology domain of their own. Workloads of one namespace whose
 * required anti-affinity terms are the same (topology key, selector, namespaces) and select every
 * one of them repel each other's pods and their own, so all of their pods need distinct domains of
 * that key among the nodes they may use, less the domains where a running pod the selector picks
 * (not one of theirs) already is. A node without the key takes any number of them (the term does
 * not apply there): then there is no bound. */
struct domain_set {
	const struct sl_podterm *t;
	struct member_set m;
};

static void term_key(const struct sl_workload *w, const struct sl_podterm *t, struct sl_buf *b)
{
	sl_buf_printf(b, "%s\x1e%s\x1e", w->obj.namespace, t->topology_key);
	for (size_t i = 0; i < t->nnamespaces; i++)
		sl_buf_printf(b, "n%s\x1f", t->namespaces[i]);
	for (size_t i = 0; i < t->sel.nreqs; i++) {
		sl_buf_printf(b, "\x1e%s\x1f%d", t->sel.reqs[i].key, (int)t->sel.reqs[i].op);
		for (size_t k = 0; k < t->sel.reqs[i].nvals; k++)
			sl_buf_printf(b, "\x1f%s", t->sel.reqs[i].vals[k]);
	}
}

struct taken {
	const struct sl_release *r;
	const struct domain_set *d;
	struct sl_strmap *domains; /* a value of the key → its index in gone */
	unsigned char *gone;       /* per domain index: SL_HELD_* */
};

static void take_domain(void *ctx, const struct sl_pod *p, size_t node)
{
	struct taken *tk = ctx;
	for (size_t i = 0; i < tk->d->m.n; i++)
		if (sl_selector_matches(&tk->r->w[tk->d->m.members[i]]->sel, &p->spec.labels))
			return; /* one of theirs: counted in their replicas */
	const char *v = sl_labels_get(&tk->r->m->nodes[node]->labels, tk->d->t->topology_key);
	size_t k = v ? sl_strmap_get(tk->domains, v) : (size_t)-1;
	if (k != (size_t)-1)
		tk->gone[k] |= sl_release_evictable(tk->r, p) ? SL_HELD_EVICTABLE : SL_HELD;
}

static void report_domains(struct sl_release *r, const struct domain_set *d, const struct held *h)
{
	for (size_t i = 0; i < d->m.n; i++)
		r->broken[d->m.members[i]] = true;
	const struct sl_workload *w0 = r->w[d->m.members[0]];
	struct sl_buf who = SL_BUF_INIT;
	set_words(r, &d->m, &who);
	bool by_preemption = d->m.pods <= (int64_t)(h->have - h->hard);
	int64_t left = (int64_t)(h->have - h->hard - (by_preemption ? h->soft : 0)), out = d->m.pods - left;
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, d->t->node,
	    "%s: their %lld pods must each run in a %s of its own (their required anti-affinity repels all of "
	    "them), and the nodes they may use offer %lld%s: %lld of them %s",
	    who.s, (long long)d->m.pods, d->t->topology_key, (long long)left,
	    by_preemption ? " free of running pods the term selects" : "", (long long)out,
	    by_preemption
		? (out == 1 ? "schedules only by preempting such a pod" : "schedule only by preempting such pods")
	    : out == 1 ? "never schedules, in any placement"
		       : "never schedule, in any placement");
	sl_buf_free(&who);
	note_members(f, r, &d->m, "has the same term");
	sl_note(f, "%zu %s domain%s among the nodes they may use", h->have, d->t->topology_key,
		h->have == 1 ? "" : "s");
	held_words(f, h, d->m.pods, "the term selects, which repels theirs", "selected by the term");
	sl_note(f, "each workload fits alone; the same anti-affinity term in all of them makes every pod of each "
		   "repel every pod of the others (the scheduler checks a pod's terms and, by symmetry, those of the "
		   "pods already placed)");
	sl_note(f,
		"fix: give each workload a selector of its own in the term (its own app label), lower the replicas, "
		"or admit more %s domains",
		d->t->topology_key);
	/* A copy of a node is a domain of its own only of the hostname. */
	if (!strcmp(d->t->topology_key, "kubernetes.io/hostname"))
		offer_copies(r, f, &d->m, out);
	sl_release_pools_weaken(r, f, d->m.members, d->m.n, SL_WARNING);
}

/* The domains of d's key among the nodes its members may use; 0 with no bound (a node without
 * the key). */
static void check_domain_set(struct sl_release *r, const struct domain_set *d)
{
	const char *key = d->t->topology_key;
	struct sl_strmap domains = {0};
	size_t have = 0;
	for (size_t n = 0; n < r->m->nnodes; n++) {
		bool may = false;
		for (size_t i = 0; i < d->m.n && !may; i++)
			may = r->adm[r->sig[d->m.members[i]] * r->ngroups + r->group[n]];
		if (!may)
			continue;
		const char *v = sl_labels_get(&r->m->nodes[n]->labels, key);
		if (!v) {
			sl_strmap_free(&domains);
			return;
		}
		if (sl_strmap_put(&domains, v, have) == have)
			have++;
	}
	unsigned char *gone = sl_xcalloc(have + 1, sizeof *gone);
	struct taken tk = {r, d, &domains, gone};
	sl_each_running(r->cx->cluster, r->w[d->m.members[0]]->obj.namespace, &d->t->sel, take_domain, &tk);
	struct held h = {have, 0, 0};
	for (size_t k = 0; k < have; k++)
		count_held(&h, gone[k]);
	if (held_short(&h, d->m.pods))
		report_domains(r, d, &h);
	free(gone);
	sl_strmap_free(&domains);
}

void sl_release_domains(struct sl_release *r)
{
	struct sl_strpool keys = {0};
	struct domain_set *sets = NULL;
	size_t nsets = 0, cap = 0;
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < r->nw; i++) {
		const struct sl_podspec *p = &r->w[i]->pod;
		for (size_t k = 0; k < p->nanti; k++) {
			const struct sl_podterm *t = &p->anti[k];
			/* A term with label keys (kept to one ReplicaSet, say) or choosing namespaces by labels
			 * depends on more than the selector: left alone. */
			if (!t->topology_key || t->nmatch_keys || t->has_ns_selector || t->nmismatch_keys ||
			    !sl_podterm_matches(t, p->namespace, &p->labels, p->namespace, &p->labels))
				continue;
			sl_buf_reset(&b);
			term_key(r->w[i], t, &b);
			size_t id = sl_release_key_index(&keys, sl_buf_str(&b));
			if (id == nsets) {
				sl_grow(&sets, &cap, nsets + 1, sizeof *sets);
				sets[nsets++] = (struct domain_set){t, {NULL, 0, 0}};
			}
			add_member(&sets[id].m, i, r->w[i]->replicas);
		}
	}
	for (size_t k = 0; k < nsets; k++) {
		if (sets[k].m.n > 1)
			check_domain_set(r, &sets[k]);
		free(sets[k].m.members);
	}
	free(sets);
	sl_buf_free(&b);
	sl_strpool_free(&keys);
}

/* Host ports. Workloads binding port/protocol on 0.0.0.0 (every address, the default) conflict
 * on a node with any pod binding it, their own pods included: all of their pods need a node each
 * among the nodes they may use, less the nodes where another running pod binds it. */
struct port_set {
	const struct sl_hostport *hp;
	struct member_set m;
};

static void report_ports(struct sl_release *r, const struct port_set *d, const struct held *h)
{
	for (size_t i = 0; i < d->m.n; i++)
		r->broken[d->m.members[i]] = true;
	const struct sl_workload *w0 = r->w[d->m.members[0]];
	struct sl_buf who = SL_BUF_INIT, what = SL_BUF_INIT, binding = SL_BUF_INIT;
	set_words(r, &d->m, &who);
	bool by_preemption = d->m.pods <= (int64_t)(h->have - h->hard);
	int64_t left = (int64_t)(h->have - h->hard - (by_preemption ? h->soft : 0)), out = d->m.pods - left;
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, d->hp->node,
	    "%s bind host port %lld/%s: their %lld pods need a node each, and the nodes they may use offer %lld%s: "
	    "%lld of them %s",
	    who.s, (long long)d->hp->port, d->hp->proto, (long long)d->m.pods, (long long)left,
	    by_preemption ? " where no running pod binds it" : "", (long long)out,
	    by_preemption
		? (out == 1 ? "schedules only by preempting such a pod" : "schedule only by preempting such pods")
	    : out == 1 ? "never schedules, in any placement"
		       : "never schedule, in any placement");
	sl_buf_free(&who);
	note_members(f, r, &d->m, "binds it too");
	sl_note(f, "they may use %zu node%s", h->have, h->have == 1 ? "" : "s");
	sl_buf_printf(&what, "that binds %lld/%s", (long long)d->hp->port, d->hp->proto);
	sl_buf_printf(&binding, "binding %lld/%s", (long long)d->hp->port, d->hp->proto);
	held_words(f, h, d->m.pods, what.s, binding.s);
	sl_buf_free(&what);
	sl_buf_free(&binding);
	sl_note(f, "NodePorts admits one pod per node for a port and protocol on 0.0.0.0 (every address), whichever "
		   "workload it belongs to");
	sl_note(f, "fix: give the workloads different host ports, drop hostPort (a Service), lower the replicas, or "
		   "admit more nodes");
	offer_copies(r, f, &d->m, out);
	sl_release_pools_weaken(r, f, d->m.members, d->m.n, SL_WARNING);
}

static void check_port_set(struct sl_release *r, const struct port_set *d, const unsigned char *held)
{
	struct held h = {0, 0, 0};
	for (size_t n = 0; n < r->m->nnodes; n++) {
		bool may = false;
		for (size_t i = 0; i < d->m.n && !may; i++)
			may = r->adm[r->sig[d->m.members[i]] * r->ngroups + r->group[n]];
		if (may) {
			h.have++;
			count_held(&h, held[n]);
		}
	}
	if (held_short(&h, d->m.pods))
		report_ports(r, d, &h);
}

/* The nodes where a running pod that belongs to none of a set's workloads binds its port: one
 * pass over the running pods (the cluster's: bound and not finished) for every shared port. */
struct held_pass {
	const struct sl_release *r;
	const struct port_set *sets;
	struct sl_strpool *keys;
	unsigned char **held; /* per set with two workloads or more: per node, SL_HELD_* */
};

static void mark_held(void *ctx, const struct sl_pod *p, size_t node)
{
	struct held_pass *h = ctx;
	char key[64];
	unsigned char by = sl_release_evictable(h->r, p) ? SL_HELD_EVICTABLE : SL_HELD;
	for (size_t k = 0; k < p->spec.nports; k++) {
		snprintf(key, sizeof key, "%lld/%s", (long long)p->spec.ports[k].port, p->spec.ports[k].proto);
		size_t id = sl_strmap_get(&h->keys->map, key);
		if (id == (size_t)-1 || !h->held[id])
			continue;
		const struct member_set *m = &h->sets[id].m;
		bool own = false;
		for (size_t i = 0; i < m->n && !own; i++)
			own = !strcmp(p->spec.namespace, h->r->w[m->members[i]]->obj.namespace) &&
			      sl_selector_matches(&h->r->w[m->members[i]]->sel, &p->spec.labels);
		if (!own)
			h->held[id][node] |= by;
	}
}

void sl_release_ports(struct sl_release *r)
{
	struct sl_strpool keys = {0};
	struct port_set *sets = NULL;
	size_t nsets = 0, cap = 0;
	char key[64];
	for (size_t i = 0; i < r->nw; i++) {
		const struct sl_podspec *p = &r->w[i]->pod;
		for (size_t k = 0; k < p->nports; k++) {
			const struct sl_hostport *hp = &p->ports[k];
			if (strcmp(hp->ip, "0.0.0.0"))
				continue; /* a specific address conflicts with fewer: left alone */
			snprintf(key, sizeof key, "%lld/%s", (long long)hp->port, hp->proto);
			size_t id = sl_release_key_index(&keys, key);
			if (id == nsets) {
				sl_grow(&sets, &cap, nsets + 1, sizeof *sets);
				sets[nsets++] = (struct port_set){hp, {NULL, 0, 0}};
			}
			add_member(&sets[id].m, i, r->w[i]->replicas);
		}
	}
	unsigned char **held = sl_xcalloc(nsets + 1, sizeof *held);
	for (size_t k = 0; k < nsets; k++)
		if (sets[k].m.n > 1)
			held[k] = sl_xcalloc(r->m->nnodes + 1, sizeof **held);
	struct held_pass h = {r, sets, &keys, held};
	sl_each_running_pod(r->cx->cluster, mark_held, &h);
	for (size_t k = 0; k < nsets; k++) {
		if (held[k])
			check_port_set(r, &sets[k], held[k]);
		free(held[k]);
		free(sets[k].m.members);
	}
	free(held);
	free(sets);
	sl_strpool_free(&keys);
}
