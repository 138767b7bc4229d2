/* edits.c — the edits a rule's fix is made of, written on the YAML as the user wrote it. See edits.h. */
#include "edits.h"

#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/input.h"

static int is_flow_json(const struct sl_source *src, const struct sl_ynode *map)
{
	/* JSON-looking flow mappings get quoted keys, so a .json file stays JSON. An empty {} has no
	 * key to go by: the file is JSON when it opens with a bracket. */
	const char *d = sl_source_text(src); /* NULL: the fix goes (sl_source_text), whatever is made */
	if (!d)
		return 0;
	if (sl_ycount(map) == 0) {
		size_t i = sl_source_bom(src);
		while (i < src->len && strchr(" \t\r\n", d[i]))
			i++;
		return i < src->len && (d[i] == '{' || d[i] == '[');
	}
	const struct sl_ynode *k = map->v[0];
	return k->at.off < src->len && d[k->at.off] == '"';
}

static void render_flow(struct sl_buf *b, const struct sl_yentry *e, size_t n, int json)
{
	for (size_t i = 0; i < n; i++) {
		sl_buf_printf(b, json ? "%s\"%s\": " : "%s%s: ", i ? ", " : "", e[i].key);
		if (e[i].val) {
			sl_buf_printf(b, json && e[i].val[0] > '9' ? "\"%s\"" : "%s", e[i].val);
		} else {
			sl_buf_putc(b, '{');
			render_flow(b, e[i].kids, e[i].nkids, json);
			sl_buf_putc(b, '}');
		}
	}
}

static void indent(struct sl_buf *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sl_buf_putc(b, ' ');
}

/* How a block layout is written: the column of its keys (0-based), the indentation step and the
 * line ending. */
struct layout {
	unsigned col, step;
	const char *eol;
};

/* Entries at the layout's column; the first line starts where the cursor already is. */
static void render_block(struct sl_buf *b, const struct sl_yentry *e, size_t n, struct layout l, int first)
{
	for (size_t i = 0; i < n; i++) {
		if (!(first && i == 0))
			indent(b, l.col);
		if (e[i].val)
			sl_buf_printf(b, "%s: %s%s", e[i].key, e[i].val, l.eol);
		else {
			sl_buf_printf(b, "%s:%s", e[i].key, l.eol);
			struct layout kids = {l.col + l.step, l.step, l.eol};
			render_block(b, e[i].kids, e[i].nkids, kids, 0);
		}
	}
}

/* The line ending of the line at off (of the line before, on a last line without one): inserted
 * lines end like their neighbours, so a CRLF file stays CRLF. */
static const char *line_end(const struct sl_source *src, size_t off)
{
	const char *d = sl_source_text(src);
	if (!d)
		return "\n";
	size_t i = off;
	while (i < src->len && d[i] != '\n')
		i++;
	if (i == src->len) {
		for (i = off; i > 0 && d[i - 1] != '\n'; i--)
			;
		if (i-- == 0)
			return "\n";
	}
	return i > 0 && d[i - 1] == '\r' ? "\r\n" : "\n";
}

/* The file's indentation step: how far a nested block mapping sits right of its key. */
static unsigned indent_step(const struct sl_ynode *map)
{
	for (size_t i = 0; i < sl_ycount(map); i++) {
		const struct sl_ynode *k = map->v[2 * i], *v = map->v[2 * i + 1];
		if (v->kind != SL_YMAP || v->flow || !v->n)
			continue;
		unsigned kline, kcol, vline, vcol;
		sl_span_start(&k->at, &kline, &kcol);
		sl_span_start(&v->v[0]->at, &vline, &vcol);
		if (vline > kline && vcol > kcol)
			return vcol - kcol;
	}
	return 2;
}

void sl_fix_replace(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *node, const char *text)
{
	/* An empty value ("metadata:" with nothing after it) sits right after its key's colon:
	 * text written there needs the blank YAML wants after a colon. */
	const char *d = sl_source_text(src);
	if (d && node->at.off == node->at.end && node->at.off > 0 && d[node->at.off - 1] == ':') {
		char *spaced = sl_xasprintf(" %s", text);
		sl_fix_edit(fx, src, node->at.off, node->at.end, spaced);
		free(spaced);
		return;
	}
	sl_fix_edit(fx, src, node->at.off, node->at.end, text);
}

