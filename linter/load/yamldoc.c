#include "yamldoc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../base/buf.h"
#include "input.h"
#include "ymerge.h"

static struct sl_yarena *arena_of(struct sl_ystream *ys)
{
	return ys->shared ? ys->shared : &ys->own;
}

_Static_assert(_Alignof(struct sl_ynode) <= _Alignof(void *), "the arena aligns nodes as pointers");

static void *arena_alloc(struct sl_ystream *ys, size_t n)
{
	return sl_yarena_node(arena_of(ys), n);
}

static char *arena_alloc_str(struct sl_ystream *ys, size_t n)
{
	return sl_yarena_text(arena_of(ys), n);
}

void sl_ystream_free(struct sl_ystream *ys)
{
	sl_yarena_free(&ys->own);
	free(ys->docs);
	memset(ys, 0, sizeof *ys);
}

/* --- building ------------------------------------------------------------------------------ */

struct frame {
	/* the collection's node is made when it closes, with its children */
	struct sl_span at;
	uint8_t kind;
	bool flow;
	size_t first, n; /* its children so far: builder items[first .. first + n) */
	char *anchor;
	const char *comp; /* its key in the parent mapping, "[]" in a sequence, NULL at the root */
	bool keep_all;    /* inside a kept path: nothing below is dropped */
	uint64_t alive;   /* keep patterns this frame's path is on the way along */
	size_t plen;      /* components of that path, from the object */
	bool objects;     /* a List's `items`: each item starts a path of its own */
	/* Entries left out (sl_yfilter.unread): the furthest end and the nodes of them */
	size_t dropped_end, dropped_weight;
};

#define MAX_PATTERNS 64
#define MAX_COMPS 12
/* A keep pattern split into its components ("[]" for a sequence's items). */
struct kpat {
	char comp[MAX_COMPS][64];
	size_t n;
};

struct anchor {
	char *name;
	struct sl_ynode *node;
};

struct builder {
	struct sl_ystream *ys;
	/* The children of the open collections, each one's after its parent's: one array for all,
	 * rather than one allocation per collection. */
	struct sl_ynode **items;
	size_t nitems, capitems;
	const struct sl_source *src;
	struct frame *stack;
	size_t depth, cap;
	struct anchor *anchors;
	size_t nanchors, capanchors;
	struct sl_ynode *root;
	size_t aliased; /* nodes the open document's aliases stand for */
	size_t nodes;   /* nodes the open document keeps */
	/* Keeping only some paths (sl_yaml_parse_keep) */
	const char *const *keep;
	struct kpat *pats;
	size_t npats;
	uint64_t next_alive; /* patterns the kept key's value is on the way along */
	bool drop_next;      /* a key was dropped: its value goes too */
	bool keep_next;      /* a key inside a kept path was read: keep all of its value */
	size_t skip;         /* > 0: inside a dropped value, at this nesting */
	bool skipped_anchor; /* an anchor went with a dropped value */
	bool need_full;      /* an alias named a dropped anchor: parse again, keeping all */
	struct sl_findings *errs;
	/* Keeping only some documents and values (sl_yaml_parse_some) */
	const struct sl_yfilter *filter;
	struct sl_yarena_mark doc_start;  /* where the open document's nodes and text start */
	size_t doc_off;                   /* and its bytes */
	bool drop_value;                  /* the key just read was left out: its value goes too */
	bool dropping;                    /* skipping that value (b->skip levels deep) */
	bool drop_flow[SL_DEPTH_CAP + 1]; /* per skipped level: a flow collection */
	unsigned docno;                   /* documents ended so far */
	bool done;                        /* the stream ended */
};

static void compile_patterns(struct builder *b, const char *const *keep)
{
	b->pats = sl_xcalloc(MAX_PATTERNS, sizeof *b->pats);
	for (size_t n = 0; keep[n] && n < MAX_PATTERNS; n++) {
		struct kpat *k = &b->pats[b->npats++];
		memset(k, 0, sizeof *k);
		for (const char *p = keep[n]; *p && k->n < MAX_COMPS;) {
			if (*p == '[') {
				strcpy(k->comp[k->n++], "[]");
				p += 2;
			} else {
				size_t len = strcspn(p, ".[");
				snprintf(k->comp[k->n++], sizeof k->comp[0], "%.*s", (int)len, p);
				p += len;
			}
			if (*p == '.')
				p++;
		}
	}
}

