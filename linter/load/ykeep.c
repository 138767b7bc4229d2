/* ykeep.c — what a parse leaves out of the tree unbuilt: keys that no keep path of
 * sl_yaml_parse_keep reaches, with their values, and the documents and entries the filter of
 * sl_yaml_parse_some says nothing reads. Only a left-out value's nesting, extent, size and anchors
 * matter: an anchor or an alias there makes the source parse again, whole. A file of its own
 * because none of it builds anything: ybuild.c makes nodes, this decides which it need not. */
#include "yamldoc_internal.h"

#include <string.h>

#include "../base/buf.h"

/* The component of level l that is s[0, len), added when new. */
static struct sl_ykeep_comp *level_comp(struct sl_ykeep_level *l, const char *s, size_t len)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].len == len && !memcmp(l->v[i].s, s, len))
			return &l->v[i];
	l->v[l->n] = (struct sl_ykeep_comp){s, len, 0};
	return &l->v[l->n++];
}

void sl_ykeep_compile(struct sl_ybuilder *b, const char *const *keep)
{
	/* each level has room for a component of every pattern */
	char *block =
	    sl_xmalloc(SL_YKEEP_COMPS * (sizeof *b->levels + SL_YKEEP_PATTERNS * sizeof(struct sl_ykeep_comp)));
	b->levels = (struct sl_ykeep_level *)block;
	struct sl_ykeep_comp *comps = (struct sl_ykeep_comp *)(b->levels + SL_YKEEP_COMPS);
	for (size_t d = 0; d < SL_YKEEP_COMPS; d++)
		b->levels[d] = (struct sl_ykeep_level){comps + d * SL_YKEEP_PATTERNS, 0, 0};
	for (size_t n = 0; keep[n] && n < SL_YKEEP_PATTERNS; n++) {
		sl_ykeep_mask bit = (sl_ykeep_mask)1 << n;
		size_t d = 0;
		for (const char *p = keep[n]; *p && d < SL_YKEEP_COMPS; d++) {
			size_t len = *p == '[' ? 2 : strcspn(p, ".[");
			level_comp(&b->levels[d], *p == '[' ? "[]" : p, len)->pats |= bit;
			p += len;
			if (*p == '.')
				p++;
		}
		if (d)
			b->levels[d - 1].ends |= bit;
	}
}

/* The patterns of `alive` whose component at plen is comp; *done: one of them ends there. */
static sl_ykeep_mask step_patterns(const struct sl_ybuilder *b, sl_ykeep_mask alive, size_t plen, const char *comp,
				   bool *done)
{
	*done = false;
	if (plen >= SL_YKEEP_COMPS)
		return 0;
	const struct sl_ykeep_level *l = &b->levels[plen];
	for (size_t i = 0; i < l->n; i++) {
		const struct sl_ykeep_comp *c = &l->v[i];
		if (c->s[0] != comp[0] || strncmp(c->s, comp, c->len) || comp[c->len])
			continue;
		sl_ykeep_mask out = alive & c->pats;
		*done = (out & l->ends) != 0;
		return out;
	}
	return 0;
}

/* Whether the key about to be read (a scalar in key position of the open mapping) and its value
 * are dropped. Paths are taken from the object: the document, or each item of a top-level
 * `items` list. Sets what the value's frame inherits. */
static bool drop_key(struct sl_ybuilder *b, const char *key, bool *keep_all)
{
	*keep_all = false;
	const struct sl_yframe *top = &b->stack[b->depth - 1];
	if (top->keep_all) {
		*keep_all = true;
		return false;
	}
	if (b->depth == 1 && !strcmp(key, "items")) {
		b->next_alive = ~(sl_ykeep_mask)0; /* a List's items are objects: paths start inside each */
		return false;
	}
	bool done;
	b->next_alive = step_patterns(b, b->alive[b->depth - 1], top->plen, key, &done);
	*keep_all = done;
	return !b->next_alive;
}

