/* config.c — a config's life: the defaults, finding .schedlint.yaml, sl_config_load (which reads
 * the file and hands each section of the schema to its reader: config_policies.c, config_rules.c,
 * config_targets.c) and sl_config_free; and what the run asks of it for each file: its path as
 * the patterns see it, whether it is excluded, which target it belongs to. Every error names the
 * offending node's line and column and, for a key, the keys that are known (config_reader.c). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/similar.h"
#include "../load/input.h"
#include "../load/path.h"
#include "config_internal.h"

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

/* `render:`: how directories of templates are made manifests. `kustomize: auto` (the default)
 * renders a kustomization with kustomize or kubectl, whichever is on PATH; `off` renders none; any
 * other string is the command, split on spaces, that the directory is appended to. */
static void read_render(struct sl_cfg_reader *r, const struct sl_ynode *v)
{
	if (!v || sl_ynull(v))
		return;
	if (v->kind != SL_YMAP) {
		sl_cfg_fail(r, v, "render is a mapping (kustomize), not %s", sl_ykind_name(v));
		return;
	}
	static const char *const keys[] = {"kustomize", NULL};
	sl_cfg_known_keys(r, v, "render", keys);
	const char *k = sl_cfg_string(r, v, "kustomize", "render", false);
	if (!k)
		return;
	if (!*k || strspn(k, " ") == strlen(k)) {
		sl_cfg_fail(r, sl_ymap_get(v, "kustomize"), "render.kustomize is auto, off or a command, not empty");
		return;
	}
	/* A single word near auto or off is a slip, not a program to run. */
	static const char *const words[] = {"auto", "off"};
	const char *near = strchr(k, ' ') || strchr(k, '/') ? NULL : sl_closest(k, words, 2);
	if (near && strcmp(near, k)) {
		sl_cfg_fail(r, sl_ymap_get(v, "kustomize"),
			    "render.kustomize is auto, off or a command, not '%s' (did you mean '%s'?)", k, near);
		return;
	}
	r->c->kustomize_off = !strcmp(k, "off");
	r->c->kustomize = strcmp(k, "auto") && !r->c->kustomize_off ? k : NULL;
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
	struct sl_cfg_reader r = {c, errs, 0};
	const struct sl_ynode *root = NULL;
	for (size_t i = 0; i < c->ys.n; i++) {
		if (!c->ys.docs[i].root)
			continue;
		if (root) {
			sl_cfg_fail(&r, c->ys.docs[i].root, "a config holds one document");
			break;
		}
		root = c->ys.docs[i].root;
	}
	if (!root || sl_ynull(root))
		return r.bad ? -1 : 0;
	if (root->kind != SL_YMAP) {
		sl_cfg_fail(&r, root,
			    "a config is a mapping (rules, exclude, ignore, policies, nodes, pods, nodePools, "
			    "targets, render, kubernetesVersion, featureGates), not %s",
			    sl_ykind_name(root));
		return -1;
	}
	static const char *const keys[] = {"rules",        "exclude",   "ignore",  "policies", "nodes",
					   "pods",         "nodePools", "targets", "render",   "kubernetesVersion",
					   "featureGates", NULL};
	sl_cfg_known_keys(&r, root, "the config", keys);
	sl_cfg_read_policies(&r, sl_ymap_get(root, "policies")); /* first: rules and ignore may name them */
	sl_cfg_read_levels(&r, sl_ymap_get(root, "rules"));
	const struct sl_ynode **ex;
	long nex = sl_cfg_scalars(&r, sl_ymap_get(root, "exclude"), "exclude", &ex);
	for (long i = 0; i < nex; i++)
		if (sl_cfg_compile(&r, ex[i], push_exclude(c)) == 0)
			c->nexclude++;
	free(ex);
	sl_cfg_read_ignores(&r, sl_ymap_get(root, "ignore"));
	sl_cfg_read_paths(&r, sl_ymap_get(root, "nodes"), "nodes", &c->nodes, &c->nnodes);
	sl_cfg_read_paths(&r, sl_ymap_get(root, "pods"), "pods", &c->pods, &c->npods);
	sl_cfg_read_kube_version(&r, root, "the config", &c->kube_minor, &c->kube_text);
	sl_cfg_read_gates(&r, root, "the config", &c->gates);
	sl_cfg_read_pools(&r, sl_ymap_get(root, "nodePools"), &c->pools, &c->npools);
	sl_cfg_read_targets(&r, sl_ymap_get(root, "targets"));
	read_render(&r, sl_ymap_get(root, "render"));
	return r.bad ? -1 : 0;
}

static void free_pattern(struct sl_pattern *p)
{
	if (p)
		sl_pattern_free(p);
	free(p);
}

static void free_pools(struct sl_pool **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sl_pool_free(v[i]);
	free(v);
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
		free_pools(c->targets[i].pools, c->targets[i].npools);
	}
	free(c->targets);
	free_strings(c->nodes, c->nnodes);
	free_strings(c->pods, c->npods);
	free_pools(c->pools, c->npools);
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
