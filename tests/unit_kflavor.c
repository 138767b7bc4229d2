/* unit_kflavor.c — which of Kueue's ResourceFlavors a pod spec may take, as the flavor assigner
 * decides: untolerated NoSchedule/NoExecute nodeTaints (the flavor's own tolerations count), then
 * the required nodeSelector and node affinity cut down to the flavor's label keys. */
#include <stdbool.h>
#include <string.h>

#include "../linter/model/kflavor.h"
#include "unit.h"

static struct sl_kflavor flavor(struct sl_kv *labels, size_t nl, struct sl_taint *t, size_t nt,
				struct sl_toleration *tol, size_t ntol)
{
	struct sl_kflavor f;
	memset(&f, 0, sizeof f);
	f.node_labels = (struct sl_labels){labels, nl};
	f.taints = t;
	f.ntaints = nt;
	f.tols = tol;
	f.ntols = ntol;
	return f;
}

static void test_taints(void)
{
	struct sl_taint t[] = {{"team", "ml", "NoSchedule", NULL}, {"cost", "high", "PreferNoSchedule", NULL}};
	struct sl_toleration pod_tol = {"team", "Exists", "", "", NULL};
	struct sl_toleration other = {"team", "Equal", "web", "NoSchedule", NULL};
	struct sl_podspec p;
	memset(&p, 0, sizeof p);
	const char *why;
	struct sl_kflavor f = flavor(NULL, 0, t, 2, NULL, 0);
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_TAINT && !strcmp(why, "team"));
	p.tols = &other; /* another value: not tolerated */
	p.ntols = 1;
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_TAINT);
	p.tols = &pod_tol;
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_OK); /* PreferNoSchedule never skips a flavor */
	memset(&p, 0, sizeof p);
	struct sl_kflavor g = flavor(NULL, 0, t, 1, &pod_tol, 1); /* the flavor tolerates its own taint */
	CHECK(sl_kflavor_fit(&g, &p, &why) == SL_KFIT_OK);
	CHECK(sl_kflavor_fit(NULL, &p, &why) == SL_KFIT_MISSING);
}

static void test_labels(void)
{
	struct sl_kv fl[] = {{"zone", "a", NULL, NULL}};
	struct sl_kflavor f = flavor(fl, 1, NULL, 0, NULL, 0);
	struct sl_kv sel_other[] = {{"zone", "b", NULL, NULL}}, sel_same[] = {{"zone", "a", NULL, NULL}},
		     sel_foreign[] = {{"disk", "ssd", NULL, NULL}};
	struct sl_podspec p;
	memset(&p, 0, sizeof p);
	const char *why;
	p.node_selector = (struct sl_labels){sel_other, 1};
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_LABELS && !strcmp(why, "zone"));
	p.node_selector = (struct sl_labels){sel_same, 1};
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_OK);
	p.node_selector = (struct sl_labels){sel_foreign, 1}; /* a key the flavor does not label: not looked at */
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_OK);

	/* Node affinity: zone In [b] excludes the flavor; a second term without a flavor key makes the
	 * affinity match any flavor (the terms are ORed, and that one is left empty). */
	const char *b[] = {"b"}, *a[] = {"a"};
	struct sl_requirement zone_b = {"zone", SL_OP_IN, b, 1, NULL}, zone_a = {"zone", SL_OP_IN, a, 1, NULL};
	struct sl_requirement gpu = {"gpu", SL_OP_EXISTS, NULL, 0, NULL};
	struct sl_requirement not_a = {"zone", SL_OP_NOTIN, a, 1, NULL};
	struct sl_requirement gone = {"zone", SL_OP_DOESNOTEXIST, NULL, 0, NULL};
	struct sl_term terms[2];
	memset(terms, 0, sizeof terms);
	memset(&p, 0, sizeof p);
	p.terms = terms;
	p.has_required_affinity = true;
	terms[0] = (struct sl_term){&zone_b, NULL, 1, 0, NULL};
	p.nterms = 1;
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_LABELS && !strcmp(why, "zone"));
	terms[1] = (struct sl_term){&gpu, NULL, 1, 0, NULL};
	p.nterms = 2;
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_OK);
	struct sl_requirement both[] = {zone_a, gpu}; /* gpu is cut: zone a alone matches */
	terms[0] = (struct sl_term){both, NULL, 2, 0, NULL};
	terms[1] = (struct sl_term){&zone_b, NULL, 1, 0, NULL};
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_OK);
	terms[0] = (struct sl_term){&not_a, NULL, 1, 0, NULL};
	terms[1] = (struct sl_term){&gone, NULL, 1, 0, NULL};
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_LABELS);
	p.nterms = 0; /* nodeSelectorTerms: [] — Kueue keeps no affinity at all */
	CHECK(sl_kflavor_fit(&f, &p, &why) == SL_KFIT_OK);
}

void test_kflavor(void)
{
	test_taints();
	test_labels();
}
