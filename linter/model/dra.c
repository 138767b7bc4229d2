/* dra.c — Dynamic Resource Allocation's objects in the model (see dra.h): reading DeviceClasses,
 * ResourceClaimTemplates, ResourceClaims and ResourceSlices, what a release keeps of them, their
 * indexes and the lookups. The shared parts (requests, selectors, devices, a pod's claims):
 * dra_read.c.
 *
 * Which release has what (pkg/features/kube_features.go and the group's versions): the
 * DynamicResourceAllocation gate is alpha from 1.26, beta and off by default in 1.32–1.33, GA and
 * on from 1.34 (locked on from 1.35); off, the API server drops a pod's spec.resourceClaims and its
 * containers' resources.claims. resource.k8s.io/v1beta1 comes with 1.32, v1beta2 with 1.33, v1
 * with 1.34 (the beta versions served where the cluster enables them; the older alphas, v1alpha2
 * and v1alpha3, have other shapes and are not read). */
#include "dra.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "dra_read.h"
#include "model.h"
#include "model_read.h"
#include "storage.h"

#define POD_CLAIM_NAME "resource.kubernetes.io/pod-claim-name"

static enum sl_dra_version version_of(const struct sl_object *o)
{
	const char *v = o->api_version;
	if (!v || strncmp(v, "resource.k8s.io/", 16))
		return SL_DRA_UNKNOWN;
	v += 16;
	return !strcmp(v, "v1")        ? SL_DRA_V1
	       : !strcmp(v, "v1beta2") ? SL_DRA_V1BETA2
	       : !strcmp(v, "v1beta1") ? SL_DRA_V1BETA1
				       : SL_DRA_UNKNOWN;
}

/* The first release that has each version (enum sl_dra_version's order). */
static const int version_since[] = {32, 33, 34};

bool sl_dra_kind(const struct sl_object *o)
{
	const char *k = o->kind;
	return (!strcmp(k, "ResourceClaim") || !strcmp(k, "ResourceClaimTemplate") || !strcmp(k, "ResourceSlice") ||
		!strcmp(k, "DeviceClass")) &&
	       sl_object_in_group(o, "resource.k8s.io");
}

static void class_free(struct sl_device_class *v)
{
	sl_dra_selectors_free(v->selectors, v->nselectors);
	free(v);
}

static void template_free(struct sl_claim_template *v)
{
	sl_dra_claim_spec_free(&v->spec);
	free(v);
}

static void claim_free(struct sl_resource_claim *v)
{
	sl_dra_claim_spec_free(&v->spec);
	free(v->results);
	sl_node_terms_free(v->node_terms, v->nnode_terms);
	free(v->reserved);
	free(v);
}

static void slice_free(struct sl_resource_slice *v)
{
	sl_node_terms_free(v->node_terms, v->nnode_terms);
	sl_dra_devices_free(v->devices, v->ndevices);
	free(v);
}

/* Append x to d's array f (growing capf, counting nf). */
#define PUSH(f, x)                                                                                                     \
	do {                                                                                                           \
		sl_grow(&d->f, &d->cap##f, d->n##f + 1, sizeof *d->f);                                                 \
		d->f[d->n##f++] = (x);                                                                                 \
	} while (0)

static int read_class(struct sl_read *c, const struct sl_object *o, struct sl_dra *d)
{
	struct sl_device_class *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	sl_dra_read_selectors(c, sl_read_want(c, spec, "selectors", SL_YSEQ, "spec.selectors"), "spec.selectors",
			      &v->selectors, &v->nselectors);
	if (c->failed) {
		class_free(v);
		return -1;
	}
	PUSH(classes, v);
	return 0;
}

static int read_template(struct sl_read *c, const struct sl_object *o, enum sl_dra_version ver, struct sl_dra *d)
{
	struct sl_claim_template *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	sl_dra_read_claim_spec(c, sl_read_want(c, spec, "spec", SL_YMAP, "spec.spec"), "spec.spec", ver, &v->spec);
	if (c->failed) {
		template_free(v);
		return -1;
	}
	PUSH(templates, v);
	return 0;
}

/* status.allocation: the devices allocated and the nodes they are reachable from. */
static void read_allocation(struct sl_read *c, const struct sl_ynode *alloc, struct sl_resource_claim *v)
{
	v->allocated = true;
	const struct sl_ynode *dev = sl_read_want(c, alloc, "devices", SL_YMAP, "status.allocation.devices");
	const struct sl_ynode *res = sl_read_want(c, dev, "results", SL_YSEQ, "status.allocation.devices.results");
	for (size_t i = 0; res && i < res->n; i++) {
		const struct sl_ynode *e = res->v[i];
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "status.allocation.devices.results[%zu] must be a mapping, not %s", i,
				      sl_ykind_name(e));
			continue;
		}
		if (!v->results)
			v->results = sl_xcalloc(res->n, sizeof *v->results);
		struct sl_dra_result *r = &v->results[v->nresults++];
		r->node = e;
		r->request = sl_read_str(c, e, "request", "status.allocation.devices.results[].request");
		r->driver = sl_read_str(c, e, "driver", "status.allocation.devices.results[].driver");
		r->pool = sl_read_str(c, e, "pool", "status.allocation.devices.results[].pool");
		r->device = sl_read_str(c, e, "device", "status.allocation.devices.results[].device");
	}
	const struct sl_ynode *ns = sl_read_want(c, alloc, "nodeSelector", SL_YMAP, "status.allocation.nodeSelector");
	if (!ns)
		return;
	v->has_node_selector = true;
	sl_read_node_terms(
	    c, sl_read_want(c, ns, "nodeSelectorTerms", SL_YSEQ, "status.allocation.nodeSelector.nodeSelectorTerms"),
	    "status.allocation.nodeSelector.nodeSelectorTerms", &v->node_terms, &v->nnode_terms);
}

