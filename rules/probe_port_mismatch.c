/* probe-port-mismatch — a probe names a port its container does not declare.
 *
 * An httpGet or tcpSocket probe's `port` is a number or a name. The kubelet resolves a name in
 * the ports of the probe's own container, and nowhere else (pkg/probe/util.go
 * ResolveContainerPort, findPortByName; a string of digits is taken as the number). A name it
 * cannot find is an error on every run of the probe, and an error is a failure
 * (pkg/kubelet/prober/prober.go): a readiness probe keeps the pod from ever being Ready, so a
 * rollout never finishes and a Service never sends it traffic; a startup probe fails until its
 * failureThreshold and the container is restarted, over and over; a liveness probe restarts it
 * every failureThreshold × periodSeconds, forever. A number the container does not declare is not
 * a finding: declaring a port is informational, the process may listen on it anyway.
 *
 * A grpc probe takes a number only; the API server rejects a name there. Probes are checked in
 * the containers and in the sidecar init containers (restartPolicy: Always), the only ones that
 * may have them. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/base/similar.h"
#include "../linter/load/input.h"
#include "edits.h"
#include "rules.h"

static const char *const probes[] = {"readinessProbe", "startupProbe", "livenessProbe"};
static const char *const handlers[] = {"httpGet", "tcpSocket", "grpc"};

static bool digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The port entry of ports (a container's) named name, or NULL. */
static const struct sl_ynode *port_named(const struct sl_ynode *ports, const char *name)
{
	for (uint32_t i = 0; ports && ports->kind == SL_YSEQ && i < ports->n; i++)
		if (sl_yis(sl_ymap_get(ports->v[i], "name"), name))
			return ports->v[i];
	return NULL;
}

/* A name as a scalar in the source's style: JSON and quoted YAML keep their quotes; a plain YAML
 * scalar YAML 1.1 would read as a boolean or null is quoted. */
static void scalar_text(const struct sl_source *src, const struct sl_ynode *at, const char *name, char *out, size_t n)
{
	static const char *const typed[] = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"};
	const char *d = sl_source_text(src); /* NULL: the fix goes (sl_source_text) */
	char q = d ? d[at->at.off] : 0;
	bool quote = q == '"' || q == '\'';
	for (size_t i = 0; !quote && i < sizeof typed / sizeof *typed; i++)
		quote = !strcmp(name, typed[i]);
	if (quote)
		snprintf(out, n, "%c%s%c", q == '\'' ? '\'' : '"', name, q == '\'' ? '\'' : '"');
	else
		snprintf(out, n, "%s", name);
}

struct probe_ref {
	const char *container, *probe, *handler;
	const struct sl_ynode *port;       /* the probe's port value */
	const struct sl_ynode *ports;      /* the container's ports, or NULL */
	const struct sl_ynode *containers; /* every container of the pod, to find the name elsewhere */
	bool sidecar;
};

/* Declared names of the container, most like the wanted one first: replace the probe's port by
 * each (at most three). An unnamed port of the container may be given the name instead. */
