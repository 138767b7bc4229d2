/* jsonw.h — JSON written as it goes, in the layout cJSON_Print gives a tree: an object's entries
 * one per line, indented by tabs, "key":<tab>value; an array's items on one line, ", " between;
 * strings escaped as cJSON escapes them. A report of thousands of findings made a cJSON tree of
 * each, printed and freed it: most of SARIF's cost. What cJSON leaves out is left out here too: a
 * NULL string (cJSON_AddStringToObject adds no entry for one). sl_esc_json still follows, as it
 * follows cJSON_Print. */
#ifndef SL_JSONW_H
#define SL_JSONW_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sl_buf;

/* Deeper than a report's items go (a SARIF result's fix: seven). */
#define SL_JW_MAX_NEST 16

struct sl_jw {
	struct sl_buf *b;
	unsigned depth;             /* cJSON's: objects and arrays open, and the base given */
	unsigned level;             /* collections open here */
	bool array[SL_JW_MAX_NEST]; /* per level: an array (else an object) */
	bool more[SL_JW_MAX_NEST];  /* per level: an entry or item written already */
};

/* Write into b, as cJSON would print the value depth levels down in a larger document. */
void sl_jw_init(struct sl_jw *w, struct sl_buf *b, unsigned depth);

/* An entry's key (in an object); its value follows. */
void sl_jw_key(struct sl_jw *w, const char *key);
/* Values: an item of the array open, or the value of the key just written. */
void sl_jw_object(struct sl_jw *w);
void sl_jw_array(struct sl_jw *w);
void sl_jw_end(struct sl_jw *w); /* of the object or array open last */
void sl_jw_string(struct sl_jw *w, const char *s);
void sl_jw_int(struct sl_jw *w, int64_t v); /* integral: as cJSON prints an integral number */
void sl_jw_bool(struct sl_jw *w, bool v);

/* Entries: key and value, nothing for a NULL string; an object or array under key. */
void sl_jw_str(struct sl_jw *w, const char *key, const char *s);
void sl_jw_num(struct sl_jw *w, const char *key, int64_t v);
void sl_jw_open(struct sl_jw *w, const char *key, bool array);
/* {"text": s} under key, as SARIF's messages are. */
void sl_jw_text(struct sl_jw *w, const char *key, const char *s);

/* What raw holds, escaped (sl_esc_json, as sl_emit_cjson escapes a printed document) through esc
 * and written to out, once it is a chunk's worth (SL_EMIT_CHUNK) or when all: raw then starts
 * again. Asked between two items, outside every string, so escaping the pieces apart is escaping
 * the whole; a report is never held whole. */
void sl_jw_flush(FILE *out, struct sl_buf *raw, struct sl_buf *esc, bool all);

#endif
