/* The CUID the shim gives a HIP compile.
 * clang names a global __hip_cuid_<hash> in every HIP object after the command line, -o
 * included, which ccache leaves out of its key: a hit for x2.o would hand out x1.o's CUID, and
 * two such objects collide in one link. The shim passes -cuid=<value> (the user's own -cuid= or
 * -fuse-cuid= wins), a value made of the source and the output as the command names them (made
 * relative to the working directory when under it): the same command gets the same CUID and the
 * same key, a fresh build directory still hits, and two objects of one link differ. */
#ifndef SHIMCTL_FORMATS_CUID_H
#define SHIMCTL_FORMATS_CUID_H

#include "hash.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_CUID_FLAG "-cuid="
#define SHIMCTL_CUID_HEX 16

/* The value for SOURCE and OUTPUT ("" when the command has no -o): 16 hex digits of 64-bit
 * FNV-1a over "shimctl-cuid 1", SOURCE, a NUL, OUTPUT, at OUT (17 bytes). */
static inline const char* shimctl_cuid_value(char out[SHIMCTL_CUID_HEX + 1],
                                             const char* source,
                                             const char* output) {
  const char* parts[] = { source, output };
  return shimctl_hash16(out, "shimctl-cuid 1", parts, 2);
}

#ifdef __cplusplus
}
#endif

#endif
