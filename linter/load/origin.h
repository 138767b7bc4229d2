/* origin.h — where a file that --fix may rewrite was read: the directory that holds it (its path,
 * symlinks resolved once, and its device and inode) and the file as it was read (device, inode,
 * size, modification time). The writer (fixwrite.c) checks both again before it replaces the
 * file, so a fix goes to the file that was read, in the directory it was read from, or nowhere:
 * an editor or a checkout that swaps a directory for a symlink meanwhile cannot redirect it.
 * Owned by its source (source.h); holds no file descriptor, so any number of files may be fixed
 * in one run (the directories they are read from are held while they are read, a bounded number:
 * struct sl_origin_dirs). */
#ifndef SL_ORIGIN_H
#define SL_ORIGIN_H
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "../base/buf.h"

struct sl_origin {
	char *dir;  /* absolute, with no symlink in it */
	char *name; /* the file's name in dir (of the last target, when a symlink was given) */
	unsigned long long dir_dev, dir_ino;
	unsigned long long dev, ino;
	long long size;
	struct timespec mtime;
	bool unsettled; /* it changed while it was read: no file can be the one read */
};

/* A directory files to fix are read from, resolved (symlinks followed) and opened once for all of
 * them, since --fix on a tree reads many files from few directories: its descriptor is held while
 * the run reads, up to SL_ORIGIN_HELD directories (beyond them a file resolves its own path, as
 * it would alone). Read-only once made, so the parsing threads share it. */
struct sl_origin_dir {
	char *real; /* absolute, with no symlink in it */
	unsigned long long dev, ino;
	int fd; /* -1: not held */
};
#define SL_ORIGIN_HELD 64

/* The directories of one run's files, by the name their paths give them. Owned by the sources
 * (input.h); freed, and the descriptors closed, with them. */
struct sl_origin_dirs {
	struct sl_strpool given;
	struct sl_origin_dir **v; /* by position in given; each on its own, so a pointer stays good */
	size_t cap, held;
};

/* The directory path lies in, resolved and opened the first time one of its files is added (where
 * files are added, before any is read). Never NULL. */
const struct sl_origin_dir *sl_origin_dir_of(struct sl_origin_dirs *ds, const char *path);
void sl_origin_dirs_free(struct sl_origin_dirs *ds);

/* Open path for reading in its directory d (held: opened there by name; else, or when the name is
 * a symlink, the path resolved), recording the directory into o (which the caller zeroed): the
 * file's descriptor, or -1 with errno. */
int sl_origin_open(struct sl_origin *o, const struct sl_origin_dir *d, const char *path);
/* Record the file read: st is the fstat of its descriptor taken before the reading (NULL when
 * there is none) and read the bytes it gave. The identity is that one fstat: a file written to
 * while it was read has another size or modification time by the time the writer compares, and
 * one whose size is not what was read is unsettled at once. */
void sl_origin_record(struct sl_origin *o, const struct stat *st, size_t read);
/* o's directory opened again, for writing in: its descriptor when it is still the directory the
 * file was read from; else -1, with *other set when it is another (or none now), or errno. */
int sl_origin_open_dir(const struct sl_origin *o, bool *other);
/* Whether st (an fstatat that does not follow a symlink) is the file as it was read. */
bool sl_origin_same(const struct sl_origin *o, const struct stat *st);
void sl_origin_free(struct sl_origin *o);

#endif
