/* podspec.c — reading a pod spec as the scheduler sees it (see podspec.h), and matching its pod
 * (anti-)affinity terms against other pods. */
#include "podspec.h"

#include <stdlib.h>
#include <string.h>

#include "dra.h"
#include "model_read.h"
#include "namespace.h"

/* "<list>[<i>]<what>" in path, the place an error in a container is reported at: built with the
 * buffer API, not printf, as it is for every container read. */
static const char *container_path(struct sl_buf *path, const char *list, size_t i, const char *what)
{
	sl_buf_reset(path);
	sl_buf_puts(path, list);
	sl_buf_putc(path, '[');
	sl_buf_putu(path, i);
	sl_buf_putc(path, ']');
	sl_buf_puts(path, what);
	return sl_buf_str(path);
}

/* A container's resources (the container list[i]) as the API server keeps them, requests
 * defaulted to the limits they do not state; path is scratch space. */
static void container_res(struct sl_read *c, const struct sl_ynode *ctr, const char *list, size_t i,
			  struct sl_buf *path, struct sl_ctr_res *out)
{
	out->node = ctr;
	out->index = i;
	const struct sl_ynode *res = sl_read_want(c, ctr, "resources", SL_YMAP, "resources");
	/* A path is made only for a key that is there: it is needed only for an error in it. */
	const char *p;
	if (!sl_ynull(sl_ymap_get(res, "requests"))) {
		p = container_path(path, list, i, ".resources.requests");
		sl_read_reslist(c, sl_read_want(c, res, "requests", SL_YMAP, p), p, &out->req);
	}
	if (!sl_ynull(sl_ymap_get(res, "limits"))) {
		p = container_path(path, list, i, ".resources.limits");
		sl_read_reslist(c, sl_read_want(c, res, "limits", SL_YMAP, p), p, &out->lim);
	}
	for (size_t j = 0; j < out->lim.n; j++)
		if (!sl_res_find(&out->req, out->lim.v[j].name))
			sl_res_add(&out->req, out->lim.v[j].name, out->lim.v[j].amount, out->lim.v[j].node);
}

/* Every container and init container of spec (ctrs: its containers), in that order. */
static size_t read_containers(struct sl_read *c, const struct sl_ynode *spec, const struct sl_ynode *ctrs,
			      struct sl_ctr_res **out)
{
	const struct sl_ynode *inits = sl_read_want(c, spec, "initContainers", SL_YSEQ, "initContainers");
	size_t nc = ctrs ? ctrs->n : 0, n = 0;
	*out = sl_xcalloc(nc + (inits ? inits->n : 0) + 1, sizeof **out);
	struct sl_buf path = SL_BUF_INIT;
	for (int init = 0; init < 2; init++) {
		const struct sl_ynode *seq = init ? inits : ctrs;
		const char *list = init ? "initContainers" : "containers";
		for (size_t i = 0; seq && i < seq->n; i++) {
			if (seq->v[i]->kind != SL_YMAP) {
				sl_read_error(c, seq->v[i], "%s[%zu] must be a mapping, not %s", list, i,
					      sl_ykind_name(seq->v[i]));
				continue;
			}
			struct sl_ctr_res *r = &(*out)[n++];
			r->init = init;
			container_res(c, seq->v[i], list, i, &path, r);
			if (init && sl_yis(sl_ymap_get(seq->v[i], "restartPolicy"), "Always"))
				r->restart = sl_ymap_get(seq->v[i], "restartPolicy");
		}
	}
	sl_buf_free(&path);
	return n;
}

void sl_ctrs_free(struct sl_ctr_res *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sl_res_free(&v[i].req);
		sl_res_free(&v[i].lim);
	}
	free(v);
}

/* The sum over containers, raised to any init container's (init containers run one at a time
 * before the others), where restartable (sidecar) init containers keep running and so add to
 * everything after them; with legacy, as releases before 1.29 have it, where restartPolicy on an
 * init container is dropped and it is an init container like the others. */
