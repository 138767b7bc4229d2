/* model_read.c — typed values out of a YAML tree, each error at the offending node (see
 * model_read.h): what every reader of the model's kinds shares. */
#include "model_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "../base/buf.h"
#include "../load/source.h"
#include "../base/diag.h"

void sl_read_error(struct sl_read *c, const struct sl_ynode *n, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	struct sl_span at;
	if (n)
		at = n->at;
	else
		sl_source_span(c->src, 0, 0, &at);
	sl_input_error(c->errs, &at, "%s", b.s);
	sl_buf_free(&b);
	c->failed = 1;
}

const struct sl_ynode *sl_read_want(struct sl_read *c, const struct sl_ynode *map, const char *key, enum sl_ykind k,
				    const char *path)
{
	const struct sl_ynode *v = sl_ymap_get(map, key);
	if (sl_ynull(v))
		return NULL;
	if (v->kind != k) {
		sl_read_error(c, v, "%s must be %s, not %s", path,
			      k == SL_YMAP   ? "a mapping"
			      : k == SL_YSEQ ? "a list"
					     : "a scalar",
			      sl_ykind_name(v));
		return NULL;
	}
	return v;
}

const char *sl_read_str(struct sl_read *c, const struct sl_ynode *map, const char *key, const char *path)
{
	const struct sl_ynode *v = sl_read_want(c, map, key, SL_YSCALAR, path);
	return v ? v->str : NULL;
}

const struct sl_ynode *sl_read_template(struct sl_read *c, const struct sl_ynode *holder, const char *path,
					const struct sl_ynode **labels)
{
	char at[160];
	const struct sl_ynode *tmpl = sl_read_want(c, holder, "template", SL_YMAP, path);
	snprintf(at, sizeof at, "%s.spec", path);
	const struct sl_ynode *spec = sl_read_want(c, tmpl, "spec", SL_YMAP, at);
	snprintf(at, sizeof at, "%s.metadata.labels", path);
	*labels = sl_read_want(c, sl_ymap_get(tmpl, "metadata"), "labels", SL_YMAP, at);
	return spec;
}

