/* fixtemp.c — the temporary files of --fix: made, removed, and cleaned up after (fixtemp.h). */
#include "fixtemp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG ".schedlint-fix-"
#define TAG_LEN (sizeof TAG - 1)
#define SUFFIX_LEN 6
/* Of the file's name, what the temporary's keeps: with the tag, a pid and the suffix it stays
 * within NAME_MAX. */
#define NAME_KEEP 200

static const int signals[SL_FIXTEMP_SIGNALS] = {SIGHUP, SIGINT, SIGTERM};

/* The temporary file being written. The one global the writer has, and it has to be one: a
 * signal handler can reach nothing else, and it must know which file to remove. Only the thread
 * that writes the fixes sets it (the run's other threads are joined by then); armed is cleared
 * before the name changes and set once it is whole (the fences keep the compiler to that order),
 * so the handler sees a whole name or none. */
static struct {
	volatile sig_atomic_t armed;
	volatile sig_atomic_t dirfd;
	char name[NAME_MAX + 1];
} current;

/* Async-signal-safe only: unlinkat, sigaction, raise. The signal is blocked while this runs, so
 * raised again it ends the process, by that signal, once the handler returns. */
static void on_signal(int sig)
{
	if (current.armed)
		(void)unlinkat(current.dirfd, current.name, 0);
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

void sl_fixtemp_guard(struct sl_fixtemp_guard *g)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < SL_FIXTEMP_SIGNALS; i++) /* one at a time: a second waits for the first */
		sigaddset(&sa.sa_mask, signals[i]);
	for (int i = 0; i < SL_FIXTEMP_SIGNALS; i++)
		g->set[i] = sigaction(signals[i], NULL, &g->old[i]) == 0 && g->old[i].sa_handler == SIG_DFL &&
			    sigaction(signals[i], &sa, NULL) == 0;
}

void sl_fixtemp_unguard(struct sl_fixtemp_guard *g)
{
	for (int i = 0; i < SL_FIXTEMP_SIGNALS; i++)
		if (g->set[i])
			sigaction(signals[i], &g->old[i], NULL);
}

static void disarm(void)
{
	current.armed = 0;
	atomic_signal_fence(memory_order_seq_cst);
}

/* Six characters no other name is likely to have; O_EXCL makes sure of it. */
static void suffix(char out[SUFFIX_LEN + 1], unsigned attempt)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t x =
	    (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)attempt << 52) ^ (uint64_t)(uintptr_t)out;
	x ^= x >> 33; /* a splitmix64 finaliser: every bit of the above moves every character */
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	for (int i = 0; i < SUFFIX_LEN; i++, x /= sizeof digits - 1)
		out[i] = digits[x % (sizeof digits - 1)];
	out[SUFFIX_LEN] = 0;
}

int sl_fixtemp_create(int dirfd, const char *name, char tmp[NAME_MAX + 1])
{
	size_t keep = strlen(name) < NAME_KEEP ? strlen(name) : NAME_KEEP;
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		char sfx[SUFFIX_LEN + 1];
		suffix(sfx, attempt);
		disarm();
		snprintf(current.name, sizeof current.name, ".%.*s" TAG "%ld-%s", (int)keep, name, (long)getpid(), sfx);
		current.dirfd = dirfd;
		atomic_signal_fence(memory_order_seq_cst);
		current.armed = 1; /* before the file exists: there is no moment it exists unguarded */
		int fd = openat(dirfd, current.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			memcpy(tmp, current.name, sizeof current.name);
			return fd;
		}
		disarm(); /* not ours: never to be removed by us */
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

void sl_fixtemp_renamed(void)
{
	disarm();
}

void sl_fixtemp_remove(int dirfd, const char *tmp)
{
	int err = errno;
	(void)unlinkat(dirfd, tmp, 0);
	disarm();
	errno = err;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Whether name is one of ours: .NAME.schedlint-fix-PID-XXXXXX, NAME not empty; its writer in
 * *pid. */
static bool is_fixtemp(const char *name, pid_t *pid)
{
	size_t n = strlen(name);
	if (n < 1 + 1 + TAG_LEN + 1 + 1 + SUFFIX_LEN || name[0] != '.')
		return false;
	const char *sfx = name + n - SUFFIX_LEN;
	for (int i = 0; i < SUFFIX_LEN; i++)
		if (!is_alnum(sfx[i]))
			return false;
	const char *end = sfx - 1, *p = end; /* the pid is [p, end) */
	if (*end != '-')
		return false;
	while (p > name && is_digit(p[-1]))
		p--;
	if (p == end || end - p > 9 || (size_t)(p - name) < 2 + TAG_LEN || memcmp(p - TAG_LEN, TAG, TAG_LEN))
		return false;
	long v = 0;
	for (; p < end; p++)
		v = 10 * v + (*p - '0');
	*pid = (pid_t)v;
	return v > 0;
}

/* A file is left only by a run that was killed outright, and is removed once no process has its
 * writer's pid: a run writing in the same directory now is alive, and its file is left alone.
 * (A pid reused since is taken for the writer: its file waits for a later run.) */
void sl_fixtemp_sweep(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return; /* a directory that cannot be listed: nothing to find */
	}
	pid_t self = getpid(), pid;
	struct dirent *de;
	while ((de = readdir(d)))
		if (is_fixtemp(de->d_name, &pid) && pid != self && kill(pid, 0) < 0 && errno == ESRCH)
			(void)unlinkat(dirfd, de->d_name, 0);
	closedir(d);
}
