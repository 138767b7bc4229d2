/* admission.c — the notes that say, on a finding about where a workload's pods go, what the API
 * server's admission did to them before the scheduler saw them (the model applies it:
 * model/podlevel.c, model/runtimeclass.c): scheduling gates that hold the pods back, and a request
 * set by pod-level resources or grown by a RuntimeClass's overhead. Only the model and the findings
 * are used here. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "rules.h"

void sl_note_admission(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_podspec *p = &w->pod;
	if (!f->rule || !f->rule->needs_nodes)
		return;
	if (p->gates) {
		sl_note(f, "its pods are created with scheduling gates and wait (SchedulingGated) until a controller "
			   "removes them: this holds once the gates are removed");
		sl_add_related(f, &p->gates->at, "scheduling gates");
	}
	const struct sl_runtimeclass *rc = p->runtime_class;
	if (rc && !p->rc_conflict && (rc->node_selector.n || rc->ntols)) {
		struct sl_buf s = SL_BUF_INIT;
		for (size_t i = 0; i < rc->node_selector.n; i++)
			sl_buf_printf(&s, "%s%s=%s", i ? ", " : "the nodeSelector ", rc->node_selector.v[i].key,
				      rc->node_selector.v[i].val);
		if (rc->ntols)
			sl_buf_printf(&s, "%s%zu toleration%s", s.len ? " and " : "", rc->ntols,
				      rc->ntols == 1 ? "" : "s");
		sl_note(f, "RuntimeClass %s (its runtimeClassName) adds %s to its pods", rc->obj.name, sl_buf_str(&s));
		sl_add_related(f, &rc->obj.name_node->at, "RuntimeClass %s", rc->obj.name);
		sl_buf_free(&s);
	}
	bool ovh = rc && rc->overhead.n && !p->rc_conflict;
	if (!p->pod_level.n && !ovh)
		return;
	struct sl_buf b = SL_BUF_INIT;
	sl_res_describe(&b, &p->request);
	if (p->pod_level.n) {
		sl_buf_puts(&b, "; its pod-level spec.resources set ");
		sl_res_describe(&b, &p->pod_level);
	}
	if (ovh) {
		sl_buf_printf(&b, "; RuntimeClass %s adds the overhead ", rc->obj.name);
		sl_res_describe(&b, &rc->overhead);
		sl_add_related(f, &rc->podfixed->at, "RuntimeClass %s: overhead.podFixed", rc->obj.name);
	}
	sl_note(f, "the pod's request: %s", sl_buf_str(&b));
	sl_buf_free(&b);
}
