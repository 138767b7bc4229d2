/* rollout.c — the Deployment controller's arithmetic, as the engine applies it to one workload's
 * placement (see sched.h). */
#include "../sched.h"

void sl_fenceposts(const struct sl_workload *w, int64_t *surge, int64_t *unavailable)
{
	*surge = sl_intpct_resolve(&w->max_surge, w->replicas, true);
	*unavailable = sl_intpct_resolve(&w->max_unavailable, w->replicas, false);
	if (*surge == 0 && *unavailable == 0)
		*unavailable = 1;
}

bool sl_rollout_never_starts(const struct sl_workload *w, int64_t max_unavailable, int64_t surge_placed)
{
	return w->strategy == SL_STRATEGY_ROLLING && max_unavailable == 0 && surge_placed == 0 && w->replicas > 0;
}
