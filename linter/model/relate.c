/* relate.c — the relations between the model's objects (see relate.h), through indexes built
 * once per model: workloads by namespace and label, autoscalers by target, claims by name. */
#include "relate.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/index.h"

/* Workloads by namespace, by namespace and label key, by namespace, key and value. */
struct workload_index {
	struct sl_group_index ns, key, label;
};

static void index_workloads(const struct sl_model *m, struct workload_index *wi, struct sl_buf *b)
{
	struct sl_group_builder ns = {&wi->ns, NULL, 0, 0}, key = {&wi->key, NULL, 0, 0},
				label = {&wi->label, NULL, 0, 0};
	size_t nl = 0; /* the labels: at most as many keys, and as many pairs */
	for (size_t i = 0; i < m->nworkloads; i++)
		nl += m->workloads[i]->pod.labels.n;
	sl_group_reserve(&ns, 0, m->nworkloads);
	sl_group_reserve(&key, nl, nl);
	sl_group_reserve(&label, nl, nl);
	for (size_t i = 0; i < m->nworkloads; i++) {
		const struct sl_podspec *p = &m->workloads[i]->pod;
		sl_group_add(&ns, p->namespace, i);
		for (size_t l = 0; l < p->labels.n; l++) {
			sl_group_add(&key, sl_group_key(b, p->namespace, p->labels.v[l].key, NULL), i);
			sl_group_add(&label, sl_group_key(b, p->namespace, p->labels.v[l].key, p->labels.v[l].val), i);
		}
	}
	sl_group_finish(&ns);
	sl_group_finish(&key);
	sl_group_finish(&label);
}

/* The workloads of ns a selector may select, in input order: those with the label of a
 * requirement that admits one value, else those with the key of one that needs the key, else all
 * of the namespace. */
static const size_t *candidates(const struct workload_index *wi, const char *ns, const struct sl_selector *sel,
				struct sl_buf *b, size_t *n)
{
	const struct sl_requirement *key = NULL;
	for (size_t r = 0; r < sel->nreqs; r++) {
		const struct sl_requirement *q = &sel->reqs[r];
		if (q->op == SL_OP_IN && q->nvals == 1)
			return sl_group_get(&wi->label, sl_group_key(b, ns, q->key, q->vals[0]), n);
		if (!key && (q->op == SL_OP_IN || q->op == SL_OP_EXISTS))
			key = q;
	}
	if (key)
		return sl_group_get(&wi->key, sl_group_key(b, ns, key->key, NULL), n);
	return sl_group_get(&wi->ns, ns, n);
}

/* Objects of one namespace with equal selectors select the same workloads, and a repository's
 * overlays and copies repeat them (the corpus given ten times over relates each Service and budget
 * to ten copies of every workload it selects: a hundred times the candidates). The first object
 * with a selector matches it; the others take its matches. A key of the namespace and the
 * selector numbers them; selectors_equal confirms (the key's separators are bytes a hostile label
 * may hold). */
struct same_selector {
	struct sl_strpool keys;
	size_t *first; /* per key: the first object with it */
	struct sl_buf b;
};

static bool selectors_equal(const struct sl_selector *a, const struct sl_selector *b)
{
	if (a->nothing != b->nothing || a->nreqs != b->nreqs)
		return false;
	for (size_t r = 0; r < a->nreqs; r++) {
		const struct sl_requirement *x = &a->reqs[r], *y = &b->reqs[r];
		if (x->op != y->op || x->nvals != y->nvals || strcmp(x->key, y->key))
			return false;
		for (size_t v = 0; v < x->nvals; v++)
			if (strcmp(x->vals[v], y->vals[v]))
				return false;
	}
	return true;
}

/* The first of the objects seen (of n in all) whose key is that of object k, with ns and sel: k
 * when there is none. */
static size_t first_same(struct same_selector *ss, size_t n, size_t k, const char *ns, const struct sl_selector *sel)
{
	if (!ss->first)
		ss->first = sl_xcalloc(n + 1, sizeof *ss->first);
	sl_buf_reset(&ss->b);
	sl_buf_puts(&ss->b, ns);
	for (size_t r = 0; r < sel->nreqs; r++) {
		sl_buf_putc(&ss->b, '\x1f');
		sl_buf_putc(&ss->b, (char)('a' + (int)sel->reqs[r].op));
		sl_buf_puts(&ss->b, sel->reqs[r].key);
		for (size_t v = 0; v < sel->reqs[r].nvals; v++) {
			sl_buf_putc(&ss->b, '\x1e');
			sl_buf_puts(&ss->b, sel->reqs[r].vals[v]);
		}
	}
	size_t before = ss->keys.n, id = sl_intern_id(&ss->keys, sl_buf_str(&ss->b));
	if (ss->keys.n > before)
		ss->first[id] = k;
	return ss->first[id];
}

