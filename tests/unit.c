/* unit — quantities, fence-posts, selectors, tolerations, the YAML loader's edge cases and the unified diff;
 * the language server's pieces in unit_lsp.c. Each CHECK prints the failing expression with its line; the
 * run ends with a count. */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../linter/base/buf.h"
#include "../linter/base/flow.h"
#include "../linter/config/config.h"
#include "../linter/fix/fix.h"
#include "../linter/fix/udiff.h"
#include "../linter/load/input.h"
#include "../linter/load/path.h"
#include "../linter/load/yamldoc.h"
#include "../linter/model/k8s.h"
#include "../linter/model/quantity.h"
#include "../linter/sched/sched.h"
#include "unit.h"

int checks, failures;

void unit_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0);
	if (f)
		fclose(f);
}

size_t unit_findings_but_fixed(const struct sl_findings *fs, const struct sl_finding **out, size_t n, bool *fixed)
{
	size_t k = 0, notes = 0;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if (!f->rule && f->level == SL_NOTE && strstr(f->message, "the node set is taken as fixed")) {
			notes++;
			continue;
		}
		if (k < n)
			out[k] = f;
		k++;
	}
	*fixed = notes == 1;
	return k;
}

static int64_t q(const char *s, int scale)
{
	struct sl_qty x;
	if (sl_qty_parse(s, &x, NULL) < 0)
		return -999;
	return sl_qty_scaled(&x, scale);
}

static int bad_qty(const char *s)
{
	struct sl_qty x;
	return sl_qty_parse(s, &x, NULL) < 0;
}