int sl_read_bool(const struct sl_ynode *n, bool *out)
{
	static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
	static const char *const f[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
	for (size_t i = 0; i < 9; i++) {
		if (!strcmp(n->str, t[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(n->str, f[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* The labels the API server allows (apimachinery's IsQualifiedName and IsValidLabelValue): a key
 * is an optional prefix (a DNS subdomain of at most 253 characters) and '/', then a name of 1 to
 * 63; a value at most 63; names and values of alphanumerics, '-', '_' and '.', beginning and ending
 * with an alphanumeric. A label past them is an error at it: the object would be rejected. */
/* A label name or value as IsQualifiedName / IsValidLabelValue take it: alphanumerics, '-', '_'
 * and '.', beginning and ending with an alphanumeric. */
static bool label_word(const char *s, size_t n)
{
	if (!n)
		return true;
	if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* A key's prefix: a DNS-1123 subdomain, lowercase labels of alphanumerics and '-' joined by '.'. */
static bool dns_subdomain(const char *s, size_t n)
{
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '-')
				return false;
			continue;
		}
		if (i == start || s[start] == '-' || s[i - 1] == '-')
			return false;
		start = i + 1;
	}
	return true;
}

static bool label_fits(struct sl_read *c, const char *path, const struct sl_ynode *k, const struct sl_ynode *v)
{
	const char *slash = memchr(k->str, '/', k->len);
	size_t prefix = slash ? (size_t)(slash - k->str) : 0, name = slash ? k->len - prefix - 1 : k->len;
	if (slash && (prefix == 0 || prefix > 253)) {
		sl_read_error(
		    c, k, "%s: the prefix of label key '%.40s%s' is %zu characters; the API server accepts 1 to 253",
		    path, k->str, k->len > 40 ? "…" : "", prefix);
		return false;
	}
	if (name == 0 || name > 63) {
		sl_read_error(c, k,
			      "%s: the name of label key '%.40s%s' is %zu characters; the API server accepts 1 to 63",
			      path, k->str, k->len > 40 ? "…" : "", name);
		return false;
	}
	if (!sl_ynull(v) && v->len > 63) {
		sl_read_error(c, v, "%s: the value of label '%s' is %zu characters; the API server accepts at most 63",
			      path, k->str, (size_t)v->len);
		return false;
	}
	const char *nm = slash ? slash + 1 : k->str;
	if ((slash && !dns_subdomain(k->str, prefix)) || !label_word(nm, name)) {
		sl_read_error(c, k,
			      "%s: label key '%.40s%s' is not one the API server accepts: an optional lowercase DNS "
			      "prefix and '/', then alphanumerics, '-', '_' and '.', beginning and ending with an "
			      "alphanumeric",
			      path, k->str, k->len > 40 ? "…" : "");
		return false;
	}
	if (!sl_ynull(v) && !label_word(v->str, v->len)) {
		sl_read_error(c, v,
			      "%s: the value of label '%s' is not one the API server accepts: alphanumerics, '-', '_' "
			      "and '.', beginning and ending with an alphanumeric (or empty)",
			      path, k->str);
		return false;
	}
	return true;
}

void sl_read_labels(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_labels *out)
{
	memset(out, 0, sizeof *out);
	if (!m)
		return;
	out->v = sl_xcalloc(m->n, sizeof *out->v);
	for (size_t i = 0; i < m->n; i++) {
		const struct sl_ynode *k = m->v[2 * i], *v = m->v[2 * i + 1];
		if (k->kind != SL_YSCALAR || (v->kind != SL_YSCALAR)) {
			sl_read_error(c, v->kind != SL_YSCALAR ? v : k, "%s: keys and values must be strings, not %s",
				      path, sl_ykind_name(v->kind != SL_YSCALAR ? v : k));
			continue;
		}
		if (!label_fits(c, path, k, v))
			continue;
		struct sl_kv *kv = &out->v[out->n++];
		kv->key = k->str;
		kv->val = sl_ynull(v) ? "" : v->str;
		kv->knode = k;
		kv->vnode = v;
	}
}

static enum sl_op parse_op(const char *s)
{
	static const char *const names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
	for (int i = 0; i < 6; i++)
		if (!strcmp(s, names[i]))
			return (enum sl_op)i;
	return SL_OP_BAD;
}

void sl_read_requirements(struct sl_read *c, const struct sl_ynode *seq, const char *path, struct sl_requirement **out,
			  size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!seq)
		return;
	*out = sl_xcalloc(seq->n, sizeof **out);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(e));
			continue;
		}
		struct sl_requirement *r = &(*out)[(*n)++];
		r->node = e;
		r->key = sl_read_str(c, e, "key", "key");
		const char *op = sl_read_str(c, e, "operator", "operator");
		if (!r->key)
			r->key = "";
		r->op = op ? parse_op(op) : SL_OP_BAD;
		if (r->op == SL_OP_BAD)
			sl_read_error(c, sl_ymap_get(e, "operator") ? sl_ymap_get(e, "operator") : e,
				      "%s[%zu].operator must be one of In, NotIn, Exists, DoesNotExist, Gt, "
				      "Lt",
				      path, i);
		const struct sl_ynode *vals = sl_read_want(c, e, "values", SL_YSEQ, "values");
		if (vals) {
			r->vals = sl_xcalloc(vals->n, sizeof *r->vals);
			for (size_t j = 0; j < vals->n; j++) {
				if (vals->v[j]->kind != SL_YSCALAR) {
					sl_read_error(c, vals->v[j], "%s[%zu].values must hold strings", path, i);
					continue;
				}
				r->vals[r->nvals++] = vals->v[j]->str;
			}
		}
	}
}

/* A metav1.LabelSelector; matchLabels first, then matchExpressions (ANDed). */
void sl_read_selector(struct sl_read *c, const struct sl_ynode *v, const char *path, struct sl_selector *out)
{
	memset(out, 0, sizeof *out);
	out->node = v;
	if (sl_ynull(v)) {
		out->nothing = true;
		return;
	}
	if (v->kind != SL_YMAP) {
		sl_read_error(c, v, "%s must be a mapping, not %s", path, sl_ykind_name(v));
		out->nothing = true;
		return;
	}
	struct sl_labels ml;
	sl_read_labels(c, sl_read_want(c, v, "matchLabels", SL_YMAP, "matchLabels"), "matchLabels", &ml);
	struct sl_requirement *exprs;
	size_t nexprs;
	sl_read_requirements(c, sl_read_want(c, v, "matchExpressions", SL_YSEQ, "matchExpressions"), "matchExpressions",
			     &exprs, &nexprs);
	for (size_t i = 0; i < nexprs; i++)
		if (exprs[i].op == SL_OP_GT || exprs[i].op == SL_OP_LT)
			sl_read_error(c, exprs[i].node,
				      "%s: a label selector's operator must be In, NotIn, Exists or "
				      "DoesNotExist",
				      path);
	out->reqs = sl_xcalloc(ml.n + nexprs + 1, sizeof *out->reqs);
	for (size_t i = 0; i < ml.n; i++) {
		struct sl_requirement *r = &out->reqs[out->nreqs++];
		r->key = ml.v[i].key;
		r->op = SL_OP_IN;
		r->vals = sl_xcalloc(1, sizeof *r->vals);
		r->vals[0] = ml.v[i].val;
		r->nvals = 1;
		r->node = ml.v[i].knode;
	}
	for (size_t i = 0; i < nexprs; i++)
		out->reqs[out->nreqs++] = exprs[i];
	free(exprs);
	free(ml.v);
}
