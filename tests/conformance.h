/* conformance.h — what the conformance harness's files share (tests/conformance.c,
 * tests/conformance_release.c): the verbosity, the mismatch count and comparisons, and one
 * workload's single verdicts. */
#ifndef SL_TESTS_CONFORMANCE_H
#define SL_TESTS_CONFORMANCE_H
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "../linter/model/k8s.h"
#include "../linter/sched/sched.h"

extern int sl_conf_verbose;
char *sl_conf_slurp(const char *path);
void sl_conf_mismatch(const char *id, const char *what, const char *want, const char *got);
void sl_conf_cmp_int(const char *id, const char *what, const cJSON *want, long long got, int *bad);
void sl_conf_cmp_str(const char *id, const char *what, const cJSON *want, const char *got, int *bad);
void sl_conf_compare_single(const char *id, const cJSON *e, const struct sl_model *m, const struct sl_analysis *a,
			    int *bad);
/* A release case (conformance-release: expected.json has "release"), its model loaded from
 * nodes.yaml, pods.yaml and manifests.yaml: 1 when it disagrees. */
int sl_conf_release_case(const char *dir, const char *id, const cJSON *e, const struct sl_model *m);
/* The release suite's counts, printed after the cases, and the checks it does not enforce yet
 * ("skip: " lines); false when no release case ran. */
bool sl_conf_release_summary(void);

#endif
