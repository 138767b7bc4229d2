/* options.c — the command line's options: one table (name, argument, help) that --help prints and
 * the parser reads; long options checked whole before getopt sees them; each value parsed with the
 * nearest right one suggested when it is wrong; the first word taken as a command when it reads as
 * one and names no file. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/escape.h"
#include "base/similar.h"
#include "load/limits.h"
#include "model/kversion.h"
#include "options.h"
#include "report/emit.h"
#include "report/output.h"

/* Where `make install` puts the rule docs; the Makefile passes $(DOCDIR). */
#ifndef SL_DOCDIR
#define SL_DOCDIR "/usr/local/share/doc/schedlint"
#endif

/* Options without a short form. */
enum {
	OPT_MAX_DEPTH = 256,
	OPT_MAX_NODES,
	OPT_MAX_ALIAS_NODES,
	OPT_MAX_FILE_SIZE,
	OPT_KUBE_VERSION,
	OPT_FEATURE_GATES
};

static const struct opt_doc {
	struct option o;
	const char *arg, *help;
} opts[] = {
    {{"nodes", required_argument, NULL, 'n'},
     "FILE",
     "node inventory: kubectl get nodes -o yaml|json (repeatable); with storage: kubectl get "
     "nodes,pv,pvc,storageclass,csinode,csidriver -A -o yaml"},
    {{"pods", required_argument, NULL, 'p'}, "FILE", "running pods: kubectl get pods -A -o yaml|json (repeatable)"},
    {{"format", required_argument, NULL, 'f'},
     "FMT",
     "text (default), sarif, json, github (workflow commands), codeclimate (GitLab Code Quality) or junit (JUnit "
     "XML); each --format is one more report of the same run"},
    {{"output", required_argument, NULL, 'o'},
     "FILE",
     "write the report of the --format before it (given before any: the first report) to FILE instead of stdout; "
     "at most one report goes to stdout"},
    {{"fail-on", required_argument, NULL, 'F'},
     "LEVEL",
     "exit 1 on findings at or above LEVEL: error (default), warning, note"},
    {{"fix", no_argument, NULL, 'x'},
     NULL,
     "apply the first suggested fix of every finding, in place; the report and exit status are what remains"},
    {{"diff", no_argument, NULL, 'U'}, NULL, "print what --fix would change as a unified diff; write nothing"},
    {{"dry-run", no_argument, NULL, 'R'}, NULL, "with --fix: the same as --diff"},
    {{"color", required_argument, NULL, 'c'}, "WHEN", "auto (default: on a terminal, unless NO_COLOR), always, never"},
    {{"config", required_argument, NULL, 'C'},
     "FILE",
     "read the config from FILE (default: .schedlint.yaml found upward)"},
    {{"no-config", no_argument, NULL, 'N'}, NULL, "read no config file"},
    {{"exclude", required_argument, NULL, 'X'}, "REGEX", "leave out files whose path matches (PCRE2; repeatable)"},
    {{"disable", required_argument, NULL, 'D'}, "RULE", "turn a rule off (repeatable)"},
    {{"kube-version", required_argument, NULL, OPT_KUBE_VERSION},
     "X.Y",
     "judge by Kubernetes X.Y's defaults (default: kubernetesVersion, the nodes' lowest kubelet, or 1.35)"},
    {{"feature-gates", required_argument, NULL, OPT_FEATURE_GATES},
     "NAME=BOOL,...",
     "the cluster's feature gates that differ from X.Y's defaults: GangScheduling, GenericWorkload"},
    {{"stdin-filename", required_argument, NULL, 'I'},
     "NAME",
     "call standard input (-) NAME in reports, patterns and targets (default: -)"},
    {{"max-documents", required_argument, NULL, 'M'},
     "N",
     "refuse a file of more than N YAML documents (default 10000)"},
    {{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
     "N",
     "refuse a document nested deeper than N levels (default 256, at most 1024)"},
    {{"max-nodes", required_argument, NULL, OPT_MAX_NODES},
     "N",
     "refuse a document whose tree holds more than N nodes (default 4000000)"},
    {{"max-alias-nodes", required_argument, NULL, OPT_MAX_ALIAS_NODES},
     "N",
     "refuse a document whose aliases expand to more than N nodes (default 2000000)"},
    {{"max-file-size", required_argument, NULL, OPT_MAX_FILE_SIZE},
     "SIZE",
     "refuse a file larger than SIZE bytes, or with K, M, G: KiB, MiB, GiB (default 64M, at most 1G)"},
    {{"show-suppressed", no_argument, NULL, 'S'}, NULL, "show suppressed findings too, marked (text)"},
    {{"explain", no_argument, NULL, 'E'},
     NULL,
     "instead of findings, show per workload each node's verdict, the pods it takes and the totals (one report: "
     "text or json)"},
    {{"list-rules", no_argument, NULL, 'l'}, NULL, "list the rules and exit"},
    {{"help", no_argument, NULL, 'h'}, NULL, "show this help and exit"},
    {{"version", no_argument, NULL, 'V'}, NULL, "show the version and exit"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

void sl_cli_usage(FILE *out)
{
	fprintf(out, "usage: schedlint [OPTIONS] PATH...\n"
		     "       schedlint lsp\n\n"
		     "Proves from Kubernetes manifests (and a node inventory) that pods will not schedule "
		     "or\n"
		     "that a rollout can never finish. PATH is a file, a directory (searched for *.yaml,\n"
		     "*.yml, *.json) or - for stdin. `schedlint lsp` is a language server on stdin and\n"
		     "stdout: editors show the findings as you type and offer the fixes (docs/editors/).\n"
		     "\nOptions (long ones spelled whole: no abbreviations):\n");
	for (size_t i = 0; i < NOPTS; i++) {
		char left[64];
		const struct opt_doc *d = &opts[i];
		if (d->o.val >= 'a' && d->o.val <= 'z' && strchr("npfoh", d->o.val))
			snprintf(left, sizeof left, "-%c, --%s%s%s", d->o.val, d->o.name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		else if (d->o.val == 'V')
			snprintf(left, sizeof left, "-V, --%s", d->o.name);
		else
			snprintf(left, sizeof left, "    --%s%s%s", d->o.name, d->arg ? " " : "", d->arg ? d->arg : "");
		fprintf(out, "  %-26s %s\n", left, d->help);
	}
	fprintf(out, "\nExit status: 0 no findings at or above --fail-on, 1 findings, 2 usage, input or "
		     "write error.\n"
		     "Rules: schedlint --list-rules; each rule's page: " SL_DOCDIR "/rules/<id>.md\n"
		     "(docs/rules/ in the source tree); man schedlint.\n");
}

/* "schedlint: LEVEL: " and the message on stderr. The message quotes what was given, which may
 * hold anything; escaped whole (escape.h), it cannot act on a terminal or a CI log, and the
 * program's own words in it are unchanged. */
static void cli_say(const char *level, const char *fmt, va_list ap)
{
	struct sl_buf b = SL_BUF_INIT, line = SL_BUF_INIT;
	sl_buf_vprintf(&b, fmt, ap);
	sl_buf_printf(&line, "schedlint: %s: ", level);
	sl_esc_add(&line, sl_buf_str(&b), b.len);
	sl_buf_putc(&line, '\n');
	fwrite(line.s, 1, line.len, stderr);
	sl_buf_free(&line);
	sl_buf_free(&b);
}

int sl_cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_say("error", fmt, ap);
	va_end(ap);
	return -1;
}

static void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cli_warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cli_say("warning", fmt, ap);
	va_end(ap);
}

/* The usage hint said after a usage error, so the user sees where to look. */
static int usage_error(void)
{
	fprintf(stderr, "Try 'schedlint --help'.\n");
	return -1;
}

/* A gate schedlint does not model: a warning, the run goes on (kube-scheduler would refuse it, but
 * the gates that change nothing schedlint checks are no reason to stop). */
static void unknown_gate(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	const char *near = sl_gate_closest(name, len);
	cli_warning("--feature-gates: %.*s is not a feature gate schedlint models%s%s%s; it is ignored", (int)len, name,
		    near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
}

/* --feature-gates NAME=BOOL,... as kube-scheduler takes it; repeatable, later values winning. */
static int parse_gates(const char *arg, struct sl_gates *g)
{
	char err[512];
	if (sl_gates_parse(arg, "--feature-gates", g, err, sizeof err, unknown_gate, NULL) < 0)
		return sl_cli_error("--feature-gates takes NAME=BOOL pairs separated by commas: %s", err);
	return 0;
}

/* Repeatable options collect their arguments in order. */
static void push_arg(const char ***v, size_t *n, size_t *cap, const char *arg)
{
	sl_grow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = arg;
}

static const char *const format_names[] = {[SL_FMT_TEXT] = "text",
					   [SL_FMT_SARIF] = "sarif",
					   [SL_FMT_JSON] = "json",
					   [SL_FMT_GITHUB] = "github",
					   [SL_FMT_CODECLIMATE] = "codeclimate",
					   [SL_FMT_JUNIT] = "junit"};

/* A word option's value that is none of names: the one meant, if one is near, and the list. -1. */
static int unknown_value(const char *what, const char *arg, const char *const *names, size_t n)
{
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < n; i++)
		sl_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	const char *near = sl_closest(arg, names, n);
	sl_cli_error("unknown %s '%s'%s%s%s (%s)", what, arg, near ? "; did you mean '" : "", near ? near : "",
		     near ? "'?" : "", sl_buf_str(&b));
	sl_buf_free(&b);
	return -1;
}

/* The options that take a word or a number: -1 after saying what is wrong with arg. */
static int parse_format(const char *arg, enum sl_format *out)
{
	size_t n = sizeof format_names / sizeof format_names[0];
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, format_names[i])) {
			*out = (enum sl_format)i;
			return 0;
		}
	return unknown_value("format", arg, format_names, n);
}

