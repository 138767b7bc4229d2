/* rwo-volume-rollout — pods of one workload share a claim that only one pod (ReadWriteOncePod) or
 * one node (ReadWriteOnce) can use.
 *
 * ReadWriteOncePod is enforced by the scheduler: VolumeRestrictions rejects a pod on every node
 * while another pod uses the claim. So a second replica never schedules, and a surge pod never
 * does while the old pod holds the claim — with maxUnavailable 0 the old pod stays until a new
 * one is Ready, so the rollout never finishes. Both hold for every cluster: errors.
 *
 * ReadWriteOnce is a node-level attachment, enforced (for volumes that attach at all) by the
 * attach/detach controller, which refuses a second node ("Multi-Attach error"). Pods on the node
 * that has it attached start fine; the others wait in ContainerCreating. Whether they land there
 * is placement, and whether the storage enforces it at all is the cluster's (NFS-like volumes
 * need no attach; a PersistentVolume that also allows ReadWriteMany may attach anywhere): warnings
 * that say so. */
#include <stdio.h>
#include <string.h>

#include "edits.h"
#include "rules.h"

#define HOSTNAME "kubernetes.io/hostname"

/* The StatefulSet controller swaps a template volume named like a volumeClaimTemplate for the
 * pod's own claim. */
static bool per_pod_claim(const struct sl_workload *w, const char *volume)
{
	const struct sl_ynode *vct = sl_ymap_get(w->spec, "volumeClaimTemplates");
	if (strcmp(w->obj.kind, "StatefulSet") || !volume || !vct || vct->kind != SL_YSEQ)
		return false;
	for (size_t i = 0; i < vct->n; i++)
		if (sl_yis(sl_ypath(vct->v[i], "metadata.name"), volume))
			return true;
	return false;
}

/* How the template places its pods relative to each other, from the template alone. */
struct placement {
	bool one_node;         /* every pod on one node: nodeName, or hostname bounded to one value */
	bool together;         /* replicas kept on one node: required self affinity on hostname */
	bool surge_together;   /* the surge pod kept with the old ones */
	bool apart;            /* no two replicas share a node: host ports, self anti-affinity */
	bool surge_apart;      /* the surge pod never shares a node with an old pod */
	const char *apart_why; /* what keeps them apart */
	const struct sl_ynode *apart_node;
};

static void placement_of(const struct sl_podspec *p, struct placement *pl)
{
	memset(pl, 0, sizeof *pl);
	struct sl_domains d;
	sl_static_domains(p, HOSTNAME, &d);
	pl->one_node = p->node_name || (d.bounded && d.nvals + d.nnames == 1);
	sl_domains_free(&d);
	pl->together = sl_self_hostname_term(p, p->affinity, p->naffinity, false);
	pl->surge_together = sl_self_hostname_term(p, p->affinity, p->naffinity, true);
	if (p->nports) {
		pl->apart = pl->surge_apart = true;
		pl->apart_why = "every pod binds the same host port";
		pl->apart_node = p->ports[0].node;
	} else if (sl_self_hostname_term(p, p->anti, p->nanti, false)) {
		pl->apart = true;
		pl->surge_apart = sl_self_hostname_term(p, p->anti, p->nanti, true);
		pl->apart_why = "required pod anti-affinity on kubernetes.io/hostname selects its own pods";
		pl->apart_node = p->anti_terms_node;
	}
}

/* Whether the claim is bound to a PersistentVolume whose nodeAffinity admits at most one node of
 * the inventory: every pod that mounts it (the surge pod too) runs on that node, where the volume
 * is attached, or nowhere — the scheduler's VolumeBinding, not placement, decides. */
static bool volume_pins_one_node(const struct sl_check *cx, const struct sl_pvc *c)
{
	const struct sl_volset *v = cx->a ? cx->a->vol : NULL;
	for (size_t i = 0; v && i < v->npvs; i++) {
		if (v->pv_claims[i] != c || !v->pvs[i]->has_affinity)
			continue;
		size_t admits = 0;
		for (size_t n = 0; n < cx->model->nnodes && admits < 2; n++)
			admits += sl_pv_admits(v->pvs[i], &cx->model->nodes[n]->labels);
		return admits < 2;
	}
	return false;
}

