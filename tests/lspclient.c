/* lspclient — a scripted Language Server Protocol client for `schedlint lsp`, run by
 * tests/run-lsp.sh. It starts the server with pipes for stdin and stdout, speaks to it with its
 * own framing and position code (not the server's, so that a mistake in one is not hidden by
 * the same mistake in the other) and prints one line per check, "PASS what" or "FAIL what: why",
 * then figures as "figure: ..." lines. Exit status 1 when a check failed.
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
 *   lspclient SCHEDLINT latency ROOT DOC NODES N MS   time from a change to its diagnostics,
 *                                                 ROOT the workspace, DOC (the seed's manifest)
 *                                                 open: the median must be under MS */
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

/* Generous: the server runs under the sanitizers. */
#define TIMEOUT_MS 30000

static int passed, failed;
static const char *bin;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
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

static void die(const char *what)
{
	printf("FAIL %s\n", what);
	exit(1);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		die("out of memory");
	return d;
}

static char *read_file(const char *path, size_t *len)
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

static char *file_uri(const char *path)
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

/* The server, and what it sent that was not taken yet. */
struct server {
	pid_t pid;
	int to, from;
	char *buf;
	size_t len, cap;
	int next_id;
};

static struct server start(const char *cwd)
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

static void send_raw(struct server *s, const char *data, size_t n)
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

static void send_msg(struct server *s, cJSON *m)
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

static void notify(struct server *s, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	send_msg(s, m);
}

static int request_async(struct server *s, const char *method, cJSON *params)
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
static cJSON *recv_msg(struct server *s, int timeout_ms)
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

static bool is_response(const cJSON *m, int id)
{
	const cJSON *i = cJSON_GetObjectItem(m, "id");
	return !cJSON_GetObjectItem(m, "method") && cJSON_IsNumber(i) && i->valueint == id;
}

static bool is_method(const cJSON *m, const char *method)
{
	const cJSON *v = cJSON_GetObjectItem(m, "method");
	return cJSON_IsString(v) && !strcmp(v->valuestring, method);
}

/* The response to id; *others counts the responses that came before it (none should). */
static cJSON *response(struct server *s, int id, int *others)
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

static cJSON *request(struct server *s, const char *method, cJSON *params)
{
	return response(s, request_async(s, method, params), NULL);
}

/* The next response that answers no request of a number id (a framing error's, id null). */
static cJSON *null_response(struct server *s)
{
	cJSON *m;
	while ((m = recv_msg(s, TIMEOUT_MS))) {
		if (!cJSON_GetObjectItem(m, "method") && cJSON_IsNull(cJSON_GetObjectItem(m, "id")))
			return m;
		cJSON_Delete(m);
	}
	return NULL;
}

static int error_code(const cJSON *m)
{
	const cJSON *e = cJSON_GetObjectItem(m, "error");
	const cJSON *c = e ? cJSON_GetObjectItem(e, "code") : NULL;
	return cJSON_IsNumber(c) ? c->valueint : 0;
}

/* The diagnostics published next for uri (with the version when version >= 0). */
static cJSON *diagnostics(struct server *s, const char *uri, int version)
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
static int wait_exit(struct server *s, int timeout_ms)
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

static cJSON *init_params(const char *root, const char *nodes)
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
static void initialize(struct server *s, const char *root, const char *nodes, bool check_caps)
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

static void open_doc(struct server *s, const char *uri, const char *text, int version)
{
	cJSON *p = cJSON_CreateObject();
	cJSON *td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", uri);
	cJSON_AddStringToObject(td, "languageId", "yaml");
	cJSON_AddNumberToObject(td, "version", version);
	cJSON_AddStringToObject(td, "text", text);
	notify(s, "textDocument/didOpen", p);
}

static void change_doc(struct server *s, const char *uri, const char *text, int version)
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

static cJSON *code_actions(struct server *s, const char *uri, const cJSON *range, const cJSON *diag)
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

