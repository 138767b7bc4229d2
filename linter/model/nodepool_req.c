/* nodepool_req.c — requirements as Karpenter matches a pod against a NodePool (see nodepool.h):
 * pkg/scheduling/requirement.go (a set of values or its complement, with integer bounds) and
 * requirements.go (Compatible: a custom label the pool leaves undefined refuses the pod, a
 * well-known one does not; the keys both define must intersect). */
#include "nodepool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"

/* v1.WellKnownLabels, with the AWS and Azure providers' own (which their packages add to it at
 * start-up): a pod may ask for these of a pool that does not name them. */
static const char *const well_known[] = {
    "karpenter.sh/nodepool",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "karpenter.sh/capacity-type",
    "node.kubernetes.io/windows-build",
    "topology.k8s.aws/zone-id",
    NULL,
};

bool sl_karpenter_well_known(const char *key)
{
	for (size_t i = 0; well_known[i]; i++)
		if (!strcmp(key, well_known[i]))
			return true;
	return !strncmp(key, "karpenter.k8s.aws/", 18) || !strncmp(key, "karpenter.azure.com/", 20);
}

/* v1.NormalizedLabels: the beta names of well-known labels. */
static const char *normalize(const char *key)
{
	static const char *const from[][2] = {
	    {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},
	    {"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"},
	    {"beta.kubernetes.io/arch", "kubernetes.io/arch"},
	    {"beta.kubernetes.io/os", "kubernetes.io/os"},
	    {"beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type"},
	};
	for (size_t i = 0; i < sizeof from / sizeof from[0]; i++)
		if (!strcmp(key, from[i][0]))
			return from[i][1];
	return key;
}

/* An integer as Go's strconv.Atoi reads it: optional sign, decimal digits, nothing else. */
static bool atoi_go(const char *s, int64_t *out)
{
	if (!s || !*s)
		return false;
	const char *d = s + (*s == '+' || *s == '-');
	if (!*d)
		return false;
	for (const char *p = d; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static bool within(const char *v, bool has_gte, int64_t gte, bool has_lte, int64_t lte)
{
	if (!has_gte && !has_lte)
		return true;
	int64_t x;
	if (!atoi_go(v, &x)) /* with bounds, a value that is no integer is out of them */
		return false;
	return (!has_gte || x >= gte) && (!has_lte || x <= lte);
}

static bool has_value(const struct sl_kreq *r, const char *v)
{
	for (size_t i = 0; i < r->nvalues; i++)
		if (!strcmp(r->values[i], v))
			return true;
	return false;
}

const char *sl_kreq_operator(const struct sl_kreq *r)
{
	if (r->complement)
		return r->nvalues ? "NotIn" : "Exists";
	return r->nvalues ? "In" : "DoesNotExist";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void sl_kreq_string(const struct sl_kreq *r, char *out, size_t n)
{
	const char *op = sl_kreq_operator(r);
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_printf(&b, "%s %s", r->key, op);
	if (r->nvalues) {
		/* Go prints the sorted values as [a b c], the first five and "and N others". */
		const char **v = sl_xcalloc(r->nvalues, sizeof *v);
		memcpy(v, r->values, r->nvalues * sizeof *v);
		qsort(v, r->nvalues, sizeof *v, cmp_str);
		sl_buf_printf(&b, " [");
		for (size_t i = 0; i < r->nvalues && i < 5; i++)
			sl_buf_printf(&b, "%s%s", i ? " " : "", v[i]);
		if (r->nvalues > 5)
			sl_buf_printf(&b, " and %zu others", r->nvalues - 5);
		sl_buf_printf(&b, "]");
		free(v);
	}
	if (r->has_gte)
		sl_buf_printf(&b, " >=%lld", (long long)r->gte);
	if (r->has_lte)
		sl_buf_printf(&b, " <=%lld", (long long)r->lte);
	snprintf(out, n, "%s", b.s ? b.s : "");
	sl_buf_free(&b);
}

/* The tighter of two bounds (gte: the larger; lte: the smaller). */
static void bounds(const struct sl_kreq *a, const struct sl_kreq *b, bool *hg, int64_t *g, bool *hl, int64_t *l)
{
	*hg = a->has_gte || b->has_gte;
	*g = a->has_gte && b->has_gte ? (a->gte > b->gte ? a->gte : b->gte) : a->has_gte ? a->gte : b->gte;
	*hl = a->has_lte || b->has_lte;
	*l = a->has_lte && b->has_lte ? (a->lte < b->lte ? a->lte : b->lte) : a->has_lte ? a->lte : b->lte;
}

/* A value of set s (not complemented) that c allows, within the bounds. */
static bool some_value(const struct sl_kreq *s, const struct sl_kreq *c, bool hg, int64_t g, bool hl, int64_t l)
{
	for (size_t i = 0; i < s->nvalues; i++) {
		bool in_c = has_value(c, s->values[i]);
		if ((c->complement ? !in_c : in_c) && within(s->values[i], hg, g, hl, l))
			return true;
	}
	return false;
}

bool sl_kreq_intersects(const struct sl_kreq *a, const struct sl_kreq *b)
{
	bool hg, hl;
	int64_t g, l;
	bounds(a, b, &hg, &g, &hl, &l);
	if (hg && hl && g > l)
		return false;
	if (a->complement && b->complement)
		return true;
	return a->complement ? some_value(b, a, hg, g, hl, l) : some_value(a, b, hg, g, hl, l);
}

/* Requirement.Intersection: what both allow, into a (which owns the result). */
static void intersect(struct sl_kreq *a, const struct sl_kreq *b)
{
	bool hg, hl;
	int64_t g, l;
	bounds(a, b, &hg, &g, &hl, &l);
	if (hg && hl && g > l) {
		free(a->values);
		*a = (struct sl_kreq){.key = a->key}; /* DoesNotExist */
		return;
	}
	const char **v = sl_xcalloc(a->nvalues + b->nvalues + 1, sizeof *v);
	size_t n = 0;
	bool comp = a->complement && b->complement;
	if (comp) { /* the union of the excluded values */
		for (size_t i = 0; i < a->nvalues; i++)
			v[n++] = a->values[i];
		for (size_t i = 0; i < b->nvalues; i++)
			if (!has_value(a, b->values[i]))
				v[n++] = b->values[i];
	} else {
		const struct sl_kreq *s = a->complement ? b : a, *o = a->complement ? a : b;
		for (size_t i = 0; i < s->nvalues; i++) {
			bool in_o = has_value(o, s->values[i]);
			if ((o->complement ? !in_o : in_o) && within(s->values[i], hg, g, hl, l))
				v[n++] = s->values[i];
		}
	}
	free(a->values);
	a->values = v;
	a->nvalues = n;
	a->complement = comp;
	/* Bounds stay only on a complement: a concrete set was filtered by them above. */
	a->has_gte = comp && hg;
	a->gte = g;
	a->has_lte = comp && hl;
	a->lte = l;
}

static void add(struct sl_kreqs *s, struct sl_kreq *r)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].key, r->key)) {
			intersect(&s->v[i], r);
			free(r->values);
			return;
		}
	s->v = sl_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = *r;
}

