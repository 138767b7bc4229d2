#include "input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/diag.h"
#include "limits.h"
#include "origin.h"
#include "overlay.h"
#include "path.h"

/* Directories nest at most this deep: a symlink loop must end, not hang. */
#define MAX_DIR_DEPTH 64

/* Take over the bytes (no copy: inventories run to tens of megabytes). Indexed later. */
static struct sl_source *source_adopt(const char *path, char *data, size_t len, size_t huge)
{
	struct sl_source *s = sl_xcalloc(1, sizeof *s);
	s->path = sl_xstrdup(path);
	s->len = len;
	s->data = data;
	s->huge = huge;
	return s;
}

void sl_sources_free(struct sl_sources *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		if (ss->v[i] && !ss->v[i]->borrowed)
			sl_source_free(ss->v[i]);
	free(ss->v);
	for (size_t i = 0; i < ss->ncharts; i++)
		free(ss->charts[i]);
	free(ss->charts);
	free(ss->seen);
	sl_dirs_free(&ss->dirs);
	sl_origin_dirs_free(&ss->origin_dirs);
	sl_kz_free(&ss->kz);
	memset(ss, 0, sizeof *ss);
}

void sl_input_push(struct sl_sources *ss, struct sl_source *s)
{
	sl_grow(&ss->v, &ss->cap, ss->n + 1, sizeof *ss->v);
	s->order = ss->n;
	s->role = ss->role;
	ss->v[ss->n++] = s;
}

/* An error about a source that has no bytes: reported at 1:1 of it, empty, so that the message
 * keeps the file:line:col shape editors and problem matchers expect. The source stays in the list
 * (findings point into it) but is marked failed so nothing parses it. */
static int source_fail(struct sl_source *s, struct sl_findings *errs, const char *what, int err)
{
	if (!s->data)
		s->data = sl_xcalloc(1, 1);
	sl_source_index(s);
	s->failed = 1;
	struct sl_span at;
	sl_source_span(s, 0, 0, &at);
	/* An inventory that cannot be opened says so: "cannot open file" alone reads as a manifest. */
	struct sl_buf role = SL_BUF_INIT;
	if (s->role && !strcmp(what, "cannot open file")) {
		sl_buf_printf(&role, "cannot open %s", s->role);
		what = sl_buf_str(&role);
	}
	size_t max = sl_limits.file_bytes;
	if (err == EFBIG && max % (1u << 20) == 0)
		sl_input_error(errs, &at, "%s is larger than %zu MiB (--max-file-size)", what, max >> 20);
	else if (err == EFBIG)
		sl_input_error(errs, &at, "%s is larger than %zu bytes (--max-file-size)", what, max);
	else if (err)
		sl_input_error(errs, &at, "%s: %s", what, strerror(err));
	else
		sl_input_error(errs, &at, "%s", what);
	sl_buf_free(&role);
	return -1;
}

static int path_error(struct sl_sources *ss, struct sl_findings *errs, const char *path, const char *what, int err)
{
	struct sl_source *s = sl_source_from_memory(path, "", 0);
	sl_input_push(ss, s);
	return source_fail(s, errs, what, err);
}

/* Read all of fd into b; size_hint (a regular file's size) saves the regrowth. Straight from the
 * descriptor: stdio would fstat it again to size a buffer the bytes only pass through. */
static int read_stream(int fd, struct sl_buf *b, size_t size_hint)
{
	if (size_hint > sl_limits.file_bytes)
		return EFBIG;
	if (size_hint && b->cap < size_hint + 2) { /* +1 for the NUL, +1 to see the end */
		b->s = sl_xrealloc(b->s, size_hint + 2);
		b->cap = size_hint + 2;
	}
	for (;;) {
		if (b->cap - b->len < 2) {
			b->cap = b->cap ? 2 * b->cap : 65536;
			b->s = sl_xrealloc(b->s, b->cap);
		}
		ssize_t n = sl_read_upto(fd, b->s + b->len, b->cap - b->len - 1);
		if (n < 0)
			return errno ? errno : EIO;
		b->len += (size_t)n;
		b->s[b->len] = 0;
		if (b->len > sl_limits.file_bytes)
			return EFBIG;
		if (n == 0)
			break;
	}
	return 0;
}

