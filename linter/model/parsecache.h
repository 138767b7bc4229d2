/* parsecache.h — parsed sources kept between runs, for the language server, which lints the
 * whole workspace on every change: a source whose path, role and bytes are the ones a kept entry
 * was parsed from takes that entry's source and trees instead of parsing again, so that a change
 * costs the parse of what changed, not of every file. The objects are still read from the trees
 * on every run (cheap, and they are changed by relating them), so a run's model is built as a
 * fresh run's would be. Only parses without an input error are kept: the errors are reported
 * again by parsing again. Owns: every entry's source (bytes, line index) and trees; a run that
 * uses them only borrows them (sl_source.borrowed, sl_ystream.borrowed), so the entries must
 * outlive every run that used them: sweep or clear only when no run is held. */
#ifndef SL_PARSECACHE_H
#define SL_PARSECACHE_H
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../load/yamldoc.h"

struct sl_source;

struct sl_parsed {
	char *key; /* role and path */
	struct sl_source *src;
	struct sl_ystream ys;   /* in its own arena */
	bool skipped;           /* not a manifest (manifest.h): nothing parsed is kept */
	unsigned long long gen; /* the last sweep's generation it was used in */
};

struct sl_parse_cache {
	struct sl_parsed **v;
	size_t n, cap;
	struct sl_strmap index; /* key → position in v; keys are the entries' */
	unsigned long long gen; /* advanced by every sweep */
	bool used;              /* an entry was used or stored since the last sweep */
	/* Of the runs since the last sweep: sources taken from the cache, and parsed. */
	size_t hits, misses;
};

void sl_parse_cache_init(struct sl_parse_cache *c);
void sl_parse_cache_free(struct sl_parse_cache *c);
/* Forget every entry (what parses a file has changed: the config). */
void sl_parse_cache_clear(struct sl_parse_cache *c);
/* Forget the entries the runs since the last sweep did not use (an older text of a file, a file
 * gone), unless they used none (a run cancelled before parsing uses none, and tells nothing). */
void sl_parse_cache_sweep(struct sl_parse_cache *c);

/* For model.c's parse. The entry a source of path in role may take, claimed for it: NULL when
 * there is none, or when another source of this run claimed it already (the same file loaded
 * twice: neither may share the other's trees). Then *fresh says whether the source may be kept
 * once parsed. Not thread-safe: called before the parsing threads start. */
struct sl_parsed *sl_parse_cache_claim(struct sl_parse_cache *c, const char *path, int role, bool *fresh);
/* Whether src, read, has the bytes e was parsed from. Read-only: safe on the parsing threads. */
bool sl_parse_cache_matches(const struct sl_parsed *e, const struct sl_source *src);
/* Keep src and its stream ys (both taken: they are marked borrowed for the run that parsed
 * them), in place of what was kept for path in role. */
void sl_parse_cache_store(struct sl_parse_cache *c, int role, struct sl_source *src, const struct sl_ystream *ys,
			  bool skipped);

#endif
