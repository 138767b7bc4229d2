/* The CEL subset of DRA selectors: any text parsed, and when it parses, evaluated against a fixed
 * device with attributes of every kind and capacities. A parse that fails says where and why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../linter/model/cel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	static const struct sl_cel_attr attrs[] = {
	    {NULL, "productName", SL_CEL_STRING, 0, false, "NVIDIA A100-SXM4-40GB"},
	    {"gpu.nvidia.com", "driverVersion", SL_CEL_VERSION, 0, false, "550.54.15-rc.1+b"},
	    {"gpu.nvidia.com", "index", SL_CEL_INT, 3, false, NULL},
	    {"gpu.nvidia.com", "mig", SL_CEL_BOOL, 0, true, NULL},
	    {"dra.example.com", "model", SL_CEL_STRING, 0, false, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"},
	};
	struct sl_cel_cap caps[2] = {{"gpu.nvidia.com", "memory", {0}}, {NULL, "cores", {0}}};
	(void)sl_qty_parse("40Gi", &caps[0].value, NULL);
	(void)sl_qty_parse("6912", &caps[1].value, NULL);
	struct sl_cel_device d = {"gpu.nvidia.com", attrs, sizeof attrs / sizeof attrs[0], caps, 2};
	struct sl_cel_error err = {(size_t)-1, ""};
	struct sl_cel *e = sl_cel_parse((const char *)data, size, &err);
	if (!e) {
		if (err.offset > size || !err.msg[0])
			abort(); /* every rejection says where, within the text, and why */
		return 0;
	}
	char why[128];
	enum sl_cel_verdict v = sl_cel_eval(e, &d, why, sizeof why);
	if ((v == SL_CEL_UNKNOWN || v == SL_CEL_ERROR) && !why[0])
		abort(); /* an UNKNOWN or an ERROR names its reason */
	(void)sl_cel_eval(e, &d, why, 0);
	sl_cel_free(e);
	return 0;
}
