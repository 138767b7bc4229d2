/* status.h — a filter's verdict on one node (struct sl_nodefit, in sched.h), the reason texts
 * as kube-scheduler words them, and the FailedScheduling message built from every node's
 * verdict (FitError.Error()). Reason texts are static strings or interned in a struct
 * sl_reasons, which the cluster index owns and frees; a verdict never frees them. Internal to
 * linter/sched/. */
#ifndef SL_SCHED_STATUS_H
#define SL_SCHED_STATUS_H
#include <pthread.h>
#include <stddef.h>

#include "../base/buf.h"
#include "sched.h"

/* Reason texts, shared by the analyses of every workload (which may run on several threads). */
struct sl_reasons {
	struct sl_strpool pool;
	pthread_mutex_t lock;
};
/* The concatenation of parts[0 .. n), interned in pool: a reason text built without printf (it is
 * made for every node class and workload a filter rejects). */
const char *sl_reason_join(struct sl_reasons *pool, const char *const *parts, size_t n);

/* Records that plugin p rejects the node, for reason (at most SL_MAX_REASONS are kept). */
void sl_nodefit_fail(struct sl_nodefit *f, enum sl_plugin p, const char *reason);

/* "0/N nodes are available: <count> <reason>, …." over fits[0 .. n), the excluded left out,
 * for nall nodes. The caller frees it. */
char *sl_fit_error_text(size_t nall, const struct sl_nodefit *fits, size_t n);

/* Copies of a per-node verdict array (n entries), and their release (NULL is fine). */
struct sl_nodefit *sl_nodefits_copy(const struct sl_nodefit *f, size_t n);
void sl_nodefits_free(struct sl_nodefit *f, size_t n);

#endif