static void test_quantities(void)
{
	CHECK(q("250m", 3) == 250);
	CHECK(q("1", 3) == 1000);
	CHECK(q("0.5", 3) == 500);
	CHECK(q("1.5", 0) == 2); /* Value() rounds up */
	CHECK(q("1.5", 3) == 1500);
	CHECK(q("100u", 3) == 1); /* MilliValue() rounds up too */
	CHECK(q("1n", 3) == 1);
	CHECK(q("0", 3) == 0);
	CHECK(q("64Mi", 0) == 64LL << 20);
	CHECK(q("16.5Gi", 0) == (33LL << 30) / 2);
	CHECK(q("1Ki", 0) == 1024);
	CHECK(q("1Ei", 0) == 1LL << 60);
	CHECK(q("1k", 0) == 1000);
	CHECK(q("1M", 0) == 1000000);
	CHECK(q("1G", 0) == 1000000000);
	CHECK(q("1T", 0) == 1000000000000LL);
	CHECK(q("1P", 0) == 1000000000000000LL);
	CHECK(q("1E", 0) == 1000000000000000000LL);
	CHECK(q("1e3", 0) == 1000);
	CHECK(q("1E3", 0) == 1000);
	CHECK(q("1.5e3", 3) == 1500000);
	CHECK(q("2e-3", 3) == 2);
	CHECK(q("+5", 0) == 5);
	CHECK(q(".5", 3) == 500);
	CHECK(q("0.000001", 3) == 1);
	CHECK(q("8Ei", 3) == INT64_MAX); /* saturates instead of wrapping */
	CHECK(q("123456789012345678901234567890", 0) == INT64_MAX);
	CHECK(q("1.0000000000000000000001", 0) == 2); /* a dropped digit still rounds up */
	CHECK(q("7800m", 3) == 7800);
	CHECK(bad_qty(""));
	CHECK(bad_qty("1.5x"));
	CHECK(bad_qty("x"));
	CHECK(bad_qty("1ki"));
	CHECK(bad_qty("1 Gi"));
	CHECK(bad_qty("1e"));
	CHECK(bad_qty("."));
	CHECK(bad_qty("1Gii"));
	struct sl_qty x;
	CHECK(sl_qty_parse("1.5", &x, NULL) == 0 && !sl_qty_is_integer(&x));
	CHECK(sl_qty_parse("2", &x, NULL) == 0 && sl_qty_is_integer(&x));
	CHECK(sl_qty_parse("1500m", &x, NULL) == 0 && !sl_qty_is_integer(&x));
	/* The API keeps nano-units: 1n is exact at scale 9, a tenth of it is not. */
	CHECK(sl_qty_parse("1n", &x, NULL) == 0 && sl_qty_exact_at(&x, 9) && !sl_qty_exact_at(&x, 8));
	CHECK(sl_qty_parse("0.0000000001", &x, NULL) == 0 && !sl_qty_exact_at(&x, 9));
	CHECK(sl_qty_parse("0.5m", &x, NULL) == 0 && sl_qty_exact_at(&x, 9) && !sl_qty_exact_at(&x, 3));
	CHECK(sl_qty_parse("1Ki", &x, NULL) == 0 && sl_qty_exact_at(&x, 9));
	CHECK(sl_qty_parse("7Ei", &x, NULL) == 0 && sl_qty_value(&x) == 8070450532247928832LL);
	CHECK(sl_qty_parse("8Ei", &x, NULL) == 0 && sl_qty_value(&x) == INT64_MAX); /* saturates: an error */
	CHECK(sl_qty_parse("2000m", &x, NULL) == 0 && sl_qty_is_integer(&x));
	CHECK(sl_qty_parse("0.5Ki", &x, NULL) == 0 && sl_qty_is_integer(&x));
	char buf[32];
	sl_format_amount("cpu", 250, buf, sizeof buf);
	CHECK(!strcmp(buf, "250m"));
	sl_format_amount("cpu", 2000, buf, sizeof buf);
	CHECK(!strcmp(buf, "2"));
	sl_format_amount("memory", 64LL << 20, buf, sizeof buf);
	CHECK(!strcmp(buf, "64Mi"));
	sl_format_amount("nvidia.com/gpu", 4, buf, sizeof buf);
	CHECK(!strcmp(buf, "4"));
	/* Written without snprintf now: the same text, negative, extreme and cut short included. */
	const int64_t amounts[] = {0, -1, -2500, 999, 1000, 1536, 1LL << 30, 3LL << 40, INT64_MIN + 1, INT64_MAX - 1};
	const char *const resources[] = {"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "pods"};
	for (size_t r = 0; r < 5; r++)
		for (size_t i = 0; i < sizeof amounts / sizeof *amounts; i++) {
			char want[32], small[4];
			int64_t v = amounts[i];
			if (!strcmp(resources[r], "cpu"))
				snprintf(want, sizeof want, v % 1000 ? "%lldm" : "%lld",
					 (long long)(v % 1000 ? v : v / 1000));
			else {
				int k = 0;
				while (r != 4 && k < 6 && !(v != 0 && v % ((int64_t)1 << (10 * (6 - k))) == 0))
					k++;
				static const char *const bin[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
				if (r != 4 && k < 6)
					snprintf(want, sizeof want, "%lld%s",
						 (long long)(v / ((int64_t)1 << (10 * (6 - k)))), bin[k]);
				else
					snprintf(want, sizeof want, "%lld", (long long)v);
			}
			sl_format_amount(resources[r], v, buf, sizeof buf);
			CHECK(!strcmp(buf, want));
			sl_format_amount(resources[r], v, small, sizeof small);
			CHECK(!strncmp(small, want, 3) && strlen(small) == (strlen(want) < 3 ? strlen(want) : 3));
		}
}

/* The buffer's formatting writes the plain conversions itself (buf.c): each the same as libc's. */
static bool printf_is(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool printf_is(const char *want, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	bool ok = b.len == strlen(want) && !strcmp(sl_buf_str(&b), want);
	if (!ok)
		fprintf(stderr, "  sl_buf_vprintf(\"%s\"): '%s', expected '%s'\n", fmt, sl_buf_str(&b), want);
	sl_buf_free(&b);
	return ok;
}

static void test_plain_printf(void)
{
	char want[1200];
	snprintf(want, sizeof want, "%d %i %u %ld %lu %lld %llu %zu %c%% %s.", INT_MIN, -7, UINT_MAX, LONG_MIN,
		 ULONG_MAX, LLONG_MIN, ULLONG_MAX, SIZE_MAX, 'x', "end");
	CHECK(printf_is(want, "%d %i %u %ld %lu %lld %llu %zu %c%% %s.", INT_MIN, -7, UINT_MAX, LONG_MIN, ULONG_MAX,
			LLONG_MIN, ULLONG_MAX, SIZE_MAX, 'x', "end"));
	CHECK(printf_is("", "%s", ""));
	CHECK(printf_is("no conversion", "no conversion"));
	CHECK(printf_is("0 0", "%d %zu", 0, (size_t)0));
	/* Longer than the stack buffer, and conversions it leaves to libc (width, precision, %x). */
	char longer[700];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = 0;
	snprintf(want, sizeof want, "[%s] %d", longer, 42);
	CHECK(printf_is(want, "[%s] %d", longer, 42));
	CHECK(printf_is("  7|ab|ff|-3", "%3d|%.2s|%x|%lld", 7, "abc", 255u, -3LL));
}

static int64_t resolve(int64_t v, int pct, int64_t total, int up)
{
	struct sl_intpct p = {true, pct != 0, v, NULL};
	return sl_intpct_resolve(&p, total, up);
}

static void fence(int64_t replicas, int sp, int64_t s, int up, int64_t u, int64_t *rs, int64_t *ru)
{
	struct sl_workload w;
	memset(&w, 0, sizeof w);
	w.replicas = replicas;
	w.max_surge = (struct sl_intpct){true, sp, s, NULL};
	w.max_unavailable = (struct sl_intpct){true, up, u, NULL};
	sl_fenceposts(&w, rs, ru);
}

static void test_fenceposts(void)
{
	CHECK(resolve(25, 1, 1, 1) == 1); /* the seed: ceil(0.25) */
	CHECK(resolve(25, 1, 1, 0) == 0); /* floor(0.25) */
	CHECK(resolve(25, 1, 4, 0) == 1);
	CHECK(resolve(25, 1, 10, 1) == 3); /* 10 replicas: at most 13 pods */
	CHECK(resolve(25, 1, 10, 0) == 2); /* and at least 8 available */
	CHECK(resolve(50, 1, 3, 1) == 2);
	CHECK(resolve(10, 1, 3, 0) == 0);
	CHECK(resolve(100, 1, 7, 0) == 7);
	CHECK(resolve(3, 0, 10, 1) == 3); /* integers are taken as written */
	CHECK(resolve(0, 1, 0, 1) == 0);
	int64_t s, u;
	fence(1, 1, 25, 1, 25, &s, &u);
	CHECK(s == 1 && u == 0);
	fence(1, 0, 0, 0, 0, &s, &u); /* both 0: unavailable becomes 1 */
	CHECK(s == 0 && u == 1);
	fence(3, 1, 10, 1, 10, &s, &u); /* ceil(0.3)=1, floor(0.3)=0 */
	CHECK(s == 1 && u == 0);
	fence(5, 1, 0, 1, 10, &s, &u); /* 0% and floor(0.5)=0 → 0/1 */
	CHECK(s == 0 && u == 1);
	fence(0, 1, 25, 1, 25, &s, &u); /* zero replicas: both resolve to 0 → 0/1 */
	CHECK(s == 0 && u == 1);
	/* At the limits the reader lets through (replicas and values up to 2^31 - 1, the API's
	 * int32): the product fits 63 bits, so nothing saturates or wraps. */
	CHECK(resolve(INT32_MAX, 1, INT32_MAX, 1) == 46116860141324207LL);
	CHECK(resolve(INT32_MAX, 1, INT32_MAX, 0) == 46116860141324206LL);
	CHECK(resolve(INT32_MAX, 0, INT32_MAX, 1) == INT32_MAX);
	fence(INT32_MAX, 1, 100, 1, 0, &s, &u);
	CHECK(s == INT32_MAX && u == 0);
}

/* A node with the given labels (pairs), built by hand. */
static void mknode(struct sl_node *n, const char *name, struct sl_kv *kv, size_t nkv)
{
	memset(n, 0, sizeof *n);
	n->name = name;
	n->labels.v = kv;
	n->labels.n = nkv;
	n->max_pods = 110;
}

static void test_selectors(void)
{
	struct sl_kv kv[] = {
	    {"zone", "a", NULL, NULL}, {"gpu-mem", "80", NULL, NULL}, {"kubernetes.io/hostname", "n1", NULL, NULL}};
	struct sl_labels l = {kv, 3};
	const char *ab[] = {"a", "b"}, *c[] = {"c"}, *v40[] = {"40"}, *v80[] = {"80"}, *bad[] = {"x"},
		   *two[] = {"1", "2"};
	struct sl_requirement r;
	r = (struct sl_requirement){"zone", SL_OP_IN, ab, 2, NULL};
	CHECK(sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"zone", SL_OP_IN, c, 1, NULL};
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"zone", SL_OP_NOTIN, c, 1, NULL};
	CHECK(sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"missing", SL_OP_NOTIN, c, 1, NULL}; /* NotIn matches an absent label */
	CHECK(sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"missing", SL_OP_IN, c, 1, NULL};
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"zone", SL_OP_EXISTS, NULL, 0, NULL};
	CHECK(sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"zone", SL_OP_DOESNOTEXIST, NULL, 0, NULL};
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"missing", SL_OP_DOESNOTEXIST, NULL, 0, NULL};
	CHECK(sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"gpu-mem", SL_OP_GT, v40, 1, NULL};
	CHECK(sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"gpu-mem", SL_OP_GT, v80, 1, NULL}; /* strictly greater */
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"gpu-mem", SL_OP_LT, v80, 1, NULL};
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"zone", SL_OP_GT, v40, 1, NULL}; /* label not an integer */
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"gpu-mem", SL_OP_GT, bad, 1, NULL};
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"gpu-mem", SL_OP_GT, two, 2, NULL}; /* exactly one value */
	CHECK(!sl_requirement_matches(&r, &l));
	r = (struct sl_requirement){"missing", SL_OP_LT, v80, 1, NULL};
	CHECK(!sl_requirement_matches(&r, &l));

	struct sl_node n;
	mknode(&n, "n1", kv, 3);
	const char *n1[] = {"n1"}, *n2[] = {"n2"};
	struct sl_requirement f_in = {"metadata.name", SL_OP_IN, n1, 1, NULL};
	struct sl_requirement f_notin = {"metadata.name", SL_OP_NOTIN, n1, 1, NULL};
	struct sl_requirement f_other = {"metadata.name", SL_OP_IN, n2, 1, NULL};
	struct sl_requirement f_badkey = {"metadata.uid", SL_OP_IN, n1, 1, NULL};
	CHECK(sl_field_matches(&f_in, "n1"));
	CHECK(!sl_field_matches(&f_notin, "n1"));
	CHECK(!sl_field_matches(&f_other, "n1"));
	CHECK(!sl_field_matches(&f_badkey, "n1"));
	struct sl_requirement zin = {"zone", SL_OP_IN, ab, 2, NULL}, zc = {"zone", SL_OP_IN, c, 1, NULL};
	struct sl_term empty = {NULL, NULL, 0, 0, NULL};
	struct sl_term t_ok = {&zin, &f_in, 1, 1, NULL};
	struct sl_term t_and = {&zc, &f_in, 1, 1, NULL}; /* expressions AND fields */
	CHECK(!sl_term_matches(&empty, &n));             /* an empty term selects nothing */
	CHECK(sl_term_matches(&t_ok, &n));
	CHECK(!sl_term_matches(&t_and, &n));

	struct sl_podspec p;
	memset(&p, 0, sizeof p);
	CHECK(sl_node_affinity_matches(&p, &n)); /* no constraints */
	struct sl_term terms[2] = {t_and, t_ok};
	p.terms = terms;
	p.nterms = 2;
	p.has_required_affinity = true;
	CHECK(sl_node_affinity_matches(&p, &n)); /* terms OR'd */
	p.nterms = 1;
	CHECK(!sl_node_affinity_matches(&p, &n));
	p.nterms = 0; /* nodeSelectorTerms: [] matches nothing */
	CHECK(!sl_node_affinity_matches(&p, &n));
	p.has_required_affinity = false;
	struct sl_kv sel[] = {{"zone", "a", NULL, NULL}};
	p.node_selector.v = sel;
	p.node_selector.n = 1;
	CHECK(sl_node_affinity_matches(&p, &n));
	sel[0].val = "b";
	CHECK(!sl_node_affinity_matches(&p, &n));
	sel[0].key = "absent";
	sel[0].val = "";
	CHECK(!sl_node_affinity_matches(&p, &n)); /* absent is not equal to "" */
}

