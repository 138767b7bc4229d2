/* unit_gates.c: --feature-gates as kube-scheduler parses it, and what each release makes of it. */
#include <string.h>

#include "../linter/model/gates.h"
#include "unit.h"

static int nunknown;
static char last_unknown[64];

static void unknown(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	nunknown++;
	memcpy(last_unknown, name, len < 63 ? len : 63);
	last_unknown[len < 63 ? len : 63] = 0;
}

void test_feature_gates(void)
{
	struct sl_gates g;
	char err[256];
	sl_gates_init(&g);
	CHECK(!sl_gate_on(&g, SL_GATE_GANG_SCHEDULING, 35)); /* alpha: off by default */
	CHECK(sl_gates_parse(" GenericWorkload = 1 ,GangScheduling=True,", "--feature-gates", &g, err, sizeof err,
			     unknown, NULL) == 0);
	CHECK(sl_gate_on(&g, SL_GATE_GENERIC_WORKLOAD, 35) && sl_gate_on(&g, SL_GATE_GANG_SCHEDULING, 35));
	CHECK(!sl_gate_on(&g, SL_GATE_GENERIC_WORKLOAD, 34)); /* not in the release: off whatever is asked */
	/* Later wins; an unknown name goes to the callback, the rest is kept. */
	CHECK(sl_gates_parse("GangScheduling=f,Gangscheduling2=true", "x", &g, err, sizeof err, unknown, NULL) == 0);
	CHECK(!sl_gate_on(&g, SL_GATE_GANG_SCHEDULING, 35) && nunknown == 1 &&
	      !strcmp(last_unknown, "Gangscheduling2"));
	CHECK(!strcmp(sl_gate_closest("GangSchedulng", 13), "GangScheduling"));
	CHECK(sl_gate_closest("SidecarContainers", 17) == NULL);
	/* Malformed: an error, nothing changed, no unknown reported. */
	nunknown = 0;
	CHECK(sl_gates_parse("GenericWorkload=false,Typo=true,GangScheduling", "x", &g, err, sizeof err, unknown,
			     NULL) < 0);
	CHECK(nunknown == 0 && sl_gate_on(&g, SL_GATE_GENERIC_WORKLOAD, 35));
	CHECK(strstr(err, "missing bool value for GangScheduling") != NULL);
	CHECK(sl_gates_parse("GenericWorkload=yes", "x", &g, err, sizeof err, NULL, NULL) < 0);
	CHECK(sl_gate_bool("TRUE", 4) == 1 && sl_gate_bool("F", 1) == 0 && sl_gate_bool("tRue", 4) < 0);
	char why[256];
	sl_gate_why_off(&g, SL_GATE_GANG_SCHEDULING, 35, why, sizeof why);
	CHECK(!strcmp(why, "GangScheduling=false (x)"));
	sl_gate_why_off(NULL, SL_GATE_GENERIC_WORKLOAD, 30, why, sizeof why);
	CHECK(!strcmp(why, "Kubernetes 1.30 has no GenericWorkload feature gate (it comes with 1.35)"));
}
