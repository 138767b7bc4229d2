/* service.c — reading a Service (see service.h). */
#include <stdlib.h>

#include "../base/buf.h"
#include "model_read.h"
#include "service.h"

int sl_service_read(struct sl_read *c, const struct sl_object *o, struct sl_service **out)
{
	*out = NULL;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_service *s = sl_xcalloc(1, sizeof *s);
	s->obj = *o;
	sl_read_labels(c, sl_read_want(c, spec, "selector", SL_YMAP, "spec.selector"), "spec.selector", &s->labels);
	if (c->failed) {
		sl_service_free(s);
		return -1;
	}
	/* labels.Set(selector).AsSelector(): every pair must be on the pod. */
	s->sel.reqs = sl_xcalloc(s->labels.n + 1, sizeof *s->sel.reqs);
	for (size_t i = 0; i < s->labels.n; i++) {
		const char **v = sl_xcalloc(1, sizeof *v);
		v[0] = s->labels.v[i].val;
		s->sel.reqs[s->sel.nreqs++] =
		    (struct sl_requirement){s->labels.v[i].key, SL_OP_IN, v, 1, s->labels.v[i].knode};
	}
	s->sel.nothing = !s->labels.n;
	*out = s;
	return 0;
}

void sl_service_free(struct sl_service *s)
{
	sl_selector_free(&s->sel);
	free(s->labels.v);
	free(s);
}
