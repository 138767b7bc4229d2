/* unit_storage.c — the storage as volume binding reads it: an inventory List of mixed kinds, a
 * claim both among the manifests and in the inventory (the manifests' wins), a StatefulSet's
 * per-ordinal claims (taken from the inventory when there, pinning that ordinal), a default class,
 * a volume's node affinity matched on labels alone (matchFields match no node), and a claim that
 * does not exist once the storage is known. */
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/load/source.h"
#include "../linter/model/model.h"
#include "../linter/model/relate.h"
#include "unit.h"

static const char cluster_yaml[] =
    "apiVersion: v1\nkind: List\nitems:\n"
    "- {kind: PersistentVolume, metadata: {name: pv-a, labels: {topology.kubernetes.io/zone: a}},"
    " spec: {capacity: {storage: 10Gi}, storageClassName: fast, claimRef: {name: data-db-0, namespace: s},"
    " nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone,"
    " operator: In, values: [a]}]}]}}}}\n"
    "- {kind: PersistentVolume, metadata: {name: pv-f}, spec: {capacity: {storage: 1Gi},"
    " nodeAffinity: {required: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In,"
    " values: [n1]}]}]}}}}\n"
    "- {kind: PersistentVolumeClaim, metadata: {name: data-db-0, namespace: s}, spec: {volumeName: pv-a,"
    " storageClassName: fast, accessModes: [ReadWriteOnce]}}\n"
    "- {kind: PersistentVolumeClaim, metadata: {name: shared, namespace: s}, spec: {accessModes: [ReadWriteMany]}}\n"
    "- {kind: StorageClass, metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "
    "\"true\"}}, provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}\n"
    "- {kind: CSINode, metadata: {name: n1}, spec: {drivers: [{name: ebs.csi.aws.com, allocatable: {count: 25}}]}}\n";

static const char manifests_yaml[] =
    "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: shared, namespace: s}\n"
    "spec: {accessModes: [ReadWriteOnce]}\n---\n"
    "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: s}\n"
    "spec: {replicas: 3, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}},"
    " spec: {containers: [{name: c}]}}, volumeClaimTemplates: [{metadata: {name: data},"
    " spec: {accessModes: [ReadWriteOnce]}}]}\n---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: s}\n"
    "spec: {selector: {matchLabels: {a: c}}, template: {metadata: {labels: {a: c}},"
    " spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: gone}}]}}}\n";

static void test_storage_model(void)
{
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *s1 = sl_source_from_memory("cluster.yaml", cluster_yaml, strlen(cluster_yaml));
	struct sl_source *s2 = sl_source_from_memory("m.yaml", manifests_yaml, strlen(manifests_yaml));
	sl_model_load(&m, s1, SL_ROLE_NODES, &errs);
	sl_model_load(&m, s2, SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0);
	const struct sl_storage *s = &m.storage;
	CHECK(s->known && s->npvs == 2 && s->nclasses == 1 && s->ncsinodes == 1);
	CHECK(s->default_class && !strcmp(s->default_class->obj.name, "fast") && s->default_class->wait);
	CHECK(s->ncsinodes == 1 && s->csinodes[0]->ndrivers == 1 && s->csinodes[0]->drivers[0].count == 25);
	/* the manifests' claim wins over the inventory's of the same name */
	const struct sl_pvc *shared = sl_model_claim(&m, "s", "shared");
	CHECK(shared && !shared->inventory && shared->rwo && !shared->rwx);
	/* matchFields never match: CheckNodeAffinity gives the node its labels alone */
	const struct sl_pv *pvf = sl_storage_pv(s, "pv-f");
	struct sl_kv kv = {"kubernetes.io/hostname", "n1", NULL, NULL};
	struct sl_labels l = {&kv, 1};
	CHECK(pvf && !sl_pv_admits(pvf, &l));
	const struct sl_pv *pva = sl_storage_pv(s, "pv-a");
	struct sl_kv za = {"topology.kubernetes.io/zone", "a", NULL, NULL},
		     zb = {"topology.kubernetes.io/zone", "b", NULL, NULL};
	CHECK(pva && sl_pv_admits(pva, &(struct sl_labels){&za, 1}) && !sl_pv_admits(pva, &(struct sl_labels){&zb, 1}));
	/* db-0's claim is the inventory's, bound to pv-a; db-1 and db-2's are new: two resolutions */
	const struct sl_workload *db = unit_named(&m, "db");
	CHECK(db && db->storage && db->storage->nsets == 2);
	if (db && db->storage && db->storage->nsets == 2) {
		CHECK(db->storage->sets[0].ordinal == 0 && db->storage->sets[0].npvs == 1 &&
		      db->storage->sets[0].pvs[0] == pva &&
		      !strcmp(db->storage->sets[0].pv_claim_names[0], "data-db-0"));
		CHECK(db->storage->sets[1].ordinal == 1 && db->storage->sets[1].npvs == 0 &&
		      db->storage->sets[1].pods == 2 && !db->storage->sets[1].prefilter);
	}
	/* a claim neither the manifests nor the captured storage have */
	const struct sl_workload *web = unit_named(&m, "web");
	CHECK(web && web->storage && web->storage->nsets == 1 && web->storage->sets[0].prefilter &&
	      !strcmp(web->storage->sets[0].prefilter, "persistentvolumeclaim \"gone\" not found"));
	CHECK(s->unknown_at == (size_t)-1);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(s1);
	sl_source_free(s2);
}

/* Without any claim among the inputs, the first workload that mounts one is noted, nothing judged. */
static void test_storage_unknown(void)
{
	static const char y[] =
	    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n"
	    "spec: {selector: {matchLabels: {a: a}}, template: {metadata: {labels: {a: a}}, spec: {containers: [{name: "
	    "c}]}}}\n---\n"
	    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\n"
	    "spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}},"
	    " spec: {containers: [{name: c}], volumes: [{name: v, persistentVolumeClaim: {claimName: x}}]}}}\n";
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	struct sl_source *src = sl_source_from_memory("m.yaml", y, strlen(y));
	sl_model_load(&m, src, SL_ROLE_MANIFESTS, &errs);
	sl_model_bind_pods(&m);
	CHECK(errs.n == 0 && m.storage.unknown_at == 1 && !m.workloads[1]->storage);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(src);
}

void test_storage(void)
{
	test_storage_model();
	test_storage_unknown();
}
