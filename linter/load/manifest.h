/* manifest.h — which files are Kubernetes manifests. A repository holds much YAML and JSON that
 * is not (workflows, values.yaml, Chart.yaml, compose files, tsconfig.json with comments): a file
 * is a manifest when one of its documents has apiVersion and kind, and one that has none is left
 * alone whatever its syntax. A file that does not parse is an error only when it looks like a
 * manifest; a Go template (Helm) gets an error that says how to render it. */
#ifndef SL_MANIFEST_H
#define SL_MANIFEST_H
#include <stdbool.h>

#include "../base/diag.h"
#include "input.h"
#include "yamldoc.h"

/* Where a source's "{{" stand, learnt one document at a time as each ends (its tree complete,
 * before a filter drops it): each "{{" before byte `scanned` was looked at, and `marker` is the
 * first of them outside every scalar (SIZE_MAX: none). A document nothing else reads then goes
 * at once, not kept only so that its scalars can be asked about once the source is parsed. */
struct sl_braces {
	size_t scanned, marker;
};
#define SL_BRACES_INIT                                                                                                 \
	{                                                                                                              \
		0, (size_t)-1                                                                                          \
	}
/* The next document's root (NULL: an empty document) looked at; documents in the stream's order. */
void sl_manifest_braces_doc(const struct sl_source *src, const struct sl_ynode *root, struct sl_braces *b);

/* Judge a parsed source given as manifests; errs holds its parse errors (and only those), rc the
 * parse's result, object_seen whether a document the parse left out of ys was an object. Returns
 * true when the source is not a manifest: its errors and documents are dropped, *rc is 0 and
 * src->skipped is set. Otherwise the errors stand, a Go template's syntax errors are replaced by
 * one that says it is a template (*rc -1, documents dropped). Telling a template needs every
 * scalar of a source that holds "{{" (sl_manifest_has_braces): in br when given (every document
 * went through sl_manifest_braces_doc), or else in ys (every document kept whole); br is
 * &sl_braces_none when sl_manifest_has_braces said there is none: the text is not searched again
 * (the bytes of documents not kept may be gone, sl_source_forget, and reading them faults pages
 * in for nothing). */
extern const struct sl_braces sl_braces_none;
bool sl_manifest_screen(struct sl_source *src, struct sl_ystream *ys, const struct sl_braces *br, bool object_seen,
			struct sl_findings *errs, int *rc);
/* A top-level mapping with apiVersion and kind scalars: an object the API server would take. */
bool sl_manifest_is_object(const struct sl_ynode *root);
/* Whether the text holds "{{" anywhere. */
bool sl_manifest_has_braces(const struct sl_source *src);

/* Whether the text has apiVersion: or kind: at the start of a line (after blanks or "- "), or a
 * JSON "apiVersion" or "kind" key. */
bool sl_manifest_lookalike(const char *data, size_t len);

#endif
