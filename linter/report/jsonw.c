/* jsonw.c — JSON written in cJSON_Print's layout (see jsonw.h). */
#include "jsonw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/escape.h"
#include "emit.h"

void sl_jw_init(struct sl_jw *w, struct sl_buf *b, unsigned depth)
{
	memset(w, 0, sizeof *w);
	w->b = b;
	w->depth = depth;
}

static void tabs(struct sl_jw *w, unsigned n)
{
	static const char t[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	for (; n > 16; n -= 16)
		sl_buf_add(w->b, t, 16);
	sl_buf_add(w->b, t, n);
}

/* Before a value: in an array, ", " after the item before (cJSON's separator); in an object the
 * key wrote what goes before. */
static void value(struct sl_jw *w)
{
	if (!w->level || !w->array[w->level - 1])
		return;
	if (w->more[w->level - 1])
		sl_buf_add(w->b, ", ", 2);
	w->more[w->level - 1] = true;
}

/* An entry ends with "," when another follows and then a newline: written before the next
 * entry's key, or by the object's end. */
void sl_jw_key(struct sl_jw *w, const char *key)
{
	bool *more = &w->more[w->level - 1];
	if (*more)
		sl_buf_putc(w->b, ',');
	sl_buf_putc(w->b, '\n');
	*more = true;
	tabs(w, w->depth);
	sl_jw_string(w, key);
	sl_buf_add(w->b, ":\t", 2);
}

static void begin(struct sl_jw *w, bool array)
{
	value(w);
	sl_buf_putc(w->b, array ? '[' : '{');
	if (w->level == SL_JW_MAX_NEST) { /* a report's own shapes are fixed and shallower */
		fprintf(stderr, "schedlint: internal error: JSON nested deeper than %d\n", SL_JW_MAX_NEST);
		abort();
	}
	w->array[w->level] = array;
	w->more[w->level] = false;
	w->level++;
	w->depth++;
}

void sl_jw_object(struct sl_jw *w)
{
	begin(w, false);
}

void sl_jw_array(struct sl_jw *w)
{
	begin(w, true);
}

/* An object's "{" is followed by a newline even when empty, and its "}" is on a line of its own,
 * one tab less than its entries. */
void sl_jw_end(struct sl_jw *w)
{
	w->level--;
	w->depth--;
	if (w->array[w->level]) {
		sl_buf_putc(w->b, ']');
		return;
	}
	sl_buf_putc(w->b, '\n');
	tabs(w, w->depth);
	sl_buf_putc(w->b, '}');
}

/* cJSON's escapes: quote, backslash, \b \f \n \r \t, other bytes below 0x20 as \u00xx; every
 * other byte as it is. */
static const char short_escape[] = {
    ['"'] = '"', ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

void sl_jw_string(struct sl_jw *w, const char *s)
{
	value(w);
	sl_buf_putc(w->b, '"');
	const unsigned char *p = (const unsigned char *)s, *run = p;
	for (; *p; p++) {
		if (*p > 31 && *p != '"' && *p != '\\')
			continue;
		sl_buf_add(w->b, (const char *)run, (size_t)(p - run));
		run = p + 1;
		char e[8] = {'\\', *p < sizeof short_escape ? short_escape[*p] : 0, 0};
		if (!e[1])
			snprintf(e, sizeof e, "\\u%04x", *p);
		sl_buf_puts(w->b, e);
	}
	sl_buf_add(w->b, (const char *)run, (size_t)(p - run));
	sl_buf_putc(w->b, '"');
}

/* cJSON prints a number with "%1.15g" (or, integral, "%d"): an integer below 10^15 in magnitude
 * either way as its decimal digits, which is all a report writes. */
void sl_jw_int(struct sl_jw *w, int64_t v)
{
	value(w);
	char d[24], *e = d + sizeof d, *p = e;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	sl_buf_add(w->b, p, (size_t)(e - p));
}

void sl_jw_bool(struct sl_jw *w, bool v)
{
	value(w);
	sl_buf_puts(w->b, v ? "true" : "false");
}

void sl_jw_str(struct sl_jw *w, const char *key, const char *s)
{
	if (!s)
		return;
	sl_jw_key(w, key);
	sl_jw_string(w, s);
}

void sl_jw_num(struct sl_jw *w, const char *key, int64_t v)
{
	sl_jw_key(w, key);
	sl_jw_int(w, v);
}

void sl_jw_open(struct sl_jw *w, const char *key, bool array)
{
	sl_jw_key(w, key);
	begin(w, array);
}

void sl_jw_text(struct sl_jw *w, const char *key, const char *s)
{
	sl_jw_open(w, key, false);
	sl_jw_str(w, "text", s);
	sl_jw_end(w);
}

void sl_jw_flush(FILE *out, struct sl_buf *raw, struct sl_buf *esc, bool all)
{
	if (!all && raw->len < SL_EMIT_CHUNK)
		return;
	sl_buf_reset(esc);
	sl_esc_json(esc, raw->s, raw->len);
	fwrite(esc->s, 1, esc->len, out);
	sl_buf_reset(raw);
}
