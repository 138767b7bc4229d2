/* The floor the benchmark measures schedlint against: read each file named on the command line
 * (or, with @LIST, in the file LIST, one path a line) and run libyaml's event parser over it to
 * the end, building nothing. One thread, as a plain parse would. Prints the files, bytes and
 * events, and exits 1 when a file cannot be read (a parse error only ends that file's events).
 *
 *   bareparse FILE...
 *   bareparse @LIST */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static unsigned long long nbytes, nevents;
static unsigned long nfiles;

static int parse_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	static char *buf;
	static size_t cap;
	size_t len = 0;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? 2 * cap : 1 << 20;
			if (!(buf = realloc(buf, cap))) {
				perror("bareparse");
				exit(2);
			}
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		perror(path);
		return -1;
	}
	yaml_parser_t p;
	yaml_event_t ev;
	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	for (int done = 0; !done && yaml_parser_parse(&p, &ev);) {
		done = ev.type == YAML_STREAM_END_EVENT;
		nevents++;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	nbytes += len;
	nfiles++;
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] != '@') {
			rc |= parse_file(argv[i]) < 0;
			continue;
		}
		FILE *list = fopen(argv[i] + 1, "r");
		if (!list) {
			perror(argv[i] + 1);
			return 1;
		}
		char line[4096];
		while (fgets(line, sizeof line, list)) {
			line[strcspn(line, "\n")] = 0;
			if (*line)
				rc |= parse_file(line) < 0;
		}
		fclose(list);
	}
	printf("bareparse: %lu files, %llu bytes, %llu events\n", nfiles, nbytes, nevents);
	return rc;
}
