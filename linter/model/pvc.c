/* pvc.c — reading a PersistentVolumeClaim (see pvc.h). */
#include "pvc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model_read.h"
#include "resources.h"

void sl_read_access_modes(struct sl_read *c, const struct sl_ynode *modes, struct sl_access_modes *out)
{
	for (size_t i = 0; modes && i < modes->n; i++) {
		const struct sl_ynode *md = modes->v[i];
		if (sl_yis(md, "ReadWriteOnce"))
			out->rwo = true;
		else if (sl_yis(md, "ReadWriteOncePod"))
			out->rwop = true;
		else if (sl_yis(md, "ReadWriteMany"))
			out->rwx = true;
		else if (sl_yis(md, "ReadOnlyMany"))
			out->rox = true;
		else
			sl_read_error(c, md,
				      "spec.accessModes[%zu] must be ReadWriteOnce, ReadOnlyMany, ReadWriteMany or "
				      "ReadWriteOncePod",
				      i);
	}
}

void sl_read_claim_spec(struct sl_read *c, const struct sl_ynode *spec, const char *at, struct sl_pvc *v)
{
	char path[160];
	snprintf(path, sizeof path, "%s.accessModes", at);
	const struct sl_ynode *modes = sl_read_want(c, spec, "accessModes", SL_YSEQ, path);
	v->modes_node = modes;
	struct sl_access_modes am = {0};
	sl_read_access_modes(c, modes, &am);
	v->rwo = am.rwo;
	v->rwop = am.rwop;
	v->rwx = am.rwx;
	v->rox = am.rox;
	snprintf(path, sizeof path, "%s.storageClassName", at);
	if (!v->class_node && (v->storage_class = sl_read_str(c, spec, "storageClassName", path)))
		v->class_node = sl_ymap_get(spec, "storageClassName"); /* a quoted "" is no class */
	snprintf(path, sizeof path, "%s.volumeName", at);
	v->volume_name = sl_read_str(c, spec, "volumeName", path);
	if (v->volume_name && !*v->volume_name)
		v->volume_name = NULL;
	v->volume_node = v->volume_name ? sl_ymap_get(spec, "volumeName") : NULL;
	snprintf(path, sizeof path, "%s.resources", at);
	const struct sl_ynode *res = sl_read_want(c, spec, "resources", SL_YMAP, path);
	snprintf(path, sizeof path, "%s.resources.requests", at);
	const struct sl_ynode *req = sl_read_want(c, res, "requests", SL_YMAP, path);
	const struct sl_ynode *st = req ? sl_ymap_get(req, "storage") : NULL;
	if (st && !sl_ynull(st))
		sl_read_amount(c, st, "storage", path, &v->request);
	const struct sl_ynode *sel = spec ? sl_ymap_get(spec, "selector") : NULL;
	if (sel && !sl_ynull(sel)) {
		v->has_selector = true;
		snprintf(path, sizeof path, "%s.selector", at);
		sl_read_selector(c, sel, path, &v->sel);
	}
}

int sl_pvc_read(struct sl_read *c, const struct sl_object *o, struct sl_pvc **out)
{
	*out = NULL;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_pvc *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	/* The beta annotation is read before the field (GetPersistentVolumeClaimClass). */
	const struct sl_ynode *ann = sl_ypath(o->root, "metadata.annotations");
	const struct sl_ynode *beta =
	    ann && ann->kind == SL_YMAP ? sl_ymap_get(ann, "volume.beta.kubernetes.io/storage-class") : NULL;
	if (beta && beta->kind == SL_YSCALAR) {
		v->storage_class = beta->str;
		v->class_node = beta;
	}
	/* The PV controller sets the phase Bound with the annotation; a --pods file keeps no
	 * annotations, so either tells. */
	const struct sl_ynode *phase = sl_ypath(o->root, "status.phase");
	v->bind_completed = (ann && ann->kind == SL_YMAP && sl_ymap_get(ann, "pv.kubernetes.io/bind-completed")) ||
			    (phase && phase->kind == SL_YSCALAR && !strcmp(phase->str, "Bound"));
	v->lost = phase && phase->kind == SL_YSCALAR && !strcmp(phase->str, "Lost");
	const struct sl_ynode *del = sl_ypath(o->root, "metadata.deletionTimestamp");
	v->deleting = del && !sl_ynull(del);
	sl_read_claim_spec(c, spec, "spec", v);
	if (c->failed) {
		sl_pvc_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

void sl_pvc_free(struct sl_pvc *v)
{
	if (!v)
		return;
	sl_selector_free(&v->sel);
	free(v);
}
