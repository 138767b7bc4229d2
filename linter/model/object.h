/* object.h — a Kubernetes object among the inputs: its source, its root node, and the identity
 * every finding about it carries (kind, apiVersion, name, namespace). Owns nothing: everything
 * points into the YAML tree and the source, which the model (or the caller's stream) owns. */
#ifndef SL_OBJECT_H
#define SL_OBJECT_H

#include <stdbool.h>

#include "../load/yamldoc.h"

struct sl_finding;
struct sl_source;

/* Default namespace used for objects that name none. */
#define SL_DEFAULT_NAMESPACE "default"

struct sl_object {
	const struct sl_source *src;
	const struct sl_ynode *root;
	const char *kind, *api_version, *name, *namespace; /* namespace defaults to "default" */
	const struct sl_ynode *kind_node, *name_node;
};

/* kind, apiVersion, name and namespace of the object at root (kind NULL when it has none). */
void sl_object_read(const struct sl_source *src, const struct sl_ynode *root, struct sl_object *o);
/* Whether o's apiVersion is of API group `group` ("batch.volcano.sh/v1alpha1" is of
 * "batch.volcano.sh"): kinds of one name in several groups (Job) are told apart by it. */
bool sl_object_in_group(const struct sl_object *o, const char *group);
/* Record o as what finding f is about (its object key, root and position). */
void sl_finding_subject(struct sl_finding *f, const struct sl_object *o);
/* Every object of a stream with a kind, the items of a *List one by one, in order. */
void sl_stream_objects(const struct sl_ystream *ys, void (*fn)(void *ctx, const struct sl_object *o), void *ctx);
/* The same for one document. */
void sl_doc_objects(const struct sl_ydoc *doc, void (*fn)(void *ctx, const struct sl_object *o), void *ctx);

#endif
