/* ccache as the shim runs it (cache_tool.h): keyed by shimctl's identity snapshot in
 * CCACHE_COMPILERCHECK, base_dir at the build tree, no directory ccache.conf read, and exec'd
 * (or, with the shim's own depfile, run as a child that the depfile is removed after). */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"
#include "target_key.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char compiler_check_entry[] = "CCACHE_COMPILERCHECK=string:shimctl-"
                                     "................................";
static char no_pieces_entry[] = "SHIMCTL_PIECES=0";

/* ccache's base_dir, by default the build tree the compile runs in (build_root in sys.c): paths
 * under it (-I<build dir>/..., generated headers, depfiles) become relative to the working
 * directory, so a fresh build directory of the same sources gets the same keys. Paths outside it
 * (the source tree, the toolchain) stay absolute. A -g compile keeps its directory in the key
 * (ccache's hash_dir), so no debug info of another directory is served. The user's own
 * CCACHE_BASEDIR wins (empty: none). False when the environment is full. */
static bool push_build_root_base_dir(void) {
  static char entry[sizeof "CCACHE_BASEDIR=" + PATH_MAX];
  if (getenv("CCACHE_BASEDIR") || !build_root())
    return true;
  concat(entry, sizeof entry, "CCACHE_BASEDIR=", build_root(), NULL);
  if (shim.trace)
    say("base_dir ", build_root(), " (the build tree)", NULL);
  return push_env(entry);
}

/* Under SHIMCTL_SHIM_TRACE=1 with ccache: the shim's stderr, kept open as another descriptor and
 * named in SHIMCTL_TRACE_FD=<fd>:<device>:<inode>, for `shimctl compile-pieces` under ccache to
 * trace to (its own stderr goes into the cached result: ccache replays it on every hit). Not
 * with sccache: its server runs the compile, and a server the shim starts would inherit the
 * descriptor and hold the caller's terminal or pipe open for its whole life. */
static bool push_trace_fd(void) {
  static char entry[96];
  struct stat st;
  int fd = fcntl(2, F_DUPFD, 100);
  if (fd < 0 || fstat(fd, &st) != 0)
    return true; /* no trace from there, that is all */
  char fd_text[24], dev_text[24], ino_text[24];
  concat(entry,
         sizeof entry,
         "SHIMCTL_TRACE_FD=",
         shimctl_decimal((unsigned long long)fd, fd_text),
         ":",
         shimctl_decimal((unsigned long long)st.st_dev, dev_text),
         ":",
         shimctl_decimal((unsigned long long)st.st_ino, ino_text),
         NULL);
  return push_env(entry);
}

/* With a store whose health the shim keeps (store line): each remote storage URL but a directory
 * gets |operation-timeout=SHIMCTL_CCACHE_OPERATION_TIMEOUT_MS unless it names one. A store that
 * accepts and hangs then costs a compile that much once (ccache skips a failed store for the
 * rest of the call), not ccache's 10 s; the shim's watch takes it out for the user's others. */
static bool ccache_bound_store_wait(void) {
  static char entry[SHIMCTL_SECRETS_MAX];
  const char name[] = "CCACHE_REMOTE_STORAGE=", bound[] = "|operation-timeout=";
  long at = find_env(name, sizeof name - 1);
  if (!shim.config.store.probe || at < 0 || strstr(cache_env[at], "operation-timeout="))
    return true;
  size_t len = concat(entry, sizeof entry, name, NULL);
  for (const char* word = cache_env[at] + sizeof name - 1; *word;) {
    size_t word_len = strcspn(word, " ");
    bool directory = starts_with(word, "file:");
    size_t need = word_len + 1 + (directory ? 0 : sizeof bound + 8);
    if (len + need >= sizeof entry)
      return true; /* as it was */
    if (len > sizeof name - 1)
      entry[len++] = ' ';
    memcpy(entry + len, word, word_len);
    entry[len += word_len] = '\0';
    if (!directory)
      len += concat(
        entry + len, sizeof entry - len, bound, SHIMCTL_CCACHE_OPERATION_TIMEOUT_MS_TEXT, NULL);
    word += word_len + strspn(word + word_len, " ");
  }
  cache_env[at] = entry;
  return true;
}

static bool ccache_add_environment(void) {
  if (!push_build_root_base_dir() || !ccache_bound_store_wait())
    return false;
  if (keyed_by_identity) {
    memcpy(compiler_check_entry + sizeof compiler_check_entry - 1 - FINGERPRINT_KEY_LEN,
           identity_key,
           FINGERPRINT_KEY_LEN);
    if (!push_env(target_key.len ? with_target_key(compiler_check_entry) : compiler_check_entry))
      return false;
  }
  if (shim.trace && !push_trace_fd())
    return false;
  /* ccache sets CCACHE_DISABLE=1 for the compiler it runs, and the pieces unset it: when the
   * user set it, the compile is meant to run uncached, whole. */
  return !getenv("CCACHE_DISABLE") || push_env(no_pieces_entry);
}

