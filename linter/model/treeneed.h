/* treeneed.h — what of a manifest's trees the load keeps (sl_yfilter's callbacks for model.c):
 * the documents that hold an object of the model or one another reader asks for, and in them
 * the entries something reads. Leaving the rest out is most of what keeps the trees small. */
#ifndef SL_TREENEED_H
#define SL_TREENEED_H

#include <stdbool.h>

#include "../load/manifest.h"
#include "model.h"

/* One source's parse: what it needs and what was seen. */
struct sl_tree_need {
	const struct sl_tree_readers *readers;
	bool all; /* every document of the source */
	bool yes;
	bool object; /* some document, kept or not, has apiVersion and kind: the file is a manifest */
	/* The source holds "{{": each document's "{{" are looked at as it ends, in a tree with every
	 * value (sl_manifest_screen then tells a template without the documents not kept). */
	bool braces;
	struct sl_braces br;
	/* The next key sl_unread_value is asked of is the first of its mapping: a reader may take
	 * that key for where the mapping is (a finding at a pod spec's first key), so a pod spec's
	 * unread keys and an object's server-set metadata are kept there. */
	bool first;
	/* The last kind a document's entries were asked under, and whether nothing reads beyond the
	 * identity of an object of that kind: told once, not for each of its entries ("": none yet) */
	char kind[64];
	bool foreign;
};

/* Whether a manifest document's tree is kept (arg: the source's sl_tree_need). */
bool sl_tree_needed(void *arg, const struct sl_ydoc *doc);
/* Which keys of a mapping that is the value of in (within in_in) may be left out: 0 for none, or
 * the class of mapping sl_unread_value is then asked of (sl_yfilter.unread_in). */
unsigned sl_unread_in(void *ctx, const char *in, const char *in_in);
/* Whether the entry key of a mapping of class in (sl_unread_in's) is read by nothing: the model,
 * a rule, a fix or a policy's field (ctx: the source's sl_tree_need). */
bool sl_unread_value(void *ctx, const char *key, unsigned in, struct sl_ynode *const *entries, size_t n);

#endif
