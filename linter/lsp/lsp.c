/* lsp.c — the language server's loop and dispatch (see lsp.h): messages in, the lifecycle
 * (initialize, shutdown, exit), the documents the client opens and changes, and errors as the
 * protocol words them. Linting and what it publishes is lsp_lint.c's: it reaches the client
 * through the notify and log_line this file passes in (s->out), not by calling back here. */
#include "lsp.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../load/path.h"
#include "../report/emit.h"
#include "../run.h"
#include "lsp_server.h"

static void send_response(struct sl_lsp *s, const cJSON *id, cJSON *result)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(m, "result", result ? result : cJSON_CreateNull());
	sl_rpc_send(&s->rpc, m);
	cJSON_Delete(m);
}

static void send_error(struct sl_lsp *s, const cJSON *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void send_error(struct sl_lsp *s, const cJSON *id, int code, const char *fmt, ...)
{
	struct sl_buf b = SL_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sl_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON *e = cJSON_AddObjectToObject(m, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", b.s);
	sl_rpc_send(&s->rpc, m);
	cJSON_Delete(m);
	sl_buf_free(&b);
}

/* The server's side of struct sl_lsp_out (ctx is the server): a notification, and a line for
 * the client's log as window/logMessage. */
static void notify(void *ctx, const char *method, cJSON *params)
{
	struct sl_lsp *s = ctx;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params);
	sl_rpc_send(&s->rpc, m);
	cJSON_Delete(m);
}

static void log_line(void *ctx, int type, const char *message)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "type", type);
	cJSON_AddStringToObject(p, "message", message);
	notify(ctx, "window/logMessage", p);
}

/* Parameters, read strictly: a wrong type is as bad as a missing value. */
static const char *get_string(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A protocol uinteger: 0, or -1 when v is not one. */
static int get_uint(const cJSON *o, const char *key, unsigned *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > INT_MAX ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = (unsigned)v->valuedouble;
	return 0;
}

static int get_position(const cJSON *o, const char *key, struct sl_lsp_pos *p)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsObject(v) && get_uint(v, "line", &p->line) == 0 && get_uint(v, "character", &p->character) == 0
		   ? 0
		   : -1;
}

/* A path as it names the same file however it was reached: symlinks resolved, for the file or,
 * when it does not exist yet, for its directory. */
static char *canonical(const char *path)
{
	char buf[PATH_MAX];
	if (realpath(path, buf))
		return sl_xstrdup(buf);
	char *norm = sl_path_normalize(path);
	char *slash = strrchr(norm, '/');
	if (slash && slash != norm) {
		*slash = 0;
		if (realpath(norm, buf)) {
			char *out = sl_xasprintf("%s/%s", strcmp(buf, "/") ? buf : "", slash + 1);
			free(norm);
			return out;
		}
		*slash = '/';
	}
	return norm;
}

/* A path from initializationOptions: relative ones are the workspace's. */
static char *option_path(const struct sl_lsp *s, const char *p)
{
	if (p[0] == '/' || !s->nroots)
		return sl_path_absolute(p);
	char *joined = sl_xasprintf("%s/%s", s->roots[0], p);
	char *out = sl_path_normalize(joined);
	free(joined);
	return out;
}

/* "nodes": ["a.yaml", …] (or one string). -1 when it is neither. */
static int option_paths(struct sl_lsp *s, const cJSON *opts, const char *key, char ***v, size_t *n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(opts, key);
	if (!a)
		return 0;
	if (cJSON_IsString(a)) {
		*v = sl_xcalloc(1, sizeof **v);
		(*v)[(*n)++] = option_path(s, a->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(a))
		return -1;
	const cJSON *e;
	cJSON_ArrayForEach(e, a)
	{
		if (!cJSON_IsString(e))
			return -1;
	}
	*v = sl_xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof **v);
	cJSON_ArrayForEach(e, a)
	{
		(*v)[(*n)++] = option_path(s, e->valuestring);
	}
	return 0;
}

static void add_root(struct sl_lsp *s, const char *path)
{
	char buf[PATH_MAX];
	if (!realpath(path, buf)) {
		sl_lsp_logf(s, 2, "schedlint: workspace folder %s not found: left out", path);
		return;
	}
	s->roots = sl_xrealloc(s->roots, (s->nroots + 1) * sizeof *s->roots);
	s->roots[s->nroots++] = sl_xstrdup(buf);
}

static void add_root_uri(struct sl_lsp *s, const char *uri)
{
	char *path = uri ? sl_lsp_uri_path(uri) : NULL;
	if (path)
		add_root(s, path);
	else
		sl_lsp_logf(s, 2, "schedlint: workspace folder %s is not a local file: left out", uri ? uri : "(none)");
	free(path);
}