static void test_tolerations(void)
{
	struct sl_taint gpu = {"nvidia.com/gpu", "present", "NoSchedule", NULL};
	struct sl_toleration t;
	t = (struct sl_toleration){"nvidia.com/gpu", "Exists", "", "", NULL};
	CHECK(sl_tolerates(&t, &gpu));
	t = (struct sl_toleration){"nvidia.com/gpu", "Equal", "present", "NoSchedule", NULL};
	CHECK(sl_tolerates(&t, &gpu));
	t = (struct sl_toleration){"nvidia.com/gpu", "", "present", "", NULL}; /* operator defaults to Equal */
	CHECK(sl_tolerates(&t, &gpu));
	t = (struct sl_toleration){"nvidia.com/gpu", "Equal", "absent", "", NULL};
	CHECK(!sl_tolerates(&t, &gpu));
	t = (struct sl_toleration){"nvidia.com/gpu", "Exists", "", "NoExecute", NULL}; /* effect must match */
	CHECK(!sl_tolerates(&t, &gpu));
	t = (struct sl_toleration){"", "Exists", "", "", NULL}; /* tolerates everything */
	CHECK(sl_tolerates(&t, &gpu));
	t = (struct sl_toleration){"other", "Exists", "", "", NULL};
	CHECK(!sl_tolerates(&t, &gpu));
	t = (struct sl_toleration){"nvidia.com/gpu", "Bogus", "", "", NULL};
	CHECK(!sl_tolerates(&t, &gpu));

	struct sl_taint taints[] = {{"pref", "", "PreferNoSchedule", NULL},
				    {"node.kubernetes.io/not-ready", "", "NoExecute", NULL},
				    {"dedicated", "batch", "NoSchedule", NULL}};
	struct sl_node n;
	mknode(&n, "n", NULL, 0);
	n.taints = taints;
	n.ntaints = 3;
	struct sl_podspec p;
	memset(&p, 0, sizeof p);
	/* PreferNoSchedule never blocks; not-ready is tolerated by default; dedicated is not. */
	CHECK(sl_untolerated_taint(&p, &n) == &taints[2]);
	struct sl_toleration ded = {"dedicated", "Equal", "batch", "NoSchedule", NULL};
	p.tols = &ded;
	p.ntols = 1;
	CHECK(sl_untolerated_taint(&p, &n) == NULL);

	/* The DaemonSet controller's tolerations: the pressure taints, the cordon, and
	 * network-unavailable for pods on the host's network only. */
	struct sl_taint pressure[] = {{"node.kubernetes.io/disk-pressure", "", "NoSchedule", NULL},
				      {"node.kubernetes.io/memory-pressure", "", "NoSchedule", NULL},
				      {"node.kubernetes.io/pid-pressure", "", "NoSchedule", NULL},
				      {"node.kubernetes.io/unschedulable", "", "NoSchedule", NULL},
				      {"node.kubernetes.io/unreachable", "", "NoExecute", NULL}};
	struct sl_taint netdown = {"node.kubernetes.io/network-unavailable", "", "NoSchedule", NULL};
	memset(&p, 0, sizeof p);
	n.taints = pressure;
	n.ntaints = 5;
	CHECK(sl_daemon_runs_on(&p, &n));
	CHECK(sl_untolerated_taint(&p, &n) == &pressure[0]); /* a plain pod does not tolerate them */
	n.taints = &netdown;
	n.ntaints = 1;
	CHECK(!sl_daemon_runs_on(&p, &n));
	p.host_network = true;
	CHECK(sl_daemon_runs_on(&p, &n));
	n.taints = &taints[2]; /* dedicated=batch:NoSchedule is the template's to tolerate */
	CHECK(!sl_daemon_runs_on(&p, &n));
	p.node_name = "other"; /* nodeName pins it to another node */
	n.taints = NULL;
	n.ntaints = 0;
	CHECK(!sl_daemon_runs_on(&p, &n));
	p.node_name = "n";
	CHECK(sl_daemon_runs_on(&p, &n));
}

static void test_kube_versions(void)
{
	int m = 0;
	CHECK(sl_kube_parse("1.30", &m) == 0 && m == 30);
	CHECK(sl_kube_parse("v1.29.4", &m) == 0 && m == 29);
	CHECK(sl_kube_parse("v1.30.6-eks-7f9249a", &m) == 0 && m == 30);
	CHECK(sl_kube_parse("1.31+", &m) == 0 && m == 31);
	CHECK(sl_kube_parse("1.3", &m) == 0 && m == 3); /* not 1.30: refused as below 1.20 by callers */
	CHECK(sl_kube_parse("2.1", &m) < 0);
	CHECK(sl_kube_parse("1.", &m) < 0);
	CHECK(sl_kube_parse("1.x", &m) < 0);
	CHECK(sl_kube_parse("1.30x", &m) < 0);
	CHECK(sl_kube_parse("v1.1000", &m) < 0);
	CHECK(sl_kube_parse(NULL, &m) < 0);
	struct sl_kube_version v = {35, 40, SL_KUBE_FROM_OPTION, "1.40", NULL};
	char out[192];
	sl_kube_describe(&v, out, sizeof out);
	CHECK(!strcmp(out, "1.40 (--kube-version 1.40; judged as 1.35, the newest release schedlint knows)"));
}

