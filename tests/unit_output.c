/* unit_output — what leaves the program: values escaped for terminals and CI logs (each class of
 * character that acts rather than shows), GitHub's workflow-command escapes, UTF-8 checked and
 * repaired, the language server's messages kept UTF-8, and --output replaced whole or not at
 * all. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../linter/base/buf.h"
#include "../linter/base/escape.h"
#include "../linter/lsp/lsp_rpc.h"
#include "../linter/report/emit.h"
#include "../linter/report/output.h"
#include "unit.h"

static bool esc_is(const char *in, const char *want)
{
	char *got = sl_esc_dup(in);
	bool ok = !strcmp(got, want);
	if (!ok)
		fprintf(stderr, "  sl_esc of '%s': '%s', expected '%s'\n", in, got, want);
	free(got);
	return ok;
}

static bool lines_are(const char *in, const char *want)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_esc_lines(&b, in, strlen(in));
	bool ok = !strcmp(sl_buf_str(&b), want);
	if (!ok)
		fprintf(stderr, "  sl_esc_lines: '%s', expected '%s'\n", sl_buf_str(&b), want);
	sl_buf_free(&b);
	return ok;
}

static bool github_is(const char *in, bool property, const char *want)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_esc_github(&b, in, property);
	bool ok = !strcmp(sl_buf_str(&b), want);
	if (!ok)
		fprintf(stderr, "  sl_esc_github: '%s', expected '%s'\n", sl_buf_str(&b), want);
	sl_buf_free(&b);
	return ok;
}

static bool xml_is(const char *in, const char *want)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_esc_xml(&b, in);
	bool ok = !strcmp(sl_buf_str(&b), want);
	if (!ok)
		fprintf(stderr, "  sl_esc_xml: '%s', expected '%s'\n", sl_buf_str(&b), want);
	sl_buf_free(&b);
	return ok;
}

static void test_escape(void)
{
	/* Printable text, and UTF-8 that only shows, are kept. */
	CHECK(esc_is("web-1 nvidia.com/gpu 'x' \\d", "web-1 nvidia.com/gpu 'x' \\d"));
	CHECK(esc_is("caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80", "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80"));
	/* C0 (ESC of OSC 52 and OSC 8, BEL, BS, CR, LF, TAB, NUL's neighbours), DEL, C1 as UTF-8. */
	CHECK(esc_is("a\x1b]52;c;SGk=\x07z", "a\\x1b]52;c;SGk=\\x07z"));
	CHECK(esc_is("\x1b]8;;http://x\x1b\\", "\\x1b]8;;http://x\\x1b\\"));
	CHECK(esc_is("a\rb\bc\x7f\x01", "a\\rb\\x08c\\x7f\\x01"));
	CHECK(esc_is("a\n::error file=x::y\tz", "a\\n::error file=x::y\\tz"));
	CHECK(esc_is("\xc2\x85\xc2\x9b[31m\xc2\x80\xc2\x9f\xc2\xa0", "\\u0085\\u009b[31m\\u0080\\u009f\xc2\xa0"));
	/* Bidirectional controls and marks, line and paragraph separators. */
	CHECK(esc_is("\xe2\x80\xae"
		     "abc\xe2\x80\xac",
		     "\\u202eabc\\u202c"));
	CHECK(esc_is("\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c\xe2\x80\xa8\xe2\x80\xa9",
		     "\\u2066\\u2069\\u200e\\u200f\\u061c\\u2028\\u2029"));
	/* Not UTF-8: stray bytes, a cut character, overlong forms, surrogates, beyond U+10FFFF. */
	CHECK(esc_is("\xff\xfe", "\\xff\\xfe"));
	CHECK(esc_is("a\xe2\x80", "a\\xe2\\x80"));
	CHECK(esc_is("\xc0\xaf\xe0\x80\xaf", "\\xc0\\xaf\\xe0\\x80\\xaf"));
	CHECK(esc_is("\xed\xa0\x80", "\\xed\\xa0\\x80"));
	CHECK(esc_is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"));
	/* GitHub's legacy "##[command]" works anywhere in a line. */
	CHECK(esc_is("a##[error]b ###[x] #[y]", "a##\\x5berror]b ###\\x5bx] #[y]"));

	/* A line whose start (after white space and colour codes) is "::" is not one. */
	CHECK(lines_are("::error::x\nok::\n  ::warning::y\n", "\\x3a:error::x\nok::\n  \\x3a:warning::y\n"));
	CHECK(lines_are("\x1b[1m::error::x\x1b[0m\n", "\x1b[1m\\x3a:error::x\x1b[0m\n"));
	CHECK(lines_are("\xc2\xa0\xe3\x80\x80::e::x", "\xc2\xa0\xe3\x80\x80\\x3a:e::x"));
	CHECK(lines_are(": :x\n:x::\n", ": :x\n:x::\n"));

	/* GitHub's escapes: '%', CR and LF in data; ':' and ',' in a property too; the rest as above. */
	CHECK(github_is("100% a,b:c\r\nd", false, "100%25 a,b:c%0D%0Ad"));
	CHECK(github_is("a,b:c%", true, "a%2Cb%3Ac%25"));
	CHECK(github_is("\x1b[31m\xe2\x80\xae\xff", false, "\\x1b[31m\\u202e\\xff"));

	/* XML (JUnit): its five specials as entities; controls XML cannot hold, even as references,
	 * and U+FFFE/U+FFFF shown as escapes; UTF-8 that only shows kept. */
	CHECK(xml_is("a<b>&c \"d\" 'e'", "a&lt;b&gt;&amp;c &quot;d&quot; &apos;e&apos;"));
	CHECK(xml_is("&amp;<![CDATA[x]]>", "&amp;amp;&lt;![CDATA[x]]&gt;"));
	CHECK(xml_is("\x01\x1b[31m\x7f\n\t\xc2\x85", "\\x01\\x1b[31m\\x7f\\n\\t\\u0085"));
	CHECK(xml_is("\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd caf\xc3\xa9 \xff",
		     "\\ufffe\\uffff\xef\xbf\xbd caf\xc3\xa9 \\xff"));
}

