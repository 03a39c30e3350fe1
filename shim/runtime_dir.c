/* Where each user's sccache server is (formats.h): the user's private runtime directory
 * (shimctl_private_runtime_dir), where the shim puts the socket and its lock; and who listens
 * on a TCP port (shimctl_tcp_listener). The shim and shimctl use both. */
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

/* Who listens on TCP port PORT, from the kernel's socket table FILE (/proc/net/tcp or tcp6):
 * "sl local_address rem_address st ... uid ...", local_address "HEX_ADDR:HEX_PORT", st 0A. */
static enum shimctl_listener listener_in(const char* file, unsigned port) {
  static char table[1024 * 1024];
  enum shimctl_listener found = SHIMCTL_LISTENER_NONE;
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return SHIMCTL_LISTENER_NONE;
  size_t len = 0;
  ssize_t n;
  while (len < sizeof table - 1 &&
         ((n = read(fd, table + len, sizeof table - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
    len += n > 0 ? (size_t)n : 0;
  close(fd);
  table[len] = '\0';
  for (char* line = strchr(table, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
    char* p = line + 1;
    char* colon = strchr(p, ':'); /* after "sl" */
    char* addr_end = colon ? strchr(colon + 2, ' ') : NULL;
    if (!addr_end)
      break;
    char* port_colon = memrchr(colon + 2, ':', (size_t)(addr_end - colon - 2));
    if (!port_colon || strtoul(port_colon + 1, NULL, 16) != port)
      continue;
    /* fields after local_address: rem_address st tx:rx tr:when retrnsmt uid */
    char* fields[6];
    char* q = addr_end;
    int count = 0;
    while (count < 6 && (q = strchr(q, ' '))) {
      while (*q == ' ')
        q++;
      fields[count++] = q;
    }
    if (count < 6 || strncmp(fields[1], "0A ", 3) != 0) /* not listening */
      continue;
    if (strtoul(fields[5], NULL, 10) != geteuid())
      return SHIMCTL_LISTENER_OTHER;
    found = SHIMCTL_LISTENER_MINE;
  }
  return found;
}

enum shimctl_listener shimctl_tcp_listener(unsigned port) {
  enum shimctl_listener v4 = listener_in("/proc/net/tcp", port);
  enum shimctl_listener v6 = listener_in("/proc/net/tcp6", port);
  return v4 == SHIMCTL_LISTENER_OTHER || v6 == SHIMCTL_LISTENER_OTHER ? SHIMCTL_LISTENER_OTHER
         : v4 == SHIMCTL_LISTENER_MINE || v6 == SHIMCTL_LISTENER_MINE ? SHIMCTL_LISTENER_MINE
                                                                      : SHIMCTL_LISTENER_NONE;
}