static void offer_fixes(struct sl_finding *f, const struct sl_source *src, const struct probe_ref *r,
			const char *other_port)
{
	const struct sl_ynode *ports = r->ports;
	const char *want = r->port->str;
	const struct sl_ynode *named[3] = {0};
	unsigned dist[3] = {0};
	size_t nnamed = 0, nunnamed = 0;
	const struct sl_ynode *unnamed = NULL;
	for (uint32_t i = 0; ports && ports->kind == SL_YSEQ && i < ports->n; i++) {
		const struct sl_ynode *name = sl_ymap_get(ports->v[i], "name");
		if (sl_ynull(name) || !sl_yscalar(name)) {
			nunnamed++;
			unnamed = ports->v[i];
			continue;
		}
		unsigned d = sl_edit_distance(want, name->str, 16); /* port names have at most 15 */
		size_t k = nnamed < 3 ? nnamed++ : 3;
		while (k > 0 && dist[k - 1] > d) {
			if (k < 3)
				named[k] = named[k - 1], dist[k] = dist[k - 1];
			k--;
		}
		if (k < 3)
			named[k] = ports->v[i], dist[k] = d;
	}
	char text[64], desc[160];
	if (other_port) {
		snprintf(desc, sizeof desc,
			 "Use port %s (the containers of a pod share its network, so the kubelet reaches it)",
			 other_port);
		sl_fix_replace(sl_fix_new(f, desc), src, r->port, other_port);
	}
	for (size_t i = 0; i < nnamed; i++) {
		const struct sl_ynode *name = sl_ymap_get(named[i], "name");
		const struct sl_ynode *num = sl_ymap_get(named[i], "containerPort");
		snprintf(desc, sizeof desc, "Use the declared port \"%s\"%s%s%s", name->str,
			 num ? " (containerPort " : "", num && sl_yscalar(num) ? num->str : "", num ? ")" : "");
		scalar_text(src, r->port, name->str, text, sizeof text);
		sl_fix_replace(sl_fix_new(f, desc), src, r->port, text);
	}
	/* One unnamed port: the name is most likely meant for it. */
	if (nunnamed == 1 && strlen(want) <= 15) {
		const struct sl_ynode *num = sl_ymap_get(unnamed, "containerPort");
		snprintf(desc, sizeof desc, "Name containerPort %s \"%s\"", num && sl_yscalar(num) ? num->str : "",
			 want);
		scalar_text(src, r->port, want, text, sizeof text);
		struct sl_yentry e = {"name", text, NULL, 0};
		sl_fix_insert(sl_fix_new(f, desc), src, unnamed, NULL, &e, 1);
	}
}

static const char *consequence(const char *probe, const char *kind)
{
	bool served = !strcmp(kind, "Pod");
	if (!strcmp(probe, "readinessProbe"))
		return served ? "the pod is never Ready: a Service never sends it traffic"
			      : "its pods are never Ready: a rollout never finishes, and a Service never sends them "
				"traffic";
	if (!strcmp(probe, "startupProbe"))
		return "the container is restarted each time the probe reaches its failureThreshold, forever, and "
		       "the pod is never Ready";
	return "the kubelet restarts the container each time the probe reaches its failureThreshold, forever "
	       "(CrashLoopBackOff)";
}

/* The first other container of the pod that declares the name, and its containerPort. */
static const struct sl_ynode *declared_elsewhere(const struct probe_ref *r, const char **owner)
{
	const struct sl_ynode *cs = r->containers;
	for (uint32_t i = 0; cs && cs->kind == SL_YSEQ && i < cs->n; i++) {
		const struct sl_ynode *name = sl_ymap_get(cs->v[i], "name");
		if (sl_yis(name, r->container))
			continue;
		const struct sl_ynode *p = port_named(sl_ymap_get(cs->v[i], "ports"), r->port->str);
		if (p) {
			*owner = sl_yscalar(name) ? name->str : "?";
			return p;
		}
	}
	return NULL;
}

static void report(const struct sl_rule *self, struct sl_check *cx, const struct probe_ref *r)
{
	const struct sl_workload *w = cx->w;
	char ref[512];
	sl_object_ref(&w->obj, ref, sizeof ref);
	struct sl_finding *f = sl_rule_report(
	    self, cx, r->port,
	    "%s of %scontainer %s probes port \"%s\", which the container does not declare: the kubelet cannot "
	    "resolve the name and the probe fails every time, so %s",
	    r->probe, r->sidecar ? "sidecar " : "", r->container, r->port->str, consequence(r->probe, w->obj.kind));
	sl_note(f, "a named port is looked up in the ports of the probe's own container only (%s.%s.port)", r->probe,
		r->handler);
	const char *owner = NULL;
	const struct sl_ynode *other = declared_elsewhere(r, &owner);
	const struct sl_ynode *num = other ? sl_ymap_get(other, "containerPort") : NULL;
	const char *other_port = num && sl_yscalar(num) && digits(num->str) ? num->str : NULL;
	if (other)
		sl_note(f, "container %s declares \"%s\"%s%s, but another container's names do not count", owner,
			r->port->str, other_port ? " as containerPort " : "", other_port ? other_port : "");
	offer_fixes(f, w->obj.src, r, other_port);
	if (f->nfixes)
		sl_note(f, "fix: %c%s", tolower((unsigned char)f->fixes[0].desc[0]), f->fixes[0].desc + 1);
	else
		sl_note(f,
			"fix: declare the port, `ports: [{name: %s, containerPort: N}]` with the port the process "
			"listens on, or probe that number",
			r->port->str);
	if (r->ports)
		sl_add_related(f, &r->ports->at, "the ports container %s declares", r->container);
	if (other)
		sl_add_related(f, &other->at, "container %s declares \"%s\"", owner, r->port->str);
	sl_add_related(f, &(w->obj.kind_node ? w->obj.kind_node : w->obj.root)->at, "%s", ref);
}

