/* contradictory-node-constraints — nodeSelector and required node affinity that no node's labels
 * can ever satisfy.
 *
 * NodeAffinity admits a node when it matches every nodeSelector entry AND at least one
 * nodeSelectorTerm; a term ANDs its matchExpressions and matchFields. So the pod can never be
 * placed when every term, together with the nodeSelector, is unsatisfiable. Constraints on
 * different label keys never interact, so a term is unsatisfiable exactly when the constraints
 * on one of its keys are; per key the question is finite (a value set, an integer range,
 * presence) and is decided without looking at any node. A term that is dead while another term
 * can match is a warning: the pod still schedules, but the term is a bug. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "rules.h"

/* One constraint on one label key (or on the node's name, for matchFields). */
struct con {
	const char *key;
	enum sl_op op;
	const char *const *vals;
	size_t nvals;
	const struct sl_ynode *node;
	long ns;    /* index of the nodeSelector entry it comes from, or -1 */
	bool field; /* matchFields: the node's name, not a label */
};

#define MAX_SHOWN 4

/* Why one term can never match: the constraints that contradict each other and the reason. */
struct verdict {
	bool dead;
	bool empty; /* the term has no requirement at all */
	bool field; /* about matchFields metadata.name */
	const struct con *cs[MAX_SHOWN];
	size_t ncs;
	char why[256];
	struct con *owned; /* the constraints cs points into */
};

static bool in_list(const struct con *c, const char *v)
{
	for (size_t i = 0; i < c->nvals; i++)
		if (!strcmp(c->vals[i], v))
			return true;
	return false;
}

