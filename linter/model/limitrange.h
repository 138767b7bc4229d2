/* limitrange.h — LimitRanges (v1), among the manifests or in an inventory, and what the
 * LimitRanger admission plugin does with them before a pod exists: a container's missing
 * requests and limits defaulted (defaultRequest, default), then min, max and
 * maxLimitRequestRatio judged per Container, per Pod and per PersistentVolumeClaim. A LimitRange
 * owns its items and their lists (sl_limitrange_free); strings and nodes point into the tree. */
#ifndef SL_LIMITRANGE_H
#define SL_LIMITRANGE_H
#include <stdbool.h>
#include <stddef.h>

#include "object.h"
#include "podspec.h"
#include "resources.h"

struct sl_model;
struct sl_read;

enum sl_lr_type { SL_LR_CONTAINER, SL_LR_POD, SL_LR_PVC };

/* One entry of spec.limits, as the API server keeps it (SetDefaults_LimitRangeItem: for a
 * Container, default falls back to max, defaultRequest to default and then to min). */
struct sl_lr_item {
	enum sl_lr_type type;
	const struct sl_ynode *node;
	struct sl_reslist min, max, dflt, dflt_req;
	struct sl_reslist ratio; /* maxLimitRequestRatio, in thousandths whatever the resource */
};

struct sl_limitrange {
	struct sl_object obj;
	struct sl_lr_item *items;
	size_t nitems;
	bool inventory; /* from an --nodes/--pods file: the cluster's own */
	size_t order;   /* in the input, once applied (each namespace's are in this order) */
	/* Once applied: what it gives every container that states none (its Container items'
	 * defaultRequest and default, a later item's over an earlier one's) */
	struct sl_reslist give_req, give_lim;
};

/* Read the LimitRange o (c: model_read.h) into *out (NULL after an input error, when it
 * returns -1). */
int sl_limitrange_read(struct sl_read *c, const struct sl_object *o, struct sl_limitrange **out);
void sl_limitrange_free(struct sl_limitrange *l); /* and l itself */

/* Once every object is read and the release is known, before pod-level resources and a
 * RuntimeClass (sl_model_apply_version, in the API server's admission order): a LimitRange named
 * twice is the later one; every workload's containers get the defaults of its namespace's
 * LimitRanges, in turn, and its request is made again from them (sl_podspec.defaulted says which
 * resources). Running pods were admitted already: they show what admission made of them. */
void sl_model_apply_limitranges(struct sl_model *m);
/* The LimitRanges of namespace ns, in input order, *n of them. Only once applied: m->limitranges is
 * then ordered by namespace, and searched by bisection. */
const struct sl_limitrange *const *sl_model_limitranges(const struct sl_model *m, const char *ns, size_t *n);
/* p's containers as admission leaves them (the defaults of its namespace's LimitRanges filled
 * in; a defaulted value's node is the LimitRange's), in *out (sl_ctrs_free); returns how many. */
size_t sl_limitrange_admit(const struct sl_model *m, const struct sl_podspec *p, struct sl_ctr_res **out);
/* The LimitRange of ns that holds the value node n, or NULL: whether a container's value is a
 * default. */
const struct sl_limitrange *sl_limitrange_holding(const struct sl_model *m, const char *ns, const struct sl_ynode *n);

#endif
