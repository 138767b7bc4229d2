/* fix.c — the edits of a fix applied to the text they were made on (see fix.h): in order, none
 * overlapping, with where each landed for --diff. Writing files is fixwrite.c's. */
#include "fix.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../load/input.h"
#include "udiff.h"

/* An edit and its place in the list it came in. */
struct ranked {
	const struct sl_edit *e;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->e->at.off != y->e->at.off)
		return x->e->at.off < y->e->at.off ? -1 : 1;
	if (x->e->at.end != y->e->at.end) /* an insertion before a replacement at its offset */
		return x->e->at.end < y->e->at.end ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The edits in the order their texts go into the file: by offset, and edits at one offset as
 * they were given (qsort alone would order them differently from one C library to another).
 * NULL when two overlap. */
static struct ranked *in_order(const struct sl_edit *const *edits, size_t n)
{
	struct ranked *v = sl_xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct ranked){edits[i], i};
	qsort(v, n, sizeof *v, cmp_ranked);
	for (size_t i = 1; i < n; i++)
		if (v[i].e->at.off < v[i - 1].e->at.end) {
			free(v);
			return NULL;
		}
	return v;
}

bool sl_fix_overlap(const struct sl_edit *const *edits, size_t n)
{
	struct ranked *v = in_order(edits, n);
	free(v);
	return !v;
}

char *sl_fix_apply_spans(const struct sl_source *src, const struct sl_edit *const *edits, size_t n, size_t *outlen,
			 struct sl_udiff_span *spans)
{
	struct ranked *v = in_order(edits, n);
	const char *data = sl_source_text(src); /* NULL: the file is not the one read any more */
	if (!v || !data || (n && v[n - 1].e->at.end > src->len)) {
		free(v);
		return NULL;
	}
	struct sl_buf b = SL_BUF_INIT;
	size_t pos = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sl_edit *e = v[i].e;
		sl_buf_add(&b, data + pos, e->at.off - pos);
		size_t at = b.len;
		sl_buf_puts(&b, e->text);
		if (spans)
			spans[i] = (struct sl_udiff_span){e->at.off, e->at.end, at, b.len};
		pos = e->at.end;
	}
	sl_buf_add(&b, data + pos, src->len - pos);
	free(v);
	*outlen = b.len;
	return sl_buf_detach(&b);
}

char *sl_fix_apply(const struct sl_source *src, const struct sl_edit *const *edits, size_t n, size_t *outlen)
{
	return sl_fix_apply_spans(src, edits, n, outlen, NULL);
}