static void test_flow(void)
{
	/* Two workloads of one GPU each on the one node they may use, which has 1: flow 1 of 2, and
	 * both workloads and the node on the source side of the cut. */
	struct sl_flow g;
	sl_flow_init(&g, 5); /* s, a, b, node, t */
	sl_flow_add(&g, 0, 1, 1);
	sl_flow_add(&g, 0, 2, 1);
	sl_flow_add(&g, 1, 3, SL_FLOW_INF);
	sl_flow_add(&g, 2, 3, SL_FLOW_INF);
	sl_flow_add(&g, 3, 4, 1);
	CHECK(sl_flow_max(&g, 0, 4) == 1);
	bool reach[5];
	sl_flow_reach(&g, 0, reach);
	CHECK(reach[0] && reach[1] && reach[2] && reach[3] && !reach[4]);
	sl_flow_free(&g);
	/* A flow that must reroute: a may use x or y, b only x; x and y have 1 each. */
	sl_flow_init(&g, 6); /* s, a, b, x, y, t */
	sl_flow_add(&g, 0, 1, 1);
	sl_flow_add(&g, 0, 2, 1);
	sl_flow_add(&g, 1, 3, SL_FLOW_INF);
	sl_flow_add(&g, 1, 4, SL_FLOW_INF);
	sl_flow_add(&g, 2, 3, SL_FLOW_INF);
	sl_flow_add(&g, 3, 5, 1);
	sl_flow_add(&g, 4, 5, 1);
	CHECK(sl_flow_max(&g, 0, 5) == 2);
	sl_flow_free(&g);
	/* Saturating capacities: INT64_MAX demand through infinite edges stays INT64_MAX. */
	sl_flow_init(&g, 3);
	sl_flow_add(&g, 0, 1, INT64_MAX);
	sl_flow_add(&g, 1, 2, SL_FLOW_INF);
	CHECK(sl_flow_max(&g, 0, 2) == INT64_MAX);
	sl_flow_free(&g);
	/* A long chain: no recursion, so no stack to exhaust. */
	size_t n = 100000;
	sl_flow_init(&g, n);
	for (size_t i = 0; i + 1 < n; i++)
		sl_flow_add(&g, i, i + 1, 7);
	CHECK(sl_flow_max(&g, 0, n - 1) == 7);
	sl_flow_free(&g);
}

/* Load a YAML string; returns the number of input errors. */
static size_t load(const char *text, struct sl_ystream *ys, struct sl_findings *fs, struct sl_source **src)
{
	*src = sl_source_from_memory("t.yaml", text, strlen(text));
	sl_yaml_parse(*src, ys, fs);
	return fs->input_errors;
}

static void test_yaml(void)
{
	struct sl_ystream ys = {0};
	struct sl_findings fs = {0};
	struct sl_source *src;
	/* duplicate keys: the last wins; merge keys: explicit keys win */
	CHECK(load("a: 1\nb: 2\na: 3\nbase: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 9\n", &ys, &fs, &src) == 0);
	const struct sl_ynode *r = ys.n ? ys.docs[0].root : NULL;
	CHECK(sl_yis(sl_ymap_get(r, "a"), "3"));
	CHECK(sl_yis(sl_ypath(r, "m.x"), "1"));
	CHECK(sl_yis(sl_ypath(r, "m.y"), "9"));
	unsigned line = 0, col = 0;
	if (r && sl_ymap_get(r, "a"))
		sl_span_start(&sl_ymap_get(r, "a")->at, &line, &col);
	CHECK(line == 3 && col == 4);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);

	/* an alias bomb is refused without expanding it */
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 12; i++)
		sl_buf_printf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i,
			      i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	CHECK(load(b.s, &ys, &fs, &src) == 1);
	CHECK(fs.n == 1 && strstr(fs.v[0].message, "alias bomb"));
	sl_buf_free(&b);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);

	/* deep nesting is refused, not recursed into */
	for (int i = 0; i < 10000; i++)
		sl_buf_putc(&b, '[');
	CHECK(load(b.s, &ys, &fs, &src) == 1);
	CHECK(fs.n == 1 && strstr(fs.v[0].message, "nests deeper"));
	sl_buf_free(&b);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);

	/* a node and a span carry no line or column (computed when printed): most of a tree's memory */
	CHECK(sizeof(struct sl_span) == sizeof(void *) + 8 && sizeof(struct sl_ynode) == 2 * sizeof(void *) + 16);
	/* positions count code points, offsets count bytes */
	CHECK(load("k: \"é€\"\nv: 1\n", &ys, &fs, &src) == 0);
	r = ys.n ? ys.docs[0].root : NULL;
	const struct sl_ynode *v = sl_ymap_get(r, "v");
	line = col = 0;
	if (v)
		sl_span_start(&v->at, &line, &col);
	CHECK(v && line == 2 && col == 4 && v->at.off == 14);
	const struct sl_ynode *k = sl_ymap_get(r, "k");
	unsigned eline, ecol;
	if (k)
		sl_span_end(&k->at, &eline, &ecol);
	CHECK(k && eline == 1 && ecol == 8 && k->at.end == 10);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);

	/* a tab in indentation is named as such */
	CHECK(load("a:\n\tb: 1\n", &ys, &fs, &src) == 1);
	CHECK(fs.n == 1 && strstr(fs.v[0].message, "tab"));
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);

	int64_t i;
	CHECK(load("a: 12\nb: '12'\nc: 1_000\nd: x\n", &ys, &fs, &src) == 0);
	r = ys.docs[0].root;
	CHECK(sl_yint(sl_ymap_get(r, "a"), &i) == 0 && i == 12);
	CHECK(sl_yint(sl_ymap_get(r, "b"), &i) == -1); /* quoted: a string */
	CHECK(sl_yint(sl_ymap_get(r, "c"), &i) == 0 && i == 1000);
	CHECK(sl_yint(sl_ymap_get(r, "d"), &i) == -1);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);

	/* A scalar's length and a collection's count share their bytes: a list used as a key, of as
	 * many items as the key looked up has bytes, is no match, and a scalar has no children. */
	CHECK(load("? [a, b]\n: x\nab: y\nb: ''\n", &ys, &fs, &src) == 0);
	r = ys.n ? ys.docs[0].root : NULL;
	CHECK(sl_yis(sl_ymap_get(r, "ab"), "y") && sl_yis(sl_ymap_get(r, "b"), "") && !sl_ymap_get(r, ""));
	CHECK(sl_ycount(r) == 3 && sl_ycount(sl_ymap_get(r, "ab")) == 0 && sl_ycount(NULL) == 0);
	CHECK(!sl_ymap_get(sl_ymap_get(r, "ab"), "y") && !sl_ypath(r, "ab.y") && sl_yis(sl_ypath(r, "b"), ""));
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);
}

