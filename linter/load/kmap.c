/* kmap.c — findings on a rendered kustomization moved back to the files that wrote what they
 * point at (kustomize.h). Each rendered object names the file it came from
 * (config.kubernetes.io/origin) and the kustomizations whose patches changed it
 * (alpha.config.kubernetes.io/transformations); the field a finding points at is looked up by
 * its path (keys, and list items by their name) in the last of those patches that writes it, else
 * in the file the object came from. A value found there as it was rendered is an exact location,
 * and a fix may edit it; otherwise the finding goes to the field, or to the object's start, with
 * a note, and its fixes are dropped. */
#include <stdlib.h>
#include <string.h>

#include "../base/diag.h"
#include "input.h"
#include "kustomize.h"
#include "path.h"
#include "yamldoc.h"

#define MAX_DEPTH 64

/* A file read for the mapping: its source (the run's), and its trees (the mapping's). */
struct kfile {
	char *abs;
	struct sl_source *src; /* NULL: could not be read */
	struct sl_ystream ys;
	/* For a kustomization file: the patch files it names. */
	char **patches;
	size_t npatches;
	bool names_read;
};

struct kmap {
	struct sl_sources *ss;
	struct kfile **files; /* each on its own: a pointer to one stays good as more are read */
	size_t n, cap;
	struct sl_ystream *rendered; /* by position in ss->kz.rendered */
};

/* One step of a field's path: a key, or a list item (by its name when it has one). */
struct step {
	const char *key;  /* NULL: an item */
	const char *name; /* an item's name, or NULL */
	size_t index;
};

struct field {
	struct step steps[MAX_DEPTH];
	size_t n;
	bool key;                    /* the finding is at the key of the last step */
	const struct sl_ynode *node; /* the value at the path in the rendered object */
	const struct sl_ynode *root; /* the rendered object */
};

/* The file at abs as a source of the run, read once. */
static struct sl_source *aux_source(struct sl_sources *ss, const char *abs)
{
	struct sl_kustomizations *kz = &ss->kz;
	size_t id = sl_strmap_get(&kz->aux_paths.map, abs);
	if (id != (size_t)-1)
		return kz->aux[id];
	const char *cwd = sl_dirs_cwd(&ss->dirs);
	char *rel = cwd ? sl_path_under(cwd, abs) : NULL;
	struct sl_source *s = sl_input_read_aux(ss, rel ? rel : abs);
	free(rel);
	id = sl_intern_id(&kz->aux_paths, abs);
	sl_grow(&kz->aux, &kz->capaux, kz->aux_paths.n, sizeof *kz->aux);
	kz->aux[id] = s;
	return s;
}

static struct kfile *file_at(struct kmap *km, const char *abs)
{
	for (size_t i = 0; i < km->n; i++)
		if (!strcmp(km->files[i]->abs, abs))
			return km->files[i];
	sl_grow(&km->files, &km->cap, km->n + 1, sizeof *km->files);
	struct kfile *f = sl_xcalloc(1, sizeof *f);
	km->files[km->n++] = f;
	f->abs = sl_xstrdup(abs);
	f->src = aux_source(km->ss, abs);
	if (f->src) {
		struct sl_findings errs = {0};
		sl_yaml_parse(f->src, &f->ys, &errs);
		sl_findings_free(&errs);
	}
	return f;
}

static const char *scalar_at(const struct sl_ynode *root, const char *dotted)
{
	const struct sl_ynode *n = sl_ypath(root, dotted);
	return sl_yscalar(n) ? n->str : NULL;
}

/* The annotation key of root's metadata, a string, parsed as YAML (into ys, whose source the
 * caller frees): its root. */
static const struct sl_ynode *annotation(const struct sl_ynode *root, const char *key, struct sl_source **src,
					 struct sl_ystream *ys)
{
	const struct sl_ynode *a = sl_ymap_get(sl_ypath(root, "metadata.annotations"), key);
	*src = NULL;
	if (!sl_yscalar(a))
		return NULL;
	*src = sl_source_from_memory(key, a->str, a->len);
	struct sl_findings errs = {0};
	sl_yaml_parse(*src, ys, &errs);
	sl_findings_free(&errs);
	return ys->n ? ys->docs[0].root : NULL;
}

/* Whether name (in a source file) is the name kustomize rendered as rendered: the same, or with
 * a prefix or suffix added. */
static bool same_name(const char *name, const char *rendered)
{
	return name && rendered && strstr(rendered, name);
}