void sl_ctrs_aggregate(const struct sl_ctr_res *v, size_t n, bool limits, bool legacy, struct sl_reslist *out)
{
	struct sl_reslist sidecars = {0}, initmax = {0};
	for (size_t i = 0; i < n; i++) {
		const struct sl_reslist *l = limits ? &v[i].lim : &v[i].req;
		if (!v[i].init || (v[i].restart && !legacy)) {
			for (size_t j = 0; j < l->n; j++)
				sl_res_add(out, l->v[j].name, l->v[j].amount, l->v[j].node);
			if (!v[i].init)
				continue;
			for (size_t j = 0; j < l->n; j++)
				sl_res_add(&sidecars, l->v[j].name, l->v[j].amount, l->v[j].node);
			for (size_t j = 0; j < sidecars.n; j++)
				sl_res_max(&initmax, sidecars.v[j].name, sidecars.v[j].amount, sidecars.v[j].node);
			continue;
		}
		struct sl_reslist r = {0};
		for (size_t j = 0; j < l->n; j++)
			sl_res_add(&r, l->v[j].name, l->v[j].amount, l->v[j].node);
		for (size_t j = 0; j < sidecars.n; j++)
			sl_res_add(&r, sidecars.v[j].name, sidecars.v[j].amount, NULL);
		for (size_t j = 0; j < r.n; j++)
			sl_res_max(&initmax, r.v[j].name, r.v[j].amount, r.v[j].node);
		sl_res_free(&r);
	}
	for (size_t j = 0; j < initmax.n; j++)
		sl_res_max(out, initmax.v[j].name, initmax.v[j].amount, initmax.v[j].node);
	sl_res_free(&initmax);
	sl_res_free(&sidecars);
}

/* The pod's effective request as the scheduler computes it from its containers v, plus the
 * RuntimeClass overhead ovh; with a sidecar, request_legacy as before 1.29. */
static void pod_request(const struct sl_ctr_res *v, size_t n, const struct sl_reslist *ovh, struct sl_podspec *pod)
{
	sl_res_free(&pod->request);
	sl_res_free(&pod->request_legacy);
	pod->sidecar = NULL;
	for (size_t i = 0; i < n && !pod->sidecar; i++)
		pod->sidecar = v[i].restart;
	sl_ctrs_aggregate(v, n, false, false, &pod->request);
	if (pod->sidecar)
		sl_ctrs_aggregate(v, n, false, true, &pod->request_legacy);
	for (size_t j = 0; j < ovh->n; j++) {
		sl_res_add(&pod->request, ovh->v[j].name, ovh->v[j].amount, ovh->v[j].node);
		if (pod->sidecar)
			sl_res_add(&pod->request_legacy, ovh->v[j].name, ovh->v[j].amount, ovh->v[j].node);
	}
}

/* A spec read again was read without an input error before: errs stays empty. */
size_t sl_podspec_containers(const struct sl_podspec *p, struct sl_ctr_res **out)
{
	struct sl_findings errs = {0};
	struct sl_read c = {NULL, &errs, 0};
	size_t n = read_containers(&c, p->node, p->containers_node, out);
	sl_findings_free(&errs);
	return n;
}

void sl_podspec_set_request(struct sl_podspec *p, const struct sl_ctr_res *v, size_t n)
{
	struct sl_findings errs = {0};
	struct sl_read c = {NULL, &errs, 0};
	struct sl_reslist ovh = {0};
	sl_read_reslist(&c, sl_read_want(&c, p->node, "overhead", SL_YMAP, "overhead"), "overhead", &ovh);
	pod_request(v, n, &ovh, p);
	sl_res_free(&ovh);
	sl_findings_free(&errs);
}

/* The pod's request from its containers and overhead, as pod_request makes it. Without init
 * containers (most pods) it is the plain sum, so each container is read into the same two
 * scratch lists and added in place: no list per container, which every pod of every file
 * would otherwise allocate and free. */
