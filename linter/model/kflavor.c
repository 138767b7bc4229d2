/* kflavor.c — reading Kueue's ResourceFlavors and what they do to the workloads Kueue admits (see
 * kflavor.h). ResourceFlavorSpec names the fields (nodeLabels, nodeTaints, tolerations); the
 * flavor assigner's flavor check (untolerated nodeTaints, then flavorSelector against the
 * nodeLabels) and podset.FromAssignment / Merge (nodeLabels into nodeSelector, tolerations
 * appended unless the same one is there) give the semantics. */
#include "kflavor.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "gang.h"
#include "model.h"
#include "model_read.h"

static bool one_of(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return true;
	return false;
}

/* The string at key of map t, "" when absent. */
static const char *str_at(struct sl_read *c, const struct sl_ynode *t, const char *key, const char *path)
{
	const char *s = sl_read_str(c, t, key, path);
	return s ? s : "";
}

static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

/* spec.nodeTaints: key and effect are required (the API's taint validation). */
static void read_taints(struct sl_read *c, const struct sl_ynode *seq, struct sl_kflavor *f)
{
	if (!seq)
		return;
	f->taints = sl_xcalloc(seq->n, sizeof *f->taints);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *t = seq->v[i];
		if (t->kind != SL_YMAP) {
			sl_read_error(c, t, "spec.nodeTaints[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
			continue;
		}
		struct sl_taint ta = {str_at(c, t, "key", "nodeTaints[].key"),
				      str_at(c, t, "value", "nodeTaints[].value"),
				      str_at(c, t, "effect", "nodeTaints[].effect"), t};
		if (!*ta.key)
			sl_read_error(c, t, "spec.nodeTaints[%zu] has no key", i);
		else if (!one_of(ta.effect, effects, 3))
			sl_read_error(c, sl_ymap_get(t, "effect") ? sl_ymap_get(t, "effect") : t,
				      "spec.nodeTaints[%zu].effect must be NoSchedule, PreferNoSchedule or NoExecute, "
				      "not \"%s\"",
				      i, ta.effect);
		else
			f->taints[f->ntaints++] = ta;
	}
}

void sl_read_tolerations(struct sl_read *c, const struct sl_ynode *seq, const char *path, struct sl_toleration **out,
			 size_t *n)
{
	static const char *const ops[] = {"", "Equal", "Exists"};
	if (!seq)
		return;
	*out = sl_xcalloc(seq->n, sizeof **out);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *t = seq->v[i];
		if (t->kind != SL_YMAP) {
			sl_read_error(c, t, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(t));
			continue;
		}
		struct sl_toleration to = {
		    str_at(c, t, "key", "tolerations[].key"), str_at(c, t, "operator", "tolerations[].operator"),
		    str_at(c, t, "value", "tolerations[].value"), str_at(c, t, "effect", "tolerations[].effect"), t};
		const struct sl_ynode *op = sl_ymap_get(t, "operator"), *eff = sl_ymap_get(t, "effect");
		if (!one_of(to.op, ops, 3))
			sl_read_error(c, op, "%s[%zu].operator must be Equal or Exists, not \"%s\"", path, i, to.op);
		else if (!strcmp(to.op, "Exists") && *to.value)
			sl_read_error(c, sl_ymap_get(t, "value"),
				      "%s[%zu]: a toleration with operator Exists takes no value", path, i);
		else if (!*to.key && strcmp(to.op, "Exists"))
			sl_read_error(c, t, "%s[%zu]: an empty key needs operator Exists", path, i);
		else if (*to.effect && !one_of(to.effect, effects, 3))
			sl_read_error(c, eff,
				      "%s[%zu].effect must be NoSchedule, PreferNoSchedule or NoExecute, not \"%s\"",
				      path, i, to.effect);
		else
			(*out)[(*n)++] = to;
	}
}

int sl_kflavor_read(struct sl_read *c, const struct sl_object *o, struct sl_model *m)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_kflavor *f = sl_xcalloc(1, sizeof *f);
	f->obj = *o;
	sl_read_labels(c, sl_read_want(c, spec, "nodeLabels", SL_YMAP, "spec.nodeLabels"), "spec.nodeLabels",
		       &f->node_labels);
	read_taints(c, sl_read_want(c, spec, "nodeTaints", SL_YSEQ, "spec.nodeTaints"), f);
	sl_read_tolerations(c, sl_read_want(c, spec, "tolerations", SL_YSEQ, "spec.tolerations"), "spec.tolerations",
			    &f->tols, &f->ntols);
	if (c->failed) {
		sl_kflavor_free(f);
		return -1;
	}
	sl_grow(&m->kflavors, &m->capkflavors, m->nkflavors + 1, sizeof *m->kflavors);
	m->kflavors[m->nkflavors++] = f;
	return 0;
}

