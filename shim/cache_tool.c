/* The table of cache tools (cache_tool.h). */
#define _GNU_SOURCE
#include "cache_tool.h"

#include <string.h>

static const struct shim_cache_tool* const tools[] = { &ccache_shim_tool, &sccache_shim_tool };

const struct shim_cache_tool* shim_cache_tool(void) {
  static const struct shim_cache_tool* picked;
  if (!picked) {
    picked = tools[0];
    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
      if (shim.config.cache_kind && strcmp(tools[i]->kind, shim.config.cache_kind) == 0)
        picked = tools[i];
  }
  return picked;
}

bool started_by_a_cache_tool(void) {
  char exe[PATH_MAX];
  if (!parent_program(exe))
    return false; /* unknown: assume no launcher */
  const char* name = base_name(exe);
  for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
    if (starts_with(name, tools[i]->kind))
      return true;
  return false;
}
