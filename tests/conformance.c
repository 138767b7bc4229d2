/* conformance — schedlint's engine against kube-scheduler v1.26.7's verdicts.
 * Usage: conformance CASES_DIR [-v]. For every case: feasible nodes, the failing plugin and
 * reasons per node, fit_error, steady_state_placed, the resolved fence-posts, surge_placed,
 * rollout_deadlock and the fit error texts. A case with manifests.yaml (conformance-preempt) is
 * judged with its PostFilter instead: the pods placed with preemption, each nomination (node and
 * victims), the judged surge pod, and the whole FailedScheduling text. A case whose expected.json
 * has "release" (conformance-release: several workloads) is judged by conformance_release.c.
 * Exit 1 when any case disagrees. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "../linter/model/k8s.h"
#include "../linter/sched/sched.h"
#include "conformance.h"

int sl_conf_verbose;

char *sl_conf_slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	struct sl_buf b = SL_BUF_INIT;
	char tmp[8192];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0)
		sl_buf_add(&b, tmp, n);
	fclose(fp);
	return sl_buf_detach(&b);
}

/* Features whose filters arrive with step 2 (InterPodAffinity, PodTopologySpread, NodePorts). */
static int fails;

void sl_conf_mismatch(const char *id, const char *what, const char *want, const char *got)
{
	fails++;
	if (sl_conf_verbose)
		printf("  %s: %s: want %s, got %s\n", id, what, want, got);
}

void sl_conf_cmp_int(const char *id, const char *what, const cJSON *want, long long got, int *bad)
{
	if (!cJSON_IsNumber(want))
		return;
	if ((long long)want->valuedouble != got) {
		char w[32], g[32];
		snprintf(w, sizeof w, "%lld", (long long)want->valuedouble);
		snprintf(g, sizeof g, "%lld", got);
		sl_conf_mismatch(id, what, w, g);
		*bad = 1;
	}
}

void sl_conf_cmp_str(const char *id, const char *what, const cJSON *want, const char *got, int *bad)
{
	const char *w = cJSON_IsString(want) ? want->valuestring : NULL;
	if ((w == NULL) != (got == NULL) || (w && strcmp(w, got))) {
		sl_conf_mismatch(id, what, w ? w : "null", got ? got : "null");
		*bad = 1;
	}
}

static int cmp_reasons(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The FailedScheduling message as the scheduler records it: the filters' text, the PostFilter's
 * sentence, and the period FitError.Error() adds after it. NULL without a filter text. */
static char *failed_scheduling(const char *filters, const char *post)
{
	if (!filters)
		return NULL;
	return post ? sl_xasprintf("%s %s", filters, post) : sl_xstrdup(filters);
}

/* A nomination: the node (null in the expectation when several tie) and the victims, as sets. */
static void cmp_nomination(const char *id, const char *what, const cJSON *node, const cJSON *victims,
			   const struct sl_model *m, const struct sl_preempt_step *s, int *bad)
{
	if (cJSON_IsString(node) && (s->tie || strcmp(node->valuestring, m->nodes[s->node]->name))) {
		sl_conf_mismatch(id, what, node->valuestring, s->tie ? "a tie" : m->nodes[s->node]->name);
		*bad = 1;
	}
	if (cJSON_IsNull(node) && !s->tie) {
		sl_conf_mismatch(id, what, "a tie between nodes", m->nodes[s->node]->name);
		*bad = 1;
	}
	if (!cJSON_IsArray(victims) || cJSON_IsNull(node))
		return;
	size_t nw = (size_t)cJSON_GetArraySize(victims);
	int same = nw == s->nvictims;
	for (size_t k = 0; same && k < s->nvictims; k++) {
		char ref[512];
		snprintf(ref, sizeof ref, "%s/%s", s->victims[k]->obj.namespace, s->victims[k]->obj.name);
		int found = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, victims) found |= cJSON_IsString(it) && !strcmp(it->valuestring, ref);
		same = found;
	}
	if (!same) {
		char got[32];
		snprintf(got, sizeof got, "%zu other victims", s->nvictims);
		sl_conf_mismatch(id, what, "the victims expected", got);
		*bad = 1;
	}
}

