/* runtimeclass.c — reading RuntimeClasses and applying them to the templates that name one (see
 * runtimeclass.h). The fields are node/v1's RuntimeClass (handler, overhead.podFixed,
 * scheduling.nodeSelector, scheduling.tolerations) as ValidateRuntimeClass checks them; the
 * semantics are the admission plugin's setOverhead and setScheduling. */
#include "runtimeclass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "kflavor.h"
#include "model.h"
#include "model_read.h"

bool sl_runtimeclass_kind(const struct sl_object *o)
{
	return !strcmp(o->kind, "RuntimeClass") && sl_object_in_group(o, "node.k8s.io");
}

/* A DNS-1123 label: what ValidateRuntimeClass asks of the handler (the CRI's name for it). */
static bool dns_label(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

int sl_runtimeclass_read(struct sl_read *c, const struct sl_object *o, struct sl_runtimeclass **out)
{
	*out = NULL;
	/* Without a name (a stub in an example of deprecated APIs) it is no class a pod can name: left
	 * out, as the API server would refuse it, without failing the run on it (as a PriorityClass). */
	if (sl_ynull(o->name_node) || !o->name)
		return 0;
	struct sl_runtimeclass *rc = sl_xcalloc(1, sizeof *rc);
	rc->obj = *o;
	const struct sl_ynode *h = sl_ymap_get(o->root, "handler");
	rc->handler = sl_read_str(c, o->root, "handler", "handler");
	if (sl_ynull(h))
		sl_read_error(c, o->kind_node, "RuntimeClass %s has no handler (it is required)",
			      o->name ? o->name : "");
	else if (rc->handler && !dns_label(rc->handler))
		sl_read_error(c, h,
			      "handler \"%s\" must be a DNS label: lower-case letters, digits and '-', starting and "
			      "ending with a letter or digit, at most 63 characters",
			      rc->handler);
	const struct sl_ynode *ovh = sl_read_want(c, o->root, "overhead", SL_YMAP, "overhead");
	rc->podfixed = sl_read_want(c, ovh, "podFixed", SL_YMAP, "overhead.podFixed");
	sl_read_reslist(c, rc->podfixed, "overhead.podFixed", &rc->overhead);
	const struct sl_ynode *sch = sl_read_want(c, o->root, "scheduling", SL_YMAP, "scheduling");
	sl_read_labels(c, sl_read_want(c, sch, "nodeSelector", SL_YMAP, "scheduling.nodeSelector"),
		       "scheduling.nodeSelector", &rc->node_selector);
	sl_read_tolerations(c, sl_read_want(c, sch, "tolerations", SL_YSEQ, "scheduling.tolerations"),
			    "scheduling.tolerations", &rc->tols, &rc->ntols);
	if (c->failed) {
		sl_runtimeclass_free(rc);
		return -1;
	}
	*out = rc;
	return 0;
}

static const struct sl_runtimeclass *find_class(const struct sl_model *m, const char *name)
{
	for (size_t i = m->nruntimeclasses; i-- > 0;) /* the later of two with one name: as kubectl apply */
		if (!strcmp(m->runtimeclasses[i]->obj.name, name))
			return m->runtimeclasses[i];
	return NULL;
}

/* setScheduling: a nodeSelector key the pod gives another value rejects the pod ("conflict:
 * runtimeClass.scheduling.nodeSelector[k] = a; pod.spec.nodeSelector[k] = b"); else the class's
 * entries are added and its tolerations merged. */
static bool set_scheduling(struct sl_podspec *p, const struct sl_runtimeclass *rc)
{
	const struct sl_labels *sel = &rc->node_selector;
	for (size_t i = 0; i < sel->n; i++)
		for (size_t j = 0; j < p->node_selector.n; j++) {
			const struct sl_kv *kv = &p->node_selector.v[j];
			if (!strcmp(kv->key, sel->v[i].key) && strcmp(kv->val, sel->v[i].val)) {
				p->rc_conflict = kv->vnode;
				p->rc_conflict_with = sel->v[i].vnode;
				return false;
			}
		}
	if (sel->n) {
		p->node_selector.v =
		    sl_xrealloc(p->node_selector.v, (p->node_selector.n + sel->n) * sizeof *p->node_selector.v);
		for (size_t i = 0; i < sel->n; i++)
			if (!sl_labels_get(&p->node_selector, sel->v[i].key))
				p->node_selector.v[p->node_selector.n++] = sel->v[i];
	}
	sl_tolerations_merge(p, rc->tols, rc->ntols);
	return true;
}

/* setOverhead: the class's podFixed becomes the pod's overhead, which PodRequests adds to the
 * request. A template that writes spec.overhead itself has it in its request already (and the
 * API rejects it unless it equals the class's). */
static void set_overhead(struct sl_podspec *p, const struct sl_runtimeclass *rc)
{
	if (!rc->podfixed || !sl_ynull(sl_ymap_get(p->node, "overhead")))
		return;
	for (size_t i = 0; i < rc->overhead.n; i++)
		sl_res_add(&p->request, rc->overhead.v[i].name, rc->overhead.v[i].amount, rc->overhead.v[i].node);
}

/* validateOverhead: a pod's spec.overhead is the plugin's to set, so a template that writes one
 * is rejected unless it names a class (rc; NULL: none) whose podFixed it equals. */
static void check_overhead(const struct sl_podspec *p, const struct sl_runtimeclass *rc, struct sl_findings *errs)
{
	const struct sl_ynode *ovh = sl_ymap_get(p->node, "overhead");
	if (sl_ynull(ovh))
		return;
	struct sl_findings none = {0}; /* the spec's own errors were reported as it was read */
	struct sl_read quiet = {NULL, &none, 0};
	struct sl_reslist own = {0};
	sl_read_reslist(&quiet, ovh->kind == SL_YMAP ? ovh : NULL, "overhead", &own);
	bool same = rc && rc->podfixed && own.n == rc->overhead.n && !quiet.failed;
	for (size_t i = 0; same && i < own.n; i++)
		same = sl_res_get(&rc->overhead, own.v[i].name) == own.v[i].amount &&
		       sl_res_find(&rc->overhead, own.v[i].name);
	if (!same)
		sl_input_error(
		    errs, &ovh->at,
		    "spec.overhead is set by the RuntimeClass admission plugin: a template that writes it is "
		    "rejected (\"%s\") unless it names a RuntimeClass whose overhead.podFixed it equals",
		    rc && rc->podfixed ? "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
				       : "pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
					 "Overhead");
	sl_res_free(&own);
	sl_findings_free(&none);
}

void sl_runtimeclass_apply(struct sl_model *m, struct sl_findings *errs)
{
	const struct sl_ynode *unknown = NULL;
	const struct sl_workload *first = NULL;
	size_t nunknown = 0;
	for (size_t i = 0; i < m->nworkloads; i++) {
		struct sl_workload *w = m->workloads[i];
		struct sl_podspec *p = &w->pod;
		const struct sl_ynode *n = sl_ymap_get(p->node, "runtimeClassName");
		if (!sl_yscalar(n) || !*n->str) {
			check_overhead(p, NULL, errs);
			continue;
		}
		const struct sl_runtimeclass *rc = find_class(m, n->str);
		if (rc)
			check_overhead(p, rc, errs);
		else {
			if (!unknown) {
				unknown = n;
				first = w;
			}
			nunknown += !strcmp(n->str, unknown->str);
			continue;
		}
		p->runtime_class = rc;
		if (set_scheduling(p, rc))
			set_overhead(p, rc);
	}
	if (!unknown)
		return;
	char others[64] = "";
	if (nunknown > 1)
		snprintf(others, sizeof others, " and %zu other template%s", nunknown - 1, nunknown > 2 ? "s" : "");
	sl_input_note(errs, &unknown->at,
		      "RuntimeClass %s, named by %s %s/%s%s, is not among the inputs: the overhead, nodeSelector and "
		      "tolerations it may add to the pods are not applied, and they are judged as written (kubectl "
		      "get runtimeclass -o yaml, given with --nodes, adds them)",
		      unknown->str, first->obj.kind, first->obj.namespace, first->obj.name ? first->obj.name : "",
		      others);
}

void sl_runtimeclass_free(struct sl_runtimeclass *rc)
{
	if (!rc)
		return;
	sl_res_free(&rc->overhead);
	free(rc->node_selector.v);
	free(rc->tols);
	free(rc);
}