static void read_request(struct sl_read *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	struct sl_reslist ovh = {0};
	const struct sl_ynode *inits = sl_ymap_get(spec, "initContainers");
	if (!sl_ynull(inits)) {
		struct sl_ctr_res *ctrs;
		size_t nctrs = read_containers(c, spec, p->containers_node, &ctrs);
		sl_read_reslist(c, sl_read_want(c, spec, "overhead", SL_YMAP, "overhead"), "overhead", &ovh);
		pod_request(ctrs, nctrs, &ovh, p);
		sl_res_free(&ovh);
		sl_ctrs_free(ctrs, nctrs);
		return;
	}
	const struct sl_ynode *ctrs = p->containers_node;
	struct sl_ctr_res r = {0};
	struct sl_buf path = SL_BUF_INIT;
	for (size_t i = 0; ctrs && i < ctrs->n; i++) {
		if (ctrs->v[i]->kind != SL_YMAP) {
			sl_read_error(c, ctrs->v[i], "containers[%zu] must be a mapping, not %s", i,
				      sl_ykind_name(ctrs->v[i]));
			continue;
		}
		r.req.n = r.lim.n = 0;
		container_res(c, ctrs->v[i], "containers", i, &path, &r);
		for (size_t j = 0; j < r.req.n; j++)
			sl_res_add(&p->request, r.req.v[j].name, r.req.v[j].amount, r.req.v[j].node);
	}
	sl_buf_free(&path);
	sl_res_free(&r.req);
	sl_res_free(&r.lim);
	sl_read_reslist(c, sl_read_want(c, spec, "overhead", SL_YMAP, "overhead"), "overhead", &ovh);
	for (size_t j = 0; j < ovh.n; j++)
		sl_res_add(&p->request, ovh.v[j].name, ovh.v[j].amount, ovh.v[j].node);
	sl_res_free(&ovh);
}

static void parse_affinity(struct sl_read *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *aff = sl_read_want(c, spec, "affinity", SL_YMAP, "affinity");
	const struct sl_ynode *na = sl_read_want(c, aff, "nodeAffinity", SL_YMAP, "affinity.nodeAffinity");
	const struct sl_ynode *req = sl_read_want(c, na, "requiredDuringSchedulingIgnoredDuringExecution", SL_YMAP,
						  "nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
	if (!req)
		return;
	p->affinity_node = req;
	const struct sl_ynode *terms = sl_read_want(c, req, "nodeSelectorTerms", SL_YSEQ, "nodeSelectorTerms");
	p->has_required_affinity = terms != NULL; /* a missing list is rejected by the API server */
	if (!terms)
		return;
	p->terms = sl_xcalloc(terms->n, sizeof *p->terms);
	for (size_t i = 0; i < terms->n; i++) {
		const struct sl_ynode *t = terms->v[i];
		if (t->kind != SL_YMAP && !sl_ynull(t)) {
			sl_read_error(c, t, "nodeSelectorTerms[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
			continue;
		}
		struct sl_term *term = &p->terms[p->nterms++];
		term->node = t;
		sl_read_requirements(c, sl_read_want(c, t, "matchExpressions", SL_YSEQ, "matchExpressions"),
				     "matchExpressions", &term->exprs, &term->nexprs);
		sl_read_requirements(c, sl_read_want(c, t, "matchFields", SL_YSEQ, "matchFields"), "matchFields",
				     &term->fields, &term->nfields);
	}
}

/* A list of strings (namespaces, matchLabelKeys); entries that are not scalars are errors. */
static const char **parse_strings(struct sl_read *c, const struct sl_ynode *map, const char *key, size_t *n)
{
	*n = 0;
	const struct sl_ynode *seq = sl_read_want(c, map, key, SL_YSEQ, key);
	if (!seq)
		return NULL;
	const char **out = sl_xcalloc(seq->n + 1, sizeof *out);
	for (size_t i = 0; i < seq->n; i++) {
		if (seq->v[i]->kind != SL_YSCALAR || sl_ynull(seq->v[i])) {
			sl_read_error(c, seq->v[i], "%s[%zu] must be a string", key, i);
			continue;
		}
		out[(*n)++] = seq->v[i]->str;
	}
	return out;
}

/* What parse_podterms reads under affinity, and the paths its errors name: literal texts, not
 * formatted for every pod spec read. */
struct podterms_at {
	const char *which, *path, *req_path;
};
static const struct podterms_at pod_affinity = {"podAffinity", "affinity.podAffinity",
						"podAffinity.requiredDuringSchedulingIgnoredDuringExecution"};
static const struct podterms_at pod_anti_affinity = {"podAntiAffinity", "affinity.podAntiAffinity",
						     "podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution"};

static void parse_podterms(struct sl_read *c, const struct sl_ynode *aff, const struct podterms_at *w,
			   const struct sl_ynode **at, struct sl_podterm **out, uint32_t *n)
{
	const char *path = w->req_path;
	const struct sl_ynode *pa = sl_read_want(c, aff, w->which, SL_YMAP, w->path);
	const struct sl_ynode *req =
	    sl_read_want(c, pa, "requiredDuringSchedulingIgnoredDuringExecution", SL_YSEQ, path);
	*at = req;
	if (!req)
		return;
	*out = sl_xcalloc(req->n, sizeof **out);
	for (size_t i = 0; i < req->n; i++) {
		const struct sl_ynode *e = req->v[i];
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "%s[%zu] must be a mapping, not %s", path, i, sl_ykind_name(e));
			continue;
		}
		struct sl_podterm *t = &(*out)[(*n)++];
		t->node = e;
		sl_read_selector(c, sl_ymap_get(e, "labelSelector"), "labelSelector", &t->sel);
		t->namespaces = parse_strings(c, e, "namespaces", &t->nnamespaces);
		const struct sl_ynode *nss = sl_ymap_get(e, "namespaceSelector");
		t->has_ns_selector = !sl_ynull(nss);
		sl_read_selector(c, nss, "namespaceSelector", &t->ns_sel);
		t->topology_key = sl_read_str(c, e, "topologyKey", "topologyKey");
		if (!t->topology_key || !*t->topology_key) {
			sl_read_error(c, sl_ymap_get(e, "topologyKey") ? sl_ymap_get(e, "topologyKey") : e,
				      "%s[%zu].topologyKey is required", path, i);
			t->topology_key = "";
		}
		t->match_keys = parse_strings(c, e, "matchLabelKeys", &t->nmatch_keys);
		t->mismatch_keys = parse_strings(c, e, "mismatchLabelKeys", &t->nmismatch_keys);
	}
}

