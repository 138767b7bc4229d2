/* diag.h — a finding: rule, level, primary location, notes (the proof), related locations and
 * suggested fixes. Input errors are findings without a rule. Every emitter reads these and only
 * these, so text, SARIF and JSON can never disagree. A finding owns all its strings. */
#ifndef SL_DIAG_H
#define SL_DIAG_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct sl_source;
struct sl_rule;
struct sl_ynode;

enum sl_level { SL_LEVEL_NONE = 0, SL_NOTE = 1, SL_WARNING = 2, SL_ERROR = 3 };
const char *sl_level_name(enum sl_level l);
int sl_level_parse(const char *s, enum sl_level *out);

/* A byte range of one source. Its 1-based lines and columns (columns count code points) are
 * computed when asked (sl_span_start, sl_span_end in load/source.h): every YAML node carries a
 * span, and few are ever printed. Offsets fit 32 bits: a source is at most 64 MiB (input.c). */
struct sl_span {
	const struct sl_source *src;
	uint32_t off, end;
};

struct sl_related {
	struct sl_span at;
	char *text;
};

/* Replace bytes [at.off, at.end) of at.src with text (an insertion when off == end). */
struct sl_edit {
	struct sl_span at;
	char *text;
};

struct sl_fix {
	char *desc;
	struct sl_edit *edits;
	size_t nedits, cap;
};

/* Why a finding is not counted: a comment or annotation in the manifest (in source) or an
 * ignore entry of the config (external), with the reason given there. */
enum sl_suppress_kind { SL_SUPPRESS_IN_SOURCE = 1, SL_SUPPRESS_EXTERNAL = 2 };
struct sl_suppression {
	enum sl_suppress_kind kind;
	char *justification; /* may be NULL */
	struct sl_span at;   /* the comment, annotation or config entry */
};

struct sl_finding {
	const struct sl_rule *rule; /* NULL: an input error (level error) or note about the input */
	struct sl_span at;
	char *message;
	char *object; /* "Kind namespace/name": a stable key for fingerprints; may be NULL */
	char **notes;
	struct sl_related *related;
	struct sl_fix *fixes;
	/* The arrays' counts and room (supp's below), 32 bits side by side with the level: a run keeps
	 * every finding to the report, and a finding has a few of each, not 2^32. */
	uint32_t nnotes, capnotes, nrelated, caprelated, nfixes, capfixes, nsupp;
	enum sl_level level;
	/* The root of the object the finding is about: valid only while the model that holds it
	 * lives (the run clears it then); subj_src/subj_off (where that object starts) outlive it
	 * and order the report. */
	const struct sl_ynode *subject;
	const struct sl_source *subj_src;
	uint32_t subj_off;
	const char *target; /* the config target's name; NULL without targets (borrowed) */
	struct sl_suppression *supp;
	/* A note about the input with a stable id (a Helm chart not rendered: "chart-not-rendered",
	 * a kustomization without a renderer: "kustomization-not-rendered"),
	 * SARIF's descriptor.id and JSON's "id"; NULL for the others (a string constant). */
	const char *notice_id;
};

struct sl_findings {
	struct sl_finding *v;
	size_t n, cap;
	size_t input_errors; /* how many findings are input errors */
};

/* What a run did not do, about the run as a whole rather than a place in a file: rules that did
 * not run for want of a node inventory, no Kubernetes object among the inputs. A run that checked
 * less than it was asked must not pass in silence, so every report ends with these: text a line
 * each after the findings, SARIF a toolExecutionNotification with descriptor.id, JSON an entry of
 * "notices" with "id", github a ::notice:: or ::warning:: line, junit a <system-out>. A warning
 * counts for --fail-on; a note does not. */
struct sl_notice {
	const char *id; /* stable, for tools that filter: "rules-not-run" (a string constant) */
	enum sl_level level;
	char *text;
};
struct sl_notices {
	struct sl_notice *v;
	size_t n, cap;
};
void sl_notice_add(struct sl_notices *ns, const char *id, enum sl_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void sl_notices_free(struct sl_notices *ns);

struct sl_finding *sl_report(struct sl_findings *fs, const struct sl_rule *rule, enum sl_level lvl,
			     const struct sl_span *at, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* An input error at a span (or at 1:1 of src when span is NULL and src given). */
void sl_input_error(struct sl_findings *fs, const struct sl_span *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A note or warning about the input that is not an error (a Helm chart left unread, a duplicate
 * key): reported like an input error, at its level, and not counted. */
void sl_input_note(struct sl_findings *fs, const struct sl_span *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_input_warning(struct sl_findings *fs, const struct sl_span *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_note(struct sl_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sl_add_related(struct sl_finding *f, const struct sl_span *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Room for n more related locations in f, when their number is known before they are added: a
 * finding that lists a hundred would leave up to half of a doubled array unused to the end. */
void sl_related_reserve(struct sl_finding *f, size_t n);
struct sl_fix *sl_fix_new(struct sl_finding *f, const char *desc);
/* Edits are added to a fix with sl_fix_edit (load/source.h), which computes their spans from the
 * source's lines. */
void sl_suppression_add(struct sl_finding *f, enum sl_suppress_kind kind, const char *justification,
			const struct sl_span *at);
void sl_fix_free(struct sl_fix *fx);        /* what it owns, not fx itself */
void sl_finding_free(struct sl_finding *f); /* what it owns, not f itself */
void sl_findings_free(struct sl_findings *fs);
/* Append src's findings to dst (in order) and empty src. */
void sl_findings_move(struct sl_findings *dst, struct sl_findings *src);

#endif
