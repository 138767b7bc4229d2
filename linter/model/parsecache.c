/* parsecache.c — parsed sources kept between runs (see parsecache.h). */
#include "parsecache.h"

#include <stdlib.h>
#include <string.h>

#include "../load/source.h"

void sl_parse_cache_init(struct sl_parse_cache *c)
{
	memset(c, 0, sizeof *c);
	c->gen = 1;
}

static void free_entry(struct sl_parsed *e)
{
	e->ys.borrowed = false; /* the entry's own: freed here */
	sl_ystream_free(&e->ys);
	sl_source_free(e->src);
	free(e->key);
	free(e);
}

/* The entries kept, in v's order, indexed again (the map cannot remove a key). */
static void keep_only(struct sl_parse_cache *c, bool (*keep)(const struct sl_parse_cache *, const struct sl_parsed *))
{
	size_t w = 0;
	sl_strmap_free(&c->index);
	for (size_t i = 0; i < c->n; i++) {
		if (keep && keep(c, c->v[i])) {
			c->v[w] = c->v[i];
			sl_strmap_put(&c->index, c->v[w]->key, w);
			w++;
		} else
			free_entry(c->v[i]);
	}
	c->n = w;
}

void sl_parse_cache_clear(struct sl_parse_cache *c)
{
	keep_only(c, NULL);
	c->used = false;
}

void sl_parse_cache_free(struct sl_parse_cache *c)
{
	sl_parse_cache_clear(c);
	free(c->v);
	memset(c, 0, sizeof *c);
}

static bool used_lately(const struct sl_parse_cache *c, const struct sl_parsed *e)
{
	return e->gen == c->gen;
}

void sl_parse_cache_sweep(struct sl_parse_cache *c)
{
	if (!c->used)
		return;
	keep_only(c, used_lately);
	c->gen++;
	c->used = false;
	c->hits = c->misses = 0;
}

static char *key_of(const char *path, int role)
{
	return sl_xasprintf("%d\x1f%s", role, path);
}

struct sl_parsed *sl_parse_cache_claim(struct sl_parse_cache *c, const char *path, int role, bool *fresh)
{
	char *key = key_of(path, role);
	size_t at = sl_strmap_get(&c->index, key);
	free(key);
	c->used = true;
	if (at == (size_t)-1) {
		/* A place for it, claimed: another source of the same key in this run is not kept
		 * (its store would free what this one's run holds). */
		struct sl_parsed *e = sl_xcalloc(1, sizeof *e);
		e->key = key_of(path, role);
		e->gen = c->gen;
		sl_grow(&c->v, &c->cap, c->n + 1, sizeof *c->v);
		c->v[c->n] = e;
		sl_strmap_put(&c->index, e->key, c->n);
		c->n++;
		*fresh = true;
		return NULL;
	}
	struct sl_parsed *e = c->v[at];
	*fresh = e->gen != c->gen;
	if (!*fresh)
		return NULL;
	e->gen = c->gen;
	return e->src ? e : NULL;
}

bool sl_parse_cache_matches(const struct sl_parsed *e, const struct sl_source *src)
{
	return e->src && !src->failed && src->data && e->src->len == src->len &&
	       !memcmp(e->src->data, src->data, src->len);
}

void sl_parse_cache_store(struct sl_parse_cache *c, int role, struct sl_source *src, const struct sl_ystream *ys,
			  bool skipped)
{
	char *key = key_of(src->path, role);
	size_t at = sl_strmap_get(&c->index, key);
	struct sl_parsed *e;
	if (at != (size_t)-1) {
		/* An older text of the file, or the place claimed for it: the run that claimed it did
		 * not take it, and no other run is held. Its key stays (the index borrows it). */
		e = c->v[at];
		e->ys.borrowed = false;
		sl_ystream_free(&e->ys);
		sl_source_free(e->src);
		free(key);
	} else {
		e = sl_xcalloc(1, sizeof *e);
		e->key = key;
		sl_grow(&c->v, &c->cap, c->n + 1, sizeof *c->v);
		c->v[c->n] = e;
		sl_strmap_put(&c->index, e->key, c->n);
		c->n++;
	}
	e->src = src;
	e->ys = *ys;
	e->ys.borrowed = false;
	e->skipped = skipped;
	e->gen = c->gen;
	src->borrowed = true;
	c->used = true;
}
