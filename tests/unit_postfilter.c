/* unit_postfilter.c — the PostFilter's part of the FailedScheduling message by release
 * (sl_postfilter_text): none before 1.24, the doubled period of 1.26 to 1.29, DynamicResources'
 * reason before DefaultPreemption's from 1.32 with its gate (1.34 by default), 1.33's silence for a
 * pod without claims, and its Error after VolumeBinding's PreFilter. */
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/model/model.h"
#include "../linter/sched/preemption.h"
#include "unit.h"

#define NO_VICTIMS "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."

/* The text on 1.minor (gate: DynamicResourceAllocation as set, 0 the default) for a pod with
 * nclaims claims stopped by fits, DefaultPreemption saying pre (NULL: it nominated a node);
 * whether it is want (NULL: nothing printed). */
static bool text_is(int minor, int gate, size_t nclaims, const struct sl_nodefit *fits, const char *pre,
		    const char *want)
{
	struct sl_model m;
	memset(&m, 0, sizeof m);
	m.kube.minor = minor;
	m.gates.v[SL_GATE_DYNAMIC_RESOURCE_ALLOCATION] = (signed char)gate;
	struct sl_podspec p;
	memset(&p, 0, sizeof p);
	p.nclaims = nclaims;
	char *got = sl_postfilter_text(&m, &p, fits, pre ? sl_xstrdup(pre) : NULL);
	bool same = want ? got && !strcmp(got, want) : !got;
	if (!same)
		fprintf(stderr, "1.%d: got \"%s\", want \"%s\"\n", minor, got ? got : "(none)", want ? want : "(none)");
	free(got);
	return same;
}

/* Both nodes failed by plugin, at its PreFilter when prefilter. */
static void stop(struct sl_nodefit *fits, enum sl_plugin plugin, bool prefilter, const char *reason)
{
	for (int i = 0; i < 2; i++) {
		sl_nodefit_clear(&fits[i]);
		sl_nodefit_fail(&fits[i], plugin, reason);
		fits[i].prefilter = prefilter;
	}
}

void test_postfilter_text(void)
{
	struct sl_nodefit fits[3];
	memset(fits, 0, sizeof fits);
	stop(fits, SL_PL_NODE_RESOURCES_FIT, false, "Insufficient cpu");
	/* The period by release; DRA off by default before 1.34. */
	CHECK(text_is(23, 0, 0, fits, NO_VICTIMS, NULL));
	CHECK(text_is(24, 0, 0, fits, NO_VICTIMS, NO_VICTIMS));
	CHECK(text_is(25, 0, 0, fits, NO_VICTIMS, NO_VICTIMS));
	CHECK(text_is(26, 0, 0, fits, NO_VICTIMS, NO_VICTIMS "."));
	CHECK(text_is(29, 0, 0, fits, NO_VICTIMS, NO_VICTIMS "."));
	CHECK(text_is(30, 0, 0, fits, NO_VICTIMS, NO_VICTIMS));
	CHECK(text_is(33, 0, 0, fits, NO_VICTIMS, NO_VICTIMS));
	/* A nomination prints nothing, DynamicResources' reason included. */
	CHECK(text_is(35, 0, 0, fits, NULL, NULL));
	/* DynamicResources in the profile: 1.34 on; 1.32 and 1.33 with the gate; 1.31 never. */
	CHECK(text_is(34, 0, 0, fits, NO_VICTIMS, "no new claims to deallocate, " NO_VICTIMS));
	CHECK(text_is(34, -1, 0, fits, NO_VICTIMS, NO_VICTIMS));
	CHECK(text_is(32, 1, 0, fits, NO_VICTIMS, "no new claims to deallocate, " NO_VICTIMS));
	CHECK(text_is(31, 1, 0, fits, NO_VICTIMS, NO_VICTIMS));
	/* 1.33: nothing for a pod without claims, its reason for one with claims. */
	CHECK(text_is(33, 1, 0, fits, NO_VICTIMS, NO_VICTIMS));
	CHECK(text_is(33, 1, 1, fits, NO_VICTIMS, "still not schedulable, " NO_VICTIMS));
	CHECK(text_is(35, 0, 2, fits, "preemption: not eligible due to preemptionPolicy=Never.",
		      "still not schedulable, preemption: not eligible due to preemptionPolicy=Never."));
	/* Its own PreFilter rejected the pod before storing the claims. */
	stop(fits, SL_PL_DYNAMIC_RESOURCES, true, "request gpu: device class gpu.example.com does not exist");
	CHECK(text_is(35, 0, 1, fits, NO_VICTIMS, "no new claims to deallocate, " NO_VICTIMS));
	/* VolumeBinding's PreFilter stopped the cycle first: the PostFilter's Error alone. */
	stop(fits, SL_PL_VOLUME_BINDING, true, "pod has unbound immediate PersistentVolumeClaims");
	CHECK(text_is(35, 0, 0, fits, NO_VICTIMS, "not found"));
	CHECK(text_is(33, 1, 1, fits, NO_VICTIMS, "not found"));
	CHECK(text_is(33, 1, 0, fits, NO_VICTIMS, NO_VICTIMS));
	CHECK(text_is(31, 0, 0, fits, NO_VICTIMS, NO_VICTIMS));
	CHECK(text_is(35, 0, 0, NULL, NULL, NULL));
}
