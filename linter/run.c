/* run.c — one run over every target (see run.h). Each target is a model of its own: objects of
 * different targets never meet, neither in selectors nor as running load. */
#include "run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/rules.h"
#include "config/policy.h"
#include "config/suppress.h"
#include "model/k8s.h"
#include "report/explain.h"
#include "sched/sched.h"

/* What --explain printed for one workload, kept until every target has run. */
struct sl_explained {
	size_t src, off; /* the workload's place: the output's order */
	char *text;
	cJSON *json;
};

/* Every workload's, of every target. */
struct explained_list {
	struct sl_explained *v;
	size_t n, cap;
};

struct target {
	int index; /* -1: the default target */
	struct sl_load *loads;
	size_t nloads, cap, nmanifests;
};

struct check_job {
	struct sl_run *r;
	const struct sl_model *m;
	struct sl_cluster *cl;
	struct sl_inventory_gaps gaps;
	struct sl_findings *found; /* per workload */
	struct sl_explained *ex;   /* per workload, --explain */
	unsigned char *alone;      /* per workload: what its own analysis found (SL_ALONE_*) */
	atomic_size_t next;
	atomic_size_t whatif_left; /* work left for analyses on changed clusters (smallest_change.c) */
};

static void check_one(struct check_job *job, size_t i)
{
	const struct sl_config *c = job->r->cfg;
	const struct sl_model *m = job->m;
	const struct sl_workload *w = m->workloads[i];
	struct sl_analysis a;
	bool have = m->nnodes > 0;
	if (have)
		sl_analyze(job->cl, w, job->r->explain, &a);
	job->alone[i] = !have                          ? 0
			: a.steady_placed < a.replicas ? SL_ALONE_SHORT
			: a.rollout_deadlock           ? SL_ALONE_DEADLOCK
						       : 0;
	if (have && a.not_placed) {
		const struct sl_ynode *at = w->replicas_node ? w->replicas_node : w->obj.root;
		sl_input_warning(&job->found[i], &at->at,
				 "%s %s/%s: placing %lld replicas one after another, as the scheduler would, takes "
				 "more than %u steps; the first ones fit, the rest of its placement was not checked",
				 w->obj.kind, w->obj.namespace, w->obj.name, (long long)w->replicas,
				 SL_PLACEMENT_BUDGET);
	}
	if (job->r->explain) {
		struct sl_explained *e = &job->ex[i];
		e->src = w->obj.src->order;
		e->off = w->obj.root->at.off;
		if (job->r->explain_json)
			e->json = sl_explain_json(m, job->cl, w, have ? &a : NULL);
		else {
			struct sl_buf b = SL_BUF_INIT;
			sl_explain_text(&b, m, job->cl, w, have ? &a : NULL);
			e->text = sl_buf_detach(&b);
		}
	} else
		for (unsigned r = 0; r < sl_nrules; r++) {
			const struct sl_rule *rule = sl_rules[r];
			enum sl_level level = c->levels[r];
			if (!rule->check || level == SL_LEVEL_NONE || (rule->needs_nodes && !have))
				continue;
			struct sl_findings *out = &job->found[i];
			size_t from = out->n;
			struct sl_check cx = {m, w, have ? &a : NULL, out, level, job->cl, &job->whatif_left};
			rule->check(rule, &cx);
			for (size_t k = from; k < out->n; k++) {
				if (have)
					sl_note_inventory_gaps(&out->v[k], &job->gaps, w);
				sl_note_suspended(&out->v[k], w);
				sl_note_admission(&out->v[k], w);
				/* A level set by the config is the level of every finding of the rule. */
				if (c->forced[r])
					out->v[k].level = level;
			}
		}
	if (have)
		sl_analysis_free(&a);
}

static void *check_worker(void *arg)
{
	struct check_job *job = arg;
	for (size_t i; (i = atomic_fetch_add(&job->next, 1)) < job->m->nworkloads;)
		check_one(job, i);
	return NULL;
}

