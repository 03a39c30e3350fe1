/* The user's private runtime directory (formats/runtime_dir.h: shimctl_private_runtime_dir), where
 * the shim puts sccache's socket and its lock and the store health memo. The shim and shimctl use
 * it. */
#define _GNU_SOURCE
#include "formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every directory above PATH belongs to the user or root and, where others may write it, is
 * sticky (/tmp): nobody else can rename PATH away and put their own in its place. */
static bool ancestors_safe(char* path) {
  struct stat st;
  for (char* slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    bool safe = stat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
                (st.st_uid == geteuid() || st.st_uid == 0) &&
                ((st.st_mode & 022) == 0 || (st.st_mode & S_ISVTX));
    *slash = '/';
    if (!safe)
      return false;
  }
  struct stat root;
  return stat("/", &root) == 0 && root.st_uid == 0 && (root.st_mode & 022) == 0;
}

/* DIR is a directory of this user's that nobody else may enter or replace (ancestors_safe):
 * created (0700) when missing, its mode tightened when it is the user's own. A directory of
 * someone else's, or a link: no. A variable that `su` kept (another user's XDG_RUNTIME_DIR or
 * HOME) must not lead a compile into a directory that user controls. */
static bool private_directory(char* dir) {
  struct stat st;
  if (!ancestors_safe(dir))
    return false;
  if (lstat(dir, &st) != 0) {
    if (errno != ENOENT || mkdir(dir, 0700) != 0 || lstat(dir, &st) != 0)
      return false;
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
    return false;
  return (st.st_mode & 077) == 0 || chmod(dir, 0700) == 0;
}

bool shimctl_private_runtime_dir(char* private_dir, size_t cap) {
  for (int i = 0; i < SHIMCTL_RUNTIME_DIR_CHOICES; i++) {
    if (!shimctl_runtime_dir(private_dir,
                             cap,
                             i,
                             getenv("XDG_RUNTIME_DIR"),
                             getenv("XDG_CACHE_HOME"),
                             getenv("HOME"),
                             geteuid()))
      continue;
    if (i == 1) { /* the cache home (~/.cache) may not exist yet: made only where it is safe */
      char* slash = strrchr(private_dir, '/');
      *slash = '\0';
      struct stat st;
      if (lstat(private_dir, &st) != 0 && errno == ENOENT && ancestors_safe(private_dir))
        mkdir(private_dir, 0700);
      *slash = '/';
    }
    if (private_directory(private_dir))
      return true;
  }
  private_dir[0] = '\0';
  return false;
}
