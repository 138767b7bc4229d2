/* invalid-rollout-params — update-strategy fields the API server rejects.
 *
 * Follows pkg/apis/apps/validation: ValidateDeploymentStrategy / ValidateRollingUpdateDeployment
 * for Deployments, ValidateRollingUpdateDaemonSet for DaemonSets, and the StatefulSet update
 * strategy checks. Validation runs after defaulting and on the values as written: a percentage
 * is never resolved against replicas, so "0%" counts as 0 and "25%" of one replica does not.
 * Values the model cannot read (negative Deployment values, malformed percentages) are input
 * errors already (workload.c); this rule sees only what parses. */
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "../linter/model/kversion.h"
#include "edits.h"
#include "rules.h"

/* An int-or-string as the API server's IntOrString validation sees it. */
struct val {
	const struct sl_ynode *node; /* NULL: not written (defaulted) */
	bool valid;                  /* a non-negative integer, or a string matching ^[0-9]+%$ */
	bool percent;
	int64_t v;
};

/* getIntOrPercentValue: the number as written, percent or not. */
static struct val read_val(const struct sl_ynode *map, const char *key, int64_t dflt)
{
	struct val r = {NULL, true, false, dflt};
	const struct sl_ynode *n = sl_ymap_get(map, key);
	if (sl_ynull(n))
		return r;
	r.node = n;
	r.valid = false;
	int64_t i;
	if (sl_yint(n, &i) == 0) {
		r.v = i;
		r.valid = i >= 0;
		return r;
	}
	if (n->kind != SL_YSCALAR || n->len < 2 || n->str[n->len - 1] != '%')
		return r;
	int64_t v = 0;
	for (uint32_t k = 0; k + 1 < n->len; k++) {
		if (n->str[k] < '0' || n->str[k] > '9' || v > 100000000)
			return r;
		v = v * 10 + (n->str[k] - '0');
	}
	r.valid = r.percent = true;
	r.v = v;
	return r;
}

static void fmt_val(const struct val *x, char *out, size_t n)
{
	if (x->node)
		snprintf(out, n, "%s", x->node->str);
	else
		snprintf(out, n, "%lld (defaulted)", (long long)x->v);
}

/* A JSON-looking mapping gets a JSON replacement, so a .json file stays JSON. */
static bool json_map(const struct sl_source *src, const struct sl_ynode *map)
{
	(void)src;
	return map->flow && sl_ycount(map) && map->v[0]->at.off < map->v[0]->at.end && !map->v[0]->plain;
}

/* Replace a strategy mapping by one that only names its type: drops the rollingUpdate block
 * the type forbids (the mapping holds nothing else the API knows). */
static void fix_type_only(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *strategy,
			  const char *type)
{
	char buf[64];
	if (json_map(src, strategy))
		snprintf(buf, sizeof buf, "{\"type\": \"%s\"}", type);
	else
		snprintf(buf, sizeof buf, "{type: %s}", type);
	sl_fix_replace(fx, src, strategy, buf);
}

/* The last scalar written under n: where its text ends is where the entry ends. */
static const struct sl_ynode *last_scalar(const struct sl_ynode *n)
{
	while (n && n->kind != SL_YSCALAR && n->n)
		n = n->kind == SL_YMAP ? n->v[2 * n->n - 1] : n->v[n->n - 1];
	return n;
}

/* Remove the entry `key` of a block mapping, whole lines: from the start of the key's line to
 * the end of the line where its value ends (a comment there goes with it). Falls back to
 * rewriting the mapping as {type: <type>} where the text is not laid out that way. */
static void remove_entry(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *map, const char *key,
			 const char *type)
{
	const struct sl_ynode *k = sl_ymap_key(map, key), *v = last_scalar(sl_ymap_get(map, key));
	size_t start = k ? k->at.off : 0, end = v ? v->at.end : 0;
	const char *d = sl_source_text(src);
	while (d && start > 0 && d[start - 1] == ' ')
		start--;
	bool own_line = d && k && !map->flow && (start == 0 || d[start - 1] == '\n');
	while (d && end < src->len && d[end] != '\n')
		end++;
	if (!own_line || !v || v->at.end < k->at.end || end >= src->len) {
		fix_type_only(fx, src, map, type);
		return;
	}
	sl_fix_edit(fx, src, start, end + 1, "");
}

