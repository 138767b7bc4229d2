#include "buf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void oom(void)
{
	fputs("schedlint: out of memory\n", stderr);
	abort();
}

void *sl_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

/* Below this, malloc and memset: glibc's calloc never takes a chunk from the thread's cache, as
 * malloc does, so each small one costs a trip through the arena (a few hundred instructions, for
 * the model's and the engine's many small zeroed structures). Above it calloc's fresh pages need
 * no clearing. */
#define SMALL_ZEROED 1024

void *sl_xcalloc(size_t n, size_t size)
{
	n = n ? n : 1;
	size = size ? size : 1;
	if (n <= SMALL_ZEROED / size)
		return memset(sl_xmalloc(n * size), 0, n * size);
	void *p = calloc(n, size);
	if (!p)
		oom();
	return p;
}

void *sl_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *sl_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(sl_xmalloc(n), s, n);
}

char *sl_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = sl_vxasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void sl_grow_slow(void *arr, size_t *cap, size_t need, size_t sz)
{
	void **p = arr;
	size_t n = *cap ? *cap : 4;
	while (n < need)
		n *= 2;
	*p = sl_xrealloc(*p, n * sz);
	*cap = n;
}

static void reserve(struct sl_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t n = b->cap ? b->cap : 64;
	while (n < b->len + extra + 1)
		n *= 2;
	b->s = sl_xrealloc(b->s, n);
	b->cap = n;
}

