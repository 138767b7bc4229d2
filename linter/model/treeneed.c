/* treeneed.c — what of a manifest's trees the load keeps (see treeneed.h). */
#include "treeneed.h"

#include <string.h>

#include "../load/yamldoc.h"
#include "object.h"
#include "storage.h"
#include "workload.h"

/* resource.k8s.io's kinds (dra.c tells them by their group too). */
static bool dra_kind(const char *k)
{
	return !strncmp(k, "Resource", 8)
		   ? !strcmp(k + 8, "Claim") || !strcmp(k + 8, "ClaimTemplate") || !strcmp(k + 8, "Slice")
		   : !strcmp(k, "DeviceClass");
}

/* The kinds load_object reads from manifests, and so points into the trees of. */
static bool model_kind(const char *k)
{
	return sl_workload_kind(k) || !strcmp(k, "JobSet") || !strcmp(k, "Node") || !strcmp(k, "Namespace") ||
	       !strcmp(k, "NodePool") || !strcmp(k, "PersistentVolumeClaim") || !strcmp(k, "PodDisruptionBudget") ||
	       !strcmp(k, "PriorityClass") || !strcmp(k, "Service") || !strcmp(k, "PodGroup") ||
	       !strcmp(k, "ClusterQueue") || !strcmp(k, "LocalQueue") || !strcmp(k, "Workload") ||
	       !strcmp(k, "ResourceFlavor") || !strcmp(k, "LimitRange") || !strcmp(k, "ResourceQuota") ||
	       !strcmp(k, "RuntimeClass") || sl_storage_kind(k) || dra_kind(k);
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

/* This runs for every key of every manifest: most differ at the first byte. */
static bool is(const char *s, const char *t)
{
	return s && *s == *t && !strcmp(s, t);
}

/* A container's probe, or the handler (httpGet, tcpSocket, grpc) of one: only a handler's port is
 * read (a named port must be declared), not the probe's timings, command, path or headers. */
static bool probe(const char *in)
{
	switch (in ? *in : 0) { /* asked of every key and mapping filtered: one byte tells most */
	case 'r':
		return !strcmp(in, "readinessProbe");
	case 'l':
		return !strcmp(in, "livenessProbe");
	case 's':
		return !strcmp(in, "startupProbe");
	default:
		return false;
	}
}

static bool handler(const char *in)
{
	switch (in ? *in : 0) {
	case 'h':
		return !strcmp(in, "httpGet");
	case 't':
		return !strcmp(in, "tcpSocket");
	case 'g':
		return !strcmp(in, "grpc");
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
		return !strcmp(k, "ports") || !strcmp(k, "publishNotReadyAddresses") || !strcmp(k, "pollingInterval");
	case 't':
		return k[1] == 'y'   ? !strcmp(k, "type")
		       : k[1] == 'r' ? !strcmp(k, "trafficDistribution") || !strcmp(k, "triggers")
				     : false;
	case 'c':
		return k[1] == 'l' ? !strcmp(k, "clusterIP") || !strcmp(k, "clusterIPs") : !strcmp(k, "cooldownPeriod");
	case 's':
		return k[1] == 'e' && !strncmp(k, "sessionAffinity", 15) && (!k[15] || !strcmp(k + 15, "Config"));
	case 'i':
		return k[1] == 'p' ? !strcmp(k, "ipFamilies") || !strcmp(k, "ipFamilyPolicy")
				   : !strcmp(k, "internalTrafficPolicy");
	case 'e':
		return k[1] == 'x' &&
		       (!strcmp(k, "externalTrafficPolicy") || !strcmp(k, "externalIPs") || !strcmp(k, "externalName"));
	case 'l':
		return !strncmp(k, "loadBalancer", 12) &&
		       (!strcmp(k + 12, "IP") || !strcmp(k + 12, "SourceRanges") || !strcmp(k + 12, "Class"));
	case 'h':
		return !strcmp(k, "healthCheckNodePort");
	case 'a':
		return k[1] == 'l' ? !strcmp(k, "allocateLoadBalancerNodePorts") : !strcmp(k, "advanced");
	case 'm':
		return !strcmp(k, "metrics");
	case 'b':
		return !strcmp(k, "behavior");
	case 'f':
		return !strcmp(k, "fallback");
	default:
		return false;
	}
}

static bool pod_key(const char *k)
{
	switch (*k) { /* the keys read (schedulerName, hostNetwork, restartPolicy…) differ early */
	case 's':
		return k[1] == 'e' ? !strcmp(k, "securityContext") || !strcmp(k, "serviceAccountName") ||
					 !strcmp(k, "serviceAccount") || !strcmp(k, "setHostnameAsFQDN")
		       : k[1] == 'u' ? !strcmp(k, "subdomain")
		       : k[1] == 'h' ? !strcmp(k, "shareProcessNamespace")
				     : false;
	case 'a':
		return k[1] == 'u' && !strcmp(k, "automountServiceAccountToken");
	case 't':
		return k[1] == 'e' && !strcmp(k, "terminationGracePeriodSeconds");
	case 'd':
		return k[1] == 'n' && (!strcmp(k, "dnsPolicy") || !strcmp(k, "dnsConfig"));
	case 'i':
		return k[1] == 'm' && !strcmp(k, "imagePullSecrets");
	case 'e':
		return k[1] == 'n' && !strcmp(k, "enableServiceLinks");
	case 'h':
		return !strncmp(k, "host", 4) && (!strcmp(k + 4, "name") || !strcmp(k + 4, "Aliases") ||
						  !strcmp(k + 4, "PID") || !strcmp(k + 4, "IPC"));
	case 'r':
		return k[1] == 'e' && k[2] == 'a' && !strcmp(k, "readinessGates");
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
 * fix inserts into. */
static bool unread_entry(const char *key, const char *in, const char *in_in, bool first)
{
	bool object = !in_in || is(in_in, "[]"); /* in is a key of a document, or of a List's item */
	if (is(in, "[]") &&
	    (is(in_in, "containers") || is(in_in, "initContainers") || is(in_in, "ephemeralContainers")))
		return !is(key, "name") && !is(key, "resources") && !is(key, "ports") && !is(key, "restartPolicy") &&
		       !is(key, "readinessProbe") && !is(key, "livenessProbe") && !is(key, "startupProbe");
	if (is(in, "[]") && is(in_in, "volumes"))
		return !is(key, "name") && !is(key, "persistentVolumeClaim");
	if (is(in_in, "[]") && probe(in))
		return !handler(key);
	if (probe(in_in) && handler(in))
		return !is(key, "port");
	if (is(in, "nodeAffinity") || is(in, "podAffinity") || is(in, "podAntiAffinity"))
		return is(key, "preferredDuringSchedulingIgnoredDuringExecution");
	if (is(in, "spec")) /* an object's (a Pod's is a pod spec), or a template's */
		return (object && object_key(key)) || (!first && (object || is(in_in, "template")) && pod_key(key));
	if (is(in, "metadata") && object)
		return is(key, "managedFields") ||
		       (!first && (is(key, "uid") || is(key, "selfLink") || is(key, "creationTimestamp") ||
				   is(key, "resourceVersion") || is(key, "generation")));
	if (is(in, "status") && object)
		return !is(key, "phase") && !is(key, "startTime") && !is(key, "allocatable") && !is(key, "capacity") &&
		       !is(key, "nodeInfo") && !is(key, "disruptionsAllowed") && !is(key, "allocation") &&
		       !is(key, "reservedFor") && !is(key, "resourceClaimStatuses");
	return false;
}

/* Whether unread_entry may leave out some key of a mapping that is the value of in: the mappings
 * it names, and no other. Asked as every mapping of every manifest opens: the first byte of in
 * tells nearly all of them no. */
static bool may_leave(const char *in, const char *in_in)
{
	bool item = is(in_in, "[]");
	switch (in ? *in : 0) {
	case '[':
		return !strcmp(in, "[]") && (is(in_in, "containers") || is(in_in, "initContainers") ||
					     is(in_in, "ephemeralContainers") || is(in_in, "volumes"));
	case 'n':
		return !strcmp(in, "nodeAffinity");
	case 'p':
		return !strcmp(in, "podAffinity") || !strcmp(in, "podAntiAffinity");
	case 'm':
		return (!in_in || item) && !strcmp(in, "metadata");
	case 's':
		if ((!in_in || item) && (!strcmp(in, "status") || !strcmp(in, "spec")))
			return true;
		if (!strcmp(in, "spec") && is(in_in, "template"))
			return true;
		break;
	default:
		break;
	}
	/* probe and handler tell the rest by their first byte as well */
	return (item && probe(in)) || (probe(in_in) && handler(in));
}

bool sl_unread_in(void *ctx, const char *in, const char *in_in)
{
	struct sl_tree_need *t = ctx;
	bool may = may_leave(in, in_in);
	t->first |= may; /* the next key asked is this mapping's first */
	return may;
}

/* The same, unless another reader looks the key up (a policy's field names it). */
bool sl_unread_value(void *ctx, const char *key, const char *in, const char *in_in)
{
	struct sl_tree_need *t = ctx;
	bool first = t->first;
	t->first = false;
	return unread_entry(key, in, in_in, first) && !(t->readers->key && t->readers->key(t->readers->ctx, key));
}
