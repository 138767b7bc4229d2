/* config_reader.c — the primitives every section of .schedlint.yaml is read with: an error at
 * a node (the load then fails), known keys, strings, scalars or lists of them, lists of mappings,
 * patterns and levels. Apart from the sections so that each section's file reads as the schema
 * it checks, and each mistake is worded the same wherever it is made. */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../load/input.h"

void sl_cfg_fail(struct sl_cfg_reader *r, const struct sl_ynode *n, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	sl_input_error(r->errs, &n->at, "%s", b.s);
	sl_buf_free(&b);
	r->bad = 1;
}

/* Keys of map must be among known (NULL-terminated); each unknown one is an error. */
void sl_cfg_known_keys(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *what, const char *const *known)
{
	for (size_t i = 0; i < map->n; i++) {
		const struct sl_ynode *k = map->v[2 * i];
		bool ok = false;
		for (const char *const *q = known; *q && !ok; q++)
			ok = sl_yis(k, *q);
		if (ok)
			continue;
		struct sl_buf b = SL_BUF_INIT;
		for (const char *const *q = known; *q; q++)
			sl_buf_printf(&b, "%s%s", q == known ? "" : ", ", *q);
		sl_cfg_fail(r, k, "unknown key '%s' in %s (known: %s)", sl_yscalar(k) ? k->str : "?", what, b.s);
		sl_buf_free(&b);
	}
}

/* A scalar, or a list of scalars: the nodes, or -1 after an error. */
long sl_cfg_scalars(struct sl_cfg_reader *r, const struct sl_ynode *v, const char *what, const struct sl_ynode ***out)
{
	*out = NULL;
	if (sl_ynull(v))
		return 0;
	if (v->kind == SL_YSCALAR) {
		*out = sl_xcalloc(1, sizeof **out);
		(*out)[0] = v;
		return 1;
	}
	if (v->kind != SL_YSEQ) {
		sl_cfg_fail(r, v, "%s must be a list of strings, not %s", what, sl_ykind_name(v));
		return -1;
	}
	*out = sl_xcalloc(v->n + 1, sizeof **out);
	for (size_t i = 0; i < v->n; i++) {
		if (!sl_yscalar(v->v[i]) || sl_ynull(v->v[i])) {
			sl_cfg_fail(r, v->v[i], "%s must be a list of strings; item %zu is %s", what, i,
				    sl_ynull(v->v[i]) ? "empty" : sl_ykind_name(v->v[i]));
			free(*out);
			*out = NULL;
			return -1;
		}
		(*out)[i] = v->v[i];
	}
	return (long)v->n;
}

static bool quoted(const struct sl_ynode *n)
{
	const char *d = n->plain || !n->at.src || n->at.end <= n->at.off ? NULL : sl_source_text(n->at.src);
	return d && (d[n->at.off] == '\'' || d[n->at.off] == '"');
}

int sl_cfg_compile(struct sl_cfg_reader *r, const struct sl_ynode *n, struct sl_pattern *p)
{
	if (!sl_yscalar(n)) {
		sl_cfg_fail(r, n, "a pattern must be a string, not %s", sl_ykind_name(n));
		return -1;
	}
	if (sl_pattern_compile(p, n->str, n->len, &n->at, quoted(n), r->errs) < 0) {
		r->bad = 1;
		return -1;
	}
	return 0;
}

struct sl_pattern *sl_cfg_compile_new(struct sl_cfg_reader *r, const struct sl_ynode *n)
{
	if (!n)
		return NULL;
	struct sl_pattern *p = sl_xcalloc(1, sizeof *p);
	if (sl_cfg_compile(r, n, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

const char *sl_cfg_string(struct sl_cfg_reader *r, const struct sl_ynode *map, const char *key, const char *what,
			  bool required)
{
	const struct sl_ynode *v = sl_ymap_get(map, key);
	if (!v || sl_ynull(v)) {
		if (required)
			sl_cfg_fail(r, map, "%s needs '%s'", what, key);
		return NULL;
	}
	if (v->kind != SL_YSCALAR) {
		sl_cfg_fail(r, v, "%s.%s must be a string, not %s", what, key, sl_ykind_name(v));
		return NULL;
	}
	return v->str;
}

int sl_cfg_level_of(struct sl_cfg_reader *r, const struct sl_ynode *v, enum sl_level *out)
{
	if (!sl_yscalar(v) || sl_level_parse(v->str, out) < 0 || !strcmp(v->str, "none")) {
		sl_cfg_fail(r, v, "a level is off, note, warning or error, not '%s'",
			    sl_yscalar(v) ? v->str : sl_ykind_name(v));
		return -1;
	}
	return 0;
}

/* Whether v is a list whose mappings should be read (items that are not mappings are errors,
 * and are to be skipped); absent and empty lists are nothing to read. */
bool sl_cfg_map_list(struct sl_cfg_reader *r, const struct sl_ynode *v, const char *what, const char *item)
{
	if (sl_ynull(v))
		return false;
	if (v->kind != SL_YSEQ) {
		sl_cfg_fail(r, v, "%s must be a list, not %s", what, sl_ykind_name(v));
		return false;
	}
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i]->kind != SL_YMAP)
			sl_cfg_fail(r, v->v[i], "%s must be a mapping, not %s", item, sl_ykind_name(v->v[i]));
	return true;
}
