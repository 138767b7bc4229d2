/* suppress.h — what silences a finding: an ignore entry of the config (external), and in the
 * manifest the annotation schedlint.io/ignore on the object, a `# schedlint-ignore: ids reason`
 * comment at the end of the reported line or alone on the lines just above it, and a
 * `# schedlint-ignore-document: ids reason` comment anywhere in the document (in source). A
 * suppressed finding stays in the report, marked; it does not count for the exit status. A
 * comment or annotation that silenced nothing becomes a finding of unused-suppression, once every
 * rule it names has run. Owns: the directives found (their ids and reasons). */
#ifndef SL_SUPPRESS_H
#define SL_SUPPRESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/k8s.h"
#include "config.h"

struct sl_directive;

struct sl_suppress {
	struct sl_config *c;
	struct sl_directive *v;
	size_t n, cap;
	size_t target_first; /* directives of the target being checked start here */
	int cur_target;      /* -1: the default target */
	/* per target (index + 1; 0 is the default target): whether nodes were known, so that rules
	 * needing them ran */
	bool *had_nodes;
	size_t ntargets;
};

void sl_suppress_init(struct sl_suppress *s, struct sl_config *c);
/* A target's directives: the comments of each of its manifest sources, the annotations of each
 * of its objects. Call sl_suppress_begin first, then these, then sl_suppress_apply. */
void sl_suppress_begin(struct sl_suppress *s, int target, bool had_nodes);
/* ys: the source's tree, so that text inside scalars (scripts, quoted strings) is not taken for a
 * comment. */
void sl_suppress_source(struct sl_suppress *s, const struct sl_source *src, const struct sl_ystream *ys);
void sl_suppress_object(struct sl_suppress *s, const struct sl_object *o);
/* Whether src may hold a suppression comment: then every document's tree of it is read, whole,
 * to tell comments from text inside scalars. */
bool sl_suppress_reads_source(const struct sl_source *src);
/* Whether o carries the suppression annotation (its tree is read then). */
bool sl_suppress_reads_object(const struct sl_object *o);
/* Mark the target's findings fs->v[from..n) that a directive or an ignore entry covers. An ignore
 * pattern that stops at a limit is an input error, appended to fs after them. */
void sl_suppress_apply(struct sl_suppress *s, struct sl_findings *fs, size_t from);
/* unused-suppression findings for every directive that silenced nothing, into out (and the
 * ignore patterns' limit errors on them, after them). */
void sl_suppress_unused(struct sl_suppress *s, struct sl_findings *out);
void sl_suppress_free(struct sl_suppress *s);

#endif
