/* model_read.h — reading typed values out of a YAML tree, with an input error at the offending
 * node: shared by the model's readers (object kinds, the pod spec, resources), not by rules.
 * What the readers allocate belongs to the object they fill; strings and nodes point into the
 * trees. */
#ifndef SL_MODEL_READ_H
#define SL_MODEL_READ_H
#include <stdbool.h>
#include <stddef.h>

#include "../load/yamldoc.h"
#include "labels.h"

struct sl_source;
struct sl_findings;

/* One object being read: where its errors go, and whether there was one. */
struct sl_read {
	const struct sl_source *src;
	struct sl_findings *errs;
	int failed;
};

/* An input error at n (at the start of the source when n is NULL); marks the read failed. */
void sl_read_error(struct sl_read *c, const struct sl_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The value at key when it is of kind k; NULL when absent or null; an error otherwise. */
const struct sl_ynode *sl_read_want(struct sl_read *c, const struct sl_ynode *map, const char *key, enum sl_ykind k,
				    const char *path);
/* The same for a scalar: its text. */
const char *sl_read_str(struct sl_read *c, const struct sl_ynode *map, const char *key, const char *path);
/* The pod template at key "template" of holder (path: its place, "spec.tasks[1].template"): its
 * spec, and in *labels its metadata.labels; NULL for either when absent, or not a mapping
 * (reported). */
const struct sl_ynode *sl_read_template(struct sl_read *c, const struct sl_ynode *holder, const char *path,
					const struct sl_ynode **labels);
/* A YAML 1.1 boolean (true, False, on, NO…); -1 when n is none. */
int sl_read_bool(const struct sl_ynode *n, bool *out);
/* A mapping of strings to strings (labels, a nodeSelector); m NULL: none. */
void sl_read_labels(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_labels *out);
/* A list of {key, operator, values} (matchExpressions, matchFields); seq NULL: none. */
void sl_read_requirements(struct sl_read *c, const struct sl_ynode *seq, const char *path, struct sl_requirement **out,
			  size_t *n);
/* A metav1.LabelSelector at v (absent or null: selects nothing). Free with sl_selector_free. */
void sl_read_selector(struct sl_read *c, const struct sl_ynode *v, const char *path, struct sl_selector *out);

/* Objects of one kind named twice (a manifest and an inventory): the later description takes the
 * earlier one's place, as a later `kubectl apply` would. arr[0 .. n) point to structs that begin
 * with `struct sl_object obj`; index (a struct sl_strmap *) gets each one's key, key_of(element)
 * (a macro or function, the key outliving the index); free_one frees a replaced one; n becomes
 * the count kept. A macro, as the kinds' types differ. */
#define SL_KEEP_LAST_BY_KEY(arr, n, index, key_of, free_one)                                                           \
	do {                                                                                                           \
		size_t kept_ = 0;                                                                                      \
		for (size_t i_ = 0; i_ < (n); i_++) {                                                                  \
			size_t at_ = sl_strmap_put((index), key_of((arr)[i_]), kept_);                                 \
			if (at_ != kept_) {                                                                            \
				free_one((arr)[at_]);                                                                  \
				(arr)[at_] = (arr)[i_];                                                                \
			} else                                                                                         \
				(arr)[kept_++] = (arr)[i_];                                                            \
		}                                                                                                      \
		(n) = kept_;                                                                                           \
	} while (0)
/* The same by name (cluster-scoped kinds). */
#define SL_OBJECT_NAME(x) ((x)->obj.name)
#define SL_KEEP_LAST_BY_NAME(arr, n, index, free_one) SL_KEEP_LAST_BY_KEY(arr, n, index, SL_OBJECT_NAME, free_one)

#endif