static int num(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b);
	return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* The byte offset of an LSP position (UTF-16 units) in text: this client's own reading. */
static size_t offset_of(const char *text, int line, int character)
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
static int units_of(const char *text, int line, int cols)
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
static char *apply_edits(const char *text, const cJSON *edits)
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

static char *join(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* What `schedlint --format json` says of file, run in ws. */
static cJSON *cli_json(const char *ws, const char *file, const char *nodes)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' --format json %s%s%s '%s' 2>/dev/null", ws, bin,
		 nodes ? "--nodes '" : "", nodes ? nodes : "", nodes ? "'" : "", file);
	FILE *p = popen(cmd, "r");
	if (!p)
		die("popen");
	size_t cap = 1 << 16, n = 0, got;
	char *b = malloc(cap);
	while ((got = fread(b + n, 1, cap - n - 1, p)) > 0)
		if ((n += got) + 1 == cap)
			b = realloc(b, cap *= 2);
	b[n] = 0;
	pclose(p);
	cJSON *j = cJSON_Parse(b);
	free(b);
	if (!j)
		die("schedlint --format json: not JSON");
	return j;
}

static int severity_of(const char *level)
{
	return !strcmp(level, "error") ? 1 : !strcmp(level, "warning") ? 2 : 3;
}

/* One entry of the command line's report among the diagnostics: same start, end, severity and
 * code, the positions turned from code points into UTF-16 units on the text's own lines. The
 * report's notices (about the input, not errors) do not say whether they are warnings or notes. */
static bool found_in(const cJSON *diags, const cJSON *e, const char *text, bool notice)
{
	const cJSON *rule = cJSON_GetObjectItem(e, "rule"), *level = cJSON_GetObjectItem(e, "level");
	int line = cJSON_GetObjectItem(e, "line")->valueint - 1, col = cJSON_GetObjectItem(e, "column")->valueint - 1;
	int eline = cJSON_GetObjectItem(e, "endLine")->valueint - 1,
	    ecol = cJSON_GetObjectItem(e, "endColumn")->valueint - 1;
	int sev = level ? severity_of(level->valuestring) : notice ? 2 : 1;
	const cJSON *d;
	cJSON_ArrayForEach(d, diags)
	{
		const cJSON *r = cJSON_GetObjectItem(d, "range"), *code = cJSON_GetObjectItem(d, "code");
		bool same_code = rule ? cJSON_IsString(code) && !strcmp(code->valuestring, rule->valuestring) : !code;
		if (same_code && num(r, "start", "line") == line &&
		    num(r, "start", "character") == units_of(text, line, col) && num(r, "end", "line") == eline &&
		    num(r, "end", "character") == units_of(text, eline, ecol) &&
		    (cJSON_GetObjectItem(d, "severity")->valueint == sev ||
		     (notice && cJSON_GetObjectItem(d, "severity")->valueint == 3)))
			return true;
	}
	return false;
}

static int compare(const char *ws, const char *file, const char *nodes)
{
	char *path = join(ws, file), *uri = file_uri(path);
	char *text = read_file(path, NULL);
	if (!text)
		die("read the file");
	cJSON *cli = cli_json(ws, file, nodes);
	struct server s = start(NULL);
	initialize(&s, ws, nodes, false);
	open_doc(&s, uri, text, 1);
	cJSON *diags = strcmp(file, "-") ? diagnostics(&s, uri, 1) : NULL;
	int want = 0, have = cJSON_GetArraySize(diags);
	const char *groups[] = {"findings", "errors", "notices"};
	for (int g = 0; g < 3; g++) {
		const cJSON *e;
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(cli, groups[g]))
		{
			const cJSON *f = cJSON_GetObjectItem(e, "file"), *sup = cJSON_GetObjectItem(e, "suppressed");
			if (strcmp(f->valuestring, file) || cJSON_IsTrue(sup))
				continue;
			want++;
			check(found_in(diags, e, text, g == 2), "%s: %s at %d:%d, as the command line says", file,
			      cJSON_GetObjectItem(e, "rule") ? cJSON_GetObjectItem(e, "rule")->valuestring
			      : g == 1                       ? "input error"
							     : "note on the input",
			      cJSON_GetObjectItem(e, "line")->valueint, cJSON_GetObjectItem(e, "column")->valueint);
		}
	}
	check(want == have, "%s: %d diagnostics, as the command line reports %d", file, have, want);
	cJSON *r = request(&s, "shutdown", NULL);
	cJSON_Delete(r);
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "%s: exit status 0 after shutdown", file);
	cJSON_Delete(diags);
	cJSON_Delete(cli);
	free(text);
	free(uri);
	free(path);
	return 0;
}