/* The claim's accessModes, as a related location: where the one-pod or one-node limit is written. */
static void note_modes(struct sl_finding *f, const struct sl_pvc *c)
{
	if (c->modes_node)
		sl_add_related(f, &c->modes_node->at, "the access modes of PersistentVolumeClaim %s/%s",
			       c->obj.namespace, c->obj.name);
}

/* The two fixes for a one-replica rollout: either way the old pod releases the claim before the new
 * one needs it. */
static void fix_rollout(struct sl_finding *f, const struct sl_workload *w)
{
	sl_fix_recreate(sl_fix_new(f, "Use the Recreate strategy (the old pod stops and releases the claim before the "
				      "new one starts)"),
			w);
	sl_fix_rolling_params(sl_fix_new(f, "Roll with maxSurge: 0, maxUnavailable: 1 (the old pod goes first)"), w,
			      "0", "1");
}

/* "maxUnavailable 0", or "maxUnavailable 25% resolves to 0": why the old pod waits for the new. */
static const char *unavail_text(const struct sl_workload *w, char *buf, size_t n)
{
	char u[32];
	sl_intpct_format(&w->max_unavailable, u, sizeof u);
	snprintf(buf, n, "maxUnavailable %s%s", u, w->max_unavailable.percent ? " resolves to 0" : "");
	return buf;
}

/* What every finding on one claim names: where it points (the volume's claimName), the workload,
 * the claim, and the rollout's resolved surge and unavailability. */
struct claim_use {
	const struct sl_ynode *at;
	char ref[512], cref[512];
	int64_t surge, unavail;
};

/* With several replicas a rollout strategy fixes nothing: only separate claims, a claim that many
 * may write, or one replica do. */
static void fix_replicas(struct sl_finding *f, const struct sl_pvc *c)
{
	sl_note(f, "fix: give each pod its own claim (a StatefulSet with volumeClaimTemplates), use a "
		   "ReadWriteMany claim, or run 1 replica");
	note_modes(f, c);
}

/* ReadWriteOncePod, replicas > 1: the scheduler admits one pod; the others stay Pending on every
 * cluster, an error. */
static void report_rwop_replicas(const struct sl_rule *self, struct sl_check *cx, const struct sl_pvc *c,
				 const struct claim_use *u)
{
	const struct sl_workload *w = cx->w;
	struct sl_finding *f =
	    sl_rule_report(self, cx, u->at,
			   "only 1 of the %lld replicas of %s can run at once: they share %s, which is "
			   "ReadWriteOncePod, and the scheduler admits no second pod while one uses it",
			   (long long)w->replicas, u->ref, u->cref);
	sl_note(f, "replicas %lld", (long long)w->replicas);
	char rest[48];
	if (w->replicas == 2)
		snprintf(rest, sizeof rest, "the other pod");
	else
		snprintf(rest, sizeof rest, "the other %lld pods", (long long)(w->replicas - 1));
	sl_note(f,
		"VolumeRestrictions rejects every node for %s (node has pod using PersistentVolumeClaim with "
		"the same name and ReadWriteOncePod access mode); preemption cannot help, the pod holding the "
		"claim is one of its own, with the same priority",
		rest);
	fix_replicas(f, c);
}

/* ReadWriteOncePod, a surge with maxUnavailable 0: the new pod never schedules while the old one
 * holds the claim, and the old one stays until a new one is Ready — an error. */
static void report_rwop_rollout(const struct sl_rule *self, struct sl_check *cx, const struct sl_pvc *c,
				const struct claim_use *u)
{
	const struct sl_workload *w = cx->w;
	char ubuf[64];
	struct sl_finding *f =
	    sl_rule_report(self, cx, u->at,
			   "rollout of %s can never finish: the new pod needs %s, which is ReadWriteOncePod and "
			   "held by the old pod, and %s, so the old pod stays until a new one is Ready",
			   u->ref, u->cref, unavail_text(w, ubuf, sizeof ubuf));
	sl_note_rollout(f, w, w->replicas, u->surge, u->unavail);
	sl_note(f, "VolumeRestrictions rejects the new pod on every node while the old pod uses the claim (node "
		   "has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode)");
	sl_note(f, "fix: use strategy type Recreate, or roll with maxSurge: 0, maxUnavailable: 1; either way the "
		   "old pod goes first and the new one takes the claim after it");
	note_modes(f, c);
	fix_rollout(f, w);
}

