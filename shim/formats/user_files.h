/* A user's own files, for a user who may not write the prefix's state dir: their snapshot,
 *   ${XDG_CACHE_HOME:-$HOME/.cache}/shimctl/identity/<prefix, '%' as %25 and '/' as %2F>
 * (XDG_CACHE_HOME and HOME count only when absolute; its first input is the prefix's manifest),
 * and their events log (below). */
#ifndef SHIMCTL_FORMATS_USER_FILES_H
#define SHIMCTL_FORMATS_USER_FILES_H

#include "put.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_USER_CACHE_DIR "shimctl"     /* in the cache home */
#define SHIMCTL_USER_SNAPSHOT_DIR "identity" /* in SHIMCTL_USER_CACHE_DIR */
#define SHIMCTL_NAME_MAX 255                 /* Linux's NAME_MAX */

/* The cache home into OUT; 0 when neither variable is usable. */
static inline size_t shimctl_user_cache_home(char* out,
                                             size_t cap,
                                             const char* xdg_cache_home,
                                             const char* home) {
  if (xdg_cache_home && xdg_cache_home[0] == '/')
    return shimctl_put(out, cap, 0, xdg_cache_home);
  if (home && home[0] == '/')
    return shimctl_put(out, cap, shimctl_put(out, cap, 0, home), "/.cache");
  return 0;
}

/* The snapshot's file name for PREFIX at OUT[AT]; returns AT plus its length. */
static inline size_t shimctl_user_snapshot_name(char* out,
                                                size_t cap,
                                                size_t at,
                                                const char* prefix) {
  for (const char* c = prefix; *c; c++) {
    char one[2] = { *c, '\0' };
    at = shimctl_put(out, cap, at, *c == '/' ? "%2F" : *c == '%' ? "%25" : one);
  }
  return at;
}

/* ${cache home}/shimctl/SUBDIR/<PREFIX encoded as above>; 0 when there is no cache home or the
 * name is longer than SHIMCTL_NAME_MAX. */
static inline size_t shimctl_user_file_path(char* out,
                                            size_t cap,
                                            const char* xdg_cache_home,
                                            const char* home,
                                            const char* subdir,
                                            const char* prefix) {
  size_t len = shimctl_user_cache_home(out, cap, xdg_cache_home, home);
  if (len == 0)
    return 0;
  len = shimctl_put(out, cap, len, "/" SHIMCTL_USER_CACHE_DIR "/");
  len = shimctl_put(out, cap, shimctl_put(out, cap, len, subdir), "/");
  size_t name_end = shimctl_user_snapshot_name(out, cap, len, prefix);
  return name_end - len > SHIMCTL_NAME_MAX ? 0 : name_end;
}

/* The user's snapshot of PREFIX (see shimctl_user_file_path). */
static inline size_t shimctl_user_snapshot_path(char* out,
                                                size_t cap,
                                                const char* xdg_cache_home,
                                                const char* home,
                                                const char* prefix) {
  return shimctl_user_file_path(out, cap, xdg_cache_home, home, SHIMCTL_USER_SNAPSHOT_DIR, prefix);
}

/* A user's own events log. The shim appends "<unix time> <event> <cache tool> <reason>" lines to
 * STATE_DIR/events.log; a user who may not write there (a root-installed prefix) gets them in
 * ${cache home}/shimctl/events/<prefix, encoded as above>, which `shimctl status` and `verify`
 * run as that user read too. */
#define SHIMCTL_USER_EVENTS_DIR "events" /* in SHIMCTL_USER_CACHE_DIR */

/* The roots of a user's last compile through a prefix whose paths were made location-free (the
 * shim's anywhere.c): ${cache home}/shimctl/roots/<prefix, encoded as above>, a symbolic link to
 * that compile's build tree, whose view (<build tree>/.shimctl-roots/s and /p, links to the source
 * tree and the Python package directory) names the others. `shimctl status` shows them. */
#define SHIMCTL_USER_ROOTS_DIR "roots" /* in SHIMCTL_USER_CACHE_DIR */

#ifdef __cplusplus
}
#endif

#endif
