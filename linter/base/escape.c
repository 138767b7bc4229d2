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

/* Which bytes each mode writes as they are, a bit a mode (1 << enum mode): printable ASCII but
 * '[' (which "##" before it makes a command: the slow path looks back), '%' (escaped in both
 * GitHub modes) and ':' and ',' (escaped in a property). Everything else — C0, DEL, ESC, every
 * byte of a multi-byte character — takes the slow path, which decodes it. Most of a report is
 * ordinary text: a run of it is found with one load a byte and copied whole. */
#define A (1 << PLAIN | 1 << GITHUB_DATA | 1 << GITHUB_PROPERTY)
#define P (1 << PLAIN)                    /* '%' */
#define D (1 << PLAIN | 1 << GITHUB_DATA) /* ':' and ',' */
static const unsigned char as_is[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00: C0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10: C0, ESC */
    A, A, A, A, A, P, A, A, A, A, A, A, D, A, A, A, /* 0x20: ' ' .. '/' */
    A, A, A, A, A, A, A, A, A, A, D, A, A, A, A, A, /* 0x30: '0' .. '?' */
    A, A, A, A, A, A, A, A, A, A, A, A, A, A, A, A, /* 0x40: '@' .. 'O' */
    A, A, A, A, A, A, A, A, A, A, A, 0, A, A, A, A, /* 0x50: 'P' .. '_' */
    A, A, A, A, A, A, A, A, A, A, A, A, A, A, A, A, /* 0x60: '`' .. 'o' */
    A, A, A, A, A, A, A, A, A, A, A, A, A, A, A, 0, /* 0x70: 'p' .. DEL; 0x80..0xFF: 0 */
};
#undef A
#undef P
#undef D

/* prefix, then v's last digits hexadecimal digits, lowercase: "\\x%02x" and "\\u%04x" without printf. */
static void hex(struct sl_buf *b, const char *prefix, uint32_t v, int digits)
{
	char d[8];
	for (int k = digits - 1; k >= 0; k--, v >>= 4)
		d[k] = "0123456789abcdef"[v & 0xF];
	sl_buf_puts(b, prefix);
	sl_buf_add(b, d, (size_t)digits);
}

/* The slow path: the character at s + i (of n bytes) escaped as mode m writes it; the number of
 * bytes it took. */
static size_t escape_one(struct sl_buf *b, const char *s, size_t n, size_t i, enum mode m)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	size_t len = utf8_char(u + i, n - i, &cp);
	const char *gh = len ? github_escape(cp, m) : NULL;
	if (!len) {
		hex(b, "\\x", u[i], 2); /* not UTF-8: the byte, as a byte */
		return 1;
	}
	if (gh)
		sl_buf_puts(b, gh);
	else if (cp == '\n' || cp == '\r' || cp == '\t')
		sl_buf_puts(b, cp == '\n' ? "\\n" : cp == '\r' ? "\\r" : "\\t");
	else if (shown_escaped(cp))
		hex(b, cp < 0x80 ? "\\x" : "\\u", cp, cp < 0x80 ? 2 : 4);
	else if (cp == '[' && i >= 2 && s[i - 1] == '#' && s[i - 2] == '#')
		sl_buf_puts(b, "\\x5b"); /* "##[" is a command anywhere in a line of a GitHub log */
	else
		sl_buf_add(b, s + i, len);
	return len;
}

/* Whether the 8 bytes of w are all written as they are in PLAIN mode: printable ASCII (0x20 to
 * 0x7E) but '['. Word-at-a-time tests (any byte with its high bit, below 0x20, equal to 0x7F or
 * to '['); each is exact for the word as a whole once no byte is above 0x7F, which the first
 * says. A report is mostly such text: eight bytes cost what one does in the table. */
static bool plain8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	uint64_t del = w ^ 0x7F * ones, br = w ^ '[' * ones;
	return !((w & high) | ((w - 0x20 * ones) & ~w & high) | ((del - ones) & ~del & high) |
		 ((br - ones) & ~br & high));
}

static void escape(struct sl_buf *b, const char *s, size_t n, enum mode m)
{
	const unsigned char *u = (const unsigned char *)s;
	const unsigned char bit = (unsigned char)(1u << m);
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		for (uint64_t w; m == PLAIN && j + 8 <= n && (memcpy(&w, u + j, 8), plain8(w));)
			j += 8;
		while (j < n && (as_is[u[j]] & bit))
			j++;
		if (j > i)
			sl_buf_add(b, s + i, j - i);
		if (j < n)
			j += escape_one(b, s, n, j, m);
		i = j;
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
		/* ASCII but DEL and '[' is written as it is (C0 included: cJSON's, escaped or its own
		 * layout): a run of it is copied whole. */
		size_t j = i;
		while (j < n && u[j] < 0x7F && u[j] != '[')
			j++;
		if (j > i)
			sl_buf_add(b, json + i, j - i);
		if ((i = j) == n)
			break;
		uint32_t cp;
		size_t len = utf8_char(u + i, n - i, &cp);
		if (!len)
			sl_buf_puts(b, "\xEF\xBF\xBD");
		else if (cp >= 0x7F && shown_escaped(cp))
			hex(b, "\\u", cp, 4);
		else if (cp == '[' && i >= 2 && json[i - 1] == '#' && json[i - 2] == '#')
			sl_buf_puts(b, "\\u005b"); /* only a string holds "##[": JSON puts no '[' after '#' */
		else
			sl_buf_add(b, json + i, len);
		i += len ? len : 1;
	}
}

void sl_esc_xml(struct sl_buf *b, const char *s)
{
	/* First as for a terminal: what XML 1.0 cannot hold at all (C0 but tab and newline, which
	 * no character reference may name either) and bytes that are not UTF-8 become visible
	 * escapes; then XML's own five, and U+FFFE and U+FFFF, which are not XML characters. */
	struct sl_buf t = SL_BUF_INIT;
	sl_esc_puts(&t, s);
	const char *p = sl_buf_str(&t);
	for (size_t i = 0; i < t.len; i++) {
		unsigned char c = (unsigned char)p[i];
		const char *ent = c == '&'    ? "&amp;"
				  : c == '<'  ? "&lt;"
				  : c == '>'  ? "&gt;"
				  : c == '"'  ? "&quot;"
				  : c == '\'' ? "&apos;"
					      : NULL;
		if (ent)
			sl_buf_puts(b, ent);
		else if (c == 0xEF && i + 2 < t.len && (unsigned char)p[i + 1] == 0xBF &&
			 ((unsigned char)p[i + 2] & 0xFE) == 0xBE) {
			sl_buf_puts(b, (unsigned char)p[i + 2] == 0xBE ? "\\ufffe" : "\\uffff");
			i += 2;
		} else
			sl_buf_putc(b, (char)c);
	}
	sl_buf_free(&t);
}