/* The effective request of a pod spec given as YAML. */
static int64_t request_of(const char *yaml, const char *res)
{
	struct sl_ystream ys = {0};
	struct sl_findings fs = {0};
	struct sl_source *src = sl_source_from_memory("t.yaml", yaml, strlen(yaml));
	sl_yaml_parse(src, &ys, &fs);
	struct sl_podspec p;
	int64_t v = -1;
	if (ys.n && sl_parse_podspec(src, ys.docs[0].root, "default", NULL, &p, &fs) == 0)
		v = sl_res_get(&p.request, res);
	sl_podspec_free(&p);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);
	return v;
}

static void test_requests(void)
{
	/* requests default to limits; containers sum */
	CHECK(request_of("containers:\n- resources: {limits: {cpu: 250m}}\n- resources: {requests: {cpu: 100m}, "
			 "limits: {cpu: 1}}\n",
			 "cpu") == 350);
	/* an init container raises the request to its own */
	CHECK(
	    request_of("containers:\n- resources: {requests: {cpu: 2}}\ninitContainers:\n- resources: {requests: {cpu: "
		       "'8'}}\n",
		       "cpu") == 8000);
	/* a restartable (sidecar) init container adds to the containers and to later init containers */
	CHECK(request_of("containers:\n- resources: {requests: {cpu: 1}}\ninitContainers:\n- restartPolicy: Always\n  "
			 "resources: {requests: {cpu: 500m}}\n- resources: {requests: {cpu: 1200m}}\n",
			 "cpu") == 1700);
	/* overhead is added */
	CHECK(request_of("containers:\n- resources: {requests: {memory: 64Mi}}\noverhead: {memory: 64Mi}\n",
			 "memory") == 128LL << 20);
	/* a bad quantity is an input error */
	CHECK(request_of("containers:\n- resources: {limits: {nvidia.com/gpu: 1.5x}}\n", "nvidia.com/gpu") == -1);
	CHECK(request_of("containers:\n- resources: {limits: {nvidia.com/gpu: 1}}\n", "nvidia.com/gpu") == 1);
	CHECK(request_of("containers: nope\n", "cpu") == -1);
}

/* The messages of the input errors in a pod spec given as YAML, one a line. */
static char *podspec_errors(const char *yaml)
{
	struct sl_ystream ys = {0};
	struct sl_findings fs = {0};
	struct sl_source *src = sl_source_from_memory("t.yaml", yaml, strlen(yaml));
	sl_yaml_parse(src, &ys, &fs);
	struct sl_podspec p = {0};
	struct sl_buf b = SL_BUF_INIT;
	if (!ys.n || sl_parse_podspec(src, ys.docs[0].root, "default", NULL, &p, &fs) == 0)
		sl_buf_puts(&b, "parsed without an error\n");
	for (size_t i = 0; i < fs.n; i++) {
		sl_buf_puts(&b, fs.v[i].message);
		sl_buf_putc(&b, '\n');
	}
	sl_podspec_free(&p);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);
	return sl_buf_detach(&b);
}

/* Where the errors in containers and pod terms are said to be (paths built without printf). */
static void test_podspec_paths(void)
{
	const struct {
		const char *yaml, *want;
	} cases[] = {
	    {"containers:\n- {}\n- resources: {requests: [1], limits: {cpu: x}}\n",
	     "containers[1].resources.requests must be a mapping, not a list\n"
	     "containers[1].resources.limits.cpu: invalid quantity \"x\": a quantity starts with a number\n"},
	    {"containers: []\ninitContainers:\n- {}\n- {}\n- {}\n- {}\n- {}\n- {}\n- {}\n- {}\n- {}\n- {}\n"
	     "- resources: {limits: x}\n",
	     "initContainers[10].resources.limits must be a mapping, not a scalar\n"},
	    {"containers: []\naffinity: {podAffinity: []}\n", "affinity.podAffinity must be a mapping, not a list\n"},
	    {"containers: []\naffinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {}}}\n",
	     "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution must be a list, not a mapping\n"},
	    {"containers: []\naffinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [1, {}]}}\n",
	     "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0] must be a mapping, not a scalar\n"
	     "podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].topologyKey is required\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = podspec_errors(cases[i].yaml);
		if (strcmp(got, cases[i].want))
			fprintf(stderr, "  pod spec errors:\n%s  expected:\n%s", got, cases[i].want);
		CHECK(!strcmp(got, cases[i].want));
		free(got);
	}
}

/* Pod terms, spread constraints and host ports, parsed from YAML as the model reads them. */
static void test_pod_terms(void)
{
	const char *yaml =
	    "spec:\n"
	    "  hostNetwork: true\n"
	    "  containers:\n"
	    "  - ports: [{containerPort: 9100}, {containerPort: 53, protocol: UDP, hostIP: 10.0.0.1}]\n"
	    "  affinity:\n"
	    "    podAntiAffinity:\n"
	    "      requiredDuringSchedulingIgnoredDuringExecution:\n"
	    "      - {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}\n"
	    "      - {labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash], topologyKey: z}\n"
	    "      - {labelSelector: {matchLabels: {app: web}}, mismatchLabelKeys: [pod-template-hash], topologyKey: "
	    "z}\n"
	    "      - {labelSelector: {matchExpressions: [{key: tier, operator: NotIn, values: [db]}]}, "
	    "namespaces: [other], topologyKey: z}\n"
	    "      - {labelSelector: {}, namespaceSelector: {}, topologyKey: z}\n"
	    "      - {topologyKey: z}\n"
	    "  topologySpreadConstraints:\n"
	    "  - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: "
	    "web}}}\n"
	    "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, nodeTaintsPolicy: Honor, "
	    "nodeAffinityPolicy: Ignore, minDomains: 3}\n"
	    "labels: {app: web, pod-template-hash: h1}\n";
	struct sl_ystream ys = {0};
	struct sl_findings fs = {0};
	struct sl_source *src = sl_source_from_memory("t.yaml", yaml, strlen(yaml));
	sl_yaml_parse(src, &ys, &fs);
	struct sl_podspec p;
	const struct sl_ynode *root = ys.n ? ys.docs[0].root : NULL;
	CHECK(root &&
	      sl_parse_podspec(src, sl_ymap_get(root, "spec"), "default", sl_ymap_get(root, "labels"), &p, &fs) == 0);
	if (!root || fs.n) {
		sl_ystream_free(&ys);
		sl_findings_free(&fs);
		sl_source_free(src);
		return;
	}
	struct sl_kv h1v[] = {{"app", "web", NULL, NULL}, {"pod-template-hash", "h1", NULL, NULL}};
	struct sl_kv h2v[] = {{"app", "web", NULL, NULL}, {"pod-template-hash", "h2", NULL, NULL}};
	struct sl_kv dbv[] = {{"app", "x", NULL, NULL}, {"tier", "db", NULL, NULL}};
	struct sl_labels h1 = {h1v, 2}, h2 = {h2v, 2}, db = {dbv, 2}, none = {NULL, 0};
	CHECK(p.nanti == 6 && p.nspread == 2 && p.nports == 2);
	/* the pod's own namespace by default */
	CHECK(sl_podterm_matches(&p.anti[0], "default", &h1, "default", &h2));
	CHECK(!sl_podterm_matches(&p.anti[0], "default", &h1, "other", &h2));
	/* matchLabelKeys: same ReplicaSet only; mismatchLabelKeys: other ReplicaSets only */
	CHECK(sl_podterm_matches(&p.anti[1], "default", &h1, "default", &h1));
	CHECK(!sl_podterm_matches(&p.anti[1], "default", &h1, "default", &h2));
	CHECK(!sl_podterm_matches(&p.anti[2], "default", &h1, "default", &h1));
	CHECK(sl_podterm_matches(&p.anti[2], "default", &h1, "default", &h2));
	/* NotIn matches a pod without the key; namespaces replace the default */
	CHECK(sl_podterm_matches(&p.anti[3], "default", &h1, "other", &h2));
	CHECK(!sl_podterm_matches(&p.anti[3], "default", &h1, "default", &h2));
	CHECK(!sl_podterm_matches(&p.anti[3], "default", &h1, "other", &db));
	/* empty selectors: every pod in every namespace; an absent labelSelector: nothing */
	CHECK(sl_podterm_matches(&p.anti[4], "default", &h1, "kube-system", &none));
	CHECK(!sl_podterm_matches(&p.anti[5], "default", &h1, "default", &h1));
	/* spread defaults: nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore, minDomains 1 */
	CHECK(p.spread[0].hard && p.spread[0].max_skew == 2 && p.spread[0].honor_affinity &&
	      !p.spread[0].honor_taints && p.spread[0].min_domains == 1);
	CHECK(!p.spread[1].hard && !p.spread[1].honor_affinity && p.spread[1].honor_taints &&
	      p.spread[1].min_domains == 3);
	CHECK(sl_selector_matches(&p.spread[0].sel, &h2) && !sl_selector_matches(&p.spread[0].sel, &db));
	/* hostNetwork: hostPort defaults to containerPort; TCP and 0.0.0.0 by default */
	CHECK(p.ports[0].port == 9100 && !strcmp(p.ports[0].proto, "TCP") && !strcmp(p.ports[0].ip, "0.0.0.0"));
	CHECK(p.ports[1].port == 53 && !strcmp(p.ports[1].proto, "UDP") && !strcmp(p.ports[1].ip, "10.0.0.1"));
	sl_podspec_free(&p);
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);
}

