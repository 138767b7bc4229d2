/* dra_read.c — the parts of Dynamic Resource Allocation's objects several kinds share (see
 * dra_read.h), and a pod's claims (dra.h). The fields and what the API server rejects are
 * resource.k8s.io's types and pkg/apis/resource/validation: a request is named, names its
 * DeviceClass (or lists subrequests, firstAvailable), allocationMode is ExactCount (the default)
 * or All, count defaults to 1 (a count of 0 is defaulted to 1 before validation, as
 * SetDefaults_ExactDeviceRequest does; a negative one is rejected, and any count with All). A
 * device's attribute holds exactly one of int, bool, string and version; a capacity's value is a
 * quantity. */
#include "dra_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "model_read.h"
#include "quantity.h"

/* A field's path for messages into out (cut short if it must be: a message, not a key). */
__attribute__((format(printf, 3, 4))) static void pathf(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, n, fmt, ap);
	va_end(ap);
}

/* The value at key of map, of kind k; an error when absent (it is required) or of another kind. */
static const struct sl_ynode *need(struct sl_read *c, const struct sl_ynode *map, const char *key, enum sl_ykind k,
				   const char *path)
{
	const struct sl_ynode *v = sl_ymap_get(map, key);
	if (sl_ynull(v) || (v->kind == SL_YSCALAR && !*v->str)) {
		sl_read_error(c, map, "%s is required", path);
		return NULL;
	}
	return sl_read_want(c, map, key, k, path);
}

/* An item at path of a list of named mappings: whether it is a mapping (an error if not); a
 * missing name is an error too, and the item is still read. */
static bool named_item(struct sl_read *c, const struct sl_ynode *e, const char *path)
{
	if (e->kind != SL_YMAP) {
		sl_read_error(c, e, "%s must be a mapping, not %s", path, sl_ykind_name(e));
		return false;
	}
	char at[240];
	pathf(at, sizeof at, "%s.name", path);
	need(c, e, "name", SL_YSCALAR, at);
	return true;
}

/* Its name, NULL when it has none (named_item reported it). */
static const char *item_name(const struct sl_ynode *e)
{
	const struct sl_ynode *n = sl_ymap_get(e, "name");
	return sl_yscalar(n) && *n->str ? n->str : NULL;
}

void sl_dra_read_selectors(struct sl_read *c, const struct sl_ynode *seq, const char *path,
			   struct sl_dra_selector **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!seq || !seq->n)
		return;
	*out = sl_xcalloc(seq->n, sizeof **out);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		char at[224];
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(e));
			continue;
		}
		pathf(at, sizeof at, "%s[%zu].cel", path, i);
		const struct sl_ynode *cel = need(c, e, "cel", SL_YMAP, at);
		pathf(at, sizeof at, "%s[%zu].cel.expression", path, i);
		const struct sl_ynode *x = cel ? need(c, cel, "expression", SL_YSCALAR, at) : NULL;
		if (!x)
			continue;
		struct sl_dra_selector *s = &(*out)[(*n)++];
		s->expr = x->str;
		s->node = x;
	}
}

void sl_dra_selectors_free(struct sl_dra_selector *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sl_cel_free(s[i].cel);
	free(s);
}

/* allocationMode and count (validateDeviceAllocationMode, after defaulting). */
static void read_mode(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_dra_request *r)
{
	r->count = 1;
	const struct sl_ynode *mode = sl_ymap_get(m, "allocationMode");
	if (sl_yis(mode, "All"))
		r->all = true;
	else if (!sl_ynull(mode) && !sl_yis(mode, "ExactCount"))
		sl_read_error(c, mode, "%s.allocationMode must be ExactCount or All%s%s", path,
			      sl_yscalar(mode) ? ", not " : "", sl_yscalar(mode) ? mode->str : "");
	const struct sl_ynode *cn = sl_ymap_get(m, "count");
	int64_t v;
	if (r->all)
		r->count = 0;
	if (sl_ynull(cn))
		return;
	if (sl_yint(cn, &v) < 0)
		sl_read_error(c, cn, "%s.count must be an integer", path);
	else if (r->all && v != 0)
		sl_read_error(c, cn, "%s.count must not be specified when allocationMode is 'All'", path);
	else if (!r->all && v < 0)
		sl_read_error(c, cn, "%s.count must be greater than zero", path);
	else if (!r->all && v > 0)
		r->count = v;
}

