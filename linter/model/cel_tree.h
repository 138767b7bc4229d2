/* cel_tree.h — the parsed form of a CEL expression and the values it evaluates to, shared by its
 * parser (cel.c), its evaluator (cel_eval.c) and its functions (cel_func.c), and by no one else. Nodes live in one
 * array and name each other by index (0 is no node), so that the whole expression is one allocation; names and string
 * literals (escapes undone) live in a pool beside them. */
#ifndef SL_CEL_TREE_H
#define SL_CEL_TREE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cel.h"

enum sl_celn_kind {
	SL_CELN_NULL,
	SL_CELN_BOOL,
	SL_CELN_INT,
	SL_CELN_UINT,
	SL_CELN_DOUBLE,
	SL_CELN_STRING,
	SL_CELN_BYTES,
	SL_CELN_IDENT,      /* str: the name */
	SL_CELN_SELECT,     /* a.str */
	SL_CELN_OPT_SELECT, /* a.?str */
	SL_CELN_HAS,        /* has(x): b is x, a SELECT */
	SL_CELN_INDEX,      /* a[b] */
	SL_CELN_OPT_INDEX,  /* a[?b] */
	SL_CELN_CALL,       /* str(args) or a.str(args): a is the receiver (0: none), b the first argument */
	SL_CELN_LIST,       /* b: the first element */
	SL_CELN_MAP,        /* a map literal (not evaluated) */
	SL_CELN_STRUCT,     /* a message construction (not evaluated) */
	SL_CELN_NOT,        /* !a */
	SL_CELN_NEG,        /* -a */
	SL_CELN_BINARY,     /* a op b */
	SL_CELN_AND,        /* a && b */
	SL_CELN_OR,         /* a || b */
	SL_CELN_COND,       /* a ? b : c */
};

enum sl_celn_op {
	SL_CELOP_EQ,
	SL_CELOP_NE,
	SL_CELOP_LT,
	SL_CELOP_LE,
	SL_CELOP_GT,
	SL_CELOP_GE,
	SL_CELOP_IN,
	SL_CELOP_ADD,
	SL_CELOP_SUB,
	SL_CELOP_MUL,
	SL_CELOP_DIV,
	SL_CELOP_MOD
};

struct sl_cel_node {
	uint8_t kind, op;
	uint16_t depth;         /* of the subtree: bounds the evaluator's recursion */
	uint32_t a, b, c, next; /* children; next: the following argument or element */
	uint32_t str, len;      /* a name or a literal's bytes in the pool */
	uint32_t nargs;         /* a call's arguments, a list's elements */
	union {
		int64_t i;
		uint64_t u;
		double d;
		bool b;
	} lit;
};

/* How many code points UTF-8 text holds (CEL's sizes and limits count them, not bytes). */
static inline size_t sl_cel_codepoints(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

struct sl_cel {
	const struct sl_cel_node *nodes;
	const char *pool;
	uint32_t root;
};

/* ---- values, as the evaluator (cel_eval.c) walks the tree and the functions (cel_func.c) take
 * them: nothing is allocated; strings point into the pool or the device. ---- */
enum sl_celv_kind {
	SL_CELV_NULL,
	SL_CELV_BOOL,
	SL_CELV_INT,
	SL_CELV_UINT,
	SL_CELV_DOUBLE,
	SL_CELV_STRING,
	SL_CELV_BYTES,
	SL_CELV_QTY,
	SL_CELV_VER,
	SL_CELV_LIST,   /* a list literal: n elements from node first */
	SL_CELV_DEVICE, /* the variable device */
	SL_CELV_OUTER,  /* device.attributes or device.capacity */
	SL_CELV_INNER,  /* one domain of them */
	SL_CELV_ERR,    /* a runtime error: msg */
	SL_CELV_UNK,    /* not evaluated: msg says what */
};

struct sl_celv_ver {
	uint64_t major, minor, patch;
	const char *pre; /* the pre-release identifiers, without the '-' (build metadata dropped) */
	size_t prelen;
};

struct sl_celv {
	int kind;
	union {
		bool b;
		int64_t i;
		uint64_t u;
		double d;
		struct {
			const char *p;
			size_t n;
		} s;
		struct sl_qty q;
		struct sl_celv_ver v;
		struct {
			uint32_t first, n;
		} list;
		struct {
			bool cap; /* capacity, not attributes */
			const char *dom;
			size_t domlen;
		} map;
	} u;
	char msg[120];
};

void sl_celv_err(struct sl_celv *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sl_celv_unk(struct sl_celv *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* CEL's name of v's type, for messages. */
const char *sl_celv_type(const struct sl_celv *v);
/* a == b (heterogeneous, as CEL has it) and a op b for < <= > >=: a bool, or an error or unknown.
 * Neither operand is an error or unknown. */
struct sl_celv sl_celv_equal(const struct sl_celv *a, const struct sl_celv *b);
struct sl_celv sl_celv_order(int op, const struct sl_celv *a, const struct sl_celv *b);
/* The function name applied to recv (NULL: a global call) and args, none an error or unknown
 * and none a list's elements (the evaluator's business). */
struct sl_celv sl_celv_call(const char *name, const struct sl_celv *recv, const struct sl_celv *args, size_t nargs);
/* A semantic version (semver.org, strict as blang/semver parses it); -1 with why. */
int sl_celv_semver(const char *s, size_t n, struct sl_celv_ver *v, const char **why);

#endif