/* The workspace: its folders, else rootUri, else rootPath (deprecated, but sent by old clients). */
static void take_roots(struct sl_lsp *s, const cJSON *params)
{
	const cJSON *folders = cJSON_GetObjectItemCaseSensitive(params, "workspaceFolders"), *f;
	const char *uri = get_string(params, "rootUri"), *path = get_string(params, "rootPath");
	if (cJSON_IsArray(folders) && cJSON_GetArraySize(folders) > 0) {
		cJSON_ArrayForEach(f, folders)
		{
			add_root_uri(s, get_string(f, "uri"));
		}
	} else if (uri)
		add_root_uri(s, uri);
	else if (path && path[0] == '/')
		add_root(s, path);
}

static cJSON *capabilities(void)
{
	cJSON *caps = cJSON_CreateObject();
	cJSON_AddStringToObject(caps, "positionEncoding", "utf-16");
	cJSON *sync = cJSON_AddObjectToObject(caps, "textDocumentSync");
	cJSON_AddBoolToObject(sync, "openClose", true);
	cJSON_AddNumberToObject(sync, "change", 1); /* Full: the whole text each time */
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(sync, "save"), "includeText", false);
	cJSON *ca = cJSON_AddObjectToObject(caps, "codeActionProvider");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(ca, "codeActionKinds"), cJSON_CreateString("quickfix"));
	return caps;
}

