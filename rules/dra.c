/* dra.c — the notes on a pod's device claims (Dynamic Resource Allocation) that a placement
 * finding carries: which claim asks for what, how many matching devices each node reaches and
 * how many of them claims already hold, the PreFilter's failure, a selector the CEL subset did
 * not evaluate (counted as matching, so the finding holds whatever it evaluates to), and running
 * pods whose claims the inventory lacks (their devices counted as free: the finding holds with
 * them taken too). */
#include <stdio.h>
#include <string.h>

#include "rules.h"

/* Nodes listed by name in a note before "and N more". */
#define NODES_SHOWN 4

static void note_alt(struct sl_finding *f, const struct sl_dra_view *v, const struct sl_dra_view_alt *o,
		     const struct sl_model *m)
{
	struct sl_buf b = SL_BUF_INIT;
	size_t shown = 0, more = 0, total = 0;
	for (size_t i = 0; i < v->nnodes; i++) {
		if (!o->match[i])
			continue;
		total += o->match[i];
		if (shown++ >= NODES_SHOWN) {
			more++;
			continue;
		}
		sl_buf_printf(&b, "%s%s %zu", b.len ? ", " : "", m->nodes[i]->name, o->match[i]);
		if (o->held[i])
			sl_buf_printf(&b, " (%zu held by claims)", o->held[i]);
	}
	if (more)
		sl_buf_printf(&b, ", and %zu more node%s", more, more == 1 ? "" : "s");
	char want[64];
	if (o->all)
		snprintf(want, sizeof want, "every matching device");
	else
		snprintf(want, sizeof want, "%lld device%s", (long long)o->count, o->count == 1 ? "" : "s");
	const char *whose = o->template ? "each pod's claim from ResourceClaimTemplate" : "the shared ResourceClaim";
	if (o->no_class) {
		sl_buf_reset(&b);
		for (size_t c = 0; c < m->dra.nclasses && c < NODES_SHOWN; c++)
			sl_buf_printf(&b, "%s%s", c ? ", " : "", m->dra.classes[c]->obj.name);
		sl_note(f,
			"%s %s, request %s: %s of DeviceClass %s, which the inputs do not hold (their classes: %s%s)",
			whose, o->from ? o->from : "?", o->name, want, o->cls ? o->cls : "?", sl_buf_str(&b),
			m->dra.nclasses > NODES_SHOWN ? ", …" : "");
	} else if (total)
		sl_note(f, "%s %s, request %s: %s of DeviceClass %s; matching devices the nodes reach: %s", whose,
			o->from ? o->from : "?", o->name, want, o->cls ? o->cls : "?", sl_buf_str(&b));
	else
		sl_note(f,
			"%s %s, request %s: %s of DeviceClass %s; no node reaches a device that matches (%zu device%s "
			"in %zu ResourceSlice%s)",
			whose, o->from ? o->from : "?", o->name, want, o->cls ? o->cls : "?", v->ndevices,
			v->ndevices == 1 ? "" : "s", v->nslices, v->nslices == 1 ? "" : "s");
	sl_buf_free(&b);
}

/* A shared claim allocated already holds its pods to the nodes its allocation admits. */
static void note_allocated(struct sl_finding *f, const struct sl_check *cx)
{
	const struct sl_podspec *p = &cx->w->pod;
	const struct sl_model *m = cx->model;
	for (size_t j = 0; j < p->nclaims; j++) {
		const struct sl_resource_claim *c =
		    p->claims[j].claim_name ? sl_dra_claim(&m->dra, p->namespace, p->claims[j].claim_name) : NULL;
		if (!c || !c->allocated || !c->has_node_selector)
			continue;
		struct sl_buf b = SL_BUF_INIT;
		size_t in = 0;
		for (size_t i = 0; i < m->nnodes; i++)
			if (sl_terms_match(c->node_terms, c->nnode_terms, m->nodes[i]) && in++ < NODES_SHOWN)
				sl_buf_printf(&b, "%s%s", b.len ? ", " : "", m->nodes[i]->name);
		sl_note(f,
			"the shared ResourceClaim %s is allocated already: every pod that uses it runs where its "
			"allocation's nodeSelector admits, %zu of %zu nodes%s%s",
			c->obj.name, in, m->nnodes, in ? ": " : "", sl_buf_str(&b));
		if (c->obj.name_node)
			sl_add_related(f, &c->obj.name_node->at, "ResourceClaim %s, allocated", c->obj.name);
		sl_buf_free(&b);
	}
}

void sl_note_dra(struct sl_finding *f, const struct sl_check *cx)
{
	if (!cx->cluster || !cx->w->pod.nclaims)
		return;
	struct sl_dra_view v;
	sl_dra_view(cx->cluster, &cx->w->pod, &v);
	if (!v.judged) {
		sl_dra_view_free(&v);
		return;
	}
	note_allocated(f, cx);
	if (*v.prefail)
		sl_note(f, "DynamicResources' PreFilter rejects the pod before any node is filtered: %s", v.prefail);
	for (size_t a = 0; a < v.nalts; a++)
		note_alt(f, &v, &v.alts[a], cx->model);
	if (v.unknown) {
		sl_note(f,
			"selector `%s` was not evaluated (%s): the devices it may match are counted as matching, so "
			"this holds whatever it evaluates to",
			v.unknown->expr, v.unknown_why);
		if (v.unknown->node)
			sl_add_related(f, &v.unknown->node->at, "the selector not evaluated");
	}
	if (v.unmodelled) {
		const struct sl_ynode *u = v.unmodelled;
		sl_note(f,
			"%s is read but not modelled: devices are chosen without it, which may find room the cluster "
			"does not have, never less, so this holds regardless",
			u->kind == SL_YSCALAR && u->str ? u->str : "a claim's constraint");
		sl_add_related(f, &u->at, "not modelled");
	}
	if (v.unknown_running)
		sl_note(f,
			"%zu running pod%s name%s claims the inventory does not hold: their devices are counted as "
			"free (kubectl get resourceclaims -A -o yaml adds them)",
			v.unknown_running, v.unknown_running == 1 ? "" : "s", v.unknown_running == 1 ? "s" : "");
	sl_dra_view_free(&v);
}
