/* quantity.h — Kubernetes resource quantities ("250m", "1.5Gi", "1e3", "16.5Gi") parsed
 * exactly, without floating point, and scaled the way the scheduler scales them: cpu in
 * milli-units (Quantity.MilliValue), everything else in whole units (Quantity.Value); both round
 * up, as those Go methods do. Results saturate at INT64_MAX ("more than anyone has"). */
#ifndef SL_QUANTITY_H
#define SL_QUANTITY_H
#include <stdbool.h>
#include <stdint.h>

struct sl_qty {
	uint64_t mant; /* significant decimal digits (at most 18 kept) */
	int exp10;     /* value = mant * 10^exp10 * 2^exp2 (+ sticky) */
	int exp2;
	bool sticky; /* nonzero digits were dropped beyond the 18 kept: value is a bit larger */
	bool neg;
};

/* Parse the Kubernetes quantity grammar: sign, digits, optional fraction, optional suffix
 * (n u m "" k M G T P E, Ki Mi Gi Ti Pi Ei, or e/E exponent). Returns 0 or -1 with *why set. */
int sl_qty_parse(const char *s, struct sl_qty *q, const char **why);
/* ceil(value * 10^scale), saturating; negative values round toward +inf too (ceil). */
int64_t sl_qty_scaled(const struct sl_qty *q, int scale);
int64_t sl_qty_milli(const struct sl_qty *q);
int64_t sl_qty_value(const struct sl_qty *q);
bool sl_qty_is_integer(const struct sl_qty *q);          /* a whole number of units */
bool sl_qty_exact_at(const struct sl_qty *q, int scale); /* a whole number of 10^-scale units */

/* The scheduler's unit for a resource: 3 (milli) for cpu, 0 otherwise. */
int sl_resource_scale(const char *name);
/* Saturating arithmetic for resource amounts. Inline: the placement adds and multiplies amounts for every node of every
 * pod it places. */
static inline int64_t sl_sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < -INT64_MAX - b)
		return -INT64_MAX;
	return a + b;
}

static inline int64_t sl_sat_mul(int64_t a, int64_t b)
{
	/* The multiplication's overflow flag, not a division first: the placement multiplies for every
	 * node it scores and every resource it judges. */
	int64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? -INT64_MAX : INT64_MAX;
	return r < -INT64_MAX ? -INT64_MAX : r;
}
/* Print an amount in the resource's own unit: "250m", "2", "64Mi", "1.5Gi" where exact. */
void sl_format_amount(const char *resource, int64_t v, char *out, unsigned outsz);

#endif
