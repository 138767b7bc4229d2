/* How schedlint's cost grows with its input: the rule-reaching repository of tests/bench_gen.c at
 * 1x and 10x, and, when ../shared/corpus is there, the corpus given 1, 2, 5 and 10 times over as
 * one file list (copied once into the build directory), beside a bare libyaml event
 * parse of the same files (tests/bareparse.c). Each figure is the best wall time of RUNS runs;
 * peak RSS is the largest of them, divided by the bytes of the input. Targets are printed, not
 * enforced. */
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int bench_run_once(char *const argv[], int errfd, double *wall, long *maxrss_kib)
{
	double t0 = bench_now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("bench: fork");
		exit(1);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 1) < 0 || dup2(errfd >= 0 ? errfd : null, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("bench: wait4");
			exit(1);
		}
	*wall = bench_now() - t0;
	*maxrss_kib = ru.ru_maxrss; /* KiB on Linux; this child's alone */
	return status;
}

const char *bench_describe(int status, char *buf, size_t n)
{
	static const char *const what[] = {"clean", "findings", "input errors"};
	if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, n, "exit %d (%s)", WEXITSTATUS(status),
			 WEXITSTATUS(status) < 3 ? what[WEXITSTATUS(status)] : "not a schedlint status");
	return buf;
}

int bench_explain_failure(char *const argv[])
{
	FILE *err = tmpfile();
	double wall;
	long rss;
	char line[1024];
	if (!err) {
		perror("bench: tmpfile");
		return 1;
	}
	bench_run_once(argv, fileno(err), &wall, &rss);
	rewind(err);
	for (int n = 0; n < 15 && fgets(line, sizeof line, err); n++)
		fprintf(stderr, "  | %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(err);
	fprintf(stderr, "bench: %s failed on the benchmark input (its stderr above); no timing\n", argv[0]);
	return 1;
}

/* The best wall time and the largest peak RSS of RUNS runs; -1 (after saying why) when a run ends
 * in a signal or an exit status above max_exit. */
static int measure(char *const argv[], int max_exit, double *best, long *peak_kib)
{
	*best = 1e30;
	*peak_kib = 0;
	for (int r = 0; r < BENCH_RUNS; r++) {
		double wall;
		long rss;
		int status = bench_run_once(argv, -1, &wall, &rss);
		if (WIFSIGNALED(status) || WEXITSTATUS(status) > max_exit) {
			char desc[64];
			fprintf(stderr, "bench: %s: %s\n", argv[0], bench_describe(status, desc, sizeof desc));
			bench_explain_failure(argv);
			return -1;
		}
		*best = wall < *best ? wall : *best;
		*peak_kib = rss > *peak_kib ? rss : *peak_kib;
	}
	return 0;
}

/* --- the files of an input ------------------------------------------------------------------ */

struct files {
	char **v;
	size_t n, cap;
	long long bytes, objects;
};

static int manifest_name(const char *name)
{
	size_t n = strlen(name);
	return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml")) ||
	       (n > 5 && !strcmp(name + n - 5, ".json"));
}

/* Objects, roughly: lines that give a document's or a List item's kind. */
static long long count_objects(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	long long n = 0;
	for (int bol = 1; f && fgets(line, sizeof line, f); bol = strchr(line, '\n') != NULL)
		n += bol && (!strncmp(line, "kind:", 5) || !strncmp(line, "  kind:", 7) || strstr(line, "\"kind\":"));
	if (f)
		fclose(f);
	return n;
}

/* Every manifest under dir (symbolic links followed), as schedlint walks a directory. */
static void walk(struct files *fs, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *path = malloc(strlen(dir) + strlen(de->d_name) + 2);
		struct stat st;
		sprintf(path, "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			walk(fs, path);
			free(path);
			continue;
		}
		if (!manifest_name(de->d_name) || stat(path, &st)) {
			free(path);
			continue;
		}
		if (fs->n == fs->cap) {
			fs->cap = fs->cap ? 2 * fs->cap : 1024;
			fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
		}
		fs->v[fs->n++] = path;
		fs->bytes += st.st_size;
		fs->objects += count_objects(path);
	}
	if (d)
		closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void files_free(struct files *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i]);
	free(fs->v);
	memset(fs, 0, sizeof *fs);
}

static void report(const char *what, const struct files *fs, double best, long peak_kib)
{
	double mb = fs->bytes / 1e6, rss = peak_kib * 1024.0;
	printf("bench: %s: %zu files, %.1f MB, ~%lld objects: %.3f s (best of %d), %.1f MB/s, %.0f objects/s, "
	       "peak RSS %.1f MB (%.2fx the input)\n",
	       what, fs->n, mb, fs->objects, best, BENCH_RUNS, mb / best, fs->objects / best, rss / 1e6,
	       rss / (double)fs->bytes);
	fflush(stdout);
}

