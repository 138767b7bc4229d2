/* node.h — the cluster as it is: Nodes (labels, taints, cordon, allocatable) and the Pods
 * already running on them. A node owns its label, taint and resource arrays (sl_node_free), a
 * running pod its pod spec (sl_pod_free); strings and nodes point into the YAML tree. The load
 * of the running pods is charged to their nodes by sl_model_bind_pods. */
#ifndef SL_NODE_H
#define SL_NODE_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "labels.h"
#include "object.h"
#include "podspec.h"
#include "resources.h"

struct sl_read;

struct sl_taint {
	const char *key, *value, *effect;
	const struct sl_ynode *node;
};

/* Whether toleration t tolerates taint (v1.Toleration.ToleratesTaint). Inline: the taint filter
 * asks it per node and toleration, and Kueue's flavor check (kflavor.c) too. */
static inline bool sl_tolerates(const struct sl_toleration *t, const struct sl_taint *taint)
{
	/* the first bytes first: most tolerations name another taint's key or effect */
	if (*t->effect && (*t->effect != *taint->effect || strcmp(t->effect, taint->effect)))
		return false;
	if (*t->key && (*t->key != *taint->key || strcmp(t->key, taint->key)))
		return false;
	if (!*t->op || !strcmp(t->op, "Equal"))
		return !strcmp(t->value, taint->value);
	return !strcmp(t->op, "Exists");
}

struct sl_node {
	const char *name;
	const struct sl_source *src;
	const struct sl_ynode *root, *name_node;
	struct sl_labels labels; /* plus kubernetes.io/hostname = name when absent */
	struct sl_taint *taints;
	size_t ntaints;
	bool unschedulable;
	const char *kubelet_version; /* status.nodeInfo.kubeletVersion, or NULL */
	struct sl_reslist alloc;
	int64_t max_pods;
	/* Load of running pods bound here. */
	struct sl_reslist used;
	int64_t npods;
};

struct sl_pod {
	struct sl_object obj;
	struct sl_podspec spec;
	const char *phase;
	/* status.startTime in seconds since the epoch, or INT64_MAX without one: the scheduler takes
	 * a pod not started yet as started now, later than any that has. */
	int64_t start;
};

/* Read the Node o (c: model_read.h) into *out: NULL when it is no Node object (a "kind: Node"
 * without apiVersion is some tool's own config). Returns -1 after an input error, with nothing
 * kept. */
int sl_node_read(struct sl_read *c, const struct sl_object *o, struct sl_node **out);
void sl_node_free(struct sl_node *n); /* and n itself */
/* Read the running Pod o into *out (NULL after an input error, when it returns -1). */
int sl_pod_read(struct sl_read *c, const struct sl_object *o, struct sl_pod **out);
void sl_pod_free(struct sl_pod *p); /* and p itself */
/* An RFC 3339 time (2024-05-01T08:01:00Z, fractions and offsets too) in seconds since the epoch. */
bool sl_rfc3339(const char *s, int64_t *out);

#endif
