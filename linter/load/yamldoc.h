/* yamldoc.h — libyaml events into a read-only node tree where every node keeps its source span.
 * Owns: the nodes and scalar copies of one source's documents, in one arena (a manifest's nodes
 * die together). Aliases share the anchored node instead of copying it, and the expanded size of
 * every document is bounded, so alias bombs cost neither memory nor time. Duplicate keys keep
 * the last value (as the API server decodes them); YAML 1.1 merge keys (<<) are applied.
 * yamldoc.c drives the parse and applies the limits; ybuild.c builds the nodes, ykeep.c leaves
 * out what nothing reads (yamldoc_internal.h, between the three); ylookup.c reads the tree. */
#ifndef SL_YAMLDOC_H
#define SL_YAMLDOC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/diag.h"
#include "limits.h"
#include "yarena.h"

/* The limits a parse applies: limits.h (nesting, aliases, nodes, documents). */

enum sl_ykind { SL_YSCALAR = 1, SL_YSEQ, SL_YMAP };

struct sl_ynode {
	struct sl_span at;
	const char *str; /* scalar value, NUL-terminated; NULL in a collection */
	/* A node is a scalar or a collection, never both: they share the bytes (nodes are most of a
	 * tree's memory). Read len only on a scalar and n only on a collection (sl_ycount: either). */
	union {
		uint32_t len; /* scalar: of str (a source is below 4 GiB) */
		uint32_t n;   /* seq: items; map: pairs */
	};
	uint8_t kind;  /* enum sl_ykind */
	bool plain;    /* scalar written without quotes: only those are typed (null, bool, int) */
	bool flow;     /* collection written in flow style ({} / []) */
	bool anchored; /* an anchor names it: aliases may share it */
	/* seq: n items; map: key0, val0, key1, val1 … (n pairs). Stored with the node, so that a
	 * scalar (most nodes are) carries no pointer to children it cannot have. */
	struct sl_ynode *v[];
};
/* Span (its source and offsets), text pointer and 8 bytes: 32 on a 64-bit machine. The weight
 * an alias bomb is measured by is needed only while the tree is built, and only of collections:
 * ybuild.c keeps it in a collection's str until nothing can ask for it (NULL once the document
 * is complete). */
_Static_assert(sizeof(struct sl_ynode) == sizeof(struct sl_span) + sizeof(char *) + 8,
	       "a node is a span, a pointer and 8 bytes");

/* A collection's children (items of a list, pairs of a mapping); 0 for a scalar or NULL. */
static inline size_t sl_ycount(const struct sl_ynode *n)
{
	return n && n->kind != SL_YSCALAR ? n->n : 0;
}

struct sl_ydoc {
	const struct sl_source *src;
	struct sl_ynode *root; /* NULL for an empty document */
	unsigned index;        /* 0-based position in the stream */
};

/* A stream's trees are allocated from an arena of its own, or from one it shares with other
 * streams (those one thread parses for a model): a chunk is then filled by several sources rather
 * than left mostly empty by each. */
struct sl_ystream {
	struct sl_yarena own;
	struct sl_yarena *shared; /* NULL, or the arena to allocate from (it outlives the stream) */
	struct sl_ydoc *docs;
	size_t n, cap;
	bool hostile;  /* a limit stopped the parse (nesting, alias expansion): an error in any file */
	bool partial;  /* a document or an entry was left out (sl_yaml_parse_some) */
	bool borrowed; /* a copy of one another owns (a parse cache's): freeing it frees nothing */
};

/* Parse every document of src (into out->shared when set, out->own otherwise). Complete
 * documents before an error are kept. Returns 0, or -1 after reporting an input error into errs. */
int sl_yaml_parse(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs);
/* The most keep paths sl_yaml_parse_keep takes: any past it are ignored (their values dropped). */
#define SL_YKEEP_MAX 128
/* The same, keeping only values on the paths in keep (NULL-terminated patterns such as
 * "spec.containers[].resources", from each object: the document, or each item of a top-level
 * `items` list), for inputs of which little is read. Everything else is dropped unbuilt. An
 * alias to a dropped anchor makes it parse again, keeping everything. */
int sl_yaml_parse_keep(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs,
		       const char *const *keep);