/* The patterns of `alive` whose component at plen is comp; *done: one of them ends there. */
static uint64_t step_patterns(const struct builder *b, uint64_t alive, size_t plen, const char *comp, bool *done)
{
	uint64_t out = 0;
	*done = false;
	for (size_t i = 0; i < b->npats; i++)
		if (alive >> i & 1 && b->pats[i].n > plen && !strcmp(b->pats[i].comp[plen], comp)) {
			out |= (uint64_t)1 << i;
			*done |= b->pats[i].n == plen + 1;
		}
	return out;
}

/* Whether the key about to be read (a scalar in key position of the open mapping) and its value
 * are dropped. Paths are taken from the object: the document, or each item of a top-level
 * `items` list. Sets what the value's frame inherits. */
static bool drop_key(struct builder *b, const char *key, bool *keep_all)
{
	*keep_all = false;
	const struct frame *top = &b->stack[b->depth - 1];
	if (top->keep_all) {
		*keep_all = true;
		return false;
	}
	if (b->depth == 1 && !strcmp(key, "items")) {
		b->next_alive = ~(uint64_t)0; /* a List's items are objects: paths start inside each */
		return false;
	}
	bool done;
	b->next_alive = step_patterns(b, top->alive, top->plen, key, &done);
	*keep_all = done;
	return !b->next_alive;
}

/* The byte offset of a libyaml mark's code-point index. A UTF-8 byte order mark: libyaml, told the
 * encoding, would read it as content, so the parser starts after it and its marks count code
 * points from there. */
static size_t mark_byte(const struct sl_source *src, size_t index)
{
	return sl_source_char_to_byte(src, index + (sl_source_bom(src) ? 1 : 0));
}

static void mark_span(const struct sl_source *src, yaml_mark_t a, yaml_mark_t b, struct sl_span *out)
{
	size_t off = mark_byte(src, a.index);
	size_t end = mark_byte(src, b.index);
	if (end < off)
		sl_source_span_hint(src, off, off, a.line, out);
	else
		sl_source_span_hint(src, off, end, a.line, out);
}

/* Weights saturate at what a node's 32-bit weight holds, far above the alias limit. */
static size_t sat_add(size_t a, size_t b)
{
	return a > UINT32_MAX - b || b > UINT32_MAX ? UINT32_MAX : a + b;
}

/* The node of the collection f, with room for nptr children. */
static struct sl_ynode *new_collection(struct builder *b, const struct frame *f, size_t nptr)
{
	struct sl_ynode *n = arena_alloc(b->ys, sizeof *n + nptr * sizeof n->v[0]);
	memset(n, 0, sizeof *n);
	n->at = f->at;
	n->kind = f->kind;
	n->flow = f->flow;
	return n;
}

static struct sl_ynode *finish_map(struct builder *b, struct frame *f)
{
	struct sl_ynode **items = f->n ? b->items + f->first : NULL; /* none yet: no array */
	/* most mappings: the pairs go as they are */
	if (sl_ymap_plain(items, f->n)) {
		struct sl_ynode *node = new_collection(b, f, f->n);
		node->n = f->n / 2;
		size_t weight = sat_add(1, f->dropped_weight);
		for (size_t i = 0; i < f->n; i++) {
			node->v[i] = items[i];
			weight = sat_add(weight, items[i]->weight);
		}
		node->weight = weight;
		return node;
	}
	struct sl_ypair *ps;
	bool merged;
	size_t n = sl_ymap_pairs(items, f->n, b->errs, &merged, &ps);
	/* An entry left out could have overridden a merged one: that needs the source whole. */
	b->need_full |= merged && f->dropped_weight;
	struct sl_ynode *node = new_collection(b, f, 2 * n);
	node->n = n;
	size_t weight = sat_add(1, f->dropped_weight);
	for (size_t i = 0; i < n; i++) {
		node->v[2 * i] = ps[i].k;
		node->v[2 * i + 1] = ps[i].v;
		weight = sat_add(weight, sat_add(ps[i].k->weight, ps[i].v->weight));
	}
	node->weight = weight;
	free(ps);
	return node;
}

static struct sl_ynode *finish_seq(struct builder *b, struct frame *f)
{
	struct sl_ynode *const *items = f->n ? b->items + f->first : NULL;
	struct sl_ynode *node = new_collection(b, f, f->n);
	node->n = f->n;
	size_t weight = 1;
	for (size_t i = 0; i < f->n; i++) {
		node->v[i] = items[i];
		weight = sat_add(weight, items[i]->weight);
	}
	node->weight = weight;
	return node;
}

