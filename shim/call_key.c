/* The GPU target key of a call (shim.h): the config's keyenv variables, what -march=native means
 * here, and the targets a native or implicit target resolves to (the probe, memoised). It rides on
 * shimctl's own key of the toolchain (cache_tool.h: keyed_by_snapshot). */
#define _GNU_SOURCE
#include "call_traits.h"
#include "shim.h"
#include "target_key.h"
#include "target_probe_memo.h"

#include <stdlib.h>

#define TARGET_KEY_MAX 16384 /* the environment and GPU targets in the cache key */

static char target_key_text[TARGET_KEY_MAX];
struct target_key target_key = { target_key_text, sizeof target_key_text, 0 };

/* Fills target_key for COMPILER called with ARGV. False: the object depends on what cannot be
 * keyed (a native target and no probe, a failed probe, a key too long): compile uncached. */
bool build_target_key(const struct shimctl_compiler* compiler, struct call_traits call) {
  for (size_t i = 0; i < shim.config.count; i++) {
    const struct shimctl_directive* d = &shim.config.list[i];
    const char* value = d->kind == SHIMCTL_KEYENV ? getenv(d->u.variable) : NULL;
    if (value && !(key_append(&target_key, ";", d->u.variable, "=") &&
                   key_append(&target_key, value, "", "")))
      return false;
  }
  if (call.host_cpu) {
    static char info[65536];
    size_t len;
    if (!read_small_file("/proc/cpuinfo", info, sizeof info - 2, &len, false) ||
        !key_host_cpu(&target_key, info, len))
      return false;
  }
  if (call.target == TARGET_EXPLICIT)
    return true;
  /* --offload-arch=native: what the compiler runs for it (clang's amdgpu-arch, nvcc's
   * __nvcc_device_query); no target at all: what hipcc runs (rocm_agent_enumerator). */
  const struct shimctl_target_probe* probe =
    shimctl_find_probe(&shim.config,
                       call.target == TARGET_NATIVE ? SHIMCTL_NATIVE_PROBE : SHIMCTL_TARGET_PROBE,
                       compiler->name);
  if (!probe)
    return call.target != TARGET_NATIVE;
  char out[4096];
  size_t len;
  int status = 0;
  if (!run_probe_memoised(probe->probe, out, sizeof out, &len, &status) || len == sizeof out - 1)
    return false; /* more than any GPU list: the key would be cut */
  return key_probe_output(&target_key, out, status) && key_visibility(&target_key);
}
