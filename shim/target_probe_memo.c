/* Memoised target probes. hipcc without a GPU target builds for what rocm_agent_enumerator (ROCm's
 * Python program, ~0.2 s a run) reports, so the key of such a compile needs its answer: on every
 * cached call, before this memo. The answer is kept per user, with everything that could change
 * it, and reused while all of that is unchanged:
 *   - the probe's file, and the target.lst beside its real path (its container mode) and at
 *     ROCM_TARGET_LST (stat data: device, inode, size, mtime, ctime; or "none");
 *   - the boot (/proc/sys/kernel/random/boot_id), the KFD topology's generation_id (a GPU that
 *     comes or goes), the mount namespace (containers on one host can see different GPUs);
 *   - the variables that change what the runtimes see (ROCR_VISIBLE_DEVICES, ...).
 * The memo is the user's own file under ${XDG_CACHE_HOME:-$HOME/.cache}/shimctl/probes (the rule
 * of the user's identity snapshot: read only when owned by this user and writable by nobody
 * else; never in the prefix, where another user could plant one). A probe that fails is not
 * memoised, nor one whose files changed in the last SETTLE_SECONDS: the next call runs it again. */
#define _GNU_SOURCE
#include "target_probe_memo.h"

#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h> /* rename */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MEMO_HEADER "shimctl-probe-memo 1\n"
#define MEMO_DIR SHIMCTL_USER_CACHE_DIR "/probes"
#define VALIDITY_MAX 8192

/* Every variable that changes which GPUs a probe sees or how it names them. */
static const char* const visibility_variables[] = {
  "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",      "CUDA_VISIBLE_DEVICES",
  "GPU_DEVICE_ORDINAL",   "HSA_OVERRIDE_GFX_VERSION", "HSA_XNACK",
  "ROCM_TARGET_LST",      "CUDA_DEVICE_ORDER",        NULL
};

/* The newest mtime or ctime among the files the validity names (seconds). */
static long long newest_change;

/* A file changed less than this many seconds ago may change again within the same timestamp
 * tick (file systems keep them at 1-10 ms, some at 1-2 s): its stat data would not show it, so
 * the answer is not memoised until the file has been left alone this long ("racily clean"). */
#define SETTLE_SECONDS 2

static bool add_stat(struct target_key* v, const char* label, const char* path) {
  struct stat st;
  char n[5][24];
  if (stat(path, &st) != 0)
    return key_append(v, label, path, " none\n");
  if (st.st_mtim.tv_sec > newest_change)
    newest_change = st.st_mtim.tv_sec;
  if (st.st_ctim.tv_sec > newest_change)
    newest_change = st.st_ctim.tv_sec;
  return key_append(v, label, path, " ") &&
         key_append(v,
                    shimctl_decimal((unsigned long long)st.st_dev, n[0]),
                    " ",
                    shimctl_decimal((unsigned long long)st.st_ino, n[1])) &&
         key_append(v, " ", shimctl_decimal((unsigned long long)st.st_size, n[2]), " ") &&
         key_append(v,
                    shimctl_decimal((unsigned long long)st.st_mtim.tv_sec, n[3]),
                    ".",
                    shimctl_decimal((unsigned long long)st.st_mtim.tv_nsec, n[4])) &&
         key_append(v, " ", shimctl_decimal((unsigned long long)st.st_ctim.tv_sec, n[3]), ".") &&
         key_append(v, shimctl_decimal((unsigned long long)st.st_ctim.tv_nsec, n[4]), "\n", "");
}

/* LABEL and the first line of a small file (or "none"). */
static bool add_file_line(struct target_key* v, const char* label, const char* path) {
  char text[256];
  size_t len;
  if (!read_small_file(path, text, sizeof text - 2, &len, false) || len > sizeof text - 2)
    return key_append(v, label, "none\n", "");
  char* newline = memchr(text, '\n', len);
  if (newline)
    *newline = '\0';
  return key_append(v, label, text, "\n");
}

/* What the probe's answer depends on, as text, into V. */
static bool validity(struct target_key* v, const char* probe) {
  char real[PATH_MAX], lst[PATH_MAX], ns[128];
  if (!key_append(v, MEMO_HEADER, "", "") || !add_stat(v, "probe ", probe))
    return false;
  if (realpath(probe, real)) {
    char* slash = strrchr(real, '/');
    *slash = '\0';
    if (concat(lst, sizeof lst, real, "/target.lst", NULL) >= sizeof lst ||
        !add_stat(v, "target.lst ", lst))
      return false;
  }
  ssize_t n = readlink("/proc/self/ns/mnt", ns, sizeof ns - 1);
  ns[n > 0 ? n : 0] = '\0';
  if (!key_append(v, "mnt-ns ", ns, "\n") ||
      !add_file_line(v, "boot ", "/proc/sys/kernel/random/boot_id") ||
      !add_file_line(v, "kfd ", "/sys/class/kfd/kfd/topology/generation_id"))
    return false;
  for (int i = 0; visibility_variables[i]; i++) {
    const char* value = getenv(visibility_variables[i]);
    if (value &&
        !(key_append(v, "env ", visibility_variables[i], "=") && key_append(v, value, "\n", "")))
      return false;
  }
  const char* lst_env = getenv("ROCM_TARGET_LST");
  return !lst_env || add_stat(v, "ROCM_TARGET_LST ", lst_env);
}

