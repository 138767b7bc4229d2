/* kustomize.c — kustomizations found, told apart and rendered (kustomize.h). */
#include "kustomize.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/diag.h"
#include "dirs.h"
#include "source.h"
#include "limits.h"
#include "path.h"
#include "yamldoc.h"

/* A renderer that has not answered in this long is stopped: a remote base it fetches, a plugin
 * that hangs, must not hang the run. */
#define RENDER_TIMEOUT_MS 60000
/* The lines of a failed render's standard error that its error quotes. */
#define ERROR_LINES 3
#define NO_RENDERER "neither kustomize nor kubectl is on PATH"

const char *const sl_kustomization_names[3] = {"kustomization.yaml", "kustomization.yml", "Kustomization"};

const char *sl_kz_file_in(const char *abs)
{
	for (size_t i = 0; i < 3; i++) {
		char *p = sl_xasprintf("%s/%s", strcmp(abs, "/") ? abs : "", sl_kustomization_names[i]);
		struct stat st;
		bool ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
		free(p);
		if (ok)
			return sl_kustomization_names[i];
	}
	return NULL;
}

/* name's full path when an executable of that name is on PATH, else NULL. Caller frees. */
static char *on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	for (const char *p = path;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *full = sl_xasprintf("%.*s%s%s", (int)n, p, n ? "/" : "", name);
		struct stat st;
		if (n && stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return full;
		free(full);
		if (!end)
			return NULL;
		p = end + 1;
	}
}

static void add_arg(struct sl_kustomizations *kz, char *arg)
{
	kz->argv = sl_xrealloc(kz->argv, (kz->argc + 2) * sizeof *kz->argv);
	kz->argv[kz->argc++] = arg;
	kz->argv[kz->argc] = NULL;
}

void sl_kz_setup(struct sl_kustomizations *kz, const char *cmd, bool off, const char *why)
{
	if (off) {
		kz->off_why = why;
		return;
	}
	if (cmd) { /* the config's command, split on spaces (no shell: nothing in it is expanded) */
		for (const char *p = cmd; *p;) {
			size_t n = strcspn(p, " ");
			if (n) {
				char *w = sl_xmalloc(n + 1);
				memcpy(w, p, n);
				w[n] = 0;
				add_arg(kz, w);
			}
			p += n + (p[n] == ' ');
		}
		return;
	}
	char *k = on_path("kustomize");
	if (k) {
		add_arg(kz, k);
		add_arg(kz, sl_xstrdup("build"));
		return;
	}
	char *kubectl = on_path("kubectl");
	if (kubectl) {
		add_arg(kz, kubectl);
		add_arg(kz, sl_xstrdup("kustomize"));
		return;
	}
	kz->off_why = NO_RENDERER;
}

/* A path a kustomization names, relative to its directory dir, absolute and normalised; NULL for
 * a remote one (a URL or a git reference), which is never a file of this tree. */
static char *resolve(const char *dir, const char *entry)
{
	if (!*entry || strstr(entry, "://") || !strncmp(entry, "git@", 4) || !strncmp(entry, "github.com/", 11))
		return NULL;
	if (entry[0] == '/')
		return sl_path_normalize(entry);
	char *joined = sl_xasprintf("%s/%s", dir, entry);
	char *n = sl_path_normalize(joined);
	free(joined);
	return n;
}

static void push_path(char ***v, size_t *n, char *p)
{
	if (!p)
		return;
	*v = sl_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = p;
}

/* The scalars of list (a sequence) into uses; inline patches (text with a newline) left out. */
static void read_list(const struct sl_ynode *list, const char *dir, char ***v, size_t *n)
{
	for (size_t i = 0; list && list->kind == SL_YSEQ && i < list->n; i++)
		if (sl_yscalar(list->v[i]) && !strchr(list->v[i]->str, '\n'))
			push_path(v, n, resolve(dir, list->v[i]->str));
}

/* The `path:` of each mapping of list (patches, patchesJson6902). */
static void read_patch_maps(const struct sl_ynode *list, const char *dir, char ***v, size_t *n)
{
	for (size_t i = 0; list && list->kind == SL_YSEQ && i < list->n; i++) {
		const struct sl_ynode *p = sl_ymap_get(list->v[i], "path");
		if (sl_yscalar(p))
			push_path(v, n, resolve(dir, p->str));
	}
}

