/* volumes.c — each workload's claims resolved as the scheduler's volume plugins read them
 * (sl_storage_relate, storage.h): a claim bound to a known PersistentVolume pins the pod to what
 * the volume admits; a claim that does not exist, or an Immediate one nothing can ever bind,
 * fails VolumeBinding's PreFilter on every node. Only what holds in the cluster as it is counts:
 * where the inputs do not say (no storage captured, a volume or class not among them, a
 * WaitForFirstConsumer claim, a provisioner that will make a volume) the claim judges nothing. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "relate.h"

/* The provisioner of classes for volumes made by hand: it creates nothing. */
#define SL_NO_PROVISIONER "kubernetes.io/no-provisioner"

/* A claim to resolve: found among the inputs (pvc), or one a StatefulSet's controller will make
 * from a template whose class is tmpl_class (NULL: unset). */
struct claim_ref {
	const char *name;
	const struct sl_pvc *pvc;
	bool from_template;
	const char *tmpl_class;
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

/* An unbound claim: whether it stays unbound forever with Immediate binding, which fails
 * VolumeBinding's PreFilter ("pod has unbound immediate PersistentVolumeClaims"). */
static bool never_bound(const struct sl_storage *s, const char *ns, const struct claim_ref *r)
{
	const char *cls = r->pvc ? r->pvc->storage_class : r->tmpl_class;
	if (!cls) /* admission gives an unset class the default, when there is one */
		cls = s->default_class ? s->default_class->obj.name : "";
	if (*cls) {
		const struct sl_storage_class *sc = sl_storage_class(s, cls);
		/* A class not among the inputs is the scheduler's error, not this verdict; a delayed
		 * class binds at scheduling; a provisioner makes the volume. */
		if (!sc || sc->wait || strcmp(sc->provisioner, SL_NO_PROVISIONER))
			return false;
	}
	return !some_pv_may_bind(s, cls, ns, r->name, r->pvc ? r->pvc->request : 0);
}

/* What NodeVolumeLimits counts of the claim, once per driver and handle (filterAttachableVolumes'
 * map). */
static void add_attach(const struct sl_storage *s, const struct claim_ref *r, struct sl_volset *v)
{
	struct sl_attach a;
	if (!(r->pvc ? sl_claim_attach(s, r->pvc, r->name, &a) : sl_class_attach(s, r->tmpl_class, r->name, &a)))
		return;
	a.per_pod = r->from_template;
	for (size_t i = 0; i < v->nattach; i++)
		if (v->attach[i].fresh == a.fresh && !strcmp(v->attach[i].driver, a.driver) &&
		    !strcmp(v->attach[i].handle, a.handle))
			return;
	v->attach = sl_xrealloc(v->attach, (v->nattach + 1) * sizeof *v->attach);
	v->attach[v->nattach++] = a;
}

/* Add what one claim decides to set v: its bound volume, or the PreFilter's reason. */
static void resolve(const struct sl_model *m, const char *ns, const struct claim_ref *r, struct sl_volset *v,
		    bool *unbound_immediate)
{
	const struct sl_storage *s = &m->storage;
	if (r->pvc || r->from_template)
		add_attach(s, r, v);
	if (!r->pvc && !r->from_template) {
		if (s->known && !v->prefilter) {
			struct sl_buf b = SL_BUF_INIT;
			sl_buf_printf(&b, "persistentvolumeclaim \"%s\" not found", r->name);
			v->prefilter = sl_buf_detach(&b);
			v->claim = r->name;
		}
		return;
	}
	if (r->pvc && r->pvc->volume_name) {
		const struct sl_pv *pv = sl_storage_pv(s, r->pvc->volume_name);
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
	if (s->known && !*unbound_immediate && never_bound(s, ns, r)) {
		*unbound_immediate = true;
		if (!v->claim)
			v->claim = r->name;
	}
}

/* A set's identity: its volumes and its verdict. */
static const char *set_key(struct sl_buf *b, const struct sl_volset *v)
{
	b->len = 0;
	sl_buf_puts(b, v->prefilter ? v->prefilter : "");
	for (size_t i = 0; i < v->npvs; i++) {
		sl_buf_putc(b, '\x1f');
		sl_buf_puts(b, v->pvs[i]->obj.name);
	}
	/* A template's new claim differs by ordinal in name only: each pod has one of its own, and
	 * no volume shares its handle, so the ordinals count alike. */
	for (size_t i = 0; i < v->nattach; i++) {
		const struct sl_attach *a = &v->attach[i];
		sl_buf_printf(b, "\x1e%s\x1f%s", a->driver, a->fresh && a->per_pod ? "" : a->handle);
	}
	return sl_buf_str(b);
}

static void free_set(struct sl_volset *v)
{
	free(v->pvs);
	free(v->pv_claims);
	free(v->pv_claim_names);
	free(v->attach);
	free(v->prefilter);
}

/* The resolution of one pod: refs[0 .. n) in its volumes' order. Not-found comes first (the
 * PreFilter looks every claim up before it reads any binding), then unbound Immediate claims. */
static void resolve_pod(const struct sl_model *m, const char *ns, const struct claim_ref *refs, size_t n,
			struct sl_volset *v)
{
	memset(v, 0, sizeof *v);
	bool unbound = false;
	for (size_t i = 0; i < n; i++)
		resolve(m, ns, &refs[i], v, &unbound);
	if (!v->prefilter && unbound)
		v->prefilter = sl_xstrdup("pod has unbound immediate PersistentVolumeClaims");
	else if (!v->prefilter)
		v->claim = NULL;
}

/* Keep v in ws unless an equal set is there: then it counts one more pod. */
static void add_set(struct sl_wstorage *ws, struct sl_strmap *seen, struct sl_strpool *keys, struct sl_buf *b,
		    struct sl_volset *v, int64_t ordinal, size_t *cap)
{
	const char *key = sl_intern(keys, set_key(b, v));
	size_t at = sl_strmap_put(seen, key, ws->nsets);
	if (at != ws->nsets) {
		ws->sets[at].pods++;
		free_set(v);
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

struct vct {
	const char *name, *cls;
};

/* A StatefulSet's volumeClaimTemplates (name, class); malformed entries are left to the API
 * server, which refuses them. */
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
		(*out)[n++].cls = cls && cls->kind == SL_YSCALAR && !sl_ynull(cls) ? cls->str : NULL;
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
			    p->volumes[i].claim, sl_model_claim(m, p->namespace, p->volumes[i].claim), false, NULL};
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
			refs[nshared + j] = (struct claim_ref){name, pvc, true, t[j].cls};
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
			judges = ws->sets[k].npvs || ws->sets[k].prefilter || ws->sets[k].nattach;
		m->workloads[i]->storage = judges ? ws : NULL;
	}
}
