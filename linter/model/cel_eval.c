/* cel_eval.c — a parsed selector (cel.c) evaluated against one device: the tree walked, the
 * device's maps looked up as the DRA library builds them, && || with CEL's commutative handling
 * of errors, and everything outside the subset UNKNOWN (cel.c's head says why, and what
 * Kubernetes does). The values and functions are cel_func.c's. */
#include <stdio.h>
#include <string.h>

#include "cel_tree.h"

struct ev {
	const struct sl_cel *e;
	const struct sl_cel_device *d;
};

/* The functions of the subset: any other call is UNKNOWN before its arguments are looked at (a
 * comprehension's variables are no names here). */
static const char *const known_fns[] = {"startsWith", "endsWith",      "contains",   "matches",   "size",
					"quantity",   "isQuantity",    "semver",     "isSemver",  "sign",
					"compareTo",  "isGreaterThan", "isLessThan", "asInteger", "isInteger",
					"major",      "minor",         "patch",      NULL};

static struct sl_celv eval(const struct ev *x, uint32_t n);

static bool failed(const struct sl_celv *v)
{
	return v->kind == SL_CELV_ERR || v->kind == SL_CELV_UNK;
}

static struct sl_celv boolean(bool b)
{
	struct sl_celv v = {.kind = SL_CELV_BOOL, .u.b = b};
	return v;
}

static struct sl_celv string(const char *s, size_t n)
{
	struct sl_celv v = {.kind = SL_CELV_STRING, .u.s = {s ? s : "", s ? n : 0}};
	return v;
}

/* A strict operation's operands: an error wins (whatever the unknown was, the result is that
 * error), then an unknown; NULL when both are values. */
static const struct sl_celv *strict2(const struct sl_celv *a, const struct sl_celv *b)
{
	if (a->kind == SL_CELV_ERR)
		return a;
	if (b->kind == SL_CELV_ERR)
		return b;
	return a->kind == SL_CELV_UNK ? a : b->kind == SL_CELV_UNK ? b : NULL;
}

static const char *domain_of(const struct ev *x, const char *domain)
{
	return domain ? domain : x->d->driver ? x->d->driver : "";
}

static bool same(const char *s, const char *k, size_t kn)
{
	return s && strlen(s) == kn && !memcmp(s, k, kn);
}

static struct sl_celv attr_value(const struct sl_cel_attr *a)
{
	struct sl_celv v = {.kind = SL_CELV_INT};
	const char *why;
	switch (a->kind) {
	case SL_CEL_INT:
		v.u.i = a->i;
		return v;
	case SL_CEL_BOOL:
		return boolean(a->b);
	case SL_CEL_STRING:
		return string(a->s, a->s ? strlen(a->s) : 0);
	default:
		v.kind = SL_CELV_VER;
		if (!a->s || sl_celv_semver(a->s, strlen(a->s), &v.u.v, &why) < 0)
			sl_celv_err(&v, "parse semantic version: %s", a->s ? why : "no version");
		return v;
	}
}

/* The entry name of the domain in the map m (capacity or attributes): *found tells whether. */
static struct sl_celv entry(const struct ev *x, const struct sl_celv *m, const char *k, size_t kn, bool *found)
{
	struct sl_celv v = {.kind = SL_CELV_QTY};
	*found = true;
	if (m->u.map.cap) {
		for (size_t i = 0; i < x->d->ncaps; i++) {
			const struct sl_cel_cap *c = &x->d->caps[i];
			if (same(domain_of(x, c->domain), m->u.map.dom, m->u.map.domlen) && same(c->name, k, kn)) {
				v.u.q = c->value;
				return v;
			}
		}
	} else {
		for (size_t i = 0; i < x->d->nattrs; i++) {
			const struct sl_cel_attr *a = &x->d->attrs[i];
			if (same(domain_of(x, a->domain), m->u.map.dom, m->u.map.domlen) && same(a->name, k, kn))
				return attr_value(a);
		}
	}
	*found = false;
	sl_celv_err(&v, "no such key: %.*s", (int)(kn > 60 ? 60 : kn), k);
	return v;
}

/* Whether the device has anything in domain k of attributes (cap: capacity). */
static bool has_domain(const struct ev *x, bool cap, const char *k, size_t kn)
{
	size_t n = cap ? x->d->ncaps : x->d->nattrs;
	for (size_t i = 0; i < n; i++)
		if (same(domain_of(x, cap ? x->d->caps[i].domain : x->d->attrs[i].domain), k, kn))
			return true;
	return false;
}

