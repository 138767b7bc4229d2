/* status.c — verdicts, reason texts and the FailedScheduling message (see status.h). */
#include "status.h"

#include <stdlib.h>
#include <string.h>

void sl_nodefit_clear(struct sl_nodefit *f)
{
	memset(f, 0, sizeof *f);
}

void sl_nodefit_fail(struct sl_nodefit *f, enum sl_plugin p, const char *reason)
{
	f->plugin = p;
	if (f->nreasons < SL_MAX_REASONS)
		f->reasons[f->nreasons++] = reason;
}

const char *sl_reason_join(struct sl_reasons *pool, const char *const *parts, size_t n)
{
	/* Joined on the stack when it fits, as nearly every reason does: no allocation for a text
	 * that is most often interned already. */
	char tmp[256];
	size_t len = 0, i;
	for (i = 0; i < n; i++) {
		size_t k = strlen(parts[i]);
		if (k >= sizeof tmp - len)
			break;
		memcpy(tmp + len, parts[i], k);
		len += k;
	}
	tmp[len] = 0;
	struct sl_buf b = SL_BUF_INIT;
	const char *text = tmp;
	if (i < n) {
		sl_buf_add(&b, tmp, len);
		for (; i < n; i++)
			sl_buf_puts(&b, parts[i]);
		text = sl_buf_str(&b);
	}
	pthread_mutex_lock(&pool->lock);
	const char *r = sl_intern(&pool->pool, text);
	pthread_mutex_unlock(&pool->lock);
	sl_buf_free(&b);
	return r;
}

struct reason_count {
	const char *reason;
	size_t count;
};

static int cmp_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "0/N nodes are available: <count> <reason>, …." with the entries sorted as strings, as
 * FitError.Error() does (so "10 …" sorts before "9 …"). */
char *sl_fit_error_text(size_t nall, const struct sl_nodefit *fits, size_t n)
{
	/* A PreFilter's failure is every node's: FitError prints its message once, uncounted
	 * ("0/N nodes are available: <message>."). */
	if (n && fits[0].prefilter && fits[0].nreasons) {
		struct sl_buf pb = SL_BUF_INIT;
		sl_buf_puts(&pb, "0/");
		sl_buf_putu(&pb, nall);
		sl_buf_puts(&pb, " nodes are available: ");
		sl_buf_puts(&pb, fits[0].reasons[0]);
		sl_buf_putc(&pb, '.');
		return sl_buf_detach(&pb);
	}
	struct reason_count *rc = NULL;
	size_t nrc = 0, cap = 0;
	/* Counted by pointer first (a text is static or interned, so nearly always one pointer), then
	 * the few entries whose texts are equal merged: no string compared per node. */
	for (size_t i = 0; i < n; i++) {
		if (fits[i].excluded)
			continue;
		for (size_t j = 0; j < fits[i].nreasons; j++) {
			size_t k;
			for (k = 0; k < nrc; k++)
				if (rc[k].reason == fits[i].reasons[j])
					break;
			if (k == nrc) {
				sl_grow(&rc, &cap, nrc + 1, sizeof *rc);
				rc[nrc].reason = fits[i].reasons[j];
				rc[nrc++].count = 0;
			}
			rc[k].count++;
		}
	}
	size_t u = 0;
	for (size_t k = 0; k < nrc; k++) {
		size_t e;
		for (e = 0; e < u; e++)
			if (!strcmp(rc[e].reason, rc[k].reason))
				break;
		if (e < u)
			rc[e].count += rc[k].count;
		else
			rc[u++] = rc[k];
	}
	nrc = u;
	/* Every "<count> <reason>" in one buffer, each ended by its NUL, sorted by pointer: no printf
	 * and one allocation, for a text made for every workload whose pods do not all fit. */
	struct sl_buf all = SL_BUF_INIT;
	size_t *at = sl_xcalloc(nrc + 1, sizeof *at);
	for (size_t k = 0; k < nrc; k++) {
		at[k] = all.len;
		sl_buf_putu(&all, rc[k].count);
		sl_buf_putc(&all, ' ');
		sl_buf_puts(&all, rc[k].reason);
		sl_buf_putc(&all, '\0');
	}
	const char **parts = sl_xcalloc(nrc + 1, sizeof *parts);
	for (size_t k = 0; k < nrc; k++)
		parts[k] = all.s + at[k];
	qsort(parts, nrc, sizeof *parts, cmp_text);
	struct sl_buf b = SL_BUF_INIT;
	sl_buf_puts(&b, "0/");
	sl_buf_putu(&b, nall);
	sl_buf_puts(&b, " nodes are available: ");
	for (size_t k = 0; k < nrc; k++) {
		if (k)
			sl_buf_puts(&b, ", ");
		sl_buf_puts(&b, parts[k]);
	}
	sl_buf_putc(&b, '.');
	free(parts);
	free(at);
	sl_buf_free(&all);
	free(rc);
	return sl_buf_detach(&b);
}

struct sl_nodefit *sl_nodefits_copy(const struct sl_nodefit *f, size_t n)
{
	struct sl_nodefit *c = sl_xcalloc(n + 1, sizeof *c);
	for (size_t i = 0; i < n; i++)
		c[i] = f[i];
	return c;
}

void sl_nodefits_free(struct sl_nodefit *f, size_t n)
{
	if (!f)
		return;
	for (size_t i = 0; i < n; i++)
		sl_nodefit_clear(&f[i]);
	free(f);
}
