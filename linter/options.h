/* options.h — the command line: the options table, --help, the parsing of every option and value
 * (long options spelled whole, unknown ones and unknown values said with the nearest), and the
 * "schedlint: error:" messages. main.c runs the pipeline on what it returns. May include every
 * stage below the command line; main.c is its only user. */
#ifndef SL_OPTIONS_H
#define SL_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/diag.h"
#include "model/gates.h"

enum sl_format { SL_FMT_TEXT, SL_FMT_SARIF, SL_FMT_JSON, SL_FMT_GITHUB, SL_FMT_CODECLIMATE, SL_FMT_JUNIT };

/* One report of the run: each --format starts one; an --output belongs to the report of the
 * nearest --format before it or, given before any --format, to the first (so `-o FILE -f sarif`
 * and `-f sarif -o FILE` are the same one report). */
struct sl_report_spec {
	enum sl_format format;
	const char *output; /* NULL: standard output (standard error when it carries --diff) */
	bool format_given;  /* made by an --output before any --format: the next --format is its own */
};

/* The option set: the only program-wide state. */
struct sl_options {
	const char **nodes, **pods;
	size_t nnodes, npods, capnodes, cappods;
	struct sl_report_spec *reports; /* at least one once parsed: text on standard output */
	size_t nreports, capreports;
	enum sl_level fail_on;
	int color; /* -1 auto */
	bool fix;
	bool diff;    /* --diff, or --fix --dry-run: the fixes as a diff on stdout, nothing written */
	bool dry_run; /* --dry-run */
	bool explain;
	bool list_rules;
	bool show_suppressed;
	bool no_config;
	const char *config;
	const char *stdin_name; /* --stdin-filename */
	int kube_minor;         /* --kube-version; 0: not given */
	const char *kube_text;
	struct sl_gates gates; /* --feature-gates (gates.h) */
	const char **exclude, **disable;
	size_t nexclude, ndisable, capexclude, capdisable;
};

/* The defaults: --fail-on error, --color auto, kube-scheduler's feature gates. */
void sl_options_init(struct sl_options *o);
/* argv into o. 0, or -1 after saying what is wrong (a usage error: exit 2). *done: --help or
 * --version (or `schedlint version`) did the whole work, and is 1 + the exit status. *first: the
 * index in argv of the first path. */
int sl_options_parse(int argc, char **argv, struct sl_options *o, int *first, int *done);
void sl_options_free(struct sl_options *o);

/* The format's name, as --format takes it. */
const char *sl_format_name(enum sl_format f);
/* --help's text. */
void sl_cli_usage(FILE *out);
/* "schedlint: error: " and the message on stderr, escaped (escape.h): -1. */
int sl_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
