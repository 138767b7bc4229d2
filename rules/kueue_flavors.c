/* kueue_flavors.c — Kueue's ResourceFlavors in the findings of the rules that place pods (called
 * by sl_rule_report): the flavor the model applied to the pods (sl_workload.kplace SL_KPLACE_SET)
 * named where it changes what they are judged with, and the choice of several (SL_KPLACE_OPEN)
 * said to be what the finding depends on: the pods were judged as written, which the flavor Kueue
 * assigns may change either way, so an error is not proved. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "rules.h"

/* What flavor k adds to the pods, for a related location: "nodeSelector a=b and 1 toleration". */
static void describe_adds(struct sl_buf *b, const struct sl_kflavor *k)
{
	for (size_t i = 0; i < k->node_labels.n; i++)
		sl_buf_printf(b, "%s%s=%s", i ? ", " : "nodeSelector ", k->node_labels.v[i].key,
			      k->node_labels.v[i].val);
	if (k->ntols)
		sl_buf_printf(b, "%s%zu toleration%s", k->node_labels.n ? " and " : "", k->ntols,
			      k->ntols == 1 ? "" : "s");
}

void sl_note_kflavors(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_wgang *wg = sl_wgang(w);
	const char *cq = wg->kqueue->obj.name;
	struct sl_buf names = SL_BUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < wg->nkchoice; i++) {
		const struct sl_kchoice *k = &wg->kchoice[i];
		bool again = false;
		for (size_t j = 0; j < i && !again; j++)
			again = wg->kchoice[j].f == k->f && wg->kchoice[j].used && wg->kchoice[j].fit == SL_KFIT_OK;
		if (!k->used || k->fit != SL_KFIT_OK || again || !sl_kflavor_adds(k->f))
			continue;
		struct sl_buf b = SL_BUF_INIT;
		describe_adds(&b, k->f);
		sl_add_related(f, &(k->f->obj.name_node ? k->f->obj.name_node : k->f->obj.root)->at,
			       "ResourceFlavor %s of ClusterQueue %s: Kueue adds %s to the pods it admits", k->name, cq,
			       b.s);
		sl_buf_printf(&names, "%s%s", names.len ? ", " : "", k->name);
		n++;
		sl_buf_free(&b);
	}
	if (w->kplace == SL_KPLACE_SET)
		sl_note(f,
			"judged with what ResourceFlavor%s %s add%s at admission: the only flavor%s of ClusterQueue %s "
			"its pods can take",
			n == 1 ? "" : "s", names.s, n == 1 ? "s" : "", n == 1 ? "" : "s", cq);
	else {
		if (f->level == SL_ERROR)
			f->level = SL_WARNING;
		sl_note(
		    f,
		    "this depends on the flavor Kueue assigns: ClusterQueue %s may admit the pods with more than one "
		    "flavor, and the node labels or tolerations ResourceFlavor%s %s add%s at admission are not "
		    "part of this judgement of the template as written (so a warning, not an error)",
		    cq, n == 1 ? "" : "s", names.s, n == 1 ? "s" : "");
	}
	sl_buf_free(&names);
}
