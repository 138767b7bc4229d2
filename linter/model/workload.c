/* workload.c — reading a workload (see workload.h): its pod template, replicas, selector and a
 * Deployment's strategy with its int-or-percent parameters. */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_read.h"
#include "pvc.h"

bool sl_workload_kind(const char *k)
{
	static const char *const kinds[] = {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
					    "Job",        "CronJob",    "Pod",         "ReplicationController"};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(k, kinds[i]))
			return true;
	return false;
}

bool sl_scaled_kind(const char *k)
{
	return !strcmp(k, "Deployment") || !strcmp(k, "StatefulSet") || !strcmp(k, "ReplicaSet") ||
	       !strcmp(k, "ReplicationController");
}

static void parse_intpct(struct sl_read *c, const struct sl_ynode *rolling, const char *key, struct sl_intpct *out)
{
	const struct sl_ynode *v = sl_ymap_get(rolling, key);
	out->set = false;
	out->percent = true;
	out->v = 25; /* the API server's default for both */
	out->node = NULL;
	if (sl_ynull(v))
		return;
	out->node = v;
	if (v->kind != SL_YSCALAR) {
		sl_read_error(c, v, "rollingUpdate.%s must be an integer or a percentage, not %s", key,
			      sl_ykind_name(v));
		return;
	}
	int64_t i;
	if (sl_yint(v, &i) == 0) {
		if (i > INT32_MAX || i < INT32_MIN) { /* intstr.IntOrString holds an int32 */
			sl_read_error(c, v,
				      "rollingUpdate.%s: %s is out of range: an integer value is an int32 (at most %d)",
				      key, v->str, INT32_MAX);
			return;
		}
		out->set = true;
		out->percent = false;
		out->v = i;
	} else if (v->len > 1 && v->str[v->len - 1] == '%') {
		/* Go's strconv.Atoi on what precedes the '%': optional sign, decimal digits. */
		const char *s = v->str;
		int neg = 0;
		if (*s == '+' || *s == '-')
			neg = *s++ == '-';
		int64_t n = 0;
		int ok = s < v->str + v->len - 1;
		for (; s < v->str + v->len - 1 && ok; s++) {
			if (*s < '0' || *s > '9' || n > 100000000)
				ok = 0;
			else
				n = n * 10 + (*s - '0');
		}
		if (!ok) {
			sl_read_error(c, v, "rollingUpdate.%s: \"%s\" is not a valid percentage", key, v->str);
			return;
		}
		out->set = true;
		out->percent = true;
		out->v = neg ? -n : n;
	} else {
		sl_read_error(c, v,
			      "rollingUpdate.%s: \"%s\" is neither an integer nor a percentage such as "
			      "\"25%%\"%s",
			      key, v->str,
			      v->plain ? "" : " (a quoted number is a string, which the API server rejects)");
		return;
	}
	if (out->v < 0)
		sl_read_error(c, v, "rollingUpdate.%s must not be negative (the API server rejects %s)", key, v->str);
}

int64_t sl_intpct_resolve(const struct sl_intpct *p, int64_t total, bool round_up)
{
	if (!p->percent)
		return p->v;
	int64_t x = p->v * total; /* both bounded: percent <= 1e8, replicas <= 2^31 */
	if (x <= 0)
		return x / 100;
	return round_up ? (x + 99) / 100 : x / 100;
}

void sl_intpct_format(const struct sl_intpct *p, char *out, unsigned n)
{
	snprintf(out, n, "%lld%s", (long long)p->v, p->percent ? "%" : "");
}

/* spec.replicas; 1 for a bare Pod and a DaemonSet, which have none (a Job's: job.c). */
static void read_replicas(struct sl_read *c, const struct sl_ynode *spec, struct sl_workload *w)
{
	w->replicas = 1;
	const char *k = w->obj.kind;
	const char *rkey = "replicas";
	const struct sl_ynode *r = !strcmp(k, "Pod") || !strcmp(k, "DaemonSet") ? NULL : sl_ymap_get(spec, rkey);
	if (!sl_ynull(r)) {
		int64_t v;
		int rc = sl_yint(r, &v);
		if (rc < 0 || v < 0 || v > INT32_MAX)
			sl_read_error(c, r, "%s must be an integer from 0 to 2147483647 (an int32), not %s%s%s", rkey,
				      r->kind == SL_YSCALAR ? "\"" : "",
				      r->kind == SL_YSCALAR ? r->str : sl_ykind_name(r),
				      r->kind == SL_YSCALAR ? "\"" : "");
		else {
			w->replicas = v;
			w->replicas_node = r;
		}
	}
}

