/* The CEL subset of DRA selectors (linter/model/cel.h): every operator and function of the subset
 * both ways, the selectors DeviceClasses are written with, what stays UNKNOWN, CEL's runtime
 * errors, syntax errors with their offsets, hostile input, and quantities compared exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/model/cel.h"
#include "unit.h"

/* The verdict for expr on d; -1 when it does not parse (why: the offset and the message). */
static int verdict(const char *expr, size_t len, const struct sl_cel_device *d, char *why, size_t whysz)
{
	struct sl_cel_error err;
	struct sl_cel *e = sl_cel_parse(expr, len, &err);
	if (!e) {
		snprintf(why, whysz, "%zu: %s", err.offset, err.msg);
		return -1;
	}
	int v = (int)sl_cel_eval(e, d, why, whysz);
	sl_cel_free(e);
	return v;
}

/* expr gives want on d, with why containing sub (NULL: anything). */
static bool gives(const struct sl_cel_device *d, const char *expr, int want, const char *sub)
{
	char why[256] = "";
	int got = verdict(expr, strlen(expr), d, why, sizeof why);
	if (got == want && (!sub || strstr(why, sub)))
		return true;
	fprintf(stderr, "cel: %s: got %d (%s), want %d (%s)\n", expr, got, why, want, sub ? sub : "");
	return false;
}

static const struct sl_cel_attr attrs[] = {
    {NULL, "productName", SL_CEL_STRING, 0, false, "NVIDIA A100-SXM4-40GB"},
    {"gpu.nvidia.com", "architecture", SL_CEL_STRING, 0, false, "Ampere"},
    {"gpu.nvidia.com", "driverVersion", SL_CEL_VERSION, 0, false, "550.54.15"},
    {"gpu.nvidia.com", "cudaVersion", SL_CEL_VERSION, 0, false, "12.4.0-rc.1+build.7"},
    {"gpu.nvidia.com", "index", SL_CEL_INT, 3, false, NULL},
    {"gpu.nvidia.com", "mig", SL_CEL_BOOL, 0, false, NULL},
    {"gpu.nvidia.com", "uuid", SL_CEL_STRING, 0, false, "GPU-4cf8db2d-06c0"},
    {"dra.example.com", "model", SL_CEL_STRING, 0, false, "b"},
};

static struct sl_cel_device gpu(struct sl_cel_cap *caps)
{
	const char *why;
	CHECK(sl_qty_parse("40Gi", &caps[0].value, &why) == 0);
	CHECK(sl_qty_parse("6912", &caps[1].value, &why) == 0);
	caps[0].domain = "gpu.nvidia.com", caps[0].name = "memory";
	caps[1].domain = NULL, caps[1].name = "cores";
	struct sl_cel_device d = {"gpu.nvidia.com", attrs, sizeof attrs / sizeof attrs[0], caps, 2};
	return d;
}

#define T SL_CEL_TRUE
#define F SL_CEL_FALSE
#define U SL_CEL_UNKNOWN
#define E SL_CEL_ERROR
#define A "device.attributes[\"gpu.nvidia.com\"]"
#define C "device.capacity[\"gpu.nvidia.com\"]"

