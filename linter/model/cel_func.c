/* cel_func.c — the values of the CEL subset and what is done with them: equality and order as
 * CEL defines them, the string functions, regular expressions (RE2 in CEL, PCRE2 here where the
 * two agree), Kubernetes quantities and semantic versions. Pure functions of their operands; the
 * tree is walked in cel_eval.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "../base/buf.h"
#include "cel_tree.h"

/* The bounds config/pattern.c sets on PCRE2 too: RE2, which CEL uses, is linear; a backtracking
 * matcher needs a ceiling on work, depth and memory. Past it the match is UNKNOWN. */
#define RE_MATCH_LIMIT 2000000u
#define RE_DEPTH_LIMIT 10000u
#define RE_HEAP_LIMIT (16u * 1024u) /* KiB */

static void set_msg(struct sl_celv *v, int kind, const char *fmt, va_list ap)
{
	v->kind = kind;
	vsnprintf(v->msg, sizeof v->msg, fmt, ap);
}

void sl_celv_err(struct sl_celv *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_msg(v, SL_CELV_ERR, fmt, ap);
	va_end(ap);
}

void sl_celv_unk(struct sl_celv *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_msg(v, SL_CELV_UNK, fmt, ap);
	va_end(ap);
}

const char *sl_celv_type(const struct sl_celv *v)
{
	static const char *const names[] = {"null_type",
					    "bool",
					    "int",
					    "uint",
					    "double",
					    "string",
					    "bytes",
					    "kubernetes.Quantity",
					    "kubernetes.Semver",
					    "list",
					    "kubernetes.DRADevice",
					    "map",
					    "map",
					    "error",
					    "unknown"};
	return names[v->kind];
}

static struct sl_celv boolean(bool b)
{
	struct sl_celv v = {.kind = SL_CELV_BOOL, .u.b = b};
	return v;
}

static struct sl_celv integer(int64_t i)
{
	struct sl_celv v = {.kind = SL_CELV_INT, .u.i = i};
	return v;
}

static struct sl_celv no_overload(const char *what)
{
	struct sl_celv v;
	sl_celv_err(&v, "no such overload: %s", what);
	return v;
}

/* ---- quantities: value = mant × 10^exp10 × 2^exp2 (+ a little when sticky) ---- */

typedef unsigned __int128 u128;

/* x × 10^d × 2^b, or false when it would pass 2^127. */
static bool scale_up(u128 *x, int d, int b)
{
	const u128 lim = (u128)1 << 127;
	for (; d > 0; d--) {
		if (*x > lim / 10)
			return false;
		*x *= 10;
	}
	for (; b > 0; b--) {
		if (*x > lim / 2)
			return false;
		*x *= 2;
	}
	return true;
}

/* The magnitudes of two nonzero quantities: by their decimal logarithms when far apart; else
 * exactly, scaled to a common unit (close magnitudes keep that within 128 bits: mant < 10^18,
 * exp2 <= 60, a factor of 100 of slack < 2^127). */
static int magnitude_cmp(const struct sl_qty *a, const struct sl_qty *b)
{
	const double log2of10 = 0.30102999566398120;
	double la = log10((double)a->mant) + a->exp10 + a->exp2 * log2of10;
	double lb = log10((double)b->mant) + b->exp10 + b->exp2 * log2of10;
	if (la - lb > 2)
		return 1;
	if (lb - la > 2)
		return -1;
	int e = a->exp10 < b->exp10 ? a->exp10 : b->exp10, t = a->exp2 < b->exp2 ? a->exp2 : b->exp2;
	u128 x = a->mant, y = b->mant;
	if (!scale_up(&x, a->exp10 - e, a->exp2 - t) || !scale_up(&y, b->exp10 - e, b->exp2 - t))
		return la < lb ? -1 : 1;
	/* A value with digits dropped (sticky) lies strictly between its kept digits and one unit of
	 * the last of them more: the other value within that interval cannot be told from it, and
	 * compares equal. At most 18 digits are kept; no quantity a cluster uses has more. */
	u128 ua = 1, ub = 1;
	(void)scale_up(&ua, a->exp10 - e, a->exp2 - t);
	(void)scale_up(&ub, b->exp10 - e, b->exp2 - t);
	if (x < y)
		return a->sticky && y - x < ua ? 0 : -1;
	if (x > y)
		return b->sticky && x - y < ub ? 0 : 1;
	return (int)a->sticky - (int)b->sticky;
}