/* conformance-preempt: the pods placed with preemption, each nomination, the judged surge pod, and
 * the whole FailedScheduling text where a pod stays Pending. */
static void check_preemption(const char *id, const cJSON *e, const struct sl_model *m, const struct sl_analysis *a,
			     int *bad)
{
	const cJSON *pod = cJSON_GetObjectItem(e, "pod"), *surge = cJSON_GetObjectItem(e, "surge");
	sl_conf_cmp_int(id, "placed_with_preemption", cJSON_GetObjectItem(pod, "placed_with_preemption"),
			a->steady_placed, bad);
	size_t k = 0;
	const cJSON *nom;
	cJSON_ArrayForEach(nom, cJSON_GetObjectItem(pod, "nominations"))
	{
		while (k < a->npreempted && a->preempted[k].surge)
			k++;
		if (k == a->npreempted) {
			sl_conf_mismatch(id, "nominations", "one more pod placed by preemption", "none");
			*bad = 1;
			break;
		}
		cmp_nomination(id, "nomination", cJSON_GetObjectItem(nom, "nominated_node"),
			       cJSON_GetObjectItem(nom, "victims"), m, &a->preempted[k++], bad);
	}
	char *fs = a->steady_placed ? failed_scheduling(sl_steady_fit_error(a), sl_postfilter(a, SL_STOP_STEADY, NULL))
				    : failed_scheduling(sl_fit_error(a), sl_postfilter(a, SL_STOP_FIT, NULL));
	const cJSON *wfs = cJSON_GetObjectItem(pod, "failed_scheduling");
	if (cJSON_IsString(wfs) || a->steady_placed < a->replicas)
		sl_conf_cmp_str(id, "pod failed_scheduling", wfs, fs, bad);
	free(fs);
	if (!cJSON_IsTrue(cJSON_GetObjectItem(surge, "judged")) || a->steady_placed < a->replicas)
		return;
	int want = cJSON_IsTrue(cJSON_GetObjectItem(surge, "schedules_with_preemption"));
	if (want != (a->surge_placed > 0)) {
		sl_conf_mismatch(id, "surge schedules_with_preemption", want ? "true" : "false",
				 want ? "false" : "true");
		*bad = 1;
	}
	fs = a->surge_placed ? NULL
			     : failed_scheduling(sl_rollout_fit_error(a), sl_postfilter(a, SL_STOP_ROLLOUT, NULL));
	sl_conf_cmp_str(id, "surge failed_scheduling", cJSON_GetObjectItem(surge, "failed_scheduling"), fs, bad);
	free(fs);
	for (k = 0; k < a->npreempted && !a->preempted[k].surge; k++)
		;
	if (cJSON_IsTrue(cJSON_GetObjectItem(surge, "preempted"))) {
		if (k == a->npreempted) {
			sl_conf_mismatch(id, "surge", "placed by preemption", "not");
			*bad = 1;
		} else
			cmp_nomination(id, "surge nomination", cJSON_GetObjectItem(surge, "nominated_node"),
				       cJSON_GetObjectItem(surge, "victims"), m, &a->preempted[k], bad);
	}
}

/* One workload's single verdicts (../conformance's expected.json, or a release case's "single"
 * entry) against its analysis: every node's verdict, the fit error, and the rollout's numbers. */
