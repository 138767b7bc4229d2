#include "udiff.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Past this many differing lines the search for the shortest script stops and the changed middle
 * is shown as one replacement: still a correct diff, and the search's memory, which grows with
 * the square of the distance, stays small whatever the input. A fix changes a handful of lines. */
#define MAX_DISTANCE 2048

struct line {
	const char *p;
	size_t len; /* its line ending included */
};

static struct line *split(const char *s, size_t len, size_t *n)
{
	struct line *v = NULL;
	size_t cap = 0;
	sl_grow(&v, &cap, 1, sizeof *v); /* never NULL: an empty text's lines are still an array */
	*n = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - s) + 1 : len;
		sl_grow(&v, &cap, *n + 1, sizeof *v);
		v[(*n)++] = (struct line){s + i, end - i};
		i = end;
	}
	return v;
}

static bool same(const struct line *x, const struct line *y)
{
	return x->len == y->len && !memcmp(x->p, y->p, x->len);
}

/* Step d's furthest x on diagonal k (-d <= k <= d); the steps are stored one after another. */
#define FAR(d, k) far[(d) * (d) + (k) + (d)]

/* Myers' greedy search for a shortest edit script of a → b; marks the lines it keeps. */
static void keep_common(const struct line *a, ptrdiff_t n, const struct line *b, ptrdiff_t m, bool *ka, bool *kb)
{
	ptrdiff_t *far = NULL, dmax = n + m < MAX_DISTANCE ? n + m : MAX_DISTANCE, found = -1;
	size_t cap = 0;
	for (ptrdiff_t d = 0; d <= dmax && found < 0; d++) {
		sl_grow(&far, &cap, (size_t)((d + 1) * (d + 1)), sizeof *far);
		for (ptrdiff_t k = -d; k <= d; k += 2) {
			ptrdiff_t x;
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d && FAR(d - 1, k - 1) < FAR(d - 1, k + 1)))
				x = FAR(d - 1, k + 1); /* a line of b added */
			else
				x = FAR(d - 1, k - 1) + 1; /* a line of a removed */
			ptrdiff_t y = x - k;
			while (x < n && y < m && same(&a[x], &b[y]))
				x++, y++;
			FAR(d, k) = x;
			if (x >= n && y >= m) {
				found = d;
				break;
			}
		}
	}
	ptrdiff_t x = n, y = m;
	for (ptrdiff_t d = found; d > 0; d--) {
		ptrdiff_t k = x - y;
		ptrdiff_t pk = k == -d || (k != d && FAR(d - 1, k - 1) < FAR(d - 1, k + 1)) ? k + 1 : k - 1;
		ptrdiff_t px = FAR(d - 1, pk), py = px - pk;
		while (x > px && y > py)
			ka[--x] = kb[--y] = true;
		x = px;
		y = py;
	}
	while (found >= 0 && x > 0 && y > 0)
		ka[--x] = kb[--y] = true;
	free(far);
}

/* A run of removed lines of a and the added lines of b that take their place. */
struct change {
	size_t a, na, b, nb;
};

static struct change *changes(const bool *ka, size_t na, const bool *kb, size_t nb, size_t *n)
{
	struct change *v = NULL;
	size_t cap = 0, i = 0, j = 0;
	*n = 0;
	while (i < na || j < nb) {
		if (i < na && j < nb && ka[i] && kb[j]) {
			i++, j++;
			continue;
		}
		struct change c = {i, 0, j, 0};
		while (i < na && !ka[i])
			i++, c.na++;
		while (j < nb && !kb[j])
			j++, c.nb++;
		if (!c.na && !c.nb)
			break; /* kept lines that do not pair up: cannot happen */
		sl_grow(&v, &cap, *n + 1, sizeof *v);
		v[(*n)++] = c;
	}
	return v;
}

static void range(struct sl_buf *out, size_t start, size_t count)
{
	/* diff's convention: an empty range names the line before it */
	if (count == 1)
		sl_buf_printf(out, "%zu", start + 1);
	else
		sl_buf_printf(out, "%zu,%zu", count ? start + 1 : start, count);
}

static void put_lines(struct sl_buf *out, char mark, const struct line *v, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		sl_buf_putc(out, mark);
		sl_buf_add(out, v[i].p, v[i].len);
		if (!v[i].len || v[i].p[v[i].len - 1] != '\n')
			sl_buf_puts(out, "\n\\ No newline at end of file\n");
	}
}

