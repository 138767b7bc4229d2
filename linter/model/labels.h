/* labels.h — labels, label requirements and LabelSelectors, and how the API machinery matches
 * them (k8s.io/apimachinery/pkg/labels). Keys, values and nodes point into the YAML trees; a
 * label set's and a selector's arrays belong to what holds them (model_read.c reads them; a
 * selector's go with sl_selector_free). Matching allocates nothing. */
#ifndef SL_LABELS_H
#define SL_LABELS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_ynode;

struct sl_kv {
	const char *key, *val;
	const struct sl_ynode *knode, *vnode;
};

struct sl_labels {
	struct sl_kv *v;
	size_t n;
};
const char *sl_labels_get(const struct sl_labels *l, const char *key); /* NULL when absent */

enum sl_op { SL_OP_IN, SL_OP_NOTIN, SL_OP_EXISTS, SL_OP_DOESNOTEXIST, SL_OP_GT, SL_OP_LT, SL_OP_BAD };
const char *sl_op_name(enum sl_op op);

struct sl_requirement {
	const char *key;
	enum sl_op op;
	const char **vals;
	size_t nvals;
	const struct sl_ynode *node;
};

/* A metav1.LabelSelector; matchLabels become In requirements. An absent selector selects
 * nothing and an empty one everything, as metav1.LabelSelectorAsSelector has it. */
struct sl_selector {
	struct sl_requirement *reqs;
	const struct sl_ynode *node;
	/* 32 bits beside the flag: every workload, pod term and budget holds selectors, each with a
	 * padding hole otherwise (a document's requirements number fewer than 2^32). */
	uint32_t nreqs;
	bool nothing;
};
void sl_selector_free(struct sl_selector *s); /* its arrays, not s */
/* Matching: a requirement against a label set (Gt/Lt compare integers and match nothing else),
 * whether it lists a value, a selector, and matchLabelKeys: each key the owner carries must
 * carry the owner's value in labels. */
bool sl_requirement_matches(const struct sl_requirement *r, const struct sl_labels *labels);
bool sl_requirement_has_value(const struct sl_requirement *r, const char *v);
bool sl_selector_matches(const struct sl_selector *s, const struct sl_labels *l);
bool sl_match_label_keys(const char *const *keys, size_t n, const struct sl_labels *owner,
			 const struct sl_labels *labels);

#endif
