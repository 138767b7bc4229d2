/* config_internal.h — internal to linter/config/: what the files that read .schedlint.yaml share,
 * and nothing outside the folder includes (the config's API is config.h). The reader (the config
 * being read, where its errors go, whether there was one) with its primitives, in
 * config_reader.c; and one reader per section of the schema, which sl_config_load (config.c)
 * calls in order. Strings a section keeps are borrowed from the config's tree. */
#ifndef SL_CONFIG_INTERNAL_H
#define SL_CONFIG_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* One reading of a config: every mistake is reported into errs and sets bad, and reading goes on,
 * so that one run shows them all (sl_config_load then fails; the config is still safe to free). */
struct sl_cfg_reader {
	struct sl_config *c;
	struct sl_findings *errs;
	int bad;
};

/* The primitives (config_reader.c). Each reports a mistake at the node, saying what was wanted. */
void sl_cfg_fail(struct sl_cfg_reader *r, const struct sl_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Keys of map must be among known (NULL-terminated); each unknown one is an error. */
void sl_cfg_known_keys(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *what, const char *const *known);
/* A scalar, or a list of scalars: their nodes in *out (the caller frees the array) and how many,
 * or -1 after an error. */
long sl_cfg_scalars(struct sl_cfg_reader *r, const struct sl_ynode *v, const char *what, const struct sl_ynode ***out);
/* The pattern written at n, compiled into p: 0, or -1 after an error. */
int sl_cfg_compile(struct sl_cfg_reader *r, const struct sl_ynode *n, struct sl_pattern *p);
/* The same into a pattern of its own (the caller owns it); NULL for no n or after an error. */
struct sl_pattern *sl_cfg_compile_new(struct sl_cfg_reader *r, const struct sl_ynode *n);
/* The string at map's key (what names the mapping in messages); NULL when absent (an error when
 * required) or not a string. */
const char *sl_cfg_string(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *key, const char *what,
			  bool required);
/* A level of the config (off, note, warning, error): 0, or -1 after an error. */
int sl_cfg_level_of(struct sl_cfg_reader *r, const struct sl_ynode *v, enum sl_level *out);
/* Whether v is a list of mappings to read; items that are not mappings are errors, to skip. */
bool sl_cfg_map_list(struct sl_cfg_reader *r, const struct sl_ynode *v, const char *what, const char *item);

/* The sections, in the order sl_config_load reads them: `policies:` first (config_policies.c),
 * since `rules:` and `ignore:` (config_rules.c) may name them; `exclude:` in config.c; then the
 * inventory and the targets (config_targets.c). */
void sl_cfg_read_policies(struct sl_cfg_reader *r, const struct sl_ynode *v);
void sl_cfg_read_levels(struct sl_cfg_reader *r, const struct sl_ynode *v);
void sl_cfg_read_ignores(struct sl_cfg_reader *r, const struct sl_ynode *v);
/* Paths of inventory files (`nodes:`, `pods:`), resolved against the config's directory and
 * appended to *out (owned by the config). */
void sl_cfg_read_paths(struct sl_cfg_reader *r, const struct sl_ynode *v, const char *what, char ***out, size_t *n);
/* `kubernetesVersion:` of map (the config or a target) into *minor and *text, when given. */
void sl_cfg_read_kube_version(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *what, int *minor,
			      const char **text);
/* `featureGates:` of map (the config or a target): gate name → true or false, into *g. A gate
 * schedlint does not model is a warning naming the nearest it does. */
void sl_cfg_read_gates(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *what, struct sl_gates *g);
/* `nodePools:` (node groups: nodepool.h) appended to *out (owned by the config). */
void sl_cfg_read_pools(struct sl_cfg_reader *r, const struct sl_ynode *v, struct sl_pool ***out, size_t *n);
void sl_cfg_read_targets(struct sl_cfg_reader *r, const struct sl_ynode *v);

#endif
