/* dra_view.c — what the DynamicResources filter judges for a pod, as counts the rules' notes and
 * --explain print: per request alternative and node, the matching devices the node reaches and
 * how many of them claims of the inventory hold; the first selector not evaluated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "dra.h"

/* The first selector of sels that is not evaluated on some device of x, into v. */
static void find_unknown(struct sl_dra_view *v, const struct sl_dra_index *x, const struct sl_dra_selector *sels,
			 size_t n)
{
	for (size_t i = 0; i < n && !v->unknown; i++) {
		if (!sels[i].cel)
			continue;
		for (size_t d = 0; d < x->ndev && !v->unknown; d++) {
			char why[160] = "";
			enum sl_cel_verdict r = sl_cel_eval(sels[i].cel, &x->dev[d].d->cel, why, sizeof why);
			if (r == SL_CEL_UNKNOWN || r == SL_CEL_ERROR) {
				v->unknown = &sels[i];
				snprintf(v->unknown_why, sizeof v->unknown_why, "%s%s",
					 r == SL_CEL_ERROR ? "it fails to evaluate on some device: " : "", why);
			}
		}
	}
}

static void view_alt(struct sl_dra_view *v, struct sl_dra_need *nd, const struct sl_cluster *cl, size_t a,
		     const struct sl_dra_req *q)
{
	const struct sl_dra_index *x = cl->dra;
	const struct sl_dra_alt *alt = &nd->alts[a];
	struct sl_dra_view_alt *o = &v->alts[a];
	snprintf(o->name, sizeof o->name, "%s", alt->name);
	o->cls = alt->r->class_name;
	o->all = alt->r->all;
	o->count = alt->r->all ? 0 : alt->r->count;
	o->claim = q->pc ? q->pc->name : NULL;
	o->template = q->pc && q->pc->template_name;
	o->from = q->pc ? (o->template ? q->pc->template_name : q->pc->claim_name) : NULL;
	o->match = sl_xcalloc(cl->n + 1, sizeof *o->match);
	o->held = sl_xcalloc(cl->n + 1, sizeof *o->held);
	o->no_class = !alt->cls;
	if (!alt->cls)
		return;
	for (size_t i = 0; i < cl->n; i++)
		for (size_t j = x->start[i]; j < x->start[i + 1]; j++)
			if (sl_dra_matches(nd, a, x->reach[j])) {
				o->match[i]++;
				o->held[i] += x->taken[x->reach[j]] != 0;
			}
	find_unknown(v, x, alt->cls->selectors, alt->cls->nselectors);
	find_unknown(v, x, alt->r->selectors, alt->r->nselectors);
	if (!v->unmodelled)
		v->unmodelled = q->spec && q->spec->constraints ? q->spec->constraints : alt->r->unmodelled;
	for (size_t d = 0; d < x->ndev && !v->unmodelled; d++)
		if (x->dev[d].d->unmodelled && sl_dra_matches(nd, a, d))
			v->unmodelled = x->dev[d].d->unmodelled;
}

void sl_dra_view(const struct sl_cluster *cl, const struct sl_podspec *p, struct sl_dra_view *v)
{
	memset(v, 0, sizeof *v);
	struct sl_dra_need nd;
	if (!cl || !sl_dra_need_init(&nd, cl->dra, cl->m, p))
		return;
	v->judged = sl_dra_need_judged(&nd);
	v->missing = nd.missing;
	v->missing_template = nd.missing && nd.missing->template_name;
	v->no_classes = nd.no_classes;
	if (!v->judged) {
		sl_dra_need_free(&nd);
		return;
	}
	v->nnodes = cl->n;
	v->unknown_running = cl->dra->unknown_running;
	v->nslices = cl->m->dra.nslices;
	v->ndevices = cl->dra->ndev;
	if (nd.prefail)
		snprintf(v->prefail, sizeof v->prefail, "%s", nd.prefail);
	v->nalts = nd.nalts;
	v->alts = sl_xcalloc(nd.nalts + 1, sizeof *v->alts);
	for (size_t r = 0; r < nd.nreqs; r++)
		for (size_t a = nd.reqs[r].alt0; a < nd.reqs[r].alt0 + nd.reqs[r].nalt; a++)
			view_alt(v, &nd, cl, a, &nd.reqs[r]);
	sl_dra_need_free(&nd);
}

void sl_dra_view_free(struct sl_dra_view *v)
{
	for (size_t a = 0; a < v->nalts; a++) {
		free(v->alts[a].match);
		free(v->alts[a].held);
	}
	free(v->alts);
	memset(v, 0, sizeof *v);
}

bool sl_dra_indexed(const struct sl_cluster *cl)
{
	return cl && cl->dra;
}

int64_t sl_dra_class_free(const struct sl_cluster *cl, size_t node, const char *cls)
{
	const struct sl_device_class *c = cl && cl->dra ? sl_dra_class(&cl->m->dra, cls) : NULL;
	if (!c)
		return 0;
	const struct sl_dra_index *x = cl->dra;
	int64_t n = 0;
	for (size_t j = x->start[node]; j < x->start[node + 1]; j++) {
		size_t d = x->reach[j];
		bool ok = !x->taken[d] || x->shareable[d];
		for (size_t s = 0; ok && s < c->nselectors; s++)
			ok = !c->selectors[s].cel ||
			     sl_cel_eval(c->selectors[s].cel, &x->dev[d].d->cel, NULL, 0) != SL_CEL_FALSE;
		n += ok;
	}
	return n;
}

int64_t sl_dra_class_request(const struct sl_model *m, const struct sl_podspec *p, const char *cls)
{
	int64_t n = 0;
	for (size_t j = 0; j < p->nclaims; j++) {
		const struct sl_claim_template *t =
		    p->claims[j].template_name ? sl_dra_template(&m->dra, p->namespace, p->claims[j].template_name)
					       : NULL;
		for (size_t k = 0; t && k < t->spec.nrequests; k++) {
			const struct sl_dra_request *r = &t->spec.requests[k];
			if (!r->nsub && !r->all && r->class_name && !strcmp(r->class_name, cls))
				n = sl_sat_add(n, r->count);
		}
	}
	return n;
}
