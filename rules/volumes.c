/* volumes.c — what the rules say of a pod's claims (rules.h): the volumes the scheduler's volume
 * plugins judged, with their claims and PersistentVolumes as related locations, and the note of a
 * run that knows nothing of the claims its workloads mount. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "rules.h"

/* The command that captures what volume binding reads, as docs/inventory.md gives it. */
#define SL_STORAGE_CAPTURE "kubectl get nodes,pv,pvc,storageclass,csinode,csidriver -A -o yaml > cluster.yaml"

/* "pod web-1" for a StatefulSet's ordinal, "its pods" otherwise. */
static void whose(const struct sl_workload *w, const struct sl_volset *v, char *out, size_t n)
{
	if (v->ordinal >= 0)
		snprintf(out, n, "pod %s-%lld", w->obj.name, (long long)v->ordinal);
	else
		snprintf(out, n, "its pods");
}

/* The PV's zone and region labels, "topology.kubernetes.io/zone=a", into b. */
static void zone_labels(const struct sl_pv *pv, struct sl_buf *b)
{
	for (size_t k = 0; k < pv->labels.n; k++) {
		const char *key = pv->labels.v[k].key;
		if (!strcmp(key, "topology.kubernetes.io/zone") || !strcmp(key, "topology.kubernetes.io/region") ||
		    !strcmp(key, "failure-domain.beta.kubernetes.io/zone") ||
		    !strcmp(key, "failure-domain.beta.kubernetes.io/region"))
			sl_buf_printf(b, "%s%s=%s", b->len ? ", " : "", key, pv->labels.v[k].val);
	}
}

/* The first volumes a delayed claim may bind, shown as related locations (a few: a class of local
 * volumes may hold hundreds). */
#define SL_WAIT_SHOWN 3

static size_t wait_volumes(const struct sl_wait_claim *wc, const struct sl_pv *const **out)
{
	*out = wc->prebound ? &wc->prebound : wc->cands;
	size_t n = wc->prebound ? 1 : wc->ncands;
	return n < SL_WAIT_SHOWN ? n : SL_WAIT_SHOWN;
}

/* Whether a delayed claim before v->waits[k] already showed the class or the volume. */
static bool shown_before(const struct sl_volset *v, size_t k, const struct sl_storage_class *sc, const struct sl_pv *pv)
{
	for (size_t j = 0; j < k; j++) {
		if (sc && v->waits[j].cls == sc)
			return true;
		const struct sl_pv *const *c;
		size_t n = wait_volumes(&v->waits[j], &c);
		for (size_t i = 0; pv && i < n; i++)
			if (c[i] == pv)
				return true;
	}
	return false;
}

/* A delayed claim (v->waits[k]): the volumes it may bind and what its class provisions, with the
 * class and volumes as related locations, each once. */
