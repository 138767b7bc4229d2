/* output.c — checked writes, and --output replaced whole (output.h). */
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

/* A device, a FIFO or a terminal is written as it is: renaming a file over it would replace the
 * device node itself (/dev/null, for root), and a pipe has no directory to put a file in. */
static int write_direct(const char *path, const char *s, size_t n)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = sl_write_all(fd, s, n);
	int err = errno;
	if (close(fd) < 0 && !rc) {
		rc = -1;
		err = errno;
	}
	errno = err;
	return rc;
}

/* The temporary file beside target: in the same directory, so that rename replaces the target
 * in one step, and named after it. */
static char *temp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	if (!slash)
		return sl_xasprintf(".%s.schedlint-out-XXXXXX", target);
	return sl_xasprintf("%.*s/.%s.schedlint-out-XXXXXX", (int)(slash - target), target, slash + 1);
}

static int write_temp(int fd, const char *s, size_t n, mode_t mode)
{
	if (fchmod(fd, mode) < 0 || sl_write_all(fd, s, n) < 0 || fsync(fd) < 0)
		return -1;
	return 0;
}

int sl_write_file(const char *path, const char *s, size_t n)
{
	struct stat st;
	char *real = NULL;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		real = realpath(path, NULL); /* NULL for a dangling link: it is replaced, as if absent */
	const char *target = real ? real : path;
	bool exists = stat(target, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		int rc = write_direct(target, s, n);
		int err = errno;
		free(real);
		errno = err;
		return rc;
	}
	mode_t mode = st.st_mode & 07777;
	if (!exists) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	char *tmp = temp_name(target);
	int fd = mkstemp(tmp);
	int rc = fd < 0 ? -1 : write_temp(fd, s, n, mode);
	int err = errno;
	if (fd >= 0 && close(fd) < 0 && !rc) {
		rc = -1;
		err = errno;
	}
	if (!rc && rename(tmp, target) < 0) {
		rc = -1;
		err = errno;
	}
	if (rc && fd >= 0)
		unlink(tmp);
	free(tmp);
	free(real);
	errno = err;
	return rc;
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

int sl_capture_write(struct sl_capture *c, const char *path, int fd, const char *what)
{
	int rc = fclose(c->f); /* a memory stream fails only for want of memory */
	if (!rc)
		rc = path ? sl_write_file(path, c->s, c->n) : sl_write_all(fd, c->s, c->n);
	int err = errno;
	free(c->s);
	c->s = NULL;
	if (!rc)
		return 0;
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

bool sl_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