/* strconv.ParseInt(s, 10, 64), as the scheduler parses both sides of Gt/Lt. */
static bool parse_int(const char *s, long long *out)
{
	const char *p = s + (*s == '+' || *s == '-');
	if (!*p)
		return false;
	for (const char *q = p; *q; q++)
		if (*q < '0' || *q > '9')
			return false;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

static void describe(struct sl_buf *b, const struct con *c)
{
	if (c->ns >= 0) {
		sl_buf_printf(b, "nodeSelector %s: %s", c->key, c->vals[0]);
		return;
	}
	sl_buf_printf(b, "%s%s %s", c->field ? "matchFields " : "", c->key, sl_op_name(c->op));
	if (c->op == SL_OP_EXISTS || c->op == SL_OP_DOESNOTEXIST)
		return;
	if ((c->op == SL_OP_GT || c->op == SL_OP_LT) && c->nvals == 1) {
		sl_buf_printf(b, " %s", c->vals[0]);
		return;
	}
	sl_buf_puts(b, " [");
	for (size_t i = 0; i < c->nvals; i++)
		sl_buf_printf(b, "%s%s", i ? ", " : "", c->vals[i]);
	sl_buf_putc(b, ']');
}

static bool requires_label(const struct con *c)
{
	return c->op == SL_OP_IN || c->op == SL_OP_EXISTS || c->op == SL_OP_GT || c->op == SL_OP_LT;
}

static const char *cmp_words(enum sl_op op)
{
	return op == SL_OP_GT ? "greater than" : "less than";
}

/* What the constraints on one key ask, gathered in one pass: the first that requires the label,
 * the first that forbids it, the first In list, and the tightest Gt and Lt bounds. */
struct keyscan {
	const struct con *need, *absent, *in, *gt, *lt;
	long long lo, hi; /* the Gt and Lt bounds, when gt / lt */
};

/* Gathers the keyscan. A single constraint that can never hold on its own (In with no values,
 * Gt/Lt without exactly one integer) ends the scan: true, with why. */
static bool scan_key(const struct con *const *cs, size_t n, struct keyscan *k, char *why, size_t whylen)
{
	memset(k, 0, sizeof *k);
	for (size_t i = 0; i < n; i++) {
		const struct con *c = cs[i];
		if (requires_label(c) && !k->need)
			k->need = c;
		if (c->op == SL_OP_DOESNOTEXIST && !k->absent)
			k->absent = c;
		if (c->op == SL_OP_IN && !k->in)
			k->in = c;
		if (c->op == SL_OP_IN && c->nvals == 0) {
			snprintf(why, whylen, "In with no values matches nothing (the API server rejects it)");
			return true;
		}
		if (c->op != SL_OP_GT && c->op != SL_OP_LT)
			continue;
		long long v;
		if (c->nvals != 1) {
			snprintf(why, whylen, "%s takes exactly one value (the API server rejects it)",
				 sl_op_name(c->op));
			return true;
		}
		if (!parse_int(c->vals[0], &v)) {
			snprintf(why, whylen, "%s compares integers and \"%s\" is not one", sl_op_name(c->op),
				 c->vals[0]);
			return true;
		}
		if (c->op == SL_OP_GT && (!k->gt || v > k->lo)) {
			k->gt = c;
			k->lo = v;
		}
		if (c->op == SL_OP_LT && (!k->lt || v < k->hi)) {
			k->lt = c;
			k->hi = v;
		}
	}
	return false;
}

/* Whether some value the first In list (or the nodeSelector) allows passes every other
 * constraint on the key. */
static bool value_left(const struct con *const *cs, size_t n, const struct keyscan *k)
{
	for (size_t v = 0; v < k->in->nvals; v++) {
		const char *val = k->in->vals[v];
		bool ok = true;
		long long iv;
		for (size_t i = 0; i < n && ok; i++) {
			const struct con *c = cs[i];
			if (c == k->in)
				continue;
			if (c->op == SL_OP_IN)
				ok = in_list(c, val);
			else if (c->op == SL_OP_NOTIN)
				ok = !in_list(c, val);
			else if (c->op == SL_OP_GT || c->op == SL_OP_LT)
				ok = parse_int(val, &iv) && (c->op == SL_OP_GT ? iv > k->lo : iv < k->hi);
		}
		if (ok)
			return true;
	}
	return false;
}

/* Why an In list and one other constraint leave no value, in the words of the pair. */
static void explain_in_pair(const struct con *const *cs, const struct keyscan *k, char *why, size_t whylen)
{
	const struct con *in = k->in, *o = cs[0] == in ? cs[1] : cs[0];
	if (o->op == SL_OP_IN && (in->nvals == 1 || o->nvals == 1)) {
		const struct con *one = in->nvals == 1 ? in : o, *list = one == in ? o : in;
		snprintf(why, whylen, "%s is not %s", one->vals[0],
			 list->nvals == 1 ? "the same value" : "among the values listed");
		if (list->nvals == 1)
			snprintf(why, whylen, "a %s, and %s is not %s",
				 in->field ? "node has one name" : "label has one value", one->vals[0], list->vals[0]);
	} else if (o->op == SL_OP_IN)
		snprintf(why, whylen, "the two lists share no value");
	else if (o->op == SL_OP_NOTIN && in->nvals == 1)
		snprintf(why, whylen, "NotIn excludes %s", in->vals[0]);
	else if (o->op == SL_OP_NOTIN)
		snprintf(why, whylen, "NotIn excludes every value In allows");
	else if (in->nvals == 1)
		snprintf(why, whylen, "\"%s\" is not an integer %s %lld", in->vals[0], cmp_words(o->op),
			 o->op == SL_OP_GT ? k->lo : k->hi);
	else
		snprintf(why, whylen, "no value listed is an integer %s %lld", cmp_words(o->op),
			 o->op == SL_OP_GT ? k->lo : k->hi);
}

/* Whether the constraints (all on one key) can never hold together; when so, why. Label values
 * are free strings, so NotIn alone, Exists, or a non-empty integer range always leave a value
 * (and an integer has endless spellings: 7, 07, +7, which NotIn cannot all list). */
static bool unsat(const struct con *const *cs, size_t n, char *why, size_t whylen)
{
	struct keyscan k;
	if (scan_key(cs, n, &k, why, whylen))
		return true;
	if (k.need && k.absent) {
		snprintf(why, whylen, "DoesNotExist forbids the label that %s requires",
			 k.need->ns >= 0 ? "the nodeSelector" : sl_op_name(k.need->op));
		return true;
	}
	if (k.gt && k.lt && (k.hi <= k.lo || k.hi - k.lo < 2)) {
		snprintf(why, whylen, "no integer is greater than %lld and less than %lld", k.lo, k.hi);
		return true;
	}
	/* Every value the first In list (or the nodeSelector) allows must fail another constraint. */
	if (!k.in || value_left(cs, n, &k))
		return false;
	if (n != 2)
		snprintf(why, whylen, "together they leave no value");
	else
		explain_in_pair(cs, &k, why, whylen);
	return true;
}

/* The smallest explanation among the constraints on one key: one constraint, a pair, or all. */
static bool explain_key(const struct con *const *cs, size_t n, struct verdict *v)
{
	char why[256];
	if (!unsat(cs, n, why, sizeof why))
		return false;
	for (size_t i = 0; i < n; i++)
		if (unsat(&cs[i], 1, v->why, sizeof v->why)) {
			v->cs[0] = cs[i];
			v->ncs = 1;
			return true;
		}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const struct con *pair[2] = {cs[i], cs[j]};
			if (unsat(pair, 2, v->why, sizeof v->why)) {
				v->cs[0] = cs[i];
				v->cs[1] = cs[j];
				v->ncs = 2;
				return true;
			}
		}
	snprintf(v->why, sizeof v->why, "%s", why);
	v->ncs = n < MAX_SHOWN ? n : MAX_SHOWN;
	for (size_t i = 0; i < v->ncs; i++)
		v->cs[i] = cs[i];
	return true;
}