/* Inventories keep only the paths the model reads; an alias to a dropped anchor falls back to
 * keeping everything. */
static void test_keep_paths(void)
{
	static const char *const keep[] = {"metadata.name", "spec.containers[].resources", NULL};
	const char *text = "kind: List\nitems:\n- metadata: {name: a, annotations: {x: y}}\n"
			   "  spec:\n    containers:\n    - {name: c, image: i, resources: {requests: {cpu: 1}}}\n"
			   "  status: {phase: Running}\n";
	struct sl_ystream ys = {0};
	struct sl_findings fs = {0};
	struct sl_source *src = sl_source_from_memory("t.yaml", text, strlen(text));
	CHECK(sl_yaml_parse_keep(src, &ys, &fs, keep) == 0 && ys.n == 1);
	const struct sl_ynode *items = ys.n ? sl_ymap_get(ys.docs[0].root, "items") : NULL;
	const struct sl_ynode *item = items && items->kind == SL_YSEQ && items->n ? items->v[0] : NULL;
	CHECK(item && sl_yis(sl_ypath(item, "metadata.name"), "a"));
	CHECK(item && !sl_ypath(item, "metadata.annotations") && !sl_ymap_get(item, "status"));
	const struct sl_ynode *ctr = item ? sl_ypath(item, "spec.containers") : NULL;
	CHECK(ctr && ctr->n == 1 && sl_yis(sl_ypath(ctr->v[0], "resources.requests.cpu"), "1"));
	CHECK(ctr && ctr->n == 1 && !sl_ymap_get(ctr->v[0], "image") && !sl_ymap_get(ctr->v[0], "name"));
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);

	/* the anchor sits in a dropped value and a kept one refers to it: parsed again, whole */
	text = "metadata: {name: &n a, labels: {x: *n}}\nstatus: {phase: &p Running}\n"
	       "spec: {containers: [{resources: {requests: {cpu: *p}}}]}\n";
	src = sl_source_from_memory("t.yaml", text, strlen(text));
	CHECK(sl_yaml_parse_keep(src, &ys, &fs, keep) == 0 && fs.n == 0);
	const struct sl_ynode *r = ys.n ? ys.docs[0].root : NULL;
	CHECK(r && sl_yis(sl_ypath(r, "status.phase"), "Running"));
	sl_ystream_free(&ys);
	sl_findings_free(&fs);
	sl_source_free(src);
}

static char *rel(struct sl_config *c, const char *path)
{
	static char out[256];
	char *r = sl_config_relpath(c, path);
	snprintf(out, sizeof out, "%s", r);
	free(r);
	return out;
}

/* Paths as the config's patterns see them: relative to the config's directory, normalised. */
static void test_relpath(void)
{
	struct sl_config c = {0};
	c.cwd = "/repo/clusters";
	CHECK(!strcmp(rel(&c, "./prod//a.yaml"), "prod/a.yaml")); /* no config: as given, normalised */
	c.dir = "/repo";
	CHECK(!strcmp(rel(&c, "prod/a.yaml"), "clusters/prod/a.yaml"));
	CHECK(!strcmp(rel(&c, "./prod/../staging/./b.yaml"), "clusters/staging/b.yaml"));
	CHECK(!strcmp(rel(&c, "../charts/x/templates/d.yaml"), "charts/x/templates/d.yaml"));
	CHECK(!strcmp(rel(&c, "/repo/legacy/a.yaml"), "legacy/a.yaml"));
	CHECK(!strcmp(rel(&c, "/repository/a.yaml"), "/repository/a.yaml"));         /* a prefix, not the dir */
	CHECK(!strcmp(rel(&c, "../../elsewhere/x.yaml"), "../../elsewhere/x.yaml")); /* outside: as given */
	c.dir = "/";
	CHECK(!strcmp(rel(&c, "a.yaml"), "repo/clusters/a.yaml"));
}

/* Scoring at the limits: quantities saturate at INT64_MAX, where a 64-bit product overflows. */
static void test_scores(void)
{
	CHECK(sl_free_share(4000, 1000) == 75);
	CHECK(sl_free_share(4000, 4000) == 0);
	CHECK(sl_free_share(4000, 5000) == 0);
	CHECK(sl_free_share(0, 0) == 0);
	CHECK(sl_free_share(INT64_MAX, 0) == 100);
	CHECK(sl_free_share(INT64_MAX, INT64_MAX / 2) == 50);
	CHECK(sl_free_share(INT64_MAX, INT64_MAX - 1) == 0);
	CHECK(sl_free_share(INT64_MAX, -5) == 100);
	/* Sums and products over quantities saturate rather than wrap. */
	CHECK(sl_sat_add(INT64_MAX, 1) == INT64_MAX);
	CHECK(sl_sat_add(INT64_MAX - 1, 1) == INT64_MAX);
	CHECK(sl_sat_add(-INT64_MAX, -1) == -INT64_MAX); /* symmetric: -INT64_MAX */
	CHECK(sl_sat_mul(INT64_MAX / 2 + 1, 2) == INT64_MAX);
	CHECK(sl_sat_mul(INT32_MAX, INT32_MAX) == 4611686014132420609LL);
	CHECK(sl_sat_mul(-(INT64_MAX / 2) - 2, 2) == -INT64_MAX);
	CHECK(sl_sat_mul(0, INT64_MAX) == 0);
}

