/* escape.c — values shown safely to a terminal or a CI log, and JSON kept UTF-8 (escape.h). */
#include "escape.h"

#include <stdint.h>
#include <string.h>

#include "buf.h"

/* The length of the UTF-8 character at s (n bytes left), its code point in *cp; 0 when the bytes
 * there are not one (RFC 3629: shortest form, no surrogates, at most U+10FFFF). */
static size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, v = c & 0x1F, min = 0x80;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, v = c & 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, v = c & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return len;
}

/* What a terminal or a log viewer acts on rather than shows: C0, DEL and C1 controls (an 8-bit
 * CSI is U+009B), the bidirectional controls that reorder what is read (U+202A..U+202E,
 * U+2066..U+2069, the marks U+200E, U+200F, U+061C) and the line and paragraph separators
 * U+2028, U+2029 that some viewers break lines at. */
static bool shown_escaped(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* How a value is written: for a terminal or a log (sl_esc_add), or inside a GitHub workflow
 * command, where CR, LF and '%' (and, in a property, ':' and ',') are GitHub's %XX, which the
 * runner reads back (GitHub's toolkit: escapeData, escapeProperty). */
enum mode { PLAIN, GITHUB_DATA, GITHUB_PROPERTY };

static const char *github_escape(uint32_t cp, enum mode m)
{
	if (m == PLAIN)
		return NULL;
	switch (cp) {
	case '%':
		return "%25";
	case '\r':
		return "%0D";
	case '\n':
		return "%0A";
	case ':':
		return m == GITHUB_PROPERTY ? "%3A" : NULL;
	case ',':
		return m == GITHUB_PROPERTY ? "%2C" : NULL;
	}
	return NULL;
}

static void escape(struct sl_buf *b, const char *s, size_t n, enum mode m)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_char(u + i, n - i, &cp);
		const char *gh = len ? github_escape(cp, m) : NULL;
		if (!len) {
			sl_buf_printf(b, "\\x%02x", u[i]); /* not UTF-8: the byte, as a byte */
			i++;
			continue;
		}
		if (gh)
			sl_buf_puts(b, gh);
		else if (cp == '\n' || cp == '\r' || cp == '\t')
			sl_buf_puts(b, cp == '\n' ? "\\n" : cp == '\r' ? "\\r" : "\\t");
		else if (shown_escaped(cp))
			sl_buf_printf(b, cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
		else if (cp == '[' && i >= 2 && s[i - 1] == '#' && s[i - 2] == '#')
			sl_buf_puts(b, "\\x5b"); /* "##[" is a command anywhere in a line of a GitHub log */
		else
			sl_buf_add(b, s + i, len);
		i += len;
	}
}

void sl_esc_add(struct sl_buf *b, const char *s, size_t n)
{
	escape(b, s, n, PLAIN);
}

void sl_esc_puts(struct sl_buf *b, const char *s)
{
	sl_esc_add(b, s, strlen(s));
}

char *sl_esc_dup(const char *s)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_esc_puts(&b, s);
	return sl_buf_detach(&b);
}

/* What GitHub's runner trims before it looks for "::" (.NET's white space: ASCII, U+0085, the
 * Unicode spaces; U+180E and U+FEFF, which older releases counted) and the colour codes this
 * program writes (ESC [ ... m): the length of what is skipped at s. */
static size_t lead(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint32_t cp = 0;
		size_t len = utf8_char(s + i, n - i, &cp);
		if (cp == 0x1B && len && i + 1 < n && s[i + 1] == '[') {
			size_t j = i + 2;
			while (j < n && s[j] >= 0x20 && s[j] <= 0x3F)
				j++;
			if (j < n && s[j] >= 0x40 && s[j] <= 0x7E) {
				i = j + 1;
				continue;
			}
			break;
		}
		bool space = len && ((cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 ||
				     cp == 0x1680 || cp == 0x180E || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
				     cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF);
		if (!space)
			break;
		i += len;
	}
	return i;
}

void sl_esc_lines(struct sl_buf *b, const char *text, size_t n)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t i = 0;
	while (i < n) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - text) + 1 : n;
		size_t k = i + lead(u + i, end - i);
		if (k + 1 < end && text[k] == ':' && text[k + 1] == ':') {
			sl_buf_add(b, text + i, k - i);
			sl_buf_puts(b, "\\x3a");
			i = k + 1;
		}
		sl_buf_add(b, text + i, end - i);
		i = end;
	}
}

void sl_esc_github(struct sl_buf *b, const char *s, bool property)
{
	escape(b, s, strlen(s), property ? GITHUB_PROPERTY : GITHUB_DATA);
}

bool sl_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	for (size_t i = 0, len; i < n; i += len)
		if (!(len = utf8_char(u + i, n - i, &cp)))
			return false;
	return true;
}

void sl_utf8_repair(struct sl_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = utf8_char(u + i, n - i, &cp);
		if (len)
			sl_buf_add(b, s + i, len);
		else
			sl_buf_puts(b, "\xEF\xBF\xBD");
		i += len ? len : 1;
	}
}

void sl_esc_json(struct sl_buf *b, const char *json, size_t n)
{
	const unsigned char *u = (const unsigned char *)json;
	for (size_t i = 0; i < n;) {
		/* A run of ASCII below DEL, which is most of a report, copied as it is: no '[' among it,
		 * whose "##" may be before it. */
		size_t run = i;
		while (run < n && u[run] < 0x7F && u[run] != '[')
			run++;
		if (run > i) {
			sl_buf_add(b, json + i, run - i);
			i = run;
			continue;
		}
		uint32_t cp;
		size_t len = utf8_char(u + i, n - i, &cp);
		if (!len)
			sl_buf_puts(b, "\xEF\xBF\xBD");
		else if (cp >= 0x7F && shown_escaped(cp))
			sl_buf_printf(b, "\\u%04x", (unsigned)cp); /* C0 are cJSON's: escaped, or its own layout */
		else if (cp == '[' && i >= 2 && json[i - 1] == '#' && json[i - 2] == '#')
			sl_buf_puts(b, "\\u005b"); /* only a string holds "##[": JSON puts no '[' after '#' */
		else
			sl_buf_add(b, json + i, len);
		i += len ? len : 1;
	}
}
