/* model_parse.c — a model's sources parsed two at a time (see model.h): each read, parsed and
 * its objects loaded into a part of its own by whichever of two threads takes it, the parts
 * merged in source order so that the result does not depend on the timing. An inventory that is
 * one large List is parsed in two pieces, one on each thread (ysplit.h), and loaded once joined. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../load/input.h"
#include "../load/manifest.h"
#include "../load/ysplit.h"
#include "model.h"
#include "model_load.h"
#include "parsecache.h"
#include "treeneed.h"

/* Files smaller than this keep their bytes when the report quotes them (sl_tree_readers.quoted). */
#define SL_QUOTED_KEEP 1024

/* A source parsed in two pieces: each into a stream and an arena of its own, the second offered to
 * whichever thread is free first. The arenas go to the model (their nodes are the tree's) unless
 * the pieces do not join; then the first serves a parse of the whole. */
struct parse_split {
	struct sl_ypiece pc[2];
	struct sl_ystream ys[2];
	struct sl_findings errs[2];
	int rc[2];
	struct sl_yarena *arena[2];
	/* Each piece's items loaded by the thread that parsed it, into a part and errors of their own:
	 * taken when the joined document is a List, whose items are read one by one. */
	struct sl_model *part[2];
	struct sl_findings lerrs[2];
	int lrc[2];
	atomic_int left; /* pieces not parsed yet: the thread that parses the last one joins them */
};

struct parse_job {
	const struct sl_load *in;
	const struct sl_tree_readers *readers;
	struct sl_ystream *ys;
	struct sl_findings errs; /* the source's input errors: parsing's, then loading's */
	/* What the source holds, merged into the model in source order; NULL when it holds nothing.
	 * Allocated by the parsing thread, as the job itself is set up there: a run of thousands of
	 * files would otherwise touch megabytes of fresh memory on one thread before the parse. */
	struct sl_model *part;
	int rc;
	/* With a parse cache: the entry this source may take (its bytes permitting), whether its own
	 * parse may be kept, and what came of it: taken, or to be kept. */
	struct sl_parsed *cached;
	bool cacheable, hit, store;
	bool splits;           /* an inventory that may be parsed in two pieces (split, when it is) */
	struct sl_source *src; /* the source parsed: in->src, or the cache's when taken */
	bool release;          /* nothing reads its bytes whole after the load: they go (source.h) */
	bool quoted;           /* a small file the report may quote: they go with their hash */
	struct parse_split *split;
	/* The parts of the jobs after this one, merged while it was still parsing (a job that may
	 * split is taken last: see order): they follow its part into the model. */
	struct sl_model *after;
	atomic_bool done; /* part is complete: the thread that completed it is done with the job */
};

struct parse_queue {
	struct parse_job *jobs;
	struct sl_load *loads;                 /* jobs[i] parses loads[i] */
	struct sl_ystream *streams;            /* into streams[i] */
	const struct sl_tree_readers *readers; /* for every job */
	size_t n;
	/* The jobs in the order they are taken: those that may split after the others, so that the
	 * last large source, cut in two, evens out what each thread had before (a 7 MB manifest
	 * taken last by one thread kept the other idle for a tenth of a second). */
	size_t *order;
	atomic_size_t next;
	/* Where the parts go, and how many jobs' parts went (the calling thread's to read and write:
	 * it merges as it goes, in source order): the model being loaded, or the `after` of the last
	 * job passed while it was still parsing. */
	struct sl_model *into;
	size_t merged;
	/* The jobs whose second pieces wait for a thread, and how many jobs that may offer one have
	 * not yet decided (a thread with no job left waits for them): under lock, cv told of each. */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct parse_job **offered;
	atomic_size_t noffered; /* read without the lock to tell whether to take it */
	size_t deciding;
};

/* A parsing thread, with the arena its trees go to; merges: the calling thread, which merges
 * the parts completed so far, in source order, after each of its jobs. */
struct parse_thread {
	struct parse_queue *q;
	struct sl_yarena *arena;
	bool merges;
};

/* The cache's parse of the same bytes, in place of parsing them again: the fresh source is left
 * to the caller, the cache's takes its place in the run. */
static void take_cached(struct parse_job *j)
{
	struct sl_source *fresh = j->in->src, *src = j->cached->src;
	src->order = fresh->order;
	src->parsed = false;
	src->skipped = j->cached->skipped;
	src->cache = fresh->cache;
	*j->ys = j->cached->ys;
	j->ys->borrowed = true;
	j->src = src;
	j->hit = true;
}

