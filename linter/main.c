/* main.c — the CLI: one options table, the pipeline load → model → inventory → check → report →
 * fix, and the exit status (0 clean, 1 findings at or above --fail-on, 2 usage or input error). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../rules/rules.h"
#include "buf.h"
#include "emit.h"
#include "explain.h"
#include "fix.h"
#include "input.h"
#include "k8s.h"
#include "sched.h"

enum format { FMT_TEXT, FMT_SARIF, FMT_JSON };

/* The option set: the only program-wide state. */
struct options {
	const char **nodes, **pods;
	size_t nnodes, npods, capnodes, cappods;
	enum format format;
	const char *output;
	enum sl_level fail_on;
	int color; /* -1 auto */
	bool fix;
	bool explain;
};

static const struct opt_doc {
	struct option o;
	const char *arg, *help;
} opts[] = {
    {{"nodes", required_argument, NULL, 'n'}, "FILE", "node inventory: kubectl get nodes -o yaml|json (repeatable)"},
    {{"pods", required_argument, NULL, 'p'}, "FILE", "running pods: kubectl get pods -A -o yaml|json (repeatable)"},
    {{"format", required_argument, NULL, 'f'}, "FMT", "text (default), sarif or json"},
    {{"output", required_argument, NULL, 'o'}, "FILE", "write the report to FILE instead of stdout"},
    {{"fail-on", required_argument, NULL, 'F'},
     "LEVEL",
     "exit 1 on findings at or above LEVEL: error (default), warning, note"},
    {{"fix", no_argument, NULL, 'x'}, NULL, "apply the first suggested fix of every finding, in place"},
    {{"color", required_argument, NULL, 'c'}, "WHEN", "auto (default: on a terminal, unless NO_COLOR), always, never"},
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
	fprintf(out, "usage: schedlint [OPTIONS] PATH...\n\n"
		     "Proves from Kubernetes manifests (and a node inventory) that pods will not schedule "
		     "or\n"
		     "that a rollout can never finish. PATH is a file, a directory (searched for *.yaml,\n"
		     "*.yml, *.json) or - for stdin.\n\nOptions:\n");
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
	fprintf(out, "\nExit status: 0 no findings at or above --fail-on, 1 findings, 2 usage or "
		     "input error.\n"
		     "Rules: schedlint --list-rules; docs: docs/rules/<id>.md, man schedlint.\n");
}

