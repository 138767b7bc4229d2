/* main.c — the CLI's pipeline stage by stage (pipeline()) on the options options.c parsed: config,
 * load → model → check once per target (run.c), report, fix; and the exit status (0 clean, 1
 * findings at or above --fail-on, 2 usage or input error). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../rules/rules.h"
#include "base/buf.h"
#include "base/escape.h"
#include "config/config.h"
#include "fix/fix.h"
#include "load/input.h"
#include "load/yamldoc.h"
#include "lsp/lsp.h"
#include "model/k8s.h"
#include "options.h"
#include "report/emit.h"
#include "report/output.h"
#include "run.h"
#include "sched/sched.h"

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

/* The config (unless --no-config) with the command line's --exclude and --disable on top. What
 * is wrong goes to errs; returns -1 then. */
static int setup_config(const struct sl_options *o, struct sl_config *cfg, struct sl_findings *errs)
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

/* Whether the file out (stat's answer for the output) is one of list's n paths: standard input is
 * none. */
static const char *among(const struct stat *out, const char *const *list, size_t n)
{
	struct stat st;
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], "-") && stat(list[i], &st) == 0 && st.st_dev == out->st_dev &&
		    st.st_ino == out->st_ino)
			return list[i];
	return NULL;
}

/* --output naming an input would replace it with the report: a manifest given, an inventory
 * (--nodes, --pods, the config's) or the config itself. 2 after saying which, else 0. Files found
 * in a directory given are not looked for: a report written there is read as one more input. */
static int check_output(const struct sl_options *o, const char *output, const struct sl_config *cfg, char *const *paths,
			size_t npaths)
{
	/* Only an existing regular file is replaced by the report: a new file is no input yet, and
	 * /dev/null or a pipe is written to, not replaced. So the inputs are stat'ed only then, and
	 * the output once, not once per input (the inputs of a monorepo run are thousands). */
	struct stat out;
	if (!output || stat(output, &out) < 0 || !S_ISREG(out.st_mode))
		return 0;
	const char *in = among(&out, (const char *const *)paths, npaths);
	in = in ? in : among(&out, o->nodes, o->nnodes);
	in = in ? in : among(&out, o->pods, o->npods);
	in = in ? in : among(&out, (const char *const *)cfg->nodes, cfg->nnodes);
	in = in ? in : among(&out, (const char *const *)cfg->pods, cfg->npods);
	for (size_t i = 0; !in && i < cfg->ntargets; i++) {
		const struct sl_target *t = &cfg->targets[i];
		in = among(&out, (const char *const *)t->nodes, t->nnodes);
		in = in ? in : among(&out, (const char *const *)t->pods, t->npods);
	}
	if (!in && cfg->path)
		in = among(&out, (const char *const *)&cfg->path, 1);
	if (!in)
		return 0;
	sl_cli_error("--output %s is the input %s: the report would replace it; nothing was checked", output, in);
	return 2;
}

/* check_output for every report's --output: 2 at the first that names an input, else 0. */
static int check_outputs(const struct sl_options *o, const struct sl_config *cfg, char *const *paths, size_t npaths)
{
	for (size_t i = 0; i < o->nreports; i++)
		if (check_output(o, o->reports[i].output, cfg, paths, npaths))
			return 2;
	return 0;
}

/* Several reports: one at most on standard output (two would be interleaved into one stream no
 * reader can take apart), and never two into one file (the second would replace the first). 2
 * after saying which, else 0. */
static int check_reports(const struct sl_options *o)
{
	const struct sl_report_spec *r = o->reports, *out = NULL;
	for (size_t i = 0; i < o->nreports; i++) {
		if (!r[i].output && out) {
			sl_cli_error("--format %s and --format %s both write to standard output: give all but one an "
				     "--output FILE after its --format",
				     sl_format_name(out->format), sl_format_name(r[i].format));
			return 2;
		}
		out = r[i].output ? out : &r[i];
		for (size_t j = 0; r[i].output && j < i; j++)
			if (r[j].output &&
			    (!strcmp(r[i].output, r[j].output) || sl_same_file(r[i].output, r[j].output))) {
				sl_cli_error("--output %s is given to two reports (--format %s and --format %s): the "
					     "second would replace the first",
					     r[i].output, sl_format_name(r[j].format), sl_format_name(r[i].format));
				return 2;
			}
	}
	return 0;
}

