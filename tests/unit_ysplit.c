/* unit_ysplit — a large List cut in two pieces and joined (ysplit.h) is the tree the whole parses
 * to, node for node and span for span; where the pieces could differ from the whole (a scalar
 * quoted over the cut, a key on both sides, an alias to the other piece, a limit the whole
 * passes), they are refused; where no cut is safe to find, none is; and a model loaded from a
 * split inventory holds every pod, its input errors at the places the whole gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/load/ysplit.h"
#include "../linter/model/model.h"
#include "unit.h"

/* Pods enough for SL_YSPLIT_MIN (about 190 bytes each). */
#define PODS 7000

static void pod(struct sl_buf *b, unsigned i, const char *cpu)
{
	sl_buf_printf(b,
		      "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p%05u\n    namespace: default\n"
		      "  spec:\n    containers:\n    - name: c\n      resources:\n        requests:\n"
		      "          cpu: %s\n    nodeName: n1\n  status:\n    phase: Running\n",
		      i, cpu);
}

/* A kubectl List of PODS pods; special (when set) written as pod `at`'s place, and the text
 * padded with a comment at its end to total bytes when total is set. */
static char *list(const char *head, const char *special, unsigned at, const char *tail, size_t total)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, head);
	for (unsigned i = 0; i < PODS; i++) {
		if (special && i == at)
			sl_buf_puts(&b, special);
		else
			pod(&b, i, i == PODS - 10 ? "lots" : "100m");
	}
	sl_buf_puts(&b, tail);
	if (total > b.len + 2) {
		sl_buf_putc(&b, '#');
		while (b.len < total - 1)
			sl_buf_putc(&b, 'x');
		sl_buf_putc(&b, '\n');
	}
	return sl_buf_detach(&b);
}

static const char *const keep[] = {"apiVersion", "kind", "metadata.name", "spec.containers[].resources", NULL};

/* Node for node: kinds, texts, flags and spans. */
static bool same_tree(const struct sl_ynode *a, const struct sl_ynode *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->at.off != b->at.off || a->at.end != b->at.end || a->plain != b->plain ||
	    a->flow != b->flow || a->anchored != b->anchored)
		return false;
	if (a->kind == SL_YSCALAR)
		return a->len == b->len && !strcmp(a->str, b->str);
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < (a->kind == SL_YMAP ? 2 * (size_t)a->n : a->n); i++)
		if (!same_tree(a->v[i], b->v[i]))
			return false;
	return true;
}

/* src cut and its pieces parsed and joined (keep: the keep paths, or NULL): whether the join took,
 * and when it did, whether its tree is the whole's. */
static bool split_joins(const struct sl_source *src, const char *const *kp, bool *same)
{
	size_t cut;
	*same = false;
	if (!sl_ysplit_find(src, &cut))
		return false;
	struct sl_ypiece pc[2];
	sl_ysplit_pieces(src, cut, &pc[0], &pc[1]);
	struct sl_ystream ys[2], whole;
	struct sl_findings errs[2], werrs;
	memset(ys, 0, sizeof ys);
	memset(&whole, 0, sizeof whole);
	memset(errs, 0, sizeof errs);
	memset(&werrs, 0, sizeof werrs);
	int rc = 0;
	for (int k = 0; k < 2; k++)
		rc |= sl_yaml_parse_piece(src, &pc[k], &ys[k], &errs[k], kp);
	bool joined = !rc && !errs[0].n && !errs[1].n && sl_ysplit_join(&ys[0], &ys[1], &pc[0], &pc[1], &ys[0].own);
	if (joined) {
		CHECK(sl_yaml_parse_keep(src, &whole, &werrs, kp) == 0 && werrs.n == 0);
		*same = whole.n == 1 && same_tree(ys[0].docs[0].root, whole.docs[0].root);
	}
	for (int k = 0; k < 2; k++) {
		sl_ystream_free(&ys[k]);
		sl_findings_free(&errs[k]);
	}
	sl_ystream_free(&whole);
	sl_findings_free(&werrs);
	return joined;
}

static struct sl_source *source(char *text)
{
	struct sl_source *s = sl_source_from_memory("pods.yaml", text, strlen(text));
	free(text);
	return s;
}

static const char *const head = "apiVersion: v1\nitems:\n";
static const char *const tail = "kind: List\nmetadata:\n  resourceVersion: \"\"\n";

static void test_joins(void)
{
	struct sl_source *s = source(list(head, NULL, 0, tail, 0));
	CHECK(s->len >= SL_YSPLIT_MIN);
	bool same;
	CHECK(split_joins(s, NULL, &same) && same);
	CHECK(split_joins(s, keep, &same) && same);
	sl_source_free(s);
	/* The items last, and a comment at column 0 among them. */
	s = source(list("# pods\napiVersion: v1\nkind: List\nitems:\n", "# a comment\n", PODS / 2, "", 0));
	CHECK(split_joins(s, keep, &same) && same);
	sl_source_free(s);
}

