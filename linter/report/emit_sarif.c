#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../base/escape.h"
#include "../config/config.h"
#include "../load/input.h"
#include "../load/path.h"
#include "emit.h"

static cJSON *region(const struct sl_span *at, bool snippet)
{
	cJSON *r = cJSON_CreateObject();
	unsigned line, col;
	sl_span_start(at, &line, &col);
	cJSON_AddNumberToObject(r, "startLine", line ? line : 1);
	cJSON_AddNumberToObject(r, "startColumn", col ? col : 1);
	unsigned eline, ecol;
	sl_span_end(at, &eline, &ecol);
	cJSON_AddNumberToObject(r, "endLine", eline ? eline : 1);
	cJSON_AddNumberToObject(r, "endColumn", ecol ? ecol : 1);
	/* No snippet where the bytes are gone (the file changed since it was read: sl_source_text). */
	const char *text =
	    snippet && at->src && at->end > at->off && at->end - at->off <= 512 ? sl_source_text(at->src) : NULL;
	if (text) {
		struct sl_buf b = SL_BUF_INIT;
		sl_buf_add(&b, text + at->off, at->end - at->off);
		cJSON *s = cJSON_AddObjectToObject(r, "snippet");
		cJSON_AddStringToObject(s, "text", b.s);
		sl_buf_free(&b);
	}
	return r;
}

/* What the locations of one log are relative to. */
struct sarif {
	char *root; /* the repository root (SRCROOT), absolute */
	char *cwd;  /* the working directory, where relative paths were typed (NULL: unknown) */
};

/* A source's path relative to the repository root, or NULL when it lies outside it or is
 * standard input without --stdin-filename. Caller frees. */
static char *repo_relative(const struct sarif *sx, const struct sl_source *src)
{
	if (!src || (src->from_stdin && !strcmp(src->path, "-")))
		return NULL;
	return sl_path_in_repo(sx->root, sx->cwd, src->path);
}

/* Relative to SRCROOT when the file is in the repository, so that code scanning places it
 * wherever the tool ran; an absolute file: URI otherwise. NULL for unnamed standard input: there
 * is no file to point at. */
static cJSON *artifact(const struct sarif *sx, const struct sl_source *src)
{
	if (!src || (src->from_stdin && !strcmp(src->path, "-")))
		return NULL;
	cJSON *a = cJSON_CreateObject();
	char *rel = repo_relative(sx, src);
	char *abs = rel ? NULL : sl_path_absolute_at(sx->cwd, src->path);
	char *uri = sl_path_uri(rel ? rel : abs);
	cJSON_AddStringToObject(a, "uri", uri);
	if (rel)
		cJSON_AddStringToObject(a, "uriBaseId", "SRCROOT");
	free(uri);
	free(rel);
	free(abs);
	return a;
}

static cJSON *location(const struct sarif *sx, const struct sl_span *at, const char *msg)
{
	cJSON *l = cJSON_CreateObject();
	cJSON *a = artifact(sx, at->src);
	if (a) {
		cJSON *pl = cJSON_AddObjectToObject(l, "physicalLocation");
		cJSON_AddItemToObject(pl, "artifactLocation", a);
		cJSON_AddItemToObject(pl, "region", region(at, true));
	}
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

static cJSON *fix_obj(const struct sarif *sx, const struct sl_fix *fx)
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
		cJSON *a = artifact(sx, fx->edits[i].at.src);
		if (!a)
			continue; /* standard input: no file to change */
		cJSON *ch = cJSON_CreateObject();
		cJSON_AddItemToObject(ch, "artifactLocation", a);
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

static cJSON *result(const struct sarif *sx, const struct sl_finding *f, int rule_index, unsigned dup)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "ruleId", f->rule->id);
	cJSON_AddNumberToObject(o, "ruleIndex", rule_index);
	cJSON_AddStringToObject(o, "level", sarif_level(f->level));
	/* The message carries the proof too: most SARIF consumers show only the message. */
	struct sl_buf msg = SL_BUF_INIT;
	sl_finding_text(&msg, f);
	cJSON_AddItemToObject(o, "message", text_obj(msg.s));
	sl_buf_free(&msg);
	cJSON *locs = cJSON_AddArrayToObject(o, "locations");
	cJSON *loc = location(sx, &f->at, NULL);
	if (!cJSON_GetObjectItem(loc, "physicalLocation") && f->object) {
		/* Unnamed standard input: no file, but the object still says where. */
		cJSON *ll = cJSON_CreateObject();
		cJSON_AddStringToObject(ll, "fullyQualifiedName", f->object);
		cJSON_AddStringToObject(ll, "kind", "resource");
		cJSON_AddItemToArray(cJSON_AddArrayToObject(loc, "logicalLocations"), ll);
	}
	cJSON_AddItemToArray(locs, loc);
	if (f->nrelated) {
		cJSON *rel = cJSON_AddArrayToObject(o, "relatedLocations");
		for (size_t i = 0; i < f->nrelated; i++) {
			cJSON *l = location(sx, &f->related[i].at, f->related[i].text);
			cJSON_AddNumberToObject(l, "id", (double)i);
			cJSON_AddItemToArray(rel, l);
		}
	}
	char fp[SL_FINGERPRINT_SIZE];
	sl_fingerprint(fp, sx->root, sx->cwd, f, dup);
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
				cJSON_AddItemToObject(so, "location", location(sx, &f->supp[i].at, NULL));
			cJSON_AddItemToArray(sv, so);
		}
	}
	if (f->target)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "properties"), "target", f->target);
	cJSON *fixes = cJSON_CreateArray();
	for (size_t i = 0; i < f->nfixes; i++) {
		cJSON *fx = fix_obj(sx, &f->fixes[i]);
		if (cJSON_GetArraySize(cJSON_GetObjectItem(fx, "artifactChanges")))
			cJSON_AddItemToArray(fixes, fx);
		else
			cJSON_Delete(fx); /* it changes only standard input: nothing to apply it to */
	}
	if (cJSON_GetArraySize(fixes))
		cJSON_AddItemToObject(o, "fixes", fixes);
	else
		cJSON_Delete(fixes);
	return o;
}

