/* emit_github.c — findings as GitHub Actions workflow commands, one line each:
 *   ::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=RULE::MESSAGE
 * The runner turns them into annotations on the pull request's diff, so a repository without code
 * scanning (or a fork, whose token cannot upload SARIF) still sees each finding where it is. */
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"

/* Where the paths are: the working directory they were typed in and the repository root above
 * it, each found once for the whole report. */
struct anchor {
	char *cwd, *root;
};

/* Paths as the annotation needs them (sl_shown_path): the workspace the runner resolves them
 * against is the repository root. */
static char *shown_path(const struct anchor *root, const struct sl_source *src)
{
	return sl_shown_path(root->root, root->cwd, src);
}

static const char *command(enum sl_level l)
{
	return l == SL_ERROR ? "error" : l == SL_WARNING ? "warning" : "notice";
}

/* a, x, b, y: "a%ub%u" without printf (a line or two of every finding). */
static void put_pair(struct sl_buf *out, const char *a, unsigned x, const char *b, unsigned y)
{
	sl_buf_puts(out, a);
	sl_buf_putu(out, x);
	sl_buf_puts(out, b);
	sl_buf_putu(out, y);
}

static void properties(struct sl_buf *out, const struct anchor *root, const struct sl_span *at, const char *title)
{
	char *path = shown_path(root, at->src);
	if (path) {
		sl_buf_puts(out, " file=");
		sl_esc_github(out, path, true);
		unsigned line, col, eline, ecol;
		sl_span_start(at, &line, &col);
		if (line)
			put_pair(out, ",line=", line, ",col=", col ? col : 1);
		sl_span_end(at, &eline, &ecol);
		if (line && eline >= line)
			put_pair(out, ",endLine=", eline, ",endColumn=", ecol ? ecol : 1);
		sl_buf_putc(out, ',');
	} else
		sl_buf_putc(out, ' ');
	sl_buf_puts(out, "title=");
	sl_esc_github(out, title, true);
	free(path);
}

/* The message, then the proof (notes) and the related locations on lines of their own: an
 * annotation shows them under the message. */
static void message(struct sl_buf *out, const struct anchor *root, const struct sl_finding *f)
{
	sl_esc_github(out, f->message, false);
	if (f->nsupp) {
		sl_buf_puts(out, " (suppressed");
		if (f->supp[0].justification) {
			sl_buf_puts(out, ": ");
			sl_esc_github(out, f->supp[0].justification, false);
		}
		sl_buf_putc(out, ')');
	}
	for (size_t j = 0; j < f->nnotes; j++) {
		sl_buf_puts(out, "%0A");
		sl_esc_github(out, f->notes[j], false);
	}
	for (size_t j = 0; j < f->nrelated; j++) {
		const struct sl_span *at = &f->related[j].at;
		char *path = shown_path(root, at->src);
		sl_buf_puts(out, "%0A");
		if (path) {
			sl_esc_github(out, path, false);
			unsigned line, col;
			sl_span_start(at, &line, &col);
			put_pair(out, ":", line, ":", col);
			sl_buf_puts(out, ": ");
		}
		sl_esc_github(out, f->related[j].text, false);
		free(path);
	}
}

/* Every value through sl_esc_github: escaped for the log, then as the runner reads it back. */
void sl_emit_github(FILE *fp, const struct sl_findings *fs, const struct sl_notices *ns, bool show_suppressed)
{
	struct anchor a = {sl_path_cwd(), NULL}, *root = &a;
	a.root = sl_path_repo_root(a.cwd);
	struct sl_buf b = SL_BUF_INIT, *out = &b;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if (f->nsupp && !show_suppressed)
			continue;
		/* A suppressed finding is shown, on request, as a notice: it must not read as a failure. */
		sl_buf_puts(out, "::");
		sl_buf_puts(out, command(f->nsupp ? SL_NOTE : f->level));
		properties(out, root, &f->at, f->rule ? f->rule->id : "schedlint");
		sl_buf_puts(out, "::");
		message(out, root, f);
		sl_buf_putc(out, '\n');
		if (b.len >= SL_EMIT_CHUNK) { /* written as it is made: the report is not held whole */
			fwrite(b.s, 1, b.len, fp);
			sl_buf_reset(&b);
		}
	}
	for (size_t i = 0; ns && i < ns->n; i++) { /* about the run: an annotation without a file */
		sl_buf_puts(out, "::");
		sl_buf_puts(out, command(ns->v[i].level));
		properties(out, root, &(struct sl_span){0}, "schedlint");
		sl_buf_puts(out, "::");
		sl_esc_github(out, ns->v[i].text, false);
		sl_buf_putc(out, '\n');
	}
	fwrite(sl_buf_str(&b), 1, b.len, fp);
	sl_buf_free(&b);
	free(a.root);
	free(a.cwd);
}
