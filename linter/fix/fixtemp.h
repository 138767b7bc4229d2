/* fixtemp.h — the temporary file --fix writes beside a file before it replaces it. Named
 * .NAME.schedlint-fix-PID-XXXXXX (NAME the file's, PID the writer's): hidden, so a directory walk
 * never lints it, and recognisable, so a run can tell whose it is. There is at most one at a
 * time; it is removed on every path out, and by SIGINT, SIGTERM and SIGHUP, which then end the
 * run as they would have. One left by a run killed outright (SIGKILL, a power cut) is removed by
 * the next run that writes in its directory, once its writer is gone. */
#ifndef SL_FIXTEMP_H
#define SL_FIXTEMP_H
#include <limits.h>
#include <signal.h>
#include <stdbool.h>

#define SL_FIXTEMP_SIGNALS 3

/* The signal actions the guard replaced, to put back. */
struct sl_fixtemp_guard {
	struct sigaction old[SL_FIXTEMP_SIGNALS];
	bool set[SL_FIXTEMP_SIGNALS];
};

/* From here until sl_fixtemp_unguard, SIGINT, SIGTERM and SIGHUP remove the temporary file
 * being written before they end the run (those ignored, or handled by the caller, are left so). */
void sl_fixtemp_guard(struct sl_fixtemp_guard *g);
void sl_fixtemp_unguard(struct sl_fixtemp_guard *g);

/* A new temporary file in dirfd for the file name, 0600: its descriptor (its name in tmp), or -1
 * with errno. It is the current one, which a signal removes, until sl_fixtemp_renamed or
 * sl_fixtemp_remove. */
int sl_fixtemp_create(int dirfd, const char *name, char tmp[NAME_MAX + 1]);
/* The current temporary file has replaced its file: nothing is left to remove. */
void sl_fixtemp_renamed(void);
/* Remove the current temporary file, tmp in dirfd. */
void sl_fixtemp_remove(int dirfd, const char *tmp);
/* Remove the temporary files in dirfd whose writers are gone (left by runs killed outright). */
void sl_fixtemp_sweep(int dirfd);

#endif