/* Recreate with a rollingUpdate block: ValidateDeploymentStrategy forbids it, even empty. */
static void report_recreate_rolling(const struct sl_rule *self, struct sl_check *cx, const char *ref)
{
	const struct sl_workload *w = cx->w;
	struct sl_finding *f =
	    sl_rule_report(self, cx, sl_ymap_key(w->strategy_node, "rollingUpdate"),
			   "the API server rejects %s: spec.strategy.rollingUpdate may not be specified when "
			   "strategy `type` is 'Recreate'",
			   ref);
	sl_note(f, "Recreate stops every old pod before it starts new ones, so maxSurge / maxUnavailable "
		   "have no meaning and ValidateDeploymentStrategy forbids the block, even an empty one");
	sl_note(f, "fix: remove the rollingUpdate block (or set type: RollingUpdate if a rolling update was "
		   "meant)");
	if (w->type_node)
		sl_add_related(f, &w->type_node->at, "strategy type Recreate");
	remove_entry(sl_fix_new(f, "Remove rollingUpdate (strategy type Recreate)"), w->obj.src, w->strategy_node,
		     "rollingUpdate", "Recreate");
}

/* The first of maxSurge, maxUnavailable written as a percentage with a sign: workload.c reads
 * "+5%" the way strconv.Atoi does, but the API's percent pattern has no sign. */
static const struct sl_intpct *signed_percent(const struct sl_workload *w)
{
	const struct sl_intpct *su = &w->max_surge, *un = &w->max_unavailable;
	if (su->percent && su->node && su->node->str[0] == '+')
		return su;
	if (un->percent && un->node && un->node->str[0] == '+')
		return un;
	return NULL;
}

/* A signed percentage; the fix drops the sign (quoted in a JSON mapping). */
static void report_signed_percent(const struct sl_rule *self, struct sl_check *cx, const char *ref,
				  const struct sl_intpct *sp)
{
	const struct sl_workload *w = cx->w;
	const struct sl_source *src = w->obj.src;
	struct sl_finding *f =
	    sl_rule_report(self, cx, sp->node,
			   "the API server rejects %s: spec.strategy.rollingUpdate.%s \"%s\" must be an integer or "
			   "percentage (e.g '5%%')",
			   ref, sp == &w->max_surge ? "maxSurge" : "maxUnavailable", sp->node->str);
	sl_note(f, "a percentage must match [0-9]+%% (IsValidPercent): no sign");
	char fixed[32];
	snprintf(fixed, sizeof fixed, json_map(src, w->rolling_node) ? "\"%lld%%\"" : "%lld%%", (long long)sp->v);
	sl_note(f, "fix: write %lld%%", (long long)sp->v);
	struct sl_fix *fx = sl_fix_new(f, "Drop the sign");
	sl_fix_replace(fx, src, sp->node, fixed);
}

/* maxUnavailable over 100%: IsNotMoreThan100Percent, on the percentage as written. */
static void report_unavailable_over(const struct sl_rule *self, struct sl_check *cx, const char *ref)
{
	const struct sl_workload *w = cx->w;
	const struct sl_intpct *un = &w->max_unavailable;
	struct sl_finding *f = sl_rule_report(
	    self, cx, un->node,
	    "the API server rejects %s: spec.strategy.rollingUpdate.maxUnavailable %s must not be greater "
	    "than 100%%",
	    ref, un->node->str);
	sl_note(f, "IsNotMoreThan100Percent checks the percentage as written; 100%% already lets every old pod "
		   "go at once");
	sl_note(f, "fix: maxUnavailable: 100%% (or less)");
	sl_fix_replace(sl_fix_new(f, "Set maxUnavailable to 100%"), w->obj.src, un->node,
		       json_map(w->obj.src, w->rolling_node) ? "\"100%\"" : "100%");
}

