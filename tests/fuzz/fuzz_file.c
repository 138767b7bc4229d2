#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One file per suffix and process, made once: harnesses run one input at a time, and the pipeline
 * harness writes its config and its manifest side by side. */
static struct {
	const char *suffix;
	char path[80];
	int fd;
} files[4];

const char *sl_fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	size_t i = 0;
	while (i < sizeof files / sizeof *files && files[i].suffix && strcmp(files[i].suffix, suffix))
		i++;
	if (i == sizeof files / sizeof *files)
		abort();
	if (!files[i].suffix) {
		snprintf(files[i].path, sizeof files[i].path, "/tmp/schedlint-fuzz-XXXXXX%s", suffix);
		files[i].fd = mkstemps(files[i].path, (int)strlen(suffix));
		if (files[i].fd < 0)
			abort();
		files[i].suffix = suffix;
	}
	if (ftruncate(files[i].fd, 0) < 0 || pwrite(files[i].fd, data, size, 0) != (ssize_t)size)
		abort();
	return files[i].path;
}