static bool tolerated(const struct sl_toleration *t, size_t n, const struct sl_taint *taint)
{
	for (size_t i = 0; i < n; i++)
		if (sl_tolerates(&t[i], taint))
			return true;
	return false;
}

/* flavorSelector: the pods' required node affinity, cut down to the flavor's label keys, matched
 * against a node that carries only the flavor's labels. A term left without expressions makes
 * the whole affinity match (the terms are ORed); matchFields are not kept. */
static bool affinity_fits(const struct sl_kflavor *f, const struct sl_podspec *p, const char **why)
{
	const struct sl_labels *l = &f->node_labels;
	const char *first = NULL;
	for (size_t t = 0; t < p->nterms; t++) {
		size_t kept = 0;
		for (size_t e = 0; e < p->terms[t].nexprs; e++)
			if (sl_labels_get(l, p->terms[t].exprs[e].key))
				kept++;
		if (!kept)
			return true;
	}
	for (size_t t = 0; t < p->nterms; t++) {
		bool all = true;
		for (size_t e = 0; e < p->terms[t].nexprs && all; e++) {
			const struct sl_requirement *r = &p->terms[t].exprs[e];
			if (sl_labels_get(l, r->key) && !sl_requirement_matches(r, l)) {
				all = false;
				first = first ? first : r->key;
			}
		}
		if (all)
			return true;
	}
	*why = first;
	return p->nterms == 0;
}

enum sl_kfit sl_kflavor_fit(const struct sl_kflavor *f, const struct sl_podspec *p, const char **why)
{
	*why = NULL;
	if (!f)
		return SL_KFIT_MISSING;
	for (size_t i = 0; i < f->ntaints; i++) {
		const struct sl_taint *t = &f->taints[i];
		if (strcmp(t->effect, "NoSchedule") && strcmp(t->effect, "NoExecute"))
			continue;
		if (!tolerated(p->tols, p->ntols, t) && !tolerated(f->tols, f->ntols, t)) {
			*why = t->key;
			return SL_KFIT_TAINT;
		}
	}
	for (size_t i = 0; i < p->node_selector.n; i++) {
		const char *v = sl_labels_get(&f->node_labels, p->node_selector.v[i].key);
		if (v && strcmp(v, p->node_selector.v[i].val)) {
			*why = p->node_selector.v[i].key;
			return SL_KFIT_LABELS;
		}
	}
	return affinity_fits(f, p, why) ? SL_KFIT_OK : SL_KFIT_LABELS;
}

bool sl_kflavor_adds(const struct sl_kflavor *f)
{
	return f && (f->node_labels.n || f->ntols);
}

static const struct sl_kflavor *find_flavor(const struct sl_model *m, const char *name)
{
	for (size_t i = m->nkflavors; i-- > 0;) /* the later of two with one name: as kubectl apply */
		if (m->kflavors[i]->obj.name && !strcmp(m->kflavors[i]->obj.name, name))
			return m->kflavors[i];
	return NULL;
}

static bool same_toleration(const struct sl_toleration *a, const struct sl_toleration *b)
{
	return !strcmp(a->key, b->key) && !strcmp(a->op, b->op) && !strcmp(a->value, b->value) &&
	       !strcmp(a->effect, b->effect);
}

void sl_tolerations_merge(struct sl_podspec *p, const struct sl_toleration *t, size_t n)
{
	if (!n)
		return;
	p->tols = sl_xrealloc(p->tols, (p->ntols + n) * sizeof *p->tols);
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = 0; j < p->ntols && !dup; j++)
			dup = same_toleration(&p->tols[j], &t[i]);
		if (!dup)
			p->tols[p->ntols++] = t[i];
	}
}

/* Admission's merge: the nodeLabels into the nodeSelector (a key it has already keeps its value:
 * the flavor fits, so that value is the flavor's), the tolerations appended unless present. */