/* maxSurge and maxUnavailable both 0: a rollout could neither add nor remove a pod. Two fixes,
 * one per field: which to give up (capacity or an extra pod) is the user's choice. */
static void report_zero_pair(const struct sl_rule *self, struct sl_check *cx, const char *ref)
{
	const struct sl_workload *w = cx->w;
	const struct sl_intpct *su = &w->max_surge, *un = &w->max_unavailable;
	struct sl_finding *f = sl_rule_report(self, cx, un->node,
					      "the API server rejects %s: spec.strategy.rollingUpdate.maxUnavailable "
					      "may not be 0 when `maxSurge` is 0",
					      ref);
	sl_note(f,
		"maxSurge %s and maxUnavailable %s: a rollout could neither add a pod nor remove one, so "
		"ValidateRollingUpdateDeployment refuses the pair (percentages are compared as written, "
		"\"0%%\" is 0)",
		su->node->str, un->node->str);
	sl_note(f, "fix: maxUnavailable: 1 (replace one pod at a time, no extra pod), or maxSurge: 1 (one extra "
		   "pod at a time, no capacity lost)");
	sl_add_related(f, &su->node->at, "maxSurge %s", su->node->str);
	sl_fix_replace(sl_fix_new(f, "Set maxUnavailable to 1 (one pod replaced at a time)"), w->obj.src, un->node,
		       "1");
	sl_fix_replace(sl_fix_new(f, "Set maxSurge to 1 (one extra pod at a time)"), w->obj.src, su->node, "1");
}

/* ValidateDeploymentStrategy, then ValidateRollingUpdateDeployment: the first failure only. */
static void check_deployment(const struct sl_rule *self, struct sl_check *cx, const char *ref)
{
	const struct sl_workload *w = cx->w;
	const struct sl_intpct *su = &w->max_surge, *un = &w->max_unavailable;
	if (w->strategy == SL_STRATEGY_RECREATE) {
		/* An explicit `rollingUpdate: null` decodes to a nil pointer and passes; `{}` does not. */
		if (w->rolling_node)
			report_recreate_rolling(self, cx, ref);
		return;
	}
	if (!w->rolling_node)
		return; /* defaulted: 25% / 25% */
	const struct sl_intpct *sp = signed_percent(w);
	if (sp)
		report_signed_percent(self, cx, ref, sp);
	else if (un->set && un->percent && un->v > 100)
		report_unavailable_over(self, cx, ref);
	else if (su->set && un->set && su->v == 0 && un->v == 0)
		report_zero_pair(self, cx, ref);
}

/* A DaemonSet's rollingUpdate as validation sees it, after SetDefaults_DaemonSet. */
struct ds_roll {
	const struct sl_ynode *ru;
	struct val su, un;
	char sus[48], uns[48]; /* as written, or "<n> (defaulted)" */
};

/* A value that is no non-negative integer or percentage. */
static void report_ds_invalid(const struct sl_rule *self, struct sl_check *cx, const char *ref, const struct ds_roll *r,
			      const struct val *bad)
{
	struct sl_finding *f = sl_rule_report(
	    self, cx, bad->node, "the API server rejects %s: spec.updateStrategy.rollingUpdate.%s \"%s\" %s", ref,
	    bad == &r->un ? "maxUnavailable" : "maxSurge", bad->node->str,
	    bad->node->kind == SL_YSCALAR && sl_yint(bad->node, &(int64_t){0}) == 0
		? "must be greater than or equal to 0"
		: "must be an integer or percentage (e.g '5%')");
	sl_note(f, "fix: a non-negative integer, or a percentage such as 10%%, written without quotes around a "
		   "number");
}

/* Before DaemonSetUpdateSurge the API server drops maxSurge (a warning says so) and validates
 * maxUnavailable alone, which cannot be 0 (ValidateRollingUpdateDaemonSet). */