static void define_anchor(struct builder *b, const char *name, struct sl_ynode *n)
{
	for (size_t i = b->nanchors; i-- > 0;)
		if (!strcmp(b->anchors[i].name, name)) {
			b->anchors[i].node = n; /* a redefinition shadows the earlier anchor */
			return;
		}
	sl_grow(&b->anchors, &b->capanchors, b->nanchors + 1, sizeof *b->anchors);
	b->anchors[b->nanchors].name = sl_xstrdup(name);
	b->anchors[b->nanchors++].node = n;
}

static void clear_anchors(struct builder *b)
{
	for (size_t i = 0; i < b->nanchors; i++)
		free(b->anchors[i].name);
	b->nanchors = 0;
}

static void clear_stack(struct builder *b)
{
	for (size_t i = 0; i < b->depth; i++)
		free(b->stack[i].anchor);
	b->depth = 0;
	b->nitems = 0;
}

/* Attach a finished node to the open collection (or make it the root). 0, or -1 on a limit. */
static int attach(struct builder *b, struct sl_ynode *n)
{
	if (b->depth == 0) {
		b->root = n;
		return 0;
	}
	sl_grow(&b->items, &b->capitems, b->nitems + 1, sizeof *b->items);
	b->items[b->nitems++] = n;
	b->stack[b->depth - 1].n++;
	return 0;
}

/* A complete document, ending at byte end: kept, or dropped with every node and text of it. */
static void end_document(struct builder *b, unsigned docno, size_t end)
{
	struct sl_ystream *out = b->ys;
	struct sl_ydoc doc = {b->src, b->root, docno};
	clear_anchors(b);
	if (b->filter && b->filter->wanted && !b->filter->wanted(b->filter->ctx, &doc)) {
		sl_yarena_rewind(arena_of(out), &b->doc_start);
		out->partial = true;
		if (b->filter->forget)
			sl_source_forget(b->src, b->doc_off, end);
		return;
	}
	sl_grow(&out->docs, &out->cap, out->n + 1, sizeof *out->docs);
	out->docs[out->n++] = doc;
}

static const char *describe_problem(const struct sl_source *src, const yaml_parser_t *p, size_t off)
{
	if (off < src->len && src->data[off] == '\t')
		return "a tab character where YAML allows only spaces for indentation";
	return p->problem ? p->problem : "malformed YAML";
}

static const char *event_anchor(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return (const char *)ev->data.scalar.anchor;
	case YAML_SEQUENCE_START_EVENT:
		return (const char *)ev->data.sequence_start.anchor;
	case YAML_MAPPING_START_EVENT:
		return (const char *)ev->data.mapping_start.anchor;
	default:
		return NULL;
	}
}

/* Where an entry left out of the open mapping (sl_yfilter.unread) ended, and how many nodes it
 * held: the mapping's span still runs to the end of its last entry, and its weight counts them. */
static void dropped(struct builder *b, size_t start, size_t end, size_t weight)
{
	struct frame *f = &b->stack[b->depth - 1];
	end = end > start ? end : start;
	f->dropped_end = end > f->dropped_end ? end : f->dropped_end;
	f->dropped_weight = sat_add(f->dropped_weight, weight);
}

/* An event of a value left out: only its nesting, its extent (the furthest end of a scalar or a
 * flow collection in it) and its size matter. 0, or -1 after an error, or when an anchor or an
 * alias means the source must be parsed whole. */
static int drop_event(struct builder *b, const yaml_event_t *ev, struct sl_findings *errs)
{
	bool open = ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT;
	bool close = ev->type == YAML_SEQUENCE_END_EVENT || ev->type == YAML_MAPPING_END_EVENT;
	if (event_anchor(ev) || ev->type == YAML_ALIAS_EVENT) {
		b->need_full = true;
		return -1;
	}
	if (open && b->depth + b->skip >= sl_limits.depth) {
		struct sl_span at;
		mark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(errs, &at, "document nests deeper than %zu levels (--max-depth)", sl_limits.depth);
		return -1;
	}
	size_t start = sl_source_char_to_byte(b->src, ev->start_mark.index);
	if (ev->type == YAML_SCALAR_EVENT || (close && b->drop_flow[b->skip - 1]))
		dropped(b, start, sl_source_char_to_byte(b->src, ev->end_mark.index), 0);
	if (ev->type == YAML_SCALAR_EVENT || open)
		dropped(b, 0, 0, 1);
	if (open)
		b->drop_flow[b->skip++] = ev->type == YAML_SEQUENCE_START_EVENT
					      ? ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
					      : ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
	else if (close)
		b->skip--;
	b->dropping = b->skip > 0;
	return 0;
}

