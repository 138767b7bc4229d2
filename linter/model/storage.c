/* storage.c — reading PersistentVolumes, StorageClasses, CSINodes and CSIDrivers, and their
 * indexes (see storage.h). */
#include "storage.h"

#include <stdlib.h>
#include <string.h>

#include "model_read.h"
#include "pvc.h"
#include "resources.h"

bool sl_storage_kind(const char *k)
{
	return !strcmp(k, "PersistentVolume") || !strcmp(k, "StorageClass") || !strcmp(k, "CSINode") ||
	       !strcmp(k, "CSIDriver") || !strcmp(k, "CSIStorageCapacity");
}

void sl_node_terms_free(struct sl_term *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < t[i].nexprs; j++)
			free(t[i].exprs[j].vals);
		for (size_t j = 0; j < t[i].nfields; j++)
			free(t[i].fields[j].vals);
		free(t[i].exprs);
		free(t[i].fields);
	}
	free(t);
}

void sl_read_node_terms(struct sl_read *c, const struct sl_ynode *terms, const char *path, struct sl_term **out,
			size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!terms)
		return;
	*out = sl_xcalloc(terms->n + 1, sizeof **out);
	for (size_t i = 0; i < terms->n; i++) {
		const struct sl_ynode *t = terms->v[i];
		if (t->kind != SL_YMAP && !sl_ynull(t)) {
			sl_read_error(c, t, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(t));
			continue;
		}
		struct sl_term *term = &(*out)[(*n)++];
		term->node = t;
		sl_read_requirements(c, sl_read_want(c, t, "matchExpressions", SL_YSEQ, "matchExpressions"),
				     "matchExpressions", &term->exprs, &term->nexprs);
		sl_read_requirements(c, sl_read_want(c, t, "matchFields", SL_YSEQ, "matchFields"), "matchFields",
				     &term->fields, &term->nfields);
	}
}

/* spec.nodeAffinity.required.nodeSelectorTerms, as a pod's required node affinity is written. */
static void read_affinity(struct sl_read *c, const struct sl_ynode *spec, struct sl_pv *v)
{
	const struct sl_ynode *na = sl_read_want(c, spec, "nodeAffinity", SL_YMAP, "spec.nodeAffinity");
	const struct sl_ynode *req = sl_read_want(c, na, "required", SL_YMAP, "spec.nodeAffinity.required");
	const struct sl_ynode *terms =
	    sl_read_want(c, req, "nodeSelectorTerms", SL_YSEQ, "spec.nodeAffinity.required.nodeSelectorTerms");
	if (!req)
		return;
	v->has_affinity = true;
	v->affinity_node = req;
	sl_read_node_terms(c, terms, "nodeSelectorTerms", &v->terms, &v->nterms);
}

static int read_pv(struct sl_read *c, const struct sl_object *o, bool inventory, struct sl_storage *s)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_pv *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	v->inventory = inventory;
	const struct sl_ynode *md = sl_read_want(c, o->root, "metadata", SL_YMAP, "metadata");
	sl_read_labels(c, sl_read_want(c, md, "labels", SL_YMAP, "metadata.labels"), "metadata.labels", &v->labels);
	const char *sc = sl_read_str(c, spec, "storageClassName", "spec.storageClassName");
	v->storage_class = sc ? sc : "";
	const struct sl_ynode *ref = sl_read_want(c, spec, "claimRef", SL_YMAP, "spec.claimRef");
	if (ref) {
		const char *ns = sl_read_str(c, ref, "namespace", "spec.claimRef.namespace");
		v->claim_ns = ns ? ns : SL_DEFAULT_NAMESPACE;
		v->claim_name = sl_read_str(c, ref, "name", "spec.claimRef.name");
		const char *uid = sl_read_str(c, ref, "uid", "spec.claimRef.uid");
		v->claim_uid = uid && *uid;
	}
	const struct sl_ynode *cap = sl_read_want(c, spec, "capacity", SL_YMAP, "spec.capacity");
	const struct sl_ynode *st = cap ? sl_ymap_get(cap, "storage") : NULL;
	if (st && !sl_ynull(st))
		sl_read_amount(c, st, "storage", "spec.capacity", &v->capacity);
	struct sl_access_modes am = {0};
	sl_read_access_modes(c, sl_read_want(c, spec, "accessModes", SL_YSEQ, "spec.accessModes"), &am);
	v->rwo = am.rwo;
	v->rwop = am.rwop;
	v->rwx = am.rwx;
	v->rox = am.rox;
	read_affinity(c, spec, v);
	const struct sl_ynode *csi = sl_read_want(c, spec, "csi", SL_YMAP, "spec.csi");
	if (csi) {
		v->csi_driver = sl_read_str(c, csi, "driver", "spec.csi.driver");
		v->csi_handle = sl_read_str(c, csi, "volumeHandle", "spec.csi.volumeHandle");
	}
	const char *phase =
	    sl_read_str(c, sl_read_want(c, o->root, "status", SL_YMAP, "status"), "phase", "status.phase");
	v->phase = phase ? phase : "";
	if (c->failed) {
		free(v->labels.v);
		sl_node_terms_free(v->terms, v->nterms);
		free(v);
		return -1;
	}
	sl_grow(&s->pvs, &s->cappvs, s->npvs + 1, sizeof *s->pvs);
	s->pvs[s->npvs++] = v;
	return 0;
}