/* ccache's directory configuration files: ccache >= 4.13 also reads the first ccache.conf it finds
 * in the compile's working directory or a parent (it stops at $HOME, its ceiling_dirs, a directory
 * holding .git, a mount point, another user's directory). Such a file outranks the cache's own
 * ccache.conf, though not the environment: it could switch the cache off (disable), take the
 * directory out of the key of a -g compile (hash_dir = false), drop options from the key
 * (ignore_options), or fail every compile (an option this ccache does not know, or one a directory
 * file may not set). A shimmed compile reads none: CCACHE_CEILING_DIRS names the working directory,
 * where ccache stops before reading (ccache < 4.13 ignores the variable). A file that is there is
 * reported once in events.log. ccache splits ceiling_dirs at ':', so a working directory with a ':'
 * cannot be named: if a ccache.conf is there, that compile runs uncached. */

/* Names the working directory in CCACHE_CEILING_DIRS (in cache_env). False when it cannot and
 * a ccache.conf may be read: *REASON says why; the compile must run uncached. */
static bool pin_directory_config(const char** reason) {
  static char found[PATH_MAX], entry[sizeof "CCACHE_CEILING_DIRS=" + PATH_MAX];
  const char* cwd = current_dir();
  if (!cwd) {
    *reason = "(working directory unknown)";
    return false;
  }
  bool present = find_directory_config(cwd, found);
  if (strchr(cwd, ':')) {
    *reason = found;
    return !present;
  }
  if (present) {
    if (shim.trace)
      say("ignoring ", found, " (ccache directory configuration)", NULL);
    log_event_once("ccache-conf-ignored", found);
  }
  const size_t name_len = sizeof "CCACHE_CEILING_DIRS=" - 1;
  concat(entry, sizeof entry, "CCACHE_CEILING_DIRS=", cwd, NULL);
  long at = find_env(entry, name_len);
  char* value = entry;
  if (at >= 0 && cache_env[at][name_len] != '\0')
    value = joined_value(cache_env[at], cwd); /* the caller's ceilings stay */
  if (value && at >= 0) {
    cache_env[at] = value;
  } else if (value && push_env(value)) {
    cache_env[cache_env_count] = NULL;
  } else {
    *reason = "(environment too large)";
    return false;
  }
  return true;
}

static bool ccache_prepare(struct tool_refusal* refusal) {
  const char* unpinned = NULL;
  if (pin_directory_config(&unpinned))
    return true;
  *refusal = (struct tool_refusal){ "ccache-conf-unpinned",
                                    unpinned,
                                    true,
                                    SHIMCTL_NOT_SENT_CCACHE_CONF_UNPINNED,
                                    "cannot keep ccache from reading ",
                                    NULL };
  return false;
}

/* The team store out (store_health.c): ccache keeps its local cache and a shared cache's file
 * storage, and leaves every other remote storage out (an empty CCACHE_REMOTE_STORAGE outranks
 * a ccache.conf's). */
static bool ccache_leave_store_out(void) {
  static char entry[SHIMCTL_SECRETS_MAX];
  const char name[] = "CCACHE_REMOTE_STORAGE=";
  long at = find_env(name, sizeof name - 1);
  size_t len = concat(entry, sizeof entry, name, NULL);
  for (const char* word = at >= 0 ? cache_env[at] + sizeof name - 1 : ""; *word;) {
    size_t word_len = strcspn(word, " ");
    if (starts_with(word, "file:") && len + word_len + 1 < sizeof entry) {
      if (len > sizeof name - 1)
        entry[len++] = ' ';
      memcpy(entry + len, word, word_len);
      entry[len += word_len] = '\0';
    }
    word += word_len + strspn(word + word_len, " ");
  }
  if (at >= 0)
    cache_env[at] = entry;
  return at >= 0 || push_env(entry);
}

static int ccache_run(struct tool_refusal* refusal) {
  static char strict[PATH_MAX + 64];
  /* As a child when the depfile goes after it, or with a store: its wait is watched (the store
   * marked out for the user's other compiles as soon as it stops answering). */
  bool watched = store_watched();
  if (depend_plan == DEPEND_OWN_FILE || watched) {
    int status;
    enum store_watch gave_up;
    int spawned = spawn_and_watch(
      shim.config.cache_path, cache_argv, cache_env, NULL, &status, watched ? &gave_up : NULL);
    if (depend_plan == DEPEND_OWN_FILE)
      unlink(own_depfile);
    if (spawned == 0)
      return passed_on_status(status);
    errno = spawned;
  } else {
    execve(shim.config.cache_path, cache_argv, cache_env);
  }
  concat(strict, sizeof strict, "cache tool ", shim.config.cache_path, " cannot run: ", NULL);
  *refusal = (struct tool_refusal){ "cache-missing", strerror(errno),
                                    false,           SHIMCTL_NOT_SENT_CACHE_MISSING,
                                    strict,          NULL };
  return -1;
}

const struct shim_cache_tool ccache_shim_tool = {
  .kind = SHIMCTL_CACHE_KIND_CCACHE,
  .identity_key_variable = "CCACHE_COMPILERCHECK",
  .has_depend_mode = true,
  .ends_store_wait = true, /* operation-timeout (ccache_bound_store_wait) */
  .dir_variable = "CCACHE_DIR=",
  .stats_log = "CCACHE_STATSLOG",
  .default_dir = NULL, /* ccache's own choice: it makes it when missing */
  .add_environment = ccache_add_environment,
  .leave_store_out = ccache_leave_store_out,
  .store_back = NULL, /* it asks the store anew on every call */
  .prepare = ccache_prepare,
  .run = ccache_run,
};
