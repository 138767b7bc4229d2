/* lsp.h — `schedlint lsp`: a Language Server Protocol server over stdio. It lints the open
 * buffers as they read, with the rest of the workspace's manifests, once per change (a change
 * that came with later ones in the same batch is never linted alone), publishes the findings as
 * diagnostics and offers their fixes as quick fixes.
 *
 * The language server (linter/lsp/): framing (lsp_rpc.c), positions in UTF-16 (lsp_pos.c), the
 * lifecycle and the documents (lsp.c), a run of the pipeline per change (lsp_lint.c). It sits
 * above the pipeline (run.h) and may include any stage; only main.c includes it. */
#ifndef SL_LSP_H
#define SL_LSP_H

/* Serve the client on in and out until it says exit or goes away. Returns the process's exit
 * status: 0 after a shutdown request, 1 without one (as the protocol says). */
int sl_lsp_serve(int in, int out);

#endif
