/* lsp_rpc.c — Content-Length framing, reading and writing (see lsp_rpc.h). */
#include "lsp_rpc.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../base/escape.h"

static const char CL[] = "Content-Length:";
#define CL_LEN (sizeof CL - 1)

void sl_rpc_init(struct sl_rpc *r, int in, int out)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->out = out;
}

void sl_rpc_free(struct sl_rpc *r)
{
	free(r->buf);
	memset(r, 0, sizeof *r);
}

/* Room for n more bytes, what was taken dropped from the front first. */
static void make_room(struct sl_rpc *r, size_t n)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	sl_grow(&r->buf, &r->cap, r->len + n + 1, 1);
}

void sl_rpc_feed(struct sl_rpc *r, const char *data, size_t n)
{
	make_room(r, n);
	memcpy(r->buf + r->len, data, n);
	r->len += n;
}

int sl_rpc_fill(struct sl_rpc *r, int timeout_ms)
{
	struct pollfd p = {r->in, POLLIN, 0};
	int n;
	while ((n = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	make_room(r, 65536);
	ssize_t got;
	while ((got = read(r->in, r->buf + r->len, r->cap - r->len - 1)) < 0 && errno == EINTR)
		;
	if (got <= 0)
		return -1;
	r->len += (size_t)got;
	return 1;
}

/* Where "Content-Length:" is next in [from, len) of the buffer, or len. Anywhere, not only at
 * the start of a line: a message sent without a header runs straight into the next header. */
static size_t find_header(const struct sl_rpc *r, size_t from)
{
	for (size_t i = from; i + CL_LEN <= r->len; i++)
		if (!strncasecmp(r->buf + i, CL, CL_LEN))
			return i;
	return r->len;
}

/* Pass over bytes up to the next header (or all but what may be the start of one). */
static void resync(struct sl_rpc *r, size_t from)
{
	size_t at = find_header(r, from);
	if (at < r->len) {
		r->pos = at;
		r->resync = false;
		return;
	}
	r->resync = true;
	r->pos = r->len > r->pos + CL_LEN ? r->len - CL_LEN : r->pos;
}

/* needle in [s, s + n), or NULL (memmem is not POSIX). */
static const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (const char *p = s; n >= k && (p = memchr(p, needle[0], n - k + 1 - (size_t)(p - s))); p++)
		if (!memcmp(p, needle, k))
			return p;
	return NULL;
}

static bool is_token_char(unsigned char c)
{
	return isalnum(c) || strchr("!#$%&'*+-.^_`|~", c);
}

/* The value of Content-Length, a decimal number: 0, or -1 when it is not one. */
static int parse_length(const char *v, const char *end, size_t *out)
{
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (v == end)
		return -1;
	size_t n = 0;
	for (; v < end; v++) {
		if (!isdigit((unsigned char)*v) || n > (SIZE_MAX - 9) / 10)
			return -1;
		n = n * 10 + (size_t)(*v - '0');
	}
	*out = n;
	return 0;
}

/* The header in [from, end): its Content-Length in *clen (SIZE_MAX when none is usable). 0, or
 * -1 with what is wrong in err. */
static int parse_header(const char *from, const char *end, size_t *clen, struct sl_buf *err)
{
	*clen = SIZE_MAX;
	int rc = 0;
	for (const char *line = from; line < end;) {
		const char *eol = find(line, (size_t)(end - line), "\r\n");
		eol = eol ? eol : end;
		const char *colon = memchr(line, ':', (size_t)(eol - line));
		bool token = colon && colon > line;
		for (const char *c = line; token && c < colon; c++)
			token = is_token_char((unsigned char)*c);
		if (!token) {
			if (!rc)
				sl_buf_printf(err, "bad header line '%.*s'", (int)(eol - line > 60 ? 60 : eol - line),
					      line);
			rc = -1;
		} else if ((size_t)(colon - line) == CL_LEN - 1 && !strncasecmp(line, CL, CL_LEN - 1) &&
			   parse_length(colon + 1, eol, clen) < 0) {
			if (!rc)
				sl_buf_printf(err, "Content-Length is not a number: '%.*s'",
					      (int)(eol - colon - 1 > 40 ? 40 : eol - colon - 1), colon + 1);
			rc = -1;
		}
		line = eol + 2;
	}
	if (!rc && *clen == SIZE_MAX) {
		sl_buf_puts(err, "the header has no Content-Length");
		rc = -1;
	}
	return rc;
}

/* Pass over what is owed (a refused body) and what comes before the next header. false when
 * nothing is left to read. */
static bool pass_over(struct sl_rpc *r)
{
	if (r->skip) {
		size_t take = r->len - r->pos < r->skip ? r->len - r->pos : r->skip;
		r->pos += take;
		r->skip -= take;
		if (r->skip)
			return false;
	}
	if (r->resync)
		resync(r, r->pos);
	if (r->resync)
		return false;
	while (r->pos < r->len && (r->buf[r->pos] == '\r' || r->buf[r->pos] == '\n'))
		r->pos++; /* blank lines between messages: harmless */
	return r->pos < r->len;
}

int sl_rpc_next(struct sl_rpc *r, const char **body, size_t *len, struct sl_buf *err)
{
	sl_buf_reset(err);
	if (!pass_over(r))
		return 0;
	const char *start = r->buf + r->pos;
	size_t avail = r->len - r->pos;
	const char *hend = find(start, avail, "\r\n\r\n");
	if (!hend) {
		if (avail <= SL_RPC_MAX_HEADER)
			return 0;
		sl_buf_printf(err, "no end of header in %d bytes", SL_RPC_MAX_HEADER);
		resync(r, r->pos + 1);
		return -1;
	}
	size_t clen;
	if (parse_header(start, hend, &clen, err) < 0 || clen > SL_RPC_MAX_BODY) {
		if (!err->len)
			sl_buf_printf(err, "a message of %zu bytes is larger than %zu", clen, SL_RPC_MAX_BODY);
		size_t after = (size_t)(hend + 4 - r->buf);
		if (clen <= SL_RPC_MAX_BODY) { /* its body is known: pass over it */
			r->pos = after;
			r->skip = clen;
		} else /* no length, or one no client means: look for the next header */
			resync(r, r->pos + 1);
		return -1;
	}
	size_t hlen = (size_t)(hend + 4 - start);
	if (avail - hlen < clen)
		return 0;
	*body = start + hlen;
	*len = clen;
	r->pos += hlen + clen;
	return 1;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int sl_rpc_send(struct sl_rpc *r, const cJSON *msg)
{
	if (r->out_gone)
		return -1;
	char *body = cJSON_PrintUnformatted(msg);
	if (!body)
		return -1;
	/* A path or a header line quoted in a message may hold bytes that are not UTF-8, which the
	 * protocol's JSON cannot carry: they become U+FFFD (sl_esc_json, as the reports). */
	struct sl_buf u = SL_BUF_INIT;
	sl_esc_json(&u, body, strlen(body));
	free(body);
	struct sl_buf b = SL_BUF_INIT; /* one write: a client never sees a header without its body */
	sl_buf_printf(&b, "Content-Length: %zu\r\n\r\n", u.len);
	sl_buf_add(&b, sl_buf_str(&u), u.len);
	sl_buf_free(&u);
	int rc = write_all(r->out, b.s, b.len);
	sl_buf_free(&b);
	r->out_gone = rc < 0;
	return rc;
}