/* The document of f that is the object kind/name (the only one of that kind when none is named
 * so): its root, or NULL. */
static const struct sl_ynode *object_in(const struct kfile *f, const char *kind, const char *name)
{
	const struct sl_ynode *only = NULL, *best = NULL;
	size_t nkind = 0, best_len = 0;
	for (size_t i = 0; i < f->ys.n; i++) {
		const struct sl_ynode *root = f->ys.docs[i].root;
		const char *k = scalar_at(root, "kind");
		if (!k || !kind || strcmp(k, kind))
			continue;
		nkind++;
		only = root;
		const char *n = scalar_at(root, "metadata.name");
		if (same_name(n, name) && strlen(n) >= best_len) {
			best = root;
			best_len = strlen(n);
		}
	}
	return best ? best : nkind == 1 ? only : NULL;
}

/* Descend from n to the node spanning [off, end), recording the path. */
static bool find_field(const struct sl_ynode *n, uint32_t off, uint32_t end, struct field *fd)
{
	if (n->at.off == off && n->at.end == end) {
		fd->node = n;
		return true;
	}
	if (fd->n == MAX_DEPTH)
		return false;
	struct step *st = &fd->steps[fd->n];
	if (n->kind == SL_YMAP)
		for (size_t i = 0; i < n->n; i++) {
			const struct sl_ynode *k = n->v[2 * i], *v = n->v[2 * i + 1];
			if (!sl_yscalar(k))
				continue;
			*st = (struct step){k->str, NULL, 0};
			if (k->at.off <= off && end <= k->at.end) {
				fd->n++;
				fd->key = true;
				fd->node = v;
				return true;
			}
			if (v->at.off <= off && end <= v->at.end) {
				fd->n++;
				return find_field(v, off, end, fd);
			}
		}
	if (n->kind == SL_YSEQ)
		for (size_t i = 0; i < n->n; i++) {
			const struct sl_ynode *v = n->v[i];
			if (v->at.off <= off && end <= v->at.end) {
				*st = (struct step){NULL, scalar_at(v, "name"), i};
				fd->n++;
				return find_field(v, off, end, fd);
			}
		}
	fd->node = n; /* inside this node but on none of its parts: the node itself */
	return true;
}

/* The node at fd's path in root (its key node in *key when fd is at a key), or NULL. */
static const struct sl_ynode *walk(const struct sl_ynode *root, const struct field *fd, const struct sl_ynode **key)
{
	const struct sl_ynode *n = root;
	*key = NULL;
	for (size_t i = 0; n && i < fd->n; i++) {
		const struct step *st = &fd->steps[i];
		if (st->key) {
			*key = sl_ymap_key(n, st->key);
			n = sl_ymap_get(n, st->key);
			continue;
		}
		*key = NULL;
		if (!n || n->kind != SL_YSEQ)
			return NULL;
		const struct sl_ynode *item = NULL;
		for (size_t k = 0; st->name && k < n->n && !item; k++)
			if (sl_yis(sl_ymap_get(n->v[k], "name"), st->name))
				item = n->v[k];
		if (!st->name && st->index < n->n)
			item = n->v[st->index];
		n = item;
	}
	return n;
}

/* Whether a and b are alike: the same scalar, or collections of the same size whose entries (and
 * keys, in any order) are alike. Only deep compares what lies below their own level; shallowly
 * their scalar entries alone count, what lies deeper being other fields' business. */
static bool same_tree(const struct sl_ynode *a, const struct sl_ynode *b, bool deep)
{
	if (!a || !b || a->kind != b->kind)
		return false;
	if (a->kind == SL_YSCALAR)
		return !strcmp(a->str, b->str);
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < b->n; i++) {
		bool seq = b->kind == SL_YSEQ;
		const struct sl_ynode *k = seq ? NULL : b->v[2 * i], *v = seq ? b->v[i] : b->v[2 * i + 1];
		if (k && (!sl_yscalar(k) || !sl_ymap_key(a, k->str)))
			return false;
		const struct sl_ynode *av = k ? sl_ymap_get(a, k->str) : a->v[i];
		if (deep ? !same_tree(av, v, true) : sl_yscalar(v) && !sl_yis(av, v->str))
			return false;
	}
	return true;
}

/* Where the field was found, and how well. */
enum how { NOWHERE, GENERATED, OBJECT, FIELD_CHANGED, EXACT };
struct place {
	enum how how;
	bool fixable; /* the rendered node is written whole at `at`: an edit replacing it may go there */
	struct sl_span at;
	const char *file; /* the file's path, as shown */
};

