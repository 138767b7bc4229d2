/* yamldoc.c — a source's YAML into trees (see yamldoc.h): drives libyaml's parser over the
 * bytes, takes each event (left out unbuilt by ykeep.c, or built into the tree by ybuild.c) and
 * holds the document to the alias and node limits after it (limits.h; nesting and the number of
 * documents are checked where a collection or a document opens), reports libyaml's errors at the
 * byte it stopped at, and parses again, keeping everything, when an anchor or an alias met
 * something left out. */
#include "yamldoc.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../base/buf.h"
#include "yamldoc_internal.h"

void sl_ystream_free(struct sl_ystream *ys)
{
	if (!ys->borrowed) {
		sl_yarena_free(&ys->own);
		free(ys->docs);
	}
	memset(ys, 0, sizeof *ys);
}

static const char *describe_problem(const struct sl_source *src, const yaml_parser_t *p, size_t off)
{
	if (off < src->len && src->data[off] == '\t')
		return "a tab character where YAML allows only spaces for indentation";
	return p->problem ? p->problem : "malformed YAML";
}

/* libyaml's error, at the byte it stopped at, in the words of its problem and context. */
static void parse_error(const struct sl_ybuilder *b, const yaml_parser_t *p)
{
	const struct sl_source *src = b->src;
	struct sl_span at;
	size_t off = sl_ymark_byte(src, p->problem_mark.index);
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

/* One event: left out (in a dropped value, or a key nothing reads) or built into the tree. 0, or
 * -1 to stop: after an error, or when the source must be parsed again whole. */
static int take_event(struct sl_ybuilder *b, const yaml_event_t *ev)
{
	bool keep_all = true;
	if (!sl_ykeep_none(b, ev)) {
		keep_all = false;
		int out = sl_ykeep_leave_out(b, ev, &keep_all);
		if (out)
			return out < 0 ? -1 : 0;
	}
	if (sl_ybuild_event(b, ev, keep_all))
		return -1;
	if (b->aliased > sl_limits.alias_nodes || b->nodes > sl_limits.nodes) {
		struct sl_span at;
		sl_ymark_span(b->src, ev->start_mark, ev->end_mark, &at);
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

/* libyaml's read handler for a piece: its prefix, then its bytes of the source. */
struct piece_reader {
	const struct sl_ypiece *pc;
	const char *data;
	size_t at; /* of the prefix and the bytes, read so far */
};

static int read_piece(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
	struct piece_reader *r = data;
	const struct sl_ypiece *pc = r->pc;
	size_t got = 0;
	if (r->at < pc->nprefix) {
		got = pc->nprefix - r->at < size ? pc->nprefix - r->at : size;
		memcpy(buffer, pc->prefix + r->at, got);
		r->at += got;
	}
	size_t from = pc->off + (r->at - pc->nprefix), left = pc->end - from;
	size_t more = left < size - got ? left : size - got;
	memcpy(buffer + got, r->data + from, more);
	r->at += more;
	*size_read = got + more;
	return 1;
}

static int parse(const struct sl_source *src, struct sl_ypiece *pc, struct sl_ystream *out, struct sl_findings *errs,
		 const char *const *keep, bool *need_full, const struct sl_yfilter *filter)
{
	yaml_parser_t p;
	struct sl_ybuilder b;
	memset(&b, 0, sizeof b);
	/* Sized at once for what most manifests reach (the open collections' children, the nesting):
	 * grown from nothing, each source paid a handful of reallocs for them. Each within the
	 * kilobyte glibc's thread cache holds, so that a source's pair costs no trip to the heap. */
	b.capitems = 128;
	b.items = sl_xmalloc(b.capitems * sizeof *b.items);
	b.cap = 1024 / sizeof *b.stack;
	b.stack = sl_xmalloc(b.cap * sizeof *b.stack);
	b.ys = out;
	b.src = src;
	b.errs = errs;
	b.keep = keep;
	b.filter = filter;
	if (keep)
		sl_ykeep_compile(&b, keep);
	if (!yaml_parser_initialize(&p)) {
		sl_input_error(errs, NULL, "%s: cannot initialise the YAML parser", src->path);
		free(b.items);
		free(b.stack);
		free(b.levels);
		return -1;
	}
	struct piece_reader reader = {pc, src->data, 0};
	if (pc) {
		yaml_parser_set_input(&p, read_piece, &reader);
		/* libyaml counts its marks on from the parser's own, which starts at zero and is only
		 * ever advanced (compared, never read as a place): started where the piece's bytes
		 * stand less its prefix, every mark is the source's. (An ASCII source without a byte
		 * order mark: code points are bytes.) */
		p.mark.index = pc->off - pc->nprefix;
	} else {
		size_t bom = sl_source_bom(src);
		yaml_parser_set_input_string(&p, (const unsigned char *)src->data + bom, src->len - bom);
	}
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
	sl_ybuild_clear(&b);
	for (size_t i = 0; i < b.nforgets && !b.need_full; i++)
		sl_source_forget(src, b.forgets[i][0], b.forgets[i][1]);
	free(b.forgets);
	free(b.stack);
	free(b.items);
	free(b.anchors);
	free(b.held);
	free(b.levels);
	free(b.alive);
	yaml_parser_delete(&p);
	sl_yarena_spares_free(sl_ystream_arena(out));
	*need_full = b.need_full;
	if (pc) {
		pc->nodes = b.nodes;
		pc->aliased = b.aliased;
	}
	return rc;
}

/* What a first pass reported goes when the source is parsed again whole, which reports it again
 * (a key written twice among the entries it built, say), with all the rest. */
static void forget_findings(struct sl_findings *errs, size_t n, size_t input_errors)
{
	while (errs->n > n)
		sl_finding_free(&errs->v[--errs->n]);
	errs->input_errors = input_errors;
}

int sl_yaml_parse(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs)
{
	return sl_yaml_parse_keep(src, out, errs, NULL);
}

static int parse_keep(const struct sl_source *src, struct sl_ypiece *pc, struct sl_ystream *out,
		      struct sl_findings *errs, const char *const *keep)
{
	bool need_full = false;
	struct sl_yarena_mark start = sl_yarena_mark(sl_ystream_arena(out));
	size_t nerrs = errs->n, ninput = errs->input_errors;
	int rc = parse(src, pc, out, errs, keep, &need_full, NULL);
	if (need_full) { /* what the first pass built goes, in a shared arena too */
		forget_findings(errs, nerrs, ninput);
		sl_yarena_rewind(sl_ystream_arena(out), &start);
		sl_yarena_spares_free(sl_ystream_arena(out));
		out->n = 0;
		out->partial = false;
		rc = parse(src, pc, out, errs, NULL, &need_full, NULL);
		if (pc)
			pc->again = true;
	}
	return rc;
}

int sl_yaml_parse_keep(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs,
		       const char *const *keep)
{
	return parse_keep(src, NULL, out, errs, keep);
}

int sl_yaml_parse_piece(const struct sl_source *src, struct sl_ypiece *pc, struct sl_ystream *out,
			struct sl_findings *errs, const char *const *keep)
{
	return parse_keep(src, pc, out, errs, keep);
}

int sl_yaml_parse_some(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs,
		       const struct sl_yfilter *f)
{
	bool need_full = false;
	struct sl_yarena_mark start = sl_yarena_mark(sl_ystream_arena(out));
	size_t nerrs = errs->n, ninput = errs->input_errors;
	int rc = parse(src, NULL, out, errs, NULL, &need_full, f);
	if (need_full) { /* an anchor or alias where values were left out: keep them all */
		forget_findings(errs, nerrs, ninput);
		struct sl_yfilter whole = {f->wanted, f->ctx, NULL, f->forget, NULL};
		sl_yarena_rewind(sl_ystream_arena(out), &start);
		sl_yarena_spares_free(sl_ystream_arena(out));
		out->n = 0;
		out->partial = false;
		rc = parse(src, NULL, out, errs, NULL, &need_full, &whole);
	}
	return rc;
}
