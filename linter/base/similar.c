/* similar.c — the edit distance of two names (similar.h). */
#include "similar.h"

#include <ctype.h>
#include <string.h>

unsigned sl_edit_distance_within(const char *a, const char *b, size_t cap, unsigned max)
{
	if (cap > SL_EDIT_DISTANCE_MAX)
		cap = SL_EDIT_DISTANCE_MAX;
	size_t la = strnlen(a, cap), lb = strnlen(b, cap);
	if ((la > lb ? la - lb : lb - la) > max)
		return max + 1;
	/* Row i keeps columns j with |i - j| <= max; the others count as max + 1. */
	unsigned row[SL_EDIT_DISTANCE_MAX + 1];
	const unsigned over = max + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j <= max ? (unsigned)j : over;
	for (size_t i = 1; i <= la; i++) {
		size_t lo = i > max ? i - max : 1, hi = i + max < lb ? i + max : lb;
		unsigned diag = row[lo - 1];
		row[lo - 1] = lo == 1 && i <= max ? (unsigned)i : over;
		unsigned least = row[lo - 1];
		for (size_t j = lo; j <= hi; j++) {
			unsigned up = row[j],
				 best = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (best > over)
				best = over;
			diag = up;
			row[j] = best;
			if (best < least)
				least = best;
		}
		if (hi < lb)
			row[hi + 1] = over; /* the next row's cell above its band's new right end */
		if (least > max)
			return over;
	}
	return row[lb] > over ? over : row[lb];
}

/* The whole distance: a band as wide as the longest name a distance is taken of holds every cell. */
unsigned sl_edit_distance(const char *a, const char *b, size_t cap)
{
	return sl_edit_distance_within(a, b, cap, SL_EDIT_DISTANCE_MAX);
}

const char *sl_closest(const char *name, const char *const *names, size_t n)
{
	size_t len = strlen(name);
	if (!len || len > SL_EDIT_DISTANCE_MAX)
		return NULL;
	/* Far enough that "sarfi" finds "sarif" and "node" "nodes", near enough that "json" does
	 * not find "text". */
	unsigned bd = len / 3 + 1 < 3 ? (unsigned)(len / 3 + 1) : 3;
	const char *best = NULL, *prefixed = NULL;
	size_t nprefixed = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = sl_edit_distance_within(name, names[i], SL_EDIT_DISTANCE_MAX, bd);
		if (d < bd || (d == bd && !best)) {
			bd = d;
			best = names[i];
		}
		if (!strncmp(names[i], name, len)) {
			prefixed = names[i];
			nprefixed++;
		}
	}
	if (best)
		return best;
	return nprefixed == 1 ? prefixed : NULL;
}
