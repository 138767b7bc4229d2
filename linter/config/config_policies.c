/* config_policies.c — reading the config's `policies:`: the team's own rules, each a field path
 * with a pattern it must match or must not, made into a rule record (id, name, message, level)
 * beside the built-in ones. Apart from config.c because a field path has a small syntax of its
 * own (keys, [*], [N], ["a.b"]); policy.c runs the policies over the objects. */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../load/source.h"

/* field: a.b[*].c, a[0], metadata.labels["app.kubernetes.io/name"]; a leading "podspec." starts
 * at the pod spec. */
static int parse_field(struct sl_cfg_reader *r, const struct sl_ynode *n, struct sl_policy *p)
{
	const char *s = n->str;
	if (!strncmp(s, "podspec.", 8) || !strcmp(s, "podspec")) {
		p->podspec = true;
		s += 7;
		if (*s == '.')
			s++;
	}
	size_t cap = 0;
	while (*s) {
		struct sl_step st = {SL_STEP_KEY, NULL, 0};
		if (*s == '[') {
			const char *e;
			if (s[1] == '*' && s[2] == ']') {
				st.kind = SL_STEP_ALL;
				e = s + 3;
			} else if (s[1] >= '0' && s[1] <= '9') {
				char *end;
				st.kind = SL_STEP_INDEX;
				st.index = strtoul(s + 1, &end, 10);
				if (*end != ']')
					goto bad;
				e = end + 1;
			} else if (s[1] == '"' || s[1] == '\'') {
				const char *q = strchr(s + 2, s[1]);
				if (!q || q[1] != ']')
					goto bad;
				st.key = strndup(s + 2, (size_t)(q - s - 2));
				e = q + 2;
			} else
				goto bad;
			s = e;
		} else {
			size_t k = strcspn(s, ".[");
			if (!k)
				goto bad;
			st.key = strndup(s, k);
			s += k;
		}
		sl_grow(&p->steps, &cap, p->nsteps + 1, sizeof *p->steps);
		p->steps[p->nsteps++] = st;
		if (*s == '.') {
			s++;
			if (!*s || *s == '.' || *s == '[')
				goto bad;
		} else if (*s && *s != '[')
			goto bad;
	}
	if (!p->nsteps && !p->podspec)
		goto bad;
	return 0;
bad:
	sl_cfg_fail(r, n,
		    "field '%s' is not a path: keys separated by '.', [*] for every item of a list, [N] for one, "
		    "[\"a.b\"] for a key with dots (near '%s')",
		    n->str, s);
	return -1;
}

static bool valid_id(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

static char *pascal(const char *id)
{
	struct sl_buf b = SL_BUF_INIT;
	bool up = true;
	for (const char *s = id; *s; s++) {
		if (*s == '-') {
			up = true;
			continue;
		}
		sl_buf_putc(&b, up && *s >= 'a' && *s <= 'z' ? (char)(*s - 'a' + 'A') : *s);
		up = false;
	}
	sl_buf_puts(&b, "Policy");
	return sl_buf_detach(&b);
}

static void read_policy(struct sl_cfg_reader *r, const struct sl_ynode *m, struct sl_policy *p)
{
	static const char *const keys[] = {"id", "message", "level", "kinds", "field", "forbid", "match", NULL};
	p->node = m;
	sl_cfg_known_keys(r, m, "a policy", keys);
	const char *id = sl_cfg_string(r, m, "id", "a policy", true);
	const char *msg = sl_cfg_string(r, m, "message", "a policy", true);
	const struct sl_ynode *idn = sl_ymap_get(m, "id");
	if (id && !valid_id(id))
		sl_cfg_fail(r, idn, "policy id '%s' must be lowercase letters, digits and '-', starting with a letter",
			    id);
	else if (id && sl_rule_find(id))
		sl_cfg_fail(r, idn, "policy id '%s' is the id of a built-in rule; choose another", id);
	p->rule.id = id ? id : "";
	p->rule.summary = msg ? msg : "";
	p->rule.level = SL_WARNING;
	const struct sl_ynode *lv = sl_ymap_get(m, "level");
	if (lv && sl_cfg_level_of(r, lv, &p->rule.level) < 0)
		p->rule.level = SL_WARNING;
	const struct sl_ynode **kinds;
	long nk = sl_cfg_scalars(r, sl_ymap_get(m, "kinds"), "kinds", &kinds);
	if (nk > 0) {
		p->kinds = sl_xcalloc((size_t)nk, sizeof *p->kinds);
		for (long i = 0; i < nk; i++)
			p->kinds[i] = kinds[i]->str;
		p->nkinds = (size_t)nk;
	}
	free(kinds);
	const char *field = sl_cfg_string(r, m, "field", "a policy", true);
	if (field) {
		p->field = field;
		parse_field(r, sl_ymap_get(m, "field"), p);
	}
	const struct sl_ynode *fb = sl_ymap_get(m, "forbid"), *mt = sl_ymap_get(m, "match");
	if (!fb == !mt)
		sl_cfg_fail(r, fb ? fb : mt ? mt : m, "a policy needs exactly one of 'forbid' and 'match'");
	else
		*(fb ? &p->forbid : &p->match) = sl_cfg_compile_new(r, fb ? fb : mt);
	p->name_buf = pascal(p->rule.id);
	p->rule.name = p->name_buf;
	p->desc_buf = sl_xasprintf("A policy of the repository's .schedlint.yaml: %s %s the pattern '%s'%s.",
				   field ? field : "?", fb ? "must not match" : "must be present and match",
				   fb && sl_yscalar(fb)   ? fb->str
				   : mt && sl_yscalar(mt) ? mt->str
							  : "?",
				   p->nkinds ? " (for the kinds it lists)" : "");
	p->rule.description = p->desc_buf;
	p->help_buf = sl_xasprintf("%s. This check is defined in .schedlint.yaml, not built in.", p->rule.summary);
	p->rule.help = p->help_buf;
}

void sl_cfg_read_policies(struct sl_cfg_reader *r, const struct sl_ynode *v)
{
	if (!sl_cfg_map_list(r, v, "policies", "a policy"))
		return;
	struct sl_config *c = r->c;
	c->policies = sl_xcalloc(v->n + 1, sizeof *c->policies);
	for (size_t i = 0; i < v->n; i++) {
		if (v->v[i]->kind != SL_YMAP)
			continue;
		struct sl_policy *p = &c->policies[c->npolicies++];
		read_policy(r, v->v[i], p);
		for (size_t j = 0; j + 1 < c->npolicies; j++)
			if (*p->rule.id && !strcmp(c->policies[j].rule.id, p->rule.id))
				sl_cfg_fail(r, sl_ymap_get(v->v[i], "id"), "policy id '%s' is already used at line %u",
					    p->rule.id, sl_span_line(&c->policies[j].node->at));
	}
	/* The rule set: built-in rules, then the policies. */
	c->rules = sl_xrealloc(c->rules, (c->nrules + c->npolicies + 1) * sizeof *c->rules);
	c->levels = sl_xrealloc(c->levels, (c->nrules + c->npolicies + 1) * sizeof *c->levels);
	c->forced = sl_xrealloc(c->forced, (c->nrules + c->npolicies + 1) * sizeof *c->forced);
	for (size_t i = 0; i < c->npolicies; i++) {
		c->rules[c->nrules] = &c->policies[i].rule;
		c->forced[c->nrules] = false;
		c->levels[c->nrules++] = c->policies[i].rule.level;
	}
}
