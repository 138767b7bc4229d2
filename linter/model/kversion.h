/* kversion.h — the Kubernetes release whose semantics a run follows. The filters are
 * kube-scheduler's; what changed between releases in what schedlint models is decided by the
 * release's feature-gate defaults (pkg/features/kube_features.go of each release): a field whose
 * gate is off by default is dropped by that release's API server, so it has no effect. Chosen by
 * --kube-version, else the config's kubernetesVersion (a target's, else the top level's), else the
 * lowest status.nodeInfo.kubeletVersion of the nodes, else SL_KUBE_DEFAULT. */
#ifndef SL_KVERSION_H
#define SL_KVERSION_H

struct sl_model;
struct sl_findings;

/* The releases schedlint knows: 1.SL_KUBE_MIN to 1.SL_KUBE_MAX. */
#define SL_KUBE_MIN 20
#define SL_KUBE_MAX 35
#define SL_KUBE_DEFAULT 35

/* The first minor release whose defaults turn each behaviour on (beta, on by default, or GA). */
enum {
	SL_KUBE_CSI_STORAGE_CAPACITY = 21,    /* CSIStorageCapacity: VolumeBinding checks the driver's capacity */
	SL_KUBE_DAEMONSET_SURGE = 22,         /* DaemonSetUpdateSurge: rollingUpdate.maxSurge */
	SL_KUBE_CLAIM_LOST = 23,              /* VolumeBinding's PreFilter on Lost/deleted claims, PVNotExist's text */
	SL_KUBE_NODE_INCLUSION_POLICY = 26,   /* nodeAffinityPolicy, nodeTaintsPolicy */
	SL_KUBE_MIN_DOMAINS = 27,             /* MinDomainsInPodTopologySpread */
	SL_KUBE_SPREAD_MATCH_LABEL_KEYS = 27, /* MatchLabelKeysInPodTopologySpread */
	SL_KUBE_PDB_UNHEALTHY_POLICY = 27,    /* PDBUnhealthyPodEvictionPolicy */
	SL_KUBE_VOLUME_ZONE_GA = 28,          /* VolumeZone matches a volume's beta zone label with a node's GA one */
	SL_KUBE_SIDECARS = 29,                /* SidecarContainers: restartPolicy Always in initContainers */
	SL_KUBE_AFFINITY_MATCH_LABEL_KEYS = 31,   /* MatchLabelKeysInPodAffinity */
	SL_KUBE_STATEFULSET_MAX_UNAVAILABLE = 35, /* MaxUnavailableStatefulSet */
};

/* The PostFilter's part of the FailedScheduling message (sl_postfilter_text, preemption.c), by the
 * release that changed it in pkg/scheduler/framework/types.go FitError.Error() and
 * runtime/framework.go RunPostFilterPlugins. */
enum {
	SL_KUBE_POSTFILTER_MSG = 24,        /* the PostFilter's message is printed at all (PR 107775) */
	SL_KUBE_POSTFILTER_PERIOD = 26,     /* " %v." after it: "…for incoming pod.." (PR 110894) */
	SL_KUBE_POSTFILTER_ONE_PERIOD = 30, /* " %v" again: one period (PR 117588) */
	SL_KUBE_DRA_POSTFILTER = 32,        /* DynamicResources' PostFilter before DefaultPreemption, with its gate */
	SL_KUBE_DRA_NO_CLAIMS_SILENT = 33,  /* 1.33 only: no reason for a pod without claims (PR 129823) */
};

enum sl_kube_from { SL_KUBE_FROM_DEFAULT, SL_KUBE_FROM_OPTION, SL_KUBE_FROM_CONFIG, SL_KUBE_FROM_NODES };

struct sl_kube_version {
	int minor; /* 1.minor, within SL_KUBE_MIN .. SL_KUBE_MAX; 0 until chosen */
	int asked; /* the release asked for (or found), before that bound */
	enum sl_kube_from from;
	const char *written; /* the text it was read from (an option, a config value, a kubeletVersion) */
	const char *node;    /* SL_KUBE_FROM_NODES: the node with the lowest kubeletVersion */
};

/* "1.30", "v1.30", "1.30.2", "v1.30.4-eks-4f2c": 0 and *minor, or -1 for anything else. */
int sl_kube_parse(const char *s, int *minor);
/* How the version was chosen, for --explain: "1.30 (--kube-version)", "1.28 (the lowest
 * kubeletVersion of the nodes: v1.28.9 on node-3)". */
void sl_kube_describe(const struct sl_kube_version *v, char *out, unsigned n);

/* Choose the version of m (option, then config: minor 0 when not given; else the nodes; else the
 * default), and make the model what that release's API server would keep: fields it drops are
 * cleared, each written one in a manifest with a warning at it, and a pod's request is computed
 * as that release computes it. Call after loading, before sl_model_bind_pods. */
void sl_model_apply_version(struct sl_model *m, int option, const char *option_text, int config,
			    const char *config_text, struct sl_findings *errs);

#endif