static void note_wait(struct sl_finding *f, const char *who, const struct sl_volset *v, size_t k)
{
	const struct sl_wait_claim *wc = &v->waits[k];
	bool ordinal = v->ordinal >= 0;
	const struct sl_storage_class *sc = wc->cls;
	char bind[512];
	if (wc->prebound)
		snprintf(bind, sizeof bind,
			 "PersistentVolume %s names it in its claimRef, on the nodes its nodeAffinity admits",
			 wc->prebound->obj.name);
	else if (wc->ncands)
		snprintf(bind, sizeof bind,
			 "%zu available PersistentVolume%s match%s it (class, access modes, size, selector), on the "
			 "nodes %s nodeAffinity admits",
			 wc->ncands, wc->ncands == 1 ? "" : "s", wc->ncands == 1 ? "es" : "",
			 wc->ncands == 1 ? "its" : "their");
	else
		snprintf(bind, sizeof bind,
			 "no available PersistentVolume matches it (class, access modes, size, selector)");
	char prov[512];
	if (!wc->provisions)
		snprintf(prov, sizeof prov, "%s makes none", *sc->provisioner ? sc->provisioner : "no provisioner");
	else if (wc->space_checked) {
		struct sl_buf caps = SL_BUF_INIT;
		for (size_t i = 0; i < wc->ncaps && i < SL_WAIT_SHOWN; i++)
			sl_buf_printf(&caps, "%s%s", i ? ", " : "", wc->caps[i]->obj.name);
		if (wc->ncaps > SL_WAIT_SHOWN)
			sl_buf_printf(&caps, " and %zu more", wc->ncaps - SL_WAIT_SHOWN);
		snprintf(prov, sizeof prov,
			 "%s makes one only on the nodes%s where a CSIStorageCapacity of the class allows a volume "
			 "that large (%s%s)",
			 sc->provisioner, sc->ntopo ? " its allowedTopologies admit and" : "",
			 wc->ncaps == 0   ? "none does"
			 : wc->ncaps == 1 ? "one does: "
					  : "these do: ",
			 sl_buf_str(&caps));
		sl_buf_free(&caps);
	} else if (sc->ntopo)
		snprintf(prov, sizeof prov, "%s makes one only on the nodes its allowedTopologies admit",
			 sc->provisioner);
	else
		snprintf(prov, sizeof prov, "%s makes one on any node", sc->provisioner);
	sl_note(
	    f, "%s mount%s claim %s of StorageClass %s (WaitForFirstConsumer, bound when the pod is scheduled): %s; %s",
	    who, ordinal ? "s" : "", wc->name, sc->obj.name, bind, prov);
	const struct sl_ynode *topo = sc->ntopo ? sl_ymap_get(sc->obj.root, "allowedTopologies") : NULL;
	if (topo && !shown_before(v, k, sc, NULL))
		sl_add_related(f, &topo->at, "StorageClass %s: its allowedTopologies", sc->obj.name);
	else if (!topo && sc->obj.name_node && !shown_before(v, k, sc, NULL))
		sl_add_related(f, &sc->obj.name_node->at, "StorageClass %s (provisioner %s)", sc->obj.name,
			       *sc->provisioner ? sc->provisioner : "none");
	for (size_t i = 0; i < wc->ncaps && i < SL_WAIT_SHOWN; i++)
		if (wc->caps[i]->obj.name_node)
			sl_add_related(f, &wc->caps[i]->obj.name_node->at, "CSIStorageCapacity %s",
				       wc->caps[i]->obj.name);
	const struct sl_pv *const *c;
	size_t nc = wait_volumes(wc, &c);
	for (size_t i = 0; i < nc; i++)
		if (c[i]->affinity_node && !shown_before(v, k, NULL, c[i]))
			sl_add_related(f, &c[i]->affinity_node->at, "PersistentVolume %s: its required nodeAffinity",
				       c[i]->obj.name);
}

