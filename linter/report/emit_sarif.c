#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../config/config.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"
#include "jsonw.h"

/* What the locations of one log are relative to. */
struct sarif {
	char *root; /* the repository root (SRCROOT), absolute */
	char *cwd;  /* the working directory, where relative paths were typed (NULL: unknown) */
	/* The artifact location of the source asked last (a finding's locations and fixes are most
	 * often in one file): its URI, and whether relative to SRCROOT. */
	const struct sl_source *last;
	char *uri;
	bool rel;
};

static void region(struct sl_jw *w, const char *key, const struct sl_span *at, bool snippet)
{
	sl_jw_open(w, key, false);
	unsigned line, col;
	sl_span_start(at, &line, &col);
	sl_jw_num(w, "startLine", line ? line : 1);
	sl_jw_num(w, "startColumn", col ? col : 1);
	unsigned eline, ecol;
	sl_span_end(at, &eline, &ecol);
	sl_jw_num(w, "endLine", eline ? eline : 1);
	sl_jw_num(w, "endColumn", ecol ? ecol : 1);
	/* No snippet where the bytes are gone (the file changed since it was read: sl_source_text). */
	const char *text =
	    snippet && at->src && at->end > at->off && at->end - at->off <= 512 ? sl_source_text(at->src) : NULL;
	if (text) {
		struct sl_buf b = SL_BUF_INIT;
		sl_buf_add(&b, text + at->off, at->end - at->off);
		sl_jw_text(w, "snippet", b.s);
		sl_buf_free(&b);
	}
	sl_jw_end(w);
}

/* Relative to SRCROOT when the file is in the repository, so that code scanning places it
 * wherever the tool ran; an absolute file: URI otherwise. Only of a named source. */
static void artifact(struct sl_jw *w, const char *key, struct sarif *sx, const struct sl_source *src)
{
	if (src != sx->last) {
		char *rel = sl_path_in_repo(sx->root, sx->cwd, src->path);
		char *abs = rel ? NULL : sl_path_absolute_at(sx->cwd, src->path);
		free(sx->uri);
		sx->uri = sl_path_uri(rel ? rel : abs);
		sx->rel = rel != NULL;
		sx->last = src;
		free(rel);
		free(abs);
	}
	sl_jw_open(w, key, false);
	sl_jw_str(w, "uri", sx->uri);
	if (sx->rel)
		sl_jw_str(w, "uriBaseId", "SRCROOT");
	sl_jw_end(w);
}

/* A location's entries, its object left open for the caller's; whether it has a file. */
static bool location(struct sl_jw *w, struct sarif *sx, const struct sl_span *at, const char *msg)
{
	sl_jw_object(w);
	bool file = sl_source_named(at->src);
	if (file) {
		sl_jw_open(w, "physicalLocation", false);
		artifact(w, "artifactLocation", sx, at->src);
		region(w, "region", at, true);
		sl_jw_end(w);
	}
	if (msg)
		sl_jw_text(w, "message", msg);
	return file;
}

static const char *sarif_level(enum sl_level l)
{
	return l == SL_ERROR ? "error" : l == SL_WARNING ? "warning" : l == SL_NOTE ? "note" : "none";
}