static const struct {
	const char *expr;
	int want;
	const char *why;
} cases[] = {
    /* The selectors DeviceClasses and claims are written with. */
    {"device.driver == \"gpu.nvidia.com\"", T, NULL},
    {"device.driver == \"gpu.amd.com\"", F, NULL},
    {A ".productName.startsWith(\"NVIDIA A100\")", T, NULL},
    {A ".productName.startsWith(\"NVIDIA H100\")", F, NULL},
    {C ".memory.compareTo(quantity(\"40Gi\")) >= 0", T, NULL},
    {C ".memory.compareTo(quantity(\"80Gi\")) >= 0", F, NULL},
    {"device.attributes[\"dra.example.com\"].model in [\"a\", \"b\"]", T, NULL},
    {"device.attributes[\"dra.example.com\"].model in [\"a\", \"c\"]", F, NULL},
    {"device.attributes[\"dra.example.com\"][\"model\"] == 'b'", T, NULL},
    {C "[\"memory\"].isGreaterThan(quantity(\"39Gi\")) && " C ".memory.isLessThan(quantity(\"41Gi\"))", T, NULL},
    {C ".memory.isGreaterThan(quantity(\"40Gi\"))", F, NULL},
    {C ".memory.isLessThan(quantity(\"40Gi\"))", F, NULL},
    {C ".memory == quantity(\"42949672960\")", T, NULL},
    {C ".memory != quantity(\"40G\")", T, NULL},
    {C ".cores.asInteger() == 6912 && " C ".cores.isInteger()", T, NULL},
    {"quantity(\"1500m\").isInteger()", F, NULL},
    {"sign(quantity(\"-1\")) == -1 && sign(quantity(\"0\")) == 0", T, NULL},
    {"isQuantity(\"1Gi\") && !isQuantity(\"1GB\")", T, NULL},
    /* Versions. */
    {A ".driverVersion.isGreaterThan(semver(\"535.0.0\"))", T, NULL},
    {A ".driverVersion.isLessThan(semver(\"535.0.0\"))", F, NULL},
    {A ".driverVersion.compareTo(semver(\"550.54.15\")) == 0", T, NULL},
    {A ".driverVersion == semver(\"550.54.15\")", T, NULL},
    {A ".driverVersion.major() == 550 && " A ".driverVersion.minor() == 54 && " A ".driverVersion.patch() == 15", T,
     NULL},
    {A ".cudaVersion.isLessThan(semver(\"12.4.0\"))", T, NULL},
    {A ".cudaVersion.isGreaterThan(semver(\"12.4.0-rc.0\"))", T, NULL},
    {"semver(\"1.0.0-alpha\").isLessThan(semver(\"1.0.0-alpha.1\"))", T, NULL},
    {"semver(\"1.0.0-2\").isLessThan(semver(\"1.0.0-10\"))", T, NULL},
    {"semver(\"1.0.0-beta\").isLessThan(semver(\"1.0.0-2\"))", F, NULL},
    {"isSemver(\"1.2.3\") && !isSemver(\"1.2\") && !isSemver(\"01.2.3\")", T, NULL},
    {"semver(\"v1.2.3\") == semver(\"1.2.3\")", E, "invalid major"},
    {A ".driverVersion.isGreaterThan(semver(\"v0.0.1\", true)) && isSemver(\"v1.0.0\", true)", T, NULL},
    {"semver('v1.2', true) == semver('1.2.0') && semver('01.01.01', true) == semver('1.1.1')", T, NULL},
    {"semver('v1.02.003-rc.1+b', true).isLessThan(semver('1.2.3')) && !isSemver('v1.0', false)", T, NULL},
    {"semver('0a.0.0', true) == semver('1.0.0')", E, "invalid major"},
    {"semver('1.0-rc', true) == semver('1.0.0')", E, "short version"},
    /* Strings. */
    {A ".architecture.endsWith(\"pere\")", T, NULL},
    {A ".architecture.endsWith(\"Amp\")", F, NULL},
    {A ".uuid.contains(\"db2d\")", T, NULL},
    {A ".uuid.contains(\"dbx\")", F, NULL},
    {A ".uuid.matches(\"^GPU-[0-9a-f]{8}-\")", T, NULL},
    {A ".uuid.matches(\"^MIG-\")", F, NULL},
    {"matches(" A ".architecture, 'mp')", T, NULL},
    {A ".architecture.size() == 6 && size('héllo') == 5 && size([1, 2]) == 2", T, NULL},
    {"'abc' < 'abd' && 'b' > 'abc' && 'a' <= 'a' && 'b' >= 'a'", T, NULL},
    {"r'\\d' == '\\\\d' && '\\x41\\u00e9\\101' == 'Aé' + ''", U, "arithmetic"},
    {"r'\\d' == '\\\\d' && '\\x41\\u00e9\\101' == \"Aé\\x41\"", T, NULL},
    {"'''multi\nline''' == \"multi\\nline\"", T, NULL},
    /* Numbers, bools, null, relations. */
    {A ".index > 2 && " A ".index < 4 && " A ".index >= 3 && " A ".index <= 3", T, NULL},
    {A ".index == 3 && " A ".index != 4", T, NULL},
    {A ".index > 3", F, NULL},
    {"1 == 1u && 1u < 2 && -1 < 1u && 2.0 == 2 && 0x10 == 16", T, NULL},
    {"-9223372036854775808 < 0 && 18446744073709551615u > 0u", T, NULL},
    {"!" A ".mig && false < true", T, NULL},
    {"null == null && " A ".mig != null", T, NULL},
    {A ".index == \"3\"", F, NULL},
    {"1 in [1, 2] && !(3 in [1, 2])", T, NULL},
    {"true ? " A ".index == 3 : false", T, NULL},
    {"false ? true : " A ".mig", F, NULL},
    /* Domains and names. */
    {"\"gpu.nvidia.com\" in device.attributes && !(\"amd.com\" in device.attributes)", T, NULL},
    {"\"index\" in " A " && !(\"nope\" in " A ")", T, NULL},
    {"has(" A ".index) && !has(" A ".nope)", T, NULL},
    {"has(device.attributes[\"amd.com\"].index)", F, NULL},
    {"device.capacity[\"gpu.nvidia.com\"].cores.asInteger() == 6912", T, NULL},
    {"size(device.attributes[\"amd.com\"]) == 0", U, "size"},
    /* && and || absorb an error or unknown on the other side when they decide. */
    {"device.attributes[\"amd.com\"].model == 'x' && false", F, NULL},
    {"false && device.attributes[\"amd.com\"].model == 'x'", F, NULL},
    {"device.attributes[\"amd.com\"].model == 'x' || true", T, NULL},
    {"device.attributes[\"amd.com\"].model == 'x' || false", E, "no such key: model"},
    {"[1].all(x, x > 0) && false", F, NULL},
    {"[1].all(x, x > 0) || true", T, NULL},
    {"[1].all(x, x > 0) && true", U, "the function all"},
    {"[1].all(x, x > 0) && device.nope", U, "the function all"},
    {"device.nope || device.nope2", E, "undefined field 'nope'"},
    /* Outside the subset: UNKNOWN, named. */
    {"{'a': 1}['a'] == 1", U, "a map literal"},
    {A ".index + 1 == 4", U, "arithmetic"},
    {A ".index * 2 == 6", U, "arithmetic"},
    {"cel.bind(d, " A ", d.index == 3)", U, "the function bind"},
    {A ".uuid.split('-').size() == 3", U, "the function split"},
    {"device.allowMultipleAllocations", U, "allowMultipleAllocations"},
    {A ".?index.orValue(0) == 3", U, "the function orValue"},
    {"'x'.matches('(?=x)')", U, "group"},
    {"'aa'.matches('(a)\\\\1')", U, "escape"},
    {"'x'.matches('[')", U, "PCRE2"},
    {"1.5 < 2.5 && 2 < 1.5", F, NULL},
    /* CEL's runtime errors. */
    {A ".nope == 1", E, "no such key: nope"},
    {"device.attributes[\"no-such-domain\"].noSuchAttr.isGreaterThan(quantity(\"0\"))", E, "no such key: noSuchAttr"},
    {"quantity(\"12 GB\").isInteger()", E, "quantities must match"},
    {A ".index", E, "type int could not be converted to bool"},
    {A ".index < 'x'", E, "no such overload"},
    {C ".memory > quantity('1Gi')", E, "no such overload"},
    {A ".productName.startsWith(1)", E, "no such overload"},
    {"quantity('1.5').asInteger() == 1", E, "cannot convert value to integer"},
    {"foo == 1", E, "undeclared reference to 'foo'"},
    {"!" A ".index", E, "no such overload"},
    {"-(-9223372036854775807 - 1) > 0", U, "arithmetic"},
    {"" A ".index ? true : false", E, "no such overload"},
};