/* A Deployment's strategy: RollingUpdate unless Recreate is written, with its parameters. */
static void read_strategy(struct sl_read *c, const struct sl_ynode *spec, struct sl_workload *w)
{
	w->strategy = SL_STRATEGY_ROLLING;
	w->strategy_node = sl_read_want(c, spec, "strategy", SL_YMAP, "spec.strategy");
	w->type_node = sl_ymap_get(w->strategy_node, "type");
	if (!sl_ynull(w->type_node)) {
		if (sl_yis(w->type_node, "Recreate"))
			w->strategy = SL_STRATEGY_RECREATE;
		else if (!sl_yis(w->type_node, "RollingUpdate"))
			sl_read_error(c, w->type_node, "strategy.type must be RollingUpdate or Recreate");
	}
	w->rolling_node = sl_read_want(c, w->strategy_node, "rollingUpdate", SL_YMAP, "strategy.rollingUpdate");
	parse_intpct(c, w->rolling_node, "maxSurge", &w->max_surge);
	parse_intpct(c, w->rolling_node, "maxUnavailable", &w->max_unavailable);
}

/* A StatefulSet's volumeClaimTemplates, read as claims are (pvc.c), so that a malformed entry is
 * an input error at its place rather than a claim the volume checks skip: each a mapping with a
 * metadata.name (what names the ordinals' claims) and a claim's spec. */
static void read_claim_templates(struct sl_read *c, const struct sl_ynode *spec)
{
	const struct sl_ynode *seq =
	    sl_read_want(c, spec, "volumeClaimTemplates", SL_YSEQ, "spec.volumeClaimTemplates");
	for (size_t i = 0; seq && i < seq->n; i++) {
		char at[96];
		snprintf(at, sizeof at, "spec.volumeClaimTemplates[%zu]", i);
		const struct sl_ynode *e = seq->v[i];
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "%s must be a mapping (a PersistentVolumeClaim template)", at);
			continue;
		}
		const struct sl_ynode *md = sl_ymap_get(e, "metadata");
		const struct sl_ynode *name = md && md->kind == SL_YMAP ? sl_ymap_get(md, "name") : NULL;
		if (!name || name->kind != SL_YSCALAR || sl_ynull(name) || !*name->str)
			sl_read_error(c, name && !sl_ynull(name) ? name : e,
				      "%s.metadata.name must be a non-empty string: it names each pod's claim", at);
		strncat(at, ".spec", sizeof at - strlen(at) - 1);
		struct sl_pvc *v = sl_xcalloc(1, sizeof *v);
		sl_read_claim_spec(c, sl_read_want(c, e, "spec", SL_YMAP, at), at, v);
		sl_pvc_free(v);
	}
}

int sl_workload_read(struct sl_read *c, const struct sl_object *o, struct sl_workload **out)
{
	*out = NULL;
	const struct sl_ynode *root = o->root;
	const char *k = o->kind;
	const struct sl_ynode *spec = NULL, *podspec = NULL, *labels = NULL, *holder = NULL;
	spec = sl_read_want(c, root, "spec", SL_YMAP, "spec");
	if (!strcmp(k, "Pod")) {
		podspec = spec;
		labels = sl_read_want(c, sl_ymap_get(root, "metadata"), "labels", SL_YMAP, "metadata.labels");
	} else {
		holder = spec; /* what holds the pod template: a CronJob's jobTemplate.spec */
		if (!strcmp(k, "CronJob")) {
			const struct sl_ynode *jt = sl_read_want(c, spec, "jobTemplate", SL_YMAP, "spec.jobTemplate");
			holder = sl_read_want(c, jt, "spec", SL_YMAP, "spec.jobTemplate.spec");
		}
		const struct sl_ynode *tmpl = sl_read_want(c, holder, "template", SL_YMAP, "spec.template");
		podspec = sl_read_want(c, tmpl, "spec", SL_YMAP, "spec.template.spec");
		labels =
		    sl_read_want(c, sl_ymap_get(tmpl, "metadata"), "labels", SL_YMAP, "spec.template.metadata.labels");
	}
	if (!podspec)
		return c->failed ? -1 : 0; /* nothing to schedule: a manifest fragment */
	struct sl_workload *w = sl_xcalloc(1, sizeof *w);
	w->obj = *o;
	w->spec = spec;
	if (sl_parse_podspec(c->src, podspec, o->namespace, labels, &w->pod, c->errs) < 0)
		c->failed = 1;
	if (sl_job_kind(k))
		sl_job_read(c, holder != spec ? spec : NULL, holder, w);
	else
		read_replicas(c, spec, w);
	w->selector = sl_ymap_get(spec, "selector");
	sl_read_selector(c, w->selector, "spec.selector", &w->sel);
	if (!strcmp(k, "Deployment"))
		read_strategy(c, spec, w);
	if (!strcmp(k, "StatefulSet"))
		read_claim_templates(c, spec);
	if (c->failed) {
		sl_workload_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

const struct sl_wgang sl_wgang_none;

struct sl_wgang *sl_wgang_mut(struct sl_workload *w)
{
	if (!w->gang)
		w->gang = sl_xcalloc(1, sizeof *w->gang);
	return w->gang;
}

void sl_workload_free(struct sl_workload *w)
{
	sl_podspec_free(&w->pod);
	sl_selector_free(&w->sel);
	sl_selector_free(&w->svc);
	free(w->owned_name);
	if (w->gang)
		free(w->gang->kchoice);
	free(w->gang);
	free(w->batch);
	free(w);
}