static int has_manifest_ext(const char *name)
{
	size_t n = strlen(name);
	static const char *const ext[] = {".yaml", ".yml", ".json"};
	for (size_t i = 0; i < 3; i++) {
		size_t e = strlen(ext[i]);
		if (n > e && !strcmp(name + n - e, ext[i]))
			return 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_path(struct sl_sources *ss, const char *path, const struct sl_path_stat *known, struct sl_findings *errs,
		    int depth, int explicit, const struct sl_input_filter *filter);

static size_t fileid_slot(const struct sl_fileid *v, size_t cap, unsigned long long dev, unsigned long long ino)
{
	size_t h = (size_t)((ino * 0x9E3779B97F4A7C15ull) ^ (dev * 0xC2B2AE3D27D4EB4Full));
	for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!v[i].ino || (v[i].ino == ino && v[i].dev == dev))
			return i;
}

/* Record st's file; false when it was recorded already. */
static bool first_visit(struct sl_sources *ss, const struct stat *st)
{
	unsigned long long dev = (unsigned long long)st->st_dev, ino = (unsigned long long)st->st_ino + 1;
	if (2 * (ss->nseen + 1) > ss->capseen) { /* at most half full */
		size_t cap = ss->capseen ? 2 * ss->capseen : 64;
		struct sl_fileid *v = sl_xcalloc(cap, sizeof *v);
		for (size_t i = 0; i < ss->capseen; i++)
			if (ss->seen[i].ino)
				v[fileid_slot(v, cap, ss->seen[i].dev, ss->seen[i].ino)] = ss->seen[i];
		free(ss->seen);
		ss->seen = v;
		ss->capseen = cap;
	}
	size_t i = fileid_slot(ss->seen, ss->capseen, dev, ino);
	if (ss->seen[i].ino)
		return false;
	ss->seen[i] = (struct sl_fileid){dev, ino};
	ss->nseen++;
	return true;
}

/* What a path that is neither a regular file nor a directory is, to refuse it without opening
 * it (opening a FIFO blocks until a writer comes). NULL for a file or a directory. */
static const char *special_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : NULL;
}

/* A note at 1:1 of an empty source named path (nothing is read from it). */
static void path_note(struct sl_sources *ss, struct sl_findings *errs, const char *path, const char *what)
{
	struct sl_source *s = sl_source_from_memory(path, "", 0);
	s->skipped = true;
	sl_input_push(ss, s);
	struct sl_span at;
	sl_source_span(s, 0, 0, &at);
	sl_input_note(errs, &at, "%s", what);
}

/* One note per chart, at its Chart.yaml: its templates are not YAML until rendered. shown is the
 * chart's directory as the user will recognise it. */
static void chart_note(struct sl_sources *ss, struct sl_findings *errs, const char *shown, const char *abs)
{
	for (size_t i = 0; i < ss->ncharts; i++)
		if (!strcmp(ss->charts[i], abs))
			return;
	sl_grow(&ss->charts, &ss->capcharts, ss->ncharts + 1, sizeof *ss->charts);
	ss->charts[ss->ncharts++] = sl_xstrdup(abs);
	bool here = !strcmp(shown, ".");
	char *chart_yaml = here ? sl_xstrdup("Chart.yaml") : sl_xasprintf("%s/Chart.yaml", shown);
	struct sl_source *s = sl_source_from_memory(chart_yaml, "", 0);
	free(chart_yaml);
	s->skipped = true;
	sl_input_push(ss, s);
	struct sl_span at;
	sl_source_span(s, 0, 0, &at);
	sl_input_note(errs, &at,
		      "a Helm chart: its templates are not YAML until rendered, so its files are not checked; "
		      "check what it renders: helm template %s | schedlint --stdin-filename %s%srendered.yaml -",
		      shown, here ? "" : shown, here ? "" : "/");
	errs->v[errs->n - 1].notice_id = "chart-not-rendered"; /* SARIF's descriptor.id, JSON's id */
}