/* metadata: being deleted, and whether the resourceclaim controller made it for a pod. */
static void read_claim_meta(struct sl_read *c, const struct sl_ynode *md, struct sl_resource_claim *v)
{
	v->deleting = !sl_ynull(sl_ymap_get(md, "deletionTimestamp"));
	const struct sl_ynode *owners = sl_read_want(c, md, "ownerReferences", SL_YSEQ, "metadata.ownerReferences");
	for (size_t i = 0; owners && i < owners->n; i++) {
		const struct sl_ynode *e = owners->v[i], *ctl = sl_ymap_get(e, "controller");
		bool yes = false;
		if (sl_yis(sl_ymap_get(e, "kind"), "Pod") && sl_yscalar(ctl) && sl_read_bool(ctl, &yes) == 0 && yes &&
		    sl_yscalar(sl_ymap_get(e, "name")))
			v->owner_pod = sl_ymap_get(e, "name")->str;
	}
	const struct sl_ynode *ann = sl_ymap_get(sl_ymap_get(md, "annotations"), POD_CLAIM_NAME);
	if (sl_yscalar(ann) && *ann->str)
		v->pod_claim_name = ann->str;
}

static int read_claim(struct sl_read *c, const struct sl_object *o, enum sl_dra_version ver, struct sl_dra *d)
{
	struct sl_resource_claim *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	sl_dra_read_claim_spec(c, sl_read_want(c, o->root, "spec", SL_YMAP, "spec"), "spec", ver, &v->spec);
	const struct sl_ynode *st = sl_read_want(c, o->root, "status", SL_YMAP, "status");
	const struct sl_ynode *alloc = sl_read_want(c, st, "allocation", SL_YMAP, "status.allocation");
	if (alloc)
		read_allocation(c, alloc, v);
	const struct sl_ynode *rf = sl_read_want(c, st, "reservedFor", SL_YSEQ, "status.reservedFor");
	if (rf && rf->n)
		v->reserved = sl_xcalloc(rf->n, sizeof *v->reserved);
	for (size_t i = 0; rf && i < rf->n; i++) {
		const struct sl_ynode *name = sl_ymap_get(rf->v[i], "name");
		if (sl_yscalar(name))
			v->reserved[v->nreserved++] = name->str;
	}
	read_claim_meta(c, sl_ymap_get(o->root, "metadata"), v);
	if (c->failed) {
		claim_free(v);
		return -1;
	}
	PUSH(claims, v);
	return 0;
}

/* A boolean field of m that is true; an error when it is no boolean. */
static bool flag(struct sl_read *c, const struct sl_ynode *m, const char *key, const char *path)
{
	const struct sl_ynode *n = sl_ymap_get(m, key);
	bool b = false;
	if (!sl_ynull(n) && (n->kind != SL_YSCALAR || sl_read_bool(n, &b) < 0))
		sl_read_error(c, n, "%s must be true or false", path);
	return b;
}