/* Text that is no CEL: the offset and the message. */
static const struct {
	const char *expr;
	size_t offset;
	const char *msg;
} syntax[] = {
    {"device.driver ==", 16, "unexpected end"},
    {"1 +* 2", 3, "unexpected token"},
    {"'abc", 0, "unterminated"},
    {"'a\\qb'", 2, "invalid escape"},
    {"'a\nb'", 2, "newline"},
    {"9223372036854775808 > 0", 0, "invalid int literal"},
    {"18446744073709551616u > 0u", 0, "invalid uint literal"},
    {"has(device)", 0, "invalid argument to has() macro"},
    {"[1].all(1, true)", 3, "argument must be a simple name"},
    {"f(1,)", 4, "after ','"},
    {"a b", 2, "after the expression"},
    {"if == 1", 0, "reserved identifier: if"},
    {"device.driver = 'x'", 14, "unexpected character"},
    {"(1", 2, "expected ')'"},
    {"a.", 2, "field name"},
    {"", 0, "unexpected end"},
    {"true ? 1", 8, "expected ':'"},
};

static void test_cel_syntax(void)
{
	for (size_t i = 0; i < sizeof syntax / sizeof syntax[0]; i++) {
		struct sl_cel_error err = {0, ""};
		struct sl_cel *e = sl_cel_parse(syntax[i].expr, strlen(syntax[i].expr), &err);
		bool ok = !e && err.offset == syntax[i].offset && strstr(err.msg, syntax[i].msg);
		if (!ok)
			fprintf(stderr, "cel syntax: %s: got %s at %zu (%s)\n", syntax[i].expr,
				e ? "a parse" : "an error", err.offset, err.msg);
		CHECK(ok);
		sl_cel_free(e);
	}
	/* A quoted field name, comments, a trailing comma, a message construction, a leading dot. */
	struct sl_cel_device none = {"d", NULL, 0, NULL, 0};
	CHECK(gives(&none, "device.attributes['d'].`a-b` == 1 // the name", E, "no such key: a-b"));
	CHECK(gives(&none, "[1, 2,].size() == 2 && .device.driver == 'd'", T, NULL));
	CHECK(gives(&none, "google.protobuf.Int64Value{value: 1} == 1", U, "message construction"));
	CHECK(gives(&none, "b'\\xff' == b'\\377' && rb'\\x' != b''", T, NULL));
}