static void parse_spread(struct sl_read *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *seq =
	    sl_read_want(c, spec, "topologySpreadConstraints", SL_YSEQ, "topologySpreadConstraints");
	p->spread_node = seq;
	if (!seq)
		return;
	p->spread = sl_xcalloc(seq->n, sizeof *p->spread);
	for (size_t i = 0; i < seq->n; i++) {
		const struct sl_ynode *e = seq->v[i];
		if (e->kind != SL_YMAP) {
			sl_read_error(c, e, "topologySpreadConstraints[%zu] must be a mapping, not %s", i,
				      sl_ykind_name(e));
			continue;
		}
		struct sl_spread *t = &p->spread[p->nspread++];
		t->node = e;
		const struct sl_ynode *v = sl_ymap_get(e, "maxSkew");
		if (sl_ynull(v) || sl_yint(v, &t->max_skew) < 0 || t->max_skew < 1) {
			sl_read_error(c, v ? v : e,
				      "topologySpreadConstraints[%zu].maxSkew must be an integer of at least "
				      "1",
				      i);
			t->max_skew = 1;
		}
		v = sl_ymap_get(e, "minDomains");
		t->min_domains = 1;
		if (!sl_ynull(v) && (sl_yint(v, &t->min_domains) < 0 || t->min_domains < 1)) {
			sl_read_error(c, v,
				      "topologySpreadConstraints[%zu].minDomains must be an integer of at "
				      "least 1",
				      i);
			t->min_domains = 1;
		}
		t->topology_key = sl_read_str(c, e, "topologyKey", "topologyKey");
		if (!t->topology_key || !*t->topology_key) {
			sl_read_error(c, sl_ymap_get(e, "topologyKey") ? sl_ymap_get(e, "topologyKey") : e,
				      "topologySpreadConstraints[%zu].topologyKey is required", i);
			t->topology_key = "";
		}
		v = sl_ymap_get(e, "whenUnsatisfiable");
		if (sl_yis(v, "DoNotSchedule"))
			t->hard = true;
		else if (!sl_yis(v, "ScheduleAnyway"))
			sl_read_error(c, v ? v : e,
				      "topologySpreadConstraints[%zu].whenUnsatisfiable must be "
				      "DoNotSchedule or ScheduleAnyway",
				      i);
		v = sl_ymap_get(e, "nodeAffinityPolicy");
		t->honor_affinity = sl_ynull(v) || sl_yis(v, "Honor");
		if (!sl_ynull(v) && !sl_yis(v, "Honor") && !sl_yis(v, "Ignore"))
			sl_read_error(c, v, "nodeAffinityPolicy must be Honor or Ignore");
		v = sl_ymap_get(e, "nodeTaintsPolicy");
		t->honor_taints = sl_yis(v, "Honor");
		if (!sl_ynull(v) && !sl_yis(v, "Honor") && !sl_yis(v, "Ignore"))
			sl_read_error(c, v, "nodeTaintsPolicy must be Honor or Ignore");
		sl_read_selector(c, sl_ymap_get(e, "labelSelector"), "labelSelector", &t->sel);
		t->match_keys = parse_strings(c, e, "matchLabelKeys", &t->nmatch_keys);
	}
}