int sl_qty_compare(const struct sl_qty *a, const struct sl_qty *b)
{
	int sa = a->mant == 0 ? 0 : a->neg ? -1 : 1;
	int sb = b->mant == 0 ? 0 : b->neg ? -1 : 1;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;
	int m = magnitude_cmp(a, b);
	return sa < 0 ? -m : m;
}

static struct sl_celv parse_quantity(const struct sl_celv *s, bool test)
{
	struct sl_celv v = {.kind = SL_CELV_QTY};
	if (memchr(s->u.s.p, 0, s->u.s.n) || sl_qty_parse(s->u.s.p, &v.u.q, NULL) < 0) {
		if (test)
			return boolean(false);
		sl_celv_err(&v, "quantities must match the regular expression "
				"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
		return v;
	}
	return test ? boolean(true) : v;
}

/* Quantity.AsInt64: a whole number within int64. */
static bool qty_int(const struct sl_qty *q, int64_t *out)
{
	if (!sl_qty_is_integer(q))
		return false;
	*out = sl_qty_value(q);
	return *out != INT64_MAX && *out != -INT64_MAX; /* saturated: 2^63 - 1 needs 19 digits */
}

/* ---- semantic versions ---- */

static bool numeric(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* Dot-separated identifiers of [0-9A-Za-z-], none empty; numeric ones without leading zeros
 * when pre (pre-release; build metadata may have them). */
static bool identifiers(const char *s, size_t n, bool pre)
{
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			char c = s[i];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
				return false;
			continue;
		}
		if (i == start)
			return false;
		if (pre && numeric(s + start, i - start) && i - start > 1 && s[start] == '0')
			return false;
		start = i + 1;
	}
	return true;
}

static bool version_number(const char *s, size_t n, uint64_t *out)
{
	if (!numeric(s, n) || (n > 1 && s[0] == '0') || n > 19)
		return false;
	*out = 0;
	for (size_t i = 0; i < n; i++)
		*out = *out * 10 + (uint64_t)(s[i] - '0');
	return true;
}

int sl_celv_semver(const char *s, size_t n, struct sl_celv_ver *v, const char **why)
{
	memset(v, 0, sizeof *v);
	const char *d1 = memchr(s, '.', n), *d2 = d1 ? memchr(d1 + 1, '.', n - (size_t)(d1 + 1 - s)) : NULL;
	if (!d2) {
		*why = "No Major.Minor.Patch elements found";
		return -1;
	}
	const char *rest = d2 + 1, *end = s + n, *p = rest;
	while (p < end && *p != '-' && *p != '+')
		p++;
	const char *plus = memchr(rest, '+', (size_t)(end - rest));
	if (!version_number(s, (size_t)(d1 - s), &v->major) ||
	    !version_number(d1 + 1, (size_t)(d2 - d1 - 1), &v->minor) ||
	    !version_number(rest, (size_t)(p - rest), &v->patch)) {
		*why = "invalid major, minor or patch number";
		return -1;
	}
	if (p < end && *p == '-') {
		v->pre = p + 1;
		v->prelen = (size_t)((plus ? plus : end) - v->pre);
		if (!identifiers(v->pre, v->prelen, true)) {
			*why = "invalid pre-release";
			return -1;
		}
	}
	if (plus && !identifiers(plus + 1, (size_t)(end - plus - 1), false)) {
		*why = "invalid build metadata";
		return -1;
	}
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* One pre-release identifier against another: numbers numerically and below words. */
static int ident_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	bool na = numeric(a, an), nb = numeric(b, bn);
	if (na != nb)
		return na ? -1 : 1;
	if (na && an != bn)
		return an < bn ? -1 : 1; /* no leading zeros: the longer is the larger */
	int c = memcmp(a, b, an < bn ? an : bn);
	return c ? (c < 0 ? -1 : 1) : cmp_u64(an, bn);
}

