/* cel.c — CEL's grammar parsed by recursive descent into the tree of cel_tree.h; evaluated in
 * cel_eval.c.
 *
 * What Kubernetes does with a DRA selector (k8s.io/dynamic-resource-allocation/cel, compile.go,
 * v1.34/v1.35, on cel-go), and so what this subset mirrors:
 * - `device` is the only variable: driver (string), attributes and capacity (maps from domain to
 *   maps from name to value). A qualified name is split at its first '/'; a name without one is in
 *   the driver's domain.
 * - The outer maps answer every domain: a domain the device has nothing in looks up as an empty
 *   map (the Find wrapper), not an error; `"dom" in device.attributes` still says whether the
 *   domain is there. A name missing inside a domain is CEL's runtime error "no such key: name";
 *   has(device.attributes["dom"].name) tests for it.
 * - Attribute values are dynamic (int, bool, string or version → a semver value; a version that
 *   does not parse fails the whole evaluation); capacities are Kubernetes quantities, compared
 *   with compareTo/isGreaterThan/isLessThan or ==, never with <; asInteger/isInteger/sign too.
 * - quantity("…") and semver("…") are checked when they run, not when the expression compiles:
 *   a bad literal is a runtime error.
 * - The result must be a bool; anything else fails the match.
 * - Limits: the runtime cost limit (CELSelectorExpressionMaxCost, 1e6 units) is out of this
 *   subset's reach without comprehensions, and the API's limit on an expression's length is
 *   validation's; the parser keeps cel-go's own: 100 000 code points, nesting of 250.
 * - There is no type checker here: what Kubernetes refuses to compile for its types
 *   (`device.driver > 1`, quantities with <) is a runtime error here, not a parse error.
 * Text that is CEL but outside the subset parses and evaluates to UNKNOWN: a verdict never rests
 * on a guess. */
#include "cel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "cel_tree.h"

/* cel-go's defaults: an expression of at most 100 000 code points, nesting of at most 250. */
#define MAX_CODEPOINTS 100000
#define MAX_NESTING 250
/* The tree's depth, which the evaluator recurses through: chains of a binary operator are as deep
 * as they are long (&& and || chains are balanced, as cel-go balances them). */
#define MAX_DEPTH 500

/* Tokens past a character's code; T_QIDENT: a `quoted` field name. */
enum tok { T_EOF = 256, T_INT, T_UINT, T_DOUBLE, T_STRING, T_BYTES, T_IDENT, T_QIDENT, T_TRUE, T_FALSE };
enum tok2 { T_NULL = T_FALSE + 1, T_IN, T_LE, T_GE, T_EQ, T_NE, T_AND, T_OR };

struct parser {
	const char *s;
	size_t len, pos;
	struct sl_cel_node *nodes;
	size_t nn, ncap;
	char *pool;
	size_t pn, pcap;
	int nesting;
	struct sl_cel_error *err;
	bool failed;
	/* The current token: its kind, where it starts, and its value. */
	int tok;
	size_t at;
	uint64_t num; /* an int's magnitude (a leading '-' is the parser's), a uint */
	bool num_big; /* the literal does not fit in 64 bits */
	double dbl;
	uint32_t str, slen; /* T_STRING, T_BYTES, T_IDENT, T_QIDENT: in the pool */
};

static void fail(struct parser *p, size_t at, const char *msg, const char *arg)
{
	if (p->failed)
		return;
	p->failed = true;
	p->err->offset = at;
	snprintf(p->err->msg, sizeof p->err->msg, msg, arg ? arg : "");
	p->tok = T_EOF; /* every loop of the parser ends at the end */
}

static uint32_t pool_add(struct parser *p, const char *s, size_t n)
{
	if (p->pn + n + 1 > p->pcap) {
		p->pcap = (p->pn + n + 1) * 2;
		p->pool = sl_xrealloc(p->pool, p->pcap);
	}
	memcpy(p->pool + p->pn, s, n);
	p->pool[p->pn + n] = 0;
	uint32_t at = (uint32_t)p->pn;
	p->pn += n + 1;
	return at;
}

