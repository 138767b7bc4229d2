/* unit_lsp — the language server's pieces: positions in UTF-16 units and back, file URIs, the
 * Content-Length framing, the overlay of open buffers and cached files, and a run cancelled
 * between its stages. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../linter/config/config.h"
#include "../linter/load/overlay.h"
#include "../linter/load/path.h"
#include "../linter/lsp/lsp_pos.h"
#include "../linter/lsp/lsp_rpc.h"
#include "../linter/run.h"
#include "unit.h"

static struct sl_lsp_pos lsp_pos(const char *text, size_t off)
{
	struct sl_lsp_lines ls;
	sl_lsp_lines_build(&ls, text, strlen(text));
	struct sl_lsp_pos p = sl_lsp_pos_of(&ls, text, strlen(text), off);
	sl_lsp_lines_free(&ls);
	return p;
}

static long lsp_off(const char *text, unsigned line, unsigned character)
{
	struct sl_lsp_lines ls;
	sl_lsp_lines_build(&ls, text, strlen(text));
	size_t off;
	int rc = sl_lsp_offset_of(&ls, text, strlen(text), (struct sl_lsp_pos){line, character}, &off);
	sl_lsp_lines_free(&ls);
	return rc < 0 ? -1 : (long)off;
}

#define POS_IS(text, off, l, c) CHECK(lsp_pos(text, off).line == (l) && lsp_pos(text, off).character == (c))

static void test_lsp_positions(void)
{
	const char *ascii = "ab\ncd\n";
	POS_IS(ascii, 0, 0, 0);
	POS_IS(ascii, 2, 0, 2); /* at the line end: the end of the line's text */
	POS_IS(ascii, 3, 1, 0);
	POS_IS(ascii, 6, 2, 0); /* after the last line end: an empty last line */
	POS_IS(ascii, 99, 2, 0);
	const char *crlf = "ab\r\ncd\r\nef";
	POS_IS(crlf, 2, 0, 2);
	POS_IS(crlf, 3, 0, 2); /* between \r and \n: still before the line end */
	POS_IS(crlf, 4, 1, 0);
	POS_IS(crlf, 9, 2, 1);
	const char *cr = "a\rb\rc";
	POS_IS(cr, 2, 1, 0); /* a lone \r ends a line for the protocol */
	POS_IS(cr, 4, 2, 0);
	const char *wide = "x: é中😀z\n";
	POS_IS(wide, 3, 0, 3);
	POS_IS(wide, 5, 0, 4);  /* after é (2 bytes) */
	POS_IS(wide, 8, 0, 5);  /* after 中 (3 bytes) */
	POS_IS(wide, 12, 0, 7); /* after 😀 (4 bytes, a surrogate pair) */
	POS_IS(wide, 10, 0, 5); /* inside 😀: the position before it */
	const char *bad = "\xff\xfe"
			  "a\n\xe4\xb8"; /* invalid bytes, and a sequence cut short */
	POS_IS(bad, 2, 0, 2);
	POS_IS(bad, 5, 1, 1);
	POS_IS(bad, 6, 1, 2);
	CHECK(sl_utf16_units("é中😀", strlen("é中😀")) == 4);
	CHECK(sl_utf16_units("", 0) == 0);

	CHECK(lsp_off(ascii, 1, 1) == 4);
	CHECK(lsp_off(ascii, 1, 99) == 5); /* past the line's end: the line's end, not the next line */
	CHECK(lsp_off(ascii, 2, 0) == 6);
	CHECK(lsp_off(ascii, 3, 0) == -1); /* no such line */
	CHECK(lsp_off(crlf, 0, 99) == 2);
	CHECK(lsp_off(crlf, 2, 2) == 10);
	CHECK(lsp_off(cr, 2, 0) == 4);
	CHECK(lsp_off(wide, 0, 4) == 5);
	CHECK(lsp_off(wide, 0, 5) == 8);
	CHECK(lsp_off(wide, 0, 6) == 8); /* inside the surrogate pair: the code point's start */
	CHECK(lsp_off(wide, 0, 7) == 12);
	CHECK(lsp_off("", 0, 0) == 0);
	CHECK(lsp_off("", 1, 0) == -1);
	/* every offset that starts a character comes back from its position */
	const char *mix = "a\r\né\r中😀\n\nz";
	bool round = true;
	for (size_t off = 0; off <= strlen(mix); off++) {
		if ((mix[off] & 0xC0) == 0x80 || (off > 0 && mix[off] == '\n' && mix[off - 1] == '\r'))
			continue;
		struct sl_lsp_pos p = lsp_pos(mix, off);
		round &= lsp_off(mix, p.line, p.character) == (long)off;
	}
	CHECK(round);
}

