/* origin.h — where a file that --fix may rewrite was read: the directory that holds it (its path,
 * symlinks resolved once, and its device and inode) and the file as it was read (device, inode,
 * size, modification time). The writer (fixwrite.c) checks both again before it replaces the
 * file, so a fix goes to the file that was read, in the directory it was read from, or nowhere:
 * an editor or a checkout that swaps a directory for a symlink meanwhile cannot redirect it.
 * Owned by its source (source.h); holds no file descriptor, so any number of files may be fixed
 * in one run. */
#ifndef SL_ORIGIN_H
#define SL_ORIGIN_H
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

struct sl_origin {
	char *dir;  /* absolute, with no symlink in it */
	char *name; /* the file's name in dir (of the last target, when a symlink was given) */
	unsigned long long dir_dev, dir_ino;
	unsigned long long dev, ino;
	long long size;
	struct timespec mtime;
	bool unsettled; /* it changed while it was read: no file can be the one read */
};

/* Open path for reading in its directory, symlinks resolved, recording the directory into o
 * (which the caller zeroed): the file's descriptor, or -1 with errno. */
int sl_origin_open(struct sl_origin *o, const char *path);
/* Record the file read through fd once read; before is its fstat from before the reading (NULL
 * when there is none): a file that changed meanwhile is unsettled. */
void sl_origin_record(struct sl_origin *o, int fd, const struct stat *before);
/* o's directory opened again, for writing in: its descriptor when it is still the directory the
 * file was read from; else -1, with *other set when it is another (or none now), or errno. */
int sl_origin_open_dir(const struct sl_origin *o, bool *other);
/* Whether st (an fstatat that does not follow a symlink) is the file as it was read. */
bool sl_origin_same(const struct sl_origin *o, const struct stat *st);
void sl_origin_free(struct sl_origin *o);

#endif
