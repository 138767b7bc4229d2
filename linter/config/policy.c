/* policy.c — evaluating the config's policies over manifest objects. A field path fans out over
 * lists ([*]); each value reached is matched, and for `match` each branch that stops short of
 * the field is a finding of its own, reported where the field would go. */
#include "policy.h"

#include <stdio.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../load/source.h"

/* Where a kind keeps its pod specs. A kind that keeps several keeps them in the entries of a list
 * (`list`), each at `path` below its entry: a JobSet's replicatedJobs and a Volcano Job's tasks,
 * told from batch/v1's Job by their API group. */
struct podspec_where {
	const char *kind, *group, *list, *path;
};

static const struct podspec_where *podspec_where(const struct sl_object *o)
{
	static const struct podspec_where where[] = {
	    {"Pod", NULL, NULL, "spec"},
	    {"Deployment", NULL, NULL, "spec.template.spec"},
	    {"ReplicaSet", NULL, NULL, "spec.template.spec"},
	    {"StatefulSet", NULL, NULL, "spec.template.spec"},
	    {"DaemonSet", NULL, NULL, "spec.template.spec"},
	    {"Job", "batch.volcano.sh/", "spec.tasks", "template.spec"},
	    {"Job", NULL, NULL, "spec.template.spec"},
	    {"ReplicationController", NULL, NULL, "spec.template.spec"},
	    {"CronJob", NULL, NULL, "spec.jobTemplate.spec.template.spec"},
	    {"PodTemplate", NULL, NULL, "template.spec"},
	    {"JobSet", "jobset.x-k8s.io/", "spec.replicatedJobs", "template.spec.template.spec"},
	};
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
		if (!strcmp(o->kind, where[i].kind) &&
		    (!where[i].group ||
		     (o->api_version && !strncmp(o->api_version, where[i].group, strlen(where[i].group)))))
			return &where[i];
	return NULL;
}

static bool kind_applies(const struct sl_policy *p, const struct sl_object *o)
{
	if (!p->nkinds) /* the kinds that keep a pod spec: what "every workload" means */
		return podspec_where(o) != NULL;
	for (size_t i = 0; i < p->nkinds; i++)
		if (!strcmp(p->kinds[i], o->kind))
			return true;
	return false;
}

struct walk {
	struct sl_config *c;
	const struct sl_policy *p;
	int level;
	const struct sl_object *o;
	struct sl_findings *out, *errs;
	const struct sl_ynode *near; /* the last key passed: where a missing field is reported */
};

static void append_key(struct sl_buf *b, const char *key)
{
	if (strpbrk(key, ".[]")) {
		sl_buf_puts(b, "[\"");
		sl_buf_puts(b, key);
		sl_buf_puts(b, "\"]");
		return;
	}
	if (b->len)
		sl_buf_putc(b, '.');
	sl_buf_puts(b, key);
}

