/* suppress.c — finding and applying suppressions (see suppress.h). Comments are found in the
 * bytes (libyaml drops them), which is why a directive must follow '#' at the start of a line or
 * after a blank; lookups go through directives sorted by source and line, never a scan per
 * finding. */
#include "suppress.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../load/input.h"

extern const struct sl_rule sl_rule_unused_suppression;

enum dir_kind { DIR_LINE, DIR_DOCUMENT, DIR_ANNOTATION };

struct sl_directive {
	enum dir_kind kind;
	int target;
	const struct sl_source *src;
	struct sl_span at;           /* the comment from '#', or the annotation's value */
	uint32_t key;                /* the sort key: the line covered, the document start, the object */
	uint32_t doc_end;            /* DIR_DOCUMENT: the document is [key, doc_end) */
	const struct sl_ynode *root; /* DIR_ANNOTATION: the object */
	uint32_t ids_off, ids_end;   /* the list of ids in the source */
	uint32_t cut_off, cut_end;   /* what deleting the whole directive removes */
	char **ids;
	size_t *used;
	size_t nids;
	char *reason;
};

void sl_suppress_init(struct sl_suppress *s, struct sl_config *c)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	s->ntargets = c->ntargets + 1;
	s->had_nodes = sl_xcalloc(s->ntargets, sizeof *s->had_nodes);
}

void sl_suppress_begin(struct sl_suppress *s, int target, bool had_nodes)
{
	s->target_first = s->n;
	s->cur_target = target;
	s->had_nodes[target + 1] = had_nodes;
}