static int parse_color(const char *arg, int *out)
{
	static const char *const names[] = {"auto", "always", "never"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			*out = i == 0 ? -1 : i == 1;
			return 0;
		}
	return unknown_value("--color value", arg, names, 3);
}

/* A limit's value: a positive number, at most max; with units, a K, M or G suffix (binary). */
static int parse_limit(const char *opt, const char *arg, bool units, size_t max, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(arg, &end, 10);
	int shift = !units || !*end || end[1] ? 0 : *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : -1;
	bool bad = errno || end == arg || arg[0] == '-' || n == 0 || shift < 0 || (*end && !shift);
	if (!bad && (n > max >> shift))
		return sl_cli_error("--%s is at most %zu%s, not '%s'", opt, max, units ? " bytes" : "", arg);
	if (bad)
		return sl_cli_error("--%s takes a positive number%s, not '%s'", opt, units ? " (with K, M or G)" : "",
				    arg);
	*out = (size_t)n << shift;
	return 0;
}

static void new_report(struct sl_options *o, enum sl_format f, bool given)
{
	sl_grow(&o->reports, &o->capreports, o->nreports + 1, sizeof *o->reports);
	o->reports[o->nreports++] = (struct sl_report_spec){.format = f, .format_given = given};
}

/* --format FMT: a report of its own, unless the one report so far was made by an --output given
 * before any --format (`-o FILE -f sarif`): that one is in FMT. */
