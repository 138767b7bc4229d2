/* lsp_pos.h — positions as the Language Server Protocol counts them, and file URIs. schedlint
 * keeps byte offsets (and reports 1-based lines and code-point columns); the protocol wants
 * 0-based lines, split at "\n", "\r\n" or a lone "\r", and characters counted in UTF-16 code
 * units (a code point above U+FFFF is two). Invalid UTF-8 counts one unit a byte, as the
 * replacement character an editor shows for it. */
#ifndef SL_LSP_POS_H
#define SL_LSP_POS_H
#include <stddef.h>
#include <stdint.h>

/* Where each line of a text starts, by the protocol's line ends. Owns start. */
struct sl_lsp_lines {
	uint32_t *start; /* byte offset of each line; start[0] is 0 */
	size_t n;        /* at least 1: an empty text has one empty line */
};

struct sl_lsp_pos {
	unsigned line, character;
};

void sl_lsp_lines_build(struct sl_lsp_lines *ls, const char *data, size_t len);
void sl_lsp_lines_free(struct sl_lsp_lines *ls);
/* The byte offset where line i's text ends (before its line end). */
size_t sl_lsp_line_end(const struct sl_lsp_lines *ls, const char *data, size_t len, size_t i);

/* The UTF-16 code units of n bytes of UTF-8. */
size_t sl_utf16_units(const char *s, size_t n);
/* The position of byte offset off (past the end: the end; inside a line end or a character: the
 * position before it). */
struct sl_lsp_pos sl_lsp_pos_of(const struct sl_lsp_lines *ls, const char *data, size_t len, size_t off);
/* The byte offset of p: 0, or -1 when p.line is past the last line. A character past the end of
 * its line is the line's end, as the protocol says; one inside a surrogate pair, the code point's
 * start. */
int sl_lsp_offset_of(const struct sl_lsp_lines *ls, const char *data, size_t len, struct sl_lsp_pos p, size_t *off);

/* The path of a file: URI, percent-decoded; NULL for another scheme, a remote host or a path
 * that is not absolute. Caller frees. */
char *sl_lsp_uri_path(const char *uri);

#endif
