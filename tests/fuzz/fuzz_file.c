#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One file per suffix and process, made once: harnesses run one input at a time. */
static char path[64];
static int fd = -1;

const char *sl_fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	if (fd < 0) {
		snprintf(path, sizeof path, "/tmp/schedlint-fuzz-XXXXXX%s", suffix);
		fd = mkstemps(path, (int)strlen(suffix));
		if (fd < 0)
			abort();
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return path;
}
