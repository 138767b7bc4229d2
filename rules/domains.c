/* domains.c — the topology domains a pod template alone bounds its pods to (sl_static_domains,
 * rules.h): the values of a key its required node affinity and nodeSelector leave, or the node
 * names, which rules compare with what anti-affinity or a spread constraint asks, before any
 * node is read. */
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "rules.h"

#define HOSTNAME_KEY "kubernetes.io/hostname"

static bool str_in(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static void str_add(const char ***v, size_t *n, size_t *cap, const char *s)
{
	if (str_in(*v, *n, s))
		return;
	sl_grow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = s;
}

/* A set of strings that may be "everything" (unbounded). */
struct strset {
	bool bounded;
	const char **v;
	size_t n, cap;
};

/* set := set ∩ vals (the first In on a key sets it). */
static void set_intersect(struct strset *s, const char *const *vals, size_t nvals)
{
	if (!s->bounded) {
		s->bounded = true;
		for (size_t i = 0; i < nvals; i++)
			str_add(&s->v, &s->n, &s->cap, vals[i]);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (str_in(vals, nvals, s->v[i]))
			s->v[k++] = s->v[i];
	s->n = k;
}

static void set_remove(struct strset *s, const char *const *vals, size_t nvals)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!str_in(vals, nvals, s->v[i]))
			s->v[k++] = s->v[i];
	s->n = k;
}

/* What one requirement list (a term's matchExpressions or matchFields) says about `key`: the
 * values it admits, whether it demands the key be absent. NotIn values are removed at the end,
 * since they exclude whatever the In lists admit. */
static void bound_by(const struct sl_requirement *r, size_t n, const char *key, const char *pinned, struct strset *s,
		     bool *absent)
{
	if (pinned)
		set_intersect(s, &pinned, 1);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].key, key) && r[i].op == SL_OP_IN)
			set_intersect(s, r[i].vals, r[i].nvals);
		else if (!strcmp(r[i].key, key) && r[i].op == SL_OP_DOESNOTEXIST)
			*absent = true;
	for (size_t i = 0; i < n && s->bounded; i++)
		if (!strcmp(r[i].key, key) && r[i].op == SL_OP_NOTIN)
			set_remove(s, r[i].vals, r[i].nvals);
}

void sl_static_domains(const struct sl_podspec *p, const char *key, struct sl_domains *out)
{
	memset(out, 0, sizeof *out);
	bool hostname = !strcmp(key, HOSTNAME_KEY);
	const char *pinned = sl_labels_get(&p->node_selector, key);
	size_t capv = 0, capn = 0;
	/* nodeName is left open: such a pod skips the scheduler, and the kubelet's admission does
	 * not check inter-pod anti-affinity. */
	if (!p->has_required_affinity) {
		if (pinned) {
			out->bounded = true;
			str_add(&out->vals, &out->nvals, &capv, pinned);
		}
		return;
	}
	/* The terms are OR'd: the admitted domains are the union of what each term admits, and a
	 * single term that leaves the key open leaves it open for all. */
	out->bounded = true;
	for (size_t t = 0; t < p->nterms && out->bounded; t++) {
		const struct sl_term *term = &p->terms[t];
		struct strset lab = {0}, names = {0};
		bool absent = false, ignored = false;
		if (term->nexprs == 0 && term->nfields == 0) {
			/* An empty term matches no node; leaving the bound open is the cautious reading. */
			out->bounded = false;
			continue;
		}
		bound_by(term->exprs, term->nexprs, key, pinned, &lab, &absent);
		if (hostname)
			bound_by(term->fields, term->nfields, "metadata.name", NULL, &names, &ignored);
		if (absent) {
			/* A node without the label is in no domain, and anti-affinity or spread never
			 * counts it: unbounded, except for the hostname label every kubelet sets. */
			if (lab.bounded || hostname)
				lab.n = 0, lab.bounded = true;
			else
				out->bounded = false;
		}
		if (lab.bounded && (!names.bounded || lab.n <= names.n)) {
			for (size_t i = 0; i < lab.n; i++)
				str_add(&out->vals, &out->nvals, &capv, lab.v[i]);
		} else if (names.bounded) {
			/* Node names bound the nodes, and so the hostname values among them, even where
			 * a hostname label differs from its node's name. */
			for (size_t i = 0; i < names.n; i++)
				str_add(&out->names, &out->nnames, &capn, names.v[i]);
		} else
			out->bounded = false;
		free(lab.v);
		free(names.v);
	}
	if (!out->bounded)
		sl_domains_free(out);
}

void sl_domains_free(struct sl_domains *d)
{
	free(d->vals);
	free(d->names);
	d->vals = d->names = NULL;
	d->nvals = d->nnames = 0;
}

void sl_domains_format(const struct sl_domains *d, struct sl_buf *b)
{
	for (size_t i = 0; i < d->nvals; i++)
		sl_buf_printf(b, "%s%s", i ? ", " : "", d->vals[i]);
	for (size_t i = 0; i < d->nnames; i++)
		sl_buf_printf(b, "%s%s%s", d->nvals || i ? ", " : "", d->nvals ? "node " : "", d->names[i]);
}
