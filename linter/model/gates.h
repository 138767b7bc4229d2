/* gates.h — the feature gates of kube-apiserver and kube-scheduler that decide what schedlint
 * models, as `--feature-gates` spells them (NAME=BOOL,...), and the `featureGates` of the config.
 * Only the gates some rule depends on are known; each has the release that added it and the first
 * release whose default turns it on (pkg/features/kube_features.go). A gate not set is the
 * release's default; a gate the release does not have yet is off, whatever is asked. Owns nothing. */
#ifndef SL_GATES_H
#define SL_GATES_H
#include <stdbool.h>
#include <stddef.h>

enum sl_gate {
	SL_GATE_DYNAMIC_RESOURCE_ALLOCATION, /* DynamicResourceAllocation: pods' resourceClaims (dra.h) */
	SL_GATE_GANG_SCHEDULING,             /* GangScheduling: the scheduler's gang plugin (needs GenericWorkload) */
	SL_GATE_GENERIC_WORKLOAD,            /* GenericWorkload: the Workload API and pods' spec.workloadRef */
	SL_GATE_POD_LEVEL_RESOURCES,         /* PodLevelResources: a pod spec's own resources (podlevel.c) */
	SL_NGATES
};

struct sl_gate_info {
	const char *name;
	int since;         /* the first minor release that has the gate */
	int on_since;      /* the first whose default turns it on; 0: none yet */
	const char *stage; /* as of the newest release schedlint knows: "alpha", "beta", "GA" */
};

/* What was asked: per gate, 0 not set (so that a zeroed set is empty), 1 true, -1 false; where
 * each came from (text for messages: "--feature-gates" or "featureGates in the config"). */
struct sl_gates {
	signed char v[SL_NGATES];
	const char *from[SL_NGATES];
};

extern const struct sl_gate_info sl_gate_infos[SL_NGATES];

/* Nothing set. */
void sl_gates_init(struct sl_gates *g);
/* The gate named name (len bytes), exactly as kube_features.go spells it; -1 when unknown. */
int sl_gate_find(const char *name, size_t len);
/* The known gate nearest to an unknown name (a few edits away), or NULL. */
const char *sl_gate_closest(const char *name, size_t len);
/* A boolean as kube's flag parsing takes it (strconv.ParseBool: 1 t T TRUE true True, and the
 * false ones): 0 or 1, or -1 for anything else. */
int sl_gate_bool(const char *s, size_t len);

/* Parse "NAME=BOOL,NAME=BOOL" into g (from: where, for messages), later values winning. Unknown
 * names are left out and handed to unknown (which may be NULL). Returns 0, or -1 with a message in
 * err (size n) for a malformed pair; g is then unchanged. */
int sl_gates_parse(const char *s, const char *from, struct sl_gates *g, char *err, size_t n,
		   void (*unknown)(void *ctx, const char *name, size_t len), void *ctx);
/* The gates of over set, in place of those of g. */
void sl_gates_override(struct sl_gates *g, const struct sl_gates *over);

/* Whether gate is on for release 1.minor: as set, else the release's default; off before it exists. */
bool sl_gate_on(const struct sl_gates *g, enum sl_gate gate, int minor);
/* Why gate is off on 1.minor, for a note: "GenericWorkload is off (alpha in 1.35, off by default)",
 * "Kubernetes 1.34 has no GenericWorkload (it comes with 1.35)", "GenericWorkload=false
 * (--feature-gates)". Empty when it is on. */
void sl_gate_why_off(const struct sl_gates *g, enum sl_gate gate, int minor, char *out, size_t n);

#endif