/* The report of fs in r's format (the findings, or --explain's text or JSON when run has it) into
 * out. */
static void emit(FILE *out, const struct sl_options *o, const struct sl_report_spec *r, const struct sl_findings *fs,
		 const struct sl_config *cfg, struct sl_run *run, bool color)
{
	const struct sl_notices *ns = run ? &run->notices : NULL;
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
	} else if (r->format == SL_FMT_TEXT)
		sl_emit_text(out, fs, ns, color, false, o->show_suppressed);
	else if (r->format == SL_FMT_SARIF)
		sl_emit_sarif(out, fs, ns, cfg);
	else if (r->format == SL_FMT_GITHUB)
		sl_emit_github(out, fs, ns, o->show_suppressed);
	else if (r->format == SL_FMT_CODECLIMATE)
		sl_emit_codeclimate(out, fs, ns, o->show_suppressed);
	else if (r->format == SL_FMT_JUNIT)
		sl_emit_junit(out, fs, ns, o->show_suppressed);
	else
		sl_emit_json(out, fs, ns);
}

/* A config that cannot be used stops the run: its errors on stderr and, for SARIF and JSON, a
 * report that carries them (code scanning then shows why nothing was checked). */
static void report_config_errors(const struct sl_options *o, const struct sl_config *cfg,
				 const struct sl_findings *errs, bool ecolor, char *const *paths, size_t npaths)
{
	sl_emit_text(stderr, errs, NULL, ecolor, true, false);
	if (o->explain || o->list_rules || check_reports(o) || check_outputs(o, cfg, paths, npaths))
		return;
	for (size_t i = 0; i < o->nreports; i++) {
		const struct sl_report_spec *r = &o->reports[i];
		if (r->format == SL_FMT_TEXT)
			continue;
		struct sl_out out;
		emit(sl_out_open(&out, r->output, 1), o, r, errs, cfg, NULL, false);
		sl_out_close(&out, "the report");
	}
}

/* Stage config: the config, with the command line's additions. One that cannot be used stops the
 * run (-1), its errors reported. */
static int configure(const struct sl_options *o, struct sl_config *cfg, bool ecolor, char *const *paths, size_t npaths)
{
	struct sl_findings errs = {0};
	int rc = setup_config(o, cfg, &errs);
	if (rc < 0)
		report_config_errors(o, cfg, &errs, ecolor, paths, npaths);
	else if (errs.n) /* warnings only (a feature gate schedlint does not model): said, and on */
		sl_emit_text(stderr, &errs, NULL, ecolor, true, false);
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
static int check_usage(const struct sl_options *o, char *const *paths, size_t npaths)
{
	enum sl_format f = o->reports[0].format;
	bool explain_format = f == SL_FMT_TEXT || f == SL_FMT_JSON;
	const char *usage_error = o->explain && o->nreports > 1       ? "--explain makes one report: give one --format"
				  : o->explain && !explain_format     ? "--explain prints text or json, not "
				  : o->dry_run && !o->fix && !o->diff ? "--dry-run goes with --fix"
				  : o->fix && !o->dry_run && among_stdin(paths, npaths)
				      ? "--fix cannot write back to standard input (-): give the file's path instead"
				  : !npaths ? "no manifests given"
					    : NULL;
	if (!usage_error)
		return 0;
	fprintf(stderr, "schedlint: error: %s%s\n", usage_error,
		o->explain && o->nreports == 1 && !explain_format ? sl_format_name(f) : "");
	if (!npaths)
		sl_cli_usage(stderr);
	return 2;
}

/* The reports, each: to its --output (replaced whole, output.h), else to stdout, or to stderr
 * when stdout carries the diff; colour (--color auto) only where that is a terminal. Input errors
 * always reach stderr as well, once. Returns 0, or 2 when a report could not be written (the
 * others are written all the same). */
static int report(const struct sl_options *o, struct sl_run *run, const struct sl_config *cfg, bool ecolor)
{
	const struct sl_findings *fs = &run->fs;
	int fd = o->diff ? 2 : 1, rc = 0;
	for (size_t i = 0; i < fs->n; i++)
		if (!fs->v[i].rule) {
			struct sl_findings one = {&fs->v[i], 1, 1, 1};
			sl_emit_text(stderr, &one, NULL, ecolor, true, false);
		}
	for (size_t i = 0; i < o->nreports; i++) {
		const struct sl_report_spec *r = &o->reports[i];
		bool color = o->color == 1 || (o->color == -1 && !r->output && isatty(fd) && !no_color());
		struct sl_out out;
		emit(sl_out_open(&out, r->output, fd), o, r, fs, cfg, run, color);
		if (sl_out_close(&out, "the report"))
			rc = 2;
	}
	return rc;
}

/* Stage fix: --fix writes the fixes into the files, --diff prints them. 2 when a file could not be
 * fixed or the diff not written, else rc. *nwritten: how many files were rewritten. */
static int fix(const struct sl_options *o, const struct sl_run *run, int rc, size_t *nwritten)
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
 * suppressed, or the run's notices at or above it (nothing checked is a warning), else 0. */
static int exit_status(const struct sl_options *o, const struct sl_run *run, int rc)
{
	const struct sl_findings *fs = &run->fs;
	size_t counts[4] = {0};
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].rule && !fs->v[i].nsupp)
			counts[fs->v[i].level]++;
	for (size_t i = 0; i < run->notices.n; i++)
		counts[run->notices.v[i].level]++;
	if (!rc && fs->input_errors)
		rc = 2;
	if (!rc)
		for (int l = o->fail_on; l <= SL_ERROR; l++)
			if (counts[l])
				rc = 1;
	return rc;
}

