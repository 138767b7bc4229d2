/* The whole pipeline on one file (its Nodes and bound Pods are its inventory): load, model,
 * every rule, suppressions, SARIF/JSON/text emission; then every suggested fix applied alone to
 * the input in memory and parsed again: a fix must never turn a file that parses into one that
 * does not. An input holding the line SL_FUZZ_MANIFEST_MARK carries a config before it (written
 * beside the manifest and loaded as --config would), so that ignore, exclude and policy patterns
 * and the limits they hit are fuzzed with the findings they judge; without it, the defaults. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../linter/config/config.h"
#include "../../linter/fix/fix.h"
#include "../../linter/load/input.h"
#include "../../linter/load/yamldoc.h"
#include "../../linter/report/emit.h"
#include "../../linter/run.h"
#include "fuzz.h"

static void emit_all(const struct sl_run *run, const struct sl_config *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		abort();
	sl_emit_text(out, &run->fs, &run->notices, true, true, true);
	sl_emit_sarif(out, &run->fs, &run->notices, cfg);
	sl_emit_json(out, &run->fs, &run->notices);
	sl_emit_github(out, &run->fs, &run->notices, true);
	fclose(out);
	free(buf);
}

static bool had_errors(const struct sl_findings *fs, const struct sl_source *src)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!fs->v[i].rule && fs->v[i].level == SL_ERROR && fs->v[i].at.src == src)
			return true;
	return false;
}

static void check_fix(const struct sl_source *src, const struct sl_fix *fx)
{
	const struct sl_edit **edits = calloc(fx->nedits + 1, sizeof *edits);
	size_t n = 0;
	for (size_t k = 0; k < fx->nedits; k++)
		if (fx->edits[k].at.src == src)
			edits[n++] = &fx->edits[k];
	size_t len;
	char *fixed = n ? sl_fix_apply(src, edits, n, &len) : NULL;
	free(edits);
	if (!fixed)
		return;
	struct sl_source *again = sl_source_from_memory(src->path, fixed, len);
	struct sl_ystream ys = {0};
	struct sl_findings errs = {0};
	if (sl_yaml_parse(again, &ys, &errs) < 0 || errs.input_errors) {
		fprintf(stderr, "a fix made the file unparsable: %s\n--- fixed text ---\n%s\n", fx->desc, fixed);
		abort();
	}
	sl_ystream_free(&ys);
	sl_findings_free(&errs);
	sl_source_free(again);
	free(fixed);
}

#define SL_FUZZ_MANIFEST_MARK "\n#%schedlint-manifest\n"

/* Where the mark starts in data, or NULL (memmem is a GNU extension). */
static const uint8_t *find_mark(const uint8_t *data, size_t size)
{
	size_t n = sizeof SL_FUZZ_MANIFEST_MARK - 1;
	for (size_t i = 0; i + n <= size; i++)
		if (data[i] == '\n' && !memcmp(data + i, SL_FUZZ_MANIFEST_MARK, n))
			return data + i;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool quiet_stdin;
	if (!quiet_stdin) /* a config may name "-" as its inventory: an empty one, not the terminal */
		quiet_stdin = freopen("/dev/null", "r", stdin) != NULL;
	struct sl_config cfg;
	sl_config_defaults(&cfg);
	const uint8_t *mark = find_mark(data, size);
	if (mark) {
		/* A config that does not load stops the command line before any file is read. */
		const char *cpath = sl_fuzz_file(data, (size_t)(mark - data), ".schedlint.yaml");
		struct sl_findings errs = {0};
		int rc = sl_config_load(&cfg, cpath, &errs);
		sl_findings_free(&errs);
		if (rc < 0) {
			sl_config_free(&cfg);
			return 0;
		}
		size -= (size_t)(mark - data) + sizeof SL_FUZZ_MANIFEST_MARK - 1;
		data = mark + sizeof SL_FUZZ_MANIFEST_MARK - 1;
	}
	char *path = (char *)sl_fuzz_file(data, size, ".yaml");
	struct sl_run run = {0};
	run.cfg = &cfg;
	sl_run(&run, NULL, 0, NULL, 0, &path, 1);
	emit_all(&run, &cfg);
	for (size_t s = 0; s < run.ss.n; s++) {
		const struct sl_source *src = run.ss.v[s];
		if (src->failed || src->skipped || had_errors(&run.fs, src))
			continue;
		for (size_t i = 0; i < run.fs.n; i++)
			for (size_t k = 0; k < run.fs.v[i].nfixes; k++)
				check_fix(src, &run.fs.v[i].fixes[k]);
	}
	sl_run_free(&run);
	sl_config_free(&cfg);
	return 0;
}
