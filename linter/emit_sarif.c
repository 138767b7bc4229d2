#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/rules.h"
#include "config.h"
#include "buf.h"
#include "emit.h"
#include "input.h"

char *sl_path_uri(const char *path)
{
	struct sl_buf b = SL_BUF_INIT;
	if (path[0] == '/')
		sl_buf_puts(&b, "file://");
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			sl_buf_putc(&b, (char)*p);
		else
			sl_buf_printf(&b, "%%%02X", *p);
	}
	return sl_buf_detach(&b);
}

static cJSON *region(const struct sl_span *at, bool snippet)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "startLine", at->line ? at->line : 1);
	cJSON_AddNumberToObject(r, "startColumn", at->col ? at->col : 1);
	unsigned eline, ecol;
	sl_span_end(at, &eline, &ecol);
	cJSON_AddNumberToObject(r, "endLine", eline ? eline : 1);
	cJSON_AddNumberToObject(r, "endColumn", ecol ? ecol : 1);
	if (snippet && at->src && at->end > at->off && at->end - at->off <= 512) {
		struct sl_buf b = SL_BUF_INIT;
		sl_buf_add(&b, at->src->data + at->off, at->end - at->off);
		cJSON *s = cJSON_AddObjectToObject(r, "snippet");
		cJSON_AddStringToObject(s, "text", b.s);
		sl_buf_free(&b);
	}
	return r;
}

static cJSON *artifact(const struct sl_source *src)
{
	cJSON *a = cJSON_CreateObject();
	char *uri = sl_path_uri(src ? src->path : "<unknown>");
	cJSON_AddStringToObject(a, "uri", uri);
	free(uri);
	return a;
}

static cJSON *location(const struct sl_span *at, const char *msg)
{
	cJSON *l = cJSON_CreateObject();
	cJSON *pl = cJSON_AddObjectToObject(l, "physicalLocation");
	cJSON_AddItemToObject(pl, "artifactLocation", artifact(at->src));
	cJSON_AddItemToObject(pl, "region", region(at, true));
	if (msg) {
		cJSON *m = cJSON_AddObjectToObject(l, "message");
		cJSON_AddStringToObject(m, "text", msg);
	}
	return l;
}

static cJSON *text_obj(const char *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", s);
	return o;
}

static const char *sarif_level(enum sl_level l)
{
	return l == SL_ERROR ? "error" : l == SL_WARNING ? "warning" : l == SL_NOTE ? "note" : "none";
}

/* FNV-1a: stable across runs and machines, which is all a fingerprint needs. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static cJSON *rule_meta(const struct sl_rule *r, enum sl_level level, bool policy)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", r->id);
	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddItemToObject(o, "shortDescription", text_obj(r->summary));
	cJSON_AddItemToObject(o, "fullDescription", text_obj(r->description));
	cJSON *help = cJSON_AddObjectToObject(o, "help");
	cJSON_AddStringToObject(help, "text", r->help);
	struct sl_buf md = SL_BUF_INIT;
	if (policy)
		sl_buf_printf(&md, "**%s**\n\n%s\n\n**Fix.** %s", r->summary, r->description, r->help);
	else
		sl_buf_printf(&md,
			      "**%s**\n\n%s\n\n**Fix.** %s\n\nSee [docs/rules/%s.md](%s/blob/main/docs/rules/%s.md).",
			      r->summary, r->description, r->help, r->id, SL_HOME, r->id);
	cJSON_AddStringToObject(help, "markdown", md.s);
	sl_buf_free(&md);
	if (!policy) {
		char *uri = sl_xasprintf("%s/blob/main/docs/rules/%s.md", SL_HOME, r->id);
		cJSON_AddStringToObject(o, "helpUri", uri);
		free(uri);
	}
	/* What this run reports the rule at: the config's level, or off. */
	cJSON *dc = cJSON_AddObjectToObject(o, "defaultConfiguration");
	if (level == SL_LEVEL_NONE)
		cJSON_AddBoolToObject(dc, "enabled", false);
	cJSON_AddStringToObject(dc, "level", sarif_level(level == SL_LEVEL_NONE ? r->level : level));
	cJSON *props = cJSON_AddObjectToObject(o, "properties");
	cJSON *tags = cJSON_AddArrayToObject(props, "tags");
	cJSON_AddItemToArray(tags, cJSON_CreateString("kubernetes"));
	cJSON_AddItemToArray(tags, cJSON_CreateString(policy ? "policy" : "scheduling"));
	cJSON_AddItemToArray(tags, cJSON_CreateString(r->needs_nodes ? "needs-node-inventory" : "static"));
	return o;
}

static cJSON *fix_obj(const struct sl_fix *fx)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "description", text_obj(fx->desc));
	cJSON *changes = cJSON_AddArrayToObject(o, "artifactChanges");
	/* One artifactChange per file, its replacements in order. */
	for (size_t i = 0; i < fx->nedits; i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= fx->edits[j].at.src == fx->edits[i].at.src;
		if (seen)
			continue;
		cJSON *ch = cJSON_CreateObject();
		cJSON_AddItemToObject(ch, "artifactLocation", artifact(fx->edits[i].at.src));
		cJSON *reps = cJSON_AddArrayToObject(ch, "replacements");
		for (size_t j = i; j < fx->nedits; j++) {
			if (fx->edits[j].at.src != fx->edits[i].at.src)
				continue;
			cJSON *rp = cJSON_CreateObject();
			cJSON_AddItemToObject(rp, "deletedRegion", region(&fx->edits[j].at, false));
			cJSON_AddItemToObject(rp, "insertedContent", text_obj(fx->edits[j].text));
			cJSON_AddItemToArray(reps, rp);
		}
		cJSON_AddItemToArray(changes, ch);
	}
	return o;
}

