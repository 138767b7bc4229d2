/* ylookup.c — reading a YAML tree: entries by key and by dotted path, and what scalars say
 * (null, an integer, a kind's name). The declarations are in yamldoc.h. */
#include "yamldoc.h"

#include <string.h>

/* The index of key among map's pairs, or map->n. */
static size_t pair_index(const struct sl_ynode *map, const char *key)
{
	size_t kl = strlen(key), i = 0;
	for (; i < map->n; i++) {
		const struct sl_ynode *k = map->v[2 * i];
		if (k->kind == SL_YSCALAR && k->len == kl && !memcmp(k->str, key, kl))
			break;
	}
	return i;
}

const struct sl_ynode *sl_ymap_key(const struct sl_ynode *map, const char *key)
{
	if (!map || map->kind != SL_YMAP)
		return NULL;
	size_t i = pair_index(map, key);
	return i < map->n ? map->v[2 * i] : NULL;
}

const struct sl_ynode *sl_ymap_get(const struct sl_ynode *map, const char *key)
{
	if (!map || map->kind != SL_YMAP)
		return NULL;
	size_t i = pair_index(map, key);
	return i < map->n ? map->v[2 * i + 1] : NULL;
}

const struct sl_ynode *sl_ypath(const struct sl_ynode *n, const char *dotted)
{
	char part[128];
	while (n && *dotted) {
		const char *dot = strchr(dotted, '.');
		size_t l = dot ? (size_t)(dot - dotted) : strlen(dotted);
		if (l >= sizeof part)
			return NULL;
		memcpy(part, dotted, l);
		part[l] = 0;
		n = sl_ymap_get(n, part);
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
	return n->len == 0 || !strcmp(n->str, "~") || !strcmp(n->str, "null") || !strcmp(n->str, "Null") ||
	       !strcmp(n->str, "NULL");
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