static bool any_sarif(const struct sl_options *o)
{
	for (size_t i = 0; i < o->nreports; i++)
		if (o->reports[i].format == SL_FMT_SARIF)
			return true;
	return false;
}

/* Stage load → model → check (sl_run, run.c) into *run. fix: the files may be rewritten afterwards. */
static void lint(struct sl_run *run, const struct sl_options *o, struct sl_config *cfg, bool fix, char *const *paths,
		 size_t npaths)
{
	*run = (struct sl_run){.cfg = cfg,
			       .explain = o->explain,
			       .explain_json = o->explain && o->reports[0].format != SL_FMT_TEXT,
			       .stdin_name = o->stdin_name,
			       .fix = fix,
			       .keep_bytes = o->diff, /* the diff reads every file whole */
			       .snippets = any_sarif(o),
			       .kube_minor = o->kube_minor,
			       .kube_text = o->kube_text,
			       .gates = &o->gates};
	sl_run(run, o->nodes, o->nnodes, o->pods, o->npods, paths, npaths);
}

/* The pipeline, stage by stage: config; load → model → check, once per target (sl_run, run.c);
 * report; fix. With --fix the files are fixed first and checked again: the report and the exit
 * status are what remains (as ruff does), not the findings just fixed. Returns the exit status. */
static int pipeline(struct sl_options *o, char *const *paths, size_t npaths)
{
	bool ecolor = o->color == 1 || (o->color == -1 && isatty(2) && !no_color());
	struct sl_config cfg;
	int rc = configure(o, &cfg, ecolor, paths, npaths) < 0 ? 2 : 0;
	if (!rc && o->list_rules)
		rc = list_rules(&cfg);
	else if (!rc && !(rc = check_usage(o, paths, npaths)) && !(rc = check_reports(o)) &&
		 !(rc = check_outputs(o, &cfg, paths, npaths))) {
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
		rc = exit_status(o, &run, rc);
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
			sl_cli_error("lsp takes no arguments but --stdio, not '%s'", argv[i]);
			return 2;
		}
	return sl_lsp_serve(0, 1);
}

int main(int argc, char **argv)
{
	/* A reader that goes away (`| head`) is a write error like a full disk, reported and exit 2,
	 * not a silent death by signal: a CI step must not take a cut report for a whole one. */
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && !strcmp(argv[1], "lsp"))
		return lsp(argc, argv);
	struct sl_options o;
	sl_options_init(&o);
	int done = 0, first = argc, rc;
	if (sl_options_parse(argc, argv, &o, &first, &done) < 0 || done)
		rc = done ? done - 1 : 2;
	else
		rc = pipeline(&o, argv + first, (size_t)(argc - first));
	sl_options_free(&o);
	/* Everything is written by now (sl_capture_write, sl_out_close); what stdio still holds, and a failed write
	 * to stderr, where the input errors go, make the run fail too. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sl_cli_error("cannot write to standard output: %s", strerror(errno));
		rc = 2;
	}
	if (ferror(stderr))
		rc = 2;
	return rc;
}
