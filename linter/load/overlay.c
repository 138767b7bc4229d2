/* overlay.c — open buffers and cached files standing in for the disk (see overlay.h). */
#include "overlay.h"

#include <stdlib.h>
#include <string.h>

/* The cache stops taking files beyond this: a workspace that large is read from disk each run
 * rather than held twice in memory. */
#define CACHE_MAX ((size_t)512 << 20)

void sl_overlay_init(struct sl_overlay *ov)
{
	memset(ov, 0, sizeof *ov);
	pthread_mutex_init(&ov->mu, NULL);
}

void sl_overlay_free(struct sl_overlay *ov)
{
	for (size_t i = 0; i < ov->n; i++) {
		free(ov->v[i]->path);
		free(ov->v[i]->buf);
		free(ov->v[i]->disk);
		free(ov->v[i]);
	}
	free(ov->v);
	sl_strmap_free(&ov->index);
	pthread_mutex_destroy(&ov->mu);
	memset(ov, 0, sizeof *ov);
}

/* The entry of path, made when create (else NULL when there is none). Called locked. */
static struct sl_overlay_entry *entry(struct sl_overlay *ov, const char *path, bool create)
{
	size_t i = sl_strmap_get(&ov->index, path);
	if (i != (size_t)-1)
		return ov->v[i];
	if (!create)
		return NULL;
	struct sl_overlay_entry *e = sl_xcalloc(1, sizeof *e);
	e->path = sl_xstrdup(path);
	sl_grow(&ov->v, &ov->cap, ov->n + 1, sizeof *ov->v);
	ov->v[ov->n] = e;
	sl_strmap_put(&ov->index, e->path, ov->n++);
	return e;
}

static char *copy(const char *data, size_t len)
{
	char *c = sl_xmalloc(len + 1);
	if (len)
		memcpy(c, data, len);
	c[len] = 0;
	return c;
}

void sl_filekey_of(const struct stat *st, struct sl_filekey *k)
{
	k->dev = (unsigned long long)st->st_dev;
	k->ino = (unsigned long long)st->st_ino;
	k->size = (unsigned long long)st->st_size;
	k->mtime_s = (long long)st->st_mtim.tv_sec;
	k->mtime_ns = (long long)st->st_mtim.tv_nsec;
	k->ctime_s = (long long)st->st_ctim.tv_sec;
	k->ctime_ns = (long long)st->st_ctim.tv_nsec;
}

void sl_overlay_pin(struct sl_overlay *ov, const char *path, const char *text, size_t len)
{
	char *c = copy(text, len);
	pthread_mutex_lock(&ov->mu);
	struct sl_overlay_entry *e = entry(ov, path, true);
	free(e->buf);
	e->buf = c;
	e->buflen = len;
	pthread_mutex_unlock(&ov->mu);
}

void sl_overlay_unpin(struct sl_overlay *ov, const char *path)
{
	pthread_mutex_lock(&ov->mu);
	struct sl_overlay_entry *e = entry(ov, path, false);
	if (e) {
		free(e->buf);
		e->buf = NULL;
		e->buflen = 0;
	}
	pthread_mutex_unlock(&ov->mu);
}

bool sl_overlay_pinned(struct sl_overlay *ov, const char *path)
{
	pthread_mutex_lock(&ov->mu);
	struct sl_overlay_entry *e = entry(ov, path, false);
	bool pinned = e && e->buf;
	pthread_mutex_unlock(&ov->mu);
	return pinned;
}

/* Called locked. */
static void drop(struct sl_overlay *ov, struct sl_overlay_entry *e)
{
	if (!e->disk)
		return;
	ov->cached_bytes -= e->disklen;
	free(e->disk);
	e->disk = NULL;
	e->disklen = 0;
}

void sl_overlay_drop(struct sl_overlay *ov, const char *path)
{
	pthread_mutex_lock(&ov->mu);
	struct sl_overlay_entry *e = entry(ov, path, false);
	if (e)
		drop(ov, e);
	pthread_mutex_unlock(&ov->mu);
}

char *sl_overlay_get(struct sl_overlay *ov, const char *path, const struct stat *st, size_t *len)
{
	char *out = NULL;
	pthread_mutex_lock(&ov->mu);
	struct sl_overlay_entry *e = entry(ov, path, false);
	struct sl_filekey k;
	if (st)
		sl_filekey_of(st, &k);
	if (e && e->buf) {
		out = copy(e->buf, e->buflen);
		*len = e->buflen;
	} else if (e && e->disk && st && !memcmp(&k, &e->key, sizeof k)) {
		out = copy(e->disk, e->disklen);
		*len = e->disklen;
	}
	pthread_mutex_unlock(&ov->mu);
	return out;
}

void sl_overlay_store(struct sl_overlay *ov, const char *path, const struct stat *st, const char *data, size_t len)
{
	if (!S_ISREG(st->st_mode))
		return;
	pthread_mutex_lock(&ov->mu);
	struct sl_overlay_entry *e = entry(ov, path, true);
	drop(ov, e);
	if (ov->cached_bytes + len <= CACHE_MAX) {
		e->disk = copy(data, len);
		e->disklen = len;
		sl_filekey_of(st, &e->key);
		ov->cached_bytes += len;
	}
	pthread_mutex_unlock(&ov->mu);
}