/* The documents' array cut to its size: it lives as long as the model, and most files hold one
 * document where the array grew room for four. */
static void trim_docs(struct sl_ystream *ys)
{
	if (ys->cap > ys->n && ys->n) {
		ys->docs = sl_xrealloc(ys->docs, ys->n * sizeof *ys->docs);
		ys->cap = ys->n;
	}
}

/* Parse j's source (read already) into its stream; true when it holds objects to load. */
static bool parse_source(struct parse_job *j, struct sl_yarena *arena)
{
	struct sl_source *src = j->src;
	/* A parse to keep goes to an arena of its own, the cache frees it alone, sized by the source
	 * (a tree takes a few times the bytes it is parsed from). */
	j->ys->shared = j->cacheable ? NULL : arena;
	j->ys->own.first = src->len < 4096 ? 4096 : src->len < 65536 ? src->len / 1024 * 1024 + 1024 : 65536;
	sl_source_index(src);
	if (src->failed || src->skipped)
		return false;
	struct sl_tree_need need = {j->readers, false, false, false, false, SL_BRACES_INIT, false, "", false};
	if (j->readers && j->in->role == SL_ROLE_MANIFESTS) {
		/* Every value is built where a tree is read whole (a suppression comment may be in any
		 * of it) or "{{" is in the text (telling a Go template's from text in a string needs
		 * every scalar); only the former keeps every document. */
		need.all = j->readers->source && j->readers->source(j->readers->ctx, src);
		need.braces = !need.all && sl_manifest_has_braces(src);
		bool whole = need.all || need.braces;
		/* The bytes of a document not kept are forgotten as it ends, unless "{{" are still to
		 * be looked for in them (after the last document, by sl_manifest_screen). */
		bool forget = !whole && !j->readers->all_bytes && !src->shared;
		struct sl_yfilter f = {sl_tree_needed, &need, whole ? NULL : sl_unread_value, forget, sl_unread_in};
		j->rc = sl_yaml_parse_some(src, j->ys, &j->errs, &f);
		/* What reads the bytes after the load (a fix's edits, a snippet) reads few sources,
		 * and reads them again; standard input cannot be. A small file the report quotes goes
		 * too, with its bytes' hash (sl_source_release_summed), unless nothing in it can be
		 * quoted (no document kept, no object a finding could point at, and no input error):
		 * read again after the checks, when memory is past its peak, it is told unchanged
		 * without an fstat. */
		j->quoted = j->readers->quoted && src->len < SL_QUOTED_KEEP && (j->ys->n || j->errs.n);
		j->release = (forget || (need.braces && !j->readers->all_bytes && !src->shared)) && !src->from_stdin &&
			     !j->cacheable;
	} else
		j->rc = sl_yaml_parse_keep(src, j->ys, &j->errs, sl_model_keep_paths(j->in->role));
	trim_docs(j->ys);
	/* What the search for "{{" before the parse found: none at all (the text is not searched
	 * again), or where the documents' scalars do not tell. */
	const struct sl_braces *br = need.braces ? &need.br : j->readers && !need.all ? &sl_braces_none : NULL;
	bool skip =
	    j->in->role == SL_ROLE_MANIFESTS && sl_manifest_screen(src, j->ys, br, need.object, &j->errs, &j->rc);
	/* Only a parse without errors is kept: parsing again reports them again. */
	j->store = j->cacheable && j->rc == 0 && !j->errs.n && !j->ys->hostile;
	return !skip;
}

/* --- A large inventory in two pieces ----------------------------------------------------- */

/* Whether j's source (read) is cut (ysplit.h): then its second piece is offered. Either way the
 * threads waiting for offers are told that j has decided. */
static bool offer_split(struct parse_queue *q, struct parse_job *j)
{
	struct sl_source *src = j->src;
	size_t cut = 0;
	bool cuts = false;
	if (!src->failed && !src->shared && src->len >= SL_YSPLIT_MIN) {
		sl_source_index(src);
		cuts = sl_ysplit_find(src, &cut);
	}
	if (cuts) {
		struct parse_split *s = j->split = sl_xcalloc(1, sizeof *s);
		sl_ysplit_pieces(src, cut, &s->pc[0], &s->pc[1]);
		for (int k = 0; k < 2; k++) {
			s->arena[k] = sl_xcalloc(1, sizeof *s->arena[k]);
			s->ys[k].shared = s->arena[k];
		}
		atomic_init(&s->left, 2);
	}
	pthread_mutex_lock(&q->lock);
	q->deciding--;
	if (cuts)
		q->offered[atomic_fetch_add(&q->noffered, 1)] = j;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->lock);
	return cuts;
}