static void test_lsp_uris(void)
{
	char *p = sl_lsp_uri_path("file:///home/u/my%20dir/a%C3%A9.yaml");
	CHECK(p && !strcmp(p, "/home/u/my dir/a\xc3\xa9.yaml"));
	free(p);
	p = sl_lsp_uri_path("file://localhost/etc/x.yaml");
	CHECK(p && !strcmp(p, "/etc/x.yaml"));
	free(p);
	p = sl_lsp_uri_path("FILE:///a/b%2fc.yaml");
	CHECK(p && !strcmp(p, "/a/b/c.yaml"));
	free(p);
	CHECK(!sl_lsp_uri_path("untitled:Untitled-1"));
	CHECK(!sl_lsp_uri_path("file://server/share/x.yaml"));
	CHECK(!sl_lsp_uri_path("file:///a%zz"));
	CHECK(!sl_lsp_uri_path("file:///a%00b"));
	CHECK(!sl_lsp_uri_path("https://example.com/x.yaml"));
}

/* next takes one whole message at a time from what was fed; 1, 0 or -1. */
static int rpc_next(struct sl_rpc *r, char *out, size_t cap)
{
	struct sl_buf err = SL_BUF_INIT;
	const char *body;
	size_t len;
	int rc = sl_rpc_next(r, &body, &len, &err);
	if (rc > 0)
		snprintf(out, cap, "%.*s", (int)len, body);
	else
		snprintf(out, cap, "%s", sl_buf_str(&err));
	sl_buf_free(&err);
	return rc;
}

static void feed(struct sl_rpc *r, const char *s)
{
	sl_rpc_feed(r, s, strlen(s));
}

static void test_lsp_framing(void)
{
	struct sl_rpc r;
	char m[256];
	sl_rpc_init(&r, -1, -1);
	feed(&r, "Content-Length: 2\r\n\r\n{}content-length:3\r\nContent-Type: application/vscode-jsonrpc; "
		 "charset=utf-8\r\n\r\n[1]");
	CHECK(rpc_next(&r, m, sizeof m) == 1 && !strcmp(m, "{}"));
	CHECK(rpc_next(&r, m, sizeof m) == 1 && !strcmp(m, "[1]")); /* any case, any other header */
	CHECK(rpc_next(&r, m, sizeof m) == 0);
	/* byte by byte: nothing until the whole body is there */
	const char *msg = "Content-Length: 4\r\n\r\nnull";
	int got = 0;
	for (size_t i = 0; msg[i]; i++) {
		sl_rpc_feed(&r, msg + i, 1);
		got += rpc_next(&r, m, sizeof m) == 1 ? (msg[i + 1] ? 100 : 1) : 0;
	}
	CHECK(got == 1 && !strcmp(m, "null"));
	/* a header without a usable length: an error, then the next message as it was sent */
	feed(&r, "Content-Length: x\r\n\r\n{\"a\":1}Content-Length: 1\r\n\r\n1");
	CHECK(rpc_next(&r, m, sizeof m) == -1 && strstr(m, "not a number"));
	CHECK(rpc_next(&r, m, sizeof m) == 1 && !strcmp(m, "1"));
	feed(&r, "Content-Type: text\r\n\r\n");
	CHECK(rpc_next(&r, m, sizeof m) == -1 && strstr(m, "no Content-Length"));
	CHECK(rpc_next(&r, m, sizeof m) == 0);
	feed(&r, "Content-Length: 1\r\n\r\n2");
	CHECK(rpc_next(&r, m, sizeof m) == 1 && !strcmp(m, "2"));
	/* a known length with a bad line: that body is passed over, even when it comes later */
	feed(&r, "Content-Length: 5\r\nbad line\r\n\r\nab");
	CHECK(rpc_next(&r, m, sizeof m) == -1 && strstr(m, "bad header line"));
	CHECK(rpc_next(&r, m, sizeof m) == 0);
	feed(&r, "cdeContent-Length: 1\r\n\r\n3");
	CHECK(rpc_next(&r, m, sizeof m) == 1 && !strcmp(m, "3"));
	/* a length no client means, and a header that never ends */
	feed(&r, "Content-Length: 99999999999999999999999\r\n\r\n");
	CHECK(rpc_next(&r, m, sizeof m) == -1);
	feed(&r, "Content-Length: 1\r\n\r\n4");
	CHECK(rpc_next(&r, m, sizeof m) == 1 && !strcmp(m, "4"));
	char *junk = calloc(SL_RPC_MAX_HEADER + 2, 1);
	memset(junk, 'x', SL_RPC_MAX_HEADER + 1);
	feed(&r, junk);
	CHECK(rpc_next(&r, m, sizeof m) == -1 && strstr(m, "no end of header"));
	feed(&r, "Content-Length: 1\r\n\r\n5");
	CHECK(rpc_next(&r, m, sizeof m) == 1 && !strcmp(m, "5"));
	free(junk);
	sl_rpc_free(&r);
}

