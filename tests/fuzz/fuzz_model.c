/* The YAML loader and the model, as one reader sees its input: manifests (the default), the node
 * inventory (-DFUZZ_ROLE=SL_ROLE_NODES) or running pods (-DFUZZ_ROLE=SL_ROLE_PODS). */
#include <stdint.h>
#include <stdlib.h>

#include "../../linter/load/input.h"
#include "../../linter/model/k8s.h"
#include "../../linter/base/diag.h"

#ifndef FUZZ_ROLE
#define FUZZ_ROLE SL_ROLE_MANIFESTS
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sl_source *src = sl_source_from_memory("fuzz.yaml", (const char *)data, size);
	struct sl_model m = {0};
	struct sl_findings errs = {0};
	sl_model_load(&m, src, FUZZ_ROLE, &errs);
	sl_model_bind_pods(&m);
	sl_model_free(&m);
	sl_findings_free(&errs);
	sl_source_free(src);
	return 0;
}
