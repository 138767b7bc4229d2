/* unit_similar.c: the edit distance of the "did you mean" notes, full and within a bound. */
#include "../linter/base/similar.h"
#include "unit.h"

void test_edit_distance(void)
{
	CHECK(sl_edit_distance("true", "ture", 16) == 2);
	CHECK(sl_edit_distance("nvidia.com/gpu.presnt", "nvidia.com/gpu.present", 320) == 1);
	CHECK(sl_edit_distance("GPU", "gpu", 16) == 0); /* letters compared without case */
	CHECK(sl_edit_distance("", "abc", 16) == 3);
	CHECK(sl_edit_distance_within("ture", "true", 320, 3) == 2);
	CHECK(sl_edit_distance_within("kubernetes.io/hostname", "topology.kubernetes.io/zone", 320, 3) == 4);
	CHECK(sl_edit_distance_within("", "ab", 320, 3) == 2);
	CHECK(sl_edit_distance_within("abc", "", 320, 1) == 2);
	/* Within a bound, the same as the full table wherever it is at most the bound. */
	unsigned seed = 7, bad = 0;
	char a[24], b[24];
	for (int t = 0; t < 20000; t++) {
		seed = seed * 1103515245u + 12345u;
		size_t la = (seed >> 16) % 20, lb = (seed >> 8) % 20;
		for (size_t i = 0; i < la; i++) {
			seed = seed * 1103515245u + 12345u;
			a[i] = "abcD"[(seed >> 16) % 4];
		}
		for (size_t i = 0; i < lb; i++) {
			seed = seed * 1103515245u + 12345u;
			b[i] = "abcd"[(seed >> 16) % 4];
		}
		a[la] = b[lb] = 0;
		for (unsigned max = 0; max < 5; max++) {
			unsigned d = sl_edit_distance(a, b, 320), w = sl_edit_distance_within(a, b, 320, max);
			bad += w != (d <= max ? d : max + 1);
		}
	}
	CHECK(bad == 0);
}
