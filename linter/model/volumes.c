/* volumes.c — each workload's claims resolved as the scheduler's volume plugins read them
 * (sl_storage_relate, storage.h): a claim bound to a known PersistentVolume pins the pod to what
 * the volume admits; a claim that does not exist, or an Immediate one nothing can ever bind,
 * fails VolumeBinding's PreFilter on every node; an unbound WaitForFirstConsumer claim carries the
 * volumes it may bind to, for the Filter to judge per node. Only what holds in the cluster as it
 * is counts: where the inputs do not say (no storage captured, a volume or class not among them,
 * a provisioner that will make a volume) the claim judges nothing. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_read.h"
#include "pvc.h"
#include "relate.h"

/* The provisioner of classes for volumes made by hand: it creates nothing. */
#define SL_NO_PROVISIONER "kubernetes.io/no-provisioner"

/* A StatefulSet's volumeClaimTemplate: its name and what volume binding reads of its spec (class
 * NULL: unset). unjudged: a selector, or a field the API server would refuse. */
struct vct {
	const char *name, *cls;
	struct sl_access_modes modes;
	int64_t request;
	bool unjudged;
};

/* A claim to resolve: found among the inputs (pvc), or one a StatefulSet's controller will make
 * from the template tmpl. */
struct claim_ref {
	const char *name;
	const struct sl_pvc *pvc;
	const struct vct *tmpl;
};

/* Whether some PersistentVolume of class could still be bound to the claim ns/name of `request`
 * bytes: unclaimed (or claimed by it), not released, large enough. Generous on purpose (access
 * modes and selector are not compared): only "none at all" is a proof. */
static bool some_pv_may_bind(const struct sl_storage *s, const char *cls, const char *ns, const char *name,
			     int64_t request)
{
	size_t n;
	const size_t *of = sl_group_get(&s->pvs_by_class, cls, &n);
	for (size_t k = 0; k < n; k++) {
		const struct sl_pv *pv = s->pvs[of[k]];
		if (!strcmp(pv->phase, "Released") || !strcmp(pv->phase, "Failed"))
			continue;
		if (pv->claim_name && (strcmp(pv->claim_name, name) || strcmp(pv->claim_ns, ns)))
			continue;
		if (pv->capacity >= request)
			return true;
	}
	return false;
}

/* The class of an unbound claim: admission gives an unset class the default, when there is one. */
static const char *claim_class(const struct sl_storage *s, const struct claim_ref *r)
{
	const char *cls = r->pvc ? r->pvc->storage_class : r->tmpl ? r->tmpl->cls : NULL;
	if (!cls)
		cls = s->default_class ? s->default_class->obj.name : "";
	return cls;
}

/* An unbound claim: whether it stays unbound forever with Immediate binding, which fails
 * VolumeBinding's PreFilter ("pod has unbound immediate PersistentVolumeClaims"). */
static bool never_bound(const struct sl_storage *s, const char *ns, const struct claim_ref *r)
{
	const char *cls = claim_class(s, r);
	if (*cls) {
		const struct sl_storage_class *sc = sl_storage_class(s, cls);
		/* A delayed class binds at scheduling; a provisioner makes the volume. A class the
		 * cluster does not have (where the inventory lists classes) is Immediate for the
		 * scheduler (IsDelayBindingMode) and provisions nothing: only a volume of that class
		 * name binds the claim. */
		if (sc ? sc->wait || strcmp(sc->provisioner, SL_NO_PROVISIONER) : !s->classes_listed)
			return false;
	}
	return !some_pv_may_bind(s, cls, ns, r->name, r->pvc ? r->pvc->request : r->tmpl ? r->tmpl->request : 0);
}

/* Whether the volume's access modes hold every mode the claim asks (CheckAccessModes). */
static bool modes_cover(const struct sl_pv *pv, const struct sl_access_modes *m)
{
	return (!m->rwo || pv->rwo) && (!m->rwop || pv->rwop) && (!m->rwx || pv->rwx) && (!m->rox || pv->rox);
}

