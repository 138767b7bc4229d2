/* version.c — the version, from the top-level VERSION file through the Makefile (-DSL_VERSION_STR,
 * and -DSL_VERSION_LONG from `git describe` in a git checkout not at the release's tag). Only this object carries them,
 * so that a new version, or a new commit, recompiles one file rather than every one that prints it. */
#include "emit.h"

#ifndef SL_VERSION_STR
#error "SL_VERSION_STR is the VERSION file's content, defined by the Makefile"
#endif

const char sl_version[] = SL_VERSION_STR;
#ifdef SL_VERSION_LONG
const char sl_version_full[] = SL_VERSION_STR " (git " SL_VERSION_LONG ")";
#else
const char sl_version_full[] = SL_VERSION_STR;
#endif