/* A piece of a source parsed on its own (ysplit.h): the text prefix (nprefix bytes; it stands in
 * the tree just before off), then the source's bytes [off, end). Only for an ASCII source
 * without a byte order mark; every span is the source's. After the parse: the nodes its last
 * document keeps and those its aliases stand for, which the limits count for the document whole,
 * and whether it was parsed again keeping every path (an alias to a value left out). */
struct sl_ypiece {
	const char *prefix;
	size_t nprefix, off, end;
	size_t nodes, aliased;
	bool again;
};
/* sl_yaml_parse_keep of a piece. */
int sl_yaml_parse_piece(const struct sl_source *src, struct sl_ypiece *pc, struct sl_ystream *out,
			struct sl_findings *errs, const char *const *keep);
/* What sl_yaml_parse_some leaves out of the tree. */
struct sl_yfilter {
	/* Whether to keep a complete document (NULL: every one); the nodes of the others go at once,
	 * and their memory serves the next document. */
	bool (*wanted)(void *ctx, const struct sl_ydoc *doc);
	void *ctx;
	/* Whether nothing will look up `key` in a mapping of class `in` (unread_in's), whose entries so
	 * far are `entries` (n: keys and values alternating), nor into its value. Such an entry is left
	 * out, key and value; the mapping's span still covers it. (An anchor or an alias in it, a merge
	 * key beside it, or a key of a document written twice, makes the source parse again, whole.)
	 * NULL: none. */
	bool (*unread)(void *ctx, const char *key, unsigned in, struct sl_ynode *const *entries, size_t n);
	/* Whether the bytes of a document not kept are read again (no: sl_source_forget them). */
	bool forget;
	/* The class of a collection that is the value of `in` ("[]": an item of a list, which is the
	 * value of in_in; NULL: a document), 1 to 255, or 0 when unread says yes to none of its keys:
	 * asked once when the collection opens, so that its keys are neither asked when it cannot nor
	 * told apart by their parents' keys again each. Set when unread is. */
	unsigned (*unread_in)(void *ctx, const char *in, const char *in_in);
};
/* The same as sl_yaml_parse, leaving out what f says. */
int sl_yaml_parse_some(const struct sl_source *src, struct sl_ystream *out, struct sl_findings *errs,
		       const struct sl_yfilter *f);
void sl_ystream_free(struct sl_ystream *ys);

/* Lookups (ylookup.c). All accept NULL and return NULL / false for a wrong kind. */
/* The value (or the key node) of key, kl bytes long (NUL-terminated or not). */
const struct sl_ynode *sl_ymap_getn(const struct sl_ynode *map, const char *key, size_t kl);
const struct sl_ynode *sl_ymap_keyn(const struct sl_ynode *map, const char *key, size_t kl);
/* Inline, so that the length of a literal key (nearly every lookup's) is known when compiled. */
static inline const struct sl_ynode *sl_ymap_get(const struct sl_ynode *map, const char *key)
{
	return sl_ymap_getn(map, key, strlen(key));
}
static inline const struct sl_ynode *sl_ymap_key(const struct sl_ynode *map, const char *key) /* the key node */
{
	return sl_ymap_keyn(map, key, strlen(key));
}
const struct sl_ynode *sl_ypath(const struct sl_ynode *n, const char *dotted); /* "spec.template" */
bool sl_ynull(const struct sl_ynode *n); /* absent, or a plain null / ~ / empty scalar */
bool sl_yscalar(const struct sl_ynode *n);
bool sl_yis(const struct sl_ynode *n, const char *s); /* scalar equal to s */
/* A plain scalar that is a YAML 1.1 / JSON integer; -1 when it is not an integer, -2 on range. */
int sl_yint(const struct sl_ynode *n, int64_t *out);
const char *sl_ykind_name(const struct sl_ynode *n);
/* Whether byte off of the source lies inside a scalar of the tree (a block scalar's script, a
 * quoted string): text there is data, not YAML structure or a comment. ys may be NULL. */
bool sl_ystream_in_scalar(const struct sl_ystream *ys, size_t off);
/* The same within the tree of one document (n: its root; NULL: false). */
bool sl_ynode_in_scalar(const struct sl_ynode *n, size_t off);

#endif
