/* similar.h — how alike two short names are, for the "did you mean" notes of the rules that find
 * a name nothing declares (a probe's port name, a node label key or value). Owns nothing. */
#ifndef SL_BASE_SIMILAR_H
#define SL_BASE_SIMILAR_H
#include <stddef.h>

/* The largest cap sl_edit_distance takes: a label key's prefix and name (253 + 1 + 63) fit. */
#define SL_EDIT_DISTANCE_MAX 320
/* The Levenshtein distance of a and b, letters compared without case, each read up to cap
 * characters (at most SL_EDIT_DISTANCE_MAX): longer names compare by their first cap characters,
 * which is enough to sort the near ones first. */
unsigned sl_edit_distance(const char *a, const char *b, size_t cap);
/* The same when it is at most max, else max + 1, found in time proportional to the length times
 * max: the cells farther than max from the diagonal are never computed. */
unsigned sl_edit_distance_within(const char *a, const char *b, size_t cap, unsigned max);
/* The one of names[0..n) a user most likely meant by name, for a "did you mean": the nearest within
 * a few edits (a third of name's length plus one, at most 3: a typo, a slip of case, a letter left
 * out or two swapped), else the only one name begins (an abbreviation); NULL when none is near. */
const char *sl_closest(const char *name, const char *const *names, size_t n);

#endif
