/* conformance_release.c — schedlint's release view against kube-scheduler v1.26.7 placing several
 * workloads pod by pod (../shared/conformance-release). For every case:
 * - each workload's single verdicts, as in ../conformance;
 * - the placement: the workloads that fit alone placed one after another as the scheduler would
 *   (sl_release_place, the engine's own entry that release-capacity's order warning uses), in
 *   input order and in reverse: every workload's placed count and the node of every pod, in the
 *   order bound (ties go to the first listed node in the data and in the engine);
 * - the rules, run whole (sl_run at --kube-version 1.26): a release-capacity error only where the
 *   exhaustive search says infeasible, and there always (release_search.c searches each case
 *   whole); the order warning exactly where an order leaves pods Pending (the rest of the release,
 *   when an error names some of it); a rollout-deadlock error on a Deployment exactly where its
 *   surge pod has no room beside the release in any placement, unless the release itself is
 *   infeasible (its error comes first); a warning may say that the orders the scheduler would
 *   take leave it none where some other placement does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/config/config.h"
#include "../linter/run.h"
#include "../rules/rules.h"
#include "conformance.h"

/* What the suite counts, case by case, for its summary lines. */
static struct {
	int cases, singles_ok, place_ok, error_ok, warn_ok, deadlock_ok;
	int infeasible, infeasible_ok, deadlocks;
} st;

static char *ref_of(const struct sl_workload *w)
{
	return sl_xasprintf("%s/%s/%s", w->obj.kind, w->obj.namespace, w->obj.name);
}

/* The expected entry of workload w in a release block's "workloads", or NULL. */
static const cJSON *expected_workload(const cJSON *block, const struct sl_workload *w)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(block, "workloads"))
	{
		const cJSON *k = cJSON_GetObjectItem(it, "kind"), *ns = cJSON_GetObjectItem(it, "namespace"),
			    *nm = cJSON_GetObjectItem(it, "name");
		if (cJSON_IsString(k) && cJSON_IsString(ns) && cJSON_IsString(nm) &&
		    !strcmp(k->valuestring, w->obj.kind) && !strcmp(ns->valuestring, w->obj.namespace) &&
		    !strcmp(nm->valuestring, w->obj.name))
			return it;
	}
	return NULL;
}

/* Each workload's single verdicts; fits[i]: its replicas all fit alone (it takes part). */
static int check_singles(const char *id, const cJSON *e, const struct sl_model *m, struct sl_cluster *cl, bool *fits)
{
	int bad = 0;
	for (size_t i = 0; i < m->nworkloads; i++) {
		char *ref = ref_of(m->workloads[i]), *what = sl_xasprintf("%s %s", id, ref);
		const cJSON *single = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "single"), ref);
		struct sl_analysis a;
		sl_analyze(cl, m->workloads[i], true, &a);
		fits[i] = a.steady_placed >= a.replicas;
		if (single)
			sl_conf_compare_single(what, single, m, &a, &bad);
		else {
			sl_conf_mismatch(what, "single", "an expected entry", "none");
			bad = 1;
		}
		sl_analysis_free(&a);
		free(ref);
		free(what);
	}
	return bad;
}

/* One order's placement against the expectation: each workload's placed count and its pods' nodes
 * in the order bound. */
static void compare_order(const char *id, const cJSON *block, const struct sl_model *m,
			  const struct sl_workload *const *ws, size_t nw, const struct sl_release_placement *p,
			  bool reverse, int *bad)
{
	const char *order = reverse ? "reverse" : "input";
	for (size_t i = 0; i < nw; i++) {
		char *ref = ref_of(ws[i]), *what = sl_xasprintf("%s placed in %s order", ref, order);
		const cJSON *x = expected_workload(block, ws[i]);
		char key[32];
		snprintf(key, sizeof key, "placed_%s", order);
		if (!x) {
			sl_conf_mismatch(id, what, "an expected entry", "none");
			*bad = 1;
		} else
			sl_conf_cmp_int(id, what, cJSON_GetObjectItem(x, key), p->placed[i], bad);
		snprintf(key, sizeof key, "nodes_%s", order);
		const cJSON *nodes = x ? cJSON_GetObjectItem(x, key) : NULL;
		struct sl_buf want = SL_BUF_INIT, got = SL_BUF_INIT;
		const cJSON *it;
		cJSON_ArrayForEach(it, nodes) sl_buf_printf(&want, "%s%s", want.len ? "," : "", it->valuestring);
		for (size_t k = 0; k < p->nseq; k++)
			if (p->seq[k].workload == i)
				sl_buf_printf(&got, "%s%s", got.len ? "," : "", m->nodes[p->seq[k].node]->name);
		if (nodes && strcmp(sl_buf_str(&want), sl_buf_str(&got))) {
			free(what);
			what = sl_xasprintf("%s nodes in %s order", ref, order);
			sl_conf_mismatch(id, what, sl_buf_str(&want), sl_buf_str(&got));
			*bad = 1;
		}
		sl_buf_free(&want);
		sl_buf_free(&got);
		free(what);
		free(ref);
	}
}

