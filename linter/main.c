/* main.c — the CLI: one options table, then the pipeline stage by stage (pipeline()): config,
 * load → model → check once per target (run.c), report, fix; and the exit status (0 clean, 1
 * findings at or above --fail-on, 2 usage or input error). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rules/rules.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/similar.h"
#include "config/config.h"
#include "fix/fix.h"
#include "load/input.h"
#include "load/yamldoc.h"
#include "lsp/lsp.h"
#include "model/k8s.h"
#include "report/emit.h"
#include "report/output.h"
#include "run.h"
#include "sched/sched.h"

/* Where `make install` puts the rule docs; the Makefile passes $(DOCDIR). */
#ifndef SL_DOCDIR
#define SL_DOCDIR "/usr/local/share/doc/schedlint"
#endif

enum format { FMT_TEXT, FMT_SARIF, FMT_JSON, FMT_GITHUB, FMT_CODECLIMATE, FMT_JUNIT };

/* The option set: the only program-wide state. */
struct options {
	const char **nodes, **pods;
	size_t nnodes, npods, capnodes, cappods;
	enum format format;
	const char *output;
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
     "text (default), sarif, json, github (workflow commands), codeclimate (GitLab Code Quality) or junit (JUnit XML)"},
    {{"output", required_argument, NULL, 'o'}, "FILE", "write the report to FILE instead of stdout"},
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
     "instead of findings, show per workload each node's verdict, the pods it takes and the totals"},
    {{"list-rules", no_argument, NULL, 'l'}, NULL, "list the rules and exit"},
    {{"help", no_argument, NULL, 'h'}, NULL, "show this help and exit"},
    {{"version", no_argument, NULL, 'V'}, NULL, "show the version and exit"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

static void usage(FILE *out)
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

/* A usage error said: -1. */
static int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int cli_error(const char *fmt, ...)
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
		return cli_error("--feature-gates takes NAME=BOOL pairs separated by commas: %s", err);
	return 0;
}

/* Repeatable options collect their arguments in order. */
static void push_arg(const char ***v, size_t *n, size_t *cap, const char *arg)
{
	sl_grow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = arg;
}

static const char *const format_names[] = {[FMT_TEXT] = "text",
					   [FMT_SARIF] = "sarif",
					   [FMT_JSON] = "json",
					   [FMT_GITHUB] = "github",
					   [FMT_CODECLIMATE] = "codeclimate",
					   [FMT_JUNIT] = "junit"};

/* A word option's value that is none of names: the one meant, if one is near, and the list. -1. */
static int unknown_value(const char *what, const char *arg, const char *const *names, size_t n)
{
	struct sl_buf b = SL_BUF_INIT;
	for (size_t i = 0; i < n; i++)
		sl_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	const char *near = sl_closest(arg, names, n);
	cli_error("unknown %s '%s'%s%s%s (%s)", what, arg, near ? "; did you mean '" : "", near ? near : "",
		  near ? "'?" : "", sl_buf_str(&b));
	sl_buf_free(&b);
	return -1;
}

