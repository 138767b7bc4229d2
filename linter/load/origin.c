/* origin.c — where a file to be fixed was read, and whether it is still there (origin.h). */
#define _GNU_SOURCE /* O_PATH: a directory that may be searched but not listed can still be held */
#include "origin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/buf.h"

/* A directory opened to work in: readable where it can be (fsync and listing need that), else
 * for search only, which is all openat, fstatat and renameat need. */
static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#ifdef O_PATH
	if (fd < 0 && errno == EACCES)
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
#endif
	return fd;
}

int sl_origin_open(struct sl_origin *o, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return -1;
	const char *slash = strrchr(real, '/');
	o->dir = slash == real ? sl_xstrdup("/") : sl_xasprintf("%.*s", (int)(slash - real), real);
	o->name = sl_xstrdup(slash + 1);
	free(real);
	int dfd = open_dir(o->dir);
	struct stat dst;
	if (dfd < 0)
		return -1;
	int fd = -1;
	if (fstat(dfd, &dst) == 0) {
		o->dir_dev = (unsigned long long)dst.st_dev;
		o->dir_ino = (unsigned long long)dst.st_ino;
		/* The name was resolved above: a symlink there now is not the file that was given. */
		fd = openat(dfd, o->name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	}
	int err = errno;
	close(dfd);
	errno = err;
	return fd;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

void sl_origin_record(struct sl_origin *o, int fd, const struct stat *before)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		o->unsettled = true;
		return;
	}
	o->dev = (unsigned long long)st.st_dev;
	o->ino = (unsigned long long)st.st_ino;
	o->size = (long long)st.st_size;
	o->mtime = st.st_mtim;
	/* Written to while it was read: the bytes read may be no version the file ever had. */
	if (before && (before->st_size != st.st_size || !same_time(&before->st_mtim, &st.st_mtim)))
		o->unsettled = true;
}

int sl_origin_open_dir(const struct sl_origin *o, bool *other)
{
	*other = false;
	int fd = open_dir(o->dir);
	struct stat st;
	if (fd < 0) {
		*other = errno == ENOENT || errno == ENOTDIR || errno == ELOOP;
		return -1;
	}
	if (fstat(fd, &st) < 0 || (unsigned long long)st.st_dev != o->dir_dev ||
	    (unsigned long long)st.st_ino != o->dir_ino) {
		*other = true;
		close(fd);
		return -1;
	}
	return fd;
}

bool sl_origin_same(const struct sl_origin *o, const struct stat *st)
{
	return !o->unsettled && (unsigned long long)st->st_dev == o->dev && (unsigned long long)st->st_ino == o->ino &&
	       (long long)st->st_size == o->size && same_time(&st->st_mtim, &o->mtime);
}

void sl_origin_free(struct sl_origin *o)
{
	if (!o)
		return;
	free(o->dir);
	free(o->name);
	free(o);
}