static uint32_t node(struct parser *p, int kind, uint32_t a, uint32_t b, uint32_t c)
{
	if (p->nn == p->ncap) {
		p->ncap = p->ncap ? p->ncap * 2 : 64;
		p->nodes = sl_xrealloc(p->nodes, p->ncap * sizeof *p->nodes);
	}
	struct sl_cel_node *n = &p->nodes[p->nn];
	memset(n, 0, sizeof *n);
	n->kind = (uint8_t)kind;
	n->a = a, n->b = b, n->c = c;
	unsigned d = 0;
	uint32_t kids[3] = {a, b, c};
	for (int i = 0; i < 3; i++)
		if (kids[i] && p->nodes[kids[i]].depth > d)
			d = p->nodes[kids[i]].depth;
	n->depth = (uint16_t)(d + 1);
	if (d + 1 > MAX_DEPTH)
		fail(p, p->at, "expression nested too deeply (more than 500 levels)", NULL);
	return (uint32_t)p->nn++;
}

/* ---- the lexer ---- */

static bool ident_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_utf8(char *out, size_t *n, uint32_t cp)
{
	int more = cp < 0x80 ? 0 : cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;
	static const unsigned char lead[] = {0, 0xC0, 0xE0, 0xF0};
	out[(*n)++] = (char)(lead[more] | cp >> (6 * more));
	for (int k = more - 1; k >= 0; k--)
		out[(*n)++] = (char)(0x80 | ((cp >> (6 * k)) & 0x3F));
}

/* One escape after the backslash at s[*i]; appended to out. -1: not an escape CEL knows. */
static int unescape(const char *s, size_t end, size_t *i, char *out, size_t *n, bool bytes)
{
	char c = s[*i + 1];
	static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\''\"\"``??";
	for (size_t k = 0; k + 1 < sizeof simple; k += 2)
		if (c == simple[k]) {
			out[(*n)++] = simple[k + 1];
			*i += 2;
			return 0;
		}
	int digits = c == 'x' || c == 'X' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
	uint32_t v = 0;
	if (digits) {
		if (*i + 2 + (size_t)digits > end)
			return -1;
		for (int k = 0; k < digits; k++) {
			int h = hexval(s[*i + 2 + k]);
			if (h < 0)
				return -1;
			v = v * 16 + (uint32_t)h;
		}
		*i += 2 + (size_t)digits;
	} else if (c >= '0' && c <= '3') {
		if (*i + 4 > end)
			return -1;
		for (int k = 1; k <= 3; k++) {
			char o = s[*i + k];
			if (o < '0' || o > '7')
				return -1;
			v = v * 8 + (uint32_t)(o - '0');
		}
		*i += 4;
		digits = 3;
	} else {
		return -1;
	}
	if ((digits == 2 || digits == 3) && bytes)
		out[(*n)++] = (char)v; /* a byte of a bytes literal */
	else if (digits > 2 && bytes)
		return -1;
	else if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
		return -1;
	else
		put_utf8(out, n, v);
	return 0;
}

/* A string or bytes literal from its quote at s[p->pos]; raw: no escapes. */
static void lex_string(struct parser *p, bool raw, bool bytes)
{
	const char *s = p->s;
	char q = s[p->pos];
	bool triple = p->pos + 2 < p->len && s[p->pos + 1] == q && s[p->pos + 2] == q;
	size_t i = p->pos + (triple ? 3 : 1), n = 0;
	char *out = sl_xmalloc(p->len - i + 1);
	for (;;) {
		if (i >= p->len) {
			free(out);
			fail(p, p->at, "unterminated string literal", NULL);
			return;
		}
		if (triple ? (i + 2 < p->len && s[i] == q && s[i + 1] == q && s[i + 2] == q) : s[i] == q)
			break;
		if (!triple && (s[i] == '\n' || s[i] == '\r')) {
			free(out);
			fail(p, i, "newline in a quoted string (use ''' or \"\"\")", NULL);
			return;
		}
		if (s[i] == '\\' && !raw) {
			if (i + 1 >= p->len || unescape(s, p->len, &i, out, &n, bytes) < 0) {
				free(out);
				fail(p, i, "invalid escape sequence in a string literal", NULL);
				return;
			}
			continue;
		}
		out[n++] = s[i++];
	}
	p->pos = i + (triple ? 3 : 1);
	p->str = pool_add(p, out, n);
	p->slen = (uint32_t)n;
	p->tok = bytes ? T_BYTES : T_STRING;
	free(out);
}

