/* config.c — reading and checking .schedlint.yaml (see config.h for the schema's meaning). Every
 * error names the offending node's line and column and, for a key, the keys that are known. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../load/input.h"
#include "../load/path.h"
#include "../model/kversion.h"

#define err(errs, n, ...) sl_input_error((errs), &(n)->at, __VA_ARGS__)

void sl_config_defaults(struct sl_config *c)
{
	memset(c, 0, sizeof *c);
	c->nrules = sl_nrules;
	c->rules = sl_xcalloc(sl_nrules + 1, sizeof *c->rules);
	c->levels = sl_xcalloc(sl_nrules + 1, sizeof *c->levels);
	c->forced = sl_xcalloc(sl_nrules + 1, sizeof *c->forced);
	for (unsigned i = 0; i < sl_nrules; i++) {
		c->rules[i] = sl_rules[i];
		c->levels[i] = sl_rules[i]->level;
	}
	sl_matcher_init(&c->mx);
	char buf[PATH_MAX];
	c->cwd = sl_xstrdup(getcwd(buf, sizeof buf) ? buf : ".");
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* dir/name as messages should show it: relative to the working directory, which is dir or
 * below it. */
static char *relative_to_cwd(const char *dir, const char *name)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return sl_xasprintf("%s/%s", dir, name);
	struct sl_buf b = SL_BUF_INIT;
	size_t dl = strlen(dir);
	const char *rest = cwd + (strcmp(dir, "/") ? dl : 0);
	for (const char *p = rest; *p; p++)
		if (*p == '/')
			sl_buf_puts(&b, "../");
	sl_buf_puts(&b, name);
	return sl_buf_detach(&b);
}

/* The directory at or above dir (cut back in place) that holds a config, up to the directory
 * holding .git (or /): the config's name, or NULL. */
static const char *find_up(char *dir)
{
	for (;;) {
		static const char *const names[] = {".schedlint.yaml", ".schedlint.yml"};
		for (size_t i = 0; i < 2; i++) {
			char *p = sl_xasprintf("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", names[i]);
			struct stat st;
			if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
				free(p);
				return names[i];
			}
			free(p);
		}
		char *git = sl_xasprintf("%s/.git", dir);
		bool root = exists(git) || !strcmp(dir, "/");
		free(git);
		if (root)
			return NULL;
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = 0;
		else
			*slash = 0;
	}
}

char *sl_config_find(void)
{
	char dir[PATH_MAX];
	if (!getcwd(dir, sizeof dir))
		return NULL;
	const char *name = find_up(dir);
	return name ? relative_to_cwd(dir, name) : NULL;
}

