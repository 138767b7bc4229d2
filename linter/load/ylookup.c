/* ylookup.c — reading a YAML tree: entries by key and by dotted path, what scalars say (null, an
 * integer, a kind's name), and whether an offset lies in a scalar. The declarations are in
 * yamldoc.h. */
#include "yamldoc.h"

#include <string.h>

/* The index of key (kl bytes) among map's pairs, or map->n. Every lookup of every rule comes
 * here, mostly for a key that is not the first: the length is compared first (it differs for
 * most keys), then the bytes in place; keys are short, and a call to memcmp for each costs
 * more than the comparison. A collection used as a key (its len is its n) fails the kind test.
 * Duplicate keys were resolved when the map was built. */
static inline size_t pair_index(const struct sl_ynode *map, const char *key, size_t kl)
{
	size_t n = map->n;
	struct sl_ynode *const *v = map->v;
	for (size_t i = 0; i < n; i++) {
		const struct sl_ynode *k = v[2 * i];
		if (k->len != kl || k->kind != SL_YSCALAR)
			continue;
		size_t j = 0;
		while (j < kl && k->str[j] == key[j])
			j++;
		if (j == kl)
			return i;
	}
	return n;
}

const struct sl_ynode *sl_ymap_keyn(const struct sl_ynode *map, const char *key, size_t kl)
{
	if (!map || map->kind != SL_YMAP)
		return NULL;
	size_t i = pair_index(map, key, kl);
	return i < map->n ? map->v[2 * i] : NULL;
}

const struct sl_ynode *sl_ymap_getn(const struct sl_ynode *map, const char *key, size_t kl)
{
	if (!map || map->kind != SL_YMAP)
		return NULL;
	size_t i = pair_index(map, key, kl);
	return i < map->n ? map->v[2 * i + 1] : NULL;
}

/* Each component is looked up in place, by its length (an empty one is the key ""). */
const struct sl_ynode *sl_ypath(const struct sl_ynode *n, const char *dotted)
{
	while (n && *dotted) {
		const char *dot = strchr(dotted, '.');
		size_t l = dot ? (size_t)(dot - dotted) : strlen(dotted);
		if (l >= 128) /* no key the tree is read by is as long */
			return NULL;
		n = sl_ymap_getn(n, l ? dotted : "", l);
		dotted += l + (dot ? 1 : 0);
	}
	return n;
}

bool sl_yscalar(const struct sl_ynode *n)
{
	return n && n->kind == SL_YSCALAR;
}

bool sl_ynull(const struct sl_ynode *n)
{
	if (!n)
		return true;
	if (n->kind != SL_YSCALAR || !n->plain)
		return false;
	/* By length first: asked of most values read, and most are neither 1 nor 4 bytes long. A
	 * plain scalar holds no NUL, so its length is its string's. */
	switch (n->len) {
	case 0:
		return true;
	case 1:
		return n->str[0] == '~';
	case 4:
		return !memcmp(n->str, "null", 4) || !memcmp(n->str, "Null", 4) || !memcmp(n->str, "NULL", 4);
	default:
		return false;
	}
}

bool sl_yis(const struct sl_ynode *n, const char *s)
{
	return sl_yscalar(n) && !strcmp(n->str, s);
}

int sl_yint(const struct sl_ynode *n, int64_t *out)
{
	if (!sl_yscalar(n) || !n->plain || n->len == 0)
		return -1;
	const char *s = n->str;
	int neg = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!*s)
		return -1;
	int64_t v = 0;
	for (; *s; s++) {
		if (*s == '_') /* YAML 1.1 digit separator */
			continue;
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (INT64_MAX - (*s - '0')) / 10)
			return -2;
		v = v * 10 + (*s - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

const char *sl_ykind_name(const struct sl_ynode *n)
{
	if (!n)
		return "nothing";
	switch (n->kind) {
	case SL_YMAP:
		return "a mapping";
	case SL_YSEQ:
		return "a list";
	default:
		return sl_ynull(n) ? "null" : "a scalar";
	}
}

/* Followed down the one child that holds off. */
bool sl_ynode_in_scalar(const struct sl_ynode *n, size_t off)
{
	while (n && off >= n->at.off && off < n->at.end) {
		if (n->kind == SL_YSCALAR)
			return true;
		const struct sl_ynode *next = NULL;
		size_t k = n->kind == SL_YMAP ? 2 * (size_t)n->n : n->n;
		for (size_t i = 0; i < k && !next; i++)
			if (n->v[i] && off >= n->v[i]->at.off && off < n->v[i]->at.end)
				next = n->v[i];
		n = next;
	}
	return false;
}

/* The documents' trees follow each other through the source: the one that may hold off is the
 * last that starts at or before it, found by bisection (empty documents have no tree). */
bool sl_ystream_in_scalar(const struct sl_ystream *ys, size_t off)
{
	size_t lo = 0, hi = ys ? ys->n : 0;
	while (lo < hi) { /* docs[0 .. lo) start at or before off, docs[hi ..) after it */
		size_t mid = lo + (hi - lo) / 2, d = mid;
		while (d < hi && !ys->docs[d].root)
			d++;
		if (d == hi)
			hi = mid;
		else if (ys->docs[d].root->at.off <= off)
			lo = d + 1;
		else
			hi = mid;
	}
	while (lo > 0 && !ys->docs[lo - 1].root)
		lo--;
	return lo > 0 && sl_ynode_in_scalar(ys->docs[lo - 1].root, off);
}