void sl_buf_add(struct sl_buf *b, const char *s, size_t n)
{
	reserve(b, n);
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

char *sl_buf_room(struct sl_buf *b, size_t n)
{
	reserve(b, n);
	char *at = b->s + b->len;
	b->len += n;
	b->s[b->len] = 0;
	return at;
}

void sl_buf_puts(struct sl_buf *b, const char *s)
{
	sl_buf_add(b, s, strlen(s));
}

void sl_buf_putc(struct sl_buf *b, char c)
{
	/* Not through sl_buf_add: a memcpy call for one byte cost more than the byte (the emitters
	 * put their punctuation one character at a time). */
	reserve(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = 0;
}

void sl_buf_putu(struct sl_buf *b, unsigned long long v)
{
	char d[20]; /* 2^64 - 1 has 20 digits */
	size_t k = sizeof d;
	do
		d[--k] = (char)('0' + v % 10);
	while (v /= 10);
	sl_buf_add(b, d + k, sizeof d - k);
}

void sl_buf_puti(struct sl_buf *b, long long v)
{
	if (v < 0) {
		sl_buf_putc(b, '-');
		sl_buf_putu(b, -(unsigned long long)v); /* well defined for LLONG_MIN too */
	} else
		sl_buf_putu(b, (unsigned long long)v);
}

/* A text being written into a fixed array; full once it would not fit. */
struct fixed {
	char *s;
	size_t len, cap;
	bool full;
};

static void fixed_add(struct fixed *f, const char *s, size_t n)
{
	if (f->full || n >= f->cap - f->len) {
		f->full = true;
		return;
	}
	memcpy(f->s + f->len, s, n);
	f->len += n;
}

static void fixed_int(struct fixed *f, unsigned long long v, bool neg)
{
	char d[21]; /* a sign and 2^64 - 1's 20 digits */
	size_t k = sizeof d;
	do
		d[--k] = (char)('0' + v % 10);
	while (v /= 10);
	if (neg)
		d[--k] = '-';
	fixed_add(f, d + k, sizeof d - k);
}

/* fmt written into f as vsnprintf would write it, in one pass, when it uses only %s, %c, %d, %i
 * and %u (plain, l, ll), %zu and %% (no flag, width or precision): messages are made for every
 * finding, and parsing a format in libc costs more than writing what it asks for. False when fmt
 * asks for anything else, or f filled up: vsnprintf writes it then (ap is the caller's copy). */
static bool format_plain(struct fixed *f, const char *fmt, va_list ap)
{
	const char *p = fmt;
	for (const char *q; (q = strchr(p, '%')) != NULL; p = q + 1) {
		fixed_add(f, p, (size_t)(q - p));
		q++;
		int len = 0; /* 1: l, 2: ll, 3: z */
		if (*q == 'z') {
			len = 3;
			q++;
		} else if (*q == 'l') {
			len = q[1] == 'l' ? 2 : 1;
			q += len;
		}
		if (len == 3 ? *q != 'u' : !*q || !strchr(len ? "sciud" : "sciud%", *q))
			return false;
		if (*q == '%' || *q == 'c') {
			char c = *q == '%' ? '%' : (char)va_arg(ap, int);
			fixed_add(f, &c, 1);
		} else if (*q == 's') {
			const char *s = va_arg(ap, const char *);
			s = s ? s : "(null)";
			fixed_add(f, s, strlen(s));
		} else if (*q == 'u') {
			fixed_int(f,
				  len == 0   ? va_arg(ap, unsigned)
				  : len == 1 ? va_arg(ap, unsigned long)
				  : len == 2 ? va_arg(ap, unsigned long long)
					     : va_arg(ap, size_t),
				  false);
		} else { /* d, i */
			long long v = len == 0 ? va_arg(ap, int) : len == 1 ? va_arg(ap, long) : va_arg(ap, long long);
			/* -(unsigned long long)v is well defined for LLONG_MIN too */
			fixed_int(f, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0);
		}
		if (f->full)
			return false;
	}
	fixed_add(f, p, strlen(p));
	return !f->full;
}

void sl_buf_vprintf(struct sl_buf *b, const char *fmt, va_list ap)
{
	/* Formatted once, on the stack, and copied; formatted a second time, in place, only when it is
	 * longer: measuring first and writing after formatted every text twice. */
	char tmp[512];
	va_list cp;
	struct fixed f = {tmp, 0, sizeof tmp, false};
	va_copy(cp, ap);
	bool plain = format_plain(&f, fmt, cp);
	va_end(cp);
	if (plain) {
		sl_buf_add(b, tmp, f.len);
		return;
	}
	va_copy(cp, ap);
	int n = vsnprintf(tmp, sizeof tmp, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		sl_buf_add(b, tmp, (size_t)n);
		return;
	}
	reserve(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

/* As sl_buf_vprintf, into a string of its own exactly as long as the text: findings keep their
 * message, notes and related texts to the end of the run, where a buffer's doubling left up to
 * half of each unused. */
char *sl_vxasprintf(const char *fmt, va_list ap)
{
	char tmp[512];
	va_list cp;
	size_t n = sizeof tmp;
	struct fixed f = {tmp, 0, sizeof tmp, false};
	va_copy(cp, ap);
	if (format_plain(&f, fmt, cp))
		n = f.len;
	else if (!f.full) { /* not plain: formatted by libc */
		va_end(cp);
		va_copy(cp, ap);
		int w = vsnprintf(tmp, sizeof tmp, fmt, cp);
		n = w < 0 ? 0 : (size_t)w;
	}
	va_end(cp);
	if (n < sizeof tmp) {
		char *s = sl_xmalloc(n + 1);
		memcpy(s, tmp, n);
		s[n] = '\0';
		return s;
	}
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_vprintf(&b, fmt, ap);
	size_t len = b.len;
	return sl_xrealloc(sl_buf_detach(&b), len + 1);
}

void sl_buf_printf(struct sl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void sl_buf_reset(struct sl_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

char *sl_buf_detach(struct sl_buf *b)
{
	char *s = b->s ? b->s : sl_xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void sl_buf_free(struct sl_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

const char *sl_buf_str(const struct sl_buf *b)
{
	return b->s ? b->s : "";
}

/* Eight bytes a step, not one: the maps' keys are long (an index's "namespace\x1fkey\x1fvalue"),
 * and a byte-at-a-time hash cost more than the probing. The length comes first (strlen reads a
 * word at a time), so no load passes the key's end; the final mix spreads every byte into the low
 * bits the table's mask keeps. No map is iterated in slot order, so the hash decides no output. */
static size_t str_hash(const char *s)
{
	size_t n = strlen(s);
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
	h ^= h >> 29;
	h *= 0x9E3779B97F4A7C15ull;
	return (size_t)(h ^ (h >> 32));
}

size_t sl_strmap_get(const struct sl_strmap *m, const char *key)
{
	if (!m->cap)
		return (size_t)-1;
	for (size_t i = str_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return (size_t)-1;
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	}
}

/* m moved to a table of cap slots (a power of two, more than twice its keys). */
static void rehash(struct sl_strmap *m, size_t cap)
{
	struct sl_strmap g = {0, 0, 0, cap};
	g.keys = sl_xcalloc(g.cap, sizeof *g.keys);
	g.vals = sl_xcalloc(g.cap, sizeof *g.vals);
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			sl_strmap_put(&g, m->keys[i], m->vals[i]);
	sl_strmap_free(m);
	*m = g;
}

void sl_strmap_reserve(struct sl_strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 16;
	while (2 * n > cap)
		cap *= 2;
	if (cap != m->cap)
		rehash(m, cap);
}

size_t sl_strmap_put(struct sl_strmap *m, const char *key, size_t val)
{
	if (2 * (m->n + 1) > m->cap) /* keep the load under one half so probes stay short */
		rehash(m, m->cap ? 2 * m->cap : 16);
	size_t i;
	for (i = str_hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return val;
}

void sl_strmap_free(struct sl_strmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

size_t sl_intern_id(struct sl_strpool *p, const char *s)
{
	struct sl_strmap *m = &p->map;
	size_t at = (size_t)-1;
	if (m->cap) {
		/* One probe finds the string or the empty slot where it goes, hashed once: a new string
		 * goes straight there unless the map must grow first (then sl_strmap_put places it). */
		for (at = str_hash(s) & (m->cap - 1); m->keys[at]; at = (at + 1) & (m->cap - 1))
			if (!strcmp(m->keys[at], s))
				return m->vals[at];
	}
	sl_grow(&p->v, &p->cap, p->n + 1, sizeof *p->v);
	p->v[p->n] = sl_xstrdup(s);
	if (at == (size_t)-1 || 2 * (m->n + 1) > m->cap)
		sl_strmap_put(m, p->v[p->n], p->n);
	else {
		m->keys[at] = p->v[p->n];
		m->vals[at] = p->n;
		m->n++;
	}
	return p->n++;
}

void sl_strpool_reserve(struct sl_strpool *p, size_t n)
{
	sl_strmap_reserve(&p->map, n);
	sl_grow(&p->v, &p->cap, n, sizeof *p->v);
}

const char *sl_intern(struct sl_strpool *p, const char *s)
{
	size_t i = sl_intern_id(p, s); /* first: it may move p->v */
	return p->v[i];
}

void sl_strpool_free(struct sl_strpool *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	sl_strmap_free(&p->map);
	memset(p, 0, sizeof *p);
}

/* 2 MiB: the size of a transparent huge page on x86-64 and arm64. */
#define HUGE_ALIGN ((size_t)2 << 20)

size_t sl_huge_size(size_t n)
{
	return (n + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
}

void *sl_huge_alloc(size_t n)
{
	size_t size = sl_huge_size(n ? n : 1);
	/* Map one alignment more and trim, so the block starts on a huge-page boundary. */
	char *base = mmap(NULL, size + HUGE_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		oom();
	char *p = (char *)(((uintptr_t)base + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	if (p > base)
		munmap(base, (size_t)(p - base));
	if (p + size < base + size + HUGE_ALIGN)
		munmap(p + size, (size_t)(base + size + HUGE_ALIGN - (p + size)));
#ifdef MADV_HUGEPAGE
	madvise(p, size, MADV_HUGEPAGE); /* advice only: without it the block is ordinary memory */
#endif
	return p;
}

void sl_huge_free(void *p, size_t n)
{
	if (p)
		munmap(p, sl_huge_size(n ? n : 1));
}