/* Every workload of the model, two threads taking them in turn; results merge in order. */
static void check_workloads(struct sl_run *r, const struct sl_model *m, struct sl_cluster *cl, unsigned char *alone,
			    struct explained_list *ex)
{
	size_t nw = m->nworkloads;
	struct check_job job = {.r = r, .m = m, .cl = cl, .alone = alone};
	atomic_init(&job.whatif_left, SL_WHATIF_BUDGET);
	sl_inventory_gaps(m, &job.gaps);
	job.found = sl_xcalloc(nw + 1, sizeof *job.found);
	if (r->explain)
		job.ex = sl_xcalloc(nw + 1, sizeof *job.ex);
	pthread_t helper;
	bool threaded = nw > 1 && pthread_create(&helper, NULL, check_worker, &job) == 0;
	check_worker(&job);
	if (threaded)
		pthread_join(helper, NULL);
	for (size_t i = 0; i < nw; i++) {
		sl_findings_move(&r->fs, &job.found[i]);
		if (job.ex) {
			sl_grow(&ex->v, &ex->cap, ex->n + 1, sizeof *ex->v);
			ex->v[ex->n++] = job.ex[i];
		}
	}
	free(job.found);
	free(job.ex);
}

/* The objects of the target's manifests: policies, and the suppressions they carry. */
struct object_pass {
	struct sl_run *r;
	struct sl_suppress *sup;
	struct sl_findings *errs;
	size_t objects; /* Kubernetes objects (a kind) among the target's manifests */
};

static void each_object(void *ctx, const struct sl_object *o)
{
	struct object_pass *p = ctx;
	p->objects++;
	sl_policies_check(p->r->cfg, o, &p->r->fs, p->errs);
	sl_suppress_object(p->sup, o);
}

/* What reads the manifests' trees besides the model: suppressions and policies. */
static bool source_read(void *ctx, const struct sl_source *src)
{
	(void)ctx;
	return sl_suppress_reads_source(src);
}

static bool object_read(void *ctx, const struct sl_object *o)
{
	const struct sl_run *r = ctx;
	return sl_suppress_reads_object(o) || sl_policies_read(r->cfg, o);
}

static bool key_read(void *ctx, const char *key)
{
	const struct sl_run *r = ctx;
	return sl_policies_read_key(r->cfg, key);
}

/* The config's node groups of the target's cluster, each copied into the model and its fromNode
 * resolved against the target's inventory. */
static void add_groups(struct sl_model *m, struct sl_pool *const *pools, size_t n, struct sl_findings *errs)
{
	for (size_t i = 0; i < n; i++) {
		struct sl_pool *p = sl_pool_copy(pools[i]);
		if (sl_pool_resolve(p, m->nodes, m->nnodes, errs) < 0) {
			sl_pool_free(p);
			continue;
		}
		sl_grow(&m->pools, &m->cappools, m->npools + 1, sizeof *m->pools);
		m->pools[m->npools++] = p;
	}
}

/* Stage model: the target's sources parsed and their objects read and related, in a model of the
 * target's own. Inventories shared by several targets report their input errors once. */
static void model(struct sl_run *r, const struct target *t, struct sl_model *m, struct sl_findings *errs)
{
	struct sl_findings loaded = {0};
	struct sl_tree_readers readers = {source_read, object_read,    key_read,   r->fix || r->keep_bytes,
					  r,           r->parse_cache, r->snippets};
	sl_model_load_many(m, t->loads, t->nloads, &readers, &loaded);
	/* A source the cache's parse stood in for: the cache's takes its place in the run. */
	for (size_t i = 0; i < t->nloads; i++) {
		struct sl_source **at = &r->ss.v[t->loads[i].src->order];
		if (*at != t->loads[i].src) {
			sl_source_free(*at);
			*at = t->loads[i].src;
		}
	}
	const struct sl_target *tg = t->index >= 0 ? &r->cfg->targets[t->index] : NULL;
	bool own = tg && tg->kube_minor;
	/* The gates: the config's, a target's over them, the command line's over both. */
	m->gates = r->cfg->gates;
	if (tg)
		sl_gates_override(&m->gates, &tg->gates);
	sl_gates_override(&m->gates, r->gates);
	sl_model_apply_version(m, r->kube_minor, r->kube_text, own ? tg->kube_minor : r->cfg->kube_minor,
			       own ? tg->kube_text : r->cfg->kube_text, &loaded);
	add_groups(m, tg ? tg->pools : r->cfg->pools, tg ? tg->npools : r->cfg->npools, &loaded);
	for (size_t i = 0; i < loaded.n; i++) {
		struct sl_finding *f = &loaded.v[i];
		if (f->at.src && f->at.src->parsed) {
			sl_finding_free(f);
			continue;
		}
		sl_grow(&errs->v, &errs->cap, errs->n + 1, sizeof *errs->v);
		errs->v[errs->n++] = *f;
		errs->input_errors += !f->rule && f->level == SL_ERROR;
	}
	free(loaded.v);
	for (size_t i = 0; i < t->nloads; i++)
		t->loads[i].src->parsed = true;
	sl_model_bind_pods(m);
}

