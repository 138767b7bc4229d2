/* fuzz.h — what the libFuzzer harnesses share: the input as a file (the config and the whole
 * pipeline read paths), rewritten in place for every execution. */
#ifndef SL_FUZZ_H
#define SL_FUZZ_H
#include <stddef.h>
#include <stdint.h>

/* A file that holds data (and only data) now; the same path every call. */
const char *sl_fuzz_file(const uint8_t *data, size_t size, const char *suffix);

#endif
