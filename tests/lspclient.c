/* lspclient — a scripted Language Server Protocol client for `schedlint lsp`, run by
 * tests/run-lsp.sh. It starts the server with pipes for stdin and stdout, speaks to it with its
 * own framing and position code (not the server's, so that a mistake in one is not hidden by
 * the same mistake in the other) and prints one line per check, "PASS what" or "FAIL what: why",
 * then figures as "figure: ..." lines. Exit status 1 when a check failed. The scenarios are in
 * lspclient_docs.c and lspclient_protocol.c.
 * Usage:
 *   lspclient SCHEDLINT compare WS FILE [NODES]   diagnostics of FILE (opened from WS, with NODES
 *                                                 through initializationOptions) against
 *                                                 `schedlint --format json [--nodes NODES] FILE`
 *   lspclient SCHEDLINT seed WS FIXED             the rollout-deadlock of WS/manifest.yaml: its
 *                                                 quick fix applied gives FIXED, and the
 *                                                 diagnostic goes once the buffer changes
 *   lspclient SCHEDLINT refresh WS                files changed on disk are read again
 *   lspclient SCHEDLINT config-error WS           a config with an error is reported at it
 *   lspclient SCHEDLINT protocol WS               errors, unknown methods, bad positions, and
 *                                                 the lifecycle's exit statuses
 *   lspclient SCHEDLINT edits WS N KB             N edits, a code action request after each:
 *                                                 the server's memory after the first tenth and
 *                                                 at the end, which may be at most KB more
 *   lspclient SCHEDLINT latency ROOT DOC NODES N  time from a change to its diagnostics,
 *                                                 ROOT the workspace, DOC (the seed's manifest)
 *                                                 open: every change's diagnostics published;
 *                                                 the times are printed, never asserted (they
 *                                                 are the machine's load as much as the server's)
 *   lspclient - json FILE...                      each FILE is one JSON document, all UTF-8
 *                                                 (tests/run-output.sh: the reports) */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lspclient.h"

int passed, failed;
const char *bin;

void check(bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s ", ok ? "PASS" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	ok ? passed++ : failed++;
}

void die(const char *what)
{
	printf("FAIL %s\n", what);
	exit(1);
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		die("out of memory");
	return d;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	size_t got;
	while (b && (got = fread(b + n, 1, cap - n - 1, f)) > 0)
		if ((n += got) + 1 == cap && !(b = realloc(b, cap *= 2)))
			break;
	fclose(f);
	if (!b)
		die("out of memory");
	b[n] = 0;
	if (len)
		*len = n;
	return b;
}

char *file_uri(const char *path)
{
	size_t n = strlen(path);
	char *u = malloc(3 * n + 8), *p = u;
	p += sprintf(p, "file://");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		p += strchr("-._~/", *c) || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9')
			 ? sprintf(p, "%c", *c)
			 : sprintf(p, "%%%02X", *c);
	return u;
}