/* A path given on the command line inside a chart: the chart's note instead of its bytes. */
static bool in_chart(struct sl_sources *ss, struct sl_findings *errs, const char *path, bool is_dir)
{
	const char *abs = sl_dirs_chart(&ss->dirs, path, is_dir);
	if (!abs)
		return false;
	char *cwd = sl_dirs_absolute(&ss->dirs, ".");
	char *rel = strcmp(abs, cwd) ? sl_path_under(cwd, abs) : sl_xstrdup(".");
	chart_note(ss, errs, rel ? rel : abs, abs);
	free(rel);
	free(cwd);
	return true;
}

/* The kustomization file among a directory's sorted entries, or NULL. */
static const char *kustomization_among(char *const *names, size_t n)
{
	for (size_t i = 0; n && i < 3; i++)
		if (bsearch(&sl_kustomization_names[i], names, n, sizeof *names, cmp_str))
			return sl_kustomization_names[i];
	return NULL;
}

/* A file given by name in a directory that holds a kustomization: that directory is found (once
 * per directory as typed), and true when the file is read through it (rendered) or not at all
 * (a patch, or the kustomization file itself, without a renderer). */
static bool in_kustomization(struct sl_sources *ss, const char *path)
{
	struct sl_kustomizations *kz = &ss->kz;
	const char *slash = strrchr(path, '/');
	/* Asked for every file given by name (thousands, from a few directories): no allocation. */
	size_t dl = slash ? (size_t)(slash == path ? 1 : slash - path) : 1;
	char room[256];
	char *typed = dl < sizeof room ? room : sl_xmalloc(dl + 1);
	memcpy(typed, slash ? path : ".", dl);
	typed[dl] = 0;
	size_t id = sl_strmap_get(&kz->dirs.map, typed);
	if (id == (size_t)-1) {
		id = sl_intern_id(&kz->dirs, typed);
		sl_grow(&kz->dir_k, &kz->capdir, kz->dirs.n, sizeof *kz->dir_k);
		char *abs = sl_dirs_absolute(&ss->dirs, typed);
		const char *kfile = sl_kz_file_in(abs);
		kz->dir_k[id] = kfile ? (long)sl_kz_found(kz, typed, abs, kfile) : -1;
		free(abs);
	}
	if (typed != room)
		free(typed);
	if (kz->dir_k[id] < 0)
		return false;
	if (kz->argv)
		return true;
	const char *base = slash ? slash + 1 : path;
	if (!strcmp(base, kz->v[kz->dir_k[id]].file))
		return true;
	char *abs = sl_dirs_absolute(&ss->dirs, path);
	bool patch = sl_strmap_get(&kz->patch_files.map, abs) != (size_t)-1;
	free(abs);
	return patch;
}

/* A file found walking that a kustomization found without a renderer names as a patch. */
static bool is_patch(struct sl_sources *ss, const char *path)
{
	if (!ss->kz.patch_files.n)
		return false;
	char *abs = sl_dirs_absolute(&ss->dirs, path);
	bool patch = sl_strmap_get(&ss->kz.patch_files.map, abs) != (size_t)-1;
	free(abs);
	return patch;
}