static int add_format(struct sl_options *o, const char *arg)
{
	enum sl_format f = SL_FMT_TEXT; /* set by parse_format; gcc -O2 without LTO cannot see it */
	if (parse_format(arg, &f) < 0)
		return -1;
	if (o->nreports == 1 && !o->reports[0].format_given) {
		o->reports[0].format = f;
		o->reports[0].format_given = true;
		return 0;
	}
	new_report(o, f, true);
	return 0;
}

/* --output FILE: for the report of the --format before it (before any: the first report). A
 * second --output for one report would silently drop the first: refused. */
static int add_output(struct sl_options *o, const char *arg)
{
	if (!o->nreports)
		new_report(o, SL_FMT_TEXT, false);
	struct sl_report_spec *r = &o->reports[o->nreports - 1];
	if (r->output) {
		sl_cli_error("--output %s and --output %s both for the --format %s report: give each --format its own "
			     "--output after it",
			     r->output, arg, format_names[r->format]);
		return usage_error();
	}
	r->output = arg;
	return 0;
}

/* One option (getopt's c, its argument in optarg). 0, or -1 after saying what is wrong; *done:
 * the option's whole work is done (--help, --version), and is 1 + the exit status. */
static int take_option(int c, struct sl_options *o, int *done)
{
	switch (c) {
	case 'n':
		push_arg(&o->nodes, &o->nnodes, &o->capnodes, optarg);
		return 0;
	case 'p':
		push_arg(&o->pods, &o->npods, &o->cappods, optarg);
		return 0;
	case 'f':
		return add_format(o, optarg);
	case 'o':
		return add_output(o, optarg);
	case 'F':
		if (sl_level_parse(optarg, &o->fail_on) < 0 || o->fail_on == SL_LEVEL_NONE)
			return sl_cli_error("--fail-on takes error, warning or note, not '%s'", optarg);
		return 0;
	case 'c':
		return parse_color(optarg, &o->color);
	case 'M':
		return parse_limit("max-documents", optarg, false, SIZE_MAX, &sl_limits.documents);
	case OPT_MAX_DEPTH:
		return parse_limit("max-depth", optarg, false, SL_DEPTH_CAP, &sl_limits.depth);
	case OPT_MAX_NODES:
		return parse_limit("max-nodes", optarg, false, SIZE_MAX, &sl_limits.nodes);
	case OPT_MAX_ALIAS_NODES:
		return parse_limit("max-alias-nodes", optarg, false, SIZE_MAX, &sl_limits.alias_nodes);
	case OPT_MAX_FILE_SIZE:
		return parse_limit("max-file-size", optarg, true, SL_FILE_BYTES_CAP, &sl_limits.file_bytes);
	case OPT_KUBE_VERSION:
		if (sl_kube_parse(optarg, &o->kube_minor) < 0 || o->kube_minor < SL_KUBE_MIN)
			return sl_cli_error(
			    "--kube-version takes a Kubernetes release from 1.%d, such as 1.%d, not '%s'", SL_KUBE_MIN,
			    SL_KUBE_DEFAULT, optarg);
		o->kube_text = optarg;
		return 0;
	case OPT_FEATURE_GATES:
		return parse_gates(optarg, &o->gates);
	case 'C':
		o->config = optarg;
		return 0;
	case 'X':
		push_arg(&o->exclude, &o->nexclude, &o->capexclude, optarg);
		return 0;
	case 'D':
		push_arg(&o->disable, &o->ndisable, &o->capdisable, optarg);
		return 0;
	case 'I':
		o->stdin_name = optarg;
		return 0;
	case 'h':
	case 'V': {
		struct sl_capture cap;
		FILE *out = sl_capture_open(&cap);
		if (c == 'h')
			sl_cli_usage(out);
		else
			fprintf(out, "schedlint %s\n", sl_version_full);
		*done = 1 + sl_capture_write(&cap, NULL, 1, c == 'h' ? "the help" : "the version");
		return 0;
	}
	}
	bool *flag = c == 'x'   ? &o->fix
		     : c == 'U' ? &o->diff
		     : c == 'R' ? &o->dry_run
		     : c == 'E' ? &o->explain
		     : c == 'l' ? &o->list_rules
		     : c == 'N' ? &o->no_config
		     : c == 'S' ? &o->show_suppressed
				: NULL;
	if (!flag)
		return usage_error();
	*flag = true;
	return 0;
}

