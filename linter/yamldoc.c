#include "yamldoc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "buf.h"
#include "input.h"

/* --- arena: every node and string of a stream, freed at once ------------------------------ */

struct sl_arena_chunk {
	struct sl_arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

/* Bump allocation from a list of chunks that double from 64 KiB to SL_HUGE_MIN, so a small
 * manifest stays small and a large inventory fills huge pages (larger requests get a chunk of
 * their own). */
static void *chunk_alloc(struct sl_arena_chunk **list, size_t n)
{
	struct sl_arena_chunk *c = *list;
	if (!c || c->cap - c->used < n) {
		size_t cap = c ? 2 * (sizeof *c + c->cap) : 65536;
		if (cap >= SL_HUGE_MIN)
			cap = SL_HUGE_MIN;
		cap -= sizeof *c;
		if (cap < n)
			cap = n;
		c = sizeof *c + cap >= SL_HUGE_MIN ? sl_huge_alloc(sizeof *c + cap) : sl_xmalloc(sizeof *c + cap);
		c->used = 0;
		c->cap = cap;
		c->next = *list;
		*list = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static void chunks_free(struct sl_arena_chunk **list)
{
	while (*list) {
		struct sl_arena_chunk *c = *list;
		*list = c->next;
		if (sizeof *c + c->cap >= SL_HUGE_MIN)
			sl_huge_free(c, sizeof *c + c->cap);
		else
			free(c);
	}
}

static void *arena_alloc(struct sl_ystream *ys, size_t n)
{
	return chunk_alloc(&ys->chunks, (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t));
}

/* Scalar text needs no alignment; packing it saves a third of the arena on typical YAML. */
static char *arena_alloc_str(struct sl_ystream *ys, size_t n)
{
	return chunk_alloc(&ys->strchunks, n);
}

void sl_ystream_free(struct sl_ystream *ys)
{
	chunks_free(&ys->chunks);
	chunks_free(&ys->strchunks);
	free(ys->docs);
	memset(ys, 0, sizeof *ys);
}

/* --- building ------------------------------------------------------------------------------ */

struct frame {
	struct sl_ynode *node;
	struct sl_ynode **items; /* heap while open; copied to the arena when closed */
	size_t n, cap;
	char *anchor;
	const char *comp; /* its key in the parent mapping, "[]" in a sequence, NULL at the root */
	bool keep_all;    /* inside a kept path: nothing below is dropped */
	uint64_t alive;   /* keep patterns this frame's path is on the way along */
	size_t plen;      /* components of that path, from the object */
	bool objects;     /* a List's `items`: each item starts a path of its own */
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
	const struct sl_source *src;
	struct frame *stack;
	size_t depth, cap;
	struct anchor *anchors;
	size_t nanchors, capanchors;
	struct sl_ynode *root;
	size_t aliased; /* nodes the open document's aliases stand for */
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

/* A UTF-8 byte order mark: libyaml, told the encoding, would read it as content, so the parser
 * starts after it and its marks count code points from there. */
static size_t bom_len(const struct sl_source *src)
{
	return src->len >= 3 && !memcmp(src->data, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

/* The byte offset of a libyaml mark's code-point index. */
static size_t mark_byte(const struct sl_source *src, size_t index)
{
	return sl_source_char_to_byte(src, index + (bom_len(src) ? 1 : 0));
}

static void mark_span(const struct sl_source *src, yaml_mark_t a, yaml_mark_t b, struct sl_span *out)
{
	size_t off = mark_byte(src, a.index);
	size_t end = mark_byte(src, b.index);
	if (end < off)
		sl_source_span_hint(src, off, off, a.line, a.line, out);
	else
		sl_source_span_hint(src, off, end, a.line, b.line, out);
}

/* Weights saturate at what a node's 32-bit weight holds, far above SL_YAML_MAX_NODES. */
static size_t sat_add(size_t a, size_t b)
{
	return a > UINT32_MAX - b || b > UINT32_MAX ? UINT32_MAX : a + b;
}

static int key_eq(const struct sl_ynode *a, const struct sl_ynode *b)
{
	return a->kind == SL_YSCALAR && b->kind == SL_YSCALAR && a->len == b->len && !memcmp(a->str, b->str, a->len);
}

static int is_merge_key(const struct sl_ynode *k)
{
	return k->kind == SL_YSCALAR && k->plain && k->len == 2 && !memcmp(k->str, "<<", 2);
}

struct pair {
	struct sl_ynode *k, *v;
	size_t order;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int xs = x->k->kind == SL_YSCALAR, ys = y->k->kind == SL_YSCALAR;
	if (xs != ys)
		return xs - ys;
	if (xs) {
		size_t n = x->k->len < y->k->len ? x->k->len : y->k->len;
		int c = memcmp(x->k->str, y->k->str, n);
		if (c)
			return c;
		if (x->k->len != y->k->len)
			return x->k->len < y->k->len ? -1 : 1;
	}
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_order(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void add_pair(struct pair **ps, size_t *n, size_t *cap, struct sl_ynode *k, struct sl_ynode *v, size_t order)
{
	sl_grow(ps, cap, *n + 1, sizeof **ps);
	(*ps)[*n].k = k;
	(*ps)[*n].v = v;
	(*ps)[*n].order = order;
	(*n)++;
}

/* Close a mapping: apply merge keys (explicit keys win, then earlier merged maps win), then keep
 * only the last of duplicate keys. Sorting keeps this O(n log n) for hostile key counts. */
static void finish_map(struct builder *b, struct frame *f)
{
	struct pair *ps = NULL;
	size_t n = 0, cap = 0, order = 0;
	struct sl_ynode **merges = NULL;
	size_t nm = 0, capm = 0;
	for (size_t i = 0; i + 1 < f->n; i += 2) {
		if (is_merge_key(f->items[i])) {
			struct sl_ynode *v = f->items[i + 1];
			if (v->kind == SL_YMAP) {
				sl_grow(&merges, &capm, nm + 1, sizeof *merges);
				merges[nm++] = v;
			} else if (v->kind == SL_YSEQ) {
				for (size_t j = 0; j < v->n; j++)
					if (v->v[j]->kind == SL_YMAP) {
						sl_grow(&merges, &capm, nm + 1, sizeof *merges);
						merges[nm++] = v->v[j];
					}
			}
			continue;
		}
		add_pair(&ps, &n, &cap, f->items[i], f->items[i + 1], order++);
	}
	/* Merged keys rank below every explicit key, and earlier merge sources win: give them
	 * "orders" that sort before explicit ones in the last-wins pass below, in reverse. */
	size_t explicit_n = n;
	for (size_t m = nm; m-- > 0;)
		for (size_t j = 0; j < merges[m]->n; j++)
			add_pair(&ps, &n, &cap, merges[m]->v[2 * j], merges[m]->v[2 * j + 1], 0);
	/* Renumber: merged pairs first (lowest), explicit after, so "last wins" = explicit wins. */
	for (size_t i = explicit_n; i < n; i++)
		ps[i].order = i - explicit_n;
	for (size_t i = 0; i < explicit_n; i++)
		ps[i].order += n - explicit_n;
	free(merges);
	if (n > 1) {
		qsort(ps, n, sizeof *ps, cmp_pair);
		size_t w = 0;
		for (size_t i = 0; i < n; i++) {
			if (i + 1 < n && key_eq(ps[i].k, ps[i + 1].k)) {
				/* A later pair with the same key wins, as in the API server, which warns
				 * of duplicate fields; merged keys are meant to be overridden. */
				if (ps[i].order >= n - explicit_n)
					sl_input_warning(b->errs, &ps[i + 1].k->at,
							 "duplicate key '%s' (also at %u:%u): the last one is kept",
							 ps[i].k->str, ps[i].k->at.line, ps[i].k->at.col);
				continue;
			}
			ps[w++] = ps[i];
		}
		n = w;
		qsort(ps, n, sizeof *ps, cmp_order);
	}
	struct sl_ynode *node = f->node;
	node->n = n;
	node->v = arena_alloc(b->ys, (2 * n + 1) * sizeof *node->v);
	size_t weight = 1;
	for (size_t i = 0; i < n; i++) {
		node->v[2 * i] = ps[i].k;
		node->v[2 * i + 1] = ps[i].v;
		weight = sat_add(weight, sat_add(ps[i].k->weight, ps[i].v->weight));
	}
	node->weight = weight;
	free(ps);
}

static void finish_seq(struct builder *b, struct frame *f)
{
	struct sl_ynode *node = f->node;
	node->n = f->n;
	node->v = arena_alloc(b->ys, (f->n + 1) * sizeof *node->v);
	size_t weight = 1;
	for (size_t i = 0; i < f->n; i++) {
		node->v[i] = f->items[i];
		weight = sat_add(weight, f->items[i]->weight);
	}
	node->weight = weight;
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
	for (size_t i = 0; i < b->depth; i++) {
		free(b->stack[i].items);
		free(b->stack[i].anchor);
	}
	b->depth = 0;
}

/* Attach a finished node to the open collection (or make it the root). 0, or -1 on a limit. */
static int attach(struct builder *b, struct sl_ynode *n)
{
	if (b->depth == 0) {
		b->root = n;
		return 0;
	}
	struct frame *f = &b->stack[b->depth - 1];
	sl_grow(&f->items, &f->cap, f->n + 1, sizeof *f->items);
	f->items[f->n++] = n;
	return 0;
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

static int parse(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs, const char *const *keep,
		 bool *need_full)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct builder b;
	memset(&b, 0, sizeof b);
	b.ys = out;
	b.src = src;
	b.errs = errs;
	b.keep = keep;
	if (keep)
		compile_patterns(&b, keep);
	if (!yaml_parser_initialize(&p)) {
		sl_input_error(errs, NULL, "%s: cannot initialise the YAML parser", src->path);
		return -1;
	}
	size_t bom = bom_len(src);
	yaml_parser_set_input_string(&p, (const unsigned char *)src->data + bom, src->len - bom);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	int rc = 0, done = 0;
	unsigned docno = 0;
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			struct sl_span at;
			size_t off = mark_byte(src, p.problem_mark.index);
			if (p.error == YAML_READER_ERROR)
				off = p.problem_offset < src->len ? p.problem_offset : src->len;
			sl_source_span(src, off, off, &at);
			const char *what = describe_problem(src, &p, off);
			if (p.context && strcmp(what, p.problem ? p.problem : "") == 0 &&
			    strcmp(p.context, "while scanning for the next token"))
				sl_input_error(errs, &at, "invalid YAML: %s, %s that starts at %u:%u", what, p.context,
					       (unsigned)p.context_mark.line + 1, (unsigned)p.context_mark.column + 1);
			else
				sl_input_error(errs, &at, "invalid YAML: %s", what);
			rc = -1;
			break;
		}
		struct sl_ynode *n = NULL;
		const char *anchor = NULL;
		int err = 0;
		bool keep_all = false;
		if (b.skip) {
			/* inside a dropped value: only its nesting and its anchors matter, and the
			 * nesting limit holds here too (libyaml's time grows with the square of it) */
			if ((ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) &&
			    b.depth + b.skip >= SL_YAML_MAX_DEPTH) {
				struct sl_span at;
				mark_span(src, ev.start_mark, ev.end_mark, &at);
				sl_input_error(errs, &at, "document nests deeper than %d levels", SL_YAML_MAX_DEPTH);
				out->hostile = true;
				yaml_event_delete(&ev);
				rc = -1;
				break;
			}
			if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
				b.skip++;
			else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
				b.skip--;
			b.skipped_anchor |= event_anchor(&ev) != NULL;
			yaml_event_delete(&ev);
			continue;
		}
		if (b.drop_next) { /* the value of a dropped key */
			b.drop_next = false;
			b.skipped_anchor |= event_anchor(&ev) != NULL;
			if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
				b.skip = 1;
			yaml_event_delete(&ev);
			continue;
		}
		if (b.keep && ev.type == YAML_SCALAR_EVENT && b.depth && b.stack[b.depth - 1].node->kind == SL_YMAP &&
		    b.stack[b.depth - 1].n % 2 == 0 && !b.stack[b.depth - 1].objects) {
			bool all;
			if (drop_key(&b, (const char *)ev.data.scalar.value, &all)) {
				b.skipped_anchor |= event_anchor(&ev) != NULL;
				b.drop_next = true;
				yaml_event_delete(&ev);
				continue;
			}
			b.keep_next = all;
		} else if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			/* a collection opening: below a kept key, or in a frame that keeps all */
			keep_all = b.keep_next || (b.depth && b.stack[b.depth - 1].keep_all) || !b.keep;
			b.keep_next = false;
		} else if (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT)
			b.keep_next = false;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			b.root = NULL;
			b.aliased = 0;
			break;
		case YAML_DOCUMENT_END_EVENT:
			sl_grow(&out->docs, &out->cap, out->n + 1, sizeof *out->docs);
			out->docs[out->n].src = src;
			out->docs[out->n].root = b.root;
			out->docs[out->n++].index = docno++;
			clear_anchors(&b);
			break;
		case YAML_ALIAS_EVENT: {
			const char *name = (const char *)ev.data.alias.anchor;
			for (size_t i = b.nanchors; i-- > 0;)
				if (!strcmp(b.anchors[i].name, name)) {
					n = b.anchors[i].node;
					break;
				}
			if (!n && b.skipped_anchor) {
				b.need_full = true; /* its anchor may have been dropped */
				err = 1;
				break;
			}
			if (!n) {
				struct sl_span at;
				mark_span(src, ev.start_mark, ev.end_mark, &at);
				sl_input_error(errs, &at, "invalid YAML: alias *%s refers to no anchor", name);
				err = 1;
				break;
			}
			if (n->weight == 0) { /* still open: the alias is inside its own anchor */
				struct sl_span at;
				mark_span(src, ev.start_mark, ev.end_mark, &at);
				sl_input_error(errs, &at, "invalid YAML: alias *%s refers to an enclosing node", name);
				err = 1;
				break;
			}
			/* Only aliases multiply what a walk of the tree visits: a large document is
			 * fine, a small one that expands to millions of nodes is an alias bomb. */
			b.aliased = sat_add(b.aliased, n->weight);
			attach(&b, n);
			break;
		}
		case YAML_SCALAR_EVENT:
			n = arena_alloc(out, sizeof *n);
			memset(n, 0, sizeof *n);
			n->kind = SL_YSCALAR;
			n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev.data.scalar.tag;
			mark_span(src, ev.start_mark, ev.end_mark, &n->at);
			n->len = ev.data.scalar.length;
			{
				char *s = arena_alloc_str(out, n->len + 1);
				memcpy(s, ev.data.scalar.value, n->len);
				s[n->len] = 0;
				n->str = s;
			}
			n->weight = 1;
			anchor = (const char *)ev.data.scalar.anchor;
			if (anchor)
				define_anchor(&b, anchor, n);
			attach(&b, n);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			if (b.depth >= SL_YAML_MAX_DEPTH) {
				struct sl_span at;
				mark_span(src, ev.start_mark, ev.end_mark, &at);
				sl_input_error(errs, &at, "document nests deeper than %d levels", SL_YAML_MAX_DEPTH);
				out->hostile = true;
				err = 1;
				break;
			}
			n = arena_alloc(out, sizeof *n);
			memset(n, 0, sizeof *n);
			int is_map = ev.type == YAML_MAPPING_START_EVENT;
			n->kind = is_map ? SL_YMAP : SL_YSEQ;
			n->flow = is_map ? ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
					 : ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
			mark_span(src, ev.start_mark, ev.end_mark, &n->at);
			anchor = (const char *)(is_map ? ev.data.mapping_start.anchor : ev.data.sequence_start.anchor);
			const char *comp = NULL;
			if (b.depth) {
				const struct frame *up = &b.stack[b.depth - 1];
				comp = up->node->kind == SL_YSEQ ? "[]"
				       : up->n % 2 && up->items[up->n - 1]->kind == SL_YSCALAR
					   ? up->items[up->n - 1]->str
					   : "";
			}
			uint64_t alive = ~(uint64_t)0;
			size_t plen = 0;
			bool objects = false;
			if (b.keep && b.depth && !keep_all) {
				const struct frame *up = &b.stack[b.depth - 1];
				if (up->objects) {
					alive = ~(uint64_t)0; /* an item of a List: an object of its own */
				} else if (up->node->kind == SL_YSEQ) {
					bool done;
					alive = step_patterns(&b, up->alive, up->plen, "[]", &done);
					plen = up->plen + 1;
					keep_all = done;
				} else {
					alive = b.next_alive;
					plen = up->plen + 1;
					objects = b.depth == 1 && comp && !strcmp(comp, "items") && !is_map;
				}
			}
			sl_grow(&b.stack, &b.cap, b.depth + 1, sizeof *b.stack);
			struct frame *f = &b.stack[b.depth++];
			memset(f, 0, sizeof *f);
			f->node = n;
			f->comp = comp;
			f->keep_all = keep_all;
			f->alive = alive;
			f->plen = plen;
			f->objects = objects;
			f->anchor = anchor ? sl_xstrdup(anchor) : NULL;
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT: {
			struct frame *f = &b.stack[--b.depth];
			n = f->node;
			if (n->kind == SL_YMAP)
				finish_map(&b, f);
			else
				finish_seq(&b, f);
			/* The span runs from the start of the collection to the end of its last
			 * child: libyaml's end mark for block collections lies on the next line. */
			{
				size_t end = n->at.end;
				if (!n->flow) {
					end = n->at.off;
					for (size_t i = 0; i < (n->kind == SL_YMAP ? 2 * n->n : n->n); i++)
						if (n->v[i]->at.end > end)
							end = n->v[i]->at.end;
				} else {
					size_t e = mark_byte(src, ev.end_mark.index);
					end = e > end ? e : end;
				}
				sl_source_span(src, n->at.off, end, &n->at);
			}
			free(f->items);
			if (f->anchor) {
				define_anchor(&b, f->anchor, n);
				free(f->anchor);
			}
			attach(&b, n);
			break;
		}
		default:
			break;
		}
		if (!err && b.aliased > SL_YAML_MAX_NODES) {
			struct sl_span at;
			mark_span(src, ev.start_mark, ev.end_mark, &at);
			sl_input_error(errs, &at,
				       "document expands to more than %d nodes through aliases (an "
				       "alias bomb?)",
				       SL_YAML_MAX_NODES);
			out->hostile = true;
			err = 1;
		}
		yaml_event_delete(&ev);
		if (err) {
			rc = -1;
			break;
		}
	}
	clear_stack(&b);
	clear_anchors(&b);
	free(b.stack);
	free(b.anchors);
	free(b.pats);
	yaml_parser_delete(&p);
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
	int rc = parse(src, out, errs, keep, &need_full);
	if (need_full) {
		sl_ystream_free(out);
		rc = parse(src, out, errs, NULL, &need_full);
	}
	return rc;
}

/* --- lookups -------------------------------------------------------------------------------- */

/* The index of key among map's pairs, or map->n. */
static size_t pair_index(const struct sl_ynode *map, const char *key)
{
	size_t kl = strlen(key), i = 0;
	for (; i < map->n; i++) {
		const struct sl_ynode *k = map->v[2 * i];
		if (k->kind == SL_YSCALAR && k->len == kl && !memcmp(k->str, key, kl))
			break;
	}
	return i;
}

const struct sl_ynode *sl_ymap_key(const struct sl_ynode *map, const char *key)
{
	if (!map || map->kind != SL_YMAP)
		return NULL;
	size_t i = pair_index(map, key);
	return i < map->n ? map->v[2 * i] : NULL;
}

const struct sl_ynode *sl_ymap_get(const struct sl_ynode *map, const char *key)
{
	if (!map || map->kind != SL_YMAP)
		return NULL;
	size_t i = pair_index(map, key);
	return i < map->n ? map->v[2 * i + 1] : NULL;
}

const struct sl_ynode *sl_ypath(const struct sl_ynode *n, const char *dotted)
{
	char part[128];
	while (n && *dotted) {
		const char *dot = strchr(dotted, '.');
		size_t l = dot ? (size_t)(dot - dotted) : strlen(dotted);
		if (l >= sizeof part)
			return NULL;
		memcpy(part, dotted, l);
		part[l] = 0;
		n = sl_ymap_get(n, part);
		dotted += l + (dot ? 1 : 0);
	}
	return n;
}

bool sl_yscalar(const struct sl_ynode *n)
{
	return n && n->kind == SL_YSCALAR;
}

bool sl_ynull(const struct sl_ynode *n)
{
	if (!n)
		return true;
	if (n->kind != SL_YSCALAR || !n->plain)
		return false;
	return n->len == 0 || !strcmp(n->str, "~") || !strcmp(n->str, "null") || !strcmp(n->str, "Null") ||
	       !strcmp(n->str, "NULL");
}

bool sl_yis(const struct sl_ynode *n, const char *s)
{
	return sl_yscalar(n) && !strcmp(n->str, s);
}

int sl_yint(const struct sl_ynode *n, int64_t *out)
{
	if (!sl_yscalar(n) || !n->plain || n->len == 0)
		return -1;
	const char *s = n->str;
	int neg = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!*s)
		return -1;
	int64_t v = 0;
	for (; *s; s++) {
		if (*s == '_') /* YAML 1.1 digit separator */
			continue;
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (INT64_MAX - (*s - '0')) / 10)
			return -2;
		v = v * 10 + (*s - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

const char *sl_ykind_name(const struct sl_ynode *n)
{
	if (!n)
		return "nothing";
	switch (n->kind) {
	case SL_YMAP:
		return "a mapping";
	case SL_YSEQ:
		return "a list";
	default:
		return sl_ynull(n) ? "null" : "a scalar";
	}
}

/* Followed down the one child that holds off. */
static bool in_scalar(const struct sl_ynode *n, size_t off)
{
	while (n && off >= n->at.off && off < n->at.end) {
		if (n->kind == SL_YSCALAR)
			return true;
		const struct sl_ynode *next = NULL;
		size_t k = n->kind == SL_YMAP ? 2 * (size_t)n->n : n->n;
		for (size_t i = 0; i < k && !next; i++)
			if (n->v[i] && off >= n->v[i]->at.off && off < n->v[i]->at.end)
				next = n->v[i];
		n = next;
	}
	return false;
}

bool sl_ystream_in_scalar(const struct sl_ystream *ys, size_t off)
{
	for (size_t d = 0; ys && d < ys->n; d++)
		if (in_scalar(ys->docs[d].root, off))
			return true;
	return false;
}
