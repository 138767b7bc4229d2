/* lsp_lint.c — the language server's runs: the config (read again when its file changes), one
 * run over the workspace's folders and the open documents (their buffers in place of the files,
 * through the overlay), the findings as diagnostics of the open documents, and their fixes as
 * quick fixes. The run is kept until the next one: code action requests are answered from it.
 * Diagnostics and log lines reach the client through s->out, which the server passes in: this
 * file calls nothing of lsp.c's. */
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../load/path.h"
#include "../report/emit.h"
#include "../run.h"
#include "lsp_server.h"

/* A run slower than this is logged: the server aims to answer within it. */
#define SLOW_MS 100

void sl_lsp_logf(struct sl_lsp *s, int type, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	s->out.log(s->out.ctx, type, b.s);
	sl_buf_free(&b);
}

static void drop_places(struct sl_lsp *s)
{
	for (size_t i = 0; i < s->nsrcs; i++) {
		free(s->srcs[i]->uri);
		sl_lsp_lines_free(&s->srcs[i]->lines);
		free(s->srcs[i]);
	}
	s->nsrcs = 0;
	free(s->by_order);
	s->by_order = NULL;
}

static void drop_run(struct sl_lsp *s)
{
	drop_places(s);
	if (s->run) {
		sl_run_free(s->run);
		free(s->run);
		s->run = NULL;
	}
}

void sl_lsp_lint_free(struct sl_lsp *s)
{
	drop_run(s);
	sl_parse_cache_clear(&s->parsed);
	free(s->srcs);
	s->srcs = NULL;
	s->capsrcs = 0;
	if (s->have_cfg)
		sl_config_free(&s->cfg);
	s->have_cfg = false;
	free(s->cfg_path);
	s->cfg_path = NULL;
	free(s->cfg_published);
	s->cfg_published = NULL;
}

/* Where the findings of src go: the open document it is, and its URI (the document's own when
 * open, so that the client recognises it). */
static struct sl_lsp_src *place(struct sl_lsp *s, const struct sl_source *src)
{
	/* A source of the run is found by its order in it, at once: a run over thousands of files
	 * places each finding's. Any other (the config) is one of a few, searched. */
	const struct sl_sources *ss = s->run ? &s->run->ss : NULL;
	struct sl_lsp_src **slot = NULL;
	if (ss && src->order < ss->n && ss->v[src->order] == src) {
		if (!s->by_order)
			s->by_order = sl_xcalloc(ss->n, sizeof *s->by_order);
		slot = &s->by_order[src->order];
		if (*slot)
			return *slot;
	} else {
		for (size_t i = 0; i < s->nsrcs; i++)
			if (s->srcs[i]->src == src)
				return s->srcs[i];
	}
	struct sl_lsp_src *p = sl_xcalloc(1, sizeof *p);
	sl_grow(&s->srcs, &s->capsrcs, s->nsrcs + 1, sizeof *s->srcs);
	s->srcs[s->nsrcs++] = p;
	if (slot)
		*slot = p;
	p->src = src;
	p->doc = -1;
	char *abs = sl_path_absolute(src->path);
	for (size_t i = 0; i < s->ndocs && p->doc < 0; i++)
		if (s->docs[i]->path && !strcmp(s->docs[i]->path, abs))
			p->doc = (int)i;
	p->uri = p->doc >= 0 ? sl_xstrdup(s->docs[p->doc]->uri) : sl_path_uri(abs);
	free(abs);
	return p;
}

static struct sl_lsp_pos pos_of(struct sl_lsp_src *p, size_t off)
{
	const char *text = sl_source_text(p->src); /* never given back: the server's runs keep_bytes */
	if (!p->have_lines) {
		sl_lsp_lines_build(&p->lines, text, p->src->len);
		p->have_lines = true;
	}
	return sl_lsp_pos_of(&p->lines, text, p->src->len, off);
}

static cJSON *position(struct sl_lsp_pos p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "line", p.line);
	cJSON_AddNumberToObject(o, "character", p.character);
	return o;
}

static cJSON *range(struct sl_lsp_src *p, const struct sl_span *at)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, "start", position(pos_of(p, at->off)));
	cJSON_AddItemToObject(r, "end", position(pos_of(p, at->end)));
	return r;
}