static void lex_number(struct parser *p)
{
	const char *s = p->s;
	size_t i = p->pos;
	p->num = 0, p->num_big = false;
	if (s[i] == '0' && i + 1 < p->len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		i += 2;
		size_t start = i;
		for (; i < p->len && hexval(s[i]) >= 0; i++) {
			if (p->num >> 60)
				p->num_big = true;
			p->num = p->num * 16 + (uint64_t)hexval(s[i]);
		}
		if (i == start)
			fail(p, p->at, "invalid hexadecimal literal", NULL);
	} else {
		for (; i < p->len && s[i] >= '0' && s[i] <= '9'; i++) {
			uint64_t d = (uint64_t)(s[i] - '0');
			if (p->num > (UINT64_MAX - d) / 10)
				p->num_big = true;
			p->num = p->num * 10 + d;
		}
		bool frac = i + 1 < p->len && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9';
		size_t e = i + (frac ? 1 : 0);
		while (frac && e < p->len && s[e] >= '0' && s[e] <= '9')
			e++;
		size_t x = e;
		if (x < p->len && (s[x] == 'e' || s[x] == 'E')) {
			x++;
			if (x < p->len && (s[x] == '+' || s[x] == '-'))
				x++;
			if (x < p->len && s[x] >= '0' && s[x] <= '9') {
				while (x < p->len && s[x] >= '0' && s[x] <= '9')
					x++;
				e = x;
				frac = true;
			}
		}
		if (frac) {
			char buf[64];
			size_t n = e - p->pos < sizeof buf - 1 ? e - p->pos : sizeof buf - 1;
			memcpy(buf, s + p->pos, n);
			buf[n] = 0;
			p->dbl = strtod(buf, NULL);
			p->pos = e;
			p->tok = T_DOUBLE;
			return;
		}
	}
	p->tok = T_INT;
	if (i < p->len && (s[i] == 'u' || s[i] == 'U'))
		p->tok = T_UINT, i++;
	p->pos = i;
	if (p->num_big)
		fail(p, p->at, p->tok == T_UINT ? "invalid uint literal" : "invalid int literal", NULL);
}

static const char *const reserved[] = {"as",        "break",  "const",  "continue", "else", "for",
				       "function",  "if",     "import", "let",      "loop", "package",
				       "namespace", "return", "var",    "void",     "while"};

static void lex_ident(struct parser *p)
{
	size_t i = p->pos;
	while (i < p->len && ident_char(p->s[i]))
		i++;
	size_t n = i - p->pos;
	const char *w = p->s + p->pos;
	/* r"…", b"…", rb"…", br"…": a prefix glued to a quote. */
	if (i < p->len && (p->s[i] == '"' || p->s[i] == '\'') && n <= 2) {
		bool raw = false, bytes = false, ok = true;
		for (size_t k = 0; k < n; k++) {
			char c = (char)(w[k] | 0x20);
			if (c == 'r' && !raw)
				raw = true;
			else if (c == 'b' && !bytes)
				bytes = true;
			else
				ok = false;
		}
		if (ok) {
			p->pos = i;
			lex_string(p, raw, bytes);
			return;
		}
	}
	p->pos = i;
	static const struct {
		const char *w;
		int tok;
	} words[] = {{"true", T_TRUE}, {"false", T_FALSE}, {"null", T_NULL}, {"in", T_IN}};
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (strlen(words[k].w) == n && !memcmp(w, words[k].w, n)) {
			p->tok = words[k].tok;
			return;
		}
	for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++)
		if (strlen(reserved[k]) == n && !memcmp(w, reserved[k], n)) {
			char word[16];
			memcpy(word, w, n);
			word[n] = 0;
			fail(p, p->at, "reserved identifier: %s", word);
			return;
		}
	p->str = pool_add(p, w, n);
	p->slen = (uint32_t)n;
	p->tok = T_IDENT;
}

