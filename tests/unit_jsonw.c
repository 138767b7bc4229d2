/* unit_jsonw.c — the JSON writer against cJSON_Print, which SARIF's items were printed with: random
 * documents (objects and arrays nested, strings of every byte, integers, booleans, NULL strings
 * that cJSON leaves out) written both ways must be the same bytes, placed at a depth inside a
 * larger document as the SARIF log places its items. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../linter/base/buf.h"
#include "../linter/report/jsonw.h"
#include "unit.h"

static uint64_t next(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

/* A string of 0..11 bytes, each 1..255: controls, quotes, backslashes and high bytes often. */
static void random_string(uint64_t *r, char *s)
{
	static const char often[] = "\"\\\b\f\n\r\t\x01\x1f\x7f/ a\xc3\xa9";
	size_t n = next(r) % 12;
	for (size_t i = 0; i < n; i++)
		s[i] = next(r) % 2 ? often[next(r) % (sizeof often - 1)] : (char)(1 + next(r) % 255);
	s[n] = 0;
}

static void value(uint64_t *r, struct sl_jw *w, cJSON *parent, const char *key, int depth);

/* A collection's entries (object) or items (array), written and added alike. */
static void members(uint64_t *r, struct sl_jw *w, cJSON *c, bool array, int depth)
{
	size_t n = next(r) % 5;
	for (size_t i = 0; i < n; i++) {
		char key[16];
		random_string(r, key);
		value(r, w, c, array ? NULL : key, depth + 1);
	}
}

static void value(uint64_t *r, struct sl_jw *w, cJSON *parent, const char *key, int depth)
{
	unsigned kind = (unsigned)(next(r) % (depth < 5 ? 6 : 4));
	if (kind == 0) {
		char s[16];
		/* a NULL string only as an entry: cJSON adds no entry for it, and no item */
		bool null = key && next(r) % 8 == 0;
		random_string(r, s);
		if (key) {
			cJSON_AddStringToObject(parent, key, null ? NULL : s);
			sl_jw_str(w, key, null ? NULL : s);
		} else {
			cJSON_AddItemToArray(parent, cJSON_CreateString(s));
			sl_jw_string(w, s);
		}
	} else if (kind == 1 || kind == 2) {
		int64_t v = (int64_t)(next(r) % 2000000000) - (kind == 1 ? 1000000000 : 0);
		cJSON *n = cJSON_CreateNumber((double)v);
		key ? cJSON_AddItemToObject(parent, key, n) : cJSON_AddItemToArray(parent, n);
		if (key)
			sl_jw_key(w, key);
		sl_jw_int(w, v);
	} else if (kind == 3) {
		bool b = next(r) % 2;
		cJSON *n = cJSON_CreateBool(b);
		key ? cJSON_AddItemToObject(parent, key, n) : cJSON_AddItemToArray(parent, n);
		if (key)
			sl_jw_key(w, key);
		sl_jw_bool(w, b);
	} else {
		bool array = kind == 5;
		cJSON *c = array ? cJSON_CreateArray() : cJSON_CreateObject();
		key ? cJSON_AddItemToObject(parent, key, c) : cJSON_AddItemToArray(parent, c);
		if (key)
			sl_jw_open(w, key, array);
		else
			array ? sl_jw_array(w) : sl_jw_object(w);
		members(r, w, c, array, depth);
		sl_jw_end(w);
	}
}

/* cJSON's print of root with every line after the first indented by depth tabs: where it would
 * sit inside a larger document. */
static void indented(struct sl_buf *b, const cJSON *root, unsigned depth)
{
	char *s = cJSON_Print(root);
	for (const char *p = s; *p; p++) {
		sl_buf_putc(b, *p);
		for (unsigned i = 0; *p == '\n' && i < depth; i++)
			sl_buf_putc(b, '\t');
	}
	free(s);
}

void test_jsonw(void)
{
	int differ = 0, cases = 2000;
	for (int c = 1; c <= cases; c++) {
		uint64_t r = (uint64_t)c * 0x9E3779B97F4A7C15ULL;
		unsigned depth = (unsigned)(next(&r) % 4);
		struct sl_buf got = SL_BUF_INIT, want = SL_BUF_INIT;
		struct sl_jw w;
		sl_jw_init(&w, &got, depth);
		cJSON *root = cJSON_CreateObject();
		sl_jw_object(&w);
		members(&r, &w, root, false, 0);
		sl_jw_end(&w);
		indented(&want, root, depth);
		if (got.len != want.len || memcmp(got.s, want.s, got.len)) {
			if (!differ)
				fprintf(stderr, "jsonw case %d, depth %u:\n--- cJSON\n%s\n--- writer\n%s\n", c, depth,
					sl_buf_str(&want), sl_buf_str(&got));
			differ++;
		}
		cJSON_Delete(root);
		sl_buf_free(&got);
		sl_buf_free(&want);
	}
	CHECK(differ == 0);
	/* the layout itself, so that the comparison cannot pass on an empty document */
	struct sl_buf b = SL_BUF_INIT;
	struct sl_jw w;
	sl_jw_init(&w, &b, 1);
	sl_jw_object(&w);
	sl_jw_str(&w, "a", "x\"\n\x01");
	sl_jw_str(&w, "skipped", NULL);
	sl_jw_open(&w, "l", true);
	sl_jw_int(&w, -12);
	sl_jw_object(&w);
	sl_jw_end(&w);
	sl_jw_end(&w);
	sl_jw_text(&w, "m", "t");
	sl_jw_end(&w);
	CHECK(!strcmp(sl_buf_str(&b), "{\n\t\t\"a\":\t\"x\\\"\\n\\u0001\",\n\t\t\"l\":\t[-12, {\n\t\t\t}],\n"
				      "\t\t\"m\":\t{\n\t\t\t\"text\":\t\"t\"\n\t\t}\n\t}"));
	sl_buf_free(&b);
}