static void add_con(struct con **v, size_t *n, size_t *cap, const struct sl_requirement *r, bool field)
{
	sl_grow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = (struct con){r->key, r->op, r->vals, r->nvals, r->node, -1, field};
}

/* Whether term t, with the nodeSelector entries not masked out, can match no node. */
static void judge_term(const struct sl_podspec *p, const struct sl_term *t, const bool *masked, struct verdict *v)
{
	memset(v, 0, sizeof *v);
	if (t->nexprs == 0 && t->nfields == 0) {
		v->dead = v->empty = true;
		return;
	}
	struct con *all = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < p->node_selector.n; i++) {
		if (masked && masked[i])
			continue;
		const struct sl_kv *kv = &p->node_selector.v[i];
		sl_grow(&all, &cap, n + 1, sizeof *all);
		all[n++] = (struct con){kv->key, SL_OP_IN, &kv->val, 1, kv->knode, (long)i, false};
	}
	for (size_t i = 0; i < t->nexprs; i++)
		add_con(&all, &n, &cap, &t->exprs[i], false);
	size_t nlabels = n;
	for (size_t i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].key, "metadata.name") &&
		    (t->fields[i].op == SL_OP_IN || t->fields[i].op == SL_OP_NOTIN))
			add_con(&all, &n, &cap, &t->fields[i], true);
	const struct con **group = sl_xcalloc(n ? n : 1, sizeof *group);
	bool *seen = sl_xcalloc(n ? n : 1, sizeof *seen);
	for (size_t i = 0; i < n && !v->dead; i++) {
		if (seen[i])
			continue;
		size_t ng = 0;
		/* labels and the node's name are separate namespaces of keys */
		size_t from = i < nlabels ? 0 : nlabels, to = i < nlabels ? nlabels : n;
		for (size_t j = from; j < to; j++)
			if (!seen[j] && !strcmp(all[j].key, all[i].key)) {
				seen[j] = true;
				group[ng++] = &all[j];
			}
		if (explain_key(group, ng, v)) {
			v->dead = true;
			v->field = i >= nlabels;
		}
	}
	free(group);
	free(seen);
	v->owned = all;
}

static void say(struct sl_buf *b, const struct verdict *v, size_t term)
{
	if (v->empty) {
		sl_buf_printf(b, "term %zu is empty and matches no node", term + 1);
		return;
	}
	for (size_t i = 0; i < v->ncs; i++) {
		if (i)
			sl_buf_puts(b, i + 1 == v->ncs ? (v->ncs == 2 ? " contradicts " : " and ") : ", ");
		describe(b, v->cs[i]);
	}
	if (v->ncs == 1)
		sl_buf_puts(b, " matches no node");
	else if (v->ncs > 2)
		sl_buf_puts(b, " contradict each other");
	sl_buf_printf(b, " (%s)", v->why);
}

static const struct sl_ynode *where(const struct sl_podspec *p, size_t term, const struct verdict *v)
{
	/* the later constraint: an expression rather than the nodeSelector entry it contradicts */
	if (!v->empty && v->cs[v->ncs - 1]->node)
		return v->cs[v->ncs - 1]->node;
	return p->terms[term].node ? p->terms[term].node : p->affinity_node;
}

static bool related_already(const struct sl_finding *f, const struct sl_ynode *n)
{
	for (size_t i = 0; i < f->nrelated; i++)
		if (f->related[i].at.src == n->at.src && f->related[i].at.off == n->at.off)
			return true;
	return false;
}