/* Nesting, size and regular expressions an attacker chooses: each returns, bounded. */
static void test_cel_hostile(void)
{
	struct sl_cel_device none = {"d", NULL, 0, NULL, 0};
	char why[256];
	/* Below the limit on size (100 000 code points), far past the one on nesting. */
	size_t n = 40000;
	char *s = malloc(3 * n + 16);
	memset(s, '(', n);
	s[n] = '1';
	memset(s + n + 1, ')', n);
	CHECK(verdict(s, 2 * n + 1, &none, why, sizeof why) == -1 && strstr(why, "recursion limit exceeded: 250"));
	memset(s, '!', n);
	strcpy(s + n, "true");
	CHECK(verdict(s, n + 4, &none, why, sizeof why) == -1 && strstr(why, "nested too deeply"));
	memset(s, '[', n);
	CHECK(verdict(s, n, &none, why, sizeof why) == -1 && strstr(why, "recursion limit exceeded"));
	/* 1 MB: past cel-go's limit of code points. */
	size_t big = 1 << 20;
	char *m = malloc(big + 1);
	for (size_t i = 0; i < big; i += 8)
		memcpy(m + i, "true && ", 8);
	CHECK(verdict(m, big - 4, &none, why, sizeof why) == -1 && strstr(why, "code point size exceeds limit"));
	/* Just below it: a long && chain is balanced, and evaluates. */
	CHECK(verdict(m, 99996, &none, why, sizeof why) == SL_CEL_TRUE);
	free(m);
	/* A chain of + as long as the tree may be deep: refused, not recursed through. */
	for (size_t i = 0; i < 2000; i += 2)
		memcpy(s + i, "1+", 2);
	s[2000] = '1';
	CHECK(verdict(s, 2001, &none, why, sizeof why) == -1 && strstr(why, "nested too deeply"));
	/* Catastrophic backtracking: PCRE2's limits end it (RE2 would say false). */
	char *a = malloc(30002);
	memset(a, 'a', 30000);
	strcpy(a + 30000, "b");
	struct sl_cel_attr long_attr = {"d", "s", SL_CEL_STRING, 0, false, a};
	struct sl_cel_device d = {"d", &long_attr, 1, NULL, 0};
	const char *re1 = "device.attributes['d'].s.matches('(a+)+$')",
		   *re2 = "device.attributes['d'].s.matches('(a|aa)*c')";
	int v = verdict(re1, strlen(re1), &d, why, sizeof why);
	CHECK(v == SL_CEL_UNKNOWN || v == SL_CEL_FALSE);
	CHECK(verdict(re2, strlen(re2), &d, why, sizeof why) != SL_CEL_TRUE);
	free(a);
	/* Garbage bytes: never a crash. */
	for (int i = 0; i < 256; i++)
		s[i] = (char)(i * 37 + 11);
	(void)verdict(s, 256, &none, why, sizeof why);
	free(s);
	/* A version attribute that does not parse fails every expression on the device. */
	struct sl_cel_attr bad = {"d", "v", SL_CEL_VERSION, 0, false, "1.2"};
	struct sl_cel_device bd = {"d", &bad, 1, NULL, 0};
	CHECK(gives(&bd, "true", E, "attribute d/v: parse semantic version"));
}