static struct sl_directive *push(struct sl_suppress *s, enum dir_kind kind, const struct sl_source *src)
{
	sl_grow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
	struct sl_directive *d = &s->v[s->n++];
	memset(d, 0, sizeof *d);
	d->kind = kind;
	d->src = src;
	d->target = s->cur_target;
	return d;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* "a,b reason" or "a, b reason" from p to end: the ids, their extent and the reason. */
static void parse_ids(struct sl_directive *d, const char *base, const char *p, const char *end)
{
	while (p < end && blank(*p))
		p++;
	d->ids_off = (uint32_t)(p - base);
	for (;;) {
		const char *q = p;
		while (q < end && id_char(*q))
			q++;
		if (q == p)
			break;
		d->ids = sl_xrealloc(d->ids, (d->nids + 1) * sizeof *d->ids);
		d->ids[d->nids++] = strndup(p, (size_t)(q - p));
		d->ids_end = (uint32_t)(q - base);
		const char *r = q;
		while (r < end && blank(*r))
			r++;
		if (r < end && *r == ',') {
			p = r + 1;
			while (p < end && blank(*p))
				p++;
			continue;
		}
		p = q;
		break;
	}
	if (!d->nids)
		d->ids_end = d->ids_off;
	while (p < end && blank(*p))
		p++;
	const char *e = end;
	while (e > p && (blank(e[-1]) || e[-1] == '\r'))
		e--;
	if (e > p)
		d->reason = strndup(p, (size_t)(e - p));
	d->used = sl_xcalloc(d->nids + 1, sizeof *d->used);
}

static bool is_json(const struct sl_source *src)
{
	size_t n = strlen(src->path);
	return n > 5 && !strcmp(src->path + n - 5, ".json");
}

/* Whether the line starting at off holds only a comment. */
static bool comment_line(const struct sl_source *src, size_t off)
{
	while (off < src->len && blank(src->data[off]))
		off++;
	return off < src->len && src->data[off] == '#';
}

static bool doc_marker(const struct sl_source *src, size_t off)
{
	const char *p = src->data + off;
	size_t left = src->len - off;
	return left >= 3 && (!memcmp(p, "---", 3) || !memcmp(p, "...", 3)) &&
	       (left == 3 || blank(p[3]) || p[3] == '\n' || p[3] == '\r');
}

/* The document around off: from the marker line at or before it to the next marker line. */
static void doc_range(const struct sl_source *src, size_t line, uint32_t *start, uint32_t *end)
{
	size_t l = line; /* 0-based */
	while (l > 0 && !doc_marker(src, src->lines[l]))
		l--;
	*start = (uint32_t)src->lines[l];
	size_t e = line + 1;
	while (e < src->nlines && !doc_marker(src, src->lines[e]))
		e++;
	*end = e < src->nlines ? (uint32_t)src->lines[e] : (uint32_t)src->len;
}

static const char MARK[] = "schedlint-ignore";

static void one_comment(struct sl_suppress *s, const struct sl_source *src, const struct sl_ystream *ys,
			const char *hit)
{
	const char *data = src->data, *end = data + src->len;
	const char *hash = hit;
	while (hash > data && blank(hash[-1]))
		hash--;
	if (hash == data || hash[-1] != '#')
		return;
	hash--;
	if (hash > data && !blank(hash[-1]) && hash[-1] != '\n')
		return; /* '#' inside a word: not a comment */
	if (sl_ystream_in_scalar(ys, (size_t)(hash - data)))
		return;
	const char *p = hit + sizeof MARK - 1;
	enum dir_kind kind;
	if (p < end && *p == ':') {
		kind = DIR_LINE;
		p++;
	} else if ((size_t)(end - p) >= 10 && !memcmp(p, "-document:", 10)) {
		kind = DIR_DOCUMENT;
		p += 10;
	} else
		return;
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	const char *bol = hash;
	while (bol > data && bol[-1] != '\n')
		bol--;
	bool alone = true;
	for (const char *q = bol; q < hash && alone; q++)
		alone = blank(*q);
	struct sl_directive *d = push(s, kind, src);
	size_t off = (size_t)(hash - data);
	const char *cend = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
	sl_source_span(src, off, (size_t)(cend - data), &d->at);
	parse_ids(d, data, p, eol);
	if (alone) { /* the whole line, its newline included */
		d->cut_off = (uint32_t)(bol - data);
		d->cut_end = (uint32_t)(eol < end ? eol + 1 - data : eol - data);
	} else { /* the comment and the blanks before it, not the line's end */
		const char *c = hash;
		while (c > bol && blank(c[-1]))
			c--;
		d->cut_off = (uint32_t)(c - data);
		d->cut_end = (uint32_t)(cend - data);
	}
	size_t line = sl_span_line(&d->at) - 1; /* 0-based */
	if (kind == DIR_DOCUMENT) {
		doc_range(src, line, &d->key, &d->doc_end);
	} else if (!alone) {
		d->key = line + 1;
	} else { /* the first line below that is not a comment of its own */
		size_t l = line + 1;
		while (l < src->nlines && comment_line(src, src->lines[l]))
			l++;
		d->key = (uint32_t)l + 1;
	}
}

void sl_suppress_source(struct sl_suppress *s, const struct sl_source *src, const struct sl_ystream *ys)
{
	/* A stream something was left out of, or whose bytes were given back, comes from a source
	 * without a directive (those that may hold one are parsed whole and keep their bytes, see
	 * sl_suppress_reads_source), whose bytes may be gone. */
	if (src->failed || is_json(src) || !src->lines || (ys && ys->partial) || !src->data)
		return;
	/* strstr, much faster than a memchr per 's', stops at a NUL: the search goes on past each. */
	const char *end = src->data + src->len;
	for (const char *from = src->data; from < end;) {
		for (const char *p = from; (p = strstr(p, MARK)); p++)
			one_comment(s, src, ys, p);
		from += strlen(from);
		while (from < end && !*from)
			from++;
	}
}

#define ANNOTATION "schedlint.io/ignore"

bool sl_suppress_reads_source(const struct sl_source *src)
{
	/* Asked of every source: memchr for MARK's 'h' (one byte in 170 of YAML) passes over the
	 * bytes several times faster than strstr. The bytes end in a NUL; one inside them ends the
	 * YAML too (libyaml refuses it), so nothing past it is in a document: a hit counts only
	 * with no NUL before it, as strstr would have found it. */
	const char *data = src->data;
	if (!data)
		return false;
	const size_t at = 2, n = sizeof MARK - 1; /* MARK[at] == 'h' */
	for (const char *h = data + at; h < data + src->len; h++) {
		h = memchr(h, MARK[at], src->len - (size_t)(h - data));
		if (!h)
			return false;
		if ((size_t)(data + src->len - (h - at)) >= n && !memcmp(h - at, MARK, n))
			return !memchr(data, 0, (size_t)(h - at - data));
	}
	return false;
}

bool sl_suppress_reads_object(const struct sl_object *o)
{
	return sl_ymap_get(sl_ypath(o->root, "metadata.annotations"), ANNOTATION) != NULL;
}

void sl_suppress_object(struct sl_suppress *s, const struct sl_object *o)
{
	const struct sl_ynode *ann = sl_ypath(o->root, "metadata.annotations");
	const struct sl_ynode *v = sl_ymap_get(ann, ANNOTATION);
	if (!sl_yscalar(v))
		return;
	struct sl_directive *d = push(s, DIR_ANNOTATION, o->src);
	d->at = v->at;
	d->root = o->root;
	d->key = o->root->at.off;
	/* The ids are the scalar's text; where it is written verbatim, fixes can edit them. */
	size_t q = v->plain ? 0 : 1;
	const char *text = sl_source_text(o->src); /* NULL: not known verbatim, so not edited */
	bool verbatim = text && v->at.off + q + v->len <= o->src->len && !memcmp(text + v->at.off + q, v->str, v->len);
	parse_ids(d, v->str, v->str, v->str + v->len);
	d->ids_off = verbatim ? d->ids_off + v->at.off + (uint32_t)q : 0;
	d->ids_end = verbatim ? d->ids_end + v->at.off + (uint32_t)q : 0;
	free(d->reason); /* the reason has an annotation of its own */
	const struct sl_ynode *r = sl_ymap_get(ann, "schedlint.io/ignore-reason");
	d->reason = sl_yscalar(r) && !sl_ynull(r) ? sl_xstrdup(r->str) : NULL;
}

/* --- lookups ---------------------------------------------------------------------------- */

static int cmp_dir(const void *a, const void *b)
{
	const struct sl_directive *x = *(const struct sl_directive *const *)a,
				  *y = *(const struct sl_directive *const *)b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->src->order != y->src->order)
		return x->src->order < y->src->order ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The first directive of kind in src whose key is >= key, in the sorted index. */
static size_t lower_bound(struct sl_directive **idx, size_t n, enum dir_kind kind, const struct sl_source *src,
			  uint32_t key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct sl_directive *d = idx[mid];
		bool less = d->kind != kind               ? d->kind < kind
			    : d->src->order != src->order ? d->src->order < src->order
							  : d->key < key;
		if (less)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether d names the finding's rule; marks the id used. */
static bool names(struct sl_directive *d, const struct sl_rule *rule)
{
	for (size_t i = 0; i < d->nids; i++)
		if (!strcmp(d->ids[i], "all") || !strcmp(d->ids[i], rule->id)) {
			d->used[i]++;
			return true;
		}
	return false;
}

static void in_source(struct sl_finding *f, struct sl_directive *d)
{
	if (names(d, f->rule))
		sl_suppression_add(f, SL_SUPPRESS_IN_SOURCE, d->reason, &d->at);
}

/* The errors of ignore patterns that stopped at a limit, gathered apart from the findings being
 * matched: appending to the array under the loop would move it (a use-after-free found from
 * outside, with three findings or more). One error per pattern and pass, naming the first value;
 * a note counts the others, rather than one error per finding for the same pattern. */
struct limit_hit {
	const struct sl_pattern *p;
	size_t err;   /* its error in errs */
	size_t count; /* values it could not judge */
};

struct limit_errs {
	struct sl_findings errs;
	struct limit_hit *v;
	size_t n, cap;
};

static void limit_hit(struct limit_errs *le, const struct sl_pattern *p, const char *what, const char *val,
		      const struct sl_finding *f, const char *why)
{
	for (size_t i = 0; i < le->n; i++)
		if (le->v[i].p == p) {
			le->v[i].count++;
			return;
		}
	sl_grow(&le->v, &le->cap, le->n + 1, sizeof *le->v);
	le->v[le->n++] = (struct limit_hit){p, le->errs.n, 1};
	sl_input_error(&le->errs, &p->at, "ignore pattern '%s' on the %s '%s' of %s: %s", p->text, what, val,
		       f->object ? f->object : "a finding", why);
}

/* Move the gathered errors behind the findings, once nothing points into them any more. */
static void limit_flush(struct limit_errs *le, struct sl_findings *out)
{
	for (size_t i = 0; i < le->n; i++)
		if (le->v[i].count > 1)
			sl_note(&le->errs.v[le->v[i].err], "the limit stopped this pattern on %zu values in all",
				le->v[i].count);
	sl_findings_move(out, &le->errs);
	free(le->v);
	memset(le, 0, sizeof *le);
}

/* A config pattern on a value of the finding; a limit reached is an error, and no match. */
static bool matches(struct sl_suppress *s, const struct sl_pattern *p, const char *what, const char *val,
		    const struct sl_finding *f, struct limit_errs *le)
{
	if (!p)
		return true;
	char why[160];
	int rc = sl_pattern_match(p, &s->c->mx, val, strlen(val), why, sizeof why);
	if (rc < 0)
		limit_hit(le, p, what, val, f, why);
	return rc == 1;
}

static bool ignore_covers(struct sl_suppress *s, const struct sl_ignore *ig, const struct sl_finding *f,
			  const struct sl_object *o, char **rel, struct limit_errs *le)
{
	bool rule = ig->all;
	for (size_t i = 0; i < ig->nrules && !rule; i++)
		rule = ig->rules[i] == f->rule;
	if (!rule)
		return false;
	if ((ig->kind || ig->namespace || ig->name) && !o)
		return false;
	if (ig->path) {
		if (!*rel) /* once per finding, whatever the number of entries */
			*rel = sl_config_relpath(s->c, f->at.src ? f->at.src->path : "");
		if (!matches(s, ig->path, "path", *rel, f, le))
			return false;
	}
	return matches(s, ig->kind, "kind", o ? o->kind : "", f, le) &&
	       matches(s, ig->namespace, "namespace", o ? o->namespace : "", f, le) &&
	       matches(s, ig->name, "name", o ? o->name : "", f, le);
}

static void external(struct sl_suppress *s, struct sl_finding *f, struct limit_errs *le)
{
	struct sl_object o;
	if (f->subject)
		sl_object_read(f->subj_src, f->subject, &o);
	char *rel = NULL;
	for (size_t i = 0; i < s->c->nignores; i++) {
		const struct sl_ignore *ig = &s->c->ignores[i];
		if (ignore_covers(s, ig, f, f->subject ? &o : NULL, &rel, le)) {
			sl_suppression_add(f, SL_SUPPRESS_EXTERNAL, ig->reason, &ig->node->at);
			break;
		}
	}
	free(rel);
}

void sl_suppress_apply(struct sl_suppress *s, struct sl_findings *fs, size_t from)
{
	struct limit_errs le = {0};
	size_t nd = s->n - s->target_first;
	struct sl_directive **idx = sl_xcalloc(nd + 1, sizeof *idx);
	for (size_t i = 0; i < nd; i++)
		idx[i] = &s->v[s->target_first + i];
	qsort(idx, nd, sizeof *idx, cmp_dir);
	for (size_t i = from; i < fs->n; i++) {
		struct sl_finding *f = &fs->v[i];
		if (!f->rule)
			continue;
		external(s, f, &le);
		if (!f->at.src || !nd)
			continue;
		if (f->subject) { /* the annotation of the object the finding is about */
			size_t k = lower_bound(idx, nd, DIR_ANNOTATION, f->subj_src, f->subj_off);
			if (k < nd && idx[k]->kind == DIR_ANNOTATION && idx[k]->root == f->subject)
				in_source(f, idx[k]);
		}
		/* and of the object the finding points into, when that is another one (a budget's
		 * finding is about the workload it blocks, but written at the budget) */
		size_t k = lower_bound(idx, nd, DIR_ANNOTATION, f->at.src, f->at.off + 1);
		if (k > 0 && idx[k - 1]->kind == DIR_ANNOTATION && idx[k - 1]->src == f->at.src &&
		    idx[k - 1]->root != f->subject && f->at.off < idx[k - 1]->root->at.end)
			in_source(f, idx[k - 1]);
		/* comments that cover the reported line */
		unsigned line = sl_span_line(&f->at);
		for (size_t k = lower_bound(idx, nd, DIR_LINE, f->at.src, line);
		     k < nd && idx[k]->kind == DIR_LINE && idx[k]->src == f->at.src && idx[k]->key == line; k++)
			in_source(f, idx[k]);
		/* the document's: the last that starts at or before the finding, and those at the same
		 * start (one document can hold several) */
		k = lower_bound(idx, nd, DIR_DOCUMENT, f->at.src, f->at.off + 1);
		while (k-- > 0 && idx[k]->kind == DIR_DOCUMENT && idx[k]->src == f->at.src &&
		       f->at.off < idx[k]->doc_end && idx[k]->key <= f->at.off)
			in_source(f, idx[k]);
	}
	free(idx);
	limit_flush(&le, fs);
}

/* --- unused ----------------------------------------------------------------------------- */

/* Whether the run could have reported id in the directive's target: an unknown id never; a
 * rule that is off, or that needs nodes where none were known, did not run. */
static int ran(const struct sl_suppress *s, const struct sl_directive *d, const char *id)
{
	if (!strcmp(id, "all"))
		return s->had_nodes[d->target + 1];
	const struct sl_rule *r = sl_config_rule(s->c, id);
	if (!r)
		return -1;
	if (s->c->levels[sl_config_rule_index(s->c, r)] == SL_LEVEL_NONE)
		return 0;
	return !r->needs_nodes || s->had_nodes[d->target + 1];
}

static void unused_fix(struct sl_finding *f, const struct sl_directive *d, bool none_used)
{
	if (d->kind != DIR_ANNOTATION && none_used) {
		struct sl_fix *fx = sl_fix_new(f, "remove the suppression comment");
		sl_fix_edit(fx, d->src, d->cut_off, d->cut_end, "");
		return;
	}
	if (none_used || !d->ids_end)
		return; /* an annotation: its key may be all the mapping holds, so it is left to a person */
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < d->nids; i++)
		if (d->used[i])
			sl_buf_printf(&b, "%s%s", b.len ? "," : "", d->ids[i]);
	struct sl_fix *fx = sl_fix_new(f, "keep only the rules the suppression silences");
	sl_fix_edit(fx, d->src, d->ids_off, d->ids_end, b.s);
	sl_buf_free(&b);
}

static void report_unused(struct sl_suppress *s, struct sl_directive *d, enum sl_level level, struct sl_findings *out)
{
	struct sl_buf stale = SL_BUF_INIT, unknown = SL_BUF_INIT;
	size_t nused = 0, nstale = 0;
	for (size_t i = 0; i < d->nids; i++) {
		if (d->used[i]) {
			nused++;
			continue;
		}
		int r = ran(s, d, d->ids[i]);
		if (r < 0)
			sl_buf_printf(&unknown, "%s'%s'", unknown.len ? ", " : "", d->ids[i]);
		else if (r > 0) {
			sl_buf_printf(&stale, "%s%s", stale.len ? ", " : "", d->ids[i]);
			nstale++;
		}
	}
	const char *what = d->kind == DIR_ANNOTATION ? "the annotation " ANNOTATION
			   : d->kind == DIR_DOCUMENT ? "schedlint-ignore-document"
						     : "schedlint-ignore";
	struct sl_finding *f = NULL;
	if (!d->nids)
		f = sl_report(out, &sl_rule_unused_suppression, level, &d->at,
			      "%s names no rule: write the rule ids, separated by commas, or all", what);
	else if (unknown.len)
		f = sl_report(out, &sl_rule_unused_suppression, level, &d->at,
			      "%s names no rule %s (schedlint --list-rules lists them)", what, unknown.s);
	else if (nstale)
		f = sl_report(out, &sl_rule_unused_suppression, level, &d->at, "%s of %s matched no finding", what,
			      stale.s);
	if (f) {
		f->subj_src = d->src;
		f->subj_off = d->at.off;
		f->target = d->target >= 0 ? s->c->targets[d->target].name : NULL;
		if (d->reason)
			sl_note(f, "its reason: %s", d->reason);
		/* Only what is provably stale is removed: with an unknown id (a typo to correct) or one
		 * whose rule did not run, the comment is left to a person. */
		if (d->nids && nused + nstale == d->nids)
			unused_fix(f, d, nused == 0);
	}
	sl_buf_free(&stale);
	sl_buf_free(&unknown);
}

void sl_suppress_unused(struct sl_suppress *s, struct sl_findings *out)
{
	int k = sl_config_rule_index(s->c, &sl_rule_unused_suppression);
	enum sl_level level = k >= 0 ? s->c->levels[k] : SL_NOTE;
	if (level == SL_LEVEL_NONE)
		return;
	size_t from = out->n;
	for (size_t i = 0; i < s->n; i++)
		report_unused(s, &s->v[i], level, out);
	/* The config's ignore entries may silence these too; comments do not (they are the subject). */
	struct limit_errs le = {0};
	for (size_t i = from; i < out->n; i++)
		external(s, &out->v[i], &le);
	limit_flush(&le, out);
}

void sl_suppress_free(struct sl_suppress *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t k = 0; k < s->v[i].nids; k++)
			free(s->v[i].ids[k]);
		free(s->v[i].ids);
		free(s->v[i].used);
		free(s->v[i].reason);
	}
	free(s->v);
	free(s->had_nodes);
	memset(s, 0, sizeof *s);
}
