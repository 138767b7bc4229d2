/* source.c — a source's bytes and positions (see source.h): the line and code-point tables, byte
 * offsets to line/column and back, spans. Reading files into sources is input.c's. */
#include "source.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/diag.h"
#include "origin.h"

#define CP_STEP 64

static int is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

/* Whether the bytes are ASCII, 32 at a time: the code-point table is for the others. */
static bool all_ascii(const char *data, size_t len)
{
	size_t i = 0;
	for (uint64_t w[4]; i + sizeof w <= len; i += sizeof w) {
		memcpy(w, data + i, sizeof w);
		if ((w[0] | w[1] | w[2] | w[3]) & 0x8080808080808080u)
			return false;
	}
	for (; i < len; i++)
		if ((unsigned char)data[i] & 0x80)
			return false;
	return true;
}

void sl_source_index(struct sl_source *s)
{
	if (s->lines)
		return;
	if (!all_ascii(s->data, s->len)) {
		size_t capcp = 0, chars = 0;
		for (size_t i = 0; i <= s->len; i++) {
			if (i < s->len && is_cont((unsigned char)s->data[i]))
				continue;
			if (chars % CP_STEP == 0) {
				sl_grow(&s->cp, &capcp, s->ncp + 1, sizeof *s->cp);
				s->cp[s->ncp++] = (uint32_t)i;
			}
			chars++;
		}
	}
	/* One pass: room for a line every 24 bytes (YAML's are longer), doubled when a file's are
	 * shorter, and the table cut to its size after, held as long as the source is. Offsets fit
	 * 32 bits (SL_FILE_BYTES_CAP). */
	size_t cap = s->len / 24 + 16;
	s->lines = sl_xmalloc(cap * sizeof *s->lines);
	s->lines[s->nlines++] = 0;
	for (const char *q = s->data; (q = memchr(q, '\n', s->len - (size_t)(q - s->data))); q++) {
		if (s->nlines == cap)
			sl_grow(&s->lines, &cap, s->nlines + 1, sizeof *s->lines);
		s->lines[s->nlines++] = (uint32_t)(q - s->data) + 1;
	}
	if (s->nlines < cap)
		s->lines = sl_xrealloc(s->lines, s->nlines * sizeof *s->lines);
}

struct sl_source *sl_source_from_memory(const char *path, const char *data, size_t len)
{
	struct sl_source *s = sl_xcalloc(1, sizeof *s);
	s->path = sl_xstrdup(path);
	s->data = sl_xmalloc(len + 1);
	if (len)
		memcpy(s->data, data, len);
	s->data[len] = 0;
	s->len = len;
	sl_source_index(s);
	return s;
}

void sl_source_forget(const struct sl_source *s, size_t off, size_t end)
{
	size_t lead = 0;
	while (lead < s->len && strchr(" \t\r\n", s->data[lead]))
		lead++;
	off = off > lead + 1 ? off : lead + 1;
	end = end < s->len ? end : s->len;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from = (uintptr_t)(s->data + off),
		  to = (uintptr_t)(s->data + end);
	from = (from + page - 1) / page * page;
	to = to / page * page;
	if (off < end && from < to)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

void sl_source_free(struct sl_source *s)
{
	if (!s)
		return;
	free(s->path);
	if (s->huge)
		sl_huge_free(s->data, s->huge);
	else
		free(s->data);
	free(s->lines);
	free(s->cp);
	sl_origin_free(s->origin);
	free(s);
}

size_t sl_source_bom(const struct sl_source *s)
{
	return s->len >= 3 && !memcmp(s->data, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

size_t sl_source_char_to_byte(const struct sl_source *s, size_t charidx)
{
	if (!s->cp)
		return charidx < s->len ? charidx : s->len;
	if (charidx / CP_STEP >= s->ncp)
		return s->len;
	size_t i = s->cp[charidx / CP_STEP];
	for (size_t k = charidx % CP_STEP; k > 0 && i < s->len; k--) {
		i++;
		while (i < s->len && is_cont((unsigned char)s->data[i]))
			i++;
	}
	return i;
}

void sl_source_linecol(const struct sl_source *s, size_t off, unsigned *line, unsigned *col)
{
	sl_source_linecol_hint(s, off, (size_t)-1, line, col);
}

void sl_source_linecol_hint(const struct sl_source *s, size_t off, size_t hint, unsigned *line, unsigned *col)
{
	if (off > s->len)
		off = s->len;
	size_t lo = 0, hi = s->nlines;
	if (hint < s->nlines && s->lines[hint] <= off && (hint + 1 == s->nlines || s->lines[hint + 1] > off))
		lo = hi = hint; /* the hint is right: no search */
	while (hi - lo > 1) {   /* last line start <= off */
		size_t mid = (lo + hi) / 2;
		if (s->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (unsigned)lo + 1;
	if (!s->cp) { /* ASCII: one byte, one code point */
		*col = (unsigned)(off - s->lines[lo]) + 1;
		return;
	}
	unsigned c = 1;
	for (size_t i = s->lines[lo]; i < off; i++)
		if (!is_cont((unsigned char)s->data[i]))
			c++;
	*col = c;
}

size_t sl_source_offset(const struct sl_source *s, unsigned line, unsigned col)
{
	if (line == 0)
		return 0;
	if (line > s->nlines)
		return s->len;
	size_t i = s->lines[line - 1];
	for (unsigned c = 1; c < col && i < s->len && s->data[i] != '\n'; c++) {
		i++;
		while (i < s->len && is_cont((unsigned char)s->data[i]))
			i++;
	}
	return i;
}

void sl_source_span(const struct sl_source *s, size_t off, size_t end, struct sl_span *out)
{
	sl_source_span_hint(s, off, end, (size_t)-1, out);
}

void sl_source_span_hint(const struct sl_source *s, size_t off, size_t end, size_t lhint, struct sl_span *out)
{
	out->src = s;
	out->off = off;
	out->end = end;
	sl_source_linecol_hint(s, off, lhint, &out->line, &out->col);
}

void sl_span_end(const struct sl_span *at, unsigned *line, unsigned *col)
{
	*line = *col = 0;
	if (at->src)
		sl_source_linecol(at->src, at->end, line, col);
}

void sl_fix_edit(struct sl_fix *fx, const struct sl_source *src, size_t off, size_t end, const char *text)
{
	sl_grow(&fx->edits, &fx->cap, fx->nedits + 1, sizeof *fx->edits);
	struct sl_edit *e = &fx->edits[fx->nedits++];
	sl_source_span(src, off, end, &e->at);
	e->text = sl_xstrdup(text);
}
