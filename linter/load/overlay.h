/* overlay.h — text that stands in for files when a run reads them: the open buffers of an
 * editor (unsaved text, and files that do not exist on disk yet), and a cache of the files
 * already read, each kept with the stat of the file it was read from and used only while that
 * stat is unchanged. The language server lints the workspace once per change: with the cache,
 * a change costs the directory walk and copies, not reading every manifest again. Owns: every
 * path and text in it. Safe to use from several threads (the parsing threads store what they
 * read while the main thread looks up). */
#ifndef SL_OVERLAY_H
#define SL_OVERLAY_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "../base/buf.h"

/* What identifies one version of a file: a rewrite changes the size, mtime or ctime. */
struct sl_filekey {
	unsigned long long dev, ino, size;
	long long mtime_s, mtime_ns, ctime_s, ctime_ns;
};

struct sl_overlay_entry {
	char *path;
	char *buf; /* the open buffer's text; NULL when none is open */
	size_t buflen;
	char *disk; /* the file's text as last read; NULL when not cached */
	size_t disklen;
	struct sl_filekey key; /* of the file disk was read from */
};

struct sl_overlay {
	struct sl_overlay_entry **v; /* never removed: a path comes back often (closed, reopened) */
	size_t n, cap;
	struct sl_strmap index; /* path → position in v; keys are the entries' paths */
	pthread_mutex_t mu;
	size_t cached_bytes; /* of every disk copy: what the cache holds */
};

/* The key of the file st describes. */
void sl_filekey_of(const struct stat *st, struct sl_filekey *k);

void sl_overlay_init(struct sl_overlay *ov);
void sl_overlay_free(struct sl_overlay *ov);

/* An open buffer: path reads as text (a copy) until unpinned, whatever is on disk. */
void sl_overlay_pin(struct sl_overlay *ov, const char *path, const char *text, size_t len);
void sl_overlay_unpin(struct sl_overlay *ov, const char *path);
bool sl_overlay_pinned(struct sl_overlay *ov, const char *path);
/* Forget the cached copy of path (a saved or changed file): the next run reads it. */
void sl_overlay_drop(struct sl_overlay *ov, const char *path);

/* What path reads as: the open buffer, else the cached copy when st (the file's stat now; NULL
 * when it does not exist) is the one it was read with. A NUL-terminated copy the caller owns,
 * its length in *len; NULL when the file must be read. */
char *sl_overlay_get(struct sl_overlay *ov, const char *path, const struct stat *st, size_t *len);
/* Keep a copy of what a regular file read as, with its stat. */
void sl_overlay_store(struct sl_overlay *ov, const char *path, const struct stat *st, const char *data, size_t len);

#endif
