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

/* The chart of a file's directory as written (path up to its last slash, not included). */
static size_t typed_chart(struct sl_dirs *d, const char *path, size_t dirlen)
{
	char *typed = sl_xmalloc(dirlen + 1);
	memcpy(typed, path, dirlen);
	typed[dirlen] = 0;
	size_t id = sl_strmap_get(&d->typed.map, typed);
	if (id == (size_t)-1) {
		id = sl_intern_id(&d->typed, typed);
		sl_grow(&d->typed_chart, &d->captyped, d->typed.n, sizeof *d->typed_chart);
		char *dir = sl_dirs_absolute(d, path);
		char *slash = strrchr(dir, '/'); /* an absolute path has one */
		slash[slash == dir] = 0;
		d->typed_chart[id] = chart_at(d, dir);
		free(dir);
	}
	free(typed);
	return d->typed_chart[id];
}

const char *sl_dirs_chart(struct sl_dirs *d, const char *path, bool is_dir)
{
	const char *last = is_dir ? NULL : strrchr(path, '/');
	if (last && last > path && sl_dirs_cwd(d)) {
		size_t id = typed_chart(d, path, (size_t)(last - path));
		return id == NO_CHART ? NULL : d->seen.v[id];
	}
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
	sl_strpool_free(&d->typed);
	free(d->typed_chart);
	memset(d, 0, sizeof *d);
}