/* allowedTopologies: each term a list of {key, values}, every value list an In requirement. */
static void read_topologies(struct sl_read *c, const struct sl_ynode *seq, struct sl_storage_class *v)
{
	if (!seq)
		return;
	v->topo = sl_xcalloc(seq->n + 1, sizeof *v->topo);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *t = seq->v[i];
		if (t->kind != SL_YMAP) {
			sl_read_error(c, t, "allowedTopologies[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
			continue;
		}
		struct sl_term *term = &v->topo[v->ntopo++];
		term->node = t;
		const struct sl_ynode *ex =
		    sl_read_want(c, t, "matchLabelExpressions", SL_YSEQ, "matchLabelExpressions");
		term->exprs = sl_xcalloc((ex ? ex->n : 0) + 1, sizeof *term->exprs);
		for (size_t j = 0; ex && j < ex->n; j++) {
			const struct sl_ynode *e = ex->v[j];
			if (e->kind != SL_YMAP) {
				sl_read_error(c, e, "matchLabelExpressions[%zu] must be a mapping, not %s", j,
					      sl_ykind_name(e));
				continue;
			}
			const char *key = sl_read_str(c, e, "key", "matchLabelExpressions[].key");
			const struct sl_ynode *vals =
			    sl_read_want(c, e, "values", SL_YSEQ, "matchLabelExpressions[].values");
			if (!key || !vals) {
				if (!c->failed)
					sl_read_error(c, e, "matchLabelExpressions[%zu] needs a key and values", j);
				continue;
			}
			struct sl_requirement *r = &term->exprs[term->nexprs++];
			*r = (struct sl_requirement){key, SL_OP_IN, sl_xcalloc(vals->n + 1, sizeof *r->vals), 0, e};
			for (size_t k = 0; k < vals->n; k++) {
				if (vals->v[k]->kind != SL_YSCALAR || sl_ynull(vals->v[k])) {
					sl_read_error(c, vals->v[k],
						      "matchLabelExpressions[%zu].values[%zu] must be a string", j, k);
					continue;
				}
				r->vals[r->nvals++] = vals->v[k]->str;
			}
		}
	}
}

static int read_class(struct sl_read *c, const struct sl_object *o, bool inventory, struct sl_storage *s)
{
	struct sl_storage_class *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	v->inventory = inventory;
	const char *p = sl_read_str(c, o->root, "provisioner", "provisioner");
	v->provisioner = p ? p : "";
	const char *mode = sl_read_str(c, o->root, "volumeBindingMode", "volumeBindingMode");
	if (mode && strcmp(mode, "Immediate") && strcmp(mode, "WaitForFirstConsumer"))
		sl_read_error(c, sl_ymap_get(o->root, "volumeBindingMode"),
			      "volumeBindingMode must be Immediate or WaitForFirstConsumer, not \"%s\"", mode);
	v->wait = mode && !strcmp(mode, "WaitForFirstConsumer");
	const struct sl_ynode *md = sl_read_want(c, o->root, "metadata", SL_YMAP, "metadata");
	const struct sl_ynode *ann = sl_read_want(c, md, "annotations", SL_YMAP, "metadata.annotations");
	/* IsDefaultAnnotation: the value "true", exactly. */
	v->is_default = sl_yis(ann ? sl_ymap_get(ann, "storageclass.kubernetes.io/is-default-class") : NULL, "true");
	read_topologies(c, sl_read_want(c, o->root, "allowedTopologies", SL_YSEQ, "allowedTopologies"), v);
	if (c->failed) {
		sl_node_terms_free(v->topo, v->ntopo);
		free(v);
		return -1;
	}
	sl_grow(&s->classes, &s->capclasses, s->nclasses + 1, sizeof *s->classes);
	s->classes[s->nclasses++] = v;
	return 0;
}