/* libyaml's error, at the byte it stopped at, in the words of its problem and context. */
static void parse_error(const struct builder *b, const yaml_parser_t *p)
{
	const struct sl_source *src = b->src;
	struct sl_span at;
	size_t off = mark_byte(src, p->problem_mark.index);
	if (p->error == YAML_READER_ERROR)
		off = p->problem_offset < src->len ? p->problem_offset : src->len;
	sl_source_span(src, off, off, &at);
	const char *what = describe_problem(src, p, off);
	if (p->context && strcmp(what, p->problem ? p->problem : "") == 0 &&
	    strcmp(p->context, "while scanning for the next token"))
		sl_input_error(b->errs, &at, "invalid YAML: %s, %s that starts at %u:%u", what, p->context,
			       (unsigned)p->context_mark.line + 1, (unsigned)p->context_mark.column + 1);
	else
		sl_input_error(b->errs, &at, "invalid YAML: %s", what);
}

/* An event inside a dropped value: only its nesting and its anchors matter, and the nesting limit
 * holds here too (libyaml's time grows with the square of it). 0, or -1 after an error. */
static int skip_event(struct builder *b, const yaml_event_t *ev)
{
	bool open = ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT;
	if (open && b->depth + b->skip >= sl_limits.depth) {
		struct sl_span at;
		mark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "document nests deeper than %zu levels (--max-depth)", sl_limits.depth);
		b->ys->hostile = true;
		return -1;
	}
	if (open)
		b->skip++;
	else if (ev->type == YAML_SEQUENCE_END_EVENT || ev->type == YAML_MAPPING_END_EVENT)
		b->skip--;
	b->skipped_anchor |= event_anchor(ev) != NULL;
	return 0;
}

/* Whether the event is left out unbuilt: a key that no keep path reaches, or that the filter says
 * nothing reads (its value goes too). Otherwise notes what the event keeps: for a collection
 * opening, whether all of it (*keep_all); for a key on a kept path, whether all of its value. */
static bool leave_out(struct builder *b, const yaml_event_t *ev, bool *keep_all)
{
	const struct frame *top = b->depth ? &b->stack[b->depth - 1] : NULL;
	bool key = ev->type == YAML_SCALAR_EVENT && top && top->kind == SL_YMAP && top->n % 2 == 0;
	bool open = ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT;
	if (b->keep && key && !top->objects) {
		bool all;
		if (drop_key(b, (const char *)ev->data.scalar.value, &all)) {
			b->skipped_anchor |= event_anchor(ev) != NULL;
			b->drop_next = true;
			return true;
		}
		b->keep_next = all;
	} else if (b->filter && b->filter->unread && key && !ev->data.scalar.anchor &&
		   b->filter->unread(b->filter->ctx, (const char *)ev->data.scalar.value, top->comp,
				     b->depth > 1 ? b->stack[b->depth - 2].comp : NULL)) {
		/* an entry nothing reads: left out, key and value, but for its extent */
		dropped(b, sl_source_char_to_byte(b->src, ev->start_mark.index),
			sl_source_char_to_byte(b->src, ev->end_mark.index), 1);
		b->ys->partial = true;
		b->drop_value = true;
		return true;
	} else if (open) {
		/* a collection opening: below a kept key, or in a frame that keeps all */
		*keep_all = b->keep_next || (top && top->keep_all) || !b->keep;
		b->keep_next = false;
	} else if (ev->type == YAML_SCALAR_EVENT || ev->type == YAML_ALIAS_EVENT)
		b->keep_next = false;
	return false;
}

/* The handlers of the events that build the tree return 0, or 1 to stop (after an error, or when
 * the source must be parsed again whole). */

static int on_document_start(struct builder *b, const yaml_event_t *ev)
{
	if (b->docno >= sl_limits.documents) {
		struct sl_span at;
		mark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "more than %zu documents in one file (--max-documents)",
			       sl_limits.documents);
		b->ys->hostile = true;
		return 1;
	}
	b->root = NULL;
	b->aliased = 0;
	b->nodes = 0;
	b->doc_start = sl_yarena_mark(arena_of(b->ys));
	b->doc_off = mark_byte(b->src, ev->start_mark.index);
	return 0;
}

