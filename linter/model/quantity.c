#include "quantity.h"

#include <stdio.h>
#include <string.h>

#define MAX_DIGITS 18

static const struct {
	const char *sfx;
	int exp10, exp2;
} suffixes[] = {
    {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},
    {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"", 0, 0},
};

int sl_qty_parse(const char *s, struct sl_qty *q, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	memset(q, 0, sizeof *q);
	if (!s || !*s) {
		*why = "empty quantity";
		return -1;
	}
	if (*s == '+' || *s == '-')
		q->neg = *s++ == '-';
	int ndig = 0, kept = 0, fracdigits = 0, seen_dot = 0;
	for (;; s++) {
		if (*s == '.' && !seen_dot) {
			seen_dot = 1;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		ndig++;
		int d = *s - '0';
		if (seen_dot)
			fracdigits++;
		if (kept == 0 && d == 0) { /* leading zeros carry no precision */
			continue;
		}
		if (kept < MAX_DIGITS) {
			q->mant = q->mant * 10 + (uint64_t)d;
			kept++;
		} else {
			/* Dropped digit: an integer digit still scales the value by 10. */
			if (!seen_dot)
				q->exp10++;
			else
				fracdigits--; /* not represented in mant, so it must not shift it */
			if (d)
				q->sticky = true;
		}
	}
	if (ndig == 0) {
		*why = "a quantity starts with a number";
		return -1;
	}
	q->exp10 -= fracdigits;
	if (*s == 'e' || *s == 'E') {
		/* "E" alone is the exa suffix; e/E followed by an integer is an exponent. */
		const char *p = s + 1;
		int eneg = 0;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if (*p >= '0' && *p <= '9') {
			long e = 0;
			for (; *p >= '0' && *p <= '9'; p++)
				if (e < 100000)
					e = e * 10 + (*p - '0');
			if (*p) {
				*why = "unexpected characters after the exponent";
				return -1;
			}
			q->exp10 += (int)(eneg ? -e : e);
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
		if (!strcmp(s, suffixes[i].sfx)) {
			q->exp10 += suffixes[i].exp10;
			q->exp2 = suffixes[i].exp2;
			return 0;
		}
	*why = "unknown suffix (expected one of n u m k M G T P E Ki Mi Gi Ti Pi Ei, or an exponent)";
	return -1;
}

typedef unsigned __int128 u128;

int64_t sl_qty_scaled(const struct sl_qty *q, int scale)
{
	if (q->mant == 0)
		return 0;
	long e = (long)q->exp10 + scale;
	u128 num = q->mant;
	num <<= q->exp2; /* mant < 10^18 < 2^60 and exp2 <= 60: fits in 128 bits */
	u128 lim = (u128)INT64_MAX;
	int64_t r;
	if (e >= 0) {
		for (long i = 0; i < e; i++) {
			num *= 10;
			if (num > lim)
				return q->neg ? -INT64_MAX : INT64_MAX;
		}
		if (num > lim)
			return q->neg ? -INT64_MAX : INT64_MAX;
		r = (int64_t)num;
		if (q->sticky && !q->neg)
			r = r == INT64_MAX ? r : r + 1;
	} else {
		if (e < -38)
			return q->neg ? 0 : 1; /* a positive value below one unit rounds up to one */
		u128 den = 1;
		for (long i = 0; i < -e; i++)
			den *= 10;
		u128 quo = num / den, rem = num % den;
		if (quo > lim)
			return q->neg ? -INT64_MAX : INT64_MAX;
		r = (int64_t)quo;
		if ((rem || q->sticky) && !q->neg)
			r++; /* ceil */
	}
	return q->neg ? -r : r;
}

int64_t sl_qty_milli(const struct sl_qty *q)
{
	return sl_qty_scaled(q, 3);
}

int64_t sl_qty_value(const struct sl_qty *q)
{
	return sl_qty_scaled(q, 0);
}

bool sl_qty_is_integer(const struct sl_qty *q)
{
	if (q->sticky)
		return false;
	if (q->exp10 >= 0 || q->mant == 0)
		return true;
	uint64_t m = q->mant;
	int e = q->exp10;
	/* A binary multiplier can absorb no factor of 5, so only trailing decimal zeros count,
	 * except that 2^exp2 supplies factors of 2 to pair with 5s in m. */
	while (e < 0 && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (e >= 0)
		return true;
	/* m * 2^exp2 / 10^-e is integral iff 5^-e divides m and 2^-e divides m * 2^exp2. */
	uint64_t five = 1;
	for (int i = 0; i < -e; i++) {
		if (five > UINT64_MAX / 5)
			return false;
		five *= 5;
	}
	if (m % five)
		return false;
	int twos = q->exp2;
	uint64_t t = m;
	while (t && t % 2 == 0) {
		t /= 2;
		twos++;
	}
	return twos >= -e;
}

bool sl_qty_exact_at(const struct sl_qty *q, int scale)
{
	struct sl_qty s = *q;
	s.exp10 += scale;
	return sl_qty_is_integer(&s);
}

int sl_resource_scale(const char *name)
{
	return !strcmp(name, "cpu") ? 3 : 0;
}

/* v then suffix into out, as snprintf's "%lld%s" would (cut to outsz): written for every amount
 * a finding or --explain shows, without parsing a format. */
static void put_amount(char *out, unsigned outsz, int64_t v, const char *suffix)
{
	char d[48];
	size_t k = 21, n; /* digits end at d[21]: a sign and 2^63's 19 digits fit before */
	unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
	do
		d[--k] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		d[--k] = '-';
	n = 21 - k;
	size_t sl = strlen(suffix);
	if (sl > sizeof d - 21)
		sl = sizeof d - 21;
	memcpy(d + 21, suffix, sl);
	n += sl;
	if (!outsz)
		return;
	if (n > outsz - 1)
		n = outsz - 1;
	memcpy(out, d + k, n);
	out[n] = 0;
}

void sl_format_amount(const char *resource, int64_t v, char *out, unsigned outsz)
{
	if (v == INT64_MAX) {
		snprintf(out, outsz, "unlimited");
		return;
	}
	if (!strcmp(resource, "cpu")) {
		if (v % 1000 == 0)
			put_amount(out, outsz, v / 1000, "");
		else
			put_amount(out, outsz, v, "m");
		return;
	}
	if (!strcmp(resource, "memory") || !strcmp(resource, "ephemeral-storage") ||
	    !strncmp(resource, "hugepages-", 10)) {
		static const char *const bin[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
		for (int i = 0; i < 6; i++) {
			int64_t unit = (int64_t)1 << (10 * (6 - i));
			if (v != 0 && v % unit == 0) {
				put_amount(out, outsz, v / unit, bin[i]);
				return;
			}
		}
	}
	put_amount(out, outsz, v, "");
}
