/* treeneed.c — what of a manifest's trees the load keeps (see treeneed.h). */
#include "treeneed.h"

#include <string.h>

#include "../load/yamldoc.h"
#include "object.h"
#include "storage.h"
#include "workload.h"

/* Whether s is the literal t, compared in place: inline, a key that differs early (most do) costs
 * a few instructions where a call to strcmp cost a few dozen, for every key and mapping filtered. */
static inline bool eq(const char *s, const char *t)
{
	while (*t && *s == *t)
		s++, t++;
	return *s == *t;
}

static bool is(const char *s, const char *t)
{
	return s && eq(s, t);
}

/* resource.k8s.io's kinds (dra.c tells them by their group too). */
static bool dra_kind(const char *k)
{
	return !strncmp(k, "Resource", 8) ? eq(k + 8, "Claim") || eq(k + 8, "ClaimTemplate") || eq(k + 8, "Slice")
					  : eq(k, "DeviceClass");
}

/* The kinds load_object reads from manifests, and so points into the trees of. */
static bool model_kind(const char *k)
{
	return sl_workload_kind(k) || eq(k, "JobSet") || eq(k, "Node") || eq(k, "Namespace") || eq(k, "NodePool") ||
	       eq(k, "PersistentVolumeClaim") || eq(k, "PodDisruptionBudget") || eq(k, "PriorityClass") ||
	       eq(k, "Service") || eq(k, "PodGroup") || eq(k, "ClusterQueue") || eq(k, "LocalQueue") ||
	       eq(k, "Workload") || eq(k, "ResourceFlavor") || eq(k, "LimitRange") || eq(k, "ResourceQuota") ||
	       eq(k, "RuntimeClass") || sl_storage_kind(k) || dra_kind(k);
}

static void need_object(void *arg, const struct sl_object *o)
{
	struct sl_tree_need *t = arg;
	t->yes = t->yes || model_kind(o->kind) || (t->readers->object && t->readers->object(t->readers->ctx, o));
}

static bool autoscaler(const struct sl_ynode *n)
{
	const struct sl_ynode *k = sl_ymap_get(n, "kind");
	return sl_yis(k, "HorizontalPodAutoscaler") || sl_yis(k, "ScaledObject");
}

/* Whether a manifest document's tree is kept: it holds an object of the model (load_hpas finds
 * autoscalers in any document's items), or another reader needs it. */
bool sl_tree_needed(void *arg, const struct sl_ydoc *doc)
{
	struct sl_tree_need *t = arg;
	t->yes = t->all;
	t->object |= sl_manifest_is_object(doc->root);
	if (t->braces)
		sl_manifest_braces_doc(doc->src, doc->root, &t->br);
	sl_doc_objects(doc, need_object, t);
	const struct sl_ynode *items = sl_ymap_get(doc->root, "items");
	for (size_t i = 0; !t->yes && items && items->kind == SL_YSEQ && i < items->n; i++)
		t->yes = autoscaler(items->v[i]);
	return t->yes || autoscaler(doc->root);
}

/* A container's probe, or the handler (httpGet, tcpSocket, grpc) of one: only a handler's port is
 * read (a named port must be declared), not the probe's timings, command, path or headers. */
static bool probe(const char *in)
{
	switch (in ? *in : 0) { /* asked of every key and mapping filtered: one byte tells most */
	case 'r':
		return eq(in, "readinessProbe");
	case 'l':
		return eq(in, "livenessProbe");
	case 's':
		return eq(in, "startupProbe");
	default:
		return false;
	}
}

static bool handler(const char *in)
{
	switch (in ? *in : 0) {
	case 'h':
		return eq(in, "httpGet");
	case 't':
		return eq(in, "tcpSocket");
	case 'g':
		return eq(in, "grpc");
	default:
		return false;
	}
}