static int add_dir(struct sl_sources *ss, const char *path, struct sl_findings *errs, int depth,
		   const struct sl_input_filter *filter)
{
	DIR *d = opendir(path);
	if (!d)
		return path_error(ss, errs, path, "cannot open directory", errno);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.') /* ., .., and hidden entries such as .git */
			continue;
		sl_grow(&names, &cap, n + 1, sizeof *names);
		names[n++] = sl_xstrdup(de->d_name);
	}
	closedir(d);
	if (n) /* an empty directory has no array at all: qsort and bsearch take none */
		qsort(names, n, sizeof *names, cmp_str); /* the same order on every machine */
	const char *chart = "Chart.yaml";
	char *abs = depth > 0 && n && bsearch(&chart, names, n, sizeof *names, cmp_str)
			? sl_dirs_absolute(&ss->dirs, path)
			: NULL;
	const char *holder = abs ? sl_dirs_chart(&ss->dirs, path, true) : NULL;
	bool is_chart = holder && !strcmp(holder, abs);
	if (is_chart) /* a chart found walking (one given on the command line was seen by in_chart) */
		chart_note(ss, errs, path, abs);
	free(abs);
	const char *kfile = is_chart ? NULL : kustomization_among(names, n);
	bool rendered = false;
	if (kfile && !ss->as_given) {
		char *kabs = sl_dirs_absolute(&ss->dirs, path);
		sl_kz_found(&ss->kz, path, kabs, kfile);
		free(kabs);
		rendered = ss->kz.argv != NULL;
	}
	if (is_chart || rendered) { /* its files are read through the renderer, or not at all */
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return 0;
	}
	int rc = 0;
	size_t plen = strlen(path);
	for (size_t i = 0; i < n; i++) {
		if (kfile && !strcmp(names[i], kfile)) { /* not a manifest: the note says what it is */
			free(names[i]);
			continue;
		}
		char *child = sl_xasprintf("%s%s%s", path, plen && path[plen - 1] == '/' ? "" : "/", names[i]);
		if (add_path(ss, child, NULL, errs, depth + 1, 0, filter) < 0)
			rc = -1;
		free(child);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* s's bytes from the overlay, when it has them for the file st says is there now (st NULL: a
 * buffer with no file yet). Returns false when the file must be read; else 0 or -1 (too large,
 * reported) in *rc. */
static bool from_overlay(struct sl_sources *ss, struct sl_source *s, const struct stat *st, struct sl_findings *errs,
			 int *rc)
{
	size_t len;
	char *data = ss->overlay ? sl_overlay_get(ss->overlay, s->path, st, &len) : NULL;
	if (!data)
		return false;
	*rc = 0;
	if (len > sl_limits.file_bytes) {
		free(data);
		*rc = source_fail(s, errs, "file", EFBIG);
		return true;
	}
	s->data = data;
	s->len = len;
	return true;
}

/* A path given explicitly that is an open buffer with no file behind it yet (new, unsaved):
 * linted as its buffer reads. */
static int add_unsaved(struct sl_sources *ss, const char *path, struct sl_findings *errs,
		       const struct sl_input_filter *filter)
{
	int skip = filter ? filter->skip(filter->ctx, path, 0) : 0;
	if (skip)
		return skip < 0 ? -1 : 0;
	struct sl_source *s = source_adopt(path, NULL, 0, 0);
	sl_input_push(ss, s);
	int rc = 0;
	from_overlay(ss, s, NULL, errs, &rc);
	return rc;
}

