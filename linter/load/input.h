/* input.h — command-line paths, directories and stdin into sources (source.h) with display
 * paths, and the errors reading them meets. Owns: the list of sources, which owns each source;
 * sources live until the run ends because every finding points into them.
 *
 * The load stage (linter/load/): bytes and YAML — paths and directories read into sources
 * (input.c, source.c, origin.c, path.c, and dirs.c, which looks at each directory once),
 * kustomizations rendered and findings moved back to their files (kustomize.c, kmap.c), the
 * editor's buffers instead of the disk (overlay.c), which files are manifests (manifest.c), and libyaml into trees with
 * positions under limits (yamldoc.c, ybuild.c, ykeep.c, yarena.c, ylookup.c, ymerge.c, limits.c). May include: base/,
 * where the findings are (its input errors are findings without a rule). */
#ifndef SL_INPUT_H
#define SL_INPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "dirs.h"
#include "kustomize.h"
#include "origin.h"
#include "source.h"

struct sl_findings;
struct sl_overlay;
struct sl_span;

struct sl_fileid {
	unsigned long long dev, ino; /* ino 0: an empty slot */
};

struct sl_sources {
	struct sl_source **v;
	size_t n, cap;
	char **charts; /* the Helm charts noted so far (absolute paths): one note each */
	size_t ncharts, capcharts;
	/* Files and directories read so far, by device and inode (open addressing, a power of two
	 * slots): a directory is walked once, so symlink loops and diamonds end, and a file given
	 * twice is read once. */
	struct sl_fileid *seen;
	size_t nseen, capseen;
	/* Files added now are read as given (an inventory, the config): never a chart's, and not
	 * recorded, so that one may be a manifest too. */
	bool as_given;
	/* What the files added now are to the run ("the --nodes inventory"), for the errors reading
	 * them to say; NULL: manifests. A string that outlives the sources. */
	const char *role;
	/* Regular files are left unread when added, for sl_source_read to read them where they are
	 * parsed: on the parsing threads, not one after another before parsing starts. */
	bool defer_reading;
	/* The files may be rewritten (--fix): each is read in its directory, and where it was read
	 * is recorded (origin.h) for the writer to check. */
	bool record_origin;
	/* Open buffers and cached files read instead of the disk (the language server's); NULL: the
	 * disk alone. Files read from disk are then kept in it. */
	struct sl_overlay *overlay;
	/* What this run has learned of directories (the working directory, the charts), and, with
	 * record_origin, the directories its files are read in: each looked at once, not per file. */
	struct sl_dirs dirs;
	struct sl_origin_dirs origin_dirs;
	/* The kustomizations found, and how they are rendered (kustomize.h). */
	struct sl_kustomizations kz;
};

/* Which paths not to read (the config's exclude): skip(ctx, path, is_dir) returns 1 to leave the
 * path out, 0 to read it, -1 after reporting an error (the path is left out). */
struct sl_input_filter {
	int (*skip)(void *ctx, const char *path, int is_dir);
	void *ctx;
};

/* Append s (owned by the list from now on), numbered in order. */
void sl_input_push(struct sl_sources *ss, struct sl_source *s);
/* The kustomizations found so far rendered, or noted, into sources appended to ss (kustomize.h). */
void sl_input_render(struct sl_sources *ss, struct sl_findings *errs);
/* A file read now, as a source that is not a manifest (skipped), for findings to point into: the
 * files a rendered kustomization was made of. NULL when it cannot be read (nothing reported). */
struct sl_source *sl_input_read_aux(struct sl_sources *ss, const char *path);
/* Standard input, read under name ("-" when the user gave none). */
int sl_input_add_stdin(struct sl_sources *ss, const char *name, struct sl_findings *errs);
/* Read path ("-" for stdin; a directory recurses into *.yaml, *.yml, *.json) into sources,
 * leaving out what filter skips (NULL: nothing). A Helm chart's files (a directory with
 * Chart.yaml at or above them, up to the repository root) are not read: one note per chart says
 * how to check what it renders. Returns 0, or -1 after reporting an input error. */
int sl_input_add(struct sl_sources *ss, const char *path, struct sl_findings *errs,
		 const struct sl_input_filter *filter);
/* What stat said of a path, asked ahead of adding it (sl_input_stat_many). */
struct sl_path_stat {
	struct stat st;
	int err; /* stat's errno; 0: st is the path's */
};
/* stat each of paths (but "-") into out[i], on two threads when there are many: a run given
 * thousands of files spends most of its time adding them in the system's path lookups, and
 * adding them is done in order, one after another. */
void sl_input_stat_many(char *const *paths, size_t n, struct sl_path_stat *out);
/* sl_input_add, with what stat said of path (by sl_input_stat_many; NULL: stat it now). */
int sl_input_add_stated(struct sl_sources *ss, const char *path, const struct sl_path_stat *known,
			struct sl_findings *errs, const struct sl_input_filter *filter);
/* Read a source left unread (nothing to do for the others). Returns 0, or -1 after reporting an
 * input error into errs; the source is then failed. */
int sl_source_read(struct sl_source *s, struct sl_findings *errs);
void sl_sources_free(struct sl_sources *ss);

#endif
