/* Memoised probe calls (is_memoisable_probe in target_key.h). aiter probes every HIP flag it may
 * use with `hipcc FLAG -x hip -E -P /dev/null -o /dev/null` and drops the flags whose probe fails:
 * 22 such calls per module build, each a full hipcc start (0.3 s with perl hipcc 5.2, 1.5 s with
 * hipcc 7 under load), and no cache stores them (nothing to store: no output file).
 *
 * The answer of such a call (exit code, stdout, stderr) is a function of the toolchain, the
 * arguments and the environment, all of which the key holds: the toolchain's fingerprint (the
 * identity snapshot, re-hashed when any of its inputs changed), the original compiler's path, the
 * GPU target key (the config's keyenv variables, the machine's GPUs when no target is named),
 * the variables below, and every argument. The answer is kept per user beside the target probes
 * (${XDG_CACHE_HOME:-$HOME/.cache}/shimctl/probes/call-<FNV-1a of the key>, the file holding the
 * whole key, read only when it is the user's and writable by nobody else) and replayed byte for
 * byte, failing answers included: a failing probe is as much an answer as a passing one. A call
 * killed by a signal, or whose output is larger than MEMO_OUTPUT_MAX, is not kept. */
#define _GNU_SOURCE
#include "probe_call_memo.h"

#include "shim.h"
#include "target_probe_memo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MEMO_HEADER "shimctl-call-memo 1\n"
#define MEMO_OUTPUT_MAX (256 * 1024) /* stdout + stderr kept per answer */
#define KEY_MAX (64 * 1024)

extern char** environ;

/* Variables a driver reads besides the config's keyenv ones (already in the target key). */
static const char* const call_variables[] = {
  "PATH",   "LD_LIBRARY_PATH", "CPATH",    "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",  "LANG",
  "LC_ALL", "LC_MESSAGES",     "LC_CTYPE", "HIPCC_VERBOSE",  "HIP_VISIBLE_DEVICES", "TMPDIR",
  NULL
};

static bool add_line(struct target_key* key, const char* label, const char* value) {
  return key_append(key, label, value, "\n");
}

/* The key of the call into KEY (identity: the fingerprint's digits; target: the target key). */
static bool call_key(struct target_key* key,
                     const char* identity,
                     const char* real,
                     const char* target,
                     int argc,
                     char** argv) {
  char num[24];
  if (!key_append(key, MEMO_HEADER, "", "") || !add_line(key, "identity ", identity) ||
      !add_line(key, "compiler ", real) || !add_line(key, "target ", target))
    return false;
  for (int i = 0; call_variables[i]; i++) {
    const char* value = getenv(call_variables[i]);
    if (value && !(key_append(key, "env ", call_variables[i], "=") && add_line(key, value, "")))
      return false;
  }
  for (int i = 1; i < argc; i++)
    if (!(key_append(key, "arg ", shimctl_decimal(strlen(argv[i]), num), " ") &&
          add_line(key, argv[i], "")))
      return false;
  return key_append(key, "answer\n", "", "");
}

/* ~/.cache/shimctl/probes/call-<16 hex digits of KEY> into OUT; DIR_LEN: its directory. */
static bool memo_path(char out[PATH_MAX], size_t* dir_len, const struct target_key* key) {
  size_t len = shimctl_user_cache_home(out, PATH_MAX, getenv("XDG_CACHE_HOME"), getenv("HOME"));
  if (len == 0 || len >= PATH_MAX)
    return false;
  len = shimctl_put(out, PATH_MAX, len, "/" SHIMCTL_USER_CACHE_DIR "/probes");
  *dir_len = len;
  const char* parts[] = { key->buf };
  char hex[17];
  shimctl_hash16(hex, "shimctl-sccache 1", parts, 1);
  return concat(out + len, PATH_MAX - len, "/call-", hex, NULL) < PATH_MAX - len;
}

/* The number after LABEL at *AT (then past its newline); false if not there. */
static bool read_number(const char** at, const char* end, const char* label, size_t* value) {
  size_t label_len = strlen(label);
  if ((size_t)(end - *at) < label_len || memcmp(*at, label, label_len) != 0)
    return false;
  const char* c = *at + label_len;
  *value = 0;
  for (; c < end && *c >= '0' && *c <= '9'; c++)
    *value = *value * 10 + (size_t)(*c - '0');
  if (c >= end || *c != '\n')
    return false;
  *at = c + 1;
  return true;
}

