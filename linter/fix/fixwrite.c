/* fixwrite.c — the fixes of a run written back to their files, or shown as a diff. A file is
 * never left half written: the new text goes to a temporary file beside it, which replaces it by
 * rename only once it is complete and on disk. And only the file that was read is replaced: in the
 * directory it was read from, if it is still as it was read (origin.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/escape.h"
#include "../load/input.h"
#include "../load/origin.h"
#include "../load/path.h"
#include "../load/yamldoc.h"
#include "fix.h"
#include "fixtemp.h"
#include "udiff.h"

/* What replace_file did: the file written, refused (why says why), or left because it is not the
 * file that was read any more. */
enum outcome { WRITTEN = 0, REFUSED = -1, CHANGED = -2 };

/* A file or directory that no one may write (no w bit in its mode) is refused even when the
 * caller could write it anyway, as root can: the mode says the user wants it left as it is, and
 * replacing the file rewrites its directory entry. */
static int check_writable(int dirfd, const struct sl_origin *o, const struct stat *st, struct sl_buf *why)
{
	struct stat dst;
	if (!S_ISREG(st->st_mode))
		sl_buf_puts(why, "not a regular file");
	else if (!(st->st_mode & 0222))
		sl_buf_printf(why, "it is read-only (mode %04o)", (unsigned)(st->st_mode & 07777));
	else if (faccessat(dirfd, o->name, W_OK, 0) < 0)
		sl_buf_puts(why, strerror(errno));
	else if (fstat(dirfd, &dst) == 0 && !(dst.st_mode & 0222))
		sl_buf_printf(why, "its directory %s is read-only (mode %04o)", o->dir,
			      (unsigned)(dst.st_mode & 07777));
	return why->len ? REFUSED : WRITTEN;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The temporary file takes the file's owner and group, its content, then its mode: a write clears
 * the set-user-ID and set-group-ID bits, so the mode goes last. Until then the file has mode
 * 0600, so the content is never readable by more than the file was. */
static int fill_temp(int fd, const struct stat *st, const char *data, size_t len)
{
	if (fchown(fd, st->st_uid, st->st_gid) < 0 && fchown(fd, (uid_t)-1, st->st_gid) < 0) {
		/* Not permitted: the file becomes the caller's, as an editor's save would make it. */
	}
	if (write_all(fd, data, len) < 0 || fchmod(fd, st->st_mode & 07777) < 0 || fsync(fd) < 0)
		return -1;
	return 0;
}

/* Whether the file in dirfd is still the one that was read. */
static bool unchanged(int dirfd, const struct sl_origin *o)
{
	struct stat st;
	return fstatat(dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && sl_origin_same(o, &st);
}

/* data into a new temporary file beside the file, which then replaces it. The file is looked at
 * once more when the new one is on disk, as near the rename as can be: a file changed while the
 * new one was written is left as it now is. */
static int install(int dirfd, const struct sl_origin *o, const struct stat *st, const char *data, size_t len,
		   struct sl_buf *why)
{
	char tmp[NAME_MAX + 1];
	int fd = sl_fixtemp_create(dirfd, o->name, tmp);
	if (fd < 0) {
		sl_buf_printf(why, "cannot create a file in %s: %s", o->dir, strerror(errno));
		return REFUSED;
	}
	int rc = fill_temp(fd, st, data, len) < 0 ? REFUSED : WRITTEN;
	if (rc)
		sl_buf_puts(why, strerror(errno));
	if (close(fd) < 0 && !rc) {
		sl_buf_puts(why, strerror(errno));
		rc = REFUSED;
	}
	if (!rc && !unchanged(dirfd, o))
		rc = CHANGED;
	if (!rc && renameat(dirfd, tmp, dirfd, o->name) < 0) {
		sl_buf_puts(why, strerror(errno));
		rc = REFUSED;
	}
	if (rc)
		sl_fixtemp_remove(dirfd, tmp);
	else
		sl_fixtemp_renamed();
	return rc;
}

/* The directories written in so far, by device and inode: each is swept once (fixtemp.h). */
struct swept {
	struct sl_fileid *v;
	size_t n, cap;
};

static void sweep_once(int dirfd, struct swept *sw)
{
	struct stat st;
	if (fstat(dirfd, &st) < 0)
		return;
	struct sl_fileid id = {(unsigned long long)st.st_dev, (unsigned long long)st.st_ino};
	for (size_t i = 0; i < sw->n; i++)
		if (sw->v[i].dev == id.dev && sw->v[i].ino == id.ino)
			return;
	sl_grow(&sw->v, &sw->cap, sw->n + 1, sizeof *sw->v);
	sw->v[sw->n++] = id;
	sl_fixtemp_sweep(dirfd);
}

/* Replace src's file with data: the file it was read from (the target, when a symlink was given:
 * the link stays), in the directory it was read from, if it is still the file that was read.
 * The directory is opened again here and compared with the one read from, rather than held open
 * from the reading on: a run may fix more files than it may hold open. */
static int replace_file(const struct sl_source *src, const char *data, size_t len, struct swept *sw, struct sl_buf *why)
{
	const struct sl_origin *o = src->origin;
	if (!o || !o->name) { /* not read by this run's reader: nothing to check it against */
		sl_buf_puts(why, "where it was read from is not known");
		return REFUSED;
	}
	bool other;
	int dirfd = sl_origin_open_dir(o, &other);
	if (dirfd < 0) {
		if (other)
			return CHANGED;
		sl_buf_printf(why, "cannot open its directory %s: %s", o->dir, strerror(errno));
		return REFUSED;
	}
	struct stat st;
	int rc;
	if (fstatat(dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = errno == ENOENT ? CHANGED : REFUSED; /* gone, or it cannot be looked at */
		if (rc == REFUSED)
			sl_buf_puts(why, strerror(errno));
	} else if (!sl_origin_same(o, &st))
		rc = CHANGED;
	else if (!(rc = check_writable(dirfd, o, &st, why))) {
		sweep_once(dirfd, sw);
		rc = install(dirfd, o, &st, data, len, why);
		if (!rc)
			(void)fsync(dirfd); /* best effort: the rename is on disk once the directory is */
	}
	close(dirfd);
	return rc;
}

/* Edits of two fixes that overlap or meet (one insertion point, or one's end the other's start)
 * are two answers to one problem: two findings on one Deployment without a strategy would each
 * insert one, a duplicate key. The later fix waits for the next run, which checks the result. */
static bool meet(const struct sl_edit *x, const struct sl_edit *y)
{
	return x->at.off <= y->at.end && y->at.off <= x->at.end;
}

/* The source a finding's first fix edits (one of ss), or NULL when it has none to apply. */
static const struct sl_source *fix_source(const struct sl_sources *ss, const struct sl_finding *f)
{
	if (f->nsupp || !f->nfixes || f->fixes[0].nedits == 0)
		return NULL;
	const struct sl_source *src = f->fixes[0].edits[0].at.src;
	return src && src->order < ss->n && ss->v[src->order] == src ? src : NULL;
}

/* The findings with a fix to apply, grouped by the source they edit, in report order: those of
 * ss->v[s] are byfile[start[s] .. start[s + 1]). One pass over the findings, not one per file. */
static void group_by_file(const struct sl_sources *ss, const struct sl_findings *fs, size_t **start, size_t **byfile)
{
	*start = sl_xcalloc(ss->n + 2, sizeof **start);
	*byfile = sl_xcalloc(fs->n + 1, sizeof **byfile);
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_source *src = fix_source(ss, &fs->v[i]);
		if (src)
			(*start)[src->order + 2]++;
	}
	for (size_t s = 2; s < ss->n + 2; s++)
		(*start)[s] += (*start)[s - 1];
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_source *src = fix_source(ss, &fs->v[i]);
		if (src)
			(*byfile)[(*start)[src->order + 1]++] = i;
	}
}

/* The edits of the first fix of each of the findings which[0..nwhich), but those of a fix that
 * meets an earlier one. */
static const struct sl_edit **collect_edits(const struct sl_findings *fs, const size_t *which, size_t nwhich, size_t *n,
					    size_t *nfixed)
{
	const struct sl_edit **edits = NULL;
	size_t cap = 0;
	*n = *nfixed = 0;
	for (size_t q = 0; q < nwhich; q++) {
		const struct sl_finding *f = &fs->v[which[q]];
		size_t before = *n;
		for (size_t k = 0; k < f->fixes[0].nedits; k++) {
			sl_grow(&edits, &cap, *n + 1, sizeof *edits);
			edits[(*n)++] = &f->fixes[0].edits[k];
		}
		bool skip = sl_fix_overlap(edits + before, *n - before);
		for (size_t k = before; k < *n && !skip; k++)
			for (size_t j = 0; j < before && !skip; j++)
				skip = meet(edits[k], edits[j]);
		if (skip)
			*n = before;
		else
			(*nfixed)++;
	}
	return edits;
}

/* The diff names the file as the report does, under git's a/ and b/ (so `patch -p1` applies it
 * from the working directory). */
static void print_diff(FILE *out, const struct sl_source *src, const char *text, size_t len,
		       const struct sl_udiff_span *spans, size_t nspans)
{
	char *name = sl_path_normalize(src->path);
	const char *rel = name;
	while (*rel == '/')
		rel++;
	struct sl_buf b = SL_BUF_INIT;
	sl_udiff(&b, rel, sl_source_text(src), src->len, text, len, spans, nspans);
	fwrite(sl_buf_str(&b), 1, b.len, out);
	sl_buf_free(&b);
	free(name);
}

/* How many YAML errors text has, and the first one in why. */
static size_t yaml_errors(const char *path, const char *text, size_t len, struct sl_buf *why)
{
	struct sl_source *src = sl_source_from_memory(path, text, len);
	struct sl_ystream ys = {0};
	struct sl_findings errs = {0};
	sl_yaml_parse(src, &ys, &errs);
	size_t n = errs.input_errors;
	for (size_t i = 0; i < errs.n && why; i++)
		if (!errs.v[i].rule && errs.v[i].level == SL_ERROR) {
			unsigned line, col;
			sl_span_start(&errs.v[i].at, &line, &col);
			sl_buf_printf(why, "the fixed text would not parse: %u:%u: %s", line, col, errs.v[i].message);
			break;
		}
	sl_ystream_free(&ys);
	sl_findings_free(&errs);
	sl_source_free(src);
	return n;
}

/* A fix is made for the text as it was parsed, and a rule's mistake (a flow mapping written in
 * place of a block sequence, say) could leave text that no longer parses: the fixed text is
 * parsed again, and a file whose fixes would add an error is left as it was. */
static int still_parses(const struct sl_source *src, const char *text, size_t len, struct sl_buf *why)
{
	size_t after = yaml_errors(src->path, text, len, why);
	if (!after || after <= yaml_errors(src->path, sl_source_text(src), src->len, NULL)) {
		sl_buf_reset(why);
		return 0;
	}
	return -1;
}

/* A line on stderr: fmt with two strings, escaped, and the line guarded. They hold paths and a
 * parser's words on the input, and file names and contents are anyone's (escape.h). */
static void say(const char *fmt, const char *a, const char *b)
{
	struct sl_buf line = SL_BUF_INIT, g = SL_BUF_INIT;
	char *ea = sl_esc_dup(a), *eb = sl_esc_dup(b);
	sl_buf_printf(&line, fmt, ea, eb);
	free(ea);
	free(eb);
	sl_esc_lines(&g, line.s, line.len);
	fwrite(g.s, 1, g.len, stderr);
	sl_buf_free(&g);
	sl_buf_free(&line);
}

/* Fix one file: write it back (diff NULL) or print its diff. Returns 0, or -1 after saying on
 * stderr why it is left as it was. */
static int fix_one(const struct sl_source *src, const struct sl_findings *fs, const size_t *which, size_t nwhich,
		   FILE *diff, struct swept *sw, size_t *nwritten)
{
	size_t n, nfixed, len;
	const struct sl_edit **edits = collect_edits(fs, which, nwhich, &n, &nfixed);
	struct sl_udiff_span *spans = sl_xcalloc(n + 1, sizeof *spans);
	char *out = n ? sl_fix_apply_spans(src, edits, n, &len, spans) : NULL;
	struct sl_buf why = SL_BUF_INIT;
	int rc = 0, wrote = WRITTEN;
	if (n && !sl_source_text(src)) { /* its bytes were given back, and the file is another now */
		say("%s:1:1: error: changed while fixing; not written%s\n", src->path, "");
		rc = -1;
	} else if (out && still_parses(src, out, len, &why) < 0) {
		say("%s:1:1: error: cannot apply the fixes: %s; left unchanged\n", src->path, sl_buf_str(&why));
		rc = -1;
	} else if (out && diff)
		print_diff(diff, src, out, len, spans, n);
	else if (out && (wrote = replace_file(src, out, len, sw, &why)) == CHANGED) {
		say("%s:1:1: error: changed while fixing; not written%s\n", src->path, "");
		rc = -1;
	} else if (out && wrote == REFUSED) {
		say("%s:1:1: error: cannot write the fixed file: %s; left unchanged\n", src->path, sl_buf_str(&why));
		rc = -1;
	} else if (out) {
		sl_buf_printf(&why, "%zu finding%s", nfixed, nfixed == 1 ? "" : "s");
		say("schedlint: fixed %s in %s\n", sl_buf_str(&why), src->path);
		++*nwritten;
	}
	sl_buf_free(&why);
	free(spans);
	free(out);
	free(edits);
	return rc;
}

int sl_fix_files(const struct sl_sources *ss, const struct sl_findings *fs, FILE *diff, size_t *nwritten)
{
	int rc = 0;
	size_t written = 0;
	size_t *start, *byfile;
	group_by_file(ss, fs, &start, &byfile);
	struct swept sw = {0};
	struct sl_fixtemp_guard guard;
	if (!diff)
		sl_fixtemp_guard(&guard);
	for (size_t s = 0; s < ss->n; s++) {
		const struct sl_source *src = ss->v[s];
		if (src->failed || src->from_stdin || start[s] == start[s + 1])
			continue;
		if (fix_one(src, fs, byfile + start[s], start[s + 1] - start[s], diff, &sw, &written) < 0)
			rc = -1;
	}
	if (!diff)
		sl_fixtemp_unguard(&guard);
	free(sw.v);
	free(start);
	free(byfile);
	if (nwritten)
		*nwritten = written;
	return rc;
}