/* The options that take a word or a number: -1 after saying what is wrong with arg. */
static int parse_format(const char *arg, enum format *out)
{
	size_t n = sizeof format_names / sizeof format_names[0];
	for (size_t i = 0; i < n; i++)
		if (!strcmp(arg, format_names[i])) {
			*out = (enum format)i;
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
		return cli_error("--%s is at most %zu%s, not '%s'", opt, max, units ? " bytes" : "", arg);
	if (bad)
		return cli_error("--%s takes a positive number%s, not '%s'", opt, units ? " (with K, M or G)" : "",
				 arg);
	*out = (size_t)n << shift;
	return 0;
}

/* One option (getopt's c, its argument in optarg). 0, or -1 after saying what is wrong; *done:
 * the option's whole work is done (--help, --version), and is 1 + the exit status. */
static int take_option(int c, struct options *o, int *done)
{
	switch (c) {
	case 'n':
		push_arg(&o->nodes, &o->nnodes, &o->capnodes, optarg);
		return 0;
	case 'p':
		push_arg(&o->pods, &o->npods, &o->cappods, optarg);
		return 0;
	case 'f':
		return parse_format(optarg, &o->format);
	case 'o':
		o->output = optarg;
		return 0;
	case 'F':
		if (sl_level_parse(optarg, &o->fail_on) < 0 || o->fail_on == SL_LEVEL_NONE)
			return cli_error("--fail-on takes error, warning or note, not '%s'", optarg);
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
			return cli_error("--kube-version takes a Kubernetes release from 1.%d, such as 1.%d, not '%s'",
					 SL_KUBE_MIN, SL_KUBE_DEFAULT, optarg);
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
			usage(out);
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
	cli_error("unrecognized option '%.*s'%s%s%s", (int)len, word, near ? "; did you mean '--" : "",
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
			cli_error("option '--%s' takes no argument", d->o.name);
			return usage_error();
		}
		if (!eq && d->o.has_arg == required_argument && ++i >= argc) {
			cli_error("option '--%s' needs an argument (%s)", d->o.name, d->arg);
			return usage_error();
		}
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o, int *done)
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
			cli_error("option '-%c' needs an argument", optopt);
			return usage_error();
		}
		if (c == '?') {
			cli_error("unrecognized option '-%c'", optopt);
			return usage_error();
		}
		if (take_option(c, o, done) < 0 || *done)
			return *done ? 0 : -1;
	}
	return 0;
}

/* NO_COLOR counts only when set to something (no-color.org). */
static bool no_color(void)
{
	const char *v = getenv("NO_COLOR");
	return v && *v;
}

/* The rules and their levels: 0, or 2 when the list could not be written. A policy's id and
 * message come from the config, and are escaped (escape.h). */
static int list_rules(const struct sl_config *c)
{
	struct sl_capture cap;
	FILE *out = sl_capture_open(&cap);
	struct sl_buf line = SL_BUF_INIT, g = SL_BUF_INIT;
	for (size_t i = 0; i < c->nrules; i++) {
		const struct sl_rule *r = c->rules[i];
		bool policy = i >= sl_nrules;
		char *id = sl_esc_dup(r->id), *summary = sl_esc_dup(r->summary);
		sl_buf_reset(&line);
		sl_buf_printf(&line, "%-32s %-8s %s%s%s\n", id, c->levels[i] ? sl_level_name(c->levels[i]) : "off",
			      summary, r->needs_nodes ? " (needs nodes: --nodes or Node objects)" : "",
			      policy ? " (policy from the config)" : "");
		sl_esc_lines(&g, line.s, line.len);
		free(id);
		free(summary);
	}
	fwrite(sl_buf_str(&g), 1, g.len, out);
	sl_buf_free(&line);
	sl_buf_free(&g);
	return sl_capture_write(&cap, NULL, 1, "the rule list");
}

static void free_options(struct options *o)
{
	free(o->nodes);
	free(o->pods);
	free(o->exclude);
	free(o->disable);
}

/* The config (unless --no-config) with the command line's --exclude and --disable on top. What
 * is wrong goes to errs; returns -1 then. */
static int setup_config(const struct options *o, struct sl_config *cfg, struct sl_findings *errs)
{
	sl_config_defaults(cfg);
	char *found = o->no_config || o->config ? NULL : sl_config_find();
	const char *path = o->no_config ? NULL : o->config ? o->config : found;
	int rc = 0;
	if (path && sl_config_load(cfg, path, errs) < 0)
		rc = -1;
	free(found);
	for (size_t i = 0; i < o->nexclude && !rc; i++)
		if (sl_config_add_exclude(cfg, o->exclude[i], errs) < 0)
			rc = -1;
	for (size_t i = 0; i < o->ndisable && !rc; i++)
		if (sl_config_disable(cfg, o->disable[i]) < 0) {
			const char *near = sl_config_rule_closest(cfg, o->disable[i]);
			sl_input_error(
			    errs, NULL, "--disable: unknown rule '%s'%s%s%s (schedlint --list-rules lists them)",
			    o->disable[i], near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
			rc = -1;
		}
	return rc;
}

/* Whether path is one of list's n paths, as a file: standard input is none. */
static const char *among(const char *path, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], "-") && sl_same_file(path, list[i]))
			return list[i];
	return NULL;
}

