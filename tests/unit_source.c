/* unit_source — a source's bytes given back after the parse and read again when asked
 * (sl_source_release, sl_source_text): the same bytes when the file is unchanged, one copy however
 * many threads ask at once, nothing when the file changed; and a whole run whose manifest is
 * rewritten between the parse and the checks: the finding stays, its fix goes, and an input error
 * says why. The file is changed through the library's hooks, so the race is no race. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../linter/base/buf.h"
#include "../linter/config/config.h"
#include "../linter/load/input.h"
#include "../linter/load/yarena.h"
#include "../linter/run.h"
#include "../rules/rules.h"
#include "unit.h"

static char base[] = "/tmp/schedlint-unit-source-XXXXXX";

static char *at(const char *rel)
{
	return sl_xasprintf("%s/%s", base, rel);
}

/* text with a comment after it that makes it 1 KiB or more. */
static char *padded(const char *text)
{
	char pad[1100];
	memset(pad, '-', sizeof pad - 1);
	pad[sizeof pad - 1] = 0;
	return sl_xasprintf("%s# %s\n", text, pad);
}

/* path read into ss as the run reads it, indexed, and its bytes given back. */
static struct sl_source *read_released(struct sl_sources *ss, const char *path)
{
	struct sl_findings errs = {0};
	CHECK(sl_input_add(ss, path, &errs, NULL) == 0 && errs.n == 0);
	sl_findings_free(&errs);
	struct sl_source *s = ss->v[ss->n - 1];
	sl_source_index(s);
	CHECK(sl_source_release(s) && !s->data);
	return s;
}

static void *ask(void *arg)
{
	return (void *)sl_source_text(arg);
}

