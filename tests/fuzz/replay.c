/* replay: a libFuzzer harness without libFuzzer. Linked with one harness (tests/fuzz/fuzz_*.c),
 * tests/fuzz/fuzz_file.c and the sanitizer build of the library, by any C compiler (make check's
 * gcc), it hands each file given to LLVMFuzzerTestOneInput once, as `fuzz-HARNESS FILE...` does:
 * so the inputs that once crashed a harness (tests/fuzz/regressions/<harness>/) run in make check
 * without clang. A crash is the sanitizer's report and exit status; otherwise one line per input,
 * and exit 0. Usage: replay-HARNESS FILE... */
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a harness, as with libFuzzer: called once, before the first input. Weak, so that a
 * harness without one links (its address is then null). */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The whole file, in a buffer of exactly its size, as libFuzzer hands an input: a harness that
 * reads past the end meets the sanitizer's redzone, not a larger buffer's slack. */
static uint8_t *read_input(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	do {
		if (cap - len < 65536) {
			char *grown = realloc(buf, cap = 2 * cap + 65536);
			if (!grown) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = grown;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	int failed = ferror(f);
	fclose(f);
	uint8_t *exact = failed ? NULL : malloc(len ? len : 1);
	if (exact)
		memcpy(exact, buf, len);
	free(buf);
	*size = len;
	return exact;
}

/* The harnesses write their input to files of their own under /tmp (tests/fuzz/fuzz_file.c), made
 * once a process and kept open; libFuzzer's one long run leaves one of each, but the replays start
 * a process per input, so they are removed here, found by what the open descriptors name. */
static void remove_input_files(void)
{
	static const char prefix[] = "/tmp/schedlint-fuzz-";
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char fd[sizeof "/proc/self/fd/" + sizeof e->d_name], target[PATH_MAX];
		snprintf(fd, sizeof fd, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(fd, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strncmp(target, prefix, sizeof prefix - 1))
			unlink(target);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		size_t size;
		uint8_t *data = read_input(argv[i], &size);
		if (!data) {
			perror(argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput(data, size);
		free(data);
		printf("replay: %s: %zu bytes, no crash\n", argv[i], size);
	}
	remove_input_files();
	return 0;
}
