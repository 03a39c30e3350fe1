/* The compiler options that take a value (option_table.c): one table for every reader of a
 * command line (call_traits.c, path_roots.c). Pure. */
#ifndef SHIMCTL_SHIM_OPTION_TABLE_H
#define SHIMCTL_SHIM_OPTION_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shimctl_option {
  const char* name;
  bool joined; /* the value may follow the name in the same argument (-I/usr/include) */
  bool path;   /* the value is a path the compile reads or writes */
};

/* The option ARG is exactly (its value then is the next argument); NULL when none. */
const struct shimctl_option* shimctl_separate_option(const char* arg);

/* The path option ARG starts with, its value glued on (-I/x, -isystem/x, -o/x, -MF/x); NULL
 * when none. *VALUE points at the value. */
const struct shimctl_option* shimctl_joined_path_option(const char* arg, const char** value);

#ifdef __cplusplus
}
#endif

#endif