static void parse_volumes(struct sl_read *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *vols = sl_read_want(c, spec, "volumes", SL_YSEQ, "volumes");
	for (size_t i = 0; vols && i < vols->n; i++) {
		const struct sl_ynode *v = vols->v[i];
		if (v->kind != SL_YMAP) {
			sl_read_error(c, v, "volumes[%zu] must be a mapping, not %s", i, sl_ykind_name(v));
			continue;
		}
		const struct sl_ynode *pvc =
		    sl_read_want(c, v, "persistentVolumeClaim", SL_YMAP, "persistentVolumeClaim");
		const char *claim = sl_read_str(c, pvc, "claimName", "persistentVolumeClaim.claimName");
		if (!claim)
			continue;
		if (!p->volumes)
			p->volumes = sl_xcalloc(vols->n, sizeof *p->volumes);
		struct sl_volume *vol = &p->volumes[p->nvolumes++];
		vol->name = sl_read_str(c, v, "name", "volumes[].name");
		vol->claim = claim;
		vol->node = pvc;
		const struct sl_ynode *ro = sl_ymap_get(pvc, "readOnly");
		if (!sl_ynull(ro) && (ro->kind != SL_YSCALAR || sl_read_bool(ro, &vol->read_only) < 0))
			sl_read_error(c, ro, "persistentVolumeClaim.readOnly must be true or false");
	}
}

/* Ports the pod binds on its node. Under hostNetwork the API server defaults hostPort to
 * containerPort. Init containers' ports are not reserved by the scheduler. */
static void parse_ports(struct sl_read *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *ctrs = p->containers_node;
	bool host_net = false;
	const struct sl_ynode *hn = sl_ymap_get(spec, "hostNetwork");
	if (!sl_ynull(hn) && (hn->kind != SL_YSCALAR || sl_read_bool(hn, &host_net) < 0))
		sl_read_error(c, hn, "hostNetwork must be true or false");
	p->host_network = host_net;
	size_t cap = 0;
	for (size_t i = 0; ctrs && i < ctrs->n; i++) {
		const struct sl_ynode *ports = sl_read_want(c, ctrs->v[i], "ports", SL_YSEQ, "ports");
		for (size_t j = 0; ports && j < ports->n; j++) {
			const struct sl_ynode *e = ports->v[j];
			if (e->kind != SL_YMAP) {
				sl_read_error(c, e, "containers[%zu].ports[%zu] must be a mapping, not %s", i, j,
					      sl_ykind_name(e));
				continue;
			}
			const struct sl_ynode *hp = sl_ymap_get(e, "hostPort");
			if (sl_ynull(hp) && host_net)
				hp = sl_ymap_get(e, "containerPort");
			int64_t port = 0;
			if (sl_ynull(hp))
				continue;
			if (sl_yint(hp, &port) < 0 || port < 0 || port > 65535) {
				sl_read_error(c, hp,
					      "containers[%zu].ports[%zu]: a port must be an integer from 1 "
					      "to 65535",
					      i, j);
				continue;
			}
			if (port == 0)
				continue;
			sl_grow(&p->ports, &cap, p->nports + 1, sizeof *p->ports);
			struct sl_hostport *h = &p->ports[p->nports++];
			const char *s;
			h->port = port;
			h->node = hp;
			h->ip = (s = sl_read_str(c, e, "hostIP", "hostIP")) && *s ? s : "0.0.0.0";
			h->proto = (s = sl_read_str(c, e, "protocol", "protocol")) && *s ? s : "TCP";
		}
	}
}

