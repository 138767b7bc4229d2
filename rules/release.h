/* release.h — the release view's shared state (rules/release_capacity.c, release_domains.c):
 * the workloads of one target that take part, the node groups, and each workload's signature. */
#ifndef SL_RULES_RELEASE_H
#define SL_RULES_RELEASE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../linter/buf.h"
#include "rules.h"

struct release {
	const struct sl_rule *self;
	struct sl_model_check *cx;
	const struct sl_model *m;
	const struct sl_workload **w; /* the workloads that take part */
	int64_t *pods;                /* pods of each still to place */
	size_t *sig;                  /* per workload: its signature, the groups it may use */
	size_t nw;
	size_t *group; /* per node */
	size_t ngroups;
	size_t *nodes_in; /* per group */
	bool *adm;        /* nsigs × ngroups: may a workload of signature s use group g */
	size_t nsigs;
};

/* How many workloads or nodes a message names before "and N more". */
#define SL_RELEASE_NAMED 6

/* The index of key in pool, interning a copy when it is new. */
size_t sl_release_key_index(struct sl_strpool *pool, const char *key);
/* "Deployments" when every workload in `in` is one, "workloads" otherwise. */
void sl_release_kinds(const struct release *r, const bool *in, char *out, size_t n);
/* "ns/a, ns/b and ns/c", or the first SL_RELEASE_NAMED and how many more. */
void sl_release_names(const struct release *r, const bool *in, size_t nin, struct sl_buf *b);
/* Pods that must each have a topology domain of their own, across workloads (release_domains.c). */
void sl_release_domains(struct release *r);
/* Workloads that bind the same host port on every address: a node each (release_domains.c). */
void sl_release_ports(struct release *r);

#endif
