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
	for (size_t k = 0; k < m->npdbs; k++) {
		struct sl_pdb *p = m->pdbs[k];
		p->countable = true;
		size_t nc = 0;
		const size_t *c = p->sel.nothing ? NULL : candidates(wi, p->obj.namespace, &p->sel, b, &nc);
		for (size_t j = 0; j < nc; j++) {
			const struct sl_workload *w = m->workloads[c[j]];
			if (!sl_selector_matches(&p->sel, &w->pod.labels))
				continue;
			count_selected(p, w);
			sl_grow(&v, &cap, n + 1, sizeof *v);
			v[n++] = (struct pair){k, c[j]};
			start[c[j] + 2]++;
		}
	}
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
	for (size_t k = 0; k < m->nservices; k++) {
		const struct sl_service *s = m->services[k];
		size_t nc = 0;
		const size_t *c = s->sel.nothing ? NULL : candidates(wi, s->obj.namespace, &s->sel, b, &nc);
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
