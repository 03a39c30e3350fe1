/* A user's private directory for sockets, locks and memos: the shim's choice (runtime_dir.c) and
 * `shimctl status`'s. */
#ifndef SHIMCTL_FORMATS_RUNTIME_DIR_H
#define SHIMCTL_FORMATS_RUNTIME_DIR_H

#include "config.h"
#include "put.h"
#include "user_files.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHIMCTL_RUNTIME_DIR "shimctl-run" /* under $XDG_RUNTIME_DIR or the user's cache home */
#define SHIMCTL_RUNTIME_DIR_CHOICES 3
#define SHIMCTL_SUN_PATH_MAX 108 /* sizeof sockaddr_un.sun_path on Linux */

/* Choice I (0 to SHIMCTL_RUNTIME_DIR_CHOICES - 1) of the user's private directory for sockets
 * and locks, into OUT: $XDG_RUNTIME_DIR/shimctl-run, <cache home>/shimctl-run,
 * /tmp/shimctl-run-<uid>. The first that is (or can be made) a directory of the user's, mode
 * 0700, with room for a socket name under it, is the one. 0 when choice I does not apply. */
static inline size_t shimctl_runtime_dir(char* out,
                                         size_t cap,
                                         int i,
                                         const char* xdg_runtime_dir,
                                         const char* xdg_cache_home,
                                         const char* home,
                                         unsigned long long uid) {
  size_t len = 0;
  char num[24];
  if (i == 0 && xdg_runtime_dir && xdg_runtime_dir[0] == '/')
    len = shimctl_put(out, cap, shimctl_put(out, cap, 0, xdg_runtime_dir), "/" SHIMCTL_RUNTIME_DIR);
  else if (i == 1 && (len = shimctl_user_cache_home(out, cap, xdg_cache_home, home)) != 0)
    len = shimctl_put(out, cap, len, "/" SHIMCTL_RUNTIME_DIR);
  else if (i == 2)
    len = shimctl_put(out,
                      cap,
                      shimctl_put(out, cap, 0, "/tmp/" SHIMCTL_RUNTIME_DIR "-"),
                      shimctl_decimal(uid, num));
  const size_t socket_name = sizeof "/sccache-" - 1 + SHIMCTL_SCCACHE_KEY_HEX + sizeof ".sock";
  return len < cap && len + socket_name <= SHIMCTL_SUN_PATH_MAX ? len : 0;
}

/* The first usable choice above into OUT (made when missing: runtime_dir.c); false when none
 * is. The directory's parent must belong to the user or root and, when others may write it, be
 * sticky: a variable that `su` kept (another user's XDG_RUNTIME_DIR or HOME) must not lead a
 * compile into a directory that user controls. */
bool shimctl_private_runtime_dir(char* out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
