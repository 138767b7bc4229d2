/* source.c — a source's bytes and positions (see source.h): the line and code-point tables, byte
 * offsets to line/column and back, spans. Reading files into sources is input.c's. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

#include "../base/buf.h"
#include "../base/diag.h"
#include "origin.h"

#define CP_STEP 64

static int is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

/* A growing table of line starts. */
struct lines {
	uint32_t *v;
	size_t n, cap;
};

/* The line starts after the first into l, in one pass over the bytes that also tells whether any
 * is above ASCII (the code-point table is for those sources). Every source read is indexed: with
 * SSE2, 32 bytes at a time, a mask of their newlines each (a memchr per line, lines of ~35 bytes,
 * costs more). The table is in locals while it grows, which the compiler keeps in registers. */
static bool scan_lines(const char *d, size_t len, struct lines *l)
{
	uint32_t *v = l->v;
	size_t n = l->n, cap = l->cap, i = 0;
	unsigned high = 0;
#if defined(__SSE2__) && defined(__GNUC__)
	const __m128i nl = _mm_set1_epi8('\n');
	for (; i + 32 <= len; i += 32) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(d + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(d + i + 16));
		high |= (unsigned)_mm_movemask_epi8(_mm_or_si128(a, b));
		uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, nl)) |
			     (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, nl)) << 16;
		for (; m; m &= m - 1) {
			if (n == cap)
				v = sl_xrealloc(v, (cap *= 2) * sizeof *v);
			v[n++] = (uint32_t)(i + (size_t)__builtin_ctz(m) + 1);
		}
	}
#endif
	for (; i < len; i++) {
		unsigned char c = (unsigned char)d[i];
		high |= c & 0x80;
		if (c != '\n')
			continue;
		if (n == cap)
			v = sl_xrealloc(v, (cap *= 2) * sizeof *v);
		v[n++] = (uint32_t)(i + 1);
	}
	*l = (struct lines){v, n, cap};
	return high != 0;
}

void sl_source_index(struct sl_source *s)
{
	if (s->lines || s->pack)
		return;
	/* Room for a line every 24 bytes (YAML's are longer), doubled when a file's are shorter,
	 * and the table cut to its size after, held as long as the source is. Offsets fit 32 bits
	 * (SL_FILE_BYTES_CAP). */
	struct lines l = {NULL, 1, s->len / 24 + 16};
	l.v = sl_xmalloc(l.cap * sizeof *l.v);
	l.v[0] = 0;
	bool high = scan_lines(s->data, s->len, &l);
	s->lines = l.v;
	s->nlines = l.n;
	if (high) { /* the code-point table is for sources that are not ASCII */
		size_t capcp = 0, chars = 0;
		for (size_t i = 0; i <= s->len; i++) {
			if (i < s->len && is_cont((unsigned char)s->data[i]))
				continue;
			if (chars % CP_STEP == 0) {
				sl_grow(&s->cp, &capcp, s->ncp + 1, sizeof *s->cp);
				s->cp[s->ncp++] = (uint32_t)i;
			}
			chars++;
		}
	}
	if (s->nlines < l.cap)
		s->lines = sl_xrealloc(s->lines, s->nlines * sizeof *s->lines);
}

struct sl_source *sl_source_from_memory(const char *path, const char *data, size_t len)
{
	struct sl_source *s = sl_xcalloc(1, sizeof *s);
	s->path = sl_xstrdup(path);
	s->data = sl_xmalloc(len + 1);
	if (len)
		memcpy(s->data, data, len);
	s->data[len] = 0;
	s->len = len;
	sl_source_index(s);
	return s;
}

