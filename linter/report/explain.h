/* explain.h — the `--explain` report: per workload, each node's verdict and slots, and the totals. */
#ifndef SL_EXPLAIN_H
#define SL_EXPLAIN_H
#include <cjson/cJSON.h>

#include "../base/buf.h"
#include "../model/k8s.h"
#include "../sched/sched.h"

/* a is NULL when no node is known; cl is the cluster a was made on (a DaemonSet's pods are
 * judged on it again, node by node). */
void sl_explain_text(struct sl_buf *out, const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w,
		     const struct sl_analysis *a);
cJSON *sl_explain_json(const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w,
		       const struct sl_analysis *a);

#endif
