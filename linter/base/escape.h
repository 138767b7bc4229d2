/* escape.h — how values read from the input are shown where a person or a CI log reads them: the
 * text report, stderr, --explain, --list-rules and the github format. A value is data, never
 * terminal control or a workflow command: control characters (C0, DEL, C1), bidirectional
 * controls, line and paragraph separators and bytes that are not UTF-8 are shown as \xNN or
 * \uNNNN; newlines too, so a value never starts a line of its own. GitHub's runner takes a line
 * that begins with "::" (after white space) as a command, and "##[command]" anywhere in a line:
 * neither can come out of a value. The program's own text (colour codes, the newlines between
 * findings) is added around escaped values, never through these functions.
 * JSON and SARIF keep values exact: sl_esc_json writes what would act as JSON escapes and
 * makes the text UTF-8. */
#ifndef SL_ESCAPE_H
#define SL_ESCAPE_H
#include <stdbool.h>
#include <stddef.h>

struct sl_buf;

/* Append s (n bytes) to b, escaped. */
void sl_esc_add(struct sl_buf *b, const char *s, size_t n);
void sl_esc_puts(struct sl_buf *b, const char *s);
/* s escaped, as a new string; caller frees. */
char *sl_esc_dup(const char *s);

/* Append text (lines of output, their values escaped already) to b, each line guarded: one whose
 * first characters other than white space and colour codes are "::" gets its first ':' as \x3a,
 * so that no line a value begins (a path, a name at the start of --explain's lines) is a command. */
void sl_esc_lines(struct sl_buf *b, const char *text, size_t n);

/* A value in a GitHub workflow command: CR, LF and '%' (and, in a property, ':' and ',') as
 * GitHub's %XX, which the runner reads back (a policy's message may span lines in an
 * annotation); every other character as sl_esc_add writes it. */
void sl_esc_github(struct sl_buf *b, const char *s, bool property);

/* A value in XML text or in an attribute (JUnit): escaped as sl_esc_puts writes it, then '&',
 * '<', '>' and both quotes as entities, and U+FFFE and U+FFFF (not XML characters) as \uXXXX. */
void sl_esc_xml(struct sl_buf *b, const char *s);

/* Whether s (n bytes) is UTF-8: no stray continuation byte, no overlong form, no surrogate, nothing
 * above U+10FFFF. */
bool sl_utf8_valid(const char *s, size_t n);
/* Append s to b with every byte that is not part of a UTF-8 character replaced by U+FFFD. */
void sl_utf8_repair(struct sl_buf *b, const char *s, size_t n);

/* Append printed JSON to b, the same document made safe to show and UTF-8: bytes that are not
 * UTF-8 become U+FFFD, and DEL, C1, bidirectional controls, the line separators and "##[" are
 * written as \uXXXX escapes, which leave every value as it was. cJSON escapes C0 itself, and
 * writes everything but the strings' bytes in ASCII, so only strings change. */
void sl_esc_json(struct sl_buf *b, const char *json, size_t n);

#endif