/* grpc.port is an int32: a name is refused by the API server, wherever it is declared. */
static void report_grpc(const struct sl_rule *self, struct sl_check *cx, const struct probe_ref *r)
{
	const struct sl_ynode *declared = port_named(r->ports, r->port->str);
	const struct sl_ynode *num = declared ? sl_ymap_get(declared, "containerPort") : NULL;
	struct sl_finding *f =
	    sl_rule_report(self, cx, r->port,
			   "%s of %scontainer %s gives grpc.port as the name \"%s\": a grpc probe takes "
			   "a port number, and the API server rejects the %s",
			   r->probe, r->sidecar ? "sidecar " : "", r->container, r->port->str, cx->w->obj.kind);
	if (num && sl_yscalar(num) && digits(num->str)) {
		sl_note(f, "fix: grpc.port: %s, the containerPort the container names \"%s\"", num->str, r->port->str);
		char desc[96];
		snprintf(desc, sizeof desc, "Use port %s (named \"%s\")", num->str, r->port->str);
		sl_fix_replace(sl_fix_new(f, desc), cx->w->obj.src, r->port, num->str);
	} else
		sl_note(f, "fix: grpc.port takes the number the gRPC server listens on");
}

static void check_container(const struct sl_rule *self, struct sl_check *cx, const struct sl_ynode *c,
			    const struct sl_ynode *containers, bool sidecar)
{
	const struct sl_ynode *name = sl_ymap_get(c, "name");
	struct probe_ref r = {
	    sl_yscalar(name) ? name->str : "?", NULL, NULL, NULL, sl_ymap_get(c, "ports"), containers, sidecar};
	for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
		const struct sl_ynode *probe = sl_ymap_get(c, probes[i]);
		for (size_t k = 0; probe && k < sizeof handlers / sizeof *handlers; k++) {
			const struct sl_ynode *port = sl_ymap_get(sl_ymap_get(probe, handlers[k]), "port");
			/* A number, written as one or as a string of digits, is resolved as is. */
			if (!sl_yscalar(port) || sl_ynull(port) || digits(port->str) ||
			    (port->plain && sl_yint(port, &(int64_t){0}) == 0))
				continue;
			r.probe = probes[i];
			r.handler = handlers[k];
			r.port = port;
			if (!strcmp(handlers[k], "grpc"))
				report_grpc(self, cx, &r);
			else if (!port_named(r.ports, port->str))
				report(self, cx, &r);
		}
	}
}

static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_podspec *p = &cx->w->pod;
	const struct sl_ynode *cs = p->containers_node;
	for (uint32_t i = 0; cs && cs->kind == SL_YSEQ && i < cs->n; i++)
		check_container(self, cx, cs->v[i], cs, false);
	const struct sl_ynode *init = sl_ymap_get(p->node, "initContainers");
	for (uint32_t i = 0; init && init->kind == SL_YSEQ && i < init->n; i++)
		if (sl_yis(sl_ymap_get(init->v[i], "restartPolicy"), "Always"))
			check_container(self, cx, init->v[i], cs, true);
}

const struct sl_rule sl_rule_probe_port_mismatch = {
    .id = "probe-port-mismatch",
    .name = "ProbePortNotDeclared",
    .summary = "A probe names a port its container does not declare: the probe fails every time.",
    .description = "A readiness, startup or liveness probe (httpGet or tcpSocket) gives its port as a name, and the "
		   "probe's own container declares no port of that name. The kubelet resolves named ports in that "
		   "container's ports only; a name it cannot find makes every run of the probe fail. A readiness probe "
		   "then keeps the pod from ever being Ready, so a rollout never finishes; a startup or liveness probe "
		   "restarts the container forever. A number that is not declared is not reported: the process may "
		   "listen on it anyway.",
    .help = "Probe a port the container declares (by its name or its number), or add the name to the "
	    "container's port: `ports: [{name: http, containerPort: 8080}]`.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
