#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"

/* "file" is the path as given; a path that is not UTF-8 cannot be a JSON string as it is, and is
 * shown with U+FFFD where its bytes are not (sl_emit_cjson), its exact bytes in "fileUri", a URI
 * reference percent-encoded as SARIF's artifact locations are. */
static void add_span(cJSON *o, const struct sl_span *at)
{
	const char *path = at->src ? at->src->path : "";
	cJSON_AddStringToObject(o, "file", path);
	if (!sl_utf8_valid(path, strlen(path))) {
		char *uri = sl_path_uri(path);
		cJSON_AddStringToObject(o, "fileUri", uri);
		free(uri);
	}
	unsigned line, col;
	sl_span_start(at, &line, &col);
	cJSON_AddNumberToObject(o, "line", line);
	cJSON_AddNumberToObject(o, "column", col);
	unsigned eline, ecol;
	sl_span_end(at, &eline, &ecol);
	cJSON_AddNumberToObject(o, "endLine", eline);
	cJSON_AddNumberToObject(o, "endColumn", ecol);
}

void sl_emit_json(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "tool", "schedlint");
	cJSON_AddStringToObject(root, "version", SL_VERSION);
	cJSON *findings = cJSON_AddArrayToObject(root, "findings");
	cJSON *errors = cJSON_AddArrayToObject(root, "errors");
	cJSON *notices = cJSON_AddArrayToObject(root, "notices"); /* about the input, not errors */
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		cJSON *o = cJSON_CreateObject();
		if (f->rule)
			cJSON_AddStringToObject(o, "rule", f->rule->id);
		cJSON_AddStringToObject(o, "level", sl_level_name(f->level)); /* a notice's too: note or warning */
		add_span(o, &f->at);
		if (f->object)
			cJSON_AddStringToObject(o, "object", f->object);
		cJSON_AddStringToObject(o, "message", f->message);
		if (f->notice_id)
			cJSON_AddStringToObject(o, "id", f->notice_id);
		if (!f->rule) {
			cJSON_AddItemToArray(f->level == SL_ERROR ? errors : notices, o);
			continue;
		}
		if (f->target)
			cJSON_AddStringToObject(o, "target", f->target);
		cJSON_AddBoolToObject(o, "suppressed", f->nsupp > 0);
		if (f->nsupp) {
			cJSON *sv = cJSON_AddArrayToObject(o, "suppressions");
			for (size_t j = 0; j < f->nsupp; j++) {
				cJSON *so = cJSON_CreateObject();
				cJSON_AddStringToObject(
				    so, "kind", f->supp[j].kind == SL_SUPPRESS_EXTERNAL ? "external" : "inSource");
				if (f->supp[j].justification)
					cJSON_AddStringToObject(so, "justification", f->supp[j].justification);
				add_span(so, &f->supp[j].at);
				cJSON_AddItemToArray(sv, so);
			}
		}
		cJSON *notes = cJSON_AddArrayToObject(o, "notes");
		for (size_t j = 0; j < f->nnotes; j++)
			cJSON_AddItemToArray(notes, cJSON_CreateString(f->notes[j]));
		cJSON *rel = cJSON_AddArrayToObject(o, "related");
		for (size_t j = 0; j < f->nrelated; j++) {
			cJSON *r = cJSON_CreateObject();
			add_span(r, &f->related[j].at);
			cJSON_AddStringToObject(r, "message", f->related[j].text);
			cJSON_AddItemToArray(rel, r);
		}
		cJSON *fixes = cJSON_AddArrayToObject(o, "fixes");
		for (size_t j = 0; j < f->nfixes; j++) {
			cJSON *fx = cJSON_CreateObject();
			cJSON_AddStringToObject(fx, "description", f->fixes[j].desc);
			cJSON *edits = cJSON_AddArrayToObject(fx, "edits");
			for (size_t k = 0; k < f->fixes[j].nedits; k++) {
				const struct sl_edit *e = &f->fixes[j].edits[k];
				cJSON *eo = cJSON_CreateObject();
				add_span(eo, &e->at);
				cJSON_AddNumberToObject(eo, "offset", (double)e->at.off);
				cJSON_AddNumberToObject(eo, "length", (double)(e->at.end - e->at.off));
				cJSON_AddStringToObject(eo, "text", e->text);
				cJSON_AddItemToArray(edits, eo);
			}
			cJSON_AddItemToArray(fixes, fx);
		}
		cJSON_AddItemToArray(findings, o);
	}
	for (size_t i = 0; ns && i < ns->n; i++) { /* about the run: no file */
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", ns->v[i].id);
		cJSON_AddStringToObject(o, "level", sl_level_name(ns->v[i].level));
		cJSON_AddStringToObject(o, "message", ns->v[i].text);
		cJSON_AddItemToArray(notices, o);
	}
	sl_emit_cjson(out, root);
	cJSON_Delete(root);
}