static void place_at(struct place *p, enum how how, const struct kfile *f, const struct sl_ynode *n)
{
	p->how = how;
	p->at = n->at;
	p->at.src = f->src;
	p->file = f->src->path;
}

/* The patch files named by the kustomizations that changed root, latest first. */
static size_t patch_files(struct kmap *km, const struct sl_kz_rendered *r, const struct sl_ynode *root,
			  struct kfile **out, size_t max)
{
	struct sl_source *src;
	struct sl_ystream ys = {0};
	const struct sl_ynode *list = annotation(root, "alpha.config.kubernetes.io/transformations", &src, &ys);
	size_t n = 0;
	for (size_t i = sl_ycount(list); i-- > 0 && list->kind == SL_YSEQ;) {
		const char *kind = scalar_at(list->v[i], "configuredBy.kind");
		const char *in = scalar_at(list->v[i], "configuredIn");
		if (!kind || !in || !strstr(kind, "Patch"))
			continue;
		char *joined = sl_xasprintf("%s/%s", r->ran_in, in);
		char *abs = sl_path_normalize(joined);
		free(joined);
		char *slash = strrchr(abs, '/');
		struct kfile *kf = file_at(km, abs);
		if (!kf->names_read && slash) {
			char **uses = NULL;
			size_t nuses = 0;
			*slash = 0;
			sl_kz_read_names(*abs ? abs : "/", slash + 1, &uses, &nuses, &kf->patches, &kf->npatches);
			for (size_t u = 0; u < nuses; u++)
				free(uses[u]);
			free(uses);
			kf->names_read = true;
		}
		free(abs);
		for (size_t p = kf->npatches; p-- > 0 && n < max;) {
			struct kfile *pf = file_at(km, kf->patches[p]);
			bool dup = false;
			for (size_t k = 0; k < n; k++)
				dup |= out[k] == pf;
			if (!dup && pf->src)
				out[n++] = pf;
		}
	}
	sl_ystream_free(&ys);
	if (src)
		sl_source_free(src);
	return n;
}

/* spec.replicas set by a kustomization's `replicas:` (kustomize's ReplicaCountTransformer): its
 * entry's count, when it is the value rendered. */
static bool replica_count(struct kmap *km, const struct sl_kz_rendered *r, const struct field *fd, const char *name,
			  struct place *p)
{
	if (fd->n != 2 || !fd->steps[0].key || !fd->steps[1].key || strcmp(fd->steps[0].key, "spec") ||
	    strcmp(fd->steps[1].key, "replicas") || !sl_yscalar(fd->node))
		return false;
	struct sl_source *src;
	struct sl_ystream ys = {0};
	const struct sl_ynode *list = annotation(fd->root, "alpha.config.kubernetes.io/transformations", &src, &ys);
	bool found = false;
	for (size_t i = sl_ycount(list); !found && i-- > 0 && list->kind == SL_YSEQ;) {
		const char *in = scalar_at(list->v[i], "configuredIn");
		if (!in || !sl_yis(sl_ypath(list->v[i], "configuredBy.kind"), "ReplicaCountTransformer"))
			continue;
		char *joined = sl_xasprintf("%s/%s", r->ran_in, in);
		char *abs = sl_path_normalize(joined);
		free(joined);
		struct kfile *kf = file_at(km, abs);
		free(abs);
		const struct sl_ynode *entries = kf->ys.n ? sl_ymap_get(kf->ys.docs[0].root, "replicas") : NULL;
		for (size_t e = 0; !found && e < sl_ycount(entries) && entries->kind == SL_YSEQ; e++) {
			const struct sl_ynode *count = sl_ymap_get(entries->v[e], "count");
			if (same_name(scalar_at(entries->v[e], "name"), name) && same_tree(count, fd->node, false)) {
				place_at(p, EXACT, kf, fd->key ? sl_ymap_key(entries->v[e], "count") : count);
				p->fixable = !fd->key;
				found = true;
			}
		}
	}
	sl_ystream_free(&ys);
	if (src)
		sl_source_free(src);
	return found;
}

