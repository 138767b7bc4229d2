/* k8s.c — what is left of the model's old single file: the Deployment controller's fence-posts,
 * which belong with the engine's rollout arithmetic (the model's parts have files of their own:
 * see k8s.h). */
#include "k8s.h"

void sl_fenceposts(const struct sl_workload *w, int64_t *surge, int64_t *unavailable)
{
	*surge = sl_intpct_resolve(&w->max_surge, w->replicas, true);
	*unavailable = sl_intpct_resolve(&w->max_unavailable, w->replicas, false);
	if (*surge == 0 && *unavailable == 0)
		*unavailable = 1;
}