/* spec.pool: name, generation, resourceSliceCount (validatePool). */
static void read_pool(struct sl_read *c, const struct sl_ynode *spec, struct sl_resource_slice *v)
{
	const struct sl_ynode *pool = sl_read_want(c, spec, "pool", SL_YMAP, "spec.pool");
	if (!pool) {
		sl_read_error(c, spec, "spec.pool is required");
		return;
	}
	v->pool = sl_read_str(c, pool, "name", "spec.pool.name");
	if (!v->pool || !*v->pool)
		sl_read_error(c, pool, "spec.pool.name is required");
	const struct sl_ynode *g = sl_ymap_get(pool, "generation"), *n = sl_ymap_get(pool, "resourceSliceCount");
	if (!sl_ynull(g) && (sl_yint(g, &v->pool_generation) < 0 || v->pool_generation < 0))
		sl_read_error(c, g, "spec.pool.generation must be an integer of 0 or more");
	if (sl_ynull(n) || sl_yint(n, &v->pool_slices) < 0 || v->pool_slices <= 0)
		sl_read_error(c, sl_ynull(n) ? pool : n, "spec.pool.resourceSliceCount must be an integer above 0");
}

static int read_slice(struct sl_read *c, const struct sl_object *o, enum sl_dra_version ver, struct sl_dra *d)
{
	struct sl_resource_slice *v = sl_xcalloc(1, sizeof *v);
	v->obj = *o;
	const struct sl_ynode *spec = sl_read_want(c, o->root, "spec", SL_YMAP, "spec");
	if (!spec)
		sl_read_error(c, o->kind_node, "ResourceSlice %s has no spec (it is required)", o->name);
	v->driver = sl_read_str(c, spec, "driver", "spec.driver");
	if (spec && (!v->driver || !*v->driver))
		sl_read_error(c, spec, "spec.driver is required");
	if (spec)
		read_pool(c, spec, v);
	v->node_name = sl_read_str(c, spec, "nodeName", "spec.nodeName");
	if (v->node_name && !*v->node_name)
		v->node_name = NULL;
	const struct sl_ynode *ns = sl_read_want(c, spec, "nodeSelector", SL_YMAP, "spec.nodeSelector");
	if (ns) {
		v->has_node_selector = true;
		sl_read_node_terms(
		    c, sl_read_want(c, ns, "nodeSelectorTerms", SL_YSEQ, "spec.nodeSelector.nodeSelectorTerms"),
		    "spec.nodeSelector.nodeSelectorTerms", &v->node_terms, &v->nnode_terms);
	}
	v->all_nodes = flag(c, spec, "allNodes", "spec.allNodes");
	v->per_device_nodes = flag(c, spec, "perDeviceNodeSelection", "spec.perDeviceNodeSelection");
	if (spec && (v->node_name != NULL) + v->has_node_selector + v->all_nodes + v->per_device_nodes != 1)
		sl_read_error(c, spec,
			      "spec: exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection is "
			      "required");
	sl_dra_read_devices(c, sl_read_want(c, spec, "devices", SL_YSEQ, "spec.devices"), ver, v->driver, v);
	if (c->failed) {
		slice_free(v);
		return -1;
	}
	PUSH(slices, v);
	return 0;
}

int sl_dra_read(struct sl_read *c, const struct sl_object *o, struct sl_dra *d)
{
	/* Without a name it is no object the API server keeps: left out, as a RuntimeClass is. */
	if (!o->name || !*o->name)
		return 0;
	enum sl_dra_version v = version_of(o);
	if (v == SL_DRA_UNKNOWN) {
		const struct sl_ynode *at = sl_ymap_get(o->root, "apiVersion");
		sl_input_note(c->errs, at ? &at->at : &o->kind_node->at,
			      "%s %s is not read: schedlint reads resource.k8s.io/v1, v1beta2 and v1beta1, not %s",
			      o->kind, o->name, o->api_version);
		return 0;
	}
	if (!strcmp(o->kind, "DeviceClass"))
		return read_class(c, o, d);
	if (!strcmp(o->kind, "ResourceClaimTemplate"))
		return read_template(c, o, v, d);
	if (!strcmp(o->kind, "ResourceClaim"))
		return read_claim(c, o, v, d);
	return read_slice(c, o, v, d);
}

/* --- the release's view, indexes, lookups -------------------------------------------------------- */

