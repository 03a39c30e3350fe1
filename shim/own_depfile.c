/* The shim's own dependency file for a compile that names none (shim.h).
 *
 * Without -MD, ccache cannot use its depend mode and runs the preprocessor before every miss:
 * for HIP (host and device preprocessing) that is 20-40 % of a small kernel's compile. With a
 * depfile of the shim's own, ccache reads the headers from it as from any build's -MD. ccache
 * leaves the depfile's name out of its key, so every path works; it must not be in the caller's
 * tree or a shared /tmp, and must not outlive the compile: the shim waits for ccache and
 * removes it (main.c).
 *
 * The file is "dep-<pid namespace>-<pid>.d" in the user's private runtime directory
 * (shimctl_private_runtime_dir). A shim that was killed (SIGKILL) cannot remove its file: the
 * next shim of this user in the same pid namespace removes every file there whose shim is gone
 * (ccache's own temporary files beside it start with the same name). */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's getdents64 record (musl's opendir would allocate). */
struct dirent_record {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[];
};

/* The pid namespace's inode number ("pid:[4026531836]"), as text into OUT; "0" when unknown. */
static const char* pid_namespace(char out[24]) {
  char link[64];
  ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
  link[n > 0 ? n : 0] = '\0';
  const char* open = strchr(link, '[');
  size_t len = 0;
  for (const char* c = open ? open + 1 : ""; *c >= '0' && *c <= '9' && len < 23; c++)
    out[len++] = *c;
  if (len == 0)
    out[len++] = '0';
  out[len] = '\0';
  return out;
}

/* The pid in NAME after PREFIX ("<pid>.d", "<pid>.d.<ccache's suffix>"); 0 when none. */
static pid_t pid_in_name(const char* name, const char* prefix) {
  if (!starts_with(name, prefix))
    return 0;
  long pid = 0;
  const char* c = name + strlen(prefix);
  for (; *c >= '0' && *c <= '9' && pid < 1L << 30; c++)
    pid = pid * 10 + (*c - '0');
  return *c == '.' ? (pid_t)pid : 0;
}

/* Removes the files in DIR whose name starts with PREFIX and whose shim is no longer running. */
static void sweep(const char* dir, const char* prefix) {
  static char buf[8192];
  int fd = open_file(dir, O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0)
    return;
  long n;
  while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
    for (long at = 0; at < n;) {
      struct dirent_record* d = (struct dirent_record*)(buf + at);
      at += d->reclen;
      pid_t pid = pid_in_name(d->name, prefix);
      if (pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH)
        unlinkat(fd, d->name, 0);
    }
  }
  close(fd);
}

bool own_depfile_path(char out[PATH_MAX]) {
  char dir[PATH_MAX], ns[24], pid[24], prefix[64];
  if (!shimctl_private_runtime_dir(dir, sizeof dir))
    return false;
  concat(prefix, sizeof prefix, "dep-", pid_namespace(ns), "-", NULL);
  sweep(dir, prefix);
  return concat(
           out, PATH_MAX, dir, "/", prefix, shimctl_decimal((unsigned)getpid(), pid), ".d", NULL) <
         PATH_MAX;
}