struct server start(const char *cwd)
{
	int in[2], out[2];
	if (pipe(in) < 0 || pipe(out) < 0)
		die("pipe");
	struct server s = {0};
	s.pid = fork();
	if (s.pid < 0)
		die("fork");
	if (s.pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		if (cwd && chdir(cwd) < 0)
			_exit(126);
		execl(bin, bin, "lsp", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s.to = in[1];
	s.from = out[0];
	s.next_id = 1;
	return s;
}

void send_raw(struct server *s, const char *data, size_t n)
{
	while (n) {
		ssize_t w = write(s->to, data, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("write to the server");
		data += w;
		n -= (size_t)w;
	}
}

void send_msg(struct server *s, cJSON *m)
{
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	char *body = cJSON_PrintUnformatted(m);
	char head[64];
	int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", strlen(body));
	send_raw(s, head, (size_t)hn);
	send_raw(s, body, strlen(body));
	free(body);
	cJSON_Delete(m);
}

void notify(struct server *s, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	send_msg(s, m);
}

int request_async(struct server *s, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();
	int id = s->next_id++;
	cJSON_AddNumberToObject(m, "id", id);
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	send_msg(s, m);
	return id;
}

/* The next message, or NULL when none came in time or the stream is broken. */
cJSON *recv_msg(struct server *s, int timeout_ms)
{
	for (;;) {
		char *end = s->len ? strstr(s->buf, "\r\n\r\n") : NULL;
		size_t clen;
		if (end && sscanf(s->buf, "Content-Length: %zu", &clen) == 1) {
			size_t hlen = (size_t)(end + 4 - s->buf);
			if (s->len - hlen >= clen) {
				cJSON *m = cJSON_ParseWithLength(s->buf + hlen, clen);
				memmove(s->buf, s->buf + hlen + clen, s->len - hlen - clen);
				s->len -= hlen + clen;
				s->buf[s->len] = 0;
				if (!m)
					die("the server sent a message that is not JSON");
				return m;
			}
		} else if (end)
			die("the server sent a header without Content-Length");
		struct pollfd p = {s->from, POLLIN, 0};
		if (poll(&p, 1, timeout_ms) <= 0)
			return NULL;
		if (s->cap - s->len < 65537 && !(s->buf = realloc(s->buf, s->cap = 2 * s->cap + 65537)))
			die("out of memory");
		ssize_t got = read(s->from, s->buf + s->len, s->cap - s->len - 1);
		if (got <= 0)
			return NULL;
		s->len += (size_t)got;
		s->buf[s->len] = 0;
	}
}

bool is_response(const cJSON *m, int id)
{
	const cJSON *i = cJSON_GetObjectItem(m, "id");
	return !cJSON_GetObjectItem(m, "method") && cJSON_IsNumber(i) && i->valueint == id;
}

bool is_method(const cJSON *m, const char *method)
{
	const cJSON *v = cJSON_GetObjectItem(m, "method");
	return cJSON_IsString(v) && !strcmp(v->valuestring, method);
}

/* The response to id; *others counts the responses that came before it (none should). */
cJSON *response(struct server *s, int id, int *others)
{
	cJSON *m;
	while ((m = recv_msg(s, TIMEOUT_MS))) {
		if (is_response(m, id))
			return m;
		if (others && !cJSON_GetObjectItem(m, "method"))
			(*others)++;
		cJSON_Delete(m);
	}
	return NULL;
}

cJSON *request(struct server *s, const char *method, cJSON *params)
{
	return response(s, request_async(s, method, params), NULL);
}

/* The next response that answers no request of a number id (a framing error's, id null). */
cJSON *null_response(struct server *s)
{
	cJSON *m;
	while ((m = recv_msg(s, TIMEOUT_MS))) {
		if (!cJSON_GetObjectItem(m, "method") && cJSON_IsNull(cJSON_GetObjectItem(m, "id")))
			return m;
		cJSON_Delete(m);
	}
	return NULL;
}

int error_code(const cJSON *m)
{
	const cJSON *e = cJSON_GetObjectItem(m, "error");
	const cJSON *c = e ? cJSON_GetObjectItem(e, "code") : NULL;
	return cJSON_IsNumber(c) ? c->valueint : 0;
}

/* The diagnostics published next for uri (with the version when version >= 0). */
cJSON *diagnostics(struct server *s, const char *uri, int version)
{
	cJSON *m;
	while ((m = recv_msg(s, TIMEOUT_MS))) {
		const cJSON *p = cJSON_GetObjectItem(m, "params");
		const cJSON *u = p ? cJSON_GetObjectItem(p, "uri") : NULL,
			    *v = p ? cJSON_GetObjectItem(p, "version") : NULL;
		if (is_method(m, "textDocument/publishDiagnostics") && cJSON_IsString(u) &&
		    !strcmp(u->valuestring, uri) && (version < 0 || (cJSON_IsNumber(v) && v->valueint == version))) {
			cJSON *d = cJSON_DetachItemFromObject(cJSON_GetObjectItem(m, "params"), "diagnostics");
			cJSON_Delete(m);
			return d;
		}
		cJSON_Delete(m);
	}
	return NULL;
}

/* The exit status, or -1 when the server has not ended in time. */
int wait_exit(struct server *s, int timeout_ms)
{
	close(s->to);
	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		int st;
		pid_t r = waitpid(s->pid, &st, WNOHANG);
		if (r == s->pid) {
			close(s->from);
			free(s->buf);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		usleep(10000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	return -1;
}

cJSON *init_params(const char *root, const char *nodes)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "processId", getpid());
	char *uri = file_uri(root);
	cJSON_AddStringToObject(p, "rootUri", uri);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "uri", uri);
	cJSON_AddStringToObject(f, "name", "ws");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "workspaceFolders"), f);
	free(uri);
	cJSON_AddObjectToObject(p, "capabilities");
	if (nodes) {
		cJSON *o = cJSON_AddObjectToObject(p, "initializationOptions");
		cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "nodes"), cJSON_CreateString(nodes));
	}
	return p;
}

