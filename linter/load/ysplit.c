/* ysplit.c — one large List parsed in two pieces (see ysplit.h): where to cut, and the join. */
#include "ysplit.h"

#include <string.h>

#include "source.h"

/* What a line is to the search for a cut, by its first bytes. */
enum line_kind {
	LINE_INSIDE, /* indented, blank or a comment: inside whatever the lines above opened */
	LINE_ITEM,   /* "- ": an item of a block sequence written at column 0 */
	LINE_ITEMS,  /* "items:" and nothing after it: the key of such a sequence */
	LINE_KEY,    /* another key at column 0 (or a plain scalar there) */
	LINE_OTHER   /* anything else: a document marker, a directive, a flow collection, a tab… */
};

static bool word_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* p: a line's first byte (the source's NUL after its last line). */
static enum line_kind line_kind(const char *p)
{
	char c = p[0];
	if (c == ' ' || c == '\n' || c == '\r' || c == '#' || c == '\0')
		return LINE_INSIDE;
	if (c == '-')
		return p[1] == ' ' || p[1] == '\n' || p[1] == '\r' ? LINE_ITEM : LINE_OTHER;
	if (!strncmp(p, "items:", 6)) {
		const char *q = p + 6;
		while (*q == ' ')
			q++;
		/* "items: []" or "items: &a": not a block sequence at column 0 */
		return *q == '\n' || *q == '\r' ? LINE_ITEMS : LINE_OTHER;
	}
	return word_byte(c) ? LINE_KEY : LINE_OTHER;
}

bool sl_ysplit_find(const struct sl_source *src, size_t *cut)
{
	/* No code-point table: ASCII, where a mark's index is a byte offset (and no byte order mark
	 * can be there). */
	if (!src->lines || src->cp || !src->data || src->len < SL_YSPLIT_MIN)
		return false;
	bool items = false, first = true;
	size_t half = src->len / 2;
	/* Only lines at column 0 tell: in block style everything inside the document's keys is
	 * indented, and an item's lines below its "- " are too. A line at column 0 inside a scalar
	 * quoted over several lines can fool this; the pieces' parses then fail or run over the cut,
	 * and the join refuses them. */
	for (uint32_t k = 0; k < src->nlines; k++) {
		size_t at = src->lines[k];
		switch (line_kind(src->data + at)) {
		case LINE_INSIDE:
			continue;
		case LINE_ITEM:
			if (!items)
				return false; /* a sequence among the keys, or one at the top */
			if (at >= half && !first) {
				*cut = at;
				return true;
			}
			first = false;
			continue;
		case LINE_ITEMS:
			if (items)
				return false; /* written twice */
			items = true;
			continue;
		case LINE_KEY:
			if (items)
				return false; /* the items ended before the middle */
			continue;
		default:
			return false;
		}
	}
	return false;
}

void sl_ysplit_pieces(const struct sl_source *src, size_t cut, struct sl_ypiece *first, struct sl_ypiece *second)
{
	*first = (struct sl_ypiece){NULL, 0, 0, cut, 0, 0, false};
	*second = (struct sl_ypiece){SL_YSPLIT_PREFIX, sizeof SL_YSPLIT_PREFIX - 1, cut, src->len, 0, 0, false};
}

static bool block(const struct sl_ynode *n, enum sl_ykind k)
{
	return n && n->kind == k && !n->flow && !n->anchored;
}

/* Whether the roots' keys other than items could interact: a key on both sides (the whole
 * would have kept the later value, with a warning), or a merge key (its pairs give way to the
 * document's own, on either side). */
static bool keys_clash(const struct sl_ynode *ra, const struct sl_ynode *rb)
{
	for (size_t i = 0; i < ra->n; i++)
		if (!sl_yscalar(ra->v[2 * i]) || sl_yis(ra->v[2 * i], "<<"))
			return true;
	for (size_t j = 0; j < rb->n; j++)
		if (!sl_yscalar(rb->v[2 * j]) || sl_yis(rb->v[2 * j], "<<"))
			return true;
	for (size_t i = 0; i + 1 < ra->n; i++) /* a handful each */
		for (size_t j = 1; j < rb->n; j++)
			if (!strcmp(ra->v[2 * i]->str, rb->v[2 * j]->str))
				return true;
	return false;
}

bool sl_ysplit_join(struct sl_ystream *a, const struct sl_ystream *b, const struct sl_ypiece *pa,
		    const struct sl_ypiece *pb, struct sl_yarena *arena)
{
	/* A piece parsed again keeping everything: the other may have left out what the whole
	 * would have kept. */
	if (a->n != 1 || b->n != 1 || a->hostile || b->hostile || pa->again || pb->again)
		return false;
	/* The limits are the whole document's (the second piece's counts hold its prefix's two). */
	if (pa->nodes + pb->nodes > sl_limits.nodes || pa->aliased + pb->aliased > sl_limits.alias_nodes)
		return false;
	const struct sl_ynode *ra = a->docs[0].root, *rb = b->docs[0].root;
	if (!block(ra, SL_YMAP) || !block(rb, SL_YMAP) || !ra->n || !rb->n)
		return false;
	const struct sl_ynode *ia = ra->v[2 * ra->n - 1], *ib = rb->v[1];
	if (!sl_yis(ra->v[2 * ra->n - 2], "items") || !sl_yis(rb->v[0], "items") || !block(ia, SL_YSEQ) ||
	    !block(ib, SL_YSEQ) || !ia->n || !ib->n || keys_clash(ra, rb))
		return false;
	/* Neither parse ran over the cut: the first piece's items end before it, the second's start
	 * after it. */
	if (ia->v[ia->n - 1]->at.end > pb->off || ib->v[0]->at.off < pb->off)
		return false;
	size_t n = (size_t)ia->n + ib->n, np = (size_t)ra->n + rb->n - 1;
	struct sl_ynode *items = sl_yarena_node(arena, sizeof *items + n * sizeof items->v[0]);
	*items = *ia; /* its kind, flags and start */
	items->n = (uint32_t)n;
	memcpy(items->v, ia->v, ia->n * sizeof items->v[0]);
	memcpy(items->v + ia->n, ib->v, ib->n * sizeof items->v[0]);
	items->at.end = ib->at.end;
	struct sl_ynode *root = sl_yarena_node(arena, sizeof *root + 2 * np * sizeof root->v[0]);
	*root = *ra;
	root->n = (uint32_t)np;
	memcpy(root->v, ra->v, 2 * ra->n * sizeof root->v[0]);
	root->v[2 * ra->n - 1] = items;
	memcpy(root->v + 2 * ra->n, rb->v + 2, 2 * (rb->n - 1) * sizeof root->v[0]);
	root->at.end = rb->at.end;
	a->docs[0].root = root;
	a->partial |= b->partial;
	return true;
}