static int qcmp(const char *a, const char *b)
{
	struct sl_qty x, y;
	const char *why;
	CHECK(sl_qty_parse(a, &x, &why) == 0 && sl_qty_parse(b, &y, &why) == 0);
	int c = sl_qty_compare(&x, &y);
	CHECK(sl_qty_compare(&y, &x) == -c);
	return c;
}

static void test_qty_compare(void)
{
	CHECK(qcmp("1Gi", "1073741824") == 0);
	CHECK(qcmp("1Gi", "1073741825") < 0);
	CHECK(qcmp("1G", "1Gi") < 0);
	CHECK(qcmp("1000m", "1") == 0);
	CHECK(qcmp("0.5", "500m") == 0);
	CHECK(qcmp("1e3", "1k") == 0);
	CHECK(qcmp("200M", "0.2G") == 0);
	CHECK(qcmp("50M", "50Mi") < 0);
	CHECK(qcmp("-1", "1") < 0);
	CHECK(qcmp("-2", "-1") < 0);
	CHECK(qcmp("-1Ki", "-1000") < 0);
	CHECK(qcmp("0", "-0") == 0);
	CHECK(qcmp("0", "1n") < 0);
	CHECK(qcmp("-1n", "0") < 0);
	CHECK(qcmp("1e400", "8Ei") > 0);
	CHECK(qcmp("1e400", "1e401") < 0);
	CHECK(qcmp("1e-400", "0") > 0);
	CHECK(qcmp("1e-400", "1e-399") < 0);
	CHECK(qcmp("1Ei", "1152921504606846976") == 0);
	/* Past 18 digits the rest is known only as "more": equal within the last kept digit's unit. */
	CHECK(qcmp("1Ei", "1152921504606846977") == 0);
	CHECK(qcmp("1Ei", "1152921504606846990") < 0);
	CHECK(qcmp("999999999999999999Ei", "999999999999999999E") > 0);
	CHECK(qcmp("1125899906842624001", "1000Pi") > 0);    /* 19 digits: the dropped one counts */
	CHECK(qcmp("11258999068426240000", "10000Pi") == 0); /* a dropped 0 is no more */
	CHECK(qcmp("1.0000000000000000001", "1") > 0);
	CHECK(qcmp("0.1", "100m") == 0);
	CHECK(qcmp("7.5Gi", "8053063680") == 0);
}

void test_cel(void)
{
	struct sl_cel_cap caps[2];
	struct sl_cel_device d = gpu(caps);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		CHECK(gives(&d, cases[i].expr, cases[i].want, cases[i].why));
	test_cel_syntax();
	test_cel_hostile();
	test_qty_compare();
}