/* The rollout-deadlock of the seed: at the range the command line gives, with its rule's page
 * and what the proof used; its preferred quick fix is the command line's --fix; once applied,
 * the diagnostic goes. */
static int seed(const char *ws, const char *fixed_path)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path);
	char *nodes_path = join(ws, "nodes.yaml"), *nodes_uri = file_uri(nodes_path);
	char *text = read_file(path, NULL), *fixed = read_file(fixed_path, NULL);
	if (!text || !fixed)
		die("read the seed");
	struct server s = start(NULL);
	initialize(&s, ws, "nodes.yaml", true);
	open_doc(&s, uri, text, 1);
	cJSON *diags = diagnostics(&s, uri, 1);
	check(cJSON_GetArraySize(diags) == 1, "seed: one diagnostic (%d)", cJSON_GetArraySize(diags));
	cJSON *d = cJSON_GetArrayItem(diags, 0);
	const cJSON *code = cJSON_GetObjectItem(d, "code"), *r = cJSON_GetObjectItem(d, "range");
	const cJSON *href = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "codeDescription"), "href");
	const cJSON *rel = cJSON_GetObjectItem(d, "relatedInformation"), *ri;
	check(cJSON_IsString(code) && !strcmp(code->valuestring, "rollout-deadlock"), "seed: code rollout-deadlock");
	check(cJSON_IsNumber(cJSON_GetObjectItem(d, "severity")) && cJSON_GetObjectItem(d, "severity")->valueint == 1,
	      "seed: severity Error");
	check(num(r, "start", "line") == 10 && num(r, "start", "character") == 0,
	      "seed: starts at 10:0 (manifest.yaml:11:1)");
	check(cJSON_IsString(href) && strstr(href->valuestring, "/docs/rules/rollout-deadlock.md"),
	      "seed: codeDescription.href is the rule's page");
	bool on_node = false;
	cJSON_ArrayForEach(ri, rel)
	{
		const cJSON *loc = cJSON_GetObjectItem(ri, "location");
		const cJSON *u = cJSON_GetObjectItem(loc, "uri");
		on_node |= cJSON_IsString(u) && !strcmp(u->valuestring, nodes_uri) &&
			   num(cJSON_GetObjectItem(loc, "range"), "start", "line") == 11;
	}
	check(on_node, "seed: related information at the node in nodes.yaml:12");
	cJSON *ca = code_actions(&s, uri, r, d);
	cJSON *actions = cJSON_GetObjectItem(ca, "result"), *a;
	check(cJSON_GetArraySize(actions) >= 2, "seed: a quick fix for each fix (%d)", cJSON_GetArraySize(actions));
	int preferred = 0, first_preferred = 0, quickfix = 0;
	cJSON_ArrayForEach(a, actions)
	{
		preferred += cJSON_IsTrue(cJSON_GetObjectItem(a, "isPreferred"));
		quickfix += !strcmp(cJSON_GetObjectItem(a, "kind")->valuestring, "quickfix");
	}
	first_preferred = cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(actions, 0), "isPreferred"));
	check(preferred == 1 && first_preferred, "seed: the first fix, and only it, is preferred");
	check(quickfix == cJSON_GetArraySize(actions), "seed: every action is a quickfix");
	const cJSON *edits = cJSON_GetObjectItem(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(actions, 0), "edit"), "changes"), uri);
	check(cJSON_GetArraySize(edits) > 0, "seed: the preferred fix edits the manifest");
	char *applied = apply_edits(text, edits);
	check(!strcmp(applied, fixed), "seed: the preferred fix gives what schedlint --fix writes");
	change_doc(&s, uri, applied, 2);
	cJSON *after = diagnostics(&s, uri, 2);
	check(after && cJSON_GetArraySize(after) == 0, "seed: fixed, the diagnostic goes (an empty list published)");
	cJSON *ca2 = code_actions(&s, uri, r, NULL);
	check(cJSON_GetArraySize(cJSON_GetObjectItem(ca2, "result")) == 0, "seed: fixed, no quick fix is offered");
	change_doc(&s, uri, text, 3);
	cJSON *again = diagnostics(&s, uri, 3);
	check(cJSON_GetArraySize(again) == 1, "seed: undone, it comes back");
	cJSON *rs = request(&s, "shutdown", NULL);
	check(rs && cJSON_IsNull(cJSON_GetObjectItem(rs, "result")), "seed: shutdown answers null");
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "seed: exit status 0 after shutdown");
	cJSON_Delete(rs);
	cJSON_Delete(again);
	cJSON_Delete(ca2);
	cJSON_Delete(after);
	free(applied);
	cJSON_Delete(ca);
	cJSON_Delete(diags);
	free(text);
	free(fixed);
	free(uri);
	free(path);
	free(nodes_uri);
	free(nodes_path);
	return 0;
}