static void report_ds_no_surge(const struct sl_rule *self, struct sl_check *cx, const char *ref,
			       const struct ds_roll *r)
{
	const struct sl_ynode *at = r->un.node ? r->un.node : r->su.node;
	struct sl_finding *f =
	    sl_rule_report(self, cx, at,
			   "the API server of Kubernetes 1.%d rejects %s: spec.updateStrategy.rollingUpdate."
			   "maxUnavailable cannot be 0, and maxSurge %s is dropped (DaemonSets surge from 1.%d, "
			   "DaemonSetUpdateSurge)",
			   cx->model->kube.minor, ref, r->sus, SL_KUBE_DAEMONSET_SURGE);
	sl_note(f, "fix: maxUnavailable: 1 (and no maxSurge) on this release, or upgrade to 1.%d to surge",
		SL_KUBE_DAEMONSET_SURGE);
	if (r->un.node)
		sl_fix_replace(sl_fix_new(f, "Set maxUnavailable to 1"), cx->w->obj.src, r->un.node, "1");
}

/* A percentage over 100%. */
static void report_ds_over(const struct sl_rule *self, struct sl_check *cx, const char *ref, const struct ds_roll *r,
			   const struct val *over)
{
	struct sl_finding *f = sl_rule_report(
	    self, cx, over->node,
	    "the API server rejects %s: spec.updateStrategy.rollingUpdate.%s %s must not be greater than 100%%", ref,
	    over == &r->un ? "maxUnavailable" : "maxSurge", over->node->str);
	sl_note(f, "fix: 100%% or less");
	sl_fix_replace(sl_fix_new(f, "Set it to 100%"), cx->w->obj.src, over->node,
		       json_map(cx->w->obj.src, r->ru) ? "\"100%\"" : "100%");
}

/* Both non-zero: a DaemonSet surges or takes pods down, never both. Two fixes, one per way. */
static void report_ds_both(const struct sl_rule *self, struct sl_check *cx, const char *ref, const struct ds_roll *r)
{
	const struct sl_source *src = cx->w->obj.src;
	struct sl_finding *f =
	    sl_rule_report(self, cx, r->su.node,
			   "the API server rejects %s: spec.updateStrategy.rollingUpdate.maxSurge may "
			   "not be set when maxUnavailable is non-zero",
			   ref);
	sl_note(f,
		"maxSurge %s, maxUnavailable %s: a DaemonSet rolls either by surging (a new pod starts "
		"beside the old one) or by taking pods down, never both (ValidateRollingUpdateDaemonSet)",
		r->sus, r->uns);
	sl_note(f, "fix: maxUnavailable: 0 to surge, or maxSurge: 0 to replace in place");
	struct sl_fix *fx = sl_fix_new(f, "Set maxUnavailable to 0 (surge, no pod down)");
	if (r->un.node)
		sl_fix_replace(fx, src, r->un.node, "0");
	else {
		const struct sl_yentry e = {"maxUnavailable", "0", NULL, 0};
		sl_fix_insert(fx, src, r->ru, NULL, &e, 1);
	}
	sl_fix_replace(sl_fix_new(f, "Set maxSurge to 0 (replace pods in place)"), src, r->su.node, "0");
}

/* Both zero: no pod could ever be replaced. */
static void report_ds_zero(const struct sl_rule *self, struct sl_check *cx, const char *ref, const struct ds_roll *r)
{
	const struct sl_ynode *at = r->un.node ? r->un.node : r->su.node;
	struct sl_finding *f = sl_rule_report(self, cx, at,
					      "the API server rejects %s: spec.updateStrategy.rollingUpdate."
					      "maxUnavailable cannot be 0 when maxSurge is 0",
					      ref);
	sl_note(f, "maxSurge %s, maxUnavailable %s: no pod could ever be replaced", r->sus, r->uns);
	sl_note(f, "fix: maxUnavailable: 1");
	if (r->un.node)
		sl_fix_replace(sl_fix_new(f, "Set maxUnavailable to 1"), cx->w->obj.src, r->un.node, "1");
}

