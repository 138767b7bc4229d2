#include "manifest.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"

bool sl_manifest_is_object(const struct sl_ynode *root)
{
	if (!root || root->kind != SL_YMAP)
		return false;
	const struct sl_ynode *v = sl_ymap_get(root, "apiVersion"), *k = sl_ymap_get(root, "kind");
	return v && k && v->kind == SL_YSCALAR && k->kind == SL_YSCALAR && v->str[0] && k->str[0];
}

/* memmem, which C11 and POSIX lack. */
static const char *find(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (; (size_t)(end - p) >= n; p++) {
		p = memchr(p, needle[0], (size_t)(end - p) - n + 1);
		if (!p)
			return NULL;
		if (!memcmp(p, needle, n))
			return p;
	}
	return NULL;
}

static bool key_at(const char *p, const char *end, const char *key)
{
	size_t n = strlen(key);
	return (size_t)(end - p) > n && !memcmp(p, key, n) && p[n] == ':';
}

bool sl_manifest_lookalike(const char *data, size_t len)
{
	const char *end = data + len;
	for (const char *p = data; p < end;) {
		const char *q = p;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '-'))
			q++;
		if (key_at(q, end, "apiVersion") || key_at(q, end, "kind"))
			return true;
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		p = eol ? eol + 1 : end;
	}
	return find(data, end, "\"apiVersion\"") || find(data, end, "\"kind\"");
}

/* The first "{{" that is YAML structure rather than text inside a scalar (NULL: none): Go
 * template actions left unrendered. A ConfigMap may well hold a template in a string. */
static const char *template_marker(const struct sl_source *src, const struct sl_ystream *ys, size_t from)
{
	const char *end = src->data + src->len;
	for (const char *p = src->data + from; (p = find(p, end, "{{")); p += 2)
		if (!ys || !sl_ystream_in_scalar(ys, (size_t)(p - src->data)))
			return p;
	return NULL;
}

static void drop(struct sl_ystream *ys, struct sl_findings *errs)
{
	sl_findings_free(errs);
	memset(errs, 0, sizeof *errs);
	sl_ystream_free(ys);
	memset(ys, 0, sizeof *ys);
}

const struct sl_braces sl_braces_none = SL_BRACES_INIT;

bool sl_manifest_has_braces(const struct sl_source *src)
{
	return find(src->data, src->data + src->len, "{{") != NULL;
}

void sl_manifest_braces_doc(const struct sl_source *src, const struct sl_ynode *root, struct sl_braces *b)
{
	if (!root || b->marker != (size_t)-1 || b->scanned > root->at.end)
		return; /* nothing to look at, the first marker found, or a document seen already */
	/* Each "{{" that starts before the root's end, from where the search stands (one before the
	 * root, after the last one's end, is in no scalar: a comment, or text). The search then goes
	 * on from the root's end, or from past the last "{{" found when that straddles it. */
	size_t from = b->scanned, stop = root->at.end + 1 < src->len ? root->at.end + 1 : src->len;
	for (const char *p = src->data + from; (p = find(p, src->data + stop, "{{")); p += 2) {
		if (!sl_ynode_in_scalar(root, (size_t)(p - src->data))) {
			b->marker = (size_t)(p - src->data);
			return;
		}
		from = (size_t)(p - src->data) + 2;
	}
	b->scanned = from > root->at.end ? from : root->at.end;
}

/* The first "{{" outside a scalar, from what br learnt and after it, where every tree ends. */
static const char *braces_marker(const struct sl_source *src, const struct sl_ystream *ys, const struct sl_braces *br)
{
	if (br->marker != (size_t)-1)
		return src->data + br->marker;
	return template_marker(src, ys, br->scanned);
}

bool sl_manifest_screen(struct sl_source *src, struct sl_ystream *ys, const struct sl_braces *br, bool object_seen,
			struct sl_findings *errs, int *rc)
{
	if (ys->hostile)
		return false; /* a limit hit is reported whatever the file is */
	bool object = object_seen;
	for (size_t d = 0; d < ys->n && !object; d++)
		object = sl_manifest_is_object(ys->docs[d].root);
	bool broken = *rc < 0 || errs->input_errors;
	if (!object && (!broken || !sl_manifest_lookalike(src->data, src->len))) {
		drop(ys, errs);
		*rc = 0;
		src->skipped = true;
		return true;
	}
	const char *mark = br == &sl_braces_none ? NULL
			   : broken              ? template_marker(src, NULL, 0)
			   : br                  ? braces_marker(src, ys, br)
						 : template_marker(src, ys, 0);
	if (!mark)
		return false;
	/* Unrendered, a template's actions are syntax errors or nonsense values: one error that
	 * says what it is reads better than either. */
	drop(ys, errs);
	*rc = -1;
	struct sl_span at;
	size_t off = (size_t)(mark - src->data);
	sl_source_span(src, off, off + 2, &at);
	sl_input_error(errs, &at,
		       "this is a Go template (Helm?), not YAML: render it first, e.g. helm template CHART | "
		       "schedlint --stdin-filename %s -",
		       src->path);
	return false;
}
