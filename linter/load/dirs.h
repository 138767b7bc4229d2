/* dirs.h — what a run learns about directories once rather than once per file: the working
 * directory (asked of the system once) and, for each directory a path given on the command line
 * lies in, the Helm chart that holds it (the nearest directory at or above it with a Chart.yaml,
 * up to the repository root). A run given thousands of files from a few directories then looks
 * at each directory once, not at every level above every file. Owned by the sources (input.h)
 * and freed with them: one run's, so that a Chart.yaml or a .git created between two runs of the
 * language server (each change is a new run) is seen by the next one. */
#ifndef SL_DIRS_H
#define SL_DIRS_H
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"

struct sl_dirs {
	char *cwd;              /* the working directory, absolute; NULL when it could not be had */
	bool cwd_asked;         /* cwd is what the system said */
	struct sl_strpool seen; /* the directories looked at: absolute, normalised */
	size_t *chart;          /* by position in seen: the position of the chart's directory, or NO_CHART */
	size_t capchart;
	/* The directories of the files asked about, as written (a run names thousands of files in a
	 * few directories): by position, the answer, so that each is made absolute and normalised
	 * once. Relative ones are taken from cwd, which does not change during a run. */
	struct sl_strpool typed;
	size_t *typed_chart;
	size_t captyped;
};

/* The working directory (NULL when it cannot be had), asked once per run. */
const char *sl_dirs_cwd(struct sl_dirs *d);
/* path absolute and normalised, a relative one taken from the working directory (as
 * sl_path_absolute, without asking for it again). Caller frees. */
char *sl_dirs_absolute(struct sl_dirs *d, const char *path);
/* The directory, absolute, of the Helm chart that holds path (path itself when it is a directory
 * with a Chart.yaml), or NULL when none does up to the repository root (a directory with .git)
 * or /. Owned by d. */
const char *sl_dirs_chart(struct sl_dirs *d, const char *path, bool is_dir);
void sl_dirs_free(struct sl_dirs *d);

#endif