static void parse_tolerations(struct sl_read *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	const struct sl_ynode *tols = sl_read_want(c, spec, "tolerations", SL_YSEQ, "tolerations");
	if (!tols)
		return;
	p->tols = sl_xcalloc(tols->n, sizeof *p->tols);
	for (size_t i = 0; i < tols->n; i++) {
		const struct sl_ynode *t = tols->v[i];
		if (t->kind != SL_YMAP) {
			sl_read_error(c, t, "tolerations[%zu] must be a mapping, not %s", i, sl_ykind_name(t));
			continue;
		}
		struct sl_toleration *to = &p->tols[p->ntols++];
		const char *s;
		to->node = t;
		to->key = (s = sl_read_str(c, t, "key", "toleration key")) ? s : "";
		to->op = (s = sl_read_str(c, t, "operator", "toleration operator")) ? s : "";
		to->value = (s = sl_read_str(c, t, "value", "toleration value")) ? s : "";
		to->effect = (s = sl_read_str(c, t, "effect", "toleration effect")) ? s : "";
	}
}

void sl_podspec_free(struct sl_podspec *p)
{
	sl_res_free(&p->request);
	sl_res_free(&p->request_legacy);
	sl_res_free(&p->pod_level);
	free(p->labels.v);
	free(p->node_selector.v);
	for (size_t i = 0; i < p->nterms; i++) {
		for (size_t j = 0; j < p->terms[i].nexprs; j++)
			free(p->terms[i].exprs[j].vals);
		for (size_t j = 0; j < p->terms[i].nfields; j++)
			free(p->terms[i].fields[j].vals);
		free(p->terms[i].exprs);
		free(p->terms[i].fields);
	}
	free(p->terms);
	free(p->tols);
	for (int k = 0; k < 2; k++) {
		struct sl_podterm *ts = k ? p->anti : p->affinity;
		size_t nt = k ? p->nanti : p->naffinity;
		for (size_t i = 0; i < nt; i++) {
			sl_selector_free(&ts[i].sel);
			sl_selector_free(&ts[i].ns_sel);
			free(ts[i].namespaces);
			free(ts[i].match_keys);
			free(ts[i].mismatch_keys);
		}
		free(ts);
	}
	for (size_t i = 0; i < p->nspread; i++) {
		sl_selector_free(&p->spread[i].sel);
		free(p->spread[i].match_keys);
	}
	free(p->spread);
	free(p->ports);
	free(p->volumes);
	free(p->defaulted);
	free(p->claims);
	memset(p, 0, sizeof *p);
}

/* priorityClassName, priority and preemptionPolicy as written; sl_model_resolve_priorities
 * resolves them once every PriorityClass is read. */
static void parse_priority(struct sl_read *c, const struct sl_ynode *spec, struct sl_podspec *p)
{
	p->priority_class = sl_read_str(c, spec, "priorityClassName", "priorityClassName");
	if (p->priority_class && !*p->priority_class)
		p->priority_class = NULL;
	p->priority_class_node = p->priority_class ? sl_ymap_get(spec, "priorityClassName") : NULL;
	const struct sl_ynode *v = sl_ymap_get(spec, "priority");
	if (!sl_ynull(v)) {
		if (sl_yint(v, &p->priority_given) != 0 || p->priority_given < INT32_MIN ||
		    p->priority_given > INT32_MAX)
			sl_read_error(c, v, "priority must be a 32-bit integer");
		else
			p->has_priority = true;
	}
	const struct sl_ynode *pol = sl_ymap_get(spec, "preemptionPolicy");
	if (sl_yis(pol, "Never"))
		p->preempt_given = -1;
	else if (sl_yis(pol, "PreemptLowerPriority"))
		p->preempt_given = 1;
	else if (!sl_ynull(pol))
		sl_read_error(c, pol, "preemptionPolicy must be PreemptLowerPriority or Never");
}

