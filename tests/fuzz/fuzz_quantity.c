/* The quantity parser and the arithmetic on what it returns, at every scale the engine uses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../linter/model/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256)
		return 0;
	char s[257];
	memcpy(s, data, size);
	s[size] = 0;
	struct sl_qty q;
	const char *why = NULL;
	if (sl_qty_parse(s, &q, &why) < 0) {
		if (!why)
			abort(); /* every rejection says why */
		return 0;
	}
	int64_t milli = sl_qty_milli(&q), units = sl_qty_value(&q);
	(void)sl_qty_exact_at(&q, 9);
	(void)sl_sat_add(milli, units);
	(void)sl_sat_mul(milli, units);
	char out[64];
	sl_format_amount("cpu", milli, out, sizeof out);
	sl_format_amount("memory", units, out, sizeof out);
	return 0;
}
