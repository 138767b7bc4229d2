/* pdb.c — reading a PodDisruptionBudget (see pdb.h). */
#include "pdb.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model_read.h"

/* minAvailable / maxUnavailable of a PodDisruptionBudget: an integer or a percentage. */
static void parse_pdb_value(struct sl_read *c, const struct sl_ynode *spec, const char *key, struct sl_intpct *out)
{
	memset(out, 0, sizeof *out);
	const struct sl_ynode *v = sl_ymap_get(spec, key);
	if (sl_ynull(v))
		return;
	out->node = v;
	int64_t i;
	/* As ValidatePodDisruptionBudgetSpec: a non-negative integer, or [0-9]+% up to 100%. */
	if (v->kind == SL_YSCALAR && sl_yint(v, &i) == 0) {
		if (i < 0) {
			sl_read_error(c, v, "spec.%s must be greater than or equal to 0", key);
			return;
		}
		out->set = true;
		out->v = i;
		return;
	}
	if (v->kind == SL_YSCALAR && v->len > 1 && v->len <= 10 && v->str[v->len - 1] == '%' &&
	    strspn(v->str, "0123456789") == v->len - 1) {
		long long n = strtoll(v->str, NULL, 10);
		if (n > 100) {
			sl_read_error(c, v, "spec.%s must not be greater than 100%%", key);
			return;
		}
		out->set = true;
		out->percent = true;
		out->v = n;
		return;
	}
	sl_read_error(c, v, "spec.%s must be a non-negative integer or a percentage such as \"50%%\"", key);
}

int sl_pdb_read(struct sl_read *c, const struct sl_object *o, struct sl_pdb **out)
{
	*out = NULL;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	struct sl_pdb *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	sl_read_selector(c, sl_ymap_get(spec, "selector"), "spec.selector", &v->sel);
	parse_pdb_value(c, spec, "minAvailable", &v->min_available);
	parse_pdb_value(c, spec, "maxUnavailable", &v->max_unavailable);
	v->unhealthy_policy = sl_ymap_get(spec, "unhealthyPodEvictionPolicy");
	if (sl_ynull(v->unhealthy_policy))
		v->unhealthy_policy = NULL;
	else if (!sl_yis(v->unhealthy_policy, "IfHealthyBudget") && !sl_yis(v->unhealthy_policy, "AlwaysAllow"))
		sl_read_error(c, v->unhealthy_policy,
			      "spec.unhealthyPodEvictionPolicy must be IfHealthyBudget or AlwaysAllow");
	const struct sl_ynode *da = sl_ypath(o->root, "status.disruptionsAllowed");
	v->has_status = sl_yint(da, &v->disruptions_allowed) == 0;
	if (v->min_available.set && v->max_unavailable.set)
		sl_read_error(c, v->max_unavailable.node, "spec: minAvailable and maxUnavailable cannot be both set");
	if (c->failed) {
		sl_pdb_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

void sl_pdb_free(struct sl_pdb *p)
{
	sl_selector_free(&p->sel);
	free(p);
}