/* ValidateRollingUpdateDaemonSet on the defaulted values: the first failure only. */
static void check_daemonset(const struct sl_rule *self, struct sl_check *cx, const char *ref)
{
	const struct sl_workload *w = cx->w;
	const struct sl_ynode *us = sl_ymap_get(w->spec, "updateStrategy");
	if (us && us->kind != SL_YMAP)
		return;
	const struct sl_ynode *type = sl_ymap_get(us, "type");
	if (!sl_ynull(type) && !sl_yis(type, "RollingUpdate"))
		return; /* OnDelete takes rollingUpdate without validating it */
	struct ds_roll r = {.ru = sl_ymap_get(us, "rollingUpdate")};
	if (sl_ynull(r.ru) || r.ru->kind != SL_YMAP)
		return; /* defaulted: maxUnavailable 1, maxSurge 0 */
	/* SetDefaults_DaemonSet fills each missing field on its own: maxUnavailable 1, maxSurge 0. */
	r.su = read_val(r.ru, "maxSurge", 0);
	r.un = read_val(r.ru, "maxUnavailable", 1);
	fmt_val(&r.su, r.sus, sizeof r.sus);
	fmt_val(&r.un, r.uns, sizeof r.uns);
	const struct val *bad = !r.un.valid ? &r.un : !r.su.valid ? &r.su : NULL;
	const struct val *over = r.un.percent && r.un.v > 100 ? &r.un : r.su.percent && r.su.v > 100 ? &r.su : NULL;
	if (bad)
		report_ds_invalid(self, cx, ref, &r, bad);
	else if (cx->model->kube.minor < SL_KUBE_DAEMONSET_SURGE && r.su.node) {
		if (r.un.v == 0)
			report_ds_no_surge(self, cx, ref, &r);
	} else if (over)
		report_ds_over(self, cx, ref, &r, over);
	else if (r.un.v != 0 && r.su.v != 0)
		report_ds_both(self, cx, ref, &r);
	else if (r.un.v == 0 && r.su.v == 0)
		report_ds_zero(self, cx, ref, &r);
}

/* rollingUpdate.maxUnavailable, from 1.35 (MaxUnavailableStatefulSet; before, it is dropped and a
 * warning says so): a positive integer, or a percentage from 1% to 100%
 * (validateRollingUpdateStatefulSet). */
static void check_statefulset_unavailable(const struct sl_rule *self, struct sl_check *cx, const char *ref,
					  const struct sl_ynode *ru)
{
	struct val un = read_val(ru, "maxUnavailable", 1);
	if (!un.node || cx->model->kube.minor < SL_KUBE_STATEFULSET_MAX_UNAVAILABLE ||
	    (un.valid && un.v > 0 && (!un.percent || un.v <= 100)))
		return;
	const char *msg = !un.valid   ? "must be a positive integer or a percentage such as 25%"
			  : un.v == 0 ? "cannot be 0"
				      : "must not be greater than 100%";
	const char *v = un.node->kind == SL_YSCALAR ? un.node->str : sl_ykind_name(un.node);
	struct sl_finding *f = sl_rule_report(
	    self, cx, un.node, "the API server rejects %s: spec.updateStrategy.rollingUpdate.maxUnavailable%s%s%s %s",
	    ref, un.valid ? "" : " \"", un.valid ? "" : v, un.valid ? "" : "\"", msg);
	sl_note(f,
		"maxUnavailable is how many pods the StatefulSet controller updates at once (Kubernetes 1.%d and "
		"later, MaxUnavailableStatefulSet)",
		SL_KUBE_STATEFULSET_MAX_UNAVAILABLE);
	sl_note(f, "fix: maxUnavailable: 1 (one pod at a time, as without it)");
	sl_fix_replace(sl_fix_new(f, "Set maxUnavailable to 1"), cx->w->obj.src, un.node, "1");
}

