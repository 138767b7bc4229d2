/* emit_junit.c — findings as JUnit XML, which Jenkins, GitLab's test reports, Azure DevOps and
 * CircleCI read: a <testsuite> per file, a <testcase> per object and rule with a finding. Errors
 * and warnings fail their testcase (<failure type="error|warning">, the messages and proofs as its
 * text); notes, and suppressed findings shown on request, leave it passing, their text in
 * <system-out>. Input errors are an <error> (the file could not be checked) of a testcase named
 * "input". A run with nothing to report is one passing testcase, so that a CI that refuses an
 * empty report (Jenkins by default) sees the pass. */
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"

/* Where the paths are shown from: the repository root and the working directory. */
struct anchor {
	char *cwd, *root;
};

/* sl_shown_path, "-" for unnamed standard input. Caller frees. */
static char *shown_path(const struct anchor *a, const struct sl_source *src)
{
	char *path = sl_shown_path(a->root, a->cwd, src);
	return path ? path : sl_xasprintf("-");
}

/* A finding with what it is sorted and grouped by: its file as shown, its object, its rule. */
struct item {
	const struct sl_finding *f;
	char *path;
	size_t order;
};

static const char *object_of(const struct item *x)
{
	return x->f->object ? x->f->object : "";
}

static const char *rule_of(const struct item *x)
{
	return x->f->rule ? x->f->rule->id : "";
}