bool sl_kreqs_add_requirement(struct sl_kreqs *s, const struct sl_requirement *q)
{
	struct sl_kreq r = {.key = normalize(q->key)};
	int64_t x = 0;
	switch (q->op) {
	case SL_OP_IN:
	case SL_OP_NOTIN:
		r.complement = q->op == SL_OP_NOTIN;
		r.values = sl_xcalloc(q->nvals + 1, sizeof *r.values);
		for (size_t i = 0; i < q->nvals; i++)
			if (!has_value(&r, q->vals[i]))
				r.values[r.nvalues++] = q->vals[i];
		break;
	case SL_OP_EXISTS:
		r.complement = true;
		break;
	case SL_OP_DOESNOTEXIST:
		break;
	case SL_OP_GT:
	case SL_OP_LT:
		if (q->nvals != 1 || !atoi_go(q->vals[0], &x))
			return false;
		r.complement = true;
		if (q->op == SL_OP_GT && x == INT64_MAX)
			r.complement = false; /* Gt MaxInt matches nothing: DoesNotExist */
		else if (q->op == SL_OP_GT)
			r.has_gte = true, r.gte = x + 1;
		else
			r.has_lte = true, r.lte = x == INT64_MIN ? x : x - 1;
		break;
	default:
		return false;
	}
	add(s, &r);
	return true;
}

void sl_kreqs_add_in(struct sl_kreqs *s, const char *key, const char *value)
{
	struct sl_kreq r = {.key = normalize(key)};
	r.values = sl_xcalloc(1, sizeof *r.values);
	r.values[r.nvalues++] = value;
	add(s, &r);
}

const struct sl_kreq *sl_kreqs_get(const struct sl_kreqs *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].key, key))
			return &s->v[i];
	return NULL;
}

void sl_kreqs_free(struct sl_kreqs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].values);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static const char *suffix(const char *key)
{
	const char *sl = strchr(key, '/');
	return sl ? sl + 1 : key;
}

static bool ends_with(const char *s, const char *t)
{
	size_t a = strlen(s), b = strlen(t);
	return a >= b && !strcmp(s + a - b, t);
}

/* labelHint: a well-known label, or one of the pool's, that the key may be a typo of. */
static const char *hint(const struct sl_kreqs *pool, const char *key)
{
	for (size_t i = 0; well_known[i]; i++)
		if (strstr(well_known[i], key) || ends_with(well_known[i], suffix(key)))
			return well_known[i];
	for (size_t i = 0; i < pool->n; i++)
		if (strstr(pool->v[i].key, key) || ends_with(pool->v[i].key, suffix(key)))
			return pool->v[i].key;
	return NULL;
}

static bool negative(const struct sl_kreq *r)
{
	const char *op = sl_kreq_operator(r);
	return !strcmp(op, "NotIn") || !strcmp(op, "DoesNotExist");
}

bool sl_kreqs_compatible(const struct sl_kreqs *pool, const struct sl_kreqs *pod, char *why, size_t n)
{
	/* Custom labels must be defined by the pool unless the pod asks for their absence. */
	for (size_t i = 0; i < pod->n; i++) {
		const struct sl_kreq *r = &pod->v[i];
		if (sl_karpenter_well_known(r->key) || sl_kreqs_get(pool, r->key) || negative(r))
			continue;
		const char *h = hint(pool, r->key);
		snprintf(why, n, "label \"%s\" does not have known values%s%s%s", r->key, h ? " (typo of \"" : "",
			 h ? h : "", h ? "\"?)" : "");
		return false;
	}
	/* The keys both define must intersect (two negative requirements always do). */
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < pod->n; i++) {
		const struct sl_kreq *in = &pod->v[i], *ex = sl_kreqs_get(pool, in->key);
		if (!ex || sl_kreq_intersects(ex, in) || (negative(in) && negative(ex)))
			continue;
		char a[512], c[512];
		sl_kreq_string(in, a, sizeof a);
		sl_kreq_string(ex, c, sizeof c);
		sl_buf_printf(&b, "%skey %s, %s not in %s", b.len ? "; " : "", in->key, a, c);
	}
	bool ok = !b.len;
	if (!ok)
		snprintf(why, n, "%s", b.s);
	sl_buf_free(&b);
	return ok;
}