static struct sl_finding *report(struct walk *w, const struct sl_ynode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static struct sl_finding *report(struct walk *w, const struct sl_ynode *at, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	struct sl_finding *f =
	    sl_report(w->out, &w->p->rule, (enum sl_level)w->level, &at->at, "%s: %s", w->p->rule.summary, b.s);
	sl_buf_free(&b);
	char ref[512];
	sl_object_ref(w->o, ref, sizeof ref);
	f->object = sl_xstrdup(ref);
	sl_finding_subject(f, w->o);
	sl_add_related(f, &w->p->node->at, "the policy %s, in the config", w->p->rule.id);
	return f;
}

/* At most this much of a value is quoted in a message. */
#define QUOTE_MAX 80

static void leaf(struct walk *w, const struct sl_ynode *n, const struct sl_buf *path)
{
	const struct sl_policy *p = w->p;
	const struct sl_pattern *pat = p->forbid ? p->forbid : p->match;
	if (sl_ynull(n)) {
		if (p->match)
			report(w, n, "%s is empty", sl_buf_str(path));
		return;
	}
	if (n->kind != SL_YSCALAR) {
		if (p->match)
			report(w, n, "%s is %s, not a value", sl_buf_str(path), sl_ykind_name(n));
		return;
	}
	char why[160];
	int rc = sl_pattern_match(pat, &w->c->mx, n->str, n->len, why, sizeof why);
	char ref[512];
	sl_object_ref(w->o, ref, sizeof ref);
	if (rc < 0) {
		unsigned line, col;
		sl_span_start(&pat->at, &line, &col);
		sl_input_error(w->errs, &n->at, "policy %s: pattern '%s' (%s:%u:%u) on %s of %s: %s", p->rule.id,
			       pat->text, w->c->path, line, col, sl_buf_str(path), ref, why);
		return;
	}
	int shown = n->len > QUOTE_MAX ? QUOTE_MAX : (int)n->len;
	while (shown < (int)n->len && shown > 0 && ((unsigned char)n->str[shown] & 0xC0) == 0x80)
		shown--; /* cut between characters: half of one is not UTF-8 */
	const char *more = n->len > QUOTE_MAX ? "…" : "";
	if (p->forbid && rc == 1)
		report(w, n, "%s '%.*s%s' matches the forbidden pattern '%s'", sl_buf_str(path), shown, n->str, more,
		       pat->text);
	else if (p->match && rc == 0)
		report(w, n, "%s '%.*s%s' does not match '%s'", sl_buf_str(path), shown, n->str, more, pat->text);
}

static void missing(struct walk *w, const struct sl_ynode *near, struct sl_buf *path, size_t from)
{
	if (!w->p->match)
		return;
	/* The rest of the path as written, after what exists. */
	for (size_t i = from; i < w->p->nsteps; i++) {
		const struct sl_step *st = &w->p->steps[i];
		if (st->kind == SL_STEP_KEY)
			append_key(path, st->key);
		else if (st->kind == SL_STEP_ALL)
			sl_buf_puts(path, "[*]");
		else
			sl_buf_printf(path, "[%zu]", st->index);
	}
	report(w, near, "%s is missing", sl_buf_str(path));
}

static void walk(struct walk *w, const struct sl_ynode *n, size_t i, struct sl_buf *path)
{
	const struct sl_policy *p = w->p;
	if (i == p->nsteps) {
		leaf(w, n, path);
		return;
	}
	const struct sl_step *st = &p->steps[i];
	size_t mark = path->len;
	const struct sl_ynode *near = w->near;
	if (st->kind == SL_STEP_KEY) {
		const struct sl_ynode *v = n && n->kind == SL_YMAP ? sl_ymap_get(n, st->key) : NULL;
		if (!v || (sl_ynull(v) && i + 1 < p->nsteps)) {
			missing(w, v ? v : near, path, i);
		} else {
			append_key(path, st->key);
			w->near = sl_ymap_key(n, st->key);
			walk(w, v, i + 1, path);
		}
	} else if (!n || n->kind != SL_YSEQ) {
		missing(w, near, path, i);
	} else if (st->kind == SL_STEP_ALL) {
		for (size_t k = 0; k < n->n; k++) {
			sl_buf_printf(path, "[%zu]", k);
			w->near = n->v[k];
			walk(w, n->v[k], i + 1, path);
			path->len = mark;
			path->s[mark] = 0;
		}
	} else if (st->index < n->n) {
		sl_buf_printf(path, "[%zu]", st->index);
		w->near = n->v[st->index];
		walk(w, n->v[st->index], i + 1, path);
	} else
		missing(w, near, path, i);
	w->near = near;
	if (path->s) {
		path->len = mark;
		path->s[mark] = 0;
	}
}

static void walk_from(struct walk *w, const struct sl_ynode *base, const char *where)
{
	struct sl_buf path = SL_BUF_INIT;
	sl_buf_puts(&path, where);
	walk(w, base, 0, &path);
	sl_buf_free(&path);
}

/* The policy over each of the object's pod specs; none for a kind that keeps none (not this
 * policy's business), nor for a list that is not there. */
static void walk_podspecs(struct walk *w, const struct podspec_where *at)
{
	if (!at)
		return;
	if (!at->list) {
		walk_from(w, sl_ypath(w->o->root, at->path), at->path);
		return;
	}
	const struct sl_ynode *l = sl_ypath(w->o->root, at->list);
	for (size_t k = 0; l && l->kind == SL_YSEQ && k < l->n; k++) {
		char where[128];
		snprintf(where, sizeof where, "%s[%zu].%s", at->list, k, at->path);
		w->near = l->v[k];
		walk_from(w, sl_ypath(l->v[k], at->path), where);
	}
}

bool sl_policies_read(const struct sl_config *c, const struct sl_object *o)
{
	for (size_t i = 0; i < c->npolicies; i++)
		if (c->levels[sl_nrules + i] != SL_LEVEL_NONE && kind_applies(&c->policies[i], o))
			return true;
	return false;
}

bool sl_policies_read_key(const struct sl_config *c, const char *key)
{
	for (size_t i = 0; i < c->npolicies; i++)
		for (size_t k = 0; c->levels[sl_nrules + i] != SL_LEVEL_NONE && k < c->policies[i].nsteps; k++)
			if (c->policies[i].steps[k].kind == SL_STEP_KEY && !strcmp(c->policies[i].steps[k].key, key))
				return true;
	return false;
}

void sl_policies_check(struct sl_config *c, const struct sl_object *o, struct sl_findings *out,
		       struct sl_findings *errs)
{
	for (size_t i = 0; i < c->npolicies; i++) {
		const struct sl_policy *p = &c->policies[i];
		int level = c->levels[sl_nrules + i]; /* policies follow the built-in rules */
		if (level == SL_LEVEL_NONE || !kind_applies(p, o))
			continue;
		struct walk w = {c, p, level, o, out, errs, o->kind_node ? o->kind_node : o->root};
		if (p->podspec)
			walk_podspecs(&w, podspec_where(o));
		else
			walk_from(&w, o->root, "");
	}
}