/* A config with an error: the error is published at the config file, and nothing is linted. */
static int config_error(const char *ws)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path);
	char *cpath = join(ws, ".schedlint.yaml"), *curi = file_uri(cpath);
	char *text = read_file(path, NULL);
	struct server s = start(NULL);
	initialize(&s, ws, NULL, false);
	open_doc(&s, uri, text, 1);
	cJSON *diags = diagnostics(&s, curi, -1);
	check(cJSON_GetArraySize(diags) >= 1, "config-error: the error is published at .schedlint.yaml");
	const cJSON *d = cJSON_GetArrayItem(diags, 0);
	check(d && !cJSON_GetObjectItem(d, "code") && cJSON_GetObjectItem(d, "severity")->valueint == 1,
	      "config-error: as an error without a rule");
	cJSON *r = request(&s, "shutdown", NULL);
	check(r != NULL, "config-error: the server still serves");
	cJSON_Delete(r);
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "config-error: exit status 0");
	cJSON_Delete(diags);
	free(text);
	free(uri);
	free(path);
	free(curi);
	free(cpath);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	usleep(20000); /* file times tick with the kernel's coarse clock: let the next tick come */
	FILE *f = fopen(path, "wb");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die("write a file");
}

/* The workspace's files as they change on disk: the node inventory given two GPUs (the same
 * size: only the modification time tells), announced by workspace/didChangeWatchedFiles, ends
 * the deadlock; put back, unannounced, it is read again all the same at the next run (a save of
 * the manifest). */