static void free_list(char ***v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

/* What initializationOptions say (relative paths are the workspace's): 0, or -1 when they are
 * not what the server takes, nothing kept then. */
static int take_options(struct sl_lsp *s, const cJSON *opts)
{
	if (!opts || cJSON_IsNull(opts))
		return 0;
	const cJSON *cv = cJSON_GetObjectItemCaseSensitive(opts, "config");
	if (!cJSON_IsObject(opts) || (cv && !cJSON_IsString(cv)) ||
	    option_paths(s, opts, "nodes", &s->nodes, &s->nnodes) < 0 ||
	    option_paths(s, opts, "pods", &s->pods, &s->npods) < 0) {
		free_list(&s->nodes, &s->nnodes);
		free_list(&s->pods, &s->npods);
		return -1;
	}
	if (cv)
		s->config_opt = option_path(s, cv->valuestring);
	return 0;
}

static void on_initialize(struct sl_lsp *s, const cJSON *id, const cJSON *params)
{
	if (!cJSON_IsObject(params)) {
		send_error(s, id, SL_RPC_INVALID_PARAMS, "initialize: params must be an object");
		return;
	}
	take_roots(s, params);
	if (take_options(s, cJSON_GetObjectItemCaseSensitive(params, "initializationOptions")) < 0) {
		free_list(&s->roots, &s->nroots); /* the client may try again */
		send_error(s, id, SL_RPC_INVALID_PARAMS,
			   "initializationOptions: an object whose nodes and pods are paths (or lists of them) and "
			   "config a path");
		return;
	}
	cJSON *res = cJSON_CreateObject();
	cJSON_AddItemToObject(res, "capabilities", capabilities());
	cJSON *info = cJSON_AddObjectToObject(res, "serverInfo");
	cJSON_AddStringToObject(info, "name", "schedlint");
	cJSON_AddStringToObject(info, "version", SL_VERSION);
	send_response(s, id, res);
	s->state = SL_LSP_RUNNING;
}

static struct sl_lsp_doc *find_doc(const struct sl_lsp *s, const char *uri, size_t *at)
{
	for (size_t i = 0; i < s->ndocs; i++)
		if (!strcmp(s->docs[i]->uri, uri)) {
			if (at)
				*at = i;
			return s->docs[i];
		}
	return NULL;
}

static void set_text(struct sl_lsp *s, struct sl_lsp_doc *d, char *text, size_t len)
{
	free(d->text);
	d->text = text;
	d->len = len;
	if (d->path)
		sl_overlay_pin(&s->ov, d->path, text, len);
	s->dirty = true;
}

static void on_did_open(struct sl_lsp *s, const cJSON *params)
{
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	const char *uri = get_string(td, "uri"), *text = get_string(td, "text");
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(td, "version");
	if (!uri || !text) {
		sl_lsp_logf(s, 1, "schedlint: textDocument/didOpen without a textDocument's uri and text: ignored");
		return;
	}
	struct sl_lsp_doc *d = find_doc(s, uri, NULL);
	if (!d) {
		d = sl_xcalloc(1, sizeof *d);
		d->uri = sl_xstrdup(uri);
		char *path = sl_lsp_uri_path(uri);
		d->path = path ? canonical(path) : NULL;
		free(path);
		/* A client attached to every file sends Go and Markdown too: those are not manifests. */
		const char *lang = get_string(td, "languageId"), *dot = d->path ? strrchr(d->path, '.') : NULL;
		d->lint =
		    d->path && ((dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml") || !strcmp(dot, ".json"))) ||
				(lang && (!strcmp(lang, "yaml") || !strcmp(lang, "json"))));
		sl_grow(&s->docs, &s->capdocs, s->ndocs + 1, sizeof *s->docs);
		s->docs[s->ndocs++] = d;
	}
	d->version = cJSON_IsNumber(version) ? (long long)version->valuedouble : 0;
	set_text(s, d, sl_xstrdup(text), strlen(text));
}

/* One change: the whole text, or (from a client that sends ranges all the same) a range of it
 * replaced. -1 when its range is not in the text. */
static int apply_change(struct sl_lsp *s, struct sl_lsp_doc *d, const cJSON *ch)
{
	const char *text = get_string(ch, "text");
	const cJSON *range = cJSON_GetObjectItemCaseSensitive(ch, "range");
	if (!text)
		return -1;
	if (!range) {
		set_text(s, d, sl_xstrdup(text), strlen(text));
		return 0;
	}
	struct sl_lsp_pos a, b;
	struct sl_lsp_lines ls;
	size_t from, to;
	if (get_position(range, "start", &a) < 0 || get_position(range, "end", &b) < 0)
		return -1;
	sl_lsp_lines_build(&ls, d->text, d->len);
	int rc = sl_lsp_offset_of(&ls, d->text, d->len, a, &from) < 0 ||
			 sl_lsp_offset_of(&ls, d->text, d->len, b, &to) < 0 || from > to
		     ? -1
		     : 0;
	sl_lsp_lines_free(&ls);
	if (rc < 0)
		return -1;
	struct sl_buf nb = SL_BUF_INIT;
	sl_buf_add(&nb, d->text, from);
	sl_buf_puts(&nb, text);
	sl_buf_add(&nb, d->text + to, d->len - to);
	size_t len = nb.len;
	set_text(s, d, sl_buf_detach(&nb), len);
	return 0;
}

static void on_did_change(struct sl_lsp *s, const cJSON *params)
{
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(params, "contentChanges"), *ch;
	const char *uri = get_string(td, "uri");
	struct sl_lsp_doc *d = uri ? find_doc(s, uri, NULL) : NULL;
	if (!d || !cJSON_IsArray(changes)) {
		sl_lsp_logf(s, 1, "schedlint: textDocument/didChange for %s: %s", uri ? uri : "no document",
			    d ? "no contentChanges" : "not open");
		return;
	}
	const cJSON *version = cJSON_GetObjectItemCaseSensitive(td, "version");
	if (cJSON_IsNumber(version))
		d->version = (long long)version->valuedouble;
	cJSON_ArrayForEach(ch, changes)
	{
		if (apply_change(s, d, ch) < 0) {
			sl_lsp_logf(s, 1, "schedlint: textDocument/didChange for %s: a change out of the text: ignored",
				    uri);
			return;
		}
	}
}

static void on_did_close(struct sl_lsp *s, const cJSON *params)
{
	const char *uri = get_string(cJSON_GetObjectItemCaseSensitive(params, "textDocument"), "uri");
	size_t at;
	struct sl_lsp_doc *d = uri ? find_doc(s, uri, &at) : NULL;
	if (!d)
		return;
	sl_lsp_publish(s, d->uri, &d->published, d->version, NULL); /* its diagnostics go with it */
	if (d->path)
		sl_overlay_unpin(&s->ov, d->path);
	memmove(&s->docs[at], &s->docs[at + 1], (s->ndocs - at - 1) * sizeof *s->docs);
	s->ndocs--;
	free(d->uri);
	free(d->path);
	free(d->text);
	free(d->published);
	free(d);
	s->dirty = true; /* the file on disk stands for it again */
}

/* A file saved or changed on disk: what was cached of it is read again. */
static void forget_file(struct sl_lsp *s, const char *uri)
{
	char *path = uri ? sl_lsp_uri_path(uri) : NULL;
	if (!path)
		return;
	char *c = canonical(path);
	sl_overlay_drop(&s->ov, c);
	free(c);
	free(path);
	s->dirty = true;
}

static void on_did_save(struct sl_lsp *s, const cJSON *params)
{
	forget_file(s, get_string(cJSON_GetObjectItemCaseSensitive(params, "textDocument"), "uri"));
}

static void on_watched_files(struct sl_lsp *s, const cJSON *params)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(params, "changes"))
	{
		forget_file(s, get_string(c, "uri"));
	}
}

