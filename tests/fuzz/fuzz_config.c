/* The config parser with its PCRE2 patterns, and the patterns matched against a few paths. */
#include <stdint.h>
#include <stdlib.h>

#include "../../linter/config/config.h"
#include "../../linter/base/diag.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = sl_fuzz_file(data, size, ".yaml");
	struct sl_config c;
	sl_config_defaults(&c);
	struct sl_findings errs = {0};
	if (sl_config_load(&c, path, &errs) == 0) {
		static const char *const paths[] = {"clusters/prod/api.yaml", "charts/web/templates/d.yaml", "<stdin>",
						    "a/../b.json"};
		for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
			sl_config_excluded(&c, paths[i], &errs);
			sl_config_target_of(&c, paths[i], &errs);
		}
	}
	sl_findings_free(&errs);
	sl_config_free(&c);
	return 0;
}