/* An offered job whose second piece is to be parsed: the newest offer, or j's own when no thread
 * took it (NULL then: taken). */
static struct parse_job *take_offer(struct parse_queue *q, struct parse_job *j)
{
	if (!atomic_load(&q->noffered))
		return NULL;
	struct parse_job *got = NULL;
	pthread_mutex_lock(&q->lock);
	size_t n = atomic_load(&q->noffered);
	for (size_t i = n; i-- > 0 && !got;)
		if (!j || q->offered[i] == j) {
			got = q->offered[i];
			q->offered[i] = q->offered[n - 1];
			atomic_store(&q->noffered, n - 1);
		}
	pthread_mutex_unlock(&q->lock);
	return got;
}

/* With no job left to take: wait until a second piece is offered (true) or no job can offer one. */
static bool await_offer(struct parse_queue *q)
{
	pthread_mutex_lock(&q->lock);
	while (!atomic_load(&q->noffered) && q->deciding)
		pthread_cond_wait(&q->cv, &q->lock);
	bool offered = atomic_load(&q->noffered) > 0;
	pthread_mutex_unlock(&q->lock);
	return offered;
}

/* The pieces' parts and their errors, not taken. */
static void drop_parts(struct parse_split *s)
{
	for (int k = 0; k < 2; k++) {
		if (s->part[k]) {
			sl_model_free(s->part[k]);
			free(s->part[k]);
			s->part[k] = NULL;
		}
		sl_findings_free(&s->lerrs[k]);
	}
}

/* The pieces' parts as j's, in order, when j's joined document is a List (what loading it whole
 * would have read: each item alone, in order); true when they were. */
static bool take_parts(struct parse_job *j)
{
	struct parse_split *s = j->split;
	if (!s->part[0] || !s->part[1] || !sl_model_is_list(j->src, j->ys->docs[0].root)) {
		drop_parts(s);
		return false;
	}
	for (int k = 0; k < 2; k++) {
		sl_findings_move(&j->errs, &s->lerrs[k]);
		j->rc |= s->lrc[k];
	}
	sl_model_merge(s->part[0], s->part[1]);
	j->part = s->part[0];
	s->part[0] = s->part[1] = NULL;
	return true;
}

/* The pieces joined into j's stream, or, when they do not join, the source parsed whole there.
 * True when their parts are the job's: its objects are loaded. */
static bool join_pieces(struct parse_job *j)
{
	struct parse_split *s = j->split;
	bool clean = !s->rc[0] && !s->rc[1] && !s->errs[0].n && !s->errs[1].n;
	if (clean && sl_ysplit_join(&s->ys[0], &s->ys[1], &s->pc[0], &s->pc[1], s->arena[0])) {
		*j->ys = s->ys[0];
		s->ys[0] = (struct sl_ystream){0};
		sl_ystream_free(&s->ys[1]); /* its documents' array: the nodes stay in its arena */
		trim_docs(j->ys);
		return take_parts(j);
	}
	for (int k = 0; k < 2; k++) {
		sl_ystream_free(&s->ys[k]);
		sl_findings_free(&s->errs[k]);
		sl_yarena_free(s->arena[k]);
	}
	free(s->arena[1]);
	s->arena[1] = NULL;
	j->ys->shared = s->arena[0]; /* emptied: the whole's arena now */
	j->rc = sl_yaml_parse_keep(j->src, j->ys, &j->errs, sl_model_keep_paths(j->in->role));
	trim_docs(j->ys);
	drop_parts(s);
	return false;
}

static void load_job(struct parse_job *j);

/* Piece k parsed, and its items loaded: the pieces load on both threads, like they parse. */
static void parse_piece(struct parse_job *j, int k)
{
	struct parse_split *s = j->split;
	s->rc[k] = sl_yaml_parse_piece(j->src, &s->pc[k], &s->ys[k], &s->errs[k], sl_model_keep_paths(j->in->role));
	if (s->rc[k] || s->errs[k].n || s->ys[k].n != 1)
		return;
	const struct sl_ynode *items = sl_ymap_get(s->ys[k].docs[0].root, "items");
	if (!items || items->kind != SL_YSEQ)
		return;
	s->part[k] = sl_xcalloc(1, sizeof *s->part[k]);
	s->lrc[k] = sl_model_load_items(s->part[k], j->src, &s->lerrs[k], items, j->in->role);
}