/* on.k and on["k"]: the device's fields, a domain of its maps (every domain answers, empty when
 * the device has none of it), an entry of a domain (a missing one is an error). */
static struct sl_celv member(const struct ev *x, const struct sl_celv *on, const char *k, size_t kn, bool test)
{
	struct sl_celv v = {.kind = SL_CELV_OUTER};
	bool found;
	switch (on->kind) {
	case SL_CELV_DEVICE:
		if (same("driver", k, kn))
			return test ? boolean(true) : string(x->d->driver, x->d->driver ? strlen(x->d->driver) : 0);
		if (same("attributes", k, kn) || same("capacity", k, kn)) {
			v.u.map.cap = k[0] == 'c';
			return test ? boolean(true) : v;
		}
		if (same("allowMultipleAllocations", k, kn))
			sl_celv_unk(&v, "the field allowMultipleAllocations");
		else
			sl_celv_err(&v, "undefined field '%.*s'", (int)(kn > 60 ? 60 : kn), k);
		return v;
	case SL_CELV_OUTER:
		if (test)
			return boolean(true);
		v.kind = SL_CELV_INNER;
		v.u.map.cap = on->u.map.cap, v.u.map.dom = k, v.u.map.domlen = kn;
		return v;
	case SL_CELV_INNER:
		v = entry(x, on, k, kn, &found);
		return test ? boolean(found) : v;
	default:
		sl_celv_err(&v, "type '%s' does not support field selection", sl_celv_type(on));
		return v;
	}
}

static struct sl_celv select_field(const struct ev *x, const struct sl_cel_node *n, bool test)
{
	const struct sl_cel_node *s = test ? &x->e->nodes[n->b] : n;
	struct sl_celv on = eval(x, s->a);
	if (failed(&on))
		return on;
	const char *k = x->e->pool + s->str;
	return member(x, &on, k, strlen(k), test);
}

static struct sl_celv index_value(const struct ev *x, const struct sl_cel_node *n)
{
	struct sl_celv on = eval(x, n->a), k = eval(x, n->b), v;
	const struct sl_celv *bad = strict2(&on, &k);
	if (bad)
		return *bad;
	if (k.kind == SL_CELV_STRING &&
	    (on.kind == SL_CELV_OUTER || on.kind == SL_CELV_INNER || on.kind == SL_CELV_DEVICE))
		return member(x, &on, k.u.s.p, k.u.s.n, false);
	if (on.kind == SL_CELV_LIST || on.kind == SL_CELV_OUTER || on.kind == SL_CELV_INNER)
		sl_celv_unk(&v, "an index of type %s into a %s", sl_celv_type(&k), sl_celv_type(&on));
	else
		sl_celv_err(&v, "no such overload: index into %s", sl_celv_type(&on));
	return v;
}

/* The elements of a list literal, evaluated as CEL creates the list: strictly. */
static struct sl_celv list_value(const struct ev *x, const struct sl_cel_node *n)
{
	struct sl_celv v = {.kind = SL_CELV_LIST, .u.list = {n->b, n->nargs}}, unk = {.kind = SL_CELV_NULL};
	for (uint32_t e = n->b; e; e = x->e->nodes[e].next) {
		struct sl_celv el = eval(x, e);
		if (el.kind == SL_CELV_ERR)
			return el;
		if (el.kind == SL_CELV_UNK && unk.kind == SL_CELV_NULL)
			unk = el;
	}
	return unk.kind == SL_CELV_UNK ? unk : v;
}

static struct sl_celv in_value(const struct ev *x, const struct sl_celv *k, const struct sl_celv *in)
{
	struct sl_celv v;
	if (in->kind == SL_CELV_LIST) {
		for (uint32_t e = in->u.list.first; e; e = x->e->nodes[e].next) {
			struct sl_celv el = eval(x, e), eq = sl_celv_equal(k, &el);
			if (eq.kind != SL_CELV_BOOL || eq.u.b)
				return eq;
		}
		return boolean(false);
	}
	if (in->kind == SL_CELV_OUTER || in->kind == SL_CELV_INNER) {
		if (k->kind != SL_CELV_STRING)
			return boolean(false); /* the maps' keys are strings */
		if (in->kind == SL_CELV_OUTER)
			return boolean(has_domain(x, in->u.map.cap, k->u.s.p, k->u.s.n));
		bool found;
		(void)entry(x, in, k->u.s.p, k->u.s.n, &found);
		return boolean(found);
	}
	sl_celv_err(&v, "no such overload: in %s", sl_celv_type(in));
	return v;
}