void sl_conf_compare_single(const char *id, const cJSON *e, const struct sl_model *m, const struct sl_analysis *a,
			    int *bad)
{
	const cJSON *feasible = cJSON_GetObjectItem(e, "feasible_nodes");
	const cJSON *failures = cJSON_GetObjectItem(e, "node_failures");
	for (size_t i = 0; i < m->nnodes; i++) {
		const char *nm = m->nodes[i]->name;
		int want_ok = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, feasible) if (cJSON_IsString(it) && !strcmp(it->valuestring, nm)) want_ok = 1;
		const struct sl_nodefit *f = &a->fit[i];
		char what[256];
		snprintf(what, sizeof what, "node %s", nm);
		if (want_ok) {
			if (f->plugin != SL_FITS) {
				sl_conf_mismatch(id, what, "feasible", sl_plugin_name(f->plugin));
				*bad = 1;
			}
			continue;
		}
		const cJSON *nf = cJSON_GetObjectItem(failures, nm);
		const cJSON *pl = cJSON_GetObjectItem(nf, "plugin");
		if (!cJSON_IsString(pl) || strcmp(pl->valuestring, sl_plugin_name(f->plugin))) {
			sl_conf_mismatch(id, what, cJSON_IsString(pl) ? pl->valuestring : "?",
					 f->plugin ? sl_plugin_name(f->plugin) : "feasible");
			*bad = 1;
			continue;
		}
		if (cJSON_IsTrue(cJSON_GetObjectItem(nf, "excluded_by_prefilter")) != f->excluded) {
			sl_conf_mismatch(id, what, "excluded_by_prefilter as expected",
					 f->excluded ? "excluded" : "filtered");
			*bad = 1;
		}
		/* Reasons are a set: Go iterates the pod's scalar resources in map order. */
		const cJSON *rs = cJSON_GetObjectItem(nf, "reasons");
		size_t nw = (size_t)cJSON_GetArraySize(rs);
		const char **w = sl_xcalloc(nw + 1, sizeof *w);
		for (size_t k = 0; k < nw; k++)
			w[k] = cJSON_GetArrayItem(rs, (int)k)->valuestring;
		const char **g = sl_xcalloc(f->nreasons + 1, sizeof *g);
		for (size_t k = 0; k < f->nreasons; k++)
			g[k] = f->reasons[k];
		qsort(w, nw, sizeof *w, cmp_reasons);
		qsort(g, f->nreasons, sizeof *g, cmp_reasons);
		int same = nw == f->nreasons;
		for (size_t k = 0; same && k < nw; k++)
			same = !strcmp(w[k], g[k]);
		if (!same) {
			sl_conf_mismatch(id, what, nw ? w[0] : "no reasons", f->nreasons ? g[0] : "no reasons");
			*bad = 1;
		}
		free(w);
		free(g);
	}
	sl_conf_cmp_str(id, "fit_error", cJSON_GetObjectItem(e, "fit_error"), sl_fit_error(a), bad);
	if (cJSON_GetObjectItem(e, "replicas")) {
		sl_conf_cmp_int(id, "replicas", cJSON_GetObjectItem(e, "replicas"), a->replicas, bad);
		sl_conf_cmp_int(id, "steady_state_placed", cJSON_GetObjectItem(e, "steady_state_placed"),
				a->steady_placed, bad);
		sl_conf_cmp_str(id, "steady_state_fit_error", cJSON_GetObjectItem(e, "steady_state_fit_error"),
				sl_steady_fit_error(a), bad);
		sl_conf_cmp_int(id, "max_surge", cJSON_GetObjectItem(e, "max_surge"), a->max_surge, bad);
		/* A StatefulSet's update deletes a pod before it creates its replacement: no surge, one pod
		 * at a time (maxUnavailable 1 in the data). The engine models no rollout for it (no surge,
		 * never a deadlock: max_surge, surge_placed and rollout_deadlock say so), so its
		 * maxUnavailable, which nothing reads, is not compared. */
		if (a->is_rollout)
			sl_conf_cmp_int(id, "max_unavailable", cJSON_GetObjectItem(e, "max_unavailable"),
					a->max_unavailable, bad);
		sl_conf_cmp_int(id, "surge_placed", cJSON_GetObjectItem(e, "surge_placed"), a->surge_placed, bad);
		sl_conf_cmp_str(id, "rollout_fit_error", cJSON_GetObjectItem(e, "rollout_fit_error"),
				sl_rollout_fit_error(a), bad);
		const cJSON *dl = cJSON_GetObjectItem(e, "rollout_deadlock");
		if (cJSON_IsBool(dl) && cJSON_IsTrue(dl) != a->rollout_deadlock) {
			sl_conf_mismatch(id, "rollout_deadlock", cJSON_IsTrue(dl) ? "true" : "false",
					 a->rollout_deadlock ? "true" : "false");
			*bad = 1;
		}
	}
}