/* A file that cannot be read or parsed names nothing here: the renderer says what is wrong. */
void sl_kz_read_names(const char *abs, const char *file, char ***uses, size_t *nuses, char ***patches, size_t *npatches)
{
	char *path = sl_xasprintf("%s/%s", strcmp(abs, "/") ? abs : "", file);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return;
	struct sl_buf b = SL_BUF_INIT;
	char chunk[8192];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= sl_limits.file_bytes)
		sl_buf_add(&b, chunk, got);
	fclose(f);
	struct sl_source *src = sl_source_from_memory(file, sl_buf_str(&b), b.len);
	sl_buf_free(&b);
	struct sl_ystream ys = {0};
	struct sl_findings errs = {0};
	sl_yaml_parse(src, &ys, &errs);
	const struct sl_ynode *root = ys.n ? ys.docs[0].root : NULL;
	if (root && root->kind == SL_YMAP) {
		static const char *const keys[] = {"resources", "bases", "components"};
		for (size_t i = 0; i < 3; i++)
			read_list(sl_ymap_get(root, keys[i]), abs, uses, nuses);
		read_list(sl_ymap_get(root, "patchesStrategicMerge"), abs, patches, npatches);
		read_patch_maps(sl_ymap_get(root, "patches"), abs, patches, npatches);
		read_patch_maps(sl_ymap_get(root, "patchesJson6902"), abs, patches, npatches);
	}
	sl_findings_free(&errs);
	sl_ystream_free(&ys);
	sl_source_free(src);
}

size_t sl_kz_found(struct sl_kustomizations *kz, const char *shown, const char *abs, const char *name)
{
	for (size_t i = 0; i < kz->n; i++)
		if (!strcmp(kz->v[i].abs, abs))
			return i;
	sl_grow(&kz->v, &kz->cap, kz->n + 1, sizeof *kz->v);
	struct sl_kustomization *k = &kz->v[kz->n];
	memset(k, 0, sizeof *k);
	k->shown = sl_xstrdup(shown);
	k->abs = sl_xstrdup(abs);
	k->file = sl_xstrdup(name);
	sl_kz_read_names(abs, name, &k->uses, &k->nuses, &k->patches, &k->npatches);
	/* Without a renderer its files are read as they were, but for the patches: fragments of
	 * objects, which read alone would be objects without most of their fields. */
	for (size_t i = 0; !kz->argv && i < k->npatches; i++)
		sl_intern_id(&kz->patch_files, k->patches[i]);
	return kz->n++;
}

/* The path of k's kustomization file as the user will recognise it. */
static char *shown_file(const struct sl_kustomization *k)
{
	return strcmp(k->shown, ".")
		   ? sl_xasprintf("%s%s%s", k->shown, k->shown[strlen(k->shown) - 1] == '/' ? "" : "/", k->file)
		   : sl_xstrdup(k->file);
}

/* An empty source named k's kustomization file, with a note or an error at its 1:1. */
static void fresh(struct sl_kustomizations *kz, struct sl_source *s)
{
	sl_grow(&kz->fresh, &kz->capfresh, kz->nfresh + 1, sizeof *kz->fresh);
	kz->fresh[kz->nfresh++] = s;
}

static void at_kustomization(struct sl_kustomizations *kz, const struct sl_kustomization *k, struct sl_findings *errs,
			     bool error, const char *msg)
{
	char *file = shown_file(k);
	struct sl_source *s = sl_source_from_memory(file, "", 0);
	free(file);
	s->skipped = true;
	fresh(kz, s);
	struct sl_span at;
	sl_source_span(s, 0, 0, &at);
	if (error)
		sl_input_error(errs, &at, "%s", msg);
	else {
		sl_input_note(errs, &at, "%s", msg);
		/* About the run as much as the file: SARIF's descriptor.id, JSON's id (diag.h) */
		errs->v[errs->n - 1].notice_id = "kustomization-not-rendered";
	}
}

/* Read fd to its end into b, up to max bytes; the pipe left open. */
static bool drain(int fd, struct sl_buf *b, size_t max)
{
	char chunk[65536];
	ssize_t n = read(fd, chunk, sizeof chunk);
	if (n > 0 && b->len <= max)
		sl_buf_add(b, chunk, (size_t)n);
	return n > 0 || (n < 0 && errno == EINTR);
}

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Run argv (no shell), its output into out and its errors into err, stopped after the timeout or
 * past max bytes of output. Returns 0 when it exited 0; else why it failed, into err's front. */
