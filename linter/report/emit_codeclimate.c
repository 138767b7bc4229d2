/* emit_codeclimate.c — findings as GitLab Code Quality reads them (the Code Climate issue format):
 * a JSON array of issues, each with description, check_name, fingerprint, severity and
 * location.path and location.lines. GitLab compares the fingerprints of a merge request's report
 * with its target branch's, so they are SARIF's partialFingerprints (sl_fingerprint), stable
 * across edits that move lines. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"

/* GitLab's severities (info, minor, major, critical, blocker): an error is a proof that a pod or
 * a rollout is stuck in the cluster as it is, critical; a warning depends on something not
 * modelled, minor; a note, and a suppressed finding shown on request, info. */
static const char *severity(const struct sl_finding *f)
{
	if (f->nsupp)
		return "info";
	return f->level == SL_ERROR ? "critical" : f->level == SL_WARNING ? "minor" : "info";
}

static cJSON *issue(const char *root, const char *cwd, const struct sl_finding *f, unsigned dup)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "issue");
	/* Input errors and notes about the input have no rule: named as the JSON report files them. */
	const char *check = f->rule ? f->rule->id : f->level == SL_ERROR ? "input-error" : "input-notice";
	cJSON_AddStringToObject(o, "check_name", check);
	cJSON_AddStringToObject(o, "description", f->message);
	if (f->nnotes || f->nsupp) {
		/* The proof, as Code Climate's markdown body: GitLab shows the description only. */
		struct sl_buf b = SL_BUF_INIT;
		for (size_t j = 0; j < f->nnotes; j++)
			sl_buf_printf(&b, "%s- %s", j ? "\n" : "", f->notes[j]);
		if (f->nsupp)
			sl_buf_printf(&b, "%s(suppressed%s%s)", b.len ? "\n" : "", f->supp[0].justification ? ": " : "",
				      f->supp[0].justification ? f->supp[0].justification : "");
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "content"), "body", sl_buf_str(&b));
		sl_buf_free(&b);
	}
	cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "categories"), cJSON_CreateString("Bug Risk"));
	cJSON_AddStringToObject(o, "severity", severity(f));
	char fp[SL_FINGERPRINT_SIZE];
	sl_fingerprint(fp, root, cwd, f, dup);
	if (!f->rule) {
		/* No SARIF result to agree with: the line tells two input errors of a file apart. */
		unsigned line, col;
		sl_span_start(&f->at, &line, &col);
		size_t n = strlen(fp);
		snprintf(fp + n, sizeof fp - n, "@%u", line);
	}
	cJSON_AddStringToObject(o, "fingerprint", fp);
	cJSON *loc = cJSON_AddObjectToObject(o, "location");
	/* As SARIF's artifact URI, unencoded; unnamed standard input "-". */
	char *path = sl_shown_path(root, cwd, f->at.src);
	cJSON_AddStringToObject(loc, "path", path ? path : "-");
	free(path);
	unsigned line, col, eline, ecol;
	sl_span_start(&f->at, &line, &col);
	sl_span_end(&f->at, &eline, &ecol);
	cJSON *lines = cJSON_AddObjectToObject(loc, "lines");
	cJSON_AddNumberToObject(lines, "begin", line ? line : 1);
	cJSON_AddNumberToObject(lines, "end", eline >= line && eline ? eline : line ? line : 1);
	return o;
}

void sl_emit_codeclimate(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, bool show_suppressed)
{
	(void)ns; /* an issue needs a file and lines (emit.h) */
	char *cwd = sl_path_cwd(), *root = sl_path_repo_root(cwd);
	unsigned *dups = sl_fingerprint_dups(fs);
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < fs->n; i++)
		if (!fs->v[i].nsupp || show_suppressed)
			cJSON_AddItemToArray(arr, issue(root, cwd, &fs->v[i], dups[i]));
	sl_emit_cjson(out, arr);
	cJSON_Delete(arr);
	free(dups);
	free(root);
	free(cwd);
}