static void skip_space(struct parser *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
			p->pos++;
		} else if (c == '/' && p->pos + 1 < p->len && p->s[p->pos + 1] == '/') {
			while (p->pos < p->len && p->s[p->pos] != '\n')
				p->pos++;
		} else {
			break;
		}
	}
}

static void lex_punct(struct parser *p)
{
	static const struct {
		char a, b;
		int tok;
	} two[] = {{'<', '=', T_LE}, {'>', '=', T_GE},  {'=', '=', T_EQ},
		   {'!', '=', T_NE}, {'&', '&', T_AND}, {'|', '|', T_OR}};
	char c = p->s[p->pos], d = p->pos + 1 < p->len ? p->s[p->pos + 1] : 0;
	for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
		if (c == two[k].a && d == two[k].b) {
			p->pos += 2;
			p->tok = two[k].tok;
			return;
		}
	if (strchr("()[]{}.,:?!-+*/%<>", c) && c) {
		p->pos++;
		p->tok = c;
		return;
	}
	fail(p, p->at, "unexpected character '%s'", (char[]){c, 0});
}

static void next(struct parser *p)
{
	if (p->failed)
		return;
	skip_space(p);
	p->at = p->pos;
	if (p->pos >= p->len) {
		p->tok = T_EOF;
		return;
	}
	char c = p->s[p->pos];
	if ((c >= '0' && c <= '9') ||
	    (c == '.' && p->pos + 1 < p->len && p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9'))
		lex_number(p);
	else if (ident_start(c))
		lex_ident(p);
	else if (c == '"' || c == '\'')
		lex_string(p, false, false);
	else if (c == '`') {
		size_t e = p->pos + 1;
		while (e < p->len && (ident_char(p->s[e]) || strchr("-./~", p->s[e])))
			e++;
		if (e >= p->len || p->s[e] != '`' || e == p->pos + 1) {
			fail(p, p->at, "invalid quoted field name", NULL);
			return;
		}
		p->str = pool_add(p, p->s + p->pos + 1, e - p->pos - 1);
		p->slen = (uint32_t)(e - p->pos - 1);
		p->pos = e + 1;
		p->tok = T_QIDENT;
	} else
		lex_punct(p);
}

static bool accept(struct parser *p, int tok)
{
	if (p->tok != tok)
		return false;
	next(p);
	return true;
}

static void expect(struct parser *p, int tok, const char *what)
{
	if (!accept(p, tok))
		fail(p, p->at, "expected %s", what);
}

/* ---- the grammar ---- */

static uint32_t parse_expr(struct parser *p);

/* Arguments or elements up to close; returns the first, chained by next; *count gets how many.
 * trailing (a list literal): a trailing comma is allowed, and an element may be `?e` (optional). */
static uint32_t parse_list(struct parser *p, int close, bool trailing, uint32_t *count)
{
	uint32_t first = 0, last = 0;
	*count = 0;
	while (p->tok != close && !p->failed) {
		if (trailing)
			(void)accept(p, '?'); /* an optional element: kept as the element */
		uint32_t e = parse_expr(p);
		if (last)
			p->nodes[last].next = e;
		else
			first = e;
		last = e;
		(*count)++;
		if (!accept(p, ','))
			break;
		if (!trailing && p->tok == close)
			fail(p, p->at, "unexpected ')' after ','", NULL);
	}
	expect(p, close, close == ')' ? "')'" : close == ']' ? "']'" : "'}'");
	return first;
}

/* {k: v, …} as a map literal, or Name{field: v, …} as a message construction: parsed, kept
 * whole, not evaluated. */
static uint32_t parse_inits(struct parser *p, int kind)
{
	uint32_t n = node(p, kind, 0, 0, 0);
	while (p->tok != '}' && !p->failed) {
		(void)accept(p, '?');
		if (kind == SL_CELN_STRUCT) {
			if (p->tok != T_IDENT && p->tok != T_QIDENT)
				fail(p, p->at, "expected a field name", NULL);
			next(p);
		} else {
			(void)parse_expr(p);
		}
		expect(p, ':', "':'");
		(void)parse_expr(p);
		if (!accept(p, ','))
			break;
	}
	expect(p, '}', "'}'");
	return n;
}

static uint32_t literal(struct parser *p, int kind)
{
	uint32_t n = node(p, kind, 0, 0, 0);
	p->nodes[n].str = p->str, p->nodes[n].len = p->slen;
	return n;
}

/* has(a.f), and the comprehension macros' simple names, as cel-go's parser checks them. */
static void check_macro(struct parser *p, uint32_t call, size_t at)
{
	struct sl_cel_node *c = &p->nodes[call];
	const char *name = p->pool + c->str;
	const struct sl_cel_node *first = c->b ? &p->nodes[c->b] : NULL;
	if (!c->a && !strcmp(name, "has") && c->nargs == 1) {
		if (first->kind != SL_CELN_SELECT)
			fail(p, at, "invalid argument to has() macro", NULL);
		else
			c->kind = SL_CELN_HAS;
		return;
	}
	bool comp = c->a && (((!strcmp(name, "all") || !strcmp(name, "exists") || !strcmp(name, "exists_one") ||
			       !strcmp(name, "filter")) &&
			      c->nargs == 2) ||
			     (!strcmp(name, "map") && (c->nargs == 2 || c->nargs == 3)));
	bool bind = c->a && !strcmp(name, "bind") && c->nargs == 3 && p->nodes[c->a].kind == SL_CELN_IDENT &&
		    !strcmp(p->pool + p->nodes[c->a].str, "cel");
	if ((comp || bind) && first->kind != SL_CELN_IDENT)
		fail(p, at, "argument must be a simple name", NULL);
}

static uint32_t parse_call(struct parser *p, uint32_t target, uint32_t name, size_t at)
{
	uint32_t count;
	uint32_t args = parse_list(p, ')', false, &count);
	uint32_t c = node(p, SL_CELN_CALL, target, args, 0);
	for (uint32_t a = args; a; a = p->nodes[a].next)
		if (p->nodes[a].depth + 1u > p->nodes[c].depth)
			p->nodes[c].depth = (uint16_t)(p->nodes[a].depth + 1);
	p->nodes[c].str = name, p->nodes[c].nargs = count;
	check_macro(p, c, at);
	return c;
}

static uint32_t parse_name(struct parser *p, size_t at)
{
	uint32_t n = literal(p, SL_CELN_IDENT);
	next(p);
	if (accept(p, '('))
		return parse_call(p, 0, p->nodes[n].str, at);
	return n;
}

static uint32_t parse_primary(struct parser *p)
{
	size_t at = p->at;
	uint32_t n;
	switch (p->tok) {
	case T_INT:
	case T_UINT:
		n = node(p, p->tok == T_INT ? SL_CELN_INT : SL_CELN_UINT, 0, 0, 0);
		if (p->tok == T_INT && p->num > INT64_MAX)
			fail(p, at, "invalid int literal", NULL);
		p->nodes[n].lit.u = p->num;
		next(p);
		return n;
	case T_DOUBLE:
		n = node(p, SL_CELN_DOUBLE, 0, 0, 0);
		p->nodes[n].lit.d = p->dbl;
		next(p);
		return n;
	case T_STRING:
	case T_BYTES:
		n = literal(p, p->tok == T_STRING ? SL_CELN_STRING : SL_CELN_BYTES);
		next(p);
		return n;
	case T_TRUE:
	case T_FALSE:
		n = node(p, SL_CELN_BOOL, 0, 0, 0);
		p->nodes[n].lit.b = p->tok == T_TRUE;
		next(p);
		return n;
	case T_NULL:
		next(p);
		return node(p, SL_CELN_NULL, 0, 0, 0);
	case '(':
		next(p);
		n = parse_expr(p);
		expect(p, ')', "')'");
		return n;
	case '[': {
		next(p);
		uint32_t count, first = parse_list(p, ']', true, &count);
		n = node(p, SL_CELN_LIST, 0, first, 0);
		p->nodes[n].nargs = count;
		for (uint32_t e = first; e; e = p->nodes[e].next)
			if (p->nodes[e].depth + 1u > p->nodes[n].depth)
				p->nodes[n].depth = (uint16_t)(p->nodes[e].depth + 1);
		return n;
	}
	case '{':
		next(p);
		return parse_inits(p, SL_CELN_MAP);
	case '.': /* a name resolved from the root: the same name here */
		next(p);
		if (p->tok != T_IDENT) {
			fail(p, p->at, "expected an identifier after '.'", NULL);
			return node(p, SL_CELN_NULL, 0, 0, 0);
		}
		return parse_name(p, at);
	case T_IDENT:
		return parse_name(p, at);
	default:
		fail(p, at, p->tok == T_EOF ? "unexpected end of expression" : "unexpected token", NULL);
		return node(p, SL_CELN_NULL, 0, 0, 0);
	}
}

/* Whether n is a qualified name (a.b.c), which `{` after it makes a message construction. */
static bool qualified(const struct parser *p, uint32_t n)
{
	while (p->nodes[n].kind == SL_CELN_SELECT)
		n = p->nodes[n].a;
	return p->nodes[n].kind == SL_CELN_IDENT;
}

static uint32_t parse_member(struct parser *p)
{
	uint32_t n = parse_primary(p);
	while (!p->failed) {
		size_t at = p->at;
		if (accept(p, '.')) {
			bool opt = accept(p, '?');
			if (p->tok != T_IDENT && p->tok != T_QIDENT) {
				fail(p, p->at, "expected a field name after '.'", NULL);
				break;
			}
			uint32_t name = p->str;
			bool quoted = p->tok == T_QIDENT;
			next(p);
			if (!opt && !quoted && accept(p, '(')) {
				n = parse_call(p, n, name, at);
				continue;
			}
			n = node(p, opt ? SL_CELN_OPT_SELECT : SL_CELN_SELECT, n, 0, 0);
			p->nodes[n].str = name;
		} else if (accept(p, '[')) {
			bool opt = accept(p, '?');
			uint32_t i = parse_expr(p);
			expect(p, ']', "']'");
			n = node(p, opt ? SL_CELN_OPT_INDEX : SL_CELN_INDEX, n, i, 0);
		} else if (p->tok == '{' && qualified(p, n)) {
			next(p);
			n = parse_inits(p, SL_CELN_STRUCT);
		} else {
			break;
		}
	}
	return n;
}

static uint32_t parse_unary(struct parser *p)
{
	size_t nots = 0, negs = 0;
	if (p->tok == '!')
		while (accept(p, '!'))
			nots++;
	else
		while (accept(p, '-'))
			negs++;
	/* -9223372036854775808 is a literal: one '-' belongs to the number. */
	if (negs && (p->tok == T_INT || p->tok == T_DOUBLE) && !p->failed) {
		bool isint = p->tok == T_INT;
		uint32_t n = node(p, isint ? SL_CELN_INT : SL_CELN_DOUBLE, 0, 0, 0);
		if (isint && p->num > (uint64_t)INT64_MAX + 1)
			fail(p, p->at, "invalid int literal", NULL);
		if (isint)
			p->nodes[n].lit.i = (int64_t)(0 - p->num);
		else
			p->nodes[n].lit.d = -p->dbl;
		next(p);
		negs--;
		while (negs--)
			n = node(p, SL_CELN_NEG, n, 0, 0);
		return n;
	}
	uint32_t n = parse_member(p);
	while (nots--)
		n = node(p, SL_CELN_NOT, n, 0, 0);
	while (negs--)
		n = node(p, SL_CELN_NEG, n, 0, 0);
	return n;
}

static int binop(int tok, int level)
{
	static const int ops[][2] = {{'*', SL_CELOP_MUL}, {'/', SL_CELOP_DIV}, {'%', SL_CELOP_MOD},
				     {'+', SL_CELOP_ADD}, {'-', SL_CELOP_SUB}, {T_EQ, SL_CELOP_EQ},
				     {T_NE, SL_CELOP_NE}, {'<', SL_CELOP_LT},  {T_LE, SL_CELOP_LE},
				     {'>', SL_CELOP_GT},  {T_GE, SL_CELOP_GE}, {T_IN, SL_CELOP_IN}};
	static const int from[] = {0, 3, 5}, to[] = {3, 5, 12};
	for (int k = from[level]; k < to[level]; k++)
		if (ops[k][0] == tok)
			return ops[k][1];
	return -1;
}

/* Left-associative levels: 0 multiplicative, 1 additive, 2 relations. */
static uint32_t parse_binary(struct parser *p, int level)
{
	uint32_t n = level ? parse_binary(p, level - 1) : parse_unary(p);
	int op;
	while (!p->failed && (op = binop(p->tok, level)) >= 0) {
		next(p);
		uint32_t r = level ? parse_binary(p, level - 1) : parse_unary(p);
		n = node(p, SL_CELN_BINARY, n, r, 0);
		p->nodes[n].op = (uint8_t)op;
	}
	return n;
}

static uint32_t balance(struct parser *p, int kind, const uint32_t *terms, size_t lo, size_t hi)
{
	if (hi - lo == 1)
		return terms[lo];
	size_t mid = lo + (hi - lo) / 2;
	uint32_t l = balance(p, kind, terms, lo, mid);
	return node(p, kind, l, balance(p, kind, terms, mid, hi), 0);
}

/* a && b && … (and ||) as a balanced tree: the evaluation is the same (both are commutative in
 * CEL), the depth logarithmic. */
static uint32_t parse_logic(struct parser *p, bool or)
{
	size_t n = 0, cap = 4;
	uint32_t *terms = sl_xmalloc(cap * sizeof *terms);
	int tok = or ? T_OR : T_AND;
	do {
		if (n == cap)
			terms = sl_xrealloc(terms, (cap *= 2) * sizeof *terms);
		terms[n++] = or ? parse_logic(p, false) : parse_binary(p, 2);
	} while (!p->failed && accept(p, tok));
	uint32_t r = balance(p, or ? SL_CELN_OR : SL_CELN_AND, terms, 0, n);
	free(terms);
	return r;
}

static uint32_t parse_expr(struct parser *p)
{
	if (++p->nesting > MAX_NESTING) {
		fail(p, p->at, "expression recursion limit exceeded: 250", NULL); /* cel-go's words */
		p->nesting--;
		return node(p, SL_CELN_NULL, 0, 0, 0);
	}
	uint32_t n = parse_logic(p, true);
	if (accept(p, '?')) {
		uint32_t t = parse_logic(p, true);
		expect(p, ':', "':'");
		uint32_t e = parse_expr(p);
		n = node(p, SL_CELN_COND, n, t, e);
	}
	p->nesting--;
	return n;
}

struct sl_cel *sl_cel_parse(const char *expr, size_t len, struct sl_cel_error *err)
{
	struct sl_cel_error dummy;
	struct parser p = {.s = expr, .len = len, .err = err ? err : &dummy};
	size_t cps = sl_cel_codepoints(expr, len);
	if (cps > MAX_CODEPOINTS) {
		p.err->offset = 0;
		snprintf(p.err->msg, sizeof p.err->msg, "expression code point size exceeds limit: size: %zu, limit %d",
			 cps, MAX_CODEPOINTS);
		return NULL;
	}
	(void)node(&p, SL_CELN_NULL, 0, 0, 0); /* index 0: no node */
	next(&p);
	uint32_t root = parse_expr(&p);
	if (!p.failed && p.tok != T_EOF)
		fail(&p, p.at, "unexpected token after the expression", NULL);
	if (p.failed) {
		free(p.nodes);
		free(p.pool);
		return NULL;
	}
	/* One allocation: the header, the nodes, the pool. */
	size_t nodes_at =
	    (sizeof(struct sl_cel) + _Alignof(struct sl_cel_node) - 1) & ~(_Alignof(struct sl_cel_node) - 1);
	char *block = sl_xmalloc(nodes_at + p.nn * sizeof *p.nodes + p.pn + 1);
	struct sl_cel *e = (struct sl_cel *)(void *)block;
	memcpy(block + nodes_at, p.nodes, p.nn * sizeof *p.nodes);
	char *pool = block + nodes_at + p.nn * sizeof *p.nodes;
	if (p.pn)
		memcpy(pool, p.pool, p.pn);
	pool[p.pn] = 0;
	e->nodes = (const struct sl_cel_node *)(void *)(block + nodes_at);
	e->pool = pool;
	e->root = root;
	free(p.nodes);
	free(p.pool);
	return e;
}

void sl_cel_free(struct sl_cel *e)
{
	free(e);
}
