/* config.h — .schedlint.yaml: rule levels, excludes, ignores, the team's policies, default
 * inventories and targets (which files form one cluster). Read with the same YAML loader as the
 * manifests, so every mistake is reported at its line and column. Owns: its source and tree,
 * every compiled pattern, the policies' rule records and the resolved inventory paths. Strings
 * borrowed from the tree (ids, reasons, names) live as long as the config.
 *
 * The configuration (linter/config/): .schedlint.yaml (config.c, which reads it section by
 * section: config_rules.c, config_targets.c, config_policies.c, with config_reader.c's primitives
 * and config_internal.h between them), its PCRE2 patterns under limits (pattern.c), the team's
 * policies run over the objects (policy.c) and the suppressions (suppress.c). It knows the rules
 * it configures, so it may include: base/, load/, model/, the engine, rules/ and the findings;
 * never the report's emitters, the fix stage or the language server. */
#ifndef SL_CONFIG_H
#define SL_CONFIG_H
#include <stdbool.h>
#include <stddef.h>

#include "../../rules/rules.h"
#include "../load/yamldoc.h"
#include "../model/gates.h"
#include "pattern.h"

struct sl_source;

/* One step of a policy's field path: a key, every item of a list ([*]) or one item ([N]). */
enum sl_step_kind { SL_STEP_KEY, SL_STEP_ALL, SL_STEP_INDEX };
struct sl_step {
	enum sl_step_kind kind;
	const char *key; /* SL_STEP_KEY; owned */
	size_t index;    /* SL_STEP_INDEX */
};

struct sl_policy {
	struct sl_rule rule; /* id, message as summary, level; no check function: policy.c runs it */
	const char **kinds;  /* NULL: every kind that keeps a pod spec */
	size_t nkinds;
	bool podspec; /* the path starts at the pod spec wherever the kind keeps it */
	struct sl_step *steps;
	size_t nsteps;
	const char *field;                 /* as written */
	struct sl_pattern *forbid, *match; /* exactly one */
	const struct sl_ynode *node;
	char *name_buf, *desc_buf, *help_buf; /* what rule's strings point into */
};

struct sl_ignore {
	const struct sl_rule **rules; /* NULL with all */
	size_t nrules;
	bool all;
	struct sl_pattern *path, *kind, *namespace, *name; /* NULL: any */
	const char *reason;                                /* may be NULL */
	const struct sl_ynode *node;
};

struct sl_target {
	const char *name;
	struct sl_pattern paths;
	char **nodes, **pods; /* resolved against the config's directory */
	size_t nnodes, npods;
	int kube_minor; /* kubernetesVersion (kversion.h); 0: the config's */
	const char *kube_text;
	struct sl_gates gates;  /* featureGates (gates.h), over the config's */
	struct sl_pool **pools; /* nodePools: node groups of the target's cluster (owned) */
	size_t npools;
	const struct sl_ynode *node;
};

struct sl_config {
	char *path;            /* as found or given; NULL for no config */
	char *dir;             /* the config file's directory, absolute; NULL for no config */
	struct sl_source *src; /* its bytes (findings point into them) */
	struct sl_ystream ys;
	/* The rules of the run: the built-in ones in registry order, then the policies. levels[i]
	 * is rules[i]'s level (SL_LEVEL_NONE: off); forced[i] says the config or the command line
	 * set it, so that every finding of the rule gets it (a rule otherwise picks warning or
	 * error by what it proved). */
	const struct sl_rule **rules;
	enum sl_level *levels;
	bool *forced;
	size_t nrules;
	struct sl_pattern *exclude;
	size_t nexclude, capexclude;
	struct sl_ignore *ignores;
	size_t nignores;
	struct sl_policy *policies;
	size_t npolicies;
	char **nodes, **pods; /* top-level defaults, resolved */
	size_t nnodes, npods;
	struct sl_pool **pools; /* top-level nodePools: the default target's node groups (owned) */
	size_t npools;
	int kube_minor; /* kubernetesVersion (kversion.h); 0: not given */
	const char *kube_text;
	struct sl_gates gates; /* featureGates (gates.h): the cluster's gates that differ from the defaults */
	struct sl_target *targets;
	size_t ntargets;
	/* render.kustomize: the command that renders a kustomization (borrowed from the tree; NULL:
	 * kustomize or kubectl, whichever is on PATH), or none at all (kustomize_off). */
	const char *kustomize;
	bool kustomize_off;
	struct sl_matcher mx; /* every match runs on the main thread, through this */
	char *cwd;            /* the working directory, for making paths relative to dir */
};

/* The rule set and levels of the built-in rules, with no config file. */
void sl_config_defaults(struct sl_config *c);
/* Walk up from the working directory to the directory holding .git (or /) for .schedlint.yaml
 * or .schedlint.yml. Returns a path to free, or NULL. */
char *sl_config_find(void);
/* The same from directory start (the language server's workspace root): an absolute path. */
char *sl_config_find_from(const char *start);
/* Read and check path. Errors go to errs; returns -1 if there was any (the config is then
 * still safe to free). Call on a config set up by sl_config_defaults. */
int sl_config_load(struct sl_config *c, const char *path, struct sl_findings *errs);
void sl_config_free(struct sl_config *c);

/* The index of rule r in c->rules, or -1. */
int sl_config_rule_index(const struct sl_config *c, const struct sl_rule *r);
const struct sl_rule *sl_config_rule(const struct sl_config *c, const char *id);
/* The rule id an unknown id most likely meant (similar.h), for a "did you mean"; NULL: none near. */
const char *sl_config_rule_closest(const struct sl_config *c, const char *id);
/* --disable / --exclude from the command line. --disable of an unknown rule returns -1. */
int sl_config_disable(struct sl_config *c, const char *id);
int sl_config_add_exclude(struct sl_config *c, const char *pattern, struct sl_findings *errs);

/* A path as the patterns see it: relative to the config's directory when under it, '/'-separated,
 * without "./"; as given (normalised) otherwise. Caller frees. */
char *sl_config_relpath(const struct sl_config *c, const char *path);
/* Whether an exclude pattern matches rel (a relpath). -1 after reporting a match error. */
int sl_config_excluded(struct sl_config *c, const char *rel, struct sl_findings *errs);
/* The target rel belongs to: the first whose paths match; -1 for the default target. */
int sl_config_target_of(struct sl_config *c, const char *rel, struct sl_findings *errs);

#endif