static bool json_is(const char *in, const char *want)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_esc_json(&b, in, strlen(in));
	bool ok = !strcmp(sl_buf_str(&b), want);
	if (!ok)
		fprintf(stderr, "  sl_esc_json: '%s', expected '%s'\n", sl_buf_str(&b), want);
	sl_buf_free(&b);
	return ok;
}

/* Runs of text that need nothing are copied whole (escape.c): what needs escaping at a run's start,
 * in its middle and at its end, alone or back to back, and "##[" whose '#'s end a run, each in
 * every mode; and JSON made safe and UTF-8 the same way. */
static void test_escape_runs(void)
{
	CHECK(esc_is("\x1b", "\\x1b"));
	CHECK(esc_is("\x1b\x7f\xc2\x85\xff", "\\x1b\\x7f\\u0085\\xff"));
	CHECK(esc_is("\ttab: 100%, a:b [x]\n", "\\ttab: 100%, a:b [x]\\n"));
	CHECK(esc_is("a very long value, longer than a buffer's first allocation of sixty-four bytes\x01"
		     "and past it\xe2\x80\xae"
		     "end",
		     "a very long value, longer than a buffer's first allocation of sixty-four bytes\\x01"
		     "and past it\\u202eend"));
	CHECK(esc_is("x##[", "x##\\x5b"));
	CHECK(esc_is("##[##[", "##\\x5b##\\x5b"));
	CHECK(esc_is("#\xc3\xa9#[", "#\xc3\xa9#["));
	CHECK(github_is("##[x] 1%\n", false, "##\\x5bx] 1%25%0A"));
	CHECK(github_is("::a,b%", false, "::a,b%25"));
	CHECK(github_is(":,%:,%", true, "%3A%2C%25%3A%2C%25"));
	CHECK(github_is("ok", true, "ok"));
	/* JSON: C0 and ASCII are cJSON's and kept; DEL, C1 and bidi controls as \uXXXX; not UTF-8 as
	 * U+FFFD; "##[" only after two '#'. */
	CHECK(json_is("{\"a\": \"x\ty [1]\"}", "{\"a\": \"x\ty [1]\"}"));
	CHECK(json_is("\"\x7f\xc2\x9b\xe2\x80\xae\"", "\"\\u007f\\u009b\\u202e\""));
	CHECK(json_is("\"a\xff\xc3\xa9\xe2\x80\"", "\"a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\""));
	CHECK(json_is("\"##[e] #[f] ##\"", "\"##\\u005be] #[f] ##\""));
}

