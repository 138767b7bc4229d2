/* ybuild.c — the tree built from libyaml's events, one handler per event kind: a scalar is a
 * node at once; a sequence or a mapping collects its children in a frame and becomes a node when
 * it closes (its pairs through ymerge.c); an alias shares its anchor's node, weighed by the nodes
 * it stands for; a document ends kept or dropped whole. Every node gets its span in the source.
 * A file of its own so that yamldoc.c reads as the parse it drives: each event is left out
 * (ykeep.c) or built here, and then the limits are checked. */
#include "yamldoc_internal.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "ymerge.h"

static void *arena_alloc(struct sl_ystream *ys, size_t n)
{
	return sl_yarena_node(sl_ystream_arena(ys), n);
}

static char *arena_alloc_str(struct sl_ystream *ys, size_t n)
{
	return sl_yarena_text(sl_ystream_arena(ys), n);
}

/* The nodes a node stands for, aliases expanded (saturating): what the alias limit counts. A
 * scalar is one. A collection's is kept in its str, which a collection has no other use for,
 * while it may be asked for: by its parent as that closes, and later only when an alias shares
 * it (anchored) or a merge key copies its parent's pairs (held: see settle). Nothing reads it
 * once the document is complete, when str is NULL again, so no node carries it for good. */
static size_t weight(const struct sl_ynode *n)
{
	return n->kind == SL_YSCALAR ? 1 : (size_t)(uintptr_t)n->str;
}

static void set_weight(struct sl_ynode *n, size_t w)
{
	n->str = (const char *)(uintptr_t)w;
}

static void hold(struct sl_ybuilder *b, struct sl_ynode *n)
{
	if (b->nheld == b->capheld)
		sl_grow(&b->held, &b->capheld, b->nheld + 1, sizeof *b->held);
	b->held[b->nheld++] = n;
}

/* A child's weight was counted by the parent of frame f, now closing: nothing asks for it again
 * unless an alias shares the child (anchored: held since its anchor was defined) or f's mapping
 * may be merged into another, later, which weighs the pairs it copies. */
static void settle(struct sl_ybuilder *b, const struct sl_yframe *f, struct sl_ynode *child)
{
	if (child->kind == SL_YSCALAR || child->anchored)
		return;
	if (f->merge_source)
		hold(b, child);
	else
		child->str = NULL;
}

/* A child's weight, settled: a scalar (most children) is one, with nothing to settle. */
static inline size_t take_weight(struct sl_ybuilder *b, const struct sl_yframe *f, struct sl_ynode *child)
{
	if (child->kind == SL_YSCALAR)
		return 1;
	size_t w = weight(child);
	settle(b, f, child);
	return w;
}

/* The node of the collection f, with room for nptr children. */
static struct sl_ynode *new_collection(struct sl_ybuilder *b, const struct sl_yframe *f, size_t nptr)
{
	struct sl_ynode *n = arena_alloc(b->ys, sizeof *n + nptr * sizeof n->v[0]);
	memset(n, 0, sizeof *n);
	n->at = f->at;
	n->kind = f->kind;
	n->flow = f->flow;
	return n;
}

