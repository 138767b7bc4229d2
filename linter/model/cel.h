/* cel.h — the part of CEL (the Common Expression Language) that Dynamic Resource Allocation's
 * selectors are written in, as DeviceClasses and ResourceClaims use it
 * (k8s.io/dynamic-resource-allocation/cel): an expression over one `device` with
 * `device.driver`, `device.attributes["domain"].name`, `device.capacity["domain"].name`,
 * compared with == != < <= > >=, quantities (`quantity("40Gi")`, `.compareTo()`,
 * `.isGreaterThan()`, `.isLessThan()`), the string functions startsWith, endsWith and matches
 * (regular expressions through PCRE2), `in` on lists, && || ! and parentheses.
 *
 * An expression that parses as CEL but reaches outside that subset is kept: it evaluates to
 * SL_CEL_UNKNOWN (the device may match), with the part not evaluated named, so that a verdict
 * never rests on a guess. Only text that is no CEL at all (a syntax error) fails to parse.
 *
 * A parsed expression is one allocation with its nodes (sl_cel_free); it keeps no pointer into
 * the text it was parsed from. Evaluation allocates nothing the caller keeps. */
#ifndef SL_CEL_H
#define SL_CEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quantity.h"

/* A device attribute as a ResourceSlice publishes it: one of int, bool, string or version. */
enum sl_cel_kind { SL_CEL_INT, SL_CEL_BOOL, SL_CEL_STRING, SL_CEL_VERSION };

struct sl_cel_attr {
	/* The qualified name split at its '/': a name written without a domain is in the driver's
	 * domain (domain == the device's driver), as the API defines it. */
	const char *domain, *name;
	enum sl_cel_kind kind;
	int64_t i;     /* SL_CEL_INT */
	bool b;        /* SL_CEL_BOOL */
	const char *s; /* SL_CEL_STRING, SL_CEL_VERSION (semantic version text, "1.2.3") */
};

struct sl_cel_cap {
	const char *domain, *name; /* as for attributes */
	struct sl_qty value;
};

/* What a selector sees of one device. Borrowed by the evaluation. */
struct sl_cel_device {
	const char *driver;
	const struct sl_cel_attr *attrs;
	size_t nattrs;
	const struct sl_cel_cap *caps;
	size_t ncaps;
};

struct sl_cel;

/* Why an expression does not parse: the byte offset into it and a message (no trailing period). */
struct sl_cel_error {
	size_t offset;
	char msg[160];
};

/* Parse expr[0 .. len). NULL, with *err filled, when the text is not CEL at all; an expression
 * outside the subset parses. */
struct sl_cel *sl_cel_parse(const char *expr, size_t len, struct sl_cel_error *err);
void sl_cel_free(struct sl_cel *e);

enum sl_cel_verdict {
	SL_CEL_FALSE,
	SL_CEL_TRUE,
	/* Outside the subset: the device is counted as possibly matching; why says what was not
	 * evaluated ("the function isSorted", "a map literal"). */
	SL_CEL_UNKNOWN,
	/* A runtime error as CEL has it (a missing attribute looked up, a type mismatch): the DRA
	 * allocator stops on it (`CEL runtime error: …`); why holds CEL's message. */
	SL_CEL_ERROR,
};

/* Evaluate e for device d. why (whysz bytes, may be 0) gets a reason for UNKNOWN and ERROR. */
enum sl_cel_verdict sl_cel_eval(const struct sl_cel *e, const struct sl_cel_device *d, char *why, size_t whysz);

/* -1, 0 or 1 as a < b, a == b, a > b, exactly (the Quantity Cmp of Kubernetes). */
int sl_qty_compare(const struct sl_qty *a, const struct sl_qty *b);

#endif