void sl_note_volumes(struct sl_finding *f, const struct sl_check *cx)
{
	const struct sl_volset *v = cx->a ? cx->a->vol : NULL;
	if (!v)
		return;
	char who[600];
	whose(cx->w, v, who, sizeof who);
	if (v->prefilter) {
		sl_note(f,
			"VolumeBinding's PreFilter rejects %s before any node is filtered (claim %s), "
			"UnschedulableAndUnresolvable",
			who, v->claim ? v->claim : "?");
		const struct sl_pvc *pvc = v->claim ? sl_model_claim(cx->model, cx->w->pod.namespace, v->claim) : NULL;
		static const char *const why[] = {[SL_PF_NOT_FOUND] = "",
						  [SL_PF_LOST] = ", Lost: its volume is gone",
						  [SL_PF_DELETING] = ", being deleted",
						  [SL_PF_UNBOUND] = ", never bound"};
		if (pvc && pvc->obj.name_node)
			sl_add_related(f, &pvc->obj.name_node->at, "PersistentVolumeClaim %s%s", pvc->obj.name,
				       why[v->prefilter_why]);
		const struct sl_storage *s = &cx->model->storage;
		if (v->prefilter_why == SL_PF_UNBOUND && pvc && pvc->storage_class && *pvc->storage_class &&
		    !sl_storage_class(s, pvc->storage_class))
			sl_note(f,
				"claim %s asks for StorageClass %s, which the inventory's classes do not hold: the "
				"scheduler takes it as Immediate and the PV controller provisions nothing for it",
				pvc->obj.name, pvc->storage_class);
		return;
	}
	for (size_t i = 0; i < v->npvs; i++) {
		const struct sl_pv *pv = v->pvs[i];
		struct sl_buf z = SL_BUF_INIT;
		zone_labels(pv, &z);
		sl_note(f, "%s mount%s claim %s, bound to PersistentVolume %s%s%s%s%s", who, v->ordinal >= 0 ? "s" : "",
			v->pv_claim_names[i], pv->obj.name,
			pv->has_affinity ? " (its nodeAffinity pins the pod to the "
					   "nodes it admits)"
					 : "",
			z.len ? " labelled " : "", z.len ? z.s : "", "");
		const struct sl_pvc *pvc = v->pv_claims[i];
		if (pvc && pvc->obj.name_node)
			sl_add_related(f, &pvc->obj.name_node->at,
				       "PersistentVolumeClaim %s, bound to PersistentVolume %s", pvc->obj.name,
				       pv->obj.name);
		if (pv->affinity_node)
			sl_add_related(f, &pv->affinity_node->at, "PersistentVolume %s: its required nodeAffinity",
				       pv->obj.name);
		else if (pv->obj.name_node)
			sl_add_related(f, &pv->obj.name_node->at, "PersistentVolume %s%s%s", pv->obj.name,
				       z.len ? ": " : "", z.len ? z.s : "");
		sl_buf_free(&z);
	}
	if (v->missing_claim) {
		sl_note(f,
			"%s mount%s claim %s, which the cluster bound to PersistentVolume %s; the inventory lists "
			"volumes but not that one",
			who, v->ordinal >= 0 ? "s" : "", v->missing_claim, v->missing_pv);
		const struct sl_pvc *pvc = sl_model_claim(cx->model, cx->w->pod.namespace, v->missing_claim);
		if (pvc && pvc->volume_node)
			sl_add_related(f, &pvc->volume_node->at, "PersistentVolumeClaim %s: volumeName %s",
				       pvc->obj.name, v->missing_pv);
	}
	for (size_t i = 0; i < v->nwaits; i++)
		note_wait(f, who, v, i);
}

size_t sl_volume_rejects(const struct sl_analysis *a, const struct sl_nodefit *fits)
{
	size_t n = 0;
	for (size_t i = 0; fits && i < a->nnodes; i++)
		n += !fits[i].excluded &&
		     (fits[i].plugin == SL_PL_VOLUME_BINDING || fits[i].plugin == SL_PL_VOLUME_ZONE);
	return n;
}

/* The nodes a pod of the workload may use (the node-only filters), against which a class's
 * allowedTopologies are read. */
struct pool_cx {
	const struct sl_model *m;
	const bool *ok;
};

/* Whether the claim's class makes no volume on a node the pod may use: no provisioner, or
 * allowedTopologies that admit none of those nodes. */
static bool makes_none(const struct pool_cx *c, const struct sl_wait_claim *wc)
{
	if (!wc->provisions)
		return true;
	if (!wc->cls->ntopo)
		return false;
	for (size_t k = 0; k < c->m->nnodes; k++)
		if (c->ok[k] && sl_class_admits(wc->cls, &c->m->nodes[k]->labels))
			return false;
	return true;
}

/* The wait claim of set v made from template tmpl that only a free volume can bind, or NULL. */
static const struct sl_wait_claim *pooled(const struct pool_cx *c, const struct sl_volset *v, const char *tmpl)
{
	for (size_t k = 0; k < v->nwaits; k++) {
		const struct sl_wait_claim *wc = &v->waits[k];
		if (wc->tmpl && !strcmp(wc->tmpl, tmpl) && !wc->prebound && makes_none(c, wc))
			return wc;
	}
	return NULL;
}

