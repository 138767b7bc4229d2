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

/* path opened in its directory, the whole path resolved here: for a file whose directory is not
 * held, or that is a symlink (o->name is then its last target's). */
static int open_resolved(struct sl_origin *o, const char *path)
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

/* d resolved and opened: held when it can be, within SL_ORIGIN_HELD. */
static void dir_open(struct sl_origin_dirs *ds, struct sl_origin_dir *d, const char *given)
{
	d->fd = -1;
	if (ds->held >= SL_ORIGIN_HELD || !(d->real = realpath(given, NULL)))
		return;
	int fd = open_dir(d->real);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		d->dev = (unsigned long long)st.st_dev;
		d->ino = (unsigned long long)st.st_ino;
		d->fd = fd;
		ds->held++;
	} else if (fd >= 0)
		close(fd);
}

const struct sl_origin_dir *sl_origin_dir_of(struct sl_origin_dirs *ds, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *name = !slash          ? sl_xstrdup(".")
		     : slash == path ? sl_xstrdup("/")
				     : sl_xasprintf("%.*s", (int)(slash - path), path);
	size_t i = sl_intern_id(&ds->given, name);
	free(name);
	if (i < ds->cap && ds->v[i])
		return ds->v[i];
	size_t old = ds->cap;
	sl_grow(&ds->v, &ds->cap, i + 1, sizeof *ds->v);
	memset(ds->v + old, 0, (ds->cap - old) * sizeof *ds->v);
	ds->v[i] = sl_xcalloc(1, sizeof *ds->v[i]);
	dir_open(ds, ds->v[i], ds->given.v[i]);
	return ds->v[i];
}

void sl_origin_dirs_free(struct sl_origin_dirs *ds)
{
	for (size_t i = 0; i < ds->given.n; i++) {
		if (ds->v[i]->fd >= 0)
			close(ds->v[i]->fd);
		free(ds->v[i]->real);
		free(ds->v[i]);
	}
	free(ds->v);
	sl_strpool_free(&ds->given);
	memset(ds, 0, sizeof *ds);
}

int sl_origin_open(struct sl_origin *o, const struct sl_origin_dir *d, const char *path)
{
	if (!d || d->fd < 0)
		return open_resolved(o, path);
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	int fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		return open_resolved(o, path); /* a symlink: the file it names, wherever that is */
	if (fd >= 0) {
		o->dir = sl_xstrdup(d->real);
		o->name = sl_xstrdup(name);
		o->dir_dev = d->dev;
		o->dir_ino = d->ino;
	}
	return fd;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

void sl_origin_record(struct sl_origin *o, const struct stat *st, size_t read)
{
	if (!st) {
		o->unsettled = true;
		return;
	}
	o->dev = (unsigned long long)st->st_dev;
	o->ino = (unsigned long long)st->st_ino;
	o->size = (long long)st->st_size;
	o->mtime = st->st_mtim;
	/* Written to while it was read (it grew or shrank): the bytes may be no version it ever had.
	 * A change that keeps the size shows at the writer, whose fstatat finds another mtime. */
	if ((long long)read != o->size)
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