/* --output naming an input would replace it with the report: a manifest given, an inventory
 * (--nodes, --pods, the config's) or the config itself. 2 after saying which, else 0. Files found
 * in a directory given are not looked for: a report written there is read as one more input. */
static int check_output(const struct options *o, const struct sl_config *cfg, char *const *paths, size_t npaths)
{
	if (!o->output)
		return 0;
	const char *in = among(o->output, (const char *const *)paths, npaths);
	in = in ? in : among(o->output, o->nodes, o->nnodes);
	in = in ? in : among(o->output, o->pods, o->npods);
	in = in ? in : among(o->output, (const char *const *)cfg->nodes, cfg->nnodes);
	in = in ? in : among(o->output, (const char *const *)cfg->pods, cfg->npods);
	for (size_t i = 0; !in && i < cfg->ntargets; i++) {
		const struct sl_target *t = &cfg->targets[i];
		in = among(o->output, (const char *const *)t->nodes, t->nnodes);
		in = in ? in : among(o->output, (const char *const *)t->pods, t->npods);
	}
	if (!in && cfg->path && sl_same_file(o->output, cfg->path))
		in = cfg->path;
	if (!in)
		return 0;
	cli_error("--output %s is the input %s: the report would replace it; nothing was checked", o->output, in);
	return 2;
}

/* The report of fs in o's format (the findings, or --explain's text or JSON when run has it) into
 * out. */
static void emit(FILE *out, const struct options *o, const struct sl_findings *fs, const struct sl_config *cfg,
		 struct sl_run *run, bool color)
{
	if (run && o->explain && run->explained_json) {
		cJSON *root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "tool", "schedlint");
		cJSON_AddStringToObject(root, "version", SL_VERSION);
		cJSON_AddItemToObject(root, "explain", run->explained_json);
		run->explained_json = NULL;
		sl_emit_cjson(out, root);
		cJSON_Delete(root);
	} else if (run && o->explain) {
		/* Its values are escaped already (explain.c); a line must not read as a command. */
		struct sl_buf b = SL_BUF_INIT;
		sl_esc_lines(&b, sl_buf_str(&run->explained), run->explained.len);
		fwrite(sl_buf_str(&b), 1, b.len, out);
		sl_buf_free(&b);
	} else if (o->format == FMT_TEXT)
		sl_emit_text(out, fs, color, false, o->show_suppressed);
	else if (o->format == FMT_SARIF)
		sl_emit_sarif(out, fs, cfg);
	else if (o->format == FMT_GITHUB)
		sl_emit_github(out, fs, o->show_suppressed);
	else if (o->format == FMT_CODECLIMATE)
		sl_emit_codeclimate(out, fs, o->show_suppressed);
	else if (o->format == FMT_JUNIT)
		sl_emit_junit(out, fs, o->show_suppressed);
	else
		sl_emit_json(out, fs);
}

/* A config that cannot be used stops the run: its errors on stderr and, for SARIF and JSON, a
 * report that carries them (code scanning then shows why nothing was checked). */
static void report_config_errors(const struct options *o, const struct sl_config *cfg, const struct sl_findings *errs,
				 bool ecolor, char *const *paths, size_t npaths)
{
	sl_emit_text(stderr, errs, ecolor, true, false);
	if (o->format == FMT_TEXT || o->explain || o->list_rules || check_output(o, cfg, paths, npaths))
		return;
	struct sl_out out;
	emit(sl_out_open(&out, o->output, 1), o, errs, cfg, NULL, false);
	sl_out_close(&out, "the report");
}

/* Stage config: the config, with the command line's additions. One that cannot be used stops the
 * run (-1), its errors reported. */
