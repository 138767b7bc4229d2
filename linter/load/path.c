#include "path.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"

char *sl_path_normalize(const char *path)
{
	bool abs = path[0] == '/';
	char *copy = sl_xstrdup(path);
	const char **parts = sl_xcalloc(strlen(path) + 1, sizeof *parts);
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(copy, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..") && n && strcmp(parts[n - 1], ".."))
			n--;
		else if (!strcmp(t, "..") && abs && !n)
			continue; /* /.. is / */
		else
			parts[n++] = t;
	}
	struct sl_buf b = SL_BUF_INIT;
	if (abs)
		sl_buf_putc(&b, '/');
	for (size_t i = 0; i < n; i++) {
		if (i)
			sl_buf_putc(&b, '/');
		sl_buf_puts(&b, parts[i]);
	}
	if (!b.len)
		sl_buf_putc(&b, '.');
	free(parts);
	free(copy);
	return sl_buf_detach(&b);
}

char *sl_path_cwd(void)
{
	char cwd[PATH_MAX];
	return getcwd(cwd, sizeof cwd) ? sl_xstrdup(cwd) : NULL;
}

char *sl_path_absolute_at(const char *cwd, const char *path)
{
	if (path[0] == '/' || !cwd)
		return sl_path_normalize(path);
	char *joined = sl_xasprintf("%s/%s", cwd, path);
	char *n = sl_path_normalize(joined);
	free(joined);
	return n;
}

char *sl_path_absolute(const char *path)
{
	char *cwd = path[0] == '/' ? NULL : sl_path_cwd();
	char *abs = sl_path_absolute_at(cwd, path);
	free(cwd);
	return abs;
}

char *sl_path_repo_root(const char *cwd)
{
	if (!cwd)
		return sl_xstrdup("/");
	char *dir = sl_xstrdup(cwd);
	for (;;) {
		char *git = sl_xasprintf("%s/.git", strcmp(dir, "/") ? dir : "");
		struct stat st;
		bool found = stat(git, &st) == 0;
		free(git);
		if (found)
			return dir;
		if (!strcmp(dir, "/"))
			break;
		char *slash = strrchr(dir, '/');
		slash[slash == dir] = 0;
	}
	/* No repository: the working directory, where the paths were typed. */
	free(dir);
	return sl_xstrdup(cwd);
}

char *sl_path_uri(const char *path)
{
	struct sl_buf b = SL_BUF_INIT;
	if (path[0] == '/')
		sl_buf_puts(&b, "file://");
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			sl_buf_putc(&b, (char)*p);
		else
			sl_buf_printf(&b, "%%%02X", *p);
	}
	return sl_buf_detach(&b);
}

char *sl_path_under(const char *root, const char *path)
{
	if (!strcmp(root, "/"))
		return path[0] == '/' && path[1] ? sl_xstrdup(path + 1) : NULL;
	size_t rl = strlen(root);
	if (strncmp(path, root, rl) || path[rl] != '/')
		return NULL;
	return sl_xstrdup(path + rl + 1);
}

char *sl_path_in_repo(const char *root, const char *cwd, const char *path)
{
	char *abs = sl_path_absolute_at(cwd, path);
	char *rel = sl_path_under(root, abs);
	free(abs);
	return rel;
}
