/* relate.h — the relations between the model's objects: the budgets that select each workload
 * (with what each budget counts), the autoscaler that scales it, the claim a volume names, and
 * whether a namespace is described by a Namespace object. Computed once per model, through
 * indexes (index.h) rather than a scan of every object per object; what they build belongs to
 * the model (sl_model_free). */
#ifndef SL_RELATE_H
#define SL_RELATE_H
#include <stdbool.h>

#include "model.h"

/* Relate budgets and workloads, autoscalers and workloads, pods and namespaces, and index the
 * claims (sl_model_bind_pods calls it, once). */
void sl_model_relate(struct sl_model *m);
/* Whether the namespace is described by a Namespace object of the inputs. */
bool sl_model_knows_namespace(const struct sl_model *m, const char *ns);
/* The first PersistentVolumeClaim of the inputs named name in namespace ns, or NULL. */
const struct sl_pvc *sl_model_claim(const struct sl_model *m, const char *ns, const char *name);

#endif
