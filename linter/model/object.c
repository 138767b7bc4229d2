/* object.c — what an object is and where it is (see object.h), and the objects of a document:
 * the document's, or each item of a *List. */
#include "object.h"

#include <stdint.h>
#include <string.h>

#include "../base/diag.h"

/* The values of a map's keys keys[0 .. 3) (distinct lengths lens), the first pair of each as
 * sl_ymap_get finds it, into out; in one pass over the pairs rather than one per key: every
 * object of every document is read this way. */
static void three_values(const struct sl_ynode *map, const char *const keys[3], const uint32_t lens[3],
			 const struct sl_ynode *out[3])
{
	out[0] = out[1] = out[2] = NULL;
	if (!map || map->kind != SL_YMAP)
		return;
	for (size_t i = 0; i < map->n; i++) {
		const struct sl_ynode *k = map->v[2 * i];
		if (k->kind != SL_YSCALAR)
			continue;
		for (int j = 0; j < 3; j++)
			if (k->len == lens[j] && !out[j] && !memcmp(k->str, keys[j], lens[j])) {
				out[j] = map->v[2 * i + 1];
				break;
			}
	}
}

void sl_object_read(const struct sl_source *src, const struct sl_ynode *root, struct sl_object *o)
{
	static const char *const top[3] = {"kind", "apiVersion", "metadata"};
	static const uint32_t top_len[3] = {4, 10, 8};
	static const char *const meta[3] = {"name", "generateName", "namespace"};
	static const uint32_t meta_len[3] = {4, 12, 9};
	const struct sl_ynode *t[3], *md[3];
	memset(o, 0, sizeof *o);
	o->src = src;
	o->root = root;
	three_values(root, top, top_len, t);
	three_values(t[2], meta, meta_len, md);
	o->kind_node = t[0];
	o->kind = sl_yscalar(o->kind_node) ? o->kind_node->str : NULL;
	o->api_version = sl_yscalar(t[1]) ? t[1]->str : "";
	o->name_node = md[0];
	o->name = sl_yscalar(o->name_node) && !sl_ynull(o->name_node) ? o->name_node->str : NULL;
	if (!o->name)
		o->name = sl_yscalar(md[1]) ? md[1]->str : "(unnamed)";
	const struct sl_ynode *ns = md[2];
	o->namespace = sl_yscalar(ns) && !sl_ynull(ns) && ns->len ? ns->str : SL_DEFAULT_NAMESPACE;
}

bool sl_object_in_group(const struct sl_object *o, const char *group)
{
	size_t n = strlen(group);
	return o->api_version && !strncmp(o->api_version, group, n) && o->api_version[n] == '/';
}

void sl_finding_subject(struct sl_finding *f, const struct sl_object *o)
{
	f->subject = o->root;
	f->subj_src = o->src;
	f->subj_off = o->root->at.off;
}

void sl_doc_objects(const struct sl_ydoc *doc, void (*fn)(void *ctx, const struct sl_object *o), void *ctx)
{
	const struct sl_ynode *root = doc->root;
	if (!root || root->kind != SL_YMAP)
		return;
	struct sl_object o;
	sl_object_read(doc->src, root, &o);
	if (!o.kind)
		return;
	size_t kl = strlen(o.kind);
	/* items looked up only for a *List: most documents are one object. */
	const struct sl_ynode *items = kl >= 4 && !strcmp(o.kind + kl - 4, "List") ? sl_ymap_get(root, "items") : NULL;
	if (items && items->kind == SL_YSEQ) {
		for (size_t i = 0; i < items->n; i++) {
			struct sl_object io;
			if (items->v[i]->kind != SL_YMAP)
				continue;
			sl_object_read(doc->src, items->v[i], &io);
			if (io.kind)
				fn(ctx, &io);
		}
		return;
	}
	fn(ctx, &o);
}

void sl_stream_objects(const struct sl_ystream *ys, void (*fn)(void *ctx, const struct sl_object *o), void *ctx)
{
	for (size_t d = 0; d < ys->n; d++)
		sl_doc_objects(&ys->docs[d], fn, ctx);
}
