/* service.h — Services among the manifests, for what the scheduler reads of them: the selector of
 * spec.selector (a map of labels, matched as a set), which PodTopologySpread's system defaults add
 * to a pod's default selector, and which gives a bare Pod those defaults at all
 * (helper.DefaultSelector). A Service owns its selector's requirements (sl_service_free); strings
 * and nodes point into the tree. */
#ifndef SL_SERVICE_H
#define SL_SERVICE_H
#include "labels.h"
#include "object.h"

struct sl_read;

struct sl_service {
	struct sl_object obj;
	struct sl_labels labels; /* spec.selector as written; none: it selects no pod */
	struct sl_selector sel;  /* the same as In requirements of one value each */
};

/* Read the Service o (c: model_read.h) into *out (NULL after an input error, when it returns -1). */
int sl_service_read(struct sl_read *c, const struct sl_object *o, struct sl_service **out);
void sl_service_free(struct sl_service *s); /* and s itself */

#endif
