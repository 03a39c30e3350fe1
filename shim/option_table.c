/* The compiler options that take a value (option_table.h): clang/gcc, hipcc and nvcc spellings. */
#include "option_table.h"

#include "text.h"

#include <string.h>

/* Longer names before their prefixes (-isystem before -I is not needed: case differs). */
static const struct shimctl_option options[] = {
  { "-o", true, true },
  { "-I", true, true },
  { "-isystem", true, true },
  { "-include", true, true },
  { "-imacros", true, true },
  { "-iquote", true, true },
  { "-idirafter", true, true },
  { "-cxx-isystem", true, true },
  { "-MF", true, true },
  { "-MT", false, false },
  { "-MQ", false, false },
  { "-x", false, false },
  { "-Xclang", false, false },
  { "-Xlinker", false, false },
  { "-Xcompiler", false, false },
  { "-Xptxas", false, false },
  { "-Xnvlink", false, false },
  { "-ccbin", false, false },
  { "-L", false, false },
  { "-D", false, false },
  { "-U", false, false },
  { "-target", false, false },
  { "--sysroot", false, false },
  { "-isysroot", false, false },
  { "-gencode", false, false },
  { "-Xarch_host", false, false },
  { "-Xarch_device", false, false },
  { "--offload-arch", false, false },
  { "-arch", false, false },
  { "--cuda-gpu-arch", false, false },
  { NULL, false, false },
};

const struct shimctl_option* shimctl_separate_option(const char* arg) {
  if (arg[0] != '-')
    return NULL;
  for (const struct shimctl_option* o = options; o->name; o++)
    if (strcmp(arg, o->name) == 0)
      return o;
  return NULL;
}

const struct shimctl_option* shimctl_joined_path_option(const char* arg, const char** value) {
  if (arg[0] != '-')
    return NULL;
  const struct shimctl_option* found = NULL;
  size_t found_len = 0;
  for (const struct shimctl_option* o = options; o->name; o++) {
    size_t len = strlen(o->name);
    if (o->joined && o->path && len > found_len && starts_with(arg, o->name) && arg[len] != '\0') {
      found = o;
      found_len = len;
    }
  }
  if (found)
    *value = arg + found_len;
  return found;
}