/* The workloads that fit alone placed in both orders, as release_fit_alone records them. */
static int check_placement(const char *id, const cJSON *e, const struct sl_model *m, struct sl_cluster *cl,
			   const bool *fits)
{
	const cJSON *block = cJSON_GetObjectItem(e, "release_fit_alone");
	const struct sl_workload **ws = sl_xcalloc(m->nworkloads + 1, sizeof *ws);
	int64_t *todo = sl_xcalloc(m->nworkloads + 1, sizeof *todo);
	size_t nw = 0;
	int bad = 0;
	for (size_t i = 0; i < m->nworkloads; i++)
		if (fits[i]) {
			ws[nw] = m->workloads[i];
			todo[nw++] = m->workloads[i]->replicas - sl_own_running(cl, m->workloads[i]);
		}
	if ((size_t)cJSON_GetArraySize(cJSON_GetObjectItem(block, "workloads")) != nw) {
		char want[32], got[32];
		snprintf(want, sizeof want, "%d", cJSON_GetArraySize(cJSON_GetObjectItem(block, "workloads")));
		snprintf(got, sizeof got, "%zu", nw);
		sl_conf_mismatch(id, "workloads that fit alone", want, got);
		bad = 1;
	}
	for (int reverse = 0; reverse < 2; reverse++) {
		struct sl_release_placement p;
		if (!sl_release_place(m, ws, todo, nw, reverse, &p)) {
			sl_conf_mismatch(id, "placement", "complete", "over its budget");
			bad = 1;
		} else
			compare_order(id, block, m, ws, nw, &p, reverse, &bad);
		sl_release_placement_free(&p);
	}
	free(ws);
	free(todo);
	return bad;
}

/* What the rules report on a release, for the outcome checks. */
struct outcome {
	bool error;       /* a release-capacity error: no placement of some workloads exists */
	bool warning;     /* release-capacity's order warning */
	char **deadlocks; /* "Deployment ns/name" of each rollout-deadlock error */
	size_t ndeadlocks;
};

static void run_rules(const char *dir, struct outcome *o)
{
	struct sl_config cfg;
	sl_config_defaults(&cfg);
	struct sl_run run = {.cfg = &cfg, .kube_minor = 26, .kube_text = "1.26"};
	char *nodes = sl_xasprintf("%s/nodes.yaml", dir), *pods = sl_xasprintf("%s/pods.yaml", dir);
	char *paths[] = {sl_xasprintf("%s/manifests.yaml", dir)};
	const char *nl[] = {nodes}, *pl[] = {pods};
	sl_run(&run, nl, 1, pl, 1, paths, 1);
	memset(o, 0, sizeof *o);
	o->deadlocks = sl_xcalloc(run.fs.n + 1, sizeof *o->deadlocks);
	for (size_t k = 0; k < run.fs.n; k++) {
		const struct sl_finding *f = &run.fs.v[k];
		if (!f->rule)
			continue;
		if (!strcmp(f->rule->id, "release-capacity")) {
			o->error |= f->level == SL_ERROR;
			o->warning |= f->level == SL_WARNING;
		} else if (!strcmp(f->rule->id, "rollout-deadlock") && f->object && f->level == SL_ERROR)
			o->deadlocks[o->ndeadlocks++] = sl_xstrdup(f->object);
	}
	sl_run_free(&run);
	sl_config_free(&cfg);
	free(nodes);
	free(pods);
	free(paths[0]);
}

