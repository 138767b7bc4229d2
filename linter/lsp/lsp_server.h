/* lsp_server.h — the language server's state, shared by its dispatch (lsp.c) and its linting
 * (lsp_lint.c). One struct sl_lsp owns everything: the open documents, the overlay that puts
 * their text in place of the files, the config, and the last run, whose findings answer code
 * action requests until the next change. The dispatch calls the linting; the linting reaches
 * the client only through the struct sl_lsp_out the dispatch puts in s->out, never by calling
 * the dispatch, so the two files do not call each other. */
#ifndef SL_LSP_SERVER_H
#define SL_LSP_SERVER_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "../config/config.h"
#include "../load/overlay.h"
#include "../model/parsecache.h"
#include "lsp_pos.h"
#include "lsp_rpc.h"

struct sl_run;

struct sl_lsp_doc {
	char *uri;  /* as the client sent it: diagnostics are published for it as it is */
	char *path; /* the file's absolute path (symlinks resolved); NULL for a URI that is not a file */
	bool lint;  /* a manifest: named *.yaml, *.yml or *.json, or YAML or JSON by its language */
	char *text; /* the buffer as the client has it */
	size_t len;
	long long version;
	char *published; /* the diagnostics last published for it (JSON); NULL: none */
};

/* Where the findings of one source are placed: the open document it is (-1: none), its URI and
 * its line table, made when first needed. Per run. */
struct sl_lsp_src {
	const struct sl_source *src;
	int doc;
	char *uri;
	struct sl_lsp_lines lines;
	bool have_lines;
};

enum sl_lsp_state { SL_LSP_NEW, SL_LSP_RUNNING, SL_LSP_SHUT_DOWN };

/* How the linting side speaks to the client: the server passes it in (s->out) before the first
 * run, and the linting calls nothing else of the server's. ctx is the server's, given back to
 * both. */
struct sl_lsp_out {
	void *ctx;
	/* A notification: method and its params (taken). */
	void (*notify)(void *ctx, const char *method, cJSON *params);
	/* A line for the client's log; type as window/logMessage's (1 error, 2 warning, 3 info, 4 log). */
	void (*log)(void *ctx, int type, const char *message);
};

struct sl_lsp {
	struct sl_rpc rpc;
	struct sl_lsp_out out; /* the linting's way to the client, set by the server (lsp.c) */
	enum sl_lsp_state state;
	bool exiting;
	char **roots; /* the workspace folders, absolute, symlinks resolved */
	size_t nroots;
	/* initializationOptions: inventories and a config file (absolute); none given: the config's */
	char **nodes, **pods;
	size_t nnodes, npods;
	char *config_opt;
	struct sl_lsp_doc **docs;
	size_t ndocs, capdocs;
	struct sl_overlay ov;
	/* The sources the last run parsed, kept for the next: a change re-parses what changed. Its
	 * entries are borrowed by s->run, so it is swept or cleared only when no run is held. */
	struct sl_parse_cache parsed;
	/* The config the last run used, and the file it came from as it was then. */
	struct sl_config cfg;
	bool have_cfg, cfg_ok;
	char *cfg_path;
	struct sl_filekey cfg_key;
	char *cfg_published; /* the config's errors last published (JSON), NULL: none */
	struct sl_run *run;  /* the last run; NULL before the first or after a config error */
	/* The sources placed so far in this run (each allocated on its own: a pointer to one stays
	 * good while more are placed), and the run's own ones by their order in it. */
	struct sl_lsp_src **srcs;
	size_t nsrcs, capsrcs;
	struct sl_lsp_src **by_order; /* run->ss.n of them, NULL until placed */
	bool dirty;                   /* a document or file changed since the last run */
	unsigned long long runs, cancelled;
	unsigned cancelled_in_row; /* runs cancelled since one finished */
};

/* lsp_lint.c, called by the server; what it says to the client goes through s->out. */
/* Lint the workspace as the buffers read now, and publish what changed. A cancellable run ends
 * early when more messages arrive while it runs (they may change what it lints): nothing is
 * published then, and s->dirty stays set for the next. */
void sl_lsp_lint(struct sl_lsp *s, bool cancellable);
/* Drop the last run and the config (before the server ends, or when the config changes). */
void sl_lsp_lint_free(struct sl_lsp *s);
/* Publish diagnostics for a document: NULL or an empty array clears them. Takes diags. */
void sl_lsp_publish(struct sl_lsp *s, const char *uri, char **published, long long version, cJSON *diags);
/* textDocument/codeAction's result for doc in [from, to]: the fixes of its findings there. */
cJSON *sl_lsp_code_actions(struct sl_lsp *s, const struct sl_lsp_doc *doc, struct sl_lsp_pos from, struct sl_lsp_pos to,
			   bool quickfix_wanted);
/* A line for the client's log (type as window/logMessage's), formatted and sent through s->out;
 * the server's own messages use it too. */
void sl_lsp_logf(struct sl_lsp *s, int type, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
