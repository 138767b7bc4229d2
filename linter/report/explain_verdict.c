/* explain_verdict.c — one node's verdict as `--explain` prints it: "pass", or the failing filter
 * and the scheduler's reasons; shared by the workloads' table (explain.c) and the DaemonSets'
 * (explain_daemonset.c). */
#include "explain_internal.h"

#include "../base/escape.h"

void sl_explain_verdict(const struct sl_nodefit *f, struct sl_buf *b)
{
	if (f->plugin == SL_FITS) {
		sl_buf_puts(b, f->excluded ? "left out by PreFilter (fits otherwise)" : "pass");
		return;
	}
	sl_buf_printf(b, "%s%s: ", f->excluded ? "left out by PreFilter; " : "", sl_plugin_name(f->plugin));
	for (size_t r = 0; r < f->nreasons; r++) {
		sl_buf_puts(b, r ? ", " : "");
		sl_esc_puts(b, f->reasons[r]);
	}
}