int sl_parse_podspec(const struct sl_source *src, const struct sl_ynode *spec, const char *ns,
		     const struct sl_ynode *labels, struct sl_podspec *p, struct sl_findings *errs)
{
	struct sl_read c = {src, errs, 0};
	memset(p, 0, sizeof *p);
	p->node = spec;
	p->namespace = ns;
	sl_read_labels(&c, labels, "labels", &p->labels);
	p->containers_node = sl_read_want(&c, spec, "containers", SL_YSEQ, "containers");
	read_request(&c, spec, p);
	p->node_selector_node = sl_read_want(&c, spec, "nodeSelector", SL_YMAP, "nodeSelector");
	sl_read_labels(&c, p->node_selector_node, "nodeSelector", &p->node_selector);
	parse_affinity(&c, spec, p);
	parse_tolerations(&c, spec, p);
	const struct sl_ynode *aff = sl_read_want(&c, spec, "affinity", SL_YMAP, "affinity");
	parse_podterms(&c, aff, &pod_affinity, &p->affinity_terms_node, &p->affinity, &p->naffinity);
	parse_podterms(&c, aff, &pod_anti_affinity, &p->anti_terms_node, &p->anti, &p->nanti);
	parse_spread(&c, spec, p);
	parse_ports(&c, spec, p);
	parse_volumes(&c, spec, p);
	p->node_name = sl_read_str(&c, spec, "nodeName", "nodeName");
	if (p->node_name && !*p->node_name)
		p->node_name = NULL;
	parse_priority(&c, spec, p);
	sl_pod_claims_read(&c, spec, "resourceClaims", &p->claims, &p->nclaims);
	return c.failed ? -1 : 0;
}

/* --- matching pod terms ---------------------------------------------------------------------- */

/* A namespace described by a Namespace object of the inputs is matched on its labels (bound to
 * the term by sl_model_bind_pods); any other carries only kubernetes.io/metadata.name as far as
 * a linter knows (the API server sets it since 1.22). */
static bool ns_selector_matches(const struct sl_podterm *t, const char *ns)
{
	size_t i = t->ns_index ? sl_strmap_get(t->ns_index, ns) : (size_t)-1;
	if (i != (size_t)-1)
		return sl_selector_matches(&t->ns_sel, &t->ns_known[i]->labels);
	struct sl_kv kv = {"kubernetes.io/metadata.name", ns, NULL, NULL};
	struct sl_labels l = {&kv, 1};
	return sl_selector_matches(&t->ns_sel, &l);
}

bool sl_podterm_matches(const struct sl_podterm *t, const char *owner_ns, const struct sl_labels *owner, const char *ns,
			const struct sl_labels *labels)
{
	bool ns_ok = false;
	if (!t->nnamespaces && !t->has_ns_selector)
		ns_ok = sl_streq(owner_ns, ns);
	for (size_t i = 0; i < t->nnamespaces && !ns_ok; i++)
		ns_ok = !strcmp(t->namespaces[i], ns);
	if (!ns_ok && t->has_ns_selector)
		ns_ok = ns_selector_matches(t, ns);
	if (!ns_ok || !sl_selector_matches(&t->sel, labels))
		return false;
	if (!sl_match_label_keys(t->match_keys, t->nmatch_keys, owner, labels))
		return false;
	for (size_t i = 0; i < t->nmismatch_keys; i++) {
		const char *v = sl_labels_get(owner, t->mismatch_keys[i]);
		const char *lv = sl_labels_get(labels, t->mismatch_keys[i]);
		if (v && lv && !strcmp(v, lv))
			return false;
	}
	return true;
}