/* Keys of a spec nothing reads. object_key: a Service's own fields (only its selector is read)
 * and an autoscaler's metrics and tuning (HorizontalPodAutoscaler, KEDA's ScaledObject: only the
 * bounds and the target are read); no other kind holds these in its spec. pod_key: a pod spec's
 * that bear on neither scheduling nor rollouts (identity, DNS, security, the host's namespaces).
 * Neither mapping is one a fix inserts into: a workload's spec is, and holds none of these keys.
 * A pod spec's first key is kept whatever it is: a finding about the template points at it. */
static bool object_key(const char *k)
{
	switch (*k) { /* asked of every key of every object's spec: a byte or two tell most */
	case 'p':
		return eq(k, "ports") || eq(k, "publishNotReadyAddresses") || eq(k, "pollingInterval");
	case 't':
		return k[1] == 'y'   ? eq(k, "type")
		       : k[1] == 'r' ? eq(k, "trafficDistribution") || eq(k, "triggers")
				     : false;
	case 'c':
		return k[1] == 'l' ? eq(k, "clusterIP") || eq(k, "clusterIPs") : eq(k, "cooldownPeriod");
	case 's':
		return k[1] == 'e' && !strncmp(k, "sessionAffinity", 15) && (!k[15] || eq(k + 15, "Config"));
	case 'i':
		return k[1] == 'p' ? eq(k, "ipFamilies") || eq(k, "ipFamilyPolicy") : eq(k, "internalTrafficPolicy");
	case 'e':
		return k[1] == 'x' && (eq(k, "externalTrafficPolicy") || eq(k, "externalIPs") || eq(k, "externalName"));
	case 'l':
		return !strncmp(k, "loadBalancer", 12) &&
		       (eq(k + 12, "IP") || eq(k + 12, "SourceRanges") || eq(k + 12, "Class"));
	case 'h':
		return eq(k, "healthCheckNodePort");
	case 'a':
		return k[1] == 'l' ? eq(k, "allocateLoadBalancerNodePorts") : eq(k, "advanced");
	case 'm':
		return eq(k, "metrics");
	case 'b':
		return eq(k, "behavior");
	case 'f':
		return eq(k, "fallback");
	default:
		return false;
	}
}

static bool pod_key(const char *k)
{
	switch (*k) { /* the keys read (schedulerName, hostNetwork, restartPolicy…) differ early */
	case 's':
		return k[1] == 'e' ? eq(k, "securityContext") || eq(k, "serviceAccountName") ||
					 eq(k, "serviceAccount") || eq(k, "setHostnameAsFQDN")
		       : k[1] == 'u' ? eq(k, "subdomain")
		       : k[1] == 'h' ? eq(k, "shareProcessNamespace")
				     : false;
	case 'a':
		return k[1] == 'u' && eq(k, "automountServiceAccountToken");
	case 't':
		return k[1] == 'e' && eq(k, "terminationGracePeriodSeconds");
	case 'd':
		return k[1] == 'n' && (eq(k, "dnsPolicy") || eq(k, "dnsConfig"));
	case 'i':
		return k[1] == 'm' && eq(k, "imagePullSecrets");
	case 'e':
		return k[1] == 'n' && eq(k, "enableServiceLinks");
	case 'h':
		return !strncmp(k, "host", 4) &&
		       (eq(k + 4, "name") || eq(k + 4, "Aliases") || eq(k + 4, "PID") || eq(k + 4, "IPC"));
	case 'r':
		return k[1] == 'e' && k[2] == 'a' && eq(k, "readinessGates");
	default:
		return false;
	}
}