/* hasEnoughCapacity: where the class's provisioner is a CSIDriver with storageCapacity and the
 * claim asks a size, a node needs a CSIStorageCapacity of the class, large enough, that selects
 * it. Judged only when the inputs hold some CSIStorageCapacity (a cluster's are captured with
 * kubectl get csistoragecapacities -A): otherwise none being there proves nothing. */
static void add_capacities(const struct sl_storage *s, const struct sl_storage_class *sc, int64_t request,
			   struct sl_wait_claim *wc)
{
	const struct sl_csidriver *d = *sc->provisioner ? sl_storage_csidriver(s, sc->provisioner) : NULL;
	if (!wc->provisions || request <= 0 || !d || !d->storage_capacity || !s->ncapacities ||
	    s->kube_minor < SL_KUBE_CSI_STORAGE_CAPACITY)
		return;
	wc->space_checked = true;
	wc->caps = sl_xcalloc(s->ncapacities, sizeof *wc->caps);
	for (size_t i = 0; i < s->ncapacities; i++) {
		const struct sl_csi_capacity *c = s->capacities[i];
		if (c->class_name && !strcmp(c->class_name, sc->obj.name) && c->has_limit && c->limit >= request)
			wc->caps[wc->ncaps++] = c;
	}
}

/* The unbound claim r of the WaitForFirstConsumer class sc, with the volumes FindMatchingVolume
 * could give it on some node: of its class, large enough, and either pre-bound to it (claimRef
 * names it: the only one it takes) or unclaimed, Available, of the access modes it asks, chosen
 * by its selector. Anything the scheduler might read otherwise counts for the claim: a claimRef
 * with a uid (which a claim of that name may not carry) is a volume it may take; several volumes
 * pre-bound to it (the first the informer lists decides) leave it unjudged. */
static void add_wait(const struct sl_storage *s, const char *ns, const struct claim_ref *r,
		     const struct sl_storage_class *sc, struct sl_volset *v)
{
	struct sl_access_modes modes = {0};
	int64_t request;
	const struct sl_selector *sel = NULL;
	if (r->pvc) {
		modes = (struct sl_access_modes){r->pvc->rwo, r->pvc->rwop, r->pvc->rwx, r->pvc->rox};
		request = r->pvc->request;
		sel = r->pvc->has_selector ? &r->pvc->sel : NULL;
	} else {
		if (r->tmpl->unjudged)
			return;
		modes = r->tmpl->modes;
		request = r->tmpl->request;
	}
	struct sl_wait_claim wc = {.name = r->name, .pvc = r->pvc, .cls = sc, .tmpl = r->tmpl ? r->tmpl->name : NULL};
	wc.provisions = *sc->provisioner && strcmp(sc->provisioner, SL_NO_PROVISIONER);
	size_t n, nprebound = 0;
	const size_t *of = sl_group_get(&s->pvs_by_class, sc->obj.name, &n);
	wc.cands = sl_xcalloc(n + 1, sizeof *wc.cands);
	for (size_t k = 0; k < n; k++) {
		const struct sl_pv *pv = s->pvs[of[k]];
		if (pv->capacity < request)
			continue;
		if (pv->claim_ns) {
			if (!pv->claim_name || strcmp(pv->claim_name, r->name) || strcmp(pv->claim_ns, ns))
				continue;
			if (!pv->claim_uid) {
				wc.prebound = pv;
				nprebound++;
				continue;
			}
		} else if ((*pv->phase && strcmp(pv->phase, "Available")) ||
			   (sel && !sl_selector_matches(sel, &pv->labels)) || !modes_cover(pv, &modes))
			continue;
		wc.cands[wc.ncands++] = pv;
	}
	if (nprebound > 1) {
		free(wc.cands);
		return;
	}
	add_capacities(s, sc, request, &wc);
	if (wc.prebound)
		wc.ncands = 0;
	v->waits = sl_xrealloc(v->waits, (v->nwaits + 1) * sizeof *v->waits);
	v->waits[v->nwaits++] = wc;
}

