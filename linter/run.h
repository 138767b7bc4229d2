/* run.h — the pipeline below the command line: load, then model → check (rules, inventory gaps,
 * policies, suppressions) once per target (the files that form one cluster, with that cluster's
 * inventory). Without targets there is one, as there is without a config. Owns: every source
 * read (findings point into them) and every finding, input errors first in the order of their
 * sources, then rule findings in the order of the objects they are about. */
#ifndef SL_RUN_H
#define SL_RUN_H
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "base/buf.h"
#include "config/config.h"
#include "load/input.h"

struct sl_explained;
struct sl_gates;
struct sl_overlay;
struct sl_parse_cache;

struct sl_run {
	struct sl_config *cfg;
	bool explain, explain_json; /* --explain instead of findings (as JSON) */
	const char *stdin_name;     /* --stdin-filename: what "-" is called (NULL: "-") */
	bool fix;                   /* --fix: the sources are rewritten whole afterwards */
	int kube_minor;             /* --kube-version (kversion.h); 0: not given */
	const char *kube_text;
	const struct sl_gates *gates; /* --feature-gates (model/gates.h); NULL: none */
	/* The language server's: open buffers and cached files read instead of the disk (NULL: the
	 * disk), and every byte of every source kept, since positions are computed from them after
	 * the run. */
	struct sl_overlay *overlay;
	bool keep_bytes; /* also --diff's, which diffs each file whole after the run */
	/* The report quotes the text its findings point at (SARIF's snippets): read before the
	 * report, so that a file changed meanwhile is reported (see lost_sources in run.c). */
	bool snippets;
	/* The language server's too: sources parsed by earlier runs, taken again where their bytes
	 * are the same (model/parsecache.h; NULL: every source is parsed). The run's sources then
	 * include the cache's, borrowed: the cache must outlive the run. Needs keep_bytes. */
	struct sl_parse_cache *parse_cache;
	/* The language server's too: asked between stages, true when what the run lints has changed
	 * meanwhile; the run then ends early, cancelled, its findings incomplete. NULL: never. */
	bool (*stale)(void *ctx);
	void *stale_ctx;
	bool cancelled;
	/* The note that the node set is taken as fixed (no pool known) was given: once a run. */
	bool fixed_noted;
	/* The note that Kueue's ResourceFlavors are not known (not applied to the pods): once a run. */
	bool flavors_noted;
	struct sl_sources ss;
	struct sl_findings fs;
	/* What the run did not do, said at the end of every report (base/diag.h): rules that did not
	 * run for want of a node inventory ("rules-not-run", a note per target without nodes), no
	 * Kubernetes object among the inputs ("no-manifest", a warning). A stage that leaves
	 * something unchecked adds one with sl_notice_add(&r->notices, ID, LEVEL, FMT, ...): ID a
	 * stable string constant (tools filter on it), LEVEL SL_NOTE, or SL_WARNING when --fail-on
	 * warning should fail the run for it. */
	struct sl_notices notices;
	/* The last target's model, being freed on a thread of its own while the run goes on (the
	 * next target, the report); sl_run_free waits for it. NULL: none. */
	struct sl_model_drop *dropping;
	/* --explain: per workload, in the order of the workloads */
	struct sl_buf explained;
	cJSON *explained_json;
};

/* Inventories from the command line (NULL/0: the config's), then the manifest paths. */
void sl_run(struct sl_run *r, const char *const *nodes, size_t nnodes, const char *const *pods, size_t npods,
	    char *const *paths, size_t npaths);
void sl_run_free(struct sl_run *r);

#endif