static int run(char *const *argv, struct sl_buf *out, struct sl_buf *err, size_t max)
{
	int po[2], pe[2];
	if (pipe(po) < 0)
		return -1;
	if (pipe(pe) < 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	/* Not inherited by anything else run (no other thread runs programs while a run loads). */
	for (int i = 0; i < 2; i++) {
		fcntl(po[i], F_SETFD, FD_CLOEXEC);
		fcntl(pe[i], F_SETFD, FD_CLOEXEC);
	}
	pid_t pid = fork();
	if (pid == 0) { /* only what is safe after a fork in a threaded process, then exec */
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		execvp(argv[0], argv);
		/* Only what is safe here: fixed texts, no strerror. */
		const char *m = errno == ENOENT   ? "cannot run the renderer: No such file or directory"
				: errno == EACCES ? "cannot run the renderer: Permission denied"
						  : "cannot run the renderer";
		(void)!write(STDERR_FILENO, m, strlen(m));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	long long deadline = now_ms() + RENDER_TIMEOUT_MS;
	const char *why = NULL;
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			why = "it did not finish in 60 s";
			break;
		}
		if (poll(fds, 2, (int)left) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++)
			if (fds[i].fd >= 0 && fds[i].revents && !drain(fds[i].fd, i ? err : out, max)) {
				close(fds[i].fd);
				fds[i].fd = -1;
			}
		if (out->len > max) {
			why = "its output is larger than --max-file-size";
			break;
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	if (why)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (why) {
		sl_buf_reset(err);
		sl_buf_puts(err, why);
		return -1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The first lines of a renderer's errors, on one line. */
static char *first_lines(const char *err)
{
	struct sl_buf b = SL_BUF_INIT;
	int lines = 0;
	for (const char *p = err; *p && lines < ERROR_LINES;) {
		/* kubectl's log prefix ("E1127 16:48:12.582064   12364 run.go:72] ") says nothing. */
		const char *end = strchr(p, ']');
		if (strchr("EWIF", *p) && p[1] >= '0' && p[1] <= '9' && end && end[1] == ' ' &&
		    end < p + strcspn(p, "\n"))
			p = end + 2;
		size_t n = strcspn(p, "\n");
		if (n) {
			sl_buf_printf(&b, "%s%.*s", lines ? "; " : "", (int)n, p);
			lines++;
		}
		p += n + (p[n] == '\n');
	}
	if (!lines)
		sl_buf_puts(&b, "it gave no reason");
	return sl_buf_detach(&b);
}

/* path relative to the directory from (both absolute and normalised): kustomize takes no
 * absolute path to a kustomization. */
static char *relative_to(const char *from, const char *path)
{
	struct sl_buf b = SL_BUF_INIT;
	for (const char *p = from; *p; p++)
		if (*p == '/' && p[1])
			sl_buf_puts(&b, "../");
	sl_buf_puts(&b, path[0] == '/' ? path + 1 : path);
	return sl_buf_detach(&b);
}

/* s as a YAML double-quoted string: a path may hold quotes, backslashes, even line breaks. */
static char *yaml_quoted(const char *s)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_putc(&b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sl_buf_printf(&b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			sl_buf_printf(&b, "\\x%02x", *p);
		else
			sl_buf_putc(&b, (char)*p);
	}
	sl_buf_putc(&b, '"');
	return sl_buf_detach(&b);
}

/* Render k in a directory of its own, through a kustomization that uses k's directory as its one
 * resource and asks for the annotations: the user's files are never written. Returns the
 * rendered source, or NULL after its error. */
static struct sl_source *render_one(struct sl_kustomizations *kz, size_t ki, struct sl_findings *errs)
{
	const struct sl_kustomization *k = &kz->v[ki];
	const char *tmp = getenv("TMPDIR");
	char *dir = sl_xasprintf("%s/schedlint-kustomize-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *real = NULL, *file = NULL, *msg = NULL;
	struct sl_buf out = SL_BUF_INIT, err = SL_BUF_INIT;
	struct sl_source *s = NULL;
	if (!mkdtemp(dir) || !(real = realpath(dir, NULL))) {
		msg = sl_xasprintf("kustomize build failed: cannot make a directory to run it in: %s", strerror(errno));
		goto done;
	}
	file = sl_xasprintf("%s/kustomization.yaml", real);
	char *rel = relative_to(real, k->abs);
	char *quoted = yaml_quoted(rel);
	char *text = sl_xasprintf("# made by schedlint to render a kustomization with origin annotations\n"
				  "resources:\n- %s\n"
				  "buildMetadata: [originAnnotations, transformerAnnotations]\n",
				  quoted);
	free(quoted);
	free(rel);
	FILE *f = fopen(file, "wx");
	bool wrote = f && fputs(text, f) >= 0;
	if (f && fclose(f) != 0)
		wrote = false;
	free(text);
	if (!wrote) {
		msg = sl_xasprintf("kustomize build failed: cannot write %s: %s", file, strerror(errno));
		goto done;
	}
	char **argv = sl_xcalloc(kz->argc + 2, sizeof *argv);
	memcpy(argv, kz->argv, kz->argc * sizeof *argv);
	argv[kz->argc] = real;
	int rc = run(argv, &out, &err, sl_limits.file_bytes);
	free(argv);
	if (rc < 0) {
		char *lines = first_lines(sl_buf_str(&err));
		msg = sl_xasprintf("kustomize build failed: %s", lines);
		free(lines);
		goto done;
	}
	char *name = sl_xasprintf("%s (rendered by kustomize)", k->shown);
	s = sl_source_from_memory(name, sl_buf_str(&out), out.len);
	free(name);
	fresh(kz, s);
	sl_grow(&kz->rendered, &kz->caprendered, kz->nrendered + 1, sizeof *kz->rendered);
	kz->rendered[kz->nrendered++] = (struct sl_kz_rendered){s, ki, sl_xstrdup(real), shown_file(k)};
done:
	if (file)
		unlink(file);
	rmdir(real ? real : dir); /* nothing when mkdtemp failed */
	if (msg)
		at_kustomization(kz, k, errs, true, msg);
	free(msg);
	free(file);
	free(real);
	free(dir);
	sl_buf_free(&out);
	sl_buf_free(&err);
	return s;
}

/* The sources a rendered kustomization reads (its resources and patches, and theirs through the
 * kustomizations found that it uses) are not manifests of their own. */
static void consume(struct sl_dirs *dirs, struct sl_source *const *v, size_t n, const struct sl_strpool *files)
{
	if (!files->n)
		return;
	for (size_t i = 0; i < n; i++) {
		struct sl_source *s = v[i];
		if (s->role || s->from_stdin || s->skipped)
			continue;
		char *abs = sl_dirs_absolute(dirs, s->path);
		if (sl_strmap_get(&files->map, abs) != (size_t)-1)
			s->skipped = true;
		free(abs);
	}
}

void sl_kz_render(struct sl_kustomizations *kz, struct sl_dirs *dirs, struct sl_source *const *v, size_t n,
		  struct sl_findings *errs)
{
	struct sl_strpool used = {0};
	for (size_t i = 0; i < kz->n; i++)
		for (size_t u = 0; u < kz->v[i].nuses; u++)
			sl_intern_id(&used, kz->v[i].uses[u]);
	struct sl_strpool files = {0};
	for (size_t i = 0; i < kz->n; i++) {
		struct sl_kustomization *k = &kz->v[i];
		k->used = sl_strmap_get(&used.map, k->abs) != (size_t)-1;
		for (size_t u = 0; kz->argv && u < k->nuses; u++)
			sl_intern_id(&files, k->uses[u]);
		for (size_t u = 0; kz->argv && u < k->npatches; u++)
			sl_intern_id(&files, k->patches[u]);
	}
	sl_strpool_free(&used);
	consume(dirs, v, n, &files);
	sl_strpool_free(&files);
	for (size_t i = 0; i < kz->n; i++) {
		const struct sl_kustomization *k = &kz->v[i];
		if (k->used)
			continue;
		if (kz->argv) {
			render_one(kz, i, errs);
			continue;
		}
		/* Without a renderer on PATH, installing one is the first way out. */
		bool missing = !strcmp(kz->off_why, NO_RENDERER);
		char *msg = sl_xasprintf(
		    "a kustomization, not rendered (%s): its objects as deployed are not checked, and "
		    "its patches are not read; %scheck what it renders: kubectl kustomize %s | schedlint -",
		    kz->off_why, missing ? "install kustomize (or kubectl), or " : "", k->shown);
		at_kustomization(kz, k, errs, false, msg);
		free(msg);
	}
}

const struct sl_kz_rendered *sl_kz_rendered_of(const struct sl_kustomizations *kz, const struct sl_source *src)
{
	for (size_t i = 0; i < kz->nrendered; i++)
		if (kz->rendered[i].src == src)
			return &kz->rendered[i];
	return NULL;
}

static void free_paths(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sl_kz_free(struct sl_kustomizations *kz)
{
	for (size_t i = 0; i < kz->n; i++) {
		free(kz->v[i].shown);
		free(kz->v[i].abs);
		free(kz->v[i].file);
		free_paths(kz->v[i].uses, kz->v[i].nuses);
		free_paths(kz->v[i].patches, kz->v[i].npatches);
	}
	free(kz->v);
	free_paths(kz->argv, kz->argc);
	sl_strpool_free(&kz->patch_files);
	sl_strpool_free(&kz->dirs);
	free(kz->dir_k);
	for (size_t i = 0; i < kz->nrendered; i++) {
		free(kz->rendered[i].ran_in);
		free(kz->rendered[i].file);
	}
	free(kz->rendered);
	free(kz->fresh);
	sl_strpool_free(&kz->aux_paths);
	free(kz->aux);
	memset(kz, 0, sizeof *kz);
}