/* The pool of template tmpl over ws's sets: the pods that need a volume of it and the distinct
 * volumes they may take. */
static void pool_of(const struct pool_cx *c, const struct sl_wstorage *ws, const char *tmpl, struct sl_volume_pool *p)
{
	memset(p, 0, sizeof *p);
	p->tmpl = tmpl;
	p->first = -1;
	size_t cap = 0;
	for (size_t i = 0; i < ws->nsets; i++) {
		const struct sl_wait_claim *wc = pooled(c, &ws->sets[i], tmpl);
		if (!wc)
			continue;
		p->cls = wc->cls;
		p->topo = wc->provisions;
		p->need += ws->sets[i].pods;
		if (p->first < 0 || ws->sets[i].ordinal < p->first)
			p->first = ws->sets[i].ordinal;
		if (!p->assumed)
			p->assumed = ws->sets[i].assumed;
		for (size_t k = 0; k < wc->ncands; k++) {
			size_t j = 0;
			while (j < p->npvs && p->pvs[j] != wc->cands[k])
				j++;
			if (j < p->npvs)
				continue;
			sl_grow(&p->pvs, &cap, p->npvs + 1, sizeof *p->pvs);
			p->pvs[p->npvs++] = wc->cands[k];
		}
	}
}

bool sl_volume_pool_short(const struct sl_check *cx, struct sl_volume_pool *out)
{
	const struct sl_workload *w = cx->w;
	const struct sl_wstorage *ws = w->storage;
	bool found = false;
	bool *ok = sl_xcalloc(cx->model->nnodes + 1, sizeof *ok);
	sl_node_only_verdicts(cx->cluster, &w->pod, ok);
	struct pool_cx c = {cx->model, ok};
	for (size_t i = 0; ws && i < ws->nsets; i++)
		for (size_t k = 0; k < ws->sets[i].nwaits; k++) {
			const struct sl_wait_claim *wc = &ws->sets[i].waits[k];
			if (!wc->tmpl || !pooled(&c, &ws->sets[i], wc->tmpl) || (found && !strcmp(out->tmpl, wc->tmpl)))
				continue;
			struct sl_volume_pool p;
			pool_of(&c, ws, wc->tmpl, &p);
			p.bound = w->replicas - p.need + (int64_t)p.npvs;
			if (p.need > (int64_t)p.npvs && (!found || p.bound < out->bound)) {
				if (found)
					sl_volume_pool_free(out);
				*out = p;
				found = true;
			} else
				sl_volume_pool_free(&p);
		}
	free(ok);
	return found;
}

void sl_volume_pool_free(struct sl_volume_pool *p)
{
	free(p->pvs);
	p->pvs = NULL;
}