char *sl_config_find_from(const char *start)
{
	char *dir = sl_path_absolute(start);
	const char *name = find_up(dir);
	char *found = name ? sl_xasprintf("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name) : NULL;
	free(dir);
	return found;
}

char *sl_config_relpath(const struct sl_config *c, const char *path)
{
	if (!c->dir)
		return sl_path_normalize(path);
	char *abs = path[0] == '/' ? sl_xstrdup(path) : sl_xasprintf("%s/%s", c->cwd, path);
	char *norm = sl_path_normalize(abs);
	free(abs);
	char *out = sl_path_under(c->dir, norm);
	free(norm);
	return out ? out : sl_path_normalize(path); /* outside the config's tree: as given */
}

/* A path from the config, resolved against its directory. */
static char *resolve(const struct sl_config *c, const char *p)
{
	if (p[0] == '/')
		return sl_xstrdup(p);
	/* Relative to the working directory when that is where the config is: what the user typed
	 * and what messages then show. */
	if (!strcmp(c->dir, c->cwd))
		return sl_path_normalize(p);
	char *abs = sl_xasprintf("%s/%s", c->dir, p);
	char *n = sl_path_normalize(abs);
	free(abs);
	return n;
}

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

static struct sl_pattern *push_exclude(struct sl_config *c)
{
	sl_grow(&c->exclude, &c->capexclude, c->nexclude + 1, sizeof *c->exclude);
	return &c->exclude[c->nexclude];
}

int sl_config_add_exclude(struct sl_config *c, const char *pattern, struct sl_findings *errs)
{
	struct sl_span none = {0};
	if (sl_pattern_compile(push_exclude(c), pattern, strlen(pattern), &none, false, errs) < 0)
		return -1;
	c->nexclude++;
	return 0;
}

/* A match of p on a path: a limit reached is an error at the pattern. */
static int match_path(struct sl_config *c, const struct sl_pattern *p, const char *rel, struct sl_findings *errs)
{
	char why[160];
	int rc = sl_pattern_match(p, &c->mx, rel, strlen(rel), why, sizeof why);
	if (rc < 0) {
		if (p->at.src)
			sl_input_error(errs, &p->at, "pattern '%s' on the path '%s': %s", p->text, rel, why);
		else
			sl_input_error(errs, NULL, "pattern '%s' (--exclude) on the path '%s': %s", p->text, rel, why);
	}
	return rc;
}

int sl_config_excluded(struct sl_config *c, const char *rel, struct sl_findings *errs)
{
	for (size_t i = 0; i < c->nexclude; i++) {
		int rc = match_path(c, &c->exclude[i], rel, errs);
		if (rc)
			return rc;
	}
	return 0;
}

int sl_config_target_of(struct sl_config *c, const char *rel, struct sl_findings *errs)
{
	for (size_t i = 0; i < c->ntargets; i++) {
		int rc = match_path(c, &c->targets[i].paths, rel, errs);
		if (rc > 0)
			return (int)i;
	}
	return -1;
}

/* --- reading ---------------------------------------------------------------------------- */

struct reader {
	struct sl_config *c;
	struct sl_findings *errs;
	int bad;
};

static void fail(struct reader *r, const struct sl_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail(struct reader *r, const struct sl_ynode *n, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	sl_input_error(r->errs, &n->at, "%s", b.s);
	sl_buf_free(&b);
	r->bad = 1;
}

/* Keys of map must be among known (NULL-terminated); each unknown one is an error. */
static void known_keys(struct reader *r, const struct sl_ynode *map, const char *what, const char *const *known)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct sl_ynode *k = map->v[2 * i];
		bool ok = false;
		for (const char *const *q = known; *q && !ok; q++)
			ok = sl_yis(k, *q);
		if (ok)
			continue;
		struct sl_buf b = SL_BUF_INIT;
		for (const char *const *q = known; *q; q++)
			sl_buf_printf(&b, "%s%s", q == known ? "" : ", ", *q);
		fail(r, k, "unknown key '%s' in %s (known: %s)", sl_yscalar(k) ? k->str : "?", what, b.s);
		sl_buf_free(&b);
	}
}

/* A scalar, or a list of scalars: the nodes, or -1 after an error. */
static long scalars(struct reader *r, const struct sl_ynode *v, const char *what, const struct sl_ynode ***out)
{
	*out = NULL;
	if (sl_ynull(v))
		return 0;
	if (v->kind == SL_YSCALAR) {
		*out = sl_xcalloc(1, sizeof **out);
		(*out)[0] = v;
		return 1;
	}
	if (v->kind != SL_YSEQ) {
		fail(r, v, "%s must be a list of strings, not %s", what, sl_ykind_name(v));
		return -1;
	}
	*out = sl_xcalloc(v->n + 1, sizeof **out);
	for (size_t i = 0; i < v->n; i++) {
		if (!sl_yscalar(v->v[i]) || sl_ynull(v->v[i])) {
			fail(r, v->v[i], "%s must be a list of strings; item %zu is %s", what, i,
			     sl_ynull(v->v[i]) ? "empty" : sl_ykind_name(v->v[i]));
			free(*out);
			*out = NULL;
			return -1;
		}
		(*out)[i] = v->v[i];
	}
	return (long)v->n;
}

static bool quoted(const struct sl_ynode *n)
{
	return !n->plain && n->at.src && n->at.end > n->at.off &&
	       (n->at.src->data[n->at.off] == '\'' || n->at.src->data[n->at.off] == '"');
}

