/* labels.c — label selectors as the API machinery matches them: a requirement against a label
 * set (k8s.io/apimachinery/pkg/labels), a LabelSelector, matchLabelKeys. Part of the model: it
 * reads what model_read.c built and allocates nothing; sl_selector_free releases a selector's
 * arrays. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "labels.h"

const char *sl_labels_get(const struct sl_labels *l, const char *key)
{
	/* Looked up for every selector, node and running pod: the first byte rules out most keys
	 * without a call. */
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].key[0] == key[0] && !strcmp(l->v[i].key, key))
			return l->v[i].val;
	return NULL;
}

/* strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no spaces. */
static int parse_int64(const char *s, int64_t *out)
{
	if (!*s)
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno || s[0] == ' ' || s[0] == '\t' || s[0] == '\n')
		return -1;
	*out = v;
	return 0;
}

bool sl_requirement_has_value(const struct sl_requirement *r, const char *v)
{
	for (size_t i = 0; i < r->nvals; i++)
		if (!strcmp(r->vals[i], v))
			return true;
	return false;
}

bool sl_requirement_matches(const struct sl_requirement *r, const struct sl_labels *labels)
{
	const char *v = sl_labels_get(labels, r->key);
	switch (r->op) {
	case SL_OP_IN:
		return v && sl_requirement_has_value(r, v);
	case SL_OP_NOTIN:
		return !v || !sl_requirement_has_value(r, v);
	case SL_OP_EXISTS:
		return v != NULL;
	case SL_OP_DOESNOTEXIST:
		return v == NULL;
	case SL_OP_GT:
	case SL_OP_LT: {
		int64_t lv, rv;
		/* Gt/Lt take exactly one integer value; anything else never matches. */
		if (!v || r->nvals != 1 || parse_int64(v, &lv) < 0 || parse_int64(r->vals[0], &rv) < 0)
			return false;
		return r->op == SL_OP_GT ? lv > rv : lv < rv;
	}
	default:
		return false;
	}
}

bool sl_selector_matches(const struct sl_selector *s, const struct sl_labels *l)
{
	if (s->nothing)
		return false;
	for (size_t i = 0; i < s->nreqs; i++)
		if (!sl_requirement_matches(&s->reqs[i], l))
			return false;
	return true;
}

/* matchLabelKeys: key In (the owner's value), as the API server merges them into the selector;
 * keys the owner lacks add nothing. (mismatchLabelKeys are the NotIn counterpart.) */
bool sl_match_label_keys(const char *const *keys, size_t n, const struct sl_labels *owner,
			 const struct sl_labels *labels)
{
	for (size_t i = 0; i < n; i++) {
		const char *v = sl_labels_get(owner, keys[i]);
		const char *lv = sl_labels_get(labels, keys[i]);
		if (v && (!lv || strcmp(v, lv)))
			return false;
	}
	return true;
}

const char *sl_op_name(enum sl_op op)
{
	static const char *const names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "?"};
	return names[op];
}

void sl_selector_free(struct sl_selector *s)
{
	for (size_t i = 0; i < s->nreqs; i++)
		free(s->reqs[i].vals);
	free(s->reqs);
}
