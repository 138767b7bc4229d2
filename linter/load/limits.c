/* limits.c — the readers' limits (see limits.h). */
#include "limits.h"

struct sl_limits sl_limits = SL_LIMITS_DEFAULT;