static void same_selector_free(struct same_selector *ss)
{
	sl_strpool_free(&ss->keys);
	free(ss->first);
	sl_buf_free(&ss->b);
}

/* The pods a budget counts, from one more workload it selects (see sl_pdb). */
static void count_selected(struct sl_pdb *p, const struct sl_workload *w)
{
	bool needs_scale = p->max_unavailable.set || p->min_available.percent;
	if (!sl_scaled_kind(w->obj.kind) && (strcmp(w->obj.kind, "Pod") || needs_scale))
		p->countable = false;
	if (!p->countable)
		return;
	p->total += w->replicas;
	p->bare |= !strcmp(w->obj.kind, "Pod");
	p->nselected++;
}

/* Every budget's selected workloads, once; then each workload's budgets, in the budgets' order. */
static void relate_budgets(struct sl_model *m, const struct workload_index *wi, struct sl_buf *b)
{
	size_t *start = sl_xcalloc(m->nworkloads + 2, sizeof *start);
	struct pair {
		size_t pdb, workload;
	} *v = NULL;
	size_t n = 0, cap = 0;
	/* Each budget's pairs, v[from[k]] .. v[from[k + 1] - 1]: a later budget with the same
	 * selector takes the workloads of the first one's. */
	size_t *from = sl_xcalloc(m->npdbs + 1, sizeof *from);
	struct same_selector ss = {.b = SL_BUF_INIT};
	for (size_t k = 0; k < m->npdbs; k++) {
		struct sl_pdb *p = m->pdbs[k];
		p->countable = true;
		from[k] = n;
		if (p->sel.nothing)
			continue;
		size_t f = first_same(&ss, m->npdbs, k, p->obj.namespace, &p->sel), nc = 0;
		bool same = f != k && !strcmp(m->pdbs[f]->obj.namespace, p->obj.namespace) &&
			    selectors_equal(&m->pdbs[f]->sel, &p->sel);
		const size_t *c = same ? NULL : candidates(wi, p->obj.namespace, &p->sel, b, &nc);
		if (same)
			nc = from[f + 1] - from[f];
		for (size_t j = 0; j < nc; j++) {
			/* read before v grows: f's pairs are in v */
			size_t wk = same ? v[from[f] + j].workload : c[j];
			const struct sl_workload *w = m->workloads[wk];
			if (!same && !sl_selector_matches(&p->sel, &w->pod.labels))
				continue;
			count_selected(p, w);
			sl_grow(&v, &cap, n + 1, sizeof *v);
			v[n++] = (struct pair){k, wk};
			start[wk + 2]++;
		}
	}
	same_selector_free(&ss);
	free(from);
	for (size_t i = 2; i < m->nworkloads + 2; i++)
		start[i] += start[i - 1];
	m->workload_pdbs = sl_xcalloc(n + 1, sizeof *m->workload_pdbs);
	for (size_t j = 0; j < n; j++)
		m->workload_pdbs[start[v[j].workload + 1]++] = m->pdbs[v[j].pdb];
	for (size_t i = 0; i < m->nworkloads; i++) {
		m->workloads[i]->pdbs = m->workload_pdbs + start[i];
		m->workloads[i]->npdbs = start[i + 1] - start[i];
	}
	free(v);
	free(start);
}

/* Each workload's Services: those of its namespace whose selector selects its template's labels,
 * their pairs merged into w->svc (pairs that select one pod agree on every key they share). */
