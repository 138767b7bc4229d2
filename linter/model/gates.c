/* gates.c — the feature gates schedlint knows (gates.h). The releases are those of each gate's
 * versioned spec in pkg/features/kube_features.go; docs/kubernetes-versions.md lists them. */
#include "gates.h"

#include <stdio.h>
#include <string.h>

#include "../base/similar.h"

/* Sorted by name, as kube_features.go keeps them. */
const struct sl_gate_info sl_gate_infos[SL_NGATES] = {
    [SL_GATE_DYNAMIC_RESOURCE_ALLOCATION] = {"DynamicResourceAllocation", 26, 34, "GA"},
    [SL_GATE_GANG_SCHEDULING] = {"GangScheduling", 35, 0, "alpha"},
    [SL_GATE_GENERIC_WORKLOAD] = {"GenericWorkload", 35, 0, "alpha"},
    [SL_GATE_POD_LEVEL_RESOURCES] = {"PodLevelResources", 32, 34, "beta"},
};

void sl_gates_init(struct sl_gates *g)
{
	for (int i = 0; i < SL_NGATES; i++) {
		g->v[i] = 0;
		g->from[i] = NULL;
	}
}

int sl_gate_find(const char *name, size_t len)
{
	for (int i = 0; i < SL_NGATES; i++)
		if (strlen(sl_gate_infos[i].name) == len && !memcmp(sl_gate_infos[i].name, name, len))
			return i;
	return -1;
}

const char *sl_gate_closest(const char *name, size_t len)
{
	char buf[SL_EDIT_DISTANCE_MAX + 1];
	if (len > SL_EDIT_DISTANCE_MAX)
		return NULL;
	memcpy(buf, name, len);
	buf[len] = 0;
	const char *best = NULL;
	unsigned bd = 4; /* a few edits: a typo, a case slip, a letter left out */
	for (int i = 0; i < SL_NGATES; i++) {
		unsigned d = sl_edit_distance_within(buf, sl_gate_infos[i].name, SL_EDIT_DISTANCE_MAX, bd - 1);
		if (d < bd) {
			bd = d;
			best = sl_gate_infos[i].name;
		}
	}
	return best;
}

int sl_gate_bool(const char *s, size_t len)
{
	static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
	static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
		if (strlen(yes[i]) == len && !memcmp(yes[i], s, len))
			return 1;
		if (strlen(no[i]) == len && !memcmp(no[i], s, len))
			return 0;
	}
	return -1;
}

static void trim(const char **s, size_t *len)
{
	while (*len && strchr(" \t", **s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && strchr(" \t", (*s)[*len - 1]))
		(*len)--;
}

int sl_gates_parse(const char *s, const char *from, struct sl_gates *g, char *err, size_t n,
		   void (*unknown)(void *ctx, const char *name, size_t len), void *ctx)
{
	struct sl_gates out = *g;
	/* Unknown names are reported once the whole value is known good. */
	const char *names[64];
	size_t lens[64], nunknown = 0;
	for (const char *p = s; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *pair = p;
		p += len + (comma != NULL);
		trim(&pair, &len);
		if (!len)
			continue; /* "A=true," and "" are accepted, as kube's flag takes them */
		const char *eq = memchr(pair, '=', len);
		if (!eq) {
			snprintf(err, n, "missing bool value for %.*s", (int)len, pair);
			return -1;
		}
		const char *name = pair, *val = eq + 1;
		size_t nlen = (size_t)(eq - pair), vlen = len - nlen - 1;
		trim(&name, &nlen);
		trim(&val, &vlen);
		int b = sl_gate_bool(val, vlen);
		if (b < 0) {
			snprintf(err, n, "invalid value of %.*s=%.*s: a feature gate is true or false", (int)nlen, name,
				 (int)vlen, val);
			return -1;
		}
		int i = sl_gate_find(name, nlen);
		if (i >= 0) {
			out.v[i] = b ? 1 : -1;
			out.from[i] = from;
		} else if (nunknown < sizeof names / sizeof *names) {
			names[nunknown] = name;
			lens[nunknown++] = nlen;
		}
	}
	*g = out;
	for (size_t i = 0; unknown && i < nunknown; i++)
		unknown(ctx, names[i], lens[i]);
	return 0;
}

void sl_gates_override(struct sl_gates *g, const struct sl_gates *over)
{
	for (int i = 0; over && i < SL_NGATES; i++)
		if (over->v[i]) {
			g->v[i] = over->v[i];
			g->from[i] = over->from[i];
		}
}

bool sl_gate_on(const struct sl_gates *g, enum sl_gate gate, int minor)
{
	const struct sl_gate_info *in = &sl_gate_infos[gate];
	if (minor < in->since)
		return false;
	if (g && g->v[gate])
		return g->v[gate] > 0;
	return in->on_since && minor >= in->on_since;
}

void sl_gate_why_off(const struct sl_gates *g, enum sl_gate gate, int minor, char *out, size_t n)
{
	const struct sl_gate_info *in = &sl_gate_infos[gate];
	if (sl_gate_on(g, gate, minor))
		snprintf(out, n, "%s", "");
	else if (minor < in->since)
		snprintf(out, n, "Kubernetes 1.%d has no %s feature gate (it comes with 1.%d)", minor, in->name,
			 in->since);
	else if (g && g->v[gate] < 0)
		snprintf(out, n, "%s=false (%s)", in->name, g->from[gate] ? g->from[gate] : "--feature-gates");
	else
		snprintf(out, n, "%s is off (%s in 1.%d, off by default; --feature-gates %s=true turns it on)",
			 in->name, in->stage, minor, in->name);
}