/* One of j's pieces is parsed: the thread that parsed the last of the two completes the job. */
static void finish_piece(struct parse_job *j)
{
	if (atomic_fetch_sub_explicit(&j->split->left, 1, memory_order_acq_rel) != 1)
		return;
	if (!join_pieces(j))
		load_job(j);
	atomic_store_explicit(&j->done, true, memory_order_release);
}

/* j split: its first piece parsed by the thread that read it, and its second too when no other
 * thread has taken that meanwhile. */
static void run_split(struct parse_queue *q, struct parse_job *j)
{
	parse_piece(j, 0);
	if (take_offer(q, j) == j) {
		parse_piece(j, 1);
		finish_piece(j);
	}
	finish_piece(j);
}

/* What the model keeps of a job's split: its arenas (unless none was kept). */
static void settle_split(struct sl_model *m, struct parse_job *j)
{
	struct parse_split *s = j->split;
	if (!s)
		return;
	for (int k = 0; k < 2; k++) {
		if (!s->arena[k])
			continue;
		sl_yarena_trim(s->arena[k]);
		sl_grow(&m->arenas, &m->caparenas, m->narenas + 1, sizeof *m->arenas);
		m->arenas[m->narenas++] = s->arena[k];
	}
	free(s);
	j->split = NULL;
}

/* The objects of j's documents into a part of its own; its bytes released when nothing reads
 * them again. */
static void load_job(struct parse_job *j)
{
	if (j->src->skipped)
		return;
	if (j->ys->n)
		j->part = sl_xcalloc(1, sizeof *j->part);
	for (size_t d = 0; d < j->ys->n; d++)
		if (sl_model_load_doc(j->part, j->src, &j->errs, j->ys->docs[d].root, j->in->role) < 0)
			j->rc = -1;
	if (j->release && j->quoted)
		sl_source_release_summed(j->src);
	else if (j->release)
		sl_source_release(j->src);
}

/* Job i: its source read, parsed and loaded into a part of its own. False when the job is not
 * complete yet: split, it is completed by the thread that parses its last piece. */
static bool run_job(struct parse_thread *t, size_t i)
{
	struct parse_queue *q = t->q;
	struct parse_job *j = &q->jobs[i];
	j->in = &q->loads[i];
	j->readers = q->readers;
	j->ys = &q->streams[i];
	memset(j->ys, 0, sizeof *j->ys);
	j->ys->shared = t->arena;
	j->src = j->in->src;
	if (sl_source_read(j->src, &j->errs) < 0)
		j->rc = -1;
	if (j->splits && offer_split(q, j)) {
		run_split(q, j);
		return false;
	}
	if (j->cached && sl_parse_cache_matches(j->cached, j->src))
		take_cached(j);
	else if (!parse_source(j, t->arena))
		return true;
	load_job(j);
	return true;
}

/* The parts completed so far, in source order. A part is a whole model (a kilobyte and more) for
 * each source: merged as soon as those before it are, parts do not pile up for the length of the
 * parse. A job that may split, still parsing (taken last), is passed: the parts after it go to its
 * `after`, which follows it when the parse is over (merging appends, so this is the same). */
static void merge_done(struct parse_queue *q)
{
	while (q->merged < q->n) {
		struct parse_job *j = &q->jobs[q->merged];
		if (atomic_load_explicit(&j->done, memory_order_acquire)) {
			sl_model_merge(q->into, j->part);
			j->part = NULL;
		} else if (j->splits) {
			j->after = q->into = sl_xcalloc(1, sizeof *j->after);
		} else
			return;
		q->merged++;
	}
}

static void *parse_worker(void *arg)
{
	struct parse_thread *t = arg;
	struct parse_queue *q = t->q;
	for (;;) {
		/* A second piece first: it is a large source's half, where the queue has the rest. */
		struct parse_job *offer = take_offer(q, NULL);
		size_t i;
		if (offer) {
			parse_piece(offer, 1);
			finish_piece(offer);
		} else if ((i = atomic_fetch_add(&q->next, 1)) < q->n) {
			i = q->order[i];
			if (run_job(t, i))
				atomic_store_explicit(&q->jobs[i].done, true, memory_order_release);
		} else if (!await_offer(q))
			break;
		if (t->merges)
			merge_done(q);
	}
	return NULL;
}

/* Which sources may use the cache: read from a file (not shared by two loads, whose trees one
 * parse must serve both), in a run that keeps every byte. */