static int version_cmp(const struct sl_celv_ver *a, const struct sl_celv_ver *b)
{
	int c = cmp_u64(a->major, b->major);
	c = c ? c : cmp_u64(a->minor, b->minor);
	c = c ? c : cmp_u64(a->patch, b->patch);
	if (c || (!a->pre && !b->pre))
		return c;
	if (!a->pre || !b->pre)
		return a->pre ? -1 : 1; /* a pre-release precedes its release */
	size_t i = 0, j = 0;
	while (i < a->prelen && j < b->prelen) {
		size_t ie = i, je = j;
		while (ie < a->prelen && a->pre[ie] != '.')
			ie++;
		while (je < b->prelen && b->pre[je] != '.')
			je++;
		c = ident_cmp(a->pre + i, ie - i, b->pre + j, je - j);
		if (c)
			return c;
		i = ie + 1, j = je + 1;
	}
	return (i < a->prelen) - (j < b->prelen);
}

/* ---- equality and order ---- */

static bool is_num(int k)
{
	return k == SL_CELV_INT || k == SL_CELV_UINT || k == SL_CELV_DOUBLE;
}

/* Numbers of any two kinds: -1, 0, 1, or 2 when unordered (NaN). */
static int num_cmp(const struct sl_celv *a, const struct sl_celv *b)
{
	if (a->kind == SL_CELV_DOUBLE || b->kind == SL_CELV_DOUBLE) {
		double x = a->kind == SL_CELV_DOUBLE ? a->u.d
			   : a->kind == SL_CELV_INT  ? (double)a->u.i
						     : (double)a->u.u;
		double y = b->kind == SL_CELV_DOUBLE ? b->u.d
			   : b->kind == SL_CELV_INT  ? (double)b->u.i
						     : (double)b->u.u;
		return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
	}
	if (a->kind == b->kind)
		return a->kind == SL_CELV_INT ? (a->u.i > b->u.i) - (a->u.i < b->u.i) : cmp_u64(a->u.u, b->u.u);
	if (a->kind == SL_CELV_INT)
		return a->u.i < 0 ? -1 : cmp_u64((uint64_t)a->u.i, b->u.u);
	return b->u.i < 0 ? 1 : cmp_u64(a->u.u, (uint64_t)b->u.i);
}

static int str_cmp(const struct sl_celv *a, const struct sl_celv *b)
{
	size_t n = a->u.s.n < b->u.s.n ? a->u.s.n : b->u.s.n;
	int c = memcmp(a->u.s.p, b->u.s.p, n);
	return c ? (c < 0 ? -1 : 1) : cmp_u64(a->u.s.n, b->u.s.n);
}

struct sl_celv sl_celv_equal(const struct sl_celv *a, const struct sl_celv *b)
{
	struct sl_celv v;
	if (is_num(a->kind) && is_num(b->kind))
		return boolean(num_cmp(a, b) == 0);
	if (a->kind != b->kind)
		return boolean(false); /* CEL's equality across types is false, not an error */
	switch (a->kind) {
	case SL_CELV_NULL:
		return boolean(true);
	case SL_CELV_BOOL:
		return boolean(a->u.b == b->u.b);
	case SL_CELV_STRING:
	case SL_CELV_BYTES:
		return boolean(str_cmp(a, b) == 0);
	case SL_CELV_QTY:
		return boolean(sl_qty_compare(&a->u.q, &b->u.q) == 0);
	case SL_CELV_VER:
		return boolean(version_cmp(&a->u.v, &b->u.v) == 0);
	default:
		sl_celv_unk(&v, "equality of %s values", sl_celv_type(a));
		return v;
	}
}

