/* The identity guard: the toolchain's fingerprint for the cache key, from the prefix's identity
 * snapshot, else the user's own, else `shimctl identity-check` (ARCHITECTURE.md, "Toolchain
 * identity in the cache key"). */
#define _GNU_SOURCE
#include "shim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* A snapshot holds the toolchain fingerprint and, per input file, the stat data it had when it
 * was hashed. When every input still has that stat data, the fingerprint is current: its first
 * digits go to KEY. Any change (content, a replaced file, a touch) makes the snapshot stale. The
 * user's own snapshot must be the user's file and start with this prefix's manifest. */
static bool snapshot_is_current(const char* path, bool users_own, char* key) {
  static char text[SHIMCTL_IDENTITY_MAX + 2];
  struct shimctl_snapshot_reader reader;
  const char* fingerprint;
  size_t len;
  if (!read_small_file(path, text, SHIMCTL_IDENTITY_MAX, &len, users_own) ||
      len > SHIMCTL_IDENTITY_MAX || !shimctl_snapshot_begin(&reader, text, len, &fingerprint))
    return false;
  memcpy(key, fingerprint, FINGERPRINT_KEY_LEN);
  int dir_fd = -1;
  unsigned lines = 2;
  bool current = true;
  while (current) {
    const char* dir = NULL;
    struct shimctl_snapshot_input input;
    enum shimctl_snapshot_line line = shimctl_snapshot_next(&reader, &dir, &input);
    if (line == SHIMCTL_SNAPSHOT_END)
      break;
    if (++lines == 3 && users_own &&
        !(line == SHIMCTL_SNAPSHOT_DIR && strcmp(dir, shim.config.state_dir) == 0)) {
      current = false; /* another prefix's */
    } else if (line == SHIMCTL_SNAPSHOT_DIR) {
      close_directory(dir_fd);
      dir_fd = open_directory(dir);
      current = dir_fd >= 0;
    } else {
      current = line == SHIMCTL_SNAPSHOT_INPUT && input_unchanged(dir_fd, &input);
    }
  }
  close_directory(dir_fd);
  return current && lines >= (users_own ? 4 : 2);
}

/* A stale snapshot: `IDENTITY_HELPER identity-check PREFIX` hashes the inputs, rewrites the
 * snapshot when it may, and prints the fingerprint. Its stdin and stderr are /dev/null: the
 * compile's streams belong to the compiler. */
static bool helper_fingerprint(char* key) {
  static char command[] = "identity-check";
  char prefix[PATH_MAX], out[128];
  char* args[] = { (char*)shim.config.identity_helper, command, prefix, NULL };
  size_t len;
  int status = 0;
  if (!prefix_of_state(prefix) || !run_and_read(args, out, sizeof out, &len, &status) ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !shimctl_is_fingerprint(out))
    return false;
  memcpy(key, out, FINGERPRINT_KEY_LEN);
  return true;
}

bool current_identity(char* key) {
  char path[PATH_MAX], prefix[PATH_MAX];
  const char* state_dir = shim.config.state_dir;
  if (state_dir &&
      concat(path, sizeof path, state_dir, "/" SHIMCTL_IDENTITY_NAME, NULL) < sizeof path &&
      snapshot_is_current(path, false, key)) {
    if (shim.trace)
      say("identity current (snapshot)", NULL);
    return true;
  }
  size_t len = 0;
  if (prefix_of_state(prefix))
    len = shimctl_user_snapshot_path(
      path, sizeof path, getenv("XDG_CACHE_HOME"), getenv("HOME"), prefix);
  if (len > 0 && len < sizeof path && snapshot_is_current(path, true, key)) {
    if (shim.trace)
      say("identity current (user snapshot ", path, ")", NULL);
    return true;
  }
  return false;
}

bool know_identity(char* key) {
  if (current_identity(key))
    return true;
  if (shim.trace)
    say("identity snapshot stale: asking ", shim.config.identity_helper, NULL);
  return helper_fingerprint(key);
}
