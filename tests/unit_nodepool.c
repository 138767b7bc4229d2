/* unit_nodepool.c — requirements matched as Karpenter matches a pod against a NodePool
 * (linter/model/nodepool_req.c): Gt/Lt bounds, NotIn and DoesNotExist, Exists, undefined keys
 * (well-known ones allowed, custom ones refused) and the wording of the refusals. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../linter/model/nodepool.h"
#include "unit.h"

/* One requirement "key op values..." added to s; false when Karpenter's validation refuses it. */
static bool add(struct sl_kreqs *s, const char *key, enum sl_op op, const char *v1, const char *v2)
{
	const char *vals[2] = {v1, v2};
	struct sl_requirement r = {key, op, vals, (size_t)(v1 != NULL) + (v2 != NULL), NULL};
	return sl_kreqs_add_requirement(s, &r);
}

static bool compatible(const struct sl_kreqs *pool, const struct sl_kreqs *pod, const char *want)
{
	char why[400] = "";
	bool ok = sl_kreqs_compatible(pool, pod, why, sizeof why);
	if (want && strcmp(why, want))
		fprintf(stderr, "reason: got '%s', want '%s'\n", why, want);
	return ok && (!want || !strcmp(why, want));
}

static void test_bounds(void)
{
	struct sl_kreqs pool = {0}, pod = {0};
	CHECK(add(&pool, "karpenter.k8s.aws/instance-gpu-count", SL_OP_GT, "0", NULL));
	CHECK(!add(&pool, "x", SL_OP_GT, "one", NULL)); /* not an integer */
	CHECK(!add(&pool, "x", SL_OP_LT, "1", "2"));    /* more than one value */
	CHECK(!add(&pool, "x", SL_OP_GT, "1.5", NULL)); /* Atoi takes no fraction */
	/* Gt 0 is >= 1: a pod asking for 1 GPU per node is met, for 0 not */
	CHECK(add(&pod, "karpenter.k8s.aws/instance-gpu-count", SL_OP_IN, "1", NULL));
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	add(&pod, "karpenter.k8s.aws/instance-gpu-count", SL_OP_IN, "0", NULL);
	char why[400];
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	CHECK(!strcmp(why, "key karpenter.k8s.aws/instance-gpu-count, karpenter.k8s.aws/instance-gpu-count In [0] "
			   "not in karpenter.k8s.aws/instance-gpu-count Exists >=1"));
	sl_kreqs_free(&pod);
	/* Lt 4 meets Gt 2 (3 is in both); Lt 3 does not (nothing in [3, 2]) */
	add(&pod, "karpenter.k8s.aws/instance-gpu-count", SL_OP_LT, "4", NULL);
	add(&pool, "karpenter.k8s.aws/instance-gpu-count", SL_OP_GT, "2", NULL); /* intersected: >= 3 */
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	add(&pod, "karpenter.k8s.aws/instance-gpu-count", SL_OP_LT, "3", NULL);
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	/* a value that is no integer is outside any bound */
	sl_kreqs_free(&pod);
	add(&pod, "karpenter.k8s.aws/instance-gpu-count", SL_OP_IN, "many", NULL);
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	sl_kreqs_free(&pod);
	sl_kreqs_free(&pool);
}

static void test_sets(void)
{
	struct sl_kreqs pool = {0}, pod = {0};
	char why[400];
	add(&pool, "kubernetes.io/arch", SL_OP_IN, "amd64", NULL);
	add(&pool, "karpenter.sh/capacity-type", SL_OP_NOTIN, "spot", NULL);
	add(&pool, "team", SL_OP_EXISTS, NULL, NULL);
	/* the beta arch label is the arch label */
	sl_kreqs_add_in(&pod, "beta.kubernetes.io/arch", "arm64");
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	CHECK(
	    !strcmp(why, "key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]"));
	sl_kreqs_free(&pod);
	/* NotIn spot meets In [on-demand, spot] (on-demand is left), not In [spot] */
	add(&pod, "karpenter.sh/capacity-type", SL_OP_IN, "spot", "on-demand");
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	add(&pod, "karpenter.sh/capacity-type", SL_OP_IN, "spot", NULL);
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	sl_kreqs_free(&pod);
	/* two negative requirements always go together, even where they exclude each other's values */
	add(&pod, "karpenter.sh/capacity-type", SL_OP_DOESNOTEXIST, NULL, NULL);
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	/* Exists in the pool meets any value of the pod's; DoesNotExist in the pod does not meet it */
	sl_kreqs_add_in(&pod, "team", "ml");
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	add(&pod, "team", SL_OP_IN, "a", "b");
	add(&pod, "team", SL_OP_NOTIN, "a", NULL); /* intersected: In [b] */
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	sl_kreqs_free(&pool);
}

static void test_undefined(void)
{
	struct sl_kreqs pool = {0}, pod = {0};
	char why[400];
	sl_kreqs_add_in(&pool, "karpenter.sh/nodepool", "gpu");
	sl_kreqs_add_in(&pool, "workload", "gpu");
	/* a well-known label the pool leaves open is allowed */
	sl_kreqs_add_in(&pod, "topology.kubernetes.io/zone", "eu-west-1a");
	sl_kreqs_add_in(&pod, "karpenter.k8s.aws/instance-family", "g5");
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	/* a custom label it does not define is refused, with Karpenter's hint */
	sl_kreqs_add_in(&pod, "gpu", "true");
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	CHECK(!strcmp(why, "label \"gpu\" does not have known values"));
	sl_kreqs_free(&pod);
	sl_kreqs_add_in(&pod, "example.com/workload", "gpu");
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	CHECK(!strcmp(why, "label \"example.com/workload\" does not have known values (typo of \"workload\"?)"));
	sl_kreqs_free(&pod);
	/* ... unless the pod asks for its absence */
	add(&pod, "dedicated", SL_OP_DOESNOTEXIST, NULL, NULL);
	add(&pod, "tier", SL_OP_NOTIN, "batch", NULL);
	CHECK(compatible(&pool, &pod, NULL));
	sl_kreqs_free(&pod);
	/* the hostname is no well-known label: a pod pinned to a host gets no new node */
	sl_kreqs_add_in(&pod, "kubernetes.io/hostname", "node-7");
	CHECK(!sl_kreqs_compatible(&pool, &pod, why, sizeof why));
	sl_kreqs_free(&pod);
	sl_kreqs_free(&pool);
}

void test_nodepool_requirements(void)
{
	test_bounds();
	test_sets();
	test_undefined();
}
