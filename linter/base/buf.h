/* buf.h — the one growable byte buffer used everywhere instead of snprintf arithmetic.
 * A buffer owns its bytes; sl_buf_detach hands them to the caller. Allocation failure aborts:
 * a lint run cannot do anything useful without memory.
 *
 * The base (linter/base/): what every stage uses — byte buffers, string pools and maps (buf.h),
 * items grouped under string keys (index.h), the maximum-flow solver (flow.h), how a value from
 * the input is shown safely (escape.h), and the findings every stage reports into (diag.h).
 * May include: the C library alone. */
#ifndef SL_BUF_H
#define SL_BUF_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Whether a and b are the same string: the same pointer settles it without a call (the namespace
 * of objects that name none is one constant, a placed pod's is its workload's), asked per pod
 * where selectors and spreading count. */
static inline bool sl_streq(const char *a, const char *b)
{
	return a == b || !strcmp(a, b);
}

struct sl_buf {
	char *s; /* always NUL-terminated once anything was added */
	size_t len, cap;
};
#define SL_BUF_INIT                                                                                                    \
	{                                                                                                              \
		0, 0, 0                                                                                                \
	}

void sl_buf_add(struct sl_buf *b, const char *s, size_t n);
void sl_buf_puts(struct sl_buf *b, const char *s);
/* n more bytes at the end, for the caller to fill (a key of known parts copied in one step). */
char *sl_buf_room(struct sl_buf *b, size_t n);
void sl_buf_putc(struct sl_buf *b, char c);
/* A number in decimal, as "%llu" and "%lld" write it: keys and texts built on hot paths use these
 * and sl_buf_puts rather than sl_buf_printf, whose format parsing costs more than the copying. */
void sl_buf_putu(struct sl_buf *b, unsigned long long v);
void sl_buf_puti(struct sl_buf *b, long long v);
void sl_buf_printf(struct sl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sl_buf_vprintf(struct sl_buf *b, const char *fmt, va_list ap);
void sl_buf_reset(struct sl_buf *b);
char *sl_buf_detach(struct sl_buf *b); /* caller frees; never NULL */
void sl_buf_free(struct sl_buf *b);
const char *sl_buf_str(const struct sl_buf *b); /* "" when empty */

void *sl_xmalloc(size_t n);
void *sl_xcalloc(size_t n, size_t size);
void *sl_xrealloc(void *p, size_t n);
char *sl_xstrdup(const char *s);
char *sl_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *sl_vxasprintf(const char *fmt, va_list ap); /* sl_xasprintf from a va_list, malloc'd to the length */
/* Large, long-lived blocks (file contents, tree arenas) mapped on their own and advised to use
 * transparent huge pages: first touch of small pages is what filling tens of megabytes costs
 * most, notably on virtual machines. Zero-filled; sl_huge_free takes the size asked for. */
#define SL_HUGE_MIN ((size_t)2 << 20)
size_t sl_huge_size(size_t n); /* what sl_huge_alloc(n) maps: n rounded up to the page size used */
void *sl_huge_alloc(size_t n);
void sl_huge_free(void *p, size_t n);
/* Grow *arr (element size sz) so that it can hold need elements. */
void sl_grow_slow(void *arr, size_t *cap, size_t need, size_t sz);
/* Inline: most calls find room (the trees and indexes grow an item at a time). */
static inline void sl_grow(void *arr, size_t *cap, size_t need, size_t sz)
{
	if (need > *cap)
		sl_grow_slow(arr, cap, need, sz);
}

/* A string → index map (open addressing, a word-at-a-time hash). Keys are borrowed, not copied: they must
 * outlive the map. */
struct sl_strmap {
	const char **keys;
	size_t *vals;
	size_t n, cap; /* cap is 0 or a power of two */
};
/* The value stored for key, or (size_t)-1. */
size_t sl_strmap_get(const struct sl_strmap *m, const char *key);
/* Store key → val unless key is present; returns the value now stored for key. */
size_t sl_strmap_put(struct sl_strmap *m, const char *key, size_t val);
/* Room for n keys in all, made at once: a map whose size is known is not rehashed as it fills. */
void sl_strmap_reserve(struct sl_strmap *m, size_t n);
void sl_strmap_free(struct sl_strmap *m);

/* Interned strings: one copy of each, owned by the pool, stable until it is freed. */
struct sl_strpool {
	struct sl_strmap map;
	char **v;
	size_t n, cap;
};
const char *sl_intern(struct sl_strpool *p, const char *s);
/* The same, as its position in p->v. */
size_t sl_intern_id(struct sl_strpool *p, const char *s);
/* Room for n strings in all (sl_strmap_reserve). */
void sl_strpool_reserve(struct sl_strpool *p, size_t n);
void sl_strpool_free(struct sl_strpool *p);

#endif