void sl_source_forget(const struct sl_source *s, size_t off, size_t end)
{
	size_t lead = 0;
	while (lead < s->len && strchr(" \t\r\n", s->data[lead]))
		lead++;
	off = off > lead + 1 ? off : lead + 1;
	end = end < s->len ? end : s->len;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from = (uintptr_t)(s->data + off),
		  to = (uintptr_t)(s->data + end);
	from = (from + page - 1) / page * page;
	to = to / page * page;
	if (off < end && from < to)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

ssize_t sl_read_upto(int fd, char *p, size_t want)
{
	size_t got = 0;
	while (got < want) {
		ssize_t n = read(fd, p + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* A released source's line starts: the start of every LINE_STEP-th line, and each line's length
 * in a byte (most YAML lines are shorter than 255 bytes; a longer one's is in longs, by line). */
#define LINE_STEP 32
struct sl_line_pack {
	uint32_t *marks;
	uint8_t *lens; /* lines 0 .. nlines - 2: the last one's length is never asked for */
	uint32_t (*longs)[2];
	size_t nlongs;
};

static size_t long_len(const struct sl_line_pack *p, size_t line)
{
	size_t lo = 0, hi = p->nlongs;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (p->longs[mid][0] <= line)
			lo = mid;
		else
			hi = mid;
	}
	return p->longs[lo][1];
}

static size_t line_len(const struct sl_line_pack *p, size_t line)
{
	return p->lens[line] < 255 ? p->lens[line] : long_len(p, line);
}

/* The 0-based line i's start. */
static size_t line_start(const struct sl_source *s, size_t i)
{
	if (s->lines)
		return s->lines[i];
	const struct sl_line_pack *p = s->pack;
	size_t at = p->marks[i / LINE_STEP];
	for (size_t k = i - i % LINE_STEP; k < i; k++)
		at += line_len(p, k);
	return at;
}

/* The 0-based line that holds off (at or past the first line's start), and that line's start. */
static size_t line_of(const struct sl_source *s, size_t off, size_t *start)
{
	size_t lo = 0, hi = s->lines ? s->nlines : (s->nlines + LINE_STEP - 1) / LINE_STEP;
	const uint32_t *v = s->lines ? s->lines : s->pack->marks;
	while (hi - lo > 1) { /* the last start <= off: of a line, or of a packed block of lines */
		size_t mid = (lo + hi) / 2;
		if (v[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*start = v[lo];
	if (s->lines)
		return lo;
	size_t line = lo * LINE_STEP;
	for (size_t len; line + 1 < s->nlines && *start + (len = line_len(s->pack, line)) <= off; line++)
		*start += len;
	return line;
}

static void pack_lines(struct sl_source *s)
{
	struct sl_line_pack *p = sl_xcalloc(1, sizeof *p);
	size_t nmarks = (s->nlines + LINE_STEP - 1) / LINE_STEP, caplongs = 0;
	p->marks = sl_xmalloc(nmarks * sizeof *p->marks);
	p->lens = sl_xmalloc(s->nlines);
	/* Two plain loops, not one that tests each line for a mark: every released file's lines pass
	 * here (about 129,000 on the corpus), and this takes a third fewer instructions. */
	for (size_t k = 0; k < nmarks; k++)
		p->marks[k] = s->lines[k * LINE_STEP];
	for (size_t i = 0; i + 1 < s->nlines; i++) {
		uint32_t len = s->lines[i + 1] - s->lines[i];
		p->lens[i] = (uint8_t)(len < 255 ? len : 255);
		if (len >= 255) { /* rare: a line of 255 bytes or more */
			sl_grow(&p->longs, &caplongs, p->nlongs + 1, sizeof *p->longs);
			p->longs[p->nlongs][0] = (uint32_t)i;
			p->longs[p->nlongs++][1] = len;
		}
	}
	free(s->lines);
	s->lines = NULL;
	s->pack = p;
}

static void free_pack(struct sl_line_pack *p)
{
	if (!p)
		return;
	free(p->marks);
	free(p->lens);
	free(p->longs);
	free(p);
}

static void free_bytes(struct sl_source *s)
{
	if (s->huge)
		sl_huge_free(s->data, s->huge);
	else
		free(s->data);
	s->data = NULL;
	s->huge = 0;
}

bool sl_source_release(struct sl_source *s)
{
	/* Columns of a file that is not ASCII are counted in its bytes (sl_source_linecol), and
	 * only a file with a stamp can be told unchanged when read again. Small files go too: two
	 * thirds of a repository's manifests, a tenth of its bytes, and few are read again (for a
	 * fix, or SARIF's snippets after the model is gone, when memory is no longer at its peak). */
	if (!s->data || !s->stamped || s->cp || s->len != s->stamp.size)
		return false;
	free_bytes(s);
	if (s->lines && s->nlines)
		pack_lines(s);
	return true;
}

/* FNV-1a over the bytes: a file read again is the one read when its bytes hash alike. */
static uint64_t bytes_sum(const char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 1099511628211ull;
	}
	return h;
}

bool sl_source_release_summed(struct sl_source *s)
{
	if (!s->data)
		return false;
	s->sum = bytes_sum(s->data, s->len);
	s->summed = sl_source_release(s);
	return s->summed;
}

/* Exactly len bytes from fd, NUL-terminated; NULL when the file is shorter or longer. */
static char *read_len(int fd, size_t len)
{
	char *text = sl_xmalloc(len + 2); /* +1 for the NUL, +1 to see a longer file's end */
	if (sl_read_upto(fd, text, len + 1) != (ssize_t)len) {
		free(text);
		return NULL;
	}
	text[len] = 0;
	return text;
}

/* The file of a summed source read again: its bytes, when as many as were read and alike. Not
 * blocking on what is no longer a regular file (a FIFO reads as empty). */
static char *read_summed(const struct sl_source *s)
{
	int fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	char *text = read_len(fd, s->len);
	if (text && bytes_sum(text, s->len) != s->sum) {
		free(text);
		text = NULL;
	}
	close(fd);
	return text;
}

/* The file of s, read again whole into a block of its own: NULL when it is not the file that was
 * read (its stamp, or for a summed source its bytes, differ) or cannot be read. */
static char *read_again(const struct sl_source *s)
{
	if (s->summed)
		return read_summed(s);
	int fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	const struct sl_file_stamp *was = &s->stamp;
	char *text = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_dev == was->dev &&
	    (unsigned long long)st.st_ino == was->ino && (unsigned long long)st.st_size == was->size &&
	    st.st_mtim.tv_sec == was->mtime_s && st.st_mtim.tv_nsec == was->mtime_ns &&
	    st.st_ctim.tv_sec == was->ctime_s && st.st_ctim.tv_nsec == was->ctime_ns)
		text = read_len(fd, s->len);
	close(fd);
	return text;
}

const char *sl_source_text(const struct sl_source *cs)
{
	/* data is set before the parse and cleared by the thread that parsed, before any thread
	 * that checks starts: only the copy read again is shared while they run. */
	if (cs->data)
		return cs->data;
	struct sl_source *s = (struct sl_source *)cs; /* the copy is a cache: s is not changed */
	char *text = atomic_load_explicit(&s->again, memory_order_acquire);
	if (text || atomic_load_explicit(&s->lost, memory_order_acquire))
		return text;
	char *mine = read_again(s), *none = NULL;
	if (!mine) {
		atomic_store_explicit(&s->lost, true, memory_order_release);
		return NULL;
	}
	/* Two threads may read it at once: the first to set it wins, the other frees its copy. */
	if (atomic_compare_exchange_strong_explicit(&s->again, &none, mine, memory_order_acq_rel, memory_order_acquire))
		return mine;
	free(mine);
	return none;
}

bool sl_source_lost(const struct sl_source *s)
{
	return atomic_load_explicit(&((struct sl_source *)s)->lost, memory_order_acquire);
}

void sl_source_free(struct sl_source *s)
{
	if (!s)
		return;
	free(s->path);
	free_bytes(s);
	free(atomic_load_explicit(&s->again, memory_order_relaxed));
	free(s->lines);
	free_pack(s->pack);
	free(s->cp);
	sl_origin_free(s->origin);
	free(s);
}

size_t sl_source_bom(const struct sl_source *s)
{
	const char *d = s->len >= 3 ? sl_source_text(s) : NULL;
	return d && !memcmp(d, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

size_t sl_source_char_to_byte(const struct sl_source *s, size_t charidx)
{
	if (!s->cp)
		return charidx < s->len ? charidx : s->len;
	if (charidx / CP_STEP >= s->ncp)
		return s->len;
	size_t i = s->cp[charidx / CP_STEP];
	for (size_t k = charidx % CP_STEP; k > 0 && i < s->len; k--) {
		i++;
		while (i < s->len && is_cont((unsigned char)s->data[i]))
			i++;
	}
	return i;
}

void sl_source_linecol(const struct sl_source *s, size_t off, unsigned *line, unsigned *col)
{
	sl_source_linecol_hint(s, off, (size_t)-1, line, col);
}

void sl_source_linecol_hint(const struct sl_source *s, size_t off, size_t hint, unsigned *line, unsigned *col)
{
	if (off > s->len)
		off = s->len;
	size_t lo, start;
	if (s->lines && hint < s->nlines && s->lines[hint] <= off &&
	    (hint + 1 == s->nlines || s->lines[hint + 1] > off))
		start = s->lines[lo = hint]; /* the hint is right: no search */
	else
		lo = line_of(s, off, &start);
	*line = (unsigned)lo + 1;
	if (!s->cp) { /* ASCII: one byte, one code point */
		*col = (unsigned)(off - start) + 1;
		return;
	}
	unsigned c = 1;
	for (size_t i = start; i < off; i++)
		if (!is_cont((unsigned char)s->data[i]))
			c++;
	*col = c;
}

size_t sl_source_offset(const struct sl_source *s, unsigned line, unsigned col)
{
	if (line == 0)
		return 0;
	if (line > s->nlines)
		return s->len;
	size_t i = line_start(s, line - 1);
	if (!s->cp) { /* ASCII: one byte a column, up to the line's end (no bytes read: they may be gone) */
		size_t eol = line < s->nlines ? line_start(s, line) - 1 : s->len, step = col > 1 ? col - 1 : 0;
		return step < eol - i ? i + step : eol;
	}
	for (unsigned c = 1; c < col && i < s->len && s->data[i] != '\n'; c++) {
		i++;
		while (i < s->len && is_cont((unsigned char)s->data[i]))
			i++;
	}
	return i;
}

void sl_source_span(const struct sl_source *s, size_t off, size_t end, struct sl_span *out)
{
	out->src = s;
	out->off = (uint32_t)off;
	out->end = (uint32_t)end;
}

void sl_span_start(const struct sl_span *at, unsigned *line, unsigned *col)
{
	*line = *col = 0;
	if (at->src)
		sl_source_linecol(at->src, at->off, line, col);
}

unsigned sl_span_line(const struct sl_span *at)
{
	unsigned line, col;
	sl_span_start(at, &line, &col);
	return line;
}

void sl_span_end(const struct sl_span *at, unsigned *line, unsigned *col)
{
	*line = *col = 0;
	if (at->src)
		sl_source_linecol(at->src, at->end, line, col);
}

void sl_fix_edit(struct sl_fix *fx, const struct sl_source *src, size_t off, size_t end, const char *text)
{
	sl_grow(&fx->edits, &fx->cap, fx->nedits + 1, sizeof *fx->edits);
	struct sl_edit *e = &fx->edits[fx->nedits++];
	sl_source_span(src, off, end, &e->at);
	e->text = sl_xstrdup(text);
}