static void on_code_action(struct sl_lsp *s, const cJSON *id, const cJSON *params)
{
	const char *uri = get_string(cJSON_GetObjectItemCaseSensitive(params, "textDocument"), "uri");
	const cJSON *range = cJSON_GetObjectItemCaseSensitive(params, "range");
	const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(params, "context");
	struct sl_lsp_pos a, b;
	if (!uri || !cJSON_IsObject(range) || get_position(range, "start", &a) < 0 ||
	    get_position(range, "end", &b) < 0 || (ctx && !cJSON_IsObject(ctx))) {
		send_error(s, id, SL_RPC_INVALID_PARAMS,
			   "textDocument/codeAction: textDocument.uri, a range of positions (lines and characters "
			   "from 0) and a context are needed");
		return;
	}
	struct sl_lsp_doc *d = find_doc(s, uri, NULL);
	if (!d) {
		send_response(s, id, cJSON_CreateArray()); /* nothing linted there, nothing to fix */
		return;
	}
	struct sl_lsp_lines ls;
	sl_lsp_lines_build(&ls, d->text, d->len);
	size_t nlines = ls.n;
	sl_lsp_lines_free(&ls);
	if (a.line >= nlines || b.line >= nlines || b.line < a.line ||
	    (b.line == a.line && b.character < a.character)) {
		send_error(s, id, SL_RPC_INVALID_PARAMS,
			   "textDocument/codeAction: range %u:%u-%u:%u is not in %s (%zu lines)", a.line, a.character,
			   b.line, b.character, uri, nlines);
		return;
	}
	/* Only quick fixes are offered: a client asking for other kinds alone gets none. */
	const cJSON *only = ctx ? cJSON_GetObjectItemCaseSensitive(ctx, "only") : NULL, *k;
	bool quickfix = !cJSON_IsArray(only);
	cJSON_ArrayForEach(k, only)
	{
		quickfix |= cJSON_IsString(k) && (!strcmp(k->valuestring, "quickfix") || !*k->valuestring);
	}
	if (s->dirty)
		sl_lsp_lint(s, false); /* the answer is about the text as it is now */
	send_response(s, id, sl_lsp_code_actions(s, d, a, b, quickfix));
}

/* The methods served once initialized. A request's handler answers it; a notification's has no
 * answer to give. */
struct method {
	const char *name;
	void (*request)(struct sl_lsp *s, const cJSON *id, const cJSON *params);
	void (*notification)(struct sl_lsp *s, const cJSON *params);
};

static void on_shutdown(struct sl_lsp *s, const cJSON *id, const cJSON *params)
{
	(void)params;
	s->state = SL_LSP_SHUT_DOWN;
	send_response(s, id, NULL);
}

static void on_again(struct sl_lsp *s, const cJSON *id, const cJSON *params)
{
	(void)params;
	send_error(s, id, SL_RPC_INVALID_REQUEST, "initialize: the server is initialized already");
}

static void ignore(struct sl_lsp *s, const cJSON *params)
{
	(void)s;
	(void)params;
}

static const struct method methods[] = {
    {"initialize", on_again, NULL},
    {"initialized", NULL, ignore},
    {"shutdown", on_shutdown, NULL},
    {"textDocument/didOpen", NULL, on_did_open},
    {"textDocument/didChange", NULL, on_did_change},
    {"textDocument/didSave", NULL, on_did_save},
    {"textDocument/didClose", NULL, on_did_close},
    {"textDocument/codeAction", on_code_action, NULL},
    {"workspace/didChangeWatchedFiles", NULL, on_watched_files},
};