static int run_case(const char *dir, const char *id)
{
	char *p;
	struct sl_findings errs = {0};
	struct sl_sources ss = {0};
	struct sl_model m = {0};
	int bad = 0;
	/* conformance-preempt's cases hold manifests.yaml (classes, budgets, then the workload). */
	p = sl_xasprintf("%s/manifests.yaml", dir);
	bool preempt = access(p, F_OK) == 0;
	free(p);
	static const char *const files[] = {"nodes.yaml", "pods.yaml", "workload.yaml"};
	static const enum sl_input_role roles[] = {SL_ROLE_NODES, SL_ROLE_PODS, SL_ROLE_MANIFESTS};
	for (int i = 0; i < 3; i++) {
		p = sl_xasprintf("%s/%s", dir, preempt && i == 2 ? "manifests.yaml" : files[i]);
		if (sl_input_add(&ss, p, &errs, NULL) == 0)
			sl_model_load(&m, ss.v[ss.n - 1], roles[i], &errs);
		free(p);
	}
	sl_model_bind_pods(&m);
	p = sl_xasprintf("%s/expected.json", dir);
	char *etext = sl_conf_slurp(p);
	free(p);
	cJSON *e = etext ? cJSON_Parse(etext) : NULL;
	free(etext);
	/* conformance-release: several workloads, placed together (conformance_release.c) */
	if (e && !errs.n && cJSON_GetObjectItem(e, "release")) {
		bad = sl_conf_release_case(dir, id, e, &m);
		goto out;
	}
	if (errs.n || m.nworkloads != 1 || !e) {
		sl_conf_mismatch(id, "load", "one workload, no errors", errs.n ? errs.v[0].message : "no workload");
		bad = 1;
		goto out;
	}
	/* The release the data came from: what depends on it (the PostFilter's text, sl_postfilter_text)
	 * follows v1.26, as the rules' runs do (conformance_release.c). */
	m.kube.minor = 26;
	struct sl_analysis a;
	struct sl_cluster *cl = sl_cluster_new(&m);
	sl_analyze(cl, m.workloads[0], true, &a);
	if (preempt) {
		check_preemption(id, e, &m, &a, &bad);
		goto done;
	}
	sl_conf_compare_single(id, e, &m, &a, &bad);
done:
	sl_analysis_free(&a);
	sl_cluster_free(cl);
out:
	cJSON_Delete(e);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_sources_free(&ss);
	return bad;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: conformance CASES_DIR [-v|-vv] [CASE…]\n");
		return 2;
	}
	const char *only = NULL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			sl_conf_verbose = 1;
		else if (!strcmp(argv[i], "-vv"))
			sl_conf_verbose = 2;
		else
			only = argv[i];
	}
	DIR *d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 2;
	}
	char **ids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			sl_grow(&ids, &cap, n + 1, sizeof *ids);
			ids[n++] = sl_xstrdup(de->d_name);
		}
	closedir(d);
	qsort(ids, n, sizeof *ids, cmp_names);
	int agree = 0, disagree = 0;
	for (size_t i = 0; i < n; i++) {
		if (only && strcmp(only, ids[i])) {
			free(ids[i]);
			continue;
		}
		char *dir = sl_xasprintf("%s/%s", argv[1], ids[i]);
		int bad = run_case(dir, ids[i]);
		free(dir);
		if (bad) {
			disagree++;
			printf("DISAGREE %s\n", ids[i]);
		} else
			agree++;
		free(ids[i]);
	}
	free(ids);
	bool release = sl_conf_release_summary();
	/* a run that found no case checked nothing: that is no pass */
	if (agree + disagree == 0)
		printf("FAIL no case ran: %s holds none%s%s\n", argv[1], only ? " named " : "", only ? only : "");
	printf("%s: %d/%d cases agree with kube-scheduler v1.26.7, %d disagree\n",
	       release ? "conformance-release" : "conformance", agree, agree + disagree, disagree);
	return disagree || agree + disagree == 0 ? 1 : 0;
}
