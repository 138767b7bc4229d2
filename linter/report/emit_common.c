/* emit_common.c — what several formats say the same way (see emit.h): one place, so that SARIF
 * and the language server cannot drift apart. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"

void sl_finding_text(struct sl_buf *b, const struct sl_finding *f)
{
	sl_buf_puts(b, f->message);
	sl_buf_putc(b, '.');
	for (size_t i = 0; i < f->nnotes; i++)
		sl_buf_printf(b, "\n- %s", f->notes[i]);
}

char *sl_rule_help_uri(const struct sl_rule *r)
{
	/* A policy may share a built-in rule's id only in name: the registry's own record says. */
	if (sl_rule_find(r->id) != r)
		return NULL;
	/* The page as it was at the release that reports it (its tag, docs/releasing.md), not as
	 * main has it today: a rule's page may change, or the rule go, after the release. */
	return sl_xasprintf("%s/blob/v%s/docs/rules/%s.md", SL_HOME, SL_VERSION, r->id);
}

void sl_emit_cjson(FILE *out, const cJSON *root)
{
	char *s = cJSON_Print(root);
	struct sl_buf b = SL_BUF_INIT;
	sl_esc_json(&b, s, strlen(s));
	sl_buf_putc(&b, '\n');
	fwrite(b.s, 1, b.len, out);
	sl_buf_free(&b);
	free(s);
}

bool sl_source_named(const struct sl_source *src)
{
	return src && !(src->from_stdin && !strcmp(src->path, "-"));
}

char *sl_shown_path(const char *root, const char *cwd, const struct sl_source *src)
{
	if (!sl_source_named(src))
		return NULL;
	char *rel = sl_path_in_repo(root, cwd, src->path);
	return rel ? rel : sl_path_normalize(src->path);
}

/* FNV-1a: stable across runs and machines, which is all a fingerprint needs. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

void sl_fingerprint(char out[SL_FINGERPRINT_SIZE], const char *root, const char *cwd, const struct sl_finding *f,
		    unsigned dup)
{
	/* Stable across edits that move lines: rule, object and file identify the problem. */
	uint64_t h = fnv(1469598103934665603ull, f->rule ? f->rule->id : "");
	h = fnv(h, f->object ? f->object : f->message);
	/* The path as the repository knows it, so that runs from other directories agree. */
	const struct sl_source *src = f->at.src;
	char *rel = sl_source_named(src) ? sl_path_in_repo(root, cwd, src->path) : NULL;
	h = fnv(h, rel ? rel : src ? src->path : "");
	free(rel);
	snprintf(out, SL_FINGERPRINT_SIZE, "%016llx:%u", (unsigned long long)h, dup);
}

/* Findings in the order that numbers their duplicates: same rule, file and object together,
 * in report order within. */
static int dup_order(const void *a, const void *b)
{
	const struct sl_finding *x = *(const struct sl_finding *const *)a, *y = *(const struct sl_finding *const *)b;
	if (x->rule != y->rule)
		return (uintptr_t)x->rule < (uintptr_t)y->rule ? -1 : 1;
	if (x->at.src != y->at.src)
		return (uintptr_t)x->at.src < (uintptr_t)y->at.src ? -1 : 1;
	int c = strcmp(x->object ? x->object : "", y->object ? y->object : "");
	if (c)
		return c;
	return x < y ? -1 : x > y;
}

/* Sorted rather than compared pairwise: a run may report thousands. */
unsigned *sl_fingerprint_dups(const struct sl_findings *fs)
{
	unsigned *dups = sl_xcalloc(fs->n + 1, sizeof *dups);
	const struct sl_finding **v = sl_xcalloc(fs->n + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].rule && fs->v[i].object)
			v[n++] = &fs->v[i];
	qsort(v, n, sizeof *v, dup_order);
	for (size_t i = 1; i < n; i++)
		if (v[i]->rule == v[i - 1]->rule && v[i]->at.src == v[i - 1]->at.src &&
		    !strcmp(v[i]->object, v[i - 1]->object))
			dups[v[i] - fs->v] = dups[v[i - 1] - fs->v] + 1;
	free(v);
	return dups;
}