/* What NodeVolumeLimits counts of the claim, once per driver and handle (filterAttachableVolumes'
 * map). */
static void add_attach(const struct sl_storage *s, const struct claim_ref *r, struct sl_volset *v)
{
	struct sl_attach a;
	if (!(r->pvc ? sl_claim_attach(s, r->pvc, r->name, &a) : sl_class_attach(s, r->tmpl->cls, r->name, &a)))
		return;
	a.per_pod = r->tmpl != NULL;
	for (size_t i = 0; i < v->nattach; i++)
		if (v->attach[i].fresh == a.fresh && !strcmp(v->attach[i].driver, a.driver) &&
		    !strcmp(v->attach[i].handle, a.handle))
			return;
	v->attach = sl_xrealloc(v->attach, (v->nattach + 1) * sizeof *v->attach);
	v->attach[v->nattach++] = a;
}

/* What a pod's verdicts rest on that the inventory did not capture (storage.h's pvs_listed,
 * claims_listed), by the verdict it bears on: a claim not found, an Immediate claim never bound,
 * a delayed claim a node cannot bind. The PreFilter's verdict, when there is one, is the pod's. */
enum { SL_ASSUME_MISSING, SL_ASSUME_IMMEDIATE, SL_ASSUME_WAIT, SL_ASSUME_N };

/* Said once per verdict, for the first claim it concerns. */
static void assume(char **slot, const char *what, const char *cls, const char *name)
{
	if (*slot)
		return;
	struct sl_buf b = SL_BUF_INIT;
	if (!strcmp(what, "claim"))
		sl_buf_printf(&b,
			      "the inventory lists no PersistentVolumeClaim, and claim %s may exist in the cluster "
			      "(capture them: kubectl get pvc -A -o yaml)",
			      name);
	else
		sl_buf_printf(
		    &b,
		    "the inventory lists no PersistentVolume, and one of StorageClass %s that matches claim %s "
		    "would bind it (capture them: kubectl get pv -o yaml)",
		    *cls ? cls : "\"\"", name);
	*slot = sl_buf_detach(&b);
}