static int add_path(struct sl_sources *ss, const char *path, const struct sl_path_stat *known, struct sl_findings *errs,
		    int depth, int explicit, const struct sl_input_filter *filter)
{
	struct stat st;
	if (depth > MAX_DIR_DEPTH)
		return path_error(ss, errs, path, "directories nest too deeply (a symlink loop?)", 0);
	int err = known ? known->err : stat(path, &st) < 0 ? errno : 0;
	if (known && !err)
		st = known->st;
	if (err) {
		if (explicit && ss->overlay && sl_overlay_pinned(ss->overlay, path))
			return add_unsaved(ss, path, errs, filter);
		return path_error(ss, errs, path, "cannot open file", err);
	}
	/* Excluded paths are not read at all: an excluded directory is not even walked. */
	int skip = filter && (S_ISDIR(st.st_mode) || explicit || has_manifest_ext(path))
		       ? filter->skip(filter->ctx, path, S_ISDIR(st.st_mode))
		       : 0;
	if (skip)
		return skip < 0 ? -1 : 0;
	if (explicit && !ss->as_given && in_chart(ss, errs, path, S_ISDIR(st.st_mode)))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		if (first_visit(ss, &st))
			return add_dir(ss, path, errs, depth, filter);
		if (!explicit) /* a directory given twice is simply read once */
			path_note(ss, errs, path,
				  "a directory already read (a symlink back into the tree?): not read again");
		return 0;
	}
	if (!explicit && (!has_manifest_ext(path) || is_patch(ss, path)))
		return 0;
	if (explicit && !ss->as_given && in_kustomization(ss, path))
		return 0;
	const char *special = special_kind(st.st_mode);
	if (special) {
		char *what = sl_xasprintf("%s, not a regular file: not read (pipe it to standard input as -)", special);
		path_error(ss, errs, path, what, 0);
		free(what);
		return -1;
	}
	if (!ss->as_given && !first_visit(ss, &st))
		return 0; /* the same file given twice, or reached twice: read once */
	struct sl_source *s = source_adopt(path, NULL, 0, 0);
	sl_input_push(ss, s);
	s->cache = ss->overlay;
	s->want_origin = ss->record_origin;
	if (s->want_origin) /* resolved and opened here, once per directory, before the reading */
		s->origin_dir = sl_origin_dir_of(&ss->origin_dirs, path);
	int rc;
	if (S_ISREG(st.st_mode) && from_overlay(ss, s, &st, errs, &rc))
		return rc;
	/* A file too large to read is refused at once, as it always was. */
	s->unread = ss->defer_reading && S_ISREG(st.st_mode) && (size_t)st.st_size <= sl_limits.file_bytes;
	return s->unread ? 0 : sl_source_read(s, errs);
}

/* s->path opened to be read; when --fix may rewrite it, in its directory, which s->origin then
 * records. -1 with errno when it cannot be opened. */
static int open_source(struct sl_source *s)
{
	if (!s->want_origin)
		return open(s->path, O_RDONLY | O_CLOEXEC);
	sl_origin_free(s->origin);
	s->origin = sl_xcalloc(1, sizeof *s->origin);
	return sl_origin_open(s->origin, s->origin_dir, s->path);
}

/* The file read through fd, recorded once read (st: its fstat before, NULL when there is none;
 * len: the bytes read), and closed. */
static void close_source(struct sl_source *s, int fd, const struct stat *st, size_t len)
{
	if (s->origin)
		sl_origin_record(s->origin, st, len);
	if (st) /* what tells the file unchanged when its bytes are read again (source.h) */
		s->stamp = (struct sl_file_stamp){.dev = (unsigned long long)st->st_dev,
						  .ino = (unsigned long long)st->st_ino,
						  .size = (unsigned long long)st->st_size,
						  .mtime_s = st->st_mtim.tv_sec,
						  .mtime_ns = (int32_t)st->st_mtim.tv_nsec,
						  .ctime_s = st->st_ctim.tv_sec,
						  .ctime_ns = (int32_t)st->st_ctim.tv_nsec};
	s->stamped = st && (size_t)st->st_size == len;
	close(fd);
}

/* A regular file of st's size (at least SL_HUGE_MIN) read into a block of its own, as s's bytes.
 * False when it grew while read, or failed: the general path then reads it from the start. */
static bool read_huge(struct sl_source *s, int fd, const struct stat *st)
{
	size_t size = (size_t)st->st_size, cap = size + 2; /* +1 for the NUL, +1 to see the end */
	char *data = sl_huge_alloc(cap);
	ssize_t len = sl_read_upto(fd, data, cap - 1);
	if (len < 0 || (size_t)len == cap - 1) {
		sl_huge_free(data, cap);
		(void)lseek(fd, 0, SEEK_SET);
		return false;
	}
	close_source(s, fd, st, (size_t)len);
	data[len] = 0;
	s->data = data;
	s->len = (size_t)len;
	s->huge = cap;
	if (s->cache)
		sl_overlay_store(s->cache, s->path, st, data, s->len);
	return true;
}

