/* unit.h — the unit tests' check, shared by their files (tests/unit.c, tests/unit_lsp.c,
 * tests/unit_tolerations.c). */
#ifndef UNIT_H
#define UNIT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

extern int checks, failures;
#define CHECK(cond)                                                                                                    \
	do {                                                                                                           \
		checks++;                                                                                              \
		if (!(cond)) {                                                                                         \
			failures++;                                                                                    \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                       \
		}                                                                                                      \
	} while (0)

/* Write text to path (a checked failure when it cannot): the files the tests read. */
void unit_put(const char *path, const char *text);
/* The findings of fs but the input note that the node set is taken as fixed (given with nodes and
 * no pool): how many, the first n of them into out; *fixed: whether that note was there, once. */
struct sl_findings;
struct sl_finding;
size_t unit_findings_but_fixed(const struct sl_findings *fs, const struct sl_finding **out, size_t n, bool *fixed);

/* unit_lsp.c: positions in UTF-16 units, URIs, the framing, the overlay, a cancelled run. */
void test_lsp(void);
/* unit_output.c: escaping for terminals and logs, UTF-8, --output replaced whole. */
void test_output(void);
/* unit_fix.c: --fix's writer given a file that changed between the read and the write. */
void test_fixwrite(void);
/* unit_source.c: bytes given back after the parse, read again when asked; a file changed between. */
void test_source_reread(void);
/* unit_tolerations.c: every node-condition taint alone, with every effect, for plain and DaemonSet
 * pods; DefaultTolerationSeconds withheld where the pod covers the key. */
void test_default_tolerations(void);
/* unit_kflavor.c: the ResourceFlavors Kueue's flavor assigner lets a pod spec take. */
void test_kflavor(void);
/* unit_cluster.c: the index a what-if derives from the run's is the one built for the changed nodes;
 * a release shown to place surely only with room to spare. */
void test_cluster_derive(void);
void test_release_surely(void);
void test_cluster_refresh(void);
void test_cycle_plan(void);
/* unit_placefits.c: the proof that a workload's pods fit, against placing them pod by pod. */
void test_place_all_fits(void);
/* unit_nodepool.c: requirements matched as Karpenter matches a pod against a NodePool. */
void test_nodepool_requirements(void);
/* unit_search.c: the search over placements of a release, a surge pod beside it. */
void test_release_search(void);
void test_release_preemption(void);
/* unit_cluster.c: a container probe's entries the model does not read are left out of the tree. */
void test_unread_probes(void);
void test_braces_documents(void);
/* unit_priority.c: priorities and preemption policies as admission resolves them. */
void test_priorities(void);
/* unit_job.c: Jobs' pods at once and in all, CronJobs, JobSets' entries as workloads; and the
 * model's first workload named name (NULL: none), for the tests that look one up. */
void test_jobs(void);
struct sl_model;
struct sl_workload;
const struct sl_workload *unit_named(const struct sl_model *m, const char *name);
/* unit_gang.c: Volcano Jobs' tasks and coscheduling PodGroups, bound as gangs. */
void test_gangs(void);
/* unit_storage.c: volumes, claims and classes read and resolved per workload (storage.h). */
void test_storage(void);
/* unit_similar.c: the edit distance, full and within a bound. */
void test_edit_distance(void);
/* unit_gates.c: --feature-gates and the releases' defaults. */
void test_feature_gates(void);
/* unit_dra.c: Dynamic Resource Allocation's objects and a pod's claims read (dra.h). */
void test_dra(void);
/* unit_cel.c: the CEL subset of DRA selectors, and quantities compared exactly. */
void test_cel(void);
/* unit_postfilter.c: the PostFilter's part of the FailedScheduling message by release. */
void test_postfilter_text(void);
/* unit_relate.c: budgets and Services that repeat a selector relate as each alone would. */
void test_relations(void);
/* unit_ysplit.c: a large List parsed in two pieces and joined is the whole's tree, or refused. */
void test_ysplit(void);
/* unit_time.c: RFC 3339 times read without sscanf as sscanf read them. */
void test_rfc3339(void);
/* unit_jsonw.c: the JSON writer prints what cJSON_Print printed of the same document. */
void test_jsonw(void);

#endif