static int on_document_end(struct builder *b, const yaml_event_t *ev)
{
	end_document(b, b->docno++, mark_byte(b->src, ev->end_mark.index));
	return 0;
}

static int on_alias(struct builder *b, const yaml_event_t *ev)
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
		mark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "invalid YAML: alias *%s refers to no anchor", name);
		return 1;
	}
	if (n->weight == 0) { /* still open: the alias is inside its own anchor */
		struct sl_span at;
		mark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "invalid YAML: alias *%s refers to an enclosing node", name);
		return 1;
	}
	/* Only aliases multiply what a walk of the tree visits: a large document is fine, a small one
	 * that expands to millions of nodes is an alias bomb. */
	b->aliased = sat_add(b->aliased, n->weight);
	attach(b, n);
	return 0;
}

static int on_scalar(struct builder *b, const yaml_event_t *ev)
{
	struct sl_ynode *n = arena_alloc(b->ys, sizeof *n);
	memset(n, 0, sizeof *n);
	n->kind = SL_YSCALAR;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
	mark_span(b->src, ev->start_mark, ev->end_mark, &n->at);
	n->len = ev->data.scalar.length;
	char *s = arena_alloc_str(b->ys, n->len + 1);
	memcpy(s, ev->data.scalar.value, n->len);
	s[n->len] = 0;
	n->str = s;
	n->weight = 1;
	b->nodes++;
	const char *anchor = (const char *)ev->data.scalar.anchor;
	if (anchor)
		define_anchor(b, anchor, n);
	attach(b, n);
	return 0;
}

/* A sequence or a mapping opens: a frame collects its children until it closes. keep_all: all of
 * it is kept (leave_out). */
static int on_collection_start(struct builder *b, const yaml_event_t *ev, bool keep_all)
{
	if (b->depth >= sl_limits.depth) {
		struct sl_span at;
		mark_span(b->src, ev->start_mark, ev->end_mark, &at);
		sl_input_error(b->errs, &at, "document nests deeper than %zu levels (--max-depth)", sl_limits.depth);
		b->ys->hostile = true;
		return 1;
	}
	b->nodes++;
	int is_map = ev->type == YAML_MAPPING_START_EVENT;
	const char *anchor = (const char *)(is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
	const char *comp = NULL;
	if (b->depth) {
		const struct frame *up = &b->stack[b->depth - 1];
		comp = up->kind == SL_YSEQ ? "[]"
		       : up->n % 2 && b->items[up->first + up->n - 1]->kind == SL_YSCALAR
			   ? b->items[up->first + up->n - 1]->str
			   : "";
	}
	uint64_t alive = ~(uint64_t)0;
	size_t plen = 0;
	bool objects = false;
	if (b->keep && b->depth && !keep_all) {
		const struct frame *up = &b->stack[b->depth - 1];
		if (up->objects) {
			alive = ~(uint64_t)0; /* an item of a List: an object of its own */
		} else if (up->kind == SL_YSEQ) {
			bool done;
			alive = step_patterns(b, up->alive, up->plen, "[]", &done);
			plen = up->plen + 1;
			keep_all = done;
		} else {
			alive = b->next_alive;
			plen = up->plen + 1;
			objects = b->depth == 1 && comp && !strcmp(comp, "items") && !is_map;
		}
	}
	sl_grow(&b->stack, &b->cap, b->depth + 1, sizeof *b->stack);
	struct frame *f = &b->stack[b->depth++];
	memset(f, 0, sizeof *f);
	f->first = b->nitems;
	f->kind = is_map ? SL_YMAP : SL_YSEQ;
	f->flow = is_map ? ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
			 : ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
	mark_span(b->src, ev->start_mark, ev->end_mark, &f->at);
	f->comp = comp;
	f->keep_all = keep_all;
	f->alive = alive;
	f->plen = plen;
	f->objects = objects;
	f->anchor = anchor ? sl_xstrdup(anchor) : NULL;
	return 0;
}

/* A sequence or a mapping closes: its node is made, with its children. */
static int on_collection_end(struct builder *b, const yaml_event_t *ev)
{
	struct frame *f = &b->stack[--b->depth];
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
		size_t e = mark_byte(b->src, ev->end_mark.index);
		end = e > end ? e : end;
	}
	sl_source_span(b->src, n->at.off, end, &n->at);
	if (f->anchor) {
		define_anchor(b, f->anchor, n);
		free(f->anchor);
	}
	attach(b, n);
	return 0;
}