static int parse_args(int argc, char **argv, struct options *o, int *done)
{
	struct option lo[NOPTS + 1];
	for (size_t i = 0; i < NOPTS; i++)
		lo[i] = opts[i].o;
	memset(&lo[NOPTS], 0, sizeof lo[NOPTS]);
	int c;
	*done = 0;
	while ((c = getopt_long(argc, argv, "n:p:f:o:hV", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			sl_grow(&o->nodes, &o->capnodes, o->nnodes + 1, sizeof *o->nodes);
			o->nodes[o->nnodes++] = optarg;
			break;
		case 'p':
			sl_grow(&o->pods, &o->cappods, o->npods + 1, sizeof *o->pods);
			o->pods[o->npods++] = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				o->format = FMT_TEXT;
			else if (!strcmp(optarg, "sarif"))
				o->format = FMT_SARIF;
			else if (!strcmp(optarg, "json"))
				o->format = FMT_JSON;
			else {
				fprintf(stderr, "schedlint: error: unknown format '%s' (text, sarif, json)\n", optarg);
				return -1;
			}
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'F':
			if (sl_level_parse(optarg, &o->fail_on) < 0 || o->fail_on == SL_LEVEL_NONE) {
				fprintf(stderr,
					"schedlint: error: --fail-on takes error, warning or note, "
					"not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'x':
			o->fix = true;
			break;
		case 'E':
			o->explain = true;
			break;
		case 'c':
			if (!strcmp(optarg, "auto"))
				o->color = -1;
			else if (!strcmp(optarg, "always"))
				o->color = 1;
			else if (!strcmp(optarg, "never"))
				o->color = 0;
			else {
				fprintf(stderr,
					"schedlint: error: --color takes auto, always or never, "
					"not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'l':
			for (unsigned i = 0; i < sl_nrules; i++)
				printf("%-32s %-8s %s%s\n", sl_rules[i]->id, sl_level_name(sl_rules[i]->level),
				       sl_rules[i]->summary,
				       sl_rules[i]->needs_nodes ? " (needs nodes: --nodes or Node objects)" : "");
			*done = 1;
			return 0;
		case 'h':
			usage(stdout);
			*done = 1;
			return 0;
		case 'V':
			printf("schedlint %s\n", SL_VERSION);
			*done = 1;
			return 0;
		default:
			fprintf(stderr, "Try 'schedlint --help'.\n");
			return -1;
		}
	}
	return 0;
}

/* Write data to path atomically: a temporary file beside it, then rename. */
static int write_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = sl_xasprintf("%s.schedlint-XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	FILE *fp = fdopen(fd, "wb");
	int ok = fp && fwrite(data, 1, len, fp) == len;
	ok = fp && fclose(fp) == 0 && ok;
	if (!ok || rename(tmp, path) < 0) {
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* Apply the first fix of each finding, file by file. Fixes that overlap an earlier one in the
 * same file are left for the next run. */
static int apply_fixes(const struct sl_sources *ss, const struct sl_findings *fs)
{
	int rc = 0;
	for (size_t s = 0; s < ss->n; s++) {
		const struct sl_source *src = ss->v[s];
		if (src->failed || !strcmp(src->path, "<stdin>"))
			continue;
		const struct sl_edit **edits = NULL;
		size_t n = 0, cap = 0, nfixed = 0;
		for (size_t i = 0; i < fs->n; i++) {
			const struct sl_finding *f = &fs->v[i];
			if (!f->nfixes || f->fixes[0].nedits == 0 || f->fixes[0].edits[0].at.src != src)
				continue;
			size_t before = n;
			for (size_t k = 0; k < f->fixes[0].nedits; k++) {
				sl_grow(&edits, &cap, n + 1, sizeof *edits);
				edits[n++] = &f->fixes[0].edits[k];
			}
			size_t len;
			char *probe = sl_fix_apply(src, edits, n, &len);
			if (!probe)
				n = before; /* overlaps: skip this finding's fix */
			else
				nfixed++;
			free(probe);
		}
		if (n) {
			size_t len;
			char *out = sl_fix_apply(src, edits, n, &len);
			if (!out || write_atomic(src->path, out, len) < 0) {
				fprintf(stderr, "%s:1:1: error: cannot write the fixed file: %s\n", src->path,
					strerror(errno));
				rc = -1;
			} else
				fprintf(stderr, "schedlint: fixed %zu finding%s in %s\n", nfixed,
					nfixed == 1 ? "" : "s", src->path);
			free(out);
		}
		free(edits);
	}
	return rc;
}

/* The check of every workload, shared by the threads that run it. */
struct check_job {
	const struct options *o;
	const struct sl_model *m;
	struct sl_cluster *cl;
	struct sl_findings *found; /* per workload */
	struct sl_buf *text;       /* per workload, --explain */
	cJSON **json;              /* per workload, --explain --format json */
	atomic_size_t next;
};

static void check_one(struct check_job *job, size_t i)
{
	const struct sl_model *m = job->m;
	const struct sl_workload *w = m->workloads[i];
	struct sl_analysis a;
	bool have = m->nnodes > 0;
	if (have)
		sl_analyze(job->cl, w, job->o->explain, &a);
	if (job->o->explain) {
		if (job->o->format != FMT_TEXT)
			job->json[i] = sl_explain_json(m, w, have ? &a : NULL);
		else
			sl_explain_text(&job->text[i], m, w, have ? &a : NULL);
	} else
		for (unsigned r = 0; r < sl_nrules; r++) {
			const struct sl_rule *rule = sl_rules[r];
			if (rule->needs_nodes && !have)
				continue;
			struct sl_check cx = {m, w, have ? &a : NULL, &job->found[i], rule->level};
			rule->check(rule, &cx);
		}
	if (have)
		sl_analysis_free(&a);
}

static void *check_worker(void *arg)
{
	struct check_job *job = arg;
	for (size_t i; (i = atomic_fetch_add(&job->next, 1)) < job->m->nworkloads;)
		check_one(job, i);
	return NULL;
}

struct src_rank {
	size_t src, seq;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct src_rank *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Input errors in the order of the sources they concern (reading errors came first, parsing
 * and model errors after), each source's own in the order they were found. */
static void order_by_source(struct sl_findings *fs, const struct sl_sources *ss)
{
	if (fs->n < 2)
		return;
	struct src_rank *r = sl_xcalloc(fs->n + 1, sizeof *r);
	for (size_t i = 0; i < fs->n; i++) {
		r[i].seq = i;
		r[i].src = ss->n;
		for (size_t s = 0; s < ss->n; s++)
			if (fs->v[i].at.src == ss->v[s]) {
				r[i].src = s;
				break;
			}
	}
	qsort(r, fs->n, sizeof *r, cmp_rank);
	struct sl_finding *v = sl_xcalloc(fs->n + 1, sizeof *v);
	for (size_t i = 0; i < fs->n; i++)
		v[i] = fs->v[r[i].seq];
	memcpy(fs->v, v, fs->n * sizeof *v);
	free(v);
	free(r);
}

/* NO_COLOR counts only when set to something (no-color.org). */
static bool no_color(void)
{
	const char *v = getenv("NO_COLOR");
	return v && *v;
}

int main(int argc, char **argv)
{
	struct options o = {0};
	o.fail_on = SL_ERROR;
	o.color = -1;
	int done;
	if (parse_args(argc, argv, &o, &done) < 0) {
		free(o.nodes);
		free(o.pods);
		return 2;
	}
	if (done) {
		free(o.nodes);
		free(o.pods);
		return 0;
	}
	if (o.explain && o.format == FMT_SARIF) {
		fprintf(stderr, "schedlint: error: --explain prints text or json, not sarif\n");
		free(o.nodes);
		free(o.pods);
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "schedlint: error: no manifests given\n");
		usage(stderr);
		free(o.nodes);
		free(o.pods);
		return 2;
	}

	struct sl_sources ss = {0};
	struct sl_findings fs = {0};
	struct sl_model m = {0};
	/* load → model: inventories first so that their errors come first; sources parse in
	 * parallel, then load in order */
	struct sl_load *loads = NULL;
	size_t nloads = 0, caploads = 0;
	for (size_t i = 0; i < o.nnodes + o.npods + (size_t)(argc - optind); i++) {
		bool inv = i < o.nnodes + o.npods;
		const char *path = i < o.nnodes ? o.nodes[i]
				   : inv        ? o.pods[i - o.nnodes]
						: argv[optind + (i - o.nnodes - o.npods)];
		enum sl_input_role role = i < o.nnodes ? SL_ROLE_NODES : inv ? SL_ROLE_PODS : SL_ROLE_MANIFESTS;
		size_t first = ss.n;
		sl_input_add(&ss, path, &fs);
		for (size_t s = first; s < ss.n; s++) {
			sl_grow(&loads, &caploads, nloads + 1, sizeof *loads);
			loads[nloads++] = (struct sl_load){ss.v[s], role};
		}
	}
	sl_model_load_many(&m, loads, nloads, &fs);
	free(loads);
	order_by_source(&fs, &ss);
	/* inventory → check */
	sl_model_bind_pods(&m);
	struct sl_cluster *cl = m.nnodes ? sl_cluster_new(&m) : NULL;
	struct sl_buf explained = SL_BUF_INIT;
	cJSON *explained_json = o.explain && o.format != FMT_TEXT ? cJSON_CreateArray() : NULL;
	struct check_job job = {&o, &m, cl, NULL, NULL, NULL, 0};
	size_t nw = m.nworkloads;
	job.found = sl_xcalloc(nw + 1, sizeof *job.found);
	if (o.explain) {
		job.text = sl_xcalloc(nw + 1, sizeof *job.text);
		job.json = sl_xcalloc(nw + 1, sizeof *job.json);
	}
	/* Workloads are independent: two threads take them in turn; results merge in order. */
	pthread_t helper;
	bool threaded = nw > 1 && pthread_create(&helper, NULL, check_worker, &job) == 0;
	check_worker(&job);
	if (threaded)
		pthread_join(helper, NULL);
	for (size_t i = 0; i < nw; i++) {
		sl_findings_move(&fs, &job.found[i]);
		if (job.text) {
			if (explained.len && job.text[i].len)
				sl_buf_putc(&explained, '\n');
			sl_buf_add(&explained, sl_buf_str(&job.text[i]), job.text[i].len);
			sl_buf_free(&job.text[i]);
		}
		if (job.json && job.json[i])
			cJSON_AddItemToArray(explained_json, job.json[i]);
	}
	free(job.found);
	free(job.text);
	free(job.json);
	sl_cluster_free(cl);
	/* report */
	FILE *out = stdout;
	if (o.output && !(out = fopen(o.output, "w"))) {
		fprintf(stderr, "schedlint: error: cannot write %s: %s\n", o.output, strerror(errno));
		out = NULL;
	}
	int rc = 0;
	if (out) {
		bool color = o.color == 1 || (o.color == -1 && out == stdout && isatty(1) && !no_color());
		bool ecolor = o.color == 1 || (o.color == -1 && isatty(2) && !no_color());
		/* Input errors always reach stderr; the report format carries them as well. */
		for (size_t i = 0; i < fs.n; i++)
			if (!fs.v[i].rule) {
				struct sl_findings one = {&fs.v[i], 1, 1, 1};
				sl_emit_text(stderr, &one, ecolor, true);
			}
		if (o.explain && explained_json) {
			cJSON *root = cJSON_CreateObject();
			cJSON_AddStringToObject(root, "tool", "schedlint");
			cJSON_AddStringToObject(root, "version", SL_VERSION);
			cJSON_AddItemToObject(root, "explain", explained_json);
			explained_json = NULL;
			char *text = cJSON_Print(root);
			fprintf(out, "%s\n", text);
			free(text);
			cJSON_Delete(root);
		} else if (o.explain)
			fputs(sl_buf_str(&explained), out);
		else if (o.format == FMT_TEXT)
			sl_emit_text(out, &fs, color, false);
		else if (o.format == FMT_SARIF)
			sl_emit_sarif(out, &fs);
		else
			sl_emit_json(out, &fs);
		if (out != stdout && fclose(out) != 0) {
			fprintf(stderr, "schedlint: error: cannot write %s\n", o.output);
			rc = 2;
		}
	} else
		rc = 2;
	if (o.fix && apply_fixes(&ss, &fs) < 0)
		rc = 2;
	size_t counts[4] = {0};
	for (size_t i = 0; i < fs.n; i++)
		if (fs.v[i].rule)
			counts[fs.v[i].level]++;
	if (!rc && fs.input_errors)
		rc = 2;
	if (!rc)
		for (int l = o.fail_on; l <= SL_ERROR; l++)
			if (counts[l])
				rc = 1;
	cJSON_Delete(explained_json);
	sl_buf_free(&explained);
	sl_model_free(&m);
	sl_findings_free(&fs);
	sl_sources_free(&ss);
	free(o.nodes);
	free(o.pods);
	return rc;
}