static cJSON *text_obj(const char *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", s);
	return o;
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
	char *uri = policy ? NULL : sl_rule_help_uri(r);
	if (!uri)
		sl_buf_printf(&md, "**%s**\n\n%s\n\n**Fix.** %s", r->summary, r->description, r->help);
	else
		sl_buf_printf(&md, "**%s**\n\n%s\n\n**Fix.** %s\n\nSee [docs/rules/%s.md](%s).", r->summary,
			      r->description, r->help, r->id, uri);
	cJSON_AddStringToObject(help, "markdown", md.s);
	sl_buf_free(&md);
	if (uri)
		cJSON_AddStringToObject(o, "helpUri", uri);
	free(uri);
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

/* Whether edit i of fx is the first of its file: one artifactChange per file, its replacements in
 * order. */
static bool first_of_file(const struct sl_fix *fx, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (fx->edits[j].at.src == fx->edits[i].at.src)
			return false;
	return true;
}

/* Whether fx changes a file (not only standard input, which has none to apply it to). */
static bool changes_a_file(const struct sl_fix *fx)
{
	for (size_t i = 0; i < fx->nedits; i++)
		if (sl_source_named(fx->edits[i].at.src))
			return true;
	return false;
}

static void fix_obj(struct sl_jw *w, struct sarif *sx, const struct sl_fix *fx)
{
	sl_jw_object(w);
	sl_jw_text(w, "description", fx->desc);
	sl_jw_open(w, "artifactChanges", true);
	for (size_t i = 0; i < fx->nedits; i++) {
		const struct sl_source *src = fx->edits[i].at.src;
		if (!first_of_file(fx, i) || !sl_source_named(src))
			continue;
		sl_jw_object(w);
		artifact(w, "artifactLocation", sx, src);
		sl_jw_open(w, "replacements", true);
		for (size_t j = i; j < fx->nedits; j++) {
			if (fx->edits[j].at.src != src)
				continue;
			sl_jw_object(w);
			region(w, "deletedRegion", &fx->edits[j].at, false);
			sl_jw_text(w, "insertedContent", fx->edits[j].text);
			sl_jw_end(w);
		}
		sl_jw_end(w);
		sl_jw_end(w);
	}
	sl_jw_end(w);
	sl_jw_end(w);
}

static void suppressions(struct sl_jw *w, struct sarif *sx, const struct sl_finding *f)
{
	sl_jw_open(w, "suppressions", true);
	for (size_t i = 0; i < f->nsupp; i++) {
		sl_jw_object(w);
		sl_jw_str(w, "kind", f->supp[i].kind == SL_SUPPRESS_EXTERNAL ? "external" : "inSource");
		sl_jw_str(w, "status", "accepted");
		sl_jw_str(w, "justification", f->supp[i].justification);
		if (f->supp[i].at.src) {
			sl_jw_key(w, "location");
			location(w, sx, &f->supp[i].at, NULL);
			sl_jw_end(w);
		}
		sl_jw_end(w);
	}
	sl_jw_end(w);
}

static void result(struct sl_jw *w, struct sarif *sx, const struct sl_finding *f, int rule_index, unsigned dup)
{
	sl_jw_object(w);
	sl_jw_str(w, "ruleId", f->rule->id);
	sl_jw_num(w, "ruleIndex", rule_index);
	sl_jw_str(w, "level", sarif_level(f->level));
	/* The message carries the proof too: most SARIF consumers show only the message. */
	struct sl_buf msg = SL_BUF_INIT;
	sl_finding_text(&msg, f);
	sl_jw_text(w, "message", msg.s);
	sl_buf_free(&msg);
	sl_jw_open(w, "locations", true);
	if (!location(w, sx, &f->at, NULL) && f->object) {
		/* Unnamed standard input: no file, but the object still says where. */
		sl_jw_open(w, "logicalLocations", true);
		sl_jw_object(w);
		sl_jw_str(w, "fullyQualifiedName", f->object);
		sl_jw_str(w, "kind", "resource");
		sl_jw_end(w);
		sl_jw_end(w);
	}
	sl_jw_end(w);
	sl_jw_end(w);
	if (f->nrelated) {
		sl_jw_open(w, "relatedLocations", true);
		for (size_t i = 0; i < f->nrelated; i++) {
			location(w, sx, &f->related[i].at, f->related[i].text);
			sl_jw_num(w, "id", (int64_t)i);
			sl_jw_end(w);
		}
		sl_jw_end(w);
	}
	char fp[SL_FINGERPRINT_SIZE];
	sl_fingerprint(fp, sx->root, sx->cwd, f, dup);
	sl_jw_open(w, "partialFingerprints", false);
	sl_jw_str(w, "schedlintFingerprint/v1", fp);
	sl_jw_end(w);
	if (f->nsupp)
		suppressions(w, sx, f);
	if (f->target) {
		sl_jw_open(w, "properties", false);
		sl_jw_str(w, "target", f->target);
		sl_jw_end(w);
	}
	bool fixes = false;
	for (size_t i = 0; i < f->nfixes; i++) {
		if (!changes_a_file(&f->fixes[i]))
			continue;
		if (!fixes)
			sl_jw_open(w, "fixes", true);
		fixes = true;
		fix_obj(w, sx, &f->fixes[i]);
	}
	if (fixes)
		sl_jw_end(w);
	sl_jw_end(w);
}

/* An input error or a note about the input, as a notification of the tool's run. */
static void notification(struct sl_jw *w, struct sarif *sx, const struct sl_finding *f)
{
	sl_jw_object(w);
	sl_jw_str(w, "level", sarif_level(f->level));
	/* Its notes as a result's are (sl_finding_text's "\n- " lines): what the text report says under
	 * an input error (how far a limit stopped a pattern, what was read instead) is no less true
	 * for code scanning. */
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, f->message);
	for (size_t i = 0; i < f->nnotes; i++)
		sl_buf_printf(&b, "\n- %s", f->notes[i]);
	sl_jw_text(w, "message", sl_buf_str(&b));
	sl_buf_free(&b);
	if (sl_source_named(f->at.src)) {
		sl_jw_open(w, "locations", true);
		location(w, sx, &f->at, NULL);
		sl_jw_end(w);
		sl_jw_end(w);
	}
	if (f->notice_id) {
		sl_jw_open(w, "descriptor", false);
		sl_jw_str(w, "id", f->notice_id);
		sl_jw_end(w);
	}
	sl_jw_end(w);
}