/* Read s->path into s. Returns 0, or the error and what failed. */
static int read_file(struct sl_source *s, const char **what)
{
	int fd = open_source(s);
	struct stat st;
	*what = "cannot open file";
	if (fd < 0)
		return errno;
	/* The one fstat of the file: its size, and for --fix its identity (origin.h). */
	bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	size_t size = regular ? (size_t)st.st_size : 0;
	if (size >= SL_HUGE_MIN && size <= sl_limits.file_bytes && read_huge(s, fd, &st))
		return 0;
	struct sl_buf b = SL_BUF_INIT;
	int err = read_stream(fd, &b, size);
	close_source(s, fd, regular ? &st : NULL, b.len);
	if (err) {
		sl_buf_free(&b);
		*what = err == EFBIG ? "file" : "cannot read file";
		return err;
	}
	s->len = b.len;
	s->data = sl_buf_detach(&b);
	if (s->cache && regular)
		sl_overlay_store(s->cache, s->path, &st, s->data, s->len);
	return 0;
}

int sl_input_add_stdin(struct sl_sources *ss, const char *name, struct sl_findings *errs)
{
	struct sl_buf b = SL_BUF_INIT;
	int err = read_stream(STDIN_FILENO, &b, 0);
	if (err) {
		sl_buf_free(&b);
		path_error(ss, errs, name, err == EFBIG ? "input" : "cannot read", err);
		ss->v[ss->n - 1]->from_stdin = true;
		return -1;
	}
	size_t len = b.len;
	sl_input_push(ss, source_adopt(name, sl_buf_detach(&b), len, 0));
	ss->v[ss->n - 1]->from_stdin = true;
	return 0;
}

int sl_source_read(struct sl_source *s, struct sl_findings *errs)
{
	if (!s->unread && s->data)
		return 0;
	s->unread = false;
	const char *what;
	int err = read_file(s, &what);
	return err ? source_fail(s, errs, what, err) : 0;
}

void sl_input_render(struct sl_sources *ss, struct sl_findings *errs)
{
	sl_kz_render(&ss->kz, &ss->dirs, ss->v, ss->n, errs);
	for (size_t i = 0; i < ss->kz.nfresh; i++)
		sl_input_push(ss, ss->kz.fresh[i]);
	ss->kz.nfresh = 0;
}

struct sl_source *sl_input_read_aux(struct sl_sources *ss, const char *path)
{
	struct sl_source *s = source_adopt(path, NULL, 0, 0);
	sl_input_push(ss, s);
	s->skipped = true;
	s->want_origin = ss->record_origin;
	if (s->want_origin)
		s->origin_dir = sl_origin_dir_of(&ss->origin_dirs, path);
	struct sl_findings errs = {0};
	int rc = sl_source_read(s, &errs);
	sl_findings_free(&errs);
	if (rc < 0)
		return NULL;
	sl_source_index(s);
	return s;
}

int sl_input_add(struct sl_sources *ss, const char *path, struct sl_findings *errs,
		 const struct sl_input_filter *filter)
{
	return sl_input_add_stated(ss, path, NULL, errs, filter);
}

int sl_input_add_stated(struct sl_sources *ss, const char *path, const struct sl_path_stat *known,
			struct sl_findings *errs, const struct sl_input_filter *filter)
{
	if (!strcmp(path, "-"))
		return sl_input_add_stdin(ss, "-", errs);
	return add_path(ss, path, known, errs, 0, 1, filter);
}

/* Paths to stat, taken in turn by two threads; each answer goes to its own slot. */
struct stat_queue {
	char *const *paths;
	struct sl_path_stat *out;
	size_t n;
	atomic_size_t next;
};

static void *stat_worker(void *arg)
{
	struct stat_queue *q = arg;
	for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->n;)
		if (strcmp(q->paths[i], "-"))
			q->out[i].err = stat(q->paths[i], &q->out[i].st) < 0 ? errno : 0;
	return NULL;
}

void sl_input_stat_many(char *const *paths, size_t n, struct sl_path_stat *out)
{
	struct stat_queue q = {paths, out, n, 0};
	pthread_t helper;
	/* A second thread only pays for itself over many paths: the editor's runs name a few. */
	bool threaded = n >= 64 && pthread_create(&helper, NULL, stat_worker, &q) == 0;
	stat_worker(&q);
	if (threaded)
		pthread_join(helper, NULL);
}