static int severity(enum sl_level l)
{
	return l == SL_ERROR ? 1 : l == SL_WARNING ? 2 : l == SL_NOTE ? 3 : 4; /* Error, Warning, Information, Hint */
}

static cJSON *diagnostic(struct sl_lsp *s, const struct sl_finding *f, struct sl_lsp_src *p)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddItemToObject(d, "range", range(p, &f->at));
	cJSON_AddNumberToObject(d, "severity", severity(f->level));
	if (f->rule) {
		cJSON_AddStringToObject(d, "code", f->rule->id);
		char *href = sl_rule_help_uri(f->rule);
		if (href)
			cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "codeDescription"), "href", href);
		free(href);
	}
	cJSON_AddStringToObject(d, "source", "schedlint");
	struct sl_buf msg = SL_BUF_INIT;
	if (f->rule)
		sl_finding_text(&msg, f);
	else
		sl_buf_puts(&msg, f->message); /* an input error is one sentence, as the text format has it */
	cJSON_AddStringToObject(d, "message", msg.s);
	sl_buf_free(&msg);
	if (f->nrelated) {
		/* What the proof used: the nodes, the budget, the competing workload. */
		cJSON *rel = cJSON_AddArrayToObject(d, "relatedInformation");
		for (size_t i = 0; i < f->nrelated; i++) {
			if (!f->related[i].at.src)
				continue;
			struct sl_lsp_src *rp = place(s, f->related[i].at.src);
			cJSON *ri = cJSON_CreateObject();
			cJSON *loc = cJSON_AddObjectToObject(ri, "location");
			cJSON_AddStringToObject(loc, "uri", rp->uri);
			cJSON_AddItemToObject(loc, "range", range(rp, &f->related[i].at));
			cJSON_AddStringToObject(ri, "message", f->related[i].text);
			cJSON_AddItemToArray(rel, ri);
		}
	}
	return d;
}

void sl_lsp_publish(struct sl_lsp *s, const char *uri, char **published, long long version, cJSON *diags)
{
	if (!diags)
		diags = cJSON_CreateArray();
	char *json = cJSON_PrintUnformatted(diags);
	if (!strcmp(json, *published ? *published : "[]")) { /* the client has these already */
		free(json);
		cJSON_Delete(diags);
		return;
	}
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "uri", uri);
	if (version >= 0)
		cJSON_AddNumberToObject(p, "version", (double)version);
	cJSON_AddItemToObject(p, "diagnostics", diags);
	s->out.notify(s->out.ctx, "textDocument/publishDiagnostics", p);
	free(*published);
	*published = strcmp(json, "[]") ? json : NULL;
	if (!*published)
		free(json);
}

/* The open document at path, or -1. */
static int doc_at(const struct sl_lsp *s, const char *path)
{
	for (size_t i = 0; path && i < s->ndocs; i++)
		if (s->docs[i]->path && !strcmp(s->docs[i]->path, path))
			return (int)i;
	return -1;
}

/* The config's errors as its diagnostics (none clears what was published). */
static void publish_config(struct sl_lsp *s, const char *path, const struct sl_findings *errs)
{
	cJSON *diags = cJSON_CreateArray();
	for (size_t i = 0; i < errs->n; i++)
		if (errs->v[i].at.src)
			cJSON_AddItemToArray(diags, diagnostic(s, &errs->v[i], place(s, errs->v[i].at.src)));
		else
			sl_lsp_logf(s, 1, "schedlint: %s", errs->v[i].message);
	int d = doc_at(s, path);
	char *uri = d >= 0 ? sl_xstrdup(s->docs[d]->uri) : path ? sl_path_uri(path) : NULL;
	if (uri)
		sl_lsp_publish(s, uri, &s->cfg_published, d >= 0 ? s->docs[d]->version : -1, diags);
	else
		cJSON_Delete(diags);
	if (errs->input_errors)
		sl_lsp_logf(s, 1, "schedlint: %s has errors: nothing is linted until they are fixed", path);
	free(uri);
	drop_places(s);
}