static int configure(const struct options *o, struct sl_config *cfg, bool ecolor, char *const *paths, size_t npaths)
{
	struct sl_findings errs = {0};
	int rc = setup_config(o, cfg, &errs);
	if (rc < 0)
		report_config_errors(o, cfg, &errs, ecolor, paths, npaths);
	else if (errs.n) /* warnings only (a feature gate schedlint does not model): said, and on */
		sl_emit_text(stderr, &errs, ecolor, true, false);
	sl_findings_free(&errs);
	return rc;
}

/* Whether standard input (-) is among the paths. */
static bool among_stdin(char *const *paths, size_t npaths)
{
	for (size_t i = 0; i < npaths; i++)
		if (!strcmp(paths[i], "-"))
			return true;
	return false;
}

/* Options that contradict each other, or no manifest: 2 after saying so, else 0. Checked once the
 * config is read, so that its errors come first and --list-rules needs no manifest. */
static int check_usage(const struct options *o, char *const *paths, size_t npaths)
{
	bool explain_format = o->format == FMT_TEXT || o->format == FMT_JSON;
	const char *usage_error = o->explain && !explain_format       ? "--explain prints text or json, not "
				  : o->dry_run && !o->fix && !o->diff ? "--dry-run goes with --fix"
				  : o->fix && !o->dry_run && among_stdin(paths, npaths)
				      ? "--fix cannot write back to standard input (-): give the file's path instead"
				  : !npaths ? "no manifests given"
					    : NULL;
	if (!usage_error)
		return 0;
	fprintf(stderr, "schedlint: error: %s%s\n", usage_error,
		o->explain && !explain_format ? format_names[o->format] : "");
	if (!npaths)
		usage(stderr);
	return 2;
}

/* The report: to --output (replaced whole, output.h), else to stdout, or to stderr when stdout
 * carries the diff. Input errors always reach stderr as well. Returns 0, or 2 when the report
 * could not be written. */
static int report(const struct options *o, struct sl_run *run, const struct sl_config *cfg, bool ecolor)
{
	const struct sl_findings *fs = &run->fs;
	int fd = o->diff ? 2 : 1;
	bool color = o->color == 1 || (o->color == -1 && !o->output && isatty(fd) && !no_color());
	for (size_t i = 0; i < fs->n; i++)
		if (!fs->v[i].rule) {
			struct sl_findings one = {&fs->v[i], 1, 1, 1};
			sl_emit_text(stderr, &one, ecolor, true, false);
		}
	struct sl_out out;
	emit(sl_out_open(&out, o->output, fd), o, fs, cfg, run, color);
	return sl_out_close(&out, "the report");
}

/* Stage fix: --fix writes the fixes into the files, --diff prints them. 2 when a file could not be
 * fixed or the diff not written, else rc. *nwritten: how many files were rewritten. */
static int fix(const struct options *o, const struct sl_run *run, int rc, size_t *nwritten)
{
	*nwritten = 0;
	if (!o->fix && !o->diff)
		return rc;
	struct sl_capture cap;
	FILE *diff = o->diff ? sl_capture_open(&cap) : NULL;
	int frc = sl_fix_files(&run->ss, &run->fs, diff, nwritten);
	int drc = diff ? sl_capture_write(&cap, NULL, 1, "the diff") : 0;
	return frc < 0 || drc ? 2 : rc;
}

/* rc unless it is 0: then 2 for input errors, 1 for findings at or above --fail-on that are not
 * suppressed, else 0. */
static int exit_status(const struct options *o, const struct sl_findings *fs, int rc)
{
	size_t counts[4] = {0};
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].rule && !fs->v[i].nsupp)
			counts[fs->v[i].level]++;
	if (!rc && fs->input_errors)
		rc = 2;
	if (!rc)
		for (int l = o->fail_on; l <= SL_ERROR; l++)
			if (counts[l])
				rc = 1;
	return rc;
}