struct sl_celv sl_celv_order(int op, const struct sl_celv *a, const struct sl_celv *b)
{
	int c;
	if (is_num(a->kind) && is_num(b->kind))
		c = num_cmp(a, b);
	else if (a->kind != b->kind)
		return no_overload("ordering of different types");
	else if (a->kind == SL_CELV_STRING || a->kind == SL_CELV_BYTES)
		c = str_cmp(a, b); /* UTF-8's byte order is its code points' order */
	else if (a->kind == SL_CELV_BOOL)
		c = (int)a->u.b - (int)b->u.b;
	else
		return no_overload(a->kind == SL_CELV_QTY || a->kind == SL_CELV_VER
				       ? "order a quantity or version with compareTo, isGreaterThan or isLessThan"
				       : "ordering of this type");
	if (c == 2)
		return boolean(false);
	switch (op) {
	case SL_CELOP_LT:
		return boolean(c < 0);
	case SL_CELOP_LE:
		return boolean(c <= 0);
	case SL_CELOP_GT:
		return boolean(c > 0);
	default:
		return boolean(c >= 0);
	}
}

/* ---- regular expressions ---- */

static bool in_set(char c, const char *set)
{
	return c && strchr(set, c);
}

/* What RE2 (Go's regexp) rejects or reads otherwise while PCRE2 accepts it: back-references and
 * letter escapes Go does not know, look-around and other (? groups but flags, (?: and named
 * groups, possessive quantifiers, {,n}. Found anywhere in the text, even where escaped: such a
 * pattern is left UNKNOWN. */
static const char *re2_only(const char *re, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		char c = re[i], d = re[i + 1];
		bool alnum = (d >= '0' && d <= '9') || ((d | 0x20) >= 'a' && (d | 0x20) <= 'z');
		if (c == '\\' && alnum && !in_set(d, "aftnrvxpPdDsSwWbBAzQE"))
			return "an escape RE2 does not know";
		if (c == '\\')
			i++;
		else if (c == '(' && d == '?' &&
			 (i + 2 >= n || !in_set(re[i + 2], "imsU-:P<") ||
			  (re[i + 2] == '<' && (i + 3 >= n || re[i + 3] == '=' || re[i + 3] == '!'))))
			return "a group RE2 does not know";
		else if (in_set(c, "+*?}") && d == '+')
			return "a possessive quantifier";
		else if (c == '{' && d == ',')
			return "{,n}";
	}
	return NULL;
}

/* s.matches(re): RE2's search (unanchored), `$` only at the very end as in Go. */
static struct sl_celv re_match(const struct sl_celv *s, const struct sl_celv *re)
{
	struct sl_celv v;
	const char *why = re2_only(re->u.s.p, re->u.s.n);
	if (why) {
		sl_celv_unk(&v, "a regular expression with %s", why);
		return v;
	}
	int code;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re->u.s.p, re->u.s.n,
				      PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY, &code, &off, NULL);
	if (!c) {
		sl_celv_unk(&v, "a regular expression PCRE2 does not accept");
		return v;
	}
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	int rc = PCRE2_ERROR_NOMEMORY;
	if (mc && md) {
		pcre2_set_match_limit(mc, RE_MATCH_LIMIT);
		pcre2_set_depth_limit(mc, RE_DEPTH_LIMIT);
		pcre2_set_heap_limit(mc, RE_HEAP_LIMIT);
		rc = pcre2_match(c, (PCRE2_SPTR)s->u.s.p, s->u.s.n, 0, 0, md, mc);
	}
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	pcre2_code_free(c);
	if (rc >= 0 || rc == PCRE2_ERROR_NOMATCH)
		return boolean(rc >= 0);
	sl_celv_unk(&v, "a regular expression past PCRE2's limits on this string");
	return v;
}