void sl_ykeep_open(struct sl_ybuilder *b, struct sl_yframe *f, bool is_map)
{
	f->plen = 0;
	f->objects = false;
	if (!b->keep)
		return;
	sl_grow(&b->alive, &b->capalive, b->depth + 1, sizeof *b->alive);
	sl_ykeep_mask *alive = &b->alive[b->depth];
	*alive = ~(sl_ykeep_mask)0;
	if (!b->depth || f->keep_all)
		return;
	const struct sl_yframe *up = &b->stack[b->depth - 1];
	if (up->objects) {
		*alive = ~(sl_ykeep_mask)0; /* an item of a List: an object of its own */
	} else if (up->kind == SL_YSEQ) {
		bool done;
		*alive = step_patterns(b, b->alive[b->depth - 1], up->plen, "[]", &done);
		f->plen = up->plen + 1;
		f->keep_all = done;
	} else {
		*alive = b->next_alive;
		f->plen = up->plen + 1;
		f->objects = b->depth == 1 && f->comp && !strcmp(f->comp, "items") && !is_map;
	}
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
static void dropped(struct sl_ybuilder *b, size_t start, size_t end, size_t weight)
{
	struct sl_yframe *f = &b->stack[b->depth - 1];
	end = end > start ? end : start;
	f->dropped_end = end > f->dropped_end ? end : f->dropped_end;
	f->dropped_weight = sl_ysat_add(f->dropped_weight, weight);
}

/* An event of a value left out: only its nesting, its extent (the furthest end of a scalar or a
 * flow collection in it) and its size matter. 0, or -1 after an error, or when an anchor or an
 * alias means the source must be parsed whole. By the event's kind: a document's entries nothing
 * reads (a CustomResourceDefinition's schema) make most of the events of some manifests. */
static int drop_event(struct sl_ybuilder *b, const yaml_event_t *ev, struct sl_findings *errs)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.anchor)
			break;
		dropped(b, sl_ychar_byte(b->src, ev->start_mark.index), sl_ychar_byte(b->src, ev->end_mark.index), 1);
		b->dropping = b->skip > 0;
		return 0;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
		if (seq ? ev->data.sequence_start.anchor != NULL : ev->data.mapping_start.anchor != NULL)
			break;
		if (b->depth + b->skip >= sl_limits.depth) {
			struct sl_span at;
			sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &at);
			sl_input_error(errs, &at, "document nests deeper than %zu levels (--max-depth)",
				       sl_limits.depth);
			return -1;
		}
		dropped(b, 0, 0, 1);
		b->drop_flow[b->skip++] = seq ? ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
					      : ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
		b->dropping = true;
		return 0;
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->drop_flow[b->skip - 1])
			dropped(b, sl_ychar_byte(b->src, ev->start_mark.index),
				sl_ychar_byte(b->src, ev->end_mark.index), 0);
		b->dropping = --b->skip > 0;
		return 0;
	case YAML_ALIAS_EVENT:
		break;
	default:
		b->dropping = b->skip > 0;
		return 0;
	}
	b->need_full = true; /* an anchor, or an alias */
	return -1;
}

/* An event inside a dropped value: only its nesting and its anchors matter, and the nesting limit
 * holds here too (libyaml's time grows with the square of it). 0, or -1 after an error. */
static int skip_event(struct sl_ybuilder *b, const yaml_event_t *ev)
{
	bool open = ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT;
	if (open && b->depth + b->skip >= sl_limits.depth) {
		struct sl_span at;
		sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &at);
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
static bool leave_out_key(struct sl_ybuilder *b, const yaml_event_t *ev, bool *keep_all)
{
	const struct sl_yframe *top = b->depth ? &b->stack[b->depth - 1] : NULL;
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
	} else if (key && top->leave && !ev->data.scalar.anchor &&
		   b->filter->unread(b->filter->ctx, (const char *)ev->data.scalar.value, top->leave,
				     b->items + top->first, top->n)) {
		/* an entry nothing reads: left out, key and value, but for its extent */
		dropped(b, sl_ychar_byte(b->src, ev->start_mark.index), sl_ychar_byte(b->src, ev->end_mark.index), 1);
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

/* In a value left out, the event goes with it (its end, its size and its anchors noted);
 * otherwise it may be a key that is left out with its value. */
int sl_ykeep_leave_out(struct sl_ybuilder *b, const yaml_event_t *ev, bool *keep_all)
{
	if (b->dropping || b->drop_value) {
		b->drop_value = false;
		return drop_event(b, ev, b->errs) < 0 ? -1 : 1;
	}
	if (b->skip)
		return skip_event(b, ev) < 0 ? -1 : 1;
	if (b->drop_next) { /* the value of a dropped key */
		b->drop_next = false;
		b->skipped_anchor |= event_anchor(ev) != NULL;
		if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT)
			b->skip = 1;
		return 1;
	}
	return leave_out_key(b, ev, keep_all) ? 1 : 0;
}
