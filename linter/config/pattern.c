/* pattern.c — PCRE2 compiled once, matched under limits (see pattern.h). */
#include "pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../load/input.h"

int sl_pattern_compile(struct sl_pattern *p, const char *text, size_t len, const struct sl_span *at, bool quoted,
		       struct sl_findings *errs)
{
	memset(p, 0, sizeof *p);
	int code;
	PCRE2_SIZE off;
	/* MATCH_INVALID_UTF: file paths need not be UTF-8; an invalid sequence simply never
	 * matches instead of failing the match. */
	p->code = pcre2_compile((PCRE2_SPTR)text, len, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &off, NULL);
	if (!p->code) {
		PCRE2_UCHAR msg[256];
		if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
			snprintf((char *)msg, sizeof msg, "error %d", code);
		struct sl_span where = *at;
		/* Point at the character PCRE2 names when the scalar's text is the pattern as written
		 * (no escapes to undo); otherwise at the scalar, with the offset in the message. */
		size_t start = at->off + (quoted ? 1 : 0);
		const char *src = at->src ? sl_source_text(at->src) : NULL;
		bool verbatim = src && start + len <= at->src->len && !memcmp(src + start, text, len);
		if (verbatim && off <= len)
			sl_source_span(at->src, start + off, start + off, &where);
		sl_input_error(errs, &where, "invalid pattern '%s': %s (at offset %zu)", text, (const char *)msg,
			       (size_t)off);
		return -1;
	}
	/* Without JIT support (some architectures, or a library built without it) the interpreter
	 * runs the same pattern under the same limits. */
	(void)pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE);
	p->text = sl_xstrdup(text);
	p->at = *at;
	return 0;
}

void sl_pattern_free(struct sl_pattern *p)
{
	if (p->code)
		pcre2_code_free(p->code);
	free(p->text);
	memset(p, 0, sizeof *p);
}

void sl_matcher_init(struct sl_matcher *mx)
{
	mx->mctx = pcre2_match_context_create(NULL);
	if (!mx->mctx) {
		fputs("schedlint: out of memory\n", stderr);
		abort();
	}
	pcre2_set_match_limit(mx->mctx, SL_PATTERN_MATCH_LIMIT);
	pcre2_set_depth_limit(mx->mctx, SL_PATTERN_DEPTH_LIMIT);
	pcre2_set_heap_limit(mx->mctx, SL_PATTERN_HEAP_LIMIT);
	/* JIT code recurses on its own stack: the default 32 KiB on the machine stack fails deep
	 * patterns early, so give it a bounded one of its own. */
	mx->stack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	if (mx->stack)
		pcre2_jit_stack_assign(mx->mctx, NULL, mx->stack);
	mx->md = pcre2_match_data_create(1, NULL); /* whether it matched is all we need */
	if (!mx->md) {
		fputs("schedlint: out of memory\n", stderr);
		abort();
	}
}

void sl_matcher_free(struct sl_matcher *mx)
{
	if (mx->md)
		pcre2_match_data_free(mx->md);
	if (mx->stack)
		pcre2_jit_stack_free(mx->stack);
	if (mx->mctx)
		pcre2_match_context_free(mx->mctx);
	memset(mx, 0, sizeof *mx);
}

int sl_pattern_match(const struct sl_pattern *p, struct sl_matcher *mx, const char *s, size_t len, char *why,
		     size_t whylen)
{
	int rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, 0, 0, mx->md, mx->mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
	    rc == PCRE2_ERROR_JIT_STACKLIMIT)
		snprintf(why, whylen, "the match backtracked past its limit (%s)",
			 rc == PCRE2_ERROR_MATCHLIMIT   ? "match limit"
			 : rc == PCRE2_ERROR_DEPTHLIMIT ? "depth limit"
			 : rc == PCRE2_ERROR_HEAPLIMIT  ? "heap limit"
							: "JIT stack");
	else {
		PCRE2_UCHAR msg[200];
		if (pcre2_get_error_message(rc, msg, sizeof msg) < 0)
			snprintf((char *)msg, sizeof msg, "error %d", rc);
		snprintf(why, whylen, "the match failed: %s", (const char *)msg);
	}
	return -1;
}
