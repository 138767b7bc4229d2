/* pdb.h — PodDisruptionBudgets among the manifests: their selector, minAvailable or
 * maxUnavailable, and what sl_model_bind_pods finds they cover. A budget owns its selector
 * (sl_pdb_free); strings and nodes point into the tree. */
#ifndef SL_PDB_H
#define SL_PDB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labels.h"
#include "object.h"
#include "workload.h"

struct sl_read;

/* A PodDisruptionBudget among the manifests. minAvailable / maxUnavailable are int-or-percent;
 * `set` tells which one is written. */
struct sl_pdb {
	struct sl_object obj;
	struct sl_selector sel;
	struct sl_intpct min_available, max_unavailable;
	const struct sl_ynode *unhealthy_policy; /* spec.unhealthyPodEvictionPolicy, NULL when unset */
	/* status.disruptionsAllowed, as the cluster shows a budget (has_status false without it):
	 * what the scheduler's preemption counts a victim against (0 without a status, as it does). */
	bool has_status;
	int64_t disruptions_allowed;
	/* Bound by sl_model_bind_pods, over the workloads of the input it selects: their pods, how
	 * many workloads, whether one is a bare Pod, and whether that count is the disruption
	 * controller's: false when one has no scale the controller reads (a DaemonSet, a Job), or is
	 * a bare Pod while the budget needs a scale (maxUnavailable or a percentage). */
	int64_t total;
	size_t nselected;
	bool bare, countable;
};

/* Read the PodDisruptionBudget o (c: model_read.h) into *out (NULL after an input error, when
 * it returns -1). */
int sl_pdb_read(struct sl_read *c, const struct sl_object *o, struct sl_pdb **out);
void sl_pdb_free(struct sl_pdb *p); /* and p itself */

#endif
