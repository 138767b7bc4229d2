/* pvc.c — reading a PersistentVolumeClaim (see pvc.h). */
#include "pvc.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model_read.h"

int sl_pvc_read(struct sl_read *c, const struct sl_object *o, struct sl_pvc **out)
{
	*out = NULL;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	const struct sl_ynode *modes = sl_read_want(c, spec, "accessModes", SL_YSEQ, "spec.accessModes");
	struct sl_pvc *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	v->modes_node = modes;
	for (size_t i = 0; modes && i < modes->n; i++) {
		const struct sl_ynode *md = modes->v[i];
		if (sl_yis(md, "ReadWriteOnce"))
			v->rwo = true;
		else if (sl_yis(md, "ReadWriteOncePod"))
			v->rwop = true;
		else if (sl_yis(md, "ReadWriteMany"))
			v->rwx = true;
		else if (sl_yis(md, "ReadOnlyMany"))
			v->rox = true;
		else
			sl_read_error(c, md,
				      "spec.accessModes[%zu] must be ReadWriteOnce, ReadOnlyMany, ReadWriteMany or "
				      "ReadWriteOncePod",
				      i);
	}
	if (c->failed) {
		free(v);
		return -1;
	}
	*out = v;
	return 0;
}