/* ---- functions ---- */

static struct sl_celv string_fn(const char *name, const struct sl_celv *s, const struct sl_celv *arg)
{
	if (!arg || arg->kind != SL_CELV_STRING)
		return no_overload(name);
	const char *p = s->u.s.p, *q = arg->u.s.p;
	size_t n = s->u.s.n, m = arg->u.s.n;
	if (!strcmp(name, "startsWith"))
		return boolean(m <= n && !memcmp(p, q, m));
	if (!strcmp(name, "endsWith"))
		return boolean(m <= n && !memcmp(p + n - m, q, m));
	if (!strcmp(name, "contains")) {
		for (size_t i = 0; i + m <= n; i++)
			if (!memcmp(p + i, q, m))
				return boolean(true);
		return boolean(false);
	}
	return re_match(s, arg);
}

static struct sl_celv qty_fn(const char *name, const struct sl_qty *q, const struct sl_celv *arg, size_t nargs)
{
	int64_t i;
	if (nargs == 0 && !strcmp(name, "asInteger")) {
		if (qty_int(q, &i))
			return integer(i);
		struct sl_celv v;
		sl_celv_err(&v, "cannot convert value to integer");
		return v;
	}
	if (nargs == 0 && !strcmp(name, "isInteger"))
		return boolean(qty_int(q, &i));
	if (nargs != 1 || arg->kind != SL_CELV_QTY)
		return no_overload(name);
	int c = sl_qty_compare(q, &arg->u.q);
	return !strcmp(name, "compareTo") ? integer(c) : boolean(c == (!strcmp(name, "isGreaterThan") ? 1 : -1));
}

static struct sl_celv ver_fn(const char *name, const struct sl_celv_ver *v, const struct sl_celv *arg, size_t nargs)
{
	if (nargs == 0)
		return integer((int64_t)(!strcmp(name, "major")   ? v->major
					 : !strcmp(name, "minor") ? v->minor
								  : v->patch));
	if (arg->kind != SL_CELV_VER)
		return no_overload(name);
	int c = version_cmp(v, &arg->u.v);
	return !strcmp(name, "compareTo") ? integer(c) : boolean(c == (!strcmp(name, "isGreaterThan") ? 1 : -1));
}