/* The place in the sources of what a rendered object holds at fd. */
static void locate(struct kmap *km, const struct sl_kz_rendered *r, const struct field *fd, struct place *p)
{
	const struct sl_ynode *root = fd->root;
	const char *kind = scalar_at(root, "kind"), *name = scalar_at(root, "metadata.name");
	memset(p, 0, sizeof *p);
	struct sl_source *osrc;
	struct sl_ystream oys = {0};
	const struct sl_ynode *origin = annotation(root, "config.kubernetes.io/origin", &osrc, &oys);
	const char *path = scalar_at(origin, "path"), *in = scalar_at(origin, "configuredIn");
	struct kfile *base = NULL;
	if (!path && in) { /* made by a generator: its kustomization file is where it is written */
		char *joined = sl_xasprintf("%s/%s", r->ran_in, in);
		char *abs = sl_path_normalize(joined);
		struct kfile *kf = file_at(km, abs);
		free(abs);
		free(joined);
		if (kf->src) {
			p->how = GENERATED;
			sl_source_span(kf->src, 0, 0, &p->at);
			p->file = kf->src->path;
		}
	}
	if (path) {
		char *joined = sl_xasprintf("%s/%s", r->ran_in, path);
		char *abs = sl_path_normalize(joined);
		base = file_at(km, abs);
		free(abs);
		free(joined);
	}
	sl_ystream_free(&oys);
	if (osrc)
		sl_source_free(osrc);
	const struct sl_ynode *obase = base && base->src ? object_in(base, kind, name) : NULL;
	const struct sl_ynode *bkey, *bnode = obase ? walk(obase, fd, &bkey) : NULL;
	const struct sl_ynode *want = fd->node;
	bool scalar = want && want->kind == SL_YSCALAR;
	struct kfile *pf[32];
	size_t npf = patch_files(km, r, root, pf, 32);
	/* A value: the last patch that writes it as rendered, else the base if it does. */
	for (size_t i = 0; scalar && i < npf; i++) {
		const struct sl_ynode *pobj = object_in(pf[i], kind, name);
		const struct sl_ynode *pkey, *pnode = pobj ? walk(pobj, fd, &pkey) : NULL;
		if (pnode && same_tree(pnode, want, false)) {
			place_at(p, EXACT, pf[i], fd->key ? pkey : pnode);
			p->fixable = !fd->key;
			return;
		}
	}
	/* A block the base wrote as it was rendered (on its own level) is the base's, even when a
	 * patch changed something deeper; a fix may replace it only when nothing did. */
	if (bnode && same_tree(bnode, want, false)) {
		place_at(p, EXACT, base, fd->key ? bkey : bnode);
		p->fixable = !fd->key && same_tree(bnode, want, true);
		return;
	}
	/* A block a patch changed: the last patch that writes it. A fix replacing it there would
	 * be merged with what the base holds, so only one the base does not have is replaced. */
	for (size_t i = 0; !scalar && i < npf; i++) {
		const struct sl_ynode *pobj = object_in(pf[i], kind, name);
		const struct sl_ynode *pkey, *pnode = pobj ? walk(pobj, fd, &pkey) : NULL;
		if (pnode) {
			place_at(p, EXACT, pf[i], fd->key && pkey ? pkey : pnode);
			p->fixable = !fd->key && !bnode && obase && same_tree(pnode, want, true);
			return;
		}
	}
	if (replica_count(km, r, fd, name, p))
		return;
	if (bnode)
		place_at(p, FIELD_CHANGED, base, fd->key ? bkey : bnode);
	else if (obase)
		place_at(p, OBJECT, base, obase);
}

static struct sl_ystream *rendered_trees(struct kmap *km, const struct sl_kz_rendered *r)
{
	size_t i = (size_t)(r - km->ss->kz.rendered);
	struct sl_ystream *ys = &km->rendered[i];
	if (!ys->docs && !ys->n) {
		struct sl_findings errs = {0};
		sl_yaml_parse(r->src, ys, &errs);
		sl_findings_free(&errs);
	}
	return ys;
}

/* Where at (on a rendered source) goes; the kustomization file's 1:1 when nothing is found. */
static void map_span(struct kmap *km, const struct sl_span *at, struct place *p)
{
	memset(p, 0, sizeof *p);
	const struct sl_kz_rendered *r = sl_kz_rendered_of(&km->ss->kz, at->src);
	struct sl_ystream *ys = rendered_trees(km, r);
	for (size_t i = 0; i < ys->n; i++) {
		const struct sl_ynode *root = ys->docs[i].root;
		if (!root || at->off < root->at.off || at->off > root->at.end)
			continue;
		struct field fd = {.root = root};
		if (find_field(root, at->off, at->end, &fd))
			locate(km, r, &fd, p);
		/* An edit of part of a node, or around it, is not the node's. */
		p->fixable &= fd.node && fd.node->at.off == at->off && fd.node->at.end == at->end;
		break;
	}
	if (p->how != NOWHERE)
		return;
	const struct sl_kustomization *k = &km->ss->kz.v[r->k];
	char *abs = sl_xasprintf("%s/%s", strcmp(k->abs, "/") ? k->abs : "", k->file);
	struct kfile *f = file_at(km, abs);
	free(abs);
	if (f->src) {
		sl_source_span(f->src, 0, 0, &p->at);
		p->file = f->src->path;
	}
}

