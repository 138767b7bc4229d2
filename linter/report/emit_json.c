#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"
#include "jsonw.h"

/* "file" is the path as given; a path that is not UTF-8 cannot be a JSON string as it is, and is
 * shown with U+FFFD where its bytes are not (sl_esc_json), its exact bytes in "fileUri", a URI
 * reference percent-encoded as SARIF's artifact locations are. */
static void add_span(struct sl_jw *w, const struct sl_span *at)
{
	const char *path = at->src ? at->src->path : "";
	sl_jw_str(w, "file", path);
	if (!sl_utf8_valid(path, strlen(path))) {
		char *uri = sl_path_uri(path);
		sl_jw_str(w, "fileUri", uri);
		free(uri);
	}
	unsigned line, col;
	sl_span_start(at, &line, &col);
	sl_jw_num(w, "line", line);
	sl_jw_num(w, "column", col);
	unsigned eline, ecol;
	sl_span_end(at, &eline, &ecol);
	sl_jw_num(w, "endLine", eline);
	sl_jw_num(w, "endColumn", ecol);
}

static void suppressions(struct sl_jw *w, const struct sl_finding *f)
{
	sl_jw_open(w, "suppressions", true);
	for (size_t j = 0; j < f->nsupp; j++) {
		sl_jw_object(w);
		sl_jw_str(w, "kind", f->supp[j].kind == SL_SUPPRESS_EXTERNAL ? "external" : "inSource");
		sl_jw_str(w, "justification", f->supp[j].justification);
		add_span(w, &f->supp[j].at);
		sl_jw_end(w);
	}
	sl_jw_end(w);
}

static void fixes(struct sl_jw *w, const struct sl_finding *f)
{
	sl_jw_open(w, "fixes", true);
	for (size_t j = 0; j < f->nfixes; j++) {
		sl_jw_object(w);
		sl_jw_str(w, "description", f->fixes[j].desc);
		sl_jw_open(w, "edits", true);
		for (size_t k = 0; k < f->fixes[j].nedits; k++) {
			const struct sl_edit *e = &f->fixes[j].edits[k];
			sl_jw_object(w);
			add_span(w, &e->at);
			sl_jw_num(w, "offset", e->at.off);
			sl_jw_num(w, "length", (int64_t)(e->at.end - e->at.off)); /* uint32_t, as before */
			sl_jw_str(w, "text", e->text);
			sl_jw_end(w);
		}
		sl_jw_end(w);
		sl_jw_end(w);
	}
	sl_jw_end(w);
}

/* A finding: with a rule under "findings", an input error under "errors", a note about the input
 * under "notices" (those have no more than their place and message). */
static void finding(struct sl_jw *w, const struct sl_finding *f)
{
	sl_jw_object(w);
	if (f->rule)
		sl_jw_str(w, "rule", f->rule->id);
	sl_jw_str(w, "level", sl_level_name(f->level)); /* a notice's too: note or warning */
	add_span(w, &f->at);
	sl_jw_str(w, "object", f->object);
	sl_jw_str(w, "message", f->message);
	sl_jw_str(w, "id", f->notice_id);
	if (f->rule) {
		sl_jw_str(w, "target", f->target);
		sl_jw_key(w, "suppressed");
		sl_jw_bool(w, f->nsupp > 0);
		if (f->nsupp)
			suppressions(w, f);
		sl_jw_open(w, "notes", true);
		for (size_t j = 0; j < f->nnotes; j++)
			if (f->notes[j]) /* cJSON adds no item for a NULL string */
				sl_jw_string(w, f->notes[j]);
		sl_jw_end(w);
		sl_jw_open(w, "related", true);
		for (size_t j = 0; j < f->nrelated; j++) {
			sl_jw_object(w);
			add_span(w, &f->related[j].at);
			sl_jw_str(w, "message", f->related[j].text);
			sl_jw_end(w);
		}
		sl_jw_end(w);
		fixes(w, f);
	}
	sl_jw_end(w);
}

/* The array under key: the findings of fs of one kind (rule: with a rule; else error: input
 * errors, or not: notes about the input), then for the notices the run's own. */
static void items(FILE *out, struct sl_jw *w, struct sl_buf *esc, const char *key, const struct sl_findings *fs,
		  bool rule, bool error, const struct sl_notices *ns)
{
	sl_jw_open(w, key, true);
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if ((f->rule != NULL) != rule || (!rule && (f->level == SL_ERROR) != error))
			continue;
		finding(w, f);
		sl_jw_flush(out, w->b, esc, false);
	}
	for (size_t i = 0; ns && i < ns->n; i++) { /* about the run: no file */
		sl_jw_object(w);
		sl_jw_str(w, "id", ns->v[i].id);
		sl_jw_str(w, "level", sl_level_name(ns->v[i].level));
		sl_jw_str(w, "message", ns->v[i].text);
		sl_jw_end(w);
	}
	sl_jw_end(w);
}

/* Written as it goes (jsonw.h), in the layout cJSON_Print gave the report built whole. */
void sl_emit_json(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns)
{
	struct sl_buf raw = SL_BUF_INIT, esc = SL_BUF_INIT;
	struct sl_jw w;
	sl_jw_init(&w, &raw, 0);
	sl_jw_object(&w);
	sl_jw_str(&w, "tool", "schedlint");
	sl_jw_str(&w, "version", SL_VERSION);
	items(out, &w, &esc, "findings", fs, true, false, NULL);
	items(out, &w, &esc, "errors", fs, false, true, NULL);
	items(out, &w, &esc, "notices", fs, false, false, ns);
	sl_jw_end(&w);
	sl_buf_putc(&raw, '\n');
	sl_jw_flush(out, &raw, &esc, true);
	sl_buf_free(&raw);
	sl_buf_free(&esc);
}