/* One event, by its kind. */
static int build_event(struct builder *b, const yaml_event_t *ev, bool keep_all)
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

/* One event: left out (in a dropped value, or a key nothing reads) or built into the tree. 0, or
 * -1 to stop: after an error, or when the source must be parsed again whole. */
static int take_event(struct builder *b, const yaml_event_t *ev)
{
	if (b->dropping || b->drop_value) {
		b->drop_value = false;
		return drop_event(b, ev, b->errs);
	}
	if (b->skip)
		return skip_event(b, ev);
	if (b->drop_next) { /* the value of a dropped key */
		b->drop_next = false;
		b->skipped_anchor |= event_anchor(ev) != NULL;
		if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT)
			b->skip = 1;
		return 0;
	}
	bool keep_all = false;
	if (leave_out(b, ev, &keep_all))
		return 0;
	if (build_event(b, ev, keep_all))
		return -1;
	if (b->aliased > sl_limits.alias_nodes || b->nodes > sl_limits.nodes) {
		struct sl_span at;
		mark_span(b->src, ev->start_mark, ev->end_mark, &at);
		if (b->aliased > sl_limits.alias_nodes)
			sl_input_error(b->errs, &at,
				       "document expands to more than %zu nodes through aliases (an alias bomb?); "
				       "--max-alias-nodes sets the limit",
				       sl_limits.alias_nodes);
		else
			sl_input_error(b->errs, &at, "document holds more than %zu nodes (--max-nodes)",
				       sl_limits.nodes);
		b->ys->hostile = true;
		return -1;
	}
	return 0;
}

static int parse(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs, const char *const *keep,
		 bool *need_full, const struct sl_yfilter *filter)
{
	yaml_parser_t p;
	struct builder b;
	memset(&b, 0, sizeof b);
	b.ys = out;
	b.src = src;
	b.errs = errs;
	b.keep = keep;
	b.filter = filter;
	if (keep)
		compile_patterns(&b, keep);
	if (!yaml_parser_initialize(&p)) {
		sl_input_error(errs, NULL, "%s: cannot initialise the YAML parser", src->path);
		return -1;
	}
	size_t bom = sl_source_bom(src);
	yaml_parser_set_input_string(&p, (const unsigned char *)src->data + bom, src->len - bom);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	int rc = 0;
	while (!b.done && !rc) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			parse_error(&b, &p);
			rc = -1;
			break;
		}
		rc = take_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	clear_stack(&b);
	clear_anchors(&b);
	free(b.stack);
	free(b.items);
	free(b.anchors);
	free(b.pats);
	yaml_parser_delete(&p);
	sl_yarena_spares_free(arena_of(out));
	*need_full = b.need_full;
	return rc;
}

int sl_yaml_parse(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs)
{
	return sl_yaml_parse_keep(src, out, errs, NULL);
}

int sl_yaml_parse_keep(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs,
		       const char *const *keep)
{
	bool need_full = false;
	struct sl_yarena_mark start = sl_yarena_mark(arena_of(out));
	int rc = parse(src, out, errs, keep, &need_full, NULL);
	if (need_full) { /* what the first pass built goes, in a shared arena too */
		sl_yarena_rewind(arena_of(out), &start);
		sl_yarena_spares_free(arena_of(out));
		out->n = 0;
		out->partial = false;
		rc = parse(src, out, errs, NULL, &need_full, NULL);
	}
	return rc;
}

int sl_yaml_parse_some(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs,
		       const struct sl_yfilter *f)
{
	bool need_full = false;
	struct sl_yarena_mark start = sl_yarena_mark(arena_of(out));
	int rc = parse(src, out, errs, NULL, &need_full, f);
	if (need_full) { /* an anchor or alias where values were left out: keep them all */
		struct sl_yfilter whole = {f->wanted, f->ctx, NULL, f->forget};
		sl_yarena_rewind(arena_of(out), &start);
		sl_yarena_spares_free(arena_of(out));
		out->n = 0;
		out->partial = false;
		rc = parse(src, out, errs, NULL, &need_full, &whole);
	}
	return rc;
}
