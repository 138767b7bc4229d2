/* emit_text.c — the gcc-style text report. Every value in it (paths, messages, notes, reasons
 * given for a suppression) goes through sl_esc, and every line through sl_esc_lines: the report
 * is read on terminals and in CI logs, where an input's bytes must not act (escape.h). Colour is
 * the program's own and is added around the escaped values. The report is a line or more per
 * finding, thousands on a large input: it is built with the buffer API, not printf. */
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "emit.h"

#define BOLD "\033[1m"
#define RESET "\033[0m"

static const char *level_color(enum sl_level l)
{
	switch (l) {
	case SL_ERROR:
		return "\033[1;31m";
	case SL_WARNING:
		return "\033[1;35m";
	default:
		return "\033[1;36m";
	}
}

/* The last source's path as written (escaped): a report's lines come file by file, and escaping
 * the same path again for every line was most of what writing a line cost. */
struct path_memo {
	const struct sl_source *src;
	struct sl_buf esc;
};

static void where(struct sl_buf *b, const struct sl_span *at, bool color, struct path_memo *pm)
{
	if (color)
		sl_buf_puts(b, BOLD);
	if (at->src) {
		if (pm->src != at->src) {
			sl_buf_reset(&pm->esc);
			sl_esc_puts(&pm->esc, at->src->path);
			pm->src = at->src;
		}
		sl_buf_add(b, sl_buf_str(&pm->esc), pm->esc.len);
		unsigned line, col;
		sl_span_start(at, &line, &col);
		sl_buf_putc(b, ':');
		sl_buf_putu(b, line);
		sl_buf_putc(b, ':');
		sl_buf_putu(b, col);
		sl_buf_putc(b, ':');
	} else
		sl_buf_puts(b, "schedlint:");
	if (color)
		sl_buf_puts(b, RESET);
	sl_buf_putc(b, ' ');
}

static void level(struct sl_buf *b, enum sl_level l, bool color)
{
	if (color)
		sl_buf_puts(b, level_color(l));
	sl_buf_puts(b, sl_level_name(l));
	sl_buf_putc(b, ':');
	if (color)
		sl_buf_puts(b, RESET);
	sl_buf_putc(b, ' ');
}

/* One line: where, level, the text escaped; then the line guarded into out. */
static void line(struct sl_buf *out, struct sl_buf *ln, const struct sl_span *at, enum sl_level l, const char *text,
		 bool color, struct path_memo *pm)
{
	sl_buf_reset(ln);
	where(ln, at, color, pm);
	level(ln, l, color);
	sl_esc_puts(ln, text);
	sl_buf_putc(ln, '\n');
	sl_esc_lines(out, ln->s, ln->len);
}

static void finding(struct sl_buf *out, struct sl_buf *ln, const struct sl_finding *f, bool color, struct path_memo *pm)
{
	sl_buf_reset(ln);
	where(ln, &f->at, color, pm);
	level(ln, f->level, color);
	if (color)
		sl_buf_puts(ln, BOLD);
	sl_esc_puts(ln, f->message);
	if (f->rule) {
		sl_buf_puts(ln, " [");
		sl_esc_puts(ln, f->rule->id);
		sl_buf_putc(ln, ']');
	}
	if (f->nsupp) {
		sl_buf_puts(ln, " (suppressed");
		if (f->supp[0].justification) {
			sl_buf_puts(ln, ": ");
			sl_esc_puts(ln, f->supp[0].justification);
		}
		sl_buf_putc(ln, ')');
	}
	if (color)
		sl_buf_puts(ln, RESET);
	sl_buf_putc(ln, '\n');
	sl_esc_lines(out, ln->s, ln->len);
	for (size_t j = 0; j < f->nnotes; j++)
		line(out, ln, &f->at, SL_NOTE, f->notes[j], color, pm);
	for (size_t j = 0; j < f->nrelated; j++)
		line(out, ln, &f->related[j].at, SL_NOTE, f->related[j].text, color, pm);
}

void sl_emit_text(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, bool color, bool errors_too,
		  bool show_suppressed)
{
	struct sl_buf b = SL_BUF_INIT, ln = SL_BUF_INIT;
	struct path_memo pm = {NULL, SL_BUF_INIT};
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if ((!f->rule && !errors_too) || (f->nsupp && !show_suppressed))
			continue;
		finding(&b, &ln, f, color, &pm);
		if (b.len >= SL_EMIT_CHUNK) { /* written as it is made: the report is not held whole */
			fwrite(b.s, 1, b.len, out);
			sl_buf_reset(&b);
		}
	}
	/* The notices last, where a reader of the report's end (or of an empty report) sees them. */
	struct sl_buf text = SL_BUF_INIT;
	for (size_t i = 0; ns && i < ns->n; i++) {
		sl_buf_reset(&text);
		sl_buf_printf(&text, "%s [%s]", ns->v[i].text, ns->v[i].id);
		line(&b, &ln, &(struct sl_span){0}, ns->v[i].level, sl_buf_str(&text), color, &pm);
	}
	sl_buf_free(&text);
	fwrite(sl_buf_str(&b), 1, b.len, out);
	sl_buf_free(&pm.esc);
	sl_buf_free(&ln);
	sl_buf_free(&b);
}