static void file_key(const char *path, struct sl_filekey *k)
{
	struct stat st;
	memset(k, 0, sizeof *k);
	if (path && stat(path, &st) == 0)
		sl_filekey_of(&st, k);
}

/* The config for the next run: the one of initializationOptions, else the workspace's (found
 * upward from its first folder), read again when another file is found or the file changed.
 * -1 when it has errors (published at it, as the command line reports them and stops). */
static int ensure_config(struct sl_lsp *s)
{
	char *path = s->config_opt ? sl_xstrdup(s->config_opt) : sl_config_find_from(s->nroots ? s->roots[0] : ".");
	struct sl_filekey key;
	file_key(path, &key);
	bool same_path = path && s->cfg_path ? !strcmp(path, s->cfg_path) : path == s->cfg_path;
	if (s->have_cfg && same_path && !memcmp(&key, &s->cfg_key, sizeof key)) {
		free(path);
		return s->cfg_ok ? 0 : -1;
	}
	drop_run(s);                      /* its findings point into the config */
	sl_parse_cache_clear(&s->parsed); /* what is kept of a tree depends on the config */
	if (s->have_cfg)
		sl_config_free(&s->cfg);
	sl_config_defaults(&s->cfg);
	s->have_cfg = true;
	struct sl_findings errs = {0};
	s->cfg_ok = !path || sl_config_load(&s->cfg, path, &errs) == 0;
	publish_config(s, path ? path : s->cfg_path, &errs);
	sl_findings_free(&errs);
	free(s->cfg_path);
	s->cfg_path = path;
	s->cfg_key = key;
	return s->cfg_ok ? 0 : -1;
}

/* Every open document's diagnostics, published where they changed. */
static void publish_docs(struct sl_lsp *s)
{
	cJSON **per = sl_xcalloc(s->ndocs + 1, sizeof *per);
	for (size_t i = 0; i < s->ndocs; i++)
		per[i] = cJSON_CreateArray();
	const struct sl_findings *fs = &s->run->fs;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if (f->nsupp || !f->at.src)
			continue; /* suppressed: the manifest or the config says so */
		struct sl_lsp_src *p = place(s, f->at.src);
		if (p->doc >= 0)
			cJSON_AddItemToArray(per[p->doc], diagnostic(s, f, p));
	}
	for (size_t i = 0; i < s->ndocs; i++)
		sl_lsp_publish(s, s->docs[i]->uri, &s->docs[i]->published, s->docs[i]->version, per[i]);
	free(per);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* A message has come since the run began (or the client is gone): the run's text may be stale. */
static bool input_waiting(void *ctx)
{
	const struct sl_lsp *s = ctx;
	struct pollfd p = {s->rpc.in, POLLIN, 0};
	return s->rpc.in >= 0 && poll(&p, 1, 0) > 0;
}

/* A client that sends messages without pause would have every run cancelled: after a few in a
 * row one runs to the end whatever comes. */
#define MAX_CANCELLED_IN_ROW 3