static int refresh(const char *ws)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path), *text = read_file(path, NULL);
	char *npath = join(ws, "nodes.yaml"), *nuri = file_uri(npath), *nodes = read_file(npath, NULL);
	char *more = xstrdup(nodes), *at;
	for (int k = 0; k < 2 && (at = strstr(more, "nvidia.com/gpu: \"1\"")); k++)
		at[17] = '2';
	struct server s = start(NULL);
	initialize(&s, ws, "nodes.yaml", false);
	open_doc(&s, uri, text, 1);
	cJSON *d = diagnostics(&s, uri, 1);
	check(cJSON_GetArraySize(d) == 1, "refresh: the deadlock with one GPU");
	cJSON_Delete(d);
	write_file(npath, more);
	cJSON *p = cJSON_CreateObject(), *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", nuri);
	cJSON_AddNumberToObject(c, "type", 2);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "changes"), c);
	notify(&s, "workspace/didChangeWatchedFiles", p);
	d = diagnostics(&s, uri, 1);
	check(d && cJSON_GetArraySize(d) == 0, "refresh: two GPUs on disk, announced: the deadlock goes");
	cJSON_Delete(d);
	write_file(npath, nodes);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", uri);
	notify(&s, "textDocument/didSave", p);
	d = diagnostics(&s, uri, 1);
	check(cJSON_GetArraySize(d) == 1, "refresh: one GPU again, unannounced: read again at the next run");
	cJSON_Delete(d);
	cJSON_Delete(request(&s, "shutdown", NULL));
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "refresh: exit status 0");
	free(more);
	free(nodes);
	free(nuri);
	free(npath);
	free(text);
	free(uri);
	free(path);
	return 0;
}

static void raw_framed(struct server *s, const char *body)
{
	char head[64];
	int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", strlen(body));
	send_raw(s, head, (size_t)hn);
	send_raw(s, body, strlen(body));
}

/* Bytes that are not a message: a ParseError (or InvalidRequest) answering no request, and the
 * server goes on: the request after them is answered, and nothing else is. */
static void bad_bytes(struct server *s, const char *what, const char *raw, bool framed, int code)
{
	if (framed)
		raw_framed(s, raw);
	else
		send_raw(s, raw, strlen(raw));
	int id = request_async(s, "schedlint/no-such-method", NULL), others = 0;
	cJSON *e = null_response(s);
	check(e && error_code(e) == code, "protocol: %s: error %d (got %d)", what, code, e ? error_code(e) : 0);
	cJSON *r = response(s, id, &others);
	check(r && error_code(r) == -32601 && others == 0, "protocol: after %s, the next request is answered", what);
	cJSON_Delete(e);
	cJSON_Delete(r);
}

static void expect_error(struct server *s, int id, int code, const char *what)
{
	cJSON *r = response(s, id, NULL);
	check(r && error_code(r) == code, "protocol: %s: error %d (got %d)", what, code, r ? error_code(r) : 0);
	cJSON_Delete(r);
}

static cJSON *range_json(double l0, double c0, double l1, double c1)
{
	cJSON *r = cJSON_CreateObject(), *a = cJSON_AddObjectToObject(r, "start"),
	      *b = cJSON_AddObjectToObject(r, "end");
	cJSON_AddNumberToObject(a, "line", l0);
	cJSON_AddNumberToObject(a, "character", c0);
	cJSON_AddNumberToObject(b, "line", l1);
	cJSON_AddNumberToObject(b, "character", c1);
	return r;
}

static void code_action_error(struct server *s, const char *uri, cJSON *range, const char *what)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", uri);
	cJSON_AddItemToObject(p, "range", range);
	cJSON_AddArrayToObject(cJSON_AddObjectToObject(p, "context"), "diagnostics");
	expect_error(s, request_async(s, "textDocument/codeAction", p), -32602, what);
}

static void before_initialize(struct server *s)
{
	expect_error(s, request_async(s, "textDocument/codeAction", cJSON_CreateObject()), -32002,
		     "a request before initialize");
	open_doc(s, "file:///nowhere.yaml", "kind: Pod\n", 1); /* a notification: dropped */
	expect_error(s, request_async(s, "shutdown", NULL), -32002, "shutdown before initialize");
}