static void relate_services(struct sl_model *m, const struct workload_index *wi, struct sl_buf *b)
{
	struct same_selector ss = {.b = SL_BUF_INIT};
	for (size_t k = 0; k < m->nservices; k++) {
		const struct sl_service *s = m->services[k];
		if (s->sel.nothing)
			continue;
		/* One with the same selector before it added its pairs: these are the same. */
		size_t f = first_same(&ss, m->nservices, k, s->obj.namespace, &s->sel), nc = 0;
		if (f != k && !strcmp(m->services[f]->obj.namespace, s->obj.namespace) &&
		    selectors_equal(&m->services[f]->sel, &s->sel))
			continue;
		const size_t *c = candidates(wi, s->obj.namespace, &s->sel, b, &nc);
		for (size_t j = 0; j < nc; j++) {
			struct sl_workload *w = m->workloads[c[j]];
			if (!sl_selector_matches(&s->sel, &w->pod.labels))
				continue;
			for (size_t r = 0; r < s->sel.nreqs; r++) {
				bool have = false;
				for (size_t q = 0; q < w->svc.nreqs && !have; q++)
					have = !strcmp(w->svc.reqs[q].key, s->sel.reqs[r].key);
				if (have)
					continue;
				w->svc.reqs = sl_xrealloc(w->svc.reqs, (w->svc.nreqs + 1) * sizeof *w->svc.reqs);
				const char **v = sl_xcalloc(1, sizeof *v);
				v[0] = s->sel.reqs[r].vals[0];
				w->svc.reqs[w->svc.nreqs++] =
				    (struct sl_requirement){s->sel.reqs[r].key, SL_OP_IN, v, 1, s->sel.reqs[r].node};
			}
		}
	}
	same_selector_free(&ss);
}

static void relate_autoscalers(struct sl_model *m, struct sl_buf *b)
{
	struct sl_group_index gi = {0};
	struct sl_group_builder gb = {&gi, NULL, 0, 0};
	for (size_t k = 0; k < m->nhpas; k++)
		sl_group_add(&gb, sl_group_key(b, m->hpas[k]->namespace, m->hpas[k]->kind, m->hpas[k]->name), k);
	sl_group_finish(&gb);
	for (size_t i = 0; i < m->nworkloads; i++) {
		struct sl_workload *w = m->workloads[i];
		size_t n;
		const size_t *h = sl_group_get(&gi, sl_group_key(b, w->obj.namespace, w->obj.kind, w->obj.name), &n);
		w->hpa = n ? m->hpas[h[0]] : NULL;
	}
	sl_group_free(&gi);
}

void sl_model_relate(struct sl_model *m)
{
	struct sl_buf b = SL_BUF_INIT;
	struct workload_index wi = {0};
	index_workloads(m, &wi, &b);
	relate_budgets(m, &wi, &b);
	relate_services(m, &wi, &b);
	sl_group_free(&wi.ns);
	sl_group_free(&wi.key);
	sl_group_free(&wi.label);
	relate_autoscalers(m, &b);
	struct sl_group_builder pdbs = {&m->pdbs_by_ns, NULL, 0, 0};
	for (size_t k = 0; k < m->npdbs; k++)
		sl_group_add(&pdbs, m->pdbs[k]->obj.namespace, k);
	sl_group_finish(&pdbs);
	sl_model_resolve_priorities(m);
	/* The manifests' claims first: a claim both among them and in an inventory is the manifests'
	 * (what is applied replaces what runs). */
	struct sl_group_builder claims = {&m->claims, NULL, 0, 0};
	for (int inv = 0; inv < 2; inv++)
		for (size_t k = 0; k < m->npvcs; k++)
			if (m->pvcs[k]->inventory == (inv == 1))
				sl_group_add(&claims,
					     sl_group_key(&b, m->pvcs[k]->obj.namespace, m->pvcs[k]->obj.name, NULL),
					     k);
	sl_group_finish(&claims);
	for (size_t i = 0; i < m->npods && !m->pod_namespace_unknown; i++)
		m->pod_namespace_unknown = !sl_model_knows_namespace(m, m->pods[i]->obj.namespace);
	sl_buf_free(&b);
}

const struct sl_pvc *sl_model_claim(const struct sl_model *m, const char *ns, const char *name)
{
	struct sl_buf b = SL_BUF_INIT;
	size_t n;
	const size_t *c = sl_group_get(&m->claims, sl_group_key(&b, ns, name, NULL), &n);
	sl_buf_free(&b);
	return n ? m->pvcs[c[0]] : NULL;
}

bool sl_model_knows_namespace(const struct sl_model *m, const char *ns)
{
	return sl_strmap_get(&m->namespace_index, ns) != (size_t)-1;
}