static void relate(struct sl_finding *f, const struct verdict *v, size_t term, const struct sl_term *t)
{
	if (v->empty) {
		if (t->node)
			sl_add_related(f, &t->node->at, "term %zu: no matchExpressions or matchFields", term + 1);
		return;
	}
	for (size_t i = 0; i < v->ncs; i++) {
		if (related_already(f, v->cs[i]->node))
			continue;
		struct sl_buf b = SL_BUF_INIT;
		describe(&b, v->cs[i]);
		if (v->cs[i]->ns >= 0)
			sl_add_related(f, &v->cs[i]->node->at, "%s", b.s);
		else
			sl_add_related(f, &v->cs[i]->node->at, "term %zu: %s", term + 1, b.s);
		sl_buf_free(&b);
	}
}

/* The bytes of one block-mapping entry, whole lines (its comment included), or false when the
 * entry shares a line with anything else. */
static bool entry_lines(const struct sl_source *src, const struct sl_kv *kv, size_t *off, size_t *end)
{
	const char *d = sl_source_text(src);
	if (!d || !kv->knode || !kv->vnode || kv->knode->at.src != src || kv->vnode->at.src != src)
		return false;
	size_t s = kv->knode->at.off;
	while (s > 0 && d[s - 1] != '\n') {
		if (d[s - 1] != ' ' && d[s - 1] != '\t')
			return false;
		s--;
	}
	size_t e = kv->vnode->at.end > kv->knode->at.end ? kv->vnode->at.end : kv->knode->at.end;
	while (e < src->len && (d[e] == ' ' || d[e] == '\t'))
		e++;
	if (e < src->len && d[e] != '\n' && d[e] != '#' && d[e] != '\r')
		return false;
	while (e < src->len && d[e] != '\n')
		e++;
	if (e < src->len)
		e++;
	*off = s;
	*end = e;
	return true;
}

/* Marks the nodeSelector entries that take part in some term's contradiction; how many. */
static size_t contradicting_entries(const struct verdict *vs, size_t nt, bool *mask)
{
	size_t nmask = 0;
	for (size_t t = 0; t < nt; t++)
		for (size_t i = 0; i < vs[t].ncs; i++)
			if (vs[t].cs[i]->ns >= 0 && !mask[vs[t].cs[i]->ns]) {
				mask[vs[t].cs[i]->ns] = true;
				nmask++;
			}
	return nmask;
}

/* Whether every term can match once the masked nodeSelector entries are gone. */
static bool live_without(const struct sl_podspec *p, const bool *mask)
{
	bool all_live = true;
	for (size_t t = 0; t < p->nterms && all_live; t++) {
		struct verdict v;
		judge_term(p, &p->terms[t], mask, &v);
		all_live = !v.dead;
		free(v.owned);
	}
	return all_live;
}

/* Remove the nodeSelector entries that take part in the contradictions when every term can
 * match without them: the node affinity is the more precise statement of where the pod goes, so
 * the entry that fights it is the one to drop. */
static void offer_fix(struct sl_finding *f, const struct sl_workload *w, const struct verdict *vs, size_t nt)
{
	const struct sl_podspec *p = &w->pod;
	/* Without the bytes (the file changed since: sl_source_text) neither the fix nor the note
	 * that tells it can be made. */
	if (!p->node_selector.n || !p->node_selector_node || p->node_selector_node->flow || !sl_source_text(w->obj.src))
		return;
	bool *mask = sl_xcalloc(p->node_selector.n, sizeof *mask);
	size_t nmask = contradicting_entries(vs, nt, mask);
	bool all_live = nmask > 0 && live_without(p, mask);
	size_t *offs = sl_xcalloc(2 * p->node_selector.n, sizeof *offs);
	/* every entry goes: the nodeSelector key goes with them */
	const struct sl_kv whole = {"nodeSelector", NULL, sl_ymap_key(p->node, "nodeSelector"), p->node_selector_node};
	bool all = nmask == p->node_selector.n && entry_lines(w->obj.src, &whole, &offs[0], &offs[1]);
	for (size_t i = 0; i < p->node_selector.n && all_live && !all; i++)
		if (mask[i] && !entry_lines(w->obj.src, &p->node_selector.v[i], &offs[2 * i], &offs[2 * i + 1]))
			all_live = false;
	if (all_live) {
		struct sl_buf b = SL_BUF_INIT;
		for (size_t i = 0; i < p->node_selector.n; i++)
			if (mask[i])
				sl_buf_printf(&b, "%s%s: %s", b.len ? ", " : "", p->node_selector.v[i].key,
					      p->node_selector.v[i].val);
		sl_note(f, "fix: remove the nodeSelector entr%s %s, which the node affinity contradicts",
			nmask == 1 ? "y" : "ies", b.s);
		struct sl_fix *fx = sl_fix_new(f, "Remove the contradicting nodeSelector entries");
		for (size_t i = 0; i < p->node_selector.n; i++)
			if (mask[i] && (!all || i == 0))
				sl_fix_edit(fx, w->obj.src, offs[2 * i], offs[2 * i + 1], "");
		sl_buf_free(&b);
	} else
		sl_note(f, "fix: decide which of the contradicting constraints is meant and correct or drop the "
			   "other (no mechanical fix: either side may be the mistake)");
	free(offs);
	free(mask);
}

