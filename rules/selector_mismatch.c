/* selector-mismatch — spec.selector does not select the pod template's labels.
 *
 * The API server's validation (ValidateDeploymentSpec, ValidateReplicaSetSpec,
 * ValidateStatefulSetSpec, ValidateDaemonSetSpec in pkg/apis/apps/validation; validateJobSpec in
 * pkg/apis/batch/validation) requires a non-empty selector in apps/v1 and rejects a template
 * whose labels it does not match: "`selector` does not match template `labels`". A controller
 * whose selector missed its own pods would create them forever. Jobs get a generated selector
 * unless spec.manualSelector is true, so only those are checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"
#include "edits.h"
#include "rules.h"

static bool applies(const struct sl_workload *w, bool *requires_selector)
{
	const char *k = w->obj.kind, *v = w->obj.api_version;
	if (!strcmp(k, "Job")) {
		*requires_selector = true;
		return sl_yis(sl_ymap_get(w->spec, "manualSelector"), "true");
	}
	/* extensions/v1beta1 and apps/v1beta1 defaulted a missing selector from the labels */
	*requires_selector = !strcmp(v, "apps/v1") || !strcmp(v, "apps/v1beta2");
	return !strcmp(k, "Deployment") || !strcmp(k, "ReplicaSet") || !strcmp(k, "StatefulSet") ||
	       !strcmp(k, "DaemonSet");
}

static char *node_text(const struct sl_ynode *n)
{
	const char *d = sl_source_text(n->at.src); /* NULL: the fix goes (sl_source_text) */
	if (!d)
		return sl_xstrdup(n->str);
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_add(&b, d + n->at.off, n->at.end - n->at.off);
	return sl_buf_detach(&b);
}

/* A label value's text as it may stand in a flow mapping too: as written, unless it is a plain
 * scalar holding a flow indicator or something else a flow context reads as structure, which is
 * then double-quoted (the same string). Label values the API server accepts never need it; what
 * a file holds may. */
static char *flow_text(const struct sl_ynode *n)
{
	if (!n->plain || (!strpbrk(n->str, ",[]{}#&*!|>'\"%@`") && !strstr(n->str, ": ")))
		return node_text(n);
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_putc(&b, '"');
	for (const char *c = n->str; *c; c++) {
		if (*c == '"' || *c == '\\')
			sl_buf_putc(&b, '\\');
		sl_buf_putc(&b, *c);
	}
	sl_buf_putc(&b, '"');
	return sl_buf_detach(&b);
}

/* The selector's requirements that the template labels fail, as a bitmap; how many. */
static size_t failing(const struct sl_selector *s, const struct sl_labels *l, bool *fail)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nreqs; i++) {
		fail[i] = !sl_requirement_matches(&s->reqs[i], l);
		n += fail[i];
	}
	return n;
}

static void describe_req(struct sl_buf *b, const struct sl_requirement *r, const struct sl_labels *l)
{
	const char *have = sl_labels_get(l, r->key);
	if (r->node && r->node->kind == SL_YSCALAR) /* a matchLabels entry */
		sl_buf_printf(b, "matchLabels %s: %s", r->key, r->vals[0]);
	else {
		sl_buf_printf(b, "matchExpressions %s %s", r->key, sl_op_name(r->op));
		if (r->op == SL_OP_IN || r->op == SL_OP_NOTIN) {
			sl_buf_puts(b, " [");
			for (size_t v = 0; v < r->nvals; v++)
				sl_buf_printf(b, "%s%s", v ? ", " : "", r->vals[v]);
			sl_buf_putc(b, ']');
		}
	}
	if (have)
		sl_buf_printf(b, ", but the template has %s: %s", r->key, have);
	else
		sl_buf_printf(b, ", but the template has no label %s", r->key);
}

/* The first label of l with this key, or NULL. */
static struct sl_kv *find_label(const struct sl_labels *l, const char *key)
{
	for (size_t j = 0; j < l->n; j++)
		if (!strcmp(l->v[j].key, key))
			return &l->v[j];
	return NULL;
}

/* `{k: v, ...}`: entries as the body of a flow mapping, to replace a null value with. */
static void flow_entries(struct sl_buf *b, const struct sl_yentry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sl_buf_printf(b, "%s%s: %s", i ? ", " : "", e[i].key, e[i].val);
}

/* Whether the template fix can be written and cures the finding: every failing requirement is a
 * matchLabels entry whose value is in this file, a template label it would replace is too (and
 * not null), and with the selector's values the template's labels match the whole selector. */
