/* unit_fix — --fix's writer given a file that is not the one the run read any more: a directory
 * on its path swapped for a symlink, the file written to or replaced, a symlink given pointed
 * elsewhere. Each is done between the run (which reads) and sl_fix_files (which writes), through
 * the library, so the race is no race: the writer must see it every time. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../linter/base/buf.h"
#include "../linter/config/config.h"
#include "../linter/fix/fix.h"
#include "../linter/run.h"
#include "unit.h"

/* The seed's rollout deadlock: one GPU node, a Deployment of one replica that takes its GPU. */
static const char nodes_yaml[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
    "status: {allocatable: {cpu: '8', memory: 32Gi, pods: '110', nvidia.com/gpu: '1'}}\n";
static const char manifest_yaml[] =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 1\n"
    "  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
    "    spec:\n      nodeSelector: {kubernetes.io/hostname: n1}\n      containers:\n"
    "      - {name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}\n";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct sl_buf b = SL_BUF_INIT;
	char chunk[4096];
	size_t n;
	while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sl_buf_add(&b, chunk, n);
	if (f)
		fclose(f);
	return sl_buf_detach(&b);
}

static bool has_text(const char *path, const char *text)
{
	char *s = slurp(path);
	bool yes = !strcmp(s, text);
	free(s);
	return yes;
}

static bool fixed(const char *path)
{
	char *s = slurp(path);
	bool yes = strstr(s, "maxUnavailable: 1") != NULL;
	free(s);
	return yes;
}

/* One run with --fix of manifest (nodes from base/nodes.yaml): read, then between(ctx), then the
 * fixes written. Returns sl_fix_files's result; what it printed goes to base/stderr. */
static int fix_run(const char *base, const char *manifest, void (*between)(const char *), const char *ctx)
{
	struct sl_config cfg;
	sl_config_defaults(&cfg);
	struct sl_run r = {.cfg = &cfg, .fix = true};
	char *nodes = sl_xasprintf("%s/nodes.yaml", base), *m = sl_xstrdup(manifest);
	sl_run(&r, (const char *const *)&nodes, 1, NULL, 0, &m, 1);
	const struct sl_finding *v[1];
	bool fixed;
	CHECK(unit_findings_but_fixed(&r.fs, v, 1, &fixed) == 1 && fixed && v[0]->rule &&
	      !strcmp(v[0]->rule->id, "rollout-deadlock"));
	if (between)
		between(ctx);
	char *errpath = sl_xasprintf("%s/stderr", base);
	fflush(stderr);
	int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	int rc = sl_fix_files(&r.ss, &r.fs, NULL, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	free(errpath);
	free(nodes);
	free(m);
	sl_run_free(&r);
	sl_config_free(&cfg);
	return rc;
}

static bool said(const char *base, const char *what)
{
	char *p = sl_xasprintf("%s/stderr", base), *s = slurp(p);
	bool yes = strstr(s, what) != NULL;
	free(s);
	free(p);
	return yes;
}

static char base[] = "/tmp/schedlint-unit-fix-XXXXXX";

static char *at(const char *rel)
{
	return sl_xasprintf("%s/%s", base, rel);
}

/* The directory app swapped for a symlink to elsewhere, which holds a file of the same name. */
static void swap_dir(const char *unused)
{
	(void)unused;
	char *app = at("app"), *old = at("app.old"), *elsewhere = at("elsewhere");
	CHECK(rename(app, old) == 0 && symlink(elsewhere, app) == 0);
	free(app);
	free(old);
	free(elsewhere);
}

static void append(const char *path)
{
	FILE *f = fopen(path, "a");
	CHECK(f && fputs("# edited meanwhile\n", f) >= 0);
	if (f)
		fclose(f);
}

/* The file replaced by another with the same bytes (a checkout rewriting it). */
static void replace(const char *path)
{
	char *tmp = sl_xasprintf("%s.new", path);
	unit_put(tmp, manifest_yaml);
	CHECK(rename(tmp, path) == 0);
	free(tmp);
}

static void removed(const char *path)
{
	CHECK(unlink(path) == 0);
}

static void repoint(const char *link)
{
	char *target = at("real2/m.yaml");
	CHECK(unlink(link) == 0 && symlink(target, link) == 0);
	free(target);
}

static void test_fix_unchanged(void)
{
	char *m = at("plain/m.yaml");
	unit_put(m, manifest_yaml);
	CHECK(fix_run(base, m, NULL, NULL) == 0 && fixed(m)); /* nothing changed: written */
	free(m);
}

static void test_fix_dir_swapped(void)
{
	char *m = at("app/m.yaml"), *other = at("elsewhere/m.yaml"), *old = at("app.old/m.yaml");
	unit_put(m, manifest_yaml);
	unit_put(other, manifest_yaml);
	CHECK(fix_run(base, m, swap_dir, NULL) == -1);
	CHECK(has_text(other, manifest_yaml)); /* the file never read is left alone */
	CHECK(has_text(old, manifest_yaml));
	CHECK(said(base, "app/m.yaml:1:1: error: changed while fixing; not written"));
	free(m);
	free(other);
	free(old);
}

static void test_fix_file_changed(void)
{
	char *m = at("edited/m.yaml"), *edited = sl_xasprintf("%s# edited meanwhile\n", manifest_yaml);
	unit_put(m, manifest_yaml);
	CHECK(fix_run(base, m, append, m) == -1 && has_text(m, edited));
	CHECK(said(base, "edited/m.yaml:1:1: error: changed while fixing; not written"));
	free(edited);
	unit_put(m, manifest_yaml);
	CHECK(fix_run(base, m, replace, m) == -1 && has_text(m, manifest_yaml));
	CHECK(said(base, "changed while fixing; not written"));
	CHECK(fix_run(base, m, removed, m) == -1 && access(m, F_OK) < 0); /* not made again */
	CHECK(said(base, "changed while fixing; not written"));
	free(m);
}

/* A symlink is resolved once, when read: the file read is fixed, though the link has moved on. */
static void test_fix_link_repointed(void)
{
	char *link = at("link.yaml"), *one = at("real1/m.yaml"), *two = at("real2/m.yaml");
	unit_put(one, manifest_yaml);
	unit_put(two, manifest_yaml);
	CHECK(symlink(one, link) == 0);
	CHECK(fix_run(base, link, repoint, link) == 0 && fixed(one) && has_text(two, manifest_yaml));
	struct stat st;
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	free(link);
	free(one);
	free(two);
}

void test_fixwrite(void)
{
	CHECK(mkdtemp(base) != NULL);
	const char *dirs[] = {"plain", "app", "elsewhere", "edited", "real1", "real2"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		char *d = at(dirs[i]);
		CHECK(mkdir(d, 0755) == 0);
		free(d);
	}
	char *nodes = at("nodes.yaml");
	unit_put(nodes, nodes_yaml);
	free(nodes);
	test_fix_unchanged();
	test_fix_dir_swapped();
	test_fix_file_changed();
	test_fix_link_repointed();
	char *cmd = sl_xasprintf("rm -rf '%s'", base);
	CHECK(system(cmd) == 0);
	free(cmd);
}
