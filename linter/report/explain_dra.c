/* explain_dra.c — `--explain` for a pod that claims devices (Dynamic Resource Allocation): each
 * request of its claims, and per node the matching devices it reaches and how many of them claims
 * of the inventory hold, under the table; a "devices" object in JSON. Nothing for a pod without
 * claims, or a run without ResourceSlices (DRA not judged). */
#include "explain_internal.h"

#include "../base/escape.h"

static void alt_text(struct sl_buf *out, const struct sl_model *m, const struct sl_dra_view_alt *o, size_t n)
{
	sl_buf_puts(out, "    ");
	sl_esc_puts(out, o->template ? "claim template " : "shared claim ");
	sl_esc_puts(out, o->from ? o->from : "?");
	sl_buf_puts(out, ", request ");
	sl_esc_puts(out, o->name);
	if (o->all)
		sl_buf_puts(out, ": every matching device of class ");
	else
		sl_buf_printf(out, ": %lld device%s of class ", (long long)o->count, o->count == 1 ? "" : "s");
	sl_esc_puts(out, o->cls ? o->cls : "?");
	sl_buf_puts(out, "\n");
	size_t none = 0;
	for (size_t i = 0; i < n; i++) {
		if (!o->match[i]) {
			none++;
			continue;
		}
		sl_buf_puts(out, "      ");
		sl_esc_puts(out, m->nodes[i]->name);
		sl_buf_printf(out, ": %zu matching, %zu held by claims\n", o->match[i], o->held[i]);
	}
	if (none)
		sl_buf_printf(out, "      %zu node%s reach%s no matching device\n", none, none == 1 ? "" : "s",
			      none == 1 ? "es" : "");
}

void sl_explain_dra_text(struct sl_buf *out, const struct sl_model *m, struct sl_cluster *cl,
			 const struct sl_workload *w)
{
	struct sl_dra_view v;
	sl_dra_view(cl, &w->pod, &v);
	if (!v.judged)
		return;
	sl_buf_printf(out, "  devices of its pods (%zu in %zu ResourceSlice%s):\n", v.ndevices, v.nslices,
		      v.nslices == 1 ? "" : "s");
	if (*v.prefail) {
		sl_buf_puts(out, "    DynamicResources' PreFilter: ");
		sl_esc_puts(out, v.prefail);
		sl_buf_puts(out, " (every node)\n");
	}
	for (size_t a = 0; a < v.nalts; a++)
		alt_text(out, m, &v.alts[a], v.nnodes);
	if (v.unknown) {
		sl_buf_puts(out, "    not evaluated, counted as matching: ");
		sl_esc_puts(out, v.unknown->expr);
		sl_buf_puts(out, " (");
		sl_esc_puts(out, v.unknown_why);
		sl_buf_puts(out, ")\n");
	}
	sl_dra_view_free(&v);
}

void sl_explain_dra_json(cJSON *o, const struct sl_model *m, struct sl_cluster *cl, const struct sl_workload *w)
{
	struct sl_dra_view v;
	sl_dra_view(cl, &w->pod, &v);
	if (!v.judged)
		return;
	cJSON *d = cJSON_AddObjectToObject(o, "devices");
	if (*v.prefail)
		cJSON_AddStringToObject(d, "prefilter", v.prefail);
	cJSON *reqs = cJSON_AddArrayToObject(d, "requests");
	for (size_t a = 0; a < v.nalts; a++) {
		const struct sl_dra_view_alt *x = &v.alts[a];
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, x->template ? "template" : "claim", x->from ? x->from : "");
		cJSON_AddStringToObject(r, "request", x->name);
		cJSON_AddStringToObject(r, "deviceClassName", x->cls ? x->cls : "");
		if (x->all)
			cJSON_AddStringToObject(r, "allocationMode", "All");
		else
			cJSON_AddNumberToObject(r, "count", (double)x->count);
		cJSON *nodes = cJSON_AddArrayToObject(r, "nodes");
		for (size_t i = 0; i < v.nnodes; i++) {
			if (!x->match[i])
				continue;
			cJSON *n = cJSON_CreateObject();
			cJSON_AddStringToObject(n, "node", m->nodes[i]->name);
			cJSON_AddNumberToObject(n, "matching", (double)x->match[i]);
			cJSON_AddNumberToObject(n, "held", (double)x->held[i]);
			cJSON_AddItemToArray(nodes, n);
		}
		cJSON_AddItemToArray(reqs, r);
	}
	if (v.unknown) {
		cJSON *u = cJSON_AddObjectToObject(d, "notEvaluated");
		cJSON_AddStringToObject(u, "expression", v.unknown->expr);
		cJSON_AddStringToObject(u, "why", v.unknown_why);
	}
	sl_dra_view_free(&v);
}