/* What every ReadWriteOnce finding rests on besides placement: whether the storage enforces the
 * mode at all. */
#define STORAGE_DEPENDS                                                                                                \
	"the storage enforcing ReadWriteOnce (volumes that need no attach, such as NFS, and PersistentVolumes that "   \
	"also allow ReadWriteMany mount on several nodes)"

/* ReadWriteOnce, replicas > 1 not kept on one node: the pods off the attached node wait in
 * ContainerCreating. A warning: it depends on the storage, and — unless the template keeps the
 * pods apart — on placement. */
static void report_rwo_replicas(const struct sl_rule *self, struct sl_check *cx, const struct sl_pvc *c,
				const struct claim_use *u, const struct placement *pl)
{
	const struct sl_workload *w = cx->w;
	struct sl_finding *f;
	if (pl->apart)
		f = sl_rule_report(self, cx, u->at,
				   "%lld replicas of %s share %s, which is ReadWriteOnce, and cannot share a node "
				   "(%s): the pods off the node that has it attached cannot start, unless the "
				   "storage mounts it on several nodes",
				   (long long)w->replicas, u->ref, u->cref, pl->apart_why);
	else
		f = sl_rule_report(self, cx, u->at,
				   "%lld replicas of %s share %s, which is ReadWriteOnce: they all start only if they "
				   "land on the node that has it attached, and nothing pins them there",
				   (long long)w->replicas, u->ref, u->cref);
	if (f->level == SL_ERROR)
		f->level = SL_WARNING;
	sl_note(f, "replicas %lld", (long long)w->replicas);
	sl_note(f, "ReadWriteOnce attaches the volume read-write to one node; a pod placed on another node "
		   "waits in ContainerCreating (Multi-Attach error) until every pod using it elsewhere is gone");
	sl_note(f, "this depends on %s", STORAGE_DEPENDS);
	if (pl->apart && pl->apart_node)
		sl_add_related(f, &pl->apart_node->at, "what keeps the pods on distinct nodes");
	fix_replicas(f, c);
}

/* ReadWriteOnce, a surge with maxUnavailable 0 and nothing drawing the new pod to the old pod's
 * node: the rollout stalls if the new pod lands elsewhere. A warning: it depends on the storage,
 * and — unless the template keeps the new pod off that node — on placement. */
static void report_rwo_rollout(const struct sl_rule *self, struct sl_check *cx, const struct sl_pvc *c,
			       const struct claim_use *u, const struct placement *pl)
{
	const struct sl_workload *w = cx->w;
	char ubuf[64];
	struct sl_finding *f;
	if (pl->surge_apart)
		f = sl_rule_report(
		    self, cx, u->at,
		    "rollout of %s stalls unless the storage mounts %s on several nodes: it is "
		    "ReadWriteOnce, attached to the old pod's node, where the new pod cannot go (%s), and "
		    "%s, so the old pod stays until a new one is Ready",
		    u->ref, u->cref, pl->apart_why, unavail_text(w, ubuf, sizeof ubuf));
	else
		f = sl_rule_report(
		    self, cx, u->at,
		    "rollout of %s depends on placement: the new pod needs %s, which is ReadWriteOnce and "
		    "attached to the old pod's node; nothing pins the new pod there, and %s, so the old "
		    "pod stays until a new one is Ready",
		    u->ref, u->cref, unavail_text(w, ubuf, sizeof ubuf));
	if (f->level == SL_ERROR)
		f->level = SL_WARNING;
	sl_note_rollout(f, w, w->replicas, u->surge, u->unavail);
	sl_note(f, "ReadWriteOnce attaches the volume read-write to one node; placed on another node the new pod "
		   "waits in ContainerCreating (Multi-Attach error), and the old pod is not removed before it is "
		   "Ready: the rollout stops until progressDeadlineSeconds marks it failed");
	sl_note(f, "this depends on %s%s", pl->surge_apart ? "" : "where the scheduler puts the new pod, and on ",
		STORAGE_DEPENDS);
	if (pl->surge_apart && pl->apart_node)
		sl_add_related(f, &pl->apart_node->at, "what keeps the new pod off the old pod's node");
	sl_note(f, "fix: use strategy type Recreate (the old pod stops and the volume detaches before the new pod "
		   "starts), or roll with maxSurge: 0, maxUnavailable: 1");
	note_modes(f, c);
	fix_rollout(f, w);
}