/* What a request with a class holds (v1's ExactDeviceRequest, a DeviceSubRequest, v1beta1's
 * DeviceRequest without firstAvailable): m the mapping that holds it. */
static void read_exact(struct sl_read *c, const struct sl_ynode *m, const char *path, struct sl_dra_request *r)
{
	char at[224];
	pathf(at, sizeof at, "%s.deviceClassName", path);
	const struct sl_ynode *cls = need(c, m, "deviceClassName", SL_YSCALAR, at);
	r->class_name = cls ? cls->str : NULL;
	r->class_node = cls;
	pathf(at, sizeof at, "%s.selectors", path);
	sl_dra_read_selectors(c, sl_read_want(c, m, "selectors", SL_YSEQ, at), at, &r->selectors, &r->nselectors);
	read_mode(c, m, path, r);
	const struct sl_ynode *aa = sl_ymap_get(m, "adminAccess");
	if (!sl_ynull(aa) && (aa->kind != SL_YSCALAR || sl_read_bool(aa, &r->admin_access) < 0))
		sl_read_error(c, aa, "%s.adminAccess must be true or false", path);
	static const char *const unmodelled[] = {"tolerations", "capacity"};
	for (size_t i = 0; i < 2 && !r->unmodelled; i++)
		if (!sl_ynull(sl_ymap_get(m, unmodelled[i])))
			r->unmodelled = sl_ymap_key(m, unmodelled[i]);
}

/* A name given twice among items[0 .. n) of a list at path (the API's Duplicate value). */
static void unique_names(struct sl_read *c, const struct sl_dra_request *v, size_t n, const char *path)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (v[i].name && v[j].name && !strcmp(v[i].name, v[j].name)) {
				sl_read_error(c, sl_ymap_get(v[i].node, "name"), "%s: request name %s is given twice",
					      path, v[i].name);
				break;
			}
}

static void read_subs(struct sl_read *c, const struct sl_ynode *seq, const char *path, struct sl_dra_request *r)
{
	r->sub = sl_xcalloc(seq->n, sizeof *r->sub);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		char at[224];
		pathf(at, sizeof at, "%s.firstAvailable[%zu]", path, i);
		if (!named_item(c, e, at))
			continue;
		struct sl_dra_request *s = &r->sub[r->nsub++];
		s->node = e;
		s->name = item_name(e);
		read_exact(c, e, at, s);
	}
	unique_names(c, r->sub, r->nsub, path);
}

/* spec.devices.requests[i]: v1 and v1beta2 hold its fields under exactly or list firstAvailable
 * (exactly one of them); v1beta1 has them on the request itself, or firstAvailable instead of a
 * deviceClassName. */
static void read_request(struct sl_read *c, const struct sl_ynode *e, const char *path, enum sl_dra_version v,
			 struct sl_dra_request *r)
{
	char at[224];
	r->node = e;
	pathf(at, sizeof at, "%s.name", path);
	const struct sl_ynode *name = need(c, e, "name", SL_YSCALAR, at);
	r->name = name ? name->str : NULL;
	pathf(at, sizeof at, "%s.firstAvailable", path);
	const struct sl_ynode *first = sl_read_want(c, e, "firstAvailable", SL_YSEQ, at);
	if (first && !first->n)
		first = NULL;
	const char *one = v == SL_DRA_V1BETA1 ? "deviceClassName" : "exactly";
	const struct sl_ynode *exact = v == SL_DRA_V1BETA1 ? sl_ymap_get(e, "deviceClassName") : NULL;
	if (v != SL_DRA_V1BETA1) {
		pathf(at, sizeof at, "%s.exactly", path);
		exact = sl_read_want(c, e, "exactly", SL_YMAP, at);
	} else if (sl_ynull(exact))
		exact = NULL;
	if (exact && first) {
		sl_read_error(c, e, "%s: exactly one of %s and firstAvailable may be given, not both", path, one);
		return;
	}
	if (!exact && !first) {
		sl_read_error(c, e, "%s: exactly one of %s and firstAvailable is required", path, one);
		return;
	}
	if (first)
		read_subs(c, first, path, r);
	else if (v == SL_DRA_V1BETA1)
		read_exact(c, e, path, r);
	else {
		pathf(at, sizeof at, "%s.exactly", path);
		read_exact(c, exact, at, r);
	}
}

