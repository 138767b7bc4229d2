/* release_domains.c — release-capacity's bounds on pods that may not share a domain: workloads
 * whose identical required anti-affinity term repels all of their pods, and workloads that bind
 * the same host port on every address, which NodePorts admits once per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/model/quantity.h"
#include "release.h"

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
	bool *gone;                /* per domain index */
};

static void take_domain(void *ctx, const struct sl_pod *p, size_t node)
{
	struct taken *tk = ctx;
	for (size_t i = 0; i < tk->d->m.n; i++)
		if (sl_selector_matches(&tk->r->w[tk->d->m.members[i]]->sel, &p->spec.labels))
			return; /* one of theirs: counted in their replicas */
	/* Preemption may evict it for a pod of the release: an error must hold even so. */
	if (sl_release_evictable(tk->r, p))
		return;
	const char *v = sl_labels_get(&tk->r->m->nodes[node]->labels, tk->d->t->topology_key);
	size_t k = v ? sl_strmap_get(tk->domains, v) : (size_t)-1;
	if (k != (size_t)-1)
		tk->gone[k] = true;
}

static void report_domains(struct sl_release *r, const struct domain_set *d, size_t have, size_t taken)
{
	for (size_t i = 0; i < d->m.n; i++)
		r->broken[d->m.members[i]] = true;
	const struct sl_workload *w0 = r->w[d->m.members[0]];
	struct sl_buf who = SL_BUF_INIT;
	set_words(r, &d->m, &who);
	int64_t left = (int64_t)(have - taken), out = d->m.pods - left;
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, d->t->node,
	    "%s: their %lld pods must each run in a %s of its own (their required anti-affinity repels all of "
	    "them), and the nodes they may use offer %lld: %lld of them never schedule%s, in any placement",
	    who.s, (long long)d->m.pods, d->t->topology_key, (long long)left, (long long)out, out == 1 ? "s" : "");
	sl_buf_free(&who);
	note_members(f, r, &d->m, "has the same term");
	sl_note(f, "%zu %s domain%s among the nodes they may use", have, d->t->topology_key, have == 1 ? "" : "s");
	if (taken)
		sl_note(f, "%zu of them hold a running pod the term selects, which repels theirs", taken);
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
	bool *gone = sl_xcalloc(have + 1, sizeof *gone);
	struct taken tk = {r, d, &domains, gone};
	sl_each_running(r->cx->cluster, r->w[d->m.members[0]]->obj.namespace, &d->t->sel, take_domain, &tk);
	size_t taken = 0;
	for (size_t k = 0; k < have; k++)
		taken += gone[k];
	if (d->m.pods > (int64_t)(have - taken))
		report_domains(r, d, have, taken);
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

static void report_ports(struct sl_release *r, const struct port_set *d, size_t have, size_t taken)
{
	for (size_t i = 0; i < d->m.n; i++)
		r->broken[d->m.members[i]] = true;
	const struct sl_workload *w0 = r->w[d->m.members[0]];
	struct sl_buf who = SL_BUF_INIT;
	set_words(r, &d->m, &who);
	int64_t left = (int64_t)(have - taken), out = d->m.pods - left;
	struct sl_finding *f = sl_rule_report_object(
	    r->self, r->cx, &w0->obj, d->hp->node,
	    "%s bind host port %lld/%s: their %lld pods need a node each, and the nodes they may use offer %lld: "
	    "%lld of them never schedule%s, in any placement",
	    who.s, (long long)d->hp->port, d->hp->proto, (long long)d->m.pods, (long long)left, (long long)out,
	    out == 1 ? "s" : "");
	sl_buf_free(&who);
	note_members(f, r, &d->m, "binds it too");
	sl_note(f, "they may use %zu node%s", have, have == 1 ? "" : "s");
	if (taken)
		sl_note(f, "%zu of them hold a running pod that binds %lld/%s", taken, (long long)d->hp->port,
			d->hp->proto);
	sl_note(f, "NodePorts admits one pod per node for a port and protocol on 0.0.0.0 (every address), whichever "
		   "workload it belongs to");
	sl_note(f, "fix: give the workloads different host ports, drop hostPort (a Service), lower the replicas, or "
		   "admit more nodes");
	offer_copies(r, f, &d->m, out);
}

static void check_port_set(struct sl_release *r, const struct port_set *d, const bool *held)
{
	size_t have = 0, taken = 0;
	for (size_t n = 0; n < r->m->nnodes; n++) {
		bool may = false;
		for (size_t i = 0; i < d->m.n && !may; i++)
			may = r->adm[r->sig[d->m.members[i]] * r->ngroups + r->group[n]];
		if (may) {
			have++;
			taken += held[n];
		}
	}
	if (d->m.pods > (int64_t)(have - taken))
		report_ports(r, d, have, taken);
}

/* The nodes where a running pod that belongs to none of a set's workloads binds its port: one
 * pass over the running pods (the cluster's: bound and not finished) for every shared port. */
struct held_pass {
	const struct sl_release *r;
	const struct port_set *sets;
	struct sl_strpool *keys;
	bool **held; /* per set with two workloads or more: per node */
};

static void mark_held(void *ctx, const struct sl_pod *p, size_t node)
{
	struct held_pass *h = ctx;
	char key[64];
	if (sl_release_evictable(h->r, p))
		return; /* preemption may evict it for a pod of the release: an error must hold even so */
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
		h->held[id][node] |= !own;
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
	bool **held = sl_xcalloc(nsets + 1, sizeof *held);
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