static int item_order(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (!c)
		c = strcmp(object_of(x), object_of(y));
	if (!c)
		c = strcmp(rule_of(x), rule_of(y));
	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* Whether a finding fails its testcase: an unsuppressed error or warning. */
static bool fails(const struct sl_finding *f)
{
	return !f->nsupp && f->level >= SL_WARNING;
}

/* The end of the group from i: same file (and, with by_case, same object and rule). */
static size_t group_end(const struct item *v, size_t n, size_t i, bool by_case)
{
	size_t j = i + 1;
	while (j < n && !strcmp(v[j].path, v[i].path) &&
	       (!by_case || (!strcmp(object_of(&v[j]), object_of(&v[i])) && v[j].f->rule == v[i].f->rule)))
		j++;
	return j;
}

/* One finding as text: where, how bad, what, and the proof, a line each. */
static void finding_text(struct sl_buf *b, const struct anchor *a, const struct item *x)
{
	const struct sl_finding *f = x->f;
	unsigned line, col;
	sl_span_start(&f->at, &line, &col);
	sl_esc_xml(b, x->path);
	sl_buf_printf(b, ":%u:%u: %s: ", line, col, sl_level_name(f->level));
	sl_esc_xml(b, f->message);
	if (f->rule) {
		sl_buf_puts(b, " [");
		sl_esc_xml(b, f->rule->id);
		sl_buf_putc(b, ']');
	}
	if (f->nsupp) {
		sl_buf_puts(b, " (suppressed");
		if (f->supp[0].justification) {
			sl_buf_puts(b, ": ");
			sl_esc_xml(b, f->supp[0].justification);
		}
		sl_buf_putc(b, ')');
	}
	for (size_t j = 0; j < f->nnotes; j++) {
		sl_buf_puts(b, "\n- ");
		sl_esc_xml(b, f->notes[j]);
	}
	for (size_t j = 0; j < f->nrelated; j++) {
		sl_buf_puts(b, "\n  ");
		if (f->related[j].at.src) {
			char *path = shown_path(a, f->related[j].at.src);
			sl_esc_xml(b, path);
			free(path);
			sl_span_start(&f->related[j].at, &line, &col);
			sl_buf_printf(b, ":%u:%u: ", line, col);
		}
		sl_esc_xml(b, f->related[j].text);
	}
	sl_buf_putc(b, '\n');
}

/* The testcase of v[a..b): one object's findings of one rule. */
static void testcase(struct sl_buf *b, const struct anchor *an, const struct item *v, size_t a, size_t b_)
{
	const struct sl_finding *f = v[a].f;
	sl_buf_puts(b, "    <testcase classname=\"");
	sl_esc_xml(b, v[a].path);
	sl_buf_puts(b, "\" name=\"");
	sl_esc_xml(b, f->rule ? f->rule->id : "input");
	if (f->object) {
		sl_buf_puts(b, ": ");
		sl_esc_xml(b, f->object);
	}
	sl_buf_puts(b, "\">\n");
	const struct sl_finding *first = NULL, *worst = NULL;
	for (size_t i = a; i < b_; i++)
		if (fails(v[i].f)) {
			first = first ? first : v[i].f;
			worst = !worst || v[i].f->level > worst->level ? v[i].f : worst;
		}
	if (first) {
		const char *el = f->rule ? "failure" : "error";
		sl_buf_printf(b, "      <%s type=\"%s\" message=\"", el, sl_level_name(worst->level));
		sl_esc_xml(b, first->message);
		sl_buf_puts(b, "\">");
		for (size_t i = a; i < b_; i++)
			if (fails(v[i].f))
				finding_text(b, an, &v[i]);
		sl_buf_printf(b, "</%s>\n", el);
	}
	bool out = false;
	for (size_t i = a; i < b_; i++)
		if (!fails(v[i].f)) {
			if (!out)
				sl_buf_puts(b, "      <system-out>");
			out = true;
			finding_text(b, an, &v[i]);
		}
	if (out)
		sl_buf_puts(b, "</system-out>\n");
	sl_buf_puts(b, "    </testcase>\n");
}

/* Counts of v[a..b): testcases, failed ones, and those failed by input errors. */
static void count(const struct item *v, size_t a, size_t b, size_t *tests, size_t *failures, size_t *errors)
{
	for (size_t i = a, j; i < b; i = j) {
		j = group_end(v, b, i, true);
		++*tests;
		for (size_t k = i; k < j; k++)
			if (fails(v[k].f)) {
				++*(v[k].f->rule ? failures : errors);
				break;
			}
	}
}

static void suite_open(struct sl_buf *b, const char *name, size_t tests, size_t failures, size_t errors)
{
	sl_buf_puts(b, "  <testsuite name=\"");
	sl_esc_xml(b, name);
	sl_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", tests, failures, errors);
}

/* The run's notices (diag.h) as the <system-out> of the suite named schedlint: the one of a run
 * without findings, or one of no testcases after the files' (a suite's own output is where JUnit
 * readers show what is not a testcase's). */
static void notices_out(struct sl_buf *b, const struct sl_notices *ns)
{
	sl_buf_puts(b, "    <system-out>");
	for (size_t i = 0; i < ns->n; i++) {
		sl_buf_printf(b, "%sschedlint: %s: ", i ? "\n" : "", sl_level_name(ns->v[i].level));
		sl_esc_xml(b, ns->v[i].text);
		sl_buf_puts(b, " [");
		sl_esc_xml(b, ns->v[i].id);
		sl_buf_putc(b, ']');
	}
	sl_buf_puts(b, "</system-out>\n");
}

/* Written a testsuite at a time, each line guarded as the text report's are (sl_esc_lines). */
static void flush(FILE *fp, struct sl_buf *b)
{
	struct sl_buf t = SL_BUF_INIT;
	sl_esc_lines(&t, sl_buf_str(b), b->len);
	fwrite(sl_buf_str(&t), 1, t.len, fp);
	sl_buf_free(&t);
	sl_buf_reset(b);
}

void sl_emit_junit(FILE *fp, const struct sl_findings *fs, const struct sl_notices *ns, bool show_suppressed)
{
	struct anchor an = {sl_path_cwd(), NULL};
	an.root = sl_path_repo_root(an.cwd);
	struct item *v = sl_xcalloc(fs->n + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if (f->nsupp && !show_suppressed)
			continue;
		v[n++] = (struct item){f, shown_path(&an, f->at.src), i};
	}
	qsort(v, n, sizeof *v, item_order);
	size_t tests = 0, failures = 0, errors = 0;
	count(v, 0, n, &tests, &failures, &errors);
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sl_buf_printf(&b, "<testsuites name=\"schedlint\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		      n ? tests : 1, failures, errors);
	if (!n) {
		suite_open(&b, "schedlint", 1, 0, 0);
		sl_buf_puts(&b, "    <testcase classname=\"schedlint\" name=\"no findings\"/>\n");
		if (ns && ns->n)
			notices_out(&b, ns);
		sl_buf_puts(&b, "  </testsuite>\n");
	}
	for (size_t i = 0, j; i < n; i = j) {
		j = group_end(v, n, i, false);
		size_t t = 0, fl = 0, er = 0;
		count(v, i, j, &t, &fl, &er);
		suite_open(&b, v[i].path, t, fl, er);
		for (size_t k = i, e; k < j; k = e) {
			e = group_end(v, j, k, true);
			testcase(&b, &an, v, k, e);
		}
		sl_buf_puts(&b, "  </testsuite>\n");
		flush(fp, &b);
	}
	if (n && ns && ns->n) {
		suite_open(&b, "schedlint", 0, 0, 0);
		notices_out(&b, ns);
		sl_buf_puts(&b, "  </testsuite>\n");
	}
	sl_buf_puts(&b, "</testsuites>\n");
	flush(fp, &b);
	sl_buf_free(&b);
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	free(an.root);
	free(an.cwd);
}
