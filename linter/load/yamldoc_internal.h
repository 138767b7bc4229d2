/* yamldoc_internal.h — internal to linter/load/: what the three files that build a tree from
 * libyaml's events share, and nothing outside them includes (the API is yamldoc.h). yamldoc.c
 * drives the parser; each event is either left out unbuilt (ykeep.c: the keep paths of
 * sl_yaml_parse_keep and the filter of sl_yaml_parse_some) or built into the tree (ybuild.c: one
 * handler per event kind). The builder is their state for one parse of a source;
 * the few helpers all three need are static inline here, so that none calls back into another. */
#ifndef SL_YAMLDOC_INTERNAL_H
#define SL_YAMLDOC_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "source.h"
#include "yamldoc.h"

/* A set of keep patterns, one bit each (SL_YKEEP_PATTERNS of them: an inventory's keep list is
 * past 64 since the model reads Dynamic Resource Allocation's objects; a pattern past the last
 * bit would be ignored, its values dropped). */
typedef unsigned __int128 sl_ykeep_mask;

/* An open collection. */
struct sl_yframe {
	/* the collection's node is made when it closes, with its children */
	struct sl_span at;
	uint8_t kind;
	bool flow;
	size_t first, n; /* its children so far: builder items[first .. first + n) */
	char *anchor;
	const char *comp; /* its key in the parent mapping, "[]" in a sequence, NULL at the root */
	bool keep_all;    /* inside a kept path: nothing below is dropped */
	size_t plen;      /* components of that path, from the object */
	bool objects;     /* a List's `items`: each item starts a path of its own */
	uint8_t leave;    /* 0, or the filter may leave out some of its entries: their class (sl_yfilter.unread_in) */
	/* A mapping that may be merged (<<) into another, later: its children's weights are held
	 * until the document ends (ybuild.c) */
	bool merge_source;
	/* Entries left out (sl_yfilter.unread): the furthest end and the nodes of them */
	size_t dropped_end, dropped_weight;
};

#define SL_YKEEP_PATTERNS SL_YKEEP_MAX
#define SL_YKEEP_COMPS 12
/* The keep patterns by their components, at one depth: each component found there ("[]" for a
 * sequence's items), with the patterns that have it (a slice of the keep path: not NUL-ended);
 * and the patterns that end there. Asked for every key of every object, a component is compared
 * once, not once per pattern that has it: dozens share "spec" or "metadata". */
struct sl_ykeep_comp {
	const char *s;
	size_t len;
	sl_ykeep_mask pats;
};
struct sl_ykeep_level {
	struct sl_ykeep_comp *v;
	size_t n;
	sl_ykeep_mask ends;
};

struct sl_yanchor {
	char *name;
	struct sl_ynode *node;
};

struct sl_ybuilder {
	struct sl_ystream *ys;
	/* The children of the open collections, each one's after its parent's: one array for all,
	 * rather than one allocation per collection. */
	struct sl_ynode **items;
	size_t nitems, capitems;
	const struct sl_source *src;
	struct sl_yframe *stack;
	size_t depth, cap;
	struct sl_yanchor *anchors;
	size_t nanchors, capanchors;
	struct sl_ynode *root;
	/* Collections whose weight (in str) may still be asked for, until the document ends:
	 * anchored ones and the children of mappings that may be merged */
	struct sl_ynode **held;
	size_t nheld, capheld;
	size_t aliased; /* nodes the open document's aliases stand for */
	size_t nodes;   /* nodes the open document keeps */
	/* Keeping only some paths (sl_yaml_parse_keep) */
	const char *const *keep;
	struct sl_ykeep_level *levels; /* SL_YKEEP_COMPS, their components after them: one block */
	sl_ykeep_mask next_alive;      /* patterns the kept key's value is on the way along */
	/* Per open collection (as stack), the keep patterns its path is on the way along: apart from
	 * the frames, which a parse without keep paths (a manifest's) does not make wider for them. */
	sl_ykeep_mask *alive;
	size_t capalive;
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
	/* The bytes of the documents not kept ([off, end) each), given back when the parse is over:
	 * not before, as a second pass (need_full) reads them again. */
	size_t (*forgets)[2];
	size_t nforgets, capforgets;
	bool done; /* the stream ended */
};