void sl_dra_read_claim_spec(struct sl_read *c, const struct sl_ynode *spec, const char *path, enum sl_dra_version v,
			    struct sl_dra_claim_spec *out)
{
	char at[224];
	memset(out, 0, sizeof *out);
	pathf(at, sizeof at, "%s.devices", path);
	const struct sl_ynode *dev = sl_read_want(c, spec, "devices", SL_YMAP, at);
	pathf(at, sizeof at, "%s.devices.requests", path);
	const struct sl_ynode *reqs = sl_read_want(c, dev, "requests", SL_YSEQ, at);
	pathf(at, sizeof at, "%s.devices.constraints", path);
	const struct sl_ynode *cons = sl_read_want(c, dev, "constraints", SL_YSEQ, at);
	out->constraints = cons && cons->n ? cons->v[0] : NULL;
	if (!reqs || !reqs->n)
		return;
	out->requests = sl_xcalloc(reqs->n, sizeof *out->requests);
	for (size_t i = 0; i < reqs->n; i++) {
		const struct sl_ynode *e = reqs->v[i];
		pathf(at, sizeof at, "%s.devices.requests[%zu]", path, i);
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "%s must be a mapping, not %s", at, sl_ykind_name(e));
			continue;
		}
		read_request(c, e, at, v, &out->requests[out->nrequests++]);
	}
	pathf(at, sizeof at, "%s.devices.requests", path);
	unique_names(c, out->requests, out->nrequests, at);
}

static void request_free(struct sl_dra_request *r)
{
	sl_dra_selectors_free(r->selectors, r->nselectors);
	for (size_t i = 0; i < r->nsub; i++)
		request_free(&r->sub[i]);
	free(r->sub);
}

void sl_dra_claim_spec_free(struct sl_dra_claim_spec *s)
{
	for (size_t i = 0; i < s->nrequests; i++)
		request_free(&s->requests[i]);
	free(s->requests);
	memset(s, 0, sizeof *s);
}

/* --- a ResourceSlice's devices ----------------------------------------------------------------- */

/* A qualified name ("domain/name", or a bare name in the driver's domain) split: the domain is
 * copied to *buf (advanced past it), the name is the key's own tail. */
static void qualify(const struct sl_ynode *k, const char *driver, char **buf, const char **domain, const char **name)
{
	const char *slash = memchr(k->str, '/', k->len);
	if (!slash) {
		*domain = driver;
		*name = k->str;
		return;
	}
	size_t n = (size_t)(slash - k->str);
	memcpy(*buf, k->str, n);
	(*buf)[n] = 0;
	*domain = *buf;
	*buf += n + 1;
	*name = slash + 1;
}

