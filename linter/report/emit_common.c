/* emit_common.c — what several formats say the same way (see emit.h): one place, so that SARIF
 * and the language server cannot drift apart. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../base/buf.h"
#include "../base/escape.h"
#include "emit.h"

void sl_finding_text(struct sl_buf *b, const struct sl_finding *f)
{
	sl_buf_puts(b, f->message);
	sl_buf_putc(b, '.');
	for (size_t i = 0; i < f->nnotes; i++)
		sl_buf_printf(b, "\n- %s", f->notes[i]);
}

char *sl_rule_help_uri(const struct sl_rule *r)
{
	/* A policy may share a built-in rule's id only in name: the registry's own record says. */
	if (sl_rule_find(r->id) != r)
		return NULL;
	return sl_xasprintf("%s/blob/main/docs/rules/%s.md", SL_HOME, r->id);
}

void sl_emit_cjson(FILE *out, const cJSON *root)
{
	char *s = cJSON_Print(root);
	struct sl_buf b = SL_BUF_INIT;
	sl_esc_json(&b, s, strlen(s));
	sl_buf_putc(&b, '\n');
	fwrite(b.s, 1, b.len, out);
	sl_buf_free(&b);
	free(s);
}
