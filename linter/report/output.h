/* output.h — where the report leaves the program: standard output, standard error or --output,
 * each write checked. A report cut short by a full disk or a closed pipe must not pass for a
 * whole one, so a failed write is an error the caller reports (exit 2); --output is replaced only
 * by a complete file, never left truncated, and never names one of the inputs. */
#ifndef SL_OUTPUT_H
#define SL_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Write n bytes of s to fd, again after a short write or EINTR: 0, or -1 with errno set. */
int sl_write_all(int fd, const char *s, size_t n);

/* Make path hold exactly s (n bytes): written to a temporary file in the same directory, synced,
 * then renamed over path, so a reader sees the old file or the whole new one; the temporary file
 * is removed when anything fails. A symbolic link is followed (the file it names is replaced, as
 * opening the path would write it); a path that is not a regular file (/dev/stdout, a FIFO) is
 * written directly. An existing file keeps its permissions; a new one gets 0666 less the umask.
 * 0, or -1 with errno set. */
int sl_write_file(const char *path, const char *s, size_t n);

/* Output gathered in memory, then written whole: a write that fails is seen with its errno, where
 * a stdio buffer would set an error flag and lose the reason. */
struct sl_capture {
	char *s;
	size_t n;
	FILE *f; /* write into this */
};
FILE *sl_capture_open(struct sl_capture *c);
/* Write what c gathered to path (--output: sl_write_file) or, when path is NULL, to fd; c is
 * closed and freed. 0, or 2 after "schedlint: error: cannot write WHAT[ to PATH]: reason" on
 * stderr. */
int sl_capture_write(struct sl_capture *c, const char *path, int fd, const char *what);

/* The report, written as it is made rather than gathered first (a report of tens of megabytes
 * would double the memory the run holds): to path as sl_write_file writes it (a temporary file
 * renamed over path only when every write succeeded), or when path is NULL to fd. Each write is
 * checked and the first failure's reason kept. Where the C library cannot make such a stream
 * (fopencookie is glibc's), the report is gathered in an sl_capture and written whole. */
/* Where a file's bytes go: path itself when it is not a regular file, else a temporary file
 * beside it renamed over path at the end. */
struct sl_out_target {
	int fd;
	char *tmp;    /* NULL: written directly */
	char *target; /* path, links followed */
};
struct sl_out {
	FILE *f; /* write into this */
	const char *path;
	int fd;
	int err; /* the first failure's errno, 0 */
	struct sl_out_target t;
	struct sl_capture mem;
};
FILE *sl_out_open(struct sl_out *o, const char *path, int fd);
/* Everything written, or 2 after "schedlint: error: cannot write WHAT[ to PATH]: reason" on
 * stderr; o is closed. */
int sl_out_close(struct sl_out *o, const char *what);

/* Whether a and b name the same existing file (device and inode, links followed). */
bool sl_same_file(const char *a, const char *b);

#endif