/* Add what one claim decides to set v: its bound volume, or the PreFilter's reason. */
static void resolve(const struct sl_model *m, const char *ns, const struct claim_ref *r, struct sl_volset *v,
		    bool *unbound_immediate, char **assumed)
{
	const struct sl_storage *s = &m->storage;
	if (r->pvc || r->tmpl)
		add_attach(s, r, v);
	/* podHasPVCs, in the pod's volume order: the first claim not found, Lost or being deleted
	 * is the PreFilter's verdict. */
	if (r->pvc && (r->pvc->lost || r->pvc->deleting) && !v->prefilter && m->kube.minor >= SL_KUBE_CLAIM_LOST) {
		struct sl_buf b = SL_BUF_INIT;
		if (r->pvc->lost)
			sl_buf_printf(&b, "persistentvolumeclaim \"%s\" bound to non-existent persistentvolume \"%s\"",
				      r->name, r->pvc->volume_name ? r->pvc->volume_name : "");
		else
			sl_buf_printf(&b, "persistentvolumeclaim \"%s\" is being deleted", r->name);
		v->prefilter = sl_buf_detach(&b);
		v->prefilter_why = r->pvc->lost ? SL_PF_LOST : SL_PF_DELETING;
		v->claim = r->name;
		return;
	}
	if (!r->pvc && !r->tmpl) {
		if (s->known && !v->prefilter) {
			struct sl_buf b = SL_BUF_INIT;
			sl_buf_printf(&b, "persistentvolumeclaim \"%s\" not found", r->name);
			v->prefilter = sl_buf_detach(&b);
			v->claim = r->name;
			if (!s->claims_listed)
				assume(&assumed[SL_ASSUME_MISSING], "claim", "", r->name);
		}
		return;
	}
	if (r->pvc && r->pvc->volume_name) {
		const struct sl_pv *pv = sl_storage_pv(s, r->pvc->volume_name);
		/* A volume the inventory does not have, where it lists volumes: one the cluster bound
		 * fails every node; one a claim names before the controller bound it (pre-bound, so
		 * Immediate for the scheduler) is never bound. Without volumes listed, nothing. */
		if (!pv && s->pvs_listed && r->pvc->bind_completed && !v->missing_claim) {
			v->missing_claim = r->name;
			v->missing_pv = r->pvc->volume_name;
			v->missing_at = v->npvs;
		} else if (!pv && s->pvs_listed && !r->pvc->bind_completed && !*unbound_immediate) {
			*unbound_immediate = true;
			if (!v->claim)
				v->claim = r->name;
		}
		if (!pv)
			return;
		v->pvs = sl_xrealloc(v->pvs, (v->npvs + 1) * sizeof *v->pvs);
		v->pv_claims = sl_xrealloc(v->pv_claims, (v->npvs + 1) * sizeof *v->pv_claims);
		v->pv_claim_names = sl_xrealloc(v->pv_claim_names, (v->npvs + 1) * sizeof *v->pv_claim_names);
		v->pv_claims[v->npvs] = r->pvc;
		v->pv_claim_names[v->npvs] = r->name;
		v->pvs[v->npvs++] = pv;
		return;
	}
	const struct sl_storage_class *sc = s->known ? sl_storage_class(s, claim_class(s, r)) : NULL;
	if (sc && sc->wait) {
		add_wait(s, ns, r, sc, v);
		/* A node may fail it only for want of a volume: one the inventory did not list. */
		if (!s->pvs_listed && v->nwaits && v->waits[v->nwaits - 1].name == r->name &&
		    (!v->waits[v->nwaits - 1].provisions || sc->ntopo || v->waits[v->nwaits - 1].space_checked))
			assume(&assumed[SL_ASSUME_WAIT], "volume", sc->obj.name, r->name);
		return;
	}
	if (s->known && !*unbound_immediate && never_bound(s, ns, r)) {
		*unbound_immediate = true;
		if (!v->claim)
			v->claim = r->name;
		if (!s->pvs_listed)
			assume(&assumed[SL_ASSUME_IMMEDIATE], "volume", claim_class(s, r), r->name);
	}
}

/* A set's identity: its volumes and its verdict. */
static const char *set_key(struct sl_buf *b, const struct sl_volset *v)
{
	b->len = 0;
	sl_buf_puts(b, v->prefilter ? v->prefilter : "");
	sl_buf_putc(b, v->assumed ? '?' : '.');
	for (size_t i = 0; i < v->npvs; i++) {
		sl_buf_putc(b, '\x1f');
		sl_buf_puts(b, v->pvs[i]->obj.name);
	}
	if (v->missing_claim)
		sl_buf_printf(b, "\x1b%zu\x1f%s", v->missing_at, v->missing_pv);
	/* A delayed claim's name counts only through the volumes pre-bound to it: the ordinals of a
	 * StatefulSet whose claims are all to be made share one set. */
	for (size_t i = 0; i < v->nwaits; i++) {
		const struct sl_wait_claim *wc = &v->waits[i];
		sl_buf_printf(b, "\x1e%s\x1d%s", wc->cls->obj.name, wc->prebound ? wc->prebound->obj.name : "");
		if (wc->space_checked)
			sl_buf_putc(b, '\x19');
		for (size_t k = 0; wc->space_checked && k < wc->ncaps; k++)
			sl_buf_printf(b, "\x1a%p", (const void *)wc->caps[k]);
		for (size_t k = 0; k < wc->ncands; k++) {
			sl_buf_putc(b, '\x1f');
			sl_buf_puts(b, wc->cands[k]->obj.name);
		}
	}
	/* A template's new claim differs by ordinal in name only: each pod has one of its own, and
	 * no volume shares its handle, so the ordinals count alike. */
	for (size_t i = 0; i < v->nattach; i++) {
		const struct sl_attach *a = &v->attach[i];
		sl_buf_printf(b, "\x1c%s\x1f%s", a->driver, a->fresh && a->per_pod ? "" : a->handle);
	}
	return sl_buf_str(b);
}