/* initialize and initialized; the server's capabilities checked once. */
void initialize(struct server *s, const char *root, const char *nodes, bool check_caps)
{
	cJSON *r = request(s, "initialize", init_params(root, nodes));
	if (!r || !cJSON_GetObjectItem(r, "result"))
		die("initialize: no result");
	if (check_caps) {
		const cJSON *caps = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "result"), "capabilities");
		const cJSON *sync = cJSON_GetObjectItem(caps, "textDocumentSync");
		const cJSON *change = cJSON_IsObject(sync) ? cJSON_GetObjectItem(sync, "change") : sync;
		check(cJSON_IsNumber(change) && change->valueint == 1, "initialize: full text sync");
		check(cJSON_GetObjectItem(caps, "codeActionProvider") != NULL, "initialize: code actions");
		const cJSON *enc = cJSON_GetObjectItem(caps, "positionEncoding");
		check(!enc || (cJSON_IsString(enc) && !strcmp(enc->valuestring, "utf-16")),
		      "initialize: UTF-16 positions");
	}
	cJSON_Delete(r);
	notify(s, "initialized", cJSON_CreateObject());
}

void open_doc(struct server *s, const char *uri, const char *text, int version)
{
	cJSON *p = cJSON_CreateObject();
	cJSON *td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", uri);
	cJSON_AddStringToObject(td, "languageId", "yaml");
	cJSON_AddNumberToObject(td, "version", version);
	cJSON_AddStringToObject(td, "text", text);
	notify(s, "textDocument/didOpen", p);
}

void change_doc(struct server *s, const char *uri, const char *text, int version)
{
	cJSON *p = cJSON_CreateObject();
	cJSON *td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", uri);
	cJSON_AddNumberToObject(td, "version", version);
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "contentChanges"), c);
	notify(s, "textDocument/didChange", p);
}

cJSON *code_actions(struct server *s, const char *uri, const cJSON *range, const cJSON *diag)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", uri);
	cJSON_AddItemToObject(p, "range", cJSON_Duplicate(range, 1));
	cJSON *ctx = cJSON_AddObjectToObject(p, "context");
	cJSON *ds = cJSON_AddArrayToObject(ctx, "diagnostics");
	if (diag)
		cJSON_AddItemToArray(ds, cJSON_Duplicate(diag, 1));
	return request(s, "textDocument/codeAction", p);
}

int num(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b);
	return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* The byte offset of an LSP position (UTF-16 units) in text: this client's own reading. */
size_t offset_of(const char *text, int line, int character)
{
	size_t i = 0, n = strlen(text);
	for (int l = 0; l < line && i < n; i++)
		if (text[i] == '\n' || (text[i] == '\r' && text[i + 1] != '\n'))
			l++;
	for (int u = 0; u < character && i < n && text[i] != '\n' && text[i] != '\r';) {
		unsigned char c = (unsigned char)text[i];
		size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		u += len == 4 ? 2 : 1;
		i += len;
	}
	return i;
}

/* The UTF-16 units of the first cols code points of line (0-based) of text. */
int units_of(const char *text, int line, int cols)
{
	size_t i = offset_of(text, line, 0);
	int u = 0;
	for (int c = 0; c < cols && text[i] && text[i] != '\n' && text[i] != '\r'; c++) {
		unsigned char b = (unsigned char)text[i];
		size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
		u += len == 4 ? 2 : 1;
		i += len;
	}
	return u;
}