/* Whether the release serves o's version; else a warning at its apiVersion, and it is left out. */
static bool served(const struct sl_object *o, int minor, struct sl_findings *errs)
{
	int since = version_since[version_of(o)];
	if (minor >= since)
		return true;
	const struct sl_ynode *at = sl_ymap_get(o->root, "apiVersion");
	sl_input_warning(errs, at ? &at->at : &o->kind_node->at,
			 "Kubernetes 1.%d does not serve %s (it comes with 1.%d): %s %s is left out, as the API "
			 "server would refuse it",
			 minor, o->api_version, since, o->kind, o->name);
	return false;
}

/* Keep the objects of arr[0 .. n) the release serves (freeing the others with free_one). */
#define KEEP_SERVED(arr, n, free_one)                                                                                  \
	do {                                                                                                           \
		size_t kept_ = 0;                                                                                      \
		for (size_t i_ = 0; i_ < (n); i_++) {                                                                  \
			if (served(&(arr)[i_]->obj, minor, errs))                                                      \
				(arr)[kept_++] = (arr)[i_];                                                            \
			else                                                                                           \
				free_one((arr)[i_]);                                                                   \
		}                                                                                                      \
		(n) = kept_;                                                                                           \
	} while (0)

static void drop_claims(struct sl_podspec *p)
{
	free(p->claims);
	p->claims = NULL;
	p->nclaims = 0;
}

/* A template's claims on a release whose API server drops them: a warning at spec.resourceClaims. */
static void dropped_claims(const struct sl_model *m, const struct sl_podspec *p, struct sl_findings *errs)
{
	const struct sl_ynode *at = sl_ymap_get(p->node, "resourceClaims");
	if (sl_ynull(at))
		return;
	const struct sl_gates *g = &m->gates;
	enum sl_gate gate = SL_GATE_DYNAMIC_RESOURCE_ALLOCATION;
	int minor = m->kube.minor;
	char why[192];
	if (g->v[gate] < 0 && minor >= sl_gate_infos[gate].since)
		snprintf(why, sizeof why, "DynamicResourceAllocation=false, %s",
			 g->from[gate] ? g->from[gate] : "--feature-gates");
	else if (minor < sl_gate_infos[gate].since)
		snprintf(why, sizeof why, "DynamicResourceAllocation comes with 1.%d and is on by default from 1.%d",
			 sl_gate_infos[gate].since, sl_gate_infos[gate].on_since);
	else
		snprintf(why, sizeof why,
			 "DynamicResourceAllocation is off by default before 1.%d; --feature-gates "
			 "DynamicResourceAllocation=true turns it on",
			 sl_gate_infos[gate].on_since);
	sl_input_warning(errs, &at->at,
			 "spec.resourceClaims has no effect on Kubernetes 1.%d: its API server drops it and the "
			 "containers' resources.claims (%s); the pods claim no devices",
			 minor, why);
}

void sl_dra_apply_version(struct sl_model *m, struct sl_findings *errs)
{
	struct sl_dra *d = &m->dra;
	int minor = m->kube.minor;
	KEEP_SERVED(d->classes, d->nclasses, class_free);
	KEEP_SERVED(d->templates, d->ntemplates, template_free);
	KEEP_SERVED(d->claims, d->nclaims, claim_free);
	KEEP_SERVED(d->slices, d->nslices, slice_free);
	if (!sl_gate_on(&m->gates, SL_GATE_DYNAMIC_RESOURCE_ALLOCATION, minor)) {
		for (size_t i = 0; i < m->nworkloads; i++) {
			dropped_claims(m, &m->workloads[i]->pod, errs);
			drop_claims(&m->workloads[i]->pod);
		}
		for (size_t i = 0; i < m->npods; i++) /* running pods: the cluster as it is, silently */
			drop_claims(&m->pods[i]->spec);
	}
	sl_dra_bind(d, errs);
}

/* "namespace\x1fname", interned in d->keys. */
static const char *ns_key(struct sl_dra *d, const struct sl_object *o)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_printf(&b, "%s\x1f%s", o->namespace, o->name);
	const char *k = sl_intern(&d->keys, b.s);
	sl_buf_free(&b);
	return k;
}

/* The key of a namespaced object of d (in sl_dra_bind). */
#define NS_KEY(x) ns_key(d, &(x)->obj)