static bool has_deadlock(const struct outcome *o, const char *object)
{
	for (size_t k = 0; k < o->ndeadlocks; k++)
		if (!strcmp(o->deadlocks[k], object))
			return true;
	return false;
}

/* The rules' outcomes against the exhaustive search and the scheduler's placements. */
static int check_rules(const char *dir, const char *id, const cJSON *e)
{
	const cJSON *block = cJSON_GetObjectItem(e, "release_fit_alone");
	const cJSON *ex = cJSON_GetObjectItem(block, "exhaustive");
	bool infeasible = cJSON_IsString(ex) && !strcmp(ex->valuestring, "infeasible");
	bool feasible = cJSON_IsString(ex) && !strcmp(ex->valuestring, "feasible");
	bool pending = !cJSON_IsTrue(cJSON_GetObjectItem(block, "all_placed_input")) ||
		       !cJSON_IsTrue(cJSON_GetObjectItem(block, "all_placed_reverse"));
	struct outcome o;
	run_rules(dir, &o);
	int bad = 0;
	if (o.error && feasible) {
		sl_conf_mismatch(id, "release-capacity error", "none (a placement of all exists)", "an error");
		bad = 1;
	} else
		st.error_ok++;
	st.infeasible += infeasible;
	if (infeasible && !o.error) {
		sl_conf_mismatch(id, "infeasible release", "a release-capacity error",
				 o.warning ? "a warning" : "none");
		bad = 1;
	} else
		st.infeasible_ok += infeasible;
	/* With an error, the warning judges only the workloads the error does not name. */
	if (!o.error && o.warning != pending) {
		sl_conf_mismatch(id, "order warning", pending ? "pods Pending in some order" : "every pod placed",
				 o.warning ? "a warning" : "none");
		bad = 1;
	} else
		st.warn_ok++;
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(e, "surge_beside_release"))
	{
		char *object = sl_xasprintf("Deployment %s", it->string);
		bool room = cJSON_IsString(it) && !strcmp(it->valuestring, "feasible"), got = has_deadlock(&o, object);
		st.deadlocks++;
		/* In an infeasible release the release-capacity error says it first: a surge's own error is
		 * not asked for there, only never given where it has room. */
		if (got ? room : !room && !infeasible) {
			sl_conf_mismatch(id, object,
					 room ? "no rollout-deadlock error (its surge has room)"
					      : "a rollout-deadlock error (its surge has room in no placement)",
					 got ? "an error" : "none");
			bad = 1;
		} else
			st.deadlock_ok++;
		free(object);
	}
	for (size_t k = 0; k < o.ndeadlocks; k++)
		free(o.deadlocks[k]);
	free(o.deadlocks);
	return bad;
}

int sl_conf_release_case(const char *dir, const char *id, const cJSON *e, const struct sl_model *m)
{
	struct sl_cluster *cl = sl_cluster_new(m);
	bool *fits = sl_xcalloc(m->nworkloads + 1, sizeof *fits);
	int bad_single = check_singles(id, e, m, cl, fits);
	int bad_place = check_placement(id, e, m, cl, fits);
	sl_cluster_free(cl);
	free(fits);
	st.cases++;
	st.singles_ok += !bad_single;
	st.place_ok += !bad_place;
	int bad_rules = check_rules(dir, id, e);
	return bad_single | bad_place | bad_rules;
}

bool sl_conf_release_summary(void)
{
	if (!st.cases)
		return false;
	printf("release: single verdicts agree in %d/%d cases\n", st.singles_ok, st.cases);
	printf("release: pod-by-pod placement (both orders) agrees in %d/%d cases\n", st.place_ok, st.cases);
	printf("release: release-capacity error only where infeasible: %d/%d\n", st.error_ok, st.cases);
	printf("release: every infeasible release is an error: %d/%d\n", st.infeasible_ok, st.infeasible);
	printf("release: order warning exactly where an order leaves pods Pending: %d/%d\n", st.warn_ok, st.cases);
	printf("release: rollout-deadlock error exactly where the surge has no room beside the release: %d/%d\n",
	       st.deadlock_ok, st.deadlocks);
	return true;
}
