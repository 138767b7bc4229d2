/* explain_volumes.c — what `--explain` says of a workload's claims: each resolved as the volume
 * filters judge it (storage.h's sl_volset), under the table whose VolumeBinding and VolumeZone
 * verdicts it explains; a StatefulSet's ordinals that resolve differently, each. */
#include <stdio.h>
#include <string.h>

#include "../base/escape.h"
#include "explain_internal.h"

/* The resolutions shown; a StatefulSet whose ordinals' volumes all differ has one per pod. */
#define SHOWN_SETS 4

/* How many nodes of m the volume's nodeAffinity admits. */
static size_t admitted(const struct sl_model *m, const struct sl_pv *pv)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nnodes; i++)
		n += sl_pv_admits(pv, &m->nodes[i]->labels);
	return n;
}

/* How many nodes of m the class's allowedTopologies admit. */
static size_t topo_admitted(const struct sl_model *m, const struct sl_storage_class *sc)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nnodes; i++)
		n += sl_class_admits(sc, &m->nodes[i]->labels);
	return n;
}

static bool zone_key(const char *key)
{
	return !strcmp(key, "topology.kubernetes.io/zone") || !strcmp(key, "topology.kubernetes.io/region") ||
	       !strcmp(key, "failure-domain.beta.kubernetes.io/zone") ||
	       !strcmp(key, "failure-domain.beta.kubernetes.io/region");
}

static void bound_text(struct sl_buf *out, const struct sl_model *m, const struct sl_volset *v, size_t i)
{
	const struct sl_pv *pv = v->pvs[i];
	sl_buf_puts(out, "    claim ");
	sl_esc_puts(out, v->pv_claim_names[i]);
	sl_buf_puts(out, ": bound to PersistentVolume ");
	sl_esc_puts(out, pv->obj.name);
	if (pv->has_affinity)
		sl_buf_printf(out, ", its nodeAffinity admits %zu of %zu nodes", admitted(m, pv), m->nnodes);
	else
		sl_buf_puts(out, ", no nodeAffinity");
	for (size_t k = 0; k < pv->labels.n; k++)
		if (zone_key(pv->labels.v[k].key)) {
			sl_buf_puts(out, ", ");
			sl_esc_puts(out, pv->labels.v[k].key);
			sl_buf_putc(out, '=');
			sl_esc_puts(out, pv->labels.v[k].val);
		}
	sl_buf_putc(out, '\n');
}

static void wait_text(struct sl_buf *out, const struct sl_model *m, const struct sl_wait_claim *wc)
{
	const struct sl_storage_class *sc = wc->cls;
	sl_buf_puts(out, "    claim ");
	sl_esc_puts(out, wc->name);
	sl_buf_puts(out, ": unbound, StorageClass ");
	sl_esc_puts(out, sc->obj.name);
	sl_buf_puts(out, " (WaitForFirstConsumer): ");
	if (wc->prebound) {
		sl_buf_puts(out, "PersistentVolume ");
		sl_esc_puts(out, wc->prebound->obj.name);
		sl_buf_puts(out, " names it in its claimRef");
	} else
		sl_buf_printf(out, "%zu available volume%s match%s", wc->ncands, wc->ncands == 1 ? "" : "s",
			      wc->ncands == 1 ? "es" : "");
	sl_buf_puts(out, "; ");
	sl_esc_puts(out, *sc->provisioner ? sc->provisioner : "no provisioner");
	if (!wc->provisions)
		sl_buf_puts(out, " makes none\n");
	else if (sc->ntopo)
		sl_buf_printf(out, " provisions on the %zu of %zu nodes its allowedTopologies admit\n",
			      topo_admitted(m, sc), m->nnodes);
	else
		sl_buf_puts(out, " provisions on any node\n");
}