static void test_reread(void)
{
	char *text = padded("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
	char *other = padded("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n");
	char *utf8 = padded("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \xc3\xa9}\n");
	char *p = at("same.yaml"), *q = at("changed.yaml"), *r = at("gone.yaml"), *u = at("utf8.yaml");
	char *small = at("small.yaml");
	unit_put(p, text);
	unit_put(q, text);
	unit_put(r, text);
	unit_put(u, utf8);
	unit_put(small, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
	struct sl_sources ss = {0};
	/* unchanged: the same bytes, read once, whichever of two threads asks first */
	struct sl_source *s = read_released(&ss, p);
	pthread_t t1, t2;
	void *a = NULL, *b = NULL;
	CHECK(pthread_create(&t1, NULL, ask, s) == 0 && pthread_create(&t2, NULL, ask, s) == 0);
	CHECK(pthread_join(t1, &a) == 0 && pthread_join(t2, &b) == 0);
	CHECK(a && a == b && !strcmp(a, text) && sl_source_text(s) == a && !sl_source_lost(s));
	/* the same length, other bytes, written after the read: not the file that was parsed */
	s = read_released(&ss, q);
	unit_put(q, other);
	CHECK(!sl_source_text(s) && sl_source_lost(s) && !sl_source_text(s));
	s = read_released(&ss, r);
	CHECK(unlink(r) == 0 && !sl_source_text(s) && sl_source_lost(s));
	/* columns of a file that is not ASCII are counted in its bytes: kept */
	struct sl_findings errs = {0};
	CHECK(sl_input_add(&ss, u, &errs, NULL) == 0);
	s = ss.v[ss.n - 1];
	sl_source_index(s);
	CHECK(!sl_source_release(s) && s->data && sl_source_text(s) == s->data);
	sl_findings_free(&errs);
	/* a small file's go too (most of a repository's files are small), and come back the same */
	s = read_released(&ss, small);
	CHECK(sl_source_text(s) &&
	      !strcmp(sl_source_text(s), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"));
	sl_sources_free(&ss);
	free(p);
	free(q);
	free(r);
	free(u);
	free(small);
	free(text);
	free(other);
	free(utf8);
}

/* The seed's rollout deadlock: one GPU node, a Deployment of one replica that takes its GPU; its
 * fix (maxUnavailable: 1) is written on the manifest's text. */
static const char nodes_yaml[] =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
    "status: {allocatable: {cpu: '8', memory: 32Gi, pods: '110', nvidia.com/gpu: '1'}}\n";
static const char manifest_yaml[] =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 1\n"
    "  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
    "    spec:\n      nodeSelector: {kubernetes.io/hostname: n1}\n      containers:\n"
    "      - {name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}\n";

/* Asked before the model and after it (run.c): the second time, the manifest is rewritten. */
struct rewrite {
	const char *path;
	int calls;
};

static bool rewrite_after_parse(void *ctx)
{
	struct rewrite *w = ctx;
	if (++w->calls == 2 && w->path)
		unit_put(w->path, "# rewritten while checked\n");
	return false;
}

/* One run of the manifest at path, as SARIF would (snippets read), rewritten between the parse
 * and the checks when change is set. */
static void run_once(const char *path, bool change, struct sl_run *r, struct sl_config *cfg)
{
	static struct rewrite w;
	w = (struct rewrite){change ? path : NULL, 0};
	sl_config_defaults(cfg);
	*r = (struct sl_run){.cfg = cfg, .snippets = true, .stale = rewrite_after_parse, .stale_ctx = &w};
	char *nodes = at("nodes.yaml"), *m = sl_xstrdup(path);
	sl_run(r, (const char *const *)&nodes, 1, NULL, 0, &m, 1);
	free(nodes);
	free(m);
}

static void test_changed_in_run(void)
{
	char *nodes = at("nodes.yaml"), *m = at("m.yaml"), *text = padded(manifest_yaml);
	unit_put(nodes, nodes_yaml);
	unit_put(m, text);
	struct sl_config cfg;
	struct sl_run r;
	run_once(m, false, &r, &cfg); /* unchanged: the finding with its fix, no input error */
	const struct sl_finding *v[2];
	bool fixed;
	size_t n = unit_findings_but_fixed(&r.fs, v, 2, &fixed);
	CHECK(n == 1 && fixed && v[0]->rule && !strcmp(v[0]->rule->id, "rollout-deadlock"));
	CHECK(n == 1 && v[0]->nfixes > 0 && r.fs.input_errors == 0);
	sl_run_free(&r);
	sl_config_free(&cfg);
	run_once(m, true, &r, &cfg);
	/* the input error first (the report's order), at 1:1 of the file; the finding kept, unfixed */
	n = unit_findings_but_fixed(&r.fs, v, 2, &fixed);
	CHECK(n == 2 && fixed && r.fs.input_errors == 1);
	if (n == 2) {
		const struct sl_finding *e = v[0], *f = v[1];
		CHECK(!e->rule && e->level == SL_ERROR && sl_span_line(&e->at) == 1 && e->at.off == 0 &&
		      e->at.src == f->at.src);
		CHECK(strstr(e->message, "changed while schedlint was checking it") != NULL);
		CHECK(f->rule && !strcmp(f->rule->id, "rollout-deadlock") && f->nfixes == 0 && f->message);
	}
	sl_run_free(&r);
	sl_config_free(&cfg);
	free(nodes);
	free(m);
	free(text);
}

/* A released file's line table is packed (a byte a line, the long ones aside): every offset has the
 * line and column it had, and every line starts where it did, across blocks of lines, lines of
 * 254 to 256 bytes and more, empty ones and a last one without a newline. */
static void test_packed_lines(void)
{
	struct sl_buf b = SL_BUF_INIT;
	for (int i = 0; i < 100; i++) {
		size_t len = i % 7 == 3 ? 251 + (size_t)(i % 13) : i % 11 == 5 ? 0 : (size_t)(i * 37 % 90);
		sl_buf_putc(&b, '#');
		for (size_t k = 0; k < len; k++)
			sl_buf_putc(&b, (char)('a' + k % 26));
		sl_buf_putc(&b, '\n');
	}
	sl_buf_puts(&b, "# the last line, unended");
	char *p = at("lines.yaml");
	unit_put(p, b.s);
	struct sl_sources ss = {0};
	struct sl_findings errs = {0};
	CHECK(sl_input_add(&ss, p, &errs, NULL) == 0 && errs.n == 0);
	struct sl_source *s = ss.v[ss.n - 1];
	sl_source_index(s);
	size_t n = s->len + 1, nl = s->nlines;
	unsigned(*was)[2] = sl_xcalloc(n, sizeof *was);
	size_t(*starts)[2] = sl_xcalloc(nl + 2, sizeof *starts);
	for (size_t off = 0; off < n; off++)
		sl_source_linecol(s, off, &was[off][0], &was[off][1]);
	for (unsigned line = 0; line < nl + 2; line++) {
		starts[line][0] = sl_source_offset(s, line, 1);
		starts[line][1] = sl_source_offset(s, line, 300);
	}
	CHECK(sl_source_release(s) && !s->data && !s->lines && s->nlines == nl);
	bool same = true;
	for (size_t off = 0; off < n; off++) {
		unsigned line, col;
		sl_source_linecol(s, off, &line, &col);
		same &= line == was[off][0] && col == was[off][1];
	}
	for (unsigned line = 0; line < nl + 2; line++)
		same &= sl_source_offset(s, line, 1) == starts[line][0] &&
			sl_source_offset(s, line, 300) == starts[line][1];
	CHECK(same);
	sl_findings_free(&errs);
	sl_sources_free(&ss);
	sl_buf_free(&b);
	free(was);
	free(starts);
	free(p);
}

/* The paths' stat asked ahead on two threads (enough paths for the second one): each answer in
 * its own slot, as a stat of the path alone says, "-" not asked; adding the paths with the
 * answers gives what adding them without does. */
static void test_stat_many(void)
{
	enum { N = 200 };
	char *paths[N];
	for (size_t i = 0; i < N; i++) {
		paths[i] = i % 7 == 3 ? sl_xasprintf("%s/missing-%zu.yaml", base, i)
			   : i == 100 ? sl_xstrdup("-")
				      : sl_xasprintf("%s/stat-%zu.yaml", base, i);
		if (i % 7 != 3 && i != 100)
			unit_put(paths[i], "kind: ConfigMap\n");
	}
	struct sl_path_stat *known = sl_xcalloc(N, sizeof *known);
	sl_input_stat_many(paths, N, known);
	struct sl_sources with = {0}, without = {0};
	struct sl_findings errs_with = {0}, errs_without = {0};
	for (size_t i = 0; i < N; i++) {
		struct stat st;
		if (i == 100) {
			CHECK(known[i].err == 0 && known[i].st.st_ino == 0);
			continue;
		}
		int err = stat(paths[i], &st) < 0 ? errno : 0;
		CHECK(known[i].err == err);
		CHECK(err || (known[i].st.st_ino == st.st_ino && known[i].st.st_dev == st.st_dev));
		sl_input_add_stated(&with, paths[i], &known[i], &errs_with, NULL);
		sl_input_add(&without, paths[i], &errs_without, NULL);
	}
	CHECK(with.n == without.n && errs_with.n == errs_without.n && errs_with.n == (N + 3) / 7);
	for (size_t i = 0; i < with.n && i < without.n; i++)
		CHECK(!strcmp(with.v[i]->path, without.v[i]->path) && with.v[i]->failed == without.v[i]->failed);
	for (size_t i = 0; i < errs_with.n && i < errs_without.n; i++)
		CHECK(!strcmp(errs_with.v[i].message, errs_without.v[i].message));
	sl_findings_free(&errs_with);
	sl_findings_free(&errs_without);
	sl_sources_free(&with);
	sl_sources_free(&without);
	free(known);
	for (size_t i = 0; i < N; i++)
		free(paths[i]);
}

/* An arena's last huge chunk, written over whole, gives back the pages past what it holds: none
 * of them is resident after sl_yarena_trim, and what it holds is still there. */
static void test_arena_trim(void)
{
	struct sl_yarena a = {0};
	char *first = sl_yarena_text(&a, 100);
	memset(first, 'x', 100);
	char *big = sl_yarena_text(&a, SL_HUGE_MIN); /* past the first chunk: a huge one of its own */
	struct sl_arena_chunk *c = a.list[1];
	CHECK(sizeof *c + c->cap >= SL_HUGE_MIN);
	memset(big, 'y', SL_HUGE_MIN); /* every page touched, as a dropped document leaves them */
	c->used = 4096 + (size_t)(big - (char *)c->data);
	sl_yarena_trim(&a);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)c->data + c->used + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t to = ((uintptr_t)c->data + c->cap) & ~(uintptr_t)(page - 1);
	size_t n = (to - from) / page, resident = 0;
	unsigned char *vec = sl_xmalloc(n);
	CHECK(n > 0 && mincore((void *)from, to - from, vec) == 0);
	for (size_t i = 0; i < n; i++)
		resident += vec[i] & 1;
	CHECK(resident == 0);
	CHECK(big[0] == 'y' && big[4095] == 'y');
	free(vec);
	sl_yarena_free(&a);
}

void test_source_reread(void)
{
	CHECK(mkdtemp(base) != NULL);
	test_reread();
	test_packed_lines();
	test_changed_in_run();
	test_stat_many();
	test_arena_trim();
	char *cmd = sl_xasprintf("rm -rf '%s'", base);
	CHECK(system(cmd) == 0);
	free(cmd);
}
