/* fix.h — suggested fixes as byte edits on the original text: entries inserted into a mapping
 * at the file's own indentation and line ending (block style) or as flow entries ({…}, JSON),
 * scalars replaced in place, so comments and formatting elsewhere stay untouched. Also applies
 * edits, and writes the fixed files back or prints their diff (fixwrite.c). */
#ifndef SL_FIX_H
#define SL_FIX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "k8s.h"
#include "yamldoc.h"

/* A mapping entry to insert: a scalar value, or nested entries. */
struct sl_yentry {
	const char *key;
	const char *val; /* NULL: kids */
	const struct sl_yentry *kids;
	size_t nkids;
};

/* Insert entries into mapping `map` of src, before key node `before` (NULL: the first key). */
void sl_fix_insert(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *map,
		   const struct sl_ynode *before, const struct sl_yentry *e, size_t n);
/* Replace a node's text. */
void sl_fix_replace(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *node, const char *text);
/* Make a Deployment's strategy RollingUpdate with the given maxSurge / maxUnavailable, editing
 * what is written and inserting what is not. */
void sl_fix_rolling_params(struct sl_fix *fx, const struct sl_workload *w, const char *surge, const char *unavail);
/* Make a Deployment's strategy Recreate (dropping rollingUpdate, which Recreate forbids). */
void sl_fix_recreate(struct sl_fix *fx, const struct sl_workload *w);

struct sl_udiff_span;

/* Whether two of the edits overlap (an insertion at a replacement's start does not). */
bool sl_fix_overlap(const struct sl_edit *const *edits, size_t n);

/* Apply non-overlapping edits of one source; returns a new NUL-terminated buffer. Returns NULL
 * when edits overlap. */
char *sl_fix_apply(const struct sl_source *src, const struct sl_edit *const *edits, size_t n, size_t *outlen);
/* The same, and where each edit went in the new text: n spans, in the text's order. */
char *sl_fix_apply_spans(const struct sl_source *src, const struct sl_edit *const *edits, size_t n, size_t *outlen,
			 struct sl_udiff_span *spans);

struct sl_sources;
struct sl_findings;

/* Apply the first fix of every finding that is not suppressed, file by file (a fix that meets
 * an earlier one in the same file is left for the next run; standard input is left alone). With
 * diff NULL each changed file is replaced atomically, keeping its mode, owner and group where
 * permitted, writing through a symlink to its target: in the directory it was read from, and only
 * if it is still the file read (the sources must have been read with record_origin, input.h); a
 * file that changed meanwhile, or cannot be written, is reported on stderr and left unchanged, as
 * is a file whose fixed text would not parse. With diff, nothing is written: the unified diff of
 * every change goes to diff instead. Returns 0, or -1 when some file could not be fixed. */
int sl_fix_files(const struct sl_sources *ss, const struct sl_findings *fs, FILE *diff);

#endif