static int read_csinode(struct sl_read *c, const struct sl_object *o, struct sl_storage *s)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *drivers = sl_read_want(c, spec, "drivers", SL_YSEQ, "spec.drivers");
	struct sl_csinode *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	v->drivers = sl_xcalloc((drivers ? drivers->n : 0) + 1, sizeof *v->drivers);
	for (size_t i = 0; drivers && i < drivers->n; i++) {
		const struct sl_ynode *d = drivers->v[i];
		if (d->kind != SL_YMAP) {
			sl_read_error(c, d, "spec.drivers[%zu] must be a mapping, not %s", i, sl_ykind_name(d));
			continue;
		}
		struct sl_csinode_driver *e = &v->drivers[v->ndrivers++];
		e->name = sl_read_str(c, d, "name", "spec.drivers[].name");
		const struct sl_ynode *al = sl_read_want(c, d, "allocatable", SL_YMAP, "spec.drivers[].allocatable");
		const struct sl_ynode *n = al ? sl_ymap_get(al, "count") : NULL;
		if (n && !sl_ynull(n)) {
			char *end = NULL;
			long long k = n->kind == SL_YSCALAR ? strtoll(n->str, &end, 10) : -1;
			if (n->kind != SL_YSCALAR || !*n->str || *end || k < 0)
				sl_read_error(
				    c, n, "spec.drivers[%zu].allocatable.count must be a whole number of 0 or more", i);
			e->has_count = true;
			e->count = k;
		}
	}
	if (c->failed) {
		free(v->drivers);
		free(v);
		return -1;
	}
	sl_grow(&s->csinodes, &s->capcsinodes, s->ncsinodes + 1, sizeof *s->csinodes);
	s->csinodes[s->ncsinodes++] = v;
	return 0;
}

static int read_csidriver(struct sl_read *c, const struct sl_object *o, struct sl_storage *s)
{
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_csidriver *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	v->attach_required = true;
	const struct sl_ynode *ar = spec ? sl_ymap_get(spec, "attachRequired") : NULL;
	if (ar && !sl_ynull(ar) && (ar->kind != SL_YSCALAR || sl_read_bool(ar, &v->attach_required) < 0))
		sl_read_error(c, ar, "spec.attachRequired must be true or false");
	const struct sl_ynode *sc = spec ? sl_ymap_get(spec, "storageCapacity") : NULL;
	if (sc && !sl_ynull(sc) && (sc->kind != SL_YSCALAR || sl_read_bool(sc, &v->storage_capacity) < 0))
		sl_read_error(c, sc, "spec.storageCapacity must be true or false");
	if (c->failed) {
		free(v);
		return -1;
	}
	sl_grow(&s->csidrivers, &s->capcsidrivers, s->ncsidrivers + 1, sizeof *s->csidrivers);
	s->csidrivers[s->ncsidrivers++] = v;
	return 0;
}

/* The fields are the object's own (no spec): storageClassName, capacity, maximumVolumeSize,
 * nodeTopology. */
static int read_capacity(struct sl_read *c, const struct sl_object *o, struct sl_storage *s)
{
	struct sl_csi_capacity *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	v->class_name = sl_read_str(c, o->root, "storageClassName", "storageClassName");
	if (!v->class_name && !c->failed)
		sl_read_error(c, o->kind_node ? o->kind_node : o->root, "a CSIStorageCapacity needs storageClassName");
	const struct sl_ynode *max = sl_ymap_get(o->root, "maximumVolumeSize");
	const struct sl_ynode *cap = sl_ymap_get(o->root, "capacity");
	const struct sl_ynode *lim = max && !sl_ynull(max) ? max : cap && !sl_ynull(cap) ? cap : NULL;
	if (lim) {
		v->has_limit = true;
		sl_read_amount(c, lim, "storage", lim == max ? "maximumVolumeSize" : "capacity", &v->limit);
	}
	const struct sl_ynode *topo = sl_ymap_get(o->root, "nodeTopology");
	if (topo && !sl_ynull(topo)) {
		v->has_topology = true;
		sl_read_selector(c, topo, "nodeTopology", &v->topology);
	}
	if (c->failed) {
		sl_selector_free(&v->topology);
		free(v);
		return -1;
	}
	sl_grow(&s->capacities, &s->capcapacities, s->ncapacities + 1, sizeof *s->capacities);
	s->capacities[s->ncapacities++] = v;
	return 0;
}

const struct sl_csidriver *sl_storage_csidriver(const struct sl_storage *s, const char *name)
{
	const struct sl_csidriver *found = NULL; /* the later of one name */
	for (size_t i = 0; i < s->ncsidrivers; i++)
		if (s->csidrivers[i]->obj.name && !strcmp(s->csidrivers[i]->obj.name, name))
			found = s->csidrivers[i];
	return found;
}