static bool fix_cures(const struct sl_workload *w, const struct sl_ynode *ml, const bool *fail)
{
	const struct sl_selector *s = &w->sel;
	const struct sl_podspec *p = &w->pod;
	/* The labels after the fix, to be sure the whole selector then matches. */
	struct sl_labels after = {sl_xcalloc(p->labels.n + s->nreqs + 1, sizeof *after.v), p->labels.n};
	if (p->labels.n)
		memcpy(after.v, p->labels.v, p->labels.n * sizeof *after.v);
	bool ok = true;
	for (size_t i = 0; i < s->nreqs && ok; i++) {
		if (!fail[i])
			continue;
		const struct sl_requirement *r = &s->reqs[i];
		const struct sl_ynode *val = sl_ymap_get(ml, r->key);
		ok = r->node && r->node->kind == SL_YSCALAR && val && val->kind == SL_YSCALAR &&
		     val->at.src == w->obj.src;
		struct sl_kv *kv = find_label(&after, r->key);
		if (!kv) {
			kv = &after.v[after.n++];
			memset(kv, 0, sizeof *kv);
			kv->key = r->key;
		} else
			ok = ok && kv->vnode && kv->vnode->at.src == w->obj.src && !sl_ynull(kv->vnode);
		kv->val = r->vals[0];
	}
	ok = ok && sl_selector_matches(s, &after);
	free(after.v);
	return ok;
}

/* Add entries to the template's labels, creating `labels:` (and `metadata:`) where missing. A
 * null `labels:` or `metadata:` is replaced by a flow mapping; a value of another type (a list)
 * is the input error already reported: no edit. */
static void add_template_labels(struct sl_fix *fx, const struct sl_workload *w, const struct sl_ynode *tmpl,
				const struct sl_yentry *add, size_t nadd)
{
	const struct sl_ynode *md = sl_ymap_get(tmpl, "metadata");
	const struct sl_ynode *labels = sl_ymap_get(md, "labels");
	if (labels && labels->kind == SL_YMAP)
		sl_fix_insert(fx, w->obj.src, labels, NULL, add, nadd);
	else if (md && md->kind == SL_YMAP && !labels) {
		const struct sl_yentry e = {"labels", NULL, add, nadd};
		sl_fix_insert(fx, w->obj.src, md, NULL, &e, 1);
	} else if (!md) {
		const struct sl_yentry l = {"labels", NULL, add, nadd};
		const struct sl_yentry e = {"metadata", NULL, &l, 1};
		sl_fix_insert(fx, w->obj.src, tmpl, NULL, &e, 1);
	} else if (sl_ynull(labels ? labels : md)) {
		struct sl_buf b = SL_BUF_INIT;
		sl_buf_puts(&b, labels ? "{" : "{labels: {");
		flow_entries(&b, add, nadd);
		sl_buf_puts(&b, labels ? "}" : "}}");
		sl_fix_replace(fx, w->obj.src, labels ? labels : md, b.s);
		sl_buf_free(&b);
	}
}

/* For a matchLabels-only mismatch: make the template carry the selector's labels, replacing a
 * different value and adding a missing key. The template is what may change: a Deployment's,
 * StatefulSet's or DaemonSet's selector is immutable once created, and the selector is what
 * Services and PodDisruptionBudgets were most likely written against. */
static void offer_fix(struct sl_finding *f, const struct sl_workload *w, const bool *fail)
{
	const struct sl_selector *s = &w->sel;
	const struct sl_ynode *ml = sl_ymap_get(w->selector, "matchLabels");
	const struct sl_ynode *tmpl = sl_ymap_get(w->spec, "template");
	if (!ml || !tmpl || tmpl->kind != SL_YMAP || !fix_cures(w, ml, fail))
		return;
	struct sl_fix *fx = sl_fix_new(f, "Give the pod template the labels the selector requires");
	struct sl_yentry *add = sl_xcalloc(s->nreqs, sizeof *add);
	char **texts = sl_xcalloc(s->nreqs, sizeof *texts);
	size_t nadd = 0;
	for (size_t i = 0; i < s->nreqs; i++) {
		if (!fail[i])
			continue;
		const struct sl_requirement *r = &s->reqs[i];
		/* the selector's own spelling of the value, quotes and all (quoted where a flow mapping
		 * would read it as structure) */
		texts[i] = flow_text(sl_ymap_get(ml, r->key));
		const struct sl_kv *have = find_label(&w->pod.labels, r->key);
		if (have)
			sl_fix_replace(fx, w->obj.src, have->vnode, texts[i]);
		else
			add[nadd++] = (struct sl_yentry){r->key, texts[i], NULL, 0};
	}
	if (nadd)
		add_template_labels(fx, w, tmpl, add, nadd);
	for (size_t i = 0; i < s->nreqs; i++)
		free(texts[i]);
	free(texts);
	free(add);
}