static bool named(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/* size() of a value that has one, else -1. */
static int64_t size_of(const struct sl_celv *v)
{
	if (v->kind == SL_CELV_STRING)
		return (int64_t)sl_cel_codepoints(v->u.s.p, v->u.s.n);
	if (v->kind == SL_CELV_BYTES)
		return (int64_t)v->u.s.n;
	if (v->kind == SL_CELV_LIST)
		return v->u.list.n;
	return -1;
}

/* semver(s, true)'s normalisation (the library's normalizeAndParse): no leading 'v', no leading
 * zeros in the first three parts, missing minor and patch numbers 0. The pre-release and build
 * are a suffix of s both before and after, so the version points into s. */
static int semver_normalized(const char *s, size_t n, struct sl_celv_ver *v, const char **why)
{
	if (n && s[0] == 'v')
		s++, n--;
	char *buf = sl_xmalloc(2 * n + 8), *o = buf;
	size_t parts = 0, i = 0;
	while (parts < 3) {
		size_t end = i;
		while (end < n && (parts == 2 || s[end] != '.'))
			end++;
		size_t k = i;
		while (end - k > 1 && s[k] == '0')
			k++; /* keep one digit: "00" → "0", "0a" → "0a" */
		if (k > i && (k == end || s[k] < '0' || s[k] > '9'))
			k--;
		memcpy(o, s + k, end - k);
		o += end - k;
		parts++;
		if (end >= n)
			break;
		*o++ = '.';
		i = end + 1;
	}
	bool meta = memchr(s + i, '+', n - i) || memchr(s + i, '-', n - i);
	int rc = -1;
	if (parts < 3 && meta) {
		*why = "short version cannot contain PreRelease/Build meta data";
	} else {
		for (; parts < 3; parts++) {
			memcpy(o, ".0", 2);
			o += 2;
		}
		rc = sl_celv_semver(buf, (size_t)(o - buf), v, why);
		if (rc == 0 && v->pre)
			v->pre = s + n - (size_t)(o - v->pre); /* the same suffix, in s */
	}
	free(buf);
	return rc;
}

/* semver(s), semver(s, normalize), isSemver likewise. */
static struct sl_celv version_fn(bool test, const struct sl_celv *args, size_t nargs)
{
	struct sl_celv v = {.kind = SL_CELV_VER};
	const char *why;
	if (nargs < 1 || nargs > 2 || args[0].kind != SL_CELV_STRING || (nargs == 2 && args[1].kind != SL_CELV_BOOL))
		return no_overload(test ? "isSemver" : "semver");
	int rc = nargs == 2 && args[1].u.b ? semver_normalized(args[0].u.s.p, args[0].u.s.n, &v.u.v, &why)
					   : sl_celv_semver(args[0].u.s.p, args[0].u.s.n, &v.u.v, &why);
	if (test)
		return boolean(rc == 0);
	if (rc < 0)
		sl_celv_err(&v, "%s", why);
	return v;
}

static struct sl_celv global_fn(const char *name, const struct sl_celv *args, size_t nargs)
{
	struct sl_celv v;
	bool str1 = nargs == 1 && args[0].kind == SL_CELV_STRING;
	if (!strcmp(name, "quantity") || !strcmp(name, "isQuantity"))
		return str1 ? parse_quantity(&args[0], name[0] == 'i') : no_overload(name);
	if (!strcmp(name, "semver") || !strcmp(name, "isSemver"))
		return version_fn(name[0] == 'i', args, nargs);
	if (!strcmp(name, "sign") && nargs == 1 && args[0].kind == SL_CELV_QTY)
		return integer(args[0].u.q.mant == 0 ? 0 : args[0].u.q.neg ? -1 : 1);
	if (!strcmp(name, "matches") && nargs == 2 && args[0].kind == SL_CELV_STRING)
		return string_fn(name, &args[0], &args[1]);
	if (!strcmp(name, "size") && nargs == 1 && size_of(&args[0]) >= 0)
		return integer(size_of(&args[0]));
	sl_celv_unk(&v, "the function %s", name);
	return v;
}

struct sl_celv sl_celv_call(const char *name, const struct sl_celv *recv, const struct sl_celv *args, size_t nargs)
{
	static const char *const strfns[] = {"startsWith", "endsWith", "contains", "matches", NULL};
	static const char *const qtyfns[] = {"compareTo", "isGreaterThan", "isLessThan",
					     "asInteger", "isInteger",     NULL};
	static const char *const verfns[] = {"compareTo", "isGreaterThan", "isLessThan", "major",
					     "minor",     "patch",         NULL};
	struct sl_celv v;
	if (!recv)
		return global_fn(name, args, nargs);
	if (!strcmp(name, "size") && nargs == 0 && size_of(recv) >= 0)
		return integer(size_of(recv));
	if (recv->kind == SL_CELV_STRING && named(name, strfns))
		return nargs == 1 ? string_fn(name, recv, &args[0]) : no_overload(name);
	if (recv->kind == SL_CELV_QTY && named(name, qtyfns))
		return qty_fn(name, &recv->u.q, args, nargs);
	if (recv->kind == SL_CELV_VER && named(name, verfns) && nargs == (name[0] == 'm' || name[0] == 'p' ? 0u : 1u))
		return ver_fn(name, &recv->u.v, args, nargs);
	if (named(name, strfns) || named(name, qtyfns) || named(name, verfns))
		return no_overload(name); /* a function of the subset on a value it does not apply to */
	sl_celv_unk(&v, "the function %s", name);
	return v;
}