/* The rules' checks over the whole target, once: budgets on themselves, the release together. */
static void check_model(struct sl_run *r, const struct sl_model *m, struct sl_cluster *cl, const unsigned char *alone)
{
	const struct sl_config *c = r->cfg;
	struct sl_shared shared = {0};
	for (unsigned i = 0; i < sl_nrules; i++) {
		const struct sl_rule *rule = sl_rules[i];
		if (!rule->check_model || c->levels[i] == SL_LEVEL_NONE)
			continue;
		size_t from = r->fs.n;
		struct sl_model_check cx = {m, &r->fs, c->levels[i], cl, alone, &shared};
		rule->check_model(rule, &cx);
		/* A level set by the config is the level of every finding of the rule. */
		for (size_t k = from; c->forced[i] && k < r->fs.n; k++)
			r->fs.v[k].level = c->levels[i];
	}
	if (shared.free_release)
		shared.free_release(shared.release);
}

/* Without a pool the nodes are all the nodes there will be: a finding that rests on them (a rule
 * that needs nodes, reported and not suppressed) would not hold on a cluster that grows, so the
 * report says once, at the first node, that the node set is taken as fixed. */
static void note_fixed_nodes(struct sl_run *r, const struct sl_model *m, size_t from)
{
	if (r->fixed_noted || !m->nnodes || m->npools)
		return;
	size_t i = from;
	while (i < r->fs.n && !(r->fs.v[i].rule && r->fs.v[i].rule->needs_nodes && !r->fs.v[i].supp))
		i++;
	if (i == r->fs.n)
		return;
	const struct sl_node *n = m->nodes[0];
	r->fixed_noted = true;
	sl_input_note(&r->fs, &(n->name_node ? n->name_node : n->root)->at,
		      "the node set is taken as fixed: no node pool (Karpenter NodePool, or nodePools in the "
		      "configuration) is known, so the findings on room and nodes assume no node is ever added");
}

/* A workload Kueue admits through a ClusterQueue whose ResourceFlavors are not among the inputs
 * is judged as its template is written: the nodeLabels and tolerations admission adds are not
 * known. Said once, at that ClusterQueue's first flavor, when a finding rests on the nodes. */
static void note_unknown_flavors(struct sl_run *r, const struct sl_model *m, size_t from)
{
	if (r->flavors_noted || m->nkflavors || !m->nkqueues)
		return;
	const struct sl_kqueue *cq = NULL;
	for (size_t i = 0; i < m->nworkloads && !cq; i++)
		if (sl_wgang(m->workloads[i])->kqueue && sl_wgang(m->workloads[i])->kqueue->nq)
			cq = sl_wgang(m->workloads[i])->kqueue;
	size_t i = from;
	while (cq && i < r->fs.n && !(r->fs.v[i].rule && r->fs.v[i].rule->needs_nodes && !r->fs.v[i].supp))
		i++;
	if (!cq || i == r->fs.n)
		return;
	r->flavors_noted = true;
	sl_input_note(&r->fs, &cq->q[0].node->at,
		      "no ResourceFlavor is among the inputs: the node labels and tolerations Kueue adds to the pods "
		      "it admits through ClusterQueue %s are not applied, and every flavor counts as one its pods can "
		      "take (kubectl get resourceflavors -o yaml adds them)",
		      cq->obj.name);
}

/* The suppression comments of a file a rendered kustomization's findings were moved to. */
static void suppress_file(void *ctx, const struct sl_source *src, const struct sl_ystream *ys)
{
	sl_suppress_source(ctx, src, ys);
}

