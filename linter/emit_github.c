/* emit_github.c — findings as GitHub Actions workflow commands, one line each:
 *   ::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=RULE::MESSAGE
 * The runner turns them into annotations on the pull request's diff, so a repository without code
 * scanning (or a fork, whose token cannot upload SARIF) still sees each finding where it is. */
#include <stdlib.h>
#include <string.h>

#include "../rules/rules.h"
#include "emit.h"
#include "input.h"
#include "path.h"

/* The runner splits a command at its first "::" and its properties at ',' and ':', and reads
 * %XX back: the message escapes '%', CR and LF; a property escapes ':' and ',' as well
 * (GitHub's toolkit, escapeData and escapeProperty). */
static void put_escaped(FILE *out, const char *s, bool property)
{
	for (; *s; s++) {
		switch (*s) {
		case '%':
			fputs("%25", out);
			break;
		case '\r':
			fputs("%0D", out);
			break;
		case '\n':
			fputs("%0A", out);
			break;
		case ':':
			fputs(property ? "%3A" : ":", out);
			break;
		case ',':
			fputs(property ? "%2C" : ",", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

/* Paths as the annotation needs them: relative to the repository root, which is the workspace
 * the runner resolves them against; a file outside it keeps the path as typed. NULL for
 * unnamed standard input, which has no file to point at. Caller frees. */
static char *shown_path(const char *root, const struct sl_source *src)
{
	if (!src || (src->from_stdin && !strcmp(src->path, "-")))
		return NULL;
	char *rel = sl_path_in_repo(root, src->path);
	return rel ? rel : sl_path_normalize(src->path);
}

static const char *command(enum sl_level l)
{
	return l == SL_ERROR ? "error" : l == SL_WARNING ? "warning" : "notice";
}

static void properties(FILE *out, const char *root, const struct sl_span *at, const char *title)
{
	char *path = shown_path(root, at->src);
	if (path) {
		fputs(" file=", out);
		put_escaped(out, path, true);
		if (at->line)
			fprintf(out, ",line=%u,col=%u", at->line, at->col ? at->col : 1);
		unsigned eline, ecol;
		sl_span_end(at, &eline, &ecol);
		if (at->line && eline >= at->line)
			fprintf(out, ",endLine=%u,endColumn=%u", eline, ecol ? ecol : 1);
		fputc(',', out);
	} else
		fputc(' ', out);
	fputs("title=", out);
	put_escaped(out, title, true);
	free(path);
}

/* The message, then the proof (notes) and the related locations on lines of their own: an
 * annotation shows them under the message. */
static void message(FILE *out, const char *root, const struct sl_finding *f)
{
	put_escaped(out, f->message, false);
	if (f->nsupp) {
		fputs(" (suppressed", out);
		if (f->supp[0].justification) {
			fputs(": ", out);
			put_escaped(out, f->supp[0].justification, false);
		}
		fputc(')', out);
	}
	for (size_t j = 0; j < f->nnotes; j++) {
		fputs("%0A", out);
		put_escaped(out, f->notes[j], false);
	}
	for (size_t j = 0; j < f->nrelated; j++) {
		const struct sl_span *at = &f->related[j].at;
		char *path = shown_path(root, at->src);
		fputs("%0A", out);
		if (path) {
			put_escaped(out, path, false);
			fprintf(out, ":%u:%u: ", at->line, at->col);
		}
		put_escaped(out, f->related[j].text, false);
		free(path);
	}
}

void sl_emit_github(FILE *out, const struct sl_findings *fs, bool show_suppressed)
{
	char *root = sl_path_repo_root();
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if (f->nsupp && !show_suppressed)
			continue;
		/* A suppressed finding is shown, on request, as a notice: it must not read as a failure. */
		fprintf(out, "::%s", command(f->nsupp ? SL_NOTE : f->level));
		properties(out, root, &f->at, f->rule ? f->rule->id : "schedlint");
		fputs("::", out);
		message(out, root, f);
		fputc('\n', out);
	}
	free(root);
}