/* Entries of a manifest neither the model nor a rule or a fix reads (sl_yfilter.unread): in a
 * container all but its name, resources, ports, restartPolicy and probes (env, mounts…); in a
 * probe all but its handler's port; in a volume all but its name and claim; preferred (not
 * required) affinity; in a spec, object_key's and (unless first) pod_key's; an object's
 * managedFields, and unless first its server-set identity (uid, resourceVersion…); in an
 * object's status all but a Pod's phase and a Node's allocatable, capacity and nodeInfo, a
 * ResourceClaim's allocation and reservedFor and a Pod's resourceClaimStatuses. A fix that
 * inserts into a mapping reads the indentation of its entries: none of these mappings is one a
 * fix inserts into. Which of these a mapping is, is told once as it opens (leave_class), from the
 * key it is the value of (in) and that key's own mapping's (in_in; "[]": an item of a list, NULL:
 * a document); each of its keys is then asked of that class alone. */
enum leave_class {
	LEAVE_NONE,          /* nothing is left out */
	LEAVE_CONTAINER,     /* an item of containers, initContainers or ephemeralContainers */
	LEAVE_VOLUME,        /* an item of volumes */
	LEAVE_PROBE,         /* a probe in an item of a list (a container's) */
	LEAVE_HANDLER,       /* a probe's handler */
	LEAVE_AFFINITY,      /* nodeAffinity, podAffinity, podAntiAffinity */
	LEAVE_OBJECT_SPEC,   /* an object's spec (a document's, or a List's item's) */
	LEAVE_TEMPLATE_SPEC, /* a template's spec */
	LEAVE_METADATA,      /* an object's metadata */
	LEAVE_STATUS,        /* an object's status */
	LEAVE_DOCUMENT,      /* a document's */
};

static bool container_list(const char *k)
{
	return is(k, "containers") || is(k, "initContainers") || is(k, "ephemeralContainers");
}

/* The class of a mapping that is the value of in (within in_in). Asked as every mapping of every
 * manifest opens: the first byte of in tells nearly all of them none. */
static enum leave_class leave_class(const char *in, const char *in_in)
{
	if (!in)
		return LEAVE_DOCUMENT;
	bool object = !in_in || is(in_in, "[]"); /* in is a key of a document, or of a List's item */
	switch (*in) {
	case '[':
		if (in[1] != ']' || in[2])
			break;
		return container_list(in_in) ? LEAVE_CONTAINER : is(in_in, "volumes") ? LEAVE_VOLUME : LEAVE_NONE;
	case 'n':
		if (eq(in, "nodeAffinity"))
			return LEAVE_AFFINITY;
		break;
	case 'p':
		if (eq(in, "podAffinity") || eq(in, "podAntiAffinity"))
			return LEAVE_AFFINITY;
		break;
	case 'm':
		return object && eq(in, "metadata") ? LEAVE_METADATA : LEAVE_NONE;
	case 's':
		if (eq(in, "spec"))
			return object ? LEAVE_OBJECT_SPEC : is(in_in, "template") ? LEAVE_TEMPLATE_SPEC : LEAVE_NONE;
		if (object && eq(in, "status"))
			return LEAVE_STATUS;
		break;
	default:
		break;
	}
	/* probe and handler tell the rest by their first byte as well */
	if (is(in_in, "[]") && probe(in))
		return LEAVE_PROBE;
	return probe(in_in) && handler(in) ? LEAVE_HANDLER : LEAVE_NONE;
}

/* A container's keys that are read. */
static bool container_key(const char *k)
{
	switch (*k) {
	case 'n':
		return eq(k, "name");
	case 'r':
		return eq(k, "resources") || eq(k, "restartPolicy") || eq(k, "readinessProbe");
	case 'p':
		return eq(k, "ports");
	default:
		return probe(k);
	}
}

/* An object's metadata that the server sets: kept as the mapping's first key (see first). */
static bool server_set(const char *k)
{
	switch (*k) {
	case 'u':
		return eq(k, "uid");
	case 's':
		return eq(k, "selfLink");
	case 'c':
		return eq(k, "creationTimestamp");
	case 'r':
		return eq(k, "resourceVersion");
	case 'g':
		return eq(k, "generation");
	default:
		return false;
	}
}