/* The rules that need a node inventory did not run on a target without one: said, with their
 * names and how to give one, so that a run without --nodes does not pass for a whole check. */
static void note_rules_not_run(struct sl_run *r, const struct target *t)
{
	struct sl_buf names = SL_BUF_INIT;
	size_t n = 0;
	for (unsigned i = 0; i < sl_nrules; i++)
		if (sl_rules[i]->needs_nodes && r->cfg->levels[i] != SL_LEVEL_NONE)
			sl_buf_printf(&names, "%s%s", n++ ? ", " : "", sl_rules[i]->id);
	const char *target = t->index >= 0 ? r->cfg->targets[t->index].name : NULL;
	if (n)
		sl_notice_add(&r->notices, "rules-not-run", SL_NOTE,
			      "%s%s%s%zu rule%s did not run without a node inventory: %s; give one with --nodes FILE "
			      "(kubectl get nodes -o yaml > FILE)",
			      target ? "target " : "", target ? target : "", target ? ": " : "", n, n == 1 ? "" : "s",
			      sl_buf_str(&names));
	sl_buf_free(&names);
}

/* Pods that claim devices on a target whose inventory holds no ResourceSlice: DynamicResources
 * was not judged (an allocation cannot be proven impossible, nor possible), and the report says
 * so once per target, with how to capture the devices. */
static void note_dra_not_checked(struct sl_run *r, const struct sl_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nworkloads; i++)
		n += m->workloads[i]->pod.nclaims > 0;
	if (n && m->nnodes && m->dra.nslices && !m->dra.nclasses)
		sl_notice_add(
		    &r->notices, "dra-not-checked", SL_NOTE,
		    "%zu workload%s claim%s devices but the inventory holds no DeviceClass: their claims were "
		    "not checked; add the cluster's classes with kubectl get deviceclasses -o yaml",
		    n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	if (n && m->nnodes && !m->dra.nslices)
		sl_notice_add(
		    &r->notices, "dra-not-checked", SL_NOTE,
		    "%zu workload%s claim%s devices (spec.resourceClaims) but the inventory holds no ResourceSlice: "
		    "their claims were not checked; add the cluster's devices with kubectl get "
		    "resourceslices,deviceclasses,resourceclaims -A -o yaml",
		    n, n == 1 ? "" : "s", n == 1 ? "s" : "");
}

/* Stage check: every workload through the rules (or --explain), the manifests' objects through
 * the policies, the suppressions applied; the findings then carry the target's name, and no longer
 * the model, which goes next. */
static size_t check(struct sl_run *r, const struct target *t, const struct sl_model *m, struct sl_suppress *sup,
		    struct sl_findings *errs, struct explained_list *ex)
{
	size_t objects = 0;
	size_t from = r->fs.n;
	struct sl_cluster *cl = m->nnodes ? sl_cluster_new(m) : NULL;
	unsigned char *alone = sl_xcalloc(m->nworkloads + 1, sizeof *alone);
	check_workloads(r, m, cl, alone, ex);
	if (!r->explain)
		check_model(r, m, cl, alone);
	else if (cl) {
		/* The release view comes after the target's workloads. */
		struct sl_buf b = SL_BUF_INIT;
		cJSON *json = NULL;
		sl_release_explain(m, cl, alone, t->index >= 0 ? r->cfg->targets[t->index].name : NULL, &b,
				   r->explain_json ? &json : NULL);
		if (b.len || json) {
			sl_grow(&ex->v, &ex->cap, ex->n + 1, sizeof *ex->v);
			ex->v[ex->n++] = (struct sl_explained){SIZE_MAX, (size_t)t->index + 1,
							       json ? NULL : sl_buf_detach(&b), json};
		}
		sl_buf_free(&b);
	}
	free(alone);
	sl_cluster_free(cl);
	if (!r->explain) {
		sl_suppress_begin(sup, t->index, m->nnodes > 0);
		struct object_pass op = {r, sup, errs, 0};
		for (size_t i = 0; i < t->nloads; i++) {
			if (t->loads[i].role != SL_ROLE_MANIFESTS || t->loads[i].src->failed ||
			    t->loads[i].src->skipped)
				continue;
			sl_suppress_source(sup, t->loads[i].src, &m->streams[i]);
			sl_stream_objects(&m->streams[i], each_object, &op);
		}
		/* Findings on a rendered kustomization go to its files first: the config's ignore
		 * entries match the path they are reported at, and those files' comments count. */
		sl_kz_map_findings(&r->ss, &r->fs, from, suppress_file, sup);
		sl_suppress_apply(sup, &r->fs, from);
		note_fixed_nodes(r, m, from);
		note_unknown_flavors(r, m, from);
		if (op.objects && !m->nnodes)
			note_rules_not_run(r, t);
		note_dra_not_checked(r, m);
		objects = op.objects;
	}
	const char *name = t->index >= 0 ? r->cfg->targets[t->index].name : NULL;
	for (size_t i = from; i < r->fs.n; i++) {
		r->fs.v[i].subject = NULL; /* the model goes now */
		r->fs.v[i].target = name;
	}
	return objects;
}