/* An option word that names no option: said with the nearest option's name, if one is near. */
static int unknown_option(const char *word, size_t len)
{
	const char *names[NOPTS];
	for (size_t i = 0; i < NOPTS; i++)
		names[i] = opts[i].o.name;
	char name[64]; /* longer than any option: nothing is near */
	const char *near = len - 2 < sizeof name && snprintf(name, sizeof name, "%.*s", (int)(len - 2), word + 2) > 0
			       ? sl_closest(name, names, NOPTS)
			       : NULL;
	sl_cli_error("unrecognized option '%.*s'%s%s%s", (int)len, word, near ? "; did you mean '--" : "",
		     near ? near : "", near ? "'?" : "");
	return usage_error();
}

/* Long options must be spelled whole. getopt_long takes any unique prefix (--node for --nodes): a
 * typo that works today and breaks the day an option named like it is added. So the words are
 * checked before getopt reads them, walking them as it will: an option's argument is skipped,
 * "--" ends the options. 0, or -1 after saying what is wrong. */
static int check_long_options(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *w = argv[i];
		if (w[0] != '-' || !w[1])
			continue;
		if (w[1] != '-') { /* -n FILE, -nFILE, -hV: a short option with an argument takes the rest */
			for (const char *c = w + 1; *c; c++)
				if (strchr("npfo", *c)) {
					i += !c[1];
					break;
				}
			continue;
		}
		const char *eq = strchr(w, '=');
		size_t len = eq ? (size_t)(eq - w) : strlen(w);
		const struct opt_doc *d = NULL;
		for (size_t k = 0; k < NOPTS && !d; k++)
			if (strlen(opts[k].o.name) == len - 2 && !strncmp(opts[k].o.name, w + 2, len - 2))
				d = &opts[k];
		if (!d)
			return unknown_option(w, len);
		if (eq && d->o.has_arg == no_argument) {
			sl_cli_error("option '--%s' takes no argument", d->o.name);
			return usage_error();
		}
		if (!eq && d->o.has_arg == required_argument && ++i >= argc) {
			sl_cli_error("option '--%s' needs an argument (%s)", d->o.name, d->arg);
			return usage_error();
		}
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct sl_options *o, int *done)
{
	struct option lo[NOPTS + 1];
	for (size_t i = 0; i < NOPTS; i++)
		lo[i] = opts[i].o;
	memset(&lo[NOPTS], 0, sizeof lo[NOPTS]);
	int c;
	*done = 0;
	if (check_long_options(argc, argv) < 0)
		return -1;
	/* getopt's own messages quote the word raw, and without "schedlint: error:": said here. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:p:f:o:hV", lo, NULL)) != -1) {
		if (c == ':') {
			sl_cli_error("option '-%c' needs an argument", optopt);
			return usage_error();
		}
		if (c == '?') {
			sl_cli_error("unrecognized option '-%c'", optopt);
			return usage_error();
		}
		if (take_option(c, o, done) < 0 || *done)
			return *done ? 0 : -1;
	}
	return 0;
}

void sl_options_free(struct sl_options *o)
{
	free(o->nodes);
	free(o->pods);
	free(o->reports);
	free(o->exclude);
	free(o->disable);
}

/* A word that reads as a command (`schedlint version`, `schedlint check`) given first where a path
 * goes, and no file has that name: not reported as a file that cannot be opened. version and help
 * do what --version and --help do (*done, as take_option sets it); the others are refused.
 * -1 after saying so, else 0. */
static int command_word(char *const *paths, size_t npaths, struct sl_options *o, int *done)
{
	static const char *const words[] = {"version", "help", "check", "lint", "init", "fix", "lsp"};
	size_t i = 0;
	while (npaths && i < sizeof words / sizeof words[0] && strcmp(paths[0], words[i]))
		i++;
	struct stat st;
	if (!npaths || i == sizeof words / sizeof words[0] || stat(paths[0], &st) == 0)
		return 0;
	if (i < 2) /* as `git help x` does, whatever follows */
		return take_option(i ? 'h' : 'V', o, done);
	if (!strcmp(paths[0], "lsp"))
		sl_cli_error("lsp is a command only as the first word: schedlint lsp [--stdio]");
	else
		sl_cli_error("'%s' is not a command, and no file has that name; schedlint takes files and directories: "
			     "schedlint [OPTIONS] PATH...%s",
			     paths[0], !strcmp(paths[0], "fix") ? " (--fix applies the fixes)" : "");
	return usage_error();
}
void sl_options_init(struct sl_options *o)
{
	*o = (struct sl_options){.fail_on = SL_ERROR, .color = -1};
	sl_gates_init(&o->gates);
}

int sl_options_parse(int argc, char **argv, struct sl_options *o, int *first, int *done)
{
	if (parse_args(argc, argv, o, done) < 0 || *done)
		return *done ? 0 : -1;
	*first = optind;
	if (!o->nreports) /* no --format, no --output: text on standard output */
		new_report(o, SL_FMT_TEXT, true);
	return command_word(argv + optind, (size_t)(argc - optind), o, done);
}

const char *sl_format_name(enum sl_format f)
{
	return format_names[f];
}