/* The memo's path for PROBE into OUT; false without a usable cache home. DIR_LEN: its directory. */
static bool memo_path(char out[PATH_MAX], size_t* dir_len, const char* probe) {
  size_t len = shimctl_user_cache_home(out, PATH_MAX, getenv("XDG_CACHE_HOME"), getenv("HOME"));
  if (len == 0 || len >= PATH_MAX)
    return false;
  len = shimctl_put(out, PATH_MAX, len, "/" MEMO_DIR);
  *dir_len = len;
  size_t end =
    shimctl_user_snapshot_name(out, PATH_MAX, shimctl_put(out, PATH_MAX, len, "/"), probe);
  return end < PATH_MAX && end - len - 1 <= SHIMCTL_NAME_MAX;
}

/* The memo at PATH, if it starts with VALIDITY: its answer into OUT. */
static bool read_memo(const char* path,
                      const struct target_key* valid,
                      char* out,
                      size_t cap,
                      size_t* len,
                      int* status) {
  static char text[VALIDITY_MAX + 4096 + 64];
  size_t text_len;
  if (!read_small_file(path, text, sizeof text - 2, &text_len, true) ||
      text_len > sizeof text - 2 || text_len < valid->len ||
      memcmp(text, valid->buf, valid->len) != 0)
    return false;
  const char* rest = text + valid->len;
  if (!starts_with(rest, "answer\n"))
    return false;
  rest += sizeof "answer\n" - 1;
  size_t answer_len = text_len - (size_t)(rest - text);
  if (answer_len >= cap)
    return false;
  memcpy(out, rest, answer_len);
  out[answer_len] = '\0';
  *len = answer_len;
  *status = 0; /* only successful answers are kept */
  return true;
}

bool own_memo_dir(char* path, size_t dir_len) {
  char saved = path[dir_len];
  path[dir_len] = '\0';
  bool ok = true;
  for (char* slash = path + 1; ok; slash++) {
    bool last = *slash == '\0';
    if (*slash != '/' && !last)
      continue;
    *slash = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
      ok = false;
    if (!last)
      *slash = '/';
    else
      break;
  }
  struct stat st;
  ok = ok && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
       (st.st_mode & 022) == 0;
  path[dir_len] = saved;
  return ok;
}

static void write_memo(char* path,
                       size_t dir_len,
                       const struct target_key* valid,
                       const char* answer,
                       size_t answer_len) {
  char tmp[PATH_MAX], num[24];
  if (!own_memo_dir(path, dir_len) ||
      concat(tmp, sizeof tmp, path, ".", shimctl_decimal((unsigned)getpid(), num), NULL) >=
        sizeof tmp)
    return;
  int fd = open_file(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  if (fd < 0)
    return;
  bool ok = write(fd, valid->buf, valid->len) == (ssize_t)valid->len &&
            write(fd, "answer\n", 7) == 7 && write(fd, answer, answer_len) == (ssize_t)answer_len;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path) != 0)
    unlink(tmp);
}

bool key_visibility(struct target_key* key) {
  for (int i = 0; visibility_variables[i]; i++) {
    const char* value = getenv(visibility_variables[i]);
    if (value &&
        !(key_append(key, ";", visibility_variables[i], "=") && key_append(key, value, "", "")))
      return false;
  }
  return true;
}

bool run_probe_memoised(const char* probe, char* out, size_t cap, size_t* len, int* status) {
  static char valid_text[VALIDITY_MAX];
  struct target_key valid = { valid_text, sizeof valid_text, 0 };
  char path[PATH_MAX];
  size_t dir_len = 0;
  bool memo = validity(&valid, probe) && memo_path(path, &dir_len, probe);
  if (memo && read_memo(path, &valid, out, cap, len, status)) {
    if (shim.trace)
      say("probe answer from the memo ", path, NULL);
    return true;
  }
  char* args[] = { (char*)probe, NULL };
  if (!run_and_read(args, out, cap, len, status))
    return false;
  if (memo && *len < cap - 1 && WIFEXITED(*status) && WEXITSTATUS(*status) == 0 &&
      (long long)time(NULL) - newest_change >= SETTLE_SECONDS)
    write_memo(path, dir_len, &valid, out, *len);
  if (shim.trace)
    say("probe ran: ", probe, NULL);
  return true;
}