static int compile(struct reader *r, const struct sl_ynode *n, struct sl_pattern *p)
{
	if (!sl_yscalar(n)) {
		fail(r, n, "a pattern must be a string, not %s", sl_ykind_name(n));
		return -1;
	}
	if (sl_pattern_compile(p, n->str, n->len, &n->at, quoted(n), r->errs) < 0) {
		r->bad = 1;
		return -1;
	}
	return 0;
}

static struct sl_pattern *compile_new(struct reader *r, const struct sl_ynode *n)
{
	if (!n)
		return NULL;
	struct sl_pattern *p = sl_xcalloc(1, sizeof *p);
	if (compile(r, n, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

static const char *string(struct reader *r, const struct sl_ynode *map, const char *key, const char *what,
			  bool required)
{
	const struct sl_ynode *v = sl_ymap_get(map, key);
	if (!v || sl_ynull(v)) {
		if (required)
			fail(r, map, "%s needs '%s'", what, key);
		return NULL;
	}
	if (v->kind != SL_YSCALAR) {
		fail(r, v, "%s.%s must be a string, not %s", what, key, sl_ykind_name(v));
		return NULL;
	}
	return v->str;
}

static int level_of(struct reader *r, const struct sl_ynode *v, enum sl_level *out)
{
	if (!sl_yscalar(v) || sl_level_parse(v->str, out) < 0 || !strcmp(v->str, "none")) {
		fail(r, v, "a level is off, note, warning or error, not '%s'",
		     sl_yscalar(v) ? v->str : sl_ykind_name(v));
		return -1;
	}
	return 0;
}

static void list_rule_ids(const struct sl_config *c, struct sl_buf *b)
{
	for (size_t i = 0; i < c->nrules; i++)
		sl_buf_printf(b, "%s%s", i ? ", " : "", c->rules[i]->id);
}

static void read_paths(struct reader *r, const struct sl_ynode *v, const char *what, char ***out, size_t *n)
{
	const struct sl_ynode **items;
	long k = scalars(r, v, what, &items);
	for (long i = 0; i < k; i++) {
		*out = sl_xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[(*n)++] = resolve(r->c, items[i]->str);
	}
	free(items);
}

/* field: a.b[*].c, a[0], metadata.labels["app.kubernetes.io/name"]; a leading "podspec." starts
 * at the pod spec. */
static int parse_field(struct reader *r, const struct sl_ynode *n, struct sl_policy *p)
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
	fail(r, n,
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

static void read_policy(struct reader *r, const struct sl_ynode *m, struct sl_policy *p)
{
	static const char *const keys[] = {"id", "message", "level", "kinds", "field", "forbid", "match", NULL};
	p->node = m;
	known_keys(r, m, "a policy", keys);
	const char *id = string(r, m, "id", "a policy", true);
	const char *msg = string(r, m, "message", "a policy", true);
	const struct sl_ynode *idn = sl_ymap_get(m, "id");
	if (id && !valid_id(id))
		fail(r, idn, "policy id '%s' must be lowercase letters, digits and '-', starting with a letter", id);
	else if (id && sl_rule_find(id))
		fail(r, idn, "policy id '%s' is the id of a built-in rule; choose another", id);
	p->rule.id = id ? id : "";
	p->rule.summary = msg ? msg : "";
	p->rule.level = SL_WARNING;
	const struct sl_ynode *lv = sl_ymap_get(m, "level");
	if (lv && level_of(r, lv, &p->rule.level) < 0)
		p->rule.level = SL_WARNING;
	const struct sl_ynode **kinds;
	long nk = scalars(r, sl_ymap_get(m, "kinds"), "kinds", &kinds);
	if (nk > 0) {
		p->kinds = sl_xcalloc((size_t)nk, sizeof *p->kinds);
		for (long i = 0; i < nk; i++)
			p->kinds[i] = kinds[i]->str;
		p->nkinds = (size_t)nk;
	}
	free(kinds);
	const char *field = string(r, m, "field", "a policy", true);
	if (field) {
		p->field = field;
		parse_field(r, sl_ymap_get(m, "field"), p);
	}
	const struct sl_ynode *fb = sl_ymap_get(m, "forbid"), *mt = sl_ymap_get(m, "match");
	if (!fb == !mt)
		fail(r, fb ? fb : mt ? mt : m, "a policy needs exactly one of 'forbid' and 'match'");
	else
		*(fb ? &p->forbid : &p->match) = compile_new(r, fb ? fb : mt);
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

/* Whether v is a list whose mappings should be read (items that are not mappings are errors,
 * and are to be skipped); absent and empty lists are nothing to read. */
static bool map_list(struct reader *r, const struct sl_ynode *v, const char *what, const char *item)
{
	if (sl_ynull(v))
		return false;
	if (v->kind != SL_YSEQ) {
		fail(r, v, "%s must be a list, not %s", what, sl_ykind_name(v));
		return false;
	}
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i]->kind != SL_YMAP)
			fail(r, v->v[i], "%s must be a mapping, not %s", item, sl_ykind_name(v->v[i]));
	return true;
}

static void read_policies(struct reader *r, const struct sl_ynode *v)
{
	if (!map_list(r, v, "policies", "a policy"))
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
				fail(r, sl_ymap_get(v->v[i], "id"), "policy id '%s' is already used at line %u",
				     p->rule.id, c->policies[j].node->at.line);
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

static void read_levels(struct reader *r, const struct sl_ynode *v)
{
	if (sl_ynull(v))
		return;
	if (v->kind != SL_YMAP) {
		fail(r, v, "rules must be a mapping of rule id to level, not %s", sl_ykind_name(v));
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct sl_ynode *k = v->v[2 * i], *lv = v->v[2 * i + 1];
		const struct sl_rule *rule = sl_yscalar(k) ? sl_config_rule(r->c, k->str) : NULL;
		if (!rule) {
			struct sl_buf b = SL_BUF_INIT;
			list_rule_ids(r->c, &b);
			fail(r, k, "unknown rule '%s' (known: %s)", sl_yscalar(k) ? k->str : "?", b.s);
			sl_buf_free(&b);
			continue;
		}
		enum sl_level l;
		if (level_of(r, lv, &l) == 0) {
			int k = sl_config_rule_index(r->c, rule);
			r->c->levels[k] = l;
			r->c->forced[k] = true;
		}
	}
}

static void read_ignore(struct reader *r, const struct sl_ynode *m, struct sl_ignore *ig)
{
	static const char *const keys[] = {"rules", "path", "kind", "namespace", "name", "reason", NULL};
	ig->node = m;
	known_keys(r, m, "an ignore entry", keys);
	const struct sl_ynode *rv = sl_ymap_get(m, "rules");
	const struct sl_ynode **ids;
	long n = scalars(r, rv, "rules", &ids);
	if (n > 0)
		ig->rules = sl_xcalloc((size_t)n, sizeof *ig->rules);
	for (long i = 0; i < n; i++) {
		if (!strcmp(ids[i]->str, "all")) {
			ig->all = true;
			continue;
		}
		const struct sl_rule *rule = sl_config_rule(r->c, ids[i]->str);
		if (!rule) {
			struct sl_buf b = SL_BUF_INIT;
			list_rule_ids(r->c, &b);
			fail(r, ids[i], "unknown rule '%s' (known: all, %s)", ids[i]->str, b.s);
			sl_buf_free(&b);
		} else
			ig->rules[ig->nrules++] = rule;
	}
	free(ids);
	if (!rv)
		ig->all = true;
	ig->path = compile_new(r, sl_ymap_get(m, "path"));
	ig->kind = compile_new(r, sl_ymap_get(m, "kind"));
	ig->namespace = compile_new(r, sl_ymap_get(m, "namespace"));
	ig->name = compile_new(r, sl_ymap_get(m, "name"));
	ig->reason = string(r, m, "reason", "an ignore entry", false);
	if (!rv && !sl_ymap_get(m, "path") && !sl_ymap_get(m, "kind") && !sl_ymap_get(m, "namespace") &&
	    !sl_ymap_get(m, "name"))
		fail(r, m,
		     "an ignore entry needs at least one of rules, path, kind, namespace and name (it would "
		     "silence everything)");
}

static void read_ignores(struct reader *r, const struct sl_ynode *v)
{
	if (!map_list(r, v, "ignore", "an ignore entry"))
		return;
	struct sl_config *c = r->c;
	c->ignores = sl_xcalloc(v->n + 1, sizeof *c->ignores);
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i]->kind == SL_YMAP)
			read_ignore(r, v->v[i], &c->ignores[c->nignores++]);
}

/* kubernetesVersion: "1.30" (kversion.h), at the top level or in a target. */
static void read_kube_version(struct reader *r, const struct sl_ynode *map, const char *what, int *minor,
			      const char **text)
{
	const char *s = string(r, map, "kubernetesVersion", what, false);
	if (!s)
		return;
	if (sl_kube_parse(s, minor) < 0 || *minor < SL_KUBE_MIN) {
		fail(r, sl_ymap_get(map, "kubernetesVersion"),
		     "kubernetesVersion is a Kubernetes release from 1.%d, such as \"1.%d\", not '%s'", SL_KUBE_MIN,
		     SL_KUBE_DEFAULT, s);
		*minor = 0;
		return;
	}
	*text = s;
}

static void read_targets(struct reader *r, const struct sl_ynode *v)
{
	static const char *const keys[] = {"name", "paths", "nodes", "pods", "kubernetesVersion", NULL};
	if (!map_list(r, v, "targets", "a target"))
		return;
	struct sl_config *c = r->c;
	c->targets = sl_xcalloc(v->n + 1, sizeof *c->targets);
	for (size_t i = 0; i < v->n; i++) {
		const struct sl_ynode *m = v->v[i];
		if (m->kind != SL_YMAP)
			continue;
		known_keys(r, m, "a target", keys);
		struct sl_target *t = &c->targets[c->ntargets++];
		t->node = m;
		t->name = string(r, m, "name", "a target", true);
		for (size_t j = 0; t->name && j + 1 < c->ntargets; j++)
			if (c->targets[j].name && !strcmp(c->targets[j].name, t->name))
				fail(r, sl_ymap_get(m, "name"), "target name '%s' is already used at line %u", t->name,
				     c->targets[j].node->at.line);
		if (t->name && !strcmp(t->name, "default"))
			fail(r, sl_ymap_get(m, "name"),
			     "target name 'default' is reserved for the files under no target");
		const struct sl_ynode *pv = sl_ymap_get(m, "paths");
		if (!pv)
			fail(r, m, "a target needs 'paths' (a pattern on file paths)");
		else
			compile(r, pv, &t->paths);
		read_paths(r, sl_ymap_get(m, "nodes"), "nodes", &t->nodes, &t->nnodes);
		read_paths(r, sl_ymap_get(m, "pods"), "pods", &t->pods, &t->npods);
		read_kube_version(r, m, "a target", &t->kube_minor, &t->kube_text);
	}
}

int sl_config_load(struct sl_config *c, const char *path, struct sl_findings *errs)
{
	struct sl_sources ss = {0};
	size_t before = errs->input_errors;
	struct stat st;
	int err = stat(path, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (err) {
		/* Said here rather than by the loader, so the message says which file it was meant as. */
		c->src = sl_source_from_memory(path, "", 0);
		c->src->failed = 1;
		struct sl_span at;
		sl_source_span(c->src, 0, 0, &at);
		sl_input_error(errs, &at, "cannot read the config file: %s", strerror(err));
	} else {
		ss.as_given = true; /* a config in a chart's directory is still the config */
		sl_input_add(&ss, path, errs, NULL);
		/* The source stays with the config whatever happened: errors point into it. */
		c->src = ss.n ? ss.v[0] : NULL;
		if (ss.n)
			ss.v[0] = NULL; /* kept by the config; the rest goes */
		sl_sources_free(&ss);
	}
	c->path = sl_xstrdup(path);
	char buf[PATH_MAX];
	char *slash = strrchr(c->path, '/');
	char *d = slash ? strndup(c->path, (size_t)(slash - c->path) + (slash == c->path)) : sl_xstrdup(".");
	c->dir = sl_xstrdup(realpath(d, buf) ? buf : d);
	free(d);
	if (!c->src || c->src->failed || errs->input_errors > before)
		return -1;
	sl_source_index(c->src);
	if (sl_yaml_parse(c->src, &c->ys, errs) < 0)
		return -1;
	struct reader r = {c, errs, 0};
	const struct sl_ynode *root = NULL;
	for (size_t i = 0; i < c->ys.n; i++) {
		if (!c->ys.docs[i].root)
			continue;
		if (root) {
			fail(&r, c->ys.docs[i].root, "a config holds one document");
			break;
		}
		root = c->ys.docs[i].root;
	}
	if (!root || sl_ynull(root))
		return r.bad ? -1 : 0;
	if (root->kind != SL_YMAP) {
		fail(&r, root,
		     "a config is a mapping (rules, exclude, ignore, policies, nodes, pods, targets, "
		     "kubernetesVersion), not %s",
		     sl_ykind_name(root));
		return -1;
	}
	static const char *const keys[] = {"rules",   "exclude",           "ignore", "policies", "nodes", "pods",
					   "targets", "kubernetesVersion", NULL};
	known_keys(&r, root, "the config", keys);
	read_policies(&r, sl_ymap_get(root, "policies")); /* first: rules and ignore may name them */
	read_levels(&r, sl_ymap_get(root, "rules"));
	const struct sl_ynode **ex;
	long nex = scalars(&r, sl_ymap_get(root, "exclude"), "exclude", &ex);
	for (long i = 0; i < nex; i++)
		if (compile(&r, ex[i], push_exclude(c)) == 0)
			c->nexclude++;
	free(ex);
	read_ignores(&r, sl_ymap_get(root, "ignore"));
	read_paths(&r, sl_ymap_get(root, "nodes"), "nodes", &c->nodes, &c->nnodes);
	read_paths(&r, sl_ymap_get(root, "pods"), "pods", &c->pods, &c->npods);
	read_kube_version(&r, root, "the config", &c->kube_minor, &c->kube_text);
	read_targets(&r, sl_ymap_get(root, "targets"));
	return r.bad ? -1 : 0;
}

static void free_pattern(struct sl_pattern *p)
{
	if (p)
		sl_pattern_free(p);
	free(p);
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sl_config_free(struct sl_config *c)
{
	for (size_t i = 0; i < c->npolicies; i++) {
		struct sl_policy *p = &c->policies[i];
		free(p->kinds);
		for (size_t k = 0; k < p->nsteps; k++)
			free((char *)p->steps[k].key);
		free(p->steps);
		free_pattern(p->forbid);
		free_pattern(p->match);
		free(p->name_buf);
		free(p->desc_buf);
		free(p->help_buf);
	}
	free(c->policies);
	for (size_t i = 0; i < c->nignores; i++) {
		struct sl_ignore *ig = &c->ignores[i];
		free(ig->rules);
		free_pattern(ig->path);
		free_pattern(ig->kind);
		free_pattern(ig->namespace);
		free_pattern(ig->name);
	}
	free(c->ignores);
	for (size_t i = 0; i < c->nexclude; i++)
		sl_pattern_free(&c->exclude[i]);
	free(c->exclude);
	for (size_t i = 0; i < c->ntargets; i++) {
		sl_pattern_free(&c->targets[i].paths);
		free_strings(c->targets[i].nodes, c->targets[i].nnodes);
		free_strings(c->targets[i].pods, c->targets[i].npods);
	}
	free(c->targets);
	free_strings(c->nodes, c->nnodes);
	free_strings(c->pods, c->npods);
	free(c->rules);
	free(c->levels);
	free(c->forced);
	sl_matcher_free(&c->mx);
	sl_ystream_free(&c->ys);
	sl_source_free(c->src);
	free(c->path);
	free(c->dir);
	free(c->cwd);
	memset(c, 0, sizeof *c);
}