/* The text edits of a WorkspaceEdit for uri applied to text, from the last to the first. */
char *apply_edits(const char *text, const cJSON *edits)
{
	int n = cJSON_GetArraySize(edits);
	size_t *from = calloc((size_t)n + 1, sizeof *from), *to = calloc((size_t)n + 1, sizeof *to);
	int *order = calloc((size_t)n + 1, sizeof *order);
	for (int i = 0; i < n; i++) {
		const cJSON *r = cJSON_GetObjectItem(cJSON_GetArrayItem(edits, i), "range");
		from[i] = offset_of(text, num(r, "start", "line"), num(r, "start", "character"));
		to[i] = offset_of(text, num(r, "end", "line"), num(r, "end", "character"));
		order[i] = i;
	}
	for (int i = 1; i < n; i++) /* by start, descending: each edit leaves the earlier offsets as they are */
		for (int j = i; j > 0 && from[order[j]] > from[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	char *cur = xstrdup(text);
	for (int k = 0; k < n; k++) {
		int i = order[k];
		const char *nt = cJSON_GetObjectItem(cJSON_GetArrayItem(edits, i), "newText")->valuestring;
		size_t len = strlen(cur), nl = strlen(nt);
		char *next = malloc(len - (to[i] - from[i]) + nl + 1);
		memcpy(next, cur, from[i]);
		memcpy(next + from[i], nt, nl);
		strcpy(next + from[i] + nl, cur + to[i]);
		free(cur);
		cur = next;
	}
	free(from);
	free(to);
	free(order);
	return cur;
}

char *join(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* Whether s (n bytes) is UTF-8: shortest forms, no surrogates, nothing above U+10FFFF. Written
 * here, not taken from the program, so that a mistake there is not repeated. */
static bool utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], len = c < 0x80                 ? 1
					 : c >= 0xC2 && c <= 0xDF ? 2
					 : c >= 0xE0 && c <= 0xEF ? 3
					 : c >= 0xF0 && c <= 0xF4 ? 4
								  : 0;
		if (!len || i + len > n)
			return false;
		unsigned long cp = len == 1 ? c : c & (0x7F >> len);
		for (unsigned k = 1; k < len; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += len;
	}
	return true;
}

/* Each file: one JSON document (nothing after it but white space), and UTF-8. */
static void json_files(char **files, int n)
{
	for (int i = 0; i < n; i++) {
		size_t len;
		char *text = read_file(files[i], &len);
		const char *end = NULL;
		cJSON *doc = text ? cJSON_ParseWithOpts(text, &end, true) : NULL;
		check(doc && strlen(text) == len, "json: %s parses", files[i]);
		check(text && utf8((const unsigned char *)text, len), "json: %s is UTF-8", files[i]);
		cJSON_Delete(doc);
		free(text);
	}
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: lspclient SCHEDLINT SCENARIO ARGS... (see tests/lspclient.c)\n");
		return 2;
	}
	bin = argv[1];
	const char *sc = argv[2];
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(sc, "compare") && argc >= 5)
		compare(argv[3], argv[4], argc > 5 ? argv[5] : NULL);
	else if (!strcmp(sc, "seed") && argc == 5)
		seed(argv[3], argv[4]);
	else if (!strcmp(sc, "refresh"))
		refresh(argv[3]);
	else if (!strcmp(sc, "config-error"))
		config_error(argv[3]);
	else if (!strcmp(sc, "protocol"))
		protocol(argv[3]);
	else if (!strcmp(sc, "edits") && argc == 6)
		edits(argv[3], atoi(argv[4]), atol(argv[5]));
	else if (!strcmp(sc, "json"))
		json_files(argv + 3, argc - 3);
	else if (!strcmp(sc, "incremental") && argc == 5)
		incremental(argv[3], argv[4]);
	else if (!strcmp(sc, "latency") && argc == 7)
		latency(argv[3], argv[4], argv[5], atoi(argv[6]));
	else {
		fprintf(stderr, "lspclient: unknown scenario or arguments\n");
		return 2;
	}
	return failed ? 1 : 0;
}