static void add_load(struct target *t, struct sl_source *src, enum sl_input_role role)
{
	sl_grow(&t->loads, &t->cap, t->nloads + 1, sizeof *t->loads);
	t->loads[t->nloads++] = (struct sl_load){src, role};
	t->nmanifests += role == SL_ROLE_MANIFESTS;
}

/* Read an inventory file once, whichever targets name it. */
static void add_inventory(struct sl_run *r, struct target *t, const char *path, enum sl_input_role role, bool cli,
			  struct sl_findings *errs)
{
	for (size_t i = 0; i < r->ss.n; i++)
		if (!strcmp(r->ss.v[i]->path, path) && strcmp(path, "-")) {
			/* Read and indexed here: a source the target loads twice (a manifest that is its
			 * inventory too) must not be read by two parsing threads at once, nor lose the
			 * bytes of a document one parse drops while another reads them. */
			sl_source_read(r->ss.v[i], errs);
			sl_source_index(r->ss.v[i]);
			r->ss.v[i]->shared = true;
			add_load(t, r->ss.v[i], role);
			return;
		}
	size_t first = r->ss.n;
	r->ss.as_given = true;
	r->ss.role = role == SL_ROLE_NODES ? (cli ? "the --nodes inventory" : "the config's nodes inventory")
					   : (cli ? "the --pods inventory" : "the config's pods inventory");
	sl_input_add(&r->ss, path, errs, NULL);
	r->ss.as_given = false;
	r->ss.role = NULL;
	for (size_t i = first; i < r->ss.n; i++)
		add_load(t, r->ss.v[i], role);
}

/* cli: which of nodes (1) and pods (2) come from --nodes and --pods rather than the config, for the
 * errors reading them to say. */
static void add_inventories(struct sl_run *r, struct target *t, char *const *nodes, size_t nn, char *const *pods,
			    size_t np, int cli, struct sl_findings *errs)
{
	for (size_t i = 0; i < nn; i++)
		add_inventory(r, t, nodes[i], SL_ROLE_NODES, cli & 1, errs);
	for (size_t i = 0; i < np; i++)
		add_inventory(r, t, pods[i], SL_ROLE_PODS, cli & 2, errs);
}

static int skip_excluded(void *ctx, const char *path, int is_dir)
{
	struct sl_run *r = ctx;
	char *rel = sl_config_relpath(r->cfg, path);
	if (is_dir) { /* "dir/" so that a pattern on what is under it leaves the directory out */
		char *d = sl_xasprintf("%s/", rel);
		free(rel);
		rel = d;
	}
	int rc = sl_config_excluded(r->cfg, rel, &r->fs);
	free(rel);
	return rc;
}

/* Input errors first, in the order of their sources (the config's before all); then rule
 * findings in the order of the objects they are about. Stable: a source's own keep theirs. */