/* An input error or a note about the input, as a notification of the tool's run. */
static cJSON *notification(const struct sarif *sx, const struct sl_finding *f)
{
	cJSON *n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "level", sarif_level(f->level));
	/* Its notes as a result's are (sl_finding_text's "\n- " lines): what the text report says under
	 * an input error (how far a limit stopped a pattern, what was read instead) is no less true
	 * for code scanning. */
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, f->message);
	for (size_t i = 0; i < f->nnotes; i++)
		sl_buf_printf(&b, "\n- %s", f->notes[i]);
	cJSON_AddItemToObject(n, "message", text_obj(sl_buf_str(&b)));
	sl_buf_free(&b);
	if (f->at.src && !(f->at.src->from_stdin && !strcmp(f->at.src->path, "-")))
		cJSON_AddItemToArray(cJSON_AddArrayToObject(n, "locations"), location(sx, &f->at, NULL));
	if (f->notice_id)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(n, "descriptor"), "id", f->notice_id);
	return n;
}

/* A notice of the run (diag.h): a notification without a location, its id the descriptor's. */
static cJSON *run_notification(const struct sl_notice *x)
{
	cJSON *n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "level", sarif_level(x->level));
	cJSON_AddItemToObject(n, "message", text_obj(x->text));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(n, "descriptor"), "id", x->id);
	return n;
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

/* Printed JSON of n bytes written to out as sl_emit_cjson writes a document (through
 * sl_esc_json), each line after the first indented by depth more tabs: a value printed on its
 * own, placed where cJSON_Print would have printed it inside the whole log. Its newlines are all
 * layout (a string's are escaped), and its pieces begin and end outside strings, so escaping it
 * apart is escaping it in place. */
static void put_json(FILE *out, struct sl_buf *b, const char *s, size_t n, size_t depth)
{
	sl_buf_reset(b);
	for (const char *end = s + n, *nl; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl) {
			sl_esc_json(b, s, (size_t)(end - s));
			break;
		}
		sl_esc_json(b, s, (size_t)(nl + 1 - s));
		for (size_t i = 0; i < depth; i++)
			sl_buf_putc(b, '\t');
	}
	fwrite(b->s, 1, b->len, out);
}

/* The printed skeleton from `from` up to the items of the array under key (a key is never found
 * in a string, whose quotes are escaped): written, up to and including the array's '['. Returns
 * where the rest begins (its ']'); *depth is where the items sit, one deeper than the key. */
static const char *put_head(FILE *out, struct sl_buf *b, const char *from, const char *key, size_t *depth)
{
	const char *k = strstr(from, key), *open = strstr(k, "[]");
	put_json(out, b, from, (size_t)(open + 1 - from), 0);
	*depth = 1;
	while (k > from && k[-1] == '\t') {
		k--;
		++*depth;
	}
	return open + 1;
}

/* The items of one array, the findings with a rule (results) or those without and then the
 * run's notices (notifications), each built, printed, written and freed before the next: a large
 * run's log is never held whole, neither as a tree nor as text. */
static void put_items(FILE *out, struct sl_buf *b, const struct sarif *sx, const struct sl_findings *fs,
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
			fwrite(", ", 1, 2, out); /* cJSON's separator between the items of an array */
		first = false;
		cJSON *item = !f        ? run_notification(&ns->v[i - fs->n])
			      : results ? result(sx, f, sl_config_rule_index(cfg, f->rule), dups[i])
					: notification(sx, f);
		char *s = cJSON_Print(item);
		put_json(out, b, s, strlen(s), depth);
		free(s);
		cJSON_Delete(item);
	}
	free(dups);
}

/* Streamed: the skeleton printed whole (its rules are a few kilobytes), and the items written
 * into its arrays one at a time. The bytes are those that sl_emit_cjson printed of the log
 * built whole. */
void sl_emit_sarif(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, const struct sl_config *cfg)
{
	struct sarif sx = {NULL, sl_path_cwd()};
	sx.root = sl_path_repo_root(sx.cwd);
	bool notify = ns && ns->n;
	for (size_t i = 0; i < fs->n && !notify; i++)
		notify = !fs->v[i].rule;
	cJSON *root = skeleton(&sx, notify, fs->input_errors == 0, cfg);
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	struct sl_buf b = SL_BUF_INIT;
	const char *rest = text;
	size_t depth;
	if (notify) {
		rest = put_head(out, &b, rest, "\"toolExecutionNotifications\":", &depth);
		put_items(out, &b, &sx, fs, ns, cfg, false, depth);
	}
	rest = put_head(out, &b, rest, "\"results\":", &depth);
	put_items(out, &b, &sx, fs, ns, cfg, true, depth);
	put_json(out, &b, rest, strlen(rest), 0);
	fputc('\n', out);
	sl_buf_free(&b);
	free(text);
	free(sx.root);
	free(sx.cwd);
}
