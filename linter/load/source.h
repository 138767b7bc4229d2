/* source.h — one input's bytes, as read, and positions in them. A source owns its bytes and a
 * table of line starts so that any byte offset maps to a 1-based line/column and back; sources
 * live until the run ends because every finding points into them (input.h reads them). A file's
 * bytes may be given back once parsed (sl_source_release) and read again when something asks for
 * them (sl_source_text): the line table (packed) and the length stay. */
#ifndef SL_SOURCE_H
#define SL_SOURCE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sl_fix;
struct sl_line_pack;
struct sl_origin;
struct sl_origin_dir;
struct sl_overlay;
struct sl_span;

/* A file as it was when read (its fstat then): the same file, unchanged, has all of these the
 * same when read again. */
struct sl_file_stamp {
	unsigned long long dev, ino, size;
	long long mtime_s, ctime_s;
	int32_t mtime_ns, ctime_ns; /* below 10^9: 32 bits, as a run holds a source per file */
};

struct sl_source {
	char *path; /* as the user will recognise it: the argument, or dir/sub/file; standard input
		     * is "-", or the name --stdin-filename gives it */
	/* NUL-terminated copy of the bytes, as parsed; NULL once released (sl_source_release): read
	 * them through sl_source_text after the parse. */
	char *data;
	size_t len;
	size_t huge;     /* data is an sl_huge_alloc block of this size (0: malloc) */
	uint32_t *lines; /* byte offset at which each line starts; NULL until sl_source_index */
	/* Once the bytes are released, the same starts in a third of the room (lines is NULL then):
	 * a large input's line tables weigh a tenth of its bytes, and few are looked up again. */
	struct sl_line_pack *pack;
	uint32_t *cp; /* byte offset of every 64th code point; NULL when the bytes are ASCII */
	/* Their counts: 32 bits (a source is at most 64 MiB), side by side rather than each padded. */
	uint32_t nlines, ncp;
	size_t order; /* its position in the sl_sources it was read into: the report's order */
	/* The flags side by side (a run holds a source for every file it was given): */
	int failed;       /* could not be read: an input error was reported, nothing to parse */
	bool unread;      /* added but not read yet: sl_source_read reads it */
	bool parsed;      /* parsed for a target already (an inventory several share): errors reported */
	bool shared;      /* loaded more than once (a manifest that is an inventory too): no byte forgotten */
	bool from_stdin;  /* read from standard input: no file to fix; unnamed when path is "-" */
	bool skipped;     /* not a Kubernetes manifest (manifest.h): read, then left alone */
	bool want_origin; /* --fix may rewrite it: read it in its directory, and record where */
	bool borrowed;    /* another owns it (the language server's parse cache): sl_sources_free leaves it */
	bool stamped;     /* a regular file read whole, as stamp says it was: it may be released */
	/* Released by sl_source_release_summed: read again, the file is the same when its bytes hash
	 * to sum (no fstat then: a report quoting thousands of small files reads each again with an
	 * open and a read alone). */
	bool summed;
	/* After sl_source_release: the bytes read again (again, below: owned; set once, by whichever
	 * thread read them first), or lost when the file no longer holds them. */
	atomic_bool lost;
	const char *role;         /* what it is to the run when not a manifest (input.h), for its errors */
	struct sl_overlay *cache; /* where a copy of what is read from disk is kept (NULL: nowhere) */
	struct sl_origin *origin; /* where it was read (origin.h), when wanted (want_origin); owned */
	const struct sl_origin_dir *origin_dir; /* the directory to read it in, when wanted (the sources') */
	struct sl_file_stamp stamp;             /* when stamped */
	uint64_t sum;                           /* when summed */
	_Atomic(char *) again;                  /* when lost is not set, and read again */
};

/* Build the line (and code point) index that positions need. Idempotent. Sources read from
 * files are indexed where they are parsed, on the parsing thread, since indexing tens of
 * megabytes is not free; sources made from memory are indexed at once. */
void sl_source_index(struct sl_source *s);

/* Bytes [off, end) of s will not be read again (a document nothing reads): the whole pages among
 * them are given back, and read as zeros after. The bytes before the first one that is not blank
 * are kept (a fix looks there to tell JSON). */
void sl_source_forget(const struct sl_source *s, size_t off, size_t end);
/* Give the bytes back: s was parsed and nothing reads them before sl_source_text is asked. Only
 * for a stamped file whose columns need no bytes (ASCII); false (kept) otherwise. */
bool sl_source_release(struct sl_source *s);
/* The same, the bytes' hash kept (summed) so that reading them again needs no fstat. */
bool sl_source_release_summed(struct sl_source *s);
/* s's bytes, NUL-terminated: those parsed, read again from the file (once, then kept) when they
 * were released. NULL when the file is not the one read any more (another stamp, another length)
 * or cannot be read: the caller then leaves out what it would have made of them (a fix, a
 * snippet), and sl_source_lost says so. Safe from several threads at once. */
const char *sl_source_text(const struct sl_source *s);
/* Whether s's bytes were released and could not be read back the same. */
bool sl_source_lost(const struct sl_source *s);
/* Up to want bytes from fd into p (fewer only at the end of the file): how many, or -1 with errno. */
ssize_t sl_read_upto(int fd, char *p, size_t want);
struct sl_source *sl_source_from_memory(const char *path, const char *data, size_t len);
void sl_source_free(struct sl_source *s);

/* 1-based line/column (code points) of a byte offset, and the reverse. */
void sl_source_linecol(const struct sl_source *s, size_t off, unsigned *line, unsigned *col);
/* The same, given a guess of the 0-based line (a parser's line count, which agrees unless the
 * text has lone CRs or Unicode line separators); a wrong guess costs a search. */
void sl_source_linecol_hint(const struct sl_source *s, size_t off, size_t hint, unsigned *line, unsigned *col);
size_t sl_source_offset(const struct sl_source *s, unsigned line, unsigned col);
/* Byte offset of a code-point index (libyaml counts marks in code points). */
size_t sl_source_char_to_byte(const struct sl_source *s, size_t charidx);
/* The length of a UTF-8 byte order mark at the start (3), or 0. */
size_t sl_source_bom(const struct sl_source *s);
/* A span covering [off, end). */
void sl_source_span(const struct sl_source *s, size_t off, size_t end, struct sl_span *out);
/* The 1-based line and column of the span's start, and of its end (0, 0 for a span of no
 * source); and the start's line alone. */
void sl_span_start(const struct sl_span *at, unsigned *line, unsigned *col);
void sl_span_end(const struct sl_span *at, unsigned *line, unsigned *col);
unsigned sl_span_line(const struct sl_span *at);
/* Add an edit to a fix: [off, end) of src replaced by text (copied). */
void sl_fix_edit(struct sl_fix *fx, const struct sl_source *src, size_t off, size_t end, const char *text);

#endif