static struct sl_ynode *finish_map(struct sl_ybuilder *b, struct sl_yframe *f)
{
	struct sl_ynode **items = f->n ? b->items + f->first : NULL; /* none yet: no array */
	/* most mappings: the pairs go as they are */
	if (sl_ymap_plain(items, f->n)) {
		struct sl_ynode *node = new_collection(b, f, f->n);
		node->n = f->n / 2;
		uint64_t w = 1 + (uint64_t)f->dropped_weight; /* weights of 32 bits: no overflow */
		for (size_t i = 0; i < f->n; i++) {
			node->v[i] = items[i];
			w += take_weight(b, f, items[i]);
		}
		set_weight(node, w > UINT32_MAX ? UINT32_MAX : (size_t)w);
		return node;
	}
	struct sl_ypair *ps;
	bool merged;
	size_t n = sl_ymap_pairs(items, f->n, b->errs, &merged, &ps);
	/* An entry left out could have overridden a merged one, and a document's entries may have been
	 * left out for a kind a key written again replaces (sl_yfilter.unread): either needs the
	 * source whole. */
	b->need_full |= f->dropped_weight && (merged || (!b->depth && n < f->n / 2));
	struct sl_ynode *node = new_collection(b, f, 2 * n);
	node->n = n;
	size_t w = sl_ysat_add(1, f->dropped_weight);
	for (size_t i = 0; i < n; i++) {
		node->v[2 * i] = ps[i].k;
		node->v[2 * i + 1] = ps[i].v;
		w = sl_ysat_add(w, sl_ysat_add(weight(ps[i].k), weight(ps[i].v)));
	}
	set_weight(node, w);
	free(ps);
	for (size_t i = 0; i < f->n; i++) /* the pairs copied from merged mappings are held */
		settle(b, f, items[i]);
	return node;
}

static struct sl_ynode *finish_seq(struct sl_ybuilder *b, struct sl_yframe *f)
{
	struct sl_ynode *const *items = f->n ? b->items + f->first : NULL;
	struct sl_ynode *node = new_collection(b, f, f->n);
	node->n = f->n;
	uint64_t w = 1; /* the sum of 32-bit weights: saturated once, at the end */
	for (size_t i = 0; i < f->n; i++) {
		node->v[i] = items[i];
		w += take_weight(b, f, items[i]);
	}
	set_weight(node, w > UINT32_MAX ? UINT32_MAX : (size_t)w);
	return node;
}

static void define_anchor(struct sl_ybuilder *b, const char *name, struct sl_ynode *n)
{
	n->anchored = true;
	if (n->kind != SL_YSCALAR) /* an alias may ask for its weight until the document ends */
		hold(b, n);
	for (size_t i = b->nanchors; i-- > 0;)
		if (!strcmp(b->anchors[i].name, name)) {
			b->anchors[i].node = n; /* a redefinition shadows the earlier anchor */
			return;
		}
	sl_grow(&b->anchors, &b->capanchors, b->nanchors + 1, sizeof *b->anchors);
	b->anchors[b->nanchors].name = sl_xstrdup(name);
	b->anchors[b->nanchors++].node = n;
}

static void clear_anchors(struct sl_ybuilder *b)
{
	for (size_t i = 0; i < b->nanchors; i++)
		free(b->anchors[i].name);
	b->nanchors = 0;
}

static void clear_stack(struct sl_ybuilder *b)
{
	for (size_t i = 0; i < b->depth; i++)
		free(b->stack[i].anchor);
	b->depth = 0;
	b->nitems = 0;
}

/* Attach a finished node to the open collection (or make it the root). It cannot fail: the
 * limits are held where a collection or a document opens and after each event (yamldoc.c). */
static inline void attach(struct sl_ybuilder *b, struct sl_ynode *n)
{
	if (b->depth == 0) {
		b->root = n;
		return;
	}
	if (b->nitems == b->capitems) /* checked here: most attaches do not grow */
		sl_grow(&b->items, &b->capitems, b->nitems + 1, sizeof *b->items);
	b->items[b->nitems++] = n;
	b->stack[b->depth - 1].n++;
}

/* A complete document, ending at byte end: kept, or dropped with every node and text of it. */
static void end_document(struct sl_ybuilder *b, unsigned docno, size_t end)
{
	struct sl_ystream *out = b->ys;
	struct sl_ydoc doc = {b->src, b->root, docno};
	clear_anchors(b);
	/* the weights still in collections' str: nothing asks for them any more */
	if (b->root && b->root->kind != SL_YSCALAR)
		b->root->str = NULL;
	for (size_t i = 0; i < b->nheld; i++)
		b->held[i]->str = NULL;
	b->nheld = 0;
	if (b->filter && b->filter->wanted && !b->filter->wanted(b->filter->ctx, &doc)) {
		sl_yarena_rewind(sl_ystream_arena(out), &b->doc_start);
		out->partial = true;
		if (b->filter->forget) {
			sl_grow(&b->forgets, &b->capforgets, b->nforgets + 1, sizeof *b->forgets);
			b->forgets[b->nforgets][0] = b->doc_off;
			b->forgets[b->nforgets++][1] = end;
		}
		return;
	}
	sl_grow(&out->docs, &out->cap, out->n + 1, sizeof *out->docs);
	out->docs[out->n++] = doc;
}

