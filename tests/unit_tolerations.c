/* unit_tolerations.c — TaintToleration with the tolerations pods get without writing them: the
 * DefaultTolerationSeconds pair every pod receives and the DaemonSet controller's list. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../linter/sched/sched.h"
#include "unit.h"

/* Every taint the node lifecycle controller and TaintNodesByCondition put on a node, each alone on
 * the node (an earlier taint must not hide a later one), with every effect: whether a plain pod
 * (with the DefaultTolerationSeconds pair: not-ready and unreachable, Exists, NoExecute) and a
 * DaemonSet's pod (with the DaemonSet controller's tolerations) may run there. */
void test_default_tolerations(void)
{
	static const struct {
		const char *key, *effect;
		bool plain, daemon, daemon_host_network;
	} cases[] = {
	    {"node.kubernetes.io/not-ready", "NoExecute", true, true, true},
	    {"node.kubernetes.io/unreachable", "NoExecute", true, true, true},
	    /* the default pair tolerates NoExecute only: the NoSchedule taints of the same keys block */
	    {"node.kubernetes.io/not-ready", "NoSchedule", false, false, false},
	    {"node.kubernetes.io/unreachable", "NoSchedule", false, false, false},
	    {"node.kubernetes.io/memory-pressure", "NoSchedule", false, true, true},
	    {"node.kubernetes.io/disk-pressure", "NoSchedule", false, true, true},
	    {"node.kubernetes.io/pid-pressure", "NoSchedule", false, true, true},
	    {"node.kubernetes.io/unschedulable", "NoSchedule", false, true, true},
	    {"node.kubernetes.io/network-unavailable", "NoSchedule", false, false, true},
	    {"node.kubernetes.io/memory-pressure", "NoExecute", false, false, false},
	    /* an effect that only scores never keeps a pod off */
	    {"node.kubernetes.io/not-ready", "PreferNoSchedule", true, true, true},
	    {"dedicated", "PreferNoSchedule", true, true, true},
	    {"dedicated", "NoSchedule", false, false, false},
	    {"dedicated", "NoExecute", false, false, false},
	};
	struct sl_node n;
	memset(&n, 0, sizeof n);
	n.name = "n";
	n.max_pods = 110;
	struct sl_podspec p;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct sl_taint t = {cases[i].key, "", cases[i].effect, NULL};
		n.taints = &t;
		n.ntaints = 1;
		memset(&p, 0, sizeof p);
		if ((sl_untolerated_taint(&p, &n) == NULL) != cases[i].plain ||
		    sl_daemon_runs_on(&p, &n) != cases[i].daemon) {
			fprintf(stderr, "  taint %s:%s\n", cases[i].key, cases[i].effect);
			CHECK(false);
		}
		p.host_network = true;
		CHECK(sl_daemon_runs_on(&p, &n) == cases[i].daemon_host_network);
	}
	/* Both default tolerations at once, behind a taint that is tolerated: neither hides the other. */
	struct sl_taint both[] = {{"node.kubernetes.io/not-ready", "", "NoExecute", NULL},
				  {"node.kubernetes.io/unreachable", "", "NoExecute", NULL},
				  {"dedicated", "batch", "NoExecute", NULL}};
	struct sl_toleration ded = {"dedicated", "Equal", "batch", "NoExecute", NULL};
	memset(&p, 0, sizeof p);
	n.taints = both;
	n.ntaints = 3;
	CHECK(sl_untolerated_taint(&p, &n) == &both[2]);
	p.tols = &ded;
	p.ntols = 1;
	CHECK(sl_untolerated_taint(&p, &n) == NULL);
	/* DefaultTolerationSeconds adds its toleration only when the pod has none for that key (or an
	 * empty key) and NoExecute (or no effect): the pod's own Equal toleration then decides. */
	struct sl_toleration own = {"node.kubernetes.io/unreachable", "Equal", "flaky", "NoExecute", NULL};
	p.tols = &own;
	CHECK(sl_untolerated_taint(&p, &n) == &both[1]);
	own.effect = ""; /* every effect of that key: still no default one */
	CHECK(sl_untolerated_taint(&p, &n) == &both[1]);
	own.effect = "NoSchedule"; /* another effect: the default one is added */
	CHECK(sl_untolerated_taint(&p, &n) == &both[2]);
	struct sl_toleration ready = {"node.kubernetes.io/not-ready", "Equal", "flaky", "NoExecute", NULL};
	p.tols = &ready;
	CHECK(sl_untolerated_taint(&p, &n) == &both[0]);
}
