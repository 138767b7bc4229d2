/* The language server's reading: bytes framed into messages however they arrive (the input cut
 * in two at a place it chooses), and byte offsets and the protocol's positions converted both
 * ways on any text: a position maps back to an offset at or before the one it came from, and that
 * offset to the same position. Then the text as a URI. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../linter/lsp/lsp_pos.h"
#include "../../linter/lsp/lsp_rpc.h"

static void drain(struct sl_rpc *r, struct sl_buf *err)
{
	const char *body;
	size_t len;
	int rc;
	while ((rc = sl_rpc_next(r, &body, &len, err)) != 0)
		if (rc < 0 ? !err->len : len > SL_RPC_MAX_BODY)
			abort(); /* an error says what it is; a message is within the bound */
}

static void positions(const char *text, size_t size)
{
	struct sl_lsp_lines ls;
	sl_lsp_lines_build(&ls, text, size);
	for (size_t off = 0; off <= size + 1; off++) {
		struct sl_lsp_pos p = sl_lsp_pos_of(&ls, text, size, off), q;
		size_t back;
		if (sl_lsp_offset_of(&ls, text, size, p, &back) < 0 || back > (off < size ? off : size))
			abort();
		q = sl_lsp_pos_of(&ls, text, size, back);
		if (q.line != p.line || q.character != p.character)
			abort();
	}
	size_t off;
	if (sl_lsp_offset_of(&ls, text, size, (struct sl_lsp_pos){(unsigned)ls.n, 0}, &off) == 0)
		abort(); /* a line past the last is no position */
	sl_lsp_lines_free(&ls);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct sl_rpc r;
	struct sl_buf err = SL_BUF_INIT;
	sl_rpc_init(&r, -1, -1);
	size_t cut = size ? data[0] % (size + 1) : 0;
	sl_rpc_feed(&r, text, cut);
	drain(&r, &err);
	sl_rpc_feed(&r, text + cut, size - cut);
	drain(&r, &err);
	sl_rpc_free(&r);
	sl_buf_free(&err);
	if (size <= 4096)
		positions(text, size);
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	free(sl_lsp_uri_path(s));
	free(s);
	return 0;
}