/* Required node affinity with an empty nodeSelectorTerms list: the API server rejects it. */
static void report_no_terms(const struct sl_rule *self, struct sl_check *cx, const char *ref,
			    const struct sl_ynode *terms_key)
{
	struct sl_finding *f = sl_rule_report(
	    self, cx, terms_key, "no node can ever match %s: its required node affinity has no nodeSelectorTerms", ref);
	sl_note(f, "the API server rejects it: nodeSelectorTerms must have at least one node selector term; an "
		   "empty list would match no node");
	sl_note(f, "fix: add a term, or remove requiredDuringSchedulingIgnoredDuringExecution");
}

/* What no node matching means for the workload: a DaemonSet runs no pod, others stay Pending. */
static void note_consequence(struct sl_finding *f, const struct sl_workload *w)
{
	if (!strcmp(w->obj.kind, "DaemonSet"))
		sl_note(f, "a node runs a daemon pod only when it matches every nodeSelector entry and at least "
			   "one nodeSelectorTerm (the DaemonSet controller checks the template's node affinity "
			   "before it creates a pod there); no set of node labels does, so it runs no pod on any "
			   "cluster");
	else
		sl_note(f, "NodeAffinity admits a node only when it matches every nodeSelector entry and at least "
			   "one nodeSelectorTerm (the expressions of a term all hold); no set of node labels does, "
			   "so every pod of it stays Pending on any cluster (\"node(s) didn't match Pod's node "
			   "affinity/selector\")");
}

/* Every term dead: no node can ever match. One term is explained in the message, several one
 * note each. */
static void report_never(const struct sl_rule *self, struct sl_check *cx, const char *ref, const struct verdict *vs,
			 const struct sl_ynode *terms_key)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	size_t nt = p->nterms;
	struct sl_buf b = SL_BUF_INIT;
	struct sl_finding *f;
	if (nt == 1) {
		say(&b, &vs[0], 0);
		f = sl_rule_report(self, cx, where(p, 0, &vs[0]), "no node can ever match %s: %s", ref, b.s);
	} else
		f = sl_rule_report(self, cx, terms_key,
				   "no node can ever match %s: each of its %zu nodeSelectorTerms contradicts "
				   "itself or the nodeSelector",
				   ref, nt);
	for (size_t t = 0; nt > 1 && t < nt; t++) {
		sl_buf_reset(&b);
		say(&b, &vs[t], t);
		sl_note(f, "term %zu: %s", t + 1, b.s);
	}
	note_consequence(f, w);
	for (size_t t = 0; t < nt; t++)
		relate(f, &vs[t], t, &p->terms[t]);
	offer_fix(f, w, vs, nt);
	sl_buf_free(&b);
}

/* Some terms dead beside live ones: the pod schedules, so one warning per dead term. */
static void report_dead_terms(const struct sl_rule *self, struct sl_check *cx, const char *ref,
			      const struct verdict *vs)
{
	const struct sl_podspec *p = &cx->w->pod;
	size_t nt = p->nterms;
	for (size_t t = 0; t < nt; t++) {
		if (!vs[t].dead)
			continue;
		struct sl_buf b = SL_BUF_INIT;
		say(&b, &vs[t], t);
		struct sl_finding *f = sl_rule_report(
		    self, cx, where(p, t, &vs[t]), "node affinity term %zu of %s can never match: %s", t + 1, ref, b.s);
		if (f->level > SL_WARNING)
			f->level = SL_WARNING;
		sl_note(f,
			"the pod still schedules where another of its %zu terms matches (terms are ORed); "
			"this one is dead and likely not what was meant",
			nt);
		relate(f, &vs[t], t, &p->terms[t]);
		sl_note(f, "fix: correct the term, or remove it");
		sl_buf_free(&b);
	}
}

