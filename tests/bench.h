/* bench.h — the benchmark's parts: tests/bench.c (the command line and the placement benchmark),
 * tests/bench_gen.c (the rule-reaching input) and tests/bench_scale.c (growth with the input). */
#ifndef SL_BENCH_H
#define SL_BENCH_H
#include <stddef.h>

#define BENCH_RUNS 5 /* each figure is the best of this many runs */

/* Write the rule-reaching input at scale units under dir. 0, or -1 after saying why. */
int bench_gen_rules(const char *dir, unsigned scale);
/* Measure the inputs bench_gen_rules wrote at 1x and 10x. */
int bench_rules(const char *bin, const char *dir1, const char *dir10);
/* Measure the corpus 1, 2, 5 and 10 times over, and the bare parse of the 10 times (dir: where the
 * copies' links and lists go). */
int bench_corpus(const char *bin, const char *bare, const char *corpus, const char *dir);

double bench_now(void);
/* One run of argv, stdout to /dev/null, stderr to errfd (or /dev/null when negative); wait4()'s
 * status, the wall time and the peak RSS. */
int bench_run_once(char *const argv[], int errfd, double *wall, long *maxrss_kib);
const char *bench_describe(int status, char *buf, size_t n);
/* Run argv again to show its stderr, after it failed. Returns 1. */
int bench_explain_failure(char *const argv[]);

#endif
