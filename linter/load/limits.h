/* limits.h — the limits every reader applies (manifests, --nodes, --pods, the config, stdin), so
 * that hostile input ends with an error in time and memory linear in its size. Set once from the
 * command line before any file is read; read-only afterwards (the option set's part that reaches
 * the readers). Defaults are generous for the largest real files: argo-cd's install.yaml, a
 * 20,000-pod `kubectl get pods -A -o yaml`. */
#ifndef SL_LIMITS_H
#define SL_LIMITS_H
#include <stddef.h>

/* Hard caps: offsets are 32-bit, and the tree's walkers recurse once per level. */
#define SL_DEPTH_CAP 1024
#define SL_FILE_BYTES_CAP (1024u << 20)

struct sl_limits {
	size_t depth;       /* nesting levels of a document (--max-depth) */
	size_t alias_nodes; /* nodes one document may add through aliases (--max-alias-nodes) */
	size_t nodes;       /* nodes one document may keep in its tree (--max-nodes) */
	size_t documents;   /* documents in one file (--max-documents) */
	size_t file_bytes;  /* bytes of one file (--max-file-size) */
};
#define SL_LIMITS_DEFAULT                                                                                              \
	{                                                                                                              \
		256, 2000000, 4000000, 10000, 64u << 20                                                                \
	}
extern struct sl_limits sl_limits;

#endif