/* Replays the memo at PATH if it holds KEY: writes its stdout and stderr, sets *STATUS. */
static bool replay(const char* path, const struct target_key* key, int* status) {
  static char text[KEY_MAX + MEMO_OUTPUT_MAX + 128];
  size_t len, out_len, err_len, code;
  if (!read_small_file(path, text, sizeof text - 2, &len, true) || len > sizeof text - 2 ||
      len < key->len || memcmp(text, key->buf, key->len) != 0)
    return false;
  const char* at = text + key->len;
  const char* end = text + len;
  if (!read_number(&at, end, "status ", &code) || !read_number(&at, end, "stdout ", &out_len) ||
      out_len > (size_t)(end - at))
    return false;
  const char* out = at;
  at += out_len;
  if (!read_number(&at, end, "stderr ", &err_len) || err_len != (size_t)(end - at))
    return false;
  write_all(1, out, out_len);
  write_all(2, at, err_len);
  *status = (int)code;
  return true;
}

/* The first CAP bytes of memory file FD (its size into *LEN) into BUF; false when larger. */
static bool read_memfd(int fd, char* buf, size_t cap, size_t* len) {
  off_t size = lseek(fd, 0, SEEK_END);
  if (size < 0 || (size_t)size > cap)
    return false;
  *len = 0;
  while (*len < (size_t)size) {
    ssize_t n = pread(fd, buf + *len, (size_t)size - *len, (off_t)*len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    *len += (size_t)n;
  }
  return true;
}

/* Keeps the answer (exit CODE, OUT, ERR) under KEY at PATH: a temporary file, then rename. */
static void keep(char* path,
                 size_t dir_len,
                 const struct target_key* key,
                 int code,
                 const char* out,
                 size_t out_len,
                 const char* err,
                 size_t err_len) {
  char tmp[PATH_MAX], num[3][24];
  if (!own_memo_dir(path, dir_len) ||
      concat(tmp, sizeof tmp, path, ".", shimctl_decimal((unsigned)getpid(), num[0]), NULL) >=
        sizeof tmp)
    return;
  int fd = open_file(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  if (fd < 0)
    return;
  char head[128];
  concat(head,
         sizeof head,
         "status ",
         shimctl_decimal((unsigned)code, num[0]),
         "\nstdout ",
         shimctl_decimal(out_len, num[1]),
         "\n",
         NULL);
  char mid[64];
  concat(mid, sizeof mid, "stderr ", shimctl_decimal(err_len, num[2]), "\n", NULL);
  bool ok = write_all(fd, key->buf, key->len) && write_all(fd, head, strlen(head)) &&
            write_all(fd, out, out_len) && write_all(fd, mid, strlen(mid)) &&
            write_all(fd, err, err_len);
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path) != 0)
    unlink(tmp);
}

int answer_probe_call(const char* real,
                      const char* identity,
                      const char* target,
                      int argc,
                      char** argv) {
  static char key_text[KEY_MAX];
  static char output[MEMO_OUTPUT_MAX];
  struct target_key key = { key_text, sizeof key_text, 0 };
  char path[PATH_MAX];
  size_t dir_len = 0;
  int status;
  if (!call_key(&key, identity, real, target, argc, argv) || !memo_path(path, &dir_len, &key))
    return -1;
  if (replay(path, &key, &status)) {
    if (shim.trace)
      say("probe call answered from the memo ", path, NULL);
    return status;
  }
  int out = memfd_create("shimctl-probe-stdout", MFD_CLOEXEC);
  int err = memfd_create("shimctl-probe-stderr", MFD_CLOEXEC);
  if (out < 0 || err < 0) {
    if (out >= 0)
      close(out);
    if (err >= 0)
      close(err);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  int spawned = spawn_and_wait(real, argv, environ, &actions, &status); /* argv[0] as exec'd */
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    close(out);
    close(err);
    return -1;
  }
  size_t out_len = 0, err_len = 0;
  bool small = read_memfd(out, output, sizeof output, &out_len) &&
               read_memfd(err, output + out_len, sizeof output - out_len, &err_len);
  if (small && WIFEXITED(status)) {
    keep(path, dir_len, &key, WEXITSTATUS(status), output, out_len, output + out_len, err_len);
    if (shim.trace)
      say("probe call ran and was kept: ", path, NULL);
  }
  if (small) { /* already read: written from memory */
    write_all(1, output, out_len);
    write_all(2, output + out_len, err_len);
  } else {
    copy_out(out, 1);
    copy_out(err, 2);
  }
  close(out);
  close(err);
  return passed_on_status(status);
}