/* Open buffers win over the disk; cached files are used only while their stat is unchanged. */
static void test_overlay(void)
{
	struct sl_overlay ov;
	sl_overlay_init(&ov);
	struct stat st = {0}, other;
	st.st_mode = S_IFREG | 0644;
	st.st_size = 3;
	st.st_mtim.tv_sec = 100;
	size_t len = 0;
	CHECK(!sl_overlay_get(&ov, "/w/a.yaml", &st, &len));
	sl_overlay_store(&ov, "/w/a.yaml", &st, "abc", 3);
	char *got = sl_overlay_get(&ov, "/w/a.yaml", &st, &len);
	CHECK(got && len == 3 && !strcmp(got, "abc"));
	free(got);
	other = st;
	other.st_mtim.tv_nsec = 1; /* rewritten within the same second */
	CHECK(!sl_overlay_get(&ov, "/w/a.yaml", &other, &len));
	CHECK(!sl_overlay_get(&ov, "/w/a.yaml", NULL, &len)); /* gone from disk */
	sl_overlay_pin(&ov, "/w/a.yaml", "buffer", 6);
	got = sl_overlay_get(&ov, "/w/a.yaml", &other, &len);
	CHECK(got && len == 6 && !strcmp(got, "buffer") && sl_overlay_pinned(&ov, "/w/a.yaml"));
	free(got);
	sl_overlay_unpin(&ov, "/w/a.yaml");
	got = sl_overlay_get(&ov, "/w/a.yaml", &st, &len);
	CHECK(got && !strcmp(got, "abc")); /* closed: the file again, as cached */
	free(got);
	sl_overlay_drop(&ov, "/w/a.yaml");
	CHECK(!sl_overlay_get(&ov, "/w/a.yaml", &st, &len) && ov.cached_bytes == 0);
	sl_overlay_pin(&ov, "/w/new.yaml", "", 0);
	got = sl_overlay_get(&ov, "/w/new.yaml", NULL, &len);
	CHECK(got && len == 0 && !sl_overlay_pinned(&ov, "/w/other.yaml"));
	free(got);
	sl_overlay_free(&ov);
}

/* A stale callback that says so at its nth call (0: never). */
struct stale_after {
	int calls, at;
};

static bool stale_after(void *ctx)
{
	struct stale_after *s = ctx;
	return ++s->calls == s->at;
}

/* The run of dir's manifest with its nodes, asked whether it is stale as the server would. */
static void cancelled_run(const char *dir, int at, struct sl_run *r, struct stale_after *st)
{
	static struct sl_config cfg;
	sl_config_defaults(&cfg);
	memset(r, 0, sizeof *r);
	*st = (struct stale_after){0, at};
	r->cfg = &cfg;
	r->stale = stale_after;
	r->stale_ctx = st;
	char *nodes = sl_xasprintf("%s/nodes.yaml", dir), *manifest = sl_xasprintf("%s/manifest.yaml", dir);
	sl_run(r, (const char *const *)&nodes, 1, NULL, 0, &manifest, 1);
	free(nodes);
	free(manifest);
	sl_config_free(&cfg);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char *p = sl_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CHECK(f && fputs(text, f) >= 0);
	if (f)
		fclose(f);
	free(p);
}