static bool rendered(const struct kmap *km, const struct sl_span *at)
{
	return at->src && sl_kz_rendered_of(&km->ss->kz, at->src);
}

/* A fix stays when each edit replaces a value found where it was rendered. */
static bool map_fix(struct kmap *km, struct sl_fix *fx)
{
	for (size_t e = 0; e < fx->nedits; e++) {
		struct sl_edit *ed = &fx->edits[e];
		if (!rendered(km, &ed->at))
			continue;
		if (ed->at.off == ed->at.end)
			return false;
		struct place p;
		map_span(km, &ed->at, &p);
		if (p.how != EXACT || !p.fixable || p.at.end == p.at.off)
			return false;
		ed->at = p.at;
	}
	return true;
}

static void map_finding(struct kmap *km, struct sl_finding *f)
{
	if (rendered(km, &f->at)) {
		struct place p;
		map_span(km, &f->at, &p);
		if (p.at.src)
			f->at = p.at;
		if (p.how == FIELD_CHANGED)
			sl_note(f,
				"kustomize changed this field after %s wrote it (a transformer or an inline patch): "
				"the line of the value checked could not be found",
				p.file);
		else if (p.how == OBJECT)
			sl_note(f,
				"the field is not written in %s (kustomize added or moved it): reported at the "
				"object it came from",
				p.file);
		else if (p.how == GENERATED)
			sl_note(f, "the object is made by a generator of %s: reported at that kustomization file",
				p.file);
		else if (p.how == NOWHERE)
			sl_note(f, "the object's origin could not be found among the kustomization's files: reported "
				   "at its kustomization file");
	}
	if (f->subj_src && sl_kz_rendered_of(&km->ss->kz, f->subj_src)) {
		struct sl_span s = {f->subj_src, f->subj_off, f->subj_off};
		struct place p;
		map_span(km, &s, &p);
		if (p.at.src) {
			f->subj_src = p.at.src;
			f->subj_off = p.at.off;
		}
	}
	for (size_t k = 0; k < f->nrelated; k++)
		if (rendered(km, &f->related[k].at)) {
			struct place p;
			map_span(km, &f->related[k].at, &p);
			if (p.at.src)
				f->related[k].at = p.at;
		}
	for (size_t k = 0; k < f->nsupp; k++)
		if (rendered(km, &f->supp[k].at)) {
			struct place p;
			map_span(km, &f->supp[k].at, &p);
			if (p.at.src)
				f->supp[k].at = p.at;
		}
	size_t kept = 0;
	for (size_t j = 0; j < f->nfixes; j++) {
		if (map_fix(km, &f->fixes[j]))
			f->fixes[kept++] = f->fixes[j];
		else
			sl_fix_free(&f->fixes[j]);
	}
	if (kept < f->nfixes)
		sl_note(f, "%s: it would edit what kustomize rendered, not a value written whole in one of its files",
			kept ? "a fix is left out" : "no fix is offered");
	f->nfixes = kept;
}

void sl_kz_map_findings(struct sl_sources *ss, struct sl_findings *fs, size_t from,
			void (*each_file)(void *ctx, const struct sl_source *src, const struct sl_ystream *ys),
			void *ctx)
{
	if (!ss->kz.nrendered)
		return;
	struct kmap km = {ss, NULL, 0, 0, sl_xcalloc(ss->kz.nrendered, sizeof *km.rendered)};
	for (size_t i = from; i < fs->n; i++)
		map_finding(&km, &fs->v[i]);
	for (size_t i = 0; i < km.n; i++) {
		if (each_file && km.files[i]->src)
			each_file(ctx, km.files[i]->src, &km.files[i]->ys);
		free(km.files[i]->abs);
		sl_ystream_free(&km.files[i]->ys);
		for (size_t p = 0; p < km.files[i]->npatches; p++)
			free(km.files[i]->patches[p]);
		free(km.files[i]->patches);
		free(km.files[i]);
	}
	free(km.files);
	for (size_t i = 0; i < ss->kz.nrendered; i++)
		sl_ystream_free(&km.rendered[i]);
	free(km.rendered);
}