/* The RuntimeClass the pods name sets a nodeSelector key the template gives another value: the
 * admission plugin rejects every pod ("conflict: runtimeClass.scheduling.nodeSelector[k] = …").
 * The fix drops the template's entry (the class's value is what every pod of the class gets). */
static void report_runtimeclass(const struct sl_rule *self, struct sl_check *cx, const char *ref)
{
	const struct sl_workload *w = cx->w;
	const struct sl_podspec *p = &w->pod;
	const struct sl_kv *kv = NULL;
	for (size_t i = 0; i < p->node_selector.n && !kv; i++)
		if (p->node_selector.v[i].vnode == p->rc_conflict)
			kv = &p->node_selector.v[i];
	if (!kv)
		return;
	const char *k = kv->key, *rcname = p->runtime_class->obj.name;
	struct sl_finding *f = sl_rule_report(
	    self, cx, p->rc_conflict,
	    "no pod of %s is ever created: its nodeSelector %s=%s conflicts with %s=%s of RuntimeClass %s", ref, k,
	    kv->val, k, p->rc_conflict_with->str, rcname);
	sl_note(f,
		"the RuntimeClass admission plugin merges the class's scheduling.nodeSelector into the pod's and "
		"rejects a pod that gives one of its keys another value (\"conflict: "
		"runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s\")",
		k, p->rc_conflict_with->str, k, kv->val);
	sl_add_related(f, &p->rc_conflict_with->at, "RuntimeClass %s sets %s=%s here", rcname, k,
		       p->rc_conflict_with->str);
	/* The only entry goes with the nodeSelector key. */
	const struct sl_kv whole = {"nodeSelector", NULL, sl_ymap_key(p->node, "nodeSelector"), p->node_selector_node};
	size_t off, end;
	if (!p->node_selector_node || p->node_selector_node->flow || !sl_source_text(w->obj.src) ||
	    !entry_lines(w->obj.src, p->node_selector.n == 1 ? &whole : kv, &off, &end)) {
		sl_note(f, "fix: drop %s from the nodeSelector (the class sets it), or name a RuntimeClass that agrees",
			k);
		return;
	}
	sl_note(f,
		"fix: remove the nodeSelector entry %s: %s (RuntimeClass %s gives every pod %s: %s), or name a "
		"RuntimeClass that agrees",
		k, kv->val, rcname, k, p->rc_conflict_with->str);
	struct sl_fix *fx = sl_fix_new(f, "Remove the nodeSelector entry the RuntimeClass contradicts");
	sl_fix_edit(fx, w->obj.src, off, end, "");
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_podspec *p = &cx->w->pod;
	char ref[512];
	if (p->rc_conflict) {
		sl_object_ref(&cx->w->obj, ref, sizeof ref);
		report_runtimeclass(self, cx, ref);
		return;
	}
	if (!p->has_required_affinity)
		return;
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	const struct sl_ynode *terms_key = sl_ymap_key(p->affinity_node, "nodeSelectorTerms");
	if (p->nterms == 0) {
		report_no_terms(self, cx, ref, terms_key);
		return;
	}
	size_t nt = p->nterms, ndead = 0;
	struct verdict *vs = sl_xcalloc(nt, sizeof *vs);
	for (size_t t = 0; t < nt; t++) {
		judge_term(p, &p->terms[t], NULL, &vs[t]);
		ndead += vs[t].dead;
	}
	if (ndead == nt)
		report_never(self, cx, ref, vs, terms_key);
	else
		report_dead_terms(self, cx, ref, vs);
	for (size_t t = 0; t < nt; t++)
		free(vs[t].owned);
	free(vs);
}

const struct sl_rule sl_rule_contradictory_node_constraints = {
    .id = "contradictory-node-constraints",
    .name = "NodeConstraintsContradict",
    .summary = "nodeSelector and required node affinity that no node's labels can satisfy.",
    .description = "Every nodeSelectorTerm of the required node affinity, taken with the nodeSelector, holds "
		   "constraints on one label key (or on metadata.name) that no value satisfies: In lists with no "
		   "common value, NotIn excluding what In allows, a label required and forbidden, a Gt/Lt range "
		   "without an integer, a nodeSelector value outside an In list. No node can ever match, on any "
		   "cluster. A single dead term beside live ones is reported as a warning.",
    .help = "Decide which constraint is meant and correct or remove the other. When the nodeSelector entry is "
	    "the one that contradicts an otherwise satisfiable node affinity, the suggested fix removes it.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