static void test_run_cancel(void)
{
	char dir[] = "/tmp/schedlint-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	/* The seed's rollout-deadlock: one GPU node, a Deployment of one replica that takes its GPU. */
	write_text(dir, "nodes.yaml",
		   "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
		   "status: {allocatable: {cpu: '8', memory: 32Gi, pods: '110', nvidia.com/gpu: '1'}}\n");
	write_text(dir, "manifest.yaml",
		   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 1\n"
		   "  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n"
		   "    spec:\n      nodeSelector: {kubernetes.io/hostname: n1}\n      containers:\n"
		   "      - {name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}\n");
	struct sl_run r;
	struct stale_after st;
	cancelled_run(dir, 0, &r, &st); /* never stale: the whole run, asked before and after the model */
	const struct sl_finding *v[1];
	bool fixed;
	CHECK(!r.cancelled && st.calls == 2 && unit_findings_but_fixed(&r.fs, v, 1, &fixed) == 1 && fixed &&
	      v[0]->rule && !strcmp(v[0]->rule->id, "rollout-deadlock"));
	sl_run_free(&r);
	cancelled_run(dir, 1, &r, &st); /* stale before the model: nothing parsed, nothing found */
	CHECK(r.cancelled && st.calls == 1 && r.fs.n == 0);
	sl_run_free(&r);
	cancelled_run(dir, 2, &r, &st); /* stale once parsed: the rules do not run */
	CHECK(r.cancelled && st.calls == 2 && r.fs.n == 0);
	sl_run_free(&r);
	char *p = sl_xasprintf("%s/nodes.yaml", dir), *m = sl_xasprintf("%s/manifest.yaml", dir);
	CHECK(unlink(p) == 0 && unlink(m) == 0 && rmdir(dir) == 0);
	free(p);
	free(m);
}

/* Whether one of r's findings says what. */
static bool run_says(const struct sl_run *r, const char *what)
{
	for (size_t i = 0; i < r->fs.n; i++)
		if (strstr(r->fs.v[i].message, what))
			return true;
	return false;
}

/* The server keeps its overlay from one run to the next, but what a run learns of directories
 * (which Helm chart holds a file) is the run's own: a Chart.yaml written between two changes is
 * seen by the next run, and one removed is missed by it. */
static void test_run_chart_later(void)
{
	char dir[] = "/tmp/schedlint-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *tpl = sl_xasprintf("%s/templates", dir), *file = sl_xasprintf("%s/templates/pod.yaml", dir);
	char *chart = sl_xasprintf("%s/Chart.yaml", dir);
	CHECK(mkdir(tpl, 0700) == 0);
	write_text(tpl, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Values.name }}\n");
	struct sl_config cfg;
	struct sl_overlay ov;
	sl_overlay_init(&ov);
	bool chart_seen[3];
	for (int k = 0; k < 3; k++) {
		if (k == 1)
			write_text(dir, "Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
		if (k == 2)
			CHECK(unlink(chart) == 0);
		sl_config_defaults(&cfg);
		struct sl_run r = {.cfg = &cfg, .overlay = &ov, .keep_bytes = true};
		sl_run(&r, NULL, 0, NULL, 0, &file, 1);
		chart_seen[k] = run_says(&r, "a Helm chart") && !run_says(&r, "Go template");
		CHECK(chart_seen[k] || run_says(&r, "Go template"));
		sl_run_free(&r);
		sl_config_free(&cfg);
	}
	CHECK(!chart_seen[0] && chart_seen[1] && !chart_seen[2]);
	sl_overlay_free(&ov);
	CHECK(unlink(file) == 0 && rmdir(tpl) == 0 && rmdir(dir) == 0);
	free(tpl);
	free(file);
	free(chart);
}

void test_lsp(void)
{
	test_lsp_positions();
	test_lsp_uris();
	test_lsp_framing();
	test_overlay();
	test_run_cancel();
	test_run_chart_later();
}
