/* NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity; the matching is
 * component-helpers' nodeaffinity): nodeSelector AND any required nodeSelectorTerm, and the
 * PreFilter that narrows the nodes when every term names them by metadata.name. Preferred
 * terms only score, which is left out. */
#include <string.h>

#include "plugin.h"
#include "status.h"

bool sl_field_matches(const struct sl_requirement *r, const char *node_name)
{
	if (strcmp(r->key, "metadata.name"))
		return false; /* the only field selector the scheduler supports */
	if (r->op == SL_OP_IN)
		return sl_requirement_has_value(r, node_name);
	if (r->op == SL_OP_NOTIN)
		return !sl_requirement_has_value(r, node_name);
	return false;
}

bool sl_term_matches(const struct sl_term *t, const struct sl_node *n)
{
	/* An empty term selects nothing. */
	if (t->nexprs == 0 && t->nfields == 0)
		return false;
	for (size_t i = 0; i < t->nexprs; i++)
		if (!sl_requirement_matches(&t->exprs[i], &n->labels))
			return false;
	for (size_t i = 0; i < t->nfields; i++)
		if (!sl_field_matches(&t->fields[i], n->name))
			return false;
	return true;
}

bool sl_terms_match(const struct sl_term *t, size_t n, const struct sl_node *node)
{
	for (size_t i = 0; i < n; i++)
		if (sl_term_matches(&t[i], node))
			return true;
	return false;
}

bool sl_node_affinity_matches(const struct sl_podspec *p, const struct sl_node *n)
{
	for (size_t i = 0; i < p->node_selector.n; i++) {
		const char *v = sl_labels_get(&n->labels, p->node_selector.v[i].key);
		if (!v || strcmp(v, p->node_selector.v[i].val))
			return false;
	}
	if (!p->has_required_affinity)
		return true;
	for (size_t i = 0; i < p->nterms; i++)
		if (sl_term_matches(&p->terms[i], n))
			return true;
	return false;
}

bool sl_node_affinity_filter(const struct sl_cycle *cy, size_t node, struct sl_nodefit *out)
{
	if (sl_node_affinity_matches(cy->p, cy->m->nodes[node]))
		return true;
	if (out)
		sl_nodefit_fail(out, SL_PL_NODE_AFFINITY, "node(s) didn't match Pod's node affinity/selector");
	return false;
}

bool sl_node_affinity_prefilter(const struct sl_podspec *p, const struct sl_model *m, bool *excluded)
{
	if (!p->has_required_affinity || p->nterms == 0)
		return false;
	for (size_t t = 0; t < p->nterms; t++) {
		bool any = false;
		for (size_t f = 0; f < p->terms[t].nfields; f++) {
			const struct sl_requirement *r = &p->terms[t].fields[f];
			if (!strcmp(r->key, "metadata.name") && r->op == SL_OP_IN)
				any = true;
		}
		if (!any)
			return false; /* this term admits nodes by labels: every node is a candidate
				       */
	}
	for (size_t i = 0; i < m->nnodes; i++) {
		bool in_union = false;
		for (size_t t = 0; t < p->nterms && !in_union; t++) {
			bool in_all = true; /* the term's name sets intersect */
			for (size_t f = 0; f < p->terms[t].nfields; f++) {
				const struct sl_requirement *r = &p->terms[t].fields[f];
				if (!strcmp(r->key, "metadata.name") && r->op == SL_OP_IN &&
				    !sl_requirement_has_value(r, m->nodes[i]->name))
					in_all = false;
			}
			in_union = in_all;
		}
		excluded[i] = !in_union;
	}
	return true;
}