static void framing_errors(struct server *s)
{
	bad_bytes(s, "a Content-Length that is not a number", "Content-Length: abc\r\n\r\n", false, -32700);
	bad_bytes(s, "a body that is not JSON", "{oops", true, -32700);
	bad_bytes(s, "a header without Content-Length", "Content-Type: application/vscode-jsonrpc\r\n\r\n", false,
		  -32700);
	bad_bytes(s, "a message with no header at all", "{\"jsonrpc\":\"2.0\",\"id\":5000,\"method\":\"x\"}", false,
		  -32700);
	bad_bytes(s, "a Content-Length past any message", "Content-Length: 99999999999999\r\n\r\n", false, -32700);
	bad_bytes(s, "a header line that is not one", "Content-Length: 2\r\nnonsense\r\n\r\n{}", false, -32700);
	bad_bytes(s, "a JSON array", "[1,2]", true, -32600);
	bad_bytes(s, "an id that is an object", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}", true, -32600);
	raw_framed(s, "{\"jsonrpc\":\"2.0\",\"id\":777}");
	expect_error(s, 777, -32600, "a request without a method");
	raw_framed(s, "{\"jsonrpc\":\"1.0\",\"id\":778,\"method\":\"shutdown\"}");
	expect_error(s, 778, -32600, "JSON-RPC 1.0");
}

static void methods(struct server *s)
{
	expect_error(s, request_async(s, "initialize", init_params("/", NULL)), -32600, "initialize twice");
	expect_error(s, request_async(s, "workspace/noSuchThing", cJSON_CreateObject()), -32601, "an unknown request");
	expect_error(s, request_async(s, "$/noSuchThing", NULL), -32601, "an unknown $/ request");
	expect_error(s, request_async(s, "initialized", NULL), -32600, "a notification sent as a request");
	cJSON *c = cJSON_CreateObject();
	cJSON_AddNumberToObject(c, "id", 1);
	notify(s, "$/cancelRequest", c);
	notify(s, "$/setTrace", cJSON_CreateObject());
	notify(s, "workspace/noSuchNotification", cJSON_CreateObject());
	change_doc(s, "file:///not/open.yaml", "kind: Pod\n", 2);
	notify(s, "textDocument/didOpen", cJSON_CreateString("not an object"));
	int id = request_async(s, "schedlint/no-such-method", NULL), others = 0;
	cJSON *r = response(s, id, &others);
	check(r && others == 0, "protocol: unknown notifications and ones with bad params get no answer");
	cJSON_Delete(r);
}

static void positions(struct server *s, const char *ws)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path), *text = read_file(path, NULL);
	open_doc(s, uri, text, 1);
	cJSON *d = diagnostics(s, uri, 1);
	check(cJSON_GetArraySize(d) == 1, "protocol: the seed is linted");
	code_action_error(s, uri, range_json(100000, 0, 100000, 0), "a line past the end");
	code_action_error(s, uri, range_json(10, -1, 10, 0), "a negative character");
	code_action_error(s, uri, range_json(10, 0.5, 10, 1), "a character that is not a whole number");
	code_action_error(s, uri, range_json(11, 0, 10, 0), "a range that ends before it starts");
	code_action_error(s, uri, range_json(1e300, 0, 1e300, 0), "a line beyond any integer");
	expect_error(s, request_async(s, "textDocument/codeAction", NULL), -32602, "code actions without params");
	cJSON *far = range_json(10, 100000, 10, 100000);
	cJSON *r = code_actions(s, uri, far, NULL);
	check(r && cJSON_IsArray(cJSON_GetObjectItem(r, "result")),
	      "protocol: a character past the end of its line is the line's end (no error)");
	cJSON_Delete(r);
	cJSON_Delete(far);
	cJSON *whole = range_json(0, 0, 10, 2);
	r = code_actions(s, "file:///not/open.yaml", whole, NULL);
	check(r && cJSON_GetArraySize(cJSON_GetObjectItem(r, "result")) == 0,
	      "protocol: code actions for a document not open: none");
	cJSON_Delete(r);
	r = code_actions(s, uri, whole, NULL);
	check(r && cJSON_GetArraySize(cJSON_GetObjectItem(r, "result")) >= 1,
	      "protocol: after all of it, the server still offers the fix");
	cJSON_Delete(r);
	cJSON_Delete(whole);
	cJSON_Delete(d);
	free(text);
	free(uri);
	free(path);
}

