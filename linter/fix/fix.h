/* fix.h — the fix stage: the first fix of every finding applied, as byte edits on the original
 * text (fix.c), and the fixed files written back atomically or their diff printed (fixwrite.c,
 * fixtemp.c, udiff.c). The edits themselves are made by the rules (rules/edits.h).
 * May include: base/, load/ and model/; never the rules, the
 * configuration, the report's emitters or the language server. */
#ifndef SL_FIX_H
#define SL_FIX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../load/yamldoc.h"
#include "../base/diag.h"

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
 * every change goes to diff instead. Returns 0, or -1 when some file could not be fixed; *nwritten
 * (unless NULL): how many files were rewritten. */
int sl_fix_files(const struct sl_sources *ss, const struct sl_findings *fs, FILE *diff, size_t *nwritten);

#endif
