/* lspclient_protocol.c — the scripted client's scenarios about the protocol and the server's
 * health: errors for bad messages and positions and the lifecycle's exit statuses (protocol),
 * thousands of edits with the server's memory watched (edits), and the time from a change to
 * its diagnostics (latency). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lspclient.h"

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

int protocol(const char *ws)
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
int edits(const char *ws, int n, long slack_kb)
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

/* Changes 5 ms apart, each sooner than a run over the workspace takes: the runs they interrupt
 * are cancelled (the server logs each), and nothing is published for a version older than one
 * already published. A code action request after them is answered once the text as it is then
 * has been linted: by then the diagnostics last published are the last change's (none). version
 * is the last one sent; the buffer reads as text (one diagnostic) at it. */
static void burst(struct server *s, const char *uri, const char *text, const char *fixed, int *version)
{
	enum { CHANGES = 11 }; /* odd: the last is the fixed text, whose diagnostics differ */
	for (int i = 0; i < CHANGES; i++) {
		change_doc(s, uri, i % 2 ? text : fixed, ++*version);
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	}
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"), "uri", uri);
	cJSON_AddItemToObject(p, "range", range_json(0, 0, 0, 0));
	cJSON_AddArrayToObject(cJSON_AddObjectToObject(p, "context"), "diagnostics");
	int id = request_async(s, "textDocument/codeAction", p);
	int cancelled = 0, published = 0, newest = 0, backwards = 0, last = -1;
	cJSON *m;
	while ((m = recv_msg(s, TIMEOUT_MS)) && !is_response(m, id)) {
		const cJSON *mp = cJSON_GetObjectItem(m, "params");
		const cJSON *msg = mp ? cJSON_GetObjectItem(mp, "message") : NULL,
			    *v = mp ? cJSON_GetObjectItem(mp, "version") : NULL;
		if (is_method(m, "window/logMessage") && cJSON_IsString(msg) &&
		    strstr(msg->valuestring, "a run cancelled"))
			cancelled++;
		if (is_method(m, "textDocument/publishDiagnostics") && cJSON_IsNumber(v)) {
			published++;
			backwards += v->valueint < newest;
			newest = v->valueint;
			last = cJSON_GetArraySize(cJSON_GetObjectItem(mp, "diagnostics"));
		}
		cJSON_Delete(m);
	}
	printf("figure: %d changes 5 ms apart: %d runs cancelled, %d diagnostics published\n", CHANGES, cancelled,
	       published);
	check(m != NULL, "burst: the code action request after the changes answered");
	check(last == 0, "burst: the diagnostics last published are the last change's (none): %d", last);
	check(cancelled > 0, "burst: runs interrupted by a change were cancelled (%d)", cancelled);
	check(!backwards, "burst: no diagnostics published for a version older than one published before");
	cJSON_Delete(m);
}

/* The time from a change to its diagnostics, n times, with root as the workspace: a figure only.
 * A wall-clock bound here would fail whenever the machine is busy, so none is asserted (the
 * speed targets are make bench's); what is checked is that every change is answered. */
int latency(const char *root, const char *doc, const char *nodes, int n)
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
	if (n % 2 == 0) /* the last change restored the text */
		burst(&s, uri, text, fixed, &version);
	cJSON_Delete(request(&s, "shutdown", NULL));
	notify(&s, "exit", NULL);
	check(wait_exit(&s, TIMEOUT_MS) == 0, "latency: exit status 0");
	free(ms);
	free(fixed);
	free(text);
	free(uri);
	return 0;
}
