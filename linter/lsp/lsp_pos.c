/* lsp_pos.c — byte offsets to the protocol's positions and back, and file URIs (see lsp_pos.h). */
#include "lsp_pos.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/buf.h"

static void push_line(struct sl_lsp_lines *ls, size_t *cap, size_t off)
{
	sl_grow(&ls->start, cap, ls->n + 1, sizeof *ls->start);
	ls->start[ls->n++] = (uint32_t)off;
}

void sl_lsp_lines_build(struct sl_lsp_lines *ls, const char *data, size_t len)
{
	size_t cap = 0;
	ls->start = NULL;
	ls->n = 0;
	push_line(ls, &cap, 0);
	if (!memchr(data, '\r', len)) { /* the usual text: memchr finds the line ends fastest */
		for (const char *q = data; (q = memchr(q, '\n', len - (size_t)(q - data))); q++)
			push_line(ls, &cap, (size_t)(q - data) + 1);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\r' && i + 1 < len && data[i + 1] == '\n')
			i++; /* "\r\n" is one line end */
		if (data[i] == '\n' || data[i] == '\r')
			push_line(ls, &cap, i + 1);
	}
}

void sl_lsp_lines_free(struct sl_lsp_lines *ls)
{
	free(ls->start);
	ls->start = NULL;
	ls->n = 0;
}

size_t sl_lsp_line_end(const struct sl_lsp_lines *ls, const char *data, size_t len, size_t i)
{
	if (i + 1 >= ls->n)
		return len;
	size_t end = ls->start[i + 1] - 1; /* the last byte of the line end */
	if (data[end] == '\n' && end > ls->start[i] && data[end - 1] == '\r')
		end--;
	return end;
}

/* The bytes of the character at p (at most avail of them) and its UTF-16 units in *units. A
 * byte that does not start a whole sequence is a character of its own. */
static size_t char_len(const unsigned char *p, size_t avail, unsigned *units)
{
	unsigned char c = p[0];
	size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
	*units = 1;
	if (n == 0 || n > avail)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 1;
	*units = n == 4 ? 2 : 1;
	return n;
}

size_t sl_utf16_units(const char *s, size_t n)
{
	size_t units = 0;
	for (size_t i = 0; i < n;) {
		unsigned u;
		i += char_len((const unsigned char *)s + i, n - i, &u);
		units += u;
	}
	return units;
}

struct sl_lsp_pos sl_lsp_pos_of(const struct sl_lsp_lines *ls, const char *data, size_t len, size_t off)
{
	if (off > len)
		off = len;
	size_t lo = 0, hi = ls->n; /* the last line starting at or before off */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (ls->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	size_t end = sl_lsp_line_end(ls, data, len, lo);
	if (off > end)
		off = end;
	struct sl_lsp_pos p = {(unsigned)lo, 0};
	for (size_t i = ls->start[lo]; i < off;) {
		unsigned u;
		size_t n = char_len((const unsigned char *)data + i, end - i, &u);
		if (i + n > off)
			break; /* inside a character: the position before it */
		p.character += u;
		i += n;
	}
	return p;
}

int sl_lsp_offset_of(const struct sl_lsp_lines *ls, const char *data, size_t len, struct sl_lsp_pos p, size_t *off)
{
	if (p.line >= ls->n)
		return -1;
	size_t i = ls->start[p.line], end = sl_lsp_line_end(ls, data, len, p.line);
	for (size_t units = 0; i < end;) {
		unsigned u;
		size_t n = char_len((const unsigned char *)data + i, end - i, &u);
		if (units + u > p.character)
			break;
		units += u;
		i += n;
	}
	*off = i;
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

char *sl_lsp_uri_path(const char *uri)
{
	if (strncasecmp(uri, "file://", 7))
		return NULL;
	const char *p = uri + 7;
	if (!strncasecmp(p, "localhost/", 10))
		p += 9;
	if (*p != '/')
		return NULL; /* file://host/…: not a file here */
	struct sl_buf b = SL_BUF_INIT;
	for (; *p && *p != '?' && *p != '#'; p++) {
		int hi, lo;
		if (*p != '%') {
			sl_buf_putc(&b, *p);
			continue;
		}
		if ((hi = hexval(p[1])) < 0 || (lo = hexval(p[2])) < 0 || (hi == 0 && lo == 0)) {
			sl_buf_free(&b); /* a bad escape, or a NUL no path can hold */
			return NULL;
		}
		sl_buf_putc(&b, (char)(hi << 4 | lo));
		p += 2;
	}
	return sl_buf_detach(&b);
}