static void parse_selectors(struct sl_dra_selector *s, size_t n, struct sl_findings *errs)
{
	for (size_t i = 0; i < n; i++) {
		struct sl_cel_error e = {0, ""};
		s[i].cel = sl_cel_parse(s[i].expr, strlen(s[i].expr), &e);
		if (!s[i].cel && errs)
			sl_input_error(errs, &s[i].node->at, "the selector is no CEL expression: %s (at character %zu)",
				       e.msg, e.offset + 1);
	}
}

static void parse_spec(struct sl_dra_claim_spec *s, struct sl_findings *errs)
{
	for (size_t i = 0; i < s->nrequests; i++) {
		struct sl_dra_request *r = &s->requests[i];
		parse_selectors(r->selectors, r->nselectors, errs);
		for (size_t j = 0; j < r->nsub; j++)
			parse_selectors(r->sub[j].selectors, r->sub[j].nselectors, errs);
	}
}

void sl_dra_bind(struct sl_dra *d, struct sl_findings *errs)
{
	if (d->bound)
		return;
	d->bound = true;
	SL_KEEP_LAST_BY_NAME(d->classes, d->nclasses, &d->class_index, class_free);
	SL_KEEP_LAST_BY_NAME(d->slices, d->nslices, &d->slice_index, slice_free);
	SL_KEEP_LAST_BY_KEY(d->templates, d->ntemplates, &d->template_index, NS_KEY, template_free);
	SL_KEEP_LAST_BY_KEY(d->claims, d->nclaims, &d->claim_index, NS_KEY, claim_free);
	for (size_t i = 0; i < d->nclasses; i++)
		parse_selectors(d->classes[i]->selectors, d->classes[i]->nselectors, errs);
	for (size_t i = 0; i < d->ntemplates; i++)
		parse_spec(&d->templates[i]->spec, errs);
	for (size_t i = 0; i < d->nclaims; i++)
		parse_spec(&d->claims[i]->spec, errs);
}

const struct sl_device_class *sl_dra_class(const struct sl_dra *d, const char *name)
{
	size_t i = sl_strmap_get(&d->class_index, name);
	return i == (size_t)-1 ? NULL : d->classes[i];
}

/* The entry of index for ns/name. */
static size_t find_key(const struct sl_strmap *index, const char *ns, const char *name)
{
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_printf(&b, "%s\x1f%s", ns, name);
	size_t i = sl_strmap_get(index, b.s);
	sl_buf_free(&b);
	return i;
}

const struct sl_claim_template *sl_dra_template(const struct sl_dra *d, const char *ns, const char *name)
{
	size_t i = find_key(&d->template_index, ns, name);
	return i == (size_t)-1 ? NULL : d->templates[i];
}

const struct sl_resource_claim *sl_dra_claim(const struct sl_dra *d, const char *ns, const char *name)
{
	size_t i = find_key(&d->claim_index, ns, name);
	return i == (size_t)-1 ? NULL : d->claims[i];
}

void sl_dra_merge(struct sl_dra *d, struct sl_dra *part)
{
/* Append part's array f to d's, and free part's. */
#define APPEND(f)                                                                                                      \
	do {                                                                                                           \
		sl_grow(&d->f, &d->cap##f, d->n##f + part->n##f, sizeof *d->f);                                        \
		if (part->n##f)                                                                                        \
			memcpy(d->f + d->n##f, part->f, part->n##f * sizeof *d->f);                                    \
		d->n##f += part->n##f;                                                                                 \
		free(part->f);                                                                                         \
	} while (0)
	APPEND(classes);
	APPEND(templates);
	APPEND(claims);
	APPEND(slices);
#undef APPEND
	memset(part, 0, sizeof *part);
}

void sl_dra_free(struct sl_dra *d)
{
	for (size_t i = 0; i < d->nclasses; i++)
		class_free(d->classes[i]);
	for (size_t i = 0; i < d->ntemplates; i++)
		template_free(d->templates[i]);
	for (size_t i = 0; i < d->nclaims; i++)
		claim_free(d->claims[i]);
	for (size_t i = 0; i < d->nslices; i++)
		slice_free(d->slices[i]);
	free(d->classes);
	free(d->templates);
	free(d->claims);
	free(d->slices);
	sl_strmap_free(&d->class_index);
	sl_strmap_free(&d->template_index);
	sl_strmap_free(&d->claim_index);
	sl_strmap_free(&d->slice_index);
	sl_strpool_free(&d->keys);
	memset(d, 0, sizeof *d);
}
