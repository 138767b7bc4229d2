#include <string.h>

#include "../rules/rules.h"
#include "emit.h"
#include "input.h"

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

static void where(FILE *out, const struct sl_span *at, bool color)
{
	if (color)
		fputs(BOLD, out);
	if (at->src)
		fprintf(out, "%s:%u:%u:", at->src->path, at->line, at->col);
	else
		fputs("schedlint:", out);
	if (color)
		fputs(RESET, out);
	fputc(' ', out);
}

static void level(FILE *out, enum sl_level l, bool color)
{
	fprintf(out, "%s%s:%s ", color ? level_color(l) : "", sl_level_name(l), color ? RESET : "");
}

void sl_emit_text(FILE *out, const struct sl_findings *fs, bool color, bool errors_too, bool show_suppressed)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if ((!f->rule && !errors_too) || (f->nsupp && !show_suppressed))
			continue;
		where(out, &f->at, color);
		level(out, f->level, color);
		if (color)
			fputs(BOLD, out);
		fputs(f->message, out);
		if (f->rule)
			fprintf(out, " [%s]", f->rule->id);
		if (f->nsupp)
			fprintf(out, " (suppressed%s%s)", f->supp[0].justification ? ": " : "",
				f->supp[0].justification ? f->supp[0].justification : "");
		if (color)
			fputs(RESET, out);
		fputc('\n', out);
		for (size_t j = 0; j < f->nnotes; j++) {
			where(out, &f->at, color);
			level(out, SL_NOTE, color);
			fprintf(out, "%s\n", f->notes[j]);
		}
		for (size_t j = 0; j < f->nrelated; j++) {
			where(out, &f->related[j].at, color);
			level(out, SL_NOTE, color);
			fprintf(out, "%s\n", f->related[j].text);
		}
	}
}