void sl_lsp_lint(struct sl_lsp *s, bool cancellable)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	s->dirty = false;
	if (ensure_config(s) < 0)
		return;
	drop_run(s);
	sl_parse_cache_sweep(&s->parsed); /* no run holds its entries now */
	/* The folders, walked as the command line walks a directory, and the open documents by
	 * name: one inside a folder is read once (by the walk), one outside is added, and one the
	 * walk leaves out (hidden, or not named *.yaml) is linted all the same, since it is open.
	 * The config file is not a manifest. */
	char **paths = sl_xcalloc(s->nroots + s->ndocs + 1, sizeof *paths);
	size_t n = 0;
	for (size_t i = 0; i < s->nroots; i++)
		paths[n++] = s->roots[i];
	for (size_t i = 0; i < s->ndocs; i++) {
		struct stat st; /* a directory opened as a document is not walked */
		const char *p = s->docs[i]->path;
		if (s->docs[i]->lint && !(s->cfg_path && !strcmp(p, s->cfg_path)) &&
		    !(stat(p, &st) == 0 && S_ISDIR(st.st_mode)))
			paths[n++] = s->docs[i]->path;
	}
	struct sl_run *r = sl_xcalloc(1, sizeof *r);
	r->cfg = &s->cfg;
	r->overlay = &s->ov;
	r->keep_bytes = true;
	r->parse_cache = &s->parsed;
	if (cancellable && s->cancelled_in_row < MAX_CANCELLED_IN_ROW) {
		r->stale = input_waiting;
		r->stale_ctx = s;
	}
	size_t hits = s->parsed.hits;
	sl_run(r, (const char *const *)s->nodes, s->nnodes, (const char *const *)s->pods, s->npods, paths, n);
	free(paths);
	if (r->stale && !r->cancelled && input_waiting(s))
		r->cancelled = true; /* the last chance: what came may make its diagnostics stale */
	if (r->cancelled) {
		sl_run_free(r);
		free(r);
		s->dirty = true;
		s->cancelled++;
		s->cancelled_in_row++;
		sl_lsp_logf(s, 4, "schedlint: a run cancelled after %.0f ms: messages came while it ran (%llu so far)",
			    ms_since(&t0), s->cancelled);
		return;
	}
	s->cancelled_in_row = 0;
	s->run = r;
	publish_docs(s);
	double ms = ms_since(&t0);
	/* Every run says how much of it was parsed before (a change should cost what changed): a
	 * log line, the least a client shows. */
	bool again = s->runs++ > 0;
	sl_lsp_logf(s, ms > SLOW_MS ? 3 : 4, "schedlint: linted %zu files (%zu of them as parsed before) in %.0f ms%s",
		    r->ss.n, s->parsed.hits - hits, ms,
		    again && ms > SLOW_MS ? " (slower than the aim of 100 ms)" : "");
}

static int cmp_pos(struct sl_lsp_pos a, struct sl_lsp_pos b)
{
	return a.line != b.line            ? (a.line < b.line ? -1 : 1)
	       : a.character < b.character ? -1
					   : a.character > b.character;
}

/* A fix as a quick fix: its edits as a WorkspaceEdit, by file. */
static cJSON *action(struct sl_lsp *s, const struct sl_fix *fx, const cJSON *diag, bool preferred)
{
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "title", fx->desc);
	cJSON_AddStringToObject(a, "kind", "quickfix");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(a, "diagnostics"), cJSON_Duplicate(diag, 1));
	cJSON_AddBoolToObject(a, "isPreferred", preferred);
	cJSON *changes = cJSON_AddObjectToObject(cJSON_AddObjectToObject(a, "edit"), "changes");
	for (size_t i = 0; i < fx->nedits; i++) {
		const struct sl_edit *e = &fx->edits[i];
		if (!e->at.src)
			continue;
		struct sl_lsp_src *p = place(s, e->at.src);
		cJSON *edits = cJSON_GetObjectItemCaseSensitive(changes, p->uri);
		if (!edits)
			edits = cJSON_AddArrayToObject(changes, p->uri);
		cJSON *te = cJSON_CreateObject();
		cJSON_AddItemToObject(te, "range", range(p, &e->at));
		cJSON_AddStringToObject(te, "newText", e->text);
		cJSON_AddItemToArray(edits, te);
	}
	return a;
}

cJSON *sl_lsp_code_actions(struct sl_lsp *s, const struct sl_lsp_doc *doc, struct sl_lsp_pos from, struct sl_lsp_pos to,
			   bool quickfix_wanted)
{
	cJSON *out = cJSON_CreateArray();
	int di = doc_at(s, doc->path);
	if (!s->run || !quickfix_wanted || di < 0)
		return out;
	const struct sl_findings *fs = &s->run->fs;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		if (f->nsupp || !f->nfixes || !f->at.src)
			continue;
		struct sl_lsp_src *p = place(s, f->at.src);
		/* The finding's range meets the one asked about (a cursor at either end counts). */
		if (p->doc != di || cmp_pos(pos_of(p, f->at.end), from) < 0 || cmp_pos(pos_of(p, f->at.off), to) > 0)
			continue;
		cJSON *diag = diagnostic(s, f, p);
		for (size_t k = 0; k < f->nfixes; k++)
			cJSON_AddItemToArray(out, action(s, &f->fixes[k], diag, k == 0));
		cJSON_Delete(diag);
	}
	return out;
}