/* Before initialize only initialize and exit; after shutdown only exit. */
static void dispatch(struct sl_lsp *s, const char *method, const cJSON *id, const cJSON *params)
{
	bool request = id != NULL;
	if (!strcmp(method, "exit")) {
		s->exiting = true;
		return;
	}
	if (s->state == SL_LSP_NEW) {
		if (!strcmp(method, "initialize") && request)
			on_initialize(s, id, params);
		else if (request)
			send_error(s, id, SL_RPC_SERVER_NOT_INITIALIZED, "%s: the server is not initialized yet",
				   method);
		return;
	}
	if (s->state == SL_LSP_SHUT_DOWN) {
		if (request)
			send_error(s, id, SL_RPC_INVALID_REQUEST, "%s: the server is shut down", method);
		return;
	}
	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
		if (strcmp(method, methods[i].name))
			continue;
		if (request && methods[i].request)
			methods[i].request(s, id, params);
		else if (request)
			send_error(s, id, SL_RPC_INVALID_REQUEST, "%s is a notification, not a request", method);
		else if (methods[i].notification)
			methods[i].notification(s, params);
		return;
	}
	/* Unknown notifications, $/ ones included, are for servers that know them: ignored. */
	if (request)
		send_error(s, id, SL_RPC_METHOD_NOT_FOUND, "%s: no such method", method);
}

/* One message's JSON: a request, a notification, or the client's answer to a request of ours
 * (none is sent, so any answer is ignored). */
static void take_message(struct sl_lsp *s, const char *body, size_t len)
{
	cJSON *msg = cJSON_ParseWithLength(body, len);
	if (!msg) {
		send_error(s, NULL, SL_RPC_PARSE_ERROR, "the message is not JSON");
		return;
	}
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	bool id_ok = !id || cJSON_IsNumber(id) || cJSON_IsString(id) || cJSON_IsNull(id);
	const char *version = get_string(msg, "jsonrpc");
	if (!cJSON_IsObject(msg) || !id_ok || !version || strcmp(version, "2.0") ||
	    (!cJSON_IsString(method) &&
	     !(id && (cJSON_GetObjectItem(msg, "result") || cJSON_GetObjectItem(msg, "error"))))) {
		send_error(s, id_ok ? id : NULL, SL_RPC_INVALID_REQUEST,
			   "not a JSON-RPC 2.0 request or notification: an object with \"jsonrpc\": \"2.0\", a "
			   "\"method\" and, for a request, a number or string \"id\"");
	} else if (cJSON_IsString(method))
		dispatch(s, method->valuestring, id, cJSON_GetObjectItemCaseSensitive(msg, "params"));
	cJSON_Delete(msg);
}

/* Every message buffered whole, in order. */
static void take_messages(struct sl_lsp *s)
{
	struct sl_buf err = SL_BUF_INIT;
	const char *body;
	size_t len;
	int rc;
	/* Once a write has failed the client cannot hear us: what else it sent is not worth taking. */
	while (!s->exiting && !s->rpc.out_gone && (rc = sl_rpc_next(&s->rpc, &body, &len, &err)) != 0) {
		if (rc < 0)
			send_error(s, NULL, SL_RPC_PARSE_ERROR, "bad message framing: %s", err.s);
		else
			take_message(s, body, len);
	}
	sl_buf_free(&err);
}

static void free_server(struct sl_lsp *s)
{
	sl_lsp_lint_free(s);
	for (size_t i = 0; i < s->ndocs; i++) {
		free(s->docs[i]->uri);
		free(s->docs[i]->path);
		free(s->docs[i]->text);
		free(s->docs[i]->published);
		free(s->docs[i]);
	}
	free(s->docs);
	free_list(&s->roots, &s->nroots);
	free_list(&s->nodes, &s->nnodes);
	free_list(&s->pods, &s->npods);
	free(s->config_opt);
	sl_overlay_free(&s->ov);
	sl_parse_cache_free(&s->parsed);
	sl_rpc_free(&s->rpc);
}

int sl_lsp_serve(int in, int out)
{
	/* A client that goes away mid-write ends the server through a failed write, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	struct sl_lsp s;
	memset(&s, 0, sizeof s);
	sl_rpc_init(&s.rpc, in, out);
	s.out = (struct sl_lsp_out){.ctx = &s, .notify = notify, .log = log_line};
	sl_overlay_init(&s.ov);
	sl_parse_cache_init(&s.parsed);
	while (!s.exiting && !s.rpc.out_gone) {
		take_messages(&s);
		/* Whatever else has come is taken before linting: a change followed by more changes is
		 * never linted on its own. */
		int got = 0;
		while (!s.exiting && !s.rpc.out_gone && (got = sl_rpc_fill(&s.rpc, 0)) > 0)
			take_messages(&s);
		if (s.exiting || s.rpc.out_gone || got < 0)
			break; /* exit, or the client is gone */
		if (s.dirty && s.state == SL_LSP_RUNNING)
			sl_lsp_lint(&s, true);
		else if (sl_rpc_fill(&s.rpc, -1) < 0)
			break;
	}
	int rc = s.state == SL_LSP_SHUT_DOWN ? 0 : 1;
	free_server(&s);
	return rc;
}