/* The resolution of one pod: refs[0 .. n) in its volumes' order. Not-found comes first (the
 * PreFilter looks every claim up before it reads any binding), then unbound Immediate claims. */
static void resolve_pod(const struct sl_model *m, const char *ns, const struct claim_ref *refs, size_t n,
			struct sl_volset *v)
{
	memset(v, 0, sizeof *v);
	bool unbound = false;
	char *assumed[SL_ASSUME_N] = {NULL};
	for (size_t i = 0; i < n; i++)
		resolve(m, ns, &refs[i], v, &unbound, assumed);
	size_t which = v->prefilter ? SL_ASSUME_MISSING : unbound ? SL_ASSUME_IMMEDIATE : SL_ASSUME_WAIT;
	if (!v->prefilter && unbound) {
		v->prefilter = sl_xstrdup("pod has unbound immediate PersistentVolumeClaims");
		v->prefilter_why = SL_PF_UNBOUND;
	} else if (!v->prefilter)
		v->claim = NULL;
	v->assumed = assumed[which];
	for (size_t k = 0; k < SL_ASSUME_N; k++)
		if (k != which)
			free(assumed[k]);
}

/* Keep v in ws unless an equal set is there: then it counts one more pod. */
static void add_set(struct sl_wstorage *ws, struct sl_strmap *seen, struct sl_strpool *keys, struct sl_buf *b,
		    struct sl_volset *v, int64_t ordinal, size_t *cap)
{
	const char *key = sl_intern(keys, set_key(b, v));
	size_t at = sl_strmap_put(seen, key, ws->nsets);
	if (at != ws->nsets) {
		ws->sets[at].pods++;
		sl_volset_free(v);
		return;
	}
	v->ordinal = ordinal;
	v->pods = 1;
	sl_grow(&ws->sets, cap, ws->nsets + 1, sizeof *ws->sets);
	ws->sets[ws->nsets++] = *v;
}

/* The ordinals resolved one by one: beyond them every claim is one the controller has still to
 * make (unless an inventory lists more), judged like the last. */
#define SL_STS_ORDINALS 65536

/* What a template's spec asks (modes, size) into t, read as a claim's (pvc.c: the workload's
 * reader reported what is malformed); a selector leaves it unjudged. */
static void read_vct_spec(const struct sl_ynode *spec, struct vct *t)
{
	struct sl_findings none = {0};
	struct sl_read c = {NULL, &none, 0};
	struct sl_pvc v = {0};
	sl_read_claim_spec(&c, spec, "spec", &v);
	t->modes = (struct sl_access_modes){v.rwo, v.rwop, v.rwx, v.rox};
	t->request = v.request;
	t->unjudged = c.failed || v.has_selector;
	sl_selector_free(&v.sel);
	sl_findings_free(&none);
}

/* A StatefulSet's volumeClaimTemplates; a malformed entry was an input error when the workload
 * was read (workload.c), so what is here is well formed. */
static size_t read_vcts(const struct sl_workload *w, struct vct **out)
{
	const struct sl_ynode *seq = sl_ymap_get(w->spec, "volumeClaimTemplates");
	*out = NULL;
	if (strcmp(w->obj.kind, "StatefulSet") || !seq || seq->kind != SL_YSEQ || !seq->n)
		return 0;
	*out = sl_xcalloc(seq->n + 1, sizeof **out);
	size_t n = 0;
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *name = sl_ypath(seq->v[i], "metadata.name");
		const struct sl_ynode *cls = sl_ypath(seq->v[i], "spec.storageClassName");
		if (!name || name->kind != SL_YSCALAR || sl_ynull(name))
			continue;
		(*out)[n].name = name->str;
		(*out)[n].cls = cls && cls->kind == SL_YSCALAR && !sl_ynull(cls) ? cls->str : NULL;
		read_vct_spec(sl_ypath(seq->v[i], "spec"), &(*out)[n++]);
	}
	return n;
}