void sl_fix_insert(struct sl_fix *fx, const struct sl_source *src, const struct sl_ynode *map,
		   const struct sl_ynode *before, const struct sl_yentry *e, size_t n)
{
	struct sl_buf b = SL_BUF_INIT;
	if (sl_ycount(map) == 0) { /* {} or an empty value: write the whole mapping in flow style */
		sl_buf_putc(&b, '{');
		render_flow(&b, e, n, is_flow_json(src, map));
		sl_buf_putc(&b, '}');
		sl_fix_replace(fx, src, map, b.s);
	} else if (map->flow) {
		const struct sl_ynode *at = before ? before : map->v[0];
		render_flow(&b, e, n, is_flow_json(src, map));
		sl_buf_puts(&b, ", ");
		sl_fix_edit(fx, src, at->at.off, at->at.off, b.s);
	} else {
		const struct sl_ynode *at = before ? before : map->v[0];
		unsigned line, col;
		sl_span_start(&at->at, &line, &col);
		struct layout l = {col - 1, indent_step(map), line_end(src, at->at.off)};
		render_block(&b, e, n, l, 1);
		indent(&b, l.col); /* where the key we insert before continues */
		sl_fix_edit(fx, src, at->at.off, at->at.off, b.s);
	}
	sl_buf_free(&b);
}

/* The key following `key` in map, or NULL. */
static const struct sl_ynode *key_after(const struct sl_ynode *map, const char *key)
{
	for (size_t i = 0; i + 1 < sl_ycount(map); i++)
		if (sl_yis(map->v[2 * i], key))
			return map->v[2 * (i + 1)];
	return NULL;
}

void sl_fix_rolling_params(struct sl_fix *fx, const struct sl_workload *w, const char *surge, const char *unavail)
{
	const struct sl_source *src = w->obj.src;
	const struct sl_yentry params[] = {{"maxSurge", surge, NULL, 0}, {"maxUnavailable", unavail, NULL, 0}};
	if (!w->strategy_node) {
		/* Where the seed's fixed manifest has it: right after replicas. */
		const struct sl_yentry rolling[] = {{"type", "RollingUpdate", NULL, 0},
						    {"rollingUpdate", NULL, params, 2}};
		const struct sl_yentry strategy = {"strategy", NULL, rolling, 2};
		sl_fix_insert(fx, src, w->spec, key_after(w->spec, "replicas"), &strategy, 1);
		return;
	}
	if (w->type_node && !sl_yis(w->type_node, "RollingUpdate"))
		sl_fix_replace(fx, src, w->type_node, "RollingUpdate");
	if (!w->rolling_node) {
		const struct sl_yentry rolling = {"rollingUpdate", NULL, params, 2};
		sl_fix_insert(fx, src, w->strategy_node, NULL, &rolling, 1);
		return;
	}
	const struct sl_intpct *cur[2] = {&w->max_surge, &w->max_unavailable};
	struct sl_yentry missing[2];
	size_t nmissing = 0;
	for (int i = 0; i < 2; i++) {
		if (cur[i]->node)
			sl_fix_replace(fx, src, cur[i]->node, params[i].val);
		else
			missing[nmissing++] = params[i];
	}
	if (nmissing)
		sl_fix_insert(fx, src, w->rolling_node, NULL, missing, nmissing);
}

void sl_fix_recreate(struct sl_fix *fx, const struct sl_workload *w)
{
	const struct sl_source *src = w->obj.src;
	const struct sl_yentry type = {"type", "Recreate", NULL, 0};
	if (!w->strategy_node) {
		const struct sl_yentry strategy = {"strategy", NULL, &type, 1};
		sl_fix_insert(fx, src, w->spec, key_after(w->spec, "replicas"), &strategy, 1);
		return;
	}
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_putc(&b, '{');
	render_flow(&b, &type, 1, is_flow_json(src, w->strategy_node));
	sl_buf_putc(&b, '}');
	sl_fix_replace(fx, src, w->strategy_node, b.s);
	sl_buf_free(&b);
}