void sl_ybuild_clear(struct sl_ybuilder *b)
{
	clear_stack(b);
	clear_anchors(b);
}

/* The handlers of the events that build the tree return 0, or 1 to stop (after an error, or when
 * the source must be parsed again whole). */

static int on_document_start(struct sl_ybuilder *b, const yaml_event_t *ev)
{
	if (b->docno >= sl_limits.documents) {
		struct sl_span at;
		sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "more than %zu documents in one file (--max-documents)",
			       sl_limits.documents);
		b->ys->hostile = true;
		return 1;
	}
	b->root = NULL;
	b->aliased = 0;
	b->nodes = 0;
	b->nheld = 0;
	b->doc_start = sl_yarena_mark(sl_ystream_arena(b->ys));
	b->doc_off = sl_ymark_byte(b->src, ev->start_mark.index);
	return 0;
}

static int on_document_end(struct sl_ybuilder *b, const yaml_event_t *ev)
{
	end_document(b, b->docno++, sl_ymark_byte(b->src, ev->end_mark.index));
	return 0;
}

static int on_alias(struct sl_ybuilder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct sl_ynode *n = NULL;
	for (size_t i = b->nanchors; i-- > 0;)
		if (!strcmp(b->anchors[i].name, name)) {
			n = b->anchors[i].node;
			break;
		}
	if (!n && b->skipped_anchor) {
		b->need_full = true; /* its anchor may have been dropped */
		return 1;
	}
	if (!n) {
		struct sl_span at;
		sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "invalid YAML: alias *%s refers to no anchor", name);
		return 1;
	}
	if (weight(n) == 0) { /* still open: the alias is inside its own anchor */
		struct sl_span at;
		sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "invalid YAML: alias *%s refers to an enclosing node", name);
		return 1;
	}
	/* Only aliases multiply what a walk of the tree visits: a large document is fine, a small one
	 * that expands to millions of nodes is an alias bomb. */
	b->aliased = sl_ysat_add(b->aliased, weight(n));
	attach(b, n);
	return 0;
}

static int on_scalar(struct sl_ybuilder *b, const yaml_event_t *ev)
{
	struct sl_ynode *n = arena_alloc(b->ys, sizeof *n);
	memset(n, 0, sizeof *n);
	n->kind = SL_YSCALAR;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
	sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &n->at);
	n->len = ev->data.scalar.length;
	char *s = arena_alloc_str(b->ys, n->len + 1);
	memcpy(s, ev->data.scalar.value, n->len);
	s[n->len] = 0;
	n->str = s;
	b->nodes++;
	const char *anchor = (const char *)ev->data.scalar.anchor;
	if (anchor)
		define_anchor(b, anchor, n);
	attach(b, n);
	return 0;
}

static bool merge_key(const char *comp)
{
	return comp && comp[0] == '<' && !strcmp(comp, "<<");
}

/* Whether the mapping of frame f, opening at b->depth, may be merged into another (<<) after it
 * closes: anchored (an alias may name it), the value of a merge key, or an item of a list that
 * is either (a merge key takes a list of mappings too). */
static bool merge_source(const struct sl_ybuilder *b, const struct sl_yframe *f)
{
	if (f->anchor || merge_key(f->comp))
		return true;
	const struct sl_yframe *up = b->depth ? &b->stack[b->depth - 1] : NULL;
	return up && up->kind == SL_YSEQ && (up->anchor || merge_key(up->comp));
}

