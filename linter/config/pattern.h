/* pattern.h — PCRE2 as the config uses it: every pattern compiled once (UTF, JIT when the library
 * has it), every match bounded by one match context's limits, so a pattern that backtracks
 * without end (`(a+)+$` on a long value) fails with a clear error instead of hanging the run.
 * Owns: each sl_pattern its compiled code and its text; an sl_matcher the match context, the
 * JIT stack and the match data every match of one thread uses. */
#ifndef SL_PATTERN_H
#define SL_PATTERN_H
#include <stdbool.h>
#include <stddef.h>

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include "../base/diag.h"

/* Limits of one match: backtracking steps, nesting (interpreter) and heap (KiB). A value of the
 * config is rarely longer than an image reference; these leave room for megabyte scalars with
 * patterns that do not backtrack, and stop those that do within tens of milliseconds. */
#define SL_PATTERN_MATCH_LIMIT 2000000u
#define SL_PATTERN_DEPTH_LIMIT 10000u
#define SL_PATTERN_HEAP_LIMIT (64u * 1024u)

struct sl_pattern {
	pcre2_code *code;
	char *text;        /* as written */
	struct sl_span at; /* where it was written (the config scalar) */
};

/* Compile text (len bytes) written at `at` (its scalar node: quotes are allowed for). On failure
 * report PCRE2's message at the offending character and return -1. */
int sl_pattern_compile(struct sl_pattern *p, const char *text, size_t len, const struct sl_span *at, bool quoted,
		       struct sl_findings *errs);
void sl_pattern_free(struct sl_pattern *p);

struct sl_matcher {
	pcre2_match_context *mctx;
	pcre2_jit_stack *stack; /* NULL without JIT */
	pcre2_match_data *md;
};
void sl_matcher_init(struct sl_matcher *mx);
void sl_matcher_free(struct sl_matcher *mx);

/* 1 when p matches somewhere in s[0..len), 0 when not, -1 when the match stopped at a limit or
 * failed otherwise (why: a message, NUL-terminated, of at most whylen bytes). */
int sl_pattern_match(const struct sl_pattern *p, struct sl_matcher *mx, const char *s, size_t len, char *why,
		     size_t whylen);

#endif