/* --- the rule-reaching repository ------------------------------------------------------------ */

/* Which rules (and the config's policy) the input reaches: each one's id in the JSON report. */
static void rules_reached(const char *bin, char **argv, int nargs)
{
	char out[] = "build/bench-reach.json", cmd[8192];
	snprintf(cmd, sizeof cmd, "%s --list-rules --config %s", bin, argv[2]);
	FILE *ids = popen(cmd, "r");
	char **a = calloc((size_t)nargs + 3, sizeof *a);
	memcpy(a, argv, (size_t)nargs * sizeof *a);
	a[nargs] = "-o";
	a[nargs + 1] = out;
	double wall;
	long rss;
	bench_run_once(a, -1, &wall, &rss);
	free(a);
	FILE *f = fopen(out, "r");
	char *json = NULL;
	size_t len = 0;
	if (f) {
		fseek(f, 0, SEEK_END);
		len = (size_t)ftell(f);
		rewind(f);
		json = calloc(len + 1, 1);
		len = fread(json, 1, len, f);
		fclose(f);
	}
	char line[512], missing[2048] = "", pat[520];
	int n = 0, hit = 0;
	while (ids && json && fgets(line, sizeof line, ids)) {
		line[strcspn(line, " \t\n")] = 0;
		if (!*line)
			continue;
		n++;
		snprintf(pat, sizeof pat, "\"%s\"", line);
		if (strstr(json, pat))
			hit++;
		else
			snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", line);
	}
	if (ids)
		pclose(ids);
	free(json);
	remove(out);
	printf("bench: rules reached: %d of %d (every rule and policy the config lists)%s%s\n", hit, n,
	       *missing ? "; NOT reached:" : "", missing);
}

int bench_rules(const char *bin, const char *dir1, const char *dir10)
{
	const char *dirs[2] = {dir1, dir10};
	double best[2];
	for (int k = 0; k < 2; k++) {
		char cfg[4096], nodes[4096], pods[4096], apps[4096], ns[4096];
		snprintf(cfg, sizeof cfg, "%s/.schedlint.yaml", dirs[k]);
		snprintf(nodes, sizeof nodes, "%s/inventory/nodes.yaml", dirs[k]);
		snprintf(pods, sizeof pods, "%s/inventory/pods.yaml", dirs[k]);
		snprintf(apps, sizeof apps, "%s/apps", dirs[k]);
		snprintf(ns, sizeof ns, "%s/namespaces.yaml", dirs[k]);
		/* The text report, as the corpus: the JSON emitter builds the whole document in memory
		 * first, which for a report this dense outweighs the input. */
		char *argv[] = {(char *)bin, "--config", cfg, "--nodes", nodes, "--pods", pods, apps, ns, NULL};
		struct files fs = {0};
		walk(&fs, dirs[k]);
		if (k == 0) {
			printf("bench: %s --config %s --nodes %s --pods %s %s %s\n", bin, cfg, nodes, pods, apps, ns);
			char *reach[] = {(char *)bin, "--config", cfg,    "--nodes", nodes, "--pods",
					 pods,        "--format", "json", apps,      ns,    NULL};
			rules_reached(bin, reach, 11);
		}
		long peak;
		if (measure(argv, 1, &best[k], &peak) < 0) {
			files_free(&fs);
			return 1;
		}
		report(k ? "rules 10x" : "rules 1x", &fs, best[k], peak);
		files_free(&fs);
	}
	double growth = best[1] / best[0];
	printf("bench: rules growth: 10x the input takes %.1fx the time of 1x (linear: 10; target at most 10.5): %s\n",
	       growth, growth <= 10.5 ? "met" : "NOT met");
	return 0;
}

/* --- the corpus ------------------------------------------------------------------------------ */