static bool str_is(char *got, const char *want)
{
	bool ok = got ? want && !strcmp(got, want) : !want;
	free(got);
	return ok;
}

/* SARIF's view of a path: under the repository root or not, and percent-encoded. */
static void test_paths(void)
{
	CHECK(str_is(sl_path_under("/repo", "/repo/k8s/a.yaml"), "k8s/a.yaml"));
	CHECK(str_is(sl_path_under("/repo", "/repository/a.yaml"), NULL)); /* a prefix, not the dir */
	CHECK(str_is(sl_path_under("/repo", "/repo"), NULL));
	CHECK(str_is(sl_path_under("/", "/a/b.yaml"), "a/b.yaml"));
	CHECK(str_is(sl_path_normalize("/a/../../b/./c//"), "/b/c"));
	CHECK(str_is(sl_path_normalize("./."), "."));
	CHECK(str_is(sl_path_uri("k8s/my app%.yaml"), "k8s/my%20app%25.yaml"));
	CHECK(str_is(sl_path_uri("/srv/x y/a.yaml"), "file:///srv/x%20y/a.yaml"));
	char *abs = sl_path_absolute("x/../y.yaml");
	CHECK(abs[0] == '/' && strstr(abs, "/y.yaml") && !strstr(abs, ".."));
	free(abs);
}

/* A config read from memory: the errors it gets (0 when it is accepted). */
static size_t config_errors(const char *text, char *first, size_t n)
{
	char path[] = "/tmp/schedlint-unit-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 999;
	FILE *fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	struct sl_config c;
	sl_config_defaults(&c);
	struct sl_findings fs = {0};
	sl_config_load(&c, path, &fs);
	size_t k = fs.n;
	if (first && n) {
		unsigned line = 0, col = 0;
		if (fs.n)
			sl_span_start(&fs.v[0].at, &line, &col);
		snprintf(first, n, "%u:%u %s", line, col, fs.n ? fs.v[0].message : "");
	}
	sl_findings_free(&fs);
	sl_config_free(&c);
	unlink(path);
	return k;
}

static void test_config(void)
{
	char e[512];
	CHECK(config_errors("", e, sizeof e) == 0);
	CHECK(config_errors("rules:\n  rollout-deadlock: off\nexclude: ['^a/']\n", e, sizeof e) == 0);
	/* PCRE2's offset as a column: it notices the open class at the end (offset 11), after the quote. */
	CHECK(config_errors("exclude:\n  - '^charts/[a-'\n", e, sizeof e) == 1 && !strncmp(e, "2:17 ", 5) &&
	      strstr(e, "at offset"));
	CHECK(config_errors("exclud: []\n", e, sizeof e) == 1 && strstr(e, "known: rules, exclude"));
	CHECK(config_errors("rules: {rollout-deadlock: loud}\n", e, sizeof e) == 1 && strstr(e, "not 'loud'"));
	CHECK(config_errors("rules: {no-such-rule: off}\n", e, sizeof e) == 1 && strstr(e, "unknown rule"));
	CHECK(config_errors("policies:\n- {id: rollout-deadlock, message: m, field: a, match: x}\n", e, sizeof e) ==
		  1 &&
	      strstr(e, "built-in rule"));
	CHECK(config_errors("policies:\n- {id: p, message: m, field: 'a..b', match: x}\n", e, sizeof e) == 1 &&
	      strstr(e, "is not a path"));
	CHECK(config_errors("policies:\n- {id: p, message: m, field: 'a[1', match: x}\n", e, sizeof e) == 1);
	CHECK(config_errors("policies:\n- {id: p, message: m, field: a, match: x, forbid: y}\n", e, sizeof e) == 1 &&
	      strstr(e, "exactly one"));
	CHECK(config_errors("policies:\n- {id: p, message: m, field: 'podspec.containers[*].image', forbid: x}\n"
			    "- {id: p, message: n, field: 'metadata.labels[\"a.b/c\"]', match: y}\n",
			    e, sizeof e) == 1 &&
	      strstr(e, "already used"));
	CHECK(config_errors("ignore:\n- {reason: why}\n", e, sizeof e) == 1 && strstr(e, "at least one"));
	CHECK(config_errors("targets:\n- {name: default, paths: x}\n", e, sizeof e) == 1 && strstr(e, "reserved"));
	CHECK(config_errors("- a\n", e, sizeof e) == 1 && strstr(e, "is a mapping"));
}

/* Matching under limits: a catastrophic pattern stops with an error, not a hang. */
static void test_patterns(void)
{
	struct sl_findings fs = {0};
	struct sl_span at = {0};
	struct sl_pattern p;
	struct sl_matcher mx;
	sl_matcher_init(&mx);
	char why[160];
	CHECK(sl_pattern_compile(&p, ":latest$|^[^:@]+$", 17, &at, false, &fs) == 0);
	CHECK(sl_pattern_match(&p, &mx, "nginx:latest", 12, why, sizeof why) == 1);
	CHECK(sl_pattern_match(&p, &mx, "nginx", 5, why, sizeof why) == 1);
	CHECK(sl_pattern_match(&p, &mx, "nginx:1.25", 10, why, sizeof why) == 0);
	CHECK(sl_pattern_match(&p, &mx, "ghcr.io/x@sha256:ab", 19, why, sizeof why) == 0);
	sl_pattern_free(&p);
	CHECK(sl_pattern_compile(&p, "^é+$", 5, &at, false, &fs) == 0); /* UTF: é is one character */
	CHECK(sl_pattern_match(&p, &mx, "éé", 4, why, sizeof why) == 1);
	CHECK(sl_pattern_match(&p, &mx, "\xff\xfe", 2, why, sizeof why) == 0); /* invalid UTF-8: no match */
	sl_pattern_free(&p);
	CHECK(sl_pattern_compile(&p, "(a+)+$", 6, &at, false, &fs) == 0);
	size_t n = 100000;
	char *s = malloc(n + 2);
	memset(s, 'a', n);
	s[n] = 'b';
	s[n + 1] = 0;
	CHECK(sl_pattern_match(&p, &mx, s, n + 1, why, sizeof why) == -1 && strstr(why, "limit"));
	free(s);
	sl_pattern_free(&p);
	CHECK(sl_pattern_compile(&p, "(", 1, &at, false, &fs) == -1 && fs.input_errors == 1);
	sl_matcher_free(&mx);
	sl_findings_free(&fs);
}

static int diff_is(const char *a, const char *b, const char *want)
{
	struct sl_buf out = SL_BUF_INIT;
	sl_udiff(&out, "f", a, strlen(a), b, strlen(b), NULL, 0);
	int ok = !strcmp(sl_buf_str(&out), want);
	if (!ok)
		fprintf(stderr, "diff of '%s' and '%s' is:\n%s", a, b, sl_buf_str(&out));
	sl_buf_free(&out);
	return ok;
}

