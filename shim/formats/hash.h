/* The one hash of shimctl's names (64-bit FNV-1a). */
#ifndef SHIMCTL_FORMATS_HASH_H
#define SHIMCTL_FORMATS_HASH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one hash of shimctl's names: 64-bit FNV-1a over TAG and PARTS[0..COUNT), each followed by
 * a NUL. Not a cryptographic hash: names (a CUID, a server's instance and port, a memo's file)
 * whose full key is kept or checked elsewhere. */
static inline unsigned long long shimctl_fnv1a(const char* tag,
                                               const char* const* parts,
                                               int count) {
  unsigned long long h = 14695981039346656037ULL;
  for (int p = -1; p < count; p++) {
    for (const char* c = p < 0 ? tag : parts[p]; *c; c++)
      h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    h = (h ^ 0u) * 1099511628211ULL; /* the NUL after each part */
  }
  return h;
}

/* shimctl_fnv1a as 16 lowercase hex digits at OUT (17 bytes). */
static inline const char* shimctl_hash16(char out[17],
                                         const char* tag,
                                         const char* const* parts,
                                         int count) {
  unsigned long long h = shimctl_fnv1a(tag, parts, count);
  static const char digits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; i--, h >>= 4)
    out[i] = digits[h & 15];
  out[16] = '\0';
  return out;
}

#ifdef __cplusplus
}
#endif

#endif