void sl_note_volume_pool(struct sl_finding *f, const struct sl_workload *w, const struct sl_volume_pool *p)
{
	const struct sl_storage_class *sc = p->cls;
	const char *prov = *sc->provisioner ? sc->provisioner : "no provisioner";
	sl_note(f,
		"%lld pod%s, from %s-%lld on, mount%s a claim of volumeClaimTemplate %s still to bind: StorageClass %s "
		"binds it when the pod is scheduled (WaitForFirstConsumer), to an available PersistentVolume no "
		"other claim has, and %s makes none%s",
		(long long)p->need, p->need == 1 ? "" : "s", w->obj.name, (long long)p->first, p->need == 1 ? "s" : "",
		p->tmpl, sc->obj.name, prov,
		p->topo ? " on the nodes the pods may use (its allowedTopologies admit none of them)" : "");
	const struct sl_ynode *topo = p->topo ? sl_ymap_get(sc->obj.root, "allowedTopologies") : NULL;
	if (topo)
		sl_add_related(f, &topo->at, "StorageClass %s: its allowedTopologies", sc->obj.name);
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < p->npvs && i < SL_WAIT_SHOWN; i++)
		sl_buf_printf(&b, "%s%s", i ? ", " : "", p->pvs[i]->obj.name);
	if (p->npvs > SL_WAIT_SHOWN)
		sl_buf_printf(&b, " and %zu more", p->npvs - SL_WAIT_SHOWN);
	if (p->npvs)
		sl_note(f, "%zu available PersistentVolume%s match%s those claims (class, access modes, size): %s",
			p->npvs, p->npvs == 1 ? "" : "s", p->npvs == 1 ? "es" : "", b.s);
	else
		sl_note(f, "no available PersistentVolume matches those claims (class, access modes, size)");
	sl_buf_free(&b);
	sl_note(f, "once they are taken, the next pod's claim finds none: node(s) didn't find available persistent "
		   "volumes to bind, on every node it may use");
	if (sc->obj.name_node)
		sl_add_related(f, &sc->obj.name_node->at, "StorageClass %s (provisioner %s)", sc->obj.name, prov);
	for (size_t i = 0; i < p->npvs && i < SL_WAIT_SHOWN; i++)
		if (p->pvs[i]->obj.name_node)
			sl_add_related(f, &p->pvs[i]->obj.name_node->at, "PersistentVolume %s", p->pvs[i]->obj.name);
}

bool sl_note_reach(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_wstorage *ws = w->storage;
	struct sl_buf b = SL_BUF_INIT;
	size_t listed = 0;
	for (size_t k = 0; ws && k < ws->nsets && listed < SL_WAIT_SHOWN; k++) {
		const struct sl_volset *v = &ws->sets[k];
		for (size_t i = 0; i < v->npvs && listed < SL_WAIT_SHOWN; i++, listed++) {
			sl_buf_printf(&b, "%sclaim %s, bound to PersistentVolume %s", b.len ? "; " : "",
				      v->pv_claim_names[i], v->pvs[i]->obj.name);
			if (v->pvs[i]->affinity_node)
				sl_add_related(f, &v->pvs[i]->affinity_node->at,
					       "PersistentVolume %s: its required nodeAffinity", v->pvs[i]->obj.name);
		}
		for (size_t i = 0; i < v->nwaits && listed < SL_WAIT_SHOWN; i++, listed++)
			sl_buf_printf(&b, "%sclaim %s of StorageClass %s (WaitForFirstConsumer)", b.len ? "; " : "",
				      v->waits[i].name, v->waits[i].cls->obj.name);
	}
	if (b.len) {
		char ref[512];
		sl_object_ref(&w->obj, ref, sizeof ref);
		sl_note(f, "%s may use only the nodes its volumes reach: %s", ref, b.s);
	}
	sl_buf_free(&b);
	return listed > 0;
}

bool sl_report_storage_unknown(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_model *m = cx->model;
	size_t at = m->storage.unknown_at;
	if (at >= m->nworkloads || m->workloads[at] != cx->w)
		return false;
	const struct sl_podspec *p = &cx->w->pod;
	const struct sl_ynode *where =
	    p->nvolumes ? p->volumes[0].node : sl_ymap_key(cx->w->spec, "volumeClaimTemplates");
	char ref[512];
	sl_object_ref(&cx->w->obj, ref, sizeof ref);
	struct sl_finding *f =
	    sl_rule_report(self, cx, where,
			   "volume binding was not checked: %s mounts PersistentVolumeClaims and the "
			   "inputs hold none",
			   ref);
	f->level = SL_NOTE;
	sl_note(f, "the scheduler's volume filters (the volumes' node affinity and zones, claims that do not exist "
		   "or are never bound) were not judged for any workload of this run");
	sl_note(f, "capture the cluster's storage and give it as an inventory: " SL_STORAGE_CAPTURE
		   ", then --nodes cluster.yaml");
	return true;
}