/* A status's keys that are read (a Pod's, a Node's, a PodDisruptionBudget's, a ResourceClaim's). */
static bool status_key(const char *k)
{
	switch (*k) {
	case 'p':
		return eq(k, "phase");
	case 's':
		return eq(k, "startTime");
	case 'a':
		return eq(k, "allocatable") || eq(k, "allocation");
	case 'c':
		return eq(k, "capacity");
	case 'n':
		return eq(k, "nodeInfo");
	case 'd':
		return eq(k, "disruptionsAllowed");
	case 'r':
		return eq(k, "reservedFor") || eq(k, "resourceClaimStatuses");
	default:
		return false;
	}
}

static bool unread_entry(const char *key, enum leave_class c, bool first)
{
	switch (c) {
	case LEAVE_CONTAINER:
		return !container_key(key);
	case LEAVE_VOLUME:
		return !is(key, "name") && !is(key, "persistentVolumeClaim");
	case LEAVE_PROBE:
		return !handler(key);
	case LEAVE_HANDLER:
		return !is(key, "port");
	case LEAVE_AFFINITY:
		return is(key, "preferredDuringSchedulingIgnoredDuringExecution");
	case LEAVE_OBJECT_SPEC:
		return object_key(key) || (!first && pod_key(key));
	case LEAVE_TEMPLATE_SPEC:
		return !first && pod_key(key);
	case LEAVE_METADATA:
		return is(key, "managedFields") || (!first && server_set(key));
	case LEAVE_STATUS:
		return !status_key(key);
	default:
		return false;
	}
}

/* A document's entry when its kind, written before it, is one nothing reads beyond its identity:
 * not the model's (model_kind), not an autoscaler, not a List. Then only its apiVersion, kind and
 * metadata (an object's identity, and the suppression annotation) and items (an autoscaler may be
 * one of them) are read: the rest (a CustomResourceDefinition's schema, a ConfigMap's data) is
 * left out. */
static bool foreign_kind(struct sl_tree_need *t, const char *kind)
{
	if (*t->kind && eq(kind, t->kind))
		return t->foreign;
	size_t kl = strlen(kind);
	bool foreign = !(kl >= 4 && eq(kind + kl - 4, "List")) && !model_kind(kind) &&
		       !eq(kind, "HorizontalPodAutoscaler") && !eq(kind, "ScaledObject");
	if (kl < sizeof t->kind) {
		memcpy(t->kind, kind, kl + 1);
		t->foreign = foreign;
	}
	return foreign;
}

static bool foreign_entry(struct sl_tree_need *t, const char *key, struct sl_ynode *const *entries, size_t n)
{
	if (eq(key, "apiVersion") || eq(key, "kind") || eq(key, "metadata") || eq(key, "items"))
		return false;
	const char *kind = NULL;
	for (size_t i = 0; i + 1 < n; i += 2)
		if (entries[i]->kind == SL_YSCALAR && eq(entries[i]->str, "kind") && entries[i + 1]->kind == SL_YSCALAR)
			kind = entries[i + 1]->str;
	return kind && foreign_kind(t, kind);
}

unsigned sl_unread_in(void *ctx, const char *in, const char *in_in)
{
	struct sl_tree_need *t = ctx;
	enum leave_class c = leave_class(in, in_in);
	t->first |= c != LEAVE_NONE && c != LEAVE_DOCUMENT; /* the next key asked is this mapping's first */
	return c;
}

/* The same, unless another reader looks the key up (a policy's field names it). */
bool sl_unread_value(void *ctx, const char *key, unsigned in, struct sl_ynode *const *entries, size_t n)
{
	struct sl_tree_need *t = ctx;
	if (in == LEAVE_DOCUMENT)
		return foreign_entry(t, key, entries, n) && !(t->readers->key && t->readers->key(t->readers->ctx, key));
	bool first = t->first;
	t->first = false;
	return unread_entry(key, in, first) && !(t->readers->key && t->readers->key(t->readers->ctx, key));
}