static struct sl_celv binary(const struct ev *x, const struct sl_cel_node *n)
{
	struct sl_celv v;
	if (n->op >= SL_CELOP_ADD) {
		sl_celv_unk(&v, "arithmetic");
		return v;
	}
	struct sl_celv l = eval(x, n->a), r = eval(x, n->b);
	const struct sl_celv *bad = strict2(&l, &r);
	if (bad)
		return *bad;
	switch (n->op) {
	case SL_CELOP_EQ:
		return sl_celv_equal(&l, &r);
	case SL_CELOP_NE:
		v = sl_celv_equal(&l, &r);
		if (v.kind == SL_CELV_BOOL)
			v.u.b = !v.u.b;
		return v;
	case SL_CELOP_IN:
		return in_value(x, &l, &r);
	default:
		return sl_celv_order(n->op, &l, &r);
	}
}

/* A bool, or an error or unknown as it is; any other value is an error for && || ! and ?:. */
static struct sl_celv as_bool(struct sl_celv v, const char *op)
{
	if (v.kind != SL_CELV_BOOL && !failed(&v))
		sl_celv_err(&v, "no such overload: %s on %s", op, sl_celv_type(&v));
	return v;
}

/* a && b (or: a || b), commutative as CEL has it: a side that decides wins over an error or an
 * unknown on the other; an unknown beside an error stays unknown (it may be the deciding value). */
static struct sl_celv logic(const struct ev *x, const struct sl_cel_node *n, bool or)
{
	const char *op = or ? "||" : "&&";
	struct sl_celv l = as_bool(eval(x, n->a), op);
	if (l.kind == SL_CELV_BOOL && l.u.b == or)
		return l;
	struct sl_celv r = as_bool(eval(x, n->b), op);
	if (r.kind == SL_CELV_BOOL && (r.u.b == or || l.kind == SL_CELV_BOOL))
		return r;
	if (l.kind == SL_CELV_BOOL)
		return r;
	if (r.kind == SL_CELV_BOOL)
		return l;
	return l.kind == SL_CELV_UNK ? l : r.kind == SL_CELV_UNK ? r : l;
}

static bool macro(const struct ev *x, const struct sl_cel_node *n, const char *name)
{
	static const char *const fns[] = {"all", "exists", "exists_one", "map", "filter", NULL};
	if (!n->a)
		return false;
	for (const char *const *f = fns; *f; f++)
		if (!strcmp(name, *f))
			return true;
	const struct sl_cel_node *t = &x->e->nodes[n->a];
	return !strcmp(name, "bind") && t->kind == SL_CELN_IDENT && !strcmp(x->e->pool + t->str, "cel");
}

static struct sl_celv call(const struct ev *x, const struct sl_cel_node *n)
{
	const char *name = x->e->pool + n->str;
	struct sl_celv v, recv, args[3];
	bool known = false;
	for (const char *const *f = known_fns; *f; f++)
		known |= !strcmp(name, *f);
	if (!known || macro(x, n, name) || n->nargs > 3) {
		sl_celv_unk(&v, "the function %s", name);
		return v;
	}
	if (n->a) {
		recv = eval(x, n->a);
		if (recv.kind == SL_CELV_ERR)
			return recv;
	}
	size_t i = 0;
	const struct sl_celv *bad = n->a && recv.kind == SL_CELV_UNK ? &recv : NULL;
	for (uint32_t a = n->b; a; a = x->e->nodes[a].next, i++) {
		args[i] = eval(x, a);
		if (args[i].kind == SL_CELV_ERR)
			return args[i];
		if (!bad && args[i].kind == SL_CELV_UNK)
			bad = &args[i];
	}
	if (bad)
		return *bad;
	return sl_celv_call(name, n->a ? &recv : NULL, args, i);
}

static struct sl_celv negate(struct sl_celv v)
{
	if (v.kind == SL_CELV_INT && v.u.i != INT64_MIN)
		v.u.i = -v.u.i;
	else if (v.kind == SL_CELV_INT)
		sl_celv_err(&v, "integer overflow");
	else if (v.kind == SL_CELV_DOUBLE)
		v.u.d = -v.u.d;
	else if (!failed(&v))
		sl_celv_err(&v, "no such overload: -%s", sl_celv_type(&v));
	return v;
}

