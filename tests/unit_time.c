/* unit_time.c — RFC 3339 times (a running pod's status.startTime, which orders preemption's
 * victims): the form the API server writes is read without sscanf, and every other form as
 * sscanf's "%4d-%2d-%2dT%2d:%2d:%2d" reads it, so both paths must agree. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../linter/model/node.h"
#include "unit.h"

/* The reference: sscanf for the fields, glibc's timegm for the time, the zone by hand; as
 * sl_rfc3339 read every time before it had a path of its own. */
static bool by_sscanf(const char *s, int64_t *out)
{
	int y, mo, d, h, mi, se, n = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || mo < 1 || mo > 12 || d < 1 ||
	    d > 31 || h > 23 || mi > 59 || se > 60)
		return false;
	const char *z = s + n + (s[n] == '.');
	while (s[n] == '.' && *z >= '0' && *z <= '9')
		z++;
	int64_t off = 0;
	if ((*z == '+' || *z == '-') && strlen(z) == 6 && z[3] == ':')
		off = (*z == '-' ? -60 : 60) * (((z[1] - '0') * 10 + z[2] - '0') * 60 + (z[4] - '0') * 10 + z[5] - '0');
	else if (strcmp(z, "Z") && strcmp(z, "z"))
		return false;
	struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = se};
	*out = (int64_t)timegm(&tm) - off;
	return true;
}

void test_rfc3339(void)
{
	int64_t t = 0;
	CHECK(by_sscanf("2024-04-20T10:00:00Z", &t) && t == 1713607200); /* the reference itself */
	CHECK(sl_rfc3339("1970-01-01T00:00:00Z", &t) && t == 0);
	CHECK(sl_rfc3339("2024-04-20T10:00:00Z", &t) && t == 1713607200);
	CHECK(sl_rfc3339("2024-04-20T10:00:00.123456Z", &t) && t == 1713607200);
	CHECK(sl_rfc3339("2024-04-20T12:00:00+02:00", &t) && t == 1713607200);
	CHECK(sl_rfc3339("2024-04-20T08:30:00-01:30", &t) && t == 1713607200);
	CHECK(sl_rfc3339("2024-02-29T00:00:00z", &t) && t == 1709164800);
	/* sscanf's forms, read as before: fewer digits, a sign, white space */
	CHECK(sl_rfc3339("2024-4-20T10:0:0Z", &t) && t == 1713607200);
	CHECK(sl_rfc3339(" 2024-04-20T10:00:00Z", &t) && t == 1713607200);
	CHECK(sl_rfc3339("+024-04-20T10:00:00Z", &t) && t == -61400296800);
	CHECK(!sl_rfc3339("+2024-04-20T10:00:00Z", &t)); /* the sign is one of %4d's four */
	/* refused */
	const char *bad[] = {"",
			     "2024",
			     "2024-",
			     "2024-04-20",
			     "2024-04-20T10:00",
			     "2024-04-20T10:00:00",
			     "2024-13-20T10:00:00Z",
			     "2024-04-32T10:00:00Z",
			     "2024-04-20T24:00:00Z",
			     "2024-04-20T10:60:00Z",
			     "2024-04-20T10:00:61Z",
			     "2024-04-20T10:00:00+0200",
			     "2024-04-20T10:00:00ZZ",
			     "2024-04-20 10:00:00Z",
			     "2024-04-20t10:00:00Z",
			     "yesterday"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(!sl_rfc3339(bad[i], &t));
	/* The form with one byte changed, and with one byte dropped: the same verdict and the same
	 * time as the reference's, whichever path reads it. */
	const char *base = "2024-04-20T10:00:00Z";
	const char subst[] = "09-:T+ Zx";
	int disagree = 0;
	for (size_t at = 0; base[at]; at++)
		for (const char *c = subst; *c; c++) {
			char s[32];
			strcpy(s, base);
			s[at] = *c;
			int64_t a = -1, b = -1;
			bool fa = sl_rfc3339(s, &a), fb = by_sscanf(s, &b);
			disagree += fa != fb || (fa && a != b);
			memmove(s + at, s + at + 1, strlen(s + at));
			fa = sl_rfc3339(s, &a), fb = by_sscanf(s, &b);
			disagree += fa != fb || (fa && a != b);
		}
	CHECK(disagree == 0);
}