/* A sequence or a mapping opens: a frame collects its children until it closes. keep_all: all of
 * it is kept (sl_ykeep_leave_out). */
static int on_collection_start(struct sl_ybuilder *b, const yaml_event_t *ev, bool keep_all)
{
	if (b->depth >= sl_limits.depth) {
		struct sl_span at;
		sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "document nests deeper than %zu levels (--max-depth)", sl_limits.depth);
		b->ys->hostile = true;
		return 1;
	}
	b->nodes++;
	int is_map = ev->type == YAML_MAPPING_START_EVENT;
	const char *anchor = (const char *)(is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
	const char *comp = NULL;
	if (b->depth) {
		const struct sl_yframe *up = &b->stack[b->depth - 1];
		comp = up->kind == SL_YSEQ ? "[]"
		       : up->n % 2 && b->items[up->first + up->n - 1]->kind == SL_YSCALAR
			   ? b->items[up->first + up->n - 1]->str
			   : "";
	}
	if (b->depth == b->cap)
		sl_grow(&b->stack, &b->cap, b->depth + 1, sizeof *b->stack);
	struct sl_yframe *f = &b->stack[b->depth]; /* made in place, pushed when complete */
	*f = (struct sl_yframe){.first = b->nitems, .comp = comp, .keep_all = keep_all};
	f->kind = is_map ? SL_YMAP : SL_YSEQ;
	f->flow = is_map ? ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
			 : ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
	sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &f->at);
	sl_ykeep_open(b, f, is_map); /* before the push: it reads the frame it opens in */
	f->anchor = anchor ? sl_xstrdup(anchor) : NULL;
	f->merge_source = is_map && merge_source(b, f);
	const struct sl_yfilter *yf = b->filter;
	f->leave =
	    yf && yf->unread ? (uint8_t)yf->unread_in(yf->ctx, comp, b->depth ? b->stack[b->depth - 1].comp : NULL) : 0;
	b->depth++;
	return 0;
}

/* A sequence or a mapping closes: its node is made, with its children. */
static int on_collection_end(struct sl_ybuilder *b, const yaml_event_t *ev)
{
	struct sl_yframe *f = &b->stack[--b->depth];
	struct sl_ynode *n = f->kind == SL_YMAP ? finish_map(b, f) : finish_seq(b, f);
	b->nitems = f->first;
	if (b->need_full) {
		free(f->anchor);
		return 1;
	}
	/* The span runs from the start of the collection to the end of its last child: libyaml's end
	 * mark for block collections lies on the next line. */
	size_t end = n->at.end;
	if (!n->flow) {
		end = n->at.off > f->dropped_end ? n->at.off : f->dropped_end;
		for (size_t i = 0; i < (n->kind == SL_YMAP ? 2 * n->n : n->n); i++)
			if (n->v[i]->at.end > end)
				end = n->v[i]->at.end;
	} else {
		size_t e = sl_ymark_byte(b->src, ev->end_mark.index);
		end = e > end ? e : end;
	}
	n->at.end = (uint32_t)end; /* its start's line and column are the opening event's */
	if (f->anchor) {
		define_anchor(b, f->anchor, n);
		free(f->anchor);
	}
	attach(b, n);
	return 0;
}

/* One event, by its kind. */
int sl_ybuild_event(struct sl_ybuilder *b, const yaml_event_t *ev, bool keep_all)
{
	switch (ev->type) {
	case YAML_STREAM_START_EVENT:
		return 0; /* the builder is ready before the first event */
	case YAML_STREAM_END_EVENT:
		b->done = true;
		return 0;
	case YAML_DOCUMENT_START_EVENT:
		return on_document_start(b, ev);
	case YAML_DOCUMENT_END_EVENT:
		return on_document_end(b, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(b, ev);
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		return on_collection_start(b, ev, keep_all);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_collection_end(b, ev);
	default:
		return 0;
	}
}