/* A missing or empty selector: the template's labels, as matchLabels, are the selector the old
 * API versions defaulted to. */
static void offer_selector(struct sl_finding *f, const struct sl_workload *w)
{
	const struct sl_podspec *p = &w->pod;
	const struct sl_ynode *tmpl = sl_ymap_key(w->spec, "template");
	bool empty = !sl_ynull(w->selector);
	/* a selector key with a null value is left alone: inserting would duplicate the key */
	if (!p->labels.n || !tmpl || (!empty && (w->spec->flow || sl_ymap_key(w->spec, "selector"))) ||
	    (empty && (w->selector->kind != SL_YMAP || (w->selector->n && w->selector->flow))))
		return;
	struct sl_yentry *kids = sl_xcalloc(p->labels.n, sizeof *kids);
	char **texts = sl_xcalloc(p->labels.n, sizeof *texts);
	bool ok = true;
	for (size_t i = 0; i < p->labels.n; i++) {
		ok &= p->labels.v[i].vnode && p->labels.v[i].vnode->at.src == w->obj.src;
		if (!ok)
			break;
		texts[i] = flow_text(p->labels.v[i].vnode);
		kids[i] = (struct sl_yentry){p->labels.v[i].key, texts[i], NULL, 0};
	}
	if (ok) {
		const struct sl_yentry ml = {"matchLabels", NULL, kids, p->labels.n};
		const struct sl_yentry sel = {"selector", NULL, &ml, 1};
		struct sl_fix *fx = sl_fix_new(f, "Select the template's labels in spec.selector.matchLabels");
		if (empty && w->selector->n) {
			/* only keys a selector does not have: write the whole selector anew */
			struct sl_buf b = SL_BUF_INIT;
			sl_buf_puts(&b, "{matchLabels: {");
			flow_entries(&b, kids, p->labels.n);
			sl_buf_puts(&b, "}}");
			sl_fix_replace(fx, w->obj.src, w->selector, b.s);
			sl_buf_free(&b);
		} else if (empty)
			sl_fix_insert(fx, w->obj.src, w->selector, NULL, &ml, 1);
		else
			sl_fix_insert(fx, w->obj.src, w->spec, tmpl, &sel, 1);
		sl_note(f, "fix: select the template's labels in spec.selector.matchLabels");
	}
	for (size_t i = 0; i < p->labels.n; i++)
		free(texts[i]);
	free(texts);
	free(kids);
}

/* No selector at all (apps/v1, apps/v1beta2, a manual Job): spec.selector: Required value. With
 * no template labels either, the shape of a kustomize base: a warning. */
static void report_missing(const struct sl_rule *self, struct sl_check *cx, const char *ref, const char *what)
{
	const struct sl_workload *w = cx->w;
	struct sl_finding *f =
	    sl_rule_report(self, cx, sl_ymap_key(w->obj.root, "spec"),
			   "%s has no spec.selector: the API server rejects it (spec.selector: Required value)", ref);
	sl_note(f, "%s requires a selector; it is not defaulted from the template's labels", what);
	if (!w->pod.labels.n) {
		/* Neither selector nor labels: the shape of a kustomize base or patch whose
		 * commonLabels / labels (includeSelectors) supply both. */
		if (f->level > SL_WARNING)
			f->level = SL_WARNING;
		sl_note(f, "a warning, not an error: with no template labels either, this looks like a kustomize "
			   "base or patch whose selector and labels come from commonLabels (or labels with "
			   "includeSelectors); as written it is rejected, so lint what kustomize builds");
	}
	offer_selector(f, w);
}

/* A selector with no requirement: empty selector is invalid. Keys written directly under it
 * (labels that belong under matchLabels) are named: they are why it is empty. */
