/* A compile record on a miss, the shim's side (formats/miss_record.h, `shimctl explain`).
 * The outer shim adds one environment entry for the cache tool (no hashing, nothing read); the
 * nested shim that the tool runs on a miss hands the compile to `shimctl record-miss`, which
 * runs it through this shim again and writes the record. */
#define _GNU_SOURCE
#include "cache_tool.h"
#include "shim.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char
  record_entry[sizeof SHIMCTL_RECORD_VAR "=" + 64 + FINGERPRINT_KEY_LEN + 4096 + PATH_MAX];

/* The depfile the compile writes: the shim's own, else -MF's value ("" when none). */
static const char* named_depfile(char** args) {
  if (depend_plan == DEPEND_OWN_FILE)
    return own_depfile;
  const char* found = "";
  for (int i = 1; args[i]; i++) {
    if (strcmp(args[i], "-MF") == 0 && args[i + 1])
      found = args[++i];
    else if (strncmp(args[i], "-MF", 3) == 0)
      found = args[i] + 3;
  }
  return found;
}

bool push_record_entry(char** args) {
  if (!shim.config.pieces_helper || !shim.config.state_dir || env_is("SHIMCTL_RECORDS", "0"))
    return true;
  const char* store = !store_configured() ? SHIMCTL_RECORD_STORE_NONE
                      : store_left_out    ? SHIMCTL_RECORD_STORE_OUT
                                          : SHIMCTL_RECORD_STORE_IN;
  size_t len = concat(record_entry,
                      sizeof record_entry,
                      SHIMCTL_RECORD_VAR "=" SHIMCTL_RECORD_VERSION "\n",
                      store,
                      "\n",
                      keyed_by_identity ? identity_key : "-",
                      "\n",
                      target_key.len ? target_key.buf : "-",
                      "\n",
                      named_depfile(args),
                      NULL);
  if (len >= sizeof record_entry)
    return true; /* too long: no record */
  long at = find_env(SHIMCTL_RECORD_VAR "=", sizeof SHIMCTL_RECORD_VAR);
  if (at >= 0) { /* one the caller's environment carried */
    cache_env[at] = record_entry;
    return true;
  }
  return push_env(record_entry);
}

/* SHIMCTL_RECORD's identity field is set ("-": the outer shim did not key by it). */
static bool keyed_identity_in_record(void) {
  const char* value = getenv(SHIMCTL_RECORD_VAR);
  const char* field = value ? strchr(value, '\n') : NULL; /* after VERSION */
  field = field ? strchr(field + 1, '\n') : NULL;         /* after STORE */
  return field && !(field[1] == '-' && field[2] == '\n');
}

void record_miss(const struct call_traits* call, int argc, char** argv) {
  if (!env_is("SHIMCTL_ACTIVE", "1") || !getenv(SHIMCTL_RECORD_VAR) ||
      getenv("SHIMCTL_PIECE_MARK") || !shim.config.pieces_helper || !shim.config.state_dir ||
      call->kind != CALL_COMPILE || !call->output || (size_t)argc + 8 > MAX_ARGS)
    return;
  /* The tool runs a miss's compile as its child; a call it does not cache it execs in place
   * (ccache), and the compile's parent is then the tool's caller. */
  const char* verdict = started_by_a_cache_tool() ? "miss" : "tool-ran-it";
  /* A tool that keys by its own hashing of the toolchain (sccache) carries no identity in
   * SHIMCTL_RECORD: the record names the toolchain's current one, from a current snapshot, else
   * "stale" (record-miss has identity-check hash it again, once per change). */
  static char identity[FINGERPRINT_KEY_LEN + 1] = "-";
  if (!keyed_identity_in_record() && !current_identity(identity))
    memcpy(identity, "stale", sizeof "stale");
  const char* head[] = { "record-miss",
                         shim.config.state_dir,
                         shim_cache_tool()->kind,
                         verdict,
                         identity,
                         shim.self_path,
                         "--" };
  exec_helper(head, sizeof head / sizeof *head, argc, argv); /* else: the compile runs as is */
}