static void claim_cached(struct parse_job *jobs, const struct sl_load *v, size_t n,
			 const struct sl_tree_readers *readers)
{
	struct sl_parse_cache *c = readers ? readers->cache : NULL;
	if (!c || !readers->all_bytes)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct sl_source *src = v[i].src;
		if (src->shared || src->from_stdin || src->failed || src->borrowed)
			continue;
		jobs[i].cached = sl_parse_cache_claim(c, src->path, (int)v[i].role, &jobs[i].cacheable);
	}
}

/* After the parse: the cache's sources in the places of the ones that took them, new parses
 * kept (the run borrows them from then on). */
static void settle_cached(struct parse_job *jobs, struct sl_load *v, size_t n, const struct sl_tree_readers *readers)
{
	struct sl_parse_cache *c = readers ? readers->cache : NULL;
	for (size_t i = 0; c && i < n; i++) {
		struct parse_job *j = &jobs[i];
		if (j->hit) {
			v[i].src = j->src;
			c->hits++;
			continue;
		}
		c->misses += j->cached || j->cacheable;
		if (!j->store)
			continue;
		sl_parse_cache_store(c, (int)j->in->role, j->src, j->ys, j->src->skipped);
		j->ys->borrowed = true;
	}
}

/* Which jobs may split (an inventory, unless a parse cache may keep it: the cache keeps one
 * arena per source), and the order jobs are taken in (q->order): those after the others; how many
 * may split. */
static size_t mark_splits(struct parse_queue *q, const struct sl_load *v)
{
	size_t k = 0, at = 0;
	for (size_t i = 0; i < q->n; i++) {
		struct parse_job *j = &q->jobs[i];
		j->splits = v[i].role != SL_ROLE_MANIFESTS && !j->cacheable && !j->cached;
		k += j->splits;
	}
	q->order = sl_xmalloc(q->n * sizeof *q->order);
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < q->n; i++)
			if (q->jobs[i].splits == last)
				q->order[at++] = i;
	return k;
}

int sl_model_load_many(struct sl_model *m, struct sl_load *v, size_t n, const struct sl_tree_readers *readers,
		       struct sl_findings *errs)
{
	if (!n)
		return 0;
	/* The streams and the jobs are set up by the threads that take them (parse_worker). */
	m->streams = sl_xrealloc(m->streams, (m->nstreams + n) * sizeof *m->streams);
	struct parse_job *jobs = sl_xcalloc(n, sizeof *jobs);
	claim_cached(jobs, v, n, readers);
	/* Parsing and loading are most of the time on large inputs and each source is read alone:
	 * a second thread takes the next source while the first is busy, each into a model of its
	 * own, merged here in source order so that the result does not depend on the timing. */
	struct parse_queue q = {
	    .jobs = jobs, .loads = v, .streams = m->streams + m->nstreams, .readers = readers, .n = n, .into = m};
	q.deciding = mark_splits(&q, v);
	q.offered = sl_xmalloc((q.deciding + 1) * sizeof *q.offered);
	pthread_mutex_init(&q.lock, NULL);
	pthread_cond_init(&q.cv, NULL);
	m->nstreams += n;
	struct parse_thread th[2];
	sl_grow(&m->arenas, &m->caparenas, m->narenas + 2, sizeof *m->arenas);
	for (int k = 0; k < 2; k++) {
		m->arenas[m->narenas] = sl_xcalloc(1, sizeof **m->arenas);
		th[k] = (struct parse_thread){&q, m->arenas[m->narenas++], k == 0};
	}
	pthread_t helper;
	/* One source alone has a second thread when it may be cut in two. */
	bool threaded = (n > 1 || q.deciding) && pthread_create(&helper, NULL, parse_worker, &th[1]) == 0;
	parse_worker(&th[0]);
	if (threaded)
		pthread_join(helper, NULL);
	pthread_cond_destroy(&q.cv);
	pthread_mutex_destroy(&q.lock);
	free(q.offered);
	free(q.order);
	/* The threads' arenas get no more trees: the unused ends of their last chunks go back. */
	for (int k = 0; k < 2; k++)
		sl_yarena_trim(th[k].arena);
	settle_cached(jobs, v, n, readers);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		settle_split(m, &jobs[i]);
		sl_findings_move(errs, &jobs[i].errs); /* none for a source that failed before */
		if (jobs[i].rc < 0)
			rc = -1;
		sl_model_merge(m, jobs[i].part);
		sl_model_merge(m, jobs[i].after);
	}
	free(jobs);
	return rc;
}

int sl_model_load(struct sl_model *m, struct sl_source *src, enum sl_input_role role, struct sl_findings *errs)
{
	struct sl_load one = {src, role};
	return sl_model_load_many(m, &one, 1, NULL, errs);
}
