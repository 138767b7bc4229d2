/* volumes_assumed.c — a verdict on claims that rests on storage the inventory did not capture
 * (sl_volset.assumed: no PersistentVolume or claim listed, when a cluster with none prints none)
 * is a warning that says what it rests on (rules.h). Apart from volumes.c because every finding
 * asks it (sl_rule_report, common.c), and volumes.c itself reports through common.c. */
#include <string.h>

#include "rules.h"

/* Whether the volume verdict that rests on s->assumed turned a node away: the PreFilter's, or a
 * node that VolumeBinding's Filter failed for want of a volume to bind. */
static bool assumption_decides(const struct sl_analysis *a)
{
	if (a->vol->prefilter || !a->fit)
		return true;
	for (size_t i = 0; i < a->nnodes; i++) {
		const struct sl_nodefit *fit = &a->fit[i];
		for (size_t k = 0; !fit->excluded && fit->plugin == SL_PL_VOLUME_BINDING && k < fit->nreasons; k++)
			if (!strcmp(fit->reasons[k], SL_REASON_VOLUME_BIND_CONFLICT))
				return true;
	}
	return false;
}

#define ASSUMED_NOTE "this depends on storage the inventory does not show: "

void sl_note_assumed(struct sl_finding *f, const char *assumed)
{
	for (size_t i = 0; i < f->nnotes; i++)
		if (!strncmp(f->notes[i], ASSUMED_NOTE, strlen(ASSUMED_NOTE)))
			return; /* said once, whichever verdict rests on it */
	if (f->level == SL_ERROR)
		f->level = SL_WARNING;
	sl_note(f, ASSUMED_NOTE "%s; so a warning, not an error", assumed);
}

void sl_note_storage_assumed(struct sl_finding *f, const struct sl_check *cx)
{
	const struct sl_analysis *a = cx->a;
	if (!a || !a->vol || !a->vol->assumed || !assumption_decides(a))
		return;
	sl_note_assumed(f, a->vol->assumed);
}
