/* lsp_rpc.h — JSON-RPC messages over a byte stream, framed the Language Server Protocol way: a
 * header of "Name: value" lines ending in "\r\n\r\n", whose Content-Length gives the size of the
 * JSON body that follows. Reading keeps what arrived in a buffer and hands out one whole message
 * at a time, so a batch that came together can be taken in full before anything is linted. A
 * framing error is reported and passed over: a bad header is skipped up to the next line that
 * starts a header, so the messages after it are read as they were meant. Owns: its buffer. */
#ifndef SL_LSP_RPC_H
#define SL_LSP_RPC_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"

/* A message larger than this is refused (its bytes skipped): 4 × the largest file a run reads
 * by default, room for JSON's escapes. */
#define SL_RPC_MAX_BODY ((size_t)256 << 20)
/* A header longer than this is refused: real ones are two short lines. */
#define SL_RPC_MAX_HEADER 8192

/* JSON-RPC's and the protocol's error codes. */
enum {
	SL_RPC_PARSE_ERROR = -32700,
	SL_RPC_INVALID_REQUEST = -32600,
	SL_RPC_METHOD_NOT_FOUND = -32601,
	SL_RPC_INVALID_PARAMS = -32602,
	SL_RPC_INTERNAL_ERROR = -32603,
	SL_RPC_SERVER_NOT_INITIALIZED = -32002,
	SL_RPC_REQUEST_FAILED = -32803,
};

struct sl_rpc {
	int in, out; /* file descriptors; -1: fed by sl_rpc_feed alone (the unit tests) */
	char *buf;   /* bytes received, [pos, len) not taken yet */
	size_t pos, len, cap;
	size_t skip;   /* bytes still to pass over: the body of a message refused by its header */
	bool resync;   /* after a header without a usable Content-Length: skipping to the next one */
	bool out_gone; /* a write failed: the client is gone */
};

void sl_rpc_init(struct sl_rpc *r, int in, int out);
void sl_rpc_free(struct sl_rpc *r);
/* Bytes received (from in, or given by a test). */
void sl_rpc_feed(struct sl_rpc *r, const char *data, size_t n);
/* Read what in has, waiting up to timeout_ms (-1: as long as it takes) for the first byte.
 * 1: bytes came; 0: none within the time; -1: the input ended or failed. */
int sl_rpc_fill(struct sl_rpc *r, int timeout_ms);
/* The next whole message: 1 with its body in *body and *len (valid until the next call on r);
 * 0 when none is buffered whole; -1 for a framing error, said in err (reset first). */
int sl_rpc_next(struct sl_rpc *r, const char **body, size_t *len, struct sl_buf *err);
/* Send msg, framed. -1 when the output is gone (out_gone is then set). */
int sl_rpc_send(struct sl_rpc *r, const cJSON *msg);

#endif