static bool is_template(const struct vct *t, size_t nt, const char *volume)
{
	for (size_t k = 0; k < nt; k++)
		if (volume && !strcmp(t[k].name, volume))
			return true;
	return false;
}

static void relate_workload(struct sl_model *m, const struct sl_workload *w, struct sl_wstorage *ws)
{
	const struct sl_podspec *p = &w->pod;
	struct vct *t;
	size_t nt = read_vcts(w, &t);
	if (!p->nvolumes && !nt)
		return;
	struct claim_ref *refs = sl_xcalloc(p->nvolumes + nt + 1, sizeof *refs);
	size_t nshared = 0;
	for (size_t i = 0; i < p->nvolumes; i++)
		if (!is_template(t, nt, p->volumes[i].name))
			refs[nshared++] = (struct claim_ref){
			    p->volumes[i].claim, sl_model_claim(m, p->namespace, p->volumes[i].claim), NULL};
	struct sl_strmap seen = {0};
	struct sl_strpool keys = {0};
	struct sl_buf b = SL_BUF_INIT;
	size_t cap = 0, capnames = 0;
	int64_t nord = nt ? w->replicas : 1;
	if (nord > SL_STS_ORDINALS)
		nord = SL_STS_ORDINALS;
	for (int64_t k = 0; k < nord; k++) {
		for (size_t j = 0; j < nt; j++) {
			struct sl_buf nb = SL_BUF_INIT;
			sl_buf_printf(&nb, "%s-%s-%lld", t[j].name, w->obj.name, (long long)k);
			char *name = sl_buf_detach(&nb);
			sl_grow(&ws->names, &capnames, ws->nnames + 1, sizeof *ws->names);
			const struct sl_pvc *pvc = sl_model_claim(m, p->namespace, name);
			refs[nshared + j] = (struct claim_ref){name, pvc, &t[j]};
			ws->names[ws->nnames++] = name;
		}
		struct sl_volset v;
		resolve_pod(m, p->namespace, refs, nshared + nt, &v);
		add_set(ws, &seen, &keys, &b, &v, nt ? k : -1, &cap);
		if (!nt)
			ws->sets[0].pods = w->replicas;
	}
	sl_buf_free(&b);
	sl_strmap_free(&seen);
	sl_strpool_free(&keys);
	free(refs);
	free(t);
}

void sl_storage_relate(struct sl_model *m)
{
	struct sl_storage *s = &m->storage;
	s->any_claim = m->npvcs > 0;
	s->kube_minor = m->kube.minor;
	s->unknown_at = (size_t)-1;
	s->nworkloads = m->nworkloads;
	s->per_workload = sl_xcalloc(m->nworkloads + 1, sizeof *s->per_workload);
	for (size_t i = 0; i < m->nworkloads; i++) {
		const struct sl_workload *w = m->workloads[i];
		if (!s->any_claim && !s->known) {
			/* Nothing to resolve a claim against: said once, at the first workload with one. */
			struct vct *t;
			size_t nt = read_vcts(w, &t);
			free(t);
			if ((w->pod.nvolumes || nt) && s->unknown_at == (size_t)-1)
				s->unknown_at = i;
			continue;
		}
		struct sl_wstorage *ws = &s->per_workload[i];
		relate_workload(m, w, ws);
		/* Only a set that judges something is the engine's to read. */
		bool judges = false;
		for (size_t k = 0; k < ws->nsets && !judges; k++)
			judges = ws->sets[k].npvs || ws->sets[k].nwaits || ws->sets[k].prefilter ||
				 ws->sets[k].nattach || ws->sets[k].missing_claim;
		m->workloads[i]->storage = judges ? ws : NULL;
	}
}