static struct sl_celv literal(const struct ev *x, const struct sl_cel_node *n)
{
	struct sl_celv v = {.kind = SL_CELV_NULL};
	switch (n->kind) {
	case SL_CELN_BOOL:
		return boolean(n->lit.b);
	case SL_CELN_INT:
		v.kind = SL_CELV_INT, v.u.i = n->lit.i;
		return v;
	case SL_CELN_UINT:
		v.kind = SL_CELV_UINT, v.u.u = n->lit.u;
		return v;
	case SL_CELN_DOUBLE:
		v.kind = SL_CELV_DOUBLE, v.u.d = n->lit.d;
		return v;
	case SL_CELN_STRING:
	case SL_CELN_BYTES:
		v = string(x->e->pool + n->str, n->len);
		v.kind = n->kind == SL_CELN_STRING ? SL_CELV_STRING : SL_CELV_BYTES;
		return v;
	default:
		return v;
	}
}

static struct sl_celv eval(const struct ev *x, uint32_t i)
{
	const struct sl_cel_node *n = &x->e->nodes[i];
	struct sl_celv v;
	switch (n->kind) {
	case SL_CELN_IDENT:
		if (!strcmp(x->e->pool + n->str, "device")) {
			v.kind = SL_CELV_DEVICE;
			return v;
		}
		sl_celv_err(&v, "undeclared reference to '%.60s'", x->e->pool + n->str);
		return v;
	case SL_CELN_SELECT:
	case SL_CELN_HAS:
		return select_field(x, n, n->kind == SL_CELN_HAS);
	case SL_CELN_INDEX:
		return index_value(x, n);
	case SL_CELN_CALL:
		return call(x, n);
	case SL_CELN_LIST:
		return list_value(x, n);
	case SL_CELN_NOT:
		v = as_bool(eval(x, n->a), "!");
		if (v.kind == SL_CELV_BOOL)
			v.u.b = !v.u.b;
		return v;
	case SL_CELN_NEG:
		return negate(eval(x, n->a));
	case SL_CELN_BINARY:
		return binary(x, n);
	case SL_CELN_AND:
	case SL_CELN_OR:
		return logic(x, n, n->kind == SL_CELN_OR);
	case SL_CELN_COND:
		v = as_bool(eval(x, n->a), "?:");
		return v.kind == SL_CELV_BOOL ? eval(x, v.u.b ? n->b : n->c) : v;
	case SL_CELN_OPT_SELECT:
	case SL_CELN_OPT_INDEX:
		sl_celv_unk(&v, "an optional field selection");
		return v;
	case SL_CELN_MAP:
		sl_celv_unk(&v, "a map literal");
		return v;
	case SL_CELN_STRUCT:
		sl_celv_unk(&v, "a message construction");
		return v;
	default:
		return literal(x, n);
	}
}

static enum sl_cel_verdict verdict(enum sl_cel_verdict r, const char *msg, char *why, size_t whysz)
{
	if (whysz)
		snprintf(why, whysz, "%s", msg);
	return r;
}

enum sl_cel_verdict sl_cel_eval(const struct sl_cel *e, const struct sl_cel_device *d, char *why, size_t whysz)
{
	struct ev x = {e, d};
	if (whysz)
		why[0] = 0;
	/* The library turns every attribute into a value before it evaluates: one version that does
	 * not parse fails the device whatever the expression reads. */
	for (size_t i = 0; i < d->nattrs; i++) {
		struct sl_celv v = attr_value(&d->attrs[i]);
		if (v.kind == SL_CELV_ERR) {
			char msg[256];
			snprintf(msg, sizeof msg, "attribute %.60s/%.60s: %s", domain_of(&x, d->attrs[i].domain),
				 d->attrs[i].name ? d->attrs[i].name : "", v.msg);
			return verdict(SL_CEL_ERROR, msg, why, whysz);
		}
	}
	struct sl_celv v = eval(&x, e->root);
	if (v.kind == SL_CELV_BOOL)
		return v.u.b ? SL_CEL_TRUE : SL_CEL_FALSE;
	if (v.kind == SL_CELV_UNK)
		return verdict(SL_CEL_UNKNOWN, v.msg, why, whysz);
	if (v.kind == SL_CELV_ERR)
		return verdict(SL_CEL_ERROR, v.msg, why, whysz);
	char msg[120];
	snprintf(msg, sizeof msg, "CEL result of type %s could not be converted to bool", sl_celv_type(&v));
	return verdict(SL_CEL_ERROR, msg, why, whysz);
}