void sl_explain_volumes_text(struct sl_buf *out, const struct sl_model *m, const struct sl_workload *w)
{
	const struct sl_wstorage *ws = w->storage;
	for (size_t k = 0; ws && k < ws->nsets && k < SHOWN_SETS; k++) {
		const struct sl_volset *v = &ws->sets[k];
		if (v->ordinal >= 0) {
			sl_buf_puts(out, "  claims of pod ");
			sl_esc_puts(out, w->obj.name);
			sl_buf_printf(out, "-%lld", (long long)v->ordinal);
			if (v->pods > 1)
				sl_buf_printf(out, " (and %lld more pod%s alike)", (long long)(v->pods - 1),
					      v->pods == 2 ? "" : "s");
			sl_buf_puts(out, ":\n");
		} else
			sl_buf_puts(out, "  claims of its pods:\n");
		if (v->prefilter) {
			sl_buf_puts(out, "    VolumeBinding's PreFilter: ");
			sl_esc_puts(out, v->prefilter);
			sl_buf_puts(out, " (every node)\n");
		}
		for (size_t i = 0; i < v->npvs; i++)
			bound_text(out, m, v, i);
		for (size_t i = 0; i < v->nwaits; i++)
			wait_text(out, m, &v->waits[i]);
		if (v->assumed) {
			sl_buf_puts(out, "    assumed: ");
			sl_esc_puts(out, v->assumed);
			sl_buf_putc(out, '\n');
		}
	}
	if (ws && ws->nsets > SHOWN_SETS)
		sl_buf_printf(out, "  ... and %zu more resolutions of its claims\n", ws->nsets - SHOWN_SETS);
}

static cJSON *set_json(const struct sl_model *m, const struct sl_volset *v)
{
	cJSON *o = cJSON_CreateObject();
	if (v->ordinal >= 0)
		cJSON_AddNumberToObject(o, "ordinal", (double)v->ordinal);
	else
		cJSON_AddNullToObject(o, "ordinal");
	cJSON_AddNumberToObject(o, "pods", (double)v->pods);
	if (v->prefilter)
		cJSON_AddStringToObject(o, "prefilter", v->prefilter);
	else
		cJSON_AddNullToObject(o, "prefilter");
	cJSON *bound = cJSON_AddArrayToObject(o, "bound");
	for (size_t i = 0; i < v->npvs; i++) {
		const struct sl_pv *pv = v->pvs[i];
		cJSON *b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "claim", v->pv_claim_names[i]);
		cJSON_AddStringToObject(b, "volume", pv->obj.name);
		if (pv->has_affinity)
			cJSON_AddNumberToObject(b, "admits_nodes", (double)admitted(m, pv));
		else
			cJSON_AddNullToObject(b, "admits_nodes");
		cJSON *z = cJSON_AddObjectToObject(b, "zone_labels");
		for (size_t k = 0; k < pv->labels.n; k++)
			if (zone_key(pv->labels.v[k].key))
				cJSON_AddStringToObject(z, pv->labels.v[k].key, pv->labels.v[k].val);
		cJSON_AddItemToArray(bound, b);
	}
	cJSON *waits = cJSON_AddArrayToObject(o, "waiting");
	for (size_t i = 0; i < v->nwaits; i++) {
		const struct sl_wait_claim *wc = &v->waits[i];
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "claim", wc->name);
		cJSON_AddStringToObject(c, "storage_class", wc->cls->obj.name);
		cJSON_AddStringToObject(c, "provisioner", wc->cls->provisioner);
		cJSON_AddBoolToObject(c, "provisions", wc->provisions);
		if (wc->provisions && wc->cls->ntopo)
			cJSON_AddNumberToObject(c, "provisions_on_nodes", (double)topo_admitted(m, wc->cls));
		if (wc->prebound)
			cJSON_AddStringToObject(c, "prebound", wc->prebound->obj.name);
		else
			cJSON_AddNullToObject(c, "prebound");
		cJSON *cands = cJSON_AddArrayToObject(c, "candidates");
		for (size_t k = 0; k < wc->ncands; k++)
			cJSON_AddItemToArray(cands, cJSON_CreateString(wc->cands[k]->obj.name));
		cJSON_AddItemToArray(waits, c);
	}
	if (v->assumed)
		cJSON_AddStringToObject(o, "assumed", v->assumed);
	else
		cJSON_AddNullToObject(o, "assumed");
	return o;
}

void sl_explain_volumes_json(cJSON *o, const struct sl_model *m, const struct sl_workload *w)
{
	const struct sl_wstorage *ws = w->storage;
	if (!ws)
		return;
	cJSON *sets = cJSON_AddArrayToObject(o, "volumes");
	for (size_t k = 0; k < ws->nsets; k++)
		cJSON_AddItemToArray(sets, set_json(m, &ws->sets[k]));
}