/* Stage load → model → check (sl_run, run.c) into *run. fix: the files may be rewritten afterwards. */
static void lint(struct sl_run *run, const struct options *o, struct sl_config *cfg, bool fix, char *const *paths,
		 size_t npaths)
{
	*run = (struct sl_run){.cfg = cfg,
			       .explain = o->explain,
			       .explain_json = o->explain && o->format != FMT_TEXT,
			       .stdin_name = o->stdin_name,
			       .fix = fix,
			       .keep_bytes = o->diff, /* the diff reads every file whole */
			       .snippets = o->format == FMT_SARIF,
			       .kube_minor = o->kube_minor,
			       .kube_text = o->kube_text,
			       .gates = &o->gates};
	sl_run(run, o->nodes, o->nnodes, o->pods, o->npods, paths, npaths);
}

/* The pipeline, stage by stage: config; load → model → check, once per target (sl_run, run.c);
 * report; fix. With --fix the files are fixed first and checked again: the report and the exit
 * status are what remains (as ruff does), not the findings just fixed. Returns the exit status. */
static int pipeline(struct options *o, char *const *paths, size_t npaths)
{
	bool ecolor = o->color == 1 || (o->color == -1 && isatty(2) && !no_color());
	struct sl_config cfg;
	int rc = configure(o, &cfg, ecolor, paths, npaths) < 0 ? 2 : 0;
	if (!rc && o->list_rules)
		rc = list_rules(&cfg);
	else if (!rc && !(rc = check_usage(o, paths, npaths)) && !(rc = check_output(o, &cfg, paths, npaths))) {
		o->diff = o->diff || o->dry_run;
		bool rewrite = o->fix && !o->diff;
		struct sl_run run;
		lint(&run, o, &cfg, o->fix, paths, npaths);
		int frc = 0;
		size_t written = 0;
		if (rewrite && ((frc = fix(o, &run, 0, &written)) || written)) {
			sl_run_free(&run); /* a file changed, or one could not be fixed: checked again */
			lint(&run, o, &cfg, false, paths, npaths);
		}
		rc = report(o, &run, &cfg, ecolor);
		rc = rewrite ? (rc ? rc : frc) : fix(o, &run, rc, &written);
		rc = exit_status(o, &run.fs, rc);
		sl_run_free(&run);
	}
	sl_config_free(&cfg);
	return rc;
}

/* `schedlint lsp [--stdio]`: the language server on standard input and output. --stdio is what
 * many clients pass to every server; it is the only transport there is. */
static int lsp(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--stdio")) {
			cli_error("lsp takes no arguments but --stdio, not '%s'", argv[i]);
			return 2;
		}
	return sl_lsp_serve(0, 1);
}

/* A word that reads as a command (`schedlint version`, `schedlint check`) given first where a path
 * goes, and no file has that name: not reported as a file that cannot be opened. version and help
 * do what --version and --help do (*done, as take_option sets it); the others are refused.
 * -1 after saying so, else 0. */
static int command_word(char *const *paths, size_t npaths, struct options *o, int *done)
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
		cli_error("lsp is a command only as the first word: schedlint lsp [--stdio]");
	else
		cli_error("'%s' is not a command, and no file has that name; schedlint takes files and directories: "
			  "schedlint [OPTIONS] PATH...%s",
			  paths[0], !strcmp(paths[0], "fix") ? " (--fix applies the fixes)" : "");
	return usage_error();
}

int main(int argc, char **argv)
{
	/* A reader that goes away (`| head`) is a write error like a full disk, reported and exit 2,
	 * not a silent death by signal: a CI step must not take a cut report for a whole one. */
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && !strcmp(argv[1], "lsp"))
		return lsp(argc, argv);
	struct options o = {.fail_on = SL_ERROR, .color = -1};
	sl_gates_init(&o.gates);
	int done, rc;
	if (parse_args(argc, argv, &o, &done) < 0 || done ||
	    command_word(argv + optind, (size_t)(argc - optind), &o, &done) < 0 || done)
		rc = done ? done - 1 : 2;
	else
		rc = pipeline(&o, argv + optind, (size_t)(argc - optind));
	free_options(&o);
	/* Everything is written by now (sl_capture_write, sl_out_close); what stdio still holds, and a failed write
	 * to stderr, where the input errors go, make the run fail too. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("cannot write to standard output: %s", strerror(errno));
		rc = 2;
	}
	if (ferror(stderr))
		rc = 2;
	return rc;
}