/* Exit statuses: 0 after shutdown, 1 without, also when the input ends. */
static void lifecycle(const char *ws)
{
	struct server s = start(NULL);
	initialize(&s, ws, NULL, false);
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 1, "protocol: exit without shutdown: status 1");
	s = start(NULL);
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 1, "protocol: exit before initialize: status 1");
	s = start(NULL);
	initialize(&s, ws, NULL, false);
	cJSON_Delete(request(&s, "shutdown", NULL));
	check(wait_exit(&s, TIMEOUT_MS) == 0, "protocol: the input ends after shutdown: status 0");
	s = start(NULL);
	initialize(&s, ws, NULL, false);
	send_raw(&s, "Content-Length: 100\r\n\r\n{\"jsonrpc\"", 33);
	check(wait_exit(&s, TIMEOUT_MS) == 1, "protocol: the input ends mid-message without shutdown: status 1");
}

static int protocol(const char *ws)
{
	struct server s = start(NULL);
	before_initialize(&s);
	initialize(&s, ws, "nodes.yaml", false);
	framing_errors(&s);
	methods(&s);
	positions(&s, ws);
	cJSON *r = request(&s, "shutdown", NULL);
	check(r && cJSON_IsNull(cJSON_GetObjectItem(r, "result")), "protocol: shutdown answers null");
	cJSON_Delete(r);
	expect_error(&s, request_async(&s, "textDocument/codeAction", cJSON_CreateObject()), -32600,
		     "a request after shutdown");
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "protocol: exit after shutdown: status 0");
	lifecycle(ws);
	return 0;
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* The seed's manifest opened, and the text its preferred quick fix gives. */
static char *open_seed(struct server *s, const char *uri, const char *text)
{
	open_doc(s, uri, text, 1);
	cJSON *d = diagnostics(s, uri, 1);
	if (cJSON_GetArraySize(d) != 1)
		die("the seed's diagnostic");
	cJSON *ca = code_actions(s, uri, cJSON_GetObjectItem(cJSON_GetArrayItem(d, 0), "range"), NULL);
	const cJSON *edits = cJSON_GetObjectItem(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(ca, "result"), 0), "edit"),
				"changes"),
	    uri);
	if (!edits)
		die("the seed's quick fix");
	char *fixed = apply_edits(text, edits);
	cJSON_Delete(ca);
	cJSON_Delete(d);
	return fixed;
}

/* n changes, each followed by a code action request, which the server answers from a run over
 * the text as changed: a fix offered for the seed's text, none for the fixed one. Then a burst of
 * changes sent at once: the server lints the last, not each. */
