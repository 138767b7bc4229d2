/* emit.h — one emitter per format, all fed the same findings. Text goes the gcc way
 * (path:line:col: level: message [rule]); SARIF 2.1.0 and JSON carry the same notes, related
 * locations and fixes; GitHub workflow commands carry the notes and related locations in their
 * message. Input errors (findings without a rule) are part of every format.
 *
 * The report stage (linter/report/): the findings (base/diag.h) in every format, one emitter per
 * format (emit_*.c, with emit_common.c for what they share), --explain (explain.c) and the
 * checked writing of the report (output.c). May include: everything below it (base/ to config/);
 * never the fix stage or the language server. */
#ifndef SL_EMIT_H
#define SL_EMIT_H
#include <stdbool.h>
#include <stdio.h>

#include "../base/diag.h"

/* The release (the VERSION file): what --version, the reports and the language server say, and the
 * tag v<version> the rules' pages are linked at. SL_VERSION names it wherever it is printed. */
extern const char sl_version[];
#define SL_VERSION sl_version
/* The version and, when built from a git checkout other than the release's tag, `git describe
 * --tags --always --dirty` in parentheses: only --version shows it, so that no report depends on
 * the commit it was built from. */
extern const char sl_version_full[];
#define SL_HOME "https://github.com/schedlint/schedlint"
/* What an emitter gathers before it hands it to the stream (output.h streams the report), so
 * that a report of tens of megabytes is never held whole. */
#define SL_EMIT_CHUNK ((size_t)1 << 16)

struct sl_rule;
struct sl_config;
struct sl_buf;
struct cJSON;
struct sl_source;

/* What every format with one message per finding shows (SARIF, the language server): the message
 * and the proof, "message.\n- note\n- note". */
void sl_finding_text(struct sl_buf *b, const struct sl_finding *f);
/* The page of a built-in rule, docs/rules/<id>.md, on the project's site at the release's tag
 * (v<version>); NULL for a policy of
 * the config, which has no page. Caller frees. */
char *sl_rule_help_uri(const struct sl_rule *r);
/* A JSON document printed to out, then a newline, through sl_esc_json: UTF-8 whatever bytes a file
 * name held, and safe to show in a terminal or a log, its values unchanged. The JSON and SARIF
 * reports and --explain's JSON. */
void sl_emit_cjson(FILE *out, const struct cJSON *root);

/* Whether src is a file a report can point at: not unnamed standard input (no --stdin-filename). */
bool sl_source_named(const struct sl_source *src);
/* A path as the github, codeclimate and junit reports show it: relative to the repository root
 * (root and cwd: sl_path_repo_root, sl_path_cwd), where CI resolves it; a file outside it as
 * typed, normalised; NULL for unnamed standard input, which has no file. Caller frees. */
char *sl_shown_path(const char *root, const char *cwd, const struct sl_source *src);
/* A finding's fingerprint, "HASH:N": its rule, its object (else its message) and its file as the
 * repository knows it (root and cwd: sl_path_repo_root, sl_path_cwd), and dup, how many findings
 * before it share all three (sl_fingerprint_dups). SARIF's partialFingerprints and Code Climate's
 * fingerprint are this one value, so that the two agree. */
#define SL_FINGERPRINT_SIZE 48
void sl_fingerprint(char out[SL_FINGERPRINT_SIZE], const char *root, const char *cwd, const struct sl_finding *f,
		    unsigned dup);
/* dups[i] for each fs->v[i] (0 for findings without a rule or an object). Caller frees. */
unsigned *sl_fingerprint_dups(const struct sl_findings *fs);

/* Every emitter takes the run's notices (base/diag.h: what the run did not do; NULL: none) and
 * puts them at the end of its report. */
/* Text: rule findings (suppressed ones only with show_suppressed, marked) and, with errors_too,
 * input errors, in order, then a line per notice; `color` adds ANSI colour. */
void sl_emit_text(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, bool color, bool errors_too,
		  bool show_suppressed);
/* SARIF: the config's rule set (built-in rules and policies) describes the results. */
void sl_emit_sarif(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, const struct sl_config *cfg);
void sl_emit_json(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns);
/* GitHub Actions workflow commands (::error/::warning/::notice), one line per finding and per
 * input error or note, the proof in the message; suppressed findings only with show_suppressed,
 * as notices. */
void sl_emit_github(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, bool show_suppressed);
/* GitLab Code Quality (Code Climate JSON): an array of issues, input errors and notes among
 * them; suppressed findings only with show_suppressed, as info. The notices are left out: an
 * issue must have a file and lines (GitLab drops or misplaces one without), and a notice is about
 * the run, not a place; the other report of the same run (--format text) carries them. */
void sl_emit_codeclimate(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, bool show_suppressed);
/* JUnit XML: a testsuite per file, a testcase per object and rule (emit_junit.c says how levels
 * map to failures). */
void sl_emit_junit(FILE *out, const struct sl_findings *fs, const struct sl_notices *ns, bool show_suppressed);

#endif