static cJSON *result(const struct sl_finding *f, int rule_index, unsigned dup)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "ruleId", f->rule->id);
	cJSON_AddNumberToObject(o, "ruleIndex", rule_index);
	cJSON_AddStringToObject(o, "level", sarif_level(f->level));
	/* The message carries the proof too: most SARIF consumers show only the message. */
	struct sl_buf msg = SL_BUF_INIT;
	sl_buf_puts(&msg, f->message);
	sl_buf_putc(&msg, '.');
	for (size_t i = 0; i < f->nnotes; i++)
		sl_buf_printf(&msg, "\n- %s", f->notes[i]);
	cJSON_AddItemToObject(o, "message", text_obj(msg.s));
	sl_buf_free(&msg);
	cJSON *locs = cJSON_AddArrayToObject(o, "locations");
	cJSON_AddItemToArray(locs, location(&f->at, NULL));
	if (f->nrelated) {
		cJSON *rel = cJSON_AddArrayToObject(o, "relatedLocations");
		for (size_t i = 0; i < f->nrelated; i++) {
			cJSON *l = location(&f->related[i].at, f->related[i].text);
			cJSON_AddNumberToObject(l, "id", (double)i);
			cJSON_AddItemToArray(rel, l);
		}
	}
	/* Stable across edits that move lines: rule, object and file identify the problem. */
	uint64_t h = fnv(1469598103934665603ull, f->rule->id);
	h = fnv(h, f->object ? f->object : f->message);
	h = fnv(h, f->at.src ? f->at.src->path : "");
	char fp[40];
	snprintf(fp, sizeof fp, "%016llx:%u", (unsigned long long)h, dup);
	cJSON *pf = cJSON_AddObjectToObject(o, "partialFingerprints");
	cJSON_AddStringToObject(pf, "schedlintFingerprint/v1", fp);
	if (f->nsupp) {
		cJSON *sv = cJSON_AddArrayToObject(o, "suppressions");
		for (size_t i = 0; i < f->nsupp; i++) {
			cJSON *so = cJSON_CreateObject();
			cJSON_AddStringToObject(so, "kind",
						f->supp[i].kind == SL_SUPPRESS_EXTERNAL ? "external" : "inSource");
			cJSON_AddStringToObject(so, "status", "accepted");
			if (f->supp[i].justification)
				cJSON_AddStringToObject(so, "justification", f->supp[i].justification);
			if (f->supp[i].at.src)
				cJSON_AddItemToObject(so, "location", location(&f->supp[i].at, NULL));
			cJSON_AddItemToArray(sv, so);
		}
	}
	if (f->target)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "properties"), "target", f->target);
	if (f->nfixes) {
		cJSON *fixes = cJSON_AddArrayToObject(o, "fixes");
		for (size_t i = 0; i < f->nfixes; i++)
			cJSON_AddItemToArray(fixes, fix_obj(&f->fixes[i]));
	}
	return o;
}

void sl_emit_sarif(FILE *out, const struct sl_findings *fs, const struct sl_config *cfg)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(root, "version", "2.1.0");
	cJSON *runs = cJSON_AddArrayToObject(root, "runs");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
	cJSON_AddStringToObject(driver, "name", "schedlint");
	cJSON_AddStringToObject(driver, "version", SL_VERSION);
	cJSON_AddStringToObject(driver, "semanticVersion", SL_VERSION);
	cJSON_AddStringToObject(driver, "informationUri", SL_HOME);
	cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
	for (size_t i = 0; i < cfg->nrules; i++)
		cJSON_AddItemToArray(rules, rule_meta(cfg->rules[i], cfg->levels[i], i >= sl_nrules));
	cJSON *inv = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(run, "invocations"), inv);
	cJSON_AddBoolToObject(inv, "executionSuccessful", fs->input_errors == 0);
	if (fs->input_errors) {
		cJSON *notes = cJSON_AddArrayToObject(inv, "toolExecutionNotifications");
		for (size_t i = 0; i < fs->n; i++) {
			const struct sl_finding *f = &fs->v[i];
			if (f->rule)
				continue;
			cJSON *n = cJSON_CreateObject();
			cJSON_AddStringToObject(n, "level", "error");
			cJSON_AddItemToObject(n, "message", text_obj(f->message));
			if (f->at.src)
				cJSON_AddItemToArray(cJSON_AddArrayToObject(n, "locations"), location(&f->at, NULL));
			cJSON_AddItemToArray(notes, n);
		}
	}
	cJSON_AddStringToObject(run, "columnKind", "unicodeCodePoints");
	cJSON *results = cJSON_AddArrayToObject(run, "results");
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if (!f->rule)
			continue;
		int idx = sl_config_rule_index(cfg, f->rule);
		unsigned dup = 0; /* same rule, object and file reported earlier */
		for (size_t j = 0; j < i; j++)
			if (fs->v[j].rule == f->rule && fs->v[j].at.src == f->at.src && f->object && fs->v[j].object &&
			    !strcmp(fs->v[j].object, f->object))
				dup++;
		cJSON_AddItemToArray(results, result(f, idx, dup));
	}
	char *s = cJSON_Print(root);
	fputs(s, out);
	fputc('\n', out);
	free(s);
	cJSON_Delete(root);
}