bool sl_capacity_admits(const struct sl_wait_claim *c, const struct sl_labels *node_labels)
{
	for (size_t i = 0; i < c->ncaps; i++)
		if (c->caps[i]->has_topology && sl_selector_matches(&c->caps[i]->topology, node_labels))
			return true;
	return false;
}

int sl_storage_read(struct sl_read *c, const struct sl_object *o, bool inventory, struct sl_storage *s)
{
	if (inventory && (!strcmp(o->kind, "PersistentVolume") || !strcmp(o->kind, "StorageClass")))
		s->known = true;
	if (inventory && !strcmp(o->kind, "PersistentVolume"))
		s->pvs_listed = true;
	if (inventory && !strcmp(o->kind, "StorageClass"))
		s->classes_listed = true;
	if (!strcmp(o->kind, "PersistentVolume"))
		return read_pv(c, o, inventory, s);
	if (!strcmp(o->kind, "StorageClass"))
		return read_class(c, o, inventory, s);
	if (!strcmp(o->kind, "CSINode"))
		return read_csinode(c, o, s);
	if (!strcmp(o->kind, "CSIStorageCapacity"))
		return read_capacity(c, o, s);
	return read_csidriver(c, o, s);
}

void sl_storage_merge(struct sl_storage *s, struct sl_storage *part)
{
#define APPEND(f, capf, nf)                                                                                            \
	do {                                                                                                           \
		sl_grow(&s->f, &s->capf, s->nf + part->nf, sizeof *s->f);                                              \
		if (part->nf)                                                                                          \
			memcpy(s->f + s->nf, part->f, part->nf * sizeof *s->f);                                        \
		s->nf += part->nf;                                                                                     \
		free(part->f);                                                                                         \
		part->f = NULL;                                                                                        \
		part->nf = part->capf = 0;                                                                             \
	} while (0)
	APPEND(pvs, cappvs, npvs);
	APPEND(classes, capclasses, nclasses);
	APPEND(csinodes, capcsinodes, ncsinodes);
	APPEND(csidrivers, capcsidrivers, ncsidrivers);
	APPEND(capacities, capcapacities, ncapacities);
#undef APPEND
	s->known |= part->known;
	s->pvs_listed |= part->pvs_listed;
	s->claims_listed |= part->claims_listed;
	s->classes_listed |= part->classes_listed;
}

static void free_pv(struct sl_pv *v)
{
	free(v->labels.v);
	sl_node_terms_free(v->terms, v->nterms);
	free(v);
}

static void free_class(struct sl_storage_class *v)
{
	sl_node_terms_free(v->topo, v->ntopo);
	free(v);
}

static void free_csinode(struct sl_csinode *v)
{
	free(v->drivers);
	free(v);
}

void sl_storage_index(struct sl_storage *s)
{
	SL_KEEP_LAST_BY_NAME(s->csinodes, s->ncsinodes, &s->csinode_index, free_csinode);
	SL_KEEP_LAST_BY_NAME(s->pvs, s->npvs, &s->pv_index, free_pv);
	SL_KEEP_LAST_BY_NAME(s->classes, s->nclasses, &s->class_index, free_class);
	struct sl_group_builder b = {&s->pvs_by_class, NULL, 0, 0};
	for (size_t i = 0; i < s->npvs; i++)
		sl_group_add(&b, s->pvs[i]->storage_class, i);
	sl_group_finish(&b);
	/* Several defaults: the scheduler's admission takes the newest; the inputs do not say which,
	 * so the last read stands for it. */
	for (size_t i = 0; i < s->nclasses; i++)
		if (s->classes[i]->is_default)
			s->default_class = s->classes[i];
}

const struct sl_pv *sl_storage_pv(const struct sl_storage *s, const char *name)
{
	size_t i = sl_strmap_get(&s->pv_index, name);
	return i == (size_t)-1 ? NULL : s->pvs[i];
}

const struct sl_storage_class *sl_storage_class(const struct sl_storage *s, const char *name)
{
	size_t i = sl_strmap_get(&s->class_index, name);
	return i == (size_t)-1 ? NULL : s->classes[i];
}

const struct sl_csinode *sl_storage_csinode(const struct sl_storage *s, const char *node)
{
	size_t i = sl_strmap_get(&s->csinode_index, node);
	return i == (size_t)-1 ? NULL : s->csinodes[i];
}