/* One finding per workload and claim: several replicas are the finding when there are several (a
 * Recreate strategy would not fix them), otherwise a Deployment's surge rollout. ReadWriteOnce
 * is judged only when the template does not already keep the pods (or the surge pod) on one
 * node. */
static void check_claim(const struct sl_rule *self, struct sl_check *cx, const struct sl_volume *v,
			const struct sl_pvc *c)
{
	const struct sl_workload *w = cx->w;
	struct claim_use u = {.surge = 0, .unavail = 1};
	if (!strcmp(w->obj.kind, "Deployment") && w->strategy == SL_STRATEGY_ROLLING)
		sl_fenceposts(w, &u.surge, &u.unavail);
	bool rollout = u.surge > 0 && u.unavail == 0;
	bool several = w->replicas > 1;
	if (!rollout && !several)
		return;
	u.at = sl_ymap_get(v->node, "claimName");
	sl_object_ref(&w->obj, u.ref, sizeof u.ref);
	snprintf(u.cref, sizeof u.cref, "PersistentVolumeClaim %s/%s", c->obj.namespace, c->obj.name);

	if (c->rwop) {
		if (several)
			report_rwop_replicas(self, cx, c, &u);
		else
			report_rwop_rollout(self, cx, c, &u);
		return;
	}

	/* ReadWriteOnce: one node at a time. */
	struct placement pl;
	placement_of(&w->pod, &pl);
	if (pl.one_node || volume_pins_one_node(cx, c))
		return;
	if (several && !pl.together)
		report_rwo_replicas(self, cx, c, &u, &pl);
	else if (rollout && !pl.surge_together)
		report_rwo_rollout(self, cx, c, &u, &pl);
}

/* Each claim the template mounts once, that another pod of the workload shares (not a
 * StatefulSet's per-pod claim), and that one pod or one node may use. */
static void check(const struct sl_rule *self, struct sl_check *cx)
{
	const struct sl_workload *w = cx->w;
	const char *k = w->obj.kind;
	if (strcmp(k, "Deployment") && strcmp(k, "ReplicaSet") && strcmp(k, "ReplicationController") &&
	    strcmp(k, "StatefulSet"))
		return;
	if (w->replicas == 0)
		return;
	const struct sl_podspec *p = &w->pod;
	for (size_t i = 0; i < p->nvolumes; i++) {
		const struct sl_volume *v = &p->volumes[i];
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(p->volumes[j].claim, v->claim);
		if (seen || per_pod_claim(w, v->name))
			continue;
		const struct sl_pvc *c = sl_model_claim(cx->model, p->namespace, v->claim);
		/* Another access mode beside ReadWriteOnce lets the volume attach on several nodes. */
		if (c && (c->rwop || (c->rwo && !c->rwx && !c->rox)))
			check_claim(self, cx, v, c);
	}
}

const struct sl_rule sl_rule_rwo_volume_rollout = {
    .id = "rwo-volume-rollout",
    .name = "SingleWriterVolumeShared",
    .summary = "Pods of one workload share a ReadWriteOnce or ReadWriteOncePod claim: replicas or the rollout's "
	       "surge pod cannot use it.",
    .description = "A Deployment, ReplicaSet, ReplicationController or StatefulSet mounts a PersistentVolumeClaim "
		   "defined among the inputs whose access mode allows one pod (ReadWriteOncePod) or one node "
		   "(ReadWriteOnce). With ReadWriteOncePod the scheduler admits no second pod while one uses the "
		   "claim, so extra replicas never run and a RollingUpdate with maxUnavailable 0 never finishes. "
		   "With ReadWriteOnce the extra pods and the surge pod run only on the node that has the volume "
		   "attached; that depends on placement, and is reported as a warning.",
    .help = "For a single-replica Deployment, use `strategy: {type: Recreate}` (or `maxSurge: 0, "
	    "maxUnavailable: 1`) so the old pod releases the claim first. For several replicas, give each pod its "
	    "own claim with a StatefulSet and `volumeClaimTemplates`, or use a `ReadWriteMany` claim.",
    .level = SL_ERROR,
    .needs_nodes = false,
    .check = check,
};