_Static_assert(_Alignof(struct sl_ynode) <= _Alignof(void *), "the arena aligns nodes as pointers");

/* The arena a stream's trees are allocated from. */
static inline struct sl_yarena *sl_ystream_arena(struct sl_ystream *ys)
{
	return ys->shared ? ys->shared : &ys->own;
}

/* The byte offset of a libyaml mark's code-point index. A UTF-8 byte order mark: libyaml, told the
 * encoding, would read it as content, so the parser starts after it and its marks count code
 * points from there. An indexed ASCII source (no code-point table) has no BOM and one byte per
 * code point: the index is the offset, which every event of nearly every file needs. */
static inline size_t sl_ymark_byte(const struct sl_source *src, size_t index)
{
	if (src->lines && !src->cp)
		return index < src->len ? index : src->len;
	return sl_source_char_to_byte(src, index + (sl_source_bom(src) ? 1 : 0));
}

/* sl_source_char_to_byte, inline for an indexed ASCII source (where sl_ymark_byte is the same). */
static inline size_t sl_ychar_byte(const struct sl_source *src, size_t index)
{
	if (src->lines && !src->cp)
		return index < src->len ? index : src->len;
	return sl_source_char_to_byte(src, index);
}

/* The span of an event's marks: byte offsets only (lines and columns are computed when printed). */
static inline void sl_ymark_span(const struct sl_source *src, yaml_mark_t a, yaml_mark_t b, struct sl_span *out)
{
	size_t off = sl_ymark_byte(src, a.index);
	size_t end = sl_ymark_byte(src, b.index);
	out->src = src;
	out->off = (uint32_t)off;
	out->end = (uint32_t)(end < off ? off : end);
}

/* Weights saturate at UINT32_MAX, far above the alias limit. */
static inline size_t sl_ysat_add(size_t a, size_t b)
{
	return a > UINT32_MAX - b || b > UINT32_MAX ? UINT32_MAX : a + b;
}

/* --- ykeep.c: what is left out ------------------------------------------------------------ */

/* Whether the event needs no decision of sl_ykeep_leave_out: no keep paths, nothing being left
 * out, and not a key the filter could leave out (of a mapping with a leave class). Then it is built, and all of a
 * collection it opens is kept. Inline: most events of a manifest are such, and a call for each costs more than the
 * test. */
static inline bool sl_ykeep_none(const struct sl_ybuilder *b, const yaml_event_t *ev)
{
	/* dropping is skip > 0, and drop_next is set only with keep paths: neither is tested again */
	if (b->keep || b->drop_value || b->skip)
		return false;
	if (ev->type != YAML_SCALAR_EVENT || !b->depth)
		return true;
	const struct sl_yframe *top = &b->stack[b->depth - 1];
	return !top->leave || top->kind != SL_YMAP || top->n % 2; /* a value, or an item */
}
/* The keep paths (NULL-terminated, at most SL_YKEEP_PATTERNS of them) split into components. */
void sl_ykeep_compile(struct sl_ybuilder *b, const char *const *keep);
/* Whether the event is left out unbuilt: 1, or 0 to build it (*keep_all: all of a collection it
 * opens is kept), or -1 to stop (after an error, or when the source must be parsed again whole). */
int sl_ykeep_leave_out(struct sl_ybuilder *b, const yaml_event_t *ev, bool *keep_all);
/* Where the frame f, opening at b->depth, stands on the keep paths: the patterns it is on the way
 * along, how far along, whether it is a List's items, and whether all of it is kept (f->keep_all,
 * set beforehand by sl_ykeep_leave_out, may only grow). Reads f->comp. */
void sl_ykeep_open(struct sl_ybuilder *b, struct sl_yframe *f, bool is_map);

/* --- ybuild.c: what is built -------------------------------------------------------------- */

/* One event, by its kind: 0, or 1 to stop (after an error, or when the source must be parsed
 * again whole). */
int sl_ybuild_event(struct sl_ybuilder *b, const yaml_event_t *ev, bool keep_all);
/* The open frames' and the anchors' names, freed after the last event (or an error). */
void sl_ybuild_clear(struct sl_ybuilder *b);

#endif