/* One hunk: changes c[0..n) with their context. */
static void hunk(struct sl_buf *out, const struct change *c, size_t n, const struct line *a, size_t na,
		 const struct line *b)
{
	size_t lead = c[0].a < SL_UDIFF_CONTEXT ? c[0].a : SL_UDIFF_CONTEXT;
	size_t aend = c[n - 1].a + c[n - 1].na, trail = na - aend < SL_UDIFF_CONTEXT ? na - aend : SL_UDIFF_CONTEXT;
	size_t as = c[0].a - lead, bs = c[0].b - lead;
	size_t bcount = c[n - 1].b + c[n - 1].nb + trail - bs;
	sl_buf_puts(out, "@@ -");
	range(out, as, aend + trail - as);
	sl_buf_puts(out, " +");
	range(out, bs, bcount);
	sl_buf_puts(out, " @@\n");
	size_t i = as;
	for (size_t t = 0; t < n; t++) {
		put_lines(out, ' ', a, i, c[t].a);
		put_lines(out, '-', a, c[t].a, c[t].a + c[t].na);
		put_lines(out, '+', b, c[t].b, c[t].b + c[t].nb);
		i = c[t].a + c[t].na;
	}
	put_lines(out, ' ', a, i, aend + trail);
}

/* The index of the line that holds byte off (n past the last line). */
static size_t line_of(const struct line *v, size_t n, const char *base, size_t off)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((size_t)(v[mid].p - base) + v[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Lines [a0, a1) of a against [b0, b1) of b: the common head and tail kept as they are, the
 * middle searched. */
static void diff_region(const struct line *la, size_t a0, size_t a1, const struct line *lb, size_t b0, size_t b1,
			bool *ka, bool *kb)
{
	while (a0 < a1 && b0 < b1 && same(&la[a0], &lb[b0]))
		ka[a0++] = kb[b0++] = true;
	while (a0 < a1 && b0 < b1 && same(&la[a1 - 1], &lb[b1 - 1]))
		ka[--a1] = kb[--b1] = true;
	keep_common(la + a0, (ptrdiff_t)(a1 - a0), lb + b0, (ptrdiff_t)(b1 - b0), ka + a0, kb + b0);
}

/* The whole lines a span touches: [r[0], r[1]) of a, [r[2], r[3]) of b. */
static void span_lines(const struct sl_udiff_span *sp, const char *a, const struct line *la, size_t na, const char *b,
		       const struct line *lb, size_t nb, size_t r[4])
{
	r[0] = line_of(la, na, a, sp->aoff);
	r[1] = line_of(la, na, a, sp->aend) + 1;
	r[2] = line_of(lb, nb, b, sp->boff);
	r[3] = line_of(lb, nb, b, sp->bend) + 1;
	r[1] = r[1] < na ? r[1] : na;
	r[3] = r[3] < nb ? r[3] : nb;
}

/* Marks the lines the diff keeps. Spans whose lines meet make one region; between regions the
 * lines are the same, one for one, since the bytes are. */
static void keep_lines(const char *a, const struct line *la, size_t na, const char *b, const struct line *lb, size_t nb,
		       const struct sl_udiff_span *sp, size_t nsp, bool *ka, bool *kb)
{
	size_t i = 0, j = 0; /* lines before a's i and b's j are decided */
	for (size_t s = 0; s < nsp;) {
		size_t r[4], next[4];
		span_lines(&sp[s], a, la, na, b, lb, nb, r);
		for (s++; s < nsp; s++) {
			span_lines(&sp[s], a, la, na, b, lb, nb, next);
			if (next[0] >= r[1] && next[2] >= r[3])
				break;
			r[1] = next[1] > r[1] ? next[1] : r[1];
			r[3] = next[3] > r[3] ? next[3] : r[3];
		}
		while (i < r[0] && j < r[2])
			ka[i++] = kb[j++] = true;
		diff_region(la, r[0], r[1], lb, r[2], r[3], ka, kb);
		i = r[1];
		j = r[3];
	}
	while (i < na && j < nb)
		ka[i++] = kb[j++] = true;
}

void sl_udiff(struct sl_buf *out, const char *name, const char *a, size_t alen, const char *b, size_t blen,
	      const struct sl_udiff_span *spans, size_t nspans)
{
	size_t na, nb;
	struct line *la = split(a, alen, &na), *lb = split(b, blen, &nb);
	bool *ka = sl_xcalloc(na + 1, sizeof *ka), *kb = sl_xcalloc(nb + 1, sizeof *kb);
	const struct sl_udiff_span whole = {0, alen, 0, blen};
	if (!spans) {
		spans = &whole;
		nspans = 1;
	}
	keep_lines(a, la, na, b, lb, nb, spans, nspans, ka, kb);
	size_t nc;
	struct change *c = changes(ka, na, kb, nb, &nc);
	if (nc)
		sl_buf_printf(out, "--- a/%s\n+++ b/%s\n", name, name);
	for (size_t s = 0, e; s < nc; s = e) {
		/* changes whose contexts would meet or touch share a hunk */
		for (e = s + 1; e < nc && c[e].a - (c[e - 1].a + c[e - 1].na) <= 2 * SL_UDIFF_CONTEXT; e++)
			;
		hunk(out, c + s, e - s, la, na, lb);
	}
	free(c);
	free(ka);
	free(kb);
	free(la);
	free(lb);
}