/* Lines of a diff that start with mark (file headers left out). */
static size_t diff_lines(const char *a, const char *b, char mark)
{
	struct sl_buf out = SL_BUF_INIT;
	sl_udiff(&out, "f", a, strlen(a), b, strlen(b), NULL, 0);
	size_t n = 0;
	for (const char *p = sl_buf_str(&out); *p; p = strchr(p, '\n') + 1)
		n += p[0] == mark && p[1] != mark;
	sl_buf_free(&out);
	return n;
}

/* n lines "<tag><i>", with "x" after each when every_x. */
static char *numbered(const char *tag, int n, int every_x)
{
	struct sl_buf b = SL_BUF_INIT;
	for (int i = 0; i < n; i++)
		sl_buf_printf(&b, every_x ? "%s%d\nx\n" : "%s%d\n", tag, i);
	return sl_buf_detach(&b);
}

static struct sl_edit edit_at(uint32_t off, uint32_t end, const char *text)
{
	struct sl_edit e = {0};
	e.at.off = off;
	e.at.end = end;
	e.text = (char *)text;
	return e;
}

/* Edits apply in a defined order: by offset, an insertion before a replacement at its offset,
 * insertions at one offset as given; overlapping ones are refused. */
static void test_fix_apply(void)
{
	struct sl_source *src = sl_source_from_memory("t.yaml", "abcdef", 6);
	struct sl_edit e[] = {edit_at(2, 2, "X"), edit_at(2, 2, "Y"), edit_at(2, 4, "-"), edit_at(3, 5, "!")};
	const struct sl_edit *in_given[] = {&e[0], &e[1]}, *swapped[] = {&e[1], &e[0]};
	const struct sl_edit *repl_first[] = {&e[2], &e[0]}, *overlap[] = {&e[2], &e[3]};
	size_t len;
	char *out = sl_fix_apply(src, in_given, 2, &len);
	CHECK(out && !strcmp(out, "abXYcdef") && len == 8);
	free(out);
	out = sl_fix_apply(src, swapped, 2, &len);
	CHECK(out && !strcmp(out, "abYXcdef"));
	free(out);
	out = sl_fix_apply(src, repl_first, 2, &len);
	CHECK(out && !strcmp(out, "abX-ef"));
	free(out);
	CHECK(!sl_fix_overlap(repl_first, 2));
	CHECK(sl_fix_overlap(overlap, 2) && !sl_fix_apply(src, overlap, 2, &len));
	sl_source_free(src);
}

/* The unified diff --diff prints: diff -u's hunks, ranges and markers. */
static void test_udiff(void)
{
	CHECK(diff_is("a\nb\n", "a\nb\n", ""));
	CHECK(diff_is("a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"));
	CHECK(diff_is("", "x\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n"));
	CHECK(diff_is("x\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-x\n"));
	CHECK(diff_is("a\nb", "a\nc",
		      "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
		      "\\ No newline at end of file\n"));
	CHECK(diff_is("a\r\nb\r\n", "a\r\nc\r\nb\r\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\r\n+c\r\n b\r\n"));
	/* context: 3 lines each side; changes 6 lines apart share a hunk, 7 apart do not */
	const char *ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
	CHECK(diff_is(
	    ten, "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n11\n12\n",
	    "--- a/f\n+++ b/f\n@@ -1,12 +1,12 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n 7\n 8\n 9\n-10\n+Y\n 11\n 12\n"));
	CHECK(diff_is(
	    ten, "1\nX\n3\n4\n5\n6\n7\n8\n9\nY\n11\n12\n",
	    "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -7,6 +7,6 @@\n 7\n 8\n 9\n-10\n+Y\n 11\n"
	    " 12\n"));
	/* removed lines before added ones, as diff prints them */
	CHECK(diff_is("a\nb\nc\n", "a\nx\ny\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n-b\n+x\n+y\n c\n"));
	/* a shortest script: 1,000 lines added between kept ones, none removed; past the search's
	 * bound the middle is replaced whole, still a correct diff */
	char *a = numbered("a", 1000, 0), *b = numbered("a", 1000, 1);
	CHECK(diff_lines(a, b, '-') == 0 && diff_lines(a, b, '+') == 1000);
	free(a);
	free(b);
	a = numbered("a", 3000, 0), b = numbered("a", 3000, 1);
	CHECK(diff_lines(a, b, '-') == 2999 && diff_lines(a, b, '+') == 5999);
	/* told where the 3,000 insertions are (as --diff is, by the fixes), each is found alone */
	struct sl_udiff_span *sp = calloc(3000, sizeof *sp);
	for (size_t i = 0, off = 0; i < 3000; i++) {
		off = strchr(a + off, '\n') + 1 - a;
		sp[i] = (struct sl_udiff_span){off, off, off + 2 * i, off + 2 * i + 2};
	}
	struct sl_buf out = SL_BUF_INIT;
	sl_udiff(&out, "f", a, strlen(a), b, strlen(b), sp, 3000);
	CHECK(!strncmp(out.s, "--- a/f\n+++ b/f\n@@ -1,3000 +1,6000 @@\n a0\n+x\n a1\n+x\n", 52));
	CHECK(!strstr(out.s, "\n-"));
	sl_buf_free(&out);
	free(sp);
	free(a);
	free(b);
	/* spans wider than the change, or two sharing a line, give diff's diff all the same */
	const struct sl_udiff_span wide[] = {{0, 4, 0, 4}, {6, 6, 6, 7}, {7, 8, 8, 11}};
	sl_udiff(&out, "f", "a\nb\nc\nd\n", 8, "a\nB\nc\nXd\nY\n", 11, wide, 3);
	CHECK(!strcmp(sl_buf_str(&out), "--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n-d\n+Xd\n+Y\n"));
	sl_buf_free(&out);
}

/* The protocol's positions: 0-based lines split at \n, \r\n and a lone \r; characters in UTF-16
 * code units. "é" is 2 bytes and 1 unit, "中" 3 bytes and 1 unit, "😀" 4 bytes and 2 units. */
int main(void)
{
	test_quantities();
	test_plain_printf();
	test_fenceposts();
	test_selectors();
	test_tolerations();
	test_nodepool_requirements();
	test_default_tolerations();
	test_kflavor();
	test_kube_versions();
	test_flow();
	test_yaml();
	test_requests();
	test_pod_terms();
	test_podspec_paths();
	test_keep_paths();
	test_relpath();
	test_paths();
	test_scores();
	test_cluster_derive();
	test_release_surely();
	test_release_search();
	test_release_preemption();
	test_cluster_refresh();
	test_cycle_plan();
	test_place_all_fits();
	test_unread_probes();
	test_braces_documents();
	test_priorities();
	test_storage();
	test_dra();
	test_cel();
	test_postfilter_text();
	test_relations();
	test_ysplit();
	test_rfc3339();
	test_jsonw();
	test_jobs();
	test_gangs();
	test_edit_distance();
	test_feature_gates();
	test_config();
	test_patterns();
	test_udiff();
	test_fix_apply();
	test_lsp();
	test_output();
	test_fixwrite();
	test_source_reread();
	printf("unit: %d/%d checks passed\n", checks - failures, checks);
	return failures ? 1 : 0;
}