/* A notice of the run (diag.h): a notification without a location, its id the descriptor's. */
static void run_notification(struct sl_jw *w, const struct sl_notice *x)
{
	sl_jw_object(w);
	sl_jw_str(w, "level", sarif_level(x->level));
	sl_jw_text(w, "message", x->text);
	sl_jw_open(w, "descriptor", false);
	sl_jw_str(w, "id", x->id);
	sl_jw_end(w);
	sl_jw_end(w);
}

/* The log without its items: toolExecutionNotifications (when there are any) and results are
 * empty arrays, the items written into them as the log is printed (sl_emit_sarif). */
static cJSON *skeleton(const struct sarif *sx, bool notify, bool ok, const struct sl_config *cfg)
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
	cJSON_AddBoolToObject(inv, "executionSuccessful", ok);
	if (notify) /* input errors, and notes about the input */
		cJSON_AddArrayToObject(inv, "toolExecutionNotifications");
	/* SRCROOT as a directory URI (ending in '/'), as SARIF requires of a base. */
	char *base = sl_path_uri(sx->root);
	char *dir = sl_xasprintf("%s%s", base, strcmp(sx->root, "/") ? "/" : "");
	cJSON *srcroot = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "originalUriBaseIds"), "SRCROOT");
	cJSON_AddStringToObject(srcroot, "uri", dir);
	free(dir);
	free(base);
	cJSON_AddStringToObject(run, "columnKind", "unicodeCodePoints");
	cJSON_AddArrayToObject(run, "results");
	return root;
}

/* The printed skeleton from `from` up to the items of the array under key (a key is never found
 * in a string, whose quotes are escaped): into raw, up to and including the array's '['. Returns
 * where the rest begins (its ']'); *depth is where the items sit, one deeper than the key. */
static const char *put_head(struct sl_buf *raw, const char *from, const char *key, size_t *depth)
{
	const char *k = strstr(from, key), *open = strstr(k, "[]");
	sl_buf_add(raw, from, (size_t)(open + 1 - from));
	*depth = 1;
	while (k > from && k[-1] == '\t') {
		k--;
		++*depth;
	}
	return open + 1;
}

/* The items of one array, the findings with a rule (results) or those without and then the
 * run's notices (notifications), each written where cJSON_Print would have printed it inside the
 * whole log (depth: the items' tabs), and flushed a chunk at a time. */
static void put_items(FILE *out, struct sl_buf *raw, struct sl_buf *esc, struct sarif *sx, const struct sl_findings *fs,
		      const struct sl_notices *ns, const struct sl_config *cfg, bool results, size_t depth)
{
	unsigned *dups = results ? sl_fingerprint_dups(fs) : NULL;
	size_t nn = results || !ns ? 0 : ns->n;
	bool first = true;
	for (size_t i = 0; i < fs->n + nn; i++) {
		const struct sl_finding *f = i < fs->n ? &fs->v[i] : NULL;
		if (f && (f->rule != NULL) != results)
			continue;
		if (!first)
			sl_buf_add(raw, ", ", 2); /* cJSON's separator between the items of an array */
		first = false;
		struct sl_jw w;
		sl_jw_init(&w, raw, (unsigned)depth);
		if (!f)
			run_notification(&w, &ns->v[i - fs->n]);
		else if (results)
			result(&w, sx, f, sl_config_rule_index(cfg, f->rule), dups[i]);
		else
			notification(&w, sx, f);
		sl_jw_flush(out, raw, esc, false);
	}
	free(dups);
}

/* Streamed: the skeleton printed whole (its rules are a few kilobytes), and the items written
 * into its arrays one at a time. The bytes are those that sl_emit_cjson printed of the log
 * built whole. */
void sl_emit_sarif(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, const struct sl_config *cfg)
{
	struct sarif sx = {.cwd = sl_path_cwd()};
	sx.root = sl_path_repo_root(sx.cwd);
	bool notify = ns && ns->n;
	for (size_t i = 0; i < fs->n && !notify; i++)
		notify = !fs->v[i].rule;
	cJSON *root = skeleton(&sx, notify, fs->input_errors == 0, cfg);
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	struct sl_buf raw = SL_BUF_INIT, esc = SL_BUF_INIT;
	const char *rest = text;
	size_t depth;
	if (notify) {
		rest = put_head(&raw, rest, "\"toolExecutionNotifications\":", &depth);
		put_items(out, &raw, &esc, &sx, fs, ns, cfg, false, depth);
	}
	rest = put_head(&raw, rest, "\"results\":", &depth);
	put_items(out, &raw, &esc, &sx, fs, ns, cfg, true, depth);
	sl_buf_puts(&raw, rest);
	sl_buf_putc(&raw, '\n');
	sl_jw_flush(out, &raw, &esc, true);
	sl_buf_free(&raw);
	sl_buf_free(&esc);
	free(text);
	free(sx.uri);
	free(sx.root);
	free(sx.cwd);
}