static void read_attr(struct sl_read *c, const struct sl_ynode *v, const char *path, const char *key,
		      struct sl_cel_attr *a)
{
	static const char *const kinds[] = {"int", "bool", "string", "version"};
	const struct sl_ynode *val = NULL;
	int given = 0;
	for (int k = 0; k < 4; k++)
		if (!sl_ynull(sl_ymap_get(v, kinds[k]))) {
			given++;
			a->kind = (enum sl_cel_kind)k;
			val = sl_ymap_get(v, kinds[k]);
		}
	if (given != 1) {
		sl_read_error(c, v, "%s.attributes[%s] must hold exactly one of int, bool, string and version", path,
			      key);
		return;
	}
	if (val->kind != SL_YSCALAR)
		sl_read_error(c, val, "%s.attributes[%s].%s must be a scalar, not %s", path, key, kinds[a->kind],
			      sl_ykind_name(val));
	else if (a->kind == SL_CEL_INT && sl_yint(val, &a->i) < 0)
		sl_read_error(c, val, "%s.attributes[%s].int must be an integer", path, key);
	else if (a->kind == SL_CEL_BOOL && sl_read_bool(val, &a->b) < 0)
		sl_read_error(c, val, "%s.attributes[%s].bool must be true or false", path, key);
	else
		a->s = val->str;
}

static void read_cap(struct sl_read *c, const struct sl_ynode *v, const char *path, const char *key,
		     struct sl_cel_cap *cap)
{
	char at[256];
	pathf(at, sizeof at, "%s.capacity[%s].value", path, key);
	const struct sl_ynode *val = need(c, v, "value", SL_YSCALAR, at);
	const char *why = NULL;
	if (val && sl_qty_parse(val->str, &cap->value, &why) < 0)
		sl_read_error(c, val, "%s: \"%s\" is not a quantity (%s)", at, val->str, why ? why : "malformed");
}

/* A device's attributes and capacity (maps of qualified names), from body: the device, or its
 * basic in v1beta1. */
static void read_device_maps(struct sl_read *c, const struct sl_ynode *body, const char *path, const char *driver,
			     struct sl_dra_device *d)
{
	char at[224];
	pathf(at, sizeof at, "%s.attributes", path);
	const struct sl_ynode *attrs = sl_read_want(c, body, "attributes", SL_YMAP, at);
	pathf(at, sizeof at, "%s.capacity", path);
	const struct sl_ynode *caps = sl_read_want(c, body, "capacity", SL_YMAP, at);
	size_t room = 1;
	for (int m = 0; m < 2; m++) {
		const struct sl_ynode *map = m ? caps : attrs;
		for (size_t i = 0; map && i < map->n; i++)
			room += map->v[2 * i]->kind == SL_YSCALAR ? map->v[2 * i]->len + 1 : 0;
	}
	char *buf = d->domains = sl_xcalloc(room, 1);
	d->attrs = attrs ? sl_xcalloc(attrs->n + 1, sizeof *d->attrs) : NULL;
	d->caps = caps ? sl_xcalloc(caps->n + 1, sizeof *d->caps) : NULL;
	for (int m = 0; m < 2; m++) {
		const struct sl_ynode *map = m ? caps : attrs;
		for (size_t i = 0; map && i < map->n; i++) {
			const struct sl_ynode *k = map->v[2 * i], *v = map->v[2 * i + 1];
			if (k->kind != SL_YSCALAR || v->kind != SL_YMAP) {
				const struct sl_ynode *bad = k->kind != SL_YSCALAR ? k : v;
				sl_read_error(c, bad, "%s.%s: keys must be names and values mappings, not %s", path,
					      m ? "capacity" : "attributes", sl_ykind_name(bad));
				continue;
			}
			if (m) {
				struct sl_cel_cap *cap = &d->caps[d->cel.ncaps++];
				qualify(k, driver, &buf, &cap->domain, &cap->name);
				read_cap(c, v, path, k->str, cap);
			} else {
				struct sl_cel_attr *a = &d->attrs[d->cel.nattrs++];
				qualify(k, driver, &buf, &a->domain, &a->name);
				read_attr(c, v, path, k->str, a);
			}
		}
	}
	d->cel.attrs = d->attrs;
	d->cel.caps = d->caps;
}

