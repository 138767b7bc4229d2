/* rollout.c — the Deployment controller's arithmetic, as the engine applies it to one workload's
 * placement (see sched.h). */
#include "sched.h"

/* As ResolveFenceposts in pkg/controller/deployment/util/deployment_util.go: maxSurge rounds up,
 * maxUnavailable down, and both 0 make maxUnavailable 1. */
void sl_fenceposts(const struct sl_workload *w, int64_t *surge, int64_t *unavailable)
{
	*surge = sl_intpct_resolve(&w->max_surge, w->replicas, true);
	*unavailable = sl_intpct_resolve(&w->max_unavailable, w->replicas, false);
	if (*surge == 0 && *unavailable == 0)
		*unavailable = 1;
}

/* One surge pod decides it, not maxSurge of them: with maxUnavailable 0 the controller scales an
 * old pod down as soon as a new one is Ready (scaleDownOldReplicaSetsForRollingUpdate in
 * pkg/controller/deployment/rolling.go), and the next new pod takes its room. */
bool sl_rollout_never_starts(const struct sl_workload *w, int64_t max_unavailable, int64_t surge_placed)
{
	return w->strategy == SL_STRATEGY_ROLLING && max_unavailable == 0 && surge_placed == 0 && w->replicas > 0;
}
