/* explain_internal.h — the pieces of `--explain` that its files share (explain.h is the report's
 * face). */
#ifndef SL_EXPLAIN_INTERNAL_H
#define SL_EXPLAIN_INTERNAL_H
#include <cjson/cJSON.h>

#include "../base/buf.h"
#include "../model/k8s.h"
#include "../sched/sched.h"

/* f's verdict: "pass" (or left out by PreFilter), else "Plugin: reason, reason" (escaped). */
void sl_explain_verdict(const struct sl_nodefit *f, struct sl_buf *b);
/* A DaemonSet's table and totals (names: the escaped node names, width: the widest). */
void sl_explain_daemonset_text(struct sl_buf *out, struct sl_cluster *cl, const struct sl_workload *w,
			       const struct sl_analysis *a, char **names, size_t width);
/* A DaemonSet's "daemonset" object, added to o. */
void sl_explain_daemonset_json(cJSON *o, const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w,
			       const struct sl_analysis *a);
/* The claims of w's pods as the volume filters resolved them (a StatefulSet's ordinals that
 * differ, each): lines under the table, and a "volumes" array added to o (none without claims). */
void sl_explain_volumes_text(struct sl_buf *out, const struct sl_model *m, const struct sl_workload *w);
void sl_explain_volumes_json(cJSON *o, const struct sl_model *m, const struct sl_workload *w);
/* The devices its pods claim (Dynamic Resource Allocation) per node: lines under the table, and a
 * "devices" object added to o (none without claims, or without ResourceSlices in the run). */
void sl_explain_dra_text(struct sl_buf *out, const struct sl_model *m, struct sl_cluster *cl,
			 const struct sl_workload *w);
void sl_explain_dra_json(cJSON *o, const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w);

#endif
