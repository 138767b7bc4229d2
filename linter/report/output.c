/* output.c — checked writes, and --output replaced whole (output.h). */
#define _GNU_SOURCE /* fopencookie, where the C library has it: the report is then streamed */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/escape.h"

#ifdef __GLIBC__
#define SL_OUT_STREAM 1
#endif

int sl_write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) { /* no progress and no error: call it what it is, a device that is full */
			errno = ENOSPC;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The temporary file beside target: in the same directory, so that rename replaces the target
 * in one step, and named after it. A device, a FIFO or a terminal is written as it is instead:
 * renaming a file over it would replace the device node itself (/dev/null, for root), and a pipe
 * has no directory to put a file in. */
static char *temp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	if (!slash)
		return sl_xasprintf(".%s.schedlint-out-XXXXXX", target);
	return sl_xasprintf("%.*s/.%s.schedlint-out-XXXXXX", (int)(slash - target), target, slash + 1);
}

/* Open where path's bytes go (output.h); a temporary file gets the mode of the file it replaces,
 * or 0666 less the umask for a new one. 0, or -1 with errno set. */
static int target_open(struct sl_out_target *t, const char *path)
{
	struct stat st;
	char *real = NULL;
	*t = (struct sl_out_target){-1, NULL, NULL};
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		real = realpath(path, NULL); /* NULL for a dangling link: it is replaced, as if absent */
	t->target = real ? real : sl_xstrdup(path);
	bool exists = stat(t->target, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		t->fd = open(t->target, O_WRONLY | O_CLOEXEC);
		return t->fd < 0 ? -1 : 0;
	}
	mode_t mode = st.st_mode & 07777;
	if (!exists) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	t->tmp = temp_name(t->target);
	t->fd = mkstemp(t->tmp);
	if (t->fd >= 0 && fchmod(t->fd, mode) == 0)
		return 0;
	int err = errno;
	if (t->fd >= 0) {
		close(t->fd);
		unlink(t->tmp);
		t->fd = -1;
	}
	free(t->tmp);
	t->tmp = NULL;
	errno = err;
	return -1;
}

/* The end of the writes (rc: -1 when one failed, with errno): the temporary file synced and
 * renamed into place, or removed. 0, or -1 with errno set. */
static int target_close(struct sl_out_target *t, int rc)
{
	int err = errno;
	if (!rc && t->tmp && fsync(t->fd) < 0) {
		rc = -1;
		err = errno;
	}
	if (t->fd >= 0 && close(t->fd) < 0 && !rc) {
		rc = -1;
		err = errno;
	}
	if (!rc && t->tmp && rename(t->tmp, t->target) < 0) {
		rc = -1;
		err = errno;
	}
	if (rc && t->tmp && t->fd >= 0)
		unlink(t->tmp);
	free(t->tmp);
	free(t->target);
	*t = (struct sl_out_target){-1, NULL, NULL};
	errno = err;
	return rc;
}

int sl_write_file(const char *path, const char *s, size_t n)
{
	struct sl_out_target t;
	if (target_open(&t, path) < 0) {
		int err = errno;
		target_close(&t, -1);
		errno = err;
		return -1;
	}
	return target_close(&t, sl_write_all(t.fd, s, n));
}

FILE *sl_capture_open(struct sl_capture *c)
{
	c->s = NULL;
	c->n = 0;
	c->f = open_memstream(&c->s, &c->n);
	if (!c->f) {
		fputs("schedlint: out of memory\n", stderr);
		abort();
	}
	return c->f;
}

/* "schedlint: error: cannot write WHAT[ to PATH]: reason" on stderr; returns 2. */
static int write_error(const char *what, const char *path, int err)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_printf(&b, "schedlint: error: cannot write %s", what);
	if (path) {
		sl_buf_puts(&b, " to ");
		sl_esc_puts(&b, path);
	}
	sl_buf_printf(&b, ": %s\n", strerror(err));
	fwrite(b.s, 1, b.len, stderr);
	sl_buf_free(&b);
	return 2;
}

int sl_capture_write(struct sl_capture *c, const char *path, int fd, const char *what)
{
	int rc = fclose(c->f); /* a memory stream fails only for want of memory */
	if (!rc)
		rc = path ? sl_write_file(path, c->s, c->n) : sl_write_all(fd, c->s, c->n);
	int err = errno;
	free(c->s);
	c->s = NULL;
	return rc ? write_error(what, path, err) : 0;
}

#ifdef SL_OUT_STREAM
/* The stream's writes, checked one by one: the first failure's errno is kept (a stdio buffer
 * would keep only an error flag), and nothing is written after it. */
static ssize_t out_write(void *cookie, const char *s, size_t n)
{
	struct sl_out *o = cookie;
	if (!o->err && sl_write_all(o->t.fd, s, n) < 0)
		o->err = errno ? errno : EIO;
	return o->err ? 0 : (ssize_t)n;
}
#endif

FILE *sl_out_open(struct sl_out *o, const char *path, int fd)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	o->fd = fd;
#ifdef SL_OUT_STREAM
	if (!path)
		o->t = (struct sl_out_target){fd, NULL, NULL};
	else if (target_open(&o->t, path) < 0)
		o->err = errno;
	o->f = fopencookie(o, "w", (cookie_io_functions_t){NULL, out_write, NULL, NULL});
	if (o->f) {
		setvbuf(o->f, NULL, _IOFBF, 1 << 16); /* a write per 64 KiB, not per stdio buffer */
		return o->f;
	}
	fputs("schedlint: out of memory\n", stderr);
	abort();
#else
	return o->f = sl_capture_open(&o->mem);
#endif
}

int sl_out_close(struct sl_out *o, const char *what)
{
#ifdef SL_OUT_STREAM
	if (fclose(o->f) && !o->err)
		o->err = errno ? errno : EIO;
	int rc = 0;
	if (o->path) {
		errno = o->err;
		rc = target_close(&o->t, o->err ? -1 : 0);
		o->err = rc ? errno : 0;
	}
	return o->err ? write_error(what, o->path, o->err) : 0;
#else
	return sl_capture_write(&o->mem, o->path, o->fd, what);
#endif
}

bool sl_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