/* Numbers in line:col and in keys, written without printf: what "%llu" and "%lld" write. */
static void test_numbers(void)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, "at ");
	sl_buf_putu(&b, 0);
	sl_buf_putc(&b, ' ');
	sl_buf_putu(&b, 9);
	sl_buf_putc(&b, ' ');
	sl_buf_putu(&b, 10);
	sl_buf_putc(&b, ' ');
	sl_buf_putu(&b, ULLONG_MAX);
	sl_buf_putc(&b, ' ');
	sl_buf_puti(&b, -1);
	sl_buf_putc(&b, ' ');
	sl_buf_puti(&b, 1234567);
	sl_buf_putc(&b, ' ');
	sl_buf_puti(&b, LLONG_MIN);
	sl_buf_putc(&b, ' ');
	sl_buf_puti(&b, LLONG_MAX);
	char want[128];
	snprintf(want, sizeof want, "at %llu %llu %llu %llu %lld %lld %lld %lld", 0ull, 9ull, 10ull, ULLONG_MAX, -1ll,
		 1234567ll, LLONG_MIN, LLONG_MAX);
	CHECK(!strcmp(sl_buf_str(&b), want));
	CHECK(b.len == strlen(want));
	sl_buf_free(&b);
}

/* sl_buf_printf formats on the stack and copies, or formats in place what is longer: texts on
 * either side of the stack buffer's size, appended to what the buffer holds. */
static void test_printf(void)
{
	char big[1200];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	const size_t lens[] = {0, 1, 510, 511, 512, 513, 1199};
	for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
		struct sl_buf b = SL_BUF_INIT;
		sl_buf_puts(&b, "ab");
		sl_buf_printf(&b, "%.*s|%d", (int)lens[i], big, 7);
		sl_buf_printf(&b, "%s", "");
		CHECK(b.len == lens[i] + 4 && b.s[b.len] == 0);
		CHECK(b.len == lens[i] + 4 && !strncmp(b.s, "ab", 2) && !strspn(b.s + 2 + lens[i], "x") &&
		      !strcmp(b.s + 2 + lens[i], "|7") && strspn(b.s + 2, "x") == lens[i]);
		sl_buf_free(&b);
	}
	char *s = sl_xasprintf("%s-%zu", big, (size_t)42);
	CHECK(strlen(s) == sizeof big + 2 && !strcmp(s + sizeof big - 1, "-42"));
	free(s);
}

static void test_utf8(void)
{
	CHECK(sl_utf8_valid("", 0));
	CHECK(sl_utf8_valid("caf\xc3\xa9\xf0\x9f\x98\x80", 9));
	CHECK(!sl_utf8_valid("bad\xff\xfe.yaml", 10));
	CHECK(!sl_utf8_valid("\xed\xb0\x80", 3));
	CHECK(!sl_utf8_valid("\xc3", 1));
	struct sl_buf b = SL_BUF_INIT;
	sl_utf8_repair(&b, "a\xff\xc3\xa9\xe2\x80", 6);
	CHECK(!strcmp(sl_buf_str(&b), "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd"));
	CHECK(sl_utf8_valid(b.s, b.len));
	sl_buf_free(&b);
}

/* Printed JSON made safe: ASCII below DEL (cJSON's layout and escapes included) as it is, "##["
 * wherever the '#'s are, DEL, C1, bidirectional controls and separators as \u escapes, bytes that
 * are not UTF-8 as U+FFFD. */
