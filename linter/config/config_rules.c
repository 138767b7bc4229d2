/* config_rules.c — the rules of the run and what silences them: looking a rule up by id,
 * --disable, and the config's `rules:` (a level for each rule id) and `ignore:` (entries that
 * silence rules by path, kind, namespace and name) sections. Apart from config.c because both
 * sections name rules, built-in or policies, and report an unknown one with the ids known. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/similar.h"
#include "config_internal.h"

int sl_config_rule_index(const struct sl_config *c, const struct sl_rule *r)
{
	for (size_t i = 0; i < c->nrules; i++)
		if (c->rules[i] == r)
			return (int)i;
	return -1;
}

const struct sl_rule *sl_config_rule(const struct sl_config *c, const char *id)
{
	for (size_t i = 0; i < c->nrules; i++)
		if (!strcmp(c->rules[i]->id, id))
			return c->rules[i];
	return NULL;
}

int sl_config_disable(struct sl_config *c, const char *id)
{
	const struct sl_rule *r = sl_config_rule(c, id);
	if (!r)
		return -1;
	int i = sl_config_rule_index(c, r);
	c->levels[i] = SL_LEVEL_NONE;
	c->forced[i] = true;
	return 0;
}

const char *sl_config_rule_closest(const struct sl_config *c, const char *id)
{
	const char **ids = sl_xcalloc(c->nrules + 1, sizeof *ids);
	for (size_t i = 0; i < c->nrules; i++)
		ids[i] = c->rules[i]->id;
	const char *near = sl_closest(id, ids, c->nrules);
	free(ids);
	return near;
}

static void list_rule_ids(const struct sl_config *c, struct sl_buf *b)
{
	for (size_t i = 0; i < c->nrules; i++)
		sl_buf_printf(b, "%s%s", i ? ", " : "", c->rules[i]->id);
}

/* "unknown rule 'ID'", the one meant if one is near, and the ids there are (all first when
 * allowed). */
static void unknown_rule(struct sl_cfg_reader *r, const struct sl_ynode *k, bool all)
{
	struct sl_buf b = SL_BUF_INIT;
	const char *id = sl_yscalar(k) ? k->str : "?", *near = sl_config_rule_closest(r->c, id);
	if (near)
		sl_buf_printf(&b, "did you mean '%s'? ", near);
	sl_buf_puts(&b, all ? "known: all, " : "known: ");
	list_rule_ids(r->c, &b);
	sl_cfg_fail(r, k, "unknown rule '%s' (%s)", id, sl_buf_str(&b));
	sl_buf_free(&b);
}

void sl_cfg_read_levels(struct sl_cfg_reader *r, const struct sl_ynode *v)
{
	if (sl_ynull(v))
		return;
	if (v->kind != SL_YMAP) {
		sl_cfg_fail(r, v, "rules must be a mapping of rule id to level, not %s", sl_ykind_name(v));
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct sl_ynode *k = v->v[2 * i], *lv = v->v[2 * i + 1];
		const struct sl_rule *rule = sl_yscalar(k) ? sl_config_rule(r->c, k->str) : NULL;
		if (!rule) {
			unknown_rule(r, k, false);
			continue;
		}
		enum sl_level l;
		if (sl_cfg_level_of(r, lv, &l) == 0) {
			int k = sl_config_rule_index(r->c, rule);
			r->c->levels[k] = l;
			r->c->forced[k] = true;
		}
	}
}

static void read_ignore(struct sl_cfg_reader *r, const struct sl_ynode *m, struct sl_ignore *ig)
{
	static const char *const keys[] = {"rules", "path", "kind", "namespace", "name", "reason", NULL};
	ig->node = m;
	sl_cfg_known_keys(r, m, "an ignore entry", keys);
	const struct sl_ynode *rv = sl_ymap_get(m, "rules");
	const struct sl_ynode **ids;
	long n = sl_cfg_scalars(r, rv, "rules", &ids);
	if (n > 0)
		ig->rules = sl_xcalloc((size_t)n, sizeof *ig->rules);
	for (long i = 0; i < n; i++) {
		if (!strcmp(ids[i]->str, "all")) {
			ig->all = true;
			continue;
		}
		const struct sl_rule *rule = sl_config_rule(r->c, ids[i]->str);
		if (!rule)
			unknown_rule(r, ids[i], true);
		else
			ig->rules[ig->nrules++] = rule;
	}
	free(ids);
	if (!rv)
		ig->all = true;
	ig->path = sl_cfg_compile_new(r, sl_ymap_get(m, "path"));
	ig->kind = sl_cfg_compile_new(r, sl_ymap_get(m, "kind"));
	ig->namespace = sl_cfg_compile_new(r, sl_ymap_get(m, "namespace"));
	ig->name = sl_cfg_compile_new(r, sl_ymap_get(m, "name"));
	ig->reason = sl_cfg_string(r, m, "reason", "an ignore entry", false);
	if (!rv && !sl_ymap_get(m, "path") && !sl_ymap_get(m, "kind") && !sl_ymap_get(m, "namespace") &&
	    !sl_ymap_get(m, "name"))
		sl_cfg_fail(r, m,
			    "an ignore entry needs at least one of rules, path, kind, namespace and name (it would "
			    "silence everything)");
}

void sl_cfg_read_ignores(struct sl_cfg_reader *r, const struct sl_ynode *v)
{
	if (!sl_cfg_map_list(r, v, "ignore", "an ignore entry"))
		return;
	struct sl_config *c = r->c;
	c->ignores = sl_xcalloc(v->n + 1, sizeof *c->ignores);
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i]->kind == SL_YMAP)
			read_ignore(r, v->v[i], &c->ignores[c->nignores++]);
}
