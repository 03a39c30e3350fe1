/* Defaults the user's environment overrides.
 * A setenv default NAME=VALUE applies only where the environment sets neither NAME nor, for
 * ccache's booleans, the other form of it: CCACHE_NODEPEND=1 turns off a CCACHE_DEPEND=1 default,
 * CCACHE_DEPEND=1 a CCACHE_NODEPEND=1 one (ccache reads CCACHE_<X> and CCACHE_NO<X> as one
 * setting, and refuses CCACHE_DEPEND=0). */
#ifndef SHIMCTL_FORMATS_ENV_DEFAULTS_H
#define SHIMCTL_FORMATS_ENV_DEFAULTS_H

#include "put.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_CCACHE_ENV "CCACHE_"

/* The other form of the variable named by ENTRY ("NAME" or "NAME=VALUE"), "NAME=" included, into
 * OUT: CCACHE_X= <-> CCACHE_NOX=. 0 when NAME is no CCACHE_ variable or OUT is too small. */
static inline size_t shimctl_negated_env_name(char* out, size_t cap, const char* entry) {
  const size_t prefix_len = sizeof SHIMCTL_CCACHE_ENV - 1;
  size_t name_len = 0;
  while (entry[name_len] && entry[name_len] != '=')
    name_len++;
  if (name_len <= prefix_len)
    return 0;
  for (size_t i = 0; i < prefix_len; i++)
    if (entry[i] != SHIMCTL_CCACHE_ENV[i])
      return 0;
  const char* rest = entry + prefix_len;
  size_t rest_len = name_len - prefix_len;
  bool negated = rest_len > 2 && rest[0] == 'N' && rest[1] == 'O';
  size_t len = prefix_len + (negated ? rest_len - 2 : rest_len + 2) + 1;
  if (len + 1 > cap)
    return 0;
  size_t at = shimctl_put(out, cap, 0, SHIMCTL_CCACHE_ENV);
  if (negated) {
    rest += 2;
    rest_len -= 2;
  } else {
    at = shimctl_put(out, cap, at, "NO");
  }
  for (size_t i = 0; i < rest_len; i++)
    out[at++] = rest[i];
  out[at++] = '=';
  out[at] = '\0';
  return at;
}

#ifdef __cplusplus
}
#endif

#endif
