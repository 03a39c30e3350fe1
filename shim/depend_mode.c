/* How ccache's depend mode meets a call (shim.h). */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "call_traits.h"
#include "shim.h"

#include <stdlib.h>
#include <string.h>

enum depend_plan depend_plan;
char own_depfile[PATH_MAX];
char nodepend_entry[] = "CCACHE_NODEPEND=1";
char depend_mode_entry[] = "CCACHE_DEPEND=1";

/* The config gives ccache its depend mode (CCACHE_DEPEND=1; every install since depend mode). */
static bool config_sets_depend_mode(void) {
  for (size_t i = 0; i < shim.config.count; i++) {
    const struct shimctl_directive* d = &shim.config.list[i];
    if (d->kind == SHIMCTL_SETENV && strcmp(d->u.env, depend_mode_entry) == 0)
      return true;
  }
  return false;
}

/* ccache's depend mode reads the compiler's depfile instead of running the preprocessor before a
 * miss. A HIP compile that names no depfile gets one of the shim's own (own_depfile.c): HIP's
 * preprocessing (host and device) is 20-40 % of a small kernel's compile. Not for C, C++ or nvcc
 * (their preprocessing is cheap; and ccache 4.7's depend mode gives a unit without headers the
 * same key for its manifest and its result, which then overwrite each other in remote storage).
 * A device-only compile runs without depend mode: clang-21 writes no depfile there (clang-15
 * does), and ccache would compile a second time. One that names a depfile all the same runs
 * uncached, under either tool: ccache 4.14 compiles a second time when the depfile it was
 * promised is missing, in either mode, and sccache 0.17 fails to store it and runs clang three
 * times (2.2x the uncached compile). The user's own CCACHE_DEPEND or CCACHE_NODEPEND wins
 * otherwise, and a response file (it may name a depfile), -S and several sources keep the
 * configured mode. */
enum depend_plan plan_depend_mode(const struct shim_cache_tool* tool,
                                  const struct shimctl_compiler* compiler,
                                  const struct call_traits* call) {
  if (call->device_only && call->names_dependencies)
    return DEPEND_UNCACHED; /* sccache too: it fails to store the missing depfile, compiles 3x */
  if (!tool->has_depend_mode)
    return DEPEND_AS_SET;
  if (getenv("CCACHE_DEPEND") || getenv("CCACHE_NODEPEND") || !config_sets_depend_mode())
    return DEPEND_AS_SET;
  if (call->device_only)
    return DEPEND_OFF;
  if (!compiles_hip(call, starts_with(base_name(compiler->name), "hipcc")) ||
      !call->object_compile || call->names_dependencies || call->response_file ||
      (call->output && strcmp(call->output, "-") == 0))
    return DEPEND_AS_SET;
  return own_depfile_path(own_depfile) ? DEPEND_OWN_FILE : DEPEND_AS_SET;
}