bool sl_claim_attach(const struct sl_storage *s, const struct sl_pvc *claim, const char *name, struct sl_attach *out)
{
	if (!claim)
		return false;
	memset(out, 0, sizeof *out);
	const struct sl_pv *pv = claim->volume_name ? sl_storage_pv(s, claim->volume_name) : NULL;
	if (pv) {
		/* An in-tree volume is counted by the scheduler only once translated to its CSI driver
		 * (CSI migration): not modelled, it counts nothing here. */
		if (!pv->csi_driver || !pv->csi_handle || !*pv->csi_driver || !*pv->csi_handle)
			return false;
		out->driver = pv->csi_driver;
		out->handle = pv->csi_handle;
		return true;
	}
	return sl_class_attach(s, claim->storage_class, name, out);
}

bool sl_class_attach(const struct sl_storage *s, const char *cls, const char *name, struct sl_attach *out)
{
	/* getCSIDriverInfoFromSC: the class as the claim names it (admission has set the default
	 * class on a claim created without one, but a manifest's claim is not created yet). */
	memset(out, 0, sizeof *out);
	if (!cls)
		cls = s->default_class ? s->default_class->obj.name : "";
	const struct sl_storage_class *sc = *cls ? sl_storage_class(s, cls) : NULL;
	if (!sc || !sc->provisioner || !*sc->provisioner)
		return false;
	out->driver = sc->provisioner;
	out->handle = name;
	out->fresh = true;
	return true;
}

bool sl_pv_admits(const struct sl_pv *pv, const struct sl_labels *node_labels)
{
	if (!pv->has_affinity)
		return true;
	for (size_t t = 0; t < pv->nterms; t++) {
		const struct sl_term *term = &pv->terms[t];
		bool ok = term->nexprs || term->nfields; /* an empty term selects nothing */
		for (size_t e = 0; ok && e < term->nexprs; e++)
			ok = sl_requirement_matches(&term->exprs[e], node_labels);
		/* CheckNodeAffinity builds a node of the labels alone: its name is "". */
		for (size_t f = 0; ok && f < term->nfields; f++)
			ok = !strcmp(term->fields[f].key, "metadata.name") &&
			     (term->fields[f].op == SL_OP_IN      ? sl_requirement_has_value(&term->fields[f], "")
			      : term->fields[f].op == SL_OP_NOTIN ? !sl_requirement_has_value(&term->fields[f], "")
								  : false);
		if (ok)
			return true;
	}
	return false;
}

bool sl_class_admits(const struct sl_storage_class *c, const struct sl_labels *node_labels)
{
	if (!c->ntopo)
		return true;
	for (size_t t = 0; t < c->ntopo; t++) {
		bool ok = c->topo[t].nexprs > 0; /* an empty term selects nothing */
		for (size_t e = 0; ok && e < c->topo[t].nexprs; e++)
			ok = sl_requirement_matches(&c->topo[t].exprs[e], node_labels);
		if (ok)
			return true;
	}
	return false;
}

void sl_volset_free(struct sl_volset *v)
{
	free(v->pvs);
	free(v->pv_claims);
	free(v->pv_claim_names);
	for (size_t i = 0; i < v->nwaits; i++) {
		free(v->waits[i].cands);
		free(v->waits[i].caps);
	}
	free(v->waits);
	free(v->attach);
	free(v->prefilter);
	free(v->assumed);
}

static void free_wstorage(struct sl_wstorage *w)
{
	for (size_t k = 0; k < w->nsets; k++)
		sl_volset_free(&w->sets[k]);
	free(w->sets);
	for (size_t k = 0; k < w->nnames; k++)
		free(w->names[k]);
	free(w->names);
}

void sl_storage_free(struct sl_storage *s)
{
	for (size_t i = 0; i < s->npvs; i++)
		free_pv(s->pvs[i]);
	free(s->pvs);
	for (size_t i = 0; i < s->nclasses; i++)
		free_class(s->classes[i]);
	free(s->classes);
	for (size_t i = 0; i < s->ncsinodes; i++)
		free_csinode(s->csinodes[i]);
	free(s->csinodes);
	for (size_t i = 0; i < s->ncsidrivers; i++)
		free(s->csidrivers[i]);
	free(s->csidrivers);
	for (size_t i = 0; i < s->ncapacities; i++) {
		sl_selector_free(&s->capacities[i]->topology);
		free(s->capacities[i]);
	}
	free(s->capacities);
	sl_strmap_free(&s->pv_index);
	sl_strmap_free(&s->class_index);
	sl_strmap_free(&s->csinode_index);
	sl_group_free(&s->pvs_by_class);
	for (size_t i = 0; i < s->nworkloads; i++)
		free_wstorage(&s->per_workload[i]);
	free(s->per_workload);
	memset(s, 0, sizeof *s);
}