static void check_statefulset(const struct sl_rule *self, struct sl_check *cx, const char *ref)
{
	const struct sl_workload *w = cx->w;
	const struct sl_source *src = w->obj.src;
	const struct sl_ynode *us = sl_ymap_get(w->spec, "updateStrategy");
	if (!us || us->kind != SL_YMAP)
		return;
	const struct sl_ynode *type = sl_ymap_get(us, "type");
	const struct sl_ynode *ru = sl_ymap_get(us, "rollingUpdate");
	if (sl_ynull(ru))
		return;
	if (sl_yis(type, "OnDelete")) {
		struct sl_finding *f =
		    sl_rule_report(self, cx, sl_ymap_key(us, "rollingUpdate"),
				   "the API server rejects %s: spec.updateStrategy.rollingUpdate is only allowed for "
				   "updateStrategy 'RollingUpdate'",
				   ref);
		sl_note(f, "with type OnDelete the controller replaces a pod only when it is deleted; "
			   "ValidateStatefulSetSpec refuses a rollingUpdate block beside it, even an empty one");
		sl_note(f, "fix: remove the rollingUpdate block (or set type: RollingUpdate if a rolling update was "
			   "meant)");
		sl_add_related(f, &type->at, "updateStrategy type OnDelete");
		remove_entry(sl_fix_new(f, "Remove rollingUpdate (updateStrategy type OnDelete)"), src, us,
			     "rollingUpdate", "OnDelete");
		return;
	}
	if (!sl_ynull(type) && !sl_yis(type, "RollingUpdate"))
		return;
	check_statefulset_unavailable(self, cx, ref, ru);
	const struct sl_ynode *part = sl_ymap_get(ru, "partition");
	int64_t p;
	if (!sl_ynull(part) && sl_yint(part, &p) == 0 && p < 0) {
		struct sl_finding *f = sl_rule_report(
		    self, cx, part,
		    "the API server rejects %s: spec.updateStrategy.rollingUpdate.partition %lld must be greater than "
		    "or equal to 0",
		    ref, (long long)p);
		sl_note(f, "pods with an ordinal at or above partition are updated; 0 updates them all");
		sl_note(f, "fix: partition: 0");
		sl_fix_replace(sl_fix_new(f, "Set partition to 0"), src, part, "0");
	}
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	if (!strcmp(w->obj.kind, "Deployment"))
		check_deployment(self, cx, ref);
	else if (!strcmp(w->obj.kind, "DaemonSet"))
		check_daemonset(self, cx, ref);
	else if (!strcmp(w->obj.kind, "StatefulSet"))
		check_statefulset(self, cx, ref);
}

const struct sl_rule sl_rule_invalid_rollout_params = {
    .id = "invalid-rollout-params",
    .name = "InvalidRolloutParameters",
    .summary = "Update-strategy parameters the API server rejects.",
    .description = "The workload's update strategy fails apps/v1 validation, so the API server refuses the object: a "
		   "Deployment with maxSurge and maxUnavailable both 0 (or \"0%\"), maxUnavailable over 100%, a signed "
		   "percentage, or a rollingUpdate block under type Recreate; a DaemonSet with both maxSurge and "
		   "maxUnavailable non-zero (maxUnavailable defaults to 1) or both zero, or a percentage over 100%; a "
		   "StatefulSet with a rollingUpdate block under type OnDelete or a negative partition.",
    .help = "Deployments: make one of `maxSurge` / `maxUnavailable` non-zero (`maxUnavailable: 1` replaces "
	    "one pod at a time), keep `maxUnavailable` at or below `100%`, and drop `rollingUpdate` when the "
	    "type is `Recreate`. DaemonSets: surge with `maxSurge: 1, maxUnavailable: 0`, or replace in place "
	    "with `maxSurge: 0`. StatefulSets: drop `rollingUpdate` under `OnDelete`; `partition` is 0 or more.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
