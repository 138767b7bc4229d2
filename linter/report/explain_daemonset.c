/* explain_daemonset.c — `--explain` for a DaemonSet, which has no replicas to place: one pod on
 * each node the controller selects (NodeShouldRunDaemonPod), pinned there, and judged against that
 * node's running pods alone. So its table says, per node, whether the controller places a pod and
 * why not, whether one of its pods runs there already, and whether a new one fits — the view the
 * rules daemonset-no-nodes and unschedulable take (sched/daemonset_fit.c), not the one-pod
 * verdicts of a Deployment's table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/escape.h"
#include "explain_internal.h"

enum ds_state { DS_SKIPPED, DS_RUNS, DS_FITS, DS_NEVER };

struct ds_row {
	enum ds_state state;
	const struct sl_nodefit *why; /* DS_SKIPPED: the controller's filter; DS_NEVER: the pinned pod's */
};

/* One row per node, from the memo the rules share (made here when no rule asked for it). */
static struct ds_row *rows(struct sl_cluster *cl, const struct sl_workload *w, const struct sl_analysis *a,
			   const struct sl_daemon_fit **out)
{
	const struct sl_daemon_fit *df = sl_daemon_fit(cl, w, a);
	size_t n = a->nnodes;
	int64_t *own = sl_xcalloc(n + 1, sizeof *own);
	sl_daemon_own_pods(cl, w, own);
	struct ds_row *r = sl_xcalloc(n + 1, sizeof *r);
	for (size_t i = 0; i < n; i++)
		r[i] = df->placed[i].plugin != SL_FITS ? (struct ds_row){DS_SKIPPED, &df->placed[i]}
		       : own[i]                        ? (struct ds_row){DS_RUNS, NULL}
						       : (struct ds_row){DS_FITS, NULL};
	for (size_t k = 0; k < df->nstuck; k++) {
		const struct sl_daemon_stuck *s = &df->stuck[k];
		r[s->node] = (struct ds_row){DS_NEVER, &s->a->fit[s->at]};
	}
	free(own);
	*out = df;
	return r;
}

static const char *const state_word[] = {"-", "runs", "fits", "never"};

void sl_explain_daemonset_text(struct sl_buf *out, struct sl_cluster *cl, const struct sl_workload *w,
			       const struct sl_analysis *a, char **names, size_t width)
{
	const struct sl_daemon_fit *df;
	struct ds_row *r = rows(cl, w, a, &df);
	sl_buf_printf(out, "  %-*s  %-5s  %s\n", (int)width, "node", "pod", "verdict for its pod on that node");
	struct sl_buf v = SL_BUF_INIT;
	size_t count[4] = {0};
	for (size_t i = 0; i < a->nnodes; i++) {
		count[r[i].state]++;
		sl_buf_reset(&v);
		switch (r[i].state) {
		case DS_SKIPPED:
			sl_buf_puts(&v, "the controller places no pod here: ");
			sl_explain_verdict(r[i].why, &v);
			break;
		case DS_RUNS:
			sl_buf_puts(&v, "a pod of it runs here");
			break;
		case DS_FITS:
			sl_buf_puts(&v, "pass");
			break;
		case DS_NEVER:
			sl_explain_verdict(r[i].why, &v);
			sl_buf_puts(&v, " (stays Pending)");
			break;
		}
		sl_buf_printf(out, "  %-*s  %-5s  %s\n", (int)width, names[i], state_word[r[i].state], sl_buf_str(&v));
	}
	sl_buf_free(&v);
	if (!df->nplaced) {
		sl_buf_puts(out, "  on no node: ");
		sl_esc_puts(out, df->placed_text);
		sl_buf_putc(out, '\n');
	} else {
		sl_buf_printf(out, "  on %zu of %zu nodes: %zu run%s a pod of it, %zu more fit%s, %zu never fit%s",
			      df->nplaced, a->nnodes, count[DS_RUNS], count[DS_RUNS] == 1 ? "s" : "", count[DS_FITS],
			      count[DS_FITS] == 1 ? "s" : "", count[DS_NEVER], count[DS_NEVER] == 1 ? "s" : "");
		if (df->unjudged) /* over SL_DAEMON_FIT_BUDGET: counted above as fitting */
			sl_buf_printf(out, " (%zu more that do not fit were not analysed: shown as fitting)",
				      df->unjudged);
		sl_buf_putc(out, '\n');
	}
	free(r);
}

void sl_explain_daemonset_json(cJSON *o, const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w,
			       const struct sl_analysis *a)
{
	const struct sl_daemon_fit *df;
	struct ds_row *r = rows(cl, w, a, &df);
	cJSON *d = cJSON_AddObjectToObject(o, "daemonset");
	cJSON_AddNumberToObject(d, "nodes_placed", (double)df->nplaced);
	cJSON_AddNumberToObject(d, "not_analysed", (double)df->unjudged);
	if (!df->nplaced)
		cJSON_AddStringToObject(d, "text", df->placed_text);
	cJSON *nodes = cJSON_AddArrayToObject(d, "nodes");
	static const char *const state_json[] = {"not_placed", "runs", "fits", "never_fits"};
	for (size_t i = 0; i < a->nnodes; i++) {
		cJSON *n = cJSON_CreateObject();
		cJSON_AddStringToObject(n, "name", m->nodes[i]->name);
		cJSON_AddStringToObject(n, "pod", state_json[r[i].state]);
		if (r[i].why) {
			cJSON_AddStringToObject(n, "plugin", sl_plugin_name(r[i].why->plugin));
			cJSON *rs = cJSON_AddArrayToObject(n, "reasons");
			for (size_t k = 0; k < r[i].why->nreasons; k++)
				cJSON_AddItemToArray(rs, cJSON_CreateString(r[i].why->reasons[k]));
		}
		cJSON_AddItemToArray(nodes, n);
	}
	free(r);
}
