/* path.h — paths as the reports show them: lexical normalisation, the repository root that SARIF
 * anchors its locations to, and the URI forms of a path. Every function returns a string the
 * caller frees. The working directory is asked of the system once (sl_path_cwd) and handed to
 * what needs it, not asked again for every file: a run may name tens of thousands. */
#ifndef SL_PATH_H
#define SL_PATH_H

/* Lexically normalised: no ".", no empty components, ".." folded where it can be ("." when
 * nothing is left). Symlinks are not resolved: the path stays the one the user recognises. */
char *sl_path_normalize(const char *path);

/* The working directory, absolute; NULL when it cannot be had. */
char *sl_path_cwd(void);

/* The absolute, normalised form of path, relative ones taken from cwd (the working directory as
 * sl_path_cwd gave it; NULL: none could be had, and a relative path stays relative). */
char *sl_path_absolute_at(const char *cwd, const char *path);
/* The same, asking for the working directory: for a path or two, not one per file. */
char *sl_path_absolute(const char *path);

/* The repository root: the nearest directory at or above cwd (the working directory, from
 * sl_path_cwd) that holds .git (a directory, or the file of a worktree), else cwd ("/" when cwd
 * is NULL). Absolute. */
char *sl_path_repo_root(const char *cwd);

/* path percent-encoded as a URI reference: unreserved characters and '/' kept, the rest %XX.
 * An absolute path becomes a file:// URI; a relative one stays relative. */
char *sl_path_uri(const char *path);

/* path relative to root (both normalised, root absolute) when it lies under root, else NULL. */
char *sl_path_under(const char *root, const char *path);

/* path (as typed, relative to the working directory cwd or absolute) relative to root when it
 * lies under it, else NULL: the form code scanning and annotations place in the repository. */
char *sl_path_in_repo(const char *root, const char *cwd, const char *path);

#endif