static void test_json_escape(void)
{
	CHECK(json_is("{\n\t\"a\":\t\"b\\n[c] #[d]\"\n}", "{\n\t\"a\":\t\"b\\n[c] #[d]\"\n}"));
	CHECK(json_is("[\"x ##[error]y\", \"##[\"]", "[\"x ##\\u005berror]y\", \"##\\u005b\"]"));
	CHECK(json_is("\"a\x7f\xc2\x85\xe2\x80\xae\xe2\x80\xa8 caf\xc3\xa9\"",
		      "\"a\\u007f\\u0085\\u202e\\u2028 caf\xc3\xa9\""));
	CHECK(json_is("\"a\xff\xe2\x80\"", "\"a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""));
	CHECK(json_is("", ""));
}

/* The language server's messages are UTF-8 whatever a path or a header line held. */
static void test_rpc_utf8(void)
{
	int fd[2];
	CHECK(pipe(fd) == 0);
	struct sl_rpc r;
	sl_rpc_init(&r, -1, fd[1]);
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "message", "bad header line 'X\xff\xfe'");
	CHECK(sl_rpc_send(&r, m) == 0);
	cJSON_Delete(m);
	close(fd[1]);
	char buf[512];
	ssize_t n = read(fd[0], buf, sizeof buf - 1);
	close(fd[0]);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = 0;
	const char *body = strstr(buf, "\r\n\r\n");
	CHECK(body && sl_utf8_valid(buf, (size_t)n));
	CHECK(body && strstr(body, "'X\xef\xbf\xbd\xef\xbf\xbd'"));
	CHECK(body && atoi(buf + strlen("Content-Length: ")) == (int)strlen(body + 4));
	sl_rpc_free(&r);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct sl_buf b = SL_BUF_INIT;
	char chunk[256];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sl_buf_add(&b, chunk, n);
	fclose(f);
	return sl_buf_detach(&b);
}

/* How many entries dir holds besides . and .. (a temporary file left behind would be one). */
static int entries(const char *dir)
{
	char *cmd = sl_xasprintf("ls -A '%s' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	int n = -1;
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	free(cmd);
	return n;
}

static void test_write_file(void)
{
	char dir[] = "/tmp/schedlint-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = sl_xasprintf("%s/report.sarif", dir), *link = sl_xasprintf("%s/link.sarif", dir);
	/* A new file, then one replaced: whole, its mode kept. */
	CHECK(sl_write_file(path, "first\n", 6) == 0);
	char *got = slurp(path);
	CHECK(got && !strcmp(got, "first\n"));
	free(got);
	CHECK(chmod(path, 0640) == 0);
	CHECK(sl_write_file(path, "second\n", 7) == 0);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
	got = slurp(path);
	CHECK(got && !strcmp(got, "second\n"));
	free(got);
	/* Through a symbolic link: the file it names is replaced, the link stays a link. */
	CHECK(symlink("report.sarif", link) == 0);
	CHECK(sl_write_file(link, "third\n", 6) == 0);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	got = slurp(path);
	CHECK(got && !strcmp(got, "third\n"));
	free(got);
	CHECK(entries(dir) == 2);
	/* A directory that is not there, and a directory named as the file: an error, nothing left. */
	char *missing = sl_xasprintf("%s/no/such/dir/r.sarif", dir);
	CHECK(sl_write_file(missing, "x", 1) < 0);
	CHECK(sl_write_file(dir, "x", 1) < 0);
	CHECK(entries(dir) == 2);
	/* A device is written as it is, not replaced by a file. */
	CHECK(sl_write_file("/dev/null", "x", 1) == 0);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	CHECK(sl_write_file("/dev/full", "x", 1) < 0);
	CHECK(sl_same_file(link, path) && !sl_same_file(path, "/dev/null") && !sl_same_file(missing, missing));
	unlink(link);
	unlink(path);
	rmdir(dir);
	free(missing);
	free(link);
	free(path);
}

/* Bytes that have reached fd, whatever its offset. */
static off_t written(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 ? st.st_size : -1;
}

/* The report is written as it is made, not gathered whole first: most of a large text report has
 * reached its file before the stream is closed, and --output shows no part of it until then. */
static void test_out_stream(void)
{
	char dir[] = "/tmp/schedlint-unit-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = sl_xasprintf("%s/report.txt", dir), *out = sl_xasprintf("%s/out.txt", dir);
	enum { N = 4000 };
	struct sl_finding *v = calloc(N, sizeof *v);
	char msg[80];
	memset(msg, 'm', sizeof msg - 1);
	msg[sizeof msg - 1] = 0;
	for (size_t i = 0; i < N; i++)
		v[i] = (struct sl_finding){.level = SL_ERROR, .message = msg};
	struct sl_findings fs = {v, N, N, N};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct sl_out o;
	sl_emit_text(sl_out_open(&o, NULL, fd), &fs, NULL, false, true, false);
	off_t before = written(fd);
	CHECK(before > 200000); /* the whole is about 370 KB: a chunk may still be in the stream */
	CHECK(sl_out_close(&o, "the report") == 0);
	CHECK(written(fd) > before);
	close(fd);
	/* --output: a temporary file beside it fills, renamed into place only when all is written. */
	sl_emit_text(sl_out_open(&o, out, -1), &fs, NULL, false, true, false);
	struct stat st;
	CHECK(stat(out, &st) < 0 && entries(dir) == 2);
	CHECK(sl_out_close(&o, "the report") == 0);
	CHECK(stat(out, &st) == 0 && st.st_size > 200000 && entries(dir) == 2);
	unlink(out);
	unlink(path);
	rmdir(dir);
	free(v);
	free(out);
	free(path);
}

void test_output(void)
{
	test_escape();
	test_escape_runs();
	test_numbers();
	test_printf();
	test_json_escape();
	test_utf8();
	test_rpc_utf8();
	test_write_file();
	test_out_stream();
}