/* "- a: \"open\n- quoted\"\n": the second line at column 0 inside the quotes, placed where the cut
 * falls (the first "- " line at or after the middle). */
static void test_refused(void)
{
	const char *special = "- a: \"open\n- quoted\"\n";
	char *probe = list(head, special, PODS / 2, tail, 0);
	size_t x = (size_t)(strstr(probe, "- quoted") - probe);
	free(probe);
	struct sl_source *s = source(list(head, special, PODS / 2, tail, 2 * x - 4));
	size_t cut = 0;
	CHECK(sl_ysplit_find(s, &cut) && cut == x);
	bool same;
	CHECK(!split_joins(s, NULL, &same));
	sl_source_free(s);
	/* A key on both sides: the whole keeps the later, with a warning. */
	s = source(list("apiVersion: v1\nkind: List\nitems:\n", NULL, 0, tail, 0));
	CHECK(!split_joins(s, NULL, &same));
	sl_source_free(s);
	/* An alias to an anchor in the other piece. */
	s = source(list(head, "- &first {kind: Pod}\n", 1, "extra: *first\n", 0));
	CHECK(!split_joins(s, NULL, &same));
	sl_source_free(s);
	/* An alias to a value the keep paths leave out: that piece is parsed again keeping all, where
	 * the other kept less. */
	s = source(list(head, "- kind: Pod\n  status: &s Running\n  metadata:\n    name: *s\n", PODS / 4, tail, 0));
	CHECK(split_joins(s, NULL, &same) && same);
	CHECK(!split_joins(s, keep, &same));
	sl_source_free(s);
	/* A limit the pieces pass alone and the whole does not. */
	s = source(list(head, NULL, 0, tail, 0));
	size_t nodes = sl_limits.nodes;
	sl_limits.nodes = 20 * PODS; /* about 30 a pod: each piece passes */
	CHECK(!split_joins(s, NULL, &same));
	sl_limits.nodes = nodes;
	sl_source_free(s);
}

static void test_no_cut(void)
{
	const char *heads[] = {"---\napiVersion: v1\nitems:\n", "apiVersion: v1\nitems: # pods\n",
			       "apiVersion: v1\nitems: &all\n", "- x\napiVersion: v1\nitems:\n"};
	for (size_t i = 0; i < sizeof heads / sizeof *heads; i++) {
		struct sl_source *s = source(list(heads[i], NULL, 0, tail, 0));
		size_t cut;
		CHECK(!sl_ysplit_find(s, &cut));
		sl_source_free(s);
	}
	/* Not ASCII; the items ending before the middle; too small. */
	struct sl_source *s = source(list(head, "- name: \"caf\xc3\xa9\"\n", 3, tail, 0));
	size_t cut;
	CHECK(!sl_ysplit_find(s, &cut));
	sl_source_free(s);
	s = source(list(head, NULL, 0, tail, 4 * SL_YSPLIT_MIN));
	CHECK(!sl_ysplit_find(s, &cut));
	sl_source_free(s);
	const char *small = "apiVersion: v1\nitems:\n- kind: Pod\n- kind: Pod\nkind: List\n";
	s = sl_source_from_memory("small.yaml", small, strlen(small));
	CHECK(!sl_ysplit_find(s, &cut));
	sl_source_free(s);
}

/* The model of a split inventory: every pod, and the error of a bad quantity in the second piece at
 * its line and column; the same through a refused split (a key on both sides). A document of items
 * whose kind is no List is one object, not its items: none of the pods the pieces loaded is kept. */
static void test_model(void)
{
	struct sl_source *other = source(list(head, NULL, 0, "kind: PodBatch\n", 0));
	struct sl_model om = {0};
	struct sl_findings oerrs = {0};
	sl_model_load(&om, other, SL_ROLE_PODS, &oerrs);
	CHECK(om.npods == 0 && oerrs.n == 0);
	sl_findings_free(&oerrs);
	sl_model_free(&om);
	sl_source_free(other);

	for (int refused = 0; refused < 2; refused++) {
		char *text = list(refused ? "apiVersion: v1\nkind: List\nitems:\n" : head, NULL, 0, tail, 0);
		const char *bad = strstr(text, "cpu: lots");
		unsigned line = 1;
		for (const char *p = text; p < bad; p++)
			line += *p == '\n';
		struct sl_source *s = source(text);
		struct sl_model m = {0};
		struct sl_findings errs = {0};
		CHECK(sl_model_load(&m, s, SL_ROLE_PODS, &errs) < 0);
		CHECK(m.npods == PODS - 1);
		size_t nerr = 0;
		for (size_t i = 0; i < errs.n; i++) {
			unsigned l, c;
			sl_span_start(&errs.v[i].at, &l, &c);
			if (errs.v[i].level == SL_ERROR) {
				nerr++;
				CHECK(l == line && c == 16);
			}
		}
		CHECK(nerr == 1);
		sl_findings_free(&errs);
		sl_model_free(&m);
		sl_source_free(s);
	}
}

void test_ysplit(void)
{
	test_joins();
	test_refused();
	test_no_cut();
	test_model();
}