void sl_dra_read_devices(struct sl_read *c, const struct sl_ynode *seq, enum sl_dra_version v, const char *driver,
			 struct sl_resource_slice *s)
{
	if (!seq || !seq->n)
		return;
	s->devices = sl_xcalloc(seq->n, sizeof *s->devices);
	/* Per-device node selection, taints, shared counters, binding conditions: read by the
	 * allocator, not modelled here (the engine's note names the first). */
	static const char *const unmodelled[] = {
	    "taints",           "nodeName",    "nodeSelector",      "allNodes",
	    "consumesCounters", "bindsToNode", "bindingConditions", "allowMultipleAllocations"};
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		char at[224], nm[240];
		pathf(at, sizeof at, "spec.devices[%zu]", i);
		if (!named_item(c, e, at))
			continue;
		struct sl_dra_device *d = &s->devices[s->ndevices++];
		d->node = e;
		d->name = item_name(e);
		d->cel.driver = driver;
		const struct sl_ynode *body = e;
		if (v == SL_DRA_V1BETA1) {
			pathf(nm, sizeof nm, "%s.basic", at);
			body = sl_read_want(c, e, "basic", SL_YMAP, nm);
			pathf(at, sizeof at, "spec.devices[%zu].basic", i);
		}
		read_device_maps(c, body, at, driver, d);
		for (size_t k = 0; body && !d->unmodelled && k < sizeof unmodelled / sizeof *unmodelled; k++)
			if (!sl_ynull(sl_ymap_get(body, unmodelled[k])))
				d->unmodelled = sl_ymap_key(body, unmodelled[k]);
	}
}

void sl_dra_devices_free(struct sl_dra_device *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].attrs);
		free(d[i].caps);
		free(d[i].domains);
	}
	free(d);
}

/* --- a pod's claims ---------------------------------------------------------------------------- */

/* Whether seq (spec.resourceClaims) has an entry named name. */
static bool claim_named(const struct sl_ynode *seq, const char *name)
{
	for (size_t i = 0; seq && seq->kind == SL_YSEQ && i < seq->n; i++)
		if (sl_yis(sl_ymap_get(seq->v[i], "name"), name))
			return true;
	return false;
}

static void read_pod_claim(struct sl_read *c, const struct sl_ynode *e, const char *path, size_t i,
			   struct sl_pod_claim *pc)
{
	char at[224];
	pc->node = e;
	pathf(at, sizeof at, "%s[%zu].name", path, i);
	const struct sl_ynode *name = need(c, e, "name", SL_YSCALAR, at);
	pc->name = name ? name->str : NULL;
	/* 1.26–1.27 wrote the reference under source: (the API server of those releases). */
	const struct sl_ynode *holder = e, *src = sl_ymap_get(e, "source");
	if (src && src->kind == SL_YMAP && sl_ynull(sl_ymap_get(e, "resourceClaimName")) &&
	    sl_ynull(sl_ymap_get(e, "resourceClaimTemplateName")))
		holder = src;
	const struct sl_ynode *cn = sl_ymap_get(holder, "resourceClaimName"),
			      *tn = sl_ymap_get(holder, "resourceClaimTemplateName");
	pathf(at, sizeof at, "%s[%zu].resourceClaimName", path, i);
	pc->claim_name = sl_read_str(c, holder, "resourceClaimName", at);
	pathf(at, sizeof at, "%s[%zu].resourceClaimTemplateName", path, i);
	pc->template_name = sl_read_str(c, holder, "resourceClaimTemplateName", at);
	if (pc->claim_name && !*pc->claim_name)
		pc->claim_name = NULL;
	if (pc->template_name && !*pc->template_name)
		pc->template_name = NULL;
	pc->ref_node = pc->claim_name ? cn : pc->template_name ? tn : NULL;
	if (pc->claim_name && pc->template_name)
		sl_read_error(c, e,
			      "%s[%zu] names both resourceClaimName and resourceClaimTemplateName: the API server "
			      "accepts exactly one",
			      path, i);
	else if (!pc->claim_name && !pc->template_name && (sl_ynull(cn) || cn->kind == SL_YSCALAR) &&
		 (sl_ynull(tn) || tn->kind == SL_YSCALAR))
		sl_read_error(c, e,
			      "%s[%zu] names neither resourceClaimName nor resourceClaimTemplateName: the API server "
			      "requires one",
			      path, i);
}

