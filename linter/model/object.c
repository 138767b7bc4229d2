/* object.c — what an object is and where it is (see object.h), and the objects of a document:
 * the document's, or each item of a *List. */
#include "object.h"

#include <string.h>

#include "../base/diag.h"

void sl_object_read(const struct sl_source *src, const struct sl_ynode *root, struct sl_object *o)
{
	memset(o, 0, sizeof *o);
	o->src = src;
	o->root = root;
	o->kind_node = sl_ymap_get(root, "kind");
	o->kind = sl_yscalar(o->kind_node) ? o->kind_node->str : NULL;
	o->api_version = sl_yscalar(sl_ymap_get(root, "apiVersion")) ? sl_ymap_get(root, "apiVersion")->str : "";
	const struct sl_ynode *md = sl_ymap_get(root, "metadata");
	o->name_node = sl_ymap_get(md, "name");
	o->name = sl_yscalar(o->name_node) && !sl_ynull(o->name_node) ? o->name_node->str : NULL;
	if (!o->name) {
		const struct sl_ynode *gn = sl_ymap_get(md, "generateName");
		o->name = sl_yscalar(gn) ? gn->str : "(unnamed)";
	}
	const struct sl_ynode *ns = sl_ymap_get(md, "namespace");
	o->namespace = sl_yscalar(ns) && !sl_ynull(ns) && ns->len ? ns->str : SL_DEFAULT_NAMESPACE;
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
	const struct sl_ynode *items = sl_ymap_get(root, "items");
	if (kl >= 4 && !strcmp(o.kind + kl - 4, "List") && items && items->kind == SL_YSEQ) {
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