/* A copy of the tree at from in to, file by file (symbolic links followed). */
static int copy_tree(const char *from, const char *to)
{
	DIR *d = opendir(from);
	if (!d || (mkdir(to, 0777) && errno != EEXIST)) {
		fprintf(stderr, "bench: %s: %s\n", d ? to : from, strerror(errno));
		if (d)
			closedir(d);
		return -1;
	}
	int rc = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char src[4096], dst[4096];
		struct stat st;
		snprintf(src, sizeof src, "%s/%s", from, de->d_name);
		snprintf(dst, sizeof dst, "%s/%s", to, de->d_name);
		if (stat(src, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			rc = copy_tree(src, dst);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
		char buf[65536];
		size_t got;
		while (out && (got = fread(buf, 1, sizeof buf, in)) > 0)
			if (fwrite(buf, 1, got, out) != got)
				break;
		if (!out || ferror(in) || ferror(out) || fclose(out)) {
			fprintf(stderr, "bench: cannot copy %s to %s\n", src, dst);
			rc = -1;
		}
		if (in)
			fclose(in);
	}
	closedir(d);
	return rc;
}

/* dir/c1 .. dir/cN: copies of the corpus, made once. Real copies, not links: schedlint reads a
 * file reached by two names once, so links would measure one copy ten times over. */
static int corpus_copies(const char *corpus, const char *dir, int n)
{
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "bench: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 1; i <= n; i++) {
		char c[4096], done[4096 + 8];
		snprintf(c, sizeof c, "%s/c%d", dir, i);
		snprintf(done, sizeof done, "%s.done", c);
		if (access(done, F_OK) == 0)
			continue;
		struct stat st;
		if (lstat(c, &st) == 0 && S_ISLNK(st.st_mode))
			unlink(c); /* a link left by an older benchmark */
		if (copy_tree(corpus, c))
			return -1;
		FILE *f = fopen(done, "w");
		if (!f || fclose(f))
			return -1;
	}
	return 0;
}

/* The files of copies 1..n, sorted as one list (as `find | sort` gives them), written to list
 * for the bare parse. */
static int copies(const char *dir, int n, struct files *fs, const char *list)
{
	for (int i = 1; i <= n; i++) {
		char c[4096];
		snprintf(c, sizeof c, "%s/c%d", dir, i);
		walk(fs, c);
	}
	qsort(fs->v, fs->n, sizeof *fs->v, cmp_str);
	FILE *f = fopen(list, "w");
	for (size_t i = 0; f && i < fs->n; i++)
		fprintf(f, "%s\n", fs->v[i]);
	return f && !(ferror(f) | fclose(f)) ? 0 : -1;
}

int bench_corpus(const char *bin, const char *bare, const char *corpus, const char *dir)
{
	static const int scale[] = {1, 2, 5, 10};
	double best[4] = {0}, bare_best;
	long peak[4] = {0}, bare_peak;
	if (corpus_copies(corpus, dir, 10))
		return 1;
	printf("bench: corpus %s, given 1, 2, 5 and 10 times over as one file list: %s --no-config FILE...\n", corpus,
	       bin);
	struct files fs = {0};
	for (int k = 0; k < 4; k++) {
		char list[4096], what[32];
		snprintf(list, sizeof list, "%s/list-%d", dir, scale[k]);
		files_free(&fs);
		if (copies(dir, scale[k], &fs, list))
			return 1;
		char **argv = calloc(fs.n + 3, sizeof *argv);
		argv[0] = (char *)bin;
		argv[1] = "--no-config";
		memcpy(argv + 2, fs.v, fs.n * sizeof *argv);
		int rc = measure(argv, 2, &best[k], &peak[k]); /* the corpus holds broken YAML: exit 2 */
		free(argv);
		if (rc < 0)
			return 1;
		snprintf(what, sizeof what, "corpus x%d", scale[k]);
		report(what, &fs, best[k], peak[k]);
	}
	char at[4096 + 8];
	snprintf(at, sizeof at, "@%s/list-10", dir);
	char *argv[] = {(char *)bare, at, NULL};
	if (measure(argv, 0, &bare_best, &bare_peak) < 0)
		return 1;
	report("corpus x10, bare libyaml event parse", &fs, bare_best, bare_peak);
	/* SARIF too: its peak is held to the same bound as the text report's. */
	double sarif_best;
	long sarif_peak;
	char **sv = calloc(fs.n + 5, sizeof *sv);
	sv[0] = (char *)bin;
	sv[1] = "--no-config";
	sv[2] = "--format";
	sv[3] = "sarif";
	memcpy(sv + 4, fs.v, fs.n * sizeof *sv);
	int rc = measure(sv, 2, &sarif_best, &sarif_peak);
	free(sv);
	if (rc < 0)
		return 1;
	report("corpus x10, SARIF report", &fs, sarif_best, sarif_peak);
	double ratio = bare_best / best[3], growth = best[3] / best[1], mem = peak[3] * 1024.0 / (double)fs.bytes,
	       smem = sarif_peak * 1024.0 / (double)fs.bytes;
	printf("bench: corpus x10: schedlint's throughput is %.2f of the bare parse's (target at least 1.0): %s\n",
	       ratio, ratio >= 1.0 ? "met" : "NOT met");
	printf("bench: corpus growth: x10 takes %.2fx the time of x2 (target at most 5.5): %s\n", growth,
	       growth <= 5.5 ? "met" : "NOT met");
	printf("bench: corpus x10: peak RSS %.2fx the input, %.2fx with the SARIF report (target at most 2): %s\n", mem,
	       smem, mem <= 2 && smem <= 2 ? "met" : "NOT met");
	files_free(&fs);
	return 0;
}
