/* kustomize.h — directories holding a kustomization, found while paths are added (input.c), then
 * rendered by kustomize (or kubectl kustomize) into one source each, with kustomize's origin and
 * transformer annotations, so that findings on the rendered objects can be moved back to the
 * files and lines that wrote them (kmap.c). A kustomization another one found uses as a resource
 * is not rendered on its own, and the files a rendered one reads are not read as manifests too:
 * each object is checked once, as it is deployed. Without a renderer each kustomization gets a
 * note, and its files are read as plain YAML but for its patches, which are fragments.
 * Owns: the kustomizations found, what each names, and the rendered sources' records (the
 * sources themselves belong to the sources list, input.h). Owned by the sources. */
#ifndef SL_KUSTOMIZE_H
#define SL_KUSTOMIZE_H
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"

struct sl_dirs;
struct sl_findings;
struct sl_source;
struct sl_sources;
struct sl_span;

struct sl_kustomization {
	char *shown; /* its directory as the user will recognise it (as walked or typed) */
	char *abs;   /* the same, absolute and normalised */
	char *file;  /* its kustomization file's name in it (kustomization.yaml, …) */
	/* What it names, absolute and normalised: resources, bases and components (files or
	 * directories), and patch files. */
	char **uses, **patches;
	size_t nuses, npatches;
	bool used; /* another kustomization found uses it: rendered as part of that one */
};

/* A rendered kustomization: its source (owned by the sources list), the kustomization, and the
 * directory kustomize was run in (absolute, real), which the paths of its annotations are
 * relative to. */
struct sl_kz_rendered {
	const struct sl_source *src;
	size_t k;
	char *ran_in;
	char *file; /* the kustomization file, as shown: what the config's targets match */
};

struct sl_kustomizations {
	struct sl_kustomization *v;
	size_t n, cap;
	/* How to render: argv's leading words (the directory is appended); NULL when none is to be
	 * had, with why in off_why. */
	char **argv;
	size_t argc;
	const char *off_why;
	/* Files a kustomization found without a renderer names as patches: not read as manifests. */
	struct sl_strpool patch_files;
	/* Directories asked about (a file given by name: does its directory hold a kustomization?),
	 * by position: the answer (-1: none; else the kustomization's index). */
	struct sl_strpool dirs;
	long *dir_k;
	size_t capdir;
	struct sl_kz_rendered *rendered;
	size_t nrendered, caprendered;
	/* Sources made since the sources list last took them (rendered, or a note's): input.c
	 * appends them to the list, which owns them from then on. */
	struct sl_source **fresh;
	size_t nfresh, capfresh;
	/* The files findings were moved to (kmap.c), by absolute path: each read once a run, so that
	 * the fixes of every target edit one source per file. Borrowed from the sources list. */
	struct sl_strpool aux_paths;
	struct sl_source **aux; /* by position in aux_paths; NULL: could not be read */
	size_t capaux;
};

/* The three names kustomize looks for, in its order. */
extern const char *const sl_kustomization_names[3];

/* How this run renders: cmd (render.kustomize; NULL: kustomize, else kubectl, on PATH), none
 * when off; why names the reason in the notes ("render.kustomize is off"). */
void sl_kz_setup(struct sl_kustomizations *kz, const char *cmd, bool off, const char *why);
/* Record a directory that holds a kustomization file (name) once: shown as the user gave it, abs
 * its absolute form. Returns its index. */
size_t sl_kz_found(struct sl_kustomizations *kz, const char *shown, const char *abs, const char *name);
/* The kustomization file's name in directory abs (one of sl_kustomization_names), or NULL. */
const char *sl_kz_file_in(const char *abs);
/* What the kustomization file `file` in directory abs names (see struct sl_kustomization), into
 * arrays the caller frees. */
void sl_kz_read_names(const char *abs, const char *file, char ***uses, size_t *nuses, char ***patches,
		      size_t *npatches);
/* Render the kustomizations found that none other uses (into kz->fresh), mark the manifests among
 * v[0..n) they read as skipped (dirs makes their paths absolute), and note those that cannot be
 * rendered. Through sl_input_render (input.h). */
void sl_kz_render(struct sl_kustomizations *kz, struct sl_dirs *dirs, struct sl_source *const *v, size_t n,
		  struct sl_findings *errs);
/* Move the locations on a rendered source of findings from `from` on to the file and line that
 * wrote them (kmap.c). The files are read as sources of ss, recorded for --fix; each file read is
 * given, with its tree, to each_file when set (the suppression comments in it). */
struct sl_ystream;
void sl_kz_map_findings(struct sl_sources *ss, struct sl_findings *fs, size_t from,
			void (*each_file)(void *ctx, const struct sl_source *src, const struct sl_ystream *ys),
			void *ctx);
/* The rendered record of src, or NULL. */
const struct sl_kz_rendered *sl_kz_rendered_of(const struct sl_kustomizations *kz, const struct sl_source *src);
void sl_kz_free(struct sl_kustomizations *kz);

#endif