static void report_empty(const struct sl_rule *self, struct sl_check *cx, const char *ref, const char *what)
{
	const struct sl_workload *w = cx->w;
	struct sl_finding *f =
	    sl_rule_report(self, cx, w->selector,
			   "%s has an empty spec.selector: the API server rejects it (empty selector is invalid)", ref);
	sl_note(f,
		"an empty selector would select every pod of the namespace; %s requires at least one "
		"matchLabels entry or matchExpressions requirement",
		what);
	for (size_t i = 0; w->selector->kind == SL_YMAP && i < w->selector->n; i++) {
		const struct sl_ynode *k = w->selector->v[2 * i];
		if (!sl_yis(k, "matchLabels") && !sl_yis(k, "matchExpressions"))
			sl_note(f,
				"%s is not a field of a label selector (labels go under matchLabels); the API "
				"server drops it, or refuses it under strict field validation",
				sl_yscalar(k) ? k->str : "a key");
	}
	offer_selector(f, w);
}

/* One note per failing requirement, with the template's value, and the template labels involved
 * as related locations. Returns whether every failing requirement is a matchLabels entry. */
static bool note_failing(struct sl_finding *f, const struct sl_workload *w, const bool *fail)
{
	bool only_labels = true;
	for (size_t i = 0; i < w->sel.nreqs; i++) {
		if (!fail[i])
			continue;
		struct sl_buf b = SL_BUF_INIT;
		describe_req(&b, &w->sel.reqs[i], &w->pod.labels);
		sl_note(f, "%s", b.s);
		sl_buf_free(&b);
		only_labels &= w->sel.reqs[i].node && w->sel.reqs[i].node->kind == SL_YSCALAR;
		const char *k = w->sel.reqs[i].key;
		for (size_t j = 0; j < w->pod.labels.n; j++)
			if (!strcmp(w->pod.labels.v[j].key, k) && w->pod.labels.v[j].knode)
				sl_add_related(f, &w->pod.labels.v[j].knode->at, "the template's label %s: %s", k,
					       w->pod.labels.v[j].val);
	}
	const struct sl_ynode *tl = sl_ypath(w->spec, "template.metadata.labels");
	if (tl && !w->pod.labels.n)
		sl_add_related(f, &tl->at, "the template's labels");
	return only_labels;
}

/* The selector misses the template's labels: at the first failing requirement. The fix note
 * says which fix there is: the template's labels (matchLabels only), or none. */
static void report_mismatch(const struct sl_rule *self, struct sl_check *cx, const char *ref, const bool *fail)
{
	const struct sl_workload *w = cx->w;
	size_t first = 0;
	while (!fail[first])
		first++;
	const struct sl_requirement *r = &w->sel.reqs[first];
	struct sl_finding *f =
	    sl_rule_report(self, cx, r->node ? r->node : w->selector,
			   "spec.selector of %s does not select its pod template's labels: the API server rejects it "
			   "(\"`selector` does not match template `labels`\")",
			   ref);
	bool only_labels = note_failing(f, w, fail);
	sl_note(f,
		"the %s controller counts as its own only the pods its selector matches; the API server "
		"refuses a template whose pods it would not own",
		w->obj.kind);
	size_t before = f->nfixes;
	if (only_labels)
		offer_fix(f, w, fail);
	if (f->nfixes > before)
		sl_note(f, "fix: give the template the selector's labels (the selector cannot change once the object "
			   "exists; check that Services still select the pods)");
	else
		sl_note(f, "fix: make spec.selector and spec.template.metadata.labels agree");
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	bool required;
	if (!w->spec || !applies(w, &required))
		return;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	const char *what = !strcmp(w->obj.kind, "Job") ? "a Job with manualSelector: true" : w->obj.api_version;
	if (sl_ynull(w->selector)) {
		if (required)
			report_missing(self, cx, ref, what);
		return;
	}
	if (w->sel.nreqs == 0) {
		if (required)
			report_empty(self, cx, ref, what);
		return;
	}
	bool *fail = sl_xcalloc(w->sel.nreqs, sizeof *fail);
	if (failing(&w->sel, &w->pod.labels, fail))
		report_mismatch(self, cx, ref, fail);
	free(fail);
}

const struct sl_rule sl_rule_selector_mismatch = {
    .id = "selector-mismatch",
    .name = "SelectorMissesTemplate",
    .summary = "spec.selector does not select the pod template's labels (the API server rejects it).",
    .description = "Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs with manualSelector: true must carry "
		   "a selector that matches their pod template's labels; apps/v1 also requires the selector to be "
		   "present and non-empty. The API server rejects the object otherwise.",
    .help = "Make `spec.selector` and `spec.template.metadata.labels` agree. The suggested fix adds the selector's "
	    "`matchLabels` to the template (the selector is immutable once the object exists); a missing selector "
	    "gets the template's labels.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
