/* namespace.c — reading a Namespace (see namespace.h). */
#include "namespace.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model_read.h"

int sl_namespace_read(struct sl_read *c, const struct sl_object *o, struct sl_namespace **out)
{
	*out = NULL;
	struct sl_namespace *ns = sl_xcalloc(1, sizeof *ns);
	ns->obj = *o;
	struct sl_labels l;
	sl_read_labels(c, sl_read_want(c, sl_ymap_get(o->root, "metadata"), "labels", SL_YMAP, "metadata.labels"),
		       "metadata.labels", &l);
	if (c->failed) {
		free(l.v);
		free(ns);
		return -1;
	}
	/* The API server sets kubernetes.io/metadata.name to the name, over whatever was written. */
	ns->labels.v = sl_xcalloc(l.n + 1, sizeof *ns->labels.v);
	for (size_t i = 0; i < l.n; i++)
		if (strcmp(l.v[i].key, "kubernetes.io/metadata.name"))
			ns->labels.v[ns->labels.n++] = l.v[i];
	ns->labels.v[ns->labels.n++] = (struct sl_kv){"kubernetes.io/metadata.name", o->name, NULL, NULL};
	free(l.v);
	*out = ns;
	return 0;
}

void sl_namespace_free(struct sl_namespace *ns)
{
	free(ns->labels.v);
	free(ns);
}
