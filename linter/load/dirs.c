/* dirs.c — what a run learns about directories, once (dirs.h). */
#include "dirs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "path.h"

#define NO_CHART SIZE_MAX

const char *sl_dirs_cwd(struct sl_dirs *d)
{
	if (!d->cwd_asked) {
		d->cwd = sl_path_cwd();
		d->cwd_asked = true;
	}
	return d->cwd;
}

char *sl_dirs_absolute(struct sl_dirs *d, const char *path)
{
	return sl_path_absolute_at(path[0] == '/' ? NULL : sl_dirs_cwd(d), path);
}

static bool exists_in(const char *dir, const char *name, bool want_dir)
{
	char *p = sl_xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", name);
	struct stat st;
	bool ok = stat(p, &st) == 0 && (want_dir ? true : S_ISREG(st.st_mode));
	free(p);
	return ok;
}

/* dir (absolute, normalised; cut back in place) and the directories above it, looked at on disk
 * up to the first one already known, the first chart, or the repository root: every one walked
 * through gets the answer it leads to. */
static size_t chart_at(struct sl_dirs *d, char *dir)
{
	size_t *walked = NULL, n = 0, cap = 0, found = NO_CHART;
	for (;;) {
		size_t id = sl_strmap_get(&d->seen.map, dir);
		if (id != (size_t)-1) {
			found = d->chart[id];
			break;
		}
		id = sl_intern_id(&d->seen, dir);
		sl_grow(&d->chart, &d->capchart, d->seen.n, sizeof *d->chart);
		sl_grow(&walked, &cap, n + 1, sizeof *walked);
		walked[n++] = id;
		if (exists_in(dir, "Chart.yaml", false)) {
			found = id;
			break;
		}
		char *slash = strrchr(dir, '/');
		/* No slash: a relative path, the working directory unknown; nothing above to look at. */
		if (exists_in(dir, ".git", true) || !strcmp(dir, "/") || !slash)
			break;
		slash[slash == dir] = 0;
	}
	for (size_t i = 0; i < n; i++)
		d->chart[walked[i]] = found;
	free(walked);
	return found;
}

const char *sl_dirs_chart(struct sl_dirs *d, const char *path, bool is_dir)
{
	char *dir = sl_dirs_absolute(d, path);
	char *slash = is_dir ? NULL : strrchr(dir, '/');
	if (slash) /* the file's directory */
		slash[slash == dir] = 0;
	else if (!is_dir) /* a relative file, the working directory unknown: where it was typed */
		strcpy(dir, ".");
	size_t id = chart_at(d, dir);
	free(dir);
	return id == NO_CHART ? NULL : d->seen.v[id];
}

void sl_dirs_free(struct sl_dirs *d)
{
	free(d->cwd);
	sl_strpool_free(&d->seen);
	free(d->chart);
	memset(d, 0, sizeof *d);
}