static int edits(const char *ws, int n, long slack_kb)
{
	char *path = join(ws, "manifest.yaml"), *uri = file_uri(path), *text = read_file(path, NULL);
	struct server s = start(NULL);
	initialize(&s, ws, "nodes.yaml", false);
	char *fixed = open_seed(&s, uri, text);
	cJSON *at = range_json(10, 0, 10, 4);
	long rss0 = 0, peak = 0;
	int wrong = 0, version = 1;
	for (int i = 1; i <= n; i++) {
		bool deadlocked = i % 2 == 0;
		change_doc(&s, uri, deadlocked ? text : fixed, ++version);
		cJSON *r = code_actions(&s, uri, at, NULL);
		int k = r ? cJSON_GetArraySize(cJSON_GetObjectItem(r, "result")) : -1;
		wrong += !r || (deadlocked ? k < 1 : k != 0);
		cJSON_Delete(r);
		long kb = rss_kb(s.pid);
		if (i == n / 10)
			rss0 = kb;
		peak = kb > peak ? kb : peak;
		if (i % (n / 10 ? n / 10 : 1) == 0)
			printf("progress: lsp: %d/%d edits, server RSS %ld kB\n", i, n, kb), fflush(stdout);
	}
	long rss1 = rss_kb(s.pid);
	check(wrong == 0, "edits: %d changes, each answered from the text as changed (%d wrong)", n, wrong);
	printf("figure: RSS after %d edits %ld kB, after %d edits %ld kB, peak %ld kB\n", n / 10, rss0, n, rss1, peak);
	/* The heap settles within the first tenth; after that it must not keep growing. */
	check(rss1 <= rss0 + slack_kb, "edits: no growth from edit %d to %d (%ld kB to %ld kB, %ld kB allowed)", n / 10,
	      n, rss0, rss1, slack_kb);
	int burst = 50, published = 0, last = version + burst;
	for (int i = 1; i <= burst; i++)
		change_doc(&s, uri, i % 2 ? text : fixed, ++version);
	cJSON *m;
	while ((m = recv_msg(&s, TIMEOUT_MS))) {
		bool pub = is_method(m, "textDocument/publishDiagnostics");
		const cJSON *v = pub ? cJSON_GetObjectItem(cJSON_GetObjectItem(m, "params"), "version") : NULL;
		published += pub;
		bool done = v && v->valueint == last;
		cJSON_Delete(m);
		if (done)
			break;
	}
	check(published > 0 && published < burst / 2, "edits: %d changes at once, %d publications (stale runs skipped)",
	      burst, published);
	cJSON_Delete(request(&s, "shutdown", NULL));
	notify(&s, "exit", NULL);
	int rc = wait_exit(&s, TIMEOUT_MS);
	check(rc == 0, "edits: exit status 0 (no leak, no sanitizer report: %d)", rc);
	cJSON_Delete(at);
	free(fixed);
	free(text);
	free(uri);
	free(path);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The time from a change to its diagnostics, n times, with root as the workspace. */
static int latency(const char *root, const char *doc, const char *nodes, int n, double bound)
{
	char *uri = file_uri(doc), *text = read_file(doc, NULL);
	struct server s = start(NULL);
	initialize(&s, root, nodes, false);
	double t0 = now_ms();
	char *fixed = open_seed(&s, uri, text);
	double first = now_ms() - t0;
	double *ms = calloc((size_t)n + 1, sizeof *ms);
	int version = 1, lost = 0;
	for (int i = 0; i < n; i++) {
		t0 = now_ms();
		change_doc(&s, uri, i % 2 ? text : fixed, ++version);
		cJSON *d = diagnostics(&s, uri, version);
		ms[i] = now_ms() - t0;
		lost += !d || cJSON_GetArraySize(d) != (i % 2);
		cJSON_Delete(d);
	}
	qsort(ms, (size_t)n, sizeof *ms, cmp_double);
	double median = ms[n / 2], p90 = ms[n * 9 / 10], max = ms[n - 1];
	printf("figure: latency over %s: open and first run %.0f ms; a change to its diagnostics: median %.1f ms, "
	       "90%% %.1f ms, max %.1f ms (%d changes)\n",
	       root, first, median, p90, max, n);
	check(lost == 0, "latency: every change's diagnostics published (%d missing or wrong)", lost);
	check(median < bound, "latency: median %.1f ms under %.0f ms", median, bound);
	cJSON_Delete(request(&s, "shutdown", NULL));
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "latency: exit status 0");
	free(ms);
	free(fixed);
	free(text);
	free(uri);
	return 0;
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
	else if (!strcmp(sc, "latency") && argc == 8)
		latency(argv[3], argv[4], argv[5], atoi(argv[6]), atof(argv[7]));
	else {
		fprintf(stderr, "lspclient: unknown scenario or arguments\n");
		return 2;
	}
	return failed ? 1 : 0;
}