static void apply(struct sl_podspec *p, const struct sl_kflavor *f)
{
	if (f->node_labels.n) {
		p->node_selector.v = sl_xrealloc(p->node_selector.v,
						 (p->node_selector.n + f->node_labels.n) * sizeof *p->node_selector.v);
		for (size_t i = 0; i < f->node_labels.n; i++)
			if (!sl_labels_get(&p->node_selector, f->node_labels.v[i].key))
				p->node_selector.v[p->node_selector.n++] = f->node_labels.v[i];
	}
	sl_tolerations_merge(p, f->tols, f->ntols);
}

/* Every distinct flavor of every resource group of w's ClusterQueue, judged for w's pods. */
static void judge_choices(const struct sl_model *m, struct sl_workload *w)
{
	struct sl_wgang *wg = sl_wgang_mut(w);
	const struct sl_kqueue *cq = wg->kqueue;
	size_t cap = 0;
	for (size_t i = 0; i < cq->nq; i++) {
		const struct sl_kquota *q = &cq->q[i];
		bool seen = false;
		for (size_t j = 0; j < wg->nkchoice && !seen; j++)
			seen = wg->kchoice[j].group == q->group && !strcmp(wg->kchoice[j].name, q->flavor);
		if (seen)
			continue;
		sl_grow(&wg->kchoice, &cap, wg->nkchoice + 1, sizeof *wg->kchoice);
		struct sl_kchoice *k = &wg->kchoice[wg->nkchoice++];
		*k = (struct sl_kchoice){q->group, q->flavor, find_flavor(m, q->flavor), SL_KFIT_OK, NULL, false};
		k->fit = sl_kflavor_fit(k->f, &w->pod, &k->why);
	}
	/* A group is used when the pods ask for one of its resources (the pods resource: always). */
	for (size_t i = 0; i < cq->nq; i++) {
		const char *r = cq->q[i].resource;
		if (strcmp(r, "pods") && sl_res_get(&w->pod.request, r) <= 0)
			continue;
		for (size_t j = 0; j < wg->nkchoice; j++)
			if (wg->kchoice[j].group == cq->q[i].group)
				wg->kchoice[j].used = true;
	}
}

/* The kinds whose pods Kueue admits (and never-admitted judges): not a DaemonSet's, a ReplicaSet's
 * or a ReplicationController's, whatever label they carry. */
static bool kueue_kind(const char *k)
{
	return !strcmp(k, "Job") || !strcmp(k, "CronJob") || !strcmp(k, "StatefulSet") || !strcmp(k, "Deployment") ||
	       !strcmp(k, "Pod");
}

void sl_kflavor_bind(const struct sl_model *m, struct sl_workload *w)
{
	if (!kueue_kind(w->obj.kind))
		return;
	judge_choices(m, w);
	const struct sl_wgang *wg = sl_wgang(w);
	bool single = true, adds = false;
	for (size_t i = 0; i < wg->nkchoice; i++) {
		const struct sl_kchoice *k = &wg->kchoice[i];
		if (k->fit == SL_KFIT_MISSING)
			return; /* the ClusterQueue is inactive: Kueue admits nothing (never-admitted) */
		if (!k->used)
			continue;
		size_t ok = 0;
		for (size_t j = 0; j < wg->nkchoice; j++)
			ok += wg->kchoice[j].group == k->group && wg->kchoice[j].fit == SL_KFIT_OK;
		if (!ok)
			return; /* never admitted (never-admitted): where it would run is moot */
		single = single && ok == 1;
		adds = adds || (k->fit == SL_KFIT_OK && sl_kflavor_adds(k->f));
	}
	if (!adds)
		return;
	if (!single) {
		w->kplace = SL_KPLACE_OPEN;
		return;
	}
	w->kplace = SL_KPLACE_SET;
	for (size_t i = 0; i < wg->nkchoice; i++) {
		const struct sl_kchoice *k = &wg->kchoice[i];
		bool again = false; /* one flavor in two groups: merged once */
		for (size_t j = 0; j < i && !again; j++)
			again = wg->kchoice[j].used && wg->kchoice[j].fit == SL_KFIT_OK && wg->kchoice[j].f == k->f;
		if (k->used && k->fit == SL_KFIT_OK && !again)
			apply(&w->pod, k->f);
	}
}

void sl_kflavor_free(struct sl_kflavor *f)
{
	free(f->node_labels.v);
	free(f->taints);
	free(f->tols);
	free(f);
}