struct rank {
	size_t group, src, off, seq;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t src_rank(const struct sl_run *r, const struct sl_source *s)
{
	if (!s)
		return 0;
	if (s->order < r->ss.n && r->ss.v[s->order] == s)
		return s->order + 1;
	return 0; /* the config's */
}

static void order_findings(struct sl_run *r)
{
	struct sl_findings *fs = &r->fs;
	if (fs->n < 2)
		return;
	struct rank *k = sl_xcalloc(fs->n, sizeof *k);
	for (size_t i = 0; i < fs->n; i++) {
		const struct sl_finding *f = &fs->v[i];
		k[i].seq = i;
		k[i].group = f->rule != NULL;
		if (!f->rule) {
			k[i].src = src_rank(r, f->at.src);
			continue;
		}
		k[i].src = src_rank(r, f->subj_src ? f->subj_src : f->at.src);
		k[i].off = f->subj_src ? f->subj_off : f->at.off;
	}
	qsort(k, fs->n, sizeof *k, cmp_rank);
	struct sl_finding *v = sl_xcalloc(fs->n, sizeof *v);
	for (size_t i = 0; i < fs->n; i++)
		v[i] = fs->v[k[i].seq];
	memcpy(fs->v, v, fs->n * sizeof *v);
	free(v);
	free(k);
}

static int cmp_explained(const void *a, const void *b)
{
	const struct sl_explained *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The sources from first on, each to the target its path falls in (a rendered kustomization's:
 * its kustomization file's). */
static void add_manifests(struct sl_run *r, struct target *ts, size_t first)
{
	struct sl_config *c = r->cfg;
	for (size_t s = first; s < r->ss.n; s++) {
		int t = -1;
		if (c->ntargets && !r->ss.v[s]->failed) {
			const struct sl_kz_rendered *kr = sl_kz_rendered_of(&r->ss.kz, r->ss.v[s]);
			char *rel = sl_config_relpath(c, kr ? kr->file : r->ss.v[s]->path);
			t = sl_config_target_of(c, rel, &r->fs);
			free(rel);
		}
		add_load(&ts[t + 1], r->ss.v[s], SL_ROLE_MANIFESTS);
	}
}

/* Stage load: every input read (or left for a parsing thread to read) and given to its targets:
 * the default target's inventories first, so that their errors come first (the command line's,
 * or else the config's), then the manifests, each to the target its path falls in, then the
 * inventories of the targets that have manifests. Returns the targets, [0] the default one. */
static struct target *load(struct sl_run *r, const char *const *nodes, size_t nnodes, const char *const *pods,
			   size_t npods, char *const *paths, size_t npaths)
{
	struct sl_config *c = r->cfg;
	size_t nt = c->ntargets + 1;
	struct target *ts = sl_xcalloc(nt, sizeof *ts);
	r->ss.defer_reading = true; /* files are read where they are parsed, several at a time */
	r->ss.overlay = r->overlay;
	r->ss.record_origin = r->fix; /* where each file was read, for the writer to check */
	for (size_t i = 0; i < nt; i++)
		ts[i].index = (int)i - 1;
	add_inventories(r, &ts[0], nnodes ? (char *const *)nodes : c->nodes, nnodes ? nnodes : c->nnodes,
			npods ? (char *const *)pods : c->pods, npods ? npods : c->npods,
			(nnodes > 0) | (npods > 0) << 1, &r->fs);
	struct sl_input_filter filter = {skip_excluded, r};
	/* Each path's stat asked ahead, several at a time; the paths are still added in order. */
	struct sl_path_stat *known = sl_xcalloc(npaths + 1, sizeof *known);
	sl_input_stat_many(paths, npaths, known);
	/* The language server does not render: a change in an editor is not worth a kustomize build. */
	sl_kz_setup(&r->ss.kz, c->kustomize, c->kustomize_off || r->overlay,
		    r->overlay ? "the language server does not render" : "render.kustomize is off");
	for (size_t i = 0; i < npaths; i++) {
		size_t first = r->ss.n;
		if (!strcmp(paths[i], "-")) /* piped in on purpose: not subject to exclude */
			sl_input_add_stdin(&r->ss, r->stdin_name ? r->stdin_name : "-", &r->fs);
		else
			sl_input_add_stated(&r->ss, paths[i], &known[i], &r->fs, c->nexclude ? &filter : NULL);
		add_manifests(r, ts, first);
	}
	free(known);
	/* The kustomizations found, rendered once every path is in: one may use another. */
	size_t first = r->ss.n;
	sl_input_render(&r->ss, &r->fs);
	add_manifests(r, ts, first);
	for (size_t i = 0; i < c->ntargets; i++)
		if (ts[i + 1].nmanifests)
			add_inventories(r, &ts[i + 1], c->targets[i].nodes, c->targets[i].nnodes, c->targets[i].pods,
					c->targets[i].npods, 0, &r->fs);
	return ts;
}

/* Whether a finding's fixes touch a source whose bytes are lost. */
static bool fix_lost(const struct sl_fix *fx)
{
	for (size_t k = 0; k < fx->nedits; k++)
		if (fx->edits[k].at.src && sl_source_lost(fx->edits[k].at.src))
			return true;
	return false;
}

static void want_text(const struct sl_span *at)
{
	if (at->src && at->end > at->off)
		(void)sl_source_text(at->src);
}

/* The findings whose snippets are read again, taken in turn by two threads. */
struct snippet_queue {
	const struct sl_findings *fs;
	atomic_size_t next;
};

static void *read_snippets(void *arg)
{
	struct snippet_queue *q = arg;
	for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->fs->n;) {
		const struct sl_finding *f = &q->fs->v[i];
		want_text(&f->at);
		for (size_t k = 0; k < f->nrelated; k++)
			want_text(&f->related[k].at);
		for (size_t k = 0; k < f->nsupp; k++)
			want_text(&f->supp[k].at);
	}
	return NULL;
}

/* The sources whose bytes were given back after the parse and could not be read back the same
 * (the file changed, or went, meanwhile): one input error each, and no fix that edits them (a fix
 * made without the bytes is not one to trust). The report's snippets are read first, so that a
 * change only they would meet is reported too: on two threads, as every file the report quotes
 * is read again (an open, an fstat and a read each; thousands on a large repository), and
 * sl_source_text lets two threads ask for the same file. Whether a file is lost does not depend
 * on which thread read it. */
static void lost_sources(struct sl_run *r)
{
	if (r->snippets) {
		struct snippet_queue q = {&r->fs, 0};
		pthread_t helper;
		bool threaded = r->fs.n > 1 && pthread_create(&helper, NULL, read_snippets, &q) == 0;
		read_snippets(&q);
		if (threaded)
			pthread_join(helper, NULL);
	}
	bool any = false;
	for (size_t s = 0; s < r->ss.n; s++) {
		if (!sl_source_lost(r->ss.v[s]))
			continue;
		struct sl_span at;
		sl_source_span(r->ss.v[s], 0, 0, &at);
		sl_input_error(&r->fs, &at,
			       "changed while schedlint was checking it: its fixes and snippets are left out");
		any = true;
	}
	for (size_t i = 0; any && i < r->fs.n; i++) {
		struct sl_finding *f = &r->fs.v[i];
		size_t kept = 0;
		for (size_t j = 0; j < f->nfixes; j++) {
			if (fix_lost(&f->fixes[j]))
				sl_fix_free(&f->fixes[j]);
			else
				f->fixes[kept++] = f->fixes[j];
		}
		f->nfixes = kept;
	}
}

/* After every target: the suppressions that suppressed nothing, the sources lost since the parse,
 * the report's order, and --explain's text or JSON in the order of the workloads. */
static void finish(struct sl_run *r, struct sl_suppress *sup, struct explained_list *ex)
{
	if (!r->explain)
		sl_suppress_unused(sup, &r->fs);
	sl_kz_map_findings(&r->ss, &r->fs, 0, NULL, NULL); /* the rest: input errors, unused suppressions */
	lost_sources(r);
	order_findings(r);
	if (!r->explain)
		return;
	if (ex->n) /* qsort takes no NULL array, even empty */
		qsort(ex->v, ex->n, sizeof *ex->v, cmp_explained);
	if (r->explain_json)
		r->explained_json = cJSON_CreateArray();
	for (size_t i = 0; i < ex->n; i++) {
		if (ex->v[i].json)
			cJSON_AddItemToArray(r->explained_json, ex->v[i].json);
		if (ex->v[i].text) {
			if (r->explained.len && *ex->v[i].text)
				sl_buf_putc(&r->explained, '\n');
			sl_buf_puts(&r->explained, ex->v[i].text);
			free(ex->v[i].text);
		}
	}
}

/* Whether the run ends here: what it lints has changed since it began (see run.h). */
static bool cancel(struct sl_run *r)
{
	if (!r->cancelled && r->stale && r->stale(r->stale_ctx))
		r->cancelled = true;
	return r->cancelled;
}

/* A model freed behind the run's back: on the corpus x10 freeing it object by object takes one core
 * 50 ms, which the report (or the next target's parse) can use the other core for. Nothing
 * after the checks points into a model (check() cuts the findings' last link), and a freeing
 * thread only gives memory back. */
struct sl_model_drop {
	struct sl_model m;
	pthread_t thread;
	bool threaded;
};

static void *drop_model(void *arg)
{
	sl_model_free(arg);
	return NULL;
}

static void drop_wait(struct sl_run *r)
{
	if (!r->dropping)
		return;
	if (r->dropping->threaded)
		pthread_join(r->dropping->thread, NULL);
	free(r->dropping);
	r->dropping = NULL;
}

/* m freed on a thread (or at once when none can be made), the model before it first: one model
 * at a time is given back, so that a run of many targets holds at most two. */
static void drop(struct sl_run *r, struct sl_model *m)
{
	drop_wait(r);
	/* The trees first, at once (a few unmapped chunks, most of a model's memory): the report
	 * written meanwhile (SARIF's snippets read files again) does not add to them. Nothing reads a
	 * node once the checks are done. */
	sl_model_free_trees(m);
	struct sl_model_drop *d = sl_xmalloc(sizeof *d);
	d->m = *m;
	memset(m, 0, sizeof *m);
	d->threaded = pthread_create(&d->thread, NULL, drop_model, &d->m) == 0;
	if (!d->threaded)
		sl_model_free(&d->m);
	r->dropping = d;
}

void sl_run(struct sl_run *r, const char *const *nodes, size_t nnodes, const char *const *pods, size_t npods,
	    char *const *paths, size_t npaths)
{
	size_t nt = r->cfg->ntargets + 1;
	struct target *ts = load(r, nodes, nnodes, pods, npods, paths, npaths);
	struct sl_suppress sup;
	sl_suppress_init(&sup, r->cfg);
	struct explained_list ex = {0};
	size_t objects = 0;
	for (size_t i = 0; i < nt; i++) {
		/* A target none of whose files is in this run is not checked (its inventory is not
		 * even read); the default one is, without targets, as it always was. */
		if (!ts[i].nmanifests && (i || r->cfg->ntargets))
			continue;
		if (cancel(r))
			break;
		struct sl_model m = {0};
		model(r, &ts[i], &m, &r->fs);
		if (!cancel(r)) /* the parsing is done: the rules are the other half */
			objects += check(r, &ts[i], &m, &sup, &r->fs, &ex);
		drop(r, &m);
		if (r->cancelled)
			break;
	}
	/* Nothing to check, and no input error that says why: not a pass in silence. */
	if (!r->cancelled && !r->explain && !objects && !r->fs.input_errors)
		sl_notice_add(
		    &r->notices, "no-manifest", SL_WARNING,
		    "no Kubernetes object (a YAML or JSON document with a kind) among the inputs: nothing was "
		    "checked");
	if (!r->cancelled)
		finish(r, &sup, &ex);
	else
		for (size_t i = 0; i < ex.n; i++) {
			free(ex.v[i].text);
			cJSON_Delete(ex.v[i].json);
		}
	sl_suppress_free(&sup);
	for (size_t i = 0; i < nt; i++)
		free(ts[i].loads);
	free(ts);
	free(ex.v);
}

static void *free_findings(void *arg)
{
	sl_findings_free(arg);
	return NULL;
}

void sl_run_free(struct sl_run *r)
{
	drop_wait(r);
	cJSON_Delete(r->explained_json);
	sl_buf_free(&r->explained);
	sl_notices_free(&r->notices);
	/* The findings and the sources side by side, on two threads: on the corpus x10 each is tens of
	 * thousands of blocks, cold in the caches by now, the last thing a run does. A finding's span
	 * points at a source but freeing it does not look there. Few findings are freed at once. */
	pthread_t helper;
	bool threaded = r->fs.n >= 1024 && pthread_create(&helper, NULL, free_findings, &r->fs) == 0;
	if (!threaded)
		sl_findings_free(&r->fs);
	sl_sources_free(&r->ss);
	if (threaded)
		pthread_join(helper, NULL);
}