/* The containers' (and init containers') resources.claims: each names an entry of
 * spec.resourceClaims (validateResourceClaimNames: "must be one of the names in
 * pod.spec.resourceClaims"). */
static void check_container_claims(struct sl_read *c, const struct sl_ynode *spec, const struct sl_ynode *seq)
{
	static const char *const lists[] = {"containers", "initContainers"};
	for (int l = 0; l < 2; l++) {
		const struct sl_ynode *ctrs = sl_ymap_get(spec, lists[l]);
		for (size_t i = 0; ctrs && ctrs->kind == SL_YSEQ && i < ctrs->n; i++) {
			const struct sl_ynode *res = sl_ymap_get(ctrs->v[i], "resources");
			const struct sl_ynode *cl = res && res->kind == SL_YMAP ? sl_ymap_get(res, "claims") : NULL;
			if (sl_ynull(cl))
				continue;
			if (cl->kind != SL_YSEQ) {
				sl_read_error(c, cl, "%s[%zu].resources.claims must be a list, not %s", lists[l], i,
					      sl_ykind_name(cl));
				continue;
			}
			for (size_t j = 0; j < cl->n; j++) {
				const struct sl_ynode *name = sl_ymap_get(cl->v[j], "name");
				if (!sl_yscalar(name) || !*name->str)
					sl_read_error(c, cl->v[j], "%s[%zu].resources.claims[%zu].name is required",
						      lists[l], i, j);
				else if (!claim_named(seq, name->str))
					sl_read_error(
					    c, name,
					    "%s[%zu].resources.claims[%zu]: %s is no entry of "
					    "spec.resourceClaims (the API server rejects the pod: must be one "
					    "of the names in pod.spec.resourceClaims)",
					    lists[l], i, j, name->str);
			}
		}
	}
}

void sl_pod_claims_read(struct sl_read *c, const struct sl_ynode *spec, const char *path, struct sl_pod_claim **claims,
			uint32_t *nclaims)
{
	*claims = NULL;
	*nclaims = 0;
	const struct sl_ynode *seq = sl_read_want(c, spec, "resourceClaims", SL_YSEQ, path);
	for (size_t i = 0; seq && i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(e));
			continue;
		}
		if (!*claims)
			*claims = sl_xcalloc(seq->n, sizeof **claims);
		struct sl_pod_claim *pc = &(*claims)[(*nclaims)++];
		read_pod_claim(c, e, path, i, pc);
		for (size_t j = 0; pc->name && j + 1 < *nclaims; j++)
			if ((*claims)[j].name && !strcmp((*claims)[j].name, pc->name)) {
				sl_read_error(c, sl_ymap_get(e, "name"), "%s[%zu]: the name %s is given twice", path, i,
					      pc->name);
				break;
			}
	}
	check_container_claims(c, spec, seq);
}

void sl_pod_claims_status(struct sl_read *c, const struct sl_ynode *status, struct sl_pod_claim *claims, size_t nclaims)
{
	const struct sl_ynode *seq =
	    sl_read_want(c, status, "resourceClaimStatuses", SL_YSEQ, "status.resourceClaimStatuses");
	for (size_t i = 0; seq && i < seq->n; i++) {
		const struct sl_ynode *name = sl_ymap_get(seq->v[i], "name"),
				      *gen = sl_ymap_get(seq->v[i], "resourceClaimName");
		if (!sl_yscalar(name) || !sl_yscalar(gen) || !*gen->str)
			continue; /* none made (a claim not needed): the status says so with no name */
		for (size_t j = 0; j < nclaims; j++)
			if (claims[j].name && !strcmp(claims[j].name, name->str))
				claims[j].generated = gen->str;
	}
}
