/* lsp.h — `schedlint lsp`: a Language Server Protocol server over stdio. It lints the open
 * buffers as they read, with the rest of the workspace's manifests, once per change (a change
 * that came with later ones in the same batch is never linted alone), publishes the findings as
 * diagnostics and offers their fixes as quick fixes. */
#ifndef SL_LSP_H
#define SL_LSP_H

/* Serve the client on in and out until it says exit or goes away. Returns the process's exit
 * status: 0 after a shutdown request, 1 without one (as the protocol says). */
int sl_lsp_serve(int in, int out);

#endif
