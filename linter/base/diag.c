#include "diag.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

const char *sl_level_name(enum sl_level l)
{
	switch (l) {
	case SL_ERROR:
		return "error";
	case SL_WARNING:
		return "warning";
	case SL_NOTE:
		return "note";
	default:
		return "none";
	}
}

int sl_level_parse(const char *s, enum sl_level *out)
{
	static const struct {
		const char *name;
		enum sl_level l;
	} t[] = {{"error", SL_ERROR},
		 {"warning", SL_WARNING},
		 {"note", SL_NOTE},
		 {"none", SL_LEVEL_NONE},
		 {"off", SL_LEVEL_NONE}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(s, t[i].name)) {
			*out = t[i].l;
			return 0;
		}
	return -1;
}

static struct sl_finding *push(struct sl_findings *fs, const struct sl_rule *rule, enum sl_level lvl,
			       const struct sl_span *at, const char *fmt, va_list ap)
{
	if (fs->n == fs->cap) {
		/* Room for one first, then twice as much: a run keeps a list for each workload to the
		 * end of the checks, most with a finding or two, and sl_grow's four would leave most of
		 * every such list unused. */
		fs->cap = fs->cap ? 2 * fs->cap : 1;
		fs->v = sl_xrealloc(fs->v, fs->cap * sizeof *fs->v);
	}
	struct sl_finding *f = &fs->v[fs->n++];
	memset(f, 0, sizeof *f);
	f->rule = rule;
	f->level = lvl;
	if (at)
		f->at = *at;
	f->message = sl_vxasprintf(fmt, ap);
	return f;
}

struct sl_finding *sl_report(struct sl_findings *fs, const struct sl_rule *rule, enum sl_level lvl,
			     const struct sl_span *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sl_finding *f = push(fs, rule, lvl, at, fmt, ap);
	va_end(ap);
	return f;
}

/* A diagnostic about the input itself: at 1:1 of its source when no position is known. */
static void input_notice(struct sl_findings *fs, enum sl_level lvl, const struct sl_span *at, const char *fmt,
			 va_list ap)
{
	push(fs, NULL, lvl, at, fmt, ap); /* a span of a source at offset 0 is at 1:1 */
}

void sl_input_error(struct sl_findings *fs, const struct sl_span *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	input_notice(fs, SL_ERROR, at, fmt, ap);
	va_end(ap);
	fs->input_errors++;
}

void sl_input_note(struct sl_findings *fs, const struct sl_span *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	input_notice(fs, SL_NOTE, at, fmt, ap);
	va_end(ap);
}

void sl_input_warning(struct sl_findings *fs, const struct sl_span *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	input_notice(fs, SL_WARNING, at, fmt, ap);
	va_end(ap);
}

/* Room for need entries in one of a finding's arrays, whose count and room are 32 bits. */
static void room(void *arr, uint32_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return;
	size_t c = *cap;
	sl_grow_slow(arr, &c, need, sz);
	*cap = (uint32_t)c;
}

void sl_note(struct sl_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = sl_vxasprintf(fmt, ap);
	va_end(ap);
	room(&f->notes, &f->capnotes, (size_t)f->nnotes + 1, sizeof *f->notes);
	f->notes[f->nnotes++] = s;
}

void sl_add_related(struct sl_finding *f, const struct sl_span *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = sl_vxasprintf(fmt, ap);
	va_end(ap);
	room(&f->related, &f->caprelated, (size_t)f->nrelated + 1, sizeof *f->related);
	f->related[f->nrelated].at = *at;
	f->related[f->nrelated++].text = s;
}

void sl_related_reserve(struct sl_finding *f, size_t n)
{
	if (f->nrelated + n <= f->caprelated)
		return;
	f->caprelated = (uint32_t)(f->nrelated + n);
	f->related = sl_xrealloc(f->related, f->caprelated * sizeof *f->related);
}

struct sl_fix *sl_fix_new(struct sl_finding *f, const char *desc)
{
	room(&f->fixes, &f->capfixes, (size_t)f->nfixes + 1, sizeof *f->fixes);
	struct sl_fix *fx = &f->fixes[f->nfixes++];
	memset(fx, 0, sizeof *fx);
	fx->desc = sl_xstrdup(desc);
	return fx;
}

void sl_suppression_add(struct sl_finding *f, enum sl_suppress_kind kind, const char *justification,
			const struct sl_span *at)
{
	f->supp = sl_xrealloc(f->supp, (f->nsupp + 1) * sizeof *f->supp);
	struct sl_suppression *s = &f->supp[f->nsupp++];
	s->kind = kind;
	s->justification = justification && *justification ? sl_xstrdup(justification) : NULL;
	s->at = *at;
}

void sl_fix_free(struct sl_fix *fx)
{
	for (size_t k = 0; k < fx->nedits; k++)
		free(fx->edits[k].text);
	free(fx->edits);
	free(fx->desc);
}

void sl_finding_free(struct sl_finding *f)
{
	free(f->message);
	free(f->object);
	for (size_t j = 0; j < f->nnotes; j++)
		free(f->notes[j]);
	free(f->notes);
	for (size_t j = 0; j < f->nrelated; j++)
		free(f->related[j].text);
	free(f->related);
	for (size_t j = 0; j < f->nfixes; j++)
		sl_fix_free(&f->fixes[j]);
	free(f->fixes);
	for (size_t j = 0; j < f->nsupp; j++)
		free(f->supp[j].justification);
	free(f->supp);
}

void sl_findings_free(struct sl_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		sl_finding_free(&fs->v[i]);
	free(fs->v);
	memset(fs, 0, sizeof *fs);
}

void sl_findings_move(struct sl_findings *dst, struct sl_findings *src)
{
	for (size_t i = 0; i < src->n; i++) {
		sl_grow(&dst->v, &dst->cap, dst->n + 1, sizeof *dst->v);
		dst->v[dst->n++] = src->v[i];
	}
	dst->input_errors += src->input_errors;
	free(src->v);
	memset(src, 0, sizeof *src);
}

void sl_notice_add(struct sl_notices *ns, const char *id, enum sl_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sl_grow(&ns->v, &ns->cap, ns->n + 1, sizeof *ns->v);
	ns->v[ns->n++] = (struct sl_notice){id, level, sl_vxasprintf(fmt, ap)};
	va_end(ap);
}

void sl_notices_free(struct sl_notices *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i].text);
	free(ns->v);
	memset(ns, 0, sizeof *ns);
}
